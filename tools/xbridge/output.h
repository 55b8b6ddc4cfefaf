// output.h - iproute2's dual text/JSON printing (print_string(PRINT_ANY,
// ...)) and the formatters of each object's rows, as `bridge` prints them.
// Formatters take decoded objects and a name lookup and append to a
// string; they do no I/O, so the unit tests check their exact output.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "json_writer.h"
#include "objects.h"

namespace xbridge {

class Printer {
public:
	Printer(bool json, bool pretty);
	bool json() const { return jw_ != nullptr; }
	// Text only (PRINT_FP).
	void text(std::string_view s);
	// JSON: "key": val; text: TXT.
	void str(const char *key, std::string_view val, std::string_view txt);
	void uint(const char *key, uint64_t val, std::string_view txt);
	void boolean(const char *key, bool val, std::string_view txt);
	// An element of an open JSON array (key-less), or TXT.
	void elem(std::string_view val, std::string_view txt);
	void open_obj();
	void close_obj();
	void open_obj_key(const char *key);  // JSON only: "key": {
	void open_arr(const char *key);  // JSON only, as open_json_array(PRINT_JSON)
	void close_arr();
	// new_json_obj / delete_json_obj: the top-level array of rows.
	void begin_rows();
	void end_rows();
	std::string &buf() { return out_; }
	std::string take();

private:
	std::string out_;
	std::unique_ptr<JsonWriter> jw_;
};

using NameFn = std::function<std::string(uint32_t)>;

struct FdbFormat {
	bool stats = false;          // -s: used/updated
	uint32_t filter_index = 0;   // brport/dev filter: "dev" is omitted
	bool monitor = false;        // "Deleted " prefix for deletions
};

const char *fdb_state_name(uint16_t state);  // iproute2's state_n2a
void print_fdb(Printer &p, const FdbEntry &e, const FdbFormat &f, const NameFn &name);

// `bridge vlan show` for one port: ENTRIES sorted by VID. COMPRESS keeps
// ranges (-c), else each VID is its own row, as iproute2 by default.
void print_vlan_header(Printer &p, bool stats);
void print_vlan_port(Printer &p, const std::string &ifname, const std::vector<VlanEntry> &entries,
		     bool compress, bool stats);
// One VLAN notification of `bridge monitor vlan`.
void print_vlan_event(Printer &p, const std::string &ifname, const VlanEntry &v);

struct LinkRow {
	uint32_t ifindex = 0;
	std::string ifname;
	std::string link;            // "@peer" part, may be empty
	unsigned flags = 0;          // IFF_*
	uint32_t mtu = 0;
	std::string master;
	std::optional<uint8_t> state;
	const PortInfo *port = nullptr;  // for -d details
	bool deleted = false;
};
void print_link(Printer &p, const LinkRow &r, bool details);
void print_link_flags(Printer &p, unsigned flags);

}  // namespace xbridge
