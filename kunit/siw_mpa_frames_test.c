// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite siw_mpa_frames: MPA Request, Reply and Reject frames.
 *
 * The expected octets are written from RFC 5044 figure 8 and RFC 6581
 * sections 6 and 9: the keys as the RFCs list them in hex, then
 * |M|C|R|S|Res| as the top bits of octet 16, Rev in octet 17, PD_Length
 * in network order, and with S the enhanced data |A|B| IRD |C|D| ORD|.
 * Malformed frames cover every check of the decoder; reserved bits,
 * R in a request, S in rev 1 and B/C/D without A must be ignored.
 */
#include <kunit/test.h>
#include <linux/errno.h>
#include <linux/kernel.h>

#include "siw_mpa_test.h"

/* "MPA ID Req Frame" and "MPA ID Rep Frame", from the RFC's hex */
static const u8 key_req[16] = {
	0x4d, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52,
	0x65, 0x71, 0x20, 0x46, 0x72, 0x61, 0x6d, 0x65,
};

static const u8 key_rep[16] = {
	0x4d, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52,
	0x65, 0x70, 0x20, 0x46, 0x72, 0x61, 0x6d, 0x65,
};

#define W	SIW_MPA_RTR_F(SIW_MPA_RTR_WRITE)
#define R	SIW_MPA_RTR_F(SIW_MPA_RTR_READ)
#define S	SIW_MPA_RTR_F(SIW_MPA_RTR_SEND)
#define ULP	SIW_MPA_IRD_ORD_ULP

static u8 fr_pd[SIW_MPA_PD_MAX];

static void fr_pd_fill(void)
{
	unsigned int i;

	for (i = 0; i < sizeof(fr_pd); i++)
		fr_pd[i] = mpa_pat(i, 0x33);
}

struct fr_vec_case {
	const char *name;
	struct siw_mpa_frame f;		/* @pd is set to fr_pd */
	u8 ctl[8];	/* octets 16 on: flags, Rev, PD_Length, enhanced data */
	u8 ctl_len;
};

