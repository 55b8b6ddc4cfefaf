// SPDX-License-Identifier: GPL-2.0
/*
 * boost_assert.cc - the assertion handlers Boost.Intrusive calls with
 * BOOST_ENABLE_ASSERT_HANDLER: a broken container invariant is a bug, so
 * it warns through the platform (WARN_ONCE in the kernel, which the test
 * kernel's runner fails on), never aborts or throws (the kernel build has
 * neither). Stateless.
 */
#include "intrusive.h"
#include "platform.h"

namespace boost {

void assertion_failed(char const *expr, char const *function, char const *file, long line)
{
	xb_warn_once("xbridge: assertion %s failed in %s (%s:%ld)\n", expr,
		     function, file, line);
}

void assertion_failed_msg(char const *expr, char const *msg, char const *function,
			  char const *file, long line)
{
	xb_warn_once("xbridge: assertion %s failed: %s in %s (%s:%ld)\n", expr,
		     msg, function, file, line);
}

} // namespace boost
