// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite siw_mpa_rx: the receive deframer.
 *
 * Streams come from the reference model of siw_mpa_test.h. Each round
 * trip parses its stream whole, one octet at a time, split in two at
 * every position (at sampled positions around every boundary for the
 * large ones) and in uneven chunks; the skb cases feed it through page
 * fragments and a frag list. Error cases flip octets of every FPDU field
 * and cut streams short (RFC 5044 sections 4.4, 6 and 8).
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/skbuff.h>
#include <linux/slab.h>

#include "siw_mpa_test.h"

#define RX_LENS 4

struct rx_rt_case {
	const char *name;
	u32 lens[RX_LENS];
	unsigned int n;
	bool crc;
	bool markers;
	u32 pos;
};

static const struct rx_rt_case rx_rt_cases[] = {
	{ "one empty ulpdu", { 0 }, 1, true, true, 0 },
	{ "four empty ulpdus", { 0, 0, 0, 0 }, 4, true, true, 0 },
	{ "lens 1 2 3", { 1, 2, 3 }, 3, true, true, 0 },
	{ "lens 4 5 6 7, crc only", { 4, 5, 6, 7 }, 4, true, false, 0 },
	{ "lens 42 x3 plain", { 42, 42, 42 }, 3, false, false, 0 },
	{ "figure 5 and 6 sizes", { 482, 42 }, 2, true, true, 0 },
	{ "lens 505-508 from 4", { 505, 506, 507, 508 }, 4, true, true, 4 },
	{ "lens 509-512 from 256", { 509, 510, 511, 512 }, 4, true, true, 256 },
	{ "marker before the crc", { 506, 3 }, 2, true, true, 4 },
	{ "fpdu ends on a marker", { 502, 1 }, 2, true, true, 4 },
	{ "odd lengths", { 13, 1, 1023, 77 }, 4, true, true, 508 },
	{ "one mss twice", { 1442, 1442 }, 2, true, true, 0 },
	{ "one mss plain crc", { 1454, 1454 }, 2, true, false, 0 },
	{ "one mss, markers, crc off", { 1442, 100 }, 2, false, true, 0 },
	{ "two mss", { 2896 }, 1, true, true, 100 },
	{ "three mss", { 4380 }, 1, true, true, 44 },
	{ "three mss crc only", { 4380 }, 1, true, false, 0 },
	{ "mss mix", { 2896, 1460, 8922 }, 3, true, true, 12 },
	{ "jumbo plain crc", { 9000, 9000 }, 2, true, false, 0 },
	{ "16k at 508", { 16384 }, 1, true, true, 508 },
	{ "largest ulpdu with markers", { 64768 }, 1, true, true, 0 },
	{ "largest ulpdu plain", { 64768 }, 1, false, false, 0 },
	{ "ulpdu 65535, above the send limit", { 65535 }, 1, true, true, 0 },
	{ "offset wraps inside", { 1100, 3000 }, 2, true, true, 0xfffffe04 },
	{ "offset wraps, crc off", { 700, 5 }, 2, false, true, 0xfffffffc },
	{ "empty ulpdus, crc only", { 0, 1, 0 }, 3, true, false, 0 },
	{ "empty ulpdu, plain", { 0, 42 }, 2, false, false, 0 },
	{ "ulpdu 65535, crc only", { 65535 }, 1, true, false, 0 },
	{ "offset wraps, no markers", { 700, 0, 5 }, 3, false, false,
	  0xfffffff0 },
};

MPA_CASE_DESC(rx_rt_case)
KUNIT_ARRAY_PARAM(rx_rt, rx_rt_cases, rx_rt_case_desc);

static struct mpa_ref *rx_ref(struct kunit *test, const u32 *lens,
			      unsigned int n, bool markers, bool crc, u32 pos)
{
	size_t size = 64;
	struct mpa_ref *r;
	unsigned int i;

	for (i = 0; i < n; i++)
		size += siw_mpa_fpdu_wire_len(0, true, lens[i]) + 4;
	r = mpa_ref_new(test, size, pos, markers, crc);
	for (i = 0; i < n; i++) {
		KUNIT_ASSERT_GE(test, mpa_ref_add(r, lens[i], NULL, 7 * i + 1),
				0);
	}
	return r;
}

