// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite siw_wqe: checking work requests at post time, and the
 * layout of the rings shared with user space.
 *
 * Send cases cover every operation siw carries out (SEND, solicited
 * SEND, SEND_WITH_INV, RDMA_WRITE, RDMA_READ, RDMA_READ_WITH_INV,
 * REG_MR, LOCAL_INV, inline data) and every one it refuses at post
 * time (immediate data, atomics, memory windows, LSO), SGE counts at
 * and past the limits, inline data at and past its limit, and message
 * lengths that overflow 32 bits. User entries are checked the same way
 * from what rdma-core's provider writes.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "siw_qp/siw_wqe.h"

static const struct siw_wq_caps kcaps = {
	.max_sge = SIW_DEV_MAX_SGE, .max_inline = SIW_DEV_MAX_INLINE,
};

static u8 inline_src[2 * SIW_DEV_MAX_INLINE];

/**
 * struct send_case - one kernel send work request
 * @name: case name
 * @opcode: IB_WR_*
 * @send_flags: IB_SEND_*
 * @num_sge: SGEs, each @len octets, addresses in inline_src
 * @len: octets per SGE
 * @rv: expected result
 * @siw_op: expected enum siw_opcode
 * @flags: expected SIW_WQE_* flags
 */
struct send_case {
	const char *name;
	u32 opcode;
	int send_flags;
	int num_sge;
	u32 len;
	int rv;
	u8 siw_op;
	u16 flags;
};

#define SIG	IB_SEND_SIGNALED
#define SOL	IB_SEND_SOLICITED
#define INL	IB_SEND_INLINE

static const struct send_case send_cases[] = {
	{ "send", IB_WR_SEND, 0, 1, 64, 0, SIW_OP_SEND, 0 },
	{ "send_signalled", IB_WR_SEND, SIG, 2, 64, 0, SIW_OP_SEND,
	  SIW_WQE_SIGNALLED },
	{ "send_solicited", IB_WR_SEND, SOL, 1, 8, 0, SIW_OP_SEND,
	  SIW_WQE_SOLICITED },
	{ "send_with_inv", IB_WR_SEND_WITH_INV, 0, 1, 8, 0,
	  SIW_OP_SEND_REMOTE_INV, 0 },
	{ "send_zero_sge", IB_WR_SEND, 0, 0, 0, 0, SIW_OP_SEND, 0 },
	{ "send_max_sge", IB_WR_SEND, 0, SIW_DEV_MAX_SGE, 1, 0, SIW_OP_SEND, 0 },
	{ "send_too_many_sge", IB_WR_SEND, 0, SIW_DEV_MAX_SGE + 1, 1, -EINVAL },
	{ "send_negative_sge", IB_WR_SEND, 0, -1, 1, -EINVAL },
	{ "send_len_overflow", IB_WR_SEND, 0, 2, 0x80000000U, -EINVAL },
	{ "send_len_max", IB_WR_SEND, 0, 1, U32_MAX, 0, SIW_OP_SEND, 0 },
	{ "send_inline", IB_WR_SEND, INL, 3, 16, 0, SIW_OP_SEND,
	  SIW_WQE_INLINE },
	{ "send_inline_max", IB_WR_SEND, INL, 2, SIW_DEV_MAX_INLINE / 2, 0,
	  SIW_OP_SEND, SIW_WQE_INLINE },
	{ "send_inline_too_long", IB_WR_SEND, INL, 2,
	  SIW_DEV_MAX_INLINE / 2 + 1, -EINVAL },
	{ "write", IB_WR_RDMA_WRITE, SIG, 1, 4096, 0, SIW_OP_WRITE,
	  SIW_WQE_SIGNALLED },
	{ "write_inline", IB_WR_RDMA_WRITE, INL, 1, 80, 0, SIW_OP_WRITE,
	  SIW_WQE_INLINE },
	{ "write_solicited_ignored", IB_WR_RDMA_WRITE, SOL, 1, 8, 0,
	  SIW_OP_WRITE, 0 },
	{ "read", IB_WR_RDMA_READ, 0, 1, 4096, 0, SIW_OP_READ, 0 },
	{ "read_max_sge", IB_WR_RDMA_READ, 0, SIW_DEV_MAX_SGE, 8, 0,
	  SIW_OP_READ, 0 },
	{ "read_inline_refused", IB_WR_RDMA_READ, INL, 1, 8, -EINVAL },
	{ "read_with_inv", IB_WR_RDMA_READ_WITH_INV, 0, 1, 8, 0,
	  SIW_OP_READ_LOCAL_INV, 0 },
	{ "local_inv", IB_WR_LOCAL_INV, SIG, 0, 0, 0, SIW_OP_INVAL_STAG,
	  SIW_WQE_SIGNALLED },
	{ "write_imm_refused", IB_WR_RDMA_WRITE_WITH_IMM, 0, 1, 8, -EINVAL },
	{ "send_imm_refused", IB_WR_SEND_WITH_IMM, 0, 1, 8, -EINVAL },
	{ "cmp_swap_refused", IB_WR_ATOMIC_CMP_AND_SWP, 0, 1, 8, -EINVAL },
	{ "fetch_add_refused", IB_WR_ATOMIC_FETCH_AND_ADD, 0, 1, 8, -EINVAL },
	{ "masked_atomic_refused", IB_WR_MASKED_ATOMIC_CMP_AND_SWP, 0, 1, 8,
	  -EINVAL },
	{ "bind_mw_refused", IB_WR_BIND_MW, 0, 0, 0, -EINVAL },
	{ "lso_refused", IB_WR_LSO, 0, 1, 8, -EINVAL },
	{ "reg_mr_integrity_refused", IB_WR_REG_MR_INTEGRITY, 0, 0, 0, -EINVAL },
	{ "opcode_out_of_range", 0xf5, 0, 0, 0, -EINVAL },
};

