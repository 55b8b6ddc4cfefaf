# SPDX-License-Identifier: GPL-2.0
"""generator.py - random scenarios from a seed, deterministic: the same seed
gives the same text on every machine (random.Random, no hash ordering).

The draw is weighted toward where bridges get things wrong: few MAC
addresses and VLANs, so frames roam, hit static/sticky/local entries and
VLANs that are deleted under them; flood flags, isolation, hairpin, locked
ports, port state, ageing and learning switched off; frames from the bridge
device, to the bridge, to link-local groups, priority-tagged, 802.1ad,
QinQ and foreign TPIDs; and invalid configuration both bridges must refuse.

With mab=True (the harness passes it on Linux 6.2 and later) locked ports
may also run MAC Authentication Bypass, so frames from unknown sources
create locked entries that later roam, age and are flushed; a scenario
that uses `mab` then says `requires linux 6.2`. The draws for mab=False are
those of a generator that never heard of MAB, so a seed gives the same
scenario on every kernel unless MAB is on.
"""
import random

import scenario as sc

HOSTS = ["02:00:00:00:aa:%02x" % i for i in range(1, 7)]
BR_MAC = "02:00:00:00:0b:00"
PORT_MACS = ["02:00:00:00:0b:%02x" % i for i in range(1, 9)]
BCAST = "ff:ff:ff:ff:ff:ff"
MCAST = ["01:00:5e:00:00:01", "33:33:00:00:00:01", "01:00:5e:7f:00:02"]
LINK_LOCAL = ["01:80:c2:00:00:%02x" % i for i in (0, 1, 2, 3, 0xe, 0xd)]
VIDS = [1, 10, 20, 30]
TPIDS = [0x8100, 0x88a8, 0x9100]


def _w(rng, table):
    """Pick from [(weight, value)...]."""
    total = sum(w for w, _ in table)
    x = rng.uniform(0, total)
    for w, v in table:
        x -= w
        if x <= 0:
            return v
    return table[-1][1]


