// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite siw_ddp_place: untagged placement rules (RFC 5041 sections
 * 5 to 7): queue numbers, MSN window, MO and length within the posted
 * buffer, the L bit, and Read Requests against the IRD.
 */
#include <kunit/test.h>
#include <linux/limits.h>

#include "siw_ddp_test.h"

#define IRD		2
#define RQ_MSN		5	/* queue 0 waits for this MSN */
#define RQ_BUF		100	/* with a posted buffer of this size */

struct place_q {
	u32 q0_msn;
	u32 q0_avail;
	u32 q1_avail;
};

static const struct place_q q_ready = { RQ_MSN, 2, IRD };
static const struct place_q q_fresh = { 1, 1, IRD };
static const struct place_q q_msn_max = { U32_MAX, 1, IRD };
static const struct place_q q_msn_zero = { 0, 1, IRD };
static const struct place_q q_no_recv = { RQ_MSN, 0, IRD };
static const struct place_q q_ird_full = { RQ_MSN, 2, 0 };

struct place_case {
	const char *name;
	struct siw_ddp_hdr h;
	u32 len;
	/* queue 0 and 1 state; queue 2 as siw_ddp_uq_init() leaves it */
	const struct place_q *q;
	struct siw_ddp_triple exp;
};

#define P_SEG(op, q, m, o, l) \
	{ .opcode = (op), .qn = (q), .msn = (m), .mo = (o), .last = (l) }
#define P_SEND(m, o, l)	P_SEG(SIW_RDMAP_SEND, 0, m, o, l)
#define P_RREQ(m)		P_SEG(SIW_RDMAP_READ_REQ, 1, m, 0, true)
#define P_TERM(m)		P_SEG(SIW_RDMAP_TERMINATE, 2, m, 0, true)

