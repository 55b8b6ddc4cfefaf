/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nft_dump.h - a ruleset's objects written back as nf_tables dumps them
 * (nf_tables_fill_*_info): the NFTA_* attributes of one table, chain, rule,
 * set, element list or flowtable, so that libnftnl parses what the xbridge
 * family returns exactly as it parses nf_tables' replies.
 *
 * AttrWriter appends netlink attributes to a caller's buffer (in the kernel,
 * an skb's tailroom). A fill function returns false when the buffer is too
 * small; the caller then sends what it has and resumes (dumps) or fails
 * with EMSGSIZE.
 *
 * Control context: the caller serialises with the ruleset's other control
 * calls. No allocation, no ownership.
 */
#ifndef XBRIDGE_CORE_NFT_DUMP_H
#define XBRIDGE_CORE_NFT_DUMP_H

#include <stddef.h>
#include <stdint.h>

#include "nft_ruleset.h"

namespace xb::nft {

class AttrWriter {
public:
	AttrWriter(uint8_t *buf, size_t cap) : buf_(buf), cap_(cap) {}

	size_t len() const { return len_; }
	bool full() const { return full_; }
	uint8_t *data() { return buf_; }
	/* Drop everything after @len (a partial element that did not fit). */
	void rewind(size_t len)
	{
		len_ = len;
		full_ = false;
	}

	/* A nest: its header now, its length at nest_end(). */
	size_t nest_begin(uint16_t type);
	void nest_end(size_t at);
	void put(uint16_t type, const void *data, size_t len);
	void str(uint16_t type, const char *s);
	void be32(uint16_t type, uint32_t v);
	void be64(uint16_t type, uint64_t v);

private:
	bool reserve(size_t n);

	uint8_t *buf_;
	size_t cap_;
	size_t len_ = 0;
	bool full_ = false;
};

bool fill_table(const TableObj &t, AttrWriter &w);
bool fill_chain(const ChainObj &c, AttrWriter &w);
/* @prev: the rule before it in its chain (NFTA_RULE_POSITION), or nullptr. */
bool fill_rule(const RuleObj &r, const RuleObj *prev, AttrWriter &w);
bool fill_set(const SetObj &s, AttrWriter &w);
/* The set's elements from index @from, as many as fit; @from is advanced
 * past those written. False if not even one fit. */
bool fill_set_elems(const SetObj &s, uint32_t &from, AttrWriter &w);
/* One element (index @index, deleted or not; or @dyn, an element frames
 * added), as its notification. */
bool fill_set_elem(const SetObj &s, uint32_t index, AttrWriter &w,
		   const DynElemCopy *dyn = nullptr);
/* fill_set_elems' @from once every element is written. */
constexpr uint32_t kElemsDumped = 0xffffffffu;
bool fill_flowtable(const FlowtableObj &f, AttrWriter &w);
/* A named object, as nf_tables_fill_obj_info; with @reset its counter is
 * reset once written (NFT_MSG_GETOBJ_RESET), not when it does not fit. */
bool fill_obj(const ObjObj &o, AttrWriter &w, bool reset = false);
/* NFTA_GEN_ID; with @comm, the committer's NFTA_GEN_PROC_PID and _NAME
 * (as nf_tables_fill_gen_info). */
bool fill_gen(const Ruleset &rs, AttrWriter &w, uint32_t pid = 0, const char *comm = nullptr);
/* The message of a commit notification (nft_ruleset.h CommitEvent): what
 * nf_tables' *_notify() functions send. False when it does not fit. */
bool fill_event(const Ruleset &rs, const CommitEvent &ev, AttrWriter &w, uint32_t pid = 0,
		const char *comm = nullptr);

/*
 * A dump of one kind of object (@get_type: kMsgGetTable, ...GetChain,
 * ...GetRule, ...GetSet, ...GetSetElem, ...GetFlowtable, ...GetObj,
 * ...GetObjReset, ...GetGen), of every table or of the one named @table
 * (nullptr: all), for objects only those named @name (nullptr: all;
 * GetObjReset resets each counter or quota it writes) and of type
 * @obj_filter (NFT_OBJECT_*; 0: all, as nf_tables_dump_obj's filter),
 * one object (or
 * one part of a set's elements) per call: writes it to @w, sets @obj_type
 * (the NEW message type) and returns its length; 0 at the end; -EMSGSIZE
 * when not even one fits @w; -EOPNOTSUPP for another @get_type.
 *
 * @pos (kDumpPosLen words, zero at the start) is where the dump stands
 * between calls, which may come in separate rounds with requests between
 * them: [0] table index, [1] object index in the table (rules counted
 * chain by chain), [2] element index (GetSetElem), [3] the next object
 * itself and [4] rs.change_seq() + 1 when [3] was saved. A call resumes
 * from [3] in O(1) while nothing changed, else by walking to the indexes
 * (as nf_tables dumps resume by position).
 */
constexpr unsigned kDumpPosLen = 5;

/*
 * NFT_MSG_GETSETELEM without NLM_F_DUMP, as nf_tables_getsetelem answers
 * it: nft_get_set_elem for each element of the request's
 * NFTA_SET_ELEM_LIST_ELEMENTS in turn (@attrs/@len: the request's
 * NFTA_SET_ELEM_LIST_TABLE, _SET and _ELEMENTS). A call answers the
 * requested element @next (0 at the start): it writes the set's element
 * that holds it to @w as the NEWSETELEM message (@obj_type) of that one
 * element, as nf_tables_fill_setelem_info does, advances @next and
 * returns the message's length; 0 once every requested element is
 * answered. A request nf_tables refuses gives its errno (negative) and
 * @ack's message, at the element it fails on (those before it answered,
 * as nf_tables has sent their replies): -EINVAL (no table or set name, no
 * element list, a malformed element, no key, a key or key end of another
 * length than the set's, an interval end in a set without intervals),
 * -EOPNOTSUPP (unknown element flags), -ENOENT (no such table, set or
 * element); -EMSGSIZE when the element does not fit @w. Reads only: the
 * ruleset is not changed, whatever the request.
 *
 * The element that holds a key is what the set's backend's get returns
 * (set->ops->get): the element with that key in a set without intervals
 * (an element frames added too), not an expired one; in a single-field
 * interval set (nft_set_rbtree, whose elements are starts and interval
 * ends) the element with that key and kind, else for a start the nearest
 * element below the key if it starts a range (the range holds the key),
 * for an interval end (NFT_SET_ELEM_INTERVAL_END) the nearest above it if
 * it ends one; in a concatenated interval set (nft_set_pipapo) the range
 * that holds the key in every field; the catch-all element for
 * NFT_SET_ELEM_CATCHALL. The nearest elements are found by a scan of the
 * set (O(elements) a requested element, control context).
 */
long get_set_elem(const Ruleset &rs, const uint8_t *attrs, size_t len, uint32_t &next,
		  AttrWriter &w, uint16_t *obj_type, Extack *ack);
long dump_next(const Ruleset &rs, uint16_t get_type, const char *table, unsigned long *pos,
	       AttrWriter &w, uint16_t *obj_type, const char *name = nullptr,
	       uint32_t obj_filter = 0);

} // namespace xb::nft

#endif /* XBRIDGE_CORE_NFT_DUMP_H */
