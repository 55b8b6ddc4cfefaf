#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""genl_raw.py - a raw generic netlink client for the xbridge family
(netlink/xbridge.h), stdlib only, for the selftests: it can send what the
xbridge tool never would (unknown attributes, wrong lengths, VID 4095).

  genl_raw.py bridge-get BR
  genl_raw.py bridge-set BR [vlan_filtering N] [ageing_time CS] [...]
  genl_raw.py fdb-add BR MAC DEV [--vlan V] [--state permanent|static|dynamic]
                     [--sticky] [--excl | --mode replace|create|append]
                     (--excl is fdb mode create; no mode attribute by default)
  genl_raw.py fdb-del BR MAC DEV [--vlan V]
  genl_raw.py fdb-get BR MAC [--vlan V]
  genl_raw.py fdb-dump BR              (one line per entry, then "count N")
  genl_raw.py fdb-flush BR [--dev DEV] [--vlan V] [--state dynamic|static|permanent]
  genl_raw.py vlan-add|vlan-del BR DEV VID [--end E] [--pvid] [--untagged]
  genl_raw.py vlan-dump BR
  genl_raw.py port-get BR DEV
  genl_raw.py port-set BR DEV [learning 0|1] [state N] ...
  genl_raw.py ct-get|ct-del|ct-flush BR [KEY=VALUE...]   (the CT nest: l3 proto src
                     dst sport dport zone ...; addresses as IP strings)
  genl_raw.py ct-dump BR [KEY=VALUE...]  ct-stats BR
  genl_raw.py raw CMD BR HEXATTRS      (extra top-level attributes, hex TLVs)
  genl_raw.py bad KIND BR [DEV]        (a malformed request, see BAD below)
  genl_raw.py bad-header KIND BR [DEV] (a well-formed request with a header the
                     strict genetlink check refuses, see BAD_HEADER below)
  genl_raw.py monitor --count N [--seconds S] [--ready-file F]

