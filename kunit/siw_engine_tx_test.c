// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite siw_engine_tx: the transmit engine, and its output fed
 * through the real MPA deframer into the receive engine.
 *
 * Loopback cases go over every opcode siw sends, payloads from 0 octets
 * to several MULPDUs, CRC and markers on and off, and payloads in one
 * virtual range, in pages (segments running across page boundaries) or
 * in many small mixed segments. Each stream is received whole, cut in
 * two at many positions, octet by octet and in uneven pieces. The pieces
 * themselves are checked too: payload is referenced, never copied; no
 * page piece crosses a page; no FPDU exceeds the EMSS.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/mm.h>

#include "siw_engine_test.h"

#define LB_EMSS		1460
#define LB_BASE		0x10000ULL
#define LB_TO_OFF	13
#define LB_SLACK	64

static const u8 lb_ops[] = {
	SIW_RDMAP_WRITE, SIW_RDMAP_READ_RESP, SIW_RDMAP_SEND,
	SIW_RDMAP_SEND_INV, SIW_RDMAP_SEND_SE, SIW_RDMAP_SEND_SE_INV,
};

/* Payload sizes, some relative to the MULPDU */
enum lb_size {
	LB_ZERO, LB_ONE, LB_THREE, LB_HUNDRED, LB_FULL, LB_FULL_1, LB_MULTI,
	LB_9000, LB_NUM_SIZES,
};

static const char * const lb_size_names[] = {
	"0", "1", "3", "100", "one mulpdu", "mulpdu+1", "3 mulpdu+7", "9000",
};

enum lb_layout { LB_KVA, LB_PAGES, LB_MIXED, LB_NUM_LAYOUTS };

static const char * const lb_layout_names[] = { "kva", "pages", "mixed" };

#define LB_FRAMINGS	4	/* bit 0: crc, bit 1: markers */
#define LB_NUM_CASES	(ARRAY_SIZE(lb_ops) * LB_NUM_SIZES * LB_FRAMINGS)

/**
 * struct lb_case - one loopback case, decoded from its index
 * @opcode: RDMAP opcode
 * @size: enum lb_size
 * @layout: enum lb_layout
 * @crc: CRCs on
 * @markers: markers on
 */
struct lb_case {
	u8 opcode;
	u8 size;
	u8 layout;
	bool crc;
	bool markers;
};

static void lb_decode(unsigned long i, struct lb_case *c)
{
	c->crc = i & 1;
	c->markers = i & 2;
	c->layout = i % LB_NUM_LAYOUTS;
	i /= LB_FRAMINGS;
	c->size = i % LB_NUM_SIZES;
	c->opcode = lb_ops[i / LB_NUM_SIZES];
}

/* The parameter is the case index plus one, never dereferenced */
static const void *lb_gen_params(const void *prev, char *desc)
{
	unsigned long i = (unsigned long)prev;
	struct lb_case c;

	if (i >= LB_NUM_CASES)
		return NULL;
	lb_decode(i, &c);
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s, %s octets, %s, crc %s, markers %s",
		 siw_rdmap_opinfo(c.opcode)->name, lb_size_names[c.size],
		 lb_layout_names[c.layout], c.crc ? "on" : "off",
		 c.markers ? "on" : "off");
	return (const void *)(i + 1);
}

static u32 lb_len(enum lb_size size, u32 mulpdu, u32 hlen)
{
	static const u32 fixed[] = { 0, 1, 3, 100 };

	switch (size) {
	case LB_FULL:
		return mulpdu - hlen;
	case LB_FULL_1:
		return mulpdu - hlen + 1;
	case LB_MULTI:
		return 3 * mulpdu + 7;
	case LB_9000:
		return 9000;
	default:
		return fixed[size];
	}
}

/**
 * struct lb_src - a payload and its segments
 * @buf: the payload, starting at an odd offset into a page
 * @len: its octets
 * @seg: the segments describing it
 * @nseg: entries used at @seg
 */
struct lb_src {
	u8 *buf;
	u32 len;
	struct siw_engine_seg seg[512];
	u32 nseg;
};

static void lb_seg_add(struct lb_src *s, bool page, u32 at, u32 len)
{
	struct siw_engine_seg *g = &s->seg[s->nseg++];
	u8 *p = s->buf + at;

	if (page) {
		/* from the page the payload starts in: siw_nth_page() steps */
		g->kind = SIW_ENGINE_SEG_PAGE;
		g->page = virt_to_page(s->buf);
		g->off = offset_in_page(s->buf) + at;
	} else {
		g->kind = SIW_ENGINE_SEG_KVA;
		g->addr = p;
	}
	g->len = len;
}

static void lb_layout(struct lb_src *s, enum lb_layout layout)
{
	static const u32 page_lens[] = { 700, 5000, 1, 4096 };
	static const u32 mixed_lens[] = { 1, 17, 300, 0, 2000, 5 };
	u32 at = 0, i = 0, n;

	s->nseg = 0;
	if (layout == LB_KVA) {
		lb_seg_add(s, false, 0, s->len);
		return;
	}
	while (at < s->len && s->nseg < ARRAY_SIZE(s->seg)) {
		n = layout == LB_PAGES ? page_lens[i % ARRAY_SIZE(page_lens)] :
			mixed_lens[i % ARRAY_SIZE(mixed_lens)];
		n = min(n, s->len - at);
		lb_seg_add(s, layout == LB_PAGES || (i & 1), at, n);
		at += n;
		i++;
	}
}

static struct lb_src *lb_src_new(struct kunit *test, u32 len,
				 enum lb_layout layout, u8 seed)
{
	struct lb_src *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	u8 *mem;
	u32 i;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	/* kmalloc memory is physically contiguous: pages follow pages */
	mem = kunit_kzalloc(test, len + PAGE_SIZE + 64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mem);
	s->buf = mem + 37;
	s->len = len;
	for (i = 0; i < len; i++)
		s->buf[i] = (u8)(seed + i * 7 + (i >> 9));
	lb_layout(s, layout);
	return s;
}