static const struct place_case place_cases[] = {
	/* buffer boundaries */
	{ "send fills buffer",
	  P_SEND(RQ_MSN, 0, true), RQ_BUF,
	  &q_ready, SIW_T_OK },
	{ "mo + len at end of buffer",
	  P_SEND(RQ_MSN, 99, true), 1,
	  &q_ready, SIW_T_OK },
	{ "mo + len one past end",
	  P_SEND(RQ_MSN, 99, false), 2,
	  &q_ready, T_DDP_U_TOO_LONG },
	{ "mo at end of buffer",
	  P_SEND(RQ_MSN, RQ_BUF, true), 1,
	  &q_ready, T_DDP_U_MO },
	{ "mo far past buffer",
	  P_SEND(RQ_MSN, U32_MAX, true), 1,
	  &q_ready, T_DDP_U_MO },
	{ "message longer than buffer",
	  P_SEND(RQ_MSN, 0, true), RQ_BUF + 1,
	  &q_ready, T_DDP_U_TOO_LONG },
	{ "mo + len wraps 2^32",
	  P_SEND(RQ_MSN, 50, true), U32_MAX - 10,
	  &q_ready, T_DDP_U_TOO_LONG },
	{ "zero length send",
	  P_SEND(RQ_MSN, 0, true), 0,
	  &q_ready, SIW_T_OK },
	{ "zero length tail at end of buffer",
	  P_SEND(RQ_MSN, RQ_BUF, true), 0,
	  &q_ready, SIW_T_OK },
	{ "zero length mo past buffer",
	  P_SEND(RQ_MSN, RQ_BUF + 1, true), 0,
	  &q_ready, T_DDP_U_MO },
	{ "zero length mo far past buffer",
	  P_SEND(RQ_MSN, 5000, false), 0,
	  &q_ready, T_DDP_U_MO },
	{ "middle segment",
	  P_SEND(RQ_MSN, 40, false), 20,
	  &q_ready, SIW_T_OK },
	{ "send with invalidate",
	  P_SEG(SIW_RDMAP_SEND_INV, 0, RQ_MSN, 0, true), 10,
	  &q_ready, SIW_T_OK },
	{ "send with se and invalidate",
	  P_SEG(SIW_RDMAP_SEND_SE_INV, 0, RQ_MSN, 0, true), 10,
	  &q_ready, SIW_T_OK },
	/* queue numbers */
	{ "reserved opcode",
	  P_SEG(0x8, 0, RQ_MSN, 0, true), 10,
	  &q_ready, T_RDMAP_OPCODE },
	{ "tagged opcode",
	  P_SEG(SIW_RDMAP_WRITE, 0, RQ_MSN, 0, true), 10,
	  &q_ready, T_RDMAP_OPCODE },
	{ "qn 3",
	  P_SEG(SIW_RDMAP_SEND, 3, RQ_MSN, 0, true), 10,
	  &q_ready, T_DDP_U_QN },
	{ "qn 0xffffffff",
	  P_SEG(SIW_RDMAP_SEND, U32_MAX, RQ_MSN, 0, true), 10,
	  &q_ready, T_DDP_U_QN },
	{ "send on read queue",
	  P_SEG(SIW_RDMAP_SEND, 1, 1, 0, true), 10,
	  &q_ready, T_DDP_U_QN },
	{ "send on terminate queue",
	  P_SEG(SIW_RDMAP_SEND_SE, 2, 1, 0, true), 10,
	  &q_ready, T_DDP_U_QN },
	{ "read request on send queue",
	  P_SEG(SIW_RDMAP_READ_REQ, 0, RQ_MSN, 0, true), 28,
	  &q_ready, T_DDP_U_QN },
	{ "terminate on read queue",
	  P_SEG(SIW_RDMAP_TERMINATE, 1, 1, 0, true), 4,
	  &q_ready, T_DDP_U_QN },
	/* MSN ordering */
	{ "msn one behind",
	  P_SEND(RQ_MSN - 1, 0, true), 10,
	  &q_ready, T_DDP_U_MSN_RANGE },
	{ "msn one ahead",
	  P_SEND(RQ_MSN + 1, 0, true), 10,
	  &q_ready, T_DDP_U_MSN_RANGE },
	{ "msn far ahead",
	  P_SEND(RQ_MSN + 0x80000000U, 0, true), 10,
	  &q_ready, T_DDP_U_MSN_RANGE },
	{ "msn 0 on a fresh queue",
	  P_SEND(0, 0, true), 10,
	  &q_fresh, T_DDP_U_MSN_RANGE },
	{ "msn 0xffffffff expected",
	  P_SEND(U32_MAX, 0, true), 10,
	  &q_msn_max, SIW_T_OK },
	{ "msn wrapped to 0",
	  P_SEND(0, 0, true), 10,
	  &q_msn_zero, SIW_T_OK },
	{ "stale msn after wrap",
	  P_SEND(U32_MAX, 0, true), 10,
	  &q_msn_zero, T_DDP_U_MSN_RANGE },
	{ "no receive posted",
	  P_SEND(RQ_MSN, 0, true), 10,
	  &q_no_recv, T_DDP_U_NO_BUF },
	{ "no receive posted, zero length",
	  P_SEND(RQ_MSN, 0, true), 0,
	  &q_no_recv, T_DDP_U_NO_BUF },
	{ "wrong msn and no receive",
	  P_SEND(RQ_MSN + 1, 0, true), 10,
	  &q_no_recv, T_DDP_U_MSN_RANGE },
	/* Read Requests */
	{ "read request",
	  P_RREQ(1), SIW_RDMAP_RREQ_LEN,
	  &q_ready, SIW_T_OK },
	{ "read request past ird",
	  P_RREQ(1), SIW_RDMAP_RREQ_LEN,
	  &q_ird_full, T_DDP_U_NO_BUF },
	{ "read request msn gap",
	  P_RREQ(2), SIW_RDMAP_RREQ_LEN,
	  &q_ready, T_DDP_U_MSN_RANGE },
	{ "read request too short",
	  P_RREQ(1), SIW_RDMAP_RREQ_LEN - 1,
	  &q_ready, T_RDMAP_OP_UNSPEC },
	{ "read request too long",
	  P_RREQ(1), SIW_RDMAP_RREQ_LEN + 1,
	  &q_ready, T_DDP_U_TOO_LONG },
	{ "read request without l bit",
	  P_SEG(SIW_RDMAP_READ_REQ, 1, 1, 0, false), SIW_RDMAP_RREQ_LEN,
	  &q_ready, T_RDMAP_OP_UNSPEC },
	{ "read request split at mo 4",
	  P_SEG(SIW_RDMAP_READ_REQ, 1, 1, 4, true), SIW_RDMAP_RREQ_LEN - 4,
	  &q_ready, T_RDMAP_OP_UNSPEC },
	{ "read request empty",
	  P_RREQ(1), 0,
	  &q_ready, T_RDMAP_OP_UNSPEC },
	/* Terminate */
	{ "terminate, header only",
	  P_TERM(1), SIW_RDMAP_TERM_HLEN,
	  &q_ready, SIW_T_OK },
	{ "terminate, every part",
	  P_TERM(1), SIW_RDMAP_TERM_MAX_LEN,
	  &q_ready, SIW_T_OK },
	{ "terminate too short",
	  P_TERM(1), SIW_RDMAP_TERM_HLEN - 1,
	  &q_ready, T_RDMAP_OP_UNSPEC },
	{ "terminate too long",
	  P_TERM(1), SIW_RDMAP_TERM_MAX_LEN + 1,
	  &q_ready, T_DDP_U_TOO_LONG },
	{ "second terminate",
	  P_TERM(2), SIW_RDMAP_TERM_HLEN,
	  &q_ready, T_DDP_U_MSN_RANGE },
	{ "terminate without l bit",
	  P_SEG(SIW_RDMAP_TERMINATE, 2, 1, 0, false), SIW_RDMAP_TERM_HLEN,
	  &q_ready, T_RDMAP_OP_UNSPEC },
};

