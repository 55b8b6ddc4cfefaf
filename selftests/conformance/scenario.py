# SPDX-License-Identifier: GPL-2.0
"""scenario.py - the scenario language of the conformance harness.

A scenario is text, one step a line; `#` starts a comment. The words of a
configuration step are iproute2's, with logical names: ports p1..p8 and `br`
for the bridge device itself. The same parsed step is applied to the Linux
bridge and to xbridge, so a scenario cannot say something to one bridge that
it does not say to the other.

    ports N                                   first line: ports p1..pN attached
    requires linux X.Y                        right after `ports`: the Linux
                                              bridge behaviour compared first
                                              appeared in X.Y; older kernels
                                              skip the scenario
    br set OPT VAL [OPT VAL]...               ip link set BR type bridge ...
        vlan_filtering 0|1, vlan_default_pvid N, ageing_time CS,
        vlan_protocol 802.1Q|802.1ad, group_fwd_mask N,
        fdb_max_learned N (Linux 6.8+; 0: no limit)
    link set dev P [learning|flood|mcast_flood|bcast_flood|hairpin|
                    isolated|locked|mab on|off]... [state 0..4]
                                              (mab: Linux 6.2+)
    fdb add|append|replace|del MAC dev P [vlan VID]
                    [local|permanent|static|dynamic] [sticky] [extern_learn]
    fdb flush dev P|br [vlan VID] [dynamic|static|permanent]
    vlan add|del vid VID[-END] dev P|br [pvid] [untagged]
    vlan set vid VID dev P state 0..4
    port del P | port add P                   ip link set P nomaster / master BR
    send P SRC DST [tag TPID:TCI]... [ipv4|ipv6|arp|eth ETHERTYPE] [len N]
                                              a frame from host P (or from br)
    age                                       every dynamic entry ages out
    expect rx P... | expect rx none           hand-written checks of the
    expect fdb MAC vlan VID P|none            step before, on both bridges

Ownership: pure data; parsing raises ScenarioError with the line number.
"""
import re
import struct

MAX_PORTS = 8
PORTS = ["p%d" % i for i in range(1, MAX_PORTS + 1)]
PORT_FLAGS = ("learning", "flood", "mcast_flood", "bcast_flood", "hairpin",
              "isolated", "locked", "mab")
BRIDGE_OPTS = ("vlan_filtering", "vlan_default_pvid", "ageing_time", "vlan_protocol",
               "group_fwd_mask", "fdb_max_learned")
VLAN_PROTOCOLS = {"802.1Q": 0x8100, "802.1ad": 0x88a8}
FDB_KINDS = ("local", "permanent", "static", "dynamic")

MAC_RE = re.compile(r"^[0-9a-f]{2}(:[0-9a-f]{2}){5}$")


class ScenarioError(Exception):
    pass


class Step:
    """One parsed line. kind is the first word(s); the rest are fields."""

    def __init__(self, kind, line, lineno, **fields):
        self.kind = kind
        self.line = line
        self.lineno = lineno
        self.__dict__.update(fields)

    def __repr__(self):
        return "%d: %s" % (self.lineno, self.line)


class Scenario:
    def __init__(self, name, nports, steps, text, requires=None):
        self.name = name
        self.nports = nports
        self.steps = steps
        self.text = text
        self.requires = requires    # (major, minor): the Linux bridge it needs, or None

    def ports(self):
        return PORTS[:self.nports]


def _int(word, lo, hi, what):
    try:
        v = int(word, 0)
    except ValueError:
        raise ScenarioError("%s: not a number: %r" % (what, word))
    if not lo <= v <= hi:
        raise ScenarioError("%s %d out of range %d..%d" % (what, v, lo, hi))
    return v


def _onoff(word, what):
    if word not in ("on", "off"):
        raise ScenarioError("%s wants on|off, not %r" % (what, word))
    return word == "on"


def _mac(word):
    if not MAC_RE.match(word):
        raise ScenarioError("not a MAC address: %r" % word)
    return word


class _Words:
    def __init__(self, words):
        self.w = list(words)
        self.i = 0

    def more(self):
        return self.i < len(self.w)

    def peek(self):
        return self.w[self.i] if self.more() else None

    def next(self, what="a word"):
        if not self.more():
            raise ScenarioError("missing %s" % what)
        self.i += 1
        return self.w[self.i - 1]


def _port(word, nports, allow_br=True):
    if word == "br" and allow_br:
        return word
    if word in PORTS[:nports]:
        return word
    raise ScenarioError("unknown port %r (ports are p1..p%d%s)"
                        % (word, nports, " and br" if allow_br else ""))