/* A piece of payload must point into the source, and a page piece stay in its page */
static bool lb_piece_ok(const struct lb_src *s, const struct siw_engine_seg *p)
{
	const u8 *va;

	if (p->kind == SIW_ENGINE_SEG_OWN)
		return true;
	if (p->kind == SIW_ENGINE_SEG_PAGE) {
		if (p->off >= PAGE_SIZE || p->off + p->len > PAGE_SIZE)
			return false;
		va = (const u8 *)page_address(p->page) + p->off;
	} else {
		va = p->addr;
	}
	return va >= s->buf && va + p->len <= s->buf + s->len;
}

/**
 * struct lb_stats - what the transmit side produced
 * @nfpdu: FPDUs
 * @payload: payload octets they carried
 * @emss: the EMSS FPDUs must fit, 0 not to check (MULPDU at its floor)
 */
struct lb_stats {
	unsigned int nfpdu;
	u32 payload;
	u32 emss;
};

static void lb_check_fpdu(struct kunit *test, const struct siw_engine_txd *d,
			  const struct lb_src *s, u32 emss, bool more)
{
	u32 i, sum = 0;

	KUNIT_EXPECT_LE(test, d->n, d->max);
	if (emss)
		KUNIT_EXPECT_LE(test, d->wire_len, emss);
	KUNIT_EXPECT_EQ(test, d->last, !more);
	for (i = 0; i < d->n; i++) {
		KUNIT_EXPECT_NE(test, d->piece[i].len, 0U);
		if (!lb_piece_ok(s, &d->piece[i]))
			KUNIT_FAIL(test, "piece %u is not a reference into the payload", i);
		sum += d->piece[i].len;
	}
	KUNIT_EXPECT_EQ(test, sum, d->wire_len);
}

/* Send @msg on @tx into @w; every FPDU checked */
static void lb_send(struct kunit *test, struct siw_engine_tx *tx,
		    const struct siw_engine_msg *msg, const struct lb_src *s,
		    struct eng_wire *w, struct lb_stats *st, unsigned int max)
{
	struct siw_engine_seg *pieces;
	struct siw_engine_txd d;
	int rv;

	pieces = kunit_kcalloc(test, max, sizeof(*pieces), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pieces);
	KUNIT_ASSERT_EQ(test, siw_engine_tx_msg(tx, msg), 0);
	d = (struct siw_engine_txd){ .piece = pieces, .max = max };
	while ((rv = siw_engine_tx_next(tx, &d)) > 0) {
		st->nfpdu++;
		st->payload += d.payload;
		lb_check_fpdu(test, &d, s, st->emss,
			      st->payload < siw_engine_sgl_len(&msg->sgl));
		KUNIT_ASSERT_TRUE(test, eng_wire_put(w, &d));
		KUNIT_ASSERT_LT(test, st->nfpdu, 10000U);
	}
	KUNIT_EXPECT_EQ(test, rv, 0);
	KUNIT_EXPECT_FALSE(test, siw_engine_tx_busy(tx));
}

/* One receive run of a single-message stream; true if all came out right */
static bool lb_recv(struct kunit *test, struct eng_peer *p,
		    const struct eng_wire *w, const struct lb_case *c,
		    const struct lb_src *s, enum eng_cut cut, size_t at)
{
	const struct siw_rdmap_opinfo *op = siw_rdmap_opinfo(c->opcode);
	struct siw_engine_rx rx;
	const u8 *dst;
	size_t used;

	eng_peer_reset(p, 1);
	eng_rx_start(&rx, p, 0, c->markers, c->crc);
	used = eng_feed(&rx, w->buf, w->len, cut, at, 5);
	dst = op->flags & SIW_RDMAP_F_TAGGED ? p->reg[0].mem + LB_TO_OFF :
					       p->rbuf;
	if (used != w->len || siw_engine_rx_stopped(&rx) || p->ndone != 1 ||
	    p->bad || p->refs || !eng_peer_guards_ok(p) ||
	    !siw_mpa_rx_idle(&rx.mpa) || memcmp(dst, s->buf, s->len) ||
	    p->done_len[0] != s->len || p->done[0].opcode != c->opcode) {
		KUNIT_FAIL(test, "cut %d at %zu: used %zu of %zu, error %s",
			   cut, at, used, w->len,
			   siw_ddp_err_name(siw_engine_rx_error(&rx)));
		KUNIT_FAIL(test, "%u done, len %u, refs %d, bad %d",
			   p->ndone, p->done_len[0], p->refs, p->bad);
		return false;
	}
	if (op->flags & SIW_RDMAP_F_INVALIDATE)
		KUNIT_EXPECT_EQ(test, p->inval_stag, eng_stag(2, 0x11));
	return true;
}

static struct eng_peer *lb_peer(struct kunit *test, u32 len)
{
	struct eng_peer *p = eng_peer_new(test, len + LB_SLACK);

	eng_region_set(p, 1, 0x5a, LB_BASE, len + LB_SLACK,
		       IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ,
		       &eng_pd_a, true, false);
	eng_region_set(p, 2, 0x11, 0x900000, 4096, IB_ACCESS_REMOTE_WRITE,
		       &eng_pd_a, true, true);
	return p;
}

static void lb_msg(struct siw_engine_msg *m, u8 opcode,
		   const struct lb_src *s)
{
	*m = (struct siw_engine_msg){
		.opcode = opcode,
		.stag = eng_stag(1, 0x5a),
		.to = LB_BASE + LB_TO_OFF,
		.inval_stag = eng_stag(2, 0x11),
		.sgl = { .seg = s->seg, .nseg = s->nseg },
	};
}

static void lb_recv_all_ways(struct kunit *test, struct eng_peer *p,
			     const struct eng_wire *w, const struct lb_case *c,
			     const struct lb_src *s)
{
	size_t at, stride = w->len <= 400 ? 1 : w->len / 37 + 1;

	if (!lb_recv(test, p, w, c, s, ENG_WHOLE, 0))
		return;
	for (at = 1; at < w->len; at += stride)
		if (!lb_recv(test, p, w, c, s, ENG_SPLIT, at))
			return;
	if (w->len <= 4096 && !lb_recv(test, p, w, c, s, ENG_OCTETS, 0))
		return;
	lb_recv(test, p, w, c, s, ENG_UNEVEN, 0);
}