SIW_DDP_CASE_DESC(place_case);
KUNIT_ARRAY_PARAM(place, place_cases, place_case_desc);

static void siw_ddp_place_untagged(struct kunit *test)
{
	const struct place_case *c = test->param_value;
	struct siw_ddp_uq q[SIW_DDP_NUM_QN];

	siw_ddp_uq_init(q, IRD);
	q[SIW_DDP_QN_SEND].msn = c->q->q0_msn;
	q[SIW_DDP_QN_SEND].avail = c->q->q0_avail;
	q[SIW_DDP_QN_SEND].buf_len = RQ_BUF;
	q[SIW_DDP_QN_RREQ].avail = c->q->q1_avail;
	/* the segments before this one ended where it begins */
	q[SIW_DDP_QN_SEND].next_mo = c->h.mo;

	siw_ddp_expect(test, siw_ddp_untagged_check(&c->h, c->len, q),
		       &c->exp);
}

/*
 * A Send's segments continue one another: a first segment at MO 0, each
 * next one where the one before ended, the next message at 0 again
 */
static void siw_ddp_place_mo_continuity(struct kunit *test)
{
	const struct siw_ddp_triple bad_mo = T_DDP_U_MO;
	const struct siw_ddp_triple ok = SIW_T_OK;
	struct siw_ddp_uq q[SIW_DDP_NUM_QN];
	struct siw_ddp_hdr h;

	siw_ddp_uq_init(q, IRD);
	q[SIW_DDP_QN_SEND].avail = 2;
	q[SIW_DDP_QN_SEND].buf_len = RQ_BUF;
	/* a last segment claiming 60 octets before it that never came */
	h = (struct siw_ddp_hdr)P_SEND(1, 60, true);
	siw_ddp_expect(test, siw_ddp_untagged_check(&h, 0, q), &bad_mo);
	siw_ddp_expect(test, siw_ddp_untagged_check(&h, 10, q), &bad_mo);
	/* 60 octets, then the rest from 60 */
	h = (struct siw_ddp_hdr)P_SEND(1, 0, false);
	KUNIT_ASSERT_FALSE(test, siw_ddp_uq_advance(&q[0], &h, 60, NULL));
	h = (struct siw_ddp_hdr)P_SEND(1, 61, true);
	siw_ddp_expect(test, siw_ddp_untagged_check(&h, 10, q), &bad_mo);
	h = (struct siw_ddp_hdr)P_SEND(1, 0, true);
	siw_ddp_expect(test, siw_ddp_untagged_check(&h, 10, q), &bad_mo);
	h = (struct siw_ddp_hdr)P_SEND(1, 60, true);
	siw_ddp_expect(test, siw_ddp_untagged_check(&h, 10, q), &ok);
	KUNIT_ASSERT_TRUE(test, siw_ddp_uq_advance(&q[0], &h, 10, NULL));
	/* the next message starts at 0 */
	h = (struct siw_ddp_hdr)P_SEND(2, 70, true);
	siw_ddp_expect(test, siw_ddp_untagged_check(&h, 10, q), &bad_mo);
	h = (struct siw_ddp_hdr)P_SEND(2, 0, true);
	siw_ddp_expect(test, siw_ddp_untagged_check(&h, 10, q), &ok);
}