class _Gen:
    def __init__(self, seed, nsteps, mab=False):
        self.rng = random.Random(seed)
        self.nsteps = nsteps
        self.mab = mab
        self.nports = self.rng.choice([2, 3, 4, 4, 5, 6, 8])
        self.ports = sc.PORTS[:self.nports]
        self.removed = set()
        self.filtering = False
        self.lines = ["ports %d" % self.nports]

    def port(self, br=0.0):
        if br and self.rng.random() < br:
            return "br"
        return self.rng.choice(self.ports)

    def vid(self):
        return _w(self.rng, [(20, 1), (25, 10), (25, 20), (15, 30), (2, 4094),
                             (1, 0), (1, 4095)])

    def onoff(self, p_on=0.5):
        return "on" if self.rng.random() < p_on else "off"

    # -- the opening: VLAN-aware or not, access and trunk ports -------------------
    def setup(self):
        rng = self.rng
        if rng.random() < 0.7:
            self.filtering = True
            self.lines.append("br set vlan_filtering 1")
            for p in self.ports:
                kind = rng.random()
                if kind < 0.45:             # access port
                    v = rng.choice(VIDS)
                    if v != 1:
                        self.lines.append("vlan add vid %d dev %s pvid untagged" % (v, p))
                elif kind < 0.85:           # trunk
                    for v in rng.sample(VIDS[1:], rng.randint(1, 3)):
                        self.lines.append("vlan add vid %d dev %s" % (v, p))
                    if rng.random() < 0.4:
                        self.lines.append("vlan del vid 1 dev %s" % p)
            if rng.random() < 0.7:
                for v in rng.sample(VIDS[1:], rng.randint(1, 3)):
                    self.lines.append("vlan add vid %d dev br" % v)
        if rng.random() < 0.15:
            self.lines.append("br set vlan_protocol 802.1ad")
        # Port flags from the start, so that later frames meet them: an
        # isolated group (isolation only matters between two isolated
        # ports), and now and then a port that floods less or reflects.
        if rng.random() < 0.4 and self.nports >= 3:
            for p in rng.sample(self.ports, rng.randint(2, min(4, self.nports))):
                self.lines.append("link set dev %s isolated on" % p)
        if rng.random() < 0.25:
            flag = rng.choice(["flood", "mcast_flood", "bcast_flood", "learning"])
            self.lines.append("link set dev %s %s off" % (self.port(), flag))
        if rng.random() < 0.15:
            self.lines.append("link set dev %s hairpin on" % self.port())
        if self.mab and rng.random() < 0.3:
            self.lines.append("link set dev %s locked on mab on" % self.port())

    # -- steps -----------------------------------------------------------------
    def frame(self):
        rng = self.rng
        src = _w(rng, [(90, lambda: rng.choice(HOSTS)),
                       (3, lambda: BR_MAC),
                       (3, lambda: rng.choice(PORT_MACS[:self.nports])),
                       (2, lambda: "00:00:00:00:00:00"),
                       (2, lambda: rng.choice(MCAST + [BCAST]))])()
        dst = _w(rng, [(38, lambda: rng.choice(HOSTS)),
                       (14, lambda: BCAST),
                       (10, lambda: rng.choice(MCAST)),
                       (8, lambda: rng.choice(LINK_LOCAL)),
                       (6, lambda: BR_MAC),
                       (5, lambda: rng.choice(PORT_MACS[:self.nports])),
                       (8, lambda: "02:00:00:00:ee:%02x" % rng.randint(1, 4))])()
        words = ["send", self.port(br=0.06), src, dst]
        tagging = _w(rng, [(45 if self.filtering else 70, "none"),
                           (35 if self.filtering else 12, "q"),
                           (5, "prio"), (5, "ad"), (5, "qinq"), (5, "foreign")])
        if tagging == "q":
            words += ["tag", "8100:%d" % (self.vid() | rng.choice([0, 0, 0, 0x2000]))]
        elif tagging == "prio":
            words += ["tag", "8100:%d" % rng.choice([0, 0x6000])]
        elif tagging == "ad":
            words += ["tag", "88a8:%d" % self.vid()]
        elif tagging == "qinq":
            words += ["tag", "88a8:%d" % self.vid(), "tag", "8100:%d" % self.vid()]
        elif tagging == "foreign":
            words += ["tag", "9100:%d" % self.vid()]
        words.append(_w(rng, [(3, "ipv4"), (2, "ipv6"), (3, "arp"), (3, "eth 0x88b5")]))
        return " ".join(words)

    def fdb(self):
        rng = self.rng
        mac = _w(rng, [(80, lambda: rng.choice(HOSTS)), (8, lambda: BR_MAC),
                       (6, lambda: rng.choice(PORT_MACS[:self.nports])),
                       (6, lambda: rng.choice(MCAST))])()
        cmd = _w(rng, [(45, "add"), (15, "replace"), (5, "append"), (35, "del")])
        words = ["fdb", cmd, mac, "dev", self.port(br=0.08)]
        if rng.random() < 0.75:
            words += ["vlan", str(self.vid())]
        if cmd != "del":
            kind = _w(rng, [(50, "static"), (20, "dynamic"), (20, "local"), (10, None)])
            if kind:
                words.append(kind)
            if rng.random() < 0.3:
                words.append("sticky")
            if rng.random() < 0.05:
                words.append("extern_learn")
        return " ".join(words)

    def flush(self):
        rng = self.rng
        words = ["fdb", "flush", "dev", self.port(br=0.3)]
        if rng.random() < 0.4:
            words += ["vlan", str(rng.choice(VIDS))]
        kind = _w(rng, [(4, None), (3, "dynamic"), (2, "static"), (1, "permanent")])
        if kind:
            words.append(kind)
        return " ".join(words)

    def vlan(self):
        rng = self.rng
        cmd = _w(rng, [(5, "add"), (4, "del"), (2, "set")])
        v = self.vid()
        vw = str(v)
        if cmd != "set" and rng.random() < 0.1 and 1 <= v < 30:
            vw = "%d-%d" % (v, v + rng.randint(1, 3))
        words = ["vlan", cmd, "vid", vw, "dev", self.port(br=0.15)]
        if cmd == "add":
            if rng.random() < 0.3:
                words.append("pvid")
            if rng.random() < 0.35:
                words.append("untagged")
        elif cmd == "set":
            words += ["state", str(_w(rng, [(3, 3), (2, 4), (2, 2), (1, 0), (1, 1)]))]
        return " ".join(words)

    def link(self):
        rng = self.rng
        words = ["link", "set", "dev", self.port()]
        table = [(14, "isolated"), (10, "hairpin"), (10, "flood"), (8, "mcast_flood"),
                 (8, "bcast_flood"), (10, "learning"), (8, "locked"), (10, "state")]
        if self.mab:
            table.append((8, "mab"))
        for _ in range(rng.randint(1, 2)):
            k = _w(rng, table)
            if k == "state":
                words += ["state", str(_w(rng, [(5, 3), (2, 2), (2, 0), (1, 1), (2, 4)]))]
            else:
                # Mostly towards the non-default value, so it matters.
                default_on = k in ("flood", "mcast_flood", "bcast_flood", "learning")
                words += [k, self.onoff(0.3 if default_on else 0.7)]
        return " ".join(words)

    def bridge(self):
        rng = self.rng
        k = _w(rng, [(4, "vlan_filtering"), (3, "ageing_time"), (3, "group_fwd_mask"),
                     (2, "default_pvid"), (1, "vlan_protocol")])
        if k == "vlan_filtering":
            self.filtering = not self.filtering
            return "br set vlan_filtering %d" % self.filtering
        if k == "ageing_time":
            return "br set ageing_time %d" % _w(rng, [(2, 0), (3, 30000), (1, 100000)])
        if k == "group_fwd_mask":
            return "br set group_fwd_mask %d" % _w(rng, [(3, 0), (3, 0x4008), (2, 0xfff8),
                                                          (1, 0x1), (1, 0x4)])
        if k == "default_pvid":
            return "br set vlan_default_pvid %d" % _w(rng, [(3, 10), (2, 1), (1, 0), (1, 4095)])
        return "br set vlan_protocol %s" % rng.choice(["802.1Q", "802.1ad"])

    def portop(self):
        p = self.port()
        if p in self.removed:
            self.removed.discard(p)
            return "port add %s" % p
        self.removed.add(p)
        return "port del %s" % p

    def step(self):
        kind = _w(self.rng, [(50, self.frame), (12, self.fdb), (4, self.flush), (9, self.vlan),
                             (11, self.link), (6, self.bridge), (2, self.portop),
                             (1.5, lambda: "age")])
        return kind()

    def text(self, name):
        self.setup()
        self.lines += [self.step() for _ in range(self.nsteps)]
        if any(" mab " in l for l in self.lines):
            self.lines.insert(1, "requires linux 6.2")
        return "# %s\n" % name + "\n".join(self.lines) + "\n"


