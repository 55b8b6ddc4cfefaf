// SPDX-License-Identifier: GPL-2.0
/*
 * platform_user.cc - the userspace implementation of platform.h, for unit
 * tests, fuzzers, benchmarks and the demo.
 *
 * Memory comes from the C allocator, RCU readers and grace periods from
 * liburcu-bp (the "bulletproof" flavour: threads need no registration) with
 * callbacks run by a worker thread of our own, the writer lock is a pthread
 * mutex, time is CLOCK_MONOTONIC_COARSE. Test hooks (platform_user.h) inject
 * allocation failures, fake the clock and count allocations and log lines.
 *
 * This file is built into xbcore with the core's flags (-fno-exceptions
 * -fno-rtti -fno-threadsafe-statics), so it has no function-local statics;
 * all state is constant-initialised at namespace scope (atomics, and the
 * pthread mutex, conditions and once-flag of the RCU callback queue).
 */
#include "platform_user.h"

#include "compiler.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/rseq.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <new>

#include <urcu-bp.h>

namespace {

constexpr size_t kCacheLine = 64;
constexpr size_t kHugePage = size_t(2) << 20;

/* Failure injection: allocations left before failing, -1 = never fail. */
constinit std::atomic<long> g_allocs_before_failure{-1};
constinit std::atomic<size_t> g_bytes_live{0};
constinit std::atomic<size_t> g_allocs_live{0};

constinit std::atomic<bool> g_fake_time{false};
constinit std::atomic<uint64_t> g_fake_now_ns{0};

constexpr int kLogLevels = 8;
constinit std::atomic<unsigned long> g_log_count[kLogLevels] = {};
constinit std::atomic<bool> g_log_to_stderr{true};

constinit std::atomic<unsigned int> g_nr_cpus{0};

/* Consume one allocation from the failure-injection budget. */
bool alloc_permitted()
{
	long left = g_allocs_before_failure.load(std::memory_order_relaxed);
	while (left >= 0) {
		if (left == 0)
			return false;
		if (g_allocs_before_failure.compare_exchange_weak(
			    left, left - 1, std::memory_order_relaxed))
			return true;
	}
	return true;
}

size_t round_up(size_t v, size_t to)
{
	return (v + to - 1) / to * to;
}

/*
 * Every block from xb_alloc() and xb_percpu_alloc() is preceded by this
 * header, placed immediately before the pointer handed out. @offset is the
 * distance from the start of the underlying allocation to that pointer.
 */
struct BlockHeader {
	size_t size;	/* xb_alloc: bytes asked for; percpu: stride per CPU */
	size_t offset;
};
static_assert(sizeof(BlockHeader) == 16);

/*
 * Allocate @size zeroed bytes aligned to @align (a power of two >= 16),
 * with a BlockHeader in front recording @recorded_size. Returns the user
 * pointer or NULL.
 */
void *alloc_with_header(size_t size, size_t align, size_t recorded_size)
{
	size_t offset = align;	/* >= sizeof(BlockHeader), keeps alignment */
	if (size > SIZE_MAX - offset)
		return nullptr;
	void *base = nullptr;
	/*
	 * Blocks of 2 MB or more (the FDB's and conntrack's bucket arrays at
	 * scale) are huge-page-advised, as the kernel maps them: kvzalloc
	 * passes VM_ALLOW_HUGE_VMAP and x86-64 has HAVE_ARCH_HUGE_VMALLOC
	 * (mm/util.c kvmalloc_node, 6.1), so a 16 MB table is 2 MB pages.
	 * __vmalloc_node_range then rounds the size up to whole 2 MB pages,
	 * and so does this: an 8,000,000-byte table is four huge pages, not
	 * three and 2 MB of small ones. The block still counts as @size.
	 */
	const bool huge = size >= kHugePage;
	size_t span = offset + size;
	if (huge) {
		if (span > SIZE_MAX - (kHugePage - 1))
			return nullptr;
		span = (span + kHugePage - 1) & ~(kHugePage - 1);
	}
	if (posix_memalign(&base, huge ? kHugePage : align, span) != 0)
		return nullptr;
	if (huge)
		madvise(base, span, MADV_HUGEPAGE);
	memset(base, 0, span);
	auto *user = static_cast<unsigned char *>(base) + offset;
	auto *hdr = reinterpret_cast<BlockHeader *>(user) - 1;
	hdr->size = recorded_size;
	hdr->offset = offset;
	return user;
}

BlockHeader *header_of(void *user)
{
	return reinterpret_cast<BlockHeader *>(user) - 1;
}

void free_with_header(void *user)
{
	free(static_cast<unsigned char *>(user) - header_of(user)->offset);
}

/*
 * A slab: one reserved, huge-page-advised region carved in objects of
 * @stride bytes, with a free list. An object belongs to the slab iff its
 * address is inside the region. Mutex-protected: objects are allocated
 * under the FDB or conntrack lock and freed from the RCU callback thread.
 * Two kinds: the optional one for cache-line blocks of xb_alloc (g_slab),
 * and an object cache's own when xb_user_use_slab() was on at its
 * creation.
 */
struct Slab {
	pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	unsigned char *base = nullptr;
	size_t reserved = 0;
	size_t used = 0;
	size_t stride = 0;
	void *free_list = nullptr;
};
Slab g_slab;
constexpr size_t kSlabReserve = size_t(16) << 30;	/* virtual only */

/* Reserve @slab's region for objects of @stride bytes; false if mmap fails. */
bool slab_reserve(Slab &slab, size_t stride)
{
	void *p = mmap(nullptr, kSlabReserve, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return false;
	madvise(p, kSlabReserve, MADV_HUGEPAGE);
	slab.base = static_cast<unsigned char *>(p);
	slab.reserved = kSlabReserve;
	slab.stride = stride;
	return true;
}

bool in_slab(const Slab &slab, const void *p)
{
	auto *c = static_cast<const unsigned char *>(p);
	return slab.base && c >= slab.base && c < slab.base + slab.reserved;
}

void *slab_alloc(Slab &slab)
{
	void *p = nullptr;
	pthread_mutex_lock(&slab.lock);
	if (slab.free_list) {
		p = slab.free_list;
		slab.free_list = *static_cast<void **>(p);
	} else if (slab.used + slab.stride <= slab.reserved) {
		p = slab.base + slab.used;
		slab.used += slab.stride;
	}
	pthread_mutex_unlock(&slab.lock);
	if (p)
		memset(p, 0, slab.stride);
	return p;
}

void slab_free(Slab &slab, void *p)
{
	pthread_mutex_lock(&slab.lock);
	*static_cast<void **>(p) = slab.free_list;
	slab.free_list = p;
	pthread_mutex_unlock(&slab.lock);
}

/* Whether object caches created from now on pack their objects. */
constinit std::atomic<bool> g_pack_obj_caches{false};

} // namespace

extern "C" void xb_user_use_slab(int enable)
{
	if (!enable || g_slab.base)
		return;
	if (slab_reserve(g_slab, kCacheLine))
		g_pack_obj_caches.store(true, std::memory_order_relaxed);
}


extern "C" {

/* ---- allocation ---------------------------------------------------- */


void *xb_alloc(size_t size, enum xb_alloc_ctx ctx)
{
	(void)ctx;
	if (!alloc_permitted())
		return nullptr;
	if (size == kCacheLine && g_slab.base) {
		void *b = slab_alloc(g_slab);
		if (b) {
			g_bytes_live.fetch_add(size, std::memory_order_relaxed);
			g_allocs_live.fetch_add(1, std::memory_order_relaxed);
		}
		return b;
	}
	/* Blocks of a cache line or more start on a cache line, as kmalloc's. */
	size_t align = size >= kCacheLine ? kCacheLine : 16;
	void *p = alloc_with_header(size, align, size);
	if (p) {
		g_bytes_live.fetch_add(size, std::memory_order_relaxed);
		g_allocs_live.fetch_add(1, std::memory_order_relaxed);
	}
	return p;
}

void xb_free(void *ptr)
{
	if (!ptr)
		return;
	g_allocs_live.fetch_sub(1, std::memory_order_relaxed);
	if (in_slab(g_slab, ptr)) {
		g_bytes_live.fetch_sub(kCacheLine, std::memory_order_relaxed);
		slab_free(g_slab, ptr);
		return;
	}
	g_bytes_live.fetch_sub(header_of(ptr)->size, std::memory_order_relaxed);
	free_with_header(ptr);
}

/* ---- object caches ---------------------------------------------------- */

/*
 * Objects count as xb_alloc blocks of the object's size (the cache itself,
 * like a lock, counts nothing) and take a turn of the failure injection,
 * as does the cache's creation. Each object is a block of its own, which
 * AddressSanitizer sees; or, with xb_user_use_slab() on when the cache was
 * created (the benchmark), packed @size bytes apart (rounded up to 8) in a
 * slab of the cache's own, as SLUB packs a kmem_cache without
 * SLAB_HWCACHE_ALIGN.
 */
struct xb_obj_cache {
	const char *name;
	size_t size;
	std::atomic<size_t> live;
	Slab slab;	/* base == nullptr: a block per object */
};

struct xb_obj_cache *xb_obj_cache_create(const char *name, size_t size)
{
	if (size == 0 || !alloc_permitted())
		return nullptr;
	auto *cache = static_cast<struct xb_obj_cache *>(malloc(sizeof(struct xb_obj_cache)));
	if (!cache)
		return nullptr;
	new (cache) xb_obj_cache{name, size, {0}, {}};
	if (g_pack_obj_caches.load(std::memory_order_relaxed))
		slab_reserve(cache->slab, round_up(size, sizeof(void *)));	/* else unpacked */
	return cache;
}

void xb_obj_cache_destroy(struct xb_obj_cache *cache)
{
	if (!cache)
		return;
	const size_t live = cache->live.load(std::memory_order_relaxed);
	if (live) {
		/* As kmem_cache_destroy: complain, and keep the cache. */
		xb_warn_once("object cache %s destroyed with %zu objects live", cache->name, live);
		return;
	}
	if (cache->slab.base)
		munmap(cache->slab.base, cache->slab.reserved);
	pthread_mutex_destroy(&cache->slab.lock);
	cache->~xb_obj_cache();
	free(cache);
}

void *xb_obj_cache_alloc(struct xb_obj_cache *cache, enum xb_alloc_ctx ctx)
{
	(void)ctx;
	if (!alloc_permitted())
		return nullptr;
	void *p = cache->slab.base ? slab_alloc(cache->slab)
				   : alloc_with_header(cache->size, 16, cache->size);
	if (p) {
		cache->live.fetch_add(1, std::memory_order_relaxed);
		g_bytes_live.fetch_add(cache->size, std::memory_order_relaxed);
		g_allocs_live.fetch_add(1, std::memory_order_relaxed);
	}
	return p;
}

void xb_obj_cache_free(struct xb_obj_cache *cache, void *obj)
{
	if (!obj)
		return;
	cache->live.fetch_sub(1, std::memory_order_relaxed);
	g_bytes_live.fetch_sub(cache->size, std::memory_order_relaxed);
	g_allocs_live.fetch_sub(1, std::memory_order_relaxed);
	if (cache->slab.base)
		slab_free(cache->slab, obj);
	else
		free_with_header(obj);
}

/* ---- per-CPU memory ------------------------------------------------- */

unsigned int xb_percpu_nr_ids(void)
{
	unsigned int nr = g_nr_cpus.load(std::memory_order_relaxed);
	if (nr == 0) {
		long n = sysconf(_SC_NPROCESSORS_CONF);
		nr = n > 0 ? static_cast<unsigned int>(n) : 1;
		g_nr_cpus.store(nr, std::memory_order_relaxed);
	}
	return nr;
}

/* Each CPU's copy sits in its own cache lines: stride = size rounded up. */
void *xb_percpu_alloc(size_t size, size_t align, enum xb_alloc_ctx ctx)
{
	(void)ctx;
	if (!alloc_permitted())
		return nullptr;
	if (align < kCacheLine)
		align = kCacheLine;
	if (align & (align - 1))
		return nullptr;
	size_t stride = round_up(size ? size : 1, align);
	size_t nr = xb_percpu_nr_ids();
	if (stride > SIZE_MAX / nr)
		return nullptr;
	return alloc_with_header(stride * nr, align, stride);
}

void xb_percpu_free(void *pcpu)
{
	if (pcpu)
		free_with_header(pcpu);
}

void *xb_percpu_cpu(void *pcpu, unsigned int cpu)
{
	if (cpu >= xb_percpu_nr_ids())
		return nullptr;
	return static_cast<unsigned char *>(pcpu) + cpu * header_of(pcpu)->size;
}

/*
 * Userspace threads can migrate at any time, so two threads may briefly
 * share a copy: per-CPU counters then lose an occasional increment, which
 * statistics tolerate. Nothing here can corrupt memory.
 */
/*
 * The CPU this thread runs on. Where glibc registered the kernel's rseq
 * area for the thread, its cpu_id is one load (what this_cpu_ptr costs
 * in the kernel); else sched_getcpu(). Either may be stale by the time it
 * is used, as the comment above allows.
 */
namespace {

/* xb_this_cpu_id's work, inline in xb_percpu_this: a per-CPU counter pays
 * one call here, as this_cpu_ptr's few instructions in the kernel. */
inline unsigned int this_cpu_id(void)
{
#if defined(__x86_64__)
	if (xb_likely(__rseq_size > 0)) {
		char *tp;
		asm("mov %%fs:0, %0" : "=r"(tp));
		const auto *rs = reinterpret_cast<const struct rseq *>(tp + __rseq_offset);
		const uint32_t cpu = __atomic_load_n(&rs->cpu_id, __ATOMIC_RELAXED);
		if (xb_likely(int32_t(cpu) >= 0))	/* not UNINITIALIZED (-1) or FAILED (-2) */
			return cpu;
	}
#endif
	const int cpu = sched_getcpu();
	return cpu < 0 ? 0 : static_cast<unsigned int>(cpu);
}

} // namespace

unsigned int xb_this_cpu_id(void)
{
	return this_cpu_id();
}

namespace {

/* The copy of CPU @cpu, a CPU this_cpu_id() returned. */
inline void *percpu_copy(void *pcpu, unsigned int cpu)
{
	/* every copy was allocated after xb_percpu_nr_ids() cached the count */
	const unsigned int nr = g_nr_cpus.load(std::memory_order_relaxed);
	if (xb_unlikely(cpu >= nr))	/* a CPU brought up later: share */
		cpu %= nr;
	return static_cast<unsigned char *>(pcpu) + cpu * header_of(pcpu)->size;
}

} // namespace

void *xb_percpu_this(void *pcpu)
{
	return percpu_copy(pcpu, this_cpu_id());
}

/* The CPU read once per run: a thread that migrates within it counts on
 * the copy of the CPU it started on, the shared copy the comment above
 * allows for. */
void *xb_percpu_this_noted(void *pcpu, unsigned int *run_cpu)
{
	if (xb_unlikely(*run_cpu == XB_CPU_UNNOTED))
		*run_cpu = this_cpu_id();
	return percpu_copy(pcpu, *run_cpu);
}

/* ---- time and randomness --------------------------------------------- */

namespace {
/* The wall clock a test set (xb_user_set_realtime); 0: the real one. */
constinit std::atomic<uint64_t> g_fake_realtime_ns{0};
constinit std::atomic<int32_t> g_tz_minuteswest{0};
} // namespace

uint64_t xb_now_ns(void)
{
	if (g_fake_time.load(std::memory_order_acquire))
		return g_fake_now_ns.load(std::memory_order_relaxed);
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);	/* as the kernel's jiffies */
	return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull +
	       static_cast<uint64_t>(ts.tv_nsec);
}

uint64_t xb_realtime_ns(void)
{
	const uint64_t fake = g_fake_realtime_ns.load(std::memory_order_relaxed);
	if (fake)
		return fake;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

int32_t xb_tz_minuteswest(void)
{
	return g_tz_minuteswest.load(std::memory_order_relaxed);
}

void xb_user_set_realtime(uint64_t ns, int32_t tz_minuteswest)
{
	g_fake_realtime_ns.store(ns, std::memory_order_relaxed);
	g_tz_minuteswest.store(tz_minuteswest, std::memory_order_relaxed);
}

uint32_t xb_random_u32(void)
{
	uint32_t v = 0;
	if (getrandom(&v, sizeof(v), 0) == static_cast<ssize_t>(sizeof(v)))
		return v;
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		ssize_t n = read(fd, &v, sizeof(v));
		close(fd);
		if (n == static_cast<ssize_t>(sizeof(v)))
			return v;
	}
	/* Last resort: not random, but varies between runs. */
	uint64_t t = xb_now_ns() ^ (static_cast<uint64_t>(getpid()) << 32);
	t *= 0x9e3779b97f4a7c15ull;
	return static_cast<uint32_t>(t >> 32);
}

/* ---- RCU ------------------------------------------------------------- */

void xb_rcu_read_lock(void)
{
	urcu_bp_read_lock();
}

void xb_rcu_read_unlock(void)
{
	urcu_bp_read_unlock();
}

void xb_synchronize_rcu(void)
{
	urcu_bp_synchronize_rcu();
}

/*
 * liburcu has no polled grace periods: a cookie is never known to be done
 * and waiting for it is a full grace period. Correct, and it makes the
 * unit tests take the paths that do not rely on one having passed.
 */
void xb_cond_resched(void)
{
	sched_yield();
}

xb_rcu_gp xb_rcu_gp_start(void)
{
	return 0;
}

int xb_rcu_gp_done(xb_rcu_gp)
{
	return 0;
}

void xb_rcu_gp_wait(xb_rcu_gp)
{
	urcu_bp_synchronize_rcu();
}

/*
 * RCU callbacks, as the kernel's call_rcu runs them: xb_call_rcu queues the
 * head; one worker thread, started by the first call, takes the whole
 * queue, waits for a grace period and calls each callback, in the order
 * queued, with the xb_rcu_head it was given (no cast function pointer, as
 * liburcu's own call_rcu would need). xb_rcu_barrier waits until every
 * callback queued before it has run. Callbacks may queue more.
 *
 * Locking: rcu_cb_lock guards the queue and both counts; the worker drops
 * it for the grace period and the callbacks.
 */
namespace {

pthread_mutex_t rcu_cb_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t rcu_cb_queued = PTHREAD_COND_INITIALIZER;
pthread_cond_t rcu_cb_ran = PTHREAD_COND_INITIALIZER;
xb_rcu_head *rcu_cb_first;
xb_rcu_head **rcu_cb_last = &rcu_cb_first;
uint64_t rcu_cb_queued_count;
uint64_t rcu_cb_ran_count;
pthread_once_t rcu_cb_worker_once = PTHREAD_ONCE_INIT;

void *rcu_cb_worker(void *)
{
	for (;;) {
		pthread_mutex_lock(&rcu_cb_lock);
		while (!rcu_cb_first)
			pthread_cond_wait(&rcu_cb_queued, &rcu_cb_lock);
		xb_rcu_head *batch = rcu_cb_first;
		rcu_cb_first = nullptr;
		rcu_cb_last = &rcu_cb_first;
		pthread_mutex_unlock(&rcu_cb_lock);

		urcu_bp_synchronize_rcu();
		uint64_t ran = 0;
		while (batch) {
			xb_rcu_head *head = batch;
			batch = head->next;
			head->func(head);
			ran++;
		}

		pthread_mutex_lock(&rcu_cb_lock);
		rcu_cb_ran_count += ran;
		pthread_cond_broadcast(&rcu_cb_ran);
		pthread_mutex_unlock(&rcu_cb_lock);
	}
	return nullptr;
}

void rcu_cb_start_worker(void)
{
	pthread_t t;
	if (pthread_create(&t, nullptr, rcu_cb_worker, nullptr) != 0) {
		fprintf(stderr, "xbridge platform: cannot start the RCU callback thread\n");
		abort();
	}
	pthread_detach(t);
}

} // namespace

void xb_call_rcu(xb_rcu_head *head, xb_rcu_callback fn)
{
	pthread_once(&rcu_cb_worker_once, rcu_cb_start_worker);
	head->next = nullptr;
	head->func = fn;
	pthread_mutex_lock(&rcu_cb_lock);
	*rcu_cb_last = head;
	rcu_cb_last = &head->next;
	rcu_cb_queued_count++;
	pthread_cond_signal(&rcu_cb_queued);
	pthread_mutex_unlock(&rcu_cb_lock);
}

void xb_rcu_barrier(void)
{
	pthread_mutex_lock(&rcu_cb_lock);
	const uint64_t target = rcu_cb_queued_count;
	while (rcu_cb_ran_count < target)
		pthread_cond_wait(&rcu_cb_ran, &rcu_cb_lock);
	pthread_mutex_unlock(&rcu_cb_lock);
}

/* ---- the writer lock --------------------------------------------------- */

struct xb_lock {
	pthread_mutex_t mutex;
};

struct xb_lock *xb_lock_create(void)
{
	if (!alloc_permitted())
		return nullptr;
	auto *lock = static_cast<struct xb_lock *>(malloc(sizeof(struct xb_lock)));
	if (!lock)
		return nullptr;
	pthread_mutex_init(&lock->mutex, nullptr);
	return lock;
}

void xb_lock_destroy(struct xb_lock *lock)
{
	if (!lock)
		return;
	pthread_mutex_destroy(&lock->mutex);
	free(lock);
}

/*
 * The capability's own acquire and release (platform.h): what they do is
 * the definition of holding it, through a pthread mutex the analysis knows
 * nothing of, so it cannot check them.
 */
void xb_lock_acquire(struct xb_lock *lock) XB_NO_THREAD_SAFETY_ANALYSIS
{
	pthread_mutex_lock(&lock->mutex);
}

void xb_lock_release(struct xb_lock *lock) XB_NO_THREAD_SAFETY_ANALYSIS
{
	pthread_mutex_unlock(&lock->mutex);
}

/* ---- logging ----------------------------------------------------------- */

void xb_warn_once(const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	xb_log(XB_LOG_ERR, "%s", msg);
}

void xb_log(enum xb_log_level level, const char *fmt, ...)
{
	int idx = static_cast<int>(level);
	if (idx >= 0 && idx < kLogLevels)
		g_log_count[idx].fetch_add(1, std::memory_order_relaxed);
	if (!g_log_to_stderr.load(std::memory_order_relaxed))
		return;

	const char *prefix;
	switch (level) {
	case XB_LOG_ERR:
		prefix = "xbridge: error: ";
		break;
	case XB_LOG_WARN:
		prefix = "xbridge: warning: ";
		break;
	case XB_LOG_INFO:
		prefix = "xbridge: ";
		break;
	default:
		prefix = "xbridge: debug: ";
		break;
	}
	/* One line per message, formatted first so threads do not interleave. */
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	size_t len = strlen(line);
	fprintf(stderr, "%s%s%s", prefix, line,
		len && line[len - 1] == '\n' ? "" : "\n");
}

/* ---- nft log ------------------------------------------------------------ */

namespace {
constexpr size_t kNftLogKept = 256;
constinit std::atomic<bool> g_nft_logger_absent{false};
constinit std::atomic<long> g_nft_loggers_held{0};
pthread_mutex_t g_nft_log_lock = PTHREAD_MUTEX_INITIALIZER;
xb_user_nft_log_record g_nft_logs[kNftLogKept];
size_t g_nft_log_n = 0;	/* records kept, oldest dropped first */
} // namespace

int xb_nft_logger_get(uint8_t type)
{
	if (type > 1 || g_nft_logger_absent.load(std::memory_order_relaxed))
		return -ENOENT;
	g_nft_loggers_held.fetch_add(1, std::memory_order_relaxed);
	return 0;
}

void xb_nft_logger_put(uint8_t type)
{
	(void)type;
	g_nft_loggers_held.fetch_sub(1, std::memory_order_relaxed);
}

void xb_nft_log(const void *frame_cookie, unsigned int hook, uint32_t in_ifindex,
		uint32_t out_ifindex, const struct xb_nft_loginfo *log)
{
	pthread_mutex_lock(&g_nft_log_lock);
	if (g_nft_log_n == kNftLogKept) {
		memmove(g_nft_logs, g_nft_logs + 1, sizeof(g_nft_logs[0]) * (kNftLogKept - 1));
		g_nft_log_n--;
	}
	g_nft_logs[g_nft_log_n++] = {hook, in_ifindex, out_ifindex, frame_cookie, *log};
	pthread_mutex_unlock(&g_nft_log_lock);
}

/* ---- nft's meta keys of the skb's socket and route ---------------------- */

/* Userspace frames have neither a socket nor a route: nf_tables breaks. */
bool xb_nft_frame_meta(const void *frame_cookie, unsigned int key, uint32_t *value)
{
	(void)frame_cookie;
	(void)key;
	(void)value;
	return false;
}

/* ---- nft reject --------------------------------------------------------- */

namespace {
constexpr size_t kNftRejectKept = 256;
pthread_mutex_t g_nft_reject_lock = PTHREAD_MUTEX_INITIALIZER;
xb_user_nft_reject_record g_nft_rejects[kNftRejectKept];
size_t g_nft_reject_n = 0;	/* records kept, oldest dropped first */
} // namespace

void xb_nft_reject(const void *frame_cookie, const struct xb_nft_rejectinfo *reject)
{
	pthread_mutex_lock(&g_nft_reject_lock);
	if (g_nft_reject_n == kNftRejectKept) {
		memmove(g_nft_rejects, g_nft_rejects + 1,
			sizeof(g_nft_rejects[0]) * (kNftRejectKept - 1));
		g_nft_reject_n--;
	}
	g_nft_rejects[g_nft_reject_n++] = {frame_cookie, *reject};
	pthread_mutex_unlock(&g_nft_reject_lock);
}

/* ---- test hooks (platform_user.h) -------------------------------------- */

void xb_user_set_nft_logger(int present)
{
	g_nft_logger_absent.store(!present, std::memory_order_relaxed);
}

long xb_user_nft_loggers_held(void)
{
	return g_nft_loggers_held.load(std::memory_order_relaxed);
}

size_t xb_user_nft_log_count(void)
{
	pthread_mutex_lock(&g_nft_log_lock);
	size_t n = g_nft_log_n;
	pthread_mutex_unlock(&g_nft_log_lock);
	return n;
}

int xb_user_nft_log_get(size_t i, struct xb_user_nft_log_record *out)
{
	int ret = -1;
	pthread_mutex_lock(&g_nft_log_lock);
	if (i < g_nft_log_n) {
		*out = g_nft_logs[i];
		ret = 0;
	}
	pthread_mutex_unlock(&g_nft_log_lock);
	return ret;
}

void xb_user_nft_log_clear(void)
{
	pthread_mutex_lock(&g_nft_log_lock);
	g_nft_log_n = 0;
	pthread_mutex_unlock(&g_nft_log_lock);
}

size_t xb_user_nft_reject_count(void)
{
	pthread_mutex_lock(&g_nft_reject_lock);
	size_t n = g_nft_reject_n;
	pthread_mutex_unlock(&g_nft_reject_lock);
	return n;
}

int xb_user_nft_reject_get(size_t i, struct xb_user_nft_reject_record *out)
{
	int ret = -1;
	pthread_mutex_lock(&g_nft_reject_lock);
	if (i < g_nft_reject_n) {
		*out = g_nft_rejects[i];
		ret = 0;
	}
	pthread_mutex_unlock(&g_nft_reject_lock);
	return ret;
}

void xb_user_nft_reject_clear(void)
{
	pthread_mutex_lock(&g_nft_reject_lock);
	g_nft_reject_n = 0;
	pthread_mutex_unlock(&g_nft_reject_lock);
}

void xb_user_fail_alloc_after(long n)
{
	g_allocs_before_failure.store(n < 0 ? -1 : n, std::memory_order_relaxed);
}

size_t xb_user_bytes_allocated(void)
{
	return g_bytes_live.load(std::memory_order_relaxed);
}

size_t xb_user_allocs_live(void)
{
	return g_allocs_live.load(std::memory_order_relaxed);
}

void xb_user_set_time_ns(uint64_t ns)
{
	g_fake_now_ns.store(ns, std::memory_order_relaxed);
	g_fake_time.store(true, std::memory_order_release);
}

void xb_user_advance_time_ns(uint64_t ns)
{
	if (!g_fake_time.load(std::memory_order_acquire))
		xb_user_set_time_ns(xb_now_ns());
	g_fake_now_ns.fetch_add(ns, std::memory_order_relaxed);
}

void xb_user_use_real_time(void)
{
	g_fake_time.store(false, std::memory_order_release);
}

unsigned long xb_user_log_count(enum xb_log_level level)
{
	int idx = static_cast<int>(level);
	if (idx < 0 || idx >= kLogLevels)
		return 0;
	return g_log_count[idx].load(std::memory_order_relaxed);
}

void xb_user_log_to_stderr(int enable)
{
	g_log_to_stderr.store(enable != 0, std::memory_order_relaxed);
}

} // extern "C"