/* The L bit completes a message; the queue moves on */

struct advance_case {
	const char *name;
	struct siw_ddp_hdr h;
	u32 len;
	bool completes;
	u32 msg_len;
};

static const struct advance_case advance_cases[] = {
	{ "first of two segments", P_SEND(RQ_MSN, 0, false), 60, false },
	{ "last of two segments", P_SEND(RQ_MSN, 60, true), 40, true, 100 },
	{ "single segment", P_SEND(RQ_MSN, 0, true), 17, true, 17 },
	{ "zero length message", P_SEND(RQ_MSN, 0, true), 0, true, 0 },
	{ "last segment empty", P_SEND(RQ_MSN, 64, true), 0, true, 64 },
};

SIW_DDP_CASE_DESC(advance_case);
KUNIT_ARRAY_PARAM(advance, advance_cases, advance_case_desc);

static void siw_ddp_place_advance(struct kunit *test)
{
	const struct advance_case *c = test->param_value;
	struct siw_ddp_uq q = { .msn = RQ_MSN, .avail = 3, .buf_len = RQ_BUF };
	u32 msg_len = 0xdead;

	KUNIT_EXPECT_EQ(test, siw_ddp_uq_advance(&q, &c->h, c->len, &msg_len),
			c->completes);
	KUNIT_EXPECT_EQ(test, q.msn, c->completes ? RQ_MSN + 1 : RQ_MSN);
	KUNIT_EXPECT_EQ(test, q.avail, c->completes ? 2U : 3U);
	KUNIT_EXPECT_EQ(test, msg_len, c->completes ? c->msg_len : 0xdead);
}

/* Sequences: IRD exhaustion and MSN wrap */

static enum siw_ddp_err siw_ddp_rx(struct siw_ddp_uq q[SIW_DDP_NUM_QN],
				   const struct siw_ddp_hdr *h, u32 len)
{
	enum siw_ddp_err err = siw_ddp_untagged_check(h, len, q);

	if (!err)
		siw_ddp_uq_advance(&q[h->qn], h, len, NULL);
	return err;
}