static const struct fr_vec_case fr_vec_cases[] = {
	{ "request rev 1, no flags", { .rev = 1, .ird = ULP, .ord = ULP },
	  { 0x00, 0x01, 0x00, 0x00 }, 4 },
	{ "request rev 1, M", { .rev = 1, .markers = true, .ird = ULP,
	  .ord = ULP }, { 0x80, 0x01, 0x00, 0x00 }, 4 },
	{ "request rev 1, C", { .rev = 1, .crc = true, .ird = ULP,
	  .ord = ULP }, { 0x40, 0x01, 0x00, 0x00 }, 4 },
	{ "request rev 1, M C, 3 octets", { .rev = 1, .markers = true,
	  .crc = true, .pd_len = 3, .ird = ULP, .ord = ULP },
	  { 0xc0, 0x01, 0x00, 0x03 }, 4 },
	{ "reply rev 1, C", { .reply = true, .rev = 1, .crc = true,
	  .ird = ULP, .ord = ULP }, { 0x40, 0x01, 0x00, 0x00 }, 4 },
	{ "reply rev 1, R, 7 octets", { .reply = true, .rev = 1,
	  .reject = true, .pd_len = 7, .ird = ULP, .ord = ULP },
	  { 0x20, 0x01, 0x00, 0x07 }, 4 },
	{ "reply rev 1, M C R", { .reply = true, .rev = 1, .markers = true,
	  .crc = true, .reject = true, .ird = ULP, .ord = ULP },
	  { 0xe0, 0x01, 0x00, 0x00 }, 4 },
	{ "request rev 2, S C, IRD 16 ORD 8", { .rev = 2, .crc = true,
	  .enhanced = true, .ird = 16, .ord = 8 },
	  { 0x50, 0x02, 0x00, 0x04, 0x00, 0x10, 0x00, 0x08 }, 8 },
	{ "request rev 2, every flag, A B C D", { .rev = 2, .markers = true,
	  .crc = true, .enhanced = true, .p2p = true, .rtr = W | R | S,
	  .ird = 1, .ord = 2 },
	  { 0xd0, 0x02, 0x00, 0x04, 0xc0, 0x01, 0xc0, 0x02 }, 8 },
	{ "request rev 2, A and C (write)", { .rev = 2, .enhanced = true,
	  .p2p = true, .rtr = W },
	  { 0x10, 0x02, 0x00, 0x04, 0x80, 0x00, 0x80, 0x00 }, 8 },
	{ "request rev 2, A and D (read)", { .rev = 2, .enhanced = true,
	  .p2p = true, .rtr = R, .ird = 5, .ord = 3 },
	  { 0x10, 0x02, 0x00, 0x04, 0x80, 0x05, 0x40, 0x03 }, 8 },
	{ "request rev 2, A and B (send)", { .rev = 2, .enhanced = true,
	  .p2p = true, .rtr = S, .ird = 7, .ord = 9 },
	  { 0x10, 0x02, 0x00, 0x04, 0xc0, 0x07, 0x00, 0x09 }, 8 },
	{ "request rev 2, IRD and ORD 0x3fff", { .rev = 2, .enhanced = true,
	  .ird = 0x3fff, .ord = 0x3fff },
	  { 0x10, 0x02, 0x00, 0x04, 0x3f, 0xff, 0x3f, 0xff }, 8 },
	{ "request rev 2, A C, 0x3ffe", { .rev = 2, .enhanced = true,
	  .p2p = true, .rtr = W, .ird = 0x3ffe, .ord = 0x3ffe },
	  { 0x10, 0x02, 0x00, 0x04, 0xbf, 0xfe, 0xbf, 0xfe }, 8 },
	{ "reject rev 2, R S C, 5 octets", { .reply = true, .rev = 2,
	  .crc = true, .reject = true, .enhanced = true, .ird = 4, .ord = 6,
	  .pd_len = 5 },
	  { 0x70, 0x02, 0x00, 0x09, 0x00, 0x04, 0x00, 0x06 }, 8 },
	{ "reply rev 2, A D, 1 octet", { .reply = true, .rev = 2,
	  .enhanced = true, .p2p = true, .rtr = R, .ird = 1, .ord = 0,
	  .pd_len = 1 },
	  { 0x10, 0x02, 0x00, 0x05, 0x80, 0x01, 0x40, 0x00 }, 8 },
	{ "request rev 1, 512 octets", { .rev = 1, .pd_len = 512, .ird = ULP,
	  .ord = ULP }, { 0x00, 0x01, 0x02, 0x00 }, 4 },
	{ "request rev 2, S and 508 octets", { .rev = 2, .enhanced = true,
	  .pd_len = 508 },
	  { 0x10, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00 }, 8 },
};

MPA_CASE_DESC(fr_vec_case)
KUNIT_ARRAY_PARAM(fr_vec, fr_vec_cases, fr_vec_case_desc);

static void fr_expect_frame(struct kunit *test, const struct siw_mpa_frame *g,
			    const struct siw_mpa_frame *w, const char *how)
{
	KUNIT_EXPECT_EQ_MSG(test, g->reply, w->reply, "%s", how);
	KUNIT_EXPECT_EQ_MSG(test, g->rev, w->rev, "%s", how);
	KUNIT_EXPECT_EQ_MSG(test, g->markers, w->markers, "%s", how);
	KUNIT_EXPECT_EQ_MSG(test, g->crc, w->crc, "%s", how);
	KUNIT_EXPECT_EQ_MSG(test, g->reject, w->reject, "%s", how);
	KUNIT_EXPECT_EQ_MSG(test, g->enhanced, w->enhanced, "%s", how);
	KUNIT_EXPECT_EQ_MSG(test, g->p2p, w->p2p, "%s", how);
	KUNIT_EXPECT_EQ_MSG(test, g->rtr, w->rtr, "%s", how);
	KUNIT_EXPECT_EQ_MSG(test, g->ird, w->ird, "%s", how);
	KUNIT_EXPECT_EQ_MSG(test, g->ord, w->ord, "%s", how);
	KUNIT_EXPECT_EQ_MSG(test, g->pd_len, w->pd_len, "%s", how);
	if (g->pd_len == w->pd_len && w->pd_len)
		MPA_EXPECT_BYTES(test, g->pd, w->pd, w->pd_len);
}

