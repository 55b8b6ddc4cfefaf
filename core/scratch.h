/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scratch.h - a temporary array from the platform allocator, for control
 * paths that need more room than a kernel stack has (a VLAN range can name
 * 4094 VIDs). Owned by the scope that declares it; control context only.
 */
#ifndef XBRIDGE_CORE_SCRATCH_H
#define XBRIDGE_CORE_SCRATCH_H

#include <stddef.h>

#include "platform.h"

namespace xb {

template <typename T> class ScratchArray {
public:
	explicit ScratchArray(size_t n)
		: items_(static_cast<T *>(xb_alloc(n * sizeof(T), XB_ALLOC_SLEEP)))
	{
	}
	~ScratchArray()
	{
		if (items_)
			xb_free(items_);
	}
	ScratchArray(const ScratchArray &) = delete;
	ScratchArray &operator=(const ScratchArray &) = delete;

	bool ok() const { return items_ != nullptr; }
	T &operator[](size_t i) { return items_[i]; }

private:
	T *items_;
};

} // namespace xb

#endif /* XBRIDGE_CORE_SCRATCH_H */
