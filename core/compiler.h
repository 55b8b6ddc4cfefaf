/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compiler.h - small language helpers shared by every core file: branch
 * hints, one-time loads and stores for data read by lock-free readers, and
 * the RCU publication primitives. No state, no ownership.
 *
 * Memory model: fields read by the datapath without the writer lock are
 * accessed only through load_once/store_once (relaxed atomics: no tearing,
 * no compiler re-reads) or rcu_deref/rcu_publish (acquire/release: a reader
 * that sees a pointer also sees everything written before it was published).
 */
#ifndef XBRIDGE_CORE_COMPILER_H
#define XBRIDGE_CORE_COMPILER_H

#include <stddef.h>
#include <stdint.h>

#include "platform.h"

#define xb_likely(x) __builtin_expect(!!(x), 1)
#define xb_unlikely(x) __builtin_expect(!!(x), 0)
/* Out of line: code a hot loop seldom calls, kept out of its registers. */
#define xb_noinline __attribute__((noinline))
/* Inline even where the compiler would not: a helper whose callers each
 * want their own copy with their constants folded in. */
#define xb_always_inline inline __attribute__((always_inline))

/* The @type object whose @member is at @ptr (the kernel's container_of). */
#define xb_container_of(ptr, type, member) \
	(reinterpret_cast<type *>(reinterpret_cast<char *>(ptr) - __builtin_offsetof(type, member)))

namespace xb {

template <typename T> inline T load_once(const T &v)
{
	return __atomic_load_n(&v, __ATOMIC_RELAXED);
}

template <typename T> inline void store_once(T &v, T value)
{
	__atomic_store_n(&v, value, __ATOMIC_RELAXED);
}

/*
 * A lock-free read of a value its lock's holder writes with store_once (a
 * counter read for statistics or a cheap pre-check): relaxed, untorn, maybe
 * stale. The one read the thread-safety analysis may not see, because it is
 * meant to happen without the lock that guards the value.
 */
template <typename T> inline T racy(const T &v) XB_NO_THREAD_SAFETY_ANALYSIS
{
	return __atomic_load_n(&v, __ATOMIC_RELAXED);
}

/*
 * A lock-free read of a word that is then dereferenced (the FDB
 * destination, a tagged pointer): the kernel's READ_ONCE with its
 * address-dependency ordering, asked for as consume (which compilers
 * strengthen to acquire). Pairs with store_publish() on the writer side.
 */
template <typename T> inline T load_dep(const T &v)
{
	return __atomic_load_n(&v, __ATOMIC_CONSUME);
}

/* Store a word readers dereference after load_dep(): what it points to is
 * visible to them first (release). */
template <typename T> inline void store_publish(T &v, T value)
{
	__atomic_store_n(&v, value, __ATOMIC_RELEASE);
}

/* Read a pointer published with rcu_publish(); caller is in an RCU read section. */
template <typename T> inline T *rcu_deref(T *const &p)
{
	return __atomic_load_n(&p, __ATOMIC_ACQUIRE);
}

/* Publish a fully initialised object to RCU readers. */
template <typename T> inline void rcu_publish(T *&p, T *value)
{
	__atomic_store_n(&p, value, __ATOMIC_RELEASE);
}

/*
 * An RCU-published pointer: the core's __rcu marker. Readers load it with
 * rcu() inside an RCU read section (acquire: they see the object as it was
 * published); the one writer - serialised by its caller (RTNL) or its
 * lock - publishes with publish() (release) and reads its own current
 * value with writer(); init() sets it before any reader can see the owner
 * (or after they are gone). No conversion to T*: a plain load of a
 * published pointer does not compile, it names which side it is on.
 * Links inside published structures (hash chains, radix slots) use the
 * rcu_deref/rcu_publish primitives above.
 */
template <typename T> class RcuPtr {
public:
	constexpr RcuPtr() = default;
	RcuPtr(const RcuPtr &) = delete;
	RcuPtr &operator=(const RcuPtr &) = delete;

	T *rcu() const { return __atomic_load_n(&p_, __ATOMIC_ACQUIRE); }
	T *writer() const { return p_; }
	void publish(T *value) { __atomic_store_n(&p_, value, __ATOMIC_RELEASE); }
	void init(T *value) { p_ = value; }

private:
	T *p_ = nullptr;
};

/* Scoped RCU read section. */
class RcuReadGuard {
public:
	RcuReadGuard() { xb_rcu_read_lock(); }
	~RcuReadGuard() { xb_rcu_read_unlock(); }
	RcuReadGuard(const RcuReadGuard &) = delete;
	RcuReadGuard &operator=(const RcuReadGuard &) = delete;
};

/* Scoped writer lock (a scoped capability: thread_safety.h). */
class XB_SCOPED_CAPABILITY LockGuard {
public:
	explicit LockGuard(xb_lock *lock) XB_ACQUIRE(lock) : lock_(lock) { xb_lock_acquire(lock_); }
	~LockGuard() XB_RELEASE() { xb_lock_release(lock_); }
	LockGuard(const LockGuard &) = delete;
	LockGuard &operator=(const LockGuard &) = delete;

private:
	xb_lock *lock_;
};

inline void prefetch(const void *p)
{
	__builtin_prefetch(p, 0, 3);
}

} // namespace xb

#endif /* XBRIDGE_CORE_COMPILER_H */
