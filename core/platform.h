/* SPDX-License-Identifier: GPL-2.0 */
/*
 * platform.h - everything the forwarding core needs from its environment.
 *
 * The core is freestanding: it never calls libc, libstdc++ or the kernel
 * directly. Each environment (the kernel module's C shim, the userspace
 * build) implements this C interface once. Nothing here is called from a
 * static constructor; the core has none.
 *
 * Contexts. "Datapath" functions run with an RCU read section held and,
 * in the kernel, in softirq with bottom halves disabled: they may only use
 * xb_alloc(XB_ALLOC_ATOMIC), the spinlock and the per-CPU helpers.
 * "Control" functions run in process context and may sleep: they may use
 * xb_synchronize_rcu() and XB_ALLOC_SLEEP.
 *
 * Ownership. Memory from xb_alloc() is freed with xb_free(); per-CPU
 * memory from xb_percpu_alloc() with xb_percpu_free(); an object from
 * xb_obj_cache_alloc() with xb_obj_cache_free() to the same cache, and
 * the cache, once all of its objects are freed, with
 * xb_obj_cache_destroy(); a lock from xb_lock_create() with
 * xb_lock_destroy().
 */
#ifndef XBRIDGE_CORE_PLATFORM_H
#define XBRIDGE_CORE_PLATFORM_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stddef.h>
#include <stdint.h>
#endif

#include "thread_safety.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Allocation. Every allocation can fail and returns NULL then. */
enum xb_alloc_ctx {
	XB_ALLOC_ATOMIC = 0,	/* may be called in softirq / under a spinlock */
	XB_ALLOC_SLEEP = 1,	/* process context; large sizes allowed */
};
void *xb_alloc(size_t size, enum xb_alloc_ctx ctx);	/* zeroed memory */
void xb_free(void *ptr);

/*
 * Object caches: many objects of one size (the kernel's kmem_cache, named
 * in /proc/slabinfo). Objects are packed @size bytes apart (rounded up to
 * a pointer's size), aligned to a pointer and no more: a 184-byte object
 * takes 184 bytes, where xb_alloc() would take kmalloc-192's 192.
 * Create and destroy in control context; the cache must not be destroyed
 * while an object of it is live, nor while an xb_call_rcu() callback that
 * frees one may still run (xb_rcu_barrier() first). Alloc and free in any
 * context, as xb_alloc() and xb_free(). @name must outlive the cache.
 */
struct xb_obj_cache;
struct xb_obj_cache *xb_obj_cache_create(const char *name, size_t size);	/* NULL: failed */
void xb_obj_cache_destroy(struct xb_obj_cache *cache);	/* NULL: nothing */
void *xb_obj_cache_alloc(struct xb_obj_cache *cache, enum xb_alloc_ctx ctx);	/* zeroed */
void xb_obj_cache_free(struct xb_obj_cache *cache, void *obj);	/* NULL: nothing */

/* Per-CPU memory: one zeroed copy of @size bytes for each possible CPU. */
void *xb_percpu_alloc(size_t size, size_t align, enum xb_alloc_ctx ctx);
void xb_percpu_free(void *pcpu);
/* This CPU's copy; caller must not migrate (datapath, or bh disabled). */
void *xb_percpu_this(void *pcpu);
/*
 * The same, for a caller that finds several copies in one datapath run
 * (a hook's chains, one frame) without migrating between them: *@run_cpu
 * is the run's note of the CPU, XB_CPU_UNNOTED before the first call. An
 * environment that must ask for the CPU (userspace) asks once and keeps
 * it there; one whose this_cpu_ptr is one add (the kernel) ignores it.
 */
#define XB_CPU_UNNOTED (~0u)
void *xb_percpu_this_noted(void *pcpu, unsigned int *run_cpu);
/* CPU @cpu's copy, for summing; NULL for an impossible CPU. */
void *xb_percpu_cpu(void *pcpu, unsigned int cpu);
unsigned int xb_percpu_nr_ids(void);
/* The CPU this runs on (raw_smp_processor_id: may be stale at once). */
unsigned int xb_this_cpu_id(void);

