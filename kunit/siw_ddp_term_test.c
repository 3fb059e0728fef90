// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite siw_ddp_term: the error table and Terminate messages.
 *
 * The expected octets are written from the figure of RFC 5040 section
 * 4.8: Layer in the high nibble of the first octet, EType in the low
 * nibble, the Error Code octet, then M, D, R as the top bits of the
 * third octet. Upstream siw on x86 puts the two nibbles the other way
 * round (0x21 instead of 0x12 for a DDP untagged error); these vectors
 * do not.
 */
#include <kunit/test.h>
#include <linux/errno.h>
#include <linux/kernel.h>

#include "siw_ddp_test.h"

static const u8 seg_send_qn3[] = {
	/* Send, QN 3, MSN 1 */
	0x41, 0x43, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
	0x00, 0x00,
	/* payload */
	0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x11, 0x22,
};

static const u8 seg_opcode_8[] = {
	/* opcode 0x8, QN 0, MSN 5 */
	0x41, 0x48, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x05, 0x00, 0x00,
	0x00, 0x00,
};

static const u8 seg_write[] = {
	/* RDMA Write, STag 0x1234, TO 0x1000 */
	0xc1, 0x40, 0x00, 0x00, 0x12, 0x34, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x10, 0x00,
	/* payload */
	0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x11, 0x22,
	0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x11, 0x22,
};

static const u8 seg_rreq[] = {
	/* Read Request, QN 1, MSN 1 */
	0x41, 0x41, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
	0x00, 0x00,
	/* Read Request header */
	0x00, 0x00, 0x10, 0x01, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x20, 0x00, 0x00, 0x00, 0x10, 0x00,
	0x00, 0x00, 0x03, 0x02, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x10, 0x00,
};

static const u8 seg_rresp_rv0[] = {
	/* Read Response with RDMAP version 0 */
	0xc1, 0x02, 0x00, 0x00, 0x00, 0x77, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	/* payload */
	0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x11, 0x22,
	0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x11, 0x22,
};

static const u8 seg_send_inv[] = {
	/* Send with Invalidate, STag 0x12345678 */
	0x41, 0x44, 0x12, 0x34, 0x56, 0x78, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x07, 0x00, 0x00,
	0x00, 0x00,
};

static const u8 term_invalid_qn[] = {
	/* Terminate: untagged, L, QN 2, MSN 1, MO 0 */
	0x41, 0x47, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x02, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
	0x00, 0x00,
	/* Layer 1 EType 2 (DDP untagged), code 0x01 (QN); M D; length 26 */
	0x12, 0x01, 0xc0, 0x00, 0x00, 0x1a,
	/* terminated DDP header */
	0x41, 0x43, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
	0x00, 0x00,
};

static const u8 term_opcode[] = {
	/* Terminate: untagged, L, QN 2, MSN 1, MO 0 */
	0x41, 0x47, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x02, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
	0x00, 0x00,
	/* Layer 0 EType 2 (RDMAP operation), code 0x06; D; length not valid */
	0x02, 0x06, 0x40, 0x00, 0x00, 0x00,
	/* terminated DDP header */
	0x41, 0x48, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x05, 0x00, 0x00,
	0x00, 0x00,
};

static const u8 term_inv_stag[] = {
	/* Terminate: untagged, L, QN 2, MSN 1, MO 0 */
	0x41, 0x47, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x02, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
	0x00, 0x00,
	/* Layer 1 EType 1 (DDP tagged), code 0x00 (STag); M D; length 30 */
	0x11, 0x00, 0xc0, 0x00, 0x00, 0x1e,
	/* terminated DDP header */
	0xc1, 0x40, 0x00, 0x00, 0x12, 0x34, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x10, 0x00,
};

static const u8 term_rreq_access[] = {
	/* Terminate: untagged, L, QN 2, MSN 1, MO 0 */
	0x41, 0x47, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x02, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
	0x00, 0x00,
	/* Layer 0 EType 1 (RDMAP protection), code 0x02; M D R; length 46 */
	0x01, 0x02, 0xe0, 0x00, 0x00, 0x2e,
	/* terminated DDP header */
	0x41, 0x41, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
	0x00, 0x00,
	/* terminated RDMA header */
	0x00, 0x00, 0x10, 0x01, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x20, 0x00, 0x00, 0x00, 0x10, 0x00,
	0x00, 0x00, 0x03, 0x02, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x10, 0x00,
};

