# SPDX-License-Identifier: GPL-2.0
"""ct_table.py - the conntrack differential of the conformance harness: both
bridges' connection tables, read in-process and normalised so they compare
with ==.

  Linux:   ctnetlink (NETLINK_NETFILTER, IPCTNL_MSG_CT_GET dump, every L3
           family and zone), as `conntrack -L` reads it. The table is the
           root namespace's, shared by everything in it: the harness keeps
           it to the Linux bridge's frames because lbr and xbr carry no IP
           address (a frame passed up to the IP stack is routed nowhere and
           dropped before it could be confirmed), what xbr passes up stops
           at its tc ingress (topology.sh: the namespace's IPv4 conntrack
           would otherwise move Linux's entries on with xbridge's copies)
           and IPv6 is off on every device, so nothing else sends. No filtering is applied, so a
           stray entry is a difference, not hidden.
  xbridge: the family's CT_GET dump of xbr (every zone).

A normalised row is the tuple
  (l3, proto, zone, orig, reply, tcp_state, flags, mark)
    l3        'ipv4' | 'ipv6'
    proto     'tcp' | 'udp' | 'icmp' | 'icmpv6' | the number
    orig, reply  (src, dst, sport, dport) - addresses as text; for ICMP and
              ICMPv6 ('id=N', 'type=T code=C'), for other protocols ()
    tcp_state the TCP_CONNTRACK_* name (ESTABLISHED, ...), for SCTP the
              SCTP_CONNTRACK_* name (COOKIE_WAIT, ...), for DCCP the
              CT_DCCP_* name (PARTOPEN, ...), or ''
    flags     ('ASSURED',) / ('UNREPLIED',) / both / () -
              UNREPLIED is !IPS_SEEN_REPLY, as conntrack -L prints it
    mark      the connection mark
Left out, as they cannot agree: the seconds left, the use count, the
counters and the id.

Ownership: a CtTables per run owns one NETLINK_NETFILTER socket; the
xbridge socket is the XBridge side's. Single-threaded.
"""
import socket
import struct

import genl_raw as xb
import nlsock as nl

NETLINK_NETFILTER = 12
NFNL_SUBSYS_CTNETLINK = 1
IPCTNL_MSG_CT_GET = 1
IPCTNL_MSG_CT_DELETE = 2

# enum ctattr_type / ctattr_tuple / ctattr_ip / ctattr_l4proto / ctattr_protoinfo
CTA_TUPLE_ORIG, CTA_TUPLE_REPLY, CTA_STATUS, CTA_PROTOINFO = 1, 2, 3, 4
CTA_MARK, CTA_ZONE = 8, 18
CTA_TUPLE_IP, CTA_TUPLE_PROTO = 1, 2
CTA_IP_V4_SRC, CTA_IP_V4_DST, CTA_IP_V6_SRC, CTA_IP_V6_DST = 1, 2, 3, 4
CTA_PROTO_NUM, CTA_PROTO_SRC_PORT, CTA_PROTO_DST_PORT = 1, 2, 3
CTA_PROTO_ICMP_ID, CTA_PROTO_ICMP_TYPE, CTA_PROTO_ICMP_CODE = 4, 5, 6
CTA_PROTO_ICMPV6_ID, CTA_PROTO_ICMPV6_TYPE, CTA_PROTO_ICMPV6_CODE = 7, 8, 9
CTA_PROTOINFO_TCP, CTA_PROTOINFO_TCP_STATE = 1, 1
CTA_PROTOINFO_SCTP, CTA_PROTOINFO_SCTP_STATE = 3, 1
CTA_PROTOINFO_DCCP, CTA_PROTOINFO_DCCP_STATE = 2, 1
IPS_SEEN_REPLY, IPS_ASSURED = 0x2, 0x4

TCP_STATES = ["NONE", "SYN_SENT", "SYN_RECV", "ESTABLISHED", "FIN_WAIT", "CLOSE_WAIT",
              "LAST_ACK", "TIME_WAIT", "CLOSE", "SYN_SENT2"]
SCTP_STATES = ["NONE", "CLOSED", "COOKIE_WAIT", "COOKIE_ECHOED", "ESTABLISHED",
               "SHUTDOWN_SENT", "SHUTDOWN_RECD", "SHUTDOWN_ACK_SENT", "HEARTBEAT_SENT",
               "HEARTBEAT_ACKED"]
DCCP_STATES = ["NONE", "REQUEST", "RESPOND", "PARTOPEN", "OPEN", "CLOSEREQ", "CLOSING",
               "TIMEWAIT", "IGNORE", "INVALID"]
PROTO_NAMES = {6: "tcp", 17: "udp", 1: "icmp", 58: "icmpv6", 47: "gre", 136: "udplite",
               132: "sctp", 33: "dccp"}
CT = {k: v[0] for k, v in xb.CT.items()}


def _flags(status):
    return tuple(n for n, ok in (("ASSURED", status & IPS_ASSURED),
                                 ("UNREPLIED", not status & IPS_SEEN_REPLY)) if ok)