/* How a receive run cuts its input */
enum rx_mode {
	RX_WHOLE,	/* one buffer */
	RX_SPLIT,	/* two pieces, cut at @at */
	RX_OCTETS,	/* one octet at a time */
	RX_UNEVEN,	/* pseudo-random pieces of 1 to 2000 octets */
};

static size_t rx_next_cut(enum rx_mode mode, size_t from, size_t len,
			  size_t at, u32 *seed)
{
	switch (mode) {
	case RX_SPLIT:
		return from < at ? at : len;
	case RX_OCTETS:
		return from + 1;
	case RX_UNEVEN:
		*seed = *seed * 1103515245 + 12345;
		return min_t(size_t, len, from + 1 + (*seed >> 16) % 2000);
	default:
		return len;
	}
}

/* Parse all of @r, cut as @mode says; true if it came out whole */
static bool rx_run(struct siw_mpa_rx *rx, const struct mpa_ref *r,
		   struct mpa_rx_log *log, enum rx_mode mode, size_t at)
{
	size_t from = 0, to;
	u32 seed = 1;

	mpa_log_reset(log);
	mpa_rx_start(rx, r);
	while (from < r->len) {
		to = rx_next_cut(mode, from, r->len, at, &seed);
		if (mpa_rx_feed(rx, r->buf + from, to - from, log) != to - from)
			return false;
		from = to;
	}
	return mpa_log_matches(log, r) && siw_mpa_rx_idle(rx) &&
	       rx->pos == r->pos0 + (u32)r->len;
}

static bool rx_split_wanted(const struct mpa_ref *r, size_t at)
{
	size_t stride = max_t(size_t, 1, r->len / 64);
	size_t i;

	if (r->len <= 2500 || at % stride == 0)
		return true;
	/* near a change of field or a marker */
	for (i = at > 4 ? at - 4 : 1; i <= at + 4 && i < r->len; i++)
		if (r->kind[i] != r->kind[i - 1] && i < 4096)
			return true;
	for (i = 0; i < r->nfpdu; i++)
		if (at + 4 >= r->fpdu[i].crc && at <= r->fpdu[i].crc + 8)
			return true;
	return false;
}

static void siw_mpa_rx_roundtrip(struct kunit *test)
{
	const struct rx_rt_case *c = test->param_value;
	struct mpa_ref *r = rx_ref(test, c->lens, c->n, c->markers, c->crc,
				   c->pos);
	struct mpa_rx_log *log = mpa_log_new(test, r->ulp_len);
	struct siw_mpa_rx rx;
	size_t at;

	if (!rx_run(&rx, r, log, RX_WHOLE, 0))
		mpa_log_expect(test, log, r, "whole");
	KUNIT_EXPECT_TRUE(test, siw_mpa_rx_idle(&rx));
	KUNIT_EXPECT_EQ(test, rx.pos, r->pos0 + (u32)r->len);

	for (at = 0; at <= r->len; at++) {
		if (!rx_split_wanted(r, at) || rx_run(&rx, r, log, RX_SPLIT, at))
			continue;
		mpa_log_expect(test, log, r, "split");
		KUNIT_FAIL(test, "split at %zu of %zu", at, r->len);
		return;
	}
	if (!rx_run(&rx, r, log, RX_OCTETS, 0))
		mpa_log_expect(test, log, r, "octet by octet");
	if (!rx_run(&rx, r, log, RX_UNEVEN, 0))
		mpa_log_expect(test, log, r, "uneven pieces");
}

/* ULPDU runs are handed out in place, markers skipped, never copied */
static void siw_mpa_rx_in_place(struct kunit *test)
{
	static const u32 lens[] = { 1100, 7, 600 };
	struct mpa_ref *r = rx_ref(test, lens, ARRAY_SIZE(lens), true, true, 8);
	struct siw_mpa_rx_ev ev;
	struct siw_mpa_rx rx;
	unsigned int nhdr = 0;
	size_t off = 0, k;
	u32 ulp = 0;

	mpa_rx_start(&rx, r);
	while (off < r->len) {
		off += siw_mpa_rx_parse(&rx, r->buf + off, r->len - off, &ev);
		KUNIT_ASSERT_NE_MSG(test, ev.kind, SIW_MPA_EV_ERROR,
				    "error %d at %zu", ev.err, off);
		if (ev.kind == SIW_MPA_EV_HDR) {
			KUNIT_EXPECT_EQ(test, ev.fpdu_pos,
					r->pos0 + r->fpdu[nhdr].hdr);
			nhdr++;
		}
		if (ev.kind != SIW_MPA_EV_DATA)
			continue;
		KUNIT_ASSERT_TRUE(test, ev.data >= r->buf &&
				  ev.data + ev.len <= r->buf + r->len);
		for (k = 0; k < ev.len; k++)
			KUNIT_ASSERT_EQ(test, r->kind[ev.data - r->buf + k],
					MPA_K_DATA);
		KUNIT_EXPECT_EQ(test, ev.data[0], r->ulp[ulp]);
		ulp += ev.len;
	}
	KUNIT_EXPECT_EQ(test, nhdr, 3U);
	KUNIT_EXPECT_EQ(test, ulp, (u32)r->ulp_len);
}