static void siw_engine_tx_loopback(struct kunit *test)
{
	unsigned long i = (unsigned long)test->param_value - 1;
	const struct siw_rdmap_opinfo *op;
	struct siw_engine_tx *tx;
	struct siw_engine_msg msg;
	struct lb_stats st = { .emss = LB_EMSS };
	struct eng_wire *w;
	struct eng_peer *p;
	struct lb_src *s;
	struct lb_case c;
	u32 len, per;

	lb_decode(i, &c);
	op = siw_rdmap_opinfo(c.opcode);
	tx = kunit_kzalloc(test, sizeof(*tx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, tx);
	siw_engine_tx_init(tx, c.markers, c.crc, LB_EMSS);
	len = lb_len(c.size, tx->mulpdu, op->hdr_len);
	s = lb_src_new(test, len, c.layout, (u8)i);
	p = lb_peer(test, len);
	w = eng_wire_new(test, 2 * len + 4096);
	lb_msg(&msg, c.opcode, s);

	lb_send(test, tx, &msg, s, w, &st, SIW_ENGINE_TX_PIECES);
	KUNIT_EXPECT_EQ(test, st.payload, len);
	per = tx->mulpdu - op->hdr_len;
	if (c.layout == LB_KVA)
		KUNIT_EXPECT_EQ(test, st.nfpdu, max(1U, DIV_ROUND_UP(len, per)));
	lb_recv_all_ways(test, p, w, &c, s);
}

/*
 * Send @msg on @tx into @w, each FPDU offered @st: one that fits is one
 * staged piece, at the stage's free room, the stage growing by it;
 * @reset empties the stage after each FPDU (the caller sent it). Counts
 * the FPDUs staged and not into *@nstaged and *@nref.
 */
static void lb_send_staged(struct kunit *test, struct siw_engine_tx *tx,
			   const struct siw_engine_msg *msg,
			   struct siw_engine_stage *st, bool reset,
			   struct eng_wire *w, unsigned int *nstaged,
			   unsigned int *nref)
{
	struct siw_engine_seg *pieces;
	struct siw_engine_txd d;
	u32 used, i;
	int rv;

	pieces = kunit_kcalloc(test, SIW_ENGINE_TX_PIECES, sizeof(*pieces),
			       GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pieces);
	KUNIT_ASSERT_EQ(test, siw_engine_tx_msg(tx, msg), 0);
	d = (struct siw_engine_txd){ .piece = pieces,
				     .max = SIW_ENGINE_TX_PIECES, .stage = st };
	for (;;) {
		used = st->used;
		rv = siw_engine_tx_next(tx, &d);
		if (rv <= 0)
			break;
		if (st->used != used) {
			(*nstaged)++;
			KUNIT_EXPECT_EQ(test, d.n, 1U);
			KUNIT_EXPECT_EQ(test, d.piece[0].kind,
					SIW_ENGINE_SEG_STAGED);
			KUNIT_EXPECT_PTR_EQ(test, d.piece[0].addr,
					    (const void *)(st->buf + used));
			KUNIT_EXPECT_EQ(test, d.piece[0].len, d.wire_len);
			KUNIT_EXPECT_EQ(test, st->used, used + d.wire_len);
			KUNIT_EXPECT_LE(test, st->used, st->size);
		} else {
			(*nref)++;
			for (i = 0; i < d.n; i++)
				KUNIT_EXPECT_NE(test, d.piece[i].kind,
						SIW_ENGINE_SEG_STAGED);
		}
		KUNIT_ASSERT_TRUE(test, eng_wire_put(w, &d));
		if (reset)
			st->used = 0;
		KUNIT_ASSERT_LT(test, *nstaged + *nref, 10000U);
	}
	KUNIT_EXPECT_EQ(test, rv, 0);
}

/*
 * With a stage, the engine puts out the same octets as without one, each
 * FPDU copied whole into the stage and its payload summed in that copy:
 * no octet of payload is read for the CRC alone, where without a stage
 * every one is. A stage too small for an FPDU leaves that one as
 * references.
 */
static void siw_engine_tx_staged(struct kunit *test)
{
	unsigned long i = (unsigned long)test->param_value - 1;
	struct siw_engine_tx *tx = kunit_kzalloc(test, 3 * sizeof(*tx),
						 GFP_KERNEL);
	const struct siw_rdmap_opinfo *op;
	struct lb_stats st = { .emss = LB_EMSS };
	struct siw_engine_stage roomy, tight;
	unsigned int staged = 0, ref = 0;
	struct eng_wire *w[3];
	struct siw_engine_msg msg;
	struct lb_src *s;
	struct lb_case c;
	u32 len, k;
	bool same;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, tx);
	lb_decode(i, &c);
	op = siw_rdmap_opinfo(c.opcode);
	for (k = 0; k < 3; k++)
		siw_engine_tx_init(&tx[k], c.markers, c.crc, LB_EMSS);
	len = lb_len(c.size, tx->mulpdu, op->hdr_len);
	s = lb_src_new(test, len, c.layout, (u8)i);
	for (k = 0; k < 3; k++)
		w[k] = eng_wire_new(test, 2 * len + 4096);
	lb_msg(&msg, c.opcode, s);

	/* as referenced */
	lb_send(test, &tx[0], &msg, s, w[0], &st, SIW_ENGINE_TX_PIECES);
	KUNIT_EXPECT_EQ(test, tx[0].crc_reads, c.crc ? (u64)len : 0);

	/* a stage that takes the whole message */
	roomy = (struct siw_engine_stage){ .size = 2 * len + 4096 };
	roomy.buf = kunit_kzalloc(test, roomy.size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, roomy.buf);
	lb_send_staged(test, &tx[1], &msg, &roomy, false, w[1], &staged, &ref);
	KUNIT_EXPECT_EQ(test, ref, 0U);
	KUNIT_EXPECT_EQ(test, staged, st.nfpdu);
	KUNIT_EXPECT_EQ(test, roomy.used, (u32)w[1]->len);
	KUNIT_EXPECT_EQ(test, tx[1].crc_reads, 0ULL);
	KUNIT_EXPECT_EQ(test, w[1]->len, w[0]->len);
	same = !memcmp(w[1]->buf, w[0]->buf, min(w[0]->len, w[1]->len));
	KUNIT_EXPECT_TRUE_MSG(test, same,
			      "the staged FPDUs differ from the referenced");

	/* one that takes the short FPDUs only */
	staged = 0;
	ref = 0;
	tight = (struct siw_engine_stage){ .size = 200 };
	tight.buf = kunit_kzalloc(test, tight.size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, tight.buf);
	lb_send_staged(test, &tx[2], &msg, &tight, true, w[2], &staged, &ref);
	KUNIT_EXPECT_EQ(test, staged + ref, st.nfpdu);
	if (len + 64 <= tight.size)
		KUNIT_EXPECT_EQ(test, ref, 0U);
	if (len > tight.size)
		KUNIT_EXPECT_GT(test, ref, 0U);
	KUNIT_EXPECT_EQ(test, w[2]->len, w[0]->len);
	same = !memcmp(w[2]->buf, w[0]->buf, min(w[0]->len, w[2]->len));
	KUNIT_EXPECT_TRUE_MSG(test, same,
			      "FPDUs staged or not differ from the referenced");
}

