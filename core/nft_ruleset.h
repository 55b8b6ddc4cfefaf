/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nft_ruleset.h - a bridge's nf_tables ruleset: the objects nft manages
 * (tables, chains, rules, sets and their elements, flowtables), batches that
 * apply whole or not at all, and the generation frames run.
 *
 * Control plane. Objects live in intrusive lists in the order nf_tables
 * keeps them. A batch is nfnetlink's: apply() each message in order, each
 * validated as nf_tables validates it and applied at once to the objects,
 * with an undo record; then commit() or abort(). abort() undoes every
 * record in reverse, so that the objects are as before the batch.
 * commit() compiles the objects into a new Generation (nft_eval.h: hooks,
 * chains, rule code, set indexes), checks what nf_tables checks at commit
 * (jump loops, jump depth, where `flow offload` may run), publishes it with
 * one RCU pointer swap, waits for readers of the old one and frees it with
 * the objects the batch deleted. A failed commit aborts.
 *
 * Datapath. Frames see only generation(): the whole old ruleset or the
 * whole new one, never a mix. A hook with no chain costs one load.
 *
 * Locking: every control call is serialised by the caller (RTNL in the
 * kernel, the test's thread in userspace); the ruleset itself takes no
 * lock. commit() sleeps (xb_synchronize_rcu). The datapath holds an RCU
 * read section across generation() and its use.
 *
 * Ownership: the Ruleset owns its objects and its current generation. A
 * rule owns its stateful expressions (counters, limits); generations point
 * at them, so a deleted rule is freed only after the generation that ran it.
 * A named counter object (ObjObj) is the table's; rules refer to it.
 */
#ifndef XBRIDGE_CORE_NFT_RULESET_H
#define XBRIDGE_CORE_NFT_RULESET_H

#include <stddef.h>
#include <stdint.h>

#include "errors.h"
#include "intrusive.h"
#include "nft_dynset.h"
#include "nft_eval.h"
#include "nft_expr.h"
#include "nft_set.h"

namespace xb::nft {

struct TableObj;
struct ChainObj;

struct Blob {
	uint8_t *data = nullptr;
	uint32_t len = 0;
};

struct RuleObj {
	ListHook link;
	ChainObj *chain;
	uint64_t handle;
	uint32_t batch_id;	/* NFTA_RULE_ID within the current batch; 0 none */
	ParsedRule code;	/* refs: SetObj *, ChainObj *, FlowtableObj * */
	Blob exprs;		/* NFTA_RULE_EXPRESSIONS as received (dumps) */
	Blob userdata;
};

struct ChainObj {
	ListHook link;
	TableObj *table;
	char name[kNameMax];
	uint64_t handle;
	uint32_t batch_id;
	bool base;
	uint32_t hooknum;
	int32_t priority;
	uint64_t hook_seq;	/* when its hook was registered (base chains) */
	int32_t policy;
	uint32_t flags;
	Blob userdata;
	boost::intrusive::list<RuleObj,
		boost::intrusive::member_hook<RuleObj, ListHook, &RuleObj::link>> rules;
	/* Build scratch: this chain's index in the generation being built. */
	uint32_t build_index;
};

struct SetObj {
	ListHook link;
	TableObj *table;
	char name[kNameMax];
	uint64_t handle;
	uint32_t batch_id;
	uint32_t flags;
	uint32_t key_type;
	uint32_t data_type;
	uint32_t policy;
	uint32_t obj_type;	/* object maps: NFTA_SET_OBJ_TYPE (each element's
				 * data is its ObjObj *); 0 otherwise */
	uint32_t size;		/* NFTA_SET_DESC_SIZE; 0 unbounded */
	uint64_t timeout_ns;	/* NFTA_SET_TIMEOUT: the elements' default */
	uint32_t gc_interval;	/* NFTA_SET_GC_INTERVAL, kept for dumps */
	SetLayout layout;
	ElemStore elems;
	Blob userdata;
	uint32_t build_index;
	/* Lookups in the rules linked into its table's chains (set_in_use
	 * without a scan: releasing an anonymous set with its rule is O(1)). */
	uint32_t rule_uses;
	/* The elements frames added (nft_dynset.h), made when a set
	 * statement first binds the set; nullptr before. */
	DynTable *dyn;
	/* NFTA_SET_EXPR[ESSIONS]: what each element gets unless it names
	 * its own (templates, their state zero). */
	ElemExprs exprs;
	/* Guards the state of the limits and ct counts in the control
	 * plane's elements; made with the first element that has
	 * expressions. */
	xb_lock *exprs_lock;
	/* A ct count in the set's or an element's expressions: conntrack
	 * runs (nf_ct_netns_get at the expression's init). */
	bool exprs_use_ct;
};

/* An element frames added that a batch deletes, copied when the batch
 * names it: frames may unlink it before the batch commits. */
struct DynElemCopy {
	uint8_t key[kSetKeyMax];
	uint8_t data[kSetKeyMax];
	uint64_t timeout_ns;
	uint64_t expires_ns;
};

struct FlowtableObj {
	ListHook link;
	TableObj *table;
	char name[kNameMax];
	uint64_t handle;
	uint32_t hooknum;
	int32_t priority;
	uint32_t flags;
	Blob hook;		/* NFTA_FLOWTABLE_HOOK as received (devices) */
	Blob devices;		/* its device names, kIfnameSize bytes each */

	/* Datapath too (immutable once added): is @name one of its devices? */
	bool has_device(const char *name) const;
};

/* A named stateful object (NFT_MSG_NEWOBJ): xbridge has counters, quotas
 * and limits. Rules reach it by objref (Op::ObjCounter, ObjQuota,
 * ObjLimit); generations point at its state, so a deleted object is freed
 * only after the generation that ran it. */
struct ObjObj {
	ListHook link;
	TableObj *table;
	char name[kNameMax];
	uint64_t handle;
	uint32_t type;		/* NFT_OBJECT_*: kObjectCounter, Quota or Limit */
	Counter counter;	/* a counter's */
	Quota quota;		/* a quota's */
	Limit limit;		/* a limit's */
	Blob userdata;
	/* objrefs in the rules linked into its table's chains (NFTA_OBJ_USE;
	 * a referenced object cannot be deleted: EBUSY). */
	uint32_t rule_uses;
};

struct TableObj {
	ListHook link;
	char name[kNameMax];
	uint64_t handle;
	uint32_t flags;
	Blob userdata;
	uint64_t next_handle;	/* nf_tables_alloc_handle */
	/* Anonymous set names ("__set%d"): every number below anon_low is
	 * taken; no set's name ends in a number >= anon_top. */
	uint32_t anon_low;
	uint32_t anon_top;
	boost::intrusive::list<ChainObj,
		boost::intrusive::member_hook<ChainObj, ListHook, &ChainObj::link>> chains;
	boost::intrusive::list<SetObj,
		boost::intrusive::member_hook<SetObj, ListHook, &SetObj::link>> sets;
	boost::intrusive::list<FlowtableObj,
		boost::intrusive::member_hook<FlowtableObj, ListHook, &FlowtableObj::link>> flowtables;
	boost::intrusive::list<ObjObj,
		boost::intrusive::member_hook<ObjObj, ListHook, &ObjObj::link>> objs;
};

using TableObjList = boost::intrusive::list<TableObj,
	boost::intrusive::member_hook<TableObj, ListHook, &TableObj::link>>;

/* What frames run: immutable once published. */
struct Generation {
	Hook hooks[kHookCount];
	uint32_t id;
	bool uses_ct;		/* some rule reads or sets ct: conntrack runs */
	bool has_offload;
	bool has_payload_write;	/* the shim makes frames writable */
	/* Storage (one allocation each). */
	Chain *chains;
	uint32_t chain_count;
	RuleCode *rules;
	Insn *insns;
	HookChain *hook_chains;
	SetIndex **sets;
	uint32_t set_count;
	xb_rcu_head rcu;
};

struct UndoRecord;
enum class UndoKind : uint8_t;
class Ruleset;

/*
 * One notification of a committed batch, as nf_tables_commit sends them
 * (nft_dump.h fill_event() writes its message): every object the batch
 * added, changed or deleted, in batch order - NEWTABLE/DELTABLE (a table's
 * flags changed: NEWTABLE), NEWCHAIN/DELCHAIN (a policy changed: NEWCHAIN),
 * NEWRULE/DELRULE, NEWSET/DELSET, NEWSETELEM/DELSETELEM (one per element),
 * NEWFLOWTABLE/DELFLOWTABLE, NEWOBJ/DELOBJ - then NEWGEN with the new generation id. An
 * object deleted later in the same batch is still readable for the call.
 */
struct CommitEvent {
	uint16_t type;		/* NFT_MSG_* */
	const void *obj;	/* TableObj, ChainObj, RuleObj, SetObj (*SETELEM:
				 * the set), FlowtableObj, ObjObj; NEWGEN: nullptr */
	uint32_t elem;		/* *SETELEM: the element's index in the set */
	const DynElemCopy *dyn;	/* DELSETELEM of an element frames added
				 * (then elem is unused) */
	uint16_t flags;		/* the notification's NLM_F_*: the request's
				 * CREATE and EXCL (nft monitor: "create");
				 * NEWRULE: APPEND unless the rule was inserted */
	bool report;		/* the request that made it asked for its echo
				 * (NLM_F_ECHO: nf_tables' ctx->report, the
				 * requester gets it too); NEWGEN: the batch's
				 * first request did (nlmsg_report of the batch) */
};

/* Called by commit() after the new generation is published (so never for
 * a batch that fails or aborts), from the committer's context (it may
 * sleep), for each CommitEvent in order. */
struct CommitSink {
	void (*fn)(void *ctx, const Ruleset &rs, const CommitEvent &ev) = nullptr;
	void *ctx = nullptr;
};

class Ruleset {
public:
	int init(Extack *ack);
	/* Frees everything; the caller has stopped the datapath's use. */
	void fini();

	/* ---- batches (control) ---- */

	/*
	 * Apply one nf_tables request of the current batch: @type is the
	 * NFT_MSG_* number, @nlflags the netlink flags, @family the nfgen
	 * family, @attrs/@len the message's attributes. Returns 0 or a
	 * negative errno with @ack's message; a failed request leaves the
	 * batch as it was before it (the caller then aborts the batch).
	 */
	int apply(uint16_t type, uint16_t nlflags, uint32_t family, const uint8_t *attrs,
		  size_t len, Extack *ack);
	/* Publish the batch; then, if @events, notify its objects
	 * (CommitSink). On failure the batch is aborted, nothing notified. */
	int commit(Extack *ack, const CommitSink *events = nullptr);
	/* nft --check (nfnetlink's NFNL_ABORT_VALIDATE): the batch validated
	 * as commit() validates it (jump loops and depth, hooks), then
	 * aborted whether it passed or not. Nothing is published. */
	int check(Extack *ack);
	void abort();
	/* The batch's validation alone, as commit() runs it first
	 * (nf_tables_validate: nft_table_validate of every table). */
	int validate(Extack *ack);
	/*
	 * nf_tables' replay of a batch whose validation failed (validate
	 * state DO): until the next commit or abort, a NEWRULE or NEWSETELEM
	 * request that applies is followed by its table's validation, and
	 * fails with its error when that fails - keeping what it applied, as
	 * nf_tables_newrule and nf_tables_newsetelem do (the exception to
	 * apply()'s rule; the batch is then aborted). Every later such
	 * request of that table fails the same way, as on Linux.
	 */
	void validate_each_request() { validate_each_ = true; }

	/* ---- datapath ---- */
	const Generation *generation() const { return gen_.rcu(); }

	/* ---- reading (control) ---- */
	uint32_t generation_id() const { return gen_id_; }
	/* Whether the batch so far changes anything (a commit of one that
	 * does not keeps the generation, as nf_tables_commit). */
	bool batch_changes() const { return undo_count_ != 0; }
	/* Changes with every request, commit and abort: a dump's saved object
	 * pointer is good while this is what it was (nft_dump.h). */
	uint64_t change_seq() const { return change_seq_; }
	const TableObjList &tables() const { return tables_; }

private:
	friend struct BuildContext;

	int new_table(uint16_t flags, const Attr *tb, Extack *ack);
	int del_table(uint16_t flags, const Attr *tb, Extack *ack);
	int new_chain(uint16_t flags, const Attr *tb, Extack *ack);
	int del_chain(uint16_t flags, const Attr *tb, Extack *ack);
	int new_rule(uint16_t flags, const Attr *tb, Extack *ack);
	int del_rule(uint16_t flags, const Attr *tb, Extack *ack);
	int new_set(uint16_t flags, const Attr *tb, Extack *ack);
	int del_set(uint16_t flags, const Attr *tb, Extack *ack);
	int new_setelem(uint16_t flags, const Attr *tb, Extack *ack);
	int del_setelem(uint16_t flags, const Attr *tb, Extack *ack);
	int new_flowtable(uint16_t flags, const Attr *tb, Extack *ack);
	int del_flowtable(uint16_t flags, const Attr *tb, Extack *ack);
	int new_obj(uint16_t flags, const Attr *tb, Extack *ack);
	int del_obj(uint16_t flags, const Attr *tb, Extack *ack);

	int flush_table(TableObj *t, Extack *ack);
	int remove_table(TableObj *t, Extack *ack);
	int remove_chain(ChainObj *c, Extack *ack);
	int new_chain_name(const TableObj *t, const Attr &name, char *&out, Extack *ack);
	void apply_rename(UndoRecord &rec);
	void apply_renames();
	int remove_rule(RuleObj *r, Extack *ack);
	int remove_set(SetObj *s, Extack *ack);
	int remove_flowtable(FlowtableObj *f, Extack *ack);
	int remove_obj(ObjObj *o, Extack *ack);
	int set_elem(SetObj *s, const Attr &elem, bool add, uint16_t flags, Extack *ack);
	int dyn_elem(SetObj *s, const uint8_t *key, const uint8_t *data, bool add, uint16_t flags,
		     Extack *ack);
	bool dyn_delete_pending(const SetObj *s, const uint8_t *key) const;
	int log_dyn_delete(SetObj *s, DynElemCopy *copy, Extack *ack);
	int flush_dyn(SetObj *s, Extack *ack);
	int anonymous_set_name(TableObj *t, char *name, Extack *ack);

	TableObj *find_table(const Attr &name);
	bool chain_in_use(const ChainObj *c) const;
	bool set_in_use(const SetObj *s) const;
	bool flowtable_in_use(const FlowtableObj *f) const;

	int log(const UndoRecord &rec, Extack *ack);
	template <typename List, typename Obj>
	int unlink_logged(UndoKind kind, List &list, Obj *obj, Extack *ack);
	void undo_one(const UndoRecord &rec);
	void free_rule(RuleObj *r);
	void free_chain(ChainObj *c);
	void free_set(SetObj *s);
	void free_table(TableObj *t);
	void free_flowtable(FlowtableObj *f);
	void free_object(ObjObj *o);

	int build(Generation *&out, Extack *ack);
	uint32_t index_chains(TableObj *only);
	int validate_table(TableObj *t, Extack *ack);
	void notify(const CommitSink &events);
	static void free_generation(Generation *g);

	TableObjList tables_;
	RcuPtr<Generation> gen_;
	uint32_t gen_id_ = 0;
	uint64_t change_seq_ = 0;
	uint64_t next_table_handle_ = 1;
	uint64_t next_hook_seq_ = 1;	/* base chains' registration order */
	UndoRecord *undo_ = nullptr;	/* the batch's records */
	uint32_t undo_count_ = 0;
	uint32_t undo_cap_ = 0;
	bool validate_each_ = false;	/* validate_each_request() */
	bool batch_open_ = false;	/* a request applied since commit/abort */
	uint16_t req_flags_ = 0;	/* the NLM_F_* of the request being applied */
	bool first_echo_ = false;	/* the batch's first request had it */
};

} // namespace xb::nft

#endif /* XBRIDGE_CORE_NFT_RULESET_H */
