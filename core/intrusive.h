/* SPDX-License-Identifier: GPL-2.0 */
/*
 * intrusive.h - the Boost.Intrusive configuration the core uses.
 *
 * Boost.Intrusive containers never allocate, so they are kernel-safe; they
 * are NOT safe for lock-free readers beside a writer, so the core uses
 * them only for control-plane state under the control lock. Datapath
 * lookups use RCU-published structures (VlanSet, Fdb, Bridge port table).
 * Assertions route to boost::assertion_failed (boost_assert.cc), which
 * logs through the platform instead of calling abort().
 */
#ifndef XBRIDGE_CORE_INTRUSIVE_H
#define XBRIDGE_CORE_INTRUSIVE_H

#ifndef BOOST_ENABLE_ASSERT_HANDLER
#define BOOST_ENABLE_ASSERT_HANDLER
#endif
#ifndef BOOST_NO_EXCEPTIONS
#define BOOST_NO_EXCEPTIONS
#endif
#include <boost/intrusive/list.hpp>

namespace xb {

/* Safe-mode hook: unlinked state is checkable, no auto-unlink. */
using ListHook = boost::intrusive::list_member_hook<
	boost::intrusive::link_mode<boost::intrusive::safe_link>>;

} // namespace xb

#endif /* XBRIDGE_CORE_INTRUSIVE_H */
