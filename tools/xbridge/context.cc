// context.cc - see context.h.
#include "context.h"

#include <cstdio>

#include "errors.h"

namespace xbridge {

GenlClient &Context::genl()
{
	if (!genl_)
		genl_ = std::make_unique<GenlClient>();
	return *genl_;
}

LinkTable &Context::links()
{
	if (!links_) {
		links_ = std::make_unique<LinkTable>();
		links_->load();
	}
	return *links_;
}

void Context::reload_links()
{
	links_.reset();
	links();
}

std::string Context::name(uint32_t ifindex)
{
	if (!links().by_index(ifindex))
		reload_links();
	return links().name(ifindex);
}

NameFn Context::namer()
{
	return [this](uint32_t i) { return name(i); };
}

bool Context::is_xbridge(uint32_t ifindex)
{
	const LinkInfo *l = links().by_index(ifindex);
	return l && l->kind == "xbridge";
}

std::vector<uint32_t> Context::bridges()
{
	std::vector<uint32_t> out;
	for (const auto &[i, l] : links().all())
		if (l.kind == "xbridge")
			out.push_back(i);
	return out;
}

PortRef Context::resolve_port(const std::string &dev)
{
	uint32_t i = links().index(dev);
	if (is_xbridge(i))
		return {i, i};
	const LinkInfo *l = links().by_index(i);
	if (l->master && is_xbridge(l->master))
		return {l->master, i};
	throw UsageError("Error: \"" + dev + "\" is neither an xbridge nor a port of one.");
}

uint32_t Context::resolve_bridge(const std::string &br)
{
	uint32_t i = links().index(br);
	if (!is_xbridge(i))
		throw UsageError("Error: \"" + br + "\" is not an xbridge.");
	return i;
}

void Context::emit(std::string s)
{
	if (!s.empty())
		fwrite(s.data(), 1, s.size(), stdout);
	fflush(stdout);
}

}  // namespace xbridge