Prints the reply (one object a line, `key=value` words) and exits 0, or
prints "error ERRNO_NAME: extack message" and exits 1.
"""
import argparse
import errno
import socket
import struct
import sys
import time

import nlsock

NLM_F_MULTI = 0x2
NLM_F_DUMP = 0x300
NLM_F_EXCL = 0x200
NLM_F_CREATE = 0x400
GENL_ID_CTRL = 0x10
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_ID = 1
CTRL_ATTR_FAMILY_NAME = 2
CTRL_ATTR_MCAST_GROUPS = 7
CTRL_ATTR_MCAST_GRP_NAME = 1
CTRL_ATTR_MCAST_GRP_ID = 2
NETLINK_ADD_MEMBERSHIP = 1
SOL_NETLINK = 270
NLMSGERR_ATTR_OFFS = 2
NLA_F_NESTED = 0x8000

# netlink/xbridge.h
CMD = dict(BRIDGE_GET=1, BRIDGE_SET=2, PORT_GET=3, PORT_SET=4, FDB_GET=5, FDB_NEW=6,
           FDB_DEL=7, FDB_FLUSH=8, VLAN_GET=9, VLAN_NEW=10, VLAN_DEL=11, VLAN_SET=12,
           CT_GET=128, CT_DEL=129, CT_FLUSH=130, CT_STATS_GET=131)
CMD_NAME = {v: k for k, v in CMD.items()}
A_IFINDEX, A_BRIDGE, A_PORT, A_FDB, A_VLAN, A_FLUSH, A_CT, A_CT_STATS = 1, 2, 3, 4, 5, 6, 8, 9
BR = dict(ifname=(1, "str"), address=(2, "mac"), vlan_filtering=(3, "u8"),
          vlan_protocol=(4, "u16"), default_pvid=(5, "u16"), ageing_time=(6, "u32"),
          fdb_max_learned=(7, "u32"), group_fwd_mask=(8, "u16"), fdb_n_learned=(9, "u32"),
          fdb_n_entries=(10, "u32"), conntrack=(11, "u8"))
PORT = dict(ifindex=(1, "u32"), ifname=(2, "str"), state=(3, "u8"), learning=(4, "u8"),
            flood=(5, "u8"), mcast_flood=(6, "u8"), bcast_flood=(7, "u8"), hairpin=(8, "u8"),
            isolated=(9, "u8"), locked=(10, "u8"), mab=(11, "u8"), neigh_suppress=(12, "u8"),
            drops=(13, "nest"))
FDB = dict(mac=(1, "mac"), vlan=(2, "u16"), port=(3, "u32"), state=(4, "u16"),
           flags=(5, "u32"), used=(6, "u32"), updated=(7, "u32"), reason=(8, "u8"),
           mode=(9, "u8"))
FDB_MODE = dict(replace=0, create=1, append=2)
VLAN = dict(port=(1, "u32"), vid=(2, "u16"), vid_end=(3, "u16"), flags=(4, "u16"),
            state=(5, "u8"), rx_packets=(6, "u64"), rx_bytes=(7, "u64"),
            tx_packets=(8, "u64"), tx_bytes=(9, "u64"))
FLUSH = dict(port=(1, "u32"), vlan=(2, "u16"), state=(3, "u16"), state_mask=(4, "u16"),
             flags=(5, "u32"), flags_mask=(6, "u32"))
CT = dict(l3=(1, "u8"), proto=(2, "u8"), src=(3, "ip"), dst=(4, "ip"), sport=(5, "u16"),
          dport=(6, "u16"), zone=(7, "u16"), reply_src=(8, "ip"), reply_dst=(9, "ip"),
          reply_sport=(10, "u16"), reply_dport=(11, "u16"), status=(12, "u32"),
          tcp_state=(13, "u8"), timeout=(14, "u32"), mark=(15, "u32"), use=(16, "u32"),
          orig_packets=(17, "u64"), orig_bytes=(18, "u64"), reply_packets=(19, "u64"),
          reply_bytes=(20, "u64"), mark_mask=(23, "u32"),
          sctp_state=(24, "u8"), dccp_state=(25, "u8"))
CT_STATS = dict(count=(1, "u32"), max_entries=(2, "u32"), buckets=(3, "u32"),
                found=(4, "u64"), invalid=(5, "u64"), insert=(6, "u64"),
                insert_failed=(7, "u64"), drop=(8, "u64"), early_drop=(9, "u64"),
                error=(10, "u64"), search_restart=(11, "u64"), clash_resolve=(12, "u64"),
                chaintoolong=(13, "u64"))
STATE = dict(dynamic=0x02, static=0x40, permanent=0x80)
STATE_NAME = {v: k for k, v in STATE.items()}
# `bridge fdb flush` state words: (XBRIDGE_FLUSH_STATE, XBRIDGE_FLUSH_STATE_MASK)
FLUSH_KIND = dict(dynamic=(0, STATE["static"] | STATE["permanent"]),
                  static=(STATE["static"], STATE["static"] | STATE["permanent"]),
                  permanent=(STATE["permanent"], STATE["permanent"]))
REASONS = ["learned", "user", "aged", "flushed", "port_removed", "vlan_removed"]
F_STICKY, F_EXT_LEARN, F_LOCKED = 1, 2, 4
VLAN_F_PVID, VLAN_F_UNTAGGED = 2, 4


NlError = nlsock.NlError


def attr(atype, payload):
    n = 4 + len(payload)
    return struct.pack("=HH", n, atype) + payload + b"\0" * ((4 - n % 4) % 4)


def nest(atype, payload):
    return attr(atype | NLA_F_NESTED, payload)


def enc(kind, value):
    if kind == "u8":
        return struct.pack("=B", value)
    if kind == "u16":
        return struct.pack("=H", value)
    if kind == "u32":
        return struct.pack("=I", value)
    if kind == "u64":
        return struct.pack("=Q", value)
    if kind == "mac":
        return bytes(int(b, 16) for b in value.split(":"))
    if kind == "str":
        return value.encode() + b"\0"
    if kind == "ip":
        fam = socket.AF_INET6 if ":" in value else socket.AF_INET
        return socket.inet_pton(fam, value).ljust(16, b"\0")
    raise ValueError(kind)


def dec(kind, data):
    if kind == "u8":
        return data[0]
    if kind == "u16":
        return struct.unpack("=H", data[:2])[0]
    if kind == "u32":
        return struct.unpack("=I", data[:4])[0]
    if kind == "u64":
        return struct.unpack("=Q", data[:8])[0]
    if kind == "mac":
        return ":".join("%02x" % b for b in data)
    if kind == "str":
        return data.rstrip(b"\0").decode()
    if kind == "ip":
        if data[4:] == bytes(12):
            return socket.inet_ntop(socket.AF_INET, data[:4])
        return socket.inet_ntop(socket.AF_INET6, data)
    return data


def parse_attrs(data):
    out = {}
    i = 0
    while i + 4 <= len(data):
        n, t = struct.unpack_from("=HH", data, i)
        if n < 4:
            break
        out[t & 0x3fff] = data[i + 4:i + n]
        i += (n + 3) & ~3
    return out


def decode(table, data):
    inv = {v[0]: (k, v[1]) for k, v in table.items()}
    out = {}
    for t, payload in parse_attrs(data).items():
        if t in inv:
            name, kind = inv[t]
            out[name] = dec(kind, payload)
    return out


class Genl(nlsock.NlSocket):
    """The xbridge family over the shared netlink socket (nlsock.py), which
    does the request/ACK/extack handling; this adds the family lookup and
    keeps each reply's command."""

    def __init__(self):
        super().__init__(nlsock.NETLINK_GENERIC)
        self.family, self.groups = self.resolve("xbridge")

    def genl_request(self, family, cmd, payload, flags=0, reserved=0):
        """[(cmd, attributes)] of the answers to one generic netlink request."""
        hdr = struct.pack("=BBH", cmd, 1, reserved)
        return [(body[0], body[4:])
                for _, body in nlsock.NlSocket.request(self, family, hdr + payload, flags)]

    def request(self, cmd, payload, flags=0, reserved=0):
        return self.genl_request(self.family, cmd, payload, flags, reserved)

    def resolve(self, name):
        msgs = self.genl_request(GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
                                 attr(CTRL_ATTR_FAMILY_NAME, enc("str", name)))
        a = parse_attrs(msgs[0][1])
        fam = dec("u16", a[CTRL_ATTR_FAMILY_ID])
        groups = {}
        for g in parse_attrs(a.get(CTRL_ATTR_MCAST_GROUPS, b"")).values():
            ga = parse_attrs(g)
            groups[dec("str", ga[CTRL_ATTR_MCAST_GRP_NAME])] = dec("u32", ga[CTRL_ATTR_MCAST_GRP_ID])
        return fam, groups