def scenario(seed, nsteps=24, mab=False):
    """The scenario of @seed; @mab: locked ports may run MAB (Linux 6.2+)."""
    name = "gen-seed-%d%s" % (seed, "-mab" if mab else "")
    return sc.parse(_Gen(seed, nsteps, mab).text(name), name)


# --- nft scenarios --------------------------------------------------------------
#
# A small random ruleset (one table, one to three base chains at random hooks
# and priorities, maybe a regular chain they jump or go to, maybe a named
# set) over few hosts, whose frames it matches: the ports, MACs, VLANs,
# addresses and L4 ports the scenario's frames use; now and then a rule
# also rewrites a header field (payload statements: the delivered bytes
# are compared). Then frames (UDP and TCP
# flows in both directions, so ct rules see new and established traffic;
# ARP, IPv6, ICMP, broadcast, multicast, to and from the bridge), a few
# configuration changes and late rules, with `expect counters` now and then
# (the harness also compares the listings at the end).

NFT_HOOKS = [(4, "prerouting"), (5, "forward"), (2, "input"), (2, "output"),
             (3, "postrouting")]
# Not -300, 100, 300 (nor within 10 of them): nft names those after the
# bridge's standard priorities only at one hook each (dstnat at prerouting,
# out at output, srcnat at postrouting); xnft named them at every hook
# (corpus 120, fixed on main since).
NFT_PRIOS = [(1, -250), (1, -150), (4, 0), (1, 10), (1, 50), (1, -10)]
UDP_PORTS = [53, 1024, 4001]
TCP_PORTS = [80, 2000]


def _ip(host):
    return "192.0.2.%d" % (host + 1)


