// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite siw_mpa_markers: markers (RFC 5044 section 4.3).
 *
 * A marker every 512 octets of stream counted from the start of MPA
 * mode; FPDUPTR 0 right before an FPDU header, else the distance back to
 * the header of the FPDU the marker is in; in the CRC of that FPDU;
 * removed and checked on receive, where a wrong FPDUPTR is MPA error 3
 * and the two reserved low bits and the reserved half are ignored.
 *
 * The phase cases start a stream at each of the 128 offsets into the
 * 512-octet cycle an FPDU can start at, once low and once just before
 * the 32-bit stream offset wraps.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/slab.h>

#include "siw_mpa_test.h"

struct geom_case {
	const char *name;
	u32 pos;
	u32 len;
	u32 dist;
	u32 markers;
	u32 wire_len;
};

static const struct geom_case geom_cases[] = {
	{ "at 0, len 42 (figure 5)", 0, 42, 0, 1, 52 },
	{ "at 492, len 42 (figure 6)", 492, 42, 20, 1, 52 },
	{ "at 4, len 502: ends on a marker", 4, 502, 508, 0, 508 },
	{ "at 4, len 506: marker before the crc", 4, 506, 508, 1, 516 },
	{ "at 4, len 505: marker after the pad", 4, 505, 508, 1, 516 },
	{ "at 8, len 1100: two markers", 8, 1100, 504, 2, 1116 },
	{ "at 16, len 488: fills the period", 16, 488, 496, 0, 496 },
	{ "at 512, len 0: leading marker", 512, 0, 0, 1, 12 },
	{ "at 0, len 64768: 128 markers", 0, 64768, 0, 128, 65288 },
	{ "at 4, len 64768: 127 markers", 4, 64768, 508, 127, 65284 },
	{ "at 508, len 64768: 128 markers", 508, 64768, 4, 128, 65288 },
	{ "at 0xffffffff: one octet to go", 0xffffffff, 0, 1, 1, 12 },
	{ "at 0xfffffe00: marker due", 0xfffffe00, 0, 0, 1, 12 },
	{ "at 0xffffff00, len 600: wraps", 0xffffff00, 600, 256, 1, 612 },
};

MPA_CASE_DESC(geom_case)
KUNIT_ARRAY_PARAM(geom, geom_cases, geom_case_desc);

static void siw_mpa_markers_geometry(struct kunit *test)
{
	const struct geom_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, siw_mpa_marker_dist(c->pos), c->dist);
	KUNIT_EXPECT_EQ(test, siw_mpa_fpdu_markers(c->pos, c->len), c->markers);
	KUNIT_EXPECT_EQ(test, siw_mpa_fpdu_wire_len(c->pos, true, c->len),
			c->wire_len);
	KUNIT_EXPECT_EQ(test, siw_mpa_fpdu_wire_len(c->pos, false, c->len),
			c->wire_len - 4 * c->markers);
}

/* FPDUPTR values of the markers the framer inserts */
#define PTR_MAX 3

struct ptr_case {
	const char *name;
	u32 pos;
	u32 len;
	u32 count;
	struct {
		u32 at;		/* stream offset relative to @pos */
		u16 ptr;
	} m[PTR_MAX];
	u32 last_at;
	u16 last_ptr;
};

static const struct ptr_case ptr_cases[] = {
	{ "figure 6: marker 20 octets in", 492, 42, 1, { { 20, 20 } },
	  20, 20 },
	{ "from 4, len 1100: two markers", 4, 1100, 2,
	  { { 508, 508 }, { 1020, 1020 } }, 1020, 1020 },
	{ "from 512, len 1100: leading marker then two", 512, 1100, 3,
	  { { 0, 0 }, { 512, 508 }, { 1024, 1020 } }, 1024, 1020 },
	{ "from 4, len 506: marker before the crc", 4, 506, 1,
	  { { 508, 508 } }, 508, 508 },
	{ "from 4, len 502: the marker after the crc is not its", 4, 502, 0,
	  { }, 0, 0 },
	{ "from 0xffffff00: marker at the wrap", 0xffffff00, 600, 1,
	  { { 256, 256 } }, 256, 256 },
	{ "from 0, len 64768: 128 markers", 0, 64768, 128,
	  { { 0, 0 }, { 512, 508 }, { 1024, 1020 } }, 65024, 65020 },
	{ "from 4, len 64768: 127 markers", 4, 64768, 127,
	  { { 508, 508 }, { 1020, 1020 }, { 1532, 1532 } }, 65020, 65020 },
};

