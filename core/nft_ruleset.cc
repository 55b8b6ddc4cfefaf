// SPDX-License-Identifier: GPL-2.0
/*
 * nft_ruleset.cc - nf_tables' objects and batches (net/netfilter/
 * nf_tables_api.c) for one bridge: each request validated as nf_tables does,
 * applied with an undo record, the batch committed as one new generation.
 *
 * Control context only; the caller serialises every call (see the header).
 */
#include "nft_ruleset.h"

#include <new>

#include "compiler.h"
#include "kernel_version.h"
#include "nft_dynset.h"
#include "platform.h"

namespace xb::nft {

/* ---- the undo log ------------------------------------------------------- */

enum class UndoKind : uint8_t {
	AddTable, DelTable, UpdTable,
	AddChain, DelChain, UpdChain,
	AddRule, DelRule,
	AddSet, DelSet, UpdSet,	/* UpdSet: old_u32 the gc interval, next the
				 * timeout (ns, in the pointer's bits) */
	AddElem, DelElem,
	DelDynElem,	/* obj: the set; next: its DynElemCopy */
	AddFlowtable, DelFlowtable,
	AddObj, DelObj,
};

struct UndoRecord {
	UndoKind kind;
	void *obj;
	void *next;		/* Del*: the sibling it was before (nullptr: last) */
	uint32_t old_u32;	/* UpdTable: flags; UpdChain: policy; *Elem: index;
				 * AddRule: its notification's NLM_F_* flags */
	/* next, for UpdChain: the chain's new name (kNameMax bytes, owned by
	 * the record) when the update renames it, else nullptr. nf_tables
	 * renames at commit (nft_chain_commit_update), so the batch's other
	 * requests still find the chain by its old name. */
	uint16_t nlflags = 0;	/* its request's NLM_F_* (set by log()):
				 * CREATE/EXCL for its notification, ECHO */
};

namespace {

/* An element marked deleted in this batch; compacted at commit. */
constexpr uint32_t kElemDead = ElemStore::kDead;
constexpr uint32_t kUserdataMax = 256;	/* NFT_USERDATA_MAXLEN */

bool name_is(const char *name, const Attr &a)
{
	return a.present() && attr_equals(a, name);
}

int copy_name(char *dst, const Attr &a, Extack *ack)
{
	if (!a.present())
		return fail(ack, kEINVAL, "a name is required");
	if (!attr_string(a, dst, kNameMax))
		return fail(ack, a.len >= kNameMax ? kENAMETOOLONG : kEINVAL,
			    "bad name: empty or longer than 255 bytes");
	return 0;
}

int copy_blob(Blob &b, const Attr &a, uint32_t max, Extack *ack)
{
	b = Blob{};
	if (!a.present() || a.len == 0)
		return 0;
	if (a.len > max)
		return fail(ack, kERANGE, "attribute too long");
	b.data = static_cast<uint8_t *>(xb_alloc(a.len, XB_ALLOC_SLEEP));
	if (!b.data)
		return fail(ack, kENOMEM, "out of memory");
	__builtin_memcpy(b.data, a.data, a.len);
	b.len = a.len;
	return 0;
}

/*
 * NFTA_FLOWTABLE_HOOK_DEVS: a list of NFTA_DEVICE_NAME strings (at most
 * NFT_NETDEVICE_MAX, each shorter than IFNAMSIZ, as nft_netdev_hook_alloc
 * takes them) into @b as NUL-padded names. The devices need not exist:
 * a name that is no port of an xbridge offloads nothing.
 */
constexpr unsigned kNetdeviceMax = 256;

int copy_devices(Blob &b, const Attr &devs, Extack *ack)
{
	b = Blob{};
	if (!devs.present())
		return 0;
	unsigned n = 0;
	{
		AttrWalker w(devs);
		uint16_t type;
		Attr a;
		while (w.next(type, a)) {
			if (type != kDeviceName)
				return fail(ack, kEINVAL, "a flowtable device list holds device names");
			if (++n > kNetdeviceMax)
				return fail(ack, kEFBIG, "too many flowtable devices");
		}
		if (w.malformed())
			return fail(ack, kEINVAL, "malformed flowtable device list");
	}
	if (!n)
		return 0;
	auto *names = static_cast<char *>(xb_alloc(n * kIfnameSize, XB_ALLOC_SLEEP));
	if (!names)
		return fail(ack, kENOMEM, "out of memory");
	AttrWalker w(devs);
	uint16_t type;
	Attr a;
	for (unsigned i = 0; w.next(type, a); i++) {
		char *name = names + i * kIfnameSize;
		bool dup = false;
		if (attr_string(a, name, kIfnameSize) && name[0])
			for (unsigned j = 0; j < i && !dup; j++)
				dup = cstr_equal(names + j * kIfnameSize, name);
		else
			dup = true;
		if (dup) {
			xb_free(names);
			return fail(ack, kEINVAL, "bad or repeated flowtable device name");
		}
	}
	b.data = reinterpret_cast<uint8_t *>(names);
	b.len = n * kIfnameSize;
	return 0;
}

void free_blob(Blob &b)
{
	if (b.data)
		xb_free(b.data);
	b = Blob{};
}

template <typename T> T *alloc_obj()
{
	void *p = xb_alloc(sizeof(T), XB_ALLOC_SLEEP);
	return p ? new (p) T() : nullptr;
}

template <typename T> void free_obj(T *p)
{
	p->~T();
	xb_free(p);
}

bool be32_or(const Attr &a, uint32_t def, uint32_t &out)
{
	if (!a.present()) {
		out = def;
		return true;
	}
	return attr_be32(a, out);
}

/* A family the xbridge ruleset holds: the bridge, or "any" for deletes. */
int check_family(uint32_t family, bool any_ok, Extack *ack)
{
	if (family == kFamilyBridge || (any_ok && family == 0))
		return 0;
	return fail(ack, kEAFNOSUPPORT, "xbridge rulesets hold the bridge family only");
}

} // namespace

/* Resolves a rule's references within its table (and the batch's ids). */
struct BuildContext final : Resolver {
	TableObj *table;

