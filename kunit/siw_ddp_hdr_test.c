// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite siw_ddp_hdr: DDP/RDMAP header codecs and the opcode table.
 *
 * Byte vectors are written from the figures of RFC 5041 section 4 and
 * RFC 5040 section 4, octet by octet.
 */
#include <kunit/test.h>
#include <linux/errno.h>
#include <linux/limits.h>
#include <rdma/ib_verbs.h>

#include "siw_ddp_test.h"

/* Round trips: every opcode, encoded and decoded back */

struct hdr_rt_case {
	const char *name;
	struct siw_ddp_hdr h;
	struct siw_ddp_triple exp;
};

#define TAGGED_HDR(op, l, s, t) \
	{ .opcode = (op), .tagged = true, .last = (l), .stag = (s), .to = (t) }
#define UNTAGGED_HDR(op, l, q, m, o, inv) \
	{ .opcode = (op), .last = (l), .qn = (q), .msn = (m), .mo = (o), \
	  .inval_stag = (inv) }

static const struct hdr_rt_case hdr_rt_cases[] = {
	{ "write", TAGGED_HDR(0x0, true, 0x1234, 0x1000), SIW_T_OK },
	{ "write middle segment",
	  TAGGED_HDR(0x0, false, 0xabcdef01, 0x20000), SIW_T_OK },
	{ "write extreme stag and to",
	  TAGGED_HDR(0x0, true, U32_MAX, U64_MAX), SIW_T_OK },
	{ "read request", UNTAGGED_HDR(0x1, true, 1, 1, 0, 0), SIW_T_OK },
	{ "read response", TAGGED_HDR(0x2, true, 0x77, 0x8000), SIW_T_OK },
	{ "read response middle",
	  TAGGED_HDR(0x2, false, 0x100, 0), SIW_T_OK },
	{ "send", UNTAGGED_HDR(0x3, true, 0, 1, 0, 0), SIW_T_OK },
	{ "send extreme msn and mo",
	  UNTAGGED_HDR(0x3, false, 0, U32_MAX, U32_MAX, 0), SIW_T_OK },
	{ "send with invalidate",
	  UNTAGGED_HDR(0x4, true, 0, 7, 64, 0x12345678), SIW_T_OK },
	{ "send with se", UNTAGGED_HDR(0x5, true, 0, 9, 0, 0), SIW_T_OK },
	{ "send with se and invalidate",
	  UNTAGGED_HDR(0x6, true, 0, 10, 0, 0xfeedf00d), SIW_T_OK },
	{ "terminate", UNTAGGED_HDR(0x7, true, 2, 1, 0, 0), SIW_T_OK },
	{ "reserved 0x8", UNTAGGED_HDR(0x8, true, 0, 1, 0, 0),
	  T_RDMAP_OPCODE },
	{ "reserved 0x9", UNTAGGED_HDR(0x9, true, 0, 1, 0, 0),
	  T_RDMAP_OPCODE },
	{ "rfc7306 atomic request", UNTAGGED_HDR(0xa, true, 3, 1, 0, 0),
	  T_RDMAP_OPCODE },
	{ "rfc7306 atomic response", UNTAGGED_HDR(0xb, true, 3, 1, 0, 0),
	  T_RDMAP_OPCODE },
	{ "rfc7306 immediate data", UNTAGGED_HDR(0xc, true, 0, 1, 0, 0),
	  T_RDMAP_OPCODE },
	{ "rfc7306 immediate data with se",
	  UNTAGGED_HDR(0xd, true, 0, 1, 0, 0), T_RDMAP_OPCODE },
	{ "reserved 0xe", UNTAGGED_HDR(0xe, true, 0, 1, 0, 0),
	  T_RDMAP_OPCODE },
	{ "reserved 0xf tagged", TAGGED_HDR(0xf, true, 0x100, 0),
	  T_RDMAP_OPCODE },
	{ "write sent untagged", UNTAGGED_HDR(0x0, true, 0, 1, 0, 0),
	  T_RDMAP_OPCODE },
	{ "send sent tagged", TAGGED_HDR(0x3, true, 0x100, 0),
	  T_RDMAP_OPCODE },
};

SIW_DDP_CASE_DESC(hdr_rt_case);
KUNIT_ARRAY_PARAM(hdr_rt, hdr_rt_cases, hdr_rt_case_desc);