static const u8 term_ird[] = {
	/* Terminate: untagged, L, QN 2, MSN 1, MO 0 */
	0x41, 0x47, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x02, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
	0x00, 0x00,
	/* Layer 1 EType 2 (DDP untagged), code 0x02 (no buffer); M D; 46 */
	0x12, 0x02, 0xc0, 0x00, 0x00, 0x2e,
	/* terminated DDP header */
	0x41, 0x41, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
	0x00, 0x00,
};

static const u8 term_rdmap_version[] = {
	/* Terminate: untagged, L, QN 2, MSN 1, MO 0 */
	0x41, 0x47, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x02, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
	0x00, 0x00,
	/* Layer 0 EType 2 (RDMAP operation), code 0x05 (version); M D; 30 */
	0x02, 0x05, 0xc0, 0x00, 0x00, 0x1e,
	/* terminated DDP header */
	0xc1, 0x02, 0x00, 0x00, 0x00, 0x77, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

static const u8 term_cannot_inv[] = {
	/* Terminate: untagged, L, QN 2, MSN 1, MO 0 */
	0x41, 0x47, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x02, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
	0x00, 0x00,
	/* Layer 0 EType 2 (RDMAP operation), code 0x09; M D; length 18 */
	0x02, 0x09, 0xc0, 0x00, 0x00, 0x12,
	/* terminated DDP header */
	0x41, 0x44, 0x12, 0x34, 0x56, 0x78, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x07, 0x00, 0x00,
	0x00, 0x00,
};

static const u8 term_crc[] = {
	/* Terminate: untagged, L, QN 2, MSN 1, MO 0 */
	0x41, 0x47, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x02, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
	0x00, 0x00,
	/* Layer 2 EType 0 (LLP MPA), code 0x02 (CRC); no M D R */
	0x20, 0x02, 0x00, 0x00,
};

static const u8 term_crc_len[] = {
	/* Terminate: untagged, L, QN 2, MSN 1, MO 0 */
	0x41, 0x47, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x02, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
	0x00, 0x00,
	/* Layer 2 EType 0 (LLP MPA), code 0x02 (CRC); M; length 64 */
	0x20, 0x02, 0x80, 0x00, 0x00, 0x40,
};

static const u8 term_msn2[] = {
	/* Terminate: untagged, L, QN 2, MSN 2, MO 0 */
	0x41, 0x47, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x02, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00,
	0x00, 0x00,
	/* Layer 1 EType 0 (DDP catastrophic), code 0x00 */
	0x10, 0x00, 0x00, 0x00,
};

static const u8 term_cut[] = {
	/* Terminate: untagged, L, QN 2, MSN 1, MO 0 */
	0x41, 0x47, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x02, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
	0x00, 0x00,
	/* Layer 1 EType 2 (DDP untagged), code 0x03 (MSN); M; length 26 */
	0x12, 0x03, 0x80, 0x00, 0x00, 0x1a,
};

static const u8 term_no_ird[] = {
	/* Terminate: untagged, L, QN 2, MSN 1, MO 0 */
	0x41, 0x47, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x02, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
	0x00, 0x00,
	/* Layer 2 EType 0 (LLP MPA), code 0x06 (insufficient IRD) */
	0x20, 0x06, 0x00, 0x00,
};

struct term_case {
	const char *name;
	enum siw_ddp_err err;
	const u8 *seg;
	size_t seg_avail;
	u16 seg_len;
	bool seg_len_valid;
	u32 msn;
	const u8 *exp;
	size_t exp_len;
	bool has_ddp;
	bool has_rreq;
};

static const struct term_case term_cases[] = {
	{
		.name = "ddp invalid qn, M and D",
		.err = SIW_DDP_ERR_DDP_U_INVALID_QN,
		.seg = seg_send_qn3, .seg_avail = sizeof(seg_send_qn3),
		.seg_len = 26, .seg_len_valid = true,
		.msn = 1,
		.exp = term_invalid_qn, .exp_len = sizeof(term_invalid_qn),
		.has_ddp = true,
	},
	{
		.name = "rdmap unexpected opcode, D only",
		.err = SIW_DDP_ERR_RDMAP_OPCODE,
		.seg = seg_opcode_8, .seg_avail = sizeof(seg_opcode_8),
		.msn = 1,
		.exp = term_opcode, .exp_len = sizeof(term_opcode),
		.has_ddp = true,
	},
	{
		.name = "ddp tagged invalid stag",
		.err = SIW_DDP_ERR_DDP_T_INVALID_STAG,
		.seg = seg_write, .seg_avail = sizeof(seg_write),
		.seg_len = 30, .seg_len_valid = true,
		.msn = 1,
		.exp = term_inv_stag, .exp_len = sizeof(term_inv_stag),
		.has_ddp = true,
	},
	{
		.name = "read request access violation, M D R",
		.err = SIW_DDP_ERR_RDMAP_ACCESS,
		.seg = seg_rreq, .seg_avail = sizeof(seg_rreq),
		.seg_len = 46, .seg_len_valid = true,
		.msn = 1,
		.exp = term_rreq_access, .exp_len = sizeof(term_rreq_access),
		.has_ddp = true,
		.has_rreq = true,
	},
	{
		.name = "read request past ird, header only",
		.err = SIW_DDP_ERR_DDP_U_MSN_NO_BUF,
		.seg = seg_rreq, .seg_avail = SIW_DDP_UNTAGGED_HLEN,
		.seg_len = 46, .seg_len_valid = true,
		.msn = 1,
		.exp = term_ird, .exp_len = sizeof(term_ird),
		.has_ddp = true,
	},
	{
		.name = "rdmap version on read response",
		.err = SIW_DDP_ERR_RDMAP_VERSION,
		.seg = seg_rresp_rv0, .seg_avail = sizeof(seg_rresp_rv0),
		.seg_len = 30, .seg_len_valid = true,
		.msn = 1,
		.exp = term_rdmap_version, .exp_len = sizeof(term_rdmap_version),
		.has_ddp = true,
	},
	{
		.name = "stag cannot be invalidated",
		.err = SIW_DDP_ERR_RDMAP_OP_CANNOT_INV,
		.seg = seg_send_inv, .seg_avail = sizeof(seg_send_inv),
		.seg_len = 18, .seg_len_valid = true,
		.msn = 1,
		.exp = term_cannot_inv, .exp_len = sizeof(term_cannot_inv),
		.has_ddp = true,
	},
	{
		.name = "mpa crc error, no headers",
		.err = SIW_DDP_ERR_LLP_CRC,
		.msn = 1,
		.exp = term_crc, .exp_len = sizeof(term_crc),
	},
	{
		.name = "mpa crc error, length only",
		.err = SIW_DDP_ERR_LLP_CRC,
		.seg_len = 0x40, .seg_len_valid = true,
		.msn = 1,
		.exp = term_crc_len, .exp_len = sizeof(term_crc_len),
	},
	{
		.name = "second terminate, msn 2",
		.err = SIW_DDP_ERR_DDP_CATASTROPHIC,
		.msn = 2,
		.exp = term_msn2, .exp_len = sizeof(term_msn2),
	},
	{
		.name = "segment shorter than its header",
		.err = SIW_DDP_ERR_DDP_U_MSN_RANGE,
		.seg = seg_send_qn3, .seg_avail = 10,
		.seg_len = 26, .seg_len_valid = true,
		.msn = 1,
		.exp = term_cut, .exp_len = sizeof(term_cut),
	},
	{
		.name = "insufficient ird, layer llp",
		.err = SIW_DDP_ERR_LLP_NO_IRD,
		.msn = 1,
		.exp = term_no_ird, .exp_len = sizeof(term_no_ird),
	},
};

SIW_DDP_CASE_DESC(term_case);
KUNIT_ARRAY_PARAM(term, term_cases, term_case_desc);

static void siw_ddp_term_check_report(struct kunit *test,
				      const struct term_case *c,
				      const struct siw_rdmap_term_report *rep)
{
	const struct siw_ddp_errinfo *e = siw_ddp_errinfo(c->err);
	size_t hlen = c->seg ? siw_ddp_hdr_len(c->seg, 1) : 0;

	KUNIT_EXPECT_EQ(test, rep->err, c->err);
	KUNIT_EXPECT_EQ(test, rep->layer, e->layer);
	KUNIT_EXPECT_EQ(test, rep->etype, e->etype);
	KUNIT_EXPECT_EQ(test, rep->ecode, e->ecode);
	KUNIT_EXPECT_EQ(test, rep->seg_len_valid, c->seg_len_valid);
	if (c->seg_len_valid)
		KUNIT_EXPECT_EQ(test, rep->seg_len, c->seg_len);
	KUNIT_EXPECT_EQ(test, rep->has_ddp_hdr, c->has_ddp);
	KUNIT_EXPECT_EQ(test, rep->has_rreq, c->has_rreq);
	if (c->has_ddp) {
		KUNIT_EXPECT_EQ(test, (size_t)rep->ddp_raw_len, hlen);
		SIW_EXPECT_BYTES(test, rep->ddp_raw, c->seg, hlen);
		KUNIT_EXPECT_EQ(test, rep->ddp.opcode, c->seg[1] & 0x0f);
	}
	if (c->has_rreq) {
		KUNIT_EXPECT_EQ(test, rep->rreq.sink_stag, 0x1001U);
		KUNIT_EXPECT_EQ(test, rep->rreq.sink_to, 0x2000ULL);
		KUNIT_EXPECT_EQ(test, rep->rreq.len, 0x1000U);
		KUNIT_EXPECT_EQ(test, rep->rreq.src_stag, 0x302U);
		KUNIT_EXPECT_EQ(test, rep->rreq.src_to, 0x1000ULL);
	}
}

static void siw_ddp_term_vector(struct kunit *test)
{
	const struct term_case *c = test->param_value;
	const struct siw_rdmap_term_info ti = {
		.err = c->err, .seg = c->seg, .seg_avail = c->seg_avail,
		.seg_len = c->seg_len, .seg_len_valid = c->seg_len_valid,
	};
	struct siw_rdmap_term_report rep;
	u8 buf[SIW_RDMAP_TERM_MAX_MSG + 8];
	struct siw_ddp_hdr h;
	int len;

	memset(buf, 0x5a, sizeof(buf));
	len = siw_rdmap_term_build(&ti, c->msn, buf, sizeof(buf));
	KUNIT_ASSERT_EQ(test, len, (int)c->exp_len);
	SIW_EXPECT_BYTES(test, buf, c->exp, c->exp_len);
	KUNIT_EXPECT_EQ(test, buf[len], 0x5a);

	/* the Terminate is a valid segment for queue 2 */
	KUNIT_EXPECT_EQ(test, siw_ddp_hdr_decode(buf, len, &h), SIW_DDP_OK);
	KUNIT_EXPECT_EQ(test, h.opcode, SIW_RDMAP_TERMINATE);

	KUNIT_EXPECT_EQ(test, siw_rdmap_term_parse(buf + SIW_DDP_UNTAGGED_HLEN,
						   len - SIW_DDP_UNTAGGED_HLEN,
						   &rep),
			SIW_DDP_OK);
	siw_ddp_term_check_report(test, c, &rep);

	/* one octet short of the whole message */
	KUNIT_EXPECT_EQ(test, siw_rdmap_term_build(&ti, c->msn, buf, len - 1),
			-ENOSPC);
}

/* Received Terminate payloads, well formed and not */

struct parse_case {
	const char *name;
	u8 bytes[SIW_RDMAP_TERM_MAX_LEN];
	size_t len;
	enum siw_ddp_err ret;
	enum siw_ddp_err err;
	u8 layer;
	u8 etype;
	u8 ecode;
	bool seg_len_valid;
	u16 seg_len;
	bool has_ddp;
	bool has_rreq;
};

#define UNSPEC	SIW_DDP_ERR_RDMAP_OP_UNSPECIFIED

static const struct parse_case parse_cases[] = {
	{
		.name = "header only",
		.bytes = {
			0x12, 0x01, 0x00, 0x00,
		},
		.len = 4, .ret = SIW_DDP_OK,
		.err = SIW_DDP_ERR_DDP_U_INVALID_QN,
		.layer = 1, .etype = 0x2, .ecode = 0x01,
	},
	{
		.name = "empty",
		.len = 0, .ret = UNSPEC,
		.err = SIW_DDP_ERR_UNKNOWN,
	},
	{
		.name = "three octets",
		.bytes = {
			0x12, 0x01, 0x00,
		},
		.len = 3, .ret = UNSPEC,
		.err = SIW_DDP_ERR_UNKNOWN,
	},
	{
		.name = "m set, length missing",
		.bytes = {
			0x12, 0x01, 0x80, 0x00, 0x00,
		},
		.len = 5, .ret = UNSPEC,
		.err = SIW_DDP_ERR_DDP_U_INVALID_QN,
		.layer = 1, .etype = 0x2, .ecode = 0x01,
	},
	{
		.name = "m set, length present",
		.bytes = {
			0x12, 0x05, 0x80, 0x00, 0x01, 0x00,
		},
		.len = 6, .ret = SIW_DDP_OK,
		.err = SIW_DDP_ERR_DDP_U_TOO_LONG,
		.layer = 1, .etype = 0x2, .ecode = 0x05,
		.seg_len_valid = true, .seg_len = 0x100,
	},
	{
		.name = "d without m",
		.bytes = {
			0x12, 0x01, 0x40, 0x00, 0x00, 0x00, 0x41, 0x43,
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03,
			0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
		},
		.len = 24, .ret = SIW_DDP_OK,
		.err = SIW_DDP_ERR_DDP_U_INVALID_QN,
		.layer = 1, .etype = 0x2, .ecode = 0x01,
		.has_ddp = true,
	},
	{
		.name = "d set, header cut",
		.bytes = {
			0x12, 0x01, 0xc0, 0x00, 0x00, 0x1a, 0x41, 0x43,
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03,
		},
		.len = 16, .ret = UNSPEC,
		.err = SIW_DDP_ERR_DDP_U_INVALID_QN,
		.layer = 1, .etype = 0x2, .ecode = 0x01,
		.seg_len_valid = true, .seg_len = 0x1a,
	},
	{
		.name = "d set, header missing",
		.bytes = {
			0x11, 0x00, 0xc0, 0x00, 0x00, 0x1e,
		},
		.len = 6, .ret = UNSPEC,
		.err = SIW_DDP_ERR_DDP_T_INVALID_STAG,
		.layer = 1, .etype = 0x1, .ecode = 0x00,
		.seg_len_valid = true, .seg_len = 0x1e,
	},
	{
		.name = "r set, read request cut",
		.bytes = {
			0x01, 0x02, 0xe0, 0x00, 0x00, 0x2e, 0x41, 0x41,
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
			0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
			0x00, 0x00, 0x10, 0x01, 0x00, 0x00, 0x00, 0x00,
			0x00, 0x00, 0x20, 0x00, 0x00, 0x00, 0x10, 0x00,
			0x00, 0x00, 0x03, 0x02, 0x00, 0x00, 0x00, 0x00,
			0x00, 0x00, 0x10,
		},
		.len = 51, .ret = UNSPEC,
		.err = SIW_DDP_ERR_RDMAP_ACCESS,
		.layer = 0, .etype = 0x1, .ecode = 0x02,
		.seg_len_valid = true, .seg_len = 0x2e,
		.has_ddp = true,
	},
	{
		.name = "r without d",
		.bytes = {
			0x01, 0x00, 0x20, 0x00, 0x00, 0x00, 0x10, 0x01,
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x20, 0x00,
			0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x03, 0x02,
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00,
		},
		.len = 32, .ret = SIW_DDP_OK,
		.err = SIW_DDP_ERR_RDMAP_INVALID_STAG,
		.layer = 0, .etype = 0x1, .ecode = 0x00,
		.has_rreq = true,
	},
	{
		.name = "triple no rfc defines",
		.bytes = {
			0x3f, 0xee, 0x00, 0x00,
		},
		.len = 4, .ret = SIW_DDP_OK,
		.err = SIW_DDP_ERR_UNKNOWN,
		.layer = 3, .etype = 0xf, .ecode = 0xee,
	},
	{
		.name = "reserved bits ignored",
		.bytes = {
			0x12, 0x01, 0x1f, 0xff,
		},
		.len = 4, .ret = SIW_DDP_OK,
		.err = SIW_DDP_ERR_DDP_U_INVALID_QN,
		.layer = 1, .etype = 0x2, .ecode = 0x01,
	},
	{
		.name = "rdmap catastrophic, any code",
		.bytes = {
			0x00, 0x42, 0x00, 0x00,
		},
		.len = 4, .ret = SIW_DDP_OK,
		.err = SIW_DDP_ERR_RDMAP_CATASTROPHIC,
		.layer = 0, .etype = 0x0, .ecode = 0x42,
	},
	{
		.name = "upstream x86 nibble order is not ddp",
		.bytes = {
			0x21, 0x01, 0x03, 0x00, 0x00, 0x1a, 0x41, 0x43,
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03,
			0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
		},
		.len = 24, .ret = SIW_DDP_OK,
		.err = SIW_DDP_ERR_UNKNOWN,
		.layer = 2, .etype = 0x1, .ecode = 0x01,
	},
	{
		.name = "mpa no matching rtr",
		.bytes = {
			0x20, 0x07, 0x00, 0x00,
		},
		.len = 4, .ret = SIW_DDP_OK,
		.err = SIW_DDP_ERR_LLP_NO_RTR,
		.layer = 2, .etype = 0x0, .ecode = 0x07,
	},
};

SIW_DDP_CASE_DESC(parse_case);
KUNIT_ARRAY_PARAM(parse, parse_cases, parse_case_desc);

static void siw_ddp_term_parse(struct kunit *test)
{
	const struct parse_case *c = test->param_value;
	struct siw_rdmap_term_report rep;

	KUNIT_EXPECT_EQ(test, siw_rdmap_term_parse(c->bytes, c->len, &rep),
			c->ret);
	KUNIT_EXPECT_EQ(test, rep.err, c->err);
	if (c->len < SIW_RDMAP_TERM_HLEN)
		return;
	KUNIT_EXPECT_EQ(test, rep.layer, c->layer);
	KUNIT_EXPECT_EQ(test, rep.etype, c->etype);
	KUNIT_EXPECT_EQ(test, rep.ecode, c->ecode);
	KUNIT_EXPECT_EQ(test, rep.seg_len_valid, c->seg_len_valid);
	if (c->seg_len_valid)
		KUNIT_EXPECT_EQ(test, rep.seg_len, c->seg_len);
	KUNIT_EXPECT_EQ(test, rep.has_ddp_hdr, c->has_ddp);
	KUNIT_EXPECT_EQ(test, rep.has_rreq, c->has_rreq);
}

/* The error table against RFC 5040 4.8 and 7, RFC 5041 7.2, MPA */

struct err_case {
	const char *name;
	struct siw_ddp_triple t;
};

static const struct err_case err_cases[] = {
	{ "rdmap local catastrophic", SIW_T(0x0, 0x0, 0x00) },
	{ "rdmap invalid stag", SIW_T(0x0, 0x1, 0x00) },
	{ "rdmap base or bounds", SIW_T(0x0, 0x1, 0x01) },
	{ "rdmap access rights", SIW_T(0x0, 0x1, 0x02) },
	{ "rdmap stag not associated", SIW_T(0x0, 0x1, 0x03) },
	{ "rdmap to wrap", SIW_T(0x0, 0x1, 0x04) },
	{ "rdmap protection cannot invalidate", SIW_T(0x0, 0x1, 0x09) },
	{ "rdmap protection unspecified", SIW_T(0x0, 0x1, 0xff) },
	{ "rdmap invalid version", SIW_T(0x0, 0x2, 0x05) },
	{ "rdmap unexpected opcode", SIW_T(0x0, 0x2, 0x06) },
	{ "rdmap catastrophic stream", SIW_T(0x0, 0x2, 0x07) },
	{ "rdmap catastrophic global", SIW_T(0x0, 0x2, 0x08) },
	{ "rdmap operation cannot invalidate", SIW_T(0x0, 0x2, 0x09) },
	{ "rdmap operation unspecified", SIW_T(0x0, 0x2, 0xff) },
	{ "ddp local catastrophic", SIW_T(0x1, 0x0, 0x00) },
	{ "ddp tagged invalid stag", SIW_T(0x1, 0x1, 0x00) },
	{ "ddp tagged base or bounds", SIW_T(0x1, 0x1, 0x01) },
	{ "ddp tagged stag not associated", SIW_T(0x1, 0x1, 0x02) },
	{ "ddp tagged to wrap", SIW_T(0x1, 0x1, 0x03) },
	{ "ddp tagged invalid version", SIW_T(0x1, 0x1, 0x04) },
	{ "ddp untagged invalid qn", SIW_T(0x1, 0x2, 0x01) },
	{ "ddp untagged msn no buffer", SIW_T(0x1, 0x2, 0x02) },
	{ "ddp untagged msn range", SIW_T(0x1, 0x2, 0x03) },
	{ "ddp untagged invalid mo", SIW_T(0x1, 0x2, 0x04) },
	{ "ddp untagged too long", SIW_T(0x1, 0x2, 0x05) },
	{ "ddp untagged invalid version", SIW_T(0x1, 0x2, 0x06) },
	{ "mpa connection lost", SIW_T(0x2, 0x0, 0x01) },
	{ "mpa crc", SIW_T(0x2, 0x0, 0x02) },
	{ "mpa marker", SIW_T(0x2, 0x0, 0x03) },
	{ "mpa bad request or reply", SIW_T(0x2, 0x0, 0x04) },
	{ "mpa local catastrophic", SIW_T(0x2, 0x0, 0x05) },
	{ "mpa insufficient ird", SIW_T(0x2, 0x0, 0x06) },
	{ "mpa no matching rtr", SIW_T(0x2, 0x0, 0x07) },
};

SIW_DDP_CASE_DESC(err_case);
KUNIT_ARRAY_PARAM(err, err_cases, err_case_desc);

static void siw_ddp_term_error_row(struct kunit *test)
{
	const struct err_case *c = test->param_value;
	enum siw_ddp_err err = siw_ddp_err_lookup(c->t.layer, c->t.etype,
						  c->t.ecode);
	const struct siw_ddp_errinfo *e = siw_ddp_errinfo(err);
	const struct siw_rdmap_term_info ti = { .err = err };
	struct siw_rdmap_term_report rep;
	u8 buf[SIW_RDMAP_TERM_MAX_MSG];
	u8 *t = buf + SIW_DDP_UNTAGGED_HLEN;

	KUNIT_ASSERT_NE(test, err, SIW_DDP_ERR_UNKNOWN);
	siw_ddp_expect(test, err, &c->t);
	KUNIT_EXPECT_NE(test, e->kind, SIW_DDP_KIND_NONE);
	KUNIT_EXPECT_STRNEQ(test, siw_ddp_err_name(err), "");

	/* on the wire: layer high nibble, etype low nibble, code, no M/D/R */
	KUNIT_ASSERT_EQ(test, siw_rdmap_term_build(&ti, 1, buf, sizeof(buf)),
			SIW_DDP_UNTAGGED_HLEN + SIW_RDMAP_TERM_HLEN);
	KUNIT_EXPECT_EQ(test, t[0], (c->t.layer << 4) | c->t.etype);
	KUNIT_EXPECT_EQ(test, t[1], c->t.ecode);
	KUNIT_EXPECT_EQ(test, t[2], 0);
	KUNIT_EXPECT_EQ(test, t[3], 0);

	KUNIT_EXPECT_EQ(test, siw_rdmap_term_parse(t, SIW_RDMAP_TERM_HLEN, &rep),
			SIW_DDP_OK);
	KUNIT_EXPECT_EQ(test, rep.err, err);
}

struct lookup_case {
	const char *name;
	struct siw_ddp_triple t;
	enum siw_ddp_err err;
};

static const struct lookup_case lookup_cases[] = {
	{ "rdmap catastrophic code 0x7f", SIW_T(0x0, 0x0, 0x7f),
	  SIW_DDP_ERR_RDMAP_CATASTROPHIC },
	{ "rdmap protection 0x05 undefined", SIW_T(0x0, 0x1, 0x05),
	  SIW_DDP_ERR_UNKNOWN },
	{ "rdmap operation 0x00 undefined", SIW_T(0x0, 0x2, 0x00),
	  SIW_DDP_ERR_UNKNOWN },
	{ "rdmap etype 3 undefined", SIW_T(0x0, 0x3, 0x00),
	  SIW_DDP_ERR_UNKNOWN },
	{ "ddp catastrophic 0x01 undefined", SIW_T(0x1, 0x0, 0x01),
	  SIW_DDP_ERR_UNKNOWN },
	{ "ddp tagged 0x05 undefined", SIW_T(0x1, 0x1, 0x05),
	  SIW_DDP_ERR_UNKNOWN },
	{ "ddp untagged 0x00 undefined", SIW_T(0x1, 0x2, 0x00),
	  SIW_DDP_ERR_UNKNOWN },
	{ "ddp untagged 0x07 undefined", SIW_T(0x1, 0x2, 0x07),
	  SIW_DDP_ERR_UNKNOWN },
	{ "mpa 0x00 undefined", SIW_T(0x2, 0x0, 0x00), SIW_DDP_ERR_UNKNOWN },
	{ "mpa 0x08 undefined", SIW_T(0x2, 0x0, 0x08), SIW_DDP_ERR_UNKNOWN },
	{ "layer 3 undefined", SIW_T(0x3, 0x0, 0x00), SIW_DDP_ERR_UNKNOWN },
	{ "layer 15 undefined", SIW_T(0xf, 0xf, 0xff), SIW_DDP_ERR_UNKNOWN },
};

SIW_DDP_CASE_DESC(lookup_case);
KUNIT_ARRAY_PARAM(lookup, lookup_cases, lookup_case_desc);

static void siw_ddp_term_lookup(struct kunit *test)
{
	const struct lookup_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, siw_ddp_err_lookup(c->t.layer, c->t.etype,
						 c->t.ecode),
			c->err);
}