static void siw_mpa_frames_vector(struct kunit *test)
{
	const struct fr_vec_case *c = test->param_value;
	struct siw_mpa_frame_rx *fr = kunit_kzalloc(test, sizeof(*fr),
						    GFP_KERNEL);
	size_t head = SIW_MPA_KEY_LEN + c->ctl_len;
	size_t len = head + c->f.pd_len;
	u8 *buf = kunit_kzalloc(test, SIW_MPA_FRAME_MAX + 8, GFP_KERNEL);
	struct siw_mpa_frame f = c->f, d;
	enum siw_mpa_frame_st st;
	size_t at, used, i;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, fr);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	fr_pd_fill();
	f.pd = fr_pd;

	KUNIT_ASSERT_EQ(test, siw_mpa_frame_build(&f, buf, len), (ssize_t)len);
	MPA_EXPECT_BYTES(test, buf, f.reply ? key_rep : key_req,
			 SIW_MPA_KEY_LEN);
	MPA_EXPECT_BYTES(test, buf + SIW_MPA_KEY_LEN, c->ctl, c->ctl_len);
	MPA_EXPECT_BYTES(test, buf + head, fr_pd, c->f.pd_len);

	memset(&d, 0, sizeof(d));
	KUNIT_ASSERT_EQ(test, siw_mpa_frame_decode(buf, len, f.reply, &d),
			SIW_MPA_FRAME_DONE);
	fr_expect_frame(test, &d, &f, "decode");
	KUNIT_EXPECT_PTR_EQ(test, d.pd, (const u8 *)buf + head);

	/* in two pieces cut anywhere, with the next octets behind it */
	memset(buf + len, 0xee, 8);
	for (at = 0; at <= len; at++) {
		siw_mpa_frame_rx_init(fr, f.reply);
		used = siw_mpa_frame_rx_feed(fr, buf, at, &st);
		KUNIT_ASSERT_EQ(test, used, at);
		KUNIT_ASSERT_EQ_MSG(test, st, at < len ? SIW_MPA_FRAME_MORE :
				    SIW_MPA_FRAME_DONE, "cut at %zu", at);
		used += siw_mpa_frame_rx_feed(fr, buf + at, len + 8 - at, &st);
		KUNIT_ASSERT_EQ_MSG(test, used, len, "cut at %zu", at);
		KUNIT_ASSERT_EQ(test, st, SIW_MPA_FRAME_DONE);
	}
	fr_expect_frame(test, &fr->frame, &f, "two pieces");

	/* one octet at a time */
	siw_mpa_frame_rx_init(fr, f.reply);
	for (i = 0; i < len; i++) {
		KUNIT_ASSERT_EQ(test, siw_mpa_frame_rx_feed(fr, buf + i, 1, &st),
				1UL);
		KUNIT_ASSERT_EQ(test, st, i + 1 < len ? SIW_MPA_FRAME_MORE :
				SIW_MPA_FRAME_DONE);
	}
	fr_expect_frame(test, &fr->frame, &f, "octet by octet");
	/* complete: nothing more is taken, end of stream changes nothing */
	KUNIT_EXPECT_EQ(test, siw_mpa_frame_rx_feed(fr, buf, len, &st), 0UL);
	KUNIT_EXPECT_EQ(test, siw_mpa_frame_rx_eof(fr), SIW_MPA_FRAME_DONE);
}