MPA_CASE_DESC(ptr_case)
KUNIT_ARRAY_PARAM(ptr, ptr_cases, ptr_case_desc);

static void siw_mpa_markers_fpduptr(struct kunit *test)
{
	const struct ptr_case *c = test->param_value;
	size_t size = c->len + 1024;
	struct siw_mpa_fpdu *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	u8 *ulpdu = kunit_kzalloc(test, size, GFP_KERNEL);
	u8 *out = kunit_kzalloc(test, size, GFP_KERNEL);
	struct siw_mpa_tx tx;
	u32 i, n = 0, at = 0;
	u16 ptr = 0;
	ssize_t len;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, f);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ulpdu);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, out);
	siw_mpa_tx_init(&tx, true, true);
	tx.pos = c->pos;
	len = siw_mpa_fpdu_build(f, &tx, ulpdu, c->len, out, size);
	KUNIT_ASSERT_GT(test, len, 0L);

	for (i = 0; i < len; i++) {
		if ((c->pos + i) % 512)
			continue;
		at = i;
		ptr = get_unaligned_be16(out + i + 2);
		KUNIT_EXPECT_EQ_MSG(test, get_unaligned_be16(out + i), 0,
				    "reserved half of marker %u", n);
		if (n < PTR_MAX && n < c->count) {
			KUNIT_EXPECT_EQ_MSG(test, at, c->m[n].at, "marker %u", n);
			KUNIT_EXPECT_EQ_MSG(test, ptr, c->m[n].ptr, "marker %u",
					    n);
		}
		n++;
	}
	KUNIT_EXPECT_EQ(test, n, c->count);
	if (n) {
		KUNIT_EXPECT_EQ(test, at, c->last_at);
		KUNIT_EXPECT_EQ(test, ptr, c->last_ptr);
	}
}

/* Every phase of the marker cycle, both directions, and bad markers */
struct phase_case {
	u32 phase;
};

static const struct phase_case phase_cases[] = {
	{ 0 }, { 4 }, { 8 }, { 12 }, { 16 }, { 20 }, { 24 }, { 28 },
	{ 32 }, { 36 }, { 40 }, { 44 }, { 48 }, { 52 }, { 56 }, { 60 },
	{ 64 }, { 68 }, { 72 }, { 76 }, { 80 }, { 84 }, { 88 }, { 92 },
	{ 96 }, { 100 }, { 104 }, { 108 }, { 112 }, { 116 }, { 120 }, { 124 },
	{ 128 }, { 132 }, { 136 }, { 140 }, { 144 }, { 148 }, { 152 }, { 156 },
	{ 160 }, { 164 }, { 168 }, { 172 }, { 176 }, { 180 }, { 184 }, { 188 },
	{ 192 }, { 196 }, { 200 }, { 204 }, { 208 }, { 212 }, { 216 }, { 220 },
	{ 224 }, { 228 }, { 232 }, { 236 }, { 240 }, { 244 }, { 248 }, { 252 },
	{ 256 }, { 260 }, { 264 }, { 268 }, { 272 }, { 276 }, { 280 }, { 284 },
	{ 288 }, { 292 }, { 296 }, { 300 }, { 304 }, { 308 }, { 312 }, { 316 },
	{ 320 }, { 324 }, { 328 }, { 332 }, { 336 }, { 340 }, { 344 }, { 348 },
	{ 352 }, { 356 }, { 360 }, { 364 }, { 368 }, { 372 }, { 376 }, { 380 },
	{ 384 }, { 388 }, { 392 }, { 396 }, { 400 }, { 404 }, { 408 }, { 412 },
	{ 416 }, { 420 }, { 424 }, { 428 }, { 432 }, { 436 }, { 440 }, { 444 },
	{ 448 }, { 452 }, { 456 }, { 460 }, { 464 }, { 468 }, { 472 }, { 476 },
	{ 480 }, { 484 }, { 488 }, { 492 }, { 496 }, { 500 }, { 504 }, { 508 },
};

