// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite siw_mpa_fpdu: FPDU transmit framing.
 *
 * The RFC 5044 figures 5 and 6 are checked octet for octet; every other
 * FPDU against the reference model of siw_mpa_test.h, over ULPDU lengths
 * from 0 to 64768 with CRCs and markers on and off, starting at stream
 * offsets that put markers before the header, inside the ULPDU, after
 * the pad and after the CRC; without markers the flat framer
 * (siw_mpa_fpdu_flat()) too. Piece shapes, the MULPDU formulas of section
 * 4.5 and misuse of the interface have cases of their own.
 */
#include <kunit/test.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/slab.h>

#include "siw_mpa_test.h"

/* RFC 5044 figure 5, the first FPDU of a stream with markers */
static const u8 fig5[52] = {
	0x00, 0x00, 0x00, 0x00,		/* marker: reserved, FPDUPTR 0 */
	0x00, 0x2a,			/* ULPDU Length 42 */
	0x41, 0x43,			/* DDP control: Send, Last */
	0x00, 0x00, 0x00, 0x00,		/* reserved (no STag) */
	0x00, 0x00, 0x00, 0x00,		/* QN 0 */
	0x00, 0x00, 0x00, 0x01,		/* MSN 1 */
	0x00, 0x00, 0x00, 0x00,		/* MO 0 */
	[24 ... 47] = 0x00,		/* 24 octets of data */
	0x52, 0x23, 0x99, 0x83,		/* CRC32c */
};

/* RFC 5044 figure 6, stream octets 0x1ec to 0x21f */
static const u8 fig6[52] = {
	0x00, 0x2a,			/* ULPDU Length 42 */
	0x41, 0x43,			/* DDP control: Send, Last */
	0x00, 0x00, 0x00, 0x00,		/* reserved (no STag) */
	0x00, 0x00, 0x00, 0x00,		/* QN 0 */
	0x00, 0x00, 0x00, 0x02,		/* MSN 2 */
	0x00, 0x00, 0x00, 0x00,		/* MO 0 */
	0x00, 0x00, 0x00, 0x14,		/* marker at 0x200: FPDUPTR 20 */
	[24 ... 47] = 0x00,		/* 24 octets of data */
	0x84, 0x92, 0x58, 0x98,		/* CRC32c */
};

/* A DDP untagged Send header, QN 0, MO 0, Last set */
static void fig_send_hdr(u8 *ulpdu, u32 msn)
{
	memset(ulpdu, 0, 18);
	ulpdu[0] = 0x41;
	ulpdu[1] = 0x43;
	put_unaligned_be32(msn, ulpdu + 10);
}

static void siw_mpa_fpdu_rfc_figure5(struct kunit *test)
{
	struct siw_mpa_fpdu *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	struct siw_mpa_tx tx;
	u8 ulpdu[42] = { 0 };
	u8 out[64];
	ssize_t n;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, f);
	fig_send_hdr(ulpdu, 1);
	siw_mpa_tx_init(&tx, true, true);
	n = mpa_frame_pieces(f, &tx, ulpdu, sizeof(ulpdu), out, sizeof(out));
	KUNIT_ASSERT_EQ(test, n, (ssize_t)sizeof(fig5));
	MPA_EXPECT_BYTES(test, out, fig5, sizeof(fig5));
	KUNIT_EXPECT_EQ(test, tx.pos, 52U);
	KUNIT_EXPECT_EQ(test, f->nmarkers, 1);
}

static void siw_mpa_fpdu_rfc_figure6(struct kunit *test)
{
	struct siw_mpa_fpdu *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	u8 *ulpdu = kunit_kzalloc(test, 482, GFP_KERNEL);
	u8 *out = kunit_kzalloc(test, 1024, GFP_KERNEL);
	struct siw_mpa_tx tx;
	ssize_t n, m;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, f);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ulpdu);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, out);
	siw_mpa_tx_init(&tx, true, true);
	/* the first FPDU: 492 octets with its marker, so ULPDU 482 */
	fig_send_hdr(ulpdu, 1);
	n = siw_mpa_fpdu_build(f, &tx, ulpdu, 482, out, 1024);
	KUNIT_ASSERT_EQ(test, n, (ssize_t)0x1ec);
	fig_send_hdr(ulpdu, 2);
	m = mpa_frame_pieces(f, &tx, ulpdu, 42, out + n, 1024 - n);
	KUNIT_ASSERT_EQ(test, m, (ssize_t)sizeof(fig6));
	MPA_EXPECT_BYTES(test, out + 0x1ec, fig6, sizeof(fig6));
	KUNIT_EXPECT_EQ(test, tx.pos, 0x220U);
}

