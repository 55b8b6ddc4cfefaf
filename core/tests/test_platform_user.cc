// SPDX-License-Identifier: GPL-2.0
/*
 * test_platform_user.cc - unit tests of the userspace platform
 * (core/platform_user.cc) and its test hooks (core/platform_user.h).
 */
#include <catch2/catch.hpp>

#include <stdint.h>
#include <string.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "platform.h"
#include "platform_user.h"

namespace {

/* Restores the process-wide hooks whatever a test did. */
struct HookReset {
	~HookReset()
	{
		xb_user_fail_alloc_after(-1);
		xb_user_use_real_time();
		xb_user_log_to_stderr(1);
	}
};

bool all_zero(const void *p, size_t n)
{
	const auto *b = static_cast<const unsigned char *>(p);
	for (size_t i = 0; i < n; i++)
		if (b[i])
			return false;
	return true;
}

} // namespace

TEST_CASE("xb_alloc returns zeroed, aligned memory and counts exact bytes", "[platform]")
{
	HookReset reset;
	size_t bytes0 = xb_user_bytes_allocated();
	size_t live0 = xb_user_allocs_live();

	void *small = xb_alloc(24, XB_ALLOC_ATOMIC);
	void *big = xb_alloc(200, XB_ALLOC_SLEEP);
	REQUIRE(small != nullptr);
	REQUIRE(big != nullptr);
	CHECK(all_zero(small, 24));
	CHECK(all_zero(big, 200));
	CHECK(reinterpret_cast<uintptr_t>(small) % 16 == 0);
	CHECK(reinterpret_cast<uintptr_t>(big) % 64 == 0);
	CHECK(xb_user_bytes_allocated() == bytes0 + 224);
	CHECK(xb_user_allocs_live() == live0 + 2);

	memset(big, 0xa5, 200);	/* ASan checks the whole block is ours */
	xb_free(small);
	xb_free(big);
	xb_free(nullptr);
	CHECK(xb_user_bytes_allocated() == bytes0);
	CHECK(xb_user_allocs_live() == live0);
}

TEST_CASE("allocation failure injection", "[platform]")
{
	HookReset reset;
	xb_user_fail_alloc_after(2);
	void *a = xb_alloc(8, XB_ALLOC_ATOMIC);
	xb_lock *l = xb_lock_create();
	CHECK(a != nullptr);
	CHECK(l != nullptr);
	CHECK(xb_alloc(8, XB_ALLOC_ATOMIC) == nullptr);
	CHECK(xb_percpu_alloc(8, 8, XB_ALLOC_SLEEP) == nullptr);
	CHECK(xb_lock_create() == nullptr);

	xb_user_fail_alloc_after(-1);
	void *b = xb_alloc(8, XB_ALLOC_ATOMIC);
	CHECK(b != nullptr);
	xb_free(a);
	xb_free(b);
	xb_lock_destroy(l);
}

TEST_CASE("object caches: zeroed objects counted as xb_alloc's, failure injected", "[platform]")
{
	HookReset reset;
	const size_t bytes0 = xb_user_bytes_allocated();
	const size_t live0 = xb_user_allocs_live();
	const unsigned long errors0 = xb_user_log_count(XB_LOG_ERR);

	xb_user_fail_alloc_after(0);
	CHECK(xb_obj_cache_create("test_obj", 184) == nullptr);
	xb_user_fail_alloc_after(-1);
	CHECK(xb_obj_cache_create("test_obj", 0) == nullptr);
	xb_obj_cache *c = xb_obj_cache_create("test_obj", 184);
	REQUIRE(c != nullptr);
	CHECK(xb_user_bytes_allocated() == bytes0);	/* the cache itself: nothing */

	void *a = xb_obj_cache_alloc(c, XB_ALLOC_ATOMIC);
	REQUIRE(a != nullptr);
	memset(a, 0xa5, 184);	/* ASan checks the whole object is ours */
	xb_obj_cache_free(c, a);
	void *objs[3];
	for (void *&o : objs) {
		o = xb_obj_cache_alloc(c, XB_ALLOC_SLEEP);
		REQUIRE(o != nullptr);
		CHECK(all_zero(o, 184));	/* zeroed, a reused one too */
		CHECK(reinterpret_cast<uintptr_t>(o) % sizeof(void *) == 0);
	}
	CHECK(xb_user_bytes_allocated() == bytes0 + 3 * 184);
	CHECK(xb_user_allocs_live() == live0 + 3);
	xb_user_fail_alloc_after(0);
	CHECK(xb_obj_cache_alloc(c, XB_ALLOC_ATOMIC) == nullptr);
	xb_user_fail_alloc_after(-1);

	/* Destroyed with objects live: as kmem_cache_destroy, an error, and
	 * the cache stays usable. */
	xb_user_log_to_stderr(0);
	xb_obj_cache_destroy(c);
	CHECK(xb_user_log_count(XB_LOG_ERR) == errors0 + 1);
	for (void *o : objs)
		xb_obj_cache_free(c, o);
	xb_obj_cache_free(c, nullptr);
	CHECK(xb_user_bytes_allocated() == bytes0);
	CHECK(xb_user_allocs_live() == live0);
	xb_obj_cache_destroy(c);
	xb_obj_cache_destroy(nullptr);
	CHECK(xb_user_log_count(XB_LOG_ERR) == errors0 + 1);
}

