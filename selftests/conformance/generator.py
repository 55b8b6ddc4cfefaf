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