static_assert(ARRAY_SIZE(phase_cases) == SIW_MPA_MARKER_PERIOD / 4);

static void phase_case_desc(const struct phase_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE,
		 c->phase ? "fpdu starts %u octets into the cycle" :
		 "fpdu starts on a marker (%u)", c->phase);
}

KUNIT_ARRAY_PARAM(phase, phase_cases, phase_case_desc);

static const u32 phase_lens[] = { 1100, 0, 37, 509 };

/* Parse @buf, expect an error @err after @nfpdu good FPDUs, or none */
static void phase_expect(struct kunit *test, const struct mpa_ref *r,
			 const u8 *buf, enum siw_mpa_err err,
			 unsigned int nfpdu, const char *what, u32 at)
{
	struct mpa_rx_log *log = mpa_log_new(test, r->ulp_len);
	struct siw_mpa_rx rx;

	mpa_rx_start(&rx, r);
	mpa_rx_feed(&rx, buf, r->len, log);
	if (err == SIW_MPA_OK) {
		KUNIT_EXPECT_EQ_MSG(test, log->nerr, 0U, "%s at %u", what, at);
		KUNIT_EXPECT_EQ_MSG(test, log->nfpdu, r->nfpdu, "%s at %u",
				    what, at);
		return;
	}
	KUNIT_EXPECT_EQ_MSG(test, log->nerr, 1U, "%s at %u", what, at);
	KUNIT_EXPECT_EQ_MSG(test, log->err, err, "%s at %u", what, at);
	KUNIT_EXPECT_EQ_MSG(test, log->nfpdu, nfpdu, "%s at %u", what, at);
	KUNIT_EXPECT_FALSE(test, log->bad);
}

static unsigned int fpdu_of(const struct mpa_ref *r, u32 idx)
{
	unsigned int i;

	for (i = 0; i < r->nfpdu; i++)
		if (idx >= r->fpdu[i].first && idx < r->fpdu[i].end)
			return i;
	return r->nfpdu;
}

static void phase_run(struct kunit *test, u32 pos0)
{
	struct siw_mpa_fpdu *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	struct mpa_ref *r = mpa_ref_new(test, 2048, pos0, true, true);
	struct mpa_ref *bad = mpa_ref_new(test, 2048, pos0, true, true);
	u8 *out = kunit_kzalloc(test, 2048, GFP_KERNEL);
	struct mpa_rx_log *log;
	struct siw_mpa_tx tx;
	struct siw_mpa_rx rx;
	unsigned int i, fi;
	size_t done = 0;
	ssize_t n;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, f);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, out);
	for (i = 0; i < ARRAY_SIZE(phase_lens); i++)
		KUNIT_ASSERT_GE(test, mpa_ref_add(r, phase_lens[i], NULL, i), 0);

	/* transmit: the framer writes the reference stream */
	siw_mpa_tx_init(&tx, true, true);
	tx.pos = pos0;
	for (i = 0; i < r->nfpdu; i++) {
		n = mpa_frame_pieces(f, &tx, r->ulp + r->fpdu[i].ulp,
				     r->fpdu[i].ulpdu_len, out + done,
				     2048 - done);
		KUNIT_ASSERT_GT(test, n, 0L);
		done += n;
	}
	KUNIT_ASSERT_EQ(test, done, r->len);
	MPA_EXPECT_BYTES(test, out, r->buf, r->len);

	/* receive: markers go, ULPDUs come out whole */
	log = mpa_log_new(test, r->ulp_len);
	mpa_rx_start(&rx, r);
	KUNIT_EXPECT_EQ(test, mpa_rx_feed(&rx, r->buf, r->len, log), r->len);
	if (!mpa_log_matches(log, r))
		mpa_log_expect(test, log, r, "whole stream");
	KUNIT_EXPECT_TRUE(test, siw_mpa_rx_idle(&rx));

	/* each marker: a wrong FPDUPTR fails, reserved bits do not */
	for (i = 0; i < r->len; i += 4) {
		if (r->kind[i] != MPA_K_MARKER)
			continue;
		fi = fpdu_of(r, i);
		KUNIT_ASSERT_LT(test, fi, r->nfpdu);
		mpa_ref_copy(bad, r);
		put_unaligned_be16(get_unaligned_be16(r->buf + i + 2) + 4,
				   bad->buf + i + 2);
		mpa_ref_recrc(bad, fi);
		phase_expect(test, r, bad->buf, SIW_MPA_ERR_MARKER, fi,
			     "FPDUPTR + 4", i);

		mpa_ref_copy(bad, r);
		put_unaligned_be16(0xffff, bad->buf + i);
		bad->buf[i + 3] |= SIW_MPA_FPDUPTR_RSVD;
		mpa_ref_recrc(bad, fi);
		phase_expect(test, r, bad->buf, SIW_MPA_OK, 0,
			     "reserved bits set", i);
	}
}