/*
 * Monotonic time in nanoseconds, at tick resolution or better. The
 * datapath reads it once per frame for FDB timestamps (millisecond ticks),
 * so it must be cheap: the kernel's coarse clock (jiffies) is what fits.
 */
uint64_t xb_now_ns(void);

/* Uniform random numbers (hash seeds). */
uint32_t xb_random_u32(void);

/*
 * The wall clock, for nft's meta time, day and hour: nanoseconds since
 * the epoch (ktime_get_real_ns), and the kernel's timezone in minutes west
 * of UTC (sys_tz, as settimeofday set it; 0 when nothing did). Datapath.
 */
uint64_t xb_realtime_ns(void);
int32_t xb_tz_minuteswest(void);

/*
 * RCU. In the kernel, xb_rcu_head is the kernel's own struct rcu_head
 * (struct callback_head), so a core callback has exactly the type call_rcu
 * calls: no cast function pointer (undefined behaviour, and a kCFI trap).
 * The C shim sees the kernel's definition; the core's C++ objects, built
 * without kernel headers (XB_PLATFORM_KERNEL), the same layout and tag
 * declared here. A callback finds its object with xb_container_of.
 * Userspace has the same layout, and platform_user.cc queues the heads
 * itself and calls each callback with its own type after a liburcu grace
 * period.
 */
#if defined(__KERNEL__)
typedef struct callback_head xb_rcu_head;
#elif defined(XB_PLATFORM_KERNEL)
struct callback_head {
	struct callback_head *next;
	void (*func)(struct callback_head *head);
} __attribute__((aligned(sizeof(void *))));
typedef struct callback_head xb_rcu_head;
#else
struct xb_rcu_head {
	struct xb_rcu_head *next;
	void (*func)(struct xb_rcu_head *head);
};
typedef struct xb_rcu_head xb_rcu_head;
#endif
typedef void (*xb_rcu_callback)(xb_rcu_head *head);
void xb_rcu_read_lock(void);
void xb_rcu_read_unlock(void);
void xb_synchronize_rcu(void);		/* control context only */
void xb_call_rcu(xb_rcu_head *head, xb_rcu_callback fn);
void xb_rcu_barrier(void);		/* control context only */
/* Control context, outside any RCU read section or lock: let other tasks
 * run if one is waiting (a long walk in slices). */
void xb_cond_resched(void);
/*
 * Grace-period cookies (the kernel's polled RCU): xb_rcu_gp_start() makes
 * sure a grace period will start and returns its cookie; xb_rcu_gp_done()
 * tells whether a full grace period has passed since; xb_rcu_gp_wait()
 * waits only if it has not. Memory unpublished before the cookie was taken
 * is unread once it is done. Control context only.
 */
typedef unsigned long xb_rcu_gp;
xb_rcu_gp xb_rcu_gp_start(void);
int xb_rcu_gp_done(xb_rcu_gp gp);
void xb_rcu_gp_wait(xb_rcu_gp gp);

/*
 * The writer lock. It excludes both other writers and datapath writers
 * (learning), so the kernel implements it as a bottom-half-safe spinlock.
 */
struct XB_CAPABILITY("xb_lock") xb_lock;
struct xb_lock *xb_lock_create(void);	/* NULL on allocation failure */
void xb_lock_destroy(struct xb_lock *lock);
void xb_lock_acquire(struct xb_lock *lock) XB_ACQUIRE(lock);
void xb_lock_release(struct xb_lock *lock) XB_RELEASE(lock);

