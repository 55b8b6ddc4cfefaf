# SPDX-License-Identifier: GPL-2.0
"""sides.py - what the harness needs from a bridge implementation, and the
parts both implementations share (enslaving ports over rtnetlink, reset).

A BridgeSide owns one bridge device and its port devices (logical names
p1..p8 map to real devices); the harness drives the Linux bridge through
LinuxBridge (linux_side.py, rtnetlink) and xbridge through XBridge
(xbridge_side.py, the xbridge generic netlink family). Every operation
raises nlsock.NlError when the kernel refuses it (xbridge then has changed
nothing; Linux may have applied part of it, see known.py).

Normalised state, so the two sides compare with ==:
  fdb_dump()  -> sorted list of (port, mac, vid, kind, flags)
      port  'br' (the bridge device) or 'p1'..'p8'
      mac   'xx:xx:xx:xx:xx:xx'
      vid   0 for an entry without VLAN
      kind  'local' | 'static' | 'dynamic'
      flags sorted tuple drawn from ('extern_learn', 'locked', 'sticky')
            'locked' is an entry MAB created on a locked port (Linux 6.2+:
            NTF_EXT_LOCKED in NDA_FLAGS_EXT, as `bridge fdb show` prints
            "locked"); it stays 'dynamic' and ages like any learned entry
  vlan_dump() -> {port: sorted list of (vid, flags, state)}
      flags 'PU', 'P', 'U' or '' (PVID, egress untagged); state 0..4
      ports without VLANs are left out.
Only entries whose master is this bridge count (not the ports' own "self"
addresses).
"""
import abc
import socket
import struct
import time

import nlsock as nl

RTM_NEWLINK = 16
RTM_SETLINK = 19
IFLA_MASTER = 10
IFLA_ADDRESS = 1
IFF_UP = 1

# fdb_max_learned (Linux 6.8+) is reset too: a 6.1 bridge ignores the
# attribute (rtnetlink parses IFLA_INFO_DATA liberally, attributes above its
# maxtype are skipped), and newer ones must lose a scenario's limit.
BRIDGE_DEFAULTS = dict(vlan_filtering=0, default_pvid=1, ageing_time=30000,
                       vlan_protocol=0x8100, group_fwd_mask=0, fdb_max_learned=0)
STATE_FORWARDING = 3


def ifindex(name):
    return socket.if_nametoindex(name)