static void siw_ddp_hdr_roundtrip(struct kunit *test)
{
	const struct hdr_rt_case *c = test->param_value;
	u8 buf[SIW_DDP_UNTAGGED_HLEN + 4];
	struct siw_ddp_hdr out;
	int len;

	len = siw_ddp_hdr_encode(&c->h, buf, sizeof(buf));
	KUNIT_ASSERT_EQ(test, len, c->h.tagged ? SIW_DDP_TAGGED_HLEN :
						 SIW_DDP_UNTAGGED_HLEN);
	KUNIT_EXPECT_EQ(test, siw_ddp_hdr_len(buf, len), (size_t)len);
	siw_ddp_expect(test, siw_ddp_hdr_decode(buf, len, &out), &c->exp);

	/* every field comes back, whether the opcode is accepted or not */
	KUNIT_EXPECT_EQ(test, out.opcode, c->h.opcode);
	KUNIT_EXPECT_EQ(test, out.tagged, c->h.tagged);
	KUNIT_EXPECT_EQ(test, out.last, c->h.last);
	KUNIT_EXPECT_EQ(test, out.stag, c->h.stag);
	KUNIT_EXPECT_EQ(test, out.to, c->h.to);
	KUNIT_EXPECT_EQ(test, out.qn, c->h.qn);
	KUNIT_EXPECT_EQ(test, out.msn, c->h.msn);
	KUNIT_EXPECT_EQ(test, out.mo, c->h.mo);
	KUNIT_EXPECT_EQ(test, out.inval_stag, c->h.inval_stag);
}

/* Received octets, as the RFC figures lay them out */

struct hdr_vec_case {
	const char *name;
	u8 bytes[SIW_DDP_UNTAGGED_HLEN];
	size_t len;
	struct siw_ddp_triple exp;
	struct siw_ddp_hdr h;	/* checked when exp is OK */
};