/* Malformed frames, built octet by octet */
#define PDLEN_AS_AVAIL	0xffffffff

struct fr_bad_case {
	const char *name;
	bool want_reply;	/* the receiver is the initiator */
	bool reply_key;		/* the frame carries the reply key */
	u8 key_at;		/* XOR @key_xor into key octet @key_at */
	u8 key_xor;
	u8 flags;
	u8 rev;
	u32 pd_len;		/* PD_Length field */
	u32 avail;		/* private data octets in the stream */
	u32 cut;		/* the stream stops after this many, 0: no cut */
	enum siw_mpa_frame_st st;
	u8 code;		/* RFC 5044 section 8 error code, 0 if none */
};

static const struct fr_bad_case fr_bad_cases[] = {
	{ "key octet 0 wrong", false, false, 0, 0x20, 0, 1, 0, 0, 0,
	  SIW_MPA_FRAME_EKEY, 4 },
	{ "key octet 5 wrong", false, false, 5, 0x01, 0, 1, 0, 0, 0,
	  SIW_MPA_FRAME_EKEY, 4 },
	{ "key octet 15 wrong", true, true, 15, 0x80, 0, 1, 0, 0, 0,
	  SIW_MPA_FRAME_EKEY, 4 },
	{ "key 'Rey', neither role", false, false, 9, 0x08, 0, 1, 0, 0, 0,
	  SIW_MPA_FRAME_EKEY, 4 },
	{ "reply key to a responder", false, true, 0, 0, 0, 1, 0, 0, 0,
	  SIW_MPA_FRAME_EROLE, 4 },
	{ "request key to an initiator", true, false, 0, 0, 0, 1, 0, 0, 0,
	  SIW_MPA_FRAME_EROLE, 4 },
	{ "rev 0", false, false, 0, 0, 0, 0, 0, 0, 0, SIW_MPA_FRAME_EREV, 4 },
	{ "rev 3", false, false, 0, 0, 0, 3, 0, 0, 0, SIW_MPA_FRAME_EREV, 4 },
	{ "rev 255", true, true, 0, 0, 0, 255, 0, 0, 0, SIW_MPA_FRAME_EREV,
	  4 },
	{ "pd_length 513", false, false, 0, 0, 0, 1, 513, 513, 0,
	  SIW_MPA_FRAME_EPDLEN, 4 },
	{ "pd_length 0xffff", true, true, 0, 0, 0, 2, 0xffff, 0, 0,
	  SIW_MPA_FRAME_EPDLEN, 4 },
	{ "pd_length 512 is fine", false, false, 0, 0, 0, 1, 512, 512, 0,
	  SIW_MPA_FRAME_DONE, 0 },
	{ "S with pd_length 0", false, false, 0, 0, 0x10, 2, 0, 0, 0,
	  SIW_MPA_FRAME_EENH, 4 },
	{ "S with pd_length 1", false, false, 0, 0, 0x10, 2, 1, 1, 0,
	  SIW_MPA_FRAME_EENH, 4 },
	{ "S with pd_length 2", true, true, 0, 0, 0x10, 2, 2, 2, 0,
	  SIW_MPA_FRAME_EENH, 4 },
	{ "S with pd_length 3", false, false, 0, 0, 0x10, 2, 3, 3, 0,
	  SIW_MPA_FRAME_EENH, 4 },
	{ "S with pd_length 4 is fine", false, false, 0, 0, 0x10, 2, 4, 4, 0,
	  SIW_MPA_FRAME_DONE, 0 },
	{ "S in rev 1 with pd_length 0 is ignored", false, false, 0, 0, 0x10,
	  1, 0, 0, 0, SIW_MPA_FRAME_DONE, 0 },
	{ "header cut at 19 octets", false, false, 0, 0, 0, 1, 0, 0, 19,
	  SIW_MPA_FRAME_ETRUNC, 1 },
	{ "header cut at 1 octet", true, true, 0, 0, 0, 1, 0, 0, 1,
	  SIW_MPA_FRAME_ETRUNC, 1 },
	{ "pd_length runs past the stream", false, false, 0, 0, 0, 1, 10, 5,
	  0, SIW_MPA_FRAME_ETRUNC, 1 },
	{ "enhanced data cut short", false, false, 0, 0, 0x10, 2, 4, 2, 0,
	  SIW_MPA_FRAME_ETRUNC, 1 },
	{ "octets after the frame are not taken", true, true, 0, 0, 0, 1, 2,
	  9, 0, SIW_MPA_FRAME_DONE, 0 },
};

