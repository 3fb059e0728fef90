// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite siw_engine_rx: the receive engine of the data path, over
 * the real MPA deframer and DDP layer, against the fake QP and memory
 * layers of siw_engine_test.h.
 *
 * Streams are written by the transmit engine (well-formed messages) or
 * segment by segment by hand (hostile ones, framed by the MPA layer),
 * and a few are literal octets. Every stream is received in one piece,
 * then octet by octet, cut in two at every split point of every header,
 * around every FPDU boundary and every marker, in uneven pieces and in
 * skbs with a linear part and page fragments: each of these runs must
 * end exactly as the one-piece run did.
 *
 * Hostile streams put a well-formed Send before the offending segment
 * and an RDMA Write after it. Each case states the exact error, the
 * Terminate it calls for, how much was placed and what completed; the
 * fake peer's guards and its range checks on every placement prove that
 * nothing was placed outside a validated region, and the Write behind
 * proves that nothing was placed or completed after the error.
 */
#include <kunit/test.h>
#include <linux/crc32c.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/skbuff.h>
#include "siw_compat.h"

#include "siw_engine_test.h"

#define RX_EMSS		512
#define RX_MAX_FPDU	64
#define RX_WIRE_SIZE	(48 * 1024)
#define RX_SRC_SIZE	(32 * 1024)
#define RX_ULPDU_MAX	2048
#define RX_RBUF_MAX	4096
#define RX_SEG_ANY	0xff	/* the Terminate's segment is not checked */
#define RX_RREQ_MSG	(SIW_DDP_UNTAGGED_HLEN + SIW_RDMAP_RREQ_LEN)

#define RX_STAG(i, k)	((i) << SIW_STAG_INDEX_SHIFT | (k))
#define R1		RX_STAG(1, 0x5a)
#define R1_BASE		0x10000ULL
#define R1_LEN		8192
#define R2		RX_STAG(2, 0x11)
#define R3		RX_STAG(3, 0x33)
#define R4		RX_STAG(4, 0x44)
#define R5		RX_STAG(5, 0x55)
#define R5_BASE		0xffffffffffffff00ULL
#define R6		RX_STAG(6, 0x66)
#define R_NONE		RX_STAG(7, 0x00)	/* no region has index 7 */
#define RX_TRAILER_TO	(R1_BASE + 0x1f00)

/* RFC 5044 section 8 and RFC 6581 section 8: layer 2 (LLP), type 0 (MPA) */
#define T_LLP_CLOSED	SIW_T(0x2, 0x0, 0x01)
#define T_LLP_CRC	SIW_T(0x2, 0x0, 0x02)
#define T_LLP_MARKER	SIW_T(0x2, 0x0, 0x03)
#define T_LLP_FRAME	SIW_T(0x2, 0x0, 0x04)
#define T_LLP_LOCAL	SIW_T(0x2, 0x0, 0x05)
#define T_LLP_NO_IRD	SIW_T(0x2, 0x0, 0x06)
#define T_LLP_NO_RTR	SIW_T(0x2, 0x0, 0x07)
/* RFC 5040 section 4.8: layer 0, type 0, any code */
#define T_RDMAP_CATA	SIW_T(0x0, 0x0, 0x00)

#define RX_RW	IB_ACCESS_REMOTE_WRITE
#define RX_RR	IB_ACCESS_REMOTE_READ

/**
 * struct rx_region_def - one region of the fake memory layer
 * @index: STag index
 * @key: STag key
 * @base: Tagged Offset of its first octet
 * @len: octets
 * @access: IB_ACCESS_* granted
 * @foreign: it belongs to another PD than the QP's
 * @valid: not invalidated
 * @remote_inv: the peer may invalidate it
 */
struct rx_region_def {
	u32 index;
	u8 key;
	u64 base;
	u32 len;
	u32 access;
	bool foreign;
	bool valid;
	bool remote_inv;
};

static const struct rx_region_def rx_regions[] = {
	/* the sink of Writes and Read Responses, the source of Reads */
	{ 1, 0x5a, R1_BASE, R1_LEN, RX_RW | RX_RR, false, true, false },
	/* what a Send with Invalidate invalidates */
	{ 2, 0x11, 0x900000, 512, RX_RW, false, true, true },
	/* another PD's, invalidatable */
	{ 3, 0x33, 0x20000, 512, RX_RW | RX_RR, true, true, true },
	/* read only */
	{ 4, 0x44, 0x30000, 512, RX_RR, false, true, false },
	/* the last 256 octets below 2^64 */
	{ 5, 0x55, R5_BASE, 256, RX_RW | RX_RR, false, true, false },
	/* invalidated */
	{ 6, 0x66, 0x40000, 512, RX_RW | RX_RR, false, false, true },
};

static const struct rx_region_def *rx_region(u32 stag)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rx_regions); i++)
		if (rx_regions[i].index == siw_stag_index(stag))
			return &rx_regions[i];
	return NULL;
}

/**
 * struct rx_fpdu - where one FPDU of a stream is
 * @start: stream offset of its first octet (a leading marker, if any)
 * @end: stream offset after its CRC field
 * @ulpdu_len: its ULPDU Length (hand-made FPDUs only)
 * @head: the first octets of its ULPDU (hand-made FPDUs only)
 */
struct rx_fpdu {
	size_t start;
	size_t end;
	u32 ulpdu_len;
	u8 head[SIW_ENGINE_RX_KEEP];
};

/**
 * struct rx_msg - a message the receiver must complete
 * @opcode: RDMAP opcode
 * @tagged: tagged buffer model
 * @msn: untagged: its MSN
 * @stag: tagged: the sink STag
 * @inval: the STag it invalidates, 0 if none
 * @len: its length
 * @sum: untagged: CRC32c (seed 0) of its payload
 */
struct rx_msg {
	u8 opcode;
	bool tagged;
	u32 msn;
	u32 stag;
	u32 inval;
	u32 len;
	u32 sum;
};

/**
 * struct rx_stream - a stream being written, and what receiving it does
 * @test: the case
 * @w: the wire image; its offsets are stream offsets
 * @tx: the transmit engine writing it; its MPA state frames the
 *	hand-made FPDUs too
 * @rx: the receive engine under test
 * @f: MPA state of a hand-made FPDU
 * @pieces: FPDU pieces for the transmit engine
 * @src: payload octets, a pattern
 * @src_off: next unused octet of @src
 * @ulpdu: a hand-made ULPDU
 * @want: each region of rx_regions as receiving must leave it
 * @want_rbuf: the receive buffer as receiving must leave it
 * @nfpdu: FPDUs on the wire
 * @fpdu: the FPDUs
 * @nmsg: messages in @msg
 * @msg: messages that complete, in order
 * @placed: payload octets placed
 * @bufs_used: receive buffers bound
 * @nrresp: Read Response segments
 * @nrreq: Read Requests delivered
 * @rreq: the last one
 * @rreq_src_len: length of the source region it is checked against
 * @rreq_src_stag: STag of that region
 * @term: a Terminate from the peer, as it must be parsed
 * @bad: FPDU whose header the answering Terminate carries, -1 if none
 * @stop_at: octets consumed when the stream stops
 * @cut: if not 0, only this many octets arrive, then the stream closes
 * @markers: markers on
 * @crc: CRCs on
 * @rbuf_len: length of the receive buffer(s)
 * @nbufs: receive buffers posted
 * @ird: inbound Read queue depth
 * @read_resp_err: what the fake ORQ says of a Read Response
 * @read_req_err: what the fake IRQ says of a Read Request
 * @place_err: what the fake QP layer says of a placement
 */
struct rx_stream {
	struct kunit *test;
	struct eng_wire *w;
	struct siw_engine_tx *tx;
	struct siw_engine_rx *rx;
	struct siw_mpa_fpdu f;
	struct siw_engine_seg *pieces;
	u8 *src;
	u32 src_off;
	u8 *ulpdu;
	u8 *want[ARRAY_SIZE(rx_regions)];
	u8 *want_rbuf;
	unsigned int nfpdu;
	struct rx_fpdu fpdu[RX_MAX_FPDU];
	unsigned int nmsg;
	struct rx_msg msg[ENG_MAX_DONE];
	u32 placed;
	u32 bufs_used;
	u32 nrresp;
	u32 nrreq;
	struct siw_rdmap_rreq rreq;
	u64 rreq_src_len;
	u32 rreq_src_stag;
	struct siw_rdmap_term_report term;
	int bad;
	size_t stop_at;
	size_t cut;
	bool markers;
	bool crc;
	u32 rbuf_len;
	u32 nbufs;
	u32 ird;
	enum siw_ddp_err read_resp_err;
	enum siw_ddp_err read_req_err;
	enum siw_ddp_err place_err;
};

static struct rx_stream *rx_stream_new(struct kunit *test, bool crc,
				       bool markers)
{
	struct rx_stream *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	s->test = test;
	s->w = eng_wire_new(test, RX_WIRE_SIZE);
	s->tx = kunit_kzalloc(test, sizeof(*s->tx), GFP_KERNEL);
	s->rx = kunit_kzalloc(test, sizeof(*s->rx), GFP_KERNEL);
	s->pieces = kunit_kcalloc(test, SIW_ENGINE_TX_PIECES,
				  sizeof(*s->pieces), GFP_KERNEL);
	s->src = kunit_kmalloc(test, RX_SRC_SIZE, GFP_KERNEL);
	s->ulpdu = kunit_kmalloc(test, RX_ULPDU_MAX, GFP_KERNEL);
	s->want_rbuf = kunit_kmalloc(test, RX_RBUF_MAX, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s->tx);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s->rx);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s->pieces);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s->src);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s->ulpdu);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s->want_rbuf);
	memset(s->want_rbuf, ENG_GUARD_VAL, RX_RBUF_MAX);
	for (i = 0; i < ARRAY_SIZE(rx_regions); i++) {
		s->want[i] = kunit_kmalloc(test, rx_regions[i].len, GFP_KERNEL);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s->want[i]);
		memset(s->want[i], ENG_GUARD_VAL, rx_regions[i].len);
	}
	for (i = 0; i < RX_SRC_SIZE; i++)
		s->src[i] = (u8)(i * 7 + (i >> 8) + 1);
	siw_engine_tx_init(s->tx, markers, crc, RX_EMSS);
	s->markers = markers;
	s->crc = crc;
	s->bad = -1;
	s->rbuf_len = RX_RBUF_MAX;
	s->nbufs = 8;
	s->ird = 2;
	return s;
}

/* Fresh payload octets; no two messages carry the same */
static const u8 *rx_take(struct rx_stream *s, u32 len)
{
	const u8 *p;

	KUNIT_ASSERT_LE(s->test, len, (u32)RX_SRC_SIZE);
	if (s->src_off + len > RX_SRC_SIZE)
		s->src_off = 0;
	p = s->src + s->src_off;
	s->src_off += len + 1;
	return p;
}

static struct rx_msg *rx_expect(struct rx_stream *s, u8 opcode)
{
	struct rx_msg *e;

	KUNIT_ASSERT_LT(s->test, s->nmsg, (unsigned int)ENG_MAX_DONE);
	e = &s->msg[s->nmsg++];
	e->opcode = opcode;
	e->tagged = siw_rdmap_opinfo(opcode)->flags & SIW_RDMAP_F_TAGGED;
	return e;
}

/* Receiving places @len octets at Tagged Offset @to of region @stag */
static void rx_want_tagged(struct rx_stream *s, u32 stag, u64 to,
			   const u8 *data, u32 len)
{
	const struct rx_region_def *d = rx_region(stag);

	if (!len)
		return;
	KUNIT_ASSERT_NOT_NULL(s->test, d);
	KUNIT_ASSERT_TRUE(s->test, to >= d->base && to - d->base + len <= d->len);
	memcpy(s->want[d - rx_regions] + (to - d->base), data, len);
}

/* Receiving places @len octets at @mo of the receive buffer */
static void rx_want_recv(struct rx_stream *s, u32 mo, const u8 *data, u32 len)
{
	KUNIT_ASSERT_LE(s->test, mo + len, s->rbuf_len);
	memcpy(s->want_rbuf + mo, data, len);
}

/* Send @m with the transmit engine; returns the FPDUs it took */
static unsigned int rx_tx(struct rx_stream *s, const struct siw_engine_msg *m)
{
	struct siw_engine_txd d = { .piece = s->pieces,
				    .max = SIW_ENGINE_TX_PIECES };
	unsigned int n = 0;
	struct rx_fpdu *f;
	int rv;

	KUNIT_ASSERT_EQ(s->test, siw_engine_tx_msg(s->tx, m), 0);
	for (;;) {
		KUNIT_ASSERT_LT(s->test, s->nfpdu, (unsigned int)RX_MAX_FPDU);
		f = &s->fpdu[s->nfpdu];
		f->start = s->w->len;
		rv = siw_engine_tx_next(s->tx, &d);
		if (rv <= 0)
			break;
		KUNIT_ASSERT_TRUE(s->test, eng_wire_put(s->w, &d));
		f->end = s->w->len;
		s->nfpdu++;
		n++;
	}
	KUNIT_ASSERT_EQ(s->test, rv, 0);
	return n;
}

/* A well-formed Send, Send with Invalidate or with Solicited Event */
static void rx_send(struct rx_stream *s, u8 opcode, u32 len, u32 inval)
{
	const u8 *data = rx_take(s, len);
	struct siw_engine_seg seg = { .addr = data, .len = len,
				      .kind = SIW_ENGINE_SEG_KVA };
	struct siw_engine_msg m = { .opcode = opcode, .inval_stag = inval,
				    .sgl = { .seg = &seg, .nseg = 1 } };
	struct rx_msg *e = rx_expect(s, opcode);

	e->msn = s->tx->msn[SIW_DDP_QN_SEND];
	e->len = len;
	e->sum = crc32c(0, data, len);
	if (siw_rdmap_opinfo(opcode)->flags & SIW_RDMAP_F_INVALIDATE)
		e->inval = inval;
	rx_tx(s, &m);
	rx_want_recv(s, 0, data, len);
	s->placed += len;
	s->bufs_used++;
}

/* A well-formed RDMA Write or Read Response of @len octets at @to */
static void rx_write(struct rx_stream *s, u8 opcode, u32 stag, u64 to,
		     u32 len)
{
	const u8 *data = rx_take(s, len);
	struct siw_engine_seg seg = { .addr = data, .len = len,
				      .kind = SIW_ENGINE_SEG_KVA };
	struct siw_engine_msg m = { .opcode = opcode, .stag = stag, .to = to,
				    .sgl = { .seg = &seg, .nseg = 1 } };
	struct rx_msg *e = rx_expect(s, opcode);
	unsigned int n;

	e->stag = stag;
	e->len = len;
	n = rx_tx(s, &m);
	if (opcode == SIW_RDMAP_READ_RESP)
		s->nrresp += n;
	rx_want_tagged(s, stag, to, data, len);
	s->placed += len;
}

/* A well-formed Read Request for @len octets of @stag at @to */
static void rx_rreq(struct rx_stream *s, u32 stag, u64 to, u32 len)
{
	struct siw_rdmap_rreq rr = {
		.sink_stag = 0xabcd0102, .sink_to = 0x1122334455667788ULL,
		.src_stag = stag, .src_to = to, .len = len,
	};
	struct siw_engine_msg m = { .opcode = SIW_RDMAP_READ_REQ, .rreq = &rr };

	rx_tx(s, &m);
	s->nrreq++;
	s->rreq = rr;
	s->rreq_src_len = len ? rx_region(stag)->len : 0;
	s->rreq_src_stag = len ? stag : 0;
}

/* What the well-formed hostile streams start with: a Send of 40 octets */
static void rx_prefix(struct rx_stream *s)
{
	rx_send(s, SIW_RDMAP_SEND, 40, 0);
}

/* A DDP header, untagged */
static void rx_uhdr(struct siw_ddp_hdr *h, u8 opcode, u32 qn, u32 msn,
		    u32 mo, bool last)
{
	*h = (struct siw_ddp_hdr){ .opcode = opcode, .qn = qn, .msn = msn,
				   .mo = mo, .last = last };
}

/* A DDP header, tagged */
static void rx_thdr(struct siw_ddp_hdr *h, u8 opcode, u32 stag, u64 to,
		    bool last)
{
	*h = (struct siw_ddp_hdr){ .opcode = opcode, .tagged = true,
				   .stag = stag, .to = to, .last = last };
}

