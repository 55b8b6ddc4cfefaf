# SPDX-License-Identifier: GPL-2.0
"""xbridge_side.py - the conformance harness's driver for xbridge: the
operations of sides.BridgeSide over the xbridge generic netlink family
(netlink/xbridge.h), sending what the `xbridge` tool sends for the same
iproute2 words (tools/xbridge/cmd_*.cc).

Ownership: one XBridge per run, owning one generic netlink socket; not
thread-safe.
"""
import struct

import nlsock as nl
from sides import BridgeSide

# netlink/xbridge.h
CMD_BRIDGE_SET, CMD_PORT_SET = 2, 4
CMD_FDB_GET, CMD_FDB_NEW, CMD_FDB_DEL, CMD_FDB_FLUSH = 5, 6, 7, 8
CMD_VLAN_GET, CMD_VLAN_NEW, CMD_VLAN_DEL, CMD_VLAN_SET = 9, 10, 11, 12
A_IFINDEX, A_BRIDGE, A_PORT, A_FDB, A_VLAN, A_FLUSH = 1, 2, 3, 4, 5, 6

BR_ATTR = dict(vlan_filtering=(3, nl.u8), vlan_protocol=(4, nl.u16),
               default_pvid=(5, nl.u16), ageing_time=(6, nl.u32),
               group_fwd_mask=(8, nl.u16))
PORT_IFINDEX, PORT_STATE = 1, 3
PORT_FLAG = dict(learning=4, flood=5, mcast_flood=6, bcast_flood=7, hairpin=8,
                 isolated=9, locked=10)
FDB_MAC, FDB_VLAN, FDB_PORT, FDB_STATE, FDB_FLAGS = 1, 2, 3, 4, 5
FDB_F_STICKY, FDB_F_EXT_LEARN, FDB_F_LOCKED = 1, 2, 4
STATE_REACHABLE, STATE_NOARP, STATE_PERMANENT = 0x02, 0x40, 0x80
KIND_STATE = {None: STATE_PERMANENT, "local": STATE_PERMANENT,
              "static": STATE_NOARP, "dynamic": STATE_REACHABLE}
VLAN_PORT, VLAN_VID, VLAN_VID_END, VLAN_FLAGS, VLAN_STATE = 1, 2, 3, 4, 5
VLAN_F_PVID, VLAN_F_UNTAGGED = 2, 4
FLUSH_PORT, FLUSH_VLAN, FLUSH_STATE, FLUSH_STATE_MASK = 1, 2, 3, 4
# `bridge fdb flush` state words: (state, mask), as iproute2 and the tool.
FLUSH_KIND = {"dynamic": (0, STATE_NOARP | STATE_PERMANENT),
              "static": (STATE_NOARP, STATE_NOARP | STATE_PERMANENT),
              "permanent": (STATE_PERMANENT, STATE_PERMANENT)}