struct fpdu_ref_case {
	const char *name;
	u32 len;
	bool crc;
	bool markers;
	u32 pos;
};

static const struct fpdu_ref_case fpdu_ref_cases[] = {
	{ "len 0 crc markers at 0", 0, true, true, 0 },
	{ "len 1 crc markers at 0", 1, true, true, 0 },
	{ "len 2 crc markers at 0", 2, true, true, 0 },
	{ "len 3 crc markers at 0", 3, true, true, 0 },
	{ "len 4 crc markers at 0", 4, true, true, 0 },
	{ "len 5 crc markers at 0", 5, true, true, 0 },
	{ "len 17 crc markers at 0", 17, true, true, 0 },
	{ "len 18 crc markers at 0", 18, true, true, 0 },
	{ "len 42 crc markers at 0", 42, true, true, 0 },
	{ "len 0 plain", 0, false, false, 0 },
	{ "len 3 plain", 3, false, false, 0 },
	{ "len 42 plain", 42, false, false, 0 },
	{ "len 1442 plain", 1442, false, false, 0 },
	{ "len 42 crc only", 42, true, false, 0 },
	{ "len 1 plain: pad 1", 1, false, false, 0 },
	{ "len 1 crc only: pad 1", 1, true, false, 0 },
	{ "len 3 crc only: pad 3", 3, true, false, 0 },
	{ "len 0 crc only: pad 2", 0, true, false, 0 },
	{ "len 42 markers only", 42, false, true, 0 },
	{ "len 1454 crc only", 1454, true, false, 0 },
	{ "len 1454 markers only", 1454, false, true, 0 },
	{ "len 42 at 492 (figure 6 position)", 42, true, true, 492 },
	{ "len 506 at 4: marker before the crc", 506, true, true, 4 },
	{ "len 505 at 4: marker after the pad", 505, true, true, 4 },
	{ "len 502 at 4: fpdu ends on a marker", 502, true, true, 4 },
	{ "len 503 at 4: marker in the ulpdu tail", 503, true, true, 4 },
	{ "len 508 at 0: one marker period", 508, true, true, 0 },
	{ "len 1020 at 4: two periods", 1020, true, true, 4 },
	{ "len 1100 at 8: two markers inside", 1100, true, true, 8 },
	{ "len 1442 at 512: leading marker mid-stream", 1442, true, true, 512 },
	{ "len 1460 at 256", 1460, true, true, 256 },
	{ "len 2896 at 400: two mss", 2896, true, true, 400 },
	{ "len 4380 at 44: three mss", 4380, true, true, 44 },
	{ "len 4380 at 44: three mss, crc off", 4380, false, true, 44 },
	{ "len 8922 at 12: jumbo mulpdu", 8922, true, true, 12 },
	{ "len 9000 plain crc: jumbo", 9000, true, false, 0 },
	{ "len 16384 at 508", 16384, true, true, 508 },
	{ "len 64768 at 0: 128 markers", 64768, true, true, 0 },
	{ "len 64768 at 4: 127 markers", 64768, true, true, 4 },
	{ "len 64768 no markers", 64768, true, false, 0 },
	{ "len 600 at 0xffffff00: offset wraps", 600, true, true, 0xffffff00 },
	{ "len 3000 at 0xfffffe04: wraps between markers", 3000, true, true,
	  0xfffffe04 },
};

MPA_CASE_DESC(fpdu_ref_case)
KUNIT_ARRAY_PARAM(fpdu_ref, fpdu_ref_cases, fpdu_ref_case_desc);

static u32 count_markers(const struct mpa_ref *r)
{
	u32 i, n = 0;

	for (i = 0; i < r->len; i++)
		n += r->kind[i] == MPA_K_MARKER;
	return n / SIW_MPA_MARKER_LEN;
}