def _l4(proto, sport, dport):
    """The layer-4 half of a tuple, as both sides key it: ports for TCP and
    UDP (and the other port protocols), id and type/code for ICMP."""
    if proto in (1, 58):
        return ("id=%d" % sport, "type=%d code=%d" % (dport >> 8, dport & 0xff))
    return (sport, dport)


# --- Linux: ctnetlink -----------------------------------------------------------

def _linux_tuple(data):
    a = nl.parse(data)
    ip = nl.parse(a.get(CTA_TUPLE_IP, b""))
    pr = nl.parse(a.get(CTA_TUPLE_PROTO, b""))
    if CTA_IP_V4_SRC in ip:
        l3, src, dst = "ipv4", socket.inet_ntop(socket.AF_INET, ip[CTA_IP_V4_SRC]), \
            socket.inet_ntop(socket.AF_INET, ip[CTA_IP_V4_DST])
    else:
        l3, src, dst = "ipv6", socket.inet_ntop(socket.AF_INET6, ip[CTA_IP_V6_SRC]), \
            socket.inet_ntop(socket.AF_INET6, ip[CTA_IP_V6_DST])
    proto = pr[CTA_PROTO_NUM][0]
    if proto == 1 and CTA_PROTO_ICMP_ID in pr:
        sport = nl.get_be16(pr[CTA_PROTO_ICMP_ID])
        dport = pr[CTA_PROTO_ICMP_TYPE][0] << 8 | pr[CTA_PROTO_ICMP_CODE][0]
    elif proto == 58 and CTA_PROTO_ICMPV6_ID in pr:
        sport = nl.get_be16(pr[CTA_PROTO_ICMPV6_ID])
        dport = pr[CTA_PROTO_ICMPV6_TYPE][0] << 8 | pr[CTA_PROTO_ICMPV6_CODE][0]
    elif CTA_PROTO_SRC_PORT in pr:
        sport, dport = nl.get_be16(pr[CTA_PROTO_SRC_PORT]), nl.get_be16(pr[CTA_PROTO_DST_PORT])
    else:
        return l3, proto, (src, dst)
    return l3, proto, (src, dst) + _l4(proto, sport, dport)


def linux_rows(sock):
    """The Linux table (every family and zone), normalised and sorted."""
    body = struct.pack("=BBH", socket.AF_UNSPEC, 0, 0)
    rows = []
    for _, msg in sock.dump((NFNL_SUBSYS_CTNETLINK << 8) | IPCTNL_MSG_CT_GET, body):
        a = nl.parse(msg[4:])
        l3, proto, orig = _linux_tuple(a[CTA_TUPLE_ORIG])
        _, _, reply = _linux_tuple(a[CTA_TUPLE_REPLY])
        status = struct.unpack("!I", a[CTA_STATUS])[0]
        state = ""
        if proto == 6 and CTA_PROTOINFO in a:
            tcp = nl.parse(nl.parse(a[CTA_PROTOINFO]).get(CTA_PROTOINFO_TCP, b""))
            if CTA_PROTOINFO_TCP_STATE in tcp:
                state = TCP_STATES[tcp[CTA_PROTOINFO_TCP_STATE][0]]
        elif proto == 132 and CTA_PROTOINFO in a:
            sctp = nl.parse(nl.parse(a[CTA_PROTOINFO]).get(CTA_PROTOINFO_SCTP, b""))
            if CTA_PROTOINFO_SCTP_STATE in sctp:
                state = SCTP_STATES[sctp[CTA_PROTOINFO_SCTP_STATE][0]]
        elif proto == 33 and CTA_PROTOINFO in a:
            dccp = nl.parse(nl.parse(a[CTA_PROTOINFO]).get(CTA_PROTOINFO_DCCP, b""))
            if CTA_PROTOINFO_DCCP_STATE in dccp:
                state = DCCP_STATES[dccp[CTA_PROTOINFO_DCCP_STATE][0]]
        zone = struct.unpack("!H", a[CTA_ZONE])[0] if CTA_ZONE in a else 0
        mark = struct.unpack("!I", a[CTA_MARK])[0] if CTA_MARK in a else 0
        rows.append((l3, PROTO_NAMES.get(proto, str(proto)), zone, orig, reply,
                     state, _flags(status), mark))
    return sorted(rows)


def flush_linux(sock):
    """`conntrack -F`: CT_DELETE without a tuple flushes every family and zone."""
    sock.request((NFNL_SUBSYS_CTNETLINK << 8) | IPCTNL_MSG_CT_DELETE,
                 struct.pack("=BBH", socket.AF_UNSPEC, 0, 0))


# --- xbridge: the family's ct dump ------------------------------------------------

def _xb_addr(l3, b):
    return socket.inet_ntop(socket.AF_INET, b[:4]) if l3 == 4 else \
        socket.inet_ntop(socket.AF_INET6, b[:16])