	/* nft_set_lookup_global: the set by name, else by the id a set of
	 * this batch was given (nft sends an id of 0 for a set an earlier
	 * batch made, which must not find one). */
	void *set(const char *name, const uint32_t *id) override
	{
		for (SetObj &s : table->sets)
			if (cstr_equal(s.name, name))
				return &s;
		if (id && *id)
			for (SetObj &s : table->sets)
				if (s.batch_id == *id)
					return &s;
		return nullptr;
	}
	void *chain(const char *name, const uint32_t *id, bool &base) override
	{
		for (ChainObj &c : table->chains) {
			if ((name[0] && cstr_equal(c.name, name)) ||
			    (!name[0] && id && c.batch_id == *id)) {
				base = c.base;
				return &c;
			}
		}
		return nullptr;
	}
	void *flowtable(const char *name) override
	{
		for (FlowtableObj &f : table->flowtables)
			if (cstr_equal(f.name, name))
				return &f;
		return nullptr;
	}
	void *object(const char *name, uint32_t type) override
	{
		for (ObjObj &o : table->objs)
			if (o.type == type && cstr_equal(o.name, name))
				return &o;
		return nullptr;
	}
	void dynset_target(void *set, DynsetTarget &t) override
	{
		SetObj *s = static_cast<SetObj *>(set);
		t.flags = s->flags;
		t.layout = &s->layout;
		t.timeout_ns = s->timeout_ns;
		t.size = &s->size;
		t.table = &s->dyn;
		t.exprs = &s->exprs;
	}
	uint32_t set_obj_type(void *set) override
	{
		return static_cast<const SetObj *>(set)->obj_type;
	}
	void set_layout(void *set, uint32_t &key_len, uint32_t &data_len, bool &map,
			bool &verdict_map) override
	{
		const SetObj *s = static_cast<const SetObj *>(set);
		key_len = s->layout.key_len;
		map = s->flags & kSetFMap;
		verdict_map = s->layout.verdict_map;
		data_len = verdict_map ? 16 : s->layout.data_len;
	}
};

/* ---- lifetime ----------------------------------------------------------- */

int Ruleset::init(Extack *)
{
	gen_.init(nullptr);
	gen_id_ = 1;	/* nf_tables_init_net's base_seq: the first commit is 2 */
	return 0;
}

void Ruleset::fini()
{
	abort();
	while (!tables_.empty()) {
		TableObj &t = tables_.front();
		tables_.pop_front();
		while (!t.chains.empty()) {
			ChainObj &c = t.chains.front();
			t.chains.pop_front();
			while (!c.rules.empty()) {
				RuleObj &r = c.rules.front();
				c.rules.pop_front();
				free_rule(&r);
			}
			free_chain(&c);
		}
		while (!t.sets.empty()) {
			SetObj &s = t.sets.front();
			t.sets.pop_front();
			free_set(&s);
		}
		while (!t.flowtables.empty()) {
			FlowtableObj &f = t.flowtables.front();
			t.flowtables.pop_front();
			free_flowtable(&f);
		}
		while (!t.objs.empty()) {
			ObjObj &o = t.objs.front();
			t.objs.pop_front();
			free_object(&o);
		}
		free_table(&t);
	}
	Generation *old = gen_.writer();
	gen_.publish(nullptr);
	if (old) {
		xb_synchronize_rcu();
		free_generation(old);
	}
	if (undo_)
		xb_free(undo_);
	undo_ = nullptr;
	undo_cap_ = 0;
}

void Ruleset::free_rule(RuleObj *r)
{
	free_parsed_rule(r->code);
	free_blob(r->exprs);
	free_blob(r->userdata);
	free_obj(r);
}

void Ruleset::free_chain(ChainObj *c)
{
	free_blob(c->userdata);
	free_obj(c);
}

void Ruleset::free_set(SetObj *s)
{
	DynTable::destroy(s->dyn);
	s->elems.fini();
	if (s->exprs_lock)
		xb_lock_destroy(s->exprs_lock);
	free_blob(s->userdata);
	free_obj(s);
}

void Ruleset::free_flowtable(FlowtableObj *f)
{
	free_blob(f->hook);
	free_blob(f->devices);
	free_obj(f);
}

void Ruleset::free_object(ObjObj *o)
{
	if (o->type == kObjectCounter)
		counter_fini(o->counter);
	else if (o->type == kObjectLimit)
		limit_fini(o->limit);
	free_blob(o->userdata);
	free_obj(o);
}

void Ruleset::free_table(TableObj *t)
{
	free_blob(t->userdata);
	free_obj(t);
}

int Ruleset::log(const UndoRecord &rec, Extack *ack)
{
	if (undo_count_ == undo_cap_) {
		const uint32_t cap = undo_cap_ ? undo_cap_ * 2 : 64;
		auto *n = static_cast<UndoRecord *>(xb_alloc(cap * sizeof(UndoRecord), XB_ALLOC_SLEEP));
		if (!n)
			return fail(ack, kENOMEM, "out of memory for the batch");
		if (undo_) {
			__builtin_memcpy(n, undo_, undo_count_ * sizeof(UndoRecord));
			xb_free(undo_);
		}
		undo_ = n;
		undo_cap_ = cap;
	}
	undo_[undo_count_] = rec;
	undo_[undo_count_++].nlflags = req_flags_;
	return 0;
}

/*
 * Unlink @obj from @list, logging @kind with the sibling it was before, so
 * that an abort puts it back where it was. Nothing changes on failure.
 */
template <typename List, typename Obj>
int Ruleset::unlink_logged(UndoKind kind, List &list, Obj *obj, Extack *ack)
{
	auto it = list.iterator_to(*obj);
	auto next = it;
	++next;
	int err = log({kind, obj, next == list.end() ? nullptr : &*next, 0}, ack);
	if (err)
		return err;
	list.erase(it);
	return 0;
}

/* ---- lookups and use ---------------------------------------------------- */

TableObj *Ruleset::find_table(const Attr &name)
{
	for (TableObj &t : tables_)
		if (name_is(t.name, name))
			return &t;
	return nullptr;
}

bool Ruleset::chain_in_use(const ChainObj *c) const
{
	const TableObj *t = c->table;
	for (const ChainObj &o : t->chains)
		for (const RuleObj &r : o.rules)
			for (uint32_t i = 0; i < r.code.count; i++)
				if (r.code.insn[i].op == Op::Verdict && r.code.insn[i].ref == c)
					return true;
	for (const SetObj &s : t->sets) {
		if (!s.layout.verdict_map)
			continue;
		for (uint32_t i = 0; i < s.elems.count(); i++) {
			const ElemView e = s.elems.at(i);
			if (!(e.flags & kElemDead) && e.chain == c)
				return true;
		}
	}
	return false;
}

bool Ruleset::set_in_use(const SetObj *s) const
{
	return s->rule_uses != 0;
}

namespace {

/* A set was linked into its table: anon_top bounds the number its name
 * ends in. */
void note_set_name(TableObj *t, const char *name)
{
	size_t len = cstr_len(name), i = len;
	while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9')
		i--;
	if (i == len)
		return;
	uint64_t v = 0;
	for (; i < len && v <= 0xffffffffu; i++)
		v = v * 10 + uint64_t(name[i] - '0');
	const uint32_t top = v >= 0xffffffffu ? 0xffffffffu : uint32_t(v + 1);
	if (top > t->anon_top)
		t->anon_top = top;
}

/* The set a lookup or a set statement binds (nf_tables_bind_set), if any. */
SetObj *bound_set(const Insn &in)
{
	if (in.op == Op::Lookup)
		return static_cast<SetObj *>(in.ref);
	if (in.op == Op::Dynset)
		return static_cast<SetObj *>(static_cast<Dynset *>(in.ref)->set);
	if (in.op == Op::ObjMap)
		return static_cast<SetObj *>(in.ref);
	return nullptr;
}

/* A rule was linked into (+1) or unlinked from (-1) its chain: count its
 * lookups on the sets they name (SetObj::rule_uses) and its references to
 * named objects (ObjObj::rule_uses). */
void count_set_uses(const RuleObj *r, int delta)
{
	for (uint32_t i = 0; i < r->code.count; i++) {
		const Insn &in = r->code.insn[i];
		if (SetObj *s = bound_set(in))
			s->rule_uses += uint32_t(delta);
		else if (in.op == Op::ObjCounter || in.op == Op::ObjQuota || in.op == Op::ObjLimit)
			static_cast<ObjObj *>(in.ref)->rule_uses += uint32_t(delta);
	}
}

} // namespace

bool Ruleset::flowtable_in_use(const FlowtableObj *f) const
{
	for (const ChainObj &c : f->table->chains)
		for (const RuleObj &r : c.rules)
			for (uint32_t i = 0; i < r.code.count; i++)
				if (r.code.insn[i].op == Op::FlowOffload && r.code.insn[i].ref == f)
					return true;
	return false;
}

/* ---- the batch ---------------------------------------------------------- */

int Ruleset::apply(uint16_t type, uint16_t nlflags, uint32_t family, const uint8_t *attrs,
		   size_t len, Extack *ack)
{
	constexpr unsigned kMax = 20;
	Attr tb[kMax + 1];
	if (!parse_attrs(attrs, len, tb, kMax))
		return fail(ack, kEINVAL, "malformed attributes");
	const bool is_delete = type == kMsgDelTable || type == kMsgDelChain ||
			       type == kMsgDelRule || type == kMsgDelSet ||
			       type == kMsgDelSetElem || type == kMsgDelFlowtable ||
			       type == kMsgDelObj;
	int err = check_family(family, is_delete, ack);
	if (err)
		return err;
	change_seq_++;
	req_flags_ = nlflags;
	if (!batch_open_) {
		batch_open_ = true;
		first_echo_ = nlflags & kNlmFEcho;
	}

	const uint32_t mark = undo_count_;
	switch (type) {
	case kMsgNewTable: err = new_table(nlflags, tb, ack); break;
	case kMsgDelTable: err = del_table(nlflags, tb, ack); break;
	case kMsgNewChain: err = new_chain(nlflags, tb, ack); break;
	case kMsgDelChain: err = del_chain(nlflags, tb, ack); break;
	case kMsgNewRule: err = new_rule(nlflags, tb, ack); break;
	case kMsgDelRule: err = del_rule(nlflags, tb, ack); break;
	case kMsgNewSet: err = new_set(nlflags, tb, ack); break;
	case kMsgDelSet: err = del_set(nlflags, tb, ack); break;
	case kMsgNewSetElem: err = new_setelem(nlflags, tb, ack); break;
	case kMsgDelSetElem: err = del_setelem(nlflags, tb, ack); break;
	case kMsgNewFlowtable: err = new_flowtable(nlflags, tb, ack); break;
	case kMsgDelFlowtable: err = del_flowtable(nlflags, tb, ack); break;
	case kMsgNewObj: err = new_obj(nlflags, tb, ack); break;
	case kMsgDelObj: err = del_obj(nlflags, tb, ack); break;
	default:
		return fail(ack, kEOPNOTSUPP, "unsupported nf_tables request");
	}
	if (err) {
		/* Undo this request's own records: the batch is as before it. */
		while (undo_count_ > mark)
			undo_one(undo_[--undo_count_]);
		return err;
	}
	if (validate_each_ && (type == kMsgNewRule || type == kMsgNewSetElem)) {
		/* nf_tables' replay: the request stays, its table is checked */
		TableObj *t = find_table(type == kMsgNewRule ? tb[kRuleTable] : tb[kSetElemListTable]);
		if (t)
			return validate_table(t, ack);
	}
	return 0;
}

void Ruleset::abort()
{
	change_seq_++;
	validate_each_ = false;
	batch_open_ = false;
	while (undo_count_)
		undo_one(undo_[--undo_count_]);
}

/*
 * Undo of a delete: @obj goes back into @list before @next, the object that
 * followed it when it was taken out (nullptr: it was last).
 */
template <typename List, typename Obj>
static void put_back(List &list, Obj &obj, void *next)
{
	list.insert(next ? list.iterator_to(*static_cast<Obj *>(next)) : list.end(), obj);
}

void Ruleset::undo_one(const UndoRecord &rec)
{
	switch (rec.kind) {
	case UndoKind::AddTable: {
		auto *t = static_cast<TableObj *>(rec.obj);
		tables_.erase(tables_.iterator_to(*t));
		free_table(t);
		break;
	}
	case UndoKind::DelTable:
		put_back(tables_, *static_cast<TableObj *>(rec.obj), rec.next);
		break;
	case UndoKind::UpdTable:
		static_cast<TableObj *>(rec.obj)->flags = rec.old_u32;
		break;
	case UndoKind::AddChain: {
		auto *c = static_cast<ChainObj *>(rec.obj);
		c->table->chains.erase(c->table->chains.iterator_to(*c));
		free_chain(c);
		break;
	}
	case UndoKind::DelChain: {
		auto *c = static_cast<ChainObj *>(rec.obj);
		put_back(c->table->chains, *c, rec.next);
		break;
	}
	case UndoKind::UpdChain:
		static_cast<ChainObj *>(rec.obj)->policy = int32_t(rec.old_u32);
		xb_free(rec.next);
		break;
	case UndoKind::UpdSet: {
		auto *set = static_cast<SetObj *>(rec.obj);
		set->timeout_ns = uint64_t(reinterpret_cast<uintptr_t>(rec.next));
		set->gc_interval = rec.old_u32;
		break;
	}
	case UndoKind::AddRule: {
		auto *r = static_cast<RuleObj *>(rec.obj);
		r->chain->rules.erase(r->chain->rules.iterator_to(*r));
		count_set_uses(r, -1);
		free_rule(r);
		break;
	}
	case UndoKind::DelRule: {
		auto *r = static_cast<RuleObj *>(rec.obj);
		put_back(r->chain->rules, *r, rec.next);
		count_set_uses(r, +1);
		break;
	}
	case UndoKind::AddSet: {
		auto *s = static_cast<SetObj *>(rec.obj);
		s->table->sets.erase(s->table->sets.iterator_to(*s));
		s->table->anon_low = 0;
		free_set(s);
		break;
	}
	case UndoKind::DelSet: {
		auto *s = static_cast<SetObj *>(rec.obj);
		put_back(s->table->sets, *s, rec.next);
		note_set_name(s->table, s->name);
		break;
	}
	case UndoKind::AddElem:
		static_cast<SetObj *>(rec.obj)->elems.remove_last();
		break;
	case UndoKind::DelElem: {
		auto *s = static_cast<SetObj *>(rec.obj);
		s->elems.revive(rec.old_u32);
		break;
	}
	case UndoKind::DelDynElem:
		xb_free(rec.next);
		break;
	case UndoKind::AddFlowtable: {
		auto *f = static_cast<FlowtableObj *>(rec.obj);
		f->table->flowtables.erase(f->table->flowtables.iterator_to(*f));
		free_flowtable(f);
		break;
	}
	case UndoKind::DelFlowtable: {
		auto *f = static_cast<FlowtableObj *>(rec.obj);
		put_back(f->table->flowtables, *f, rec.next);
		break;
	}
	case UndoKind::AddObj: {
		auto *o = static_cast<ObjObj *>(rec.obj);
		o->table->objs.erase(o->table->objs.iterator_to(*o));
		free_object(o);
		break;
	}
	case UndoKind::DelObj: {
		auto *o = static_cast<ObjObj *>(rec.obj);
		put_back(o->table->objs, *o, rec.next);
		break;
	}
	}
}

/*
 * nf_tables_commit's notifications: the batch's records in order. An
 * anonymous set goes with the rule bound to it: nf_tables_unbind_set
 * notifies its DELSET right after that rule's DELRULE (and nft_flush_table
 * never deletes a bound anonymous set on its own), so its own record is
 * skipped.
 */
void Ruleset::notify(const CommitSink &events)
{
	for (uint32_t i = 0; i < undo_count_; i++) {
		UndoRecord &rec = undo_[i];
		if (rec.kind == UndoKind::UpdChain && rec.next)
			apply_rename(rec);
		/* nf_tables' notifications carry the request's CREATE and EXCL */
		const uint16_t create_excl = rec.nlflags & (kNlmFCreate | kNlmFExcl);
		const bool report = rec.nlflags & kNlmFEcho;
		CommitEvent ev{0, rec.obj, 0, nullptr, create_excl, report};
		if (rec.kind == UndoKind::DelSet &&
		    (static_cast<const SetObj *>(rec.obj)->flags & kSetFAnonymous))
			continue;
		if (rec.kind == UndoKind::DelRule) {
			const auto *r = static_cast<const RuleObj *>(rec.obj);
			/* nf_tables_rule_notify: APPEND for a replace's old rule */
			ev.type = kMsgDelRule;
			if (rec.nlflags & (kNlmFAppend | kNlmFReplace))
				ev.flags |= kNlmFAppend;
			events.fn(events.ctx, *this, ev);
			for (uint32_t k = 0; k < r->code.count; k++) {
				const SetObj *s = bound_set(r->code.insn[k]);
				if (s && (s->flags & kSetFAnonymous) &&
				    !s->link.is_linked())
					events.fn(events.ctx, *this,
						  CommitEvent{kMsgDelSet, s, 0, nullptr,
							      create_excl, report});
			}
			continue;
		}
		switch (rec.kind) {
		case UndoKind::AddTable:
		case UndoKind::UpdTable: ev.type = kMsgNewTable; break;
		case UndoKind::DelTable: ev.type = kMsgDelTable; break;
		case UndoKind::AddChain:
		case UndoKind::UpdChain: ev.type = kMsgNewChain; break;
		case UndoKind::DelChain: ev.type = kMsgDelChain; break;
		case UndoKind::AddRule:
			ev.type = kMsgNewRule;
			ev.flags = uint16_t(rec.old_u32);
			break;
		case UndoKind::DelRule: ev.type = kMsgDelRule; break;
		case UndoKind::AddSet:
		case UndoKind::UpdSet: ev.type = kMsgNewSet; break;
		case UndoKind::DelSet: ev.type = kMsgDelSet; break;
		case UndoKind::AddElem: ev.type = kMsgNewSetElem; ev.elem = rec.old_u32; break;
		case UndoKind::DelElem: ev.type = kMsgDelSetElem; ev.elem = rec.old_u32; break;
		case UndoKind::DelDynElem:
			ev.type = kMsgDelSetElem;
			ev.dyn = static_cast<const DynElemCopy *>(rec.next);
			break;
		case UndoKind::AddFlowtable: ev.type = kMsgNewFlowtable; break;
		case UndoKind::DelFlowtable: ev.type = kMsgDelFlowtable; break;
		case UndoKind::AddObj: ev.type = kMsgNewObj; break;
		case UndoKind::DelObj: ev.type = kMsgDelObj; break;
		}
		events.fn(events.ctx, *this, ev);
	}
	events.fn(events.ctx, *this, CommitEvent{kMsgNewGen, nullptr, 0, nullptr, 0, first_echo_});
}

int Ruleset::commit(Extack *ack, const CommitSink *events)
{
	change_seq_++;
	validate_each_ = false;
	batch_open_ = false;
	/* nf_tables_commit: a batch that changed nothing publishes nothing,
	 * notifies nothing and keeps the generation */
	if (undo_count_ == 0)
		return 0;
	Generation *next = nullptr;
	int err = build(next, ack);
	if (err) {
		abort();
		return err;
	}
	/* nf_tables' base_seq: 1 at the start, never 0 */
	if (++gen_id_ == 0)
		gen_id_ = 1;
	if (next)
		next->id = gen_id_;
	Generation *old = gen_.writer();
	gen_.publish(next);
	xb_synchronize_rcu();
	free_generation(old);

	/* The notifications, while every object of the batch (deleted ones
	 * too) and every element index are as the batch left them. A chain
	 * takes a new name as its notification goes out, in the batch's
	 * order, as nf_tables_commit renames and notifies it: what is
	 * notified before names the chain by its old name. */
	if (events && events->fn)
		notify(*events);
	else
		apply_renames();

	/* Compact the sets whose elements this batch deleted, then free what
	 * it deleted: no frame can reach any of it now. The sets with
	 * timeouts it added to lose their expired elements too (the batch's
	 * garbage collection: a lookup already skips them). */
	const uint64_t now = xb_now_ns();
	for (uint32_t i = 0; i < undo_count_; i++) {
		SetObj *s = static_cast<SetObj *>(undo_[i].obj);
		if (undo_[i].kind == UndoKind::AddElem && s->layout.timeout)
			s->elems.purge_expired(now);
		else if (undo_[i].kind == UndoKind::DelElem)
			s->elems.compact();
		else if (undo_[i].kind == UndoKind::DelDynElem && s->dyn)
			s->dyn->remove(static_cast<DynElemCopy *>(undo_[i].next)->key, 0);
	}
	/* The garbage collection of what frames added (nft_rhash_gc, run at
	 * each commit rather than on a timer: lookups skip expired elements
	 * meanwhile, and adding to a bucket collects it). */
	for (TableObj &t : tables_)
		for (SetObj &s : t.sets)
			if (s.dyn)
				s.dyn->purge_expired(now);
	for (uint32_t i = 0; i < undo_count_; i++) {
		const UndoRecord &rec = undo_[i];
		switch (rec.kind) {
		case UndoKind::DelTable: free_table(static_cast<TableObj *>(rec.obj)); break;
		case UndoKind::DelChain: free_chain(static_cast<ChainObj *>(rec.obj)); break;
		case UndoKind::DelRule: free_rule(static_cast<RuleObj *>(rec.obj)); break;
		case UndoKind::DelSet: free_set(static_cast<SetObj *>(rec.obj)); break;
		case UndoKind::DelFlowtable:
			free_flowtable(static_cast<FlowtableObj *>(rec.obj));
			break;
		case UndoKind::DelObj: free_object(static_cast<ObjObj *>(rec.obj)); break;
		case UndoKind::DelDynElem:
		case UndoKind::UpdChain: xb_free(rec.next); break;
		case UndoKind::AddChain: static_cast<ChainObj *>(rec.obj)->batch_id = 0; break;
		case UndoKind::AddRule: static_cast<RuleObj *>(rec.obj)->batch_id = 0; break;
		case UndoKind::AddSet: static_cast<SetObj *>(rec.obj)->batch_id = 0; break;
		default: break;
		}
	}
	undo_count_ = 0;
	return 0;
}

int Ruleset::check(Extack *ack)
{
	change_seq_++;
	Generation *next = nullptr;
	int err = build(next, ack);
	free_generation(next);	/* never published: no reader has it */
	abort();
	return err;
}

/*
 * An object deleted and later freed by commit must not also be freed by an
 * earlier Add record: Add records free only on abort, Del records only on
 * commit, so each object is freed exactly once either way.
 */

/* ---- tables ------------------------------------------------------------- */

int Ruleset::new_table(uint16_t flags, const Attr *tb, Extack *ack)
{
	uint32_t tflags;
	if (!be32_or(tb[kTableFlags], 0, tflags))
		return fail(ack, kEINVAL, "table flags are a 32-bit value");
	if (tflags & ~(kTableFDormant | kTableFOwner))
		return fail(ack, kEOPNOTSUPP, "unknown table flags");
	if (tflags & kTableFOwner)
		return fail(ack, kEOPNOTSUPP, "owned tables are not supported by xbridge");
	if (!tb[kTableName].present())
		return fail(ack, kEINVAL, "a table needs a name");
	if (TableObj *t = find_table(tb[kTableName])) {
		if (flags & kNlmFExcl)
			return fail_at(ack, kEEXIST, tb[kTableName].data, "table exists");
		if (flags & kNlmFReplace)
			return fail(ack, kEOPNOTSUPP, "tables cannot be replaced");
		if (!tb[kTableFlags].present() || tflags == t->flags)
			return 0;
		int err = log({UndoKind::UpdTable, t, nullptr, t->flags}, ack);
		if (err)
			return err;
		t->flags = tflags;
		return 0;
	}
	TableObj *t = alloc_obj<TableObj>();
	if (!t)
		return fail(ack, kENOMEM, "out of memory for a table");
	int err = copy_name(t->name, tb[kTableName], ack);
	if (!err)
		err = copy_blob(t->userdata, tb[kTableUserdata], kUserdataMax, ack);
	if (!err)
		err = log({UndoKind::AddTable, t, nullptr, 0}, ack);
	if (err) {
		free_table(t);
		return err;
	}
	t->flags = tflags;
	t->handle = next_table_handle_++;
	t->next_handle = 1;
	tables_.push_back(*t);
	return 0;
}

int Ruleset::remove_table(TableObj *t, Extack *ack)
{
	int err = flush_table(t, ack);
	if (err)
		return err;
	return unlink_logged(UndoKind::DelTable, tables_, t, ack);
}

/* nft_flush_table: rules, then sets, flowtables, objects and chains. */
int Ruleset::flush_table(TableObj *t, Extack *ack)
{
	for (ChainObj &c : t->chains)
		while (!c.rules.empty()) {
			int err = remove_rule(&c.rules.front(), ack);
			if (err)
				return err;
		}
	while (!t->sets.empty()) {
		int err = remove_set(&t->sets.front(), ack);
		if (err)
			return err;
	}
	while (!t->flowtables.empty()) {
		int err = remove_flowtable(&t->flowtables.front(), ack);
		if (err)
			return err;
	}
	while (!t->objs.empty()) {
		int err = remove_obj(&t->objs.front(), ack);
		if (err)
			return err;
	}
	while (!t->chains.empty()) {
		int err = remove_chain(&t->chains.front(), ack);
		if (err)
			return err;
	}
	return 0;
}

int Ruleset::del_table(uint16_t, const Attr *tb, Extack *ack)
{
	if (!tb[kTableName].present() && !tb[kTableHandle].present()) {
		/* flush ruleset */
		while (!tables_.empty()) {
			int err = remove_table(&tables_.front(), ack);
			if (err)
				return err;
		}
		return 0;
	}
	TableObj *t = nullptr;
	if (tb[kTableHandle].present()) {
		uint64_t h;
		if (!attr_be64(tb[kTableHandle], h))
			return fail(ack, kEINVAL, "table handle is a 64-bit value");
		for (TableObj &o : tables_)
			if (o.handle == h)
				t = &o;
	} else {
		t = find_table(tb[kTableName]);
	}
	if (!t)
		return fail_at(ack, kENOENT, tb[kTableHandle].present() ? tb[kTableHandle].data
									: tb[kTableName].data,
			       "no such table");
	return remove_table(t, ack);
}

/* ---- chains ------------------------------------------------------------- */

int Ruleset::new_chain(uint16_t flags, const Attr *tb, Extack *ack)
{
	if (!tb[kChainTable].present())
		return fail(ack, kEINVAL, "a chain needs a table");
	TableObj *t = find_table(tb[kChainTable]);
	if (!t)
		return fail_at(ack, kENOENT, tb[kChainTable].data, "no such table");
	uint32_t cflags = 0, policy = kNfAccept, id = 0;
	if (!be32_or(tb[kChainFlags], 0, cflags) || !be32_or(tb[kChainId], 0, id))
		return fail(ack, kEINVAL, "chain flags and id are 32-bit values");
	if (cflags & ~kChainFBase)
		return fail(ack, kEOPNOTSUPP, "unsupported chain flags");
	const bool has_policy = tb[kChainPolicy].present();
	if (has_policy) {
		if (!attr_be32(tb[kChainPolicy], policy))
			return fail(ack, kEINVAL, "chain policy is a 32-bit value");
		if (policy != uint32_t(kNfAccept) && policy != uint32_t(kNfDrop))
			return fail(ack, kEINVAL, "a chain policy is accept or drop");
	}
	bool base = false;
	uint32_t hooknum = 0;
	int32_t priority = 0;
	if (tb[kChainHook].present()) {
		Attr ht[kHookDevs + 1];
		if (!parse_nested(tb[kChainHook], ht, kHookDevs))
			return fail(ack, kEINVAL, "malformed chain hook");
		uint32_t prio;
		if (!ht[kHookHooknum].present() || !ht[kHookPriority].present() ||
		    !attr_be32(ht[kHookHooknum], hooknum) || !attr_be32(ht[kHookPriority], prio))
			return fail(ack, kEINVAL, "a base chain needs a hook number and a priority");
		if (ht[kHookDev].present() || ht[kHookDevs].present())
			return fail(ack, kEOPNOTSUPP, "bridge chains take no devices");
		if (hooknum >= kHookCount)
			return fail(ack, kEOPNOTSUPP, "no such bridge hook");
		if (tb[kChainType].present()) {
			char type[kNameMax];
			if (!attr_string(tb[kChainType], type, sizeof(type)))
				return fail(ack, kEINVAL, "bad chain type");
			if (!cstr_equal(type, "filter"))
				return fail(ack, kENOENT, "the bridge family has filter chains only");
		}
		priority = int32_t(prio);
		base = true;
	}

	ChainObj *existing = nullptr;
	if (tb[kChainHandle].present()) {
		uint64_t h;
		if (!attr_be64(tb[kChainHandle], h))
			return fail(ack, kEINVAL, "chain handle is a 64-bit value");
		for (ChainObj &c : t->chains)
			if (c.handle == h)
				existing = &c;
		if (!existing)
			return fail_at(ack, kENOENT, tb[kChainHandle].data, "no such chain");
	} else if (tb[kChainName].present()) {
		for (ChainObj &c : t->chains)
			if (name_is(c.name, tb[kChainName]))
				existing = &c;
	} else {
		return fail(ack, kEINVAL, "a chain needs a name");
	}

	if (existing) {
		const void *id = tb[kChainHandle].present() ? tb[kChainHandle].data
							   : tb[kChainName].data;
		if (flags & kNlmFExcl)
			return fail_at(ack, kEEXIST, id, "chain exists");
		if (flags & kNlmFReplace)
			return fail(ack, kEOPNOTSUPP, "chains cannot be replaced");
		if (base != existing->base && tb[kChainHook].present())
			return fail_at(ack, kEEXIST, id, "chain exists with another hook");
		if (base && (hooknum != existing->hooknum || priority != existing->priority))
			return fail_at(ack, kEEXIST, id, "chain exists with another hook or priority");
		if (has_policy && !existing->base)
			return fail(ack, kEOPNOTSUPP, "only base chains have a policy");
		char *rename = nullptr;
		if (tb[kChainHandle].present() && tb[kChainName].present()) {
			int err = new_chain_name(t, tb[kChainName], rename, ack);
			if (err)
				return err;
		}
		/* nf_tables_updchain: an update whatever it changes (a
		 * NEWCHAIN notification and a new generation) */
		int err = log({UndoKind::UpdChain, existing, rename, uint32_t(existing->policy)},
			      ack);
		if (err) {
			xb_free(rename);
			return err;
		}
		if (has_policy)
			existing->policy = int32_t(policy);
		return 0;
	}
	if (has_policy && !base)
		return fail(ack, kEOPNOTSUPP, "only base chains have a policy");

	ChainObj *c = alloc_obj<ChainObj>();
	if (!c)
		return fail(ack, kENOMEM, "out of memory for a chain");
	int err = copy_name(c->name, tb[kChainName], ack);
	if (!err)
		err = copy_blob(c->userdata, tb[kChainUserdata], kUserdataMax, ack);
	if (!err)
		err = log({UndoKind::AddChain, c, nullptr, 0}, ack);
	if (err) {
		free_chain(c);
		return err;
	}
	c->table = t;
	c->handle = t->next_handle++;
	c->batch_id = id;
	c->base = base;
	c->hooknum = hooknum;
	c->priority = priority;
	c->hook_seq = base ? next_hook_seq_++ : 0;
	c->policy = int32_t(policy);
	c->flags = base ? kChainFBase : 0;
	t->chains.push_back(*c);
	return 0;
}

/*
 * nf_tables_updchain's rename (NFTA_CHAIN_HANDLE names the chain,
 * NFTA_CHAIN_NAME its new name): refused with EEXIST when a chain of
 * @t has the name now, or another rename of this batch in @t takes it;
 * else @out is the new name, taken at commit by apply_renames().
 */
int Ruleset::new_chain_name(const TableObj *t, const Attr &name, char *&out, Extack *ack)
{
	for (const ChainObj &c : t->chains)
		if (name_is(c.name, name))
			return fail_at(ack, kEEXIST, name.data, "a chain of that name exists");
	for (uint32_t i = 0; i < undo_count_; i++) {
		const UndoRecord &rec = undo_[i];
		if (rec.kind == UndoKind::UpdChain && rec.next &&
		    static_cast<const ChainObj *>(rec.obj)->table == t &&
		    name_is(static_cast<const char *>(rec.next), name))
			return fail_at(ack, kEEXIST, name.data,
				       "another chain is renamed to that name in this batch");
	}
	out = static_cast<char *>(xb_alloc(kNameMax, XB_ALLOC_SLEEP));
	if (!out)
		return fail(ack, kENOMEM, "out of memory for a chain's name");
	int err = copy_name(out, name, ack);
	if (err) {
		xb_free(out);
		out = nullptr;
	}
	return err;
}

/* nft_chain_commit_update: the batch's renames in its order (a chain
 * renamed twice ends with the second name). Each record keeps the name
 * it replaced, freed with the record. */
/* The chain of UpdChain record @rec takes its pending name; the record
 * keeps the old one (freed with the record at the end of the commit). */
void Ruleset::apply_rename(UndoRecord &rec)
{
	char *name = static_cast<ChainObj *>(rec.obj)->name;
	char *pending = static_cast<char *>(rec.next);
	for (uint32_t k = 0; k < kNameMax; k++) {
		const char c = name[k];
		name[k] = pending[k];
		pending[k] = c;
	}
}

void Ruleset::apply_renames()
{
	for (uint32_t i = 0; i < undo_count_; i++)
		if (undo_[i].kind == UndoKind::UpdChain && undo_[i].next)
			apply_rename(undo_[i]);
}

int Ruleset::remove_chain(ChainObj *c, Extack *ack)
{
	while (!c->rules.empty()) {
		int err = remove_rule(&c->rules.front(), ack);
		if (err)
			return err;
	}
	if (chain_in_use(c))
		return fail(ack, kEBUSY, "chain is the target of a jump or goto");
	return unlink_logged(UndoKind::DelChain, c->table->chains, c, ack);
}

int Ruleset::del_chain(uint16_t flags, const Attr *tb, Extack *ack)
{
	if (!tb[kChainTable].present())
		return fail(ack, kEINVAL, "a chain needs a table");
	TableObj *t = find_table(tb[kChainTable]);
	if (!t)
		return fail_at(ack, kENOENT, tb[kChainTable].data, "no such table");
	ChainObj *c = nullptr;
	if (tb[kChainHandle].present()) {
		uint64_t h;
		if (!attr_be64(tb[kChainHandle], h))
			return fail(ack, kEINVAL, "chain handle is a 64-bit value");
		for (ChainObj &o : t->chains)
			if (o.handle == h)
				c = &o;
	} else if (tb[kChainName].present()) {
		for (ChainObj &o : t->chains)
			if (name_is(o.name, tb[kChainName]))
				c = &o;
	} else {
		return fail(ack, kEINVAL, "a chain needs a name or a handle");
	}
	const void *id = tb[kChainHandle].present() ? tb[kChainHandle].data : tb[kChainName].data;
	if (!c)
		return fail_at(ack, kENOENT, id, "no such chain");
	if ((flags & kNlmFNonrec) && !c->rules.empty())
		return fail_at(ack, kEBUSY, id, "chain is not empty");
	int err = remove_chain(c, ack);
	return err == -kEBUSY ? blame_part(ack, err, id) : err;
}

/* ---- rules -------------------------------------------------------------- */

static ChainObj *rule_chain(TableObj *t, const Attr *tb, Extack *ack, int &err)
{
	err = 0;
	if (tb[kRuleChain].present()) {
		for (ChainObj &c : t->chains)
			if (name_is(c.name, tb[kRuleChain]))
				return &c;
	} else if (tb[kRuleChainId].present()) {
		uint32_t id;
		if (attr_be32(tb[kRuleChainId], id))
			for (ChainObj &c : t->chains)
				if (c.batch_id && c.batch_id == id)
					return &c;
	} else {
		err = fail(ack, kEINVAL, "a rule needs a chain");
		return nullptr;
	}
	err = fail_at(ack, kENOENT, tb[kRuleChain].present() ? tb[kRuleChain].data
							     : tb[kRuleChainId].data,
		      "no such chain");
	return nullptr;
}

static RuleObj *rule_by_handle(ChainObj *c, const Attr &a)
{
	uint64_t h;
	if (!attr_be64(a, h))
		return nullptr;
	for (RuleObj &r : c->rules)
		if (r.handle == h)
			return &r;
	return nullptr;
}

int Ruleset::new_rule(uint16_t flags, const Attr *tb, Extack *ack)
{
	if (!tb[kRuleTable].present())
		return fail(ack, kEINVAL, "a rule needs a table");
	TableObj *t = find_table(tb[kRuleTable]);
	if (!t)
		return fail_at(ack, kENOENT, tb[kRuleTable].data, "no such table");
	int err;
	ChainObj *c = rule_chain(t, tb, ack, err);
	if (!c)
		return err;

	RuleObj *old = nullptr;
	if (tb[kRuleHandle].present()) {
		old = rule_by_handle(c, tb[kRuleHandle]);
		if (!old)
			return fail_at(ack, kENOENT, tb[kRuleHandle].data, "no such rule");
		if (flags & kNlmFExcl)
			return fail_at(ack, kEEXIST, tb[kRuleHandle].data, "rule exists");
		if (!(flags & kNlmFReplace))
			return fail(ack, kEOPNOTSUPP, "a rule handle is only for replace");
	} else {
		if (!(flags & kNlmFCreate) || (flags & kNlmFReplace))
			return fail(ack, kEINVAL, "a new rule needs create and no replace");
		if (tb[kRulePosition].present()) {
			old = rule_by_handle(c, tb[kRulePosition]);
			if (!old)
				return fail_at(ack, kENOENT, tb[kRulePosition].data,
					       "no rule at that position");
		} else if (tb[kRulePositionId].present()) {
			uint32_t id;
			if (!attr_be32(tb[kRulePositionId], id))
				return fail(ack, kEINVAL, "rule position id is a 32-bit value");
			for (RuleObj &r : c->rules)
				if (r.batch_id && r.batch_id == id)
					old = &r;
			if (!old)
				return fail_at(ack, kENOENT, tb[kRulePositionId].data,
					       "no rule at that position");
		}
	}

	RuleObj *r = alloc_obj<RuleObj>();
	if (!r)
		return fail(ack, kENOMEM, "out of memory for a rule");
	uint32_t id = 0;
	if (!be32_or(tb[kRuleId], 0, id)) {
		free_obj(r);
		return fail(ack, kEINVAL, "rule id is a 32-bit value");
	}
	if (tb[kRuleExpressions].present()) {
		BuildContext res;
		res.table = t;
		err = parse_rule_exprs(tb[kRuleExpressions], res, r->code, ack);
		if (!err)
			err = copy_blob(r->exprs, tb[kRuleExpressions], 0xffff, ack);
	} else {
		err = 0;
	}
	if (!err)
		err = copy_blob(r->userdata, tb[kRuleUserdata], kUserdataMax, ack);
	if (err) {
		free_rule(r);
		return err;
	}
	r->chain = c;
	r->batch_id = id;
	/* nf_tables_rule_notify's message flags: APPEND for an append or a
	 * replace (else the rule was inserted), CREATE and EXCL as asked */
	const uint32_t notify_flags = ((flags & (kNlmFAppend | kNlmFReplace)) ? kNlmFAppend : 0) |
				      (flags & (kNlmFCreate | kNlmFExcl));
	if ((flags & kNlmFReplace) && old) {
		/* nf_tables_newrule: the old rule's deletion is logged (and
		 * notified) before the new rule that takes its place */
		r->handle = old->handle;
		auto at = c->rules.iterator_to(*old);
		++at;
		err = remove_rule(old, ack);
		if (!err)
			err = log({UndoKind::AddRule, r, nullptr, notify_flags}, ack);
		if (err) {
			free_rule(r);
			return err;
		}
		c->rules.insert(at, *r);
		count_set_uses(r, +1);
		return 0;
	}
	err = log({UndoKind::AddRule, r, nullptr, notify_flags}, ack);
	if (err) {
		free_rule(r);
		return err;
	}
	r->handle = t->next_handle++;
	if (flags & kNlmFAppend) {
		if (old) {
			auto it = c->rules.iterator_to(*old);
			++it;
			c->rules.insert(it, *r);
		} else {
			c->rules.push_back(*r);
		}
	} else if (old) {
		c->rules.insert(c->rules.iterator_to(*old), *r);
	} else {
		c->rules.push_front(*r);
	}
	count_set_uses(r, +1);
	return 0;
}

int Ruleset::remove_rule(RuleObj *r, Extack *ack)
{
	int err = unlink_logged(UndoKind::DelRule, r->chain->rules, r, ack);
	if (err)
		return err;
	count_set_uses(r, -1);
	/* An anonymous set goes with the last rule that uses it (a rule
	 * looking it up twice releases it once: it is then unlinked). */
	for (uint32_t i = 0; i < r->code.count; i++) {
		const Insn &in = r->code.insn[i];
		SetObj *s = bound_set(in);
		if (!s)
			continue;
		if ((s->flags & kSetFAnonymous) && !set_in_use(s) && s->link.is_linked() &&
		    (err = remove_set(s, ack)))
			return err;
	}
	return 0;
}

int Ruleset::del_rule(uint16_t, const Attr *tb, Extack *ack)
{
	if (!tb[kRuleTable].present())
		return fail(ack, kEINVAL, "a rule needs a table");
	TableObj *t = find_table(tb[kRuleTable]);
	if (!t)
		return fail_at(ack, kENOENT, tb[kRuleTable].data, "no such table");
	if (!tb[kRuleChain].present() && !tb[kRuleChainId].present()) {
		/* flush table: every rule of every chain */
		for (ChainObj &c : t->chains)
			while (!c.rules.empty()) {
				int err = remove_rule(&c.rules.front(), ack);
				if (err)
					return err;
			}
		return 0;
	}
	int err;
	ChainObj *c = rule_chain(t, tb, ack, err);
	if (!c)
		return err;
	if (tb[kRuleHandle].present()) {
		RuleObj *r = rule_by_handle(c, tb[kRuleHandle]);
		if (!r)
			return fail_at(ack, kENOENT, tb[kRuleHandle].data, "no such rule");
		return remove_rule(r, ack);
	}
	if (tb[kRuleId].present()) {
		uint32_t id;
		if (!attr_be32(tb[kRuleId], id))
			return fail(ack, kEINVAL, "rule id is a 32-bit value");
		for (RuleObj &r : c->rules)
			if (r.batch_id && r.batch_id == id)
				return remove_rule(&r, ack);
		return fail_at(ack, kENOENT, tb[kRuleId].data, "no such rule");
	}
	while (!c->rules.empty())
		if ((err = remove_rule(&c->rules.front(), ack)))
			return err;
	return 0;
}

/* ---- sets --------------------------------------------------------------- */

/*
 * A name with "%d" in it (nft's "__set%d" for anonymous sets) becomes the
 * name with the lowest number no set of @t has, as nf_tables_set_alloc_name
 * finds it: one pass over the table's sets marks the numbers in use in a
 * window of a page of bits, the first clear bit wins, else the next window.
 * O(sets) per new set, not a scan of every set per candidate number.
 */
int Ruleset::anonymous_set_name(TableObj *t, char *name, Extack *ack)
{
	const char *pct = nullptr;
	for (const char *q = name; *q && !pct; q++)
		if (q[0] == '%' && q[1] == 'd')
			pct = q;
	if (!pct)
		return 0;
	const size_t pre = size_t(pct - name);
	const char *suffix = pct + 2;
	uint32_t n = 0;
	/* The common case, a batch of nft's anonymous sets: every "__set"
	 * number below anon_low is taken and no set name ends in a number at
	 * or above anon_top, so anon_low is the lowest free one. Else one
	 * pass over the sets. */
	const bool hinted = cstr_equal(name, "__set%d");
	if (hinted && t->anon_low >= t->anon_top && t->anon_low < 0xffffffffu) {
		n = t->anon_low;
		goto found;
	}
	{
	constexpr uint32_t kWindow = 8 * 4096;
	auto *used = static_cast<uint8_t *>(xb_alloc(kWindow / 8, XB_ALLOC_SLEEP));
	if (!used)
		return fail(ack, kENOMEM, "out of memory for a set name");
	for (uint32_t base = 0;; base += kWindow) {
		__builtin_memset(used, 0, kWindow / 8);
		for (const SetObj &s : t->sets) {
			/* prefix, a number as %d prints it, suffix */
			if (__builtin_memcmp(s.name, name, pre) != 0)
				continue;
			const char *d = s.name + pre;
			uint64_t v = 0;
			size_t nd = 0;
			while (d[nd] >= '0' && d[nd] <= '9' && nd < 11)
				v = v * 10 + uint64_t(d[nd++] - '0');
			if (nd == 0 || (nd > 1 && d[0] == '0') || !cstr_equal(d + nd, suffix))
				continue;
			if (v >= base && v < uint64_t(base) + kWindow)
				used[(v - base) / 8] |= uint8_t(1u << ((v - base) % 8));
		}
		uint32_t i = 0;
		while (i < kWindow && (used[i / 8] & (1u << (i % 8))))
			i++;
		if (i < kWindow) {
			n = base + i;
			break;
		}
		if (base > 0xffffffffu - 2 * kWindow) {
			xb_free(used);
			return fail(ack, kENFILE, "no free set name");
		}
	}
	xb_free(used);
	}
found:
	if (hinted)
		t->anon_low = n + 1;
	char digits[12];
	int nd = 0;
	do {
		digits[nd++] = char('0' + n % 10);
		n /= 10;
	} while (n);
	if (cstr_len(name) - 2 + size_t(nd) >= kNameMax)
		return fail(ack, kENFILE, "no free set name");
	char candidate[kNameMax];
	__builtin_memcpy(candidate, name, pre);
	for (int i = 0; i < nd; i++)
		candidate[pre + size_t(i)] = digits[nd - 1 - i];
	cstr_copy(candidate + pre + nd, suffix);
	cstr_copy(name, candidate);
	return 0;
}

/*
 * nft_set_expr_alloc: the set's stateful expressions, NFTA_SET_EXPR (one)
 * or NFTA_SET_EXPRESSIONS (a list, with NFT_SET_EXPR among the flags).
 * nft_set_elem_expr_alloc keeps a ct count (an NFT_EXPR_GC expression) out
 * of a set whose elements time out, and out of the set kinds that collect
 * nothing: nft_set_rhash and nft_set_pipapo have a gc_init, and from 6.12
 * (of the two kernels read) nft_set_rbtree too; the fixed nft_set_hash and
 * nft_set_bitmap never.
 */
static int parse_set_exprs(const Attr *tb, uint32_t sflags, const SetLayout &l, uint32_t size,
			   ElemExprs &out, Extack *ack)
{
	out = ElemExprs{};
	int err;
	if (tb[kSetExpr].present()) {
		if ((err = parse_elem_expr(tb[kSetExpr], out.expr[0], ack)))
			return err;
		out.count = 1;
	} else if (tb[kSetExpressions].present()) {
		if (!(sflags & kSetFExpr))
			return fail(ack, kEINVAL, "set expressions without their flag");
		if ((err = parse_elem_expr_list(tb[kSetExpressions], nullptr, 0, out, ack)))
			return err;
	}
	const bool rhash = !(sflags & kSetFInterval) &&
			   ((sflags & (kSetFEval | kSetFTimeout)) || (!size && l.key_len > 2));
	const bool pipapo = l.interval && l.concat;
	/* nft_set_rbtree has a gc_init since the GC transaction API (6.5) */
	const bool rbtree = l.interval && !l.concat && !kLinuxBefore612;
	for (unsigned i = 0; i < out.count; i++) {
		if (out.expr[i].kind != ElemExprKind::Connlimit)
			continue;
		if (sflags & kSetFTimeout)
			return fail(ack, kEOPNOTSUPP, "ct count in the elements of a set with timeouts");
		if (!rhash && !pipapo && !rbtree)
			return fail(ack, kEOPNOTSUPP, "this set's kind cannot hold a ct count");
	}
	return 0;
}

/* nf_msecs_to_jiffies64: milliseconds, as long as they fit in nanoseconds
 * (ERANGE otherwise). */
int Ruleset::new_set(uint16_t flags, const Attr *tb, Extack *ack)
{
	if (!tb[kSetTable].present())
		return fail(ack, kEINVAL, "a set needs a table");
	TableObj *t = find_table(tb[kSetTable]);
	if (!t)
		return fail_at(ack, kENOENT, tb[kSetTable].data, "no such table");
	if (!tb[kSetName].present() || !tb[kSetKeyLen].present())
		return fail(ack, kEINVAL, "a set needs a name and a key length");
	uint32_t sflags = 0, key_type = 0, key_len, data_type = 0, data_len = 0, policy = 0, id = 0;
	if (!be32_or(tb[kSetFlags], 0, sflags) || !be32_or(tb[kSetKeyType], 0, key_type) ||
	    !attr_be32(tb[kSetKeyLen], key_len) || !be32_or(tb[kSetDataType], 0, data_type) ||
	    !be32_or(tb[kSetDataLen], 0, data_len) || !be32_or(tb[kSetPolicy], 0, policy) ||
	    !be32_or(tb[kSetId], 0, id))
		return fail(ack, kEINVAL, "set attributes are 32-bit values");
	if (key_len == 0 || key_len > kSetKeyMax)
		return fail(ack, kEINVAL, "set key length is 1 to 64 bytes");
	if (sflags & ~(kSetFAnonymous | kSetFConstant | kSetFInterval | kSetFMap | kSetFConcat |
		       kSetFTimeout | kSetFEval | kSetFObject | kSetFExpr))
		return fail(ack, kEOPNOTSUPP, "unknown set flags");
	/* nf_tables_newset: an object map names its objects' type, and is
	 * no data map */
	uint32_t obj_type = 0;
	if ((sflags & (kSetFMap | kSetFObject)) == (kSetFMap | kSetFObject))
		return fail(ack, kEOPNOTSUPP, "a set is a map or an object map, not both");
	if (tb[kSetObjType].present()) {
		if (!(sflags & kSetFObject))
			return fail(ack, kEINVAL, "an object type needs an object map");
		if (!attr_be32(tb[kSetObjType], obj_type))
			return fail(ack, kEINVAL, "set object type is a 32-bit value");
		if (obj_type != kObjectCounter && obj_type != kObjectQuota &&
		    obj_type != kObjectLimit)
			return fail(ack, kEOPNOTSUPP, "xbridge's objects are counters, quotas and limits");
	} else if (sflags & kSetFObject) {
		return fail(ack, kEINVAL, "an object map needs its objects' type");
	}
	/* nf_tables_newset: timeouts in neither a constant set nor an
	 * anonymous one, unless a set statement writes it (a meter) */
	if ((sflags & (kSetFAnonymous | kSetFTimeout | kSetFEval)) == (kSetFAnonymous | kSetFTimeout) ||
	    (sflags & (kSetFConstant | kSetFTimeout)) == (kSetFConstant | kSetFTimeout))
		return fail(ack, kEOPNOTSUPP, "an anonymous or constant set has no timeouts");
	if ((sflags & (kSetFEval | kSetFObject)) == (kSetFEval | kSetFObject))
		return fail(ack, kEOPNOTSUPP, "a set statement's set is no object map");
	const bool map = sflags & kSetFMap;
	if (map != tb[kSetDataType].present())
		return fail(ack, kEINVAL, "a map, and only a map, has a data type");
	const bool vmap = map && data_type == kDataTypeVerdict;
	if (map && !vmap && (data_len == 0 || data_len > kSetKeyMax))
		return fail(ack, kEINVAL, "map data length is 1 to 64 bytes");
	if (vmap)
		data_len = 0;
	if (obj_type)
		data_len = sizeof(void *);	/* the element's ObjObj */
	/* nf_tables_newset: a default timeout and a GC interval only for a
	 * set with timeouts, never an anonymous one */
	uint64_t timeout_ns = 0;
	uint32_t gc_interval = 0;
	if (tb[kSetTimeout].present() || tb[kSetGcInterval].present()) {
		if (!(sflags & kSetFTimeout))
			return fail(ack, kEINVAL, "a timeout needs a set with timeouts");
		if (sflags & kSetFAnonymous)
			return fail(ack, kEOPNOTSUPP, "an anonymous set has no timeout");
	}
	if (tb[kSetTimeout].present()) {
		int err = parse_msecs(tb[kSetTimeout], timeout_ns, ack);
		if (err)
			return err;
	}
	if (tb[kSetGcInterval].present() && !attr_be32(tb[kSetGcInterval], gc_interval))
		return fail(ack, kEINVAL, "set GC interval is a 32-bit value");

	SetLayout layout{};
	layout.key_len = key_len;
	layout.data_len = data_len;
	layout.verdict_map = vmap;
	layout.interval = sflags & kSetFInterval;
	layout.concat = sflags & kSetFConcat;
	layout.timeout = sflags & kSetFTimeout;
	uint32_t size = 0;
	if (tb[kSetDesc].present()) {
		Attr dt[kSetDescConcat + 1];
		if (!parse_nested(tb[kSetDesc], dt, kSetDescConcat))
			return fail(ack, kEINVAL, "malformed set description");
		if (dt[kSetDescSize].present() && !attr_be32(dt[kSetDescSize], size))
			return fail(ack, kEINVAL, "set size is a 32-bit value");
		if (dt[kSetDescConcat].present()) {
			AttrWalker w(dt[kSetDescConcat]);
			uint16_t type;
			Attr f;
			uint32_t total = 0;
			while (w.next(type, f)) {
				Attr ft[kSetFieldLen + 1];
				uint32_t flen;
				if (type != kListElem || !parse_nested(f, ft, kSetFieldLen) ||
				    !attr_be32(ft[kSetFieldLen], flen) || flen == 0 || flen > 16)
					return fail(ack, kEINVAL, "bad concatenation field");
				if (layout.field_count == kSetFieldsMax)
					return fail(ack, kE2BIG, "too many concatenated fields");
				layout.field_len[layout.field_count++] = uint8_t(flen);
				total += (flen + 3) & ~3u;
			}
			if (w.malformed() || total != key_len)
				return fail(ack, kEINVAL, "concatenation fields do not add up to the key");
		}
	}
	if (layout.concat && layout.interval && layout.field_count == 0)
		return fail(ack, kEINVAL, "a concatenated interval set needs its fields");
	ElemExprs exprs{};
	if (int err = parse_set_exprs(tb, sflags, layout, size, exprs, ack))
		return err;

	char name[kNameMax];
	int err = copy_name(name, tb[kSetName], ack);
	if (err)
		return err;
	/* A name with "%d" becomes a new one below: nothing to compare. */
	bool pattern = false;
	for (const char *q = name; *q && !pattern; q++)
		pattern = q[0] == '%' && q[1] == 'd';
	for (SetObj &s : t->sets) {
		if (pattern || !cstr_equal(s.name, name))
			continue;
		if (flags & kNlmFExcl)
			return fail_at(ack, kEEXIST, tb[kSetName].data, "set exists");
		if (flags & kNlmFReplace)
			return fail(ack, kEOPNOTSUPP, "sets cannot be replaced");
		if (s.flags & kSetFAnonymous)
			return fail(ack, kEOPNOTSUPP, "an anonymous set cannot be updated");
		if (s.flags != sflags || s.layout.key_len != key_len ||
		    s.layout.data_len != data_len || s.data_type != data_type ||
		    s.obj_type != obj_type || !elem_exprs_same_kinds(s.exprs, exprs))
			return fail_at(ack, kEEXIST, tb[kSetName].data, "set exists with another type");
		/* nf_tables_newset: an update (a NEWSET notification, a new
		 * generation) that takes the request's timeout and gc
		 * interval, none given being 0 */
		static_assert(sizeof(void *) >= sizeof(uint64_t), "UpdSet keeps a timeout in next");
		err = log({UndoKind::UpdSet, &s, reinterpret_cast<void *>(uintptr_t(s.timeout_ns)),
			   s.gc_interval}, ack);
		if (err)
			return err;
		s.timeout_ns = timeout_ns;
		s.gc_interval = gc_interval;
		return 0;
	}
	/* "__set%d": the kernel picks the lowest free number. */
	err = anonymous_set_name(t, name, ack);
	if (err)
		return err;

	SetObj *s = alloc_obj<SetObj>();
	if (!s)
		return fail(ack, kENOMEM, "out of memory for a set");
	cstr_copy(s->name, name);
	s->timeout_ns = timeout_ns;
	s->gc_interval = gc_interval;
	s->exprs = exprs;
	for (unsigned i = 0; i < exprs.count; i++)
		s->exprs_use_ct |= exprs.expr[i].kind == ElemExprKind::Connlimit;
	err = s->elems.init(layout, ack);
	if (!err)
		err = copy_blob(s->userdata, tb[kSetUserdata], kUserdataMax, ack);
	if (!err)
		err = log({UndoKind::AddSet, s, nullptr, 0}, ack);
	if (err) {
		free_set(s);
		return err;
	}
	s->table = t;
	s->handle = t->next_handle++;
	s->batch_id = id;
	s->flags = sflags;
	s->key_type = key_type;
	s->data_type = data_type;
	s->policy = policy;
	s->obj_type = obj_type;
	s->size = size;
	s->layout = layout;
	t->sets.push_back(*s);
	note_set_name(t, s->name);
	return 0;
}

int Ruleset::remove_set(SetObj *s, Extack *ack)
{
	if (set_in_use(s))
		return fail(ack, kEBUSY, "set is in use by a rule");
	int err = unlink_logged(UndoKind::DelSet, s->table->sets, s, ack);
	if (err)
		return err;
	s->table->anon_low = 0;
	return 0;
}

static SetObj *find_set(TableObj *t, const Attr &name, const Attr &id_attr)
{
	uint32_t id;
	if (id_attr.present() && attr_be32(id_attr, id))
		for (SetObj &s : t->sets)
			if (s.batch_id && s.batch_id == id)
				return &s;
	if (name.present())
		for (SetObj &s : t->sets)
			if (name_is(s.name, name))
				return &s;
	return nullptr;
}

int Ruleset::del_set(uint16_t, const Attr *tb, Extack *ack)
{
	if (!tb[kSetTable].present())
		return fail(ack, kEINVAL, "a set needs a table");
	TableObj *t = find_table(tb[kSetTable]);
	if (!t)
		return fail_at(ack, kENOENT, tb[kSetTable].data, "no such table");
	SetObj *s = nullptr;
	if (tb[kSetHandle].present()) {
		uint64_t h;
		if (!attr_be64(tb[kSetHandle], h))
			return fail(ack, kEINVAL, "set handle is a 64-bit value");
		for (SetObj &o : t->sets)
			if (o.handle == h)
				s = &o;
	} else {
		s = find_set(t, tb[kSetName], Attr{});
	}
	const void *id = tb[kSetHandle].present() ? tb[kSetHandle].data : tb[kSetName].data;
	if (!s)
		return fail_at(ack, kENOENT, id, "no such set");
	int err = remove_set(s, ack);
	return err == -kEBUSY ? blame_part(ack, err, id) : err;
}

/*
 * nft_add_set_elem's expressions: NFTA_SET_ELEM_EXPR or
 * NFTA_SET_ELEM_EXPRESSIONS, each of the set's kind at its place if the set
 * declares expressions (EOPNOTSUPP otherwise; E2BIG past its count or
 * NFT_SET_EXPR_MAX); without either, the set's own, but for an interval's
 * end. Parsed as templates: the element gets them with zero state.
 */
static int parse_elem_exprs(const SetObj *s, const Attr *et, uint32_t eflags, ElemExprs &out,
			    Extack *ack)
{
	const ElemExprs &set = s->exprs;
	int err;
	out = ElemExprs{};
	if (et[kSetElemExpr].present()) {
		if (set.count > 1)
			return fail(ack, kEOPNOTSUPP, "the set declares more expressions");
		if ((err = parse_elem_expr(et[kSetElemExpr], out.expr[0], ack)))
			return err;
		out.count = 1;
		if (set.count && set.expr[0].kind != out.expr[0].kind)
			return fail(ack, kEOPNOTSUPP, "the element's expression is not the set's");
	} else if (et[kSetElemExpressions].present()) {
		if ((err = parse_elem_expr_list(et[kSetElemExpressions], &set, kE2BIG, out, ack)))
			return err;
	} else if (!(eflags & kSetElemFIntervalEnd)) {
		out = set;
	}
	/* nft_set_elem_expr_alloc: no ct count where elements time out */
	for (unsigned i = 0; i < out.count; i++)
		if (out.expr[i].kind == ElemExprKind::Connlimit && (s->flags & kSetFTimeout))
			return fail(ack, kEOPNOTSUPP, "ct count in the elements of a set with timeouts");
	return 0;
}

/*
 * What a new element of @s owns (ElemView.exprs, .userdata): its
 * expressions made from @exprs, and a copy of @udata (its length byte,
 * then the bytes; none if empty, as nft_add_set_elem keeps none). On
 * failure @e owns what was made so far.
 */
static int element_owned(SetObj *s, const ElemExprs &exprs, const Attr &udata, ElemView &e,
			 Extack *ack)
{
	if (exprs.count) {
		if (!s->exprs_lock && !(s->exprs_lock = xb_lock_create()))
			return fail(ack, kENOMEM, "out of memory for the element's expressions");
		e.exprs = static_cast<ElemExprs *>(xb_alloc(sizeof(ElemExprs), XB_ALLOC_SLEEP));
		if (!e.exprs)
			return fail(ack, kENOMEM, "out of memory for the element's expressions");
		elem_exprs_instantiate(*e.exprs, exprs, xb_now_ns());
	}
	if (udata.present() && udata.len) {
		auto *u = static_cast<uint8_t *>(xb_alloc(1 + udata.len, XB_ALLOC_SLEEP));
		if (!u)
			return fail(ack, kENOMEM, "out of memory for the element's userdata");
		u[0] = uint8_t(udata.len);
		__builtin_memcpy(u + 1, udata.data, udata.len);
		e.userdata = u;
	}
	return 0;
}

int Ruleset::set_elem(SetObj *s, const Attr &elem, bool add, uint16_t flags, Extack *ack)
{
	Attr et[kSetElemExpressions + 1];
	if (!parse_nested(elem, et, kSetElemExpressions))
		return fail(ack, kEINVAL, "malformed set element");
	uint32_t eflags = 0;
	if (!be32_or(et[kSetElemFlags], 0, eflags))
		return fail(ack, kEINVAL, "element flags are a 32-bit value");
	if (eflags & ~(kSetElemFIntervalEnd | kSetElemFCatchall))
		return fail(ack, kEOPNOTSUPP, "unknown element flags");
	if ((eflags & kSetElemFIntervalEnd) && !(s->flags & kSetFInterval))
		return fail(ack, kEINVAL, "interval end in a set without intervals");
	if ((eflags & kSetElemFIntervalEnd) && (eflags & kSetElemFCatchall))
		return fail(ack, kEINVAL, "a catch-all element is no interval end");
	/* nft_add_set_elem: an interval's end is its key alone */
	if (add && (eflags & kSetElemFIntervalEnd) &&
	    (et[kSetElemData].present() || et[kSetElemObjref].present() ||
	     et[kSetElemTimeout].present() || et[kSetElemExpiration].present() ||
	     et[kSetElemUserdata].present() || et[kSetElemExpr].present() ||
	     et[kSetElemKeyEnd].present() || et[kSetElemExpressions].present()))
		return fail(ack, kEINVAL, "an interval end carries nothing but its key");
	/* nft_set_elem_policy: at most NFT_USERDATA_MAXLEN bytes (ERANGE);
	 * the extension with its length byte fits in 255 (EINVAL) */
	const Attr &udata = et[kSetElemUserdata];
	if (add && udata.present() && udata.len > kUserdataMax)
		return fail(ack, kERANGE, "element userdata is at most 256 bytes");
	if (add && udata.present() && udata.len > 254)
		return fail(ack, kEINVAL, "element userdata does not fit the element");
	/* nft_setelem_valid_key_end(): a concatenated interval set's element
	 * is one range (KEY to KEY_END), never an interval end; KEY_END
	 * belongs to such sets only. */
	const bool concat_ranges = s->layout.concat && s->layout.interval;
	if (concat_ranges && (eflags & kSetElemFIntervalEnd))
		return fail(ack, kEINVAL, "no interval ends in a concatenated interval set");
	if (concat_ranges && (eflags & kSetElemFCatchall) && et[kSetElemKeyEnd].present())
		return fail(ack, kEINVAL, "a catch-all element has no key end");
	/* nft_add_set_elem: the element's own expressions, of the set's
	 * kinds in the set's order if it declares any; else the set's */
	ElemExprs exprs{};
	if (add) {
		int err = parse_elem_exprs(s, et, eflags, exprs, ack);
		if (err)
			return err;
	}
	/* nft_add_set_elem: an object map's element names its object (of
	 * the map's type, ENOENT otherwise); no other set's does */
	ObjObj *obj = nullptr;
	if (add && s->obj_type && !(eflags & kSetElemFIntervalEnd)) {
		if (!et[kSetElemObjref].present())
			return fail(ack, kEINVAL, "an object map's element needs an object");
		for (ObjObj &o : s->table->objs)
			if (o.type == s->obj_type && name_is(o.name, et[kSetElemObjref]))
				obj = &o;
		if (!obj)
			return fail(ack, kENOENT, "no such object");
	} else if (add && et[kSetElemObjref].present()) {
		return fail(ack, kEINVAL, "an object for an element of a set that is no object map");
	}
	/* nft_add_set_elem: an interval end carries no timeout; an element
	 * without its own takes the set's; an expiration sooner than the
	 * timeout (the time left, as a dump reports it) needs one. */
	uint64_t timeout_ns = 0, expiration_ns = 0;
	if ((eflags & kSetElemFIntervalEnd) &&
	    (et[kSetElemTimeout].present() || et[kSetElemExpiration].present()))
		return fail(ack, kEINVAL, "an interval end has no timeout");
	if (add) {
		if (et[kSetElemTimeout].present()) {
			if (!(s->flags & kSetFTimeout))
				return fail(ack, kEINVAL, "an element timeout needs a set with timeouts");
			int err = parse_msecs(et[kSetElemTimeout], timeout_ns, ack);
			if (err)
				return err;
		} else if ((s->flags & kSetFTimeout) && !(eflags & kSetElemFIntervalEnd)) {
			timeout_ns = s->timeout_ns;
		}
		if (et[kSetElemExpiration].present()) {
			if (!(s->flags & kSetFTimeout))
				return fail(ack, kEINVAL, "an expiration needs a set with timeouts");
			if (timeout_ns == 0)
				return fail(ack, kEOPNOTSUPP, "an expiration needs a timeout");
			int err = parse_msecs(et[kSetElemExpiration], expiration_ns, ack);
			if (err)
				return err;
			if (expiration_ns > timeout_ns)
				return fail(ack, kERANGE, "the expiration is beyond the timeout");
		}
	}

	const SetLayout &l = s->layout;
	uint8_t key[kSetKeyMax] = {}, key_end[kSetKeyMax] = {}, data[kSetKeyMax] = {};
	uint32_t len;
	ElemView e{};
	e.flags = eflags;
	if (timeout_ns) {
		e.expires_ns = xb_now_ns() + (expiration_ns ? expiration_ns : timeout_ns);
		e.timeout_ns = timeout_ns != s->timeout_ns ? timeout_ns : 0;
	}
	const bool catchall = eflags & kSetElemFCatchall;
	if (catchall) {
		if (et[kSetElemKey].present())
			return fail(ack, kEINVAL, "a catch-all element has no key");
	} else {
		if (!et[kSetElemKey].present())
			return fail(ack, kEINVAL, "an element needs a key");
		int err = parse_data_value(et[kSetElemKey], key, kSetKeyMax, len, ack);
		if (err)
			return err;
		if (len != l.key_len)
			return fail(ack, kEINVAL, "element key length does not match the set");
	}
	e.key = key;
	if (et[kSetElemKeyEnd].present()) {
		if (!(l.concat && l.interval))
			return fail(ack, kEINVAL, "a key end is for concatenated interval sets");
		int err = parse_data_value(et[kSetElemKeyEnd], key_end, kSetKeyMax, len, ack);
		if (err)
			return err;
		if (len != l.key_len)
			return fail(ack, kEINVAL, "element key end length does not match the set");
	} else if (l.concat && l.interval && !catchall) {
		__builtin_memcpy(key_end, key, l.key_len);
	}
	e.key_end = key_end;

	if (add && (s->flags & kSetFMap) && !(eflags & kSetElemFIntervalEnd)) {
		if (!et[kSetElemData].present())
			return fail(ack, kEINVAL, "a map element needs data");
		if (l.verdict_map) {
			BuildContext res;
			res.table = s->table;
			int err = parse_data_verdict(et[kSetElemData], res, e.verdict, e.chain, ack);
			if (err)
				return err;
		} else {
			int err = parse_data_value(et[kSetElemData], data, kSetKeyMax, len, ack);
			if (err)
				return err;
			if (len != l.data_len)
				return fail(ack, kEINVAL, "element data length does not match the map");
			e.data = data;
		}
	} else if (add && et[kSetElemData].present()) {
		return fail(ack, kEINVAL, "data for an element of a set (not a map)");
	}
	uint8_t obj_bytes[sizeof(void *)];
	if (obj) {
		__builtin_memcpy(obj_bytes, &obj, sizeof(obj));
		e.data = obj_bytes;
	}

	/* nft_pipapo_deactivate() looks the KEY up as a point: a delete takes
	 * the element that holds it, whatever KEY_END says (nft sends the
	 * element's start, so nft's own deletes name it exactly). */
	int64_t at = !add && concat_ranges && !catchall ? s->elems.find_range(key)
							 : s->elems.find_live(e);
	/* An expired element is gone (nft_set_elem_expired): nothing to
	 * delete, and a new one with its key takes its place. */
	if (at >= 0 && l.timeout && elem_expired(s->elems.at(uint32_t(at)).expires_ns, xb_now_ns())) {
		if (!add)
			return fail(ack, kENOENT, "no such element");
		int err = log({UndoKind::DelElem, s, nullptr, uint32_t(at)}, ack);
		if (err)
			return err;
		s->elems.mark_dead(uint32_t(at));
		at = -1;
	}
	/* An element frames added (nft_dynset.h) is as much the set's. */
	if (at < 0 && s->dyn && !catchall && !concat_ranges) {
		int err = dyn_elem(s, key, e.data, add, flags, ack);
		if (err != 1)
			return err;
	}
	if (!add) {
		if (at < 0)
			return fail(ack, kENOENT, "no such element");
		int err = log({UndoKind::DelElem, s, nullptr, uint32_t(at)}, ack);
		if (err)
			return err;
		s->elems.mark_dead(uint32_t(at));
		return 0;
	}
	if (at >= 0) {
		if (flags & kNlmFExcl)
			return fail(ack, kEEXIST, "element exists");
		const ElemView old = s->elems.at(uint32_t(at));
		const bool same = l.verdict_map ? old.verdict == e.verdict && old.chain == e.chain :
				  !l.data_len || !e.data ||
				  !__builtin_memcmp(old.data, e.data, l.data_len);
		/* nft_add_set_elem(): a clash of data is EEXIST, flags or not */
		return same ? 0 : fail(ack, kEEXIST, "element exists with other data");
	}
	if (concat_ranges && !catchall) {
		/* nft_pipapo_insert(): each field's start <= its end (EINVAL);
		 * an element whose start or end falls in an existing one
		 * overlaps it (ENOTEMPTY, which nf_tables reports as EEXIST). */
		uint32_t off = 0;
		for (unsigned f = 0; f < l.field_count; f++) {
			if (__builtin_memcmp(key + off, key_end + off, l.field_len[f]) > 0)
				return fail(ack, kEINVAL, "a field's range ends before it starts");
			off += (l.field_len[f] + 3u) & ~3u;
		}
		if (s->elems.find_range(key) >= 0 || s->elems.find_range(key_end) >= 0)
			return fail(ack, kEEXIST, "the element overlaps an existing one");
	}
	if (s->size && s->elems.live_count() + (s->dyn ? s->dyn->count() : 0) >= s->size)
		return fail(ack, kENFILE, "set is full");
	int err = element_owned(s, exprs, udata, e, ack);
	if (!err)
		err = log({UndoKind::AddElem, s, nullptr, s->elems.count()}, ack);
	if (!err && (err = s->elems.append(e, ack)))
		undo_count_--;
	if (err) {
		if (e.exprs) {
			elem_exprs_release(*e.exprs);
			xb_free(e.exprs);
		}
		if (e.userdata)
			xb_free(const_cast<uint8_t *>(e.userdata));
		return err;
	}
	for (unsigned i = 0; i < exprs.count; i++)
		s->exprs_use_ct |= exprs.expr[i].kind == ElemExprKind::Connlimit;
	return 0;
}

bool Ruleset::dyn_delete_pending(const SetObj *s, const uint8_t *key) const
{
	for (uint32_t i = 0; i < undo_count_; i++)
		if (undo_[i].kind == UndoKind::DelDynElem && undo_[i].obj == s &&
		    !__builtin_memcmp(static_cast<const DynElemCopy *>(undo_[i].next)->key, key,
				      s->layout.key_len))
			return true;
	return false;
}

static void copy_dyn_elem(const SetObj *s, const DynEntry &d, DynElemCopy &copy)
{
	__builtin_memcpy(copy.key, d.key(), s->layout.key_len);
	if (s->layout.data_len)
		__builtin_memcpy(copy.data, DynTable::data_of(*s->dyn, d), s->layout.data_len);
	copy.timeout_ns = d.timeout_ns;
	copy.expires_ns = load_once(d.expires_ns);
}

/* Log the delete of an element frames added; takes @copy (allocated). */
int Ruleset::log_dyn_delete(SetObj *s, DynElemCopy *copy, Extack *ack)
{
	int err = log({UndoKind::DelDynElem, s, copy, 0}, ack);
	if (err)
		xb_free(copy);
	return err;
}

/*
 * set_elem() for a key that is not among the control plane's elements but
 * may be among those frames added: deleting one deletes it at commit;
 * adding one that is there is adding an existing element. Returns 1 if
 * the key is not there either (set_elem goes on), else 0 or an error.
 */
int Ruleset::dyn_elem(SetObj *s, const uint8_t *key, const uint8_t *data, bool add,
		      uint16_t flags, Extack *ack)
{
	if (dyn_delete_pending(s, key))
		return 1;
	DynElemCopy found;
	{
		RcuReadGuard rcu;
		const DynEntry *d = s->dyn->find(key, xb_now_ns());
		if (!d)
			return 1;
		copy_dyn_elem(s, *d, found);
	}
	if (!add) {
		auto *copy = static_cast<DynElemCopy *>(xb_alloc(sizeof(DynElemCopy), XB_ALLOC_SLEEP));
		if (!copy)
			return fail(ack, kENOMEM, "out of memory for the batch");
		*copy = found;
		return log_dyn_delete(s, copy, ack);
	}
	if (flags & kNlmFExcl)
		return fail(ack, kEEXIST, "element exists");
	if (s->layout.data_len && data && __builtin_memcmp(found.data, data, s->layout.data_len))
		return fail(ack, kEEXIST, "element exists with other data");
	return 0;
}

/* flush set: every element frames added by now, copied (the copies made
 * before the RCU section, which must not sleep). */
int Ruleset::flush_dyn(SetObj *s, Extack *ack)
{
	const uint32_t n = s->dyn->count();
	if (!n)
		return 0;
	auto **copies = static_cast<DynElemCopy **>(xb_alloc(n * sizeof(void *), XB_ALLOC_SLEEP));
	if (!copies)
		return fail(ack, kENOMEM, "out of memory for the batch");
	int err = 0;
	for (uint32_t i = 0; i < n && !err; i++)
		if (!(copies[i] = static_cast<DynElemCopy *>(xb_alloc(sizeof(DynElemCopy),
								      XB_ALLOC_SLEEP))))
			err = fail(ack, kENOMEM, "out of memory for the batch");
	uint32_t used = 0;
	if (!err) {
		RcuReadGuard rcu;
		s->dyn->for_each_live(xb_now_ns(), [&](const DynEntry &d) {
			if (used < n)
				copy_dyn_elem(s, d, *copies[used++]);
		});
	}
	for (uint32_t i = 0; i < n; i++) {
		if (i < used && !err && !dyn_delete_pending(s, copies[i]->key)) {
			err = log_dyn_delete(s, copies[i], ack);
			continue;
		}
		if (copies[i])
			xb_free(copies[i]);
	}
	xb_free(copies);
	return err;
}

static int elem_request(TableObj *&t, SetObj *&s, const Attr *tb, const TableObjList &tables,
			Extack *ack)
{
	if (!tb[kSetElemListTable].present())
		return fail(ack, kEINVAL, "elements need a table");
	t = nullptr;
	for (const TableObj &o : tables)
		if (name_is(o.name, tb[kSetElemListTable]))
			t = const_cast<TableObj *>(&o);
	if (!t)
		return fail_at(ack, kENOENT, tb[kSetElemListTable].data, "no such table");
	s = find_set(t, tb[kSetElemListSet], tb[kSetElemListSetId]);
	if (!s)
		return fail(ack, kENOENT, "no such set");
	return 0;
}

int Ruleset::new_setelem(uint16_t flags, const Attr *tb, Extack *ack)
{
	TableObj *t;
	SetObj *s;
	int err = elem_request(t, s, tb, tables_, ack);
	if (err)
		return err;
	if (!tb[kSetElemListElements].present())
		return fail(ack, kEINVAL, "no elements");
	if ((s->flags & (kSetFConstant | kSetFAnonymous)) && set_in_use(s))
		return fail(ack, kEBUSY, "the set is constant or anonymous and bound");
	AttrWalker w(tb[kSetElemListElements]);
	uint16_t type;
	Attr a;
	while (w.next(type, a))
		if ((err = set_elem(s, a, true, flags, ack)))
			return blame_part(ack, err, a.data);
	return w.malformed() ? fail(ack, kEINVAL, "malformed element list") : 0;
}

int Ruleset::del_setelem(uint16_t flags, const Attr *tb, Extack *ack)
{
	TableObj *t;
	SetObj *s;
	int err = elem_request(t, s, tb, tables_, ack);
	if (err)
		return err;
	if ((s->flags & (kSetFConstant | kSetFAnonymous)) && set_in_use(s))
		return fail(ack, kEBUSY, "the set is constant or anonymous and bound");
	if (!tb[kSetElemListElements].present()) {
		/* flush set */
		for (uint32_t i = 0; i < s->elems.count(); i++) {
			const uint32_t f = s->elems.at(i).flags;
			if (f & kElemDead)
				continue;
			if ((err = log({UndoKind::DelElem, s, nullptr, i}, ack)))
				return err;
			s->elems.mark_dead(i);
		}
		return s->dyn ? flush_dyn(s, ack) : 0;
	}
	AttrWalker w(tb[kSetElemListElements]);
	uint16_t type;
	Attr a;
	while (w.next(type, a))
		if ((err = set_elem(s, a, false, flags, ack)))
			return blame_part(ack, err, a.data);
	return w.malformed() ? fail(ack, kEINVAL, "malformed element list") : 0;
}

/* ---- flowtables --------------------------------------------------------- */

bool FlowtableObj::has_device(const char *name) const
{
	for (uint32_t off = 0; off + kIfnameSize <= devices.len; off += kIfnameSize)
		if (cstr_equal(reinterpret_cast<const char *>(devices.data + off), name))
			return true;
	return false;
}

int Ruleset::new_flowtable(uint16_t flags, const Attr *tb, Extack *ack)
{
	if (!tb[kFlowtableTable].present() || !tb[kFlowtableName].present())
		return fail(ack, kEINVAL, "a flowtable needs a table and a name");
	TableObj *t = find_table(tb[kFlowtableTable]);
	if (!t)
		return fail_at(ack, kENOENT, tb[kFlowtableTable].data, "no such table");
	uint32_t fflags = 0;
	if (!be32_or(tb[kFlowtableFlags], 0, fflags))
		return fail(ack, kEINVAL, "flowtable flags are a 32-bit value");
	if (fflags & ~(kFlowtableFHwOffload | kFlowtableFCounter))
		return fail(ack, kEOPNOTSUPP, "unknown flowtable flags");
	if (fflags & kFlowtableFHwOffload)
		return fail(ack, kEOPNOTSUPP, "xbridge flowtables have no hardware offload");
	for (FlowtableObj &f : t->flowtables) {
		if (!name_is(f.name, tb[kFlowtableName]))
			continue;
		if (flags & kNlmFExcl)
			return fail_at(ack, kEEXIST, tb[kFlowtableName].data, "flowtable exists");
		if (flags & kNlmFReplace)
			return fail(ack, kEOPNOTSUPP, "flowtables cannot be replaced");
		return 0;
	}
	if (!tb[kFlowtableHook].present())
		return fail(ack, kEINVAL, "a flowtable needs a hook");
	Attr ht[kFlowtableHookDevs + 1];
	uint32_t hooknum, prio;
	if (!parse_nested(tb[kFlowtableHook], ht, kFlowtableHookDevs) ||
	    !ht[kFlowtableHookNum].present() || !ht[kFlowtableHookPriority].present() ||
	    !attr_be32(ht[kFlowtableHookNum], hooknum) ||
	    !attr_be32(ht[kFlowtableHookPriority], prio))
		return fail(ack, kEINVAL, "a flowtable hook needs a number and a priority");
	if (hooknum != 0)
		return fail(ack, kEOPNOTSUPP, "a flowtable hooks ingress only");
	FlowtableObj *f = alloc_obj<FlowtableObj>();
	if (!f)
		return fail(ack, kENOMEM, "out of memory for a flowtable");
	int err = copy_name(f->name, tb[kFlowtableName], ack);
	if (!err)
		err = copy_blob(f->hook, tb[kFlowtableHook], 0xffff, ack);
	if (!err)
		err = copy_devices(f->devices, ht[kFlowtableHookDevs], ack);
	if (!err)
		err = log({UndoKind::AddFlowtable, f, nullptr, 0}, ack);
	if (err) {
		free_flowtable(f);
		return err;
	}
	f->table = t;
	f->handle = t->next_handle++;
	f->hooknum = hooknum;
	f->priority = int32_t(prio);
	f->flags = fflags;
	t->flowtables.push_back(*f);
	return 0;
}

int Ruleset::remove_flowtable(FlowtableObj *f, Extack *ack)
{
	if (flowtable_in_use(f))
		return fail(ack, kEBUSY, "flowtable is in use by a rule");
	return unlink_logged(UndoKind::DelFlowtable, f->table->flowtables, f, ack);
}

int Ruleset::del_flowtable(uint16_t, const Attr *tb, Extack *ack)
{
	if (!tb[kFlowtableTable].present())
		return fail(ack, kEINVAL, "a flowtable needs a table");
	TableObj *t = find_table(tb[kFlowtableTable]);
	if (!t)
		return fail_at(ack, kENOENT, tb[kFlowtableTable].data, "no such table");
	for (FlowtableObj &f : t->flowtables)
		if (name_is(f.name, tb[kFlowtableName])) {
			int err = remove_flowtable(&f, ack);
			return err == -kEBUSY ? blame_part(ack, err, tb[kFlowtableName].data) : err;
		}
	return fail_at(ack, kENOENT, tb[kFlowtableName].data, "no such flowtable");
}

/* ---- stateful objects ---------------------------------------------------- */

namespace {

/* nft_obj_lookup: by name and type (a name may repeat across types). */
ObjObj *find_obj(TableObj *t, const Attr &name, uint32_t type)
{
	for (ObjObj &o : t->objs)
		if (o.type == type && name_is(o.name, name))
			return &o;
	return nullptr;
}

} // namespace

/* nf_tables_newobj: counters and quotas; an existing one is kept as it is
 * (nft's `add` of an object it has: no update), NLM_F_EXCL: EEXIST,
 * NLM_F_REPLACE: EOPNOTSUPP. */
int Ruleset::new_obj(uint16_t flags, const Attr *tb, Extack *ack)
{
	if (!tb[kObjType].present() || !tb[kObjName].present() || !tb[kObjData].present())
		return fail(ack, kEINVAL, "an object needs a type, a name and data");
	uint32_t type;
	if (!attr_be32(tb[kObjType], type))
		return fail(ack, kEINVAL, "object type is a 32-bit value");
	TableObj *t = find_table(tb[kObjTable]);
	if (!t)
		return fail_at(ack, kENOENT, tb[kObjTable].data, "no such table");
	if (find_obj(t, tb[kObjName], type)) {
		if (flags & kNlmFExcl)
			return fail_at(ack, kEEXIST, tb[kObjName].data, "object exists");
		if (flags & kNlmFReplace)
			return fail(ack, kEOPNOTSUPP, "objects cannot be replaced");
		return 0;
	}
	if (type != kObjectCounter && type != kObjectQuota && type != kObjectLimit)
		return fail(ack, kEOPNOTSUPP, "xbridge has counter, quota and limit objects only");
	constexpr unsigned kDataAttrMax = kLimitFlags;	/* the largest of the three */
	Attr dt[kDataAttrMax + 1];
	if (!parse_nested(tb[kObjData], dt, kDataAttrMax))
		return fail(ack, kEINVAL, "malformed object data");
	ObjObj *o = alloc_obj<ObjObj>();
	if (!o)
		return fail(ack, kENOMEM, "out of memory for an object");
	int err = copy_name(o->name, tb[kObjName], ack);
	if (!err)
		err = copy_blob(o->userdata, tb[kObjUserdata], kUserdataMax, ack);
	bool counter = false;
	bool limit = false;
	if (!err && type == kObjectCounter)
		counter = !(err = counter_init(o->counter, dt, ack));
	else if (!err && type == kObjectQuota)
		err = quota_init(o->quota, dt, ack);
	else if (!err)
		limit = !(err = limit_init(o->limit, dt, ack));
	if (!err)
		err = log({UndoKind::AddObj, o, nullptr, 0}, ack);
	if (err) {
		if (counter)
			counter_fini(o->counter);
		if (limit)
			limit_fini(o->limit);
		free_blob(o->userdata);
		free_obj(o);
		return err;
	}
	o->table = t;
	o->type = type;
	o->handle = t->next_handle++;
	t->objs.push_back(*o);
	return 0;
}

/* Whether a live element of an object map of @o's table names @o. */
static bool obj_in_maps(const ObjObj *o)
{
	for (const SetObj &s : o->table->sets) {
		if (s.obj_type != o->type)
			continue;
		for (uint32_t i = 0; i < s.elems.count(); i++) {
			const ElemView e = s.elems.at(i);
			if ((e.flags & kElemDead) || !e.data)
				continue;
			const ObjObj *named;
			__builtin_memcpy(&named, e.data, sizeof(named));
			if (named == o)
				return true;
		}
	}
	return false;
}

int Ruleset::remove_obj(ObjObj *o, Extack *ack)
{
	if (o->rule_uses)
		return fail(ack, kEBUSY, "object is in use by a rule");
	if (obj_in_maps(o))
		return fail(ack, kEBUSY, "object is in use by a map's element");
	return unlink_logged(UndoKind::DelObj, o->table->objs, o, ack);
}

/* nf_tables_delobj: by name or handle, of the given type. */
int Ruleset::del_obj(uint16_t, const Attr *tb, Extack *ack)
{
	if (!tb[kObjType].present() || (!tb[kObjName].present() && !tb[kObjHandle].present()))
		return fail(ack, kEINVAL, "deleting an object needs its type and name or handle");
	uint32_t type;
	if (!attr_be32(tb[kObjType], type))
		return fail(ack, kEINVAL, "object type is a 32-bit value");
	TableObj *t = find_table(tb[kObjTable]);
	if (!t)
		return fail_at(ack, kENOENT, tb[kObjTable].data, "no such table");
	if (tb[kObjHandle].present()) {
		uint64_t h;
		if (!attr_be64(tb[kObjHandle], h))
			return fail(ack, kEINVAL, "object handle is a 64-bit value");
		for (ObjObj &o : t->objs)
			if (o.type == type && o.handle == h) {
				int err = remove_obj(&o, ack);
				return err == -kEBUSY ? blame_part(ack, err, tb[kObjHandle].data) : err;
			}
		return fail_at(ack, kENOENT, tb[kObjHandle].data, "no such object");
	}
	ObjObj *o = find_obj(t, tb[kObjName], type);
	if (!o)
		return fail_at(ack, kENOENT, tb[kObjName].data, "no such object");
	int err = remove_obj(o, ack);
	return err == -kEBUSY ? blame_part(ack, err, tb[kObjName].data) : err;
}

/* ---- generations -------------------------------------------------------- */

void Ruleset::free_generation(Generation *g)
{
	if (!g)
		return;
	for (uint32_t i = 0; i < g->set_count; i++)
		SetIndex::destroy(g->sets[i]);
	if (g->sets)
		xb_free(g->sets);
	if (g->chains)
		xb_free(g->chains);
	if (g->rules)
		xb_free(g->rules);
	if (g->insns)
		xb_free(g->insns);
	if (g->hook_chains)
		xb_free(g->hook_chains);
	xb_free(g);
}

namespace {

const Chain *map_chain(void *ctx, void *control_chain)
{
	Generation *g = static_cast<Generation *>(ctx);
	return &g->chains[static_cast<ChainObj *>(control_chain)->build_index];
}

/* The jump graph of the ruleset, for the commit-time checks. */
struct ChainGraph {
	ChainObj **chains;
	uint8_t *color;		/* loop search: 0 new, 1 on the path, 2 done */
	uint32_t *height;	/* longest jump path below, in jumps */
	uint32_t *hooks;	/* mask of hooks whose base chains reach it */
};

template <typename Fn> void for_each_target(const ChainObj &c, Fn fn)
{
	for (const RuleObj &r : c.rules)
		for (uint32_t i = 0; i < r.code.count; i++) {
			const Insn &in = r.code.insn[i];
			if (in.op == Op::Verdict && in.ref)
				fn(static_cast<ChainObj *>(in.ref));
			if (in.op == Op::Lookup) {
				const SetObj *s = static_cast<const SetObj *>(in.ref);
				if (!s->layout.verdict_map)
					continue;
				for (uint32_t k = 0; k < s->elems.count(); k++) {
					const ElemView e = s->elems.at(k);
					if (!(e.flags & kElemDead) && e.chain)
						fn(static_cast<ChainObj *>(e.chain));
				}
			}
		}
}

/* nf_tables_check_loops: no chain may reach itself. Fills height. The
 * recursion is bounded: a path longer than the jump stack is refused
 * before it goes deeper. */
int check_loops(ChainGraph &g, ChainObj *c, unsigned depth, Extack *ack)
{
	const uint32_t i = c->build_index;
	if (g.color[i] == 1)	/* nft_chain_validate runs into NFT_JUMP_STACK_SIZE */
		return fail(ack, kEMLINK, "jumps and gotos from a base chain form a loop");
	if (g.color[i] == 2)
		return 0;
	if (depth > kJumpStackSize)
		return fail(ack, kEMLINK, "jumps nest deeper than 16 chains");
	g.color[i] = 1;
	int err = 0;
	uint32_t height = 0;
	for_each_target(*c, [&](ChainObj *t) {
		if (err)
			return;
		err = check_loops(g, t, depth + 1, ack);
		const uint32_t h = g.height[t->build_index] + 1;
		height = h > height ? h : height;
	});
	g.color[i] = 2;
	g.height[i] = height;
	return err;
}

void mark_hooks(ChainGraph &g, ChainObj *c, uint32_t bit)
{
	if (g.hooks[c->build_index] & bit)
		return;
	g.hooks[c->build_index] |= bit;
	for_each_target(*c, [&](ChainObj *t) { mark_hooks(g, t, bit); });
}

/* Commit-time checks, as nft_table_validate makes them from each base
 * chain (Linux 6.1 has no ELOOP): the jumps a base chain reaches may not
 * nest 16 deep, so a loop it reaches is EMLINK too, and a loop of chains no
 * base chain reaches is left alone (it never runs); `flow offload` only where
 * the forward hook alone reaches, `reject` only where prerouting and input
 * alone do, `meta pkttype set` only where prerouting alone does. */
int check_graph(TableObjList &tables, TableObj *only, uint32_t chains, Extack *ack)
{
	ChainGraph g{};
	g.chains = static_cast<ChainObj **>(xb_alloc(chains * sizeof(void *), XB_ALLOC_SLEEP));
	g.color = static_cast<uint8_t *>(xb_alloc(chains, XB_ALLOC_SLEEP));
	g.height = static_cast<uint32_t *>(xb_alloc(chains * 4, XB_ALLOC_SLEEP));
	g.hooks = static_cast<uint32_t *>(xb_alloc(chains * 4, XB_ALLOC_SLEEP));
	int err = g.chains && g.color && g.height && g.hooks ? 0 :
		  fail(ack, kENOMEM, "out of memory for the commit");
	if (!err)
		for (TableObj &t : tables)
			if (!only || &t == only)
				for (ChainObj &c : t.chains)
					g.chains[c.build_index] = &c;
	for (uint32_t i = 0; i < chains && !err; i++)
		if (g.chains[i]->base)
			err = check_loops(g, g.chains[i], 0, ack);
	for (uint32_t i = 0; i < chains && !err; i++) {
		ChainObj *c = g.chains[i];
		if (!c->base)
			continue;
		if (g.height[i] >= kJumpStackSize)
			err = fail(ack, kEMLINK, "jumps nest deeper than 16 chains");
		else
			mark_hooks(g, c, 1u << c->hooknum);
	}
	/* nft_reject_bridge_validate: reject at prerouting and input only */
	constexpr uint32_t kRejectHooks = 1u << kHookPrerouting | 1u << kHookInput;
	for (uint32_t i = 0; i < chains && !err; i++) {
		const bool offload_bad = g.hooks[i] & ~(1u << kHookForward);
		const bool reject_bad = g.hooks[i] & ~kRejectHooks;
		/* nft_meta_set_validate: pkttype at prerouting only */
		const bool pkttype_bad = g.hooks[i] & ~(1u << kHookPrerouting);
		if (!offload_bad && !reject_bad && !pkttype_bad)
			continue;
		for (const RuleObj &r : g.chains[i]->rules) {
			if (offload_bad && r.code.has_offload)
				err = fail(ack, kEOPNOTSUPP, "flow offload runs in forward chains only");
			else if (reject_bad && r.code.has_reject)
				err = fail(ack, kEOPNOTSUPP,
					   "reject runs in prerouting and input chains only");
			else if (pkttype_bad && r.code.has_pkttype_set)
				err = fail(ack, kEOPNOTSUPP,
					   "meta pkttype set runs in prerouting chains only");
			if (err)
				break;
		}
	}
	if (g.chains)
		xb_free(g.chains);
	if (g.color)
		xb_free(g.color);
	if (g.height)
		xb_free(g.height);
	if (g.hooks)
		xb_free(g.hooks);
	return err;
}

} // namespace

/* Number the chains (of @only, or of every table) for check_graph(). */
uint32_t Ruleset::index_chains(TableObj *only)
{
	uint32_t chains = 0;
	for (TableObj &t : tables_)
		if (!only || &t == only)
			for (ChainObj &c : t.chains)
				c.build_index = chains++;
	return chains;
}

int Ruleset::validate(Extack *ack)
{
	const uint32_t chains = index_chains(nullptr);
	return chains ? check_graph(tables_, nullptr, chains, ack) : 0;
}

int Ruleset::validate_table(TableObj *t, Extack *ack)
{
	const uint32_t chains = index_chains(t);
	return chains ? check_graph(tables_, t, chains, ack) : 0;
}

int Ruleset::build(Generation *&out, Extack *ack)
{
	out = nullptr;
	uint32_t chains = 0, rules = 0, insns = 0, sets = 0, base = 0;
	for (TableObj &t : tables_) {
		for (ChainObj &c : t.chains) {
			c.build_index = chains++;
			base += c.base && !(t.flags & kTableFDormant);
			for (RuleObj &r : c.rules) {
				rules++;
				insns += r.code.count;
			}
		}
		for (SetObj &s : t.sets)
			s.build_index = sets++;
	}

	/* Checks first: loops, depth, where flow offload runs. */
	if (chains) {
		int err = check_graph(tables_, nullptr, chains, ack);
		if (err)
			return err;
	}
	if (!base)
		return 0;	/* nothing runs: frames see no generation */

	Generation *g = static_cast<Generation *>(xb_alloc(sizeof(Generation), XB_ALLOC_SLEEP));
	if (!g)
		return fail(ack, kENOMEM, "out of memory for the commit");
	g->chains = static_cast<Chain *>(xb_alloc(chains * sizeof(Chain), XB_ALLOC_SLEEP));
	g->rules = static_cast<RuleCode *>(xb_alloc((rules ? rules : 1) * sizeof(RuleCode),
						    XB_ALLOC_SLEEP));
	/* each chain closed by a ChainEnd */
	g->insns = static_cast<Insn *>(xb_alloc((insns + chains) * sizeof(Insn),
						XB_ALLOC_SLEEP));
	g->hook_chains = static_cast<HookChain *>(xb_alloc(base * sizeof(HookChain), XB_ALLOC_SLEEP));
	g->sets = static_cast<SetIndex **>(xb_alloc((sets ? sets : 1) * sizeof(void *),
						    XB_ALLOC_SLEEP));
	g->chain_count = chains;
	if (!g->chains || !g->rules || !g->insns || !g->hook_chains || !g->sets) {
		free_generation(g);
		return fail(ack, kENOMEM, "out of memory for the commit");
	}
	for (TableObj &t : tables_)
		for (SetObj &s : t.sets) {
			g->sets[s.build_index] = SetIndex::build(s.layout, s.elems, kElemDead,
								 map_chain, g, ack);
			if (!g->sets[s.build_index]) {
				free_generation(g);
				return -kENOMEM;
			}
			g->sets[s.build_index]->attach_dynamic(s.dyn);
			g->sets[s.build_index]->attach_exprs_lock(s.exprs_lock);
			g->uses_ct |= s.exprs_use_ct;
			g->set_count++;
		}

	uint32_t ri = 0, ii = 0;
	bool zero_regs = false;
	for (TableObj &t : tables_)
		for (ChainObj &c : t.chains) {
			Chain &cc = g->chains[c.build_index];
			cc.rules = &g->rules[ri];
			cc.policy = c.policy;
			cc.code = &g->insns[ii];
			for (RuleObj &r : c.rules) {
				RuleCode &rc = g->rules[ri++];
				rc.insn = &g->insns[ii];
				rc.count = r.code.count;
				for (uint32_t k = 0; k < r.code.count; k++) {
					Insn &in = g->insns[ii++];
					in = r.code.insn[k];
					if (in.op == Op::Lookup || in.op == Op::ObjMap) {
						in.ref = g->sets[static_cast<SetObj *>(in.ref)->build_index];
					} else if (in.op == Op::Dynset) {
						/* the statement stays the rule's; the
						 * generation's index of its set beside it */
						const SetIndex *ix = g->sets[static_cast<SetObj *>(
							static_cast<Dynset *>(in.ref)->set)->build_index];
						__builtin_memcpy(in.data, &ix, sizeof(ix));
					}
					else if (in.op == Op::Verdict && in.ref)
						in.ref = &g->chains[static_cast<ChainObj *>(in.ref)->build_index];
					else if (in.op == Op::ObjCounter)
						in.ref = &static_cast<ObjObj *>(in.ref)->counter;
					else if (in.op == Op::ObjQuota)
						in.ref = &static_cast<ObjObj *>(in.ref)->quota;
					else if (in.op == Op::ObjLimit)
						in.ref = &static_cast<ObjObj *>(in.ref)->limit;
				}
				zero_regs |= rule_reads_unwritten(rc.insn, rc.count);
				rc.count = lower_rule(&g->insns[ii - rc.count], rc.count);
				ii = uint32_t(rc.insn - g->insns) + rc.count;
				g->uses_ct |= r.code.has_ct;
				g->has_offload |= r.code.has_offload;
				g->has_payload_write |= r.code.has_payload_write;
				cc.count++;
			}
			g->insns[ii] = Insn{};
			g->insns[ii++].op = Op::ChainEnd;
		}

	for (uint32_t c = 0; c < chains; c++)
		g->chains[c].zero_regs = zero_regs;

	/* Hooks: base chains of active tables, sorted by priority; at equal
	 * priorities the chain registered last runs first, as
	 * nf_hook_entries_grow inserts a hook before the first one whose
	 * priority is not lower (the conformance harness shows it). */
	uint32_t hi = 0;
	for (unsigned h = 0; h < kHookCount; h++) {
		Hook &hook = g->hooks[h];
		hook.chains = &g->hook_chains[hi];
		for (TableObj &t : tables_) {
			if (t.flags & kTableFDormant)
				continue;
			for (ChainObj &c : t.chains) {
				if (!c.base || c.hooknum != h)
					continue;
				HookChain hc{c.priority, &g->chains[c.build_index], c.hook_seq};
				uint32_t j = hook.count;
				while (j > 0 && (g->hook_chains[hi + j - 1].priority > hc.priority ||
						 (g->hook_chains[hi + j - 1].priority == hc.priority &&
						  g->hook_chains[hi + j - 1].seq < hc.seq))) {
					g->hook_chains[hi + j] = g->hook_chains[hi + j - 1];
					j--;
				}
				g->hook_chains[hi + j] = hc;
				hook.count++;
			}
		}
		hi += hook.count;
	}
	out = g;
	return 0;
}

} // namespace xb::nft
