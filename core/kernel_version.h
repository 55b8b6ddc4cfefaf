/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kernel_version.h - which Linux the core mirrors where the two supported
 * kernels, 6.1 and 6.12, behave differently.
 *
 * The module is built per kernel: Kbuild passes its version as
 * XB_KERNEL_MAJOR and XB_KERNEL_MINOR. Userspace builds (unit tests,
 * fuzzers, benchmarks) take the newer kernel's behaviour. Only 6.1 and
 * 6.12 were read: where a behaviour changed between them, the release that
 * changed it is pinned down only where the user of the constant names the
 * commit, so a kernel in between gets 6.12's.
 *
 * Constants only: no state, no locking.
 */
#ifndef XBRIDGE_CORE_KERNEL_VERSION_H
#define XBRIDGE_CORE_KERNEL_VERSION_H

namespace xb {

#if defined(XB_KERNEL_MAJOR) && defined(XB_KERNEL_MINOR)
constexpr bool kLinuxBefore612 =
	XB_KERNEL_MAJOR < 6 || (XB_KERNEL_MAJOR == 6 && XB_KERNEL_MINOR < 12);
#else
constexpr bool kLinuxBefore612 = false;
#endif

} // namespace xb

#endif
