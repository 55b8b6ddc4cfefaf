/* SPDX-License-Identifier: GPL-2.0 */
/*
 * batch_groups.h - where a group of a pipelined batch lies: the software
 * pipelines over a batch (Conntrack::in_batch_deep, forward.cc's
 * decide_deep) work on groups of G frames, several groups in flight, each
 * group's per-frame state in its slots of a ring of `stages` groups.
 *
 * Ownership and locking: none; a value computed from its arguments.
 */
#ifndef XBRIDGE_CORE_BATCH_GROUPS_H
#define XBRIDGE_CORE_BATCH_GROUPS_H

namespace xb {

struct BatchGroup {
	unsigned first;	/* the group's first frame in the batch */
	unsigned count;	/* its frames: G, or fewer in the last group */
	unsigned slot;	/* its first slot in the ring */
};

/* Group @g of a batch of @n frames in groups of @G, @stages groups a ring. */
constexpr BatchGroup batch_group(unsigned g, unsigned n, unsigned G, unsigned stages)
{
	const unsigned first = g * G;
	return BatchGroup{first, n - first < G ? n - first : G, (g % stages) * G};
}

} // namespace xb

#endif /* XBRIDGE_CORE_BATCH_GROUPS_H */