/* Framer output equals the reference, piece by piece and in one buffer */
static void siw_mpa_fpdu_vs_ref(struct kunit *test)
{
	const struct fpdu_ref_case *c = test->param_value;
	size_t size = c->len + 1024;
	struct siw_mpa_fpdu *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	struct mpa_ref *r = mpa_ref_new(test, size, c->pos, c->markers, c->crc);
	u8 *out = kunit_kzalloc(test, size, GFP_KERNEL);
	struct siw_mpa_tx tx;
	ssize_t n;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, f);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, out);
	KUNIT_ASSERT_EQ(test, mpa_ref_add(r, c->len, NULL, 0x5a), 0);

	siw_mpa_tx_init(&tx, c->markers, c->crc);
	tx.pos = c->pos;
	n = mpa_frame_pieces(f, &tx, r->ulp, c->len, out, size);
	KUNIT_ASSERT_EQ(test, n, (ssize_t)r->len);
	MPA_EXPECT_BYTES(test, out, r->buf, r->len);
	KUNIT_EXPECT_EQ(test, tx.pos, c->pos + (u32)r->len);
	KUNIT_EXPECT_EQ(test, (u32)f->nmarkers, count_markers(r));
	KUNIT_EXPECT_EQ(test, siw_mpa_fpdu_wire_len(c->pos, c->markers, c->len),
			(u32)r->len);
	if (c->markers)
		KUNIT_EXPECT_EQ(test, siw_mpa_fpdu_markers(c->pos, c->len),
				count_markers(r));
	if (!c->crc)
		KUNIT_EXPECT_EQ(test, get_unaligned_le32(out + r->len - 4), 0U);

	/* the copying variant frames the same octets */
	memset(out, 0xee, size);
	tx.pos = c->pos;
	n = siw_mpa_fpdu_build(f, &tx, r->ulp, c->len, out, size);
	KUNIT_ASSERT_EQ(test, n, (ssize_t)r->len);
	MPA_EXPECT_BYTES(test, out, r->buf, r->len);

	/*
	 * and so does the flat one, where it applies: its first run copied
	 * by the framer, the rest put in place by the caller and accounted
	 */
	if (c->markers)
		return;
	memset(out, 0xee, size);
	tx.pos = c->pos;
	KUNIT_ASSERT_EQ(test, siw_mpa_fpdu_flat(f, &tx, c->len, out), 0);
	siw_mpa_fpdu_data_copy(f, out + SIW_MPA_HDR_LEN, r->ulp, c->len / 3);
	memcpy(out + SIW_MPA_HDR_LEN + c->len / 3, r->ulp + c->len / 3,
	       c->len - c->len / 3);
	siw_mpa_fpdu_data(f, out + SIW_MPA_HDR_LEN + c->len / 3,
			  c->len - c->len / 3);
	KUNIT_EXPECT_EQ(test, tx.pos, c->pos);
	n = siw_mpa_fpdu_flat_end(f, out);
	KUNIT_ASSERT_EQ(test, n, (ssize_t)r->len);
	MPA_EXPECT_BYTES(test, out, r->buf, r->len);
	KUNIT_EXPECT_EQ(test, tx.pos, c->pos + (u32)r->len);
	KUNIT_EXPECT_EQ(test, out[r->len], 0xee);
}

/* The flat framer refuses markers, oversized ULPDUs and short feeding */
static void siw_mpa_fpdu_flat_misuse(struct kunit *test)
{
	struct siw_mpa_fpdu *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	u8 *buf = kunit_kzalloc(test, 256, GFP_KERNEL);
	struct siw_mpa_tx tx;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, f);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	siw_mpa_tx_init(&tx, true, true);
	KUNIT_EXPECT_EQ(test, siw_mpa_fpdu_flat(f, &tx, 42, buf), -EINVAL);
	siw_mpa_tx_init(&tx, false, true);
	KUNIT_EXPECT_EQ(test, siw_mpa_fpdu_flat(f, &tx, SIW_MPA_ULPDU_MAX + 1,
						buf), -EMSGSIZE);
	KUNIT_ASSERT_EQ(test, siw_mpa_fpdu_flat(f, &tx, 42, buf), 0);
	siw_mpa_fpdu_data_copy(f, buf + SIW_MPA_HDR_LEN, buf + 128, 41);
	KUNIT_EXPECT_EQ(test, siw_mpa_fpdu_flat_end(f, buf), -EPROTO);
	KUNIT_EXPECT_EQ(test, tx.pos, 0U);
	siw_mpa_fpdu_data_copy(f, buf + SIW_MPA_HDR_LEN + 41, buf + 169, 1);
	KUNIT_EXPECT_EQ(test, siw_mpa_fpdu_flat_end(f, buf), 48);
	KUNIT_EXPECT_EQ(test, tx.pos, 48U);
	/* ended: a second end is misuse */
	KUNIT_EXPECT_EQ(test, siw_mpa_fpdu_flat_end(f, buf), -EPROTO);
	KUNIT_EXPECT_EQ(test, tx.pos, 48U);
}

