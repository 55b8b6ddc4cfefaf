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
    link set dev P up|down                    ip link set P up|down: the port's
                                              own device (the bridge disables
                                              the port, and enables it again)
    fdb add|append|replace|del MAC dev P [vlan VID]
                    [local|permanent|static|dynamic] [sticky] [extern_learn]
    fdb flush dev P|br [vlan VID] [dynamic|static|permanent]
    vlan add|del vid VID[-END] dev P|br [pvid] [untagged]
    vlan set vid VID dev P state 0..4
    port del P | port add P                   ip link set P nomaster / master BR
    send P SRC DST [tag TPID:TCI]... [ipv4 [A B]|ipv6 [A B]|arp|eth ETHERTYPE]
               [udp SPORT DPORT|tcp SPORT DPORT FLAGS [seq N] [ack N]|icmp TYPE
                |gre [pptp CALLID|v1 PROTO]
                |udplite SPORT DPORT [cscov N] [csum rfc|linux|none]
                |sctp SPORT DPORT VTAG CHUNK[,CHUNK...] [crc bad]
                |dccp SPORT DPORT TYPE SEQ ACK [nox] [cut] [doff N] [cscov N]
                      [csum rfc|linux|bad]]
               [len N] [win N] [frag N]       a frame from host P (or from br)
               [wscale N] [sackok] [mss N] [sack L R]
        ipv4/ipv6 alone carry UDP 4000 -> 4001 without checksum; A B are
        the addresses (default 192.0.2.1 192.0.2.2, 2001:db8::1 2001:db8::2).
        udp/tcp/icmp (ipv4 unless ipv6 is given) carry correct checksums;
        FLAGS are letters of FSRPAU (e.g. S, SA, A, PA, FA, R); icmp TYPE is
        a number or echo-request|echo-reply (ICMPv6 under ipv6). TCP seq and
        ack follow the connection when not given: each direction of a
        (addresses, ports) flow starts at 1000 + its source port and moves on
        by the payload (8 marker bytes + len) plus SYN and FIN; ack is the
        other direction's next seq when A is set. gre is plain GRE (version
        0, IPv4 payload); `gre pptp CALLID` PPTP's enhanced GRE (version 1,
        PPP) with that call ID; `gre v1 PROTO` version 1 carrying another
        protocol (nf_conntrack_proto_gre finds no tuple). udplite is
        UDP-Lite with checksum coverage N (default 0: all) and its checksum
        as RFC 3828 makes it (rfc, the default), as Linux's conntrack
        verifies it (linux: protocol 17 in the pseudo-header and, for IPv4,
        17 + length mod 256 as its length word), or none. sctp is an SCTP
        packet with verification tag VTAG carrying the chunks named, in
        order: init:TAG, init-ack:TAG (TAG: the initiate tag), cookie-echo,
        cookie-ack, data, sack, heartbeat, heartbeat-ack, shutdown,
        shutdown-ack, shutdown-complete, abort, error; `:t` after abort or
        shutdown-complete sets the T bit, `:zero` after any other gives it
        length 0. The last chunk carries the marker (and len) in its value.
        Its CRC32c is correct unless `crc bad`. dccp is a DCCP packet of
        TYPE (request, response, data, ack, dataack, closereq, close, reset,
        sync, syncack, or a number 0-15) with sequence number SEQ and, for
        the types that carry one, acknowledgement number ACK (both 48-bit);
        `nox` sends the short form (X clear, 24-bit SEQ and ACK), `cut`
        leaves out the type's own header part (acknowledgement, service
        code, reset code: a header cut short); the marker (and len) follow
        the header. doff N sets the data offset (default: the header's
        length), cscov N the checksum coverage field (default 0: all); its
        checksum is as RFC 4340 makes it (rfc,
        the default), as Linux's conntrack verifies it (linux: for IPv4 the
        length word 33 + length mod 256) or wrong (bad). `win N` is the TCP
        window (default 64240). TCP options go in the order written,
        padded with NOPs to a multiple of 4 bytes (not with `frag`):
        `wscale N` (window scale), `sackok` (SACK permitted), `mss N`,
        `sack L R` (one SACK block, absolute sequence numbers); without
        them the header is 20 bytes.
        `frag N` sends an IPv4 packet as N fragments of equal size (a
        multiple of 8, at least 32 bytes; the payload is the marker
        repeated, so every fragment carries one).
        icmp ERROR (unreach-port, unreach-host, unreach-net, frag-needed,
        ttl-exceeded, param-problem; under ipv6 their ICMPv6 counterparts)
        is an ICMP error that embeds the IP header and first 8 layer-4
        bytes of the scenario's previous udp/tcp/icmp/... send of the same IP
        version; its addresses default to that packet's, reversed.
    ct flush                                  conntrack -F on Linux, `xbridge
                                              ct flush` on xbridge
    expect ct count N | expect ct none        both conntrack tables (equal
    expect ct has TEXT...                     after every step anyway) have
                                              N rows / a row whose text (as
                                              ct_table.fmt_row prints it,
                                              e.g. `tcp ESTABLISHED src=...`)
                                              contains TEXT
    age                                       every dynamic entry ages out
    nft COMMAND...                            one nft command line: `nft ...`
        on the Linux side (libnftables, what the nft tool runs), `xnft ...`
        on the xbridge side; both must succeed or both fail. The whole words
        p1..p8 and br (also inside quotes, sets and maps: "p1", {p1,p2}) are
        rewritten to each side's devices (lp1/xp1, lbr/xbr); `@br`/`$br` are
        not. While a scenario has nft steps, the harness compares both
        `list ruleset` outputs (device names mapped back) at its end.
    expect rx P... | expect rx none           hand-written checks of the
    expect fdb MAC vlan VID P|none            step before, on both bridges
    expect counters                           `nft list ruleset` and `xnft list
                                              ruleset` (names mapped back to
                                              p1../br) are equal: every
                                              counter's packets and bytes
    expect listed TEXT...                     ... and contain TEXT (whitespace
                                              runs count as one space)