static const struct hdr_vec_case hdr_vec_cases[] = {
	{
		.name = "rfc write octets",
		.bytes = {
			0xc1, 0x40, 0x00, 0x00, 0x12, 0x34, 0x00, 0x00,
			0x00, 0x00, 0x00, 0x00, 0x10, 0x00,
		},
		.len = 14, .exp = SIW_T_OK,
		.h = TAGGED_HDR(0x0, true, 0x1234, 0x1000),
	},
	{
		.name = "rfc read response not last octets",
		.bytes = {
			0x81, 0x42, 0xa5, 0xa5, 0xa5, 0x00, 0x00, 0x00,
			0x00, 0x01, 0x00, 0x00, 0x00, 0x80,
		},
		.len = 14, .exp = SIW_T_OK,
		.h = TAGGED_HDR(0x2, false, 0xa5a5a500, 0x100000080ULL),
	},
	{
		.name = "rfc send octets",
		.bytes = {
			0x41, 0x43, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
			0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
			0x00, 0x00,
		},
		.len = 18, .exp = SIW_T_OK,
		.h = UNTAGGED_HDR(0x3, true, 0, 1, 0, 0),
	},
	{
		.name = "rfc send with invalidate octets",
		.bytes = {
			0x41, 0x44, 0x12, 0x34, 0x56, 0x78, 0x00, 0x00,
			0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00,
			0x01, 0x00,
		},
		.len = 18, .exp = SIW_T_OK,
		.h = UNTAGGED_HDR(0x4, true, 0, 2, 0x100, 0x12345678),
	},
	{
		.name = "rfc read request octets",
		.bytes = {
			0x41, 0x41, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
			0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
			0x00, 0x00,
		},
		.len = 18, .exp = SIW_T_OK,
		.h = UNTAGGED_HDR(0x1, true, 1, 1, 0, 0),
	},
	{
		.name = "rfc terminate octets",
		.bytes = {
			0x41, 0x47, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
			0x00, 0x02, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
			0x00, 0x00,
		},
		.len = 18, .exp = SIW_T_OK,
		.h = UNTAGGED_HDR(0x7, true, 2, 1, 0, 0),
	},
	{
		.name = "send with se middle segment",
		.bytes = {
			0x01, 0x45, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
			0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00,
			0x05, 0xb4,
		},
		.len = 18, .exp = SIW_T_OK,
		.h = UNTAGGED_HDR(0x5, false, 0, 3, 1460, 0),
	},
	{
		.name = "ddp reserved bits ignored",
		.bytes = {
			0x7d, 0x43, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
			0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
			0x00, 0x00,
		},
		.len = 18, .exp = SIW_T_OK,
		.h = UNTAGGED_HDR(0x3, true, 0, 1, 0, 0),
	},
	{
		.name = "rdmap reserved bits ignored",
		.bytes = {
			0xc1, 0x70, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		},
		.len = 14, .exp = SIW_T_OK,
		.h = TAGGED_HDR(0x0, true, 0x100, 0),
	},
	{
		.name = "tagged ddp version 0",
		.bytes = {
			0xc0, 0x40, 0x00, 0x00, 0x01, 0x00,
		},
		.len = 14, .exp = T_DDP_T_VERSION,
	},
	{
		.name = "tagged ddp version 2",
		.bytes = {
			0xc2, 0x40, 0x00, 0x00, 0x01, 0x00,
		},
		.len = 14, .exp = T_DDP_T_VERSION,
	},
	{
		.name = "tagged ddp version 3",
		.bytes = {
			0xc3, 0x42, 0x00, 0x00, 0x01, 0x00,
		},
		.len = 14, .exp = T_DDP_T_VERSION,
	},
	{
		.name = "untagged ddp version 0",
		.bytes = {
			0x40, 0x43, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
			0x00, 0x00,
		},
		.len = 18, .exp = T_DDP_U_VERSION,
	},
	{
		.name = "untagged ddp version 2",
		.bytes = {
			0x42, 0x43, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
			0x00, 0x00,
		},
		.len = 18, .exp = T_DDP_U_VERSION,
	},
	{
		.name = "untagged ddp version 3",
		.bytes = {
			0x43, 0x41, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
			0x00, 0x01,
		},
		.len = 18, .exp = T_DDP_U_VERSION,
	},
	{
		.name = "rdmap version 0",
		.bytes = {
			0xc1, 0x00, 0x00, 0x00, 0x01, 0x00,
		},
		.len = 14, .exp = T_RDMAP_VERSION,
	},
	{
		.name = "rdmap version 2",
		.bytes = {
			0x41, 0x83, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
			0x00, 0x00,
		},
		.len = 18, .exp = T_RDMAP_VERSION,
	},
	{
		.name = "rdmap version 3",
		.bytes = {
			0x41, 0xc7, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
			0x00, 0x02,
		},
		.len = 18, .exp = T_RDMAP_VERSION,
	},
	{
		.name = "ddp version checked before rdmap",
		.bytes = {
			0xc0, 0x00,
		},
		.len = 14, .exp = T_DDP_T_VERSION,
	},
	{
		.name = "rdmap version checked before opcode",
		.bytes = {
			0x41, 0x0f, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
			0x00, 0x00,
		},
		.len = 18, .exp = T_RDMAP_VERSION,
	},
	{
		.name = "unknown opcode 0x8",
		.bytes = {
			0x41, 0x48, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
			0x00, 0x00,
		},
		.len = 18, .exp = T_RDMAP_OPCODE,
	},
	{
		.name = "atomic request refused",
		.bytes = {
			0x41, 0x4a, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
			0x00, 0x03,
		},
		.len = 18, .exp = T_RDMAP_OPCODE,
	},
	{
		.name = "untagged read response",
		.bytes = {
			0x41, 0x42, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
			0x00, 0x00,
		},
		.len = 18, .exp = T_RDMAP_OPCODE,
	},
	{
		.name = "tagged terminate",
		.bytes = {
			0xc1, 0x47, 0x00, 0x00, 0x01, 0x00,
		},
		.len = 14, .exp = T_RDMAP_OPCODE,
	},
	{
		.name = "tagged read request",
		.bytes = {
			0xc1, 0x41, 0x00, 0x00, 0x01, 0x00,
		},
		.len = 14, .exp = T_RDMAP_OPCODE,
	},
	{
		.name = "empty segment",
		.len = 0, .exp = T_DDP_CATA,
	},
	{
		.name = "one octet",
		.bytes = {
			0xc1,
		},
		.len = 1, .exp = T_DDP_CATA,
	},
	{
		.name = "tagged header cut at 13",
		.bytes = {
			0xc1, 0x40,
		},
		.len = 13, .exp = T_DDP_CATA,
	},
	{
		.name = "untagged header cut at 17",
		.bytes = {
			0x41, 0x43,
		},
		.len = 17, .exp = T_DDP_CATA,
	},
	{
		.name = "untagged header cut at 14",
		.bytes = {
			0x41, 0x43,
		},
		.len = 14, .exp = T_DDP_CATA,
	},
};

