/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fdb_dest.h - the FDB destination: one tagged machine word.
 *
 * An FDB entry's destination is either a Port pointer (bit 0 clear) or a
 * PortVlan pointer with bit 0 set; the PortVlan points to its port. Both
 * objects are at least 8-byte aligned. The word is decoded once per
 * forwarded frame; when it carries the port VLAN, egress needs no VLAN
 * lookup (allowed-egress check and tagging read the cached entry).
 *
 * Lifetime: a PortVlan cached here is kept alive until every FDB entry
 * caching it has been rewritten or deleted and a grace period has passed
 * (Bridge::vlan_del), so an RCU reader may always dereference what it
 * decoded. The word itself is read with load_dep (READ_ONCE: the decoded
 * pointer is dereferenced) and changed with a compare-and-swap (promotion)
 * or a store_publish under the FDB lock (roam, user).
 */
#ifndef XBRIDGE_CORE_FDB_DEST_H
#define XBRIDGE_CORE_FDB_DEST_H

#include <stdint.h>

#include "vlan.h"

namespace xb {

struct Port;

class FdbDest {
public:
	constexpr FdbDest() = default;
	static FdbDest from_word(uintptr_t word) { return FdbDest(word); }
	static FdbDest to_port(Port *port)
	{
		return FdbDest(reinterpret_cast<uintptr_t>(port));
	}
	static FdbDest to_vlan(PortVlan *vlan)
	{
		return FdbDest(reinterpret_cast<uintptr_t>(vlan) | kVlanBit);
	}

	uintptr_t word() const { return word_; }
	bool has_vlan() const { return word_ & kVlanBit; }
	PortVlan *vlan() const
	{
		return has_vlan() ? reinterpret_cast<PortVlan *>(word_ & ~kVlanBit) : nullptr;
	}
	/* The port, whichever form the word has. */
	Port *port() const
	{
		if (has_vlan())
			return reinterpret_cast<PortVlan *>(word_ & ~kVlanBit)->port;
		return reinterpret_cast<Port *>(word_);
	}
	bool operator==(const FdbDest &o) const { return word_ == o.word_; }
	bool operator!=(const FdbDest &o) const { return word_ != o.word_; }

private:
	static constexpr uintptr_t kVlanBit = 1;
	explicit constexpr FdbDest(uintptr_t word) : word_(word) {}
	uintptr_t word_ = 0;
};

/* The decoded destination: what forwarding works with. */
struct DecodedDest {
	Port *port;
	PortVlan *vlan;		/* nullptr: look the VLAN up on egress */
};

inline DecodedDest decode_dest(FdbDest d)
{
	PortVlan *v = d.vlan();
	if (v)
		return {v->port, v};
	return {reinterpret_cast<Port *>(d.word()), nullptr};
}

} // namespace xb

#endif /* XBRIDGE_CORE_FDB_DEST_H */