Ownership: pure data; parsing raises ScenarioError with the line number.
"""
import re
import socket
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
TCP_FLAGS = {"F": 0x01, "S": 0x02, "R": 0x04, "P": 0x08, "A": 0x10, "U": 0x20}
ICMP_TYPES = {"echo-request": 8, "echo-reply": 0}
# ICMP errors: word -> ((type, code) for ICMP, (type, code) for ICMPv6)
ICMP_ERRORS = {"unreach-net": ((3, 0), (1, 0)), "unreach-host": ((3, 1), (1, 3)),
               "unreach-port": ((3, 3), (1, 4)), "frag-needed": ((3, 4), (2, 0)),
               "ttl-exceeded": ((11, 0), (3, 0)), "param-problem": ((12, 0), (4, 0))}
TCP_WINDOW = 64240
DEFAULT_ADDRS = {"ipv4": ("192.0.2.1", "192.0.2.2"),
                 "ipv6": ("2001:db8::1", "2001:db8::2")}
MARKER_LEN = 8          # capture.marker(): every frame's payload starts with it


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


SCTP_CHUNKS = {"data": 0, "init": 1, "init-ack": 2, "sack": 3, "heartbeat": 4,
               "heartbeat-ack": 5, "abort": 6, "shutdown": 7, "shutdown-ack": 8,
               "error": 9, "cookie-echo": 10, "cookie-ack": 11, "shutdown-complete": 14}


def _sctp_chunk_word(word):
    """One chunk of an sctp send: (type, flags, initiate tag or None,
    zero length)."""
    name, _, arg = word.partition(":")
    if name not in SCTP_CHUNKS:
        raise ScenarioError("sctp: unknown chunk %r" % name)
    typ = SCTP_CHUNKS[name]
    if name in ("init", "init-ack"):
        return (typ, 0, _int(arg, 0, 0xffffffff, "initiate tag"), False)
    if arg == "t" and name in ("abort", "shutdown-complete"):
        return (typ, 1, None, False)
    if arg == "zero":
        return (typ, 0, None, True)
    if arg:
        raise ScenarioError("sctp: %r takes no %r" % (name, arg))
    return (typ, 3 if name == "data" else 0, None, False)


DCCP_TYPES = {"request": 0, "response": 1, "data": 2, "ack": 3, "dataack": 4, "closereq": 5,
              "close": 6, "reset": 7, "sync": 8, "syncack": 9}


def _dccp_type_len(typ):
    """The bytes of a DCCP type's own header part after the generic
    header (RFC 4340 5.2-5.6; reserved types as Linux reads them, 12)."""
    if typ == 2:
        return 0
    if typ == 0:
        return 4
    if typ in (3, 4, 5, 6, 8, 9):
        return 8
    return 12


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


def _addr(family, word):
    """@word as an address of @family ('ipv4'|'ipv6'), normalised; else None."""
    try:
        af = socket.AF_INET if family == "ipv4" else socket.AF_INET6
        return socket.inet_ntop(af, socket.inet_pton(af, word))
    except (OSError, ValueError):
        return None


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
        if w.peek() in ("up", "down"):
            up = w.next() == "up"
            if w.more():
                raise ScenarioError("link set dev P up|down: nothing more")
            return Step("link updown", line, lineno, port=port, up=up)
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
        addrs, l4, seq, ack = None, None, None, None
        win, frags, icmp_error = TCP_WINDOW, 1, None
        tcpopts = b""
        while w.more():
            k = w.next()
            if k == "tag":
                tpid, _, tci = w.next("TPID:TCI").partition(":")
                tags.append((_int("0x" + tpid, 0, 0xffff, "tpid"),
                             _int(tci, 0, 0xffff, "tci")))
            elif k in ("ipv4", "ipv6"):
                payload = k
                if w.peek() and _addr(k, w.peek()):
                    addrs = (_addr(k, w.next()), _addr(k, w.next("destination address")))
                    if not addrs[1]:
                        raise ScenarioError("%s: two addresses, SRC DST" % k)
            elif k == "arp":
                payload = k
            elif k == "eth":
                payload = "eth"
                ethertype = _int(w.next("ethertype"), 0x600, 0xffff, "ethertype")
            elif k in ("udp", "tcp"):
                sp = _int(w.next("source port"), 0, 0xffff, "port")
                dp = _int(w.next("destination port"), 0, 0xffff, "port")
                flags = 0
                if k == "tcp":
                    fw = w.next("TCP flags")
                    for c in fw:
                        if c not in TCP_FLAGS:
                            raise ScenarioError("TCP flags are letters of FSRPAU, not %r" % fw)
                        flags |= TCP_FLAGS[c]
                l4 = (k, sp, dp, flags)
            elif k == "udplite":
                sp = _int(w.next("source port"), 0, 0xffff, "port")
                dp = _int(w.next("destination port"), 0, 0xffff, "port")
                cscov, how = 0, "rfc"
                while w.peek() in ("cscov", "csum"):
                    if w.next() == "cscov":
                        cscov = _int(w.next("coverage"), 0, 0xffff, "cscov")
                    else:
                        how = w.next("rfc|linux|none")
                        if how not in ("rfc", "linux", "none"):
                            raise ScenarioError("udplite csum: rfc, linux or none")
                l4 = ("udplite", sp, dp, (cscov, how))
            elif k == "sctp":
                sp = _int(w.next("source port"), 0, 0xffff, "port")
                dp = _int(w.next("destination port"), 0, 0xffff, "port")
                vtag = _int(w.next("verification tag"), 0, 0xffffffff, "vtag")
                chunks = [_sctp_chunk_word(c) for c in w.next("chunks").split(",")]
                good = True
                if w.peek() == "crc":
                    w.next()
                    if w.next("bad") != "bad":
                        raise ScenarioError("sctp: crc bad")
                    good = False
                l4 = ("sctp", sp, dp, (vtag, tuple(chunks), good))
            elif k == "dccp":
                sp = _int(w.next("source port"), 0, 0xffff, "port")
                dp = _int(w.next("destination port"), 0, 0xffff, "port")
                tw = w.next("DCCP type")
                typ = DCCP_TYPES[tw] if tw in DCCP_TYPES else _int(tw, 0, 15, "DCCP type")
                dseq = _int(w.next("sequence number"), 0, (1 << 48) - 1, "seq")
                dack = _int(w.next("acknowledgement number"), 0, (1 << 48) - 1, "ack")
                x, doff, cscov, how = True, None, 0, "rfc"
                while w.peek() in ("nox", "cut", "doff", "cscov", "csum"):
                    o = w.next()
                    if o == "nox":
                        x = False
                    elif o == "cut":
                        typ |= 0x100
                    elif o == "doff":
                        doff = _int(w.next("data offset"), 0, 255, "doff")
                    elif o == "cscov":
                        cscov = _int(w.next("coverage"), 0, 15, "cscov")
                    else:
                        how = w.next("rfc|linux|bad")
                        if how not in ("rfc", "linux", "bad"):
                            raise ScenarioError("dccp csum: rfc, linux or bad")
                l4 = ("dccp", sp, dp, (typ, dseq, dack, x, doff, cscov, how))
            elif k == "gre":
                version, proto, call_id = 0, 0x0800, 0
                if w.peek() == "pptp":
                    w.next()
                    version, proto = 1, 0x880b
                    call_id = _int(w.next("call ID"), 0, 0xffff, "call ID")
                elif w.peek() == "v1":
                    w.next()
                    version, proto = 1, _int(w.next("GRE protocol"), 0, 0xffff, "GRE protocol")
                l4 = ("gre", version, proto, call_id)
            elif k == "icmp":
                t = w.next("ICMP type")
                if t in ICMP_ERRORS:
                    icmp_error = t
                    l4 = ("icmp", 0, 0, 0)
                else:
                    l4 = ("icmp", ICMP_TYPES[t] if t in ICMP_TYPES else _int(t, 0, 255, "icmp type"),
                          0, 0)
            elif k == "win":
                win = _int(w.next("window"), 0, 0xffff, "win")
            elif k == "frag":
                frags = _int(w.next("fragments"), 2, 8, "frag")
            elif k == "wscale":
                tcpopts += struct.pack("!BBB", 3, 3, _int(w.next("shift"), 0, 255, "wscale"))
            elif k == "sackok":
                tcpopts += struct.pack("!BB", 4, 2)
            elif k == "mss":
                tcpopts += struct.pack("!BBH", 2, 4, _int(w.next("mss"), 0, 0xffff, "mss"))
            elif k == "sack":
                tcpopts += struct.pack("!BBII", 5, 10,
                                       _int(w.next("left edge"), 0, 0xffffffff, "sack"),
                                       _int(w.next("right edge"), 0, 0xffffffff, "sack"))
            elif k in ("seq", "ack"):
                v = _int(w.next(k), 0, 0xffffffff, k)
                if k == "seq":
                    seq = v
                else:
                    ack = v
            elif k == "len":
                length = _int(w.next("length"), 0, 1400, "len")
            else:
                raise ScenarioError("send: unknown word %r" % k)
        if l4 and payload not in ("ipv4", "ipv6"):
            if payload != "eth" or ethertype != 0x88b5:
                raise ScenarioError("send: %s goes over ipv4 or ipv6" % l4[0])
            payload = "ipv4"
        if (seq is not None or ack is not None or tcpopts) and not (l4 and l4[0] == "tcp"):
            raise ScenarioError("send: seq/ack and TCP options are for tcp")
        if tcpopts and frags > 1:
            raise ScenarioError("send: TCP options and frag N do not go together")
        if len(tcpopts) > 40:
            raise ScenarioError("send: more than 40 bytes of TCP options")
        tcpopts += b"\x01" * (-len(tcpopts) % 4)
        if frags > 1 and (payload != "ipv4" or not l4 or icmp_error or l4[0] in ("sctp", "dccp")):
            raise ScenarioError("send: frag N is for an ipv4 udp/tcp/icmp packet")
        if addrs is None and not icmp_error:
            addrs = DEFAULT_ADDRS[payload] if payload in DEFAULT_ADDRS else None
        return Step("send", line, lineno, port=port, src=src, dst=dst, tags=tags,
                    payload=payload, ethertype=ethertype, length=length,
                    addrs=addrs, l4=l4, seq=seq, ack=ack, win=win, frags=frags,
                    icmp_error=icmp_error, embed=None, tcpopts=tcpopts)
    if verb == "ct":
        if w.next("flush") != "flush" or w.more():
            raise ScenarioError("ct: only `ct flush`")
        return Step("ct flush", line, lineno)
    if verb == "nft":
        cmd = line.split(None, 1)[1] if len(line.split(None, 1)) > 1 else ""
        if not cmd:
            raise ScenarioError("nft: a command")
        return Step("nft", line, lineno, cmd=cmd)
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
        if what == "ct":
            how = w.next("count|none|has")
            if how == "none" and not w.more():
                return Step("expect ct", line, lineno, count=0, text=None)
            if how == "count":
                n = _int(w.next("count"), 0, 100000, "count")
                if w.more():
                    raise ScenarioError("expect ct count N")
                return Step("expect ct", line, lineno, count=n, text=None)
            if how == "has" and w.more():
                return Step("expect ct", line, lineno, count=None, text=" ".join(w.w[w.i:]))
            raise ScenarioError("expect ct count N | none | has TEXT")
        if what == "counters":
            if w.more():
                raise ScenarioError("expect counters: no more words")
            return Step("expect counters", line, lineno)
        if what == "listed":
            text = " ".join(w.w[w.i:])
            if not text:
                raise ScenarioError("expect listed TEXT")
            return Step("expect listed", line, lineno, text=text)
        raise ScenarioError("expect rx|fdb|ct|counters|listed")
    raise ScenarioError("unknown step %r" % verb)


def _tcp_numbers(step, nxt):
    """Fill in a TCP segment's seq and ack (the docstring's rule) and move
    its direction's next seq on."""
    _, sp, dp, flags = step.l4
    key = (step.addrs[0], step.addrs[1], sp, dp)
    back = (step.addrs[1], step.addrs[0], dp, sp)
    if step.seq is None:
        step.seq = nxt.get(key, 1000 + sp)
    if step.ack is None:
        step.ack = nxt.get(back, 1000 + dp) if flags & TCP_FLAGS["A"] else 0
    grow = body_len(step) + (1 if flags & TCP_FLAGS["S"] else 0) + \
        (1 if flags & TCP_FLAGS["F"] else 0)
    nxt[key] = (step.seq + grow) & 0xffffffff