/* Read Request and Terminate: single-segment messages with a fixed payload */
struct lb_fixed_case {
	const char *name;
	u8 opcode;
	bool crc;
	bool markers;
};

static const struct lb_fixed_case lb_fixed_cases[] = {
	{ "read request, crc and markers", SIW_RDMAP_READ_REQ, true, true },
	{ "read request, crc", SIW_RDMAP_READ_REQ, true, false },
	{ "read request, markers", SIW_RDMAP_READ_REQ, false, true },
	{ "read request, plain", SIW_RDMAP_READ_REQ, false, false },
	{ "terminate, crc and markers", SIW_RDMAP_TERMINATE, true, true },
	{ "terminate, crc", SIW_RDMAP_TERMINATE, true, false },
	{ "terminate, markers", SIW_RDMAP_TERMINATE, false, true },
	{ "terminate, plain", SIW_RDMAP_TERMINATE, false, false },
};

SIW_DDP_CASE_DESC(lb_fixed_case)
KUNIT_ARRAY_PARAM(lb_fixed, lb_fixed_cases, lb_fixed_case_desc);

static const struct siw_rdmap_rreq lb_rreq = {
	.sink_to = 0x123456789aULL, .src_to = LB_BASE + 8,
	.sink_stag = 0xabcdef01, .src_stag = 0x15a, .len = 100,
};

/* The Terminate reports an MSN error in a Send header */
static void lb_term_info(struct siw_rdmap_term_info *ti, u8 *seg)
{
	struct siw_ddp_hdr h;

	siw_rdmap_hdr_init(&h, SIW_RDMAP_SEND);
	h.msn = 7;
	siw_ddp_hdr_encode(&h, seg, SIW_DDP_UNTAGGED_HLEN);
	*ti = (struct siw_rdmap_term_info){
		.err = SIW_DDP_ERR_DDP_U_MSN_RANGE, .seg = seg,
		.seg_avail = SIW_DDP_UNTAGGED_HLEN, .seg_len = 118,
		.seg_len_valid = true,
	};
}

static void lb_fixed_check(struct kunit *test, const struct lb_fixed_case *c,
			   const struct eng_peer *p,
			   const struct siw_engine_rx *rx)
{
	struct siw_rdmap_term_info ti;

	if (c->opcode == SIW_RDMAP_READ_REQ) {
		KUNIT_EXPECT_FALSE(test, siw_engine_rx_stopped(rx));
		KUNIT_ASSERT_EQ(test, p->nrreq, 1U);
		KUNIT_EXPECT_EQ(test, p->rreq.sink_to, lb_rreq.sink_to);
		KUNIT_EXPECT_EQ(test, p->rreq.src_to, lb_rreq.src_to);
		KUNIT_EXPECT_EQ(test, p->rreq.sink_stag, lb_rreq.sink_stag);
		KUNIT_EXPECT_EQ(test, p->rreq.src_stag, lb_rreq.src_stag);
		KUNIT_EXPECT_EQ(test, p->rreq.len, lb_rreq.len);
		KUNIT_EXPECT_EQ(test, rx->uq[SIW_DDP_QN_RREQ].avail, 0U);
		return;
	}
	KUNIT_EXPECT_TRUE(test, siw_engine_rx_stopped(rx));
	KUNIT_EXPECT_EQ(test, siw_engine_rx_error(rx), SIW_DDP_OK);
	KUNIT_EXPECT_FALSE(test, siw_engine_rx_term_info(rx, &ti));
	KUNIT_ASSERT_EQ(test, p->nterm, 1U);
	KUNIT_EXPECT_EQ(test, p->term.err, SIW_DDP_ERR_DDP_U_MSN_RANGE);
	KUNIT_EXPECT_EQ(test, p->term.layer, 1);
	KUNIT_EXPECT_EQ(test, p->term.etype, 2);
	KUNIT_EXPECT_EQ(test, p->term.ecode, 3);
	KUNIT_EXPECT_TRUE(test, p->term.has_ddp_hdr);
	KUNIT_EXPECT_EQ(test, p->term.ddp.msn, 7U);
	KUNIT_EXPECT_EQ(test, p->term.seg_len, 118);
}

static void siw_engine_tx_fixed(struct kunit *test)
{
	const struct lb_fixed_case *c = test->param_value;
	struct siw_engine_msg msg = { .opcode = c->opcode };
	u8 seg[SIW_DDP_UNTAGGED_HLEN];
	struct siw_rdmap_term_info ti;
	struct siw_engine_rx *rx;
	struct siw_engine_tx *tx;
	struct lb_stats st = { .emss = LB_EMSS };
	struct eng_wire *w;
	struct eng_peer *p;
	struct lb_src *s;

	tx = kunit_kzalloc(test, sizeof(*tx), GFP_KERNEL);
	rx = kunit_kzalloc(test, sizeof(*rx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, tx);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, rx);
	s = lb_src_new(test, 0, LB_KVA, 0);
	s->nseg = 0;
	p = lb_peer(test, 512);
	w = eng_wire_new(test, 1024);
	siw_engine_tx_init(tx, c->markers, c->crc, LB_EMSS);
	lb_term_info(&ti, seg);
	msg.rreq = &lb_rreq;
	msg.term = &ti;
	lb_send(test, tx, &msg, s, w, &st, SIW_ENGINE_TX_PIECES_MIN);
	KUNIT_EXPECT_EQ(test, st.nfpdu, 1U);
	KUNIT_EXPECT_EQ(test, tx->msn[c->opcode == SIW_RDMAP_READ_REQ ?
				      SIW_DDP_QN_RREQ : SIW_DDP_QN_TERM], 2U);

	eng_peer_reset(p, 0);
	eng_rx_start(rx, p, 1, c->markers, c->crc);
	KUNIT_EXPECT_EQ(test, eng_feed(rx, w->buf, w->len, ENG_OCTETS, 0, 1),
			w->len);
	lb_fixed_check(test, c, p, rx);
	KUNIT_EXPECT_EQ(test, p->refs, 0);
}

