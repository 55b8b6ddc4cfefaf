# SPDX-License-Identifier: GPL-2.0
"""linux_side.py - the Linux kernel bridge as one side of the conformance
harness, driven over raw rtnetlink (stdlib only).

Every operation sends the message iproute2 would send for the matching
`bridge` / `ip` command (bridge/fdb.c, bridge/vlan.c, bridge/link.c,
ip/iplink_bridge.c), so the Linux bridge answers exactly as it answers its
usual users. Where iproute2's default would not reach the bridge, the
scenario words mean the bridge's view:
  - a port (pN) is addressed as `... dev PORT master` (NTF_MASTER /
    no IFLA_BRIDGE_FLAGS), since iproute2's default `self` would reach the
    veth's own address list;
  - the bridge itself (`br`) as `... dev BR self` (NTF_SELF /
    BRIDGE_FLAGS_SELF): the kernel sends NTF_MASTER requests only to the
    master of a port, and the bridge device has none.
Struct layouts and attribute numbers are those of the Linux 6.1 uapi
headers (linux/if_link.h, if_bridge.h, neighbour.h, rtnetlink.h), plus the
few newer ones marked with the release that added them (IFLA_BRPORT_MAB,
6.2; IFLA_BR_FDB_MAX_LEARNED, 6.8; numbers from 6.12's if_link.h). An older
kernel skips attributes above its maximum without an error, so scenarios
that use them say `requires linux X.Y`.

Ownership: a LinuxBridge owns one Linux bridge device and its ports for the
whole run, through the base class's rtnetlink socket (self.rtnl); it keeps
no state of its own, every dump asks the kernel. Kernel refusals surface as
nlsock.NlError unchanged. Note that rtnetlink is not transactional: a
request the kernel refuses halfway (e.g. `br set` with two options, the
second rejected) may leave the first part applied.
"""
import socket
import struct

import nlsock as nl
from sides import BridgeSide

# linux/rtnetlink.h: message types
RTM_NEWLINK = 16
RTM_DELLINK = 17
RTM_SETLINK = 19
RTM_NEWNEIGH = 28
RTM_DELNEIGH = 29
RTM_GETNEIGH = 30
RTM_NEWVLAN = 112
RTM_GETVLAN = 114

AF_BRIDGE = socket.AF_BRIDGE           # 7, also PF_BRIDGE

# linux/if_link.h
IFLA_PROTINFO = 12
IFLA_LINKINFO = 18
IFLA_AF_SPEC = 26
IFLA_INFO_KIND = 1
IFLA_INFO_DATA = 2

IFLA_BR_AGEING_TIME = 4                # u32, centiseconds (clock_t)
IFLA_BR_VLAN_FILTERING = 7             # u8
IFLA_BR_VLAN_PROTOCOL = 8              # be16
IFLA_BR_GROUP_FWD_MASK = 9             # u16
IFLA_BR_VLAN_DEFAULT_PVID = 39         # u16
IFLA_BR_FDB_MAX_LEARNED = 49           # u32, 6.8+ (0: no limit)

IFLA_BRPORT_STATE = 1                  # u8, BR_STATE_*
IFLA_BRPORT_MODE = 4                   # u8, hairpin
IFLA_BRPORT_LEARNING = 8
IFLA_BRPORT_UNICAST_FLOOD = 9
IFLA_BRPORT_MCAST_FLOOD = 27
IFLA_BRPORT_BCAST_FLOOD = 30
IFLA_BRPORT_ISOLATED = 33
IFLA_BRPORT_LOCKED = 39
IFLA_BRPORT_MAB = 40                   # u8, 6.2+ (iproute2 6.2's `mab on|off`)

# scenario.PORT_FLAGS -> the IFLA_BRPORT_* u8 that `bridge link set` sends
PORT_FLAG_ATTR = {
    "learning": IFLA_BRPORT_LEARNING,
    "flood": IFLA_BRPORT_UNICAST_FLOOD,
    "mcast_flood": IFLA_BRPORT_MCAST_FLOOD,
    "bcast_flood": IFLA_BRPORT_BCAST_FLOOD,
    "hairpin": IFLA_BRPORT_MODE,
    "isolated": IFLA_BRPORT_ISOLATED,
    "locked": IFLA_BRPORT_LOCKED,
    "mab": IFLA_BRPORT_MAB,
}