class _NftGen:
    def __init__(self, seed, nsteps, writes=True):
        self.rng = random.Random(seed)
        # payload statements, from a stream of their own (@writes false:
        # none, for offload mode, whose flows skip the chains that write)
        self.wrng = random.Random(seed + 7919)
        self.writes = writes
        self.nsteps = nsteps
        self.nports = self.rng.choice([2, 3, 3, 4, 4, 5])
        self.ports = sc.PORTS[:self.nports]
        self.lines = ["ports %d" % self.nports]
        self.filtering = False
        self.port_vids = {}             # port -> (pvid or None, [tagged vids])
        self.chains = []                # (name, hook)
        self.sub = False                # regular chain "sub" exists
        self.set_ = None                # named set: (name, type)
        self.ct = False

    # -- the words a rule can match, drawn from what the frames use ----------------
    def mac(self):
        return HOSTS[self.rng.randrange(self.nports)]

    def match(self, hook):
        """One match: (words, what it implies), so a rule never combines
        protocols nft refuses together (`ip saddr` with `ether type arp`)."""
        rng = self.rng
        p = rng.choice(self.ports)
        table = [
            (6, lambda: ("iifname %s" % p, {})),
            (3, lambda: ("iif %s" % p, {})),
            (3, lambda: ('iifname { %s }' % ", ".join(
                '"%s"' % x for x in rng.sample(self.ports, min(2, self.nports))), {})),
            (3, lambda: ("ether saddr %s" % self.mac(), {"hdr": "ether"})),
            (3, lambda: ("ether daddr %s" % rng.choice([self.mac(), BCAST, BR_MAC]), {"hdr": "ether"})),
            (2, lambda: (lambda t: ("ether type %s" % t, {"l3": t, "eth": t, "hdr": "ether"}))(
                rng.choice(["ip", "arp", "ip6", "vlan"]))),
            (3, lambda: (lambda t: ("meta protocol %s" % t, {"l3": t, "mproto": 1}))(
                rng.choice(["ip", "arp", "ip6"]))),
            (2, lambda: (lambda t: ("meta l4proto %s" % t, {"l4": t}))(
                rng.choice(["udp", "tcp", "icmp"]))),
            (2, lambda: ("meta pkttype %s" % rng.choice(["broadcast", "multicast",
                                                         "unicast", "host"]), {})),
            (2, lambda: ("meta length %s %d" % (rng.choice(["<", ">", "!="]),
                                            rng.choice([36, 40, 48, 60, 100])), {})),
            (2, lambda: ("ip saddr %s" % rng.choice([_ip(rng.randrange(self.nports)),
                                                    "192.0.2.0/30", "192.0.2.2-192.0.2.4"]),
                         {"l3": "ip", "hdr": "ip"})),
            (2, lambda: ("ip daddr != %s" % _ip(rng.randrange(self.nports)), {"l3": "ip", "hdr": "ip"})),
            (3, lambda: ("udp dport %s" % rng.choice(
                [str(rng.choice(UDP_PORTS)), "{ 53, 4001 }", "1000-2000"]), {"l4": "udp", "hdr": "udp"})),
            (1, lambda: ("udp sport %d" % rng.choice(UDP_PORTS), {"l4": "udp", "hdr": "udp"})),
            (3, lambda: ("tcp dport %d" % rng.choice(TCP_PORTS), {"l4": "tcp", "hdr": "tcp"})),
            (2, lambda: ("tcp flags %s" % rng.choice(["syn", "& (syn | ack) == syn",
                                                      "& (fin | ack) == fin | ack", "fin"]),
                         {"l4": "tcp", "hdr": "tcp"})),
            (1, lambda: ("icmp type echo-request", {"l3": "ip", "l4": "icmp", "hdr": "ether"})),
            (1, lambda: ("meta mark 0x%x" % rng.choice([0, 1, 2]), {})),
        ]
        if hook in ("forward", "output", "postrouting"):
            table += [(6, lambda: ("oifname %s" % rng.choice(self.ports), {})),
                      (2, lambda: ("oif %s" % rng.choice(self.ports), {})),
                      (1, lambda: ("oifname != %s" % rng.choice(self.ports), {}))]
        if hook == "input":
            table += [(2, lambda: ("oifname br", {}))]
        if self.filtering:
            table += [(4, lambda: ("vlan id %d" % rng.choice([10, 20]), {"vlan": 1})),
                      (1, lambda: ("vlan id { 1, 20 }", {"vlan": 1}))]
        if self.set_:
            name, kind = self.set_
            table.append((4, lambda: ("%s @%s" % ({"mac": "ether saddr", "ifname": "iifname",
                                                   "ip": "ip daddr"}[kind], name),
                                      {"mac": {"hdr": "ether"}, "ifname": {},
                                       "ip": {"l3": "ip", "hdr": "ip"}}[kind])))
        if rng.random() < 0.25:
            self.ct = True
            table += [(8, lambda: ("ct state %s" % rng.choice(
                ["new", "established", "established,related", "invalid", "!= established"]),
                {}))]
        return _w(rng, table)()

    @staticmethod
    def conflicts(a, b):
        """Would nft refuse matches implying @a and @b in one rule?"""
        for k in ("l3", "l4"):
            if k in a and k in b and a[k] != b[k]:
                return True
        # Two fields of one header: nft merges adjacent ones into one
        # load and lists them in header order; xnft did not (corpus 121,
        # fixed on main since).
        if "hdr" in a and a.get("hdr") == b.get("hdr"):
            return True
        # nft takes `vlan id` after an ip/udp/tcp match as a conflict
        # (xnft does not), and an ether match after `vlan id` as the inner
        # header: keep vlan id apart from payload matches.
        if ("vlan" in a and "hdr" in b) or ("hdr" in a and "vlan" in b):
            return True
        if "mproto" in a and "vlan" in b:
            return True
        c = dict(a, **b)
        if c.get("l3") == "arp" and "l4" in c:
            return True
        if c.get("l3") == "vlan" and ("l4" in c or "vlan" in c):
            return True
        return "vlan" in c and "eth" in c

    def matches(self, hook, n):
        words, implied = [], {}
        for _ in range(n):
            w, imp = self.match(hook)
            if not self.conflicts(implied, imp):
                words.append(w)
                implied.update(imp)
        self.implied = implied
        return words

    def write(self, hook, implied):
        """A payload statement whose dependency the rule's matches leave
        room for (nft refuses conflicting protocols in one rule). Drawn
        from a stream of its own: the rest of a seed's scenario is what it
        was before payload statements were generated."""
        rng = self.wrng
        l3, l4 = implied.get("l3"), implied.get("l4")
        table = [(2, lambda: "ether saddr set %s" % rng.choice(HOSTS[:self.nports] + ["02:00:00:00:ee:01"]))]
        if l3 in (None, "ip") and "vlan" not in implied and implied.get("eth") in (None, "ip"):
            table += [(3, lambda: "ip dscp set %s" % rng.choice(["cs1", "af21", "ef"])),
                      (2, lambda: "ip ttl set %d" % rng.choice([1, 9, 64])),
                      (1, lambda: "ip saddr set %s" % _ip(rng.randrange(self.nports)))]
            if l4 in (None, "udp"):
                table.append((2, lambda: "udp dport set %d" % rng.choice(UDP_PORTS)))
            if l4 in (None, "tcp"):
                table.append((2, lambda: "tcp dport set %d" % rng.choice(TCP_PORTS)))
        if self.filtering and not implied:
            table.append((2, lambda: "vlan pcp set %d" % rng.randrange(8)))
            if hook == "prerouting":
                table.append((2, lambda: "vlan id set %d" % rng.choice([10, 20])))
        return _w(rng, table)()

    def rule(self, chain, hook, in_sub=False):
        rng = self.rng
        words = self.matches(hook, _w(rng, [(2, 0), (6, 1), (3, 2)]))
        if rng.random() < 0.7:
            words.append("counter")
        if rng.random() < 0.1:
            words.append("meta mark set 0x%x" % rng.choice([1, 2]))
        if self.writes and self.wrng.random() < 0.12:
            words.append(self.write(hook, self.implied))
        verdicts = [(30, "accept"), (35, "drop"), (20, None)]
        if self.sub and not in_sub:
            verdicts += [(8, "jump sub"), (4, "goto sub")]
        if in_sub:
            verdicts += [(8, "return")]
        v = _w(rng, verdicts)
        if v:
            words.append(v)
        if not words:
            words = ["counter"]
        return "nft add rule bridge t %s %s" % (chain, " ".join(words))

    def ruleset(self):
        rng = self.rng
        self.lines.append("nft add table bridge t")
        if rng.random() < 0.3:
            kind = rng.choice(["mac", "ifname", "ip"])
            typ = {"mac": "ether_addr", "ifname": "ifname", "ip": "ipv4_addr"}[kind]
            elems = {"mac": lambda: rng.sample(HOSTS[:self.nports], min(2, self.nports)),
                     "ifname": lambda: ['"%s"' % p for p in rng.sample(self.ports, 2)],
                     "ip": lambda: [_ip(i) for i in rng.sample(range(self.nports), 2)]}[kind]()
            self.set_ = ("s", kind)
            self.lines.append("nft add set bridge t s { type %s ; }" % typ)
            self.lines.append("nft add element bridge t s { %s }" % ", ".join(elems))
        if rng.random() < 0.3:
            self.sub = True
            self.lines.append("nft add chain bridge t sub")
        for i in range(_w(rng, [(4, 1), (4, 2), (2, 3)])):
            hook = _w(rng, NFT_HOOKS)
            name = "c%d" % (i + 1)
            policy = "drop" if rng.random() < 0.2 else "accept"
            self.lines.append("nft add chain bridge t %s { type filter hook %s priority %d ; "
                              "policy %s ; }" % (name, hook, _w(rng, NFT_PRIOS), policy))
            self.chains.append((name, hook))
            for _ in range(rng.randint(1, 4)):
                self.lines.append(self.rule(name, hook))
        if self.sub:
            for _ in range(rng.randint(1, 3)):
                self.lines.append(self.rule("sub", self.chains[0][1], in_sub=True))

    def setup(self):
        rng = self.rng
        if rng.random() < 0.5:
            self.filtering = True
            self.lines.append("br set vlan_filtering 1")
            for p in self.ports:
                k = rng.random()
                if k < 0.4:
                    v = rng.choice([10, 20])
                    self.lines.append("vlan add vid %d dev %s pvid untagged" % (v, p))
                    self.port_vids[p] = (v, [])
                elif k < 0.8:
                    vids = rng.sample([10, 20], rng.randint(1, 2))
                    for v in vids:
                        self.lines.append("vlan add vid %d dev %s" % (v, p))
                    self.port_vids[p] = (1, vids)
                else:
                    self.port_vids[p] = (1, [])
            for v in rng.sample([10, 20], rng.randint(0, 2)):
                self.lines.append("vlan add vid %d dev br" % v)

    # -- steps -----------------------------------------------------------------
    def frame(self):
        rng = self.rng
        i = rng.randrange(self.nports)
        port, src = self.ports[i], HOSTS[i]
        j = rng.choice([x for x in range(self.nports) if x != i])
        dst_kind = _w(rng, [(45, "host"), (15, "bcast"), (8, "mcast"), (10, "br"),
                            (8, "unknown")])
        dst = {"host": HOSTS[j], "bcast": BCAST, "mcast": MCAST[0], "br": BR_MAC,
               "unknown": "02:00:00:00:ee:01"}[dst_kind]
        if rng.random() < 0.12:         # from the bridge device
            port, src, i = "br", BR_MAC, self.nports
            if dst == BR_MAC:
                dst = HOSTS[j]
        words = ["send", port, src, dst]
        if self.filtering and port != "br":
            pvid, tagged = self.port_vids.get(port, (1, []))
            if tagged and rng.random() < 0.6:
                words += ["tag", "8100:%d" % rng.choice(tagged)]
            elif rng.random() < 0.05:
                words += ["tag", "8100:%d" % rng.choice([10, 20, 30])]
        elif self.filtering and port == "br" and rng.random() < 0.4:
            words += ["tag", "8100:%d" % rng.choice([10, 20])]
        sa, da = _ip(i), _ip(j) if dst_kind == "host" else "192.0.2.99"
        kind = _w(rng, [(30, "udp"), (20, "tcp"), (10, "arp"), (8, "ipv6"), (6, "icmp"),
                        (6, "ipv4"), (4, "eth")])
        if kind == "udp":
            words += ["ipv4", sa, da, "udp", str(rng.choice(UDP_PORTS)),
                      str(rng.choice(UDP_PORTS))]
        elif kind == "tcp":
            a, b = rng.sample(TCP_PORTS, 2) if rng.random() < 0.5 else TCP_PORTS[::-1]
            words += ["ipv4", sa, da, "tcp", str(a), str(b),
                      _w(rng, [(4, "S"), (3, "SA"), (5, "A"), (3, "PA"), (1, "FA"), (1, "R")])]
        elif kind == "icmp":
            words += ["ipv4", sa, da, "icmp", rng.choice(["echo-request", "echo-reply"])]
        elif kind == "ipv6":
            words += ["ipv6", "udp", "53", "1024"]
        elif kind == "eth":
            words += ["eth", "0x88b5"]
        else:
            words.append(kind)
        if rng.random() < 0.15:
            words += ["len", str(rng.choice([1, 20, 64]))]
        return " ".join(words)

    def config(self):
        rng = self.rng
        p = rng.choice(self.ports)
        return _w(rng, [
            (3, lambda: "fdb add %s dev %s%s static" % (
                self.mac(), p, " vlan %d" % rng.choice([10, 20]) if self.filtering else "")),
            (2, lambda: "link set dev %s %s %s" % (
                p, rng.choice(["flood", "bcast_flood", "isolated", "learning"]),
                rng.choice(["on", "off"]))),
            (1 if self.filtering else 0,
             lambda: "vlan add vid %d dev %s" % (rng.choice([10, 20]), p)),
            (1 if self.filtering else 0,
             lambda: "vlan del vid %d dev %s" % (rng.choice([10, 20]), p)),
            (1, lambda: "port del %s" % p if p != "p1" else "link set dev p1 flood on"),
        ])()

    def late_rule(self):
        name, hook = self.rng.choice(self.chains)
        line = self.rule(name, hook)
        if self.rng.random() < 0.4:
            line = line.replace("nft add rule", "nft insert rule", 1)
        return line

    def text(self, name):
        self.setup()
        self.ruleset()
        since, looked = 0, False
        deleted = set()
        for _ in range(self.nsteps):
            k = _w(self.rng, [(70, "frame"), (8, "config"), (3, "rule"), (1, "flush")])
            if k == "frame":
                line = self.frame()
                if line.split()[1] in deleted:
                    continue
                self.lines.append(line)
                since += 1
                # One look midway at most: a listing costs an xnft process
                # (about a second under TCG); the harness compares them at
                # the end anyway.
                if since >= 6 and not looked and self.rng.random() < 0.3:
                    self.lines.append("expect counters")
                    looked = True
            elif k == "config":
                line = self.config()
                if line.startswith("port del"):
                    deleted.add(line.split()[2])
                self.lines.append(line)
            elif k == "rule":
                self.lines.append(self.late_rule())
            else:
                self.lines.append("nft flush chain bridge t %s" % self.rng.choice(self.chains)[0])
        return "# %s\n" % name + "\n".join(self.lines) + "\n"