def ifindex(name):
    return socket.if_nametoindex(name)


def ifname(idx):
    try:
        return socket.if_indextoname(idx)
    except OSError:
        return str(idx)


def words(d):
    return " ".join("%s=%s" % (k, v) for k, v in d.items())


def show(cmd, body):
    a = parse_attrs(body)
    if A_BRIDGE in a:
        return words(decode(BR, a[A_BRIDGE]))
    if A_CT in a:
        return words(decode(CT, a[A_CT]))
    if A_CT_STATS in a:
        return words(decode(CT_STATS, a[A_CT_STATS]))
    if A_PORT in a:
        d = decode(PORT, a[A_PORT])
        d.pop("drops", None)
        d["ifindex"] = ifname(d["ifindex"])
        return words(d)
    if A_FDB in a:
        d = decode(FDB, a[A_FDB])
        d["port"] = ifname(d["port"])
        d["state"] = STATE_NAME.get(d["state"], d["state"])
        if "reason" in d:
            d["reason"] = REASONS[d["reason"]] if d["reason"] < len(REASONS) else d["reason"]
        return "%s %s" % (CMD_NAME.get(cmd, cmd), words(d))
    if A_VLAN in a:
        d = decode(VLAN, a[A_VLAN])
        d["port"] = ifname(d["port"])
        return "%s %s" % (CMD_NAME.get(cmd, cmd), words(d))
    return "cmd=%d" % cmd