/* Write a ULPDU into @s->ulpdu: @h, @fixed, @data; returns its length */
static u32 rx_ulpdu(struct rx_stream *s, const struct siw_ddp_hdr *h,
		    const void *fixed, u32 fixed_len, const u8 *data, u32 len)
{
	int hl = siw_ddp_hdr_encode(h, s->ulpdu, RX_ULPDU_MAX);

	KUNIT_ASSERT_GT(s->test, hl, 0);
	KUNIT_ASSERT_LE(s->test, hl + fixed_len + len, (u32)RX_ULPDU_MAX);
	if (fixed_len)
		memcpy(s->ulpdu + hl, fixed, fixed_len);
	if (len)
		memcpy(s->ulpdu + hl + fixed_len, data, len);
	return hl + fixed_len + len;
}

/* Frame @len octets at @s->ulpdu as the next FPDU */
static void rx_put(struct rx_stream *s, u32 len)
{
	struct rx_fpdu *f = &s->fpdu[s->nfpdu];
	ssize_t n;

	KUNIT_ASSERT_LT(s->test, s->nfpdu, (unsigned int)RX_MAX_FPDU);
	f->start = s->w->len;
	f->ulpdu_len = len;
	memcpy(f->head, s->ulpdu, min_t(u32, len, sizeof(f->head)));
	n = siw_mpa_fpdu_build(&s->f, &s->tx->mpa, s->ulpdu, len,
			       s->w->buf + s->w->len, s->w->size - s->w->len);
	KUNIT_ASSERT_GT(s->test, n, 0L);
	s->w->len += n;
	f->end = s->w->len;
	s->nfpdu++;
}

/* A hand-made segment: @h, @fixed, then @len fresh payload octets */
static const u8 *rx_seg(struct rx_stream *s, const struct siw_ddp_hdr *h,
			const void *fixed, u32 fixed_len, u32 len)
{
	const u8 *data = rx_take(s, len);

	rx_put(s, rx_ulpdu(s, h, fixed, fixed_len, data, len));
	return data;
}

static const u8 *rx_useg(struct rx_stream *s, u8 opcode, u32 qn, u32 msn,
			 u32 mo, bool last, u32 len)
{
	struct siw_ddp_hdr h;

	rx_uhdr(&h, opcode, qn, msn, mo, last);
	return rx_seg(s, &h, NULL, 0, len);
}

static const u8 *rx_tseg(struct rx_stream *s, u8 opcode, u32 stag, u64 to,
			 bool last, u32 len)
{
	struct siw_ddp_hdr h;

	rx_thdr(&h, opcode, stag, to, last);
	return rx_seg(s, &h, NULL, 0, len);
}

/* The FPDU just written is the offending one: the stream stops after it */
static void rx_offends(struct rx_stream *s)
{
	s->bad = s->nfpdu - 1;
	s->stop_at = s->fpdu[s->bad].end;
}

/* What must never be reached: an RDMA Write of 8 octets to region 1 */
static void rx_trailer(struct rx_stream *s)
{
	rx_tseg(s, SIW_RDMAP_WRITE, R1, RX_TRAILER_TO, true, 8);
}

/* The stream ends after @at octets, inside FPDU @i (or after it) */
static void rx_cut(struct rx_stream *s, int i, size_t at)
{
	s->bad = i;
	s->cut = at;
	s->stop_at = at;
}

/* Stream offset of octet @k of FPDU @i, markers skipped (0: its length) */
static size_t rx_wire_at(const struct rx_stream *s, unsigned int i, u32 k)
{
	size_t at = s->fpdu[i].start;

	for (;;) {
		if (s->markers && !(at % SIW_MPA_MARKER_PERIOD)) {
			at += SIW_MPA_MARKER_LEN;
			continue;
		}
		if (!k--)
			return at;
		at++;
	}
}

/* Offset of ULPDU octet @k of FPDU @i, and of octet @k of its CRC */
static size_t rx_ulpdu_at(const struct rx_stream *s, unsigned int i, u32 k)
{
	return rx_wire_at(s, i, SIW_MPA_HDR_LEN + k);
}

static size_t rx_crc_at(const struct rx_stream *s, unsigned int i, u32 k)
{
	u32 ulpdu = s->fpdu[i].ulpdu_len;

	return rx_ulpdu_at(s, i, ulpdu + siw_mpa_pad_len(ulpdu) + k);
}

/* Well-formed streams */

static void rx_g_send(struct rx_stream *s)
{
	rx_send(s, SIW_RDMAP_SEND, 100, 0);
}

static void rx_g_send_multi(struct rx_stream *s)
{
	rx_send(s, SIW_RDMAP_SEND, 3000, 0);
}

static void rx_g_send_inv(struct rx_stream *s)
{
	rx_send(s, SIW_RDMAP_SEND_INV, 200, R2);
}

static void rx_g_send_inv_multi(struct rx_stream *s)
{
	rx_send(s, SIW_RDMAP_SEND_INV, 2000, R2);
}

static void rx_g_send_se(struct rx_stream *s)
{
	rx_send(s, SIW_RDMAP_SEND_SE, 64, 0);
}

static void rx_g_send_se_inv(struct rx_stream *s)
{
	rx_send(s, SIW_RDMAP_SEND_SE_INV, 1, R2);
}

static void rx_g_write(struct rx_stream *s)
{
	rx_write(s, SIW_RDMAP_WRITE, R1, R1_BASE + 5, 100);
}

static void rx_g_write_multi(struct rx_stream *s)
{
	rx_write(s, SIW_RDMAP_WRITE, R1, R1_BASE + 1001, 5000);
}

static void rx_g_write_edges(struct rx_stream *s)
{
	/* the first and the last octet of a region */
	rx_write(s, SIW_RDMAP_WRITE, R1, R1_BASE, 1);
	rx_write(s, SIW_RDMAP_WRITE, R1, R1_BASE + R1_LEN - 1, 1);
	/* a region that ends at 2^64 - 1, filled */
	rx_write(s, SIW_RDMAP_WRITE, R5, R5_BASE, 256);
}

static void rx_g_rreq(struct rx_stream *s)
{
	rx_rreq(s, R1, R1_BASE + 8, 100);
}

static void rx_g_rresp(struct rx_stream *s)
{
	rx_write(s, SIW_RDMAP_READ_RESP, R1, R1_BASE + 64, 100);
}

static void rx_g_rresp_multi(struct rx_stream *s)
{
	rx_write(s, SIW_RDMAP_READ_RESP, R1, R1_BASE, 4000);
}

static void rx_g_send0(struct rx_stream *s)
{
	rx_send(s, SIW_RDMAP_SEND, 0, 0);
}

/* RFC 5041 section 5.2: STag and TO of an empty segment go unchecked */
static void rx_g_write0(struct rx_stream *s)
{
	rx_write(s, SIW_RDMAP_WRITE, R_NONE, 0xdead0000, 0);
}

static void rx_g_rreq0(struct rx_stream *s)
{
	rx_rreq(s, 0, 0, 0);
}

static void rx_g_rresp0(struct rx_stream *s)
{
	rx_write(s, SIW_RDMAP_READ_RESP, R3, 0, 0);
}

static void rx_g_sends(struct rx_stream *s)
{
	static const u32 lens[] = { 0, 1, 2, 3, 513, RX_RBUF_MAX };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(lens); i++)
		rx_send(s, SIW_RDMAP_SEND, lens[i], 0);
}

static void rx_g_mixed(struct rx_stream *s)
{
	rx_send(s, SIW_RDMAP_SEND, 100, 0);
	rx_write(s, SIW_RDMAP_WRITE, R1, R1_BASE, 3000);
	rx_rreq(s, R1, R1_BASE + 100, 1000);
	rx_send(s, SIW_RDMAP_SEND_SE, 0, 0);
	rx_rreq(s, 0, 0, 0);
	rx_send(s, SIW_RDMAP_SEND_INV, 2000, R2);
	rx_write(s, SIW_RDMAP_READ_RESP, R1, R1_BASE + 8000, 5);
	rx_write(s, SIW_RDMAP_WRITE, R1, R1_BASE + 3000, 0);
	rx_send(s, SIW_RDMAP_SEND_SE_INV, 1500, R2);
	rx_send(s, SIW_RDMAP_SEND, 1, 0);
}

/**
 * struct rx_good_case - a well-formed stream
 * @name: for the case's description
 * @build: writes it
 * @ndone: messages it completes
 * @nrreq: Read Requests it delivers
 * @placed: payload octets it places
 */
struct rx_good_case {
	const char *name;
	void (*build)(struct rx_stream *s);
	u8 ndone;
	u8 nrreq;
	u32 placed;
};

static const struct rx_good_case rx_good_cases[] = {
	{ "send", rx_g_send, 1, 0, 100 },
	{ "send, many segments", rx_g_send_multi, 1, 0, 3000 },
	{ "send with invalidate", rx_g_send_inv, 1, 0, 200 },
	{ "send with invalidate, many segments", rx_g_send_inv_multi, 1, 0,
	  2000 },
	{ "send with solicited event", rx_g_send_se, 1, 0, 64 },
	{ "send with se and invalidate", rx_g_send_se_inv, 1, 0, 1 },
	{ "rdma write", rx_g_write, 1, 0, 100 },
	{ "rdma write, many segments", rx_g_write_multi, 1, 0, 5000 },
	{ "rdma writes at the region edges", rx_g_write_edges, 3, 0, 258 },
	{ "read request", rx_g_rreq, 0, 1, 0 },
	{ "read response", rx_g_rresp, 1, 0, 100 },
	{ "read response, many segments", rx_g_rresp_multi, 1, 0, 4000 },
	{ "zero-length send", rx_g_send0, 1, 0, 0 },
	{ "zero-length write, stag unchecked", rx_g_write0, 1, 0, 0 },
	{ "zero-length read request", rx_g_rreq0, 0, 1, 0 },
	{ "zero-length read response, stag unchecked", rx_g_rresp0, 1, 0, 0 },
	{ "sends of 0 to 4096 octets", rx_g_sends, 6, 0, 4615 },
	{ "every opcode on one stream", rx_g_mixed, 8, 2, 6606 },
};

#define RX_FRAMINGS	4	/* bit 0 of the index: crc; bit 1: markers */
#define RX_F_PLAIN	BIT(0)
#define RX_F_CRC	BIT(1)
#define RX_F_MARKERS	BIT(2)
#define RX_F_BOTH	BIT(3)
#define RX_F_CRC_ON	(RX_F_CRC | RX_F_BOTH)
#define RX_F_MARKERS_ON	(RX_F_MARKERS | RX_F_BOTH)

static void rx_desc(char *desc, const char *name, unsigned long framing)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s, crc %s, markers %s", name,
		 framing & 1 ? "on" : "off", framing & 2 ? "on" : "off");
}

/* The parameter is the index plus one: case * RX_FRAMINGS + framing */
static const void *rx_good_gen_params(const void *prev, char *desc)
{
	unsigned long i = (unsigned long)prev;

	if (i >= ARRAY_SIZE(rx_good_cases) * RX_FRAMINGS)
		return NULL;
	rx_desc(desc, rx_good_cases[i / RX_FRAMINGS].name, i % RX_FRAMINGS);
	return (const void *)(i + 1);
}

/**
 * struct rx_result - how one receive run ended
 * @used: octets consumed
 * @stopped: the stream stopped
 * @err: siw_engine_rx_error()
 * @term_due: siw_engine_rx_term_info() returned true
 * @ti: what it gave; @ti.seg points to @seg
 * @seg: a copy of the segment octets it gave
 * @mpa_idle: the deframer is between FPDUs
 * @ndone: messages completed
 * @done: their last headers
 * @done_len: their lengths
 * @done_inval: the STags they invalidate
 * @done_sum: what the fake QP layer found in the receive buffer
 * @nrresp: Read Response segments shown to the fake ORQ
 * @nrreq: Read Requests delivered
 * @rreq: the last one
 * @rreq_src_len: length of its checked source
 * @rreq_src_stag: STag of its checked source
 * @nterm: Terminates delivered
 * @term: the last one
 * @placed: octets placed
 * @refs: region references held
 * @bad: the fake peer saw a placement outside its buffer
 * @guards: every guard intact
 * @nbufs: receive buffers left
 * @rbuf_sum: CRC32c of the receive buffer with its guards
 * @reg_sum: CRC32c of each region with its guards
 * @uq: the engine's untagged queues
 */
struct rx_result {
	size_t used;
	bool stopped;
	enum siw_ddp_err err;
	bool term_due;
	struct siw_rdmap_term_info ti;
	u8 seg[SIW_ENGINE_RX_KEEP];
	bool mpa_idle;
	unsigned int ndone;
	struct siw_ddp_hdr done[ENG_MAX_DONE];
	u32 done_len[ENG_MAX_DONE];
	u32 done_inval[ENG_MAX_DONE];
	u32 done_sum[ENG_MAX_DONE];
	unsigned int nrresp;
	unsigned int nrreq;
	struct siw_rdmap_rreq rreq;
	u64 rreq_src_len;
	u32 rreq_src_stag;
	unsigned int nterm;
	struct siw_rdmap_term_report term;
	u32 placed;
	int refs;
	bool bad;
	bool guards;
	unsigned int nbufs;
	u32 rbuf_sum;
	u32 reg_sum[ENG_NREG];
	struct siw_ddp_uq uq[SIW_DDP_NUM_QN];
};

static u32 rx_guarded_sum(const u8 *mem, u32 size)
{
	return crc32c(0, mem - ENG_GUARD, size + 2 * ENG_GUARD);
}

static void rx_snapshot(const struct rx_stream *s, const struct eng_peer *p,
			size_t used, struct rx_result *r)
{
	const struct siw_engine_rx *rx = s->rx;
	unsigned int i, n = min_t(unsigned int, p->ndone, ENG_MAX_DONE);

	memset(r, 0, sizeof(*r));
	r->used = used;
	r->stopped = siw_engine_rx_stopped(rx);
	r->err = siw_engine_rx_error(rx);
	r->term_due = siw_engine_rx_term_info(rx, &r->ti);
	if (r->ti.seg && r->ti.seg_avail <= sizeof(r->seg))
		memcpy(r->seg, r->ti.seg, r->ti.seg_avail);
	r->ti.seg = r->seg;
	r->mpa_idle = siw_mpa_rx_idle(&rx->mpa);
	r->ndone = p->ndone;
	for (i = 0; i < n; i++) {
		r->done[i] = p->done[i];
		r->done_len[i] = p->done_len[i];
		r->done_inval[i] = p->done_inval[i];
		r->done_sum[i] = p->done_sum[i];
	}
	r->nrresp = p->nrresp;
	r->nrreq = p->nrreq;
	r->rreq = p->rreq;
	r->rreq_src_len = p->rreq_src_len;
	r->rreq_src_stag = p->rreq_src_stag;
	r->nterm = p->nterm;
	r->term = p->term;
	r->placed = p->placed;
	r->refs = p->refs;
	r->bad = p->bad;
	r->guards = eng_peer_guards_ok(p);
	r->nbufs = p->nbufs;
	r->rbuf_sum = rx_guarded_sum(p->rbuf, p->rbuf_len);
	for (i = 0; i < ENG_NREG; i++)
		if (p->reg[i].mem)
			r->reg_sum[i] = rx_guarded_sum(p->reg[i].mem,
						       p->reg[i].size);
	memcpy(r->uq, rx->uq, sizeof(r->uq));
}

static bool rx_hdr_same(const struct siw_ddp_hdr *a,
			const struct siw_ddp_hdr *b)
{
	return a->to == b->to && a->stag == b->stag && a->qn == b->qn &&
	       a->msn == b->msn && a->mo == b->mo &&
	       a->inval_stag == b->inval_stag && a->opcode == b->opcode &&
	       a->tagged == b->tagged && a->last == b->last;
}

static bool rx_rreq_same(const struct siw_rdmap_rreq *a,
			 const struct siw_rdmap_rreq *b)
{
	return a->sink_to == b->sink_to && a->src_to == b->src_to &&
	       a->sink_stag == b->sink_stag && a->src_stag == b->src_stag &&
	       a->len == b->len;
}

static bool rx_term_same(const struct siw_rdmap_term_report *a,
			 const struct siw_rdmap_term_report *b)
{
	return a->err == b->err && a->layer == b->layer &&
	       a->etype == b->etype && a->ecode == b->ecode &&
	       a->seg_len == b->seg_len &&
	       a->seg_len_valid == b->seg_len_valid &&
	       a->has_ddp_hdr == b->has_ddp_hdr &&
	       a->has_rreq == b->has_rreq && a->ddp_raw_len == b->ddp_raw_len &&
	       !memcmp(a->ddp_raw, b->ddp_raw, a->ddp_raw_len) &&
	       rx_rreq_same(&a->rreq, &b->rreq);
}