def xbridge_rows(genl, br_ifindex):
    """xbridge's table of @br_ifindex (every zone), normalised and sorted;
    [] while its conntrack is off."""
    rows = []
    try:
        msgs = genl.dump_cmd(xb.CMD["CT_GET"], nl.u32(xb.A_IFINDEX, br_ifindex))
    except nl.NlError:
        return rows
    for body in msgs:
        a = nl.parse(nl.parse(body).get(xb.A_CT, b""))
        l3, proto = a[CT["l3"]][0], a[CT["proto"]][0]
        tuples = []
        for pre in ("", "reply_"):
            t = (_xb_addr(l3, a[CT[pre + "src"]]), _xb_addr(l3, a[CT[pre + "dst"]]))
            if proto in (6, 17, 1, 58, 132, 136, 33, 47):
                t += _l4(proto, nl.get_u16(a[CT[pre + "sport"]]), nl.get_u16(a[CT[pre + "dport"]]))
            tuples.append(t)
        state = TCP_STATES[a[CT["tcp_state"]][0]] if proto == 6 and CT["tcp_state"] in a else ""
        if proto == 132 and CT["sctp_state"] in a:
            state = SCTP_STATES[a[CT["sctp_state"]][0]]
        if proto == 33 and CT["dccp_state"] in a:
            state = DCCP_STATES[a[CT["dccp_state"]][0]]
        rows.append(("ipv4" if l3 == 4 else "ipv6", PROTO_NAMES.get(proto, str(proto)),
                     nl.get_u16(a[CT["zone"]]) if CT["zone"] in a else 0,
                     tuples[0], tuples[1], state,
                     _flags(nl.get_u32(a[CT["status"]])),
                     nl.get_u32(a[CT["mark"]]) if CT["mark"] in a else 0))
    return sorted(rows)


def delete_xbridge(genl, br_ifindex, row):
    """Delete the connection of normalised @row from xbridge (CT_DEL by
    the original tuple and zone)."""
    l3, proto, zone, orig = row[0], row[1], row[2], row[3]
    num = {v: k for k, v in PROTO_NAMES.items()}.get(proto) or int(proto)
    af, n = (socket.AF_INET, 4) if l3 == "ipv4" else (socket.AF_INET6, 6)
    body = nl.u8(CT["l3"], n) + nl.u8(CT["proto"], num)
    for key, a in (("src", orig[0]), ("dst", orig[1])):
        body += nl.attr(CT[key], socket.inet_pton(af, a).ljust(16, b"\0"))
    if len(orig) == 4:
        if isinstance(orig[2], str):       # ICMP: id=N, type=T code=C
            sport = int(orig[2][3:])
            t, c = orig[3].split()
            dport = int(t[5:]) << 8 | int(c[5:])
        else:
            sport, dport = orig[2], orig[3]
        body += nl.u16(CT["sport"], sport) + nl.u16(CT["dport"], dport)
    body += nl.u16(CT["zone"], zone)
    genl.do(xb.CMD["CT_DEL"], nl.u32(xb.A_IFINDEX, br_ifindex) + nl.nest(xb.A_CT, body))


def flush_xbridge(genl, br_ifindex):
    try:
        genl.do(xb.CMD["CT_FLUSH"], nl.u32(xb.A_IFINDEX, br_ifindex))
    except nl.NlError:
        pass        # conntrack off: nothing to flush


# --- text -------------------------------------------------------------------------

def fmt_row(r):
    """One row as conntrack -L would print it (without the seconds)."""
    l3, proto, zone, orig, reply, state, flags, mark = r

    def tup(t):
        w = ["src=%s" % t[0], "dst=%s" % t[1]]
        if len(t) == 4 and isinstance(t[2], str):
            w += [t[2], t[3]]
        elif len(t) == 4:
            w += ["sport=%d" % t[2], "dport=%d" % t[3]]
        return " ".join(w)
    w = [l3, proto]
    if state:
        w.append(state)
    w.append(tup(orig))
    if "UNREPLIED" in flags:
        w.append("[UNREPLIED]")
    w.append(tup(reply))
    if "ASSURED" in flags:
        w.append("[ASSURED]")
    w.append("mark=%d" % mark)
    if zone:
        w.append("zone=%d" % zone)
    return " ".join(w)


def fmt_table(rows):
    return "\n".join("    " + fmt_row(r) for r in rows) or "    (empty table)"


def squash(text):
    return " ".join(text.split())


class CtTables:
    """Both tables: rows() -> (linux rows, xbridge rows)."""

    def __init__(self, xbridge_side):
        self.xb = xbridge_side
        self.sock = None

    def _sock(self):
        if not self.sock:
            self.sock = nl.NlSocket(NETLINK_NETFILTER)
        return self.sock

    def rows(self):
        return linux_rows(self._sock()), xbridge_rows(self.xb.genl, self.xb.br_ifindex)

    def delete_xbridge(self, row):
        delete_xbridge(self.xb.genl, self.xb.br_ifindex, row)

    def flush(self):
        flush_linux(self._sock())
        flush_xbridge(self.xb.genl, self.xb.br_ifindex)
