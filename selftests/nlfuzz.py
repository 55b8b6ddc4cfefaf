#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""nlfuzz.py - a seeded netlink fuzzer for the xbridge generic netlink family.

  nlfuzz.py [--seed S] [--count N] [--seconds T] [--ifindex I ...]
            [--avoid I ...] [--expect-no-change] [--batch K]
  nlfuzz.py --check BR_IFINDEX      (strict parse of every dump; exit 0/1)

The messages are generated from the family's spec, netlink/xbridge.yaml:
every operation (the nft and ct ones included), every attribute of its
request sets (nested sets recursively), with values at and past their
checks, then mutated: truncated, oversized, attributes repeated, unknown
or with flipped NLA_F_NESTED, random bytes flipped, bogus genl headers and
nlmsg flags, the same message sent again. nft-msg attributes carry
generated nf_tables messages (tables, chains, rules with expressions,
sets, elements, flowtables) mutated the same way. A run is reproducible:
the same seed gives the same messages (in the same order).

Checks, each a non-zero exit with a line on stderr: every reply is an
NLMSG_ERROR (an errno in -4095..0), an NLMSG_DONE, or a message of the
family whose attributes parse; every reply answers a request we sent;
every request asking for an ACK is answered (10 s). With
--expect-no-change (an unprivileged caller) no admin operation may
succeed. The last line: "nlfuzz: N messages in T s (R msg/s) ...".