def kv_attrs(table, items):
    out = b""
    for k, v in zip(items[::2], items[1::2]):
        t, kind = table[k]
        out += attr(t, enc(kind, int(v, 0) if kind not in ("mac", "ip") else v))
    return out


def fdb_nest(mac, dev=None, vlan=None, state=None, flags=None, mode=None):
    p = attr(FDB["mac"][0], enc("mac", mac) if isinstance(mac, str) else mac)
    if vlan is not None:
        p += attr(FDB["vlan"][0], enc("u16", vlan))
    if dev is not None:
        p += attr(FDB["port"][0], enc("u32", ifindex(dev)))
    if state is not None:
        p += attr(FDB["state"][0], enc("u16", state))
    if flags:
        p += attr(FDB["flags"][0], enc("u32", flags))
    if mode is not None:
        p += attr(FDB["mode"][0], enc("u8", FDB_MODE[mode]))
    return nest(A_FDB, p)


def br_attr(br):
    return attr(A_IFINDEX, enc("u32", ifindex(br)))


# Malformed requests the tool cannot produce: KIND -> (cmd, payload builder).
BAD = {
    # An attribute type the family does not know, at the top level.
    "unknown-attr": lambda br, dev: (CMD["BRIDGE_SET"], br_attr(br) + attr(200, enc("u32", 1))),
    # A known but read-only attribute in a request.
    "readonly-attr": lambda br, dev: (CMD["BRIDGE_SET"], br_attr(br) +
                                      nest(A_BRIDGE, attr(BR["fdb_n_entries"][0], enc("u32", 1)))),
    "vid-4095": lambda br, dev: (CMD["VLAN_NEW"], br_attr(br) + nest(
        A_VLAN, attr(VLAN["port"][0], enc("u32", ifindex(dev))) +
        attr(VLAN["vid"][0], enc("u16", 4095)))),
    "vid-0": lambda br, dev: (CMD["VLAN_NEW"], br_attr(br) + nest(
        A_VLAN, attr(VLAN["port"][0], enc("u32", ifindex(dev))) +
        attr(VLAN["vid"][0], enc("u16", 0)))),
    "fdb-vid-4095": lambda br, dev: (CMD["FDB_NEW"], br_attr(br) +
                                     fdb_nest("02:00:00:00:aa:01", dev, 4095, STATE["static"])),
    "mac-short": lambda br, dev: (CMD["FDB_NEW"], br_attr(br) +
                                  fdb_nest(b"\x02\0\0\0\xaa", dev, None, STATE["static"])),
    "fdb-vid-0": lambda br, dev: (CMD["FDB_NEW"], br_attr(br) +
                                  fdb_nest("02:00:00:00:aa:03", dev, 0, STATE["static"])),
    "mac-zero": lambda br, dev: (CMD["FDB_NEW"], br_attr(br) +
                                 fdb_nest("00:00:00:00:00:00", dev, None, STATE["static"])),
    "sticky-permanent": lambda br, dev: (CMD["FDB_NEW"], br_attr(br) + fdb_nest(
        "02:00:00:00:aa:02", dev, None, STATE["permanent"], F_STICKY)),
    "unknown-fdb-flag": lambda br, dev: (CMD["FDB_NEW"], br_attr(br) + fdb_nest(
        "02:00:00:00:aa:03", dev, None, STATE["static"], 0x100)),
    "wrong-type": lambda br, dev: (CMD["BRIDGE_SET"], br_attr(br) + nest(
        A_BRIDGE, attr(BR["ageing_time"][0], enc("u8", 1)))),
    "range-reversed": lambda br, dev: (CMD["VLAN_NEW"], br_attr(br) + nest(
        A_VLAN, attr(VLAN["port"][0], enc("u32", ifindex(dev))) +
        attr(VLAN["vid"][0], enc("u16", 20)) + attr(VLAN["vid_end"][0], enc("u16", 10)))),
    "missing-bridge": lambda br, dev: (CMD["FDB_NEW"], fdb_nest("02:00:00:00:aa:04", dev)),
    "port-other-bridge": lambda br, dev: (CMD["FDB_NEW"], br_attr(br) + fdb_nest(
        "02:00:00:00:aa:05", dev, None, STATE["static"])),
    # The fdb mode is FDB_NEW's alone.
    "fdb-del-mode": lambda br, dev: (CMD["FDB_DEL"], br_attr(br) + fdb_nest(
        "02:00:00:00:aa:06", dev, None, None, None, "create")),
    "fdb-mode-3": lambda br, dev: (CMD["FDB_NEW"], br_attr(br) + nest(
        A_FDB, attr(FDB["mac"][0], enc("mac", "02:00:00:00:aa:07")) +
        attr(FDB["port"][0], enc("u32", ifindex(dev))) + attr(FDB["mode"][0], enc("u8", 3)))),
}