/* Page fragments and frag lists through siw_mpa_rx_skb() */
#define SKB_FRAGS 4

struct rx_skb_case {
	const char *name;
	u32 lens[RX_LENS];
	unsigned int n;
	bool markers;
	u32 skip;		/* junk octets before the stream */
	u32 head;		/* stream octets in the linear part */
	u32 frag[SKB_FRAGS];	/* stream octets per page fragment */
	u32 frag_off[SKB_FRAGS];
	bool frag_list;		/* the rest in a frag-list skb */
	bool stop;		/* the actor stops at the first FPDU */
};

static const struct rx_skb_case rx_skb_cases[] = {
	{ "linear only", { 42, 100 }, 2, true, 0, 0xffff, { }, { }, false, false },
	{ "header in head, data in frags", { 1100, 3 }, 2, true, 0, 2,
	  { 500, 7, 1 }, { 0, 4095, 100 }, false, false },
	{ "empty head, odd frags", { 200, 300, 5 }, 3, true, 0, 0,
	  { 1, 1, 333 }, { 17, 4000, 3 }, false, false },
	{ "junk before the stream", { 600 }, 1, false, 37, 10, { 100 }, { 9 },
	  false, false },
	{ "frag list tail", { 1442, 64 }, 2, true, 0, 50, { 1000 }, { 96 }, true,
	  false },
	{ "frags and frag list, crc only", { 4380 }, 1, false, 5, 5,
	  { 4000, 3 }, { 0, 1 }, true, false },
	{ "actor stops after the first fpdu", { 42, 42, 42 }, 3, true, 0, 20,
	  { 40 }, { 2 }, false, true },
	{ "stop with the fpdu end in a frag", { 700, 12 }, 2, true, 3, 300,
	  { 1000 }, { 50 }, false, true },
	{ "no markers, whole fpdus in frags", { 100, 0, 1000, 3 }, 4, false,
	  0, 110, { 1010, 7, 2000 }, { 0, 9, 1 }, false, false },
	{ "no markers, stop in a frag", { 42, 42, 42 }, 3, false, 0, 0,
	  { 200 }, { 4 }, false, true },
};

MPA_CASE_DESC(rx_skb_case)
KUNIT_ARRAY_PARAM(rx_skb, rx_skb_cases, rx_skb_case_desc);

struct rx_skb_ctx {
	struct mpa_rx_log *log;
	bool stop;
};

static int rx_skb_actor(void *ctx, const struct siw_mpa_rx_ev *ev)
{
	struct rx_skb_ctx *x = ctx;

	mpa_log_event(x->log, ev);
	return x->stop && ev->kind == SIW_MPA_EV_FPDU;
}

static void rx_skb_add_frag(struct sk_buff *skb, int i, const u8 *src,
			    u32 len, u32 off)
{
	struct page *page = alloc_page(GFP_KERNEL);

	if (!page)
		return;
	memcpy(page_address(page) + off, src, len);
	skb_fill_page_desc(skb, i, page, off, len);
	skb->len += len;
	skb->data_len += len;
	skb->truesize += PAGE_SIZE;
}

