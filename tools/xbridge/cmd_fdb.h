// cmd_fdb.h - `xbridge fdb`: add/append/replace/del/show/get/flush. The
// parsers are pure (words -> request) for the unit tests; do_fdb runs them.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "args.h"

namespace xbridge {

class Context;

enum class FdbOp { Add, Append, Replace, Del };

struct FdbModify {
	FdbOp op = FdbOp::Add;
	Mac mac{};
	std::string dev;
	uint16_t vlan = 0;           // 0: none given
	uint16_t state = 0;          // XBRIDGE_FDB_STATE_*; default permanent
	uint32_t flags = 0;          // XBRIDGE_FDB_F_*
	bool self = false, master = false;
	int mode = -1;               // XBRIDGE_FDB_MODE_* (add/replace/append); -1: delete
};
FdbModify parse_fdb_modify(FdbOp op, Args &a);

struct FdbShow {
	std::string br, brport;
	uint16_t vlan = 0;
	std::optional<uint16_t> state;  // show only this state
	bool dynamic = false;
};
FdbShow parse_fdb_show(Args &a);

struct FdbGet {
	Mac mac{};
	std::string br, dev;
	uint16_t vlan = 0;
};
FdbGet parse_fdb_get(Args &a);

struct FdbFlush {
	std::string dev, brport;
	uint16_t vlan = 0;
	uint16_t state = 0, state_mask = 0;
	uint32_t flags = 0, flags_mask = 0;
};
FdbFlush parse_fdb_flush(Args &a);

int do_fdb(Context &c, Args &a);
extern const char fdb_usage[];

}  // namespace xbridge
