// SPDX-License-Identifier: GPL-2.0
/*
 * boost_assert.cc - the assertion handlers Boost.Intrusive calls with
 * BOOST_ENABLE_ASSERT_HANDLER: log through the platform, never abort or
 * throw (the kernel build has neither). Stateless.
 */
#include "intrusive.h"
#include "platform.h"

namespace boost {

void assertion_failed(char const *expr, char const *function, char const *file, long line)
{
	xb_log(XB_LOG_ERR, "xbridge: assertion %s failed in %s (%s:%ld)\n", expr,
	       function, file, line);
}

void assertion_failed_msg(char const *expr, char const *msg, char const *function,
			  char const *file, long line)
{
	xb_log(XB_LOG_ERR, "xbridge: assertion %s failed: %s in %s (%s:%ld)\n", expr,
	       msg, function, file, line);
}

} // namespace boost
