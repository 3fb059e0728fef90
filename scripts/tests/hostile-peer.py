#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Guest helper of hostile.sh: a hostile iWARP peer, written from the
RFCs (5044 MPA, 5041 DDP, 5040 RDMAP, 6581 enhanced setup), against
hostile-target on our module.

  hostile-peer.py connect ADDR PORT CONNS SEED [SOFT]
  hostile-peer.py markers ADDR PORT CONNS SEED [SOFT]
  hostile-peer.py listen  ADDR PORT CONNS SEED [SOFT]

connect: we are the MPA initiator, the module (hostile-target listen)
the responder. A share of the connections (env HOSTILE_MPA_SHARE, 0.3)
sends a mutated MPA Request (keys, revisions, flags, lengths that lie or
are too big, enhanced data and RTR flags of every kind, truncated,
garbage, nothing at all); the module must refuse what RFC 5044 and 6581
call malformed, accept what they say to accept, and end every refused
connection. The rest send an honest request (rev 1 or 2, client-server
or peer-to-peer, with or without asking for markers). Ends with the
connection request whose private data tells the target to stop, unless
env HOSTILE_NO_STOP is set (another run follows against the target).

markers: as connect, against a module that asks for markers (the
device's mpa_markers): our FPDUs carry markers every 512 octets of the
stream (RFC 5044 4.3); the mutations add markers that point anywhere,
missing and extra markers, and right markers around a wrong CRC.

listen: we are the responder; the module (hostile-target connect)
connects CONNS times and gets a mutated MPA Reply (share env
HOSTILE_REPLY_SHARE, 0.6): bad keys, revisions, reject, lengths, IRD and
ORD, the peer-to-peer model unasked for, garbage, truncated, nothing and
a close, a reset or silence. The module must not establish on what is
malformed and must end the attempt.

Every connection the module accepted goes on: its region's description
(a Send from the target) is read, a few valid RDMA Writes go into it,
then up to SOFT survivable hostile frames (env HOSTILE_SOFT, default 4):
frames that bend the rules in ways the RFCs say a receiver must take
(reserved bits set, zero-length segments with forged STags, boundary
offsets and lengths, tagged segments out of order, FPDUs torn across TCP
segments, Read Requests at the region's edges with odd sinks, Read
Responses cut in odd segments, marker reserved bits). The region is read
back and compared with what was written. Then one fatal hostile frame
(a wrong CRC, forged STags and keys, Tagged Offsets out of bounds,
Sends and Read Requests malformed, past the IRD or huge, bogus Read
Responses, Terminates at various stages, lengths that lie, garbage,
random headers with a valid CRC, torn frames, markers) must end the
connection: a Terminate from the module, or its close (FIN or reset),
within LIMIT seconds (env HOSTILE_LIMIT, 20). A connection left open and
silent is a failure ("hang"); so is a survivable frame the module
refused, an accepted malformed frame, a region that does not read back
as written, and a marker or CRC of the module's that is wrong.

The PRNG of connection I is seeded from "SEED:MODE:I", so a failure
names what reproduces it. Prints one line per kind with its outcomes,
"seed S: F hostile frames (...)" and "result: ..."; exits 0 when every
connection ended as it should.
"""
import os
import random
import socket
import struct
import sys
import time

LIMIT = float(os.environ.get("HOSTILE_LIMIT", "20"))
# how long the module may take to give up on a silent peer: its
# mpa_timeout_ms and rtr_timeout_ms, in seconds
MPA_TMO = float(os.environ.get("HOSTILE_MPA_TMO", "20"))
MPA_SHARE = float(os.environ.get("HOSTILE_MPA_SHARE", "0.3"))
REPLY_SHARE = float(os.environ.get("HOSTILE_REPLY_SHARE", "0.6"))

REQ_KEY = b"MPA ID Req Frame"
REP_KEY = b"MPA ID Rep Frame"
F_M, F_C, F_R, F_S = 0x80, 0x40, 0x20, 0x10
STOP_PD = b"hostile-peer: stop"
RTRS = ("write", "read", "send")

OP_WRITE, OP_RREQ, OP_RRESP, OP_SEND = 0, 1, 2, 3
OP_SEND_INV, OP_SEND_SE, OP_SEND_SE_INV, OP_TERM = 4, 5, 6, 7

# Sends per connection, at most: the target has 8 receives posted and
# reposts each as it completes
SENDS = 5


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
    """CRC32c (RFC 3385), as MPA puts it on the wire (RFC 5044 4.4)."""
    c = 0xFFFFFFFF
    t = CRC_TABLE
    for b in data:
        c = t[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def tagged(op, stag, to, payload=b"", last=True, dv=1, rv=1, rsvd=0):
    """A tagged DDP segment (RFC 5041 4.2) with an RDMAP header; rsvd:
    the DDP control reserved bits (2..5) and the RDMAP ones (8, 9)."""
    ctrl = 0x80 | (0x40 if last else 0) | (dv & 3) | (rsvd & 0x3C)
    return struct.pack(">BBIQ", ctrl,
                       ((rv & 3) << 6) | ((rsvd >> 4) & 0x30) | (op & 0xF),
                       stag & 0xFFFFFFFF, to & 0xFFFFFFFFFFFFFFFF) + payload


def untagged(op, qn, msn, mo, payload=b"", last=True, inv=0, dv=1, rv=1,
             rsvd=0):
    """An untagged DDP segment (RFC 5041 4.3) with an RDMAP header."""
    ctrl = (0x40 if last else 0) | (dv & 3) | (rsvd & 0x3C)
    return struct.pack(">BBIIII", ctrl,
                       ((rv & 3) << 6) | ((rsvd >> 4) & 0x30) | (op & 0xF),
                       inv & 0xFFFFFFFF, qn & 0xFFFFFFFF, msn & 0xFFFFFFFF,
                       mo & 0xFFFFFFFF) + payload


def rreq(sink_stag, sink_to, size, src_stag, src_to):
    """The RDMA Read Request header (RFC 5040 4.4)."""
    return struct.pack(">IQIIQ", sink_stag & 0xFFFFFFFF, sink_to & (2**64 - 1),
                       size & 0xFFFFFFFF, src_stag & 0xFFFFFFFF,
                       src_to & (2**64 - 1))


def mpa(key, flags, rev, pd, pdlen=None):
    """An MPA Request or Reply frame (RFC 5044 7.1.1)."""
    n = len(pd) if pdlen is None else pdlen
    return key + struct.pack(">BBH", flags & 0xFF, rev & 0xFF,
                             n & 0xFFFF) + pd


def enh(ird, ord_, p2p=False, rtr=()):
    """Enhanced connection data (RFC 6581 9): A, B (Send RTR), IRD, C
    (Write RTR), D (Read RTR), ORD."""
    w0 = (ird & 0x3FFF) | (0x8000 if p2p else 0) | \
        (0x4000 if "send" in rtr else 0)
    w1 = (ord_ & 0x3FFF) | (0x8000 if "write" in rtr else 0) | \
        (0x4000 if "read" in rtr else 0)
    return struct.pack(">HH", w0, w1)


def enh_parse(pd):
    w0, w1 = struct.unpack(">HH", pd[:4])
    p2p = bool(w0 & 0x8000)
    rtr = set()
    if p2p:
        if w0 & 0x4000:
            rtr.add("send")
        if w1 & 0x8000:
            rtr.add("write")
        if w1 & 0x4000:
            rtr.add("read")
    return w0 & 0x3FFF, w1 & 0x3FFF, p2p, rtr


class Ended(Exception):
    """The module ended the connection: how ('terminate', 'closed',
    'reset') and, for a Terminate, its first octets."""

    def __init__(self, how, term=b""):
        super().__init__(how)
        self.how = how
        self.term = term


class Bad(Exception):
    """The module did something it must not."""


class Conn:
    """One connection with the module: MPA frames, FPDUs both ways
    (markers and CRCs as negotiated), and what we know of the target."""

    def __init__(self, sock):
        self.s = sock
        self.s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.s.settimeout(LIMIT)
        self.buf = bytearray()
        self.crc = True
        self.txm = self.rxm = False
        self.txpos = self.rxpos = 0
        self.msn = [1, 1, 1]
        self.p2p = False
        self.rtr = set()
        self.ird = 4
        self.frames = 0
        self.sends = SENDS
        self.rx_bad = None
        # the sink STag of our Read RTR until its zero-length answer came
        self.rtr_sink = None
        self.addr = self.rkey = self.len = 0
        self.model = None

    # -- raw octets --

    def raw(self, n):
        while len(self.buf) < n:
            d = self.s.recv(65536)
            if not d:
                raise EOFError
            self.buf += d
        out = bytes(self.buf[:n])
        del self.buf[:n]
        return out

    def hostile(self, data):
        """Send hostile octets; one frame counts once the kernel took an
        octet of it."""
        sent = 0
        try:
            while sent < len(data):
                sent += self.s.send(data[sent:])
        finally:
            if sent:
                self.frames += 1
        return 1

    def honest(self, data):
        self.s.sendall(data)

    def read_frame(self):
        """An MPA Request or Reply: (key, flags, rev, private data)."""
        h = self.raw(20)
        flags, rev, n = struct.unpack(">BBH", h[16:])
        return h[:16], flags, rev, self.raw(n)

    # -- FPDUs we receive --

    def _marker(self, lead, start, raw):
        m = self.raw(4)
        raw += m
        ptr = struct.unpack(">H", m[2:])[0] & 0xFFFC
        want = 0 if lead else (self.rxpos - start) & 0xFFFF
        if ptr != want and self.rx_bad is None:
            self.rx_bad = ("the module's marker at stream offset %d has "
                           "FPDUPTR %d, not %d" % (self.rxpos, ptr, want))
        self.rxpos += 4

    def _rx(self, n, start, raw):
        out = bytearray()
        while n:
            if self.rxm and self.rxpos % 512 == 0:
                self._marker(False, start, raw)
            take = min(n, 512 - self.rxpos % 512) if self.rxm else n
            d = self.raw(take)
            out += d
            raw += d
            self.rxpos += take
            n -= take
        return bytes(out)

    def read_fpdu(self):
        """The next FPDU: (opcode, header octets, payload); its markers
        and (for small ones) its CRC checked."""
        raw = bytearray()
        if self.rxm and self.rxpos % 512 == 0:
            self._marker(True, 0, raw)
        start = self.rxpos
        n = struct.unpack(">H", self._rx(2, start, raw))[0]
        ulpdu = self._rx(n, start, raw)
        self._rx(-(2 + n) % 4, start, raw)
        if self.rxm and self.rxpos % 512 == 0:
            self._marker(False, start, raw)
        crc = struct.unpack("<I", self.raw(4))[0]
        self.rxpos += 4
        if self.crc and len(raw) <= 600 and crc32c(raw) != crc and \
                self.rx_bad is None:
            self.rx_bad = "a CRC of the module's is wrong (FPDU of %d)" % n
        if len(ulpdu) < 2:
            return -1, ulpdu, b""
        hlen = 14 if ulpdu[0] & 0x80 else 18
        return ulpdu[1] & 0xF, ulpdu[:hlen], ulpdu[hlen:]

    def expect(self, want):
        """The next FPDU of opcode @want; Ended for a Terminate or the
        end, Bad for anything else. The zero-length Read Response that
        answers our Read RTR is skipped wherever it comes: nothing
        orders it with the target's first Send."""
        while True:
            try:
                op, h, p = self.read_fpdu()
            except EOFError:
                raise Ended("closed")
            except ConnectionResetError:
                raise Ended("reset")
            except socket.timeout:
                raise Bad("nothing from the module within %d s (waiting "
                          "for opcode %d)" % (LIMIT, want))
            if op == OP_TERM:
                raise Ended("terminate", p[:4])
            if op == OP_RRESP and not p and h[0] & 0x40 and \
                    self.rtr_sink is not None and \
                    h[2:14] == struct.pack(">IQ", self.rtr_sink, 0):
                self.rtr_sink = None
                continue
            if op == want:
                return h, p
            raise Bad("opcode %d from the module, expected %d" % (op, want))

    def end(self):
        """How the module ended the connection: 'terminate', 'closed',
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

    # -- FPDUs we send --

    def wire(self, ulpdu, crc="right", length=None, mark=None, extra=None):
        """The FPDU around @ulpdu as it goes on the wire from our stream
        offset: markers where they fall (RFC 5044 4.3), ULPDU Length,
        ULPDU, pad, CRC. crc: 'right', 'wrong' or 'nomarkers' (computed
        as if there were no markers); length: the ULPDU Length to claim;
        mark(k, fpduptr): the octets of the k-th marker (4, or none to
        leave it out); extra: ULPDU offset where a marker that is not due
        goes in. Advances the stream offset."""
        n = len(ulpdu) if length is None else length
        body = struct.pack(">H", n & 0xFFFF) + ulpdu
        body += bytes(-len(body) % 4)
        if not self.txm:
            c = crc32c(body)
            self.txpos += len(body) + 4
            if crc == "wrong":
                c ^= 1 << (c & 31)
            return body + struct.pack("<I", c)
        if mark is None:
            def mark(k, ptr):
                return struct.pack(">HH", 0, ptr)
        out = bytearray()
        pos = self.txpos
        k = 0
        if pos % 512 == 0:
            m = mark(k, 0)
            k += 1
            out += m
            pos += len(m)
        start = pos
        i = 0
        cut = [] if extra is None else [2 + extra]
        while i < len(body):
            if pos % 512 == 0 and pos != start:
                m = mark(k, pos - start)
                k += 1
                out += m
                pos += len(m)
            take = min(512 - pos % 512, len(body) - i)
            if cut and i < cut[0] <= i + take:
                take = cut[0] - i
            out += body[i:i + take]
            pos += take
            i += take
            if cut and i == cut[0]:
                cut = []
                out += struct.pack(">HH", 0, (pos - start) & 0xFFFC)
                pos += 4
        if pos % 512 == 0:
            m = mark(k, pos - start)
            out += m
            pos += len(m)
        c = crc32c(body if crc == "nomarkers" else out)
        if crc == "wrong":
            c ^= 1 << (c & 31)
        self.txpos = pos + 4
        return bytes(out) + struct.pack("<I", c)

    def send(self, ulpdu, **kw):
        self.honest(self.wire(ulpdu, **kw))

    def write(self, off, data):
        self.send(tagged(OP_WRITE, self.rkey, self.addr + off, data))
        self.place(off, data)

    def place(self, off, data):
        if self.model is not None:
            self.model[off:off + len(data)] = data

    def send_msg(self, data, op=OP_SEND, mo=0, last=True, inv=0):
        self.send(untagged(op, 0, self.msn[0], mo, data, last, inv))
        if last:
            self.msn[0] += 1

    def read_req(self, src_to, size, src=None, sink=0x12345601, qn=1,
                 sink_to=0x10000):
        self.send(untagged(OP_RREQ, qn, self.msn[1], 0,
                           rreq(sink, sink_to, size,
                                self.rkey if src is None else src, src_to)))
        self.msn[1] += 1

    def read_back(self, off, n, sink, sink_to):
        """The Read Responses to our Read Request of @n octets at @off:
        into our sink, in order, the last one with L; compared with what
        we wrote there."""
        got = bytearray()
        while True:
            h, p = self.expect(OP_RRESP)
            stag, to = struct.unpack(">IQ", h[2:14])
            if stag != sink or to != (sink_to + len(got)) % 2**64:
                raise Bad("Read Response to STag %#x TO %#x, expected %#x "
                          "%#x" % (stag, to, sink, sink_to + len(got)))
            got += p
            if len(got) > n:
                raise Bad("Read Responses bring %d octets, %d asked"
                          % (len(got), n))
            if h[0] & 0x40:
                break
        if len(got) != n:
            raise Bad("Read Response ends after %d of %d octets"
                      % (len(got), n))
        if self.model is not None and got != self.model[off:off + n]:
            bad = next(i for i in range(n) if got[i] != self.model[off + i])
            raise Bad("the region reads back wrong at offset %d" % (off + bad))

    def ask_read(self, r, n):
        """Make the target read @n octets from us (a Send "HTRD"); the
        module's Read Request is returned: (sink STag, sink TO, fill)."""
        stag = 0x7700 << 16 | r.randrange(1, 1 << 16)
        to = r.randrange(1 << 64)
        fill = r.randrange(256)
        self.send_msg(b"HTRD" + struct.pack(">IQIB", stag, to, n, fill))
        self.sends -= 1
        h, p = self.expect(OP_RREQ)
        if len(p) != 28:
            raise Bad("the module's Read Request has %d octets" % len(p))
        qn, _, mo = struct.unpack(">III", h[6:18])
        sink, sink_to, size, src, src_to = struct.unpack(">IQIIQ", p)
        if qn != 1 or mo != 0 or size != n or src != stag or src_to != to:
            raise Bad("the module's Read Request (QN %d MO %d, %d octets "
                      "from %#x %#x) is not what the target was asked"
                      % (qn, mo, size, src, src_to))
        return sink, sink_to, fill


def rng(seed, mode, i):
    return random.Random("%d:%s:%d" % (seed, mode, i))


def forged(c, r):
    return (c.rkey & 0xFF) | (r.randrange(1, 1 << 24) << 8)


# -- survivable hostile frames: the module must take them and go on --

def s_write_rsvd(c, r):
    # RFC 5041 4.2, RFC 5040 4.2: reserved bits are not checked
    n = r.randrange(1, 257)
    off = r.randrange(0, c.len - n + 1)
    data = r.randbytes(n)
    c.hostile(c.wire(tagged(OP_WRITE, c.rkey, c.addr + off, data,
                            rsvd=r.randrange(1, 16) << 2 |
                            r.randrange(4) << 8)))
    c.place(off, data)
    return 1


def s_write_edge(c, r):
    # first and last octets of the region, in sizes around the framing's
    n = r.choice((1, 2, 3, 4, 5, 7, 8, 255, 256, 257, 511, 512, 513, 1024,
                  c.len if r.random() < 0.1 else 64))
    off = r.choice((0, c.len - n))
    data = r.randbytes(n)
    c.hostile(c.wire(tagged(OP_WRITE, c.rkey, c.addr + off, data)))
    c.place(off, data)
    return 1


def s_write_zero(c, r):
    # RFC 5041 5.2: a zero-length segment's STag and TO are not checked
    c.hostile(c.wire(tagged(OP_WRITE, r.choice((0, 0xFFFFFFFF, forged(c, r))),
                            r.choice((0, 2**64 - 1, r.randrange(2**64))),
                            b"")))
    return 1


def s_write_segments(c, r):
    # one Write in tagged segments sent out of order, the last one (L)
    # anywhere among them (RFC 5041 5.3: tagged segments place alone)
    n = r.randrange(2, 1025)
    off = r.randrange(0, c.len - n + 1)
    data = r.randbytes(n)
    cuts = sorted(r.sample(range(1, n), min(n - 1, r.randrange(1, 6))))
    bounds = list(zip([0] + cuts, cuts + [n]))
    order = list(range(len(bounds)))
    r.shuffle(order)
    for j in order:
        a, b = bounds[j]
        c.hostile(c.wire(tagged(OP_WRITE, c.rkey, c.addr + off + a, data[a:b],
                                last=j == len(bounds) - 1)))
    c.place(off, data)
    return len(bounds)


def s_torn(c, r):
    # a valid Write cut in pieces that go out as TCP segments of their own
    n = r.randrange(1, 1025)
    off = r.randrange(0, c.len - n + 1)
    data = r.randbytes(n)
    w = c.wire(tagged(OP_WRITE, c.rkey, c.addr + off, data))
    cuts = sorted(set(r.randrange(1, len(w))
                      for _ in range(r.randrange(1, 8))))
    for a, b in zip([0] + cuts, cuts + [len(w)]):
        c.s.sendall(w[a:b])
        time.sleep(0.002)
    c.frames += 1
    c.place(off, data)
    return 1


def s_read(c, r):
    # a Read Request at the region's edges, into an odd sink
    n = r.choice((0, 1, 2, 3, 4, 511, 512, c.len, r.randrange(1, 2048)))
    off = r.choice((0, c.len - n, r.randrange(0, c.len - n + 1)))
    sink = r.choice((0, 1, 0xFFFFFFFF, r.randrange(1 << 32)))
    sink_to = r.choice((0, 2**64 - max(n, 1), r.randrange(2**64 - max(n, 1))))
    src, to = c.rkey, c.addr + off
    if n == 0:
        # nothing to read: the source is not checked either (5041 5.2)
        src, to = r.randrange(1 << 32), r.randrange(2**64)
    c.hostile(c.wire(untagged(OP_RREQ, 1, c.msn[1], 0,
                              rreq(sink, sink_to, n, src, to))))
    c.msn[1] += 1
    c.read_back(off, n, sink, sink_to)
    return 1


def s_send(c, r):
    # Sends with reserved bits and the Invalidate STag field (reserved
    # but for Send with Invalidate) set, at lengths 0 to the receive's,
    # possibly in segments
    c.sends -= 1
    n = r.choice((0, 1, 255, 256, r.randrange(1, 257)))
    data = r.randbytes(n)
    op = r.choice((OP_SEND, OP_SEND_SE))
    cuts = sorted(set(r.randrange(0, n + 1) for _ in range(r.randrange(0, 3))))
    bounds = list(zip([0] + cuts, cuts + [n]))
    for j, (a, b) in enumerate(bounds):
        c.hostile(c.wire(untagged(op, 0, c.msn[0], a, data[a:b],
                                  last=j == len(bounds) - 1,
                                  inv=r.randrange(1 << 32),
                                  rsvd=r.randrange(16) << 2 |
                                  r.randrange(4) << 8)))
    c.msn[0] += 1
    return len(bounds)


def s_rresp(c, r):
    # the target reads from us: we answer in odd segments (1 octet,
    # uneven), every one into the sink the module named, in order
    n = r.choice((0, 1, 2, 3, 511, 512, 513, r.randrange(1, 2049)))
    sink, sink_to, fill = c.ask_read(r, n)
    cuts = sorted(set(r.randrange(1, n) for _ in range(r.randrange(0, 6)))) \
        if n > 1 else []
    bounds = list(zip([0] + cuts, cuts + [n]))
    for j, (a, b) in enumerate(bounds):
        c.hostile(c.wire(tagged(OP_RRESP, sink, sink_to + a, bytes([fill]) *
                                (b - a), last=j == len(bounds) - 1)))
    return len(bounds)


def s_marker_rsvd(c, r):
    # markers with their reserved half and the two low FPDUPTR bits set:
    # ignored on receipt (RFC 5044 4.2); a Write long enough for one
    if r.random() < 0.3:
        align(c, r)
    n = r.randrange(512, 1025)
    off = r.randrange(0, c.len - n + 1)
    data = r.randbytes(n)

    def mark(k, ptr):
        return struct.pack(">HH", r.randrange(1 << 16), ptr | r.randrange(4))
    c.hostile(c.wire(tagged(OP_WRITE, c.rkey, c.addr + off, data), mark=mark))
    c.place(off, data)
    return 1


def wire_len(pos, n):
    """Stream octets of an FPDU with an @n-octet ULPDU from offset @pos,
    markers on."""
    body = 2 + n + (-(2 + n) % 4)
    p = pos + 4 if pos % 512 == 0 else pos
    i = 0
    while i < body:
        if p % 512 == 0:
            p += 4
        take = min(512 - p % 512, body - i)
        p += take
        i += take
    if p % 512 == 0:
        p += 4
    return p + 4 - pos


def align(c, r):
    """An honest Write sized so that the next FPDU starts right at a
    marker (its leading marker, FPDUPTR 0)."""
    for plen in range(0, 1100):
        if (c.txpos + wire_len(c.txpos, 14 + plen)) % 512 == 0:
            c.write(0, r.randbytes(plen))
            return
    raise AssertionError("no Write length reaches a marker")


SOFT = [s_write_rsvd, s_write_edge, s_write_zero, s_write_segments, s_torn,
        s_read, s_send, s_rresp]
SOFT_MARKERS = [s_marker_rsvd]


def soft_ok(c, s):
    if s in (s_send, s_rresp):
        return c.sends > 1
    if s is s_read:
        return c.ird > 0
    return True


# -- fatal hostile frames: each must end the connection --

def m_crc(c, r):
    c.hostile(c.wire(tagged(OP_WRITE, c.rkey, c.addr, b"x" * 64),
                     crc="wrong"))


def m_stag_forged(c, r):
    c.hostile(c.wire(tagged(OP_WRITE, forged(c, r), c.addr,
                            b"f" * r.randrange(1, 512))))


def m_stag_key(c, r):
    c.hostile(c.wire(tagged(OP_WRITE, (c.rkey & ~0xFF) | ((c.rkey + 1) & 0xFF),
                            c.addr, b"k" * 16)))


def m_past_end(c, r):
    n = r.randrange(1, 256)
    c.hostile(c.wire(tagged(OP_WRITE, c.rkey,
                            c.addr + c.len - n + r.randrange(1, 64),
                            b"p" * n)))


def m_below(c, r):
    c.hostile(c.wire(tagged(OP_WRITE, c.rkey, c.addr - r.randrange(1, 4096),
                            b"b" * 8)))


def m_to_wrap(c, r):
    c.hostile(c.wire(tagged(OP_WRITE, c.rkey, 2**64 - r.randrange(1, 8),
                            b"w" * 16)))


def m_boundary(c, r):
    # one header field at a boundary value it may not have, the others
    # valid
    if r.random() < 0.5:
        stag, to, n = c.rkey, c.addr, 8
        f = r.randrange(3)
        if f == 0:
            stag = r.choice((0, 0xFFFFFFFF, c.rkey ^ 0x80000000,
                             c.rkey ^ 0x100, c.rkey & 0xFF))
        elif f == 1:
            to = r.choice((0, c.addr - 1, c.addr + c.len, 2**63, 2**64 - 1,
                           c.addr + c.len - n + 1))
        else:
            n = c.len + r.choice((1, 4, 512))
        c.hostile(c.wire(tagged(OP_WRITE, stag, to, bytes(n))))
        return
    qn, msn, mo, n = 0, c.msn[0], 0, 8
    f = r.randrange(4)
    if f == 0:
        qn = r.choice((3, 4, 0x7FFFFFFF, 0xFFFFFFFF))
    elif f == 1:
        msn = r.choice((0, msn - 1, msn + 1, 0x7FFFFFFF, 0xFFFFFFFF))
    elif f == 2:
        mo = r.choice((1, 255, 256, 257, 0xFFFFFFFF))
    else:
        n = 257
    c.hostile(c.wire(untagged(OP_SEND, qn, msn, mo, bytes(n))))


def m_send_too_long(c, r):
    c.hostile(c.wire(untagged(OP_SEND, 0, c.msn[0], 0,
                              b"L" * r.randrange(257, 1024))))


def m_send_bad_qn(c, r):
    c.hostile(c.wire(untagged(OP_SEND, r.choice([3, 7, 0xFFFFFFFF]), 1, 0,
                              b"q" * 8)))


def m_send_bad_msn(c, r):
    c.hostile(c.wire(untagged(OP_SEND, 0, c.msn[0] + r.randrange(1, 1 << 31),
                              0, b"m" * 8)))


def m_send_mo_gap(c, r):
    c.hostile(c.wire(untagged(OP_SEND, 0, c.msn[0], r.randrange(1, 200),
                              b"g" * 8)))


def m_send_mo_past(c, r):
    c.hostile(c.wire(untagged(OP_SEND, 0, c.msn[0],
                              r.randrange(256, 1 << 32), b"o" * 8)))


def m_send_inv_forged(c, r):
    c.hostile(c.wire(untagged(OP_SEND_INV, 0, c.msn[0], 0, b"i" * 8,
                              inv=forged(c, r))))


def m_rreq(c, r, src_to, size, src=None, qn=1, payload=None):
    c.hostile(c.wire(untagged(OP_RREQ, qn, c.msn[1], 0, payload or rreq(
        0x12345601, 0x10000, size, c.rkey if src is None else src, src_to))))
    c.msn[1] += 1


def m_rreq_bounds(c, r):
    m_rreq(c, r, c.addr + c.len - 8, r.randrange(9, 1 << 20))


def m_rreq_huge(c, r):
    m_rreq(c, r, c.addr + r.choice((0, 8)),
           r.choice((0xFFFFFFFF, 0x80000000, c.len + 1)))


def m_rreq_forged(c, r):
    m_rreq(c, r, c.addr, 64, src=forged(c, r))


def m_rreq_past_ird(c, r):
    # more Read Requests than the IRD; whether the responses leave fast
    # enough to free slots is timing, so this one may also pass (MAY)
    n = 0
    try:
        for _ in range(min(c.ird, 64) + 60):
            m_rreq(c, r, c.addr, 4096)
            n += 1
    finally:
        # only those past the IRD are hostile
        c.frames -= min(n, c.ird)


def m_rreq_bad_qn(c, r):
    m_rreq(c, r, c.addr, 8, qn=r.choice((0, 2, 3)))


def m_rreq_short(c, r):
    # a Read Request shorter than its 28 octets
    m_rreq(c, r, c.addr, 8, payload=rreq(1, 2, 8, c.rkey, c.addr)[
        :r.randrange(0, 28)] or b"\0")


def m_rresp_unasked(c, r):
    c.hostile(c.wire(tagged(OP_RRESP, r.randrange(1 << 32),
                            r.randrange(1 << 64), b"r" * 32)))


def m_rresp_bogus(c, r):
    # the target reads from us; the response is wrong: another STag (the
    # region's own among them), another TO, too long, too short, or an
    # extra one after the whole answer
    n = r.randrange(8, 1025)
    sink, sink_to, fill = c.ask_read(r, n)
    d = bytes([fill])
    v = r.randrange(6)
    if v == 0:
        c.hostile(c.wire(tagged(OP_RRESP, r.choice((c.rkey, forged(c, r),
                                                     sink ^ 0x100)),
                                sink_to, d * n)))
    elif v == 1:
        c.hostile(c.wire(tagged(OP_RRESP, sink, r.choice((
            sink_to + 1, sink_to - 1, sink_to + n, c.addr)), d * n)))
    elif v == 2:
        c.hostile(c.wire(tagged(OP_RRESP, sink, sink_to,
                                d * (n + r.choice((1, 4, 4096))))))
    elif v == 3:
        c.hostile(c.wire(tagged(OP_RRESP, sink, sink_to,
                                d * r.randrange(0, n))))
    elif v == 4:
        c.honest(c.wire(tagged(OP_RRESP, sink, sink_to, d * n)))
        c.hostile(c.wire(tagged(OP_RRESP, sink, sink_to + n, d)))
    else:
        # the last segment comes twice
        c.honest(c.wire(tagged(OP_RRESP, sink, sink_to, d * (n - 1),
                               last=False)))
        c.hostile(c.wire(tagged(OP_RRESP, sink, sink_to + n - 1, d * 2)))


def term(r):
    """A Terminate's payload (RFC 5040 4.8): random control word, maybe a
    DDP header copy."""
    p = struct.pack(">I", r.randrange(1 << 32))
    if r.random() < 0.5:
        p += r.randbytes(r.choice((2, 14, 18, 30, 46)))
    return p


def m_terminate(c, r):
    c.hostile(c.wire(untagged(OP_TERM, 2, 1, 0, term(r))))


def m_term_mid_send(c, r):
    # a Terminate between the segments of a Send
    c.honest(c.wire(untagged(OP_SEND, 0, c.msn[0], 0, b"s" * 64, last=False)))
    c.hostile(c.wire(untagged(OP_TERM, 2, 1, 0, term(r))))


def m_term_for_rresp(c, r):
    # a Terminate instead of the Read Response the module waits for
    c.ask_read(r, r.randrange(1, 1025))
    c.hostile(c.wire(untagged(OP_TERM, 2, 1, 0, term(r))))


def m_term_bad(c, r):
    # a Terminate on the wrong queue, with a bad MSN or CRC
    v = r.randrange(3)
    c.hostile(c.wire(untagged(OP_TERM, 0 if v == 0 else 2,
                              r.randrange(2, 1 << 32) if v == 1 else 1, 0,
                              term(r)), crc="wrong" if v == 2 else "right"))


def m_opcode(c, r):
    c.hostile(c.wire(untagged(r.choice([8, 9, 0xA, 0xC, 0xF]), 0, c.msn[0],
                              0, b"?")))


def m_versions(c, r):
    if r.random() < 0.5:
        c.hostile(c.wire(tagged(OP_WRITE, c.rkey, c.addr, b"v",
                                dv=r.choice([0, 2, 3]))))
    else:
        c.hostile(c.wire(untagged(OP_SEND, 0, c.msn[0], 0, b"v",
                                  rv=r.choice([0, 2, 3]))))


def m_short_ulpdu(c, r):
    c.hostile(c.wire(bytes([r.choice((0x41, 0xC1)), 0x43]) +
                     r.randbytes(r.randrange(0, 12))))


def m_length_lies(c, r):
    # a length the octets after it do not match: junk follows, enough
    # to complete any FPDU the length may announce
    c.hostile(struct.pack(">H", r.randrange(20, 0xFFFF)) +
              r.randbytes(r.randrange(4, 64)))
    c.s.sendall(r.randbytes(70000))


def m_garbage(c, r):
    c.hostile(r.randbytes(70000))


def m_random_header(c, r):
    # a valid CRC around random header octets and some payload
    c.hostile(c.wire(r.randbytes(r.choice([14, 18]) + r.randrange(0, 64))))


def m_torn(c, r):
    # part of a Write, then our close: the module must see the end
    whole = c.wire(tagged(OP_WRITE, c.rkey, c.addr, b"t" * 1024))
    c.hostile(whole[:r.randrange(1, len(whole) - 1)])
    c.s.shutdown(socket.SHUT_WR)


# markers (when the module asked for them)

def marker_write(c, r, **kw):
    """A Write that carries at least one marker inside, sent hostile."""
    n = r.randrange(520, 1500)
    c.hostile(c.wire(tagged(OP_WRITE, c.rkey, c.addr, bytes(n)), **kw))


def k_ptr(c, r):
    # one marker points anywhere: forward, back too far, 0, the top
    def mark(k, ptr):
        if k != target:
            return struct.pack(">HH", 0, ptr)
        bad = r.choice((0, 4, 0xFFFC, ptr + 4, ptr - 4, ptr + 512,
                        r.randrange(1 << 16))) & 0xFFFF
        if bad & 0xFFFC == ptr:
            bad = (ptr + 8) & 0xFFFF
        return struct.pack(">HH", 0, bad)
    target = 1 if c.txpos % 512 == 0 else 0
    marker_write(c, r, mark=mark)


def k_lead(c, r):
    # the marker right before an FPDU must be 0; this one is not
    align(c, r)

    def mark(k, ptr):
        return struct.pack(">HH", 0, ptr if k else r.randrange(1, 1 << 14) * 4)
    marker_write(c, r, mark=mark)


def k_missing(c, r):
    # a marker left out
    def mark(k, ptr):
        return b"" if k == target else struct.pack(">HH", 0, ptr)
    target = r.randrange(2) if c.txpos % 512 == 0 else 0
    marker_write(c, r, mark=mark)


def k_extra(c, r):
    # a marker where none is due
    marker_write(c, r, extra=r.randrange(1, 64) * 4)


def k_crc(c, r):
    # every marker right, the CRC wrong, or computed without the markers
    marker_write(c, r, crc=r.choice(("wrong", "nomarkers")))


def k_torn(c, r):
    # cut inside a marker, then our close
    while c.txpos % 512 > 400:
        c.write(0, b"a" * 64)
    d = -c.txpos % 512
    w = c.wire(tagged(OP_WRITE, c.rkey, c.addr, bytes(1024)))
    c.hostile(w[:d + r.randrange(1, 4)])
    c.s.shutdown(socket.SHUT_WR)


FATAL = [m_crc, m_stag_forged, m_stag_key, m_past_end, m_below, m_to_wrap,
         m_boundary, m_send_too_long, m_send_bad_qn, m_send_bad_msn,
         m_send_mo_gap, m_send_mo_past, m_send_inv_forged, m_rreq_bounds,
         m_rreq_huge, m_rreq_forged, m_rreq_past_ird, m_rreq_bad_qn,
         m_rreq_short, m_rresp_unasked, m_rresp_bogus, m_terminate,
         m_term_mid_send, m_term_for_rresp, m_term_bad, m_opcode, m_versions,
         m_short_ulpdu, m_length_lies, m_garbage, m_random_header, m_torn]
FATAL_MARKERS = [k_ptr, k_lead, k_missing, k_extra, k_crc, k_torn]

# Hostile but answerable without an error: the connection may stay up
MAY = {"m_rreq_past_ird"}


def fatal_ok(c, m):
    if m in (m_rresp_bogus, m_term_for_rresp, m_term_mid_send):
        return c.sends > 0
    return True


class Stats:
    def __init__(self, mode, seed):
        self.mode, self.seed = mode, seed
        self.kinds = {}
        self.frames = {"mpa": 0, "survivable": 0, "fatal": 0}
        self.failures = []
        self.conns = 0

    def note(self, kind, how):
        k = self.kinds.setdefault(kind, {})
        k[how] = k.get(how, 0) + 1

    def fail(self, i, kind, why):
        self.failures.append("connection %d (%s): %s" % (i, kind, why))
        self.note(kind, "FAIL")


def data_phase(c, r, soft_max, st, i, kind, first=None):
    """After an accepted setup: the region's description (@first, if
    already read), valid Writes, survivable frames, the region read back,
    one fatal frame."""
    done = []
    if r.random() < 0.04:
        # a Terminate as our first FPDU, before anything is read
        f0 = c.frames
        try:
            c.hostile(c.wire(untagged(OP_TERM, 2, 1, 0, term(r))))
            how = c.end()
        except OSError:
            how = "closed-while-sending"
        st.frames["fatal"] += c.frames - f0
        st.note("m_term_first", how)
        if how == "open":
            st.fail(i, "m_term_first", "the connection stayed open after "
                    "the hostile frame (hang)")
        return
    try:
        if first is None:
            h, p = c.expect(OP_SEND)
        elif first[0] != OP_SEND:
            raise Bad("opcode %d from the module first" % first[0])
        else:
            h, p = first[1:]
        if len(p) != 16:
            raise Bad("region description of %d octets" % len(p))
        hi, lo, c.rkey, c.len = struct.unpack(">IIII", p)
        c.addr = hi << 32 | lo
        c.model = bytearray(c.len)
        early = r.random() < 0.1
        if not early:
            for _ in range(r.randrange(0, 4)):
                n = r.randrange(1, 1024)
                c.write(r.randrange(0, c.len - n + 1), r.randbytes(n))
            pool = SOFT + (SOFT_MARKERS if c.txm else [])
            for _ in range(r.randrange(0, soft_max + 1)):
                s = r.choice(pool)
                if not soft_ok(c, s):
                    continue
                f0 = c.frames
                s(c, r)
                done.append(s.__name__)
                st.frames["survivable"] += c.frames - f0
                st.note(s.__name__, "taken")
            if c.ird and (done or r.random() < 0.3):
                sink, sink_to = r.randrange(1 << 32), r.randrange(2**63)
                c.read_req(c.addr, c.len, sink=sink, sink_to=sink_to)
                c.read_back(0, c.len, sink, sink_to)
    except Ended as e:
        st.fail(i, kind, "the module ended the connection (%s %s) after "
                "valid and survivable frames: %s" %
                (e.how, e.term.hex(), " ".join(done[-6:]) or "none"))
        return
    except Bad as e:
        st.fail(i, kind, "%s; survivable frames before: %s" %
                (e, " ".join(done[-6:]) or "none"))
        return
    except OSError as e:
        st.fail(i, kind, "the module ended the connection (%r) during "
                "survivable frames: %s" % (e, " ".join(done[-6:])))
        return
    if c.rx_bad:
        st.fail(i, kind, c.rx_bad)
        return
    pool = FATAL + (FATAL_MARKERS * 4 if c.txm else [])
    m = r.choice([m for m in pool if fatal_ok(c, m)])
    f0 = c.frames
    try:
        m(c, r)
        how = c.end()
    except Ended as e:
        # the module ended it before the hostile frame went out
        how = "before-" + e.how
    except Bad as e:
        st.fail(i, m.__name__, str(e))
        return
    except OSError:
        # the module ended it while the hostile frame was going out
        how = "closed-while-sending"
    st.frames["fatal"] += c.frames - f0
    if how == "open" and m.__name__ in MAY:
        how = "open-allowed"
    st.note(m.__name__, how)
    if how == "open":
        st.fail(i, m.__name__, "the connection stayed open after the "
                "hostile frame (hang)")


def negotiated(c, flags, rev, pd, req_flags):
    """Settings from a reply we received (we are the initiator)."""
    c.crc = bool((flags | req_flags) & F_C)
    c.txm = bool(flags & F_M)
    c.rxm = bool(req_flags & F_M)
    if rev == 2 and flags & F_S and len(pd) >= 4:
        ird, _, c.p2p, c.rtr = enh_parse(pd)
        if ird != 0x3FFF:
            c.ird = ird


# -- MPA Requests (we are the initiator) --
# Each returns (octets, expectation, what follows): expectation
# 'accept', 'refuse' or 'any'; what follows: 'go' (on to full
# operation if accepted), 'end' (the octets already hold the fatal part:
# wait for the end), 'fin' (our FIN follows), 'silent' (we say nothing
# more: the module must give up on its own).

def req_honest(r, pd=b""):
    flags = F_C | (F_M if r.random() < 0.2 else 0)
    if r.random() < 0.35:
        return mpa(REQ_KEY, flags, 1, pd), "accept", "go"
    p2p = r.random() < 0.3
    rtr = r.sample(RTRS, r.randrange(1, 4)) if p2p else ()
    e = enh(r.choice((0, 1, 2, 4, 8, 16, 0x3FFF)),
            r.choice((0, 1, 2, 4, 0x3FFF)), p2p, rtr)
    return mpa(REQ_KEY, flags | F_S, 2, e + pd), "accept", "go"


def q_key(r):
    v = r.randrange(3)
    key = (r.randbytes(16), REP_KEY,
           bytes(b ^ (1 << r.randrange(8)) if j == r.randrange(16) else b
                 for j, b in enumerate(REQ_KEY)))[v]
    if key == REQ_KEY:
        key = b"MPA ID Req Framf"
    return mpa(key, F_C, 1, b""), "refuse", "go"


def q_rev(r):
    return mpa(REQ_KEY, F_C, r.choice((0, 3, 4, 0x7F, 0xFF)),
               b""), "refuse", "go"


def q_pdlen_big(r):
    n = r.choice((513, 514, 0x7FFF, 0xFFFF, r.randrange(513, 0x10000)))
    return mpa(REQ_KEY, F_C, 1, r.randbytes(r.randrange(0, 600)),
               pdlen=n), "refuse", "go"


def q_enh_short(r):
    n = r.randrange(0, 4)
    return mpa(REQ_KEY, F_C | F_S, 2, r.randbytes(n)), "refuse", "go"


def q_truncated(r):
    whole = mpa(REQ_KEY, F_C, 1, b"hello")
    return whole[:r.randrange(1, len(whole))], "refuse", \
        r.choice(("fin", "silent"))


def q_pd_short(r):
    # PD_Length says more than comes
    n = r.randrange(1, 513)
    return mpa(REQ_KEY, F_C, 1, r.randbytes(r.randrange(0, n)),
               pdlen=n), "refuse", r.choice(("fin", "silent"))


def q_nothing(r):
    return b"", "refuse", r.choice(("fin", "silent"))


def q_garbage(r):
    return r.randbytes(r.randrange(1, 700)), "refuse", "go"


def q_flags(r):
    # R, the reserved bits and S in rev 1 are not checked on receipt
    # (RFC 5044 7.1.1, RFC 6581 6); C off, M on are choices
    rev = r.choice((1, 2))
    flags = F_R | r.randrange(1, 16) | r.choice((0, F_C)) | r.choice((0, F_M))
    if rev == 1:
        flags |= r.choice((0, F_S))
        return mpa(REQ_KEY, flags, 1, r.randbytes(r.randrange(0, 64))), \
            "accept", "go"
    return mpa(REQ_KEY, flags & ~F_S & 0xFF, 2, b""), "accept", "go"


def q_pd_max(r):
    if r.random() < 0.5:
        return mpa(REQ_KEY, F_C, 1, r.randbytes(512)), "accept", "go"
    return mpa(REQ_KEY, F_C | F_S, 2, enh(4, 4) + r.randbytes(508)), \
        "accept", "go"


def q_enh_values(r):
    # IRD and ORD anywhere, the model and RTR flags in every combination
    vals = (0, 1, 2, 0x3FFE, 0x3FFF, r.randrange(0x4000))
    word0 = r.choice(vals) | r.randrange(4) << 14
    word1 = r.choice(vals) | r.randrange(4) << 14
    pd = struct.pack(">HH", word0, word1) + r.randbytes(r.randrange(0, 32))
    return mpa(REQ_KEY, F_C | F_S, 2, pd), "any", "go"


def q_pd_extra(r):
    # PD_Length says less than comes: the rest is garbage where the
    # first FPDU would be
    pd = r.randbytes(r.randrange(1, 64))
    return mpa(REQ_KEY, F_C, 1, pd, pdlen=r.randrange(0, len(pd))) + \
        r.randbytes(r.randrange(0, 64)), "any", "end"


REQUESTS = [q_key, q_rev, q_pdlen_big, q_enh_short, q_truncated, q_pd_short,
            q_nothing, q_garbage, q_flags, q_pd_max, q_enh_values, q_pd_extra]


class Parked:
    """Connections left silent: the module must end each within its
    timer (MPA_TMO) and LIMIT."""

    def __init__(self, st):
        self.st = st
        self.items = []

    def add(self, c, i, kind):
        c.s.setblocking(False)
        self.items.append((c, i, kind, time.time() + MPA_TMO + LIMIT))

    def poll(self, wait=False):
        while self.items:
            keep = []
            for c, i, kind, deadline in self.items:
                how = None
                try:
                    while True:
                        d = c.s.recv(65536)
                        if not d:
                            how = "closed"
                            break
                        c.buf += d
                except BlockingIOError:
                    pass
                except OSError:
                    how = "reset"
                if how is None and time.time() > deadline:
                    how = "open"
                if how is None:
                    keep.append((c, i, kind, deadline))
                    continue
                if c.buf[:16] == REP_KEY and len(c.buf) >= 20 and \
                        not c.buf[16] & F_R:
                    self.st.fail(i, kind, "accepted what it should refuse")
                elif how == "open":
                    self.st.fail(i, kind, "still open %d s after we fell "
                                 "silent (hang)" % (MPA_TMO + LIMIT))
                else:
                    self.st.note(kind, "silent-" + how)
                c.close()
            self.items = keep
            if not wait:
                return
            time.sleep(0.1)


def connect_one(addr, port, r, i, st, parked, soft, markers):
    """One connection as the initiator; returns nothing, notes outcomes."""
    c = Conn(socket.create_connection((addr, port), timeout=LIMIT))
    try:
        if markers or r.random() >= MPA_SHARE:
            kind = "honest-request"
            octets, expect, after = req_honest(r)
        else:
            q = r.choice(REQUESTS)
            kind = q.__name__
            octets, expect, after = q(r)
        if kind != "honest-request" and octets:
            c.hostile(octets)
            st.frames["mpa"] += 1
        elif octets:
            c.honest(octets)
        req_flags = octets[16] if len(octets) > 16 else 0
        if after == "fin":
            c.s.shutdown(socket.SHUT_WR)
        if after == "silent":
            parked.add(c, i, kind)
            c = None
            return
        try:
            key, flags, rev, pd = c.read_frame()
        except EOFError:
            how = "closed"
        except ConnectionResetError:
            how = "reset"
        except socket.timeout:
            how = "open"
        else:
            if key != REP_KEY:
                st.fail(i, kind, "the module's reply has key %r" % key)
                return
            how = "rejected" if flags & F_R else "accepted"
        if how == "open":
            st.fail(i, kind, "no reply and no close within %d s (hang)"
                    % LIMIT)
            return
        if how == "accepted" and expect == "refuse":
            st.fail(i, kind, "the module accepted a malformed request")
            return
        if how != "accepted" and expect == "accept":
            st.fail(i, kind, "the module refused a request it must take "
                    "(%s)" % how)
            return
        if how == "rejected":
            how = "rejected-" + c.end()
            if how == "rejected-open":
                st.fail(i, kind, "the module rejected, then left the "
                        "connection open (hang)")
                return
        st.note(kind, how)
        if how != "accepted":
            return
        if markers and not flags & F_M:
            st.fail(i, kind, "the module's reply does not ask for markers")
            return
        if after == "end":
            how = junk_end(c, r)
            st.note(kind, "then-" + how)
            if how == "open":
                st.fail(i, kind, "the connection stayed open after the "
                        "octets past the request (hang)")
            return
        negotiated(c, flags, rev, pd, req_flags)
        if c.p2p:
            if not rtr_phase(c, r, st, i):
                return
        data_phase(c, r, soft, st, i, kind)
    finally:
        if c:
            c.close()


def junk_end(c, r):
    """After octets that the module takes for the start of an FPDU:
    junk enough to complete whatever length they announce, then how the
    connection ends."""
    try:
        c.s.sendall(r.randbytes(70000))
    except OSError:
        return "closed-while-sending"
    return c.end()


def rtr_phase(c, r, st, i):
    """Peer-to-peer: the RTR indication, or (one in four) a hostile one
    that must end the connection. True when data may follow."""
    offered = sorted(c.rtr)
    if not offered:
        st.fail(i, "rtr", "the module accepted peer-to-peer with no RTR type")
        return False
    if r.random() < 0.75:
        t = r.choice(offered)
        if t == "write":
            c.send(tagged(OP_WRITE, r.randrange(1 << 32), r.randrange(2**64)))
        elif t == "read":
            c.rtr_sink = r.randrange(1 << 32)
            c.send(untagged(OP_RREQ, 1, c.msn[1], 0, rreq(
                c.rtr_sink, 0, 0, r.randrange(1 << 32), 0)))
            c.msn[1] += 1
        else:
            c.send_msg(b"")
        st.note("rtr-" + t, "sent")
        return True
    v = r.randrange(4)
    if v == 0 and set(RTRS) - c.rtr:
        # a type the module did not offer
        t = r.choice(sorted(set(RTRS) - c.rtr))
        kind = "rtr-unoffered"
        if t == "write":
            c.hostile(c.wire(tagged(OP_WRITE, 0, 0)))
        elif t == "read":
            c.hostile(c.wire(untagged(OP_RREQ, 1, 1, 0, rreq(0, 0, 0, 0, 0))))
        else:
            c.hostile(c.wire(untagged(OP_SEND, 0, 1, 0)))
    elif v <= 1:
        kind = "rtr-nonzero"
        c.hostile(c.wire(tagged(OP_WRITE, 0, 0, b"x" * r.randrange(1, 64))))
    elif v == 2:
        kind = "rtr-terminate"
        c.hostile(c.wire(untagged(OP_TERM, 2, 1, 0, term(r))))
    else:
        kind = "rtr-silent"
        c.s.settimeout(MPA_TMO + LIMIT)
    st.frames["fatal"] += kind != "rtr-silent"
    try:
        how = c.end() if kind != "rtr-silent" else silent_end(c)
    except OSError:
        how = "reset"
    st.note(kind, how)
    if how == "open":
        st.fail(i, kind, "the connection stayed open (hang)")
    return False


def silent_end(c):
    """We say nothing: how the module ends it within MPA_TMO + LIMIT."""
    try:
        while True:
            op, _, _ = c.read_fpdu()
            if op == OP_TERM:
                return "terminate"
    except EOFError:
        return "closed"
    except ConnectionResetError:
        return "reset"
    except socket.timeout:
        return "open"


def stop(addr, port, st):
    """The last connection: an honest one that tells the target to end."""
    try:
        c = Conn(socket.create_connection((addr, port), timeout=LIMIT))
        c.honest(mpa(REQ_KEY, F_C, 1, STOP_PD))
        key, flags, rev, pd = c.read_frame()
        if key != REP_KEY or flags & F_R:
            raise Bad("the stop request was refused")
        c.crc = True
        c.rxm = False
        c.expect(OP_SEND)
        c.close()
    except (OSError, EOFError, Bad, Ended) as e:
        st.fail(-1, "stop", "the honest stop connection failed: %r" % e)


def run_connect(addr, port, conns, seed, soft, markers):
    mode = "markers" if markers else "connect"
    st = Stats(mode, seed)
    parked = Parked(st)
    for i in range(conns):
        r = rng(seed, mode, i)
        try:
            connect_one(addr, port, r, i, st, parked, soft, markers)
        except (OSError, EOFError) as e:
            st.fail(i, "connect", "%r" % e)
            if len(st.failures) > conns // 20 + 2:
                break
        st.conns += 1
        parked.poll()
    parked.poll(wait=True)
    # env HOSTILE_NO_STOP: the target serves another run after this one
    if not os.environ.get("HOSTILE_NO_STOP"):
        stop(addr, port, st)
    return st


# -- MPA Replies (the module is the initiator) --
# Each gets the request's (flags, rev, pd) and returns (octets,
# expectation, what follows) as the requests above.

def rep_honest(r, req):
    flags, rev, pd = req
    rf = flags & F_C | (F_M if r.random() < 0.2 else 0)
    if rev == 2 and flags & F_S:
        ird, ord_, p2p, _ = enh_parse(pd)
        e = enh(0x3FFF if ord_ == 0x3FFF else max(4, ord_),
                0x3FFF if ird == 0x3FFF else min(4, ird), p2p,
                RTRS if p2p else ())
        return mpa(REP_KEY, rf | F_S, 2, e + b"peer"), "accept", "go"
    return mpa(REP_KEY, rf, 1, b"peer"), "accept", "go"


def p_key(r, req):
    key = r.choice((r.randbytes(16), REQ_KEY, b"MPA ID Rep Framf",
                    b"MPA ID Rep Frame"[:15] + b"\0"))
    return mpa(key, F_C, 1, b""), "refuse", "go"


def p_rev(r, req):
    return mpa(REP_KEY, F_C, r.choice((0, 3, 9, 0xFF)), b""), "refuse", "go"


def p_pdlen_big(r, req):
    return mpa(REP_KEY, F_C, 1, r.randbytes(r.randrange(0, 600)),
               pdlen=r.randrange(513, 0x10000)), "refuse", "go"


def p_enh_short(r, req):
    return mpa(REP_KEY, F_C | F_S, 2, r.randbytes(r.randrange(0, 4))), \
        "refuse", "go"


def p_reject(r, req):
    flags, rev, pd = req
    if rev == 2 and r.random() < 0.5:
        return mpa(REP_KEY, F_C | F_R | F_S, 2, enh(r.randrange(0x4000),
                                                    r.randrange(0x4000)) +
                   r.randbytes(r.randrange(0, 64))), "refuse", "go"
    return mpa(REP_KEY, F_C | F_R, 1, r.randbytes(r.randrange(0, 64))), \
        "refuse", "go"


def p_truncated(r, req):
    whole = mpa(REP_KEY, F_C, 1, b"hello")
    return whole[:r.randrange(1, len(whole))], "refuse", "fin"


def p_pd_short(r, req):
    n = r.randrange(1, 513)
    return mpa(REP_KEY, F_C, 1, r.randbytes(r.randrange(0, n)), pdlen=n), \
        "refuse", "fin"


def p_nothing(r, req):
    return b"", "refuse", r.choice(("fin", "rst"))


def p_silent(r, req):
    # nothing, part of a reply, or a reply whose private data does not
    # all come, then silence: the module's MPA timer must end it
    octets = r.choice((b"",
                       mpa(REP_KEY, F_C, 1, b"hello")[:r.randrange(1, 25)],
                       mpa(REP_KEY, F_C, 1, b"x", pdlen=r.randrange(2, 513))))
    return octets, "refuse", "silent"


def p_garbage(r, req):
    return r.randbytes(r.randrange(1, 700)), "refuse", "go"


def p_flags(r, req):
    # reserved bits set, S in a rev 1 reply, C off (the request's C
    # decides), M on: all to be taken
    flags, rev, pd = req
    f = r.randrange(1, 16) | r.choice((0, F_C)) | r.choice((0, F_M))
    if r.random() < 0.5 or not (rev == 2 and flags & F_S):
        return mpa(REP_KEY, f | r.choice((0, F_S)), 1,
                   r.randbytes(r.randrange(0, 64))), "accept", "go"
    # rev 2 without S to an enhanced request: the initiator goes on in
    # rev 1
    return mpa(REP_KEY, f, 2, b""), "accept", "go"


def p_ird_ord(r, req):
    # IRD and ORD anywhere: above what the module can take, 0, 0x3FFF
    vals = (0, 1, 2, 4, 5, 0x3FFE, 0x3FFF, r.randrange(0x4000))
    return mpa(REP_KEY, F_C | F_S, 2, enh(r.choice(vals), r.choice(vals)) +
               r.randbytes(r.randrange(0, 16))), "any", "go"


def p_p2p_unasked(r, req):
    # the peer-to-peer model the module did not ask for (RFC 6581 9.2)
    flags, rev, pd = req
    if not (rev == 2 and flags & F_S) or enh_parse(pd)[2]:
        return p_rev(r, req)
    rtr = r.sample(RTRS, r.randrange(0, 4))
    return mpa(REP_KEY, F_C | F_S, 2, enh(4, 4, True, rtr)), "refuse", "go"


def p_pd_extra(r, req):
    # octets after the reply before the module sent anything: garbage
    # where its first FPDU from us would be
    return mpa(REP_KEY, F_C, 1, b"") + r.randbytes(r.randrange(1, 64)), \
        "any", "end"


def p_pd_max(r, req):
    return mpa(REP_KEY, F_C, 1, r.randbytes(512)), "accept", "go"


# the kinds, each with its weight: silence holds the one connection
# the target makes at a time for the module's MPA timer, so it is rarer
REPLIES = [(p_key, 2), (p_rev, 2), (p_pdlen_big, 2), (p_enh_short, 2),
           (p_reject, 2), (p_truncated, 2), (p_pd_short, 2), (p_nothing, 2),
           (p_silent, 1), (p_garbage, 2), (p_flags, 2), (p_ird_ord, 2),
           (p_p2p_unasked, 2), (p_pd_extra, 2), (p_pd_max, 2)]


def listen_one(c, r, i, st, soft):
    """One connection from the module, we the responder."""
    try:
        key, flags, rev, pd = c.read_frame()
    except (EOFError, OSError) as e:
        st.fail(i, "request", "no MPA Request from the module: %r" % e)
        return
    if key != REQ_KEY or rev not in (1, 2) or len(pd) > 512 or \
            (rev == 2 and flags & F_S and len(pd) < 4):
        st.fail(i, "request", "the module's MPA Request is malformed")
        return
    req = (flags, rev, pd)
    if r.random() >= REPLY_SHARE:
        kind = "honest-reply"
        octets, expect, after = rep_honest(r, req)
        c.honest(octets)
    else:
        p = r.choices([k for k, _ in REPLIES],
                      [w for _, w in REPLIES])[0]
        kind = p.__name__
        octets, expect, after = p(r, req)
        if octets:
            c.hostile(octets)
            st.frames["mpa"] += 1
    if after == "fin":
        c.s.shutdown(socket.SHUT_WR)
    elif after == "rst":
        c.s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                       struct.pack("ii", 1, 0))
        c.close()
        st.note(kind, "reset-by-us")
        return
    elif after == "silent":
        c.s.settimeout(MPA_TMO + LIMIT)
    # what we answered, if the module takes it: its M, our M, either C
    ours = octets[16] if len(octets) >= 20 and octets[:16] == REP_KEY else 0
    c.crc = bool((flags | ours) & F_C)
    c.txm = bool(flags & F_M)
    c.rxm = bool(ours & F_M)
    if rev == 2 and flags & F_S:
        ird = enh_parse(pd)[0]
        c.ird = 4 if ird == 0x3FFF else ird
    # the module's answer: its first FPDU if it took the reply
    try:
        first = c.read_fpdu()
        how = "terminate" if first[0] == OP_TERM else "established"
    except EOFError:
        how = "closed"
    except ConnectionResetError:
        how = "reset"
    except socket.timeout:
        how = "open"
    if how == "open":
        st.fail(i, kind, "the module neither went on nor closed within "
                "%d s (hang)" % (MPA_TMO + LIMIT if after == "silent"
                                 else LIMIT))
        return
    if how == "established" and expect == "refuse":
        st.fail(i, kind, "the module took a reply it must refuse")
        return
    if how != "established" and expect == "accept":
        st.fail(i, kind, "the module refused a reply it must take (%s)"
                % how)
        return
    if how == "terminate":
        how += "-then-" + c.end()
    st.note(kind, how)
    if how != "established":
        if how.endswith("open"):
            st.fail(i, kind, "the module terminated, then left the "
                    "connection open (hang)")
        return
    if after == "end":
        how = junk_end(c, r)
        st.note(kind, "then-" + how)
        if how == "open":
            st.fail(i, kind, "the connection stayed open (hang)")
        return
    c.s.settimeout(LIMIT)
    data_phase(c, r, soft, st, i, kind, first)