static bool rx_done_same(const struct rx_result *a, const struct rx_result *b)
{
	unsigned int i, n = min_t(unsigned int, a->ndone, ENG_MAX_DONE);

	if (a->ndone != b->ndone)
		return false;
	for (i = 0; i < n; i++)
		if (!rx_hdr_same(&a->done[i], &b->done[i]) ||
		    a->done_len[i] != b->done_len[i] ||
		    a->done_inval[i] != b->done_inval[i] ||
		    a->done_sum[i] != b->done_sum[i])
			return false;
	return true;
}

static bool rx_ti_same(const struct rx_result *a, const struct rx_result *b)
{
	return a->term_due == b->term_due && a->ti.err == b->ti.err &&
	       a->ti.seg_avail == b->ti.seg_avail &&
	       a->ti.seg_len == b->ti.seg_len &&
	       a->ti.seg_len_valid == b->ti.seg_len_valid &&
	       !memcmp(a->seg, b->seg, a->ti.seg_avail);
}

static bool rx_delivered_same(const struct rx_result *a,
			      const struct rx_result *b)
{
	return a->nrresp == b->nrresp && a->nrreq == b->nrreq &&
	       rx_rreq_same(&a->rreq, &b->rreq) &&
	       a->rreq_src_len == b->rreq_src_len &&
	       a->rreq_src_stag == b->rreq_src_stag &&
	       a->nterm == b->nterm && rx_term_same(&a->term, &b->term);
}

static bool rx_memory_same(const struct rx_result *a,
			   const struct rx_result *b)
{
	return a->placed == b->placed && a->refs == b->refs &&
	       a->bad == b->bad && a->guards == b->guards &&
	       a->nbufs == b->nbufs && a->rbuf_sum == b->rbuf_sum &&
	       !memcmp(a->reg_sum, b->reg_sum, sizeof(a->reg_sum));
}

/* The first thing in which two runs differ, NULL if none */
static const char *rx_diff(const struct rx_result *a, const struct rx_result *b)
{
	if (a->used != b->used)
		return "octets consumed";
	if (a->stopped != b->stopped || a->err != b->err)
		return "error";
	if (!rx_ti_same(a, b))
		return "terminate info";
	if (a->mpa_idle != b->mpa_idle)
		return "deframer state";
	if (!rx_done_same(a, b))
		return "completions";
	if (!rx_delivered_same(a, b))
		return "read requests, responses or terminates";
	if (!rx_memory_same(a, b))
		return "placement";
	if (memcmp(a->uq, b->uq, sizeof(a->uq)))
		return "untagged queues";
	return NULL;
}

/* Page fragments, and skbs that start with octets not of the stream */
struct rx_skb_layout {
	const char *name;
	u32 junk;
	u32 head;
	u32 frag;
	u32 frag_off;
	u32 nfrags;
};

static const struct rx_skb_layout rx_skb_layouts[] = {
	{ "linear 1448", 0, 1448, 0, 0, 0 },
	{ "head 7, frags of 13 at 4083", 3, 7, 13, 4083, 3 },
	{ "no head, frags of 1000 at 96", 0, 0, 1000, 96, 4 },
	{ "head 1, frags of 3 at 4093", 5, 1, 3, 4093, 4 },
	{ "frags of a page", 0, 0, PAGE_SIZE, 0,
	  DIV_ROUND_UP(RX_WIRE_SIZE, PAGE_SIZE) },
	{ "linear, the whole stream", 0, RX_WIRE_SIZE, 0, 0, 0 },
};

/* Every FPDU of the stream lies whole in one run: the one-step path */
#define RX_SKB_ONE_RUN	(&rx_skb_layouts[ARRAY_SIZE(rx_skb_layouts) - 1])

/* An skb with @l->junk octets, then up to @len of @src; NULL on -ENOMEM */
static struct sk_buff *rx_skb_new(const u8 *src, size_t len,
				  const struct rx_skb_layout *l, u32 *n)
{
	u32 head = min_t(size_t, l->head, len), at = head, k, i;
	struct sk_buff *skb = alloc_skb(l->junk + head, GFP_KERNEL);
	struct page *pg;

	if (!skb)
		return NULL;
	memset(skb_put(skb, l->junk), 0xa5, l->junk);
	skb_put_data(skb, src, head);
	for (i = 0; i < l->nfrags && at < len; i++) {
		k = min_t(size_t, l->frag, len - at);
		pg = alloc_page(GFP_KERNEL);
		if (!pg) {
			kfree_skb(skb);
			return NULL;
		}
		memcpy(page_address(pg) + l->frag_off, src + at, k);
		skb_fill_page_desc(skb, i, pg, l->frag_off, k);
		skb->len += k;
		skb->data_len += k;
		skb->truesize += PAGE_SIZE;
		at += k;
	}
	*n = at;
	return skb;
}

/* Feed @buf[0, @len) in skbs laid out as @l; returns octets consumed */
static size_t rx_feed_skbs(struct kunit *test, struct siw_engine_rx *rx,
			   const u8 *buf, size_t len,
			   const struct rx_skb_layout *l)
{
	unsigned int used;
	struct sk_buff *skb;
	size_t at = 0;
	u32 n;

	while (at < len) {
		skb = rx_skb_new(buf + at, len - at, l, &n);
		KUNIT_ASSERT_NOT_NULL(test, skb);
		used = siw_engine_rx_skb(rx, skb, l->junk, n);
		kfree_skb(skb);
		at += used;
		if (used != n)
			break;
	}
	return at;
}

/**
 * struct rx_how - how one receive run is fed
 * @cut: linear buffers cut as enum eng_cut says
 * @at: ENG_SPLIT: where
 * @seed: ENG_UNEVEN: the seed
 * @skb: if not NULL, skbs laid out so, instead of linear buffers
 */
struct rx_how {
	enum eng_cut cut;
	size_t at;
	u32 seed;
	const struct rx_skb_layout *skb;
};

/* Receive @s afresh as @how says, then close if @s says so */
static void rx_run(struct kunit *test, struct rx_stream *s,
		   struct eng_peer *p, const struct rx_how *how,
		   struct rx_result *r)
{
	size_t len = s->cut ? s->cut : s->w->len;
	size_t used;

	eng_peer_reset(p, s->nbufs);
	p->read_resp_err = s->read_resp_err;
	p->read_req_err = s->read_req_err;
	p->place_err = s->place_err;
	eng_rx_start(s->rx, p, s->ird, s->markers, s->crc);
	if (how->skb)
		used = rx_feed_skbs(test, s->rx, s->w->buf, len, how->skb);
	else
		used = eng_feed(s->rx, s->w->buf, len, how->cut, how->at,
				how->seed);
	if (s->cut)
		siw_engine_rx_close(s->rx);
	rx_snapshot(s, p, used, r);
}

static struct eng_peer *rx_peer(struct kunit *test, const struct rx_stream *s)
{
	struct eng_peer *p = eng_peer_new(test, s->rbuf_len);
	const struct rx_region_def *d;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rx_regions); i++) {
		d = &rx_regions[i];
		eng_region_set(p, d->index, d->key, d->base, d->len, d->access,
			       eng_pd(d->foreign), d->valid, d->remote_inv);
	}
	return p;
}

/* The buffers hold exactly what @s says receiving places */
static void rx_expect_memory(struct kunit *test, const struct rx_stream *s,
			     const struct eng_peer *p)
{
	unsigned int i;

	SIW_EXPECT_BYTES(test, p->rbuf, s->want_rbuf, s->rbuf_len);
	for (i = 0; i < ARRAY_SIZE(rx_regions); i++) {
		KUNIT_ASSERT_EQ(test, p->reg[rx_regions[i].index - 1].size,
				rx_regions[i].len);
		SIW_EXPECT_BYTES(test, p->reg[rx_regions[i].index - 1].mem,
				 s->want[i], rx_regions[i].len);
	}
	KUNIT_EXPECT_TRUE(test, eng_peer_guards_ok(p));
	KUNIT_EXPECT_FALSE(test, p->bad);
	KUNIT_EXPECT_EQ(test, p->refs, 0);
}

/* The first @n completions are the messages @s expects */
static void rx_expect_msgs(struct kunit *test, const struct rx_stream *s,
			   const struct rx_result *r, unsigned int n)
{
	const struct siw_ddp_hdr *h;
	const struct rx_msg *e;
	unsigned int i;

	KUNIT_ASSERT_LE(test, n, s->nmsg);
	for (i = 0; i < n && i < r->ndone && i < ENG_MAX_DONE; i++) {
		e = &s->msg[i];
		h = &r->done[i];
		KUNIT_EXPECT_EQ_MSG(test, h->opcode, e->opcode, "message %u", i);
		KUNIT_EXPECT_EQ_MSG(test, h->tagged, e->tagged, "message %u", i);
		KUNIT_EXPECT_TRUE_MSG(test, h->last, "message %u", i);
		KUNIT_EXPECT_EQ_MSG(test, r->done_len[i], e->len, "message %u", i);
		KUNIT_EXPECT_EQ_MSG(test, r->done_inval[i], e->inval,
				    "message %u", i);
		if (e->tagged) {
			KUNIT_EXPECT_EQ_MSG(test, h->stag, e->stag, "message %u",
					    i);
			continue;
		}
		KUNIT_EXPECT_EQ_MSG(test, h->msn, e->msn, "message %u", i);
		KUNIT_EXPECT_EQ_MSG(test, h->inval_stag, e->inval, "message %u",
				    i);
		KUNIT_EXPECT_EQ_MSG(test, r->done_sum[i], e->sum,
				    "message %u: receive buffer contents", i);
	}
}

static void rx_expect_rreq(struct kunit *test, const struct rx_stream *s,
			   const struct rx_result *r)
{
	if (!s->nrreq)
		return;
	KUNIT_EXPECT_EQ(test, r->rreq.sink_stag, s->rreq.sink_stag);
	KUNIT_EXPECT_EQ(test, r->rreq.sink_to, s->rreq.sink_to);
	KUNIT_EXPECT_EQ(test, r->rreq.src_stag, s->rreq.src_stag);
	KUNIT_EXPECT_EQ(test, r->rreq.src_to, s->rreq.src_to);
	KUNIT_EXPECT_EQ(test, r->rreq.len, s->rreq.len);
	KUNIT_EXPECT_EQ(test, r->rreq_src_len, s->rreq_src_len);
	KUNIT_EXPECT_EQ(test, r->rreq_src_stag, s->rreq_src_stag);
}

static const struct rx_how rx_whole = { .cut = ENG_WHOLE };

/* The case and framing the parameter names: its stream (*@cp) and peer */
static struct rx_stream *rx_good_stream(struct kunit *test,
					const struct rx_good_case **cp,
					struct eng_peer **pp)
{
	unsigned long i = (unsigned long)test->param_value - 1;
	const struct rx_good_case *c = &rx_good_cases[i / RX_FRAMINGS];
	struct rx_stream *s;

	s = rx_stream_new(test, i & 1, i & 2);
	c->build(s);
	*pp = rx_peer(test, s);
	*cp = c;
	return s;
}

/* Well-formed streams in one piece: every message as sent */
static void siw_engine_rx_good(struct kunit *test)
{
	struct rx_result *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	const struct rx_good_case *c;
	struct siw_rdmap_term_info ti;
	struct rx_stream *s;
	struct eng_peer *p;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, r);
	s = rx_good_stream(test, &c, &p);
	KUNIT_ASSERT_EQ(test, s->nmsg, (unsigned int)c->ndone);
	KUNIT_ASSERT_EQ(test, s->nrreq, (u32)c->nrreq);
	KUNIT_ASSERT_EQ(test, s->placed, c->placed);

	rx_run(test, s, p, &rx_whole, r);
	KUNIT_EXPECT_EQ(test, r->used, s->w->len);
	KUNIT_EXPECT_FALSE(test, r->stopped);
	/*
	 * One pass over the payload: with a CRC, the placement copy summed
	 * every octet it placed, and as the CRC checked out, nothing summed
	 * them a second time
	 */
	KUNIT_EXPECT_EQ(test, p->summed, s->crc ? c->placed : 0);
	KUNIT_EXPECT_EQ_MSG(test, r->err, SIW_DDP_OK, "\"%s\"",
			    siw_ddp_err_name(r->err));
	KUNIT_EXPECT_FALSE(test, r->term_due);
	KUNIT_EXPECT_TRUE(test, r->mpa_idle);
	KUNIT_EXPECT_EQ(test, r->ndone, (unsigned int)c->ndone);
	rx_expect_msgs(test, s, r, c->ndone);
	KUNIT_EXPECT_EQ(test, r->placed, c->placed);
	KUNIT_EXPECT_EQ(test, r->nrreq, (unsigned int)c->nrreq);
	rx_expect_rreq(test, s, r);
	KUNIT_EXPECT_EQ(test, r->nrresp, s->nrresp);
	KUNIT_EXPECT_EQ(test, r->nterm, 0U);
	KUNIT_EXPECT_EQ(test, s->nbufs - r->nbufs, s->bufs_used);
	KUNIT_EXPECT_EQ(test, r->uq[SIW_DDP_QN_SEND].msn,
			s->tx->msn[SIW_DDP_QN_SEND]);
	KUNIT_EXPECT_EQ(test, r->uq[SIW_DDP_QN_RREQ].msn,
			s->tx->msn[SIW_DDP_QN_RREQ]);
	KUNIT_EXPECT_EQ(test, r->uq[SIW_DDP_QN_RREQ].avail, s->ird - s->nrreq);
	rx_expect_memory(test, s, p);

	/* the stream ends between messages: an orderly close */
	siw_engine_rx_close(s->rx);
	KUNIT_EXPECT_TRUE(test, siw_engine_rx_stopped(s->rx));
	KUNIT_EXPECT_EQ(test, siw_engine_rx_error(s->rx), SIW_DDP_OK);
	KUNIT_EXPECT_FALSE(test, siw_engine_rx_term_info(s->rx, &ti));
	KUNIT_EXPECT_EQ(test, p->refs, 0);
	KUNIT_EXPECT_EQ(test, siw_engine_rx_feed(s->rx, s->w->buf, s->w->len),
			(size_t)0);
	KUNIT_EXPECT_EQ(test, p->ndone, (unsigned int)c->ndone);
}

/* Where a two-piece run cuts: headers, FPDU ends, markers, a stride */
static bool rx_split_wanted(const struct rx_stream *s, size_t at, size_t len)
{
	const struct rx_fpdu *f;
	unsigned int i;
	u32 m;

	if (len <= 1024 || !(at % (len / 32 + 1)))
		return true;
	m = at % SIW_MPA_MARKER_PERIOD;
	if (s->markers && (m <= 2 * SIW_MPA_MARKER_LEN ||
			   m >= SIW_MPA_MARKER_PERIOD - SIW_MPA_MARKER_LEN))
		return true;
	for (i = 0; i < s->nfpdu; i++) {
		f = &s->fpdu[i];
		/* marker, length, DDP header and a Read Request or Terminate */
		if (at + 2 >= f->start && at <= f->start + SIW_MPA_MARKER_LEN +
		    SIW_MPA_HDR_LEN + SIW_ENGINE_RX_KEEP)
			return true;
		if (at + 2 * SIW_MPA_CRC_LEN >= f->end && at <= f->end + 1)
			return true;
	}
	return false;
}

/* One more run; false (and the case failed) if it ended unlike @ref */
static bool rx_same_run(struct kunit *test, struct rx_stream *s,
			struct eng_peer *p, const struct rx_how *how,
			const struct rx_result *ref, struct rx_result *r)
{
	static const char * const cuts[] = { "whole", "split", "octets",
					     "uneven" };
	const char *diff;

	rx_run(test, s, p, how, r);
	diff = rx_diff(ref, r);
	if (!diff)
		return true;
	KUNIT_FAIL(test,
		   "fed %s (at %zu, seed %u, skb %s): %s differs from the one-piece run: \"%s\" after %zu octets, %u done, %u placed; one piece: \"%s\" after %zu, %u done, %u placed",
		   cuts[how->cut], how->at, how->seed,
		   how->skb ? how->skb->name : "none", diff,
		   siw_ddp_err_name(r->err), r->used, r->ndone, r->placed,
		   siw_ddp_err_name(ref->err), ref->used, ref->ndone,
		   ref->placed);
	return false;
}