/* Several messages on one stream: MSNs per queue, TO/MO, the L bit */
struct lb_stream_case {
	const char *name;
	bool crc;
	bool markers;
	u32 emss;
	unsigned int max;
};

static const struct lb_stream_case lb_stream_cases[] = {
	{ "crc and markers, mss 1460", true, true, 1460, SIW_ENGINE_TX_PIECES },
	{ "crc, mss 1460", true, false, 1460, SIW_ENGINE_TX_PIECES },
	{ "markers, mss 536", false, true, 536, SIW_ENGINE_TX_PIECES },
	{ "plain, mss 8948", false, false, 8948, SIW_ENGINE_TX_PIECES },
	{ "crc and markers, 16 pieces", true, true, 1460,
	  SIW_ENGINE_TX_PIECES_MIN },
	{ "crc, mss 9000, 16 pieces", true, false, 9000,
	  SIW_ENGINE_TX_PIECES_MIN },
	{ "markers, mss 128", false, true, 128, SIW_ENGINE_TX_PIECES },
};

SIW_DDP_CASE_DESC(lb_stream_case)
KUNIT_ARRAY_PARAM(lb_stream, lb_stream_cases, lb_stream_case_desc);

static const struct {
	u8 opcode;
	u32 len;
} lb_stream_msgs[] = {
	{ SIW_RDMAP_SEND, 100 },
	{ SIW_RDMAP_WRITE, 3000 },
	{ SIW_RDMAP_READ_REQ, 0 },
	{ SIW_RDMAP_SEND_SE, 0 },
	{ SIW_RDMAP_READ_REQ, 0 },
	{ SIW_RDMAP_SEND_INV, 2000 },
	{ SIW_RDMAP_READ_RESP, 5 },
	{ SIW_RDMAP_WRITE, 0 },
	{ SIW_RDMAP_SEND_SE_INV, 4097 },
};

static void siw_engine_tx_stream(struct kunit *test)
{
	const struct lb_stream_case *c = test->param_value;
	struct siw_engine_tx *tx = kunit_kzalloc(test, sizeof(*tx), GFP_KERNEL);
	struct siw_engine_rx *rx = kunit_kzalloc(test, sizeof(*rx), GFP_KERNEL);
	struct eng_wire *w = eng_wire_new(test, 64 * 1024);
	struct eng_peer *p = lb_peer(test, 8192);
	struct lb_stats st = { .emss = c->emss >= 256 ? c->emss : 0 };
	struct siw_engine_msg msg;
	struct lb_src *s;
	unsigned int i, n = ARRAY_SIZE(lb_stream_msgs);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, tx);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, rx);
	siw_engine_tx_init(tx, c->markers, c->crc, c->emss);
	for (i = 0; i < n; i++) {
		s = lb_src_new(test, lb_stream_msgs[i].len, i % LB_NUM_LAYOUTS,
			       i);
		lb_msg(&msg, lb_stream_msgs[i].opcode, s);
		msg.rreq = &lb_rreq;
		st.payload = 0;
		lb_send(test, tx, &msg, s, w, &st, c->max);
	}
	KUNIT_EXPECT_EQ(test, tx->msn[SIW_DDP_QN_SEND], 5U);
	KUNIT_EXPECT_EQ(test, tx->msn[SIW_DDP_QN_RREQ], 3U);

	eng_peer_reset(p, 4);
	eng_rx_start(rx, p, 2, c->markers, c->crc);
	KUNIT_EXPECT_EQ(test, eng_feed(rx, w->buf, w->len, ENG_UNEVEN, 0, 9),
			w->len);
	KUNIT_EXPECT_FALSE(test, siw_engine_rx_stopped(rx));
	KUNIT_EXPECT_EQ(test, p->ndone, n - 2);
	KUNIT_EXPECT_EQ(test, p->nrreq, 2U);
	KUNIT_EXPECT_EQ(test, p->nbufs, 0U);
	KUNIT_EXPECT_EQ(test, rx->uq[SIW_DDP_QN_SEND].msn, 5U);
	KUNIT_EXPECT_EQ(test, rx->uq[SIW_DDP_QN_RREQ].msn, 3U);
	KUNIT_EXPECT_FALSE(test, p->bad);
	KUNIT_EXPECT_EQ(test, p->refs, 0);
	KUNIT_EXPECT_EQ(test, p->done_len[n - 3], 4097U);
	KUNIT_EXPECT_TRUE(test, eng_peer_guards_ok(p));
}

/* Payload scattered over more pieces than an FPDU may have */
struct lb_scatter_case {
	const char *name;
	u32 seg_len;
	u32 nseg;
	bool page;
	bool markers;
	unsigned int max;
};

static const struct lb_scatter_case lb_scatter_cases[] = {
	{ "300 one-octet kva segments, 16 pieces", 1, 300, false, true, 16 },
	{ "300 one-octet page segments, 16 pieces", 1, 300, true, false, 16 },
	{ "200 three-octet segments, 17 pieces", 3, 200, true, true, 17 },
	{ "100 29-octet segments, 32 pieces", 29, 100, false, true, 32 },
	{ "40 4096-octet page segments, 16 pieces", 4096, 40, true, true, 16 },
};

SIW_DDP_CASE_DESC(lb_scatter_case)
KUNIT_ARRAY_PARAM(lb_scatter, lb_scatter_cases, lb_scatter_case_desc);