/* Every row of the code's table is one of the RFC rows above, once */
static void siw_ddp_term_table_complete(struct kunit *test)
{
	unsigned int i, rows = 0;

	for (i = 0; i < SIW_DDP_NUM_ERR; i++) {
		const struct siw_ddp_errinfo *e = siw_ddp_errinfo(i);

		KUNIT_EXPECT_NOT_NULL(test, e->name);
		if (!e->on_wire)
			continue;
		rows++;
		KUNIT_EXPECT_EQ_MSG(test, siw_ddp_err_lookup(e->layer, e->etype,
							     e->ecode),
				    (enum siw_ddp_err)i, "row %u", i);
	}
	KUNIT_EXPECT_EQ(test, rows, (unsigned int)ARRAY_SIZE(err_cases));
	KUNIT_EXPECT_FALSE(test, siw_ddp_errinfo(SIW_DDP_OK)->on_wire);
	KUNIT_EXPECT_FALSE(test, siw_ddp_errinfo(SIW_DDP_ERR_UNKNOWN)->on_wire);
	KUNIT_EXPECT_PTR_EQ(test, siw_ddp_errinfo(SIW_DDP_NUM_ERR + 5),
			    siw_ddp_errinfo(SIW_DDP_ERR_UNKNOWN));
}

static void siw_ddp_term_build_refuses(struct kunit *test)
{
	struct siw_rdmap_term_info ti = { .err = SIW_DDP_OK };
	u8 buf[SIW_RDMAP_TERM_MAX_MSG];

	KUNIT_EXPECT_EQ(test, siw_rdmap_term_build(&ti, 1, buf, sizeof(buf)),
			-EINVAL);
	ti.err = SIW_DDP_ERR_UNKNOWN;
	KUNIT_EXPECT_EQ(test, siw_rdmap_term_build(&ti, 1, buf, sizeof(buf)),
			-EINVAL);
	ti.err = SIW_DDP_NUM_ERR + 1;
	KUNIT_EXPECT_EQ(test, siw_rdmap_term_build(&ti, 1, buf, sizeof(buf)),
			-EINVAL);
	ti.err = SIW_DDP_ERR_LLP_CRC;
	KUNIT_EXPECT_EQ(test, siw_rdmap_term_build(&ti, 1, buf, 21), -ENOSPC);
	KUNIT_EXPECT_EQ(test, siw_rdmap_term_build(&ti, 1, buf, 22), 22);
}

static struct kunit_case siw_ddp_term_cases[] = {
	KUNIT_CASE_PARAM(siw_ddp_term_vector, term_gen_params),
	KUNIT_CASE_PARAM(siw_ddp_term_parse, parse_gen_params),
	KUNIT_CASE_PARAM(siw_ddp_term_error_row, err_gen_params),
	KUNIT_CASE_PARAM(siw_ddp_term_lookup, lookup_gen_params),
	KUNIT_CASE(siw_ddp_term_table_complete),
	KUNIT_CASE(siw_ddp_term_build_refuses),
	{}
};

static struct kunit_suite siw_ddp_term_suite = {
	.name = "siw_ddp_term",
	.test_cases = siw_ddp_term_cases,
};

kunit_test_suite(siw_ddp_term_suite);
