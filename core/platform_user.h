/* SPDX-License-Identifier: GPL-2.0 */
/*
 * platform_user.h - test hooks of the userspace platform (platform_user.cc).
 *
 * Userspace only: tests, fuzzers and benchmarks use these to inject
 * allocation failures, drive a fake clock and count allocations and log
 * messages. The kernel shim has none of this; core sources never include
 * this header.
 *
 * All hooks are process-wide and thread-safe.
 */
#ifndef XBRIDGE_CORE_PLATFORM_USER_H
#define XBRIDGE_CORE_PLATFORM_USER_H

#include <stddef.h>
#include <stdint.h>

#include "platform.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Allocation failure injection. After @n more successful allocations, every
 * allocation fails (xb_alloc, xb_percpu_alloc, xb_obj_cache_create,
 * xb_obj_cache_alloc and xb_lock_create return NULL). n = 0 fails the next
 * one; n = -1 (the default) disables injection.
 */
void xb_user_fail_alloc_after(long n);

/* Bytes currently allocated by xb_alloc() and xb_obj_cache_alloc(),
 * exactly as callers asked for (an object: its cache's size). */
size_t xb_user_bytes_allocated(void);
/* Blocks (and objects) currently allocated by them. */
size_t xb_user_allocs_live(void);

/*
 * Fake clock. Once set, xb_now_ns() returns the fake value (advanced only by
 * these calls) until xb_user_use_real_time(); by default it reads
 * CLOCK_MONOTONIC. Advancing a clock that was never set starts the fake
 * clock from the real time.
 */
void xb_user_set_time_ns(uint64_t ns);
void xb_user_advance_time_ns(uint64_t ns);
void xb_user_use_real_time(void);

/* Number of xb_log() calls made at @level since the start. */
unsigned long xb_user_log_count(enum xb_log_level level);
/* Whether xb_log() writes to stderr (default on); counting goes on regardless. */
void xb_user_log_to_stderr(int enable);

/*
 * nft `log` (xb_nft_log): userspace has a logger for both types unless a
 * test removes it; each call is recorded (the latest 256), for tests to
 * read back, and nothing is printed.
 */
struct xb_user_nft_log_record {
	unsigned int hook;
	uint32_t in_ifindex;
	uint32_t out_ifindex;
	const void *frame_cookie;
	struct xb_nft_loginfo log;
};
void xb_user_set_nft_logger(int present);
long xb_user_nft_loggers_held(void);
size_t xb_user_nft_log_count(void);	/* records kept */
int xb_user_nft_log_get(size_t i, struct xb_user_nft_log_record *out);	/* 0 or -1 */
void xb_user_nft_log_clear(void);

/* The wall clock xb_realtime_ns() returns (0: the real one again) and the
 * timezone xb_tz_minuteswest() does (userspace's default: 0, UTC). */
void xb_user_set_realtime(uint64_t ns, int32_t tz_minuteswest);

/*
 * nft `reject` (xb_nft_reject): each reply asked for is recorded (the
 * latest 256) for tests to read back; nothing is sent.
 */
struct xb_user_nft_reject_record {
	const void *frame_cookie;
	struct xb_nft_rejectinfo reject;
};
size_t xb_user_nft_reject_count(void);	/* records kept */
int xb_user_nft_reject_get(size_t i, struct xb_user_nft_reject_record *out);	/* 0 or -1 */
void xb_user_nft_reject_clear(void);

/*
 * Pack cache-line-sized blocks (FDB entries) densely in huge-page-backed
 * memory, as the kernel's kmalloc-64 slab does, instead of malloc's
 * header-and-padding layout; and the objects of every object cache created
 * afterwards (conntrack entries) @size bytes apart, as their kmem_cache
 * does. For the benchmark: AddressSanitizer cannot see inside the slab, so
 * tests leave it off. Call before the first xb_alloc().
 */
void xb_user_use_slab(int enable);

#ifdef __cplusplus
}
#endif

#endif /* XBRIDGE_CORE_PLATFORM_USER_H */
