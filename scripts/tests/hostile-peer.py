#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Guest helper of hostile.sh: a hostile iWARP peer, written from the
RFCs (5044 MPA, 5041 DDP, 5040 RDMAP), against hostile-target.

  hostile-peer.py ADDR PORT CONNS SEED

For each of CONNS connections: a valid MPA revision 1 setup with CRCs,
the target's Send (its region's address, rkey and length) read, a few
valid RDMA Writes into that region, then one hostile frame drawn from
the mutations below with a PRNG seeded from SEED. Every hostile frame
must end the connection: a Terminate from the target, or its close (FIN
or reset), within LIMIT seconds (env HOSTILE_LIMIT, 20). A connection
that stays open and silent is a failure ("hang").

Prints one line per mutation kind with its count and outcome, the seed,
the number of hostile frames and "result: ..."; exits 0 when every
connection ended as it should.
"""
import os
import random
import socket
import struct
import sys
import time

LIMIT = float(os.environ.get("HOSTILE_LIMIT", "20"))
REQ_KEY = b"MPA ID Req Frame"
REP_KEY = b"MPA ID Rep Frame"
F_MARKERS, F_CRC, F_REJECT = 0x80, 0x40, 0x20

OP_WRITE, OP_RREQ, OP_RRESP, OP_SEND = 0, 1, 2, 3
OP_SEND_INV, OP_SEND_SE, OP_SEND_SE_INV, OP_TERM = 4, 5, 6, 7


def _crc_table():
    t = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        t.append(c)
    return t


CRC_TABLE = _crc_table()


def crc32c(data):
    """CRC32c (RFC 3385), as MPA puts it on the wire (RFC 5044 6.5)."""
    c = 0xFFFFFFFF
    for b in data:
        c = CRC_TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def fpdu(ulpdu, crc_ok=True, length=None):
    """An FPDU around ULPDU: length, ULPDU, pad, CRC (no markers)."""
    n = len(ulpdu) if length is None else length
    body = struct.pack(">H", n & 0xFFFF) + ulpdu
    body += b"\0" * (-len(body) % 4)
    c = crc32c(body)
    if not crc_ok:
        c ^= 0x1
    return body + struct.pack("<I", c)


def tagged(op, stag, to, payload=b"", last=True, dv=1, rv=1):
    """A tagged DDP segment (RFC 5041 4.2) with an RDMAP header."""
    ctrl = 0x80 | (0x40 if last else 0) | (dv & 3)
    return struct.pack(">BBIQ", ctrl, ((rv & 3) << 6) | (op & 0xF),
                       stag & 0xFFFFFFFF, to & 0xFFFFFFFFFFFFFFFF) + payload


def untagged(op, qn, msn, mo, payload=b"", last=True, inv=0, dv=1, rv=1):
    """An untagged DDP segment (RFC 5041 4.3) with an RDMAP header."""
    ctrl = (0x40 if last else 0) | (dv & 3)
    return struct.pack(">BBIIII", ctrl, ((rv & 3) << 6) | (op & 0xF),
                       inv & 0xFFFFFFFF, qn & 0xFFFFFFFF, msn & 0xFFFFFFFF,
                       mo & 0xFFFFFFFF) + payload


def rreq(sink_stag, sink_to, size, src_stag, src_to):
    """The RDMA Read Request header (RFC 5040 4.4)."""
    return struct.pack(">IQIIQ", sink_stag, sink_to & (2**64 - 1),
                       size & 0xFFFFFFFF, src_stag & 0xFFFFFFFF,
                       src_to & (2**64 - 1))


class Conn:
    """One connection to the target, set up honestly."""

    def __init__(self, addr, port):
        self.s = socket.create_connection((addr, port), timeout=LIMIT)
        self.buf = b""
        self.msn = {0: 1, 1: 1, 2: 1}
        self.s.sendall(REQ_KEY + struct.pack(">BBH", F_CRC, 1, 0))
        hdr = self.exact(20)
        flags, rev, pdlen = struct.unpack(">BBH", hdr[16:])
        self.exact(pdlen)
        if hdr[:16] != REP_KEY or flags & F_REJECT:
            raise RuntimeError("MPA reply refused or malformed")
        if flags & F_MARKERS:
            raise RuntimeError("the target wants markers")
        self.crc = True
        op, h, payload = self.read_fpdu()
        if op != OP_SEND or len(payload) != 16:
            raise RuntimeError("no region advertisement: op %d" % op)
        hi, lo, self.rkey, self.len = struct.unpack(">IIII", payload)
        self.addr = hi << 32 | lo

    def exact(self, n):
        while len(self.buf) < n:
            d = self.s.recv(65536)
            if not d:
                raise EOFError
            self.buf += d
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def read_fpdu(self):
        """The next FPDU: (opcode, header octets, payload)."""
        n = struct.unpack(">H", self.exact(2))[0]
        ulpdu = self.exact(n)
        self.exact((-(2 + n) % 4) + 4)
        op = ulpdu[1] & 0xF
        hlen = 14 if ulpdu[0] & 0x80 else 18
        return op, ulpdu[:hlen], ulpdu[hlen:]

    def send(self, ulpdu, **kw):
        self.s.sendall(fpdu(ulpdu, **kw))

    def write(self, off, data, stag=None):
        self.send(tagged(OP_WRITE, self.rkey if stag is None else stag,
                         self.addr + off, data))

    def send_msg(self, data, op=OP_SEND, mo=0, last=True, inv=0):
        self.send(untagged(op, 0, self.msn[0], mo, data, last, inv))
        if last:
            self.msn[0] += 1

    def read_req(self, src_to, size, src=None, sink=0x12345601, qn=1):
        self.send(untagged(OP_RREQ, qn, self.msn[1], 0,
                           rreq(sink, 0x10000, size,
                                self.rkey if src is None else src, src_to)))
        self.msn[1] += 1

    def end(self):
        """How the target ended the connection: 'terminate', 'closed',
        'reset' or 'open' (nothing within LIMIT)."""
        deadline = time.time() + LIMIT
        try:
            while True:
                self.s.settimeout(max(0.1, deadline - time.time()))
                op, h, _ = self.read_fpdu()
                if op == OP_TERM:
                    return "terminate"
        except EOFError:
            return "closed"
        except ConnectionResetError:
            return "reset"
        except socket.timeout:
            return "open"
        except OSError:
            return "reset"

    def close(self):
        try:
            self.s.close()
        except OSError:
            pass


def forged(c, r):
    return (c.rkey & 0xFF) | (r.randrange(1, 1 << 24) << 8)


# Each mutation sends one hostile frame (or sequence) the target must
# answer with a Terminate or a close.
def m_crc(c, r):
    c.send(tagged(OP_WRITE, c.rkey, c.addr, b"x" * 64), crc_ok=False)


def m_stag_forged(c, r):
    c.write(0, b"f" * r.randrange(1, 512), stag=forged(c, r))


def m_stag_key(c, r):
    c.write(0, b"k" * 16, stag=(c.rkey & ~0xFF) | ((c.rkey + 1) & 0xFF))


def m_past_end(c, r):
    n = r.randrange(1, 256)
    c.write(c.len - n + r.randrange(1, 64), b"p" * n)


def m_below(c, r):
    c.send(tagged(OP_WRITE, c.rkey, c.addr - r.randrange(1, 4096), b"b" * 8))


def m_to_wrap(c, r):
    c.send(tagged(OP_WRITE, c.rkey, 2**64 - r.randrange(1, 8), b"w" * 16))


def m_send_too_long(c, r):
    c.send_msg(b"L" * r.randrange(257, 1024))


def m_send_bad_qn(c, r):
    c.send(untagged(OP_SEND, r.choice([3, 7, 0xFFFFFFFF]), 1, 0, b"q" * 8))


def m_send_bad_msn(c, r):
    c.send(untagged(OP_SEND, 0, c.msn[0] + r.randrange(1, 1 << 31), 0,
                    b"m" * 8))


def m_send_mo_gap(c, r):
    c.send_msg(b"g" * 8, mo=r.randrange(1, 200))


def m_send_mo_past(c, r):
    c.send_msg(b"o" * 8, mo=r.randrange(256, 1 << 32))


def m_send_inv_forged(c, r):
    c.send_msg(b"i" * 8, op=OP_SEND_INV, inv=forged(c, r))


def m_rreq_bounds(c, r):
    c.read_req(c.addr + c.len - 8, r.randrange(9, 1 << 20))


def m_rreq_huge(c, r):
    c.read_req(c.addr, 0xFFFFFFFF)


def m_rreq_forged(c, r):
    c.read_req(c.addr, 64, src=forged(c, r))


def m_rreq_past_ird(c, r):
    # the target asked for an IRD of 4; whether the responses leave fast
    # enough to free slots is timing, so this one may also pass (MAY)
    for _ in range(64):
        c.read_req(c.addr, 4096)


def m_rreq_bad_qn(c, r):
    c.read_req(c.addr, 8, qn=0)


def m_rresp_unasked(c, r):
    c.send(tagged(OP_RRESP, r.randrange(1 << 32), r.randrange(1 << 64),
                  b"r" * 32))


def m_terminate(c, r):
    term = struct.pack(">I", r.randrange(1 << 32))
    c.send(untagged(OP_TERM, 2, 1, 0, term))


def m_opcode(c, r):
    c.send(untagged(r.choice([8, 9, 0xA, 0xC, 0xF]), 0, c.msn[0], 0, b"?"))


def m_versions(c, r):
    if r.random() < 0.5:
        c.send(tagged(OP_WRITE, c.rkey, c.addr, b"v", dv=r.choice([0, 2, 3])))
    else:
        c.send(untagged(OP_SEND, 0, c.msn[0], 0, b"v", rv=r.choice([0, 2, 3])))


def m_short_ulpdu(c, r):
    c.send(b"\x41\x43", length=2)


def m_length_lies(c, r):
    # a length the octets after it do not match: junk follows, enough
    # to complete any FPDU the length may announce
    c.s.sendall(struct.pack(">H", r.randrange(20, 0xFFFF)) +
                bytes(r.randrange(256) for _ in range(r.randrange(4, 64))))
    c.s.sendall(os.urandom(70000))


def m_garbage(c, r):
    c.s.sendall(os.urandom(70000))


def m_random_header(c, r):
    # a valid CRC around random header octets and some payload
    n = r.choice([14, 18]) + r.randrange(0, 64)
    c.send(bytes(r.randrange(256) for _ in range(n)))


def m_torn(c, r):
    # half a Write, then our close: the target must see the end
    whole = fpdu(tagged(OP_WRITE, c.rkey, c.addr, b"t" * 1024))
    c.s.sendall(whole[:r.randrange(1, len(whole) - 1)])
    c.s.shutdown(socket.SHUT_WR)


MUTATIONS = [m_crc, m_stag_forged, m_stag_key, m_past_end, m_below,
             m_to_wrap, m_send_too_long, m_send_bad_qn, m_send_bad_msn,
             m_send_mo_gap, m_send_mo_past, m_send_inv_forged, m_rreq_bounds,
             m_rreq_huge, m_rreq_forged, m_rreq_past_ird, m_rreq_bad_qn,
             m_rresp_unasked, m_terminate, m_opcode, m_versions,
             m_short_ulpdu, m_length_lies, m_garbage, m_random_header,
             m_torn]

# Hostile but answerable without an error: the connection may stay up
MAY = {"m_rreq_past_ird"}


def one(addr, port, r, stats):
    """One connection; returns the hostile frames sent, or raises."""
    c = Conn(addr, port)
    try:
        for _ in range(r.randrange(0, 4)):
            n = r.randrange(1, 1024)
            c.write(r.randrange(0, c.len - n + 1), os.urandom(n))
        m = r.choice(MUTATIONS)
        try:
            m(c, r)
            how = c.end()
        except OSError:
            # the target ended it while the hostile frame was going out
            how = "closed-while-sending"
        if how == "open" and m.__name__ in MAY:
            how = "open-allowed"
        stats.setdefault(m.__name__, {}).setdefault(how, 0)
        stats[m.__name__][how] += 1
        return how
    finally:
        c.close()


def main():
    addr, port, conns, seed = (sys.argv[1], int(sys.argv[2]),
                               int(sys.argv[3]), int(sys.argv[4]))
    r = random.Random(seed)
    stats, hangs, errors = {}, 0, 0
    for i in range(conns):
        try:
            if one(addr, port, r, stats) == "open":
                hangs += 1
        except (OSError, EOFError, RuntimeError) as e:
            errors += 1
            print("connection %d: setup or valid traffic failed: %r"
                  % (i, e))
            if errors > conns // 20 + 2:
                break
    for name in sorted(stats):
        print("%-20s %s" % (name, " ".join(
            "%s=%d" % kv for kv in sorted(stats[name].items()))))
    frames = sum(sum(v.values()) for v in stats.values())
    print("seed %d: %d hostile frames on %d connections" %
          (seed, frames, conns))
    if hangs or errors or frames != conns:
        print("result: FAIL: %d connections left open, %d failed before"
              " the hostile frame" % (hangs, errors))
        return 1
    print("result: every connection ended by a Terminate or a close")
    return 0


if __name__ == "__main__":
    sys.exit(main())