def nft_scenario(seed, nsteps=20, writes=True):
    """The nft scenario of @seed (gen-nft-seed-N); @writes: with payload
    statements now and then."""
    name = "gen-nft-seed-%d" % seed
    return sc.parse(_NftGen(seed, nsteps, writes).text(name), name)


# --- conntrack scenarios ---------------------------------------------------------
#
# A few flows (TCP, UDP, ICMP echo; IPv4 and some IPv6) between hosts on 2 to
# 4 ports, under a ruleset that switches conntrack on and counts each ct
# state (and maybe sets zones per port, a ct mark, drops invalid traffic).
# Each step moves one flow on: mostly what a real endpoint would send next
# (the scenario language numbers the segments of a connection by itself),
# sometimes what it would not - odd flags, a sequence number or ack far off,
# a RST out of the window, a SYN|ACK without a SYN, a tiny window, ICMP
# errors about the last packet, and `ct flush`. The harness compares both
# conntrack tables after every step.

CT_TCP_NEXT = {         # phase -> [(weight, sender 'c'|'s', flags, next phase)]
    0: [(8, "c", "S", 1), (1, "c", "A", 3), (1, "s", "SA", 0)],
    1: [(8, "s", "SA", 2), (1, "c", "S", 1), (1, "s", "RA", 9), (1, "s", "S", 1)],
    2: [(8, "c", "A", 3), (1, "s", "SA", 2), (2, "c", "PA", 3)],
    3: [(6, "c", "PA", 3), (6, "s", "PA", 3), (3, "c", "FA", 4), (3, "s", "FA", 5),
        (1, "c", "R", 9), (1, "s", "RA", 9)],
    4: [(5, "s", "FA", 6), (3, "s", "A", 5), (1, "c", "A", 4)],
    5: [(5, "c", "FA", 6), (3, "c", "A", 6), (1, "s", "PA", 5)],
    6: [(5, "c", "A", 9), (3, "s", "A", 9)],
    9: [(5, "c", "S", 1), (1, "s", "A", 9)],
}
CT_ODD_FLAGS = ["SF", "SR", "FPU", "", "U", "SAF", "RA", "FA", "A", "SA", "R"]