/* Every way of feeding @s ends as the one-piece run @ref did */
static void rx_all_cuts(struct kunit *test, struct rx_stream *s,
			struct eng_peer *p, const struct rx_result *ref)
{
	struct rx_result *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	size_t len = s->cut ? s->cut : s->w->len;
	struct rx_how how = { .cut = ENG_OCTETS };
	unsigned int i;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, r);
	if (!rx_same_run(test, s, p, &how, ref, r))
		return;
	how.cut = ENG_SPLIT;
	for (how.at = 1; how.at < len; how.at++) {
		if (!rx_split_wanted(s, how.at, len))
			continue;
		if (!rx_same_run(test, s, p, &how, ref, r))
			return;
		cond_resched();
	}
	how = (struct rx_how){ .cut = ENG_UNEVEN };
	for (how.seed = 1; how.seed <= 3; how.seed++)
		if (!rx_same_run(test, s, p, &how, ref, r))
			return;
	how = (struct rx_how){ .cut = ENG_WHOLE };
	for (i = 0; i < ARRAY_SIZE(rx_skb_layouts); i++) {
		how.skb = &rx_skb_layouts[i];
		if (!rx_same_run(test, s, p, &how, ref, r))
			return;
	}
}

/* Well-formed streams in pieces: the same as in one piece */
static void siw_engine_rx_cuts(struct kunit *test)
{
	struct rx_result *ref = kunit_kzalloc(test, sizeof(*ref), GFP_KERNEL);
	const struct rx_good_case *c;
	struct rx_stream *s;
	struct eng_peer *p;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ref);
	s = rx_good_stream(test, &c, &p);
	rx_run(test, s, p, &rx_whole, ref);
	/* a one-piece run that went wrong is no reference */
	KUNIT_ASSERT_EQ(test, ref->used, s->w->len);
	KUNIT_ASSERT_FALSE(test, ref->stopped);
	KUNIT_ASSERT_EQ(test, ref->ndone, (unsigned int)c->ndone);
	KUNIT_ASSERT_EQ(test, ref->placed, c->placed);
	rx_all_cuts(test, s, p, ref);
}

/* Hostile streams */

/* A segment whose DDP and RDMAP versions are @dv and @rv */
static void rx_versions(struct rx_stream *s, const struct siw_ddp_hdr *h,
			u8 dv, u8 rv)
{
	u32 n = rx_ulpdu(s, h, NULL, 0, rx_take(s, 20), 20);

	s->ulpdu[0] = (s->ulpdu[0] & ~0x03) | dv;
	s->ulpdu[1] = (s->ulpdu[1] & 0x3f) | rv << 6;
	rx_put(s, n);
}

/* Prefix, one untagged segment, trailer */
static void rx_bad_useg(struct rx_stream *s, u8 opcode, u32 qn, u32 msn,
			u32 mo, bool last, u32 len)
{
	rx_prefix(s);
	rx_useg(s, opcode, qn, msn, mo, last, len);
	rx_offends(s);
	rx_trailer(s);
}

/* Prefix, one tagged segment, trailer */
static void rx_bad_tseg(struct rx_stream *s, u8 opcode, u32 stag, u64 to,
			u32 len)
{
	rx_prefix(s);
	rx_tseg(s, opcode, stag, to, true, len);
	rx_offends(s);
	rx_trailer(s);
}

/* Prefix, a Read Request with @len octets of header, trailer */
static void rx_bad_rreq(struct rx_stream *s, u32 msn, bool last, u32 src,
			u64 src_to, u32 size, u32 len)
{
	struct siw_rdmap_rreq rr = { .sink_stag = 0x0102, .sink_to = 0x4000,
				     .src_stag = src, .src_to = src_to,
				     .len = size };
	u8 raw[SIW_RDMAP_RREQ_LEN + 4] = { };
	struct siw_ddp_hdr h;

	siw_rdmap_rreq_encode(&rr, raw);
	rx_prefix(s);
	rx_uhdr(&h, SIW_RDMAP_READ_REQ, SIW_DDP_QN_RREQ, msn, 0, last);
	rx_seg(s, &h, raw, len, 0);
	rx_offends(s);
	rx_trailer(s);
}

/* Prefix, a Terminate with @len octets of payload @pl, trailer */
static void rx_bad_term(struct rx_stream *s, u32 qn, const u8 *pl, u32 len)
{
	struct siw_ddp_hdr h;

	rx_prefix(s);
	rx_uhdr(&h, SIW_RDMAP_TERMINATE, qn, 1, 0, true);
	rx_seg(s, &h, pl, len, 0);
	rx_offends(s);
	rx_trailer(s);
}

/* Flip ULPDU octet @k of FPDU @i on the wire, as it will be received */
static void rx_flip(struct rx_stream *s, unsigned int i, u32 k)
{
	s->w->buf[rx_ulpdu_at(s, i, k)] ^= 0x01;
	if (k < sizeof(s->fpdu[i].head))
		s->fpdu[i].head[k] ^= 0x01;
}

static void rx_b_crc_send(struct rx_stream *s)
{
	const u8 *data;

	rx_prefix(s);
	data = rx_useg(s, SIW_RDMAP_SEND, 0, 2, 0, true, 100);
	rx_offends(s);
	rx_trailer(s);
	rx_flip(s, s->bad, SIW_DDP_UNTAGGED_HLEN + 10);
	/* placed before the CRC told it was damaged, never completed */
	rx_want_recv(s, 0, data, 100);
	s->want_rbuf[10] ^= 0x01;
}

static void rx_b_crc_write(struct rx_stream *s)
{
	const u8 *data;

	rx_prefix(s);
	data = rx_tseg(s, SIW_RDMAP_WRITE, R1, R1_BASE + 7, true, 60);
	rx_offends(s);
	rx_trailer(s);
	rx_flip(s, s->bad, SIW_DDP_TAGGED_HLEN + 59);
	rx_want_tagged(s, R1, R1_BASE + 7, data, 60);
	s->want[0][7 + 59] ^= 0x01;
}

static void rx_b_crc_field(struct rx_stream *s)
{
	const u8 *data;

	rx_prefix(s);
	data = rx_useg(s, SIW_RDMAP_SEND, 0, 2, 0, true, 100);
	rx_offends(s);
	rx_trailer(s);
	s->w->buf[rx_crc_at(s, s->bad, 2)] ^= 0x80;
	rx_want_recv(s, 0, data, 100);
}

/* The header looked wrong, but the CRC says it was damaged */
static void rx_b_crc_bad_stag(struct rx_stream *s)
{
	rx_bad_tseg(s, SIW_RDMAP_WRITE, R_NONE, R1_BASE, 50);
	rx_flip(s, s->bad, SIW_DDP_TAGGED_HLEN);
}

static void rx_b_crc_term(struct rx_stream *s)
{
	static const u8 pl[] = { 0x12, 0x01, 0x00, 0x00 };

	rx_bad_term(s, SIW_DDP_QN_TERM, pl, sizeof(pl));
	rx_flip(s, s->bad, SIW_DDP_UNTAGGED_HLEN + 1);
}

/* A Terminate on the wrong queue that was not one after all */
static void rx_b_crc_term_qn(struct rx_stream *s)
{
	static const u8 pl[] = { 0x12, 0x01, 0x00, 0x00 };

	rx_bad_term(s, SIW_DDP_QN_SEND, pl, sizeof(pl));
	rx_flip(s, s->bad, SIW_DDP_UNTAGGED_HLEN + 3);
}

static void rx_b_opcode_8(struct rx_stream *s)
{
	rx_bad_useg(s, 0x8, 0, 2, 0, true, 20);
}

static void rx_b_opcode_atomic(struct rx_stream *s)
{
	rx_bad_useg(s, SIW_RDMAP_ATOMIC_REQ, 0, 2, 0, true, 20);
}

static void rx_b_opcode_f(struct rx_stream *s)
{
	rx_bad_useg(s, 0xf, 0, 2, 0, true, 20);
}

static void rx_b_write_untagged(struct rx_stream *s)
{
	rx_bad_useg(s, SIW_RDMAP_WRITE, 0, 2, 0, true, 20);
}

static void rx_b_send_tagged(struct rx_stream *s)
{
	rx_bad_tseg(s, SIW_RDMAP_SEND, R1, R1_BASE, 20);
}

static void rx_b_ddp_v0(struct rx_stream *s)
{
	struct siw_ddp_hdr h;

	rx_prefix(s);
	rx_uhdr(&h, SIW_RDMAP_SEND, 0, 2, 0, true);
	rx_versions(s, &h, 0, 1);
	rx_offends(s);
	rx_trailer(s);
}

static void rx_b_ddp_v2_tagged(struct rx_stream *s)
{
	struct siw_ddp_hdr h;

	rx_prefix(s);
	rx_thdr(&h, SIW_RDMAP_WRITE, R1, R1_BASE, true);
	rx_versions(s, &h, 2, 1);
	rx_offends(s);
	rx_trailer(s);
}

static void rx_b_rdmap_v0(struct rx_stream *s)
{
	struct siw_ddp_hdr h;

	rx_prefix(s);
	rx_uhdr(&h, SIW_RDMAP_SEND, 0, 2, 0, true);
	rx_versions(s, &h, 1, 0);
	rx_offends(s);
	rx_trailer(s);
}

static void rx_b_rdmap_v3_tagged(struct rx_stream *s)
{
	struct siw_ddp_hdr h;

	rx_prefix(s);
	rx_thdr(&h, SIW_RDMAP_WRITE, R1, R1_BASE, true);
	rx_versions(s, &h, 1, 3);
	rx_offends(s);
	rx_trailer(s);
}

static void rx_b_both_versions(struct rx_stream *s)
{
	struct siw_ddp_hdr h;

	rx_prefix(s);
	rx_uhdr(&h, SIW_RDMAP_SEND, 0, 2, 0, true);
	rx_versions(s, &h, 3, 2);
	rx_offends(s);
	rx_trailer(s);
}

static void rx_b_write_no_region(struct rx_stream *s)
{
	rx_bad_tseg(s, SIW_RDMAP_WRITE, R_NONE, R1_BASE, 50);
}

static void rx_b_write_wrong_key(struct rx_stream *s)
{
	rx_bad_tseg(s, SIW_RDMAP_WRITE, RX_STAG(1, 0x5b), R1_BASE, 50);
}

static void rx_b_write_index_0(struct rx_stream *s)
{
	rx_bad_tseg(s, SIW_RDMAP_WRITE, RX_STAG(0, 0x5a), R1_BASE, 50);
}

static void rx_b_write_invalidated(struct rx_stream *s)
{
	rx_bad_tseg(s, SIW_RDMAP_WRITE, R6, 0x40000, 50);
}

static void rx_b_write_other_pd(struct rx_stream *s)
{
	rx_bad_tseg(s, SIW_RDMAP_WRITE, R3, 0x20000, 50);
}

static void rx_b_write_below(struct rx_stream *s)
{
	rx_bad_tseg(s, SIW_RDMAP_WRITE, R1, R1_BASE - 1, 50);
}

static void rx_b_write_past(struct rx_stream *s)
{
	rx_bad_tseg(s, SIW_RDMAP_WRITE, R1, R1_BASE + R1_LEN - 49, 50);
}

static void rx_b_write_wrap(struct rx_stream *s)
{
	rx_bad_tseg(s, SIW_RDMAP_WRITE, R5, R5_BASE + 0x80, 0x100);
}

static void rx_b_write_ro(struct rx_stream *s)
{
	rx_bad_tseg(s, SIW_RDMAP_WRITE, R4, 0x30000, 50);
}

/* The first segment is placed, the second runs past the region */
static void rx_b_write_second_seg(struct rx_stream *s)
{
	u64 to = R1_BASE + R1_LEN - 100;
	const u8 *data;

	rx_prefix(s);
	data = rx_tseg(s, SIW_RDMAP_WRITE, R1, to, false, 60);
	rx_want_tagged(s, R1, to, data, 60);
	rx_tseg(s, SIW_RDMAP_WRITE, R1, to + 60, true, 60);
	rx_offends(s);
	rx_trailer(s);
}

static void rx_b_rresp_unasked(struct rx_stream *s)
{
	s->read_resp_err = SIW_DDP_ERR_RDMAP_OPCODE;
	rx_bad_tseg(s, SIW_RDMAP_READ_RESP, R1, R1_BASE, 50);
}

static void rx_b_rresp_other_pd(struct rx_stream *s)
{
	rx_bad_tseg(s, SIW_RDMAP_READ_RESP, R3, 0x20000, 50);
}

static void rx_b_rresp_ro(struct rx_stream *s)
{
	rx_bad_tseg(s, SIW_RDMAP_READ_RESP, R4, 0x30000, 50);
}

static void rx_b_msn_ahead(struct rx_stream *s)
{
	rx_bad_useg(s, SIW_RDMAP_SEND, 0, 3, 0, true, 20);
}

static void rx_b_msn_again(struct rx_stream *s)
{
	rx_bad_useg(s, SIW_RDMAP_SEND, 0, 1, 0, true, 20);
}

static void rx_b_msn_wrapped(struct rx_stream *s)
{
	rx_bad_useg(s, SIW_RDMAP_SEND, 0, 0x80000002, 0, true, 20);
}

static void rx_b_msn_second_seg(struct rx_stream *s)
{
	const u8 *data;

	rx_prefix(s);
	data = rx_useg(s, SIW_RDMAP_SEND, 0, 2, 0, false, 30);
	rx_want_recv(s, 0, data, 30);
	rx_useg(s, SIW_RDMAP_SEND, 0, 3, 30, true, 30);
	rx_offends(s);
	rx_trailer(s);
}

static void rx_b_no_buf(struct rx_stream *s)
{
	s->nbufs = 1;
	rx_bad_useg(s, SIW_RDMAP_SEND, 0, 2, 0, true, 20);
}

static void rx_b_no_buf_at_all(struct rx_stream *s)
{
	s->nbufs = 0;
	rx_useg(s, SIW_RDMAP_SEND, 0, 1, 0, true, 20);
	rx_offends(s);
	rx_trailer(s);
}

static void rx_b_too_long(struct rx_stream *s)
{
	s->rbuf_len = 256;
	rx_bad_useg(s, SIW_RDMAP_SEND, 0, 2, 0, true, 257);
}

static void rx_b_too_long_second(struct rx_stream *s)
{
	const u8 *data;

	s->rbuf_len = 256;
	rx_prefix(s);
	data = rx_useg(s, SIW_RDMAP_SEND, 0, 2, 0, false, 200);
	rx_want_recv(s, 0, data, 200);
	rx_useg(s, SIW_RDMAP_SEND, 0, 2, 200, true, 57);
	rx_offends(s);
	rx_trailer(s);
}

static void rx_b_mo_at_end(struct rx_stream *s)
{
	s->rbuf_len = 256;
	rx_bad_useg(s, SIW_RDMAP_SEND, 0, 2, 256, true, 1);
}

static void rx_b_mo_huge(struct rx_stream *s)
{
	s->rbuf_len = 256;
	rx_bad_useg(s, SIW_RDMAP_SEND, 0, 2, 0xffffff00, true, 16);
}

/* An empty last segment must not make a message longer than its buffer */
static void rx_b_mo_empty_last(struct rx_stream *s)
{
	s->rbuf_len = 256;
	rx_bad_useg(s, SIW_RDMAP_SEND, 0, 2, 0x10000, true, 0);
}

static void rx_b_send_qn1(struct rx_stream *s)
{
	rx_bad_useg(s, SIW_RDMAP_SEND, SIW_DDP_QN_RREQ, 2, 0, true, 20);
}

static void rx_b_send_qn3(struct rx_stream *s)
{
	rx_bad_useg(s, SIW_RDMAP_SEND, 3, 2, 0, true, 20);
}

static void rx_b_send_qn_huge(struct rx_stream *s)
{
	rx_bad_useg(s, SIW_RDMAP_SEND, 0x80000000, 2, 0, true, 20);
}

static void rx_b_rreq_qn0(struct rx_stream *s)
{
	rx_bad_useg(s, SIW_RDMAP_READ_REQ, SIW_DDP_QN_SEND, 2, 0, true,
		    SIW_RDMAP_RREQ_LEN);
}

static void rx_b_rreq_msn(struct rx_stream *s)
{
	rx_bad_rreq(s, 2, true, R1, R1_BASE, 10, SIW_RDMAP_RREQ_LEN);
}

static void rx_b_rreq_beyond_ird(struct rx_stream *s)
{
	s->ird = 1;
	rx_rreq(s, R1, R1_BASE, 10);
	rx_bad_rreq(s, 2, true, R1, R1_BASE, 10, SIW_RDMAP_RREQ_LEN);
}

static void rx_b_rreq_ird_0(struct rx_stream *s)
{
	s->ird = 0;
	rx_bad_rreq(s, 1, true, R1, R1_BASE, 10, SIW_RDMAP_RREQ_LEN);
}

static void rx_b_rreq_no_src(struct rx_stream *s)
{
	rx_bad_rreq(s, 1, true, R_NONE, R1_BASE, 10, SIW_RDMAP_RREQ_LEN);
}

static void rx_b_rreq_src_key(struct rx_stream *s)
{
	rx_bad_rreq(s, 1, true, RX_STAG(1, 0x5b), R1_BASE, 10,
		    SIW_RDMAP_RREQ_LEN);
}