static void siw_mpa_markers_phase(struct kunit *test)
{
	const struct phase_case *c = test->param_value;

	phase_run(test, c->phase);
	phase_run(test, 0xfffffc00 + c->phase);
}

/* Mutations of a marker in a reference stream */
#define MUT_SET_PTR	BIT(0)	/* FPDUPTR := @ptr */
#define MUT_SET_RSVD	BIT(1)	/* reserved half := @rsvd */
#define MUT_OR_PTR	BIT(2)	/* FPDUPTR |= @ptr */
#define MUT_NO_RECRC	BIT(3)	/* leave the CRC as it was */

struct bad_case {
	const char *name;
	u32 pos;
	u32 lens[3];
	bool crc;
	unsigned int marker;	/* which marker of the stream, from 0 */
	u16 ptr;
	u16 rsvd;
	u8 mut;
	enum siw_mpa_err err;
	unsigned int nfpdu;	/* good FPDUs before the error */
};

static const struct bad_case bad_cases[] = {
	{ "leading marker says 4", 0, { 42 }, true, 0, 4, 0, MUT_SET_PTR,
	  SIW_MPA_ERR_MARKER, 0 },
	{ "leading marker says 0xfffc", 0, { 42 }, true, 0, 0xfffc, 0,
	  MUT_SET_PTR, SIW_MPA_ERR_MARKER, 0 },
	{ "inner marker 4 too far", 4, { 1100 }, true, 0, 512, 0,
	  MUT_SET_PTR, SIW_MPA_ERR_MARKER, 0 },
	{ "inner marker 4 too short", 4, { 1100 }, true, 0, 504, 0,
	  MUT_SET_PTR, SIW_MPA_ERR_MARKER, 0 },
	{ "inner marker says 0", 4, { 1100 }, true, 0, 0, 0, MUT_SET_PTR,
	  SIW_MPA_ERR_MARKER, 0 },
	{ "second inner marker wrong", 4, { 1100 }, true, 1, 1016, 0,
	  MUT_SET_PTR, SIW_MPA_ERR_MARKER, 0 },
	{ "points at the previous fpdu", 0, { 100, 1000 }, true, 1, 508, 0,
	  MUT_SET_PTR, SIW_MPA_ERR_MARKER, 1 },
	{ "marker before the crc wrong", 4, { 506 }, true, 0, 500, 0,
	  MUT_SET_PTR, SIW_MPA_ERR_MARKER, 0 },
	{ "between fpdus claims the previous", 4, { 502, 10 }, true, 0, 508,
	  0, MUT_SET_PTR, SIW_MPA_ERR_MARKER, 1 },
	{ "wrong at the wrap of the offset", 0xffffff00, { 600 }, true, 0,
	  260, 0, MUT_SET_PTR, SIW_MPA_ERR_MARKER, 0 },
	{ "wrong, crc not fixed: marker error first", 4, { 1100 }, true, 0,
	  512, 0, MUT_SET_PTR | MUT_NO_RECRC, SIW_MPA_ERR_MARKER, 0 },
	{ "wrong with crc off", 4, { 1100 }, false, 0, 512, 0, MUT_SET_PTR,
	  SIW_MPA_ERR_MARKER, 0 },
	{ "reserved low bits set: ignored", 4, { 1100, 7 }, true, 0, 3, 0,
	  MUT_OR_PTR, SIW_MPA_OK, 0 },
	{ "leading marker low bits set: ignored", 0, { 42 }, true, 0, 3, 0,
	  MUT_OR_PTR, SIW_MPA_OK, 0 },
	{ "reserved half 0xffff: ignored", 4, { 1100 }, true, 1, 0, 0xffff,
	  MUT_SET_RSVD, SIW_MPA_OK, 0 },
	{ "reserved half, leading marker: ignored", 0, { 5, 5 }, true, 0, 0,
	  0x8001, MUT_SET_RSVD, SIW_MPA_OK, 0 },
	{ "reserved bits, crc not fixed: crc error", 4, { 1100 }, true, 0,
	  0, 0x0100, MUT_SET_RSVD | MUT_NO_RECRC, SIW_MPA_ERR_CRC, 0 },
};