static void siw_ddp_place_ird_sequence(struct kunit *test)
{
	const struct siw_ddp_triple no_buf = T_DDP_U_NO_BUF;
	const struct siw_ddp_triple ok = SIW_T_OK;
	struct siw_ddp_uq q[SIW_DDP_NUM_QN];
	struct siw_ddp_hdr h = P_RREQ(1);

	siw_ddp_uq_init(q, IRD);
	siw_ddp_expect(test, siw_ddp_rx(q, &h, SIW_RDMAP_RREQ_LEN), &ok);
	h.msn = 2;
	siw_ddp_expect(test, siw_ddp_rx(q, &h, SIW_RDMAP_RREQ_LEN), &ok);
	/* IRD is 2: the third outstanding Read Request is refused */
	h.msn = 3;
	siw_ddp_expect(test, siw_ddp_rx(q, &h, SIW_RDMAP_RREQ_LEN), &no_buf);
	KUNIT_EXPECT_EQ(test, q[SIW_DDP_QN_RREQ].msn, 3U);

	/* one Read Response sent: the slot comes back */
	q[SIW_DDP_QN_RREQ].avail++;
	siw_ddp_expect(test, siw_ddp_rx(q, &h, SIW_RDMAP_RREQ_LEN), &ok);
	h.msn = 4;
	siw_ddp_expect(test, siw_ddp_rx(q, &h, SIW_RDMAP_RREQ_LEN), &no_buf);
}

static void siw_ddp_place_msn_wrap(struct kunit *test)
{
	const struct siw_ddp_triple range = T_DDP_U_MSN_RANGE;
	const struct siw_ddp_triple ok = SIW_T_OK;
	struct siw_ddp_uq q[SIW_DDP_NUM_QN];
	struct siw_ddp_hdr h = P_SEND(U32_MAX - 1, 0, true);

	siw_ddp_uq_init(q, IRD);
	q[SIW_DDP_QN_SEND] = (struct siw_ddp_uq){
		.msn = U32_MAX - 1, .avail = 4, .buf_len = RQ_BUF,
	};
	siw_ddp_expect(test, siw_ddp_rx(q, &h, 8), &ok);
	h.msn = U32_MAX;
	siw_ddp_expect(test, siw_ddp_rx(q, &h, 8), &ok);
	h.msn = 0;
	siw_ddp_expect(test, siw_ddp_rx(q, &h, 8), &ok);
	/* a replay of an old message is outside the window */
	h.msn = U32_MAX;
	siw_ddp_expect(test, siw_ddp_rx(q, &h, 8), &range);
	KUNIT_EXPECT_EQ(test, q[SIW_DDP_QN_SEND].msn, 1U);
	KUNIT_EXPECT_EQ(test, q[SIW_DDP_QN_SEND].avail, 1U);
}

static void siw_ddp_place_init(struct kunit *test)
{
	struct siw_ddp_uq q[SIW_DDP_NUM_QN];
	unsigned int i;

	siw_ddp_uq_init(q, 16);
	/* RFC 5041 4.3: the first MSN of every queue is 1 */
	for (i = 0; i < SIW_DDP_NUM_QN; i++)
		KUNIT_EXPECT_EQ(test, q[i].msn, 1U);
	KUNIT_EXPECT_EQ(test, q[SIW_DDP_QN_SEND].avail, 0U);
	KUNIT_EXPECT_EQ(test, q[SIW_DDP_QN_RREQ].avail, 16U);
	KUNIT_EXPECT_EQ(test, q[SIW_DDP_QN_RREQ].buf_len, 28U);
	KUNIT_EXPECT_EQ(test, q[SIW_DDP_QN_TERM].avail, 1U);
	KUNIT_EXPECT_EQ(test, q[SIW_DDP_QN_TERM].buf_len, 52U);
}

static struct kunit_case siw_ddp_place_cases[] = {
	KUNIT_CASE_PARAM(siw_ddp_place_untagged, place_gen_params),
	KUNIT_CASE(siw_ddp_place_mo_continuity),
	KUNIT_CASE_PARAM(siw_ddp_place_advance, advance_gen_params),
	KUNIT_CASE(siw_ddp_place_ird_sequence),
	KUNIT_CASE(siw_ddp_place_msn_wrap),
	KUNIT_CASE(siw_ddp_place_init),
	{}
};

static struct kunit_suite siw_ddp_place_suite = {
	.name = "siw_ddp_place",
	.test_cases = siw_ddp_place_cases,
};

kunit_test_suite(siw_ddp_place_suite);
