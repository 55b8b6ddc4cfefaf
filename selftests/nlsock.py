# SPDX-License-Identifier: GPL-2.0
"""nlsock.py - a small netlink client (stdlib only) for the selftests
(genl_raw.py, the conformance harness): one long-lived socket per protocol,
requests with ACK, dumps, extended-ACK error messages, and attribute
packing/parsing.

Ownership: one NlSocket per (protocol, namespace) for the whole run; it is
not thread-safe (the harness is single-threaded).
"""
import errno
import os
import socket
import struct

NETLINK_ROUTE = 0
NETLINK_GENERIC = 16

NLM_F_REQUEST = 0x1
NLM_F_MULTI = 0x2
NLM_F_ACK = 0x4
NLM_F_ROOT = 0x100
NLM_F_MATCH = 0x200
NLM_F_DUMP = NLM_F_ROOT | NLM_F_MATCH
NLM_F_REPLACE = 0x100
NLM_F_EXCL = 0x200
NLM_F_CREATE = 0x400
NLM_F_APPEND = 0x800
NLM_F_BULK = 0x200          # with DELNEIGH: bulk delete (Linux 5.19+)
NLM_F_CAPPED = 0x100        # in an NLMSG_ERROR: the request was not echoed

NLMSG_ERROR = 2
NLMSG_DONE = 3

SOL_NETLINK = 270
NETLINK_EXT_ACK = 11
NETLINK_GET_STRICT_CHK = 12
NLMSGERR_ATTR_MSG = 1

NLA_F_NESTED = 0x8000
NLA_TYPE_MASK = 0x3fff

GENL_ID_CTRL = 0x10
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_ID = 1
CTRL_ATTR_FAMILY_NAME = 2


class NlError(Exception):
    """A request the kernel refused: errno and the extack message."""

    def __init__(self, err, msg=""):
        super().__init__(err, msg)
        self.err = err
        self.msg = msg

    def __str__(self):
        name = errno.errorcode.get(self.err, str(self.err))
        return "%s (%s)%s" % (name, os.strerror(self.err), ": " + self.msg if self.msg else "")


# --- attributes -------------------------------------------------------------

def attr(atype, payload=b""):
    n = 4 + len(payload)
    return struct.pack("=HH", n, atype) + payload + b"\0" * ((4 - n % 4) % 4)


def nest(atype, *parts):
    return attr(atype | NLA_F_NESTED, b"".join(parts))


def u8(atype, v):
    return attr(atype, struct.pack("=B", v))


def u16(atype, v):
    return attr(atype, struct.pack("=H", v))


def be16(atype, v):
    return attr(atype, struct.pack("!H", v))


def u32(atype, v):
    return attr(atype, struct.pack("=I", v))


def string(atype, v):
    return attr(atype, v.encode() + b"\0")


def parse(data):
    """Attributes of @data as {type: payload}; the last of a repeated type wins."""
    return {t: p for t, p in iterate(data)}


def iterate(data):
    """Attributes of @data as (type, payload) pairs, in order."""
    i = 0
    while i + 4 <= len(data):
        n, t = struct.unpack_from("=HH", data, i)
        if n < 4:
            break
        yield t & NLA_TYPE_MASK, data[i + 4:i + n]
        i += (n + 3) & ~3


def get_u8(p):
    return p[0]


def get_u16(p):
    return struct.unpack_from("=H", p)[0]


def get_be16(p):
    return struct.unpack_from("!H", p)[0]


def get_u32(p):
    return struct.unpack_from("=I", p)[0]


def get_str(p):
    return p.rstrip(b"\0").decode()


def mac_bytes(text):
    return bytes(int(b, 16) for b in text.split(":"))


def mac_text(b):
    return ":".join("%02x" % x for x in b)


# --- the socket -------------------------------------------------------------

class NlSocket:
    def __init__(self, proto):
        self.s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, proto)
        self.s.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
        self.s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
        self.s.bind((0, 0))
        self.seq = 1000

    def request(self, mtype, body, flags=0):
        """Send one request and return the bodies of its answer messages as
        (type, body) pairs; raise NlError if the kernel refused it. Every
        request asks for an ACK, so a `do` without a reply returns []."""
        self.seq += 1
        seq = self.seq
        msg = struct.pack("=IHHII", 16 + len(body), mtype,
                          NLM_F_REQUEST | NLM_F_ACK | flags, seq, 0) + body
        self.s.send(msg)
        out = []
        while True:
            data = self.s.recv(1 << 20)
            i = 0
            while i + 16 <= len(data):
                n, t, f, s, _ = struct.unpack_from("=IHHII", data, i)
                payload = data[i + 16:i + n]
                i += (n + 3) & ~3
                if s != seq:
                    continue
                if t == NLMSG_ERROR:
                    err = struct.unpack_from("=i", payload, 0)[0]
                    if err == 0:
                        # The ACK of a dump follows its DONE; of a do, ends it.
                        return out
                    olen = struct.unpack_from("=I", payload, 4)[0]
                    off = 4 + (16 if f & NLM_F_CAPPED else olen)
                    tlv = parse(payload[(off + 3) & ~3:])
                    text = tlv.get(NLMSGERR_ATTR_MSG, b"").rstrip(b"\0").decode()
                    raise NlError(-err, text)
                if t == NLMSG_DONE:
                    if not flags & NLM_F_DUMP:
                        return out
                    # A dump that failed carries its error in DONE, with
                    # the extended ack's TLVs after it.
                    err = struct.unpack_from("=i", payload, 0)[0] if len(payload) >= 4 else 0
                    if err < 0:
                        tlv = parse(payload[4:])
                        text = tlv.get(NLMSGERR_ATTR_MSG, b"").rstrip(b"\0").decode()
                        raise NlError(-err, text)
                    # A dump with NLM_F_ACK gets an ACK after DONE; some
                    # families omit it, so DONE ends the dump.
                    return out
                out.append((t, payload))

    def dump(self, mtype, body):
        return self.request(mtype, body, NLM_F_DUMP)


class Genl(NlSocket):
    """A generic netlink family by name."""

    def __init__(self, name, version=1):
        super().__init__(NETLINK_GENERIC)
        self.version = version
        hdr = struct.pack("=BBH", CTRL_CMD_GETFAMILY, 1, 0)
        msgs = NlSocket.request(self, GENL_ID_CTRL,
                                hdr + string(CTRL_ATTR_FAMILY_NAME, name))
        self.family = get_u16(parse(msgs[0][1][4:])[CTRL_ATTR_FAMILY_ID])

    def do(self, cmd, attrs, flags=0):
        hdr = struct.pack("=BBH", cmd, self.version, 0)
        return [body[4:] for _, body in
                NlSocket.request(self, self.family, hdr + attrs, flags)]

    def dump_cmd(self, cmd, attrs=b""):
        return self.do(cmd, attrs, NLM_F_DUMP)