MPA_CASE_DESC(bad_case)
KUNIT_ARRAY_PARAM(bad, bad_cases, bad_case_desc);

static void siw_mpa_markers_rx_bad(struct kunit *test)
{
	const struct bad_case *c = test->param_value;
	struct mpa_ref *r = mpa_ref_new(test, 4096, c->pos, true, c->crc);
	struct mpa_rx_log *log;
	struct siw_mpa_rx rx;
	unsigned int i, k = 0;
	long at = -1;
	u8 *m;

	for (i = 0; i < ARRAY_SIZE(c->lens) && c->lens[i]; i++)
		KUNIT_ASSERT_GE(test, mpa_ref_add(r, c->lens[i], NULL, i), 0);
	for (i = 0; i < r->len; i += 4) {
		if (r->kind[i] == MPA_K_MARKER && k++ == c->marker) {
			at = i;
			break;
		}
	}
	KUNIT_ASSERT_GE_MSG(test, at, 0L, "the stream has no marker %u",
			    c->marker);
	m = r->buf + at;
	if (c->mut & MUT_SET_PTR)
		put_unaligned_be16(c->ptr, m + 2);
	if (c->mut & MUT_OR_PTR)
		put_unaligned_be16(get_unaligned_be16(m + 2) | c->ptr, m + 2);
	if (c->mut & MUT_SET_RSVD)
		put_unaligned_be16(c->rsvd, m);
	if (!(c->mut & MUT_NO_RECRC))
		mpa_ref_recrc(r, fpdu_of(r, at));

	log = mpa_log_new(test, r->ulp_len);
	mpa_rx_start(&rx, r);
	mpa_rx_feed(&rx, r->buf, r->len, log);
	if (c->err == SIW_MPA_OK) {
		mpa_log_expect(test, log, r, "whole stream");
		return;
	}
	KUNIT_EXPECT_EQ(test, log->nerr, 1U);
	KUNIT_EXPECT_EQ(test, log->err, c->err);
	KUNIT_EXPECT_EQ(test, log->nfpdu, c->nfpdu);
	/* an error sticks: nothing more is parsed or passed on */
	mpa_log_reset(log);
	KUNIT_EXPECT_EQ(test, mpa_rx_feed(&rx, r->buf, r->len, log), 0UL);
	KUNIT_EXPECT_EQ(test, log->nerr, 1U);
	KUNIT_EXPECT_EQ(test, log->ndata + log->nfpdu + log->nhdr, 0U);
}

static struct kunit_case siw_mpa_markers_cases[] = {
	KUNIT_CASE_PARAM(siw_mpa_markers_geometry, geom_gen_params),
	KUNIT_CASE_PARAM(siw_mpa_markers_fpduptr, ptr_gen_params),
	KUNIT_CASE_PARAM(siw_mpa_markers_phase, phase_gen_params),
	KUNIT_CASE_PARAM(siw_mpa_markers_rx_bad, bad_gen_params),
	{}
};

static struct kunit_suite siw_mpa_markers_suite = {
	.name = "siw_mpa_markers",
	.test_cases = siw_mpa_markers_cases,
};

kunit_test_suite(siw_mpa_markers_suite);