static void siw_engine_tx_scatter(struct kunit *test)
{
	const struct lb_scatter_case *c = test->param_value;
	u32 len = c->seg_len * c->nseg, i;
	struct siw_engine_tx *tx = kunit_kzalloc(test, sizeof(*tx), GFP_KERNEL);
	struct eng_wire *w = eng_wire_new(test, 4 * len + 8192);
	struct lb_case lc = { .opcode = SIW_RDMAP_SEND, .crc = true,
			      .markers = c->markers };
	struct eng_peer *p = lb_peer(test, len);
	struct lb_src *s = lb_src_new(test, len, LB_KVA, 3);
	struct lb_stats st = { .emss = 9000 };
	struct siw_engine_msg msg;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, tx);
	s->nseg = 0;
	for (i = 0; i < c->nseg; i++)
		lb_seg_add(s, c->page, i * c->seg_len, c->seg_len);
	siw_engine_tx_init(tx, c->markers, true, 9000);
	lb_msg(&msg, SIW_RDMAP_SEND, s);
	lb_send(test, tx, &msg, s, w, &st, c->max);
	KUNIT_EXPECT_EQ(test, st.payload, len);
	KUNIT_EXPECT_GT(test, st.nfpdu, 1U);
	lb_recv(test, p, w, &lc, s, ENG_UNEVEN, 0);
}

/* What the engine refuses */
static void siw_engine_tx_misuse(struct kunit *test)
{
	struct siw_engine_tx *tx = kunit_kzalloc(test, sizeof(*tx), GFP_KERNEL);
	struct siw_engine_seg pieces[SIW_ENGINE_TX_PIECES];
	struct siw_engine_txd d = { .piece = pieces, .max = 8 };
	static u8 payload[8];
	struct siw_engine_seg seg = { .addr = payload, .len = 8,
				      .kind = SIW_ENGINE_SEG_KVA };
	struct siw_engine_msg m = { .opcode = SIW_RDMAP_SEND,
				    .sgl = { .seg = &seg, .nseg = 1 } };
	static const u8 bad_ops[] = { 0x8, 0x9, 0xa, 0xb, 0xc, 0xd, 0xe, 0xf,
				      0x10, 0xff };
	unsigned int i;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, tx);
	siw_engine_tx_init(tx, false, true, 1460);
	KUNIT_EXPECT_EQ(test, siw_engine_tx_next(tx, &d), 0);
	for (i = 0; i < ARRAY_SIZE(bad_ops); i++) {
		m.opcode = bad_ops[i];
		KUNIT_EXPECT_EQ(test, siw_engine_tx_msg(tx, &m), -EINVAL);
	}
	m.opcode = SIW_RDMAP_READ_REQ;
	KUNIT_EXPECT_EQ(test, siw_engine_tx_msg(tx, &m), -EINVAL);
	m.sgl.nseg = 0;
	KUNIT_EXPECT_EQ(test, siw_engine_tx_msg(tx, &m), -EINVAL);
	m.opcode = SIW_RDMAP_TERMINATE;
	KUNIT_EXPECT_EQ(test, siw_engine_tx_msg(tx, &m), -EINVAL);
	KUNIT_EXPECT_FALSE(test, siw_engine_tx_busy(tx));
	KUNIT_EXPECT_EQ(test, tx->msn[SIW_DDP_QN_RREQ], 1U);

	m.opcode = SIW_RDMAP_SEND;
	m.sgl.nseg = 1;
	KUNIT_ASSERT_EQ(test, siw_engine_tx_msg(tx, &m), 0);
	KUNIT_EXPECT_EQ(test, siw_engine_tx_msg(tx, &m), -EBUSY);
	KUNIT_EXPECT_EQ(test, siw_engine_tx_next(tx, &d), -EINVAL);
	KUNIT_EXPECT_TRUE(test, siw_engine_tx_busy(tx));
	d.max = SIW_ENGINE_TX_PIECES_MIN;
	KUNIT_EXPECT_EQ(test, siw_engine_tx_next(tx, &d), 1);
	KUNIT_EXPECT_TRUE(test, d.last);
	KUNIT_EXPECT_EQ(test, d.payload, 8U);
	KUNIT_EXPECT_EQ(test, siw_engine_tx_next(tx, &d), 0);
	KUNIT_EXPECT_EQ(test, d.n, 0U);
	KUNIT_EXPECT_EQ(test, tx->msn[SIW_DDP_QN_SEND], 2U);
}

/* The octets of one small FPDU, piece by piece */
static void siw_engine_tx_shape(struct kunit *test)
{
	struct siw_engine_tx *tx = kunit_kzalloc(test, sizeof(*tx), GFP_KERNEL);
	struct siw_engine_seg pieces[SIW_ENGINE_TX_PIECES];
	struct siw_engine_txd d = { .piece = pieces, .max = ARRAY_SIZE(pieces) };
	static const u8 payload[5] = { 1, 2, 3, 4, 5 };
	struct siw_engine_seg seg = { .addr = payload, .len = 5,
				      .kind = SIW_ENGINE_SEG_KVA };
	struct siw_engine_msg m = { .opcode = SIW_RDMAP_WRITE,
				    .stag = 0x01020304, .to = 0x1122334455667788ULL,
				    .sgl = { .seg = &seg, .nseg = 1 } };
	static const u8 hdr[] = { 0xc1, 0x40, 0x01, 0x02, 0x03, 0x04, 0x11,
				  0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88 };
	static const u8 len_field[] = { 0x00, 19 };

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, tx);
	siw_engine_tx_init(tx, false, false, 1460);
	KUNIT_ASSERT_EQ(test, siw_engine_tx_msg(tx, &m), 0);
	KUNIT_ASSERT_EQ(test, siw_engine_tx_next(tx, &d), 1);
	KUNIT_ASSERT_EQ(test, d.n, 4U);
	KUNIT_EXPECT_EQ(test, d.piece[0].kind, SIW_ENGINE_SEG_OWN);
	KUNIT_ASSERT_EQ(test, d.piece[0].len, 2U);
	SIW_EXPECT_BYTES(test, d.piece[0].addr, len_field, 2);
	KUNIT_EXPECT_EQ(test, d.piece[1].kind, SIW_ENGINE_SEG_OWN);
	KUNIT_ASSERT_EQ(test, d.piece[1].len, 14U);
	SIW_EXPECT_BYTES(test, d.piece[1].addr, hdr, sizeof(hdr));
	KUNIT_EXPECT_EQ(test, d.piece[2].kind, SIW_ENGINE_SEG_KVA);
	KUNIT_EXPECT_PTR_EQ(test, d.piece[2].addr, (const void *)payload);
	KUNIT_EXPECT_EQ(test, d.piece[2].len, 5U);
	/* pad of 3 and a zero CRC field */
	KUNIT_EXPECT_EQ(test, d.piece[3].kind, SIW_ENGINE_SEG_OWN);
	KUNIT_EXPECT_EQ(test, d.piece[3].len, 7U);
	KUNIT_EXPECT_EQ(test, d.wire_len, 28U);
	KUNIT_EXPECT_EQ(test, tx->ddp.to, 0x1122334455667788ULL + 5);
}