SIW_DDP_CASE_DESC(hdr_vec_case);
KUNIT_ARRAY_PARAM(hdr_vec, hdr_vec_cases, hdr_vec_case_desc);

static void siw_ddp_hdr_vector(struct kunit *test)
{
	const struct hdr_vec_case *c = test->param_value;
	struct siw_ddp_hdr out;
	u8 again[SIW_DDP_UNTAGGED_HLEN];

	siw_ddp_expect(test, siw_ddp_hdr_decode(c->bytes, c->len, &out),
		       &c->exp);
	if (!c->exp.ok)
		return;

	KUNIT_EXPECT_EQ(test, out.opcode, c->h.opcode);
	KUNIT_EXPECT_EQ(test, out.tagged, c->h.tagged);
	KUNIT_EXPECT_EQ(test, out.last, c->h.last);
	KUNIT_EXPECT_EQ(test, out.stag, c->h.stag);
	KUNIT_EXPECT_EQ(test, out.to, c->h.to);
	KUNIT_EXPECT_EQ(test, out.qn, c->h.qn);
	KUNIT_EXPECT_EQ(test, out.msn, c->h.msn);
	KUNIT_EXPECT_EQ(test, out.mo, c->h.mo);
	KUNIT_EXPECT_EQ(test, out.inval_stag, c->h.inval_stag);

	/* re-encoding gives the RFC octets back, reserved bits cleared */
	KUNIT_ASSERT_EQ(test, siw_ddp_hdr_encode(&out, again, sizeof(again)),
			(int)c->len);
	KUNIT_EXPECT_EQ(test, again[0], c->bytes[0] & ~0x3c);
	KUNIT_EXPECT_EQ(test, again[1], c->bytes[1] & ~0x30);
	SIW_EXPECT_BYTES(test, again + 2, c->bytes + 2, c->len - 2);
}

/* The opcode table against RFC 5040 section 4.3 */

struct opcode_case {
	const char *name;
	u8 opcode;
	bool supported;
	bool tagged;
	u8 qn;
	u8 class;
	bool solicited;
	bool invalidate;
	u32 access;
};

static const struct opcode_case opcode_cases[] = {
	{ "0x0 rdma write", 0x0, true, true, 0, SIW_RDMAP_CLASS_WRITE,
	  false, false, IB_ACCESS_REMOTE_WRITE },
	{ "0x1 read request", 0x1, true, false, 1, SIW_RDMAP_CLASS_READ_REQ,
	  false, false, IB_ACCESS_REMOTE_READ },
	{ "0x2 read response", 0x2, true, true, 0,
	  SIW_RDMAP_CLASS_READ_RESP, false, false, IB_ACCESS_REMOTE_WRITE },
	{ "0x3 send", 0x3, true, false, 0, SIW_RDMAP_CLASS_SEND },
	{ "0x4 send with invalidate", 0x4, true, false, 0,
	  SIW_RDMAP_CLASS_SEND, false, true },
	{ "0x5 send with se", 0x5, true, false, 0, SIW_RDMAP_CLASS_SEND,
	  true, false },
	{ "0x6 send with se and invalidate", 0x6, true, false, 0,
	  SIW_RDMAP_CLASS_SEND, true, true },
	{ "0x7 terminate", 0x7, true, false, 2, SIW_RDMAP_CLASS_TERMINATE },
	{ "0x8 reserved", 0x8 },
	{ "0x9 reserved", 0x9 },
	{ "0xa atomic request unsupported", 0xa },
	{ "0xb atomic response unsupported", 0xb },
	{ "0xc immediate unsupported", 0xc },
	{ "0xd immediate with se unsupported", 0xd },
	{ "0xe reserved", 0xe },
	{ "0xf reserved", 0xf },
};

SIW_DDP_CASE_DESC(opcode_case);
KUNIT_ARRAY_PARAM(opcode, opcode_cases, opcode_case_desc);