MPA_CASE_DESC(fr_bad_case)
KUNIT_ARRAY_PARAM(fr_bad, fr_bad_cases, fr_bad_case_desc);

static size_t fr_raw(const struct fr_bad_case *c, u8 *buf)
{
	size_t len;

	memcpy(buf, c->reply_key ? SIW_MPA_KEY_REP : SIW_MPA_KEY_REQ, 16);
	buf[c->key_at] ^= c->key_xor;
	buf[16] = c->flags;
	buf[17] = c->rev;
	put_unaligned_be16(c->pd_len, buf + 18);
	memset(buf + 20, 0x5c, c->avail);
	len = 20 + c->avail;
	return c->cut ? c->cut : len;
}

static void siw_mpa_frames_malformed(struct kunit *test)
{
	const struct fr_bad_case *c = test->param_value;
	struct siw_mpa_frame_rx *fr = kunit_kzalloc(test, sizeof(*fr),
						    GFP_KERNEL);
	u8 *buf = kunit_kzalloc(test, 20 + 1024, GFP_KERNEL);
	size_t frame_len = 20 + min_t(u32, c->pd_len, c->avail);
	struct siw_mpa_frame f;
	enum siw_mpa_frame_st st;
	size_t len, used;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, fr);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	len = fr_raw(c, buf);

	KUNIT_EXPECT_EQ(test, siw_mpa_frame_decode(buf, len, c->want_reply, &f),
			c->st);

	siw_mpa_frame_rx_init(fr, c->want_reply);
	used = siw_mpa_frame_rx_feed(fr, buf, len, &st);
	if (c->st == SIW_MPA_FRAME_ETRUNC) {
		KUNIT_EXPECT_EQ(test, st, SIW_MPA_FRAME_MORE);
		KUNIT_EXPECT_EQ(test, used, len);
		st = siw_mpa_frame_rx_eof(fr);
	} else if (c->st == SIW_MPA_FRAME_DONE) {
		KUNIT_EXPECT_EQ(test, used, frame_len);
	} else {
		/* caught at the end of the header, before any private data */
		KUNIT_EXPECT_EQ(test, used, (size_t)SIW_MPA_RR_LEN);
	}
	KUNIT_EXPECT_EQ(test, st, c->st);
	KUNIT_EXPECT_EQ(test, (u8)siw_mpa_frame_st_err(st), c->code);
	/* a failed receiver stays failed */
	if (c->st != SIW_MPA_FRAME_DONE) {
		KUNIT_EXPECT_EQ(test, siw_mpa_frame_rx_feed(fr, buf, len, &st),
				0UL);
		KUNIT_EXPECT_EQ(test, st, c->st);
	}
}

/* Bits the receiver must ignore */
struct fr_ign_case {
	const char *name;
	u8 ctl[12];	/* octets 16 on, after the key of @want_reply's role */
	u8 ctl_len;
	bool want_reply;
	struct siw_mpa_frame want;	/* @pd: the last @want.pd_len octets */
};