# linux/if_bridge.h
IFLA_BRIDGE_FLAGS = 0                  # u16, in IFLA_AF_SPEC
IFLA_BRIDGE_VLAN_INFO = 2              # struct bridge_vlan_info
BRIDGE_FLAGS_SELF = 2
BRIDGE_VLAN_INFO_PVID = 1 << 1
BRIDGE_VLAN_INFO_UNTAGGED = 1 << 2
BRIDGE_VLAN_INFO_RANGE_BEGIN = 1 << 3
BRIDGE_VLAN_INFO_RANGE_END = 1 << 4
BRIDGE_VLAN_INFO_ONLY_OPTS = 1 << 6    # RTM_NEWVLAN: options only

BRIDGE_VLANDB_ENTRY = 1
BRIDGE_VLANDB_ENTRY_INFO = 1           # struct bridge_vlan_info
BRIDGE_VLANDB_ENTRY_RANGE = 2          # u16, last vid of the range
BRIDGE_VLANDB_ENTRY_STATE = 3          # u8, BR_STATE_*

# linux/neighbour.h
NDA_LLADDR = 2
NDA_VLAN = 5                           # u16
NDA_MASTER = 9                         # u32
NDA_FLAGS_EXT = 15                     # u32
NDA_NDM_STATE_MASK = 16                # u16, bulk delete filter

NTF_SELF = 1 << 1
NTF_MASTER = 1 << 2
NTF_EXT_LEARNED = 1 << 4
NTF_STICKY = 1 << 6
# In NDA_FLAGS_EXT. Not in 6.1 (added in 6.2 with MAC Authentication
# Bypass); 6.1 never reports it, later kernels do.
NTF_EXT_LOCKED = 1 << 1

NUD_REACHABLE = 0x02
NUD_NOARP = 0x40
NUD_PERMANENT = 0x80

FDB_CMD_FLAGS = {
    "add": nl.NLM_F_CREATE | nl.NLM_F_EXCL,
    "append": nl.NLM_F_CREATE | nl.NLM_F_APPEND,
    "replace": nl.NLM_F_CREATE | nl.NLM_F_REPLACE,
}

# `bridge fdb flush ... KIND` -> (ndm_state, NDA_NDM_STATE_MASK), as
# iproute2's fdb_flush() sets them.
FLUSH_STATE = {
    "permanent": (NUD_PERMANENT, NUD_PERMANENT),
    "static": (NUD_NOARP, NUD_NOARP | NUD_PERMANENT),
    "dynamic": (0, NUD_NOARP | NUD_PERMANENT),
}


def ifinfomsg(index, family=AF_BRIDGE):
    """struct ifinfomsg: family, pad, type, index, flags, change."""
    return struct.pack("=BxHiII", family, 0, index, 0, 0)


def ndmsg(ifindex, state=0, flags=0):
    """struct ndmsg: family, pad1, pad2, ifindex, state, flags, type."""
    return struct.pack("=BxxxiHBB", AF_BRIDGE, ifindex, state, flags, 0)


def br_vlan_msg(ifindex):
    """struct br_vlan_msg: family, reserved1, reserved2, ifindex."""
    return struct.pack("=BxxxI", AF_BRIDGE, ifindex)


def vlan_info(atype, flags, vid):
    """struct bridge_vlan_info {u16 flags; u16 vid;} as attribute @atype."""
    return nl.attr(atype, struct.pack("=HH", flags, vid))


