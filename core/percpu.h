/* SPDX-License-Identifier: GPL-2.0 */
/*
 * percpu.h - per-CPU counters.
 *
 * A PerCpu<T> owns one T per possible CPU (platform per-CPU memory). The
 * datapath adds to this CPU's copy with plain loads and stores: it runs
 * with migration disabled (softirq in the kernel), so no other writer
 * touches that copy. Readers sum all copies; a sum may be a frame behind.
 */
#ifndef XBRIDGE_CORE_PERCPU_H
#define XBRIDGE_CORE_PERCPU_H

#include <stdint.h>

#include "compiler.h"

namespace xb {

inline void counter_add(uint64_t &counter, uint64_t n)
{
	store_once(counter, load_once(counter) + n);
}

template <typename T> class PerCpu {
public:
	bool init(xb_alloc_ctx ctx)
	{
		copies_ = xb_percpu_alloc(sizeof(T), alignof(T), ctx);
		return copies_ != nullptr;
	}
	void fini()
	{
		if (copies_)
			xb_percpu_free(copies_);
		copies_ = nullptr;
	}
	T *this_cpu() const { return static_cast<T *>(xb_percpu_this(copies_)); }
	/* Within one datapath run that notes its CPU in @run_cpu
	 * (xb_percpu_this_noted). */
	T *this_cpu(unsigned int *run_cpu) const
	{
		return static_cast<T *>(xb_percpu_this_noted(copies_, run_cpu));
	}
	T *cpu(unsigned int cpu) const
	{
		return static_cast<T *>(xb_percpu_cpu(copies_, cpu));
	}

private:
	void *copies_ = nullptr;
};

} // namespace xb

#endif /* XBRIDGE_CORE_PERCPU_H */
