#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Guest helper of observe.sh: a plain TCP peer of siw that provokes one
event each of the device's counters is there to count.

  observe-peer.py badcrc ADDR PORT       connect, then a Send whose CRC
                                         is one bit off
  observe-peer.py badkey ADDR PORT       MPA Request with a wrong key
  observe-peer.py crc ADDR PORT          rev 1 Request asking for CRCs
  observe-peer.py term ADDR PORT LAYER   connect, then a Terminate of
                                         LAYER (0 RDMAP, 1 DDP, 2 LLP)
  observe-peer.py marker ADDR PORT       connect (siw asks for markers),
                                         then a Send with a wrong marker
  observe-peer.py reject ADDR PORT       listen, answer one MPA Request
                                         with a Reply with R set

The clients connect to an rdma_cm listener on a siw device; the server
is the peer of an rdma_cm client on one. Frames and FPDUs are built by
hostile-peer.py's encoders. Each mode prints what it saw and exits 0 if
siw answered as the RFCs say: a Reply with R set (badkey, crc), the end
of the connection (term, after our Terminate), a Terminate and then the
end (badcrc, marker), the initiator's close after our reject (reject);
the Terminate's triple is printed for the caller to judge. Every
wait is bounded by LIMIT seconds (env OBSERVE_LIMIT, 30).
"""
import importlib.util
import os
import socket
import struct
import sys

LIMIT = float(os.environ.get("OBSERVE_LIMIT", "30"))


def peer_codec():
    """The MPA/DDP/RDMAP encoders of hostile-peer.py, next to us."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "hostile-peer.py")
    spec = importlib.util.spec_from_file_location("hostile_peer", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


HP = peer_codec()


def ended(c):
    """Read until siw ends the connection: 'eof', 'reset' or 'still
    open' after LIMIT seconds."""
    try:
        while c.s.recv(4096):
            pass
        return "eof"
    except ConnectionResetError:
        return "reset"
    except socket.timeout:
        return "still open"


def connect(addr, port):
    c = HP.Conn(socket.create_connection((addr, int(port)), timeout=LIMIT))
    c.s.settimeout(LIMIT)
    return c


def reply(c):
    """siw's MPA Reply: (flags, rev), printed; None if none came."""
    try:
        key, flags, rev, _ = c.read_frame()
    except (EOFError, ConnectionResetError, socket.timeout) as e:
        print(f"no MPA Reply from siw: {e!r}")
        return None
    print(f"MPA Reply: key ok {key == HP.REP_KEY}, rev {rev}, "
          f"R {bool(flags & HP.F_R)}, C {bool(flags & HP.F_C)}, "
          f"M {bool(flags & HP.F_M)}")
    return flags, rev


def refused(addr, port, key):
    """A rev 1 Request with C set: siw must answer with R set."""
    c = connect(addr, port)
    c.honest(HP.mpa(key, HP.F_C, 1, b""))
    got = reply(c)
    how = ended(c)
    print(f"connection ended: {how}")
    return got is not None and got[0] & HP.F_R and how != "still open"


def established(addr, port):
    """An honest rev 1 connection with CRCs: the Conn, settings set."""
    c = connect(addr, port)
    c.honest(HP.mpa(HP.REQ_KEY, HP.F_C, 1, b""))
    got = reply(c)
    if got is None or got[0] & HP.F_R:
        return None
    HP.negotiated(c, got[0], got[1], b"", HP.F_C)
    return c


def term(addr, port, layer):
    """A Terminate (RFC 5040 4.8) of @layer, etype 0, code 0, no header
    copied: queue 2, MSN 1."""
    c = established(addr, port)
    if c is None:
        return False
    ctrl = struct.pack(">BBH", (layer & 0xF) << 4, 0, 0)
    c.send(HP.untagged(HP.OP_TERM, 2, 1, 0, ctrl))
    print(f"sent a Terminate, layer {layer}")
    how = ended(c)
    print(f"connection ended: {how}")
    return how != "still open"


def read_terminate(c):
    """siw's next FPDU (no markers: we did not ask for them); True if it
    is a Terminate, its triple printed."""
    try:
        ulen = struct.unpack(">H", c.raw(2))[0]
        ulpdu = c.raw(ulen)
    except (EOFError, ConnectionResetError, socket.timeout) as e:
        print(f"no FPDU from siw: {e!r}")
        return False
    if len(ulpdu) < 22 or ulpdu[1] & 0x0F != HP.OP_TERM:
        print(f"siw's first FPDU is not a Terminate: {ulpdu[:4].hex()}")
        return False
    ctrl = struct.unpack(">I", ulpdu[18:22])[0]
    print(f"Terminate from siw: layer {ctrl >> 28} type {(ctrl >> 24) & 0xF}"
          f" code {(ctrl >> 16) & 0xFF:#x}")
    return True


def badcrc(addr, port):
    """A Send of 4 octets (QN 0, MSN 1) whose CRC32c has one bit
    flipped: siw must stop the stream (RFC 5044 8)."""
    c = established(addr, port)
    if c is None:
        return False
    c.honest(c.wire(HP.untagged(HP.OP_SEND, 0, 1, 0, b"siw!"), crc="wrong"))
    print("sent a Send whose CRC is wrong")
    return answered(c)


def answered(c):
    """siw's Terminate, then the end of the connection."""
    got = read_terminate(c)
    how = ended(c)
    print(f"connection ended: {how}")
    return got and how != "still open"


def marker(addr, port):
    """A Send long enough to hold a marker past its leading one; that
    marker points 8 octets off. Its CRC is right (over the markers)."""
    c = established(addr, port)
    if c is None or not c.txm:
        print("siw did not ask for markers")
        return False

    def mark(k, ptr):
        return struct.pack(">HH", 0, (ptr + 8 if k == 1 else ptr) & 0xFFFF)

    c.honest(c.wire(HP.untagged(HP.OP_SEND, 0, 1, 0, bytes(600)),
                    mark=mark))
    print("sent a Send whose second marker is wrong")
    return answered(c)


def reject(addr, port):
    """Take one connection, read its MPA Request, answer R set (rev 1,
    no private data) and wait for the initiator's close."""
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((addr, int(port)))
    ls.listen(1)
    ls.settimeout(LIMIT)
    s, peer = ls.accept()
    ls.close()
    c = HP.Conn(s)
    c.s.settimeout(LIMIT)
    key, flags, rev, pd = c.read_frame()
    print(f"MPA Request from {peer[0]}: key ok {key == HP.REQ_KEY}, "
          f"rev {rev}, {len(pd)} octets of private data")
    c.honest(HP.mpa(HP.REP_KEY, HP.F_C | HP.F_R, 1, b""))
    print("sent a Reply with R set")
    how = ended(c)
    print(f"connection ended: {how}")
    return key == HP.REQ_KEY and how != "still open"


def main(argv):
    mode = argv[0] if argv else ""
    if mode == "badcrc" and len(argv) == 3:
        return badcrc(argv[1], argv[2])
    if mode == "badkey" and len(argv) == 3:
        return refused(argv[1], argv[2], b"MPA ID Req Fram!")
    if mode == "crc" and len(argv) == 3:
        return refused(argv[1], argv[2], HP.REQ_KEY)
    if mode == "term" and len(argv) == 4:
        return term(argv[1], argv[2], int(argv[3]))
    if mode == "marker" and len(argv) == 3:
        return marker(argv[1], argv[2])
    if mode == "reject" and len(argv) == 3:
        return reject(argv[1], argv[2])
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(0 if main(sys.argv[1:]) else 1)