/* Exact pieces: who supplies which octets, cut where markers fall */
#define PIECES_MAX 8

struct fpdu_shape {
	u8 kind;	/* 'M' framing, 'U' ULPDU */
	u32 len;
	u32 off;	/* ULPDU offset for 'U' */
};

struct fpdu_shape_case {
	const char *name;
	u32 pos;
	u32 len;
	bool markers;
	struct fpdu_shape piece[PIECES_MAX];
};

static const struct fpdu_shape_case fpdu_shape_cases[] = {
	{ "plain len 42: header, ulpdu, crc", 0, 42, false,
	  { { 'M', 2 }, { 'U', 42, 0 }, { 'M', 4 } } },
	{ "plain len 43: pad and crc in one piece", 0, 43, false,
	  { { 'M', 2 }, { 'U', 43, 0 }, { 'M', 7 } } },
	{ "plain len 0: one framing piece", 0, 0, false,
	  { { 'M', 8 } } },
	{ "markers len 42 at 0: marker joins the header", 0, 42, true,
	  { { 'M', 6 }, { 'U', 42, 0 }, { 'M', 4 } } },
	{ "markers len 43 at 0", 0, 43, true,
	  { { 'M', 6 }, { 'U', 43, 0 }, { 'M', 7 } } },
	{ "markers len 0 at 0", 0, 0, true,
	  { { 'M', 12 } } },
	{ "markers len 42 at 492: figure 6 cut", 492, 42, true,
	  { { 'M', 2 }, { 'U', 18, 0 }, { 'M', 4 }, { 'U', 24, 18 },
	    { 'M', 4 } } },
	{ "markers len 506 at 4: marker and crc", 4, 506, true,
	  { { 'M', 2 }, { 'U', 506, 0 }, { 'M', 8 } } },
	{ "markers len 505 at 4: pad, marker, crc", 4, 505, true,
	  { { 'M', 2 }, { 'U', 505, 0 }, { 'M', 9 } } },
	{ "markers len 502 at 4: marker left for the next", 4, 502, true,
	  { { 'M', 2 }, { 'U', 502, 0 }, { 'M', 4 } } },
	{ "markers len 1 at 512: leading marker", 512, 1, true,
	  { { 'M', 6 }, { 'U', 1, 0 }, { 'M', 5 } } },
	{ "markers len 3 at 1024", 1024, 3, true,
	  { { 'M', 6 }, { 'U', 3, 0 }, { 'M', 7 } } },
	{ "markers len 1100 at 8: two markers", 8, 1100, true,
	  { { 'M', 2 }, { 'U', 502, 0 }, { 'M', 4 }, { 'U', 508, 502 },
	    { 'M', 4 }, { 'U', 90, 1010 }, { 'M', 6 } } },
};

MPA_CASE_DESC(fpdu_shape_case)
static const u8 shape_zeros[64];
KUNIT_ARRAY_PARAM(fpdu_shape, fpdu_shape_cases, fpdu_shape_case_desc);

static void siw_mpa_fpdu_shape(struct kunit *test)
{
	const struct fpdu_shape_case *c = test->param_value;
	struct siw_mpa_fpdu *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	const struct fpdu_shape *want;
	struct siw_mpa_tx tx;
	struct siw_mpa_piece p;
	unsigned int i;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, f);
	siw_mpa_tx_init(&tx, c->markers, true);
	tx.pos = c->pos;
	KUNIT_ASSERT_EQ(test, siw_mpa_fpdu_begin(f, &tx, c->len), 0);
	for (i = 0; i < PIECES_MAX; i++) {
		want = &c->piece[i];
		if (!want->kind)
			break;
		KUNIT_ASSERT_EQ_MSG(test, siw_mpa_fpdu_next(f, &p), 1,
				    "piece %u", i);
		KUNIT_EXPECT_EQ_MSG(test, p.len, want->len, "piece %u", i);
		if (want->kind == 'U') {
			KUNIT_EXPECT_EQ_MSG(test, p.kind, SIW_MPA_PIECE_ULPDU,
					    "piece %u", i);
			KUNIT_EXPECT_EQ_MSG(test, p.off, want->off,
					    "piece %u", i);
			/* CRC over zeros: the content is not the point */
			while (p.len) {
				u32 n = min_t(u32, p.len, sizeof(shape_zeros));

				siw_mpa_fpdu_data(f, shape_zeros, n);
				p.len -= n;
			}
		} else {
			KUNIT_EXPECT_EQ_MSG(test, p.kind, SIW_MPA_PIECE_MPA,
					    "piece %u", i);
			KUNIT_EXPECT_NOT_NULL(test, p.buf);
		}
	}
	KUNIT_EXPECT_EQ(test, siw_mpa_fpdu_next(f, &p), 0);
	KUNIT_EXPECT_EQ(test, siw_mpa_fpdu_next(f, &p), 0);
}

