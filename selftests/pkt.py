#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""pkt.py - send and count raw Ethernet frames on an interface (AF_PACKET).

  pkt.py send IFACE DST SRC [--vlan VID] [--count N] [--ethertype 0x88b5]
  pkt.py count IFACE --src SRC [--seconds S] [--vlan VID|none] [--until N]

`count` prints how many test frames (EtherType 0x88b5, the IEEE local
experimental type `send` uses, so the hosts' own IPv6 chatter is not counted)
from SRC arrived within S seconds, or as soon as N have (--until). With
--vlan, only frames carrying that 802.1Q tag count (the kernel reports it out
of band through PACKET_AUXDATA; `none` counts only untagged ones). It prints
"ready" on stderr once the socket is bound, so a caller can start sending;
with --start-file, the S-second window starts once that file exists.
"""
import argparse
import os
import select
import socket
import struct
import sys
import time

ETH_P_ALL = 0x0003
SOL_PACKET = 263
PACKET_AUXDATA = 8
TP_STATUS_VLAN_VALID = 1 << 4


def mac_bytes(text):
    return bytes(int(b, 16) for b in text.split(":"))


def send(args):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((args.iface, 0))
    frame = mac_bytes(args.dst) + mac_bytes(args.src)
    if args.vlan is not None:
        frame += struct.pack("!HH", 0x8100, args.vlan)
    frame += struct.pack("!H", int(args.ethertype, 0))
    frame += b"xbridge-selftest".ljust(46, b"\0")
    for _ in range(args.count):
        s.send(frame)
    return 0


def count(args):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.setsockopt(SOL_PACKET, PACKET_AUXDATA, 1)
    s.bind((args.iface, 0))
    print("ready", file=sys.stderr, flush=True)
    if args.start_file:
        # Frames queue on the bound socket; the window starts at "go".
        limit = time.monotonic() + 60
        while not os.path.exists(args.start_file) and time.monotonic() < limit:
            time.sleep(0.05)
    src = mac_bytes(args.src)
    want_vlan = None if args.vlan is None else (-1 if args.vlan == "none" else int(args.vlan))
    n = 0
    deadline = time.monotonic() + args.seconds
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        r, _, _ = select.select([s], [], [], left)
        if not r:
            continue
        data, anc, _, addr = s.recvmsg(65535, socket.CMSG_SPACE(64))
        if addr[2] == socket.PACKET_OUTGOING or data[6:12] != src:
            continue
        vid = -1
        for level, kind, cdata in anc:
            if level == SOL_PACKET and kind == PACKET_AUXDATA:
                status, _, _, _, _, tci = struct.unpack("IIIHHH", cdata[:18])
                if status & TP_STATUS_VLAN_VALID:
                    vid = tci & 0xfff
        if vid < 0 and data[12:14] == b"\x81\x00":
            vid = struct.unpack("!H", data[14:16])[0] & 0xfff
        ethertype = data[12:14]
        if ethertype == b"\x81\x00" and vid >= 0:
            ethertype = data[16:18]
        if ethertype != b"\x88\xb5":
            continue
        if want_vlan is not None and vid != want_vlan:
            continue
        n += 1
        if args.until and n >= args.until:
            break
    print(n)
    return 0


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    ps = sub.add_parser("send")
    ps.add_argument("iface")
    ps.add_argument("dst")
    ps.add_argument("src")
    ps.add_argument("--vlan", type=int)
    ps.add_argument("--count", type=int, default=1)
    ps.add_argument("--ethertype", default="0x88b5")
    pc = sub.add_parser("count")
    pc.add_argument("iface")
    pc.add_argument("--src", required=True)
    pc.add_argument("--seconds", type=float, default=2.0)
    pc.add_argument("--vlan")
    pc.add_argument("--until", type=int, default=0)
    pc.add_argument("--start-file")
    args = p.parse_args()
    return send(args) if args.cmd == "send" else count(args)


if __name__ == "__main__":
    sys.exit(main())