class XBridge(BridgeSide):
    label = "xbridge"

    def __init__(self, br, ports, br_mac):
        super().__init__(br, ports, br_mac)
        self.genl = nl.Genl("xbridge")

    def _br(self):
        return nl.u32(A_IFINDEX, self.br_ifindex)

    def bridge_set(self, opts):
        body = b"".join(BR_ATTR[k][1](BR_ATTR[k][0], v) for k, v in opts.items())
        self.genl.do(CMD_BRIDGE_SET, self._br() + nl.nest(A_BRIDGE, body))

    def link_set(self, port, flags, state):
        body = nl.u32(PORT_IFINDEX, self.port_ifindex[port])
        for k, v in flags.items():
            body += nl.u8(PORT_FLAG[k], int(v))
        if state is not None:
            body += nl.u8(PORT_STATE, state)
        self.genl.do(CMD_PORT_SET, self._br() + nl.nest(A_PORT, body))

    def _fdb_key(self, port, mac, vlan):
        body = nl.attr(FDB_MAC, nl.mac_bytes(mac))
        if vlan is not None:
            body += nl.u16(FDB_VLAN, vlan)
        return body + nl.u32(FDB_PORT, self.dev_ifindex(port))

    def fdb_change(self, cmd, mac, port, vlan, kind, sticky, extern_learn):
        flags = (FDB_F_STICKY if sticky else 0) | (FDB_F_EXT_LEARN if extern_learn else 0)
        body = self._fdb_key(port, mac, vlan) + nl.u16(FDB_STATE, KIND_STATE[kind])
        if flags:
            body += nl.u32(FDB_FLAGS, flags)
        nlflags = nl.NLM_F_CREATE | {"add": nl.NLM_F_EXCL, "append": nl.NLM_F_APPEND,
                                     "replace": nl.NLM_F_REPLACE}[cmd]
        self.genl.do(CMD_FDB_NEW, self._br() + nl.nest(A_FDB, body), nlflags)

    def fdb_del(self, port, mac, vlan):
        self.genl.do(CMD_FDB_DEL, self._br() + nl.nest(A_FDB, self._fdb_key(port, mac, vlan)))

    def fdb_flush(self, port, vlan, kind):
        body = b""
        if port != "br":
            body += nl.u32(FLUSH_PORT, self.port_ifindex[port])
        if vlan is not None:
            body += nl.u16(FLUSH_VLAN, vlan)
        if kind:
            state, mask = FLUSH_KIND[kind]
            body += nl.u16(FLUSH_STATE, state) + nl.u16(FLUSH_STATE_MASK, mask)
        self.genl.do(CMD_FDB_FLUSH, self._br() + nl.nest(A_FLUSH, body))

    def _vlan(self, port, vid, end, extra=b""):
        body = nl.u32(VLAN_PORT, self.dev_ifindex(port)) + nl.u16(VLAN_VID, vid)
        if end is not None:
            body += nl.u16(VLAN_VID_END, end)
        return self._br() + nl.nest(A_VLAN, body + extra)

    def vlan_add(self, port, vid, end, pvid, untagged):
        flags = (VLAN_F_PVID if pvid else 0) | (VLAN_F_UNTAGGED if untagged else 0)
        self.genl.do(CMD_VLAN_NEW, self._vlan(port, vid, end, nl.u16(VLAN_FLAGS, flags)))

    def vlan_del(self, port, vid, end):
        self.genl.do(CMD_VLAN_DEL, self._vlan(port, vid, end))

    def vlan_set_state(self, port, vid, end, state):
        self.genl.do(CMD_VLAN_SET, self._vlan(port, vid, end, nl.u8(VLAN_STATE, state)))

    def fdb_dump(self):
        rows = []
        for body in self.genl.dump_cmd(CMD_FDB_GET, self._br()):
            a = nl.parse(nl.parse(body).get(A_FDB, b""))
            port = self.name_of.get(nl.get_u32(a[FDB_PORT]), "?%d" % nl.get_u32(a[FDB_PORT]))
            state = nl.get_u16(a[FDB_STATE])
            kind = ("local" if state & STATE_PERMANENT else
                    "static" if state & STATE_NOARP else "dynamic")
            f = nl.get_u32(a[FDB_FLAGS]) if FDB_FLAGS in a else 0
            flags = tuple(n for bit, n in ((FDB_F_EXT_LEARN, "extern_learn"),
                                           (FDB_F_LOCKED, "locked"),
                                           (FDB_F_STICKY, "sticky")) if f & bit)
            vid = nl.get_u16(a[FDB_VLAN]) if FDB_VLAN in a else 0
            rows.append((port, nl.mac_text(a[FDB_MAC]), vid, kind, flags))
        return sorted(rows)

    def vlan_dump(self):
        out = {}
        for body in self.genl.dump_cmd(CMD_VLAN_GET, self._br()):
            a = nl.parse(nl.parse(body).get(A_VLAN, b""))
            idx = nl.get_u32(a[VLAN_PORT])
            if idx not in self.name_of:
                continue
            f = nl.get_u16(a[VLAN_FLAGS]) if VLAN_FLAGS in a else 0
            flags = ("P" if f & VLAN_F_PVID else "") + ("U" if f & VLAN_F_UNTAGGED else "")
            state = nl.get_u8(a[VLAN_STATE]) if VLAN_STATE in a else 3
            lo = nl.get_u16(a[VLAN_VID])
            hi = nl.get_u16(a[VLAN_VID_END]) if VLAN_VID_END in a else lo
            for vid in range(lo, hi + 1):
                out.setdefault(self.name_of[idx], []).append((vid, flags, state))
        return {p: sorted(v) for p, v in out.items()}