def parse_step(line, lineno, nports):
    w = _Words(line.split())
    verb = w.next()
    if verb == "br":
        if w.next() != "set":
            raise ScenarioError("br: only `br set`")
        opts = {}
        while w.more():
            k = w.next()
            if k not in BRIDGE_OPTS:
                raise ScenarioError("unknown bridge option %r" % k)
            v = w.next("value of " + k)
            if k == "vlan_protocol":
                if v not in VLAN_PROTOCOLS:
                    raise ScenarioError("vlan_protocol is 802.1Q or 802.1ad")
                opts[k] = VLAN_PROTOCOLS[v]
            elif k == "vlan_filtering":
                opts[k] = _int(v, 0, 1, k)
            elif k == "vlan_default_pvid":
                opts["default_pvid"] = _int(v, 0, 4095, k)
            elif k == "ageing_time":
                opts[k] = _int(v, 0, 100000000, k)
            elif k == "fdb_max_learned":
                opts[k] = _int(v, 0, 0xffffffff, k)
            else:
                opts[k] = _int(v, 0, 0xffff, k)
        if not opts:
            raise ScenarioError("br set: no option")
        return Step("br set", line, lineno, opts=opts)
    if verb == "link":
        if w.next() != "set" or w.next() != "dev":
            raise ScenarioError("link: `link set dev P ...`")
        port = _port(w.next("port"), nports, allow_br=False)
        flags, state = {}, None
        while w.more():
            k = w.next()
            if k == "state":
                state = _int(w.next("state"), 0, 4, "state")
            elif k in PORT_FLAGS:
                flags[k] = _onoff(w.next("on|off"), k)
            else:
                raise ScenarioError("unknown port flag %r" % k)
        return Step("link set", line, lineno, port=port, flags=flags, state=state)
    if verb == "fdb":
        cmd = w.next("fdb command")
        if cmd == "flush":
            if w.next() != "dev":
                raise ScenarioError("fdb flush dev P|br ...")
            port = _port(w.next("port"), nports)
            vlan, kind = None, None
            while w.more():
                k = w.next()
                if k == "vlan":
                    vlan = _int(w.next("vid"), 0, 4095, "vlan")
                elif k in ("dynamic", "static", "permanent"):
                    kind = k
                else:
                    raise ScenarioError("fdb flush: unknown word %r" % k)
            return Step("fdb flush", line, lineno, port=port, vlan=vlan, fkind=kind)
        if cmd not in ("add", "append", "replace", "del"):
            raise ScenarioError("unknown fdb command %r" % cmd)
        mac = _mac(w.next("MAC"))
        if w.next() != "dev":
            raise ScenarioError("fdb %s MAC dev P ..." % cmd)
        port = _port(w.next("port"), nports)
        vlan, kind, sticky, ext = None, None, False, False
        while w.more():
            k = w.next()
            if k == "vlan":
                vlan = _int(w.next("vid"), 0, 4095, "vlan")
            elif k in FDB_KINDS:
                kind = "local" if k == "permanent" else k
            elif k == "sticky":
                sticky = True
            elif k == "extern_learn":
                ext = True
            elif k == "master":
                pass
            else:
                raise ScenarioError("fdb: unknown word %r" % k)
        return Step("fdb " + cmd, line, lineno, mac=mac, port=port, vlan=vlan,
                    fkind=kind, sticky=sticky, extern_learn=ext)
    if verb == "vlan":
        cmd = w.next("vlan command")
        if cmd not in ("add", "del", "set"):
            raise ScenarioError("unknown vlan command %r" % cmd)
        if w.next() != "vid":
            raise ScenarioError("vlan %s vid VID ..." % cmd)
        vw = w.next("vid")
        lo, _, hi = vw.partition("-")
        vid = _int(lo, 0, 4095, "vid")
        end = _int(hi, 0, 4095, "vid end") if hi else None
        if w.next() != "dev":
            raise ScenarioError("vlan %s vid VID dev P ..." % cmd)
        port = _port(w.next("port"), nports)
        pvid = untagged = False
        state = None
        while w.more():
            k = w.next()
            if k == "pvid" and cmd == "add":
                pvid = True
            elif k == "untagged" and cmd == "add":
                untagged = True
            elif k == "state" and cmd == "set":
                state = _int(w.next("state"), 0, 4, "state")
            elif k in ("self", "master"):
                pass
            else:
                raise ScenarioError("vlan %s: unknown word %r" % (cmd, k))
        if cmd == "set" and state is None:
            raise ScenarioError("vlan set: state N")
        return Step("vlan " + cmd, line, lineno, vid=vid, end=end, port=port,
                    pvid=pvid, untagged=untagged, state=state)
    if verb == "port":
        cmd = w.next()
        if cmd not in ("add", "del"):
            raise ScenarioError("port add|del P")
        port = _port(w.next("port"), nports, allow_br=False)
        return Step("port " + cmd, line, lineno, port=port)
    if verb == "send":
        port = _port(w.next("port"), nports)
        src = _mac(w.next("source MAC"))
        dst = _mac(w.next("destination MAC"))
        tags, payload, ethertype, length = [], "eth", 0x88b5, 0
        while w.more():
            k = w.next()
            if k == "tag":
                tpid, _, tci = w.next("TPID:TCI").partition(":")
                tags.append((_int("0x" + tpid, 0, 0xffff, "tpid"),
                             _int(tci, 0, 0xffff, "tci")))
            elif k in ("ipv4", "ipv6", "arp"):
                payload = k
            elif k == "eth":
                payload = "eth"
                ethertype = _int(w.next("ethertype"), 0x600, 0xffff, "ethertype")
            elif k == "len":
                length = _int(w.next("length"), 0, 1400, "len")
            else:
                raise ScenarioError("send: unknown word %r" % k)
        return Step("send", line, lineno, port=port, src=src, dst=dst, tags=tags,
                    payload=payload, ethertype=ethertype, length=length)
    if verb == "age":
        return Step("age", line, lineno)
    if verb == "expect":
        what = w.next("rx|fdb")
        if what == "rx":
            ports = [] if w.peek() == "none" else None
            if ports is not None:
                w.next()
            else:
                ports = [_port(x, nports) for x in w.w[w.i:]]
                w.i = len(w.w)
                if not ports:
                    raise ScenarioError("expect rx P... | none")
            return Step("expect rx", line, lineno, ports=sorted(ports))
        if what == "fdb":
            mac = _mac(w.next("MAC"))
            if w.next() != "vlan":
                raise ScenarioError("expect fdb MAC vlan VID P|none")
            vid = _int(w.next("vid"), 0, 4095, "vlan")
            p = w.next("port")
            return Step("expect fdb", line, lineno, mac=mac, vid=vid,
                        port=None if p == "none" else _port(p, nports))
        raise ScenarioError("expect rx|fdb")
    raise ScenarioError("unknown step %r" % verb)