/* Framing pieces stay valid until the FPDU state is begun again */
static void siw_mpa_fpdu_pieces_stable(struct kunit *test)
{
	struct siw_mpa_fpdu *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	struct siw_mpa_piece p[PIECES_MAX];
	u8 *ulpdu = kunit_kzalloc(test, 1100, GFP_KERNEL);
	u8 *out = kunit_kzalloc(test, 1200, GFP_KERNEL);
	struct mpa_ref *r = mpa_ref_new(test, 1200, 8, true, true);
	struct siw_mpa_tx tx;
	unsigned int i, n = 0;
	size_t done = 0;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, f);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ulpdu);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, out);
	KUNIT_ASSERT_EQ(test, mpa_ref_add(r, 1100, NULL, 3), 0);
	memcpy(ulpdu, r->ulp, 1100);
	siw_mpa_tx_init(&tx, true, true);
	tx.pos = 8;
	KUNIT_ASSERT_EQ(test, siw_mpa_fpdu_begin(f, &tx, 1100), 0);
	/* collect every piece first, as a caller building one iovec would */
	while (n < PIECES_MAX && siw_mpa_fpdu_next(f, &p[n]) > 0) {
		if (p[n].kind == SIW_MPA_PIECE_ULPDU)
			siw_mpa_fpdu_data(f, ulpdu + p[n].off, p[n].len);
		n++;
	}
	KUNIT_ASSERT_EQ(test, n, 7U);
	for (i = 0; i < n; i++) {
		memcpy(out + done, p[i].kind == SIW_MPA_PIECE_MPA ? p[i].buf :
		       ulpdu + p[i].off, p[i].len);
		done += p[i].len;
	}
	KUNIT_ASSERT_EQ(test, done, r->len);
	MPA_EXPECT_BYTES(test, out, r->buf, r->len);
}

struct fpdu_misuse_case {
	const char *name;
	u32 len;
	u32 feed;	/* ULPDU octets fed back of the first piece */
	size_t room;	/* for siw_mpa_fpdu_build(), 0: not used */
	int want;
};

static const struct fpdu_misuse_case fpdu_misuse_cases[] = {
	{ "next before feeding the ulpdu", 100, 0, 0, -EPROTO },
	{ "next after feeding part of it", 100, 99, 0, -EPROTO },
	{ "next after feeding too much", 100, 101, 0, -EPROTO },
	{ "ulpdu above 64768", 64769, 0, 0, -EMSGSIZE },
	{ "ulpdu 65535", 65535, 0, 0, -EMSGSIZE },
	{ "build into a buffer one short", 42, 0, 51, -ENOSPC },
	{ "build into an empty buffer", 0, 0, 1, -ENOSPC },
};

MPA_CASE_DESC(fpdu_misuse_case)
KUNIT_ARRAY_PARAM(fpdu_misuse, fpdu_misuse_cases, fpdu_misuse_case_desc);