/* An skb holding junk then @r's stream as @c lays it out; NULL on -ENOMEM */
static struct sk_buff *rx_skb_build(const struct rx_skb_case *c,
				    const struct mpa_ref *r)
{
	u32 head = min_t(u32, c->head, r->len);
	struct sk_buff *skb, *tail;
	u32 at = head, n;
	int i;

	skb = alloc_skb(c->skip + head, GFP_KERNEL);
	if (!skb)
		return NULL;
	memset(skb_put(skb, c->skip), 0xa5, c->skip);
	skb_put_data(skb, r->buf, head);
	for (i = 0; i < SKB_FRAGS && c->frag[i] && at < r->len; i++) {
		n = min_t(u32, c->frag[i], PAGE_SIZE - c->frag_off[i]);
		n = min_t(u32, n, r->len - at);
		/* without a frag list the last fragment takes the rest */
		if (!c->frag_list && (i == SKB_FRAGS - 1 || !c->frag[i + 1]))
			n = min_t(u32, r->len - at,
				  PAGE_SIZE - c->frag_off[i]);
		rx_skb_add_frag(skb, i, r->buf + at, n, c->frag_off[i]);
		at += n;
	}
	if (at < r->len && c->frag_list) {
		tail = alloc_skb(r->len - at, GFP_KERNEL);
		if (!tail)
			goto out_free;
		skb_put_data(tail, r->buf + at, r->len - at);
		skb_shinfo(skb)->frag_list = tail;
		skb->len += tail->len;
		skb->data_len += tail->len;
		skb->truesize += tail->truesize;
		at = r->len;
	}
	if (skb->len == c->skip + r->len)
		return skb;
out_free:
	kfree_skb(skb);
	return NULL;
}

static void siw_mpa_rx_skb_frags(struct kunit *test)
{
	const struct rx_skb_case *c = test->param_value;
	struct mpa_ref *r = rx_ref(test, c->lens, c->n, c->markers, true,
				   0);
	struct mpa_rx_log *log = mpa_log_new(test, r->ulp_len);
	struct rx_skb_ctx ctx = { .log = log, .stop = c->stop };
	unsigned int used, more;
	struct siw_mpa_rx rx;
	struct sk_buff *skb;

	skb = rx_skb_build(c, r);
	KUNIT_ASSERT_NOT_NULL_MSG(test, skb, "cannot lay out the skb");

	mpa_rx_start(&rx, r);
	used = siw_mpa_rx_skb(&rx, skb, c->skip, r->len, rx_skb_actor, &ctx);
	if (c->stop) {
		KUNIT_EXPECT_EQ(test, used, r->fpdu[0].end);
		KUNIT_EXPECT_EQ(test, log->nfpdu, 1U);
		ctx.stop = false;
		more = siw_mpa_rx_skb(&rx, skb, c->skip + used, r->len - used,
				      rx_skb_actor, &ctx);
		used += more;
	}
	kfree_skb(skb);
	KUNIT_EXPECT_EQ(test, used, (unsigned int)r->len);
	mpa_log_expect(test, log, r, "skb");
	KUNIT_EXPECT_TRUE(test, siw_mpa_rx_idle(&rx));
}

/* Damage to each field, and streams that end early */
struct rx_err_case {
	const char *name;
	u32 lens[3];
	unsigned int n;
	bool crc;
	bool markers;
	u32 pos;
	unsigned int fpdu;	/* FPDU the octet is in */
	enum mpa_ref_kind kind;	/* the octet: field ... */
	u32 nth;		/* ... and index in it */
	u8 flip;		/* XOR into that octet; 0: cut the stream there */
	bool recrc;		/* fix the CRC afterwards */
	enum siw_mpa_err err;	/* expected, SIW_MPA_OK for none */
	unsigned int nfpdu;	/* good FPDUs reported */
	bool idle;		/* between FPDUs at the end */
};