# An SCTP association: phase -> [(weight, sender, chunks, vtag, next phase)];
# the client's packets carry the server's tag ("s"), the server's the
# client's ("c"), an INIT none ("zero"); %(c)d / %(s)d are the tags.
CT_SCTP_NEXT = {
    0: [(8, "c", "init:%(c)d", "zero", 1), (1, "c", "heartbeat", "s", 0),
        (1, "c", "data", "s", 0)],
    1: [(8, "s", "init-ack:%(s)d", "c", 2), (1, "c", "init:%(c)d", "zero", 1)],
    2: [(8, "c", "cookie-echo", "s", 3), (2, "c", "cookie-echo,data", "s", 3),
        (1, "s", "init-ack:%(s)d", "c", 2)],
    3: [(8, "s", "cookie-ack", "c", 4), (2, "s", "cookie-ack,sack", "c", 4),
        (1, "c", "cookie-echo", "s", 3)],
    4: [(6, "c", "data", "s", 4), (6, "s", "sack", "c", 4), (3, "s", "sack,data", "c", 4),
        (1, "c", "heartbeat", "s", 4), (1, "s", "heartbeat-ack", "c", 4),
        (2, "c", "shutdown", "s", 5), (2, "s", "shutdown", "c", 5),
        (1, "c", "abort", "s", 0), (1, "s", "abort:t", "s", 0)],
    5: [(5, "s", "shutdown-ack", "c", 6), (5, "c", "shutdown-ack", "s", 6), (1, "c", "data", "s", 5)],
    6: [(4, "c", "shutdown-complete", "s", 0), (4, "s", "shutdown-complete", "c", 0),
        (1, "s", "shutdown-complete:t", "s", 0)],
}
# What no endpoint would send now: out-of-the-blue chunks, bad bundles.
CT_SCTP_ODD = ["abort", "cookie-ack", "shutdown-complete", "data,data:zero", "sack,cookie-echo",
               "init:7,data", "error", "heartbeat", "shutdown-ack", "init:%(c)d"]