# Well-formed requests whose netlink or genetlink header the strict check
# (resv_start_op) refuses: KIND -> (cmd, payload builder, nlmsg flags,
# genlmsghdr reserved). The legacy flags RTM_NEWNEIGH reads (`bridge fdb
# add` sends NLM_F_CREATE | NLM_F_EXCL) mean nothing to the family.
BAD_HEADER = {
    "nlm-excl": (lambda br, dev: (CMD["FDB_NEW"], br_attr(br) + fdb_nest(
        "02:00:00:00:aa:08", dev, None, STATE["static"])), NLM_F_CREATE | NLM_F_EXCL, 0),
    "nlm-create": (lambda br, dev: (CMD["VLAN_NEW"], br_attr(br) + nest(
        A_VLAN, attr(VLAN["port"][0], enc("u32", ifindex(dev))) +
        attr(VLAN["vid"][0], enc("u16", 300)))), NLM_F_CREATE, 0),
    "genl-reserved": (lambda br, dev: (CMD["BRIDGE_GET"], br_attr(br)), 0, 1),
}


def run(args, g):
    c = args.cmd
    if c == "bridge-get":
        return g.request(CMD["BRIDGE_GET"], br_attr(args.br))
    if c == "bridge-set":
        return g.request(CMD["BRIDGE_SET"], br_attr(args.br) + nest(A_BRIDGE, kv_attrs(BR, args.rest)))
    if c == "port-get":
        return g.request(CMD["PORT_GET"], br_attr(args.br) +
                         nest(A_PORT, attr(1, enc("u32", ifindex(args.rest[0])))))
    if c == "port-set":
        return g.request(CMD["PORT_SET"], br_attr(args.br) + nest(
            A_PORT, attr(1, enc("u32", ifindex(args.rest[0]))) + kv_attrs(PORT, args.rest[1:])))
    if c == "fdb-add":
        mac, dev = args.rest[:2]
        mode = "create" if args.excl else args.mode
        return g.request(CMD["FDB_NEW"], br_attr(args.br) + fdb_nest(
            mac, dev, args.vlan, STATE[args.state or "permanent"], F_STICKY if args.sticky else 0,
            mode))
    if c == "fdb-del":
        mac, dev = args.rest[:2]
        return g.request(CMD["FDB_DEL"], br_attr(args.br) + fdb_nest(mac, dev, args.vlan))
    if c == "fdb-get":
        return g.request(CMD["FDB_GET"], br_attr(args.br) + fdb_nest(args.rest[0], None, args.vlan))
    if c == "fdb-dump":
        return g.request(CMD["FDB_GET"], br_attr(args.br), NLM_F_DUMP)
    if c == "fdb-flush":
        p = b""
        if args.dev:
            p += attr(FLUSH["port"][0], enc("u32", ifindex(args.dev)))
        if args.vlan is not None:
            p += attr(FLUSH["vlan"][0], enc("u16", args.vlan))
        if args.state:
            state, mask = FLUSH_KIND[args.state]
            p += attr(FLUSH["state"][0], enc("u16", state))
            p += attr(FLUSH["state_mask"][0], enc("u16", mask))
        return g.request(CMD["FDB_FLUSH"], br_attr(args.br) + nest(A_FLUSH, p))
    if c in ("vlan-add", "vlan-del"):
        dev, vid = args.rest[:2]
        p = attr(VLAN["port"][0], enc("u32", ifindex(dev))) + attr(VLAN["vid"][0], enc("u16", int(vid)))
        if args.end:
            p += attr(VLAN["vid_end"][0], enc("u16", args.end))
        fl = (2 if args.pvid else 0) | (4 if args.untagged else 0)
        if fl:
            p += attr(VLAN["flags"][0], enc("u16", fl))
        cmd = CMD["VLAN_NEW"] if c == "vlan-add" else CMD["VLAN_DEL"]
        return g.request(cmd, br_attr(args.br) + nest(A_VLAN, p))
    if c == "vlan-dump":
        return g.request(CMD["VLAN_GET"], br_attr(args.br), NLM_F_DUMP)
    if c in ("ct-get", "ct-del", "ct-flush", "ct-dump"):
        cmd = dict(get="CT_GET", dump="CT_GET", flush="CT_FLUSH", delete="CT_DEL",
                   **{"del": "CT_DEL"})[c[3:]]
        p = nest(A_CT, kv_attrs(CT, args.rest)) if args.rest else b""
        return g.request(CMD[cmd], br_attr(args.br) + p, NLM_F_DUMP if c == "ct-dump" else 0)
    if c == "ct-stats":
        return g.request(CMD["CT_STATS_GET"], br_attr(args.br))
    if c == "raw":
        cmd = CMD[args.br]
        extra = args.rest[1] if len(args.rest) > 1 else ""
        return g.request(cmd, br_attr(args.rest[0]) + bytes.fromhex(extra))
    if c == "bad":
        kind, br = args.br, args.rest[0]
        dev = args.rest[1] if len(args.rest) > 1 else br
        cmd, payload = BAD[kind](br, dev)
        return g.request(cmd, payload)
    if c == "bad-header":
        kind, br = args.br, args.rest[0]
        dev = args.rest[1] if len(args.rest) > 1 else br
        build, flags, reserved = BAD_HEADER[kind]
        cmd, payload = build(br, dev)
        return g.request(cmd, payload, flags, reserved)
    raise SystemExit("unknown command " + c)