/* Logging, printf-style (the subset both printk and vsnprintf accept). */
enum xb_log_level {
	XB_LOG_ERR = 3,
	XB_LOG_WARN = 4,
	XB_LOG_INFO = 6,
	XB_LOG_DEBUG = 7,
};
void xb_log(enum xb_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * nft's `log` statement (nft_log): the environment's packet logger for the
 * bridge family - in the kernel nf_log, so a line reads as the Linux
 * bridge's would (nf_log_syslog), or goes to an NFLOG group. The rule
 * holds the logger while it lives: xb_nft_logger_get() at its creation
 * (control context; -ENOENT when there is none, as nf_logger_find_get),
 * xb_nft_logger_put() at its free (any context). xb_nft_log() logs the
 * frame @frame_cookie (RxFrame::cookie; nullptr: a frame of no
 * environment, logged by what is known) at nf_tables hook @hook, between
 * the devices @in_ifindex and @out_ifindex (0: none). Datapath.
 */
struct xb_nft_loginfo {
	uint8_t type;		/* NF_LOG_TYPE_LOG 0, NF_LOG_TYPE_ULOG 1 */
	uint8_t level;		/* LOG: the syslog level, 0..7 */
	uint8_t logflags;	/* LOG: NF_LOG_TCPSEQ ... NF_LOG_MACDECODE */
	uint8_t copy_len_set;	/* ULOG: snaplen given */
	uint16_t group;		/* ULOG: the NFLOG group */
	uint16_t qthreshold;	/* ULOG */
	uint32_t copy_len;	/* ULOG: snaplen */
	char prefix[128];	/* NUL-terminated; "" without one */
};
int xb_nft_logger_get(uint8_t type);
void xb_nft_logger_put(uint8_t type);
void xb_nft_log(const void *frame_cookie, unsigned int hook, uint32_t in_ifindex,
		uint32_t out_ifindex, const struct xb_nft_loginfo *log);

/*
 * nft's meta keys that read what a frame's skb carries besides its bytes
 * (nft_meta_get_eval; @key the NFT_META_* number): SKUID and SKGID, the
 * fsuid and fsgid of the file of the frame's full socket, as the socket's
 * namespace's user namespace maps them; CGROUP, the socket's net_cls
 * class id; RTCLASSID, its route's tclassid. False where nf_tables breaks:
 * no such socket in the bridge's namespace (a forwarded frame has none),
 * or no route. @frame_cookie as for xb_nft_log() (nullptr: false).
 * Datapath, under RCU.
 */
bool xb_nft_frame_meta(const void *frame_cookie, unsigned int key, uint32_t *value);

/*
 * nft's `reject` at the bridge's prerouting or input hook
 * (nft_reject_bridge): the environment builds the reply to the frame
 * @frame_cookie - a TCP reset, or an ICMP/ICMPv6 destination unreachable
 * with @code - as nf_reject_skb_v4/v6_* build it (no reply to a reset, a
 * fragment, an ICMP error or a bad checksum), addressed back to the
 * frame's sender with the frame's out-of-band VLAN tag, and sends it out
 * of the ingress port @in_ifindex. The core calls it only for a unicast
 * IPv4/IPv6 frame that came in through a forwarding port, and drops the
 * frame itself. Datapath; nothing is returned, as on Linux.
 */
struct xb_nft_rejectinfo {
	uint8_t tcp_reset;	/* 1: TCP RST; 0: ICMP unreachable */
	uint8_t code;		/* the ICMP or ICMPv6 code, for this frame */
	uint8_t hook;		/* NF_BR_PRE_ROUTING or NF_BR_LOCAL_IN */
	uint8_t vlan_present;
	uint16_t vlan_proto;	/* host order */
	uint16_t vlan_tci;
	uint16_t l3proto;	/* ETH_P_IP or ETH_P_IPV6, host order */
	uint16_t nhoff;		/* the IP header, from the frame's start */
	uint32_t in_ifindex;
};
void xb_nft_reject(const void *frame_cookie, const struct xb_nft_rejectinfo *reject);

/*
 * A broken invariant (a failed assertion): the kernel's WARN_ONCE - one
 * warning with a backtrace, which the test kernel's runner fails on - and
 * carry on; userspace logs it as an error each time (counted, as xb_log).
 */
void xb_warn_once(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#ifdef __cplusplus
}
#endif

#endif /* XBRIDGE_CORE_PLATFORM_H */