# DCCP: the packets a connection's phase makes likely, (weight, sender,
# type, next phase): 0 nothing yet, 1 requested, 2 responded, 3 part-open,
# 4 open, 6 close requested, 7 closing, 8 time-wait (a Request reopens).
CT_DCCP_NEXT = {
    0: [(1, "c", "request", 1)],
    1: [(6, "s", "response", 2), (1, "c", "request", 1), (1, "s", "reset", 0)],
    2: [(4, "c", "ack", 3), (2, "c", "dataack", 3), (1, "s", "response", 2)],
    3: [(3, "s", "data", 4), (2, "s", "ack", 4), (2, "c", "dataack", 3), (1, "c", "close", 7)],
    4: [(3, "c", "data", 4), (3, "s", "dataack", 4), (1, "c", "sync", 4), (1, "s", "syncack", 4),
        (1, "s", "closereq", 6), (1, "c", "close", 7), (1, "s", "request", 4)],
    6: [(3, "c", "close", 7), (1, "s", "closereq", 6)],
    7: [(3, "s", "reset", 8), (1, "c", "close", 7)],
    8: [(2, "c", "request", 1), (1, "c", "reset", 8), (1, "s", "reset", 8)],
}
CT_DCCP_TYPES = ["request", "response", "data", "ack", "dataack", "closereq", "close", "reset",
                 "sync", "syncack", "12"]