def run_listen(addr, port, conns, seed, soft):
    st = Stats("listen", seed)
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((addr, port))
    ls.listen(8)
    ls.settimeout(MPA_TMO + 2 * LIMIT)
    print("listening", flush=True)
    for i in range(conns):
        try:
            s, _ = ls.accept()
        except socket.timeout:
            st.fail(i, "connect", "the module did not connect")
            break
        c = Conn(s)
        try:
            listen_one(c, rng(seed, "listen", i), i, st, soft)
        except (OSError, EOFError) as e:
            st.fail(i, "listen", "%r" % e)
        finally:
            c.close()
        st.conns += 1
    ls.close()
    return st


def main():
    if len(sys.argv) not in (6, 7) or \
            sys.argv[1] not in ("connect", "markers", "listen"):
        print(__doc__)
        return 2
    mode, addr, port, conns, seed = (sys.argv[1], sys.argv[2],
                                     int(sys.argv[3]), int(sys.argv[4]),
                                     int(sys.argv[5]))
    soft = int(sys.argv[6]) if len(sys.argv) == 7 else \
        int(os.environ.get("HOSTILE_SOFT", "4"))
    t0 = time.time()
    if mode == "listen":
        st = run_listen(addr, port, conns, seed, soft)
    else:
        st = run_connect(addr, port, conns, seed, soft, mode == "markers")
    for name in sorted(st.kinds):
        print("%-20s %s" % (name, " ".join(
            "%s=%d" % kv for kv in sorted(st.kinds[name].items()))))
    f = st.frames
    total = sum(f.values())
    print("seed %d: %d hostile frames (%d MPA setup, %d survivable, %d "
          "fatal) on %d connections (%s) in %d s" %
          (seed, total, f["mpa"], f["survivable"], f["fatal"], st.conns,
           mode, time.time() - t0))
    for line in st.failures[:20]:
        print("failure: " + line)
    if st.failures or st.conns != conns:
        print("result: FAIL: %d failures (reproduce: hostile.sh with seed "
              "%d, mode %s)" % (len(st.failures), seed, mode))
        return 1
    print("result: every connection ended by a Terminate or a close, or "
          "went on as it should")
    return 0


if __name__ == "__main__":
    sys.exit(main())