def parse(text, name="scenario"):
    steps, nports, requires = [], None, None
    tcp_next = {}           # (src, dst, sport, dport) -> the next seq that way
    last_ip = {}            # 'ipv4'|'ipv6' -> the last udp/tcp/icmp send step
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
            step = parse_step(line, lineno, nports)
            if step.kind == "send" and step.icmp_error:
                step.embed = last_ip.get(step.payload)
                if not step.embed:
                    raise ScenarioError("icmp %s: no earlier %s udp/tcp/icmp send to embed"
                                        % (step.icmp_error, step.payload))
                if step.addrs is None:
                    step.addrs = (step.embed.addrs[1], step.embed.addrs[0])
            if step.kind == "send" and step.l4 and step.l4[0] == "tcp":
                _tcp_numbers(step, tcp_next)
            if step.kind == "send" and step.l4:
                last_ip[step.payload] = step
            steps.append(step)
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


def _crc32c_table():
    t = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ (0x82f63b78 if c & 1 else 0)
        t.append(c)
    return t


CRC32C = _crc32c_table()


def crc32c(data):
    """SCTP's CRC32c (RFC 9260 appendix A)."""
    c = 0xffffffff
    for b in data:
        c = CRC32C[(c ^ b) & 0xff] ^ (c >> 8)
    return c ^ 0xffffffff


