#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Guest helper of observe.sh: an MPA initiator that sends one FPDU with
a wrong CRC to an rdma_cm listener on a siw device.

  observe-badcrc.py ADDR PORT

Connects, sends an MPA Request (rev 1, CRC asked for, no private data),
reads the Reply, then sends one RDMAP Send (DDP untagged, QN 0, MSN 1,
MO 0, 4 octets of payload) whose CRC32c has one bit flipped. The module
must stop the stream on the CRC (RFC 5044 8), send a Terminate and
close. Prints the Terminate's layer, type and code; exits 0 if a
Terminate came and the connection ended within LIMIT seconds (env
OBSERVE_LIMIT, 30).
"""
import importlib.util
import os
import socket
import struct
import sys

LIMIT = float(os.environ.get("OBSERVE_LIMIT", "30"))
F_CRC = 0x40
F_REJECT = 0x20


def peer_codec():
    """The MPA/DDP/RDMAP encoders of hostile-peer.py, next to us."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "hostile-peer.py")
    spec = importlib.util.spec_from_file_location("hostile_peer", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


HP = peer_codec()


def recv_exact(sock, n):
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise EOFError(f"closed after {len(data)} of {n} octets")
        data += chunk
    return data


def bad_send():
    """One FPDU: a Send of 4 octets (QN 0, MSN 1), its CRC wrong in one
    bit."""
    ulpdu = HP.untagged(HP.OP_SEND, 0, 1, 0, b"siw!")
    fpdu = struct.pack(">H", len(ulpdu)) + ulpdu
    fpdu += b"\0" * (-len(fpdu) % 4)
    # the CRC goes on the wire in network order (RFC 5044 4.1)
    return fpdu + struct.pack(">I", HP.crc32c(fpdu) ^ 0x1)


def read_terminate(sock):
    """The module's first FPDU after ours: its Terminate, if it is one."""
    try:
        ulen = struct.unpack(">H", recv_exact(sock, 2))[0]
        ulpdu = recv_exact(sock, ulen)
    except (EOFError, ConnectionResetError, socket.timeout) as e:
        print(f"no FPDU from siw: {e}")
        return False
    if len(ulpdu) < 22 or ulpdu[1] & 0x0F != HP.OP_TERM:
        print(f"siw's first FPDU is not a Terminate: {ulpdu[:4].hex()}")
        return False
    ctrl = struct.unpack(">I", ulpdu[18:22])[0]
    print(f"Terminate from siw: layer {ctrl >> 28} type {(ctrl >> 24) & 0xF}"
          f" code {(ctrl >> 16) & 0xFF:#x}")
    return True


def closed(sock):
    try:
        while sock.recv(4096):
            pass
        return "eof"
    except ConnectionResetError:
        return "reset"
    except socket.timeout:
        return "still open"


def main(addr, port):
    sock = socket.create_connection((addr, int(port)), timeout=LIMIT)
    sock.sendall(HP.mpa(HP.REQ_KEY, F_CRC, 1, b""))
    rep = recv_exact(sock, 20)
    if rep[:16] != HP.REP_KEY or rep[16] & F_REJECT:
        print(f"no accepting MPA Reply: {rep.hex()}")
        return 1
    recv_exact(sock, struct.unpack(">H", rep[18:20])[0])
    print(f"MPA Reply: rev {rep[17]}, CRC {bool(rep[16] & F_CRC)}")
    sock.sendall(bad_send())
    print("sent one Send FPDU with a wrong CRC")
    term = read_terminate(sock)
    how = closed(sock)
    print(f"connection ended: {how}")
    return 0 if term and how != "still open" else 1


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