static void rx_b_rreq_src_pd(struct rx_stream *s)
{
	rx_bad_rreq(s, 1, true, R3, 0x20000, 10, SIW_RDMAP_RREQ_LEN);
}

static void rx_b_rreq_src_wo(struct rx_stream *s)
{
	rx_bad_rreq(s, 1, true, R2, 0x900000, 10, SIW_RDMAP_RREQ_LEN);
}

static void rx_b_rreq_src_bounds(struct rx_stream *s)
{
	rx_bad_rreq(s, 1, true, R1, R1_BASE + R1_LEN - 10, 11,
		    SIW_RDMAP_RREQ_LEN);
}

static void rx_b_rreq_src_wrap(struct rx_stream *s)
{
	rx_bad_rreq(s, 1, true, R5, U64_MAX, 2, SIW_RDMAP_RREQ_LEN);
}

/* The QP layer has no room for it (its IRQ is full) */
static void rx_b_rreq_refused(struct rx_stream *s)
{
	s->read_req_err = SIW_DDP_ERR_LLP_NO_IRD;
	rx_bad_rreq(s, 1, true, R1, R1_BASE, 10, SIW_RDMAP_RREQ_LEN);
}

static void rx_b_rreq_not_last(struct rx_stream *s)
{
	rx_bad_rreq(s, 1, false, R1, R1_BASE, 10, SIW_RDMAP_RREQ_LEN);
}

static void rx_b_rreq_short(struct rx_stream *s)
{
	rx_bad_rreq(s, 1, true, R1, R1_BASE, 10, SIW_RDMAP_RREQ_LEN - 1);
}

static void rx_b_rreq_long(struct rx_stream *s)
{
	rx_bad_rreq(s, 1, true, R1, R1_BASE, 10, SIW_RDMAP_RREQ_LEN + 1);
}

/* Prefix, a Send with Invalidate naming @stag, trailer */
static void rx_inv(struct rx_stream *s, u8 opcode, u32 stag)
{
	struct siw_ddp_hdr h;

	rx_prefix(s);
	rx_uhdr(&h, opcode, 0, 2, 0, true);
	h.inval_stag = stag;
	rx_seg(s, &h, NULL, 0, 20);
	rx_offends(s);
	rx_trailer(s);
}

static void rx_b_inv_unknown(struct rx_stream *s)
{
	rx_inv(s, SIW_RDMAP_SEND_INV, R_NONE);
}

static void rx_b_inv_other_pd(struct rx_stream *s)
{
	rx_inv(s, SIW_RDMAP_SEND_INV, R3);
}

static void rx_b_inv_not_allowed(struct rx_stream *s)
{
	rx_inv(s, SIW_RDMAP_SEND_SE_INV, R1);
}

static void rx_b_inv_invalidated(struct rx_stream *s)
{
	rx_inv(s, SIW_RDMAP_SEND_INV, R6);
}

static void rx_b_inv_wrong_key(struct rx_stream *s)
{
	rx_inv(s, SIW_RDMAP_SEND_INV, RX_STAG(2, 0x12));
}

/* The peer terminates: a Send's MSN was out of range */
static void rx_b_term(struct rx_stream *s)
{
	struct siw_rdmap_term_info ti = {
		.err = SIW_DDP_ERR_DDP_U_MSN_RANGE, .seg_len = 118,
		.seg_len_valid = true,
	};
	struct siw_engine_msg m = { .opcode = SIW_RDMAP_TERMINATE,
				    .term = &ti };
	u8 seg[SIW_DDP_UNTAGGED_HLEN];
	struct siw_ddp_hdr h;

	rx_uhdr(&h, SIW_RDMAP_SEND, 0, 7, 0, true);
	siw_ddp_hdr_encode(&h, seg, sizeof(seg));
	ti.seg = seg;
	ti.seg_avail = sizeof(seg);
	rx_prefix(s);
	rx_tx(s, &m);
	rx_offends(s);
	rx_trailer(s);
	s->term = (struct siw_rdmap_term_report){
		.err = SIW_DDP_ERR_DDP_U_MSN_RANGE, .layer = 1, .etype = 2,
		.ecode = 3, .seg_len = 118, .seg_len_valid = true,
		.has_ddp_hdr = true, .ddp_raw_len = sizeof(seg), .ddp = h,
	};
	memcpy(s->term.ddp_raw, seg, sizeof(seg));
}

/* A triple no RFC defines is still a Terminate */
static void rx_b_term_unknown(struct rx_stream *s)
{
	static const u8 pl[] = { 0x3f, 0x99, 0x00, 0x00 };

	rx_bad_term(s, SIW_DDP_QN_TERM, pl, sizeof(pl));
	s->term = (struct siw_rdmap_term_report){
		.err = SIW_DDP_ERR_UNKNOWN, .layer = 3, .etype = 0xf,
		.ecode = 0x99,
	};
}

/* D set, and nothing follows */
static void rx_b_term_malformed(struct rx_stream *s)
{
	static const u8 pl[] = { 0x12, 0x01, 0x40, 0x00 };

	rx_bad_term(s, SIW_DDP_QN_TERM, pl, sizeof(pl));
}

static void rx_b_term_short(struct rx_stream *s)
{
	static const u8 pl[] = { 0x12, 0x01 };

	rx_bad_term(s, SIW_DDP_QN_TERM, pl, sizeof(pl));
}

static void rx_b_term_qn0(struct rx_stream *s)
{
	static const u8 pl[] = { 0x12, 0x01, 0x00, 0x00 };

	rx_bad_term(s, SIW_DDP_QN_SEND, pl, sizeof(pl));
}

static void rx_b_term_ddp_v0(struct rx_stream *s)
{
	struct siw_ddp_hdr h;

	rx_prefix(s);
	rx_uhdr(&h, SIW_RDMAP_TERMINATE, SIW_DDP_QN_TERM, 1, 0, true);
	rx_versions(s, &h, 0, 1);
	rx_offends(s);
	rx_trailer(s);
}

/* ULPDUs shorter than a DDP header: the first @len octets of one */
static void rx_short_ulpdu(struct rx_stream *s, bool tagged, u32 len)
{
	struct siw_ddp_hdr h;

	if (tagged)
		rx_thdr(&h, SIW_RDMAP_WRITE, R1, R1_BASE, true);
	else
		rx_uhdr(&h, SIW_RDMAP_SEND, 0, 2, 0, true);
	rx_prefix(s);
	rx_ulpdu(s, &h, NULL, 0, NULL, 0);
	rx_put(s, len);
	rx_offends(s);
	rx_trailer(s);
}

static void rx_b_ulpdu_0(struct rx_stream *s)
{
	rx_short_ulpdu(s, false, 0);
}

static void rx_b_ulpdu_1(struct rx_stream *s)
{
	rx_short_ulpdu(s, false, 1);
}

static void rx_b_ulpdu_17(struct rx_stream *s)
{
	rx_short_ulpdu(s, false, 17);
}

static void rx_b_ulpdu_13_tagged(struct rx_stream *s)
{
	rx_short_ulpdu(s, true, 13);
}

/* A marker inside the payload points elsewhere */
static void rx_b_marker(struct rx_stream *s)
{
	size_t m;

	rx_prefix(s);
	rx_useg(s, SIW_RDMAP_SEND, 0, 2, 0, true, 600);
	rx_offends(s);
	rx_trailer(s);
	m = round_up(s->fpdu[s->bad].start + 1, SIW_MPA_MARKER_PERIOD);
	KUNIT_ASSERT_LT(s->test, m, s->fpdu[s->bad].end);
	s->w->buf[m + 3] ^= 0x04;
	s->stop_at = m + SIW_MPA_MARKER_LEN;
	/* payload up to the marker was placed: 424 octets */
	rx_want_recv(s, 0, s->w->buf + rx_ulpdu_at(s, s->bad, 18),
		     m - rx_ulpdu_at(s, s->bad, 18));
}

/* The marker before the first header must point to it */
static void rx_b_marker_lead(struct rx_stream *s)
{
	rx_useg(s, SIW_RDMAP_SEND, 0, 1, 0, true, 20);
	rx_trailer(s);
	s->w->buf[3] = 0x04;
	s->bad = -1;
	s->stop_at = SIW_MPA_MARKER_LEN;
}

static void rx_b_close_hdr(struct rx_stream *s)
{
	rx_prefix(s);
	rx_useg(s, SIW_RDMAP_SEND, 0, 2, 0, true, 100);
	rx_cut(s, s->nfpdu - 1, rx_ulpdu_at(s, s->nfpdu - 1, 7));
}

static void rx_b_close_len(struct rx_stream *s)
{
	rx_prefix(s);
	rx_useg(s, SIW_RDMAP_SEND, 0, 2, 0, true, 100);
	rx_cut(s, s->nfpdu - 1, rx_wire_at(s, s->nfpdu - 1, 1));
}

static void rx_b_close_payload(struct rx_stream *s)
{
	const u8 *data;

	rx_prefix(s);
	data = rx_useg(s, SIW_RDMAP_SEND, 0, 2, 0, true, 100);
	rx_cut(s, s->nfpdu - 1, rx_ulpdu_at(s, s->nfpdu - 1, 18 + 30));
	rx_want_recv(s, 0, data, 30);
}

/* The region to invalidate is held when the stream ends */
static void rx_b_close_inv(struct rx_stream *s)
{
	struct siw_ddp_hdr h;
	const u8 *data;

	rx_prefix(s);
	rx_uhdr(&h, SIW_RDMAP_SEND_INV, 0, 2, 0, true);
	h.inval_stag = R2;
	data = rx_seg(s, &h, NULL, 0, 100);
	rx_cut(s, s->nfpdu - 1, rx_ulpdu_at(s, s->nfpdu - 1, 18 + 30));
	rx_want_recv(s, 0, data, 30);
}

/* The sink is held when the stream ends */
static void rx_b_close_write(struct rx_stream *s)
{
	const u8 *data;

	rx_prefix(s);
	data = rx_tseg(s, SIW_RDMAP_WRITE, R1, R1_BASE + 9, true, 100);
	rx_cut(s, s->nfpdu - 1, rx_ulpdu_at(s, s->nfpdu - 1, 14 + 30));
	rx_want_tagged(s, R1, R1_BASE + 9, data, 30);
}

static void rx_b_close_crc(struct rx_stream *s)
{
	const u8 *data;

	rx_prefix(s);
	data = rx_useg(s, SIW_RDMAP_SEND, 0, 2, 0, true, 100);
	rx_cut(s, s->nfpdu - 1, rx_crc_at(s, s->nfpdu - 1, 2));
	rx_want_recv(s, 0, data, 100);
}

static void rx_b_close_send_segs(struct rx_stream *s)
{
	const u8 *data;

	rx_prefix(s);
	data = rx_useg(s, SIW_RDMAP_SEND, 0, 2, 0, false, 50);
	rx_cut(s, s->nfpdu - 1, s->w->len);
	rx_useg(s, SIW_RDMAP_SEND, 0, 2, 50, true, 50);
	rx_want_recv(s, 0, data, 50);
}

static void rx_b_close_write_segs(struct rx_stream *s)
{
	const u8 *data;

	rx_prefix(s);
	data = rx_tseg(s, SIW_RDMAP_WRITE, R1, R1_BASE, false, 50);
	rx_cut(s, s->nfpdu - 1, s->w->len);
	rx_tseg(s, SIW_RDMAP_WRITE, R1, R1_BASE + 50, true, 50);
	rx_want_tagged(s, R1, R1_BASE, data, 50);
}

/* The Write has begun with an empty segment: the stream ends inside it */
static void rx_b_close_empty_write_seg(struct rx_stream *s)
{
	rx_prefix(s);
	rx_tseg(s, SIW_RDMAP_WRITE, R1, R1_BASE, false, 0);
	rx_cut(s, s->nfpdu - 1, s->w->len);
	rx_tseg(s, SIW_RDMAP_WRITE, R1, R1_BASE, true, 50);
}

static void rx_b_close_between(struct rx_stream *s)
{
	rx_prefix(s);
	rx_cut(s, -1, s->w->len);
	rx_trailer(s);
}

static void rx_b_close_marker(struct rx_stream *s)
{
	size_t m;

	rx_prefix(s);
	rx_useg(s, SIW_RDMAP_SEND, 0, 2, 0, true, 600);
	m = round_up(s->fpdu[s->nfpdu - 1].start + 1, SIW_MPA_MARKER_PERIOD);
	rx_cut(s, s->nfpdu - 1, m + 2);
	rx_want_recv(s, 0, s->w->buf + rx_ulpdu_at(s, s->bad, 18),
		     m - rx_ulpdu_at(s, s->bad, 18));
}

/**
 * struct rx_bad_case - a hostile stream and how receiving it must end
 * @name: for the case's description
 * @build: writes it
 * @framings: RX_F_* it runs in, 0 for all
 * @err: the exact error; SIW_DDP_OK if the stream stops without one
 * @t: its layer/type/code as the RFCs give it
 * @ndone: messages completed, all before the error
 * @bufs: receive buffers bound
 * @nrreq: Read Requests delivered
 * @nterm: Terminates delivered
 * @seg: octets of the offending segment the answering Terminate carries;
 *	RX_SEG_ANY: not checked
 * @term: a Terminate is to be answered
 * @placed: payload octets placed
 */
struct rx_bad_case {
	const char *name;
	void (*build)(struct rx_stream *s);
	u8 framings;
	enum siw_ddp_err err;
	struct siw_ddp_triple t;
	u8 ndone;
	u8 bufs;
	u8 nrreq;
	u8 nterm;
	u8 seg;
	bool term;
	u32 placed;
};

#define U_HLEN	SIW_DDP_UNTAGGED_HLEN
#define T_HLEN	SIW_DDP_TAGGED_HLEN