static const struct fr_ign_case fr_ign_cases[] = {
	{ "Res bits in a request", { 0x4f, 0x01, 0x00, 0x00 }, 4,
	  false, { .rev = 1, .crc = true, .ird = ULP, .ord = ULP } },
	{ "Res bit 0x08 in rev 2", { 0x18, 0x02, 0x00, 0x04,
	  0x00, 0x02, 0x00, 0x03 }, 8, false,
	  { .rev = 2, .enhanced = true, .ird = 2, .ord = 3 } },
	{ "R in a request", { 0xa0, 0x01, 0x00, 0x00 }, 4, false,
	  { .rev = 1, .markers = true, .ird = ULP, .ord = ULP } },
	{ "Res bits in a reply", { 0x2f, 0x01, 0x00, 0x00 }, 4, true,
	  { .reply = true, .rev = 1, .reject = true, .ird = ULP,
	    .ord = ULP } },
	{ "S in rev 1: the private data is all ULP's",
	  { 0x10, 0x01, 0x00, 0x06, 0xc0, 0x01, 0xc0, 0x02, 0xaa,
	    0xbb }, 10, false,
	  { .rev = 1, .pd_len = 6, .ird = ULP, .ord = ULP } },
	{ "B C D without A", { 0x10, 0x02, 0x00, 0x04, 0x40, 0x05,
	  0xc0, 0x06 }, 8, false,
	  { .rev = 2, .enhanced = true, .ird = 5, .ord = 6 } },
	{ "A without an RTR type", { 0x10, 0x02, 0x00, 0x04, 0x80,
	  0x05, 0x00, 0x06 }, 8, true,
	  { .reply = true, .rev = 2, .enhanced = true, .p2p = true,
	    .ird = 5, .ord = 6 } },
	{ "flag bits stay out of IRD and ORD", { 0x10, 0x02, 0x00,
	  0x04, 0xc0, 0x00, 0xc0, 0x00 }, 8, false,
	  { .rev = 2, .enhanced = true, .p2p = true, .rtr = W | R | S } },
	{ "enhanced data then ULP data", { 0x10, 0x02, 0x00, 0x07,
	  0x00, 0x01, 0x00, 0x01, 0x61, 0x62, 0x63 }, 11, false,
	  { .rev = 2, .enhanced = true, .ird = 1, .ord = 1, .pd_len = 3 } },
};

MPA_CASE_DESC(fr_ign_case)
KUNIT_ARRAY_PARAM(fr_ign, fr_ign_cases, fr_ign_case_desc);

static void siw_mpa_frames_ignored_bits(struct kunit *test)
{
	const struct fr_ign_case *c = test->param_value;
	struct siw_mpa_frame want = c->want, got;
	size_t len = SIW_MPA_KEY_LEN + c->ctl_len;
	u8 raw[SIW_MPA_KEY_LEN + sizeof(c->ctl)];

	memcpy(raw, c->want_reply ? key_rep : key_req, SIW_MPA_KEY_LEN);
	memcpy(raw + SIW_MPA_KEY_LEN, c->ctl, c->ctl_len);
	want.reply = c->want_reply;
	want.pd = raw + len - want.pd_len;
	KUNIT_ASSERT_EQ(test, siw_mpa_frame_decode(raw, len, c->want_reply,
						   &got),
			SIW_MPA_FRAME_DONE);
	fr_expect_frame(test, &got, &want, "decode");
}

struct fr_build_case {
	const char *name;
	struct siw_mpa_frame f;
	size_t size;
	ssize_t want;
	bool no_pd;	/* leave @f.pd NULL */
};