Ownership: one process, one socket, single-threaded; messages go out in
groups of --batch per sendmsg (netlink handles them in order), with one
alone when its header lies about its length (the kernel drops the rest
of the buffer then).
"""
import argparse
import errno
import os
import random
import socket
import struct
import sys
import time

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nlsock  # noqa: E402

SPEC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "netlink", "xbridge.yaml")
NETLINK_CAP_ACK = 10
NLMSG_ERROR, NLMSG_DONE = 2, 3
NLM_F_REQUEST, NLM_F_MULTI, NLM_F_ACK, NLM_F_DUMP = 0x1, 0x2, 0x4, 0x300
NLA_F_NESTED, NLA_F_NET_BYTEORDER = 0x8000, 0x4000
NFPROTO_BRIDGE = 7


class Spec:
    """Operations and attribute sets of the YAML spec, with their numbers."""

    def __init__(self, path):
        d = yaml.safe_load(open(path))
        consts = {c["name"]: c.get("value") for c in d.get("definitions", [])}
        self.sets = {}
        for s in d["attribute-sets"]:
            attrs, val = [], 1
            for a in s["attributes"]:
                if "value" in a:
                    val = a["value"]
                attrs.append(dict(a, num=val))
                val += 1
            self.sets[s["name"]] = attrs
        self.ops, val = [], 1
        for o in d["operations"]["list"]:
            if "value" in o:
                val = o["value"]
            self.ops.append(dict(o, num=val))
            val += 1
        self.admin = {o["num"] for o in self.ops if o.get("flags")}
        self.max_cmd = max(o["num"] for o in self.ops)
        del consts


# --- nf_tables messages (linux/netfilter/nf_tables.h numbers) ---------------

NFT_NAMES = [b"t", b"filter", b"x" * 300, b"", b"c", b"s", b"ft"]
EXPRS = {
    # name: list of (attr, kind)
    b"payload": [(1, "reg"), (2, "u32s"), (3, "u32s"), (4, "u32s"), (5, "reg")],
    b"cmp": [(1, "reg"), (2, "u32s"), (3, "data")],
    b"meta": [(1, "reg"), (2, "u32s"), (3, "reg")],
    b"immediate": [(1, "reg"), (2, "data")],
    b"counter": [(1, "u64"), (2, "u64")],
    b"ct": [(1, "reg"), (2, "u32s"), (3, "u8"), (4, "reg")],
    b"lookup": [(1, "name"), (2, "reg"), (3, "reg"), (4, "u32s"), (5, "u32s")],
    b"bitwise": [(1, "reg"), (2, "reg"), (3, "u32s"), (4, "data"), (5, "data")],
    b"flow_offload": [(1, "name")],
    b"reject": [(1, "u32s"), (2, "u8")],
    b"nope": [(1, "u32s")],
}


def be32(v):
    return struct.pack("!I", v & 0xffffffff)


class NftGen:
    def __init__(self, rnd):
        self.r = rnd

    def name(self):
        return self.r.choice(NFT_NAMES) + b"\0"

    def value(self, kind):
        r = self.r
        if kind == "reg":
            return be32(r.choice([0, 1, 2, 3, 4, 5, 8, 15, 23, 24, 0xffffffff]))
        if kind == "u32s":
            return be32(r.choice([0, 1, 2, 4, 6, 12, 16, 64, 255, 0xfffffffd, 0xffffffff,
                                  r.getrandbits(32)]))
        if kind == "u64":
            return struct.pack("!Q", r.getrandbits(64))
        if kind == "u8":
            return bytes([r.getrandbits(8)])
        if kind == "name":
            return self.name()
        if kind == "data":
            if r.random() < 0.3:   # a verdict
                v = nlsock.attr(1, be32(r.choice([0, 1, 0xfffffffd, 0xfffffffc, 0xfffffffb,
                                                  0xffffffff, 7])))
                if r.random() < 0.5:
                    v += nlsock.attr(2, self.name())
                return nlsock.nest(2, v)
            return nlsock.nest(1, nlsock.attr(1, r.randbytes((r.choice([0, 1, 2, 4, 6, 16, 17, 64])))))
        return b""

    def expr(self):
        r = self.r
        name = r.choice(list(EXPRS))
        data = b"".join(nlsock.attr(a, self.value(k)) for a, k in EXPRS[name] if r.random() < 0.8)
        return nlsock.nest(1, nlsock.attr(1, name + b"\0") + nlsock.nest(2, data))

    def hook(self, flowtable=False):
        r = self.r
        parts = [nlsock.attr(1, be32(r.choice([0, 1, 2, 3, 4, 5, 99]))),
                 nlsock.attr(2, be32(r.choice([0, 0xffffff00, 100, r.getrandbits(32)])))]
        if flowtable or r.random() < 0.2:
            devs = b"".join(nlsock.attr(1, r.choice([b"xbr0", b"fz1", b"lo", b"x" * 20]) + b"\0")
                            for _ in range(r.randrange(0, 4)))
            parts.append(nlsock.nest(3, devs))
        r.shuffle(parts)
        return b"".join(parts)

    def message(self):
        """(type, flags, attrs) of one nf_tables message."""
        r = self.r
        mtype = r.choice([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 16, 18, 22, 23, 24, 26,
                          r.randrange(0, 256)])
        a = nlsock.attr
        t = a(1, self.name())
        if mtype in (0, 1, 2, 26):
            body = t + (a(2, be32(r.choice([0, 1, 2, 4]))) if r.random() < 0.3 else b"")
            if r.random() < 0.2:
                body += a(4, struct.pack("!Q", r.getrandbits(8)))
        elif mtype in (3, 4, 5):
            body = t + a(3, self.name())
            if r.random() < 0.7:
                body += nlsock.nest(4, self.hook())
                body += a(7, r.choice([b"filter", b"nat", b"route", b"bogus"]) + b"\0")
            if r.random() < 0.5:
                body += a(5, be32(r.choice([0, 1, 2, 99])))
            if r.random() < 0.2:
                body += a(10, be32(r.choice([0, 1, 4])))
        elif mtype in (6, 7, 8):
            body = t + a(2, self.name())
            exprs = b"".join(self.expr() for _ in range(r.randrange(0, 6)))
            body += nlsock.nest(4, exprs)
            if r.random() < 0.2:
                body += a(3, struct.pack("!Q", r.getrandbits(6)))
            if r.random() < 0.1:
                body += a(6, struct.pack("!Q", r.getrandbits(6)))
        elif mtype in (9, 10, 11):
            body = t + a(2, self.name())
            body += a(3, be32(r.choice([0, 1, 2, 3, 0x20, 0x100, r.getrandbits(32)])))
            body += a(4, be32(r.choice([0, 7, 13, 0xffffffff])))
            body += a(5, be32(r.choice([0, 1, 4, 6, 16, 17, 64, 65, 1 << 20])))
            if r.random() < 0.4:
                body += a(6, be32(r.choice([0, 0xffffff00, 7])))
                body += a(7, be32(r.choice([0, 4, 16, 64])))
            if r.random() < 0.3:
                body += a(10, be32(r.getrandbits(4)))
        elif mtype in (12, 13, 14):
            body = t + a(2, self.name())
            elems = b""
            for _ in range(r.randrange(0, 8)):
                e = nlsock.nest(1, nlsock.attr(1, r.randbytes((r.choice([0, 4, 6, 16, 17])))))
                if r.random() < 0.3:
                    e += nlsock.nest(2, self.value("data")[4:])
                if r.random() < 0.2:
                    e += a(3, be32(r.choice([0, 1, 2])))
                elems += nlsock.nest(1, e)
            body += nlsock.nest(3, elems)
        elif mtype in (22, 23, 24):
            body = t + a(2, self.name())
            if r.random() < 0.8:
                body += nlsock.nest(3, self.hook(True))
            if r.random() < 0.3:
                body += a(7, be32(r.choice([0, 1, 2, 0xffff])))
        else:
            body = b"".join(a(r.randrange(0, 20), r.randbytes((r.randrange(0, 12))))
                            for _ in range(r.randrange(0, 5)))
        flags = r.choice([0, 0x400, 0x200 | 0x400, 0x100, 0x800, r.getrandbits(16)])
        return mtype, flags, body


# --- the xbridge messages ----------------------------------------------------

class Gen:
    def __init__(self, spec, rnd, ifindexes, avoid):
        self.spec = spec
        self.r = rnd
        self.ifx = ifindexes or [1]
        self.avoid = set(avoid)
        self.nft = NftGen(rnd)
        self.ring = []

    def ifindex(self):
        r = self.r
        v = r.choice(self.ifx) if r.random() < 0.8 else r.choice(
            [0, 1, 0xffffffff, 0x7fffffff, r.randrange(0, 64)])
        while v in self.avoid:
            v = r.choice(self.ifx)
        return v

    def scalar(self, a, size):
        r = self.r
        checks = a.get("checks", {})
        top = (1 << (8 * size)) - 1
        cands = [0, 1, top, r.getrandbits(8 * size)]
        for key in ("max", "min"):
            if key in checks:
                cands += [checks[key], checks[key] + 1, max(checks[key] - 1, 0)]
        if "ifindex" in a["name"]:
            cands += [self.ifindex()] * 4
        if a["name"] in ("vid", "vlan", "vid-end", "default-pvid"):
            cands += [1, 10, 100, 4094, 4095, r.randrange(1, 4095)]
        if a["name"] == "ageing-time":
            cands += [0, 1, 100, 30000]
        v = r.choice(cands) & top
        return struct.pack({1: "=B", 2: "=H", 4: "=I", 8: "=Q"}[size], v)

    def payload(self, a, depth):
        r = self.r
        t = a["type"]
        if t in ("u8", "u16", "u32", "u64"):
            return self.scalar(a, {"u8": 1, "u16": 2, "u32": 4, "u64": 8}[t])
        if t == "string":
            return r.choice([b"xbr0\0", b"fz1\0", b"", b"a" * 16 + b"\0", b"no-nul",
                             r.randbytes((r.randrange(0, 40)))])
        if t == "binary":
            n = a.get("checks", {}).get("exact-len")
            if a["name"] == "attrs":            # nft-msg attrs: nf_tables attributes
                return self.nft_attrs
            if n is None or r.random() < 0.1:
                n = r.choice([0, 1, 5, 6, 7, 15, 16, 17, 64])
            b = r.randbytes((n))
            if n == 6 and r.random() < 0.7:        # a MAC: unicast, multicast, zero
                b = r.choice([b"\x02\x00\x00\x00\x00" + bytes([r.getrandbits(4)]),
                              b"\x01\x00\x5e\x00\x00\x01", b"\x00" * 6, b"\xff" * 6, b])
            return b
        if t == "nest":
            return self.attrs(a["nested-attributes"], None, depth + 1)
        if t == "pad":
            return b"\0" * r.choice([0, 4, 8])
        return b""

    def attrs(self, setname, names, depth):
        """Attributes of set SETNAME (only NAMES when given, mostly)."""
        r = self.r
        pool = self.spec.sets[setname]
        if names is not None and r.random() < 0.85:
            pool = [a for a in pool if a["name"] in names]
        out = []
        for a in pool:
            if r.random() < 0.6 or (names and a["name"] in names and r.random() < 0.8):
                if a["name"] == "nft-msg":
                    for _ in range(r.choice([1, 1, 2, 3, 5])):
                        out.append(self.nft_msg(depth))
                    continue
                atype = a["num"] | (NLA_F_NESTED if a["type"] == "nest" else 0)
                out.append(nlsock.attr(atype, self.payload(a, depth)))
        r.shuffle(out)
        return b"".join(out)

    def nft_msg(self, depth):
        mtype, flags, body = self.nft.message()
        self.nft_attrs = body
        sub = {"type": mtype, "flags": flags, "family": NFPROTO_BRIDGE}
        parts = []
        for a in self.spec.sets["nft-msg"]:
            if self.r.random() < 0.92:
                if a["name"] in sub and self.r.random() < 0.9:
                    fmt = {"u8": "=B", "u16": "=H"}[a["type"]]
                    parts.append(nlsock.attr(a["num"], struct.pack(fmt, sub[a["name"]])))
                else:
                    parts.append(nlsock.attr(a["num"], self.payload(a, depth)))
        return nlsock.nest(10 | NLA_F_NESTED, b"".join(parts))

    def request(self, op):
        """The attributes of one request for OP (do or dump)."""
        r = self.r
        kinds = [k for k in ("do", "dump") if k in op]
        kind = r.choice(kinds)
        req = (op[kind] or {}).get("request") or {}
        names = req.get("attributes", [])
        body = b""
        top = self.spec.sets[op.get("attribute-set", "xbridge")]
        for a in top:
            if a["name"] not in names and r.random() > 0.05:
                continue
            if a["name"] == "nft-msg":
                for _ in range(r.choice([1, 1, 2, 3, 8])):
                    body += self.nft_msg(0)
                continue
            if r.random() < 0.1:
                continue
            nest_names = req.get("nests", {}).get(a["name"])
            if a["type"] == "nest":
                payload = self.attrs(a["nested-attributes"], nest_names, 1)
                body += nlsock.attr(a["num"] | NLA_F_NESTED, payload)
            else:
                body += nlsock.attr(a["num"], self.payload(a, 0))
        return kind, body

    def mutate(self, body):
        """A mutated copy of BODY (the attributes) and a note of how."""
        r = self.r
        how = r.choice(["none", "none", "none", "truncate", "flip", "flip", "repeat",
                        "unknown", "nestflag", "oversize", "badlen", "zero"])
        b = bytearray(body)
        if how == "truncate" and b:
            b = b[:r.randrange(0, len(b))]
        elif how == "flip" and b:
            for _ in range(r.randrange(1, 8)):
                b[r.randrange(len(b))] ^= 1 << r.randrange(8)
        elif how == "repeat":
            b = b * r.choice([2, 3, 10])
        elif how == "unknown":
            b += nlsock.attr(r.choice([0, 11, 12, 100, 0x3fff]), r.randbytes((r.randrange(0, 9))))
        elif how == "nestflag" and len(b) >= 4:
            # Toggle NLA_F_NESTED / NLA_F_NET_BYTEORDER on the first attribute.
            t = struct.unpack_from("=H", b, 2)[0] ^ r.choice([NLA_F_NESTED, NLA_F_NET_BYTEORDER])
            struct.pack_into("=H", b, 2, t)
        elif how == "oversize":
            n = r.choice([300, 300, 4096, 65000, 65531])
            b += nlsock.attr(r.randrange(0, 12) | r.choice([0, NLA_F_NESTED]),
                             r.randbytes((min(n, 64))) * (n // 64 or 1))
        elif how == "badlen" and len(b) >= 4:
            off = 0
            struct.pack_into("=H", b, off, r.choice([0, 1, 3, 4, 5, len(b) + 4, 0xffff]))
        elif how == "zero":
            b = bytearray(len(b))
        return bytes(b), how

    def message(self, family, seq):
        """One nlmsg: (bytes, expects_reply, alone, cmd)."""
        r = self.r
        if self.ring and r.random() < 0.75:
            # Most messages: a generated one of the last 256, mutated again
            # (cheap; generating is what costs under TCG).
            cmd, kind, body = r.choice(self.ring)
        else:
            op = r.choice(self.spec.ops)
            cmd = op["num"]
            kind, body = self.request(op)
            self.ring.append((cmd, kind, body))
            if len(self.ring) > 256:
                self.ring.pop(0)
        body, how = self.mutate(body)
        version, reserved = 1, 0
        g = r.random()
        if g < 0.03:
            cmd = r.choice([0, self.spec.max_cmd + 1, 63, 66, 127, 132, 255, r.getrandbits(8)])
        elif g < 0.05:
            version = r.getrandbits(8)
        elif g < 0.07:
            reserved = r.getrandbits(16)
        flags = NLM_F_REQUEST | NLM_F_ACK
        if kind == "dump":
            flags |= NLM_F_DUMP
        f = r.random()
        if f < 0.1:
            flags |= r.choice([0x100, 0x200, 0x400, 0x800, 0x500, 0x600])
        elif f < 0.13:
            flags ^= NLM_F_DUMP
        elif f < 0.15:
            flags = (r.getrandbits(16) | NLM_F_ACK) & ~NLM_F_MULTI
        genl = struct.pack("=BBH", cmd, version, reserved)
        if r.random() < 0.02:
            genl = genl[:r.randrange(0, 4)]
            body = b""
        payload = genl + body
        length = 16 + len(payload)
        alone = False
        if r.random() < 0.01:
            # Lengths that leave no parseable tail (a tail would be read
            # as a message of its own, with a seq we never sent).
            length = r.choice([0, 15, length - 1, length - 3, length + 1, length + 4096])
            alone = True
        msg = struct.pack("=IHHII", length, family, flags, seq, 0) + payload
        return msg, alone, cmd, flags, how


# --- sending and checking ----------------------------------------------------

class Fail(Exception):
    pass


class Fuzzer:
    def __init__(self, args, spec):
        self.args = args
        self.spec = spec
        self.g = nlsock.Genl("xbridge")
        self.family = self.g.family
        self.s = self.g.s
        self.s.setsockopt(nlsock.SOL_NETLINK, NETLINK_CAP_ACK, 1)
        self.s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 23)
        self.s.settimeout(10)
        self.seq = 1 << 20
        self.errnos = {}
        self.ok_admin = 0
        self.data = 0
        self.refused = 0
        # Seqs of messages sent alone whose answer may still trail: a dump
        # goes on as the socket is read, so its last part (NLMSG_DONE) can
        # come after the settling ACK that closed the message's round.
        self.trailing = set()

    def check_attrs(self, data, what):
        i = 0
        while i < len(data):
            if i + 4 > len(data):
                raise Fail("%s: a trailing partial attribute header" % what)
            n, _ = struct.unpack_from("=HH", data, i)
            if n < 4 or i + n > len(data):
                raise Fail("%s: attribute length %d at %d of %d" % (what, n, i, len(data)))
            i += (n + 3) & ~3

    def drain(self, pending):
        """Read replies until every seq in PENDING (seq -> (cmd, flags)) is answered."""
        while any(v[2] for v in pending.values()):
            try:
                data = self.s.recv(1 << 22)
            except socket.timeout:
                left = [(s, v[0], v[1]) for s, v in pending.items() if v[2]][:5]
                raise Fail("no answer within 10 s to %d requests, e.g. (seq, cmd, flags) %s"
                           % (sum(1 for v in pending.values() if v[2]), left))
            except OSError as e:
                if e.errno == errno.ENOBUFS:
                    raise Fail("ENOBUFS: replies lost")
                raise
            i = 0
            while i < len(data):
                if i + 16 > len(data):
                    raise Fail("a partial nlmsg header in a reply")
                n, t, f, s, _ = struct.unpack_from("=IHHII", data, i)
                if n < 16 or i + n > len(data):
                    raise Fail("reply nlmsg_len %d at %d of %d" % (n, i, len(data)))
                body = data[i + 16:i + n]
                i += (n + 3) & ~3
                if s not in pending and s in self.trailing:
                    if t in (NLMSG_ERROR, NLMSG_DONE):
                        self.trailing.discard(s)
                    elif t == self.family:
                        self.check_attrs(body[4:], "a trailing reply")
                    else:
                        raise Fail("a trailing reply of type %d to seq %d" % (t, s))
                    continue
                if s not in pending:
                    raise Fail("a reply (type %d) to seq %d, never sent or already answered" % (t, s))
                cmd, flags, _ = pending[s]
                if t == NLMSG_ERROR:
                    err = struct.unpack_from("=i", body)[0]
                    if err > 0 or err < -4095:
                        raise Fail("error %d to cmd %d" % (err, cmd))
                    self.errnos[-err] = self.errnos.get(-err, 0) + 1
                    if (err == 0 and cmd in self.spec.admin and flags & NLM_F_REQUEST
                            and flags & NLM_F_DUMP != NLM_F_DUMP):
                        self.ok_admin += 1
                    del pending[s]
                elif t == NLMSG_DONE:
                    err = struct.unpack_from("=i", body)[0] if len(body) >= 4 else 0
                    if err > 0 or err < -4095:
                        raise Fail("DONE error %d to cmd %d" % (err, cmd))
                    self.errnos[-err] = self.errnos.get(-err, 0) + 1
                    del pending[s]
                elif t == self.family:
                    if len(body) < 4:
                        raise Fail("a family reply without a genl header")
                    self.check_attrs(body[4:], "reply to cmd %d" % cmd)
                    self.data += 1
                else:
                    raise Fail("reply of type %d to cmd %d" % (t, cmd))

    def run(self):
        a = self.args
        gen = Gen(self.spec, random.Random(a.seed), a.ifindex, a.avoid)
        sent = 0
        t0 = time.monotonic()
        while sent < a.count and time.monotonic() - t0 < a.seconds:
            pending = {}
            buf = []
            for _ in range(a.batch):
                self.seq += 1
                msg, alone, cmd, flags, how = gen.message(self.family, self.seq)
                if alone:
                    self.flush(buf, pending)
                    buf = []
                    # The kernel drops a lying header silently, or answers it.
                    lone = self.seq
                    pending[lone] = (cmd, flags, False)
                    if not self.send(msg):
                        self.refused += 1
                    self.drain(pending)
                    self.settle(pending)
                    if lone in pending:     # no DONE or error yet
                        self.trailing.add(lone)
                    pending = {}
                else:
                    pending[self.seq] = (cmd, flags, True)
                    buf.append(msg)
                sent += 1
                if gen.r.random() < 0.02 and not alone:   # the same message again
                    self.seq += 1
                    msg = msg[:8] + struct.pack("=I", self.seq) + msg[12:]
                    pending[self.seq] = (cmd, flags, True)
                    buf.append(msg)
                    sent += 1
            self.flush(buf, pending)
        dt = time.monotonic() - t0
        errs = " ".join("%s:%d" % (errno.errorcode.get(e, str(e)) if e else "ok", n)
                        for e, n in sorted(self.errnos.items(), key=lambda x: -x[1]))
        print("nlfuzz: %d messages in %.1f s (%.0f msg/s), seed %d; %d data replies; "
              "admin successes %d; %d too big for the socket; answers %s"
              % (sent, dt, sent / dt, a.seed, self.data, self.ok_admin, self.refused, errs))
        if a.expect_no_change and self.ok_admin:
            raise Fail("%d admin operations succeeded without the capability" % self.ok_admin)
        return sent

    def send(self, msg):
        try:
            self.s.send(msg)
            return True
        except OSError as e:
            # A message the socket refuses (too big) is not the kernel's fault.
            if e.errno not in (errno.EMSGSIZE, errno.ENOBUFS):
                raise
            return False

    def flush(self, buf, pending):
        """Send BUF's messages, in sendmsg calls of at most 128 KiB (the
        socket's send buffer bounds one call), and read their answers."""
        out, size = [], 0
        for m in buf + [None]:
            if out and (m is None or size + len(m) > 1 << 17):
                if not self.send(b"".join(out)):
                    # Refused by the socket (too big): not sent, no answer.
                    for o in out:
                        pending.pop(struct.unpack_from("=I", o, 8)[0], None)
                        self.refused += 1
                out, size = [], 0
            if m is not None:
                m += b"\0" * ((4 - len(m) % 4) % 4)
                out.append(m)
                size += len(m)
        self.drain(pending)

    def settle(self, pending):
        """After a message that may get no answer: a no-op request with an
        ACK; its answer comes after any answer to what was sent before."""
        self.seq += 1
        pending[self.seq] = (0, 0, True)
        # No genl header: EINVAL, always answered.
        self.send(struct.pack("=IHHII", 16, self.family, NLM_F_REQUEST | NLM_F_ACK, self.seq, 0))
        self.drain(pending)