def parse(text, name="scenario"):
    steps, nports, requires = [], None, None
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        try:
            if nports is None:
                w = line.split()
                if len(w) != 2 or w[0] != "ports":
                    raise ScenarioError("the first step is `ports N`")
                nports = _int(w[1], 1, MAX_PORTS, "ports")
                continue
            w = line.split()
            if w[0] == "requires":
                # `requires linux X.Y`: the Linux bridge behaviour the
                # scenario compares first appeared in X.Y; older kernels skip it.
                if len(w) != 3 or w[1] != "linux" or steps:
                    raise ScenarioError("`requires linux X.Y` comes right after `ports`")
                major, _, minor = w[2].partition(".")
                requires = (_int(major, 2, 99, "major"), _int(minor or "0", 0, 99, "minor"))
                continue
            steps.append(parse_step(line, lineno, nports))
        except ScenarioError as e:
            raise ScenarioError("%s:%d: %s" % (name, lineno, e))
    if nports is None:
        raise ScenarioError("%s: empty scenario" % name)
    return Scenario(name, nports, steps, text, requires)


# --- frames -------------------------------------------------------------------

def _csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def build_frame(step, marker):
    """The bytes of a `send` step. @marker (bytes) ends the payload, so the
    harness can tell its frames, and which step sent them, from any other."""
    b = bytes(int(x, 16) for x in step.dst.split(":"))
    b += bytes(int(x, 16) for x in step.src.split(":"))
    for tpid, tci in step.tags:
        b += struct.pack("!HH", tpid, tci)
    body = marker + b"\0" * step.length
    if step.payload == "ipv4":
        udp = struct.pack("!HHHH", 4000, 4001, 8 + len(body), 0) + body
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 1, 0, 64, 17, 0,
                         bytes([192, 0, 2, 1]), bytes([192, 0, 2, 2]))
        ip = ip[:10] + struct.pack("!H", _csum(ip)) + ip[12:]
        b += struct.pack("!H", 0x0800) + ip + udp
    elif step.payload == "ipv6":
        udp = struct.pack("!HHHH", 4000, 4001, 8 + len(body), 0) + body
        b += struct.pack("!H", 0x86dd)
        b += struct.pack("!IHBB", 0x60000000, len(udp), 17, 64)
        b += bytes.fromhex("20010db8000000000000000000000001")
        b += bytes.fromhex("20010db8000000000000000000000002") + udp
    elif step.payload == "arp":
        src = bytes(int(x, 16) for x in step.src.split(":"))
        b += struct.pack("!HHHBBH", 0x0806, 1, 0x0800, 6, 4, 1)
        b += src + bytes([192, 0, 2, 1]) + b"\0" * 6 + bytes([192, 0, 2, 2]) + body
    else:
        b += struct.pack("!H", step.ethertype) + body
    return b