static void send_desc(const struct send_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(send, send_cases, send_desc);

static void wqe_send(struct kunit *test)
{
	const struct send_case *c = test->param_value;
	struct ib_sge sg[SIW_DEV_MAX_SGE + 1];
	struct ib_rdma_wr wr = {};
	struct siw_wqe *wqe;
	int i, rv;

	wqe = kunit_kzalloc(test, sizeof(*wqe), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, wqe);
	for (i = 0; i < sizeof(inline_src); i++)
		inline_src[i] = i * 7 + 1;
	for (i = 0; i < ARRAY_SIZE(sg); i++) {
		sg[i].addr = (uintptr_t)inline_src +
			     (c->send_flags & INL ? i * c->len : 0);
		sg[i].length = c->len;
		sg[i].lkey = 0x100 + i;
	}
	wr.wr.wr_id = 0xfeed;
	wr.wr.opcode = c->opcode;
	wr.wr.send_flags = c->send_flags;
	wr.wr.num_sge = c->num_sge;
	wr.wr.sg_list = sg;
	wr.wr.ex.invalidate_rkey = 0x4242;
	wr.remote_addr = 0x123456789ULL;
	wr.rkey = 0x777;

	rv = siw_wqe_from_send_wr(&wr.wr, &kcaps, wqe);
	KUNIT_ASSERT_EQ(test, rv, c->rv);
	if (rv)
		return;
	KUNIT_EXPECT_EQ(test, wqe->opcode, c->siw_op);
	KUNIT_EXPECT_EQ(test, wqe->flags, c->flags);
	KUNIT_EXPECT_EQ(test, wqe->id, 0xfeedULL);
	KUNIT_EXPECT_FALSE(test, wqe->flags & SIW_WQE_VALID);
	if (c->send_flags & INL) {
		KUNIT_EXPECT_EQ(test, wqe->inline_len, c->num_sge * c->len);
		KUNIT_EXPECT_EQ(test, wqe->num_sge, 0);
		KUNIT_EXPECT_EQ(test, memcmp(wqe->data, inline_src,
					     wqe->inline_len), 0);
	} else if (c->opcode != IB_WR_LOCAL_INV) {
		KUNIT_EXPECT_EQ(test, wqe->num_sge, c->num_sge);
		for (i = 0; i < c->num_sge; i++)
			KUNIT_EXPECT_EQ(test, wqe->sge[i].lkey, 0x100U + i);
	}
	if (c->opcode == IB_WR_RDMA_WRITE || c->opcode == IB_WR_RDMA_READ) {
		KUNIT_EXPECT_EQ(test, wqe->raddr, 0x123456789ULL);
		KUNIT_EXPECT_EQ(test, wqe->rkey, 0x777U);
	}
	if (c->opcode == IB_WR_SEND_WITH_INV || c->opcode == IB_WR_LOCAL_INV ||
	    c->opcode == IB_WR_RDMA_READ_WITH_INV)
		KUNIT_EXPECT_EQ(test, wqe->inval_stag, 0x4242U);
}

/* REG_MR: the consumer may change the key, never the index */
static void wqe_reg_mr(struct kunit *test)
{
	struct ib_mr mr = { .lkey = 0x1234ab, .rkey = 0x1234ab,
			    .type = IB_MR_TYPE_MEM_REG };
	struct ib_reg_wr wr = { .wr.opcode = IB_WR_REG_MR, .mr = &mr,
				.key = 0x1234cd,
				.access = IB_ACCESS_REMOTE_WRITE };
	struct siw_wqe *wqe = kunit_kzalloc(test, sizeof(*wqe), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, wqe);
	KUNIT_ASSERT_EQ(test, siw_wqe_from_send_wr(&wr.wr, &kcaps, wqe), 0);
	KUNIT_EXPECT_EQ(test, wqe->opcode, SIW_OP_REG_MR);
	KUNIT_EXPECT_PTR_EQ(test, wqe->mr, &mr);
	KUNIT_EXPECT_EQ(test, wqe->rkey, 0x1234cdU);
	KUNIT_EXPECT_EQ(test, wqe->access, (u32)IB_ACCESS_REMOTE_WRITE);

	wr.key = 0x1235ab;
	KUNIT_EXPECT_EQ(test, siw_wqe_from_send_wr(&wr.wr, &kcaps, wqe),
			-EINVAL);
	wr.key = 0x1234ab;
	wr.mr = NULL;
	KUNIT_EXPECT_EQ(test, siw_wqe_from_send_wr(&wr.wr, &kcaps, wqe),
			-EINVAL);
	mr.type = IB_MR_TYPE_USER;
	wr.mr = &mr;
	KUNIT_EXPECT_EQ(test, siw_wqe_from_send_wr(&wr.wr, &kcaps, wqe),
			-EINVAL);
}

static void wqe_recv(struct kunit *test)
{
	struct ib_sge sg[SIW_DEV_MAX_SGE + 1] = {};
	struct ib_recv_wr wr = { .wr_id = 9, .sg_list = sg };
	struct siw_wqe *wqe = kunit_kzalloc(test, sizeof(*wqe), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, wqe);
	wr.num_sge = SIW_DEV_MAX_SGE;
	KUNIT_EXPECT_EQ(test, siw_wqe_from_recv_wr(&wr, &kcaps, wqe), 0);
	KUNIT_EXPECT_EQ(test, wqe->opcode, SIW_OP_RECEIVE);
	KUNIT_EXPECT_EQ(test, wqe->num_sge, SIW_DEV_MAX_SGE);
	wr.num_sge = 0;	/* ib_drain_rq() posts one of these */
	KUNIT_EXPECT_EQ(test, siw_wqe_from_recv_wr(&wr, &kcaps, wqe), 0);
	wr.num_sge = SIW_DEV_MAX_SGE + 1;
	KUNIT_EXPECT_EQ(test, siw_wqe_from_recv_wr(&wr, &kcaps, wqe), -EINVAL);
	wr.num_sge = 2;
	sg[0].length = U32_MAX;
	sg[1].length = 1;
	KUNIT_EXPECT_EQ(test, siw_wqe_from_recv_wr(&wr, &kcaps, wqe), -EINVAL);
}

/**
 * struct sqe_case - one send queue entry as a process wrote it
 * @name: case name
 * @opcode: enum siw_opcode (or garbage)
 * @flags: SIW_WQE_*
 * @num_sge: SGE count field
 * @inline_len: sge[0].length for an inline entry
 * @rv: expected result
 */
struct sqe_case {
	const char *name;
	u8 opcode;
	u16 flags;
	u8 num_sge;
	u32 inline_len;
	int rv;
};

#define V	SIW_WQE_VALID

static const struct sqe_case sqe_cases[] = {
	{ "send", SIW_OP_SEND, V, 1, 0, 0 },
	{ "send_max_sge", SIW_OP_SEND, V | SIW_WQE_SIGNALLED, SIW_MAX_SGE, 0, 0 },
	{ "send_too_many_sge", SIW_OP_SEND, V, SIW_MAX_SGE + 1, 0, -EINVAL },
	{ "send_inv", SIW_OP_SEND_REMOTE_INV, V | SIW_WQE_SOLICITED, 1, 0, 0 },
	{ "write", SIW_OP_WRITE, V | SIW_WQE_READ_FENCE, 2, 0, 0 },
	{ "read", SIW_OP_READ, V, 1, 0, 0 },
	{ "inline_max", SIW_OP_SEND, V | SIW_WQE_INLINE, 0, SIW_MAX_INLINE, 0 },
	{ "inline_too_long", SIW_OP_SEND, V | SIW_WQE_INLINE, 0,
	  SIW_MAX_INLINE + 1, -EINVAL },
	{ "read_inline", SIW_OP_READ, V | SIW_WQE_INLINE, 0, 8, -EINVAL },
	{ "send_imm", SIW_OP_SEND_WITH_IMM, V, 1, 0, -EINVAL },
	{ "fetch_add", SIW_OP_FETCH_AND_ADD, V, 1, 0, -EINVAL },
	{ "comp_swap", SIW_OP_COMP_AND_SWAP, V, 1, 0, -EINVAL },
	{ "receive", SIW_OP_RECEIVE, V, 1, 0, -EINVAL },
	{ "read_response", SIW_OP_READ_RESPONSE, V, 1, 0, -EINVAL },
	{ "kernel_only_inval", SIW_OP_INVAL_STAG, V, 0, 0, -EINVAL },
	{ "kernel_only_reg_mr", SIW_OP_REG_MR, V, 0, 0, -EINVAL },
	{ "read_local_inv", SIW_OP_READ_LOCAL_INV, V, 1, 0, -EINVAL },
	{ "opcode_garbage", 0xee, V, 1, 0, -EINVAL },
	{ "flags_garbage", SIW_OP_SEND, V | 0x8000, 1, 0, -EINVAL },
	{ "completed_flag", SIW_OP_SEND, V | SIW_WQE_COMPLETED, 1, 0, -EINVAL },
};

static void sqe_desc(const struct sqe_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(sqe, sqe_cases, sqe_desc);

static void wqe_user_sqe(struct kunit *test)
{
	const struct sqe_case *c = test->param_value;
	struct siw_sqe sqe = {
		.id = 77, .opcode = c->opcode, .flags = c->flags,
		.num_sge = c->num_sge, .rkey = 0x99, .raddr = 0x1000,
	};
	struct siw_wqe *wqe = kunit_kzalloc(test, sizeof(*wqe), GFP_KERNEL);
	int i, rv;

	KUNIT_ASSERT_NOT_NULL(test, wqe);
	/* the previous entry's id must not survive into this one's */
	wqe->id = 0xdead;
	if (c->flags & SIW_WQE_INLINE) {
		sqe.sge[0].length = c->inline_len;
		memset(&sqe.sge[1], 0x5a, SIW_MAX_INLINE);
	} else {
		for (i = 0; i < SIW_MAX_SGE; i++)
			sqe.sge[i] = (struct siw_sge){ .laddr = i, .length = 8,
						       .lkey = 0x200 + i };
	}
	rv = siw_wqe_from_sqe(&sqe, wqe);
	KUNIT_ASSERT_EQ(test, rv, c->rv);
	/* a malformed entry too completes under its own id and opcode */
	KUNIT_EXPECT_EQ(test, wqe->id, 77ULL);
	KUNIT_EXPECT_EQ(test, wqe->opcode, siw_wqe_flush_opcode(c->opcode));
	if (rv)
		return;
	KUNIT_EXPECT_EQ(test, wqe->opcode, c->opcode);
	if (c->flags & SIW_WQE_INLINE) {
		KUNIT_EXPECT_EQ(test, wqe->inline_len, c->inline_len);
		KUNIT_EXPECT_EQ(test, wqe->data[c->inline_len - 1], 0x5a);
	} else {
		KUNIT_EXPECT_EQ(test, wqe->num_sge, c->num_sge);
	}
	if (c->opcode == SIW_OP_SEND_REMOTE_INV)
		KUNIT_EXPECT_EQ(test, wqe->inval_stag, 0x99U);
}

static void wqe_user_rqe(struct kunit *test)
{
	struct siw_rqe rqe = { .id = 5, .flags = V, .num_sge = SIW_MAX_SGE,
			       .opcode = SIW_OP_WRITE };
	struct siw_wqe *wqe = kunit_kzalloc(test, sizeof(*wqe), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, wqe);
	KUNIT_EXPECT_EQ(test, siw_wqe_from_rqe(&rqe, wqe), 0);
	/* the process's opcode is ignored: a receive is a receive */
	KUNIT_EXPECT_EQ(test, wqe->opcode, SIW_OP_RECEIVE);
	rqe.num_sge = SIW_MAX_SGE + 1;
	rqe.id = 6;
	KUNIT_EXPECT_EQ(test, siw_wqe_from_rqe(&rqe, wqe), -EINVAL);
	/* completed in error under its own id, not the previous entry's */
	KUNIT_EXPECT_EQ(test, wqe->id, 6ULL);
	rqe.num_sge = 2;
	rqe.sge[0].length = U32_MAX;
	rqe.sge[1].length = U32_MAX;
	KUNIT_EXPECT_EQ(test, siw_wqe_from_rqe(&rqe, wqe), -EINVAL);
}

/* The ABI layout rdma-core's provider relies on, field by field */
static void wqe_ring_layout(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, offsetof(struct siw_sqe, flags), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct siw_sqe, num_sge), 10);
	KUNIT_EXPECT_EQ(test, offsetof(struct siw_sqe, opcode), 11);
	KUNIT_EXPECT_EQ(test, offsetof(struct siw_sqe, rkey), 12);
	KUNIT_EXPECT_EQ(test, offsetof(struct siw_sqe, raddr), 16);
	KUNIT_EXPECT_EQ(test, offsetof(struct siw_sqe, sge), 24);
	KUNIT_EXPECT_EQ(test, offsetof(struct siw_rqe, sge), 16);
	KUNIT_EXPECT_EQ(test, offsetof(struct siw_cqe, flags), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct siw_cqe, status), 10);
	KUNIT_EXPECT_EQ(test, offsetof(struct siw_cqe, bytes), 12);
	KUNIT_EXPECT_EQ(test, offsetof(struct siw_cqe, qp_id), 24);
	/* inline data: sge[1] onwards, 5 SGEs' worth */
	KUNIT_EXPECT_EQ(test, SIW_MAX_INLINE, 80);
	/* the control word follows the last CQE */
	KUNIT_EXPECT_EQ(test, siw_cq_ring_bytes(1), 40);
	KUNIT_EXPECT_EQ(test, siw_cq_ring_bytes(256), 256 * 32 + 8);
}