static const struct rx_bad_case rx_bad_cases[] = {
	/* damage the CRC finds */
	{ "crc: send payload damaged", rx_b_crc_send, RX_F_CRC_ON,
	  SIW_DDP_ERR_LLP_CRC, T_LLP_CRC, .ndone = 1, .bufs = 2,
	  .seg = U_HLEN, .term = true, .placed = 140 },
	{ "crc: write payload damaged", rx_b_crc_write, RX_F_CRC_ON,
	  SIW_DDP_ERR_LLP_CRC, T_LLP_CRC, .ndone = 1, .bufs = 1,
	  .seg = T_HLEN, .term = true, .placed = 100 },
	{ "crc: crc field damaged", rx_b_crc_field, RX_F_CRC_ON,
	  SIW_DDP_ERR_LLP_CRC, T_LLP_CRC, .ndone = 1, .bufs = 2,
	  .seg = U_HLEN, .term = true, .placed = 140 },
	{ "crc: over an invalid stag, crc wins", rx_b_crc_bad_stag,
	  RX_F_CRC_ON, SIW_DDP_ERR_LLP_CRC, T_LLP_CRC, .ndone = 1, .bufs = 1,
	  .seg = T_HLEN, .term = true, .placed = 40 },
	{ "crc: terminate damaged, not delivered", rx_b_crc_term, RX_F_CRC_ON,
	  SIW_DDP_ERR_LLP_CRC, T_LLP_CRC, .ndone = 1, .bufs = 1,
	  .seg = U_HLEN + 4, .term = true, .placed = 40 },
	{ "crc: terminate on qn 0 was no terminate", rx_b_crc_term_qn,
	  RX_F_CRC_ON, SIW_DDP_ERR_LLP_CRC, T_LLP_CRC, .ndone = 1, .bufs = 1,
	  .seg = U_HLEN, .term = true, .placed = 40 },
	/* opcodes */
	{ "opcode 0x8", rx_b_opcode_8, 0, SIW_DDP_ERR_RDMAP_OPCODE,
	  T_RDMAP_OPCODE, .ndone = 1, .bufs = 1, .seg = U_HLEN, .term = true,
	  .placed = 40 },
	{ "opcode 0xa, atomic request (rfc 7306)", rx_b_opcode_atomic, 0,
	  SIW_DDP_ERR_RDMAP_OPCODE, T_RDMAP_OPCODE, .ndone = 1, .bufs = 1,
	  .seg = U_HLEN, .term = true, .placed = 40 },
	{ "opcode 0xf", rx_b_opcode_f, 0, SIW_DDP_ERR_RDMAP_OPCODE,
	  T_RDMAP_OPCODE, .ndone = 1, .bufs = 1, .seg = U_HLEN, .term = true,
	  .placed = 40 },
	{ "rdma write, untagged", rx_b_write_untagged, 0,
	  SIW_DDP_ERR_RDMAP_OPCODE, T_RDMAP_OPCODE, .ndone = 1, .bufs = 1,
	  .seg = U_HLEN, .term = true, .placed = 40 },
	{ "send, tagged", rx_b_send_tagged, 0, SIW_DDP_ERR_RDMAP_OPCODE,
	  T_RDMAP_OPCODE, .ndone = 1, .bufs = 1, .seg = T_HLEN, .term = true,
	  .placed = 40 },
	/* versions */
	{ "ddp version 0, untagged", rx_b_ddp_v0, 0, SIW_DDP_ERR_DDP_U_VERSION,
	  T_DDP_U_VERSION, .ndone = 1, .bufs = 1, .seg = U_HLEN, .term = true,
	  .placed = 40 },
	{ "ddp version 2, tagged", rx_b_ddp_v2_tagged, 0,
	  SIW_DDP_ERR_DDP_T_VERSION, T_DDP_T_VERSION, .ndone = 1, .bufs = 1,
	  .seg = T_HLEN, .term = true, .placed = 40 },
	{ "rdmap version 0", rx_b_rdmap_v0, 0, SIW_DDP_ERR_RDMAP_VERSION,
	  T_RDMAP_VERSION, .ndone = 1, .bufs = 1, .seg = U_HLEN, .term = true,
	  .placed = 40 },
	{ "rdmap version 3, tagged", rx_b_rdmap_v3_tagged, 0,
	  SIW_DDP_ERR_RDMAP_VERSION, T_RDMAP_VERSION, .ndone = 1, .bufs = 1,
	  .seg = T_HLEN, .term = true, .placed = 40 },
	{ "both versions wrong: ddp first", rx_b_both_versions, 0,
	  SIW_DDP_ERR_DDP_U_VERSION, T_DDP_U_VERSION, .ndone = 1, .bufs = 1,
	  .seg = U_HLEN, .term = true, .placed = 40 },
	/* tagged placement */
	{ "write, stag of no region", rx_b_write_no_region, 0,
	  SIW_DDP_ERR_DDP_T_INVALID_STAG, T_DDP_T_INV_STAG, .ndone = 1,
	  .bufs = 1, .seg = T_HLEN, .term = true, .placed = 40 },
	{ "write, wrong key", rx_b_write_wrong_key, 0,
	  SIW_DDP_ERR_DDP_T_INVALID_STAG, T_DDP_T_INV_STAG, .ndone = 1,
	  .bufs = 1, .seg = T_HLEN, .term = true, .placed = 40 },
	{ "write, stag index 0", rx_b_write_index_0, 0,
	  SIW_DDP_ERR_DDP_T_INVALID_STAG, T_DDP_T_INV_STAG, .ndone = 1,
	  .bufs = 1, .seg = T_HLEN, .term = true, .placed = 40 },
	{ "write, region invalidated", rx_b_write_invalidated, 0,
	  SIW_DDP_ERR_DDP_T_INVALID_STAG, T_DDP_T_INV_STAG, .ndone = 1,
	  .bufs = 1, .seg = T_HLEN, .term = true, .placed = 40 },
	{ "write, stag of another pd", rx_b_write_other_pd, 0,
	  SIW_DDP_ERR_DDP_T_STAG_NOT_ASSOC, T_DDP_T_NOT_ASSOC, .ndone = 1,
	  .bufs = 1, .seg = T_HLEN, .term = true, .placed = 40 },
	{ "write, one octet below the base", rx_b_write_below, 0,
	  SIW_DDP_ERR_DDP_T_BASE_BOUNDS, T_DDP_T_BOUNDS, .ndone = 1,
	  .bufs = 1, .seg = T_HLEN, .term = true, .placed = 40 },
	{ "write, one octet past the end", rx_b_write_past, 0,
	  SIW_DDP_ERR_DDP_T_BASE_BOUNDS, T_DDP_T_BOUNDS, .ndone = 1,
	  .bufs = 1, .seg = T_HLEN, .term = true, .placed = 40 },
	{ "write, to wraps 2^64", rx_b_write_wrap, 0,
	  SIW_DDP_ERR_DDP_T_TO_WRAP, T_DDP_T_TO_WRAP, .ndone = 1, .bufs = 1,
	  .seg = T_HLEN, .term = true, .placed = 40 },
	{ "write, region without remote write", rx_b_write_ro, 0,
	  SIW_DDP_ERR_RDMAP_ACCESS, T_RDMAP_ACCESS, .ndone = 1, .bufs = 1,
	  .seg = T_HLEN, .term = true, .placed = 40 },
	{ "write, second segment past the end", rx_b_write_second_seg, 0,
	  SIW_DDP_ERR_DDP_T_BASE_BOUNDS, T_DDP_T_BOUNDS, .ndone = 1,
	  .bufs = 1, .seg = T_HLEN, .term = true, .placed = 100 },
	{ "read response, none outstanding", rx_b_rresp_unasked, 0,
	  SIW_DDP_ERR_RDMAP_OPCODE, T_RDMAP_OPCODE, .ndone = 1, .bufs = 1,
	  .seg = T_HLEN, .term = true, .placed = 40 },
	{ "read response, sink of another pd", rx_b_rresp_other_pd, 0,
	  SIW_DDP_ERR_DDP_T_STAG_NOT_ASSOC, T_DDP_T_NOT_ASSOC, .ndone = 1,
	  .bufs = 1, .seg = T_HLEN, .term = true, .placed = 40 },
	{ "read response, sink without remote write", rx_b_rresp_ro, 0,
	  SIW_DDP_ERR_RDMAP_ACCESS, T_RDMAP_ACCESS, .ndone = 1, .bufs = 1,
	  .seg = T_HLEN, .term = true, .placed = 40 },
	/* untagged placement */
	{ "send, msn ahead", rx_b_msn_ahead, 0, SIW_DDP_ERR_DDP_U_MSN_RANGE,
	  T_DDP_U_MSN_RANGE, .ndone = 1, .bufs = 1, .seg = U_HLEN,
	  .term = true, .placed = 40 },
	{ "send, msn repeated", rx_b_msn_again, 0, SIW_DDP_ERR_DDP_U_MSN_RANGE,
	  T_DDP_U_MSN_RANGE, .ndone = 1, .bufs = 1, .seg = U_HLEN,
	  .term = true, .placed = 40 },
	{ "send, msn 2^31 ahead", rx_b_msn_wrapped, 0,
	  SIW_DDP_ERR_DDP_U_MSN_RANGE, T_DDP_U_MSN_RANGE, .ndone = 1,
	  .bufs = 1, .seg = U_HLEN, .term = true, .placed = 40 },
	{ "send, msn changes within the message", rx_b_msn_second_seg, 0,
	  SIW_DDP_ERR_DDP_U_MSN_RANGE, T_DDP_U_MSN_RANGE, .ndone = 1,
	  .bufs = 2, .seg = U_HLEN, .term = true, .placed = 70 },
	{ "read request, msn ahead", rx_b_rreq_msn, 0,
	  SIW_DDP_ERR_DDP_U_MSN_RANGE, T_DDP_U_MSN_RANGE, .ndone = 1,
	  .bufs = 1, .seg = U_HLEN, .term = true, .placed = 40 },
	{ "send, no receive buffer left", rx_b_no_buf, 0,
	  SIW_DDP_ERR_DDP_U_MSN_NO_BUF, T_DDP_U_NO_BUF, .ndone = 1, .bufs = 1,
	  .seg = U_HLEN, .term = true, .placed = 40 },
	{ "send, no receive buffer posted", rx_b_no_buf_at_all, 0,
	  SIW_DDP_ERR_DDP_U_MSN_NO_BUF, T_DDP_U_NO_BUF, .ndone = 0, .bufs = 0,
	  .seg = U_HLEN, .term = true, .placed = 0 },
	{ "send one octet too long for the buffer", rx_b_too_long, 0,
	  SIW_DDP_ERR_DDP_U_TOO_LONG, T_DDP_U_TOO_LONG, .ndone = 1, .bufs = 2,
	  .seg = U_HLEN, .term = true, .placed = 40 },
	{ "send too long on its second segment", rx_b_too_long_second, 0,
	  SIW_DDP_ERR_DDP_U_TOO_LONG, T_DDP_U_TOO_LONG, .ndone = 1, .bufs = 2,
	  .seg = U_HLEN, .term = true, .placed = 240 },
	/*
	 * A message's first segment at an MO other than 0 does not continue
	 * anything: refused before it takes a receive buffer
	 */
	{ "send, mo at the end of the buffer", rx_b_mo_at_end, 0,
	  SIW_DDP_ERR_DDP_U_INVALID_MO, T_DDP_U_MO, .ndone = 1, .bufs = 1,
	  .seg = U_HLEN, .term = true, .placed = 40 },
	{ "send, mo near 2^32", rx_b_mo_huge, 0, SIW_DDP_ERR_DDP_U_INVALID_MO,
	  T_DDP_U_MO, .ndone = 1, .bufs = 1, .seg = U_HLEN, .term = true,
	  .placed = 40 },
	{ "send, empty last segment at mo 64k, buffer 256", rx_b_mo_empty_last,
	  0, SIW_DDP_ERR_DDP_U_INVALID_MO, T_DDP_U_MO, .ndone = 1, .bufs = 1,
	  .seg = U_HLEN, .term = true, .placed = 40 },
	{ "send on qn 1", rx_b_send_qn1, 0, SIW_DDP_ERR_DDP_U_INVALID_QN,
	  T_DDP_U_QN, .ndone = 1, .bufs = 1, .seg = U_HLEN, .term = true,
	  .placed = 40 },
	{ "send on qn 3", rx_b_send_qn3, 0, SIW_DDP_ERR_DDP_U_INVALID_QN,
	  T_DDP_U_QN, .ndone = 1, .bufs = 1, .seg = U_HLEN, .term = true,
	  .placed = 40 },
	{ "send on qn 2^31", rx_b_send_qn_huge, 0, SIW_DDP_ERR_DDP_U_INVALID_QN,
	  T_DDP_U_QN, .ndone = 1, .bufs = 1, .seg = U_HLEN, .term = true,
	  .placed = 40 },
	{ "read request on qn 0", rx_b_rreq_qn0, 0,
	  SIW_DDP_ERR_DDP_U_INVALID_QN, T_DDP_U_QN, .ndone = 1, .bufs = 1,
	  .seg = U_HLEN, .term = true, .placed = 40 },
	/* read requests */
	{ "read request beyond the ird", rx_b_rreq_beyond_ird, 0,
	  SIW_DDP_ERR_DDP_U_MSN_NO_BUF, T_DDP_U_NO_BUF, .ndone = 1, .bufs = 1,
	  .nrreq = 1, .seg = U_HLEN, .term = true, .placed = 40 },
	{ "read request with ird 0", rx_b_rreq_ird_0, 0,
	  SIW_DDP_ERR_DDP_U_MSN_NO_BUF, T_DDP_U_NO_BUF, .ndone = 1, .bufs = 1,
	  .seg = U_HLEN, .term = true, .placed = 40 },
	{ "read request, source of no region", rx_b_rreq_no_src, 0,
	  SIW_DDP_ERR_RDMAP_INVALID_STAG, T_RDMAP_INV_STAG, .ndone = 1,
	  .bufs = 1, .seg = RX_RREQ_MSG, .term = true, .placed = 40 },
	{ "read request, source with wrong key", rx_b_rreq_src_key, 0,
	  SIW_DDP_ERR_RDMAP_INVALID_STAG, T_RDMAP_INV_STAG, .ndone = 1,
	  .bufs = 1, .seg = RX_RREQ_MSG, .term = true, .placed = 40 },
	{ "read request, source of another pd", rx_b_rreq_src_pd, 0,
	  SIW_DDP_ERR_RDMAP_STAG_NOT_ASSOC, T_RDMAP_NOT_ASSOC, .ndone = 1,
	  .bufs = 1, .seg = RX_RREQ_MSG, .term = true, .placed = 40 },
	{ "read request, source without remote read", rx_b_rreq_src_wo, 0,
	  SIW_DDP_ERR_RDMAP_ACCESS, T_RDMAP_ACCESS, .ndone = 1, .bufs = 1,
	  .seg = RX_RREQ_MSG, .term = true, .placed = 40 },
	{ "read request one octet past the source", rx_b_rreq_src_bounds, 0,
	  SIW_DDP_ERR_RDMAP_BASE_BOUNDS, T_RDMAP_BOUNDS, .ndone = 1,
	  .bufs = 1, .seg = RX_RREQ_MSG, .term = true, .placed = 40 },
	{ "read request, source to wraps 2^64", rx_b_rreq_src_wrap, 0,
	  SIW_DDP_ERR_RDMAP_TO_WRAP, T_RDMAP_TO_WRAP, .ndone = 1, .bufs = 1,
	  .seg = RX_RREQ_MSG, .term = true, .placed = 40 },
	{ "read request refused by the qp layer", rx_b_rreq_refused, 0,
	  SIW_DDP_ERR_LLP_NO_IRD, T_LLP_NO_IRD, .ndone = 1, .bufs = 1,
	  .nrreq = 1, .seg = RX_RREQ_MSG, .term = true, .placed = 40 },
	{ "read request without the l bit", rx_b_rreq_not_last, 0,
	  SIW_DDP_ERR_RDMAP_OP_UNSPECIFIED, T_RDMAP_OP_UNSPEC, .ndone = 1,
	  .bufs = 1, .seg = U_HLEN, .term = true, .placed = 40 },
	{ "read request of 27 octets", rx_b_rreq_short, 0,
	  SIW_DDP_ERR_RDMAP_OP_UNSPECIFIED, T_RDMAP_OP_UNSPEC, .ndone = 1,
	  .bufs = 1, .seg = U_HLEN, .term = true, .placed = 40 },
	{ "read request of 29 octets", rx_b_rreq_long, 0,
	  SIW_DDP_ERR_DDP_U_TOO_LONG, T_DDP_U_TOO_LONG, .ndone = 1, .bufs = 1,
	  .seg = U_HLEN, .term = true, .placed = 40 },
	/* send with invalidate */
	{ "invalidate, stag of no region", rx_b_inv_unknown, 0,
	  SIW_DDP_ERR_RDMAP_OP_CANNOT_INV, T_RDMAP_OP_NO_INV, .ndone = 1,
	  .bufs = 2, .seg = U_HLEN, .term = true, .placed = 40 },
	{ "invalidate, stag of another pd", rx_b_inv_other_pd, 0,
	  SIW_DDP_ERR_RDMAP_PROT_CANNOT_INV, T_RDMAP_PROT_NO_INV, .ndone = 1,
	  .bufs = 2, .seg = U_HLEN, .term = true, .placed = 40 },
	{ "invalidate, region not remotely invalidatable",
	  rx_b_inv_not_allowed, 0, SIW_DDP_ERR_RDMAP_OP_CANNOT_INV,
	  T_RDMAP_OP_NO_INV, .ndone = 1, .bufs = 2, .seg = U_HLEN,
	  .term = true, .placed = 40 },
	{ "invalidate, region already invalid", rx_b_inv_invalidated, 0,
	  SIW_DDP_ERR_RDMAP_OP_CANNOT_INV, T_RDMAP_OP_NO_INV, .ndone = 1,
	  .bufs = 2, .seg = U_HLEN, .term = true, .placed = 40 },
	{ "invalidate, wrong key", rx_b_inv_wrong_key, 0,
	  SIW_DDP_ERR_RDMAP_OP_CANNOT_INV, T_RDMAP_OP_NO_INV, .ndone = 1,
	  .bufs = 2, .seg = U_HLEN, .term = true, .placed = 40 },
	/* terminates from the peer: never answered */
	{ "terminate from the peer", rx_b_term, 0, SIW_DDP_OK, SIW_T_OK,
	  .ndone = 1, .bufs = 1, .nterm = 1, .term = false, .placed = 40 },
	{ "terminate with an unknown triple", rx_b_term_unknown, 0,
	  SIW_DDP_OK, SIW_T_OK, .ndone = 1, .bufs = 1, .nterm = 1,
	  .term = false, .placed = 40 },
	{ "terminate announcing a header it lacks", rx_b_term_malformed, 0,
	  SIW_DDP_ERR_RDMAP_OP_UNSPECIFIED, T_RDMAP_OP_UNSPEC, .ndone = 1,
	  .bufs = 1, .term = false, .placed = 40 },
	{ "terminate of 2 octets", rx_b_term_short, 0,
	  SIW_DDP_ERR_RDMAP_OP_UNSPECIFIED, T_RDMAP_OP_UNSPEC, .ndone = 1,
	  .bufs = 1, .term = false, .placed = 40 },
	{ "terminate on qn 0", rx_b_term_qn0, 0, SIW_DDP_ERR_DDP_U_INVALID_QN,
	  T_DDP_U_QN, .ndone = 1, .bufs = 1, .term = false, .placed = 40 },
	{ "terminate, ddp version 0", rx_b_term_ddp_v0, 0,
	  SIW_DDP_ERR_DDP_U_VERSION, T_DDP_U_VERSION, .ndone = 1, .bufs = 1,
	  .term = false, .placed = 40 },
	/* ulpdus shorter than their header */
	{ "empty ulpdu", rx_b_ulpdu_0, 0, SIW_DDP_ERR_DDP_CATASTROPHIC,
	  T_DDP_CATA, .ndone = 1, .bufs = 1, .seg = 0, .term = true,
	  .placed = 40 },
	{ "ulpdu of 1 octet", rx_b_ulpdu_1, 0, SIW_DDP_ERR_DDP_CATASTROPHIC,
	  T_DDP_CATA, .ndone = 1, .bufs = 1, .seg = 1, .term = true,
	  .placed = 40 },
	{ "ulpdu of 17 octets, untagged", rx_b_ulpdu_17, 0,
	  SIW_DDP_ERR_DDP_CATASTROPHIC, T_DDP_CATA, .ndone = 1, .bufs = 1,
	  .seg = 17, .term = true, .placed = 40 },
	{ "ulpdu of 13 octets, tagged", rx_b_ulpdu_13_tagged, 0,
	  SIW_DDP_ERR_DDP_CATASTROPHIC, T_DDP_CATA, .ndone = 1, .bufs = 1,
	  .seg = 13, .term = true, .placed = 40 },
	/* markers */
	{ "marker points elsewhere", rx_b_marker, RX_F_MARKERS_ON,
	  SIW_DDP_ERR_LLP_MARKER, T_LLP_MARKER, .ndone = 1, .bufs = 2,
	  .seg = U_HLEN, .term = true, .placed = 464 },
	{ "leading marker not 0", rx_b_marker_lead, RX_F_MARKERS_ON,
	  SIW_DDP_ERR_LLP_MARKER, T_LLP_MARKER, .ndone = 0, .bufs = 0,
	  .seg = 0, .term = true, .placed = 0 },
	/* the stream ends */
	{ "closed inside a header", rx_b_close_hdr, 0, SIW_DDP_ERR_LLP_CLOSED,
	  T_LLP_CLOSED, .ndone = 1, .bufs = 1, .seg = 7, .term = true,
	  .placed = 40 },
	{ "closed inside the length field", rx_b_close_len, 0,
	  SIW_DDP_ERR_LLP_CLOSED, T_LLP_CLOSED, .ndone = 1, .bufs = 1,
	  .seg = RX_SEG_ANY, .term = true, .placed = 40 },
	{ "closed inside the payload", rx_b_close_payload, 0,
	  SIW_DDP_ERR_LLP_CLOSED, T_LLP_CLOSED, .ndone = 1, .bufs = 2,
	  .seg = U_HLEN, .term = true, .placed = 70 },
	{ "closed inside a send with invalidate", rx_b_close_inv, 0,
	  SIW_DDP_ERR_LLP_CLOSED, T_LLP_CLOSED, .ndone = 1, .bufs = 2,
	  .seg = U_HLEN, .term = true, .placed = 70 },
	{ "closed inside a write", rx_b_close_write, 0, SIW_DDP_ERR_LLP_CLOSED,
	  T_LLP_CLOSED, .ndone = 1, .bufs = 1, .seg = T_HLEN, .term = true,
	  .placed = 70 },
	{ "closed inside the crc", rx_b_close_crc, 0, SIW_DDP_ERR_LLP_CLOSED,
	  T_LLP_CLOSED, .ndone = 1, .bufs = 2, .seg = U_HLEN, .term = true,
	  .placed = 140 },
	{ "closed between segments of a send", rx_b_close_send_segs, 0,
	  SIW_DDP_ERR_LLP_CLOSED, T_LLP_CLOSED, .ndone = 1, .bufs = 2,
	  .seg = U_HLEN, .term = true, .placed = 90 },
	{ "closed between segments of a write", rx_b_close_write_segs, 0,
	  SIW_DDP_ERR_LLP_CLOSED, T_LLP_CLOSED, .ndone = 1, .bufs = 1,
	  .seg = T_HLEN, .term = true, .placed = 90 },
	{ "closed after an empty first write segment",
	  rx_b_close_empty_write_seg, 0, SIW_DDP_ERR_LLP_CLOSED, T_LLP_CLOSED,
	  .ndone = 1, .bufs = 1, .seg = T_HLEN, .term = true, .placed = 40 },
	{ "closed inside a marker", rx_b_close_marker, RX_F_MARKERS_ON,
	  SIW_DDP_ERR_LLP_CLOSED, T_LLP_CLOSED, .ndone = 1, .bufs = 2,
	  .seg = U_HLEN, .term = true, .placed = 464 },
	{ "closed between messages", rx_b_close_between, 0, SIW_DDP_OK,
	  SIW_T_OK, .ndone = 1, .bufs = 1, .term = false, .placed = 40 },
};