# The value of each SCTP chunk type (before the marker): INIT's fixed part,
# DATA's TSN/stream/SSN/PPID, SACK's cumulative TSN and window, a
# heartbeat info parameter, SHUTDOWN's cumulative TSN, a cookie.
_SCTP_VALUE = {0: struct.pack("!IHHI", 1, 0, 0, 0), 3: struct.pack("!IIHH", 1, 65536, 0, 0),
               4: struct.pack("!HHI", 1, 8, 0x1234), 5: struct.pack("!HHI", 1, 8, 0x1234),
               7: struct.pack("!I", 1), 10: b"cookie!!"}


def _sctp(step, body):
    """The SCTP packet of an sctp send step; the last chunk carries @body."""
    _, sp, dp, (vtag, chunks, good) = step.l4
    out = b""
    for i, (typ, flags, tag, zero) in enumerate(chunks):
        if tag is not None:
            value = struct.pack("!IIHHI", tag, 65536, 10, 10, 1)
        else:
            value = _SCTP_VALUE.get(typ, b"")
        if i == len(chunks) - 1:
            value += body
        n = 0 if zero else 4 + len(value)
        out += struct.pack("!BBH", typ, flags, n) + value + b"\0" * (-len(value) % 4)
    h = struct.pack("!HHII", sp, dp, vtag, 0)
    c = crc32c(h + out)
    if not good:
        c ^= 1
    return 132, h[:8] + struct.pack("<I", c) + out


