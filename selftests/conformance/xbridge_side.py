# SPDX-License-Identifier: GPL-2.0
"""xbridge_side.py - the conformance harness's driver for xbridge: the
operations of sides.BridgeSide over the xbridge generic netlink family
(netlink/xbridge.h), sending what the `xbridge` tool sends for the same
iproute2 words (tools/xbridge/cmd_*.cc).

Ownership: one XBridge per run, owning one generic netlink socket; not
thread-safe.
"""
import struct

import genl_raw as xb          # the family's numbers (netlink/xbridge.h), kept once
import nlsock as nl
from sides import BridgeSide

CMD_BRIDGE_SET, CMD_PORT_SET = xb.CMD["BRIDGE_SET"], xb.CMD["PORT_SET"]
CMD_FDB_GET, CMD_FDB_NEW = xb.CMD["FDB_GET"], xb.CMD["FDB_NEW"]
CMD_FDB_DEL, CMD_FDB_FLUSH = xb.CMD["FDB_DEL"], xb.CMD["FDB_FLUSH"]
CMD_VLAN_GET, CMD_VLAN_NEW = xb.CMD["VLAN_GET"], xb.CMD["VLAN_NEW"]
CMD_VLAN_DEL, CMD_VLAN_SET = xb.CMD["VLAN_DEL"], xb.CMD["VLAN_SET"]
A_IFINDEX, A_BRIDGE, A_PORT = xb.A_IFINDEX, xb.A_BRIDGE, xb.A_PORT
A_FDB, A_VLAN, A_FLUSH = xb.A_FDB, xb.A_VLAN, xb.A_FLUSH

_ENCODE = {"u8": nl.u8, "u16": nl.u16, "u32": nl.u32}


def _ids(table, *names):
    return [table[n][0] for n in names]


PORT_IFINDEX, PORT_STATE = _ids(xb.PORT, "ifindex", "state")
FDB_MAC, FDB_VLAN, FDB_PORT, FDB_STATE, FDB_FLAGS, FDB_MODE = _ids(
    xb.FDB, "mac", "vlan", "port", "state", "flags", "mode")
VLAN_PORT, VLAN_VID, VLAN_VID_END, VLAN_FLAGS, VLAN_STATE = _ids(
    xb.VLAN, "port", "vid", "vid_end", "flags", "state")
FLUSH_PORT, FLUSH_VLAN, FLUSH_STATE, FLUSH_STATE_MASK = _ids(
    xb.FLUSH, "port", "vlan", "state", "state_mask")
STATE_REACHABLE, STATE_NOARP, STATE_PERMANENT = (
    xb.STATE["dynamic"], xb.STATE["static"], xb.STATE["permanent"])
KIND_STATE = {None: STATE_PERMANENT, "local": STATE_PERMANENT,
              "static": STATE_NOARP, "dynamic": STATE_REACHABLE}


class XBridge(BridgeSide):
    label = "xbridge"

    def __init__(self, br, ports, br_mac):
        super().__init__(br, ports, br_mac)
        self.genl = nl.Genl("xbridge")

    def _br(self):
        return nl.u32(A_IFINDEX, self.br_ifindex)

    def bridge_set(self, opts):
        body = b"".join(_ENCODE[xb.BR[k][1]](xb.BR[k][0], v) for k, v in opts.items())
        self.genl.do(CMD_BRIDGE_SET, self._br() + nl.nest(A_BRIDGE, body))

    def link_set(self, port, flags, state):
        body = nl.u32(PORT_IFINDEX, self.port_ifindex[port])
        for k, v in flags.items():
            body += nl.u8(xb.PORT[k][0], int(v))
        if state is not None:
            body += nl.u8(PORT_STATE, state)
        self.genl.do(CMD_PORT_SET, self._br() + nl.nest(A_PORT, body))

    def _fdb_key(self, port, mac, vlan):
        body = nl.attr(FDB_MAC, nl.mac_bytes(mac))
        if vlan is not None:
            body += nl.u16(FDB_VLAN, vlan)
        return body + nl.u32(FDB_PORT, self.dev_ifindex(port))

    def fdb_change(self, cmd, mac, port, vlan, kind, sticky, extern_learn):
        flags = (xb.F_STICKY if sticky else 0) | (xb.F_EXT_LEARN if extern_learn else 0)
        body = self._fdb_key(port, mac, vlan) + nl.u16(FDB_STATE, KIND_STATE[kind])
        if flags:
            body += nl.u32(FDB_FLAGS, flags)
        # iproute2's nlmsg flags for add/append/replace, as the fdb mode.
        body += nl.u8(FDB_MODE, xb.FDB_MODE[{"add": "create"}.get(cmd, cmd)])
        self.genl.do(CMD_FDB_NEW, self._br() + nl.nest(A_FDB, body))

    def fdb_del(self, port, mac, vlan):
        self.genl.do(CMD_FDB_DEL, self._br() + nl.nest(A_FDB, self._fdb_key(port, mac, vlan)))

    def fdb_flush(self, port, vlan, kind):
        body = b""
        if port != "br":
            body += nl.u32(FLUSH_PORT, self.port_ifindex[port])
        if vlan is not None:
            body += nl.u16(FLUSH_VLAN, vlan)
        if kind:
            state, mask = xb.FLUSH_KIND[kind]
            body += nl.u16(FLUSH_STATE, state) + nl.u16(FLUSH_STATE_MASK, mask)
        self.genl.do(CMD_FDB_FLUSH, self._br() + nl.nest(A_FLUSH, body))

    def _vlan(self, port, vid, end, extra=b""):
        body = nl.u32(VLAN_PORT, self.dev_ifindex(port)) + nl.u16(VLAN_VID, vid)
        if end is not None:
            body += nl.u16(VLAN_VID_END, end)
        return self._br() + nl.nest(A_VLAN, body + extra)

    def vlan_add(self, port, vid, end, pvid, untagged):
        flags = (xb.VLAN_F_PVID if pvid else 0) | (xb.VLAN_F_UNTAGGED if untagged else 0)
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
            flags = tuple(n for bit, n in ((xb.F_EXT_LEARN, "extern_learn"),
                                           (xb.F_LOCKED, "locked"),
                                           (xb.F_STICKY, "sticky")) if f & bit)
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
            flags = ("P" if f & xb.VLAN_F_PVID else "") + ("U" if f & xb.VLAN_F_UNTAGGED else "")
            state = nl.get_u8(a[VLAN_STATE]) if VLAN_STATE in a else 3
            lo = nl.get_u16(a[VLAN_VID])
            hi = nl.get_u16(a[VLAN_VID_END]) if VLAN_VID_END in a else lo
            for vid in range(lo, hi + 1):
                out.setdefault(self.name_of[idx], []).append((vid, flags, state))
        return {p: sorted(v) for p, v in out.items()}
