/* SPDX-License-Identifier: GPL-2.0 */
/*
 * thread_safety.h - the lock and RCU rules in a form the compiler checks:
 * clang's thread-safety attributes (-Wthread-safety), as Zircon's
 * TA_GUARDED / TA_REQ, behind XB_ macros that expand to the attributes
 * under clang in userspace and to nothing under gcc and in the kernel
 * build (where lockdep and sparse's __rcu do the checking at run time or
 * not at all). Only macros: no state, no code, C and C++.
 *
 * The capability is the core's writer lock, struct xb_lock (platform.h):
 * xb_lock_acquire/xb_lock_release acquire and release it, LockGuard
 * (compiler.h) holds it for a scope. A field written only under a lock is
 * XB_GUARDED_BY(that lock); a function that must be called with it held
 * is XB_REQUIRES(it) and one that takes it itself XB_EXCLUDES(it).
 *
 * Fields read lock-free by the datapath are not guarded (the analysis
 * knows no RCU): RCU-published pointers are RcuPtr<T> (compiler.h), whose
 * only loads are rcu() (reader, acquire) and writer() (the serialised
 * writer's plain load), so a plain load of one does not compile; scalar
 * options go through load_once/store_once.
 *
 * The clang build checks every core source with -Wthread-safety
 * -Werror=thread-safety (tools/check-thread-safety.sh, a meson test).
 */
#ifndef XBRIDGE_CORE_THREAD_SAFETY_H
#define XBRIDGE_CORE_THREAD_SAFETY_H

#if defined(__clang__) && !defined(__KERNEL__)
#define XB_TSA(x) __attribute__((x))
#else
#define XB_TSA(x)
#endif

#define XB_CAPABILITY(name) XB_TSA(capability(name))
#define XB_SCOPED_CAPABILITY XB_TSA(scoped_lockable)
#define XB_GUARDED_BY(lock) XB_TSA(guarded_by(lock))
#define XB_PT_GUARDED_BY(lock) XB_TSA(pt_guarded_by(lock))
#define XB_REQUIRES(...) XB_TSA(requires_capability(__VA_ARGS__))
#define XB_ACQUIRE(...) XB_TSA(acquire_capability(__VA_ARGS__))
#define XB_RELEASE(...) XB_TSA(release_capability(__VA_ARGS__))
#define XB_EXCLUDES(...) XB_TSA(locks_excluded(__VA_ARGS__))
#define XB_RETURN_CAPABILITY(lock) XB_TSA(lock_returned(lock))
/* Only where the analysis cannot follow (say why at each use). */
#define XB_NO_THREAD_SAFETY_ANALYSIS XB_TSA(no_thread_safety_analysis)

#endif /* XBRIDGE_CORE_THREAD_SAFETY_H */