static void wqe_ring_entries(struct kunit *test)
{
	static const u32 in[] = { 0, 1, 2, 3, 255, 256, 257, 32768 };
	static const u32 out[] = { 1, 1, 2, 4, 256, 256, 512, 32768 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(in); i++)
		KUNIT_EXPECT_EQ_MSG(test, siw_ring_entries(in[i]), out[i],
				    "%u work requests", in[i]);
}

/* Status and opcode maps the CQ uses */
static void wqe_completion_maps(struct kunit *test)
{
	unsigned int s;

	for (s = 0; s < SIW_NUM_WC_STATUS; s++)
		KUNIT_EXPECT_EQ(test,
				siw_wc_status_to_abi(siw_wc_status_from_abi(s)),
				s);
	KUNIT_EXPECT_EQ(test, siw_wc_status_to_abi(IB_WC_WR_FLUSH_ERR),
			SIW_WC_WR_FLUSH_ERR);
	KUNIT_EXPECT_EQ(test, siw_wc_status_to_abi(IB_WC_MW_BIND_ERR),
			SIW_WC_GENERAL_ERR);
	KUNIT_EXPECT_EQ(test, siw_wc_status_from_abi(0xffff),
			IB_WC_GENERAL_ERR);
	KUNIT_EXPECT_EQ(test, siw_wc_opcode(SIW_OP_RECEIVE), IB_WC_RECV);
	KUNIT_EXPECT_EQ(test, siw_wc_opcode(SIW_OP_READ_LOCAL_INV),
			IB_WC_RDMA_READ);
	KUNIT_EXPECT_EQ(test, siw_wc_opcode(SIW_OP_REG_MR), IB_WC_REG_MR);
	KUNIT_EXPECT_EQ(test, siw_wc_opcode(SIW_OP_INVAL_STAG),
			IB_WC_LOCAL_INV);
	KUNIT_EXPECT_EQ(test, siw_wqe_flush_opcode(0xee), SIW_OP_SEND);
}

static struct kunit_case siw_wqe_cases[] = {
	KUNIT_CASE_PARAM(wqe_send, send_gen_params),
	KUNIT_CASE(wqe_reg_mr),
	KUNIT_CASE(wqe_recv),
	KUNIT_CASE_PARAM(wqe_user_sqe, sqe_gen_params),
	KUNIT_CASE(wqe_user_rqe),
	KUNIT_CASE(wqe_ring_layout),
	KUNIT_CASE(wqe_ring_entries),
	KUNIT_CASE(wqe_completion_maps),
	{}
};

static struct kunit_suite siw_wqe_suite = {
	.name = "siw_wqe",
	.test_cases = siw_wqe_cases,
};

kunit_test_suite(siw_wqe_suite);