class _CtGen:
    def __init__(self, seed, nsteps, frags):
        self.rng = random.Random(seed)
        self.nsteps = nsteps
        self.frags = frags
        self.nports = self.rng.choice([2, 2, 3, 4])
        self.lines = ["ports %d" % self.nports]
        self.flows = []
        self.vlan = self.rng.random() < 0.15

    def host(self, i, v6):
        return ("2001:db8::%d" % (i + 1)) if v6 else "192.0.2.%d" % (i + 1)

    def ruleset(self):
        rng = self.rng
        L = self.lines
        L.append("nft add table bridge t")
        if rng.random() < 0.25:
            L.append("nft add chain bridge t zones { type filter hook prerouting priority -300 ; }")
            m = ", ".join("p%d : %d" % (i + 1, rng.choice([0, 2, 3])) for i in range(self.nports))
            L.append("nft add rule bridge t zones ct zone set iif map { %s }" % m)
        L.append("nft add chain bridge t f { type filter hook forward priority 0 ; policy accept ; }")
        for st in ("new", "established", "related", "invalid"):
            L.append("nft add rule bridge t f ct state %s counter" % st)
        if rng.random() < 0.3:
            L.append("nft add rule bridge t f ct state invalid drop")
        if rng.random() < 0.3:
            L.append("nft add rule bridge t f ct mark 5 counter")
            L.append("nft add rule bridge t f %sct mark set 5"
                     % rng.choice(["", "ip protocol udp ", "iifname p1 "]))

    def flow(self):
        rng = self.rng
        c, s = rng.sample(range(self.nports), 2)
        proto = rng.choice(["tcp", "tcp", "tcp", "udp", "udp", "icmp", "gre", "udplite", "sctp",
                            "dccp"])
        v6 = rng.random() < 0.2
        f = dict(proto=proto, v6=v6, c=c, s=s, phase=0,
                 cport=rng.choice([40000, 40001, 5000]), sport=rng.choice([80, 53, 443]))
        if proto == "sctp":
            f.update(c_tag=rng.choice([0x1111, 0xc0ffee01]), s_tag=rng.choice([0x2222, 0x7e57ab1e]))
        if proto == "dccp":
            f.update(c_seq=rng.choice([100, 0x123456789a]), s_seq=rng.choice([500, 0xfedcba987]))
        self.flows.append(f)
        return f

    def send(self, f, sender, l4, extra=""):
        rng = self.rng
        a, b = (f["c"], f["s"]) if sender == "c" else (f["s"], f["c"])
        tag = " tag 8100:10" if self.vlan else ""
        return "send p%d %s %s%s %s %s %s %s%s" % (
            a + 1, HOSTS[a], HOSTS[b] if rng.random() < 0.9 else BCAST, tag,
            "ipv6" if f["v6"] else "ipv4", self.host(a, f["v6"]), self.host(b, f["v6"]),
            l4, extra)

    def tcp(self, f):
        rng = self.rng
        opts = CT_TCP_NEXT[f["phase"]]
        _, sender, flags, nxt = _w(rng, [(o[0], o) for o in opts])
        extra = ""
        x = rng.random()
        if x < 0.12:
            flags = rng.choice(CT_ODD_FLAGS)            # what no endpoint would send now
        elif x < 0.2:
            extra = " seq %d" % rng.choice([0, 1, 900000, 4000000000, 1000 + f["cport"]])
        elif x < 0.25 and "A" in flags:
            extra = " ack %d" % rng.choice([0, 5, 900000])
        else:
            f["phase"] = nxt
        if rng.random() < 0.1:
            extra += " win %d" % rng.choice([0, 100, 1000])
        if "P" in flags and rng.random() < 0.5:
            extra += " len %d" % rng.choice([10, 100, 600])
        sp, dp = (f["cport"], f["sport"]) if sender == "c" else (f["sport"], f["cport"])
        # An empty flag set is written as `tcp SP DP 0`... not a word the
        # language has: a flagless segment is drawn as URG alone instead.
        return self.send(f, sender, "tcp %d %d %s" % (sp, dp, flags or "U"), extra)

    def sctp(self, f):
        rng = self.rng
        _, sender, chunks, whose, nxt = _w(rng, [(o[0], o) for o in CT_SCTP_NEXT[f["phase"]]])
        tags = {"zero": 0, "c": f["c_tag"], "s": f["s_tag"]}
        vtag, extra = tags[whose], ""
        x = rng.random()
        if x < 0.1:
            vtag = rng.choice([0, f["c_tag"], f["s_tag"], 0x99])    # perhaps the wrong one
        elif x < 0.16:
            chunks = rng.choice(CT_SCTP_ODD)
        elif x < 0.2:
            extra = " crc bad"
        else:
            f["phase"] = nxt
        chunks = chunks % {"c": f["c_tag"], "s": f["s_tag"]}
        sp, dp = (f["cport"], f["sport"]) if sender == "c" else (f["sport"], f["cport"])
        return self.send(f, sender, "sctp %d %d %d %s%s" % (sp, dp, vtag, chunks, extra))

    def dccp(self, f):
        rng = self.rng
        _, sender, typ, nxt = _w(rng, [(o[0], o) for o in CT_DCCP_NEXT[f["phase"]]])
        extra = ""
        x = rng.random()
        if x < 0.1:
            typ, sender = rng.choice(CT_DCCP_TYPES), rng.choice("cs")   # out of turn
        elif x < 0.14:
            extra = " csum bad"
        elif x < 0.16:
            extra = " cut"
        elif x < 0.18:
            extra = " doff %d" % rng.choice([2, 40])
        else:
            f["phase"] = nxt
        if typ in ("data", "ack", "dataack") and rng.random() < 0.3:
            extra = " nox" + extra
        elif x < 0.12 and rng.random() < 0.3:
            extra = " nox" + extra                  # a type that needs X, without
        if rng.random() < 0.05:
            extra += " cscov %d" % rng.choice([2, 4])
        seq, ack = (f["c_seq"], f["s_seq"]) if sender == "c" else (f["s_seq"], f["c_seq"])
        if rng.random() < 0.1:
            ack += 1                                # not the Response acknowledged
        sp, dp = (f["cport"], f["sport"]) if sender == "c" else (f["sport"], f["cport"])
        if "nox" in extra:
            seq, ack = seq & 0xffffff, ack & 0xffffff
        return self.send(f, sender, "dccp %d %d %s %d %d%s" % (sp, dp, typ, seq, ack, extra))

    def step(self):
        rng = self.rng
        k = _w(rng, [(80, "flow"), (6, "error"), (3, "flush"), (8, "new")])
        if k == "new" or not self.flows:
            f = self.flow()
        else:
            f = rng.choice(self.flows)
        if k == "flush":
            return "ct flush"
        if k == "error" and len(self.lines) > 1 and self.lines[-1].startswith("send") \
                and (" udp " in self.lines[-1] or " tcp " in self.lines[-1] or " icmp " in self.lines[-1]):
            last = self.lines[-1].split()
            # From the receiver of the last packet, back to its sender.
            src = int(last[1][1:]) - 1
            dst = HOSTS.index(last[2]) if last[2] in HOSTS else (src + 1) % self.nports
            dst = self.rng.choice([i for i in range(self.nports) if i != src]) \
                if dst == src else dst
            fam = "ipv6" if " ipv6 " in self.lines[-1] else "ipv4"
            err = rng.choice(["unreach-port", "unreach-host", "frag-needed", "ttl-exceeded"])
            return "send p%d %s %s %s icmp %s" % (dst + 1, HOSTS[dst], HOSTS[src], fam, err)
        sender = "c" if rng.random() < 0.6 else "s"
        if f["proto"] == "tcp":
            return self.tcp(f)
        if f["proto"] == "sctp":
            return self.sctp(f)
        if f["proto"] == "dccp":
            return self.dccp(f)
        sp, dp = (f["cport"], f["sport"]) if sender == "c" else (f["sport"], f["cport"])
        frag = " frag %d" % rng.choice([2, 3]) if (self.frags and not f["v6"] and
                                                   rng.random() < 0.1) else ""
        if f["proto"] == "udp":
            return self.send(f, sender, "udp %d %d" % (sp, dp), frag)
        if f["proto"] == "gre":
            # PPTP's call IDs: 0 both ways makes one connection, others two
            key = rng.choice([None, None, 0, 0, 4660])
            return self.send(f, sender, "gre" if key is None else "gre pptp %d" % key)
        if f["proto"] == "udplite":
            how = _w(rng, [(8, " csum linux"), (1, ""), (1, " csum none"), (1, " cscov 8 csum linux"),
                           (1, " cscov 4 csum linux")])
            return self.send(f, sender, "udplite %d %d%s" % (sp, dp, how))
        return self.send(f, sender, "icmp %s" % ("echo-request" if sender == "c" else "echo-reply"), frag)

    def text(self, name):
        self.ruleset()
        for _ in range(self.nsteps):
            self.lines.append(self.step())
        return "# %s\n" % name + "\n".join(self.lines) + "\n"


def ct_scenario(seed, nsteps=16, frags=False):
    """The conntrack scenario of @seed (gen-ct-seed-N); @frags: some
    IPv4 packets go as fragments (gen-ct-seed-N-frag)."""
    name = "gen-ct-seed-%d%s" % (seed, "-frag" if frags else "")
    return sc.parse(_CtGen(seed, nsteps, frags).text(name), name)