def _dccp(step, body, pseudo):
    """The DCCP packet of a dccp send step, @body after its header."""
    _, sp, dp, (typ, seq, ack, x, doff, cscov, how) = step.l4
    cut, typ = typ & 0x100, typ & 0xff
    if x:
        h = struct.pack("!HHBBHBBHI", sp, dp, 0, cscov, 0, typ << 1 | 1, 0,
                        seq >> 32 & 0xffff, seq & 0xffffffff)
    else:
        h = struct.pack("!HHBBHBBH", sp, dp, 0, cscov, 0, typ << 1, seq >> 16 & 0xff,
                        seq & 0xffff)
    n = 0 if cut else _dccp_type_len(typ)
    if n == 4:		# Request: service code
        h += struct.pack("!I", 0x2a)
    elif n:		# acknowledgement number (as Linux reads it, 48-bit form)
        h += struct.pack("!HHI", 0, ack >> 32 & 0xffff, ack & 0xffffffff)
        h += b"\0" * (n - 8)	# Response's service code, Reset's code and data
    h = h[:4] + bytes([len(h) // 4 if doff is None else doff]) + h[5:]
    data = h + body
    cov = len(data) if cscov == 0 else min(len(data), (cscov - 1) * 4)
    if how == "linux" and step.payload == "ipv4":	# nf_ip_checksum_partial's view
        ph = pseudo(0, 33 + (len(data) & 0xff))
    else:
        ph = pseudo(33, len(data))
    c = _csum(ph + data[:cov])
    if how == "bad":
        c ^= 0x0100
    return 33, data[:6] + struct.pack("!H", c) + data[8:]


def _l4_header_len(step):
    if step.l4[0] == "gre":
        return 8 if step.l4[1] == 1 else 4
    return 20 if step.l4[0] == "tcp" else 8


def body_len(step):
    """The layer-4 payload length of a send step: the marker and `len`
    zeros; with `frag N`, enough repeated markers for N fragments of
    equal size (a multiple of 8, at least 32 bytes)."""
    if getattr(step, "frags", 1) <= 1:
        return MARKER_LEN + step.length
    hl = _l4_header_len(step)
    size = max(32, -(-(hl + MARKER_LEN + step.length) // step.frags))
    size = (size + 7) & ~7
    return size * step.frags - hl


def _body(step, marker):
    if step.frags <= 1:
        return marker + b"\0" * step.length
    n = body_len(step)
    return (marker * (n // len(marker) + 1))[:n]


def _l4(step, body, pseudo):
    """The transport header and @body of a send step with udp/tcp/icmp;
    @pseudo(proto, length) is the checksum's pseudo-header."""
    kind, sp, dp, flags = step.l4
    if kind == "sctp":
        return _sctp(step, body)
    if kind == "dccp":
        return _dccp(step, body, pseudo)
    if kind == "udplite":
        cscov, how = flags
        h = struct.pack("!HHHH", sp, dp, cscov, 0)
        n = len(h) + len(body)
        if how == "none":
            return 136, h + body
        if how == "rfc":
            ph = pseudo(136, n)
        elif step.payload == "ipv4":	# nf_ip_checksum_partial's view
            ph = pseudo(0, 17 + (n & 0xff))
        else:
            ph = pseudo(17, n)
        c = _csum(ph + (h + body)[:cscov or n]) or 0xffff
        return 136, h[:6] + struct.pack("!H", c) + body
    if kind == "gre":
        version, proto, call_id = sp, dp, flags
        if version == 1:	# key present, version 1; payload length, call ID
            return 47, struct.pack("!HHHH", 0x2001, proto, len(body), call_id) + body
        return 47, struct.pack("!HH", 0, proto) + body
    if kind == "udp":
        h = struct.pack("!HHHH", sp, dp, 8 + len(body), 0)
        c = _csum(pseudo(17, len(h) + len(body)) + h + body) or 0xffff
        return 17, h[:6] + struct.pack("!H", c) + body
    if kind == "tcp":
        opts = getattr(step, "tcpopts", b"")
        h = struct.pack("!HHIIBBHHH", sp, dp, step.seq, step.ack, (5 + len(opts) // 4) << 4,
                        flags, step.win, 0, 0) + opts
        c = _csum(pseudo(6, len(h) + len(body)) + h + body)
        return 6, h[:16] + struct.pack("!H", c) + h[18:] + body
    v6 = step.payload == "ipv6"
    if step.icmp_error:
        typ, code = ICMP_ERRORS[step.icmp_error][1 if v6 else 0]
        inner = _ip_packet(step.embed, b"\0" * MARKER_LEN)
        inner = inner[:(40 if v6 else 20) + 8]
        h = struct.pack("!BBHI", typ, code, 0, 0)
        body = inner + body
    else:
        proto, typ = (58, {8: 128, 0: 129}.get(sp, sp)) if v6 else (1, sp)
        h = struct.pack("!BBHHH", typ, 0, 0, 0x4242, 1)
    proto = 58 if v6 else 1
    c = _csum((pseudo(58, len(h) + len(body)) if v6 else b"") + h + body)
    return proto, h[:2] + struct.pack("!H", c) + h[4:] + body


def _ip_packet(step, marker):
    """The IP packet (header and all) of an ipv4/ipv6 send step."""
    body = _body(step, marker)
    if step.payload == "ipv4":
        sa, da = (socket.inet_pton(socket.AF_INET, a) for a in step.addrs)
        if step.l4:
            proto, l4 = _l4(step, body, lambda p, n: sa + da + struct.pack("!BBH", 0, p, n))
        else:
            proto, l4 = 17, struct.pack("!HHHH", 4000, 4001, 8 + len(body), 0) + body
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(l4), 1, 0, 64, proto, 0, sa, da)
        return ip[:10] + struct.pack("!H", _csum(ip)) + ip[12:] + l4
    sa, da = (socket.inet_pton(socket.AF_INET6, a) for a in step.addrs)
    if step.l4:
        proto, l4 = _l4(step, body, lambda p, n: sa + da + struct.pack("!IxxxB", n, p))
    else:
        proto, l4 = 17, struct.pack("!HHHH", 4000, 4001, 8 + len(body), 0) + body
    return struct.pack("!IHBB", 0x60000000, len(l4), proto, 64) + sa + da + l4


def _fragments(packet, n):
    """IPv4 @packet (20-byte header) as @n fragments of equal size."""
    hdr, data = packet[:20], packet[20:]
    size = len(data) // n
    out = []
    for i in range(n):
        part = data[i * size:(i + 1) * size if i < n - 1 else len(data)]
        off = (i * size) // 8 | (0x2000 if i < n - 1 else 0)
        h = hdr[:2] + struct.pack("!H", 20 + len(part)) + hdr[4:6] + struct.pack("!H", off) + \
            hdr[8:10] + b"\0\0" + hdr[12:]
        out.append(h[:10] + struct.pack("!H", _csum(h)) + h[12:] + part)
    return out


def build_frames(step, marker):
    """The frames of a `send` step: one, or N with `frag N`."""
    if step.payload == "ipv4" and getattr(step, "frags", 1) > 1:
        head = build_frame(step, marker, l3=False)
        return [head + struct.pack("!H", 0x0800) + f
                for f in _fragments(_ip_packet(step, marker), step.frags)]
    return [build_frame(step, marker)]


def build_frame(step, marker, l3=True):
    """The bytes of a `send` step. @marker (bytes) ends the payload, so the
    harness can tell its frames, and which step sent them, from any other.
    With @l3 false, only the Ethernet header and tags."""
    b = bytes(int(x, 16) for x in step.dst.split(":"))
    b += bytes(int(x, 16) for x in step.src.split(":"))
    for tpid, tci in step.tags:
        b += struct.pack("!HH", tpid, tci)
    if not l3:
        return b
    body = marker + b"\0" * step.length
    if step.payload == "ipv4":
        b += struct.pack("!H", 0x0800) + _ip_packet(step, marker)
    elif step.payload == "ipv6":
        b += struct.pack("!H", 0x86dd) + _ip_packet(step, marker)
    elif step.payload == "arp":
        src = bytes(int(x, 16) for x in step.src.split(":"))
        b += struct.pack("!HHHBBH", 0x0806, 1, 0x0800, 6, 4, 1)
        b += src + bytes([192, 0, 2, 1]) + b"\0" * 6 + bytes([192, 0, 2, 2]) + body
    else:
        b += struct.pack("!H", step.ethertype) + body
    return b