def check_state(br):
    """Dump bridges, ports, FDB, VLANs, nft objects, ct; parse strictly."""
    g = nlsock.Genl("xbridge")
    ok = True
    A_IFINDEX = 1
    checks = [("bridge-get", 1, b""), ("port-get", 3, nlsock.u32(A_IFINDEX, br)),
              ("fdb-get", 5, nlsock.u32(A_IFINDEX, br)), ("vlan-get", 9, nlsock.u32(A_IFINDEX, br))]
    for t in (1, 4, 7, 10, 13, 16, 23):
        checks.append(("nft-get type %d" % t, 65, nlsock.nest(10 | NLA_F_NESTED, nlsock.u16(1, t) + nlsock.attr(3, bytes([7])))))
    for name, cmd, attrs in checks:
        try:
            msgs = g.dump_cmd(cmd, attrs)
        except nlsock.NlError as e:
            if name.startswith("nft-get type 13") or name.startswith("nft-get type 16"):
                continue   # needs a set named / not dumpable: an error is an answer
            print("check: %s: %s" % (name, e), file=sys.stderr)
            ok = False
            continue
        for m in msgs:
            i = 0
            while i < len(m):
                n, _ = struct.unpack_from("=HH", m, i)
                if n < 4 or i + n > len(m):
                    print("check: %s: bad attribute length" % name, file=sys.stderr)
                    ok = False
                    break
                i += (n + 3) & ~3
        print("check: %s: %d objects" % (name, len(msgs)))
    return ok


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--count", type=int, default=100000)
    p.add_argument("--seconds", type=float, default=600)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--ifindex", type=int, action="append", default=[])
    p.add_argument("--avoid", type=int, action="append", default=[])
    p.add_argument("--expect-no-change", action="store_true")
    p.add_argument("--check", type=int, metavar="BR_IFINDEX")
    p.add_argument("--spec", default=SPEC)
    a = p.parse_args()
    if a.check is not None:
        sys.exit(0 if check_state(a.check) else 1)
    try:
        Fuzzer(a, Spec(a.spec)).run()
    except Fail as e:
        print("nlfuzz: FAIL (seed %d): %s" % (a.seed, e), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
