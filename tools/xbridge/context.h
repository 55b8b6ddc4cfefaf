// context.h - what every command shares: the global options, the family
// client and the device table (both opened on first use, so `help` and
// argument errors never touch the kernel), and name/port resolution.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "genl_client.h"
#include "output.h"
#include "rtnl_links.h"

namespace xbridge {

struct Options {
	bool json = false, pretty = false, details = false, compress = false, force = false;
	int stats = 0;
	std::string netns, batch;
};

// A DEV word resolved: the xbridge it belongs to and the port (the bridge
// itself for the bridge's own entries / VLANs).
struct PortRef {
	uint32_t bridge = 0;
	uint32_t port = 0;
	bool is_bridge() const { return bridge == port; }
};

class Context {
public:
	Options opt;

	GenlClient &genl();
	LinkTable &links();
	void reload_links();
	std::string name(uint32_t ifindex);
	NameFn namer();
	// DEV must be an xbridge or a port of one.
	PortRef resolve_port(const std::string &dev);
	// BR must be an xbridge.
	uint32_t resolve_bridge(const std::string &br);
	bool is_xbridge(uint32_t ifindex);
	// Every xbridge in the namespace, by ifindex.
	std::vector<uint32_t> bridges();
	Printer printer() const { return Printer(opt.json, opt.pretty); }
	void emit(std::string s);  // write to stdout and flush

private:
	std::unique_ptr<GenlClient> genl_;
	std::unique_ptr<LinkTable> links_;
};

}  // namespace xbridge