static const struct rx_err_case rx_err_cases[] = {
	{ "first ulpdu octet", { 42 }, 1, true, true, 0, 0, MPA_K_DATA, 0,
	  0x01, false, SIW_MPA_ERR_CRC, 0, false },
	{ "last ulpdu octet", { 42 }, 1, true, true, 0, 0, MPA_K_DATA, 41,
	  0x80, false, SIW_MPA_ERR_CRC, 0, false },
	{ "ulpdu octet right after a marker", { 1100 }, 1, true, true, 4, 0,
	  MPA_K_DATA, 502, 0x10, false, SIW_MPA_ERR_CRC, 0, false },
	{ "pad octet", { 43 }, 1, true, false, 0, 0, MPA_K_PAD, 2, 0x04, false,
	  SIW_MPA_ERR_CRC, 0, false },
	{ "pad octet with crc fixed: ignored", { 43 }, 1, true, false, 0, 0,
	  MPA_K_PAD, 0, 0xff, true, SIW_MPA_OK, 1, true },
	{ "crc field", { 42 }, 1, true, true, 0, 0, MPA_K_CRC, 3, 0x10, false,
	  SIW_MPA_ERR_CRC, 0, false },
	{ "crc field, crc off: ignored", { 42 }, 1, false, true, 0, 0, MPA_K_CRC,
	  0, 0xff, false, SIW_MPA_OK, 1, true },
	{ "second crc field, crc off: ignored", { 42, 1 }, 2, false, false, 0, 1,
	  MPA_K_CRC, 2, 0x5a, false, SIW_MPA_OK, 2, true },
	{ "second fpdu's ulpdu", { 42, 42 }, 2, true, true, 0, 1, MPA_K_DATA, 0,
	  0x02, false, SIW_MPA_ERR_CRC, 1, false },
	{ "marker octet, crc not fixed", { 1100 }, 1, true, true, 4, 0,
	  MPA_K_MARKER, 1, 0x40, false, SIW_MPA_ERR_CRC, 0, false },
	{ "length shorter", { 42, 42 }, 2, true, true, 0, 0, MPA_K_HDR, 1, 0x08,
	  false, SIW_MPA_ERR_CRC, 0, false },
	{ "length runs past the stream", { 42 }, 1, true, true, 0, 0, MPA_K_HDR,
	  1, 0x40, false, SIW_MPA_OK, 0, false },
	{ "length 0xff2a runs past the stream", { 42 }, 1, true, false, 0, 0,
	  MPA_K_HDR, 0, 0xff, false, SIW_MPA_OK, 0, false },
	{ "cut inside the ulpdu", { 42, 42 }, 2, true, true, 0, 1, MPA_K_DATA,
	  10, 0, false, SIW_MPA_OK, 1, false },
	{ "cut inside the header", { 42, 42 }, 2, true, false, 0, 1, MPA_K_HDR,
	  1, 0, false, SIW_MPA_OK, 1, false },
	{ "cut inside the pad", { 43 }, 1, true, false, 0, 0, MPA_K_PAD, 2, 0,
	  false, SIW_MPA_OK, 0, false },
	{ "cut inside the crc", { 42 }, 1, true, true, 0, 0, MPA_K_CRC, 2, 0,
	  false, SIW_MPA_OK, 0, false },
	{ "cut inside a marker", { 1100 }, 1, true, true, 4, 0, MPA_K_MARKER, 2,
	  0, false, SIW_MPA_OK, 0, false },
	{ "cut at the end of an fpdu", { 42, 42 }, 2, true, true, 0, 1,
	  MPA_K_HDR, 0, 0, false, SIW_MPA_OK, 1, true },
};

MPA_CASE_DESC(rx_err_case)
KUNIT_ARRAY_PARAM(rx_err, rx_err_cases, rx_err_case_desc);

static void siw_mpa_rx_errors(struct kunit *test)
{
	const struct rx_err_case *c = test->param_value;
	struct mpa_ref *r = rx_ref(test, c->lens, c->n, c->markers,
				   c->crc, c->pos);
	struct mpa_rx_log *log = mpa_log_new(test, r->ulp_len + 65536);
	struct siw_mpa_rx rx;
	size_t len = r->len;
	size_t used;
	long at;

	at = mpa_ref_find(r, c->fpdu, c->kind, c->nth);
	KUNIT_ASSERT_GE_MSG(test, at, 0L, "no such octet in the stream");
	if (c->flip) {
		r->buf[at] ^= c->flip;
		if (c->recrc)
			mpa_ref_recrc(r, c->fpdu);
	} else {
		len = at;
	}

	mpa_rx_start(&rx, r);
	used = mpa_rx_feed(&rx, r->buf, len, log);
	/* a CRC error is seen on the last octet of the FPDU's CRC */
	if (c->err && c->kind != MPA_K_HDR && log->nfpdu < r->nfpdu)
		KUNIT_EXPECT_EQ(test, used, (size_t)r->fpdu[log->nfpdu].end);
	else if (!c->err)
		KUNIT_EXPECT_EQ(test, used, len);
	KUNIT_EXPECT_EQ(test, log->nfpdu, c->nfpdu);
	KUNIT_EXPECT_EQ(test, siw_mpa_rx_idle(&rx), c->idle);
	KUNIT_EXPECT_FALSE(test, log->bad);
	if (!c->err) {
		KUNIT_EXPECT_EQ(test, log->nerr, 0U);
		return;
	}
	KUNIT_EXPECT_EQ(test, log->nerr, 1U);
	KUNIT_EXPECT_EQ(test, log->err, c->err);
	/* placed before the check: data events came, no FPDU event */
	KUNIT_EXPECT_GT(test, log->nhdr, log->nfpdu);
	/* and the stream stays dead */
	mpa_log_reset(log);
	KUNIT_EXPECT_EQ(test, mpa_rx_feed(&rx, r->buf, r->len, log), 0UL);
	KUNIT_EXPECT_EQ(test, log->nerr, 1U);
	KUNIT_EXPECT_EQ(test, log->err, c->err);
	KUNIT_EXPECT_EQ(test, log->nhdr + log->ndata + log->nfpdu, 0U);
}