static const void *rx_bad_gen_params(const void *prev, char *desc)
{
	unsigned long i = (unsigned long)prev;
	const struct rx_bad_case *c;

	for (; i < ARRAY_SIZE(rx_bad_cases) * RX_FRAMINGS; i++) {
		c = &rx_bad_cases[i / RX_FRAMINGS];
		if (c->framings && !(c->framings & BIT(i % RX_FRAMINGS)))
			continue;
		rx_desc(desc, c->name, i % RX_FRAMINGS);
		return (const void *)(i + 1);
	}
	return NULL;
}

/* Completions past the @n expected: say what they were */
static void rx_expect_no_more(struct kunit *test, const struct rx_stream *s,
			      const struct rx_result *r, unsigned int n)
{
	unsigned int i;

	for (i = n; i < r->ndone && i < ENG_MAX_DONE; i++)
		KUNIT_FAIL(test,
			   "completed after the error: %s, MSN %u, MO %u, %u octets, receive buffer %u octets",
			   siw_rdmap_opinfo(r->done[i].opcode)->name,
			   r->done[i].msn, r->done[i].mo, r->done_len[i],
			   s->rbuf_len);
}

/* The Terminate built from the engine's answer parses back */
static void rx_expect_answer(struct kunit *test, const struct rx_result *r,
			     u8 seg)
{
	u8 buf[SIW_RDMAP_TERM_MAX_MSG];
	struct siw_rdmap_term_report rep;
	bool rreq = seg >= RX_RREQ_MSG;
	size_t hlen;
	int n;

	n = siw_rdmap_term_build(&r->ti, 1, buf, sizeof(buf));
	KUNIT_ASSERT_GT(test, n, U_HLEN);
	KUNIT_ASSERT_EQ(test, siw_rdmap_term_parse(buf + U_HLEN, n - U_HLEN,
						   &rep), SIW_DDP_OK);
	KUNIT_EXPECT_EQ(test, rep.err, r->ti.err);
	if (seg == RX_SEG_ANY)
		return;
	hlen = siw_ddp_hdr_len(r->seg, seg);
	KUNIT_EXPECT_EQ(test, rep.has_ddp_hdr, hlen && seg >= hlen);
	KUNIT_EXPECT_EQ(test, rep.has_rreq, rreq);
	if (rep.has_ddp_hdr)
		SIW_EXPECT_BYTES(test, rep.ddp_raw, r->seg, hlen);
}

/* What siw_engine_rx_term_info() gave, against the offending segment */
static void rx_expect_term_info(struct kunit *test, const struct rx_stream *s,
				const struct rx_bad_case *c,
				const struct rx_result *r)
{
	const struct rx_fpdu *f = s->bad >= 0 ? &s->fpdu[s->bad] : NULL;

	KUNIT_EXPECT_EQ(test, r->term_due, c->term);
	if (!c->term || !r->term_due)
		return;
	KUNIT_EXPECT_EQ(test, r->ti.err, c->err);
	KUNIT_EXPECT_EQ(test, r->ti.seg_len_valid,
			c->err != SIW_DDP_ERR_LLP_CLOSED);
	if (c->seg != RX_SEG_ANY) {
		KUNIT_EXPECT_EQ(test, r->ti.seg_avail, (size_t)c->seg);
		if (f && r->ti.seg_avail == c->seg)
			SIW_EXPECT_BYTES(test, r->seg, f->head, c->seg);
	}
	if (r->ti.seg_len_valid)
		KUNIT_EXPECT_EQ(test, (u32)r->ti.seg_len,
				f ? f->ulpdu_len : 0);
	rx_expect_answer(test, r, c->seg);
}

/* Nothing moves once the stream has stopped */
static void rx_expect_dead(struct kunit *test, struct rx_stream *s,
			   struct eng_peer *p)
{
	unsigned int nplace = p->nplace, ndone = p->ndone;

	KUNIT_EXPECT_EQ(test, siw_engine_rx_feed(s->rx, s->w->buf, s->w->len),
			(size_t)0);
	siw_engine_rx_close(s->rx);
	KUNIT_EXPECT_TRUE(test, siw_engine_rx_stopped(s->rx));
	KUNIT_EXPECT_EQ(test, p->nplace, nplace);
	KUNIT_EXPECT_EQ(test, p->ndone, ndone);
	KUNIT_EXPECT_EQ(test, p->refs, 0);
}

static void siw_engine_rx_bad(struct kunit *test)
{
	unsigned long i = (unsigned long)test->param_value - 1;
	const struct rx_bad_case *c = &rx_bad_cases[i / RX_FRAMINGS];
	struct rx_result *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	struct rx_stream *s;
	struct eng_peer *p;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, r);
	s = rx_stream_new(test, i & 1, i & 2);
	c->build(s);
	p = rx_peer(test, s);
	KUNIT_ASSERT_LE(test, (unsigned int)c->ndone, s->nmsg);

	rx_run(test, s, p, &rx_whole, r);
	KUNIT_EXPECT_TRUE(test, r->stopped);
	KUNIT_EXPECT_EQ_MSG(test, r->err, c->err, "got \"%s\"",
			    siw_ddp_err_name(r->err));
	KUNIT_EXPECT_EQ(test, r->used, s->stop_at);
	KUNIT_EXPECT_EQ(test, r->ndone, (unsigned int)c->ndone);
	rx_expect_msgs(test, s, r, c->ndone);
	rx_expect_no_more(test, s, r, c->ndone);
	KUNIT_EXPECT_EQ(test, r->placed, c->placed);
	KUNIT_EXPECT_EQ(test, s->nbufs - r->nbufs, (u32)c->bufs);
	KUNIT_EXPECT_EQ(test, r->nrreq, (unsigned int)c->nrreq);
	KUNIT_EXPECT_EQ(test, r->nterm, (unsigned int)c->nterm);
	if (c->nterm && r->nterm)
		KUNIT_EXPECT_TRUE(test, rx_term_same(&r->term, &s->term));
	rx_expect_term_info(test, s, c, r);
	rx_expect_memory(test, s, p);
	rx_expect_dead(test, s, p);
	siw_ddp_expect(test, r->err, &c->t);

	rx_run(test, s, p, &rx_whole, r);
	rx_all_cuts(test, s, p, r);
}

/*
 * The one-step path (whole FPDUs in one run of an skb) against the
 * deframer's events (one linear buffer): the same end, and the FPDUs it
 * should take were taken by it. That the events end as every split and
 * every skb layout does, the cases above prove.
 */

/* Hostile streams whose offending FPDU the one-step path takes */
static const char * const rx_fast_bad[] = {
	"crc: send payload damaged",
	"crc: write payload damaged",
	"crc: crc field damaged",
	"crc: over an invalid stag, crc wins",
	"write, stag of no region",
	"write, wrong key",
	"write, region invalidated",
	"write, stag of another pd",
	"write, one octet below the base",
	"write, one octet past the end",
	"write, to wraps 2^64",
	"write, region without remote write",
	"write, second segment past the end",
	"read response, none outstanding",
	"send, msn ahead",
	"send, msn repeated",
	"send, msn changes within the message",
	"send, no receive buffer left",
	"send, no receive buffer posted",
	"send one octet too long for the buffer",
	"send too long on its second segment",
	"send, mo at the end of the buffer",
	"send on qn 1",
	"invalidate, stag of no region",
	"invalidate, region not remotely invalidatable",
};

static bool rx_fast_bad_takes(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rx_fast_bad); i++)
		if (!strcmp(rx_fast_bad[i], name))
			return true;
	return false;
}

/* The framings without markers (bit 1 of the framing) */
static const void *rx_fast_gen(const void *prev, char *desc,
			       const void *(*gen)(const void *prev,
						  char *desc))
{
	const void *next = prev;

	do {
		next = gen(next, desc);
	} while (next && ((unsigned long)next - 1) & 2);
	return next;
}

static const void *rx_fast_good_gen_params(const void *prev, char *desc)
{
	return rx_fast_gen(prev, desc, rx_good_gen_params);
}

static const void *rx_fast_bad_gen_params(const void *prev, char *desc)
{
	return rx_fast_gen(prev, desc, rx_bad_gen_params);
}

/* Receive @s by events, then in one step; returns FPDUs taken so */
static u32 rx_fast_run(struct kunit *test, struct rx_stream *s,
		       struct eng_peer *p)
{
	struct rx_result *ref = kunit_kzalloc(test, sizeof(*ref), GFP_KERNEL);
	struct rx_result *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	struct rx_how how = { .cut = ENG_WHOLE, .skb = RX_SKB_ONE_RUN };

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ref);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, r);
	rx_run(test, s, p, &rx_whole, ref);
	KUNIT_EXPECT_EQ(test, s->rx->fast, 0U);
	rx_same_run(test, s, p, &how, ref, r);
	return s->rx->fast;
}

/* Well-formed: every FPDU but the Read Requests' goes in one step */
static void siw_engine_rx_fast_good(struct kunit *test)
{
	const struct rx_good_case *c;
	struct rx_stream *s;
	struct eng_peer *p;

	s = rx_good_stream(test, &c, &p);
	KUNIT_EXPECT_EQ(test, rx_fast_run(test, s, p), s->nfpdu - s->nrreq);
}

/* Hostile: the same error, Terminate, placements and completions */
static void siw_engine_rx_fast_bad(struct kunit *test)
{
	unsigned long i = (unsigned long)test->param_value - 1;
	const struct rx_bad_case *c = &rx_bad_cases[i / RX_FRAMINGS];
	struct rx_stream *s;
	struct eng_peer *p;
	u32 fast;

	s = rx_stream_new(test, i & 1, i & 2);
	c->build(s);
	p = rx_peer(test, s);
	fast = rx_fast_run(test, s, p);
	if (rx_fast_bad_takes(c->name))
		KUNIT_EXPECT_EQ(test, fast, (u32)s->bad + 1);
}

/* Literal streams, written from the RFC figures */

static const u8 rx_vec_send[] = {
	/* ULPDU Length 23 */
	0x00, 0x17,
	/* untagged, L, DV 1; RV 1, Send; no STag; QN 0, MSN 1, MO 0 */
	0x41, 0x43, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
	0x00, 0x00,
	'h', 'e', 'l', 'l', 'o',
	/* pad, CRC */
	0x00, 0x00, 0x00, 0xde, 0xad, 0xbe, 0xef,
};