static void siw_ddp_opcode_table(struct kunit *test)
{
	const struct opcode_case *c = test->param_value;
	const struct siw_rdmap_opinfo *op = siw_rdmap_opinfo(c->opcode);
	struct siw_ddp_hdr h;

	KUNIT_ASSERT_NOT_NULL(test, op->name);
	KUNIT_EXPECT_EQ(test, siw_rdmap_opcode_supported(c->opcode),
			c->supported);
	KUNIT_EXPECT_EQ(test, siw_rdmap_hdr_init(&h, c->opcode),
			c->supported ? 0 : -EINVAL);
	KUNIT_EXPECT_EQ(test, op->class, c->class);
	if (!c->supported)
		return;

	KUNIT_EXPECT_EQ(test, !!(op->flags & SIW_RDMAP_F_TAGGED), c->tagged);
	KUNIT_EXPECT_EQ(test, op->hdr_len, c->tagged ? 14 : 18);
	if (!c->tagged)
		KUNIT_EXPECT_EQ(test, op->qn, c->qn);
	KUNIT_EXPECT_EQ(test, !!(op->flags & SIW_RDMAP_F_SOLICITED),
			c->solicited);
	KUNIT_EXPECT_EQ(test, !!(op->flags & SIW_RDMAP_F_INVALIDATE),
			c->invalidate);
	KUNIT_EXPECT_EQ(test, op->access, c->access);

	/* siw_rdmap_hdr_init() follows the table */
	KUNIT_EXPECT_EQ(test, h.opcode, c->opcode);
	KUNIT_EXPECT_EQ(test, h.tagged, c->tagged);
	KUNIT_EXPECT_TRUE(test, h.last);
	if (!c->tagged)
		KUNIT_EXPECT_EQ(test, h.qn, (u32)c->qn);
}

/* Single cases: Read Request header and encoder limits */

static void siw_ddp_rreq_vector(struct kunit *test)
{
	static const u8 wire[SIW_RDMAP_RREQ_LEN] = {
		0x11, 0x22, 0x33, 0x44,				/* sink STag */
		0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x20, 0x00,	/* sink TO */
		0x00, 0x01, 0x00, 0x00,				/* read size */
		0x55, 0x66, 0x77, 0x88,				/* source STag */
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xf0, 0x00,	/* source TO */
	};
	struct siw_rdmap_rreq rr;
	u8 again[SIW_RDMAP_RREQ_LEN];

	siw_rdmap_rreq_decode(wire, &rr);
	KUNIT_EXPECT_EQ(test, rr.sink_stag, 0x11223344U);
	KUNIT_EXPECT_EQ(test, rr.sink_to, 0x100002000ULL);
	KUNIT_EXPECT_EQ(test, rr.len, 0x10000U);
	KUNIT_EXPECT_EQ(test, rr.src_stag, 0x55667788U);
	KUNIT_EXPECT_EQ(test, rr.src_to, 0xfffffffffffff000ULL);

	siw_rdmap_rreq_encode(&rr, again);
	SIW_EXPECT_BYTES(test, again, wire, sizeof(wire));
}

static void siw_ddp_hdr_encode_limits(struct kunit *test)
{
	struct siw_ddp_hdr h = TAGGED_HDR(0x0, true, 0x100, 0);
	u8 buf[SIW_DDP_UNTAGGED_HLEN];

	KUNIT_EXPECT_EQ(test, siw_ddp_hdr_encode(&h, buf, 13), -ENOSPC);
	KUNIT_EXPECT_EQ(test, siw_ddp_hdr_encode(&h, buf, 14), 14);
	h.tagged = false;
	KUNIT_EXPECT_EQ(test, siw_ddp_hdr_encode(&h, buf, 17), -ENOSPC);
	KUNIT_EXPECT_EQ(test, siw_ddp_hdr_encode(&h, buf, 18), 18);
	h.opcode = SIW_RDMAP_NUM_OPCODES;
	KUNIT_EXPECT_EQ(test, siw_ddp_hdr_encode(&h, buf, 18), -EINVAL);
	KUNIT_EXPECT_EQ(test, siw_rdmap_hdr_init(&h, 0x10), -EINVAL);
	KUNIT_EXPECT_EQ(test, siw_ddp_hdr_len(buf, 0), (size_t)0);
}

static struct kunit_case siw_ddp_hdr_cases[] = {
	KUNIT_CASE_PARAM(siw_ddp_hdr_roundtrip, hdr_rt_gen_params),
	KUNIT_CASE_PARAM(siw_ddp_hdr_vector, hdr_vec_gen_params),
	KUNIT_CASE_PARAM(siw_ddp_opcode_table, opcode_gen_params),
	KUNIT_CASE(siw_ddp_rreq_vector),
	KUNIT_CASE(siw_ddp_hdr_encode_limits),
	{}
};

static struct kunit_suite siw_ddp_hdr_suite = {
	.name = "siw_ddp_hdr",
	.test_cases = siw_ddp_hdr_cases,
};

kunit_test_suite(siw_ddp_hdr_suite);