/* A CRC error carries both values for the trace */
static void siw_mpa_rx_crc_values(struct kunit *test)
{
	static const u32 lens[] = { 42 };
	struct mpa_ref *r = rx_ref(test, lens, 1, true, true, 0);
	struct siw_mpa_rx_ev ev;
	struct siw_mpa_rx rx;
	size_t off = 0;

	r->buf[r->fpdu[0].crc] ^= 0xff;
	mpa_rx_start(&rx, r);
	do {
		off += siw_mpa_rx_parse(&rx, r->buf + off, r->len - off, &ev);
	} while (ev.kind != SIW_MPA_EV_ERROR && off < r->len);
	KUNIT_ASSERT_EQ(test, ev.kind, SIW_MPA_EV_ERROR);
	KUNIT_EXPECT_EQ(test, ev.err, SIW_MPA_ERR_CRC);
	KUNIT_EXPECT_EQ(test, ev.crc_calc, r->fpdu[0].crc_val);
	KUNIT_EXPECT_EQ(test, ev.crc_rcvd, r->fpdu[0].crc_val ^ 0xff);
	KUNIT_EXPECT_EQ(test, ev.ulpdu_len, 42);
	KUNIT_EXPECT_EQ(test, rx.stage, SIW_MPA_RXS_FAILED);
}

/*
 * An skb walk against a parse loop over the same octets: without
 * markers siw_mpa_rx_skb() takes an FPDU it finds whole in one step, and
 * must hand its actor the same events, at the same parser states, as
 * siw_mpa_rx_parse() does field by field; also when the actor stops the
 * walk after any event, when the caller sums the ULPDU and when a CRC
 * fails.
 */
#define RX_SAME_EVENTS (3 * RX_LENS + 1)

struct rx_same_ev {
	struct siw_mpa_rx_ev ev;
	u32 sum;			/* CRC32c of the run, if any */
	struct siw_mpa_rx rx;		/* the parser as the actor saw it */
};

struct rx_same {
	struct rx_same_ev ev[RX_SAME_EVENTS];
	unsigned int n;
	unsigned int stop_at;		/* stop after this many; 0: never */
	const struct siw_mpa_rx *rx;
};

static int rx_same_actor(void *ctx, const struct siw_mpa_rx_ev *ev)
{
	struct rx_same *x = ctx;
	struct rx_same_ev *e;

	/* a caller that sums: every ULPDU octet, once, before parsing on */
	if (ev->crc)
		*ev->crc = siw_mpa_crc_update(*ev->crc, ev->data, ev->len);
	if (x->n < ARRAY_SIZE(x->ev)) {
		e = &x->ev[x->n];
		e->ev = *ev;
		e->ev.data = NULL;
		e->ev.crc = ev->crc ? (u32 *)1 : NULL;
		e->sum = ev->data ? siw_mpa_crc_update(SIW_MPA_CRC_SEED,
						       ev->data, ev->len) : 0;
		e->rx = *x->rx;
	}
	x->n++;
	return x->stop_at && x->n == x->stop_at;
}

/*
 * siw_mpa_rx_skb()'s loop with the parser alone, over @buf in the pieces
 * skb_seq_read() maps of an skb with @head octets in its linear part and
 * the rest in page fragments
 */