static void siw_mpa_fpdu_misuse(struct kunit *test)
{
	const struct fpdu_misuse_case *c = test->param_value;
	struct siw_mpa_fpdu *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	u8 *buf = kunit_kzalloc(test, 256, GFP_KERNEL);
	struct siw_mpa_tx tx;
	struct siw_mpa_piece p;
	int rv;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, f);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	siw_mpa_tx_init(&tx, true, true);
	if (c->room) {
		KUNIT_EXPECT_EQ(test, siw_mpa_fpdu_build(f, &tx, buf, c->len,
							 buf + 128, c->room),
				(ssize_t)c->want);
		KUNIT_EXPECT_EQ(test, tx.pos, 0U);
		return;
	}
	rv = siw_mpa_fpdu_begin(f, &tx, c->len);
	if (rv) {
		KUNIT_EXPECT_EQ(test, rv, c->want);
		KUNIT_EXPECT_EQ(test, tx.pos, 0U);
		return;
	}
	KUNIT_ASSERT_EQ(test, siw_mpa_fpdu_next(f, &p), 1);	/* header */
	KUNIT_ASSERT_EQ(test, siw_mpa_fpdu_next(f, &p), 1);	/* ulpdu */
	KUNIT_ASSERT_EQ(test, p.kind, SIW_MPA_PIECE_ULPDU);
	siw_mpa_fpdu_data(f, buf, c->feed);
	KUNIT_EXPECT_EQ(test, siw_mpa_fpdu_next(f, &p), c->want);
}

struct mulpdu_case {
	const char *name;
	u32 emss;
	u32 with_markers;
	u32 without;
};

/* RFC 5044 section 4.5, worked by hand; 128 and 64768 bound it */
static const struct mulpdu_case mulpdu_cases[] = {
	{ "emss 1460", 1460, 1442, 1454 },
	{ "emss 1448 (timestamps)", 1448, 1430, 1442 },
	{ "emss 1461 (mod 4 is 1)", 1461, 1442, 1454 },
	{ "emss 1500", 1500, 1482, 1494 },
	{ "emss 9000", 9000, 8922, 8994 },
	{ "emss 536", 536, 522, 530 },
	{ "emss 512", 512, 502, 506 },
	{ "emss 140", 140, 130, 134 },
	{ "emss 138: markers hit the floor", 138, 128, 130 },
	{ "emss 100: floor of 128", 100, 128, 128 },
	{ "emss 0", 0, 128, 128 },
	{ "emss 65535: ceiling of 64768", 65535, 64768, 64768 },
};

MPA_CASE_DESC(mulpdu_case)
KUNIT_ARRAY_PARAM(mulpdu, mulpdu_cases, mulpdu_case_desc);

static void siw_mpa_fpdu_mulpdu(struct kunit *test)
{
	const struct mulpdu_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, siw_mpa_mulpdu(c->emss, true), c->with_markers);
	KUNIT_EXPECT_EQ(test, siw_mpa_mulpdu(c->emss, false), c->without);
}

/* An FPDU of the MULPDU fits the EMSS wherever it starts */
static void siw_mpa_fpdu_mulpdu_fits(struct kunit *test)
{
	static const u32 emss[] = { 536, 1448, 1460, 1461, 9000 };
	unsigned int i;
	u32 pos, m;

	for (i = 0; i < ARRAY_SIZE(emss); i++) {
		m = siw_mpa_mulpdu(emss[i], true);
		for (pos = 0; pos < 512; pos += 4)
			KUNIT_EXPECT_LE_MSG(test,
					    siw_mpa_fpdu_wire_len(pos, true, m),
					    emss[i], "emss %u at %u",
					    emss[i], pos);
		m = siw_mpa_mulpdu(emss[i], false);
		KUNIT_EXPECT_LE(test, siw_mpa_fpdu_wire_len(0, false, m),
				emss[i]);
	}
}

static struct kunit_case siw_mpa_fpdu_cases[] = {
	KUNIT_CASE(siw_mpa_fpdu_rfc_figure5),
	KUNIT_CASE(siw_mpa_fpdu_rfc_figure6),
	KUNIT_CASE_PARAM(siw_mpa_fpdu_vs_ref, fpdu_ref_gen_params),
	KUNIT_CASE_PARAM(siw_mpa_fpdu_shape, fpdu_shape_gen_params),
	KUNIT_CASE(siw_mpa_fpdu_pieces_stable),
	KUNIT_CASE_PARAM(siw_mpa_fpdu_misuse, fpdu_misuse_gen_params),
	KUNIT_CASE(siw_mpa_fpdu_flat_misuse),
	KUNIT_CASE_PARAM(siw_mpa_fpdu_mulpdu, mulpdu_gen_params),
	KUNIT_CASE(siw_mpa_fpdu_mulpdu_fits),
	{}
};

static struct kunit_suite siw_mpa_fpdu_suite = {
	.name = "siw_mpa_fpdu",
	.test_cases = siw_mpa_fpdu_cases,
};

kunit_test_suite(siw_mpa_fpdu_suite);