class LinuxBridge(BridgeSide):
    label = "linux"

    def _fdb_target(self, port):
        """(ifindex, ndm_flags) addressing @port: the bridge itself with
        NTF_SELF, a port through its master with NTF_MASTER."""
        if port == "br":
            return self.br_ifindex, NTF_SELF
        return self.port_ifindex[port], NTF_MASTER

    # -- `ip link set BR type bridge ...` -------------------------------------
    def bridge_set(self, opts):
        data = b""
        if "vlan_filtering" in opts:
            data += nl.u8(IFLA_BR_VLAN_FILTERING, opts["vlan_filtering"])
        if "default_pvid" in opts:
            data += nl.u16(IFLA_BR_VLAN_DEFAULT_PVID, opts["default_pvid"])
        if "ageing_time" in opts:
            data += nl.u32(IFLA_BR_AGEING_TIME, opts["ageing_time"])
        if "vlan_protocol" in opts:
            data += nl.be16(IFLA_BR_VLAN_PROTOCOL, opts["vlan_protocol"])
        if "group_fwd_mask" in opts:
            data += nl.u16(IFLA_BR_GROUP_FWD_MASK, opts["group_fwd_mask"])
        if "fdb_max_learned" in opts:
            data += nl.u32(IFLA_BR_FDB_MAX_LEARNED, opts["fdb_max_learned"])
        linkinfo = nl.nest(IFLA_LINKINFO, nl.string(IFLA_INFO_KIND, "bridge"),
                           nl.nest(IFLA_INFO_DATA, data))
        # An existing device: RTM_NEWLINK without NLM_F_CREATE is changelink.
        self.rtnl.request(RTM_NEWLINK,
                          ifinfomsg(self.br_ifindex, socket.AF_UNSPEC) + linkinfo)

    # -- `bridge link set dev PORT ...` ---------------------------------------
    def link_set(self, port, flags, state):
        attrs = b"".join(nl.u8(PORT_FLAG_ATTR[k], int(bool(v)))
                         for k, v in flags.items())
        if state is not None:
            attrs += nl.u8(IFLA_BRPORT_STATE, state)
        # No IFLA_AF_SPEC/IFLA_BRIDGE_FLAGS: the port's master handles it.
        self.rtnl.request(RTM_SETLINK, ifinfomsg(self.port_ifindex[port])
                          + nl.nest(IFLA_PROTINFO, attrs))

    # -- `bridge fdb add|append|replace MAC dev P [vlan V] [KIND] ...` --------
    def fdb_change(self, cmd, mac, port, vlan, kind, sticky, extern_learn):
        # iproute2 fdb_modify(): NUD_NOARP to start with, then the kind word;
        # no kind at all (or "local"/"permanent") ends up NUD_PERMANENT.
        state = NUD_NOARP
        if kind in ("local", "permanent"):
            state |= NUD_PERMANENT
        elif kind == "static":
            state |= NUD_REACHABLE
        elif kind == "dynamic":
            state |= NUD_REACHABLE
            state &= ~NUD_NOARP
        elif kind is not None:
            raise ValueError("unknown fdb kind %r" % kind)
        if not state & (NUD_PERMANENT | NUD_REACHABLE):
            state |= NUD_PERMANENT
        ifindex, ndm_flags = self._fdb_target(port)
        if sticky:
            ndm_flags |= NTF_STICKY
        if extern_learn:
            ndm_flags |= NTF_EXT_LEARNED
        attrs = nl.attr(NDA_LLADDR, nl.mac_bytes(mac))
        if vlan is not None:
            # As iproute2: sent even for vid 0, which the kernel refuses.
            attrs += nl.u16(NDA_VLAN, vlan)
        self.rtnl.request(RTM_NEWNEIGH, ndmsg(ifindex, state, ndm_flags) + attrs,
                          FDB_CMD_FLAGS[cmd])

    # -- `bridge fdb del MAC dev P [vlan V]` ----------------------------------
    def fdb_del(self, port, mac, vlan):
        ifindex, ndm_flags = self._fdb_target(port)
        attrs = nl.attr(NDA_LLADDR, nl.mac_bytes(mac))
        if vlan is not None:
            # As iproute2: `vlan 0` is sent (and refused by the kernel).
            attrs += nl.u16(NDA_VLAN, vlan)
        self.rtnl.request(RTM_DELNEIGH, ndmsg(ifindex, 0, ndm_flags) + attrs)

    # -- `bridge fdb flush dev P|BR [vlan V] [dynamic|static|permanent]` ------
    def fdb_flush(self, port, vlan, kind):
        ifindex, ndm_flags = self._fdb_target(port)
        state, mask = FLUSH_STATE[kind] if kind else (0, 0)
        attrs = b""
        if vlan is not None:
            attrs += nl.u16(NDA_VLAN, vlan)
        if mask:
            attrs += nl.u16(NDA_NDM_STATE_MASK, mask)
        self.rtnl.request(RTM_DELNEIGH, ndmsg(ifindex, state, ndm_flags) + attrs,
                          nl.NLM_F_BULK)

    # -- `bridge vlan add|del vid V[-E] dev P|BR [pvid] [untagged] [self]` ----
    def _vlan_modify(self, mtype, port, vid, end, flags):
        spec = b""
        if port == "br":
            spec += nl.u16(IFLA_BRIDGE_FLAGS, BRIDGE_FLAGS_SELF)
        if end is None:
            spec += vlan_info(IFLA_BRIDGE_VLAN_INFO, flags, vid)
        else:
            # Old-style range: a RANGE_BEGIN entry then a RANGE_END entry,
            # both with the same PVID/UNTAGGED flags (iproute2 vlan_modify()).
            spec += vlan_info(IFLA_BRIDGE_VLAN_INFO,
                              flags | BRIDGE_VLAN_INFO_RANGE_BEGIN, vid)
            spec += vlan_info(IFLA_BRIDGE_VLAN_INFO,
                              flags | BRIDGE_VLAN_INFO_RANGE_END, end)
        self.rtnl.request(mtype, ifinfomsg(self.dev_ifindex(port))
                          + nl.nest(IFLA_AF_SPEC, spec))

    def vlan_add(self, port, vid, end, pvid, untagged):
        flags = ((BRIDGE_VLAN_INFO_PVID if pvid else 0)
                 | (BRIDGE_VLAN_INFO_UNTAGGED if untagged else 0))
        self._vlan_modify(RTM_SETLINK, port, vid, end, flags)

    def vlan_del(self, port, vid, end):
        self._vlan_modify(RTM_DELLINK, port, vid, end, 0)

    # -- `bridge vlan set vid V[-E] dev P|BR state S` -------------------------
    def vlan_set_state(self, port, vid, end, state):
        entry = vlan_info(BRIDGE_VLANDB_ENTRY_INFO, BRIDGE_VLAN_INFO_ONLY_OPTS, vid)
        if end is not None:
            entry += nl.u16(BRIDGE_VLANDB_ENTRY_RANGE, end)
        entry += nl.u8(BRIDGE_VLANDB_ENTRY_STATE, state)
        self.rtnl.request(RTM_NEWVLAN, br_vlan_msg(self.dev_ifindex(port))
                          + nl.nest(BRIDGE_VLANDB_ENTRY, entry))

    # -- dumps -----------------------------------------------------------------
    def fdb_dump(self):
        out = []
        for _, body in self.rtnl.dump(RTM_GETNEIGH, ndmsg(0)):
            _, ifindex, state, ndm_flags, _ = struct.unpack_from("=BxxxiHBB", body)
            a = nl.parse(body[12:])
            # Entries of this bridge carry NDA_MASTER; the ports' and the
            # bridge's own address lists (NTF_SELF) do not.
            if NDA_MASTER not in a or nl.get_u32(a[NDA_MASTER]) != self.br_ifindex:
                continue
            if ifindex not in self.name_of:
                continue
            if state & NUD_PERMANENT:
                kind = "local"
            elif state & NUD_NOARP:
                kind = "static"
            else:
                kind = "dynamic"
            flags = []
            if ndm_flags & NTF_EXT_LEARNED:
                flags.append("extern_learn")
            if NDA_FLAGS_EXT in a and nl.get_u32(a[NDA_FLAGS_EXT]) & NTF_EXT_LOCKED:
                flags.append("locked")
            if ndm_flags & NTF_STICKY:
                flags.append("sticky")
            vid = nl.get_u16(a[NDA_VLAN]) if NDA_VLAN in a else 0
            out.append((self.name_of[ifindex], nl.mac_text(a[NDA_LLADDR]), vid,
                        kind, tuple(sorted(flags))))
        return sorted(out)

    def vlan_dump(self):
        """RTM_GETVLAN over every device: one message per bridge or port,
        holding BRIDGE_VLANDB_ENTRY nests (ranges of VLANs that share flags
        and options are compressed into one entry with ENTRY_RANGE)."""
        out = {}
        for _, body in self.rtnl.dump(RTM_GETVLAN, br_vlan_msg(0)):
            ifindex = struct.unpack_from("=BxxxI", body)[1]
            port = self.name_of.get(ifindex)
            if port is None:
                continue
            for t, entry in nl.iterate(body[8:]):
                if t != BRIDGE_VLANDB_ENTRY:
                    continue
                e = nl.parse(entry)
                vflags, vid = struct.unpack_from("=HH", e[BRIDGE_VLANDB_ENTRY_INFO])
                end = nl.get_u16(e[BRIDGE_VLANDB_ENTRY_RANGE]) \
                    if BRIDGE_VLANDB_ENTRY_RANGE in e else vid
                state = nl.get_u8(e[BRIDGE_VLANDB_ENTRY_STATE]) \
                    if BRIDGE_VLANDB_ENTRY_STATE in e else 0
                text = (("P" if vflags & BRIDGE_VLAN_INFO_PVID else "")
                        + ("U" if vflags & BRIDGE_VLAN_INFO_UNTAGGED else ""))
                out.setdefault(port, []).extend(
                    (v, text, state) for v in range(vid, end + 1))
        return {p: sorted(v) for p, v in out.items()}
