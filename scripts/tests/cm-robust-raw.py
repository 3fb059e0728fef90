#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Guest helper of cm-robust.sh: a plain TCP peer that misbehaves during
MPA setup, against an rdma_cm listener or connect on a siw device.

As a client of our responder (ADDR PORT: an rdma_cm listener):
  silent ADDR PORT          connect, send nothing, wait for our close
  partial-rst ADDR PORT     half a Request, then a reset (SO_LINGER 0)
  req-rst ADDR PORT FLAG    a whole Request; a reset once the file FLAG
                            exists
  bad KIND ADDR PORT        a malformed Request; a Reject frame and our
                            close must follow. KIND: key (not an MPA key),
                            pdlen (PD_Length 513), rev0, rev3, repkey (a
                            Reply's key)
  park N ADDR PORT          N connections, silent; "parked" once all are
                            up; then wait until each was closed by us
As the server our initiator connects to:
  srv KIND ADDR PORT        accept one connection, read the Request, then
                            KIND: silent (say nothing until we close),
                            rst (reset), bad (a Reply with a Request's
                            key), badlen (a Reply with PD_Length 600)

Every wait is bounded by LIMIT seconds (env CM_ROBUST_LIMIT, 60). Exit
status 0 when the peer (siw) ended the connection as it should; the
last line says how.
"""
import os
import socket
import struct
import sys
import time

LIMIT = float(os.environ.get("CM_ROBUST_LIMIT", "60"))
REQ_KEY = b"MPA ID Req Frame"
REP_KEY = b"MPA ID Rep Frame"
F_CRC = 0x40
F_REJECT = 0x20


def frame(key, flags=0, rev=1, pd_len=0, pd=b""):
    """An MPA Request or Reply header (RFC 5044 section 7.1) and data."""
    return key + struct.pack(">BBH", flags, rev, pd_len) + pd


def wait_closed(sock):
    """Read until the peer ends the connection: its data and how."""
    data = b""
    sock.settimeout(LIMIT)
    try:
        while True:
            chunk = sock.recv(4096)
            if not chunk:
                return data, "eof"
            data += chunk
    except ConnectionResetError:
        return data, "reset"
    except socket.timeout:
        return data, "still open"


def connect(addr, port):
    return socket.create_connection((addr, int(port)), timeout=LIMIT)


def reset(sock):
    """Close with a reset instead of a FIN (SO_LINGER on, time 0)."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                    struct.pack("ii", 1, 0))
    sock.close()


def silent(addr, port):
    sock = connect(addr, port)
    _, how = wait_closed(sock)
    print(f"closed by siw: {how}")
    return how != "still open"


def partial_rst(addr, port):
    sock = connect(addr, port)
    sock.sendall(frame(REQ_KEY)[:10])
    time.sleep(0.5)
    reset(sock)
    print("sent 10 octets of a Request, then a reset")
    return True


def req_rst(addr, port, flag):
    sock = connect(addr, port)
    sock.sendall(frame(REQ_KEY, flags=F_CRC))
    deadline = time.monotonic() + LIMIT
    while not os.path.exists(flag):
        if time.monotonic() > deadline:
            print(f"no {flag} within {LIMIT:.0f} s")
            return False
        time.sleep(0.1)
    reset(sock)
    print("sent a Request, then a reset")
    return True


BAD = {
    "key": frame(b"MPA ID Bad Frame"),
    "pdlen": frame(REQ_KEY, pd_len=513, pd=bytes(513)),
    "rev0": frame(REQ_KEY, rev=0),
    "rev3": frame(REQ_KEY, rev=3),
    "repkey": frame(REP_KEY),
}


def bad(kind, addr, port):
    sock = connect(addr, port)
    try:
        sock.sendall(BAD[kind])
    except ConnectionResetError:
        print("reset while sending")
    data, how = wait_closed(sock)
    rejected = (len(data) >= 20 and data[:16] == REP_KEY and
                data[16] & F_REJECT)
    print(f"{kind}: {len(data)} octets back, Reject frame: "
          f"{'yes' if rejected else 'no'}; closed by siw: {how}")
    return rejected and how != "still open"


def park(count, addr, port):
    socks = [connect(addr, port) for _ in range(int(count))]
    print(f"parked {len(socks)}", flush=True)
    ends = {}
    for sock in socks:
        _, how = wait_closed(sock)
        ends[how] = ends.get(how, 0) + 1
    print("closed by siw: " +
          ", ".join(f"{n} {how}" for how, n in sorted(ends.items())))
    return "still open" not in ends


def srv(kind, addr, port):
    lsock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsock.bind((addr, int(port)))
    lsock.listen(1)
    lsock.settimeout(LIMIT)
    print("listening", flush=True)
    sock, _ = lsock.accept()
    sock.settimeout(LIMIT)
    hdr = b""
    while len(hdr) < 20:
        chunk = sock.recv(20 - len(hdr))
        if not chunk:
            print("the initiator closed before its Request")
            return False
        hdr += chunk
    pd_len = struct.unpack(">H", hdr[18:20])[0]
    while pd_len > 0:
        chunk = sock.recv(pd_len)
        if not chunk:
            break
        pd_len -= len(chunk)
    print(f"Request: key {hdr[:16]!r} rev {hdr[17]}", flush=True)
    if kind == "rst":
        reset(sock)
        print("reset")
        return True
    if kind == "bad":
        sock.sendall(frame(REQ_KEY))
    elif kind == "badlen":
        sock.sendall(frame(REP_KEY, pd_len=600, pd=bytes(600)))
    _, how = wait_closed(sock)
    print(f"closed by siw: {how}")
    return how != "still open"


def main(argv):
    modes = {"silent": silent, "partial-rst": partial_rst,
             "req-rst": req_rst, "bad": bad,
             "park": park, "srv": srv}
    if len(argv) < 2 or argv[1] not in modes:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        return 0 if modes[argv[1]](*argv[2:]) else 1
    except OSError as err:
        print(f"error: {err}")
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