static const struct fr_build_case fr_build_cases[] = {
	{ "rev 0", { .rev = 0 }, 64, -EINVAL },
	{ "rev 3", { .rev = 3 }, 64, -EINVAL },
	{ "S with rev 1", { .rev = 1, .enhanced = true }, 64, -EINVAL },
	{ "R in a request", { .rev = 1, .reject = true }, 64, -EINVAL },
	{ "RTR flags without A", { .rev = 2, .enhanced = true, .rtr = W },
	  64, -EINVAL },
	{ "unknown RTR bit", { .rev = 2, .enhanced = true, .p2p = true,
	  .rtr = 0x08 }, 64, -EINVAL },
	{ "IRD 0x4000", { .rev = 2, .enhanced = true, .ird = 0x4000 }, 64,
	  -EINVAL },
	{ "ORD 0x4000", { .rev = 2, .enhanced = true, .ord = 0x4000 }, 64,
	  -EINVAL },
	{ "private data without a buffer", { .rev = 1, .pd_len = 1 }, 64,
	  -EINVAL, true },
	{ "513 octets", { .rev = 1, .pd_len = 513 }, 1024, -EMSGSIZE },
	{ "S and 509 octets", { .rev = 2, .enhanced = true, .pd_len = 509 },
	  1024, -EMSGSIZE },
	{ "S and 508 octets", { .rev = 2, .enhanced = true, .pd_len = 508 },
	  1024, 532 },
	{ "buffer of 19 octets", { .rev = 1 }, 19, -ENOSPC },
	{ "buffer one octet short", { .rev = 2, .enhanced = true,
	  .pd_len = 10 }, 33, -ENOSPC },
	{ "buffer just right", { .rev = 2, .enhanced = true, .pd_len = 10 },
	  34, 34 },
};

MPA_CASE_DESC(fr_build_case)
KUNIT_ARRAY_PARAM(fr_build, fr_build_cases, fr_build_case_desc);

static void siw_mpa_frames_build_limits(struct kunit *test)
{
	const struct fr_build_case *c = test->param_value;
	u8 *buf = kunit_kzalloc(test, 1024, GFP_KERNEL);
	struct siw_mpa_frame f = c->f;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	if (!c->no_pd)
		f.pd = fr_pd;
	KUNIT_EXPECT_EQ(test, siw_mpa_frame_build(&f, buf, c->size), c->want);
}

struct fr_st_case {
	const char *name;
	enum siw_mpa_frame_st st;
	u8 code;
};

static const struct fr_st_case fr_st_cases[] = {
	{ "incomplete: no error yet", SIW_MPA_FRAME_MORE, 0 },
	{ "complete: no error", SIW_MPA_FRAME_DONE, 0 },
	{ "bad key: code 4", SIW_MPA_FRAME_EKEY, 4 },
	{ "other role's key: code 4", SIW_MPA_FRAME_EROLE, 4 },
	{ "bad revision: code 4", SIW_MPA_FRAME_EREV, 4 },
	{ "pd_length above 512: code 4", SIW_MPA_FRAME_EPDLEN, 4 },
	{ "S without enhanced data: code 4", SIW_MPA_FRAME_EENH, 4 },
	{ "stream ended: code 1", SIW_MPA_FRAME_ETRUNC, 1 },
	{ "out of range: code 4", SIW_MPA_FRAME_NUM_ST, 4 },
};

MPA_CASE_DESC(fr_st_case)
KUNIT_ARRAY_PARAM(fr_st, fr_st_cases, fr_st_case_desc);

static void siw_mpa_frames_status(struct kunit *test)
{
	const struct fr_st_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, (u8)siw_mpa_frame_st_err(c->st), c->code);
	KUNIT_EXPECT_NOT_NULL(test, siw_mpa_frame_st_name(c->st));
}

static struct kunit_case siw_mpa_frames_cases[] = {
	KUNIT_CASE_PARAM(siw_mpa_frames_vector, fr_vec_gen_params),
	KUNIT_CASE_PARAM(siw_mpa_frames_malformed, fr_bad_gen_params),
	KUNIT_CASE_PARAM(siw_mpa_frames_ignored_bits, fr_ign_gen_params),
	KUNIT_CASE_PARAM(siw_mpa_frames_build_limits, fr_build_gen_params),
	KUNIT_CASE_PARAM(siw_mpa_frames_status, fr_st_gen_params),
	{}
};

static struct kunit_suite siw_mpa_frames_suite = {
	.name = "siw_mpa_frames",
	.test_cases = siw_mpa_frames_cases,
};

kunit_test_suite(siw_mpa_frames_suite);