static size_t rx_same_parse(struct siw_mpa_rx *rx, const u8 *buf, size_t len,
			    size_t head, struct rx_same *x)
{
	size_t off = 0, end = min(head, len);
	struct siw_mpa_rx_ev ev;

	while (off < len) {
		if (off == end)
			end = min_t(size_t, len, end + PAGE_SIZE);
		off += siw_mpa_rx_parse(rx, buf + off, end - off, &ev);
		if (ev.kind == SIW_MPA_EV_MORE)
			continue;
		if (rx_same_actor(x, &ev) || ev.kind == SIW_MPA_EV_ERROR)
			break;
	}
	return off;
}

/* All of the parser's state but @field, which is scratch between fields */
static bool rx_same_state(const struct siw_mpa_rx *a,
			  const struct siw_mpa_rx *b)
{
	return a->pos == b->pos && a->start == b->start && a->crc == b->crc &&
	       a->off == b->off && a->ulpdu_len == b->ulpdu_len &&
	       a->stage == b->stage && a->got == b->got &&
	       a->mgot == b->mgot && a->pad == b->pad && a->err == b->err &&
	       a->mlead == b->mlead && a->caller_sums == b->caller_sums &&
	       !memcmp(a->mark, b->mark, sizeof(a->mark));
}

static bool rx_same_event(const struct rx_same_ev *a,
			  const struct rx_same_ev *b)
{
	return a->ev.kind == b->ev.kind && a->ev.len == b->ev.len &&
	       a->ev.off == b->ev.off && a->ev.fpdu_pos == b->ev.fpdu_pos &&
	       a->ev.crc_rcvd == b->ev.crc_rcvd &&
	       a->ev.crc_calc == b->ev.crc_calc &&
	       a->ev.ulpdu_len == b->ev.ulpdu_len && a->ev.err == b->ev.err &&
	       a->ev.crc == b->ev.crc && a->sum == b->sum &&
	       rx_same_state(&a->rx, &b->rx);
}

/*
 * An skb of @buf: @head octets in the linear part, the rest in page
 * fragments, a page each; NULL if it does not fit SKB_FRAGS of them
 */
static struct sk_buff *rx_same_skb(const u8 *buf, size_t len, size_t head)
{
	struct sk_buff *skb;
	size_t at = min(head, len);
	u32 n;
	int i;

	if (len - at > SKB_FRAGS * PAGE_SIZE)
		return NULL;
	skb = alloc_skb(at, GFP_KERNEL);
	if (!skb)
		return NULL;
	skb_put_data(skb, buf, at);
	for (i = 0; at < len; i++) {
		n = min_t(size_t, len - at, PAGE_SIZE);
		rx_skb_add_frag(skb, i, buf + at, n, 0);
		at += n;
	}
	if (skb->len == len)
		return skb;
	kfree_skb(skb);
	return NULL;
}

/* One walk each way over @buf; false (and a failure) if they differ */
static bool rx_same_walk(struct kunit *test, const struct mpa_ref *r,
			 const u8 *buf, size_t head, bool sums,
			 unsigned int stop_at, unsigned int *events)
{
	struct rx_same *a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	struct rx_same *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	struct siw_mpa_rx ra, rb;
	struct sk_buff *skb;
	size_t ua, ub;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	skb = rx_same_skb(buf, r->len, head);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	mpa_rx_start(&ra, r);
	mpa_rx_start(&rb, r);
	if (sums) {
		siw_mpa_rx_caller_sums(&ra);
		siw_mpa_rx_caller_sums(&rb);
	}
	a->stop_at = stop_at;
	b->stop_at = stop_at;
	a->rx = &ra;
	b->rx = &rb;
	ua = siw_mpa_rx_skb(&ra, skb, 0, r->len, rx_same_actor, a);
	ub = rx_same_parse(&rb, buf, r->len, head, b);
	kfree_skb(skb);
	*events = b->n;
	KUNIT_EXPECT_EQ_MSG(test, ua, ub, "octets taken, stop after %u, head %zu",
			    stop_at, head);
	KUNIT_EXPECT_EQ_MSG(test, a->n, b->n, "events, stop after %u",
			    stop_at);
	KUNIT_EXPECT_TRUE_MSG(test, rx_same_state(&ra, &rb),
			      "parser state at the end, stop after %u",
			      stop_at);
	for (i = 0; i < min_t(unsigned int, b->n, RX_SAME_EVENTS); i++) {
		if (rx_same_event(&a->ev[i], &b->ev[i]))
			continue;
		KUNIT_FAIL(test, "event %u (kind %d, skb %d) differs, stop %u, head %zu",
			   i, b->ev[i].ev.kind, a->ev[i].ev.kind, stop_at,
			   head);
		return false;
	}
	return ua == ub && a->n == b->n && rx_same_state(&ra, &rb);
}