TEST_CASE("per-CPU copies are zeroed, disjoint and cache-line spaced", "[platform]")
{
	unsigned int nr = xb_percpu_nr_ids();
	REQUIRE(nr >= 1);
	void *pc = xb_percpu_alloc(sizeof(uint64_t) * 3, alignof(uint64_t), XB_ALLOC_SLEEP);
	REQUIRE(pc != nullptr);
	for (unsigned int cpu = 0; cpu < nr; cpu++) {
		auto *p = static_cast<uint64_t *>(xb_percpu_cpu(pc, cpu));
		REQUIRE(p != nullptr);
		CHECK(reinterpret_cast<uintptr_t>(p) % 64 == 0);
		CHECK(all_zero(p, sizeof(uint64_t) * 3));
		p[0] = cpu + 1;
		p[2] = cpu + 1;
	}
	CHECK(xb_percpu_cpu(pc, nr) == nullptr);

	auto *mine = static_cast<uint64_t *>(xb_percpu_this(pc));
	bool found = false;
	for (unsigned int cpu = 0; cpu < nr; cpu++)
		found |= mine == xb_percpu_cpu(pc, cpu);
	CHECK(found);
	/* a run notes its CPU once and finds the copies of that CPU */
	unsigned int run_cpu = XB_CPU_UNNOTED;
	auto *noted = static_cast<uint64_t *>(xb_percpu_this_noted(pc, &run_cpu));
	REQUIRE(run_cpu != XB_CPU_UNNOTED);
	CHECK(noted == xb_percpu_cpu(pc, run_cpu % nr));
	CHECK(xb_percpu_this_noted(pc, &run_cpu) == noted);
	for (unsigned int cpu = 0; cpu < nr; cpu++)
		CHECK(static_cast<uint64_t *>(xb_percpu_cpu(pc, cpu))[0] == cpu + 1);
	xb_percpu_free(pc);
}

TEST_CASE("fake clock", "[platform]")
{
	HookReset reset;
	uint64_t t0 = xb_now_ns();
	CHECK(xb_now_ns() >= t0);

	xb_user_set_time_ns(1000);
	CHECK(xb_now_ns() == 1000);
	xb_user_advance_time_ns(500);
	CHECK(xb_now_ns() == 1500);

	xb_user_use_real_time();
	CHECK(xb_now_ns() >= t0);
}

TEST_CASE("random numbers vary", "[platform]")
{
	uint32_t first = xb_random_u32();
	bool differs = false;
	for (int i = 0; i < 16 && !differs; i++)
		differs = xb_random_u32() != first;
	CHECK(differs);
}

namespace {

struct Deferred {
	xb_rcu_head rcu;
	std::atomic<int> *freed;
};

void deferred_free(xb_rcu_head *head)
{
	auto *d = reinterpret_cast<Deferred *>(head);
	d->freed->fetch_add(1);
	xb_free(d);
}

} // namespace

TEST_CASE("RCU: call_rcu callbacks run by rcu_barrier; readers nest", "[platform]")
{
	std::atomic<int> freed{0};
	for (int i = 0; i < 10; i++) {
		auto *d = static_cast<Deferred *>(xb_alloc(sizeof(Deferred), XB_ALLOC_SLEEP));
		REQUIRE(d != nullptr);
		d->freed = &freed;
		xb_call_rcu(&d->rcu, deferred_free);
	}
	xb_rcu_barrier();
	CHECK(freed.load() == 10);

	xb_rcu_read_lock();
	xb_rcu_read_lock();
	xb_rcu_read_unlock();
	xb_rcu_read_unlock();
	xb_synchronize_rcu();
}

TEST_CASE("RCU: synchronize_rcu waits for a reader in another thread", "[platform]")
{
	std::atomic<int> stage{0};
	std::thread reader([&] {
		xb_rcu_read_lock();
		stage.store(1);
		while (stage.load() != 2)
			std::this_thread::yield();
		/* Linger so that a broken synchronize_rcu would get ahead. */
		std::this_thread::sleep_for(std::chrono::milliseconds(50));
		stage.store(3);
		xb_rcu_read_unlock();
	});
	while (stage.load() != 1)
		std::this_thread::yield();
	stage.store(2);
	xb_synchronize_rcu();
	CHECK(stage.load() == 3);
	reader.join();
}

TEST_CASE("writer lock excludes other threads", "[platform]")
{
	xb_lock *lock = xb_lock_create();
	REQUIRE(lock != nullptr);
	long counter = 0;
	std::vector<std::thread> threads;
	for (int t = 0; t < 4; t++)
		threads.emplace_back([&] {
			for (int i = 0; i < 10000; i++) {
				xb_lock_acquire(lock);
				counter++;
				xb_lock_release(lock);
			}
		});
	for (auto &t : threads)
		t.join();
	CHECK(counter == 40000);
	xb_lock_destroy(lock);
}

TEST_CASE("log messages are counted per level", "[platform]")
{
	HookReset reset;
	xb_user_log_to_stderr(0);
	unsigned long warn0 = xb_user_log_count(XB_LOG_WARN);
	unsigned long err0 = xb_user_log_count(XB_LOG_ERR);
	xb_log(XB_LOG_WARN, "test warning %d", 1);
	xb_log(XB_LOG_WARN, "test warning %s\n", "two");
	xb_log(XB_LOG_ERR, "test error");
	CHECK(xb_user_log_count(XB_LOG_WARN) == warn0 + 2);
	CHECK(xb_user_log_count(XB_LOG_ERR) == err0 + 1);
}
