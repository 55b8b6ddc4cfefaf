// monitor.h - `xnft monitor`: the xbridge family's commit notifications
// (its `nft` group: one NEWTABLE, DELRULE, NEWSETELEM... message per object
// of a committed batch, then NEWGEN) printed as `nft monitor` prints
// nf_tables' (nftables src/monitor.c): "add table bridge t", "add chain
// bridge t c { type filter hook forward priority filter; policy accept; }",
// "add rule bridge t c ip saddr 10.0.0.1 counter packets 0 bytes 0 accept",
// "delete rule bridge t c handle 4", "# new generation 5 by process 42
// (nft)", or with -j one {"add": {...}} / {"delete": {...}} object a line.
//
// Objects are printed by the `list` printer (printer.h, delinearize.h),
// each block folded onto one line as nft's monitor does. A rule names sets
// and chains, and anonymous sets arrive as their own messages before the
// rule that uses them: the monitor keeps a RulesetModel current (seeded
// with the kernel's ruleset) to print rules and elements from.
//
// Ownership: the Monitor owns its model. Not thread-safe.
#pragma once
#include <linux/netlink.h>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "delinearize.h"
#include "ruleset_model.h"

struct nftnl_set;

namespace xnft {

// What `monitor [new|destroy] [OBJECTS]` asks for (nft's grammar, plus
// flowtables): which events of which objects; the generation lines only
// when nothing is filtered, as nft prints them.
struct MonitorWhat {
	bool add = true, del = true;
	bool tables = true, chains = true, rules = true, sets = true, elements = true,
	     flowtables = true;
	bool objects = true;  // named counters, quotas, limits: nft 1.0.6 has no word for them
	bool generations = true;
};

// Parses the words after `monitor`; throws std::invalid_argument with nft's
// message for an unknown word.
MonitorWhat parse_monitor_words(const std::vector<std::string> &words);

class Monitor {
public:
	Monitor(const MonitorWhat &what, const PrintOptions &o) : what_(what), o_(o) {}
	Monitor(const Monitor &) = delete;
	Monitor &operator=(const Monitor &) = delete;
	~Monitor();

	// The ruleset as it is before the first notification.
	RulesetModel &model() { return model_; }

	// One notification (NFT_MSG_* @type, nfgen @family, its NFTA_*
	// attributes): the lines it prints (each ending in a newline; none for
	// a filtered or silent one, e.g. an anonymous set). Elements of an
	// interval set are held until the next notification of another kind,
	// so that a range's two ends print as one element, as nft prints them.
	// @flags: the notification's NLM_F_* (a new rule without NLM_F_APPEND
	// was inserted: "insert rule"; another new object with NLM_F_EXCL was
	// created: "create chain").
	std::string event(uint16_t type, uint32_t family, const uint8_t *attrs, size_t len,
			  uint16_t flags = NLM_F_APPEND);
	// What is still held (call before exiting).
	std::string flush();
	// What nft writes to stderr for the events so far (its "W: ..."
	// lines about sets its cache has forgotten), emptied.
	std::string take_warnings() { return std::move(warnings_); }

private:
	std::string table_event(bool add, uint32_t family, const uint8_t *attrs, size_t len);
	std::string chain_event(bool add, uint32_t family, const uint8_t *attrs, size_t len);
	std::string rule_event(bool add, bool insert, uint32_t family, const uint8_t *attrs,
			       size_t len);
	std::string set_event(bool add, uint32_t family, const uint8_t *attrs, size_t len);
	std::string elem_event(bool add, uint32_t family, const uint8_t *attrs, size_t len);
	std::string flowtable_event(bool add, uint32_t family, const uint8_t *attrs, size_t len);
	std::string obj_event(bool add, uint32_t family, const uint8_t *attrs, size_t len);
	std::string gen_event(const uint8_t *attrs, size_t len);
	std::string line(bool add, const std::string &text, Json json, bool insert = false);
	ModelTable *table(uint32_t family, const std::string &name);
	// nft monitor's own cache of sets (monitor.c netlink_events_cache_*):
	// each NEWSET adds a copy, a re-added set too; each DELSET removes
	// one; a deleted rule removes one of every set its lookups name. A set
	// with no copy left is unknown to nft: its lookups print as nothing,
	// its elements not at all. The model knows the sets as they are.
	int cached_copies(const ModelTable &t, const std::string &set) const;
	void forget_copy(const ModelTable &t, const std::string &set);
	ModelTable cached_view(const ModelTable &t) const;

	MonitorWhat what_;
	PrintOptions o_;
	RulesetModel model_;
	// (family, table, set) -> copies in nft's cache; absent: one copy if
	// the model has the set (read at start), none if not
	std::map<std::tuple<uint32_t, std::string, std::string>, int> copies_;
	std::string warnings_;
	// Held elements of one interval set: add or delete, its table, set.
	nftnl_set *held_ = nullptr;
	bool held_add_ = false;
	bool held_create_ = false;
	// The event being printed came from a `create` (NLM_F_EXCL).
	bool create_ = false;
	uint32_t held_family_ = 0;
	std::string held_table_;
};

} // namespace xnft