/*
 * A small message framed whole (siw_engine_tx_flat_begin(), _end()):
 * the same octets as the general path's, with CRCs on and off, for
 * every opcode it takes, payload in one virtual range (inline data) or
 * in 1 to 3 page segments (SGEs), sizes up to one FPDU of the MULPDU
 * and one past it (refused, and then sent the general way)
 */
static const u8 flat_ops[] = {
	SIW_RDMAP_SEND, SIW_RDMAP_SEND_INV, SIW_RDMAP_SEND_SE,
	SIW_RDMAP_SEND_SE_INV, SIW_RDMAP_WRITE,
};

enum flat_size {
	FLAT_0, FLAT_1, FLAT_63, FLAT_64, FLAT_LIMIT, FLAT_OVER, FLAT_NUM_SIZES,
};

static const char * const flat_size_names[] = {
	"0", "1", "63", "64", "one FPDU", "one FPDU + 1",
};

#define FLAT_NSEG	4	/* 0: one virtual range; 1 to 3: page segments */
#define FLAT_NUM_CASES	(2 * ARRAY_SIZE(flat_ops) * FLAT_NSEG * FLAT_NUM_SIZES)

struct flat_case {
	u8 opcode;
	u8 size;
	u8 nseg;
	bool crc;
};

static void flat_decode(unsigned long i, struct flat_case *c)
{
	c->crc = i & 1;
	i >>= 1;
	c->size = i % FLAT_NUM_SIZES;
	i /= FLAT_NUM_SIZES;
	c->nseg = i % FLAT_NSEG;
	c->opcode = flat_ops[i / FLAT_NSEG];
}

static const void *flat_gen_params(const void *prev, char *desc)
{
	unsigned long i = (unsigned long)prev;
	struct flat_case c;

	if (i >= FLAT_NUM_CASES)
		return NULL;
	flat_decode(i, &c);
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s, %s octets, %s, crc %s",
		 siw_rdmap_opinfo(c.opcode)->name, flat_size_names[c.size],
		 c.nseg ? (c.nseg == 1 ? "1 segment" : c.nseg == 2 ?
			   "2 segments" : "3 segments") : "virtual",
		 c.crc ? "on" : "off");
	return (const void *)(i + 1);
}

/* Send @m the general way on @tx into @w */
static void flat_general(struct kunit *test, struct siw_engine_tx *tx,
			 const struct siw_engine_msg *m, struct eng_wire *w)
{
	struct siw_engine_seg pieces[SIW_ENGINE_TX_PIECES];
	struct siw_engine_txd d = { .piece = pieces, .max = ARRAY_SIZE(pieces) };
	int rv;

	KUNIT_ASSERT_EQ(test, siw_engine_tx_msg(tx, m), 0);
	while ((rv = siw_engine_tx_next(tx, &d)) > 0)
		KUNIT_ASSERT_TRUE(test, eng_wire_put(w, &d));
	KUNIT_ASSERT_EQ(test, rv, 0);
}

/* Copy the payload of @s into @fl as the caller of the flat path does */
static void flat_fill(const struct lb_src *s, struct siw_engine_flat *fl)
{
	u8 *to = fl->payload;
	const u8 *from;
	u32 i;

	for (i = 0; i < s->nseg; i++) {
		if (s->seg[i].kind == SIW_ENGINE_SEG_PAGE)
			from = (const u8 *)page_address(s->seg[i].page) +
			       s->seg[i].off;
		else
			from = s->seg[i].addr;
		if (fl->crc)
			*fl->crc = siw_mpa_crc_copy(*fl->crc, to, from,
						    s->seg[i].len);
		else
			memcpy(to, from, s->seg[i].len);
		to += s->seg[i].len;
	}
}