static void siw_mpa_rx_skb_same(struct kunit *test)
{
	const struct rx_rt_case *c = test->param_value;
	struct mpa_ref *r = rx_ref(test, c->lens, c->n, c->markers, c->crc,
				   c->pos);
	u8 *bad = kunit_kmalloc(test, r->len, GFP_KERNEL);
	unsigned int sums, damage, stop, events, seen, h, nheads = 0;
	size_t heads[2 + 2 * RX_LENS];
	const u8 *buf;

	KUNIT_ASSERT_NOT_NULL(test, bad);
	memcpy(bad, r->buf, r->len);
	/* the last FPDU's CRC: an error event after the others */
	bad[r->fpdu[r->nfpdu - 1].crc] ^= 0x10;
	/*
	 * All linear; and page fragments from inside each FPDU's header
	 * and CRC on, so that FPDUs lie whole in a piece or not, and the
	 * walk changes between the two ways
	 */
	heads[nheads++] = r->len;
	heads[nheads++] = r->len / 2;
	for (h = 0; h < r->nfpdu && nheads + 2 <= ARRAY_SIZE(heads); h++) {
		heads[nheads++] = r->fpdu[h].hdr + 1;
		heads[nheads++] = r->fpdu[h].crc + 2;
	}
	for (h = 0; h < nheads; h++) {
		if (r->len - min(heads[h], r->len) > SKB_FRAGS * PAGE_SIZE)
			continue;
		for (damage = 0; damage <= c->crc; damage++) {
			buf = damage ? bad : r->buf;
			for (sums = 0; sums <= 1; sums++) {
				if (!rx_same_walk(test, r, buf, heads[h], sums,
						  0, &events))
					return;
				for (stop = 1; stop <= events; stop++)
					if (!rx_same_walk(test, r, buf,
							  heads[h], sums,
							  stop, &seen))
						return;
			}
		}
	}
}

struct rx_name_case {
	const char *name;
	enum siw_mpa_rx_stage stage;
	const char *want;
};

static const struct rx_name_case rx_name_cases[] = {
	{ "header", SIW_MPA_RXS_HDR, "header" },
	{ "ulpdu", SIW_MPA_RXS_DATA, "ulpdu" },
	{ "pad", SIW_MPA_RXS_PAD, "pad" },
	{ "crc", SIW_MPA_RXS_CRC, "crc" },
	{ "failed", SIW_MPA_RXS_FAILED, "failed" },
	{ "out of range", SIW_MPA_RX_NUM_STAGES, "unknown" },
};

MPA_CASE_DESC(rx_name_case)
KUNIT_ARRAY_PARAM(rx_name, rx_name_cases, rx_name_case_desc);

static void siw_mpa_rx_stage_names(struct kunit *test)
{
	const struct rx_name_case *c = test->param_value;

	KUNIT_EXPECT_STREQ(test, siw_mpa_rx_stage_name(c->stage), c->want);
}

static struct kunit_case siw_mpa_rx_cases[] = {
	KUNIT_CASE_PARAM(siw_mpa_rx_roundtrip, rx_rt_gen_params),
	KUNIT_CASE(siw_mpa_rx_in_place),
	KUNIT_CASE_PARAM(siw_mpa_rx_skb_frags, rx_skb_gen_params),
	KUNIT_CASE_PARAM(siw_mpa_rx_skb_same, rx_rt_gen_params),
	KUNIT_CASE_PARAM(siw_mpa_rx_errors, rx_err_gen_params),
	KUNIT_CASE(siw_mpa_rx_crc_values),
	KUNIT_CASE_PARAM(siw_mpa_rx_stage_names, rx_name_gen_params),
	{}
};

static struct kunit_suite siw_mpa_rx_suite = {
	.name = "siw_mpa_rx",
	.test_cases = siw_mpa_rx_cases,
};

kunit_test_suite(siw_mpa_rx_suite);