class BridgeSide(abc.ABC):
    label = "?"

    def __init__(self, br, ports, br_mac):
        """@br: bridge device name; @ports: {'p1': devname, ...};
        @br_mac: the bridge's own address (its local entry survives reset)."""
        self.br = br
        self.br_ifindex = ifindex(br)
        self.ports = dict(ports)
        self.port_ifindex = {p: ifindex(d) for p, d in ports.items()}
        self.name_of = {v: k for k, v in self.port_ifindex.items()}
        self.name_of[self.br_ifindex] = "br"
        self.br_mac = br_mac
        self.rtnl = nl.NlSocket(nl.NETLINK_ROUTE)

    def dev_ifindex(self, port):
        return self.br_ifindex if port == "br" else self.port_ifindex[port]

    # -- enslaving, identical for both bridges (ndo_add_slave/ndo_del_slave) --
    def _set_master(self, port, master):
        body = struct.pack("=BxHiII", socket.AF_UNSPEC, 0, self.port_ifindex[port], 0, 0)
        self.rtnl.request(RTM_SETLINK, body + nl.u32(IFLA_MASTER, master))

    def port_add(self, port):
        self._set_master(port, self.br_ifindex)

    def port_del(self, port):
        self._set_master(port, 0)

    def link_updown(self, port, up):
        """`ip link set P up|down`: the port's own device (IFF_UP)."""
        body = struct.pack("=BxHiII", socket.AF_UNSPEC, 0, self.port_ifindex[port],
                           IFF_UP if up else 0, IFF_UP)
        self.rtnl.request(RTM_SETLINK, body)
        if up:
            self.wait_port_up(port)

    def admin_up(self, port):
        """Is the port's device up (IFF_UP)?"""
        try:
            with open("/sys/class/net/%s/flags" % self.ports[port]) as f:
                return bool(int(f.read(), 16) & IFF_UP)
        except OSError:
            return True

    def wait_port_up(self, port, limit=3.0):
        """Up is asynchronous: the carrier and operstate follow through
        linkwatch (up to a second later), and only then does the Linux
        bridge enable the port. Wait for operstate up here; each side adds
        what it must wait for."""
        end = time.monotonic() + limit
        path = "/sys/class/net/%s/operstate" % self.ports[port]
        while time.monotonic() < end:
            try:
                with open(path) as f:
                    if f.read().strip() == "up":
                        # linkwatch sets operstate, then tells the bridge
                        # (NETDEV_CHANGE) under the same RTNL hold.
                        time.sleep(0.1)
                        return True
            except OSError:
                return False
            time.sleep(0.02)
        return False

    def attached(self):
        """Logical names of the ports currently enslaved to this bridge."""
        out = []
        for p, idx in self.port_ifindex.items():
            try:
                with open("/sys/class/net/%s/master/ifindex" % self.ports[p]) as f:
                    if int(f.read()) == self.br_ifindex:
                        out.append(p)
            except OSError:
                pass
        return out

    def reset(self, nports):
        """The bridge as just created with ports p1..p@nports attached:
        options at their defaults, no VLANs but VID 1 (PVID, untagged) on
        the bridge and each port, no FDB entries but the local ones."""
        for p in self.attached():
            self.port_del(p)
        # A scenario may have left a port's device down.
        for p in self.ports:
            if not self.admin_up(p):
                self.link_updown(p, True)
        # default_pvid may only change with filtering off.
        self.bridge_set({"vlan_filtering": 0})
        self.bridge_set(dict(BRIDGE_DEFAULTS))
        # Deleting VID 1 too resets its per-VLAN state.
        for vid, flags, state in self.vlan_dump().get("br", []):
            self.vlan_del("br", vid, None)
        # With no port left, flush everything (static entries on the
        # bridge survive the deletion of their VLAN, and could not be
        # deleted one by one any more), then put back the bridge's own
        # address: VID 0 here, VID 1 with the VLAN.
        self.fdb_flush("br", None, None)
        self.fdb_change("replace", self.br_mac, "br", None, "local", False, False)
        self.vlan_add("br", 1, None, True, True)
        for p in ["p%d" % i for i in range(1, nports + 1)]:
            self.port_add(p)

    # -- what each implementation provides ------------------------------------
    @abc.abstractmethod
    def bridge_set(self, opts):
        """@opts: a subset of BRIDGE_DEFAULTS' keys (vlan_protocol as an int)."""

    @abc.abstractmethod
    def link_set(self, port, flags, state):
        """@flags: {name: bool} from scenario.PORT_FLAGS; @state: 0..4 or None."""

    @abc.abstractmethod
    def fdb_change(self, cmd, mac, port, vlan, kind, sticky, extern_learn):
        """cmd 'add' | 'append' | 'replace' (NLM_F_EXCL / APPEND / REPLACE, all
        with CREATE); kind None means iproute2's default (local); vlan None
        means no VLAN attribute (the bridge adds VID 0 and every port VLAN)."""

    @abc.abstractmethod
    def fdb_del(self, port, mac, vlan):
        """`bridge fdb del MAC dev PORT|br [vlan V]`; vlan None: no VLAN
        attribute (VID 0 and every VLAN of the port)."""

    @abc.abstractmethod
    def fdb_flush(self, port, vlan, kind):
        """`bridge fdb flush dev PORT|br [vlan V] [dynamic|static|permanent]`."""

    @abc.abstractmethod
    def vlan_add(self, port, vid, end, pvid, untagged):
        """port 'br' means the bridge's own VLANs (`self`)."""

    @abc.abstractmethod
    def vlan_del(self, port, vid, end):
        """`bridge vlan del vid VID[-END] dev PORT|br`."""

    @abc.abstractmethod
    def vlan_set_state(self, port, vid, end, state):
        """`bridge vlan set vid VID[-END] dev PORT|br state STATE`."""

    @abc.abstractmethod
    def fdb_dump(self):
        """The bridge's FDB, normalised as the module comment says."""

    @abc.abstractmethod
    def vlan_dump(self):
        """The VLAN table, normalised as the module comment says."""