static void siw_engine_tx_flat(struct kunit *test)
{
	static const u32 flat_sizes[] = { 0, 1, 63, 64 };
	unsigned long i = (unsigned long)test->param_value - 1;
	static const u8 next_payload[5] = { 9, 8, 7, 6, 5 };
	struct siw_engine_seg next_seg = { .addr = next_payload, .len = 5,
					   .kind = SIW_ENGINE_SEG_KVA };
	struct siw_engine_msg next = { .opcode = SIW_RDMAP_SEND,
				       .sgl = { .seg = &next_seg, .nseg = 1 } };
	struct siw_engine_tx *gen, *flat;
	struct siw_engine_flat fl;
	struct siw_engine_msg m;
	struct eng_wire *wg, *wf;
	struct flat_case c;
	u32 len, limit, at, n, k;
	struct lb_src *s;
	u8 *buf;
	int rv;

	flat_decode(i, &c);
	gen = kunit_kzalloc(test, sizeof(*gen), GFP_KERNEL);
	flat = kunit_kzalloc(test, sizeof(*flat), GFP_KERNEL);
	buf = kunit_kzalloc(test, 2 * LB_EMSS, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, gen && flat && buf);
	siw_engine_tx_init(gen, false, c.crc, LB_EMSS);
	siw_engine_tx_init(flat, false, c.crc, LB_EMSS);
	limit = gen->mulpdu - (siw_rdmap_opinfo(c.opcode)->flags &
			       SIW_RDMAP_F_TAGGED ? SIW_DDP_TAGGED_HLEN :
			       SIW_DDP_UNTAGGED_HLEN);
	switch (c.size) {
	case FLAT_LIMIT:
		len = limit;
		break;
	case FLAT_OVER:
		len = limit + 1;
		break;
	default:
		len = flat_sizes[c.size];
		break;
	}
	s = lb_src_new(test, len, LB_KVA, (u8)i);
	if (c.nseg) {
		/* uneven SGEs across the page the payload starts in */
		s->nseg = 0;
		for (k = 0, at = 0; k < c.nseg; k++) {
			n = k + 1 == c.nseg ? len - at : len / (c.nseg + k);
			lb_seg_add(s, true, at, n);
			at += n;
		}
	}
	lb_msg(&m, c.opcode, s);
	wg = eng_wire_new(test, 4 * LB_EMSS);
	wf = eng_wire_new(test, 4 * LB_EMSS);

	/* a message before: the flat path continues the same sequence */
	flat_general(test, gen, &next, wg);
	flat_general(test, flat, &next, wf);

	flat_general(test, gen, &m, wg);
	fl = (struct siw_engine_flat){
		.buf = buf, .size = 2 * LB_EMSS, .len = len,
	};
	/* begun and abandoned (a region failed its check): nothing moves */
	rv = siw_engine_tx_flat_begin(flat, &m, &fl);
	if (c.size == FLAT_OVER) {
		KUNIT_EXPECT_EQ(test, rv, -EMSGSIZE);
		flat_general(test, flat, &m, wf);
	} else {
		KUNIT_ASSERT_EQ(test, rv, 0);
		memset(buf, 0, 2 * LB_EMSS);
		KUNIT_ASSERT_EQ(test, siw_engine_tx_flat_begin(flat, &m, &fl), 0);
		KUNIT_EXPECT_EQ(test, !!fl.crc, c.crc);
		flat_fill(s, &fl);
		rv = siw_engine_tx_flat_end(flat, &fl);
		KUNIT_ASSERT_GT(test, rv, 0);
		KUNIT_ASSERT_LE(test, wf->len + rv, wf->size);
		memcpy(wf->buf + wf->len, buf, rv);
		wf->len += rv;
		KUNIT_EXPECT_FALSE(test, siw_engine_tx_busy(flat));
		KUNIT_EXPECT_EQ(test, siw_engine_tx_flat_end(flat, &fl), -EPROTO);
	}
	/* and a message after: MSNs and stream offset moved alike */
	flat_general(test, gen, &next, wg);
	flat_general(test, flat, &next, wf);

	KUNIT_ASSERT_EQ(test, wf->len, wg->len);
	KUNIT_EXPECT_EQ(test, memcmp(wf->buf, wg->buf, wg->len), 0);
	KUNIT_EXPECT_EQ(test, memcmp(flat->msn, gen->msn, sizeof(gen->msn)), 0);
	KUNIT_EXPECT_EQ(test, flat->mpa.pos, gen->mpa.pos);
}

/* What the flat path refuses: markers, other opcodes, a short buffer */
static void siw_engine_tx_flat_refuses(struct kunit *test)
{
	struct siw_engine_tx *tx = kunit_kzalloc(test, sizeof(*tx), GFP_KERNEL);
	static const u8 others[] = { SIW_RDMAP_READ_REQ, SIW_RDMAP_READ_RESP,
				     SIW_RDMAP_TERMINATE, 0x8, 0xff };
	struct siw_engine_msg m = { .opcode = SIW_RDMAP_SEND };
	u8 buf[64];
	struct siw_engine_flat fl = { .buf = buf, .size = sizeof(buf),
				      .len = 8 };
	unsigned int i;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, tx);
	siw_engine_tx_init(tx, true, true, 1460);
	KUNIT_EXPECT_EQ(test, siw_engine_tx_flat_begin(tx, &m, &fl), -EINVAL);
	siw_engine_tx_init(tx, false, true, 1460);
	for (i = 0; i < ARRAY_SIZE(others); i++) {
		m.opcode = others[i];
		KUNIT_EXPECT_EQ(test, siw_engine_tx_flat_begin(tx, &m, &fl),
				-EINVAL);
	}
	m.opcode = SIW_RDMAP_SEND;
	/* 2 + 18 + 42 + 2 pad + 4 > 64; 38 octets fit exactly */
	fl.len = 42;
	KUNIT_EXPECT_EQ(test, siw_engine_tx_flat_begin(tx, &m, &fl), -ENOSPC);
	fl.len = 38;
	KUNIT_EXPECT_EQ(test, siw_engine_tx_flat_begin(tx, &m, &fl), 0);
	KUNIT_EXPECT_EQ(test, tx->msn[SIW_DDP_QN_SEND], 1U);
	KUNIT_EXPECT_EQ(test, tx->mpa.pos, 0U);
	KUNIT_ASSERT_EQ(test, siw_engine_tx_msg(tx, &m), 0);
	KUNIT_EXPECT_EQ(test, siw_engine_tx_flat_begin(tx, &m, &fl), -EBUSY);
}

static struct kunit_case siw_engine_tx_cases[] = {
	KUNIT_CASE_PARAM(siw_engine_tx_loopback, lb_gen_params),
	KUNIT_CASE_PARAM(siw_engine_tx_staged, lb_gen_params),
	KUNIT_CASE_PARAM(siw_engine_tx_fixed, lb_fixed_gen_params),
	KUNIT_CASE_PARAM(siw_engine_tx_stream, lb_stream_gen_params),
	KUNIT_CASE_PARAM(siw_engine_tx_scatter, lb_scatter_gen_params),
	KUNIT_CASE_PARAM(siw_engine_tx_flat, flat_gen_params),
	KUNIT_CASE(siw_engine_tx_flat_refuses),
	KUNIT_CASE(siw_engine_tx_misuse),
	KUNIT_CASE(siw_engine_tx_shape),
	{}
};

static struct kunit_suite siw_engine_tx_suite = {
	.name = "siw_engine_tx",
	.test_cases = siw_engine_tx_cases,
};

kunit_test_suite(siw_engine_tx_suite);
