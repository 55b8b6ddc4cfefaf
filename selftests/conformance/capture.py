# SPDX-License-Identifier: GPL-2.0
"""capture.py - inject frames on the hosts of one bridge and record, on
every host and on the bridge device, which of the harness's frames arrived,
byte for byte (VLAN tags included).

The hosts are the eth0 of namespaces PREFIX1..PREFIXn; one AF_PACKET socket
per host, opened inside its namespace, sends and receives. The kernel hands
a received frame's outer VLAN tag out of band (PACKET_AUXDATA); it is put
back, so the recorded bytes are the frame on the wire. Frames the socket's
own device sent (PACKET_OUTGOING) are not arrivals.

Every injected frame carries MAGIC + a 32-bit sequence number in its
payload, so frames that are not the harness's (none are expected: IPv6 is
off) are ignored and a late frame is still charged to the step that sent it.

Ownership: a Capture owns its sockets for the whole run; single-threaded.
"""
import ctypes
import os
import select
import socket
import struct
import time

ETH_P_ALL = 0x0003
SOL_PACKET = 263
PACKET_AUXDATA = 8
PACKET_OUTGOING = 4
TP_STATUS_VLAN_VALID = 1 << 4
TP_STATUS_VLAN_TPID_VALID = 1 << 6
CLONE_NEWNET = 0x40000000
AUXDATA = struct.Struct("=IIIHHHH")
MAGIC = b"XBCF"

_libc = ctypes.CDLL(None, use_errno=True)


def _setns(fd):
    if _libc.setns(fd, CLONE_NEWNET) != 0:
        e = ctypes.get_errno()
        raise OSError(e, "setns: " + os.strerror(e))


def _packet_socket(ifname, netns=None):
    """An AF_PACKET socket bound to @ifname in namespace @netns (a name
    under /run/netns), created there; the caller's namespace is restored."""
    home = os.open("/proc/self/ns/net", os.O_RDONLY)
    try:
        if netns:
            fd = os.open("/run/netns/" + netns, os.O_RDONLY)
            try:
                _setns(fd)
            finally:
                os.close(fd)
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
        s.setsockopt(SOL_PACKET, PACKET_AUXDATA, 1)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 21)
        s.bind((ifname, 0))
        s.setblocking(False)
        return s
    finally:
        if netns:
            _setns(home)
        os.close(home)


def marker(seq):
    return MAGIC + struct.pack("!I", seq)


def marker_seq(frame):
    i = frame.find(MAGIC)
    if i < 0 or i + 8 > len(frame):
        return None
    return struct.unpack_from("!I", frame, i + 4)[0]


class Capture:
    def __init__(self, ns_prefix, nports, br_dev):
        """Hosts p1..p@nports are eth0 in namespaces @ns_prefix<N>; 'br' is
        the bridge device @br_dev in this namespace."""
        self.socks = {"p%d" % i: _packet_socket("eth0", "%s%d" % (ns_prefix, i))
                      for i in range(1, nports + 1)}
        self.socks["br"] = _packet_socket(br_dev)
        self.port_of = {s.fileno(): p for p, s in self.socks.items()}
        self.arrived = {}       # seq -> list of (port, bytes)

    def sockets(self):
        return list(self.socks.values())

    def send(self, port, frame):
        self.socks[port].send(frame)

    def read_ready(self, sock):
        """Record every frame queued on @sock; return how many were ours."""
        port = self.port_of[sock.fileno()]
        n = 0
        while True:
            try:
                data, anc, _, addr = sock.recvmsg(65536, socket.CMSG_SPACE(AUXDATA.size))
            except BlockingIOError:
                return n
            if addr[2] == PACKET_OUTGOING:
                continue
            for level, kind, blob in anc:
                if level == SOL_PACKET and kind == PACKET_AUXDATA and len(blob) >= AUXDATA.size:
                    status, _, _, _, _, tci, tpid = AUXDATA.unpack_from(blob)
                    if status & TP_STATUS_VLAN_VALID:
                        if not status & TP_STATUS_VLAN_TPID_VALID or not tpid:
                            tpid = 0x8100
                        data = data[:12] + struct.pack("!HH", tpid, tci) + data[12:]
            seq = marker_seq(data)
            if seq is None:
                continue
            self.arrived.setdefault(seq, []).append((port, data))
            n += 1

    def frames(self, seq):
        """What arrived for step @seq: sorted (port, bytes) pairs."""
        return sorted(self.arrived.get(seq, []))

    def forget(self):
        self.arrived.clear()


def settle(captures, quiet=0.03, limit=5.0):
    """Read every capture until no frame has arrived for @quiet seconds."""
    socks = {}
    for c in captures:
        for s in c.sockets():
            socks[s] = c
    end = time.monotonic() + limit
    while time.monotonic() < end:
        ready, _, _ = select.select(list(socks), [], [], quiet)
        if not ready:
            return
        for s in ready:
            socks[s].read_ready(s)