def monitor(args, g):
    g.s.setsockopt(SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, g.groups["monitor"])
    if args.ready_file:
        open(args.ready_file, "w").write("ready\n")
    print("ready", file=sys.stderr, flush=True)
    deadline = time.time() + args.seconds
    n = 0
    g.s.settimeout(0.5)
    while n < args.count and time.time() < deadline:
        try:
            data = g.s.recv(1 << 20)
        except socket.timeout:
            continue
        i = 0
        while i + 16 <= len(data):
            ln, t, f, s, _ = struct.unpack_from("=IHHII", data, i)
            body = data[i + 16:i + ln]
            i += (ln + 3) & ~3
            if t != g.family:
                continue
            if args.match and args.match not in show(body[0], body[4:]):
                continue
            print(show(body[0], body[4:]), flush=True)
            n += 1
    return n >= args.count


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cmd")
    ap.add_argument("br", nargs="?")
    ap.add_argument("rest", nargs="*")
    ap.add_argument("--vlan", type=int)
    ap.add_argument("--state")
    ap.add_argument("--sticky", action="store_true")
    ap.add_argument("--excl", action="store_true")
    ap.add_argument("--mode", choices=sorted(FDB_MODE))
    ap.add_argument("--dev")
    ap.add_argument("--end", type=int)
    ap.add_argument("--pvid", action="store_true")
    ap.add_argument("--untagged", action="store_true")
    ap.add_argument("--count", type=int, default=1)
    ap.add_argument("--seconds", type=float, default=30)
    ap.add_argument("--ready-file")
    ap.add_argument("--match", help="monitor: only lines containing this text")
    args = ap.parse_args()
    try:
        g = Genl()
        if args.cmd == "monitor":
            return 0 if monitor(args, g) else 1
        msgs = run(args, g)
    except NlError as e:
        print("error %s: %s" % (errno.errorcode.get(e.err, e.err), e.msg))
        return 1
    n = 0
    for cmd, body in msgs:
        print(show(cmd, body))
        n += 1
    if args.cmd.endswith("-dump"):
        print("count %d" % n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