static const u8 rx_vec_write[] = {
	/* ULPDU Length 19 */
	0x00, 0x13,
	/* tagged, L, DV 1; RV 1, Write; STag 0x15a; TO 0x10010 */
	0xc1, 0x40, 0x00, 0x00, 0x01, 0x5a, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x01, 0x00, 0x10,
	0x01, 0x02, 0x03, 0x04, 0x05,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

static const u8 rx_vec_rreq[] = {
	/* marker, FPDUPTR 0, before the header */
	0x00, 0x00, 0x00, 0x00,
	/* ULPDU Length 46 */
	0x00, 0x2e,
	/* untagged, L; RV 1, Read Request; QN 1, MSN 1, MO 0 */
	0x41, 0x41, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
	0x00, 0x00,
	/* sink STag 0x1001, sink TO 0x2000 */
	0x00, 0x00, 0x10, 0x01, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x20, 0x00,
	/* size 100, source STag 0x15a, source TO 0x10008 */
	0x00, 0x00, 0x00, 0x64, 0x00, 0x00, 0x01, 0x5a,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x08,
	/* CRC */
	0x00, 0x00, 0x00, 0x00,
};

static const u8 rx_hello[] = { 'h', 'e', 'l', 'l', 'o' };
static const u8 rx_five[] = { 1, 2, 3, 4, 5 };

/**
 * struct rx_vec_case - a literal stream
 * @name: for the case's description
 * @wire: its octets
 * @len: how many
 * @crc: CRCs on: the case computes the CRC field (last 4 octets) with
 *	the kernel's crc32c() over everything before it
 * @markers: markers on
 * @opcode: what completes or is delivered
 * @want: the octets placed
 * @want_len: how many
 * @tagged: placed in region 1 at @want_off, not in the receive buffer
 * @want_off: offset in region 1
 */
struct rx_vec_case {
	const char *name;
	const u8 *wire;
	u32 len;
	bool crc;
	bool markers;
	u8 opcode;
	const u8 *want;
	u32 want_len;
	bool tagged;
	u32 want_off;
};

static const struct rx_vec_case rx_vec_cases[] = {
	{ "send, crc off: crc field ignored", rx_vec_send,
	  sizeof(rx_vec_send), false, false, SIW_RDMAP_SEND, rx_hello, 5 },
	{ "send, crc on", rx_vec_send, sizeof(rx_vec_send), true, false,
	  SIW_RDMAP_SEND, rx_hello, 5 },
	{ "write, crc off", rx_vec_write, sizeof(rx_vec_write), false, false,
	  SIW_RDMAP_WRITE, rx_five, 5, true, 0x10 },
	{ "write, crc on", rx_vec_write, sizeof(rx_vec_write), true, false,
	  SIW_RDMAP_WRITE, rx_five, 5, true, 0x10 },
	{ "read request, crc and markers", rx_vec_rreq, sizeof(rx_vec_rreq),
	  true, true, SIW_RDMAP_READ_REQ },
};

SIW_DDP_CASE_DESC(rx_vec_case)
KUNIT_ARRAY_PARAM(rx_vec, rx_vec_cases, rx_vec_case_desc);

static void siw_engine_rx_vectors(struct kunit *test)
{
	const struct rx_vec_case *c = test->param_value;
	struct siw_engine_rx *rx = kunit_kzalloc(test, sizeof(*rx), GFP_KERNEL);
	u8 *wire = kunit_kmalloc(test, c->len, GFP_KERNEL);
	struct eng_peer *p = eng_peer_new(test, 64);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, rx);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, wire);
	memcpy(wire, c->wire, c->len);
	eng_region_set(p, 1, 0x5a, R1_BASE, 256, RX_RW | RX_RR, &eng_pd_a, true,
		       false);
	if (c->crc)
		put_unaligned_le32(~crc32c(~0U, wire, c->len - 4),
				   wire + c->len - 4);
	eng_peer_reset(p, 1);
	eng_rx_start(rx, p, 1, c->markers, c->crc);
	KUNIT_EXPECT_EQ(test, eng_feed(rx, wire, c->len, ENG_OCTETS, 0, 0),
			(size_t)c->len);
	KUNIT_EXPECT_FALSE(test, siw_engine_rx_stopped(rx));
	KUNIT_EXPECT_FALSE(test, p->bad);
	KUNIT_EXPECT_EQ(test, p->refs, 0);
	KUNIT_EXPECT_TRUE(test, eng_peer_guards_ok(p));
	if (c->opcode == SIW_RDMAP_READ_REQ) {
		KUNIT_ASSERT_EQ(test, p->nrreq, 1U);
		KUNIT_EXPECT_EQ(test, p->rreq.sink_stag, 0x1001U);
		KUNIT_EXPECT_EQ(test, p->rreq.sink_to, 0x2000ULL);
		KUNIT_EXPECT_EQ(test, p->rreq.len, 100U);
		KUNIT_EXPECT_EQ(test, p->rreq.src_stag, 0x15aU);
		KUNIT_EXPECT_EQ(test, p->rreq.src_to, 0x10008ULL);
		KUNIT_EXPECT_EQ(test, p->rreq_src_len, 256ULL);
		KUNIT_EXPECT_EQ(test, p->ndone, 0U);
		return;
	}
	KUNIT_ASSERT_EQ(test, p->ndone, 1U);
	KUNIT_EXPECT_EQ(test, p->done[0].opcode, c->opcode);
	KUNIT_EXPECT_EQ(test, p->done_len[0], c->want_len);
	KUNIT_EXPECT_EQ(test, p->placed, c->want_len);
	SIW_EXPECT_BYTES(test, c->tagged ? p->reg[0].mem + c->want_off :
			 p->rbuf, c->want, c->want_len);
}

/* An error of the MPA layer, as the deframer reports it */
struct rx_llp_case {
	const char *name;
	enum siw_mpa_err mpa;
	enum siw_ddp_err err;
	struct siw_ddp_triple t;
};

static const struct rx_llp_case rx_llp_cases[] = {
	{ "closed", SIW_MPA_ERR_CLOSED, SIW_DDP_ERR_LLP_CLOSED, T_LLP_CLOSED },
	{ "crc", SIW_MPA_ERR_CRC, SIW_DDP_ERR_LLP_CRC, T_LLP_CRC },
	{ "marker", SIW_MPA_ERR_MARKER, SIW_DDP_ERR_LLP_MARKER, T_LLP_MARKER },
	{ "frame", SIW_MPA_ERR_FRAME, SIW_DDP_ERR_LLP_BAD_FRAME, T_LLP_FRAME },
	{ "local", SIW_MPA_ERR_LOCAL, SIW_DDP_ERR_LLP_CATASTROPHIC,
	  T_LLP_LOCAL },
	{ "no ird", SIW_MPA_ERR_NO_IRD, SIW_DDP_ERR_LLP_NO_IRD, T_LLP_NO_IRD },
	{ "no rtr", SIW_MPA_ERR_NO_RTR, SIW_DDP_ERR_LLP_NO_RTR, T_LLP_NO_RTR },
	{ "code 0: local catastrophic", SIW_MPA_OK,
	  SIW_DDP_ERR_LLP_CATASTROPHIC, T_LLP_LOCAL },
	{ "code 0x7f: local catastrophic", 0x7f, SIW_DDP_ERR_LLP_CATASTROPHIC,
	  T_LLP_LOCAL },
};

SIW_DDP_CASE_DESC(rx_llp_case)
KUNIT_ARRAY_PARAM(rx_llp, rx_llp_cases, rx_llp_case_desc);

static void siw_engine_rx_llp_errors(struct kunit *test)
{
	const struct rx_llp_case *c = test->param_value;
	struct siw_mpa_rx_ev ev = { .kind = SIW_MPA_EV_ERROR, .err = c->mpa };
	struct siw_mpa_rx_ev hdr = { .kind = SIW_MPA_EV_HDR, .ulpdu_len = 20 };
	struct eng_peer *p = eng_peer_new(test, 64);
	struct siw_rdmap_term_info ti;
	struct siw_engine_rx rx;

	eng_rx_start(&rx, p, 1, false, true);
	KUNIT_EXPECT_EQ(test, siw_engine_rx_event(&rx, &ev), 1);
	KUNIT_EXPECT_TRUE(test, siw_engine_rx_stopped(&rx));
	KUNIT_EXPECT_EQ(test, siw_engine_rx_error(&rx), c->err);
	siw_ddp_expect(test, siw_engine_rx_error(&rx), &c->t);
	KUNIT_ASSERT_TRUE(test, siw_engine_rx_term_info(&rx, &ti));
	KUNIT_EXPECT_EQ(test, ti.err, c->err);
	KUNIT_EXPECT_EQ(test, ti.seg_avail, (size_t)0);
	/* stopped: further events change nothing */
	KUNIT_EXPECT_EQ(test, siw_engine_rx_event(&rx, &hdr), 1);
	KUNIT_EXPECT_EQ(test, siw_engine_rx_error(&rx), c->err);
	KUNIT_EXPECT_EQ(test, rx.ulpdu_len, 0U);
}

/* The QP layer fails a placement (a local fault) */
struct rx_fault_case {
	const char *name;
	bool tagged;
	u8 seg;
};

static const struct rx_fault_case rx_fault_cases[] = {
	{ "send", false, U_HLEN },
	{ "rdma write", true, T_HLEN },
};

SIW_DDP_CASE_DESC(rx_fault_case)
KUNIT_ARRAY_PARAM(rx_fault, rx_fault_cases, rx_fault_case_desc);

static void siw_engine_rx_local_fault(struct kunit *test)
{
	const struct rx_fault_case *c = test->param_value;
	struct rx_result *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	struct rx_stream *s = rx_stream_new(test, true, false);
	struct rx_how octets = { .cut = ENG_OCTETS };
	struct eng_peer *p;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, r);
	if (c->tagged)
		rx_tseg(s, SIW_RDMAP_WRITE, R1, R1_BASE, true, 40);
	else
		rx_useg(s, SIW_RDMAP_SEND, 0, 1, 0, true, 40);
	rx_offends(s);
	rx_trailer(s);
	s->place_err = SIW_DDP_ERR_RDMAP_CATASTROPHIC;
	p = rx_peer(test, s);

	rx_run(test, s, p, &rx_whole, r);
	KUNIT_EXPECT_TRUE(test, r->stopped);
	KUNIT_EXPECT_EQ(test, r->err, SIW_DDP_ERR_RDMAP_CATASTROPHIC);
	siw_ddp_expect(test, r->err, &(struct siw_ddp_triple)T_RDMAP_CATA);
	/* reported at the end of the FPDU, once its CRC checked out */
	KUNIT_EXPECT_EQ(test, r->used, s->stop_at);
	KUNIT_EXPECT_EQ(test, r->ndone, 0U);
	KUNIT_EXPECT_EQ(test, p->nplace, 1U);
	KUNIT_EXPECT_EQ(test, r->refs, 0);
	KUNIT_EXPECT_TRUE(test, r->term_due);
	KUNIT_EXPECT_EQ(test, r->ti.seg_avail, (size_t)c->seg);
	SIW_EXPECT_BYTES(test, r->seg, s->fpdu[0].head, c->seg);

	/* placing stops at once: one octet at a time, one octet placed */
	rx_run(test, s, p, &octets, r);
	KUNIT_EXPECT_EQ(test, r->err, SIW_DDP_ERR_RDMAP_CATASTROPHIC);
	KUNIT_EXPECT_EQ(test, r->used, s->stop_at);
	KUNIT_EXPECT_EQ(test, p->nplace, 1U);
	KUNIT_EXPECT_EQ(test, r->placed, 1U);
	KUNIT_EXPECT_EQ(test, r->ndone, 0U);

	/*
	 * A copy that fails halfway summed half the run: the CRC still
	 * checks out, and the local fault is what is reported
	 */
	p->place_short = true;
	rx_run(test, s, p, &rx_whole, r);
	KUNIT_EXPECT_EQ(test, p->summed, 20U);
	KUNIT_EXPECT_EQ_MSG(test, r->err, SIW_DDP_ERR_RDMAP_CATASTROPHIC,
			    "\"%s\"", siw_ddp_err_name(r->err));
	KUNIT_EXPECT_EQ(test, r->used, s->stop_at);
}

/* A Read Response sent frees an IRD slot for the next Read Request */
static void siw_engine_rx_ird_slot(struct kunit *test)
{
	struct rx_stream *s = rx_stream_new(test, true, true);
	struct eng_peer *p;
	size_t first;

	s->ird = 1;
	rx_rreq(s, R1, R1_BASE, 10);
	rx_rreq(s, R1, R1_BASE + 10, 20);
	first = s->fpdu[0].end;
	p = rx_peer(test, s);
	eng_peer_reset(p, 0);
	eng_rx_start(s->rx, p, s->ird, s->markers, s->crc);

	KUNIT_EXPECT_EQ(test, siw_engine_rx_feed(s->rx, s->w->buf, first),
			first);
	KUNIT_EXPECT_EQ(test, p->nrreq, 1U);
	KUNIT_EXPECT_EQ(test, s->rx->uq[SIW_DDP_QN_RREQ].avail, 0U);
	siw_engine_rx_ird_put(s->rx);
	KUNIT_EXPECT_EQ(test, siw_engine_rx_feed(s->rx, s->w->buf + first,
						 s->w->len - first),
			s->w->len - first);
	KUNIT_EXPECT_FALSE(test, siw_engine_rx_stopped(s->rx));
	KUNIT_EXPECT_EQ(test, p->nrreq, 2U);
	KUNIT_EXPECT_EQ(test, p->rreq.src_to, R1_BASE + 10);
	KUNIT_EXPECT_EQ(test, p->rreq.len, 20U);
	KUNIT_EXPECT_EQ(test, s->rx->uq[SIW_DDP_QN_RREQ].avail, 0U);
	KUNIT_EXPECT_EQ(test, s->rx->uq[SIW_DDP_QN_RREQ].msn, 3U);
	KUNIT_EXPECT_EQ(test, p->refs, 0);
}

/*
 * siw_engine_rx_midmsg(), which decides whether the receive work takes
 * over: true from a message's first octet to its last, false between
 * messages. A Send and a Write of several FPDUs each, fed octet by octet.
 */
static void siw_engine_rx_midmsg_bounds(struct kunit *test)
{
	struct rx_stream *s = rx_stream_new(test, true, false);
	size_t send_end, pos;
	unsigned int sends;
	struct eng_peer *p;
	bool want;

	rx_send(s, SIW_RDMAP_SEND, 3000, 0);
	send_end = s->w->len;
	sends = s->nfpdu;
	rx_write(s, SIW_RDMAP_WRITE, R1, R1_BASE + 1001, 5000);
	KUNIT_ASSERT_GT(test, sends, 1U);
	KUNIT_ASSERT_GT(test, s->nfpdu - sends, 1U);
	p = rx_peer(test, s);
	eng_peer_reset(p, s->nbufs);
	eng_rx_start(s->rx, p, s->ird, s->markers, s->crc);

	KUNIT_EXPECT_FALSE(test, siw_engine_rx_midmsg(s->rx));
	for (pos = 1; pos <= s->w->len; pos++) {
		KUNIT_ASSERT_EQ(test, siw_engine_rx_feed(s->rx,
							 s->w->buf + pos - 1, 1),
				1);
		want = pos != send_end && pos != s->w->len;
		KUNIT_EXPECT_EQ_MSG(test, siw_engine_rx_midmsg(s->rx), want,
				    "after octet %zu of %zu (Send ends at %zu)",
				    pos, s->w->len, send_end);
	}
	KUNIT_EXPECT_FALSE(test, siw_engine_rx_stopped(s->rx));
	KUNIT_EXPECT_EQ(test, p->ndone, 2U);
	rx_expect_memory(test, s, p);
}

struct rx_name_case {
	const char *name;
	enum siw_engine_rx_stage stage;
	const char *want;
};

static const struct rx_name_case rx_name_cases[] = {
	{ "header", SIW_ENGINE_RXS_HDR, "header" },
	{ "place", SIW_ENGINE_RXS_PLACE, "place" },
	{ "gather", SIW_ENGINE_RXS_GATHER, "gather" },
	{ "drain", SIW_ENGINE_RXS_DRAIN, "drain" },
	{ "stopped", SIW_ENGINE_RXS_STOPPED, "stopped" },
	{ "out of range", SIW_ENGINE_RX_NUM_STAGES, "unknown" },
};

SIW_DDP_CASE_DESC(rx_name_case)
KUNIT_ARRAY_PARAM(rx_name, rx_name_cases, rx_name_case_desc);

static void siw_engine_rx_stage_names(struct kunit *test)
{
	const struct rx_name_case *c = test->param_value;

	KUNIT_EXPECT_STREQ(test, siw_engine_rx_stage_name(c->stage), c->want);
}

static struct kunit_case siw_engine_rx_cases[] = {
	KUNIT_CASE_PARAM(siw_engine_rx_good, rx_good_gen_params),
	KUNIT_CASE_PARAM(siw_engine_rx_cuts, rx_good_gen_params),
	KUNIT_CASE_PARAM(siw_engine_rx_bad, rx_bad_gen_params),
	KUNIT_CASE_PARAM(siw_engine_rx_fast_good, rx_fast_good_gen_params),
	KUNIT_CASE_PARAM(siw_engine_rx_fast_bad, rx_fast_bad_gen_params),
	KUNIT_CASE_PARAM(siw_engine_rx_vectors, rx_vec_gen_params),
	KUNIT_CASE_PARAM(siw_engine_rx_llp_errors, rx_llp_gen_params),
	KUNIT_CASE_PARAM(siw_engine_rx_local_fault, rx_fault_gen_params),
	KUNIT_CASE(siw_engine_rx_ird_slot),
	KUNIT_CASE(siw_engine_rx_midmsg_bounds),
	KUNIT_CASE_PARAM(siw_engine_rx_stage_names, rx_name_gen_params),
	{}
};

static struct kunit_suite siw_engine_rx_suite = {
	.name = "siw_engine_rx",
	.test_cases = siw_engine_rx_cases,
};

kunit_test_suite(siw_engine_rx_suite);
