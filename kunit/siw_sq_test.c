// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite siw_sq: what a send work request's completion is made
 * of, from the moment the device reads the entry to the moment it
 * completes (drivers/siw_qp/siw_qp_post.c).
 *
 * A device made up for the test holds a CQ made by the CQ verb and a
 * QP built by hand, with no stream: the cases read entries as the
 * transmit side does (siw_sq_peek()) and retire them as it does
 * (siw_sq_complete()) or flush them. A process's send queue is shared
 * memory it may rewrite at any time; what its completions say must be
 * what the device read and acted on. A kernel consumer's REG_MR keeps
 * its MR's description while it is queued, and a deregistration
 * meanwhile is not undone by it.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/slab.h>

#include "siw_dev/siw_dev.h"

#define SQ_SIZE		4
#define SQ_ID		0x5157000000000100ULL
#define SQ_FORGED	0xbad0000000000000ULL

/**
 * struct sq_fixture - a device, a PD, a CQ and a QP in RTS
 * @sdev: a device with an STag table and the QP layer's part
 * @pd: a PD of that device
 * @cq: the QP's send and receive CQ
 * @cq_made: @cq was created (and is to be destroyed)
 * @qp: the QP; its rings are the case's to make
 */
struct sq_fixture {
	struct siw_device *sdev;
	struct ib_pd pd;
	struct siw_cq *cq;
	bool cq_made;
	struct siw_qp *qp;
};

static int sq_init(struct kunit *test)
{
	struct ib_cq_init_attr attr = { .cqe = 16 };
	struct sq_fixture *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	struct siw_qp *qp;
	int rv;

	if (!f)
		return -ENOMEM;
	test->priv = f;
	f->sdev = kunit_kzalloc(test, sizeof(*f->sdev), GFP_KERNEL);
	f->cq = kunit_kzalloc(test, sizeof(*f->cq), GFP_KERNEL);
	qp = kunit_kzalloc(test, sizeof(*qp), GFP_KERNEL);
	if (!f->sdev || !f->cq || !qp)
		return -ENOMEM;
	siw_mem_table_init(&f->sdev->mem);
	f->sdev->qp.mem = &f->sdev->mem;
	/* as siw_main.c: a CQ's overflow work walks the QPs (none here) */
	xa_init_flags(&f->sdev->qp.qp_xa, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_IRQ);
	f->pd.device = &f->sdev->base;
	f->cq->base.device = &f->sdev->base;
	rv = siw_cq_create(&f->cq->base, &attr, NULL);
	if (rv)
		return rv;
	f->cq_made = true;

	qp->base.device = &f->sdev->base;
	qp->base.pd = &f->pd;
	qp->base.qp_num = 9;
	qp->qdev = &f->sdev->qp;
	refcount_set(&qp->ref, 1);
	mutex_init(&qp->modify_mutex);
	spin_lock_init(&qp->state_lock);
	spin_lock_init(&qp->sq_lock);
	spin_lock_init(&qp->rq_lock);
	qp->sq.size = SQ_SIZE;
	qp->sq.caps.max_sge = 2;
	qp->scq = f->cq;
	qp->rcq = f->cq;
	qp->state = SIW_QP_RTS;
	f->qp = qp;
	return 0;
}

static void sq_exit(struct kunit *test)
{
	struct sq_fixture *f = test->priv;
	unsigned long index;
	struct siw_mr *mr;

	if (!f || !f->sdev)
		return;
	if (f->cq_made)
		siw_destroy_cq(&f->cq->base, NULL);
	/* a case that stopped half-way leaves its regions: forget them */
	xa_for_each(&f->sdev->mem.xa, index, mr)
		xa_erase(&f->sdev->mem.xa, index);
	siw_mem_table_destroy(&f->sdev->mem);
}

/* The QP is a process's: its send ring holds struct siw_sqe */
static struct siw_sqe *sq_user_ring(struct kunit *test, struct sq_fixture *f)
{
	struct siw_qp *qp = f->qp;

	qp->user = true;
	qp->sq.ring = kunit_kcalloc(test, SQ_SIZE, sizeof(struct siw_sqe),
				    GFP_KERNEL);
	qp->sq.taken = kunit_kcalloc(test, SQ_SIZE, sizeof(*qp->sq.taken),
				     GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, qp->sq.ring && qp->sq.taken);
	return qp->sq.ring;
}

/* The process writes entry @i: no SGE, @opcode, @flags besides VALID */
static void sq_user_post(struct siw_sqe *ring, u32 i, u8 opcode, u16 flags)
{
	struct siw_sqe *e = &ring[i % SQ_SIZE];

	memset(e, 0, sizeof(*e));
	e->id = SQ_ID + i;
	e->opcode = opcode;
	/* as the provider: the contents before the VALID flag */
	smp_store_release(&e->flags, flags | SIW_WQE_VALID);
}

/* The next completion is @id's, with @opcode and @status */
static void sq_expect_wc(struct kunit *test, struct sq_fixture *f, u64 id,
			 enum ib_wc_opcode opcode, enum ib_wc_status status)
{
	struct ib_wc wc;

	KUNIT_ASSERT_EQ_MSG(test, siw_poll_cq(&f->cq->base, 1, &wc), 1,
			    "no completion for %llx", id);
	KUNIT_EXPECT_EQ(test, wc.wr_id, id);
	KUNIT_EXPECT_EQ(test, wc.opcode, opcode);
	KUNIT_EXPECT_EQ(test, wc.status, status);
}

static void sq_expect_no_wc(struct kunit *test, struct sq_fixture *f)
{
	struct ib_wc wc = { };

	KUNIT_EXPECT_EQ_MSG(test, siw_poll_cq(&f->cq->base, 1, &wc), 0,
			    "a completion for %llx", wc.wr_id);
}

/*
 * The process rewrites entries the device already read, before they
 * complete: a signalled one becomes unsignalled under another id and
 * opcode, an unsignalled one signalled, a malformed one well formed.
 * Each completes as it was read: the signalled one under its id and
 * opcode, the unsignalled one not at all, the malformed one in error
 * under the opcode it had. Every slot goes back to the process.
 */
static void sq_user_completes_as_read(struct kunit *test)
{
	struct sq_fixture *f = test->priv;
	struct siw_sqe *ring = sq_user_ring(test, f);
	struct siw_sq_done done[3] = {
		{ .status = IB_WC_SUCCESS, .bytes = 10 },
		{ .status = IB_WC_SUCCESS, .bytes = 20 },
		{ .status = IB_WC_LOC_QP_OP_ERR },
	};
	struct siw_wqe *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, w);
	sq_user_post(ring, 0, SIW_OP_SEND, SIW_WQE_SIGNALLED);
	sq_user_post(ring, 1, SIW_OP_WRITE, 0);
	sq_user_post(ring, 2, SIW_OP_FETCH_AND_ADD, SIW_WQE_SIGNALLED);
	KUNIT_ASSERT_EQ(test, siw_sq_peek(f->qp, 0, w), 0);
	KUNIT_ASSERT_EQ(test, siw_sq_peek(f->qp, 1, w), 0);
	KUNIT_ASSERT_EQ(test, siw_sq_peek(f->qp, 2, w), -EINVAL);

	ring[0].id = SQ_FORGED;
	ring[0].opcode = SIW_OP_READ;
	WRITE_ONCE(ring[0].flags, SIW_WQE_VALID);
	ring[1].id = SQ_FORGED + 1;
	WRITE_ONCE(ring[1].flags, SIW_WQE_VALID | SIW_WQE_SIGNALLED);
	ring[2].id = SQ_FORGED + 2;
	ring[2].opcode = SIW_OP_SEND;

	siw_sq_complete(f->qp, done, 3);
	KUNIT_EXPECT_EQ(test, f->qp->sq.get, 3U);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ_MSG(test, ring[i].flags, 0,
				    "entry %u was not handed back", i);
	sq_expect_wc(test, f, SQ_ID, IB_WC_SEND, IB_WC_SUCCESS);
	sq_expect_wc(test, f, SQ_ID + 2, IB_WC_FETCH_ADD, IB_WC_LOC_QP_OP_ERR);
	sq_expect_no_wc(test, f);
}

/*
 * The process clears the VALID flag of an entry the device read: the
 * entry is the device's until it completes, and it completes all the
 * same, in order, so that the device's count of the ring stays the
 * ring's
 */
static void sq_user_valid_cleared(struct kunit *test)
{
	struct sq_fixture *f = test->priv;
	struct siw_sqe *ring = sq_user_ring(test, f);
	struct siw_sq_done done[2] = {
		{ .status = IB_WC_SUCCESS, .bytes = 1 },
		{ .status = IB_WC_SUCCESS, .bytes = 2 },
	};
	struct siw_wqe *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, w);
	sq_user_post(ring, 0, SIW_OP_SEND, SIW_WQE_SIGNALLED);
	sq_user_post(ring, 1, SIW_OP_SEND, SIW_WQE_SIGNALLED);
	KUNIT_ASSERT_EQ(test, siw_sq_peek(f->qp, 0, w), 0);
	KUNIT_ASSERT_EQ(test, siw_sq_peek(f->qp, 1, w), 0);
	WRITE_ONCE(ring[0].flags, 0);
	siw_sq_complete(f->qp, done, 2);
	KUNIT_EXPECT_EQ(test, f->qp->sq.get, 2U);
	sq_expect_wc(test, f, SQ_ID, IB_WC_SEND, IB_WC_SUCCESS);
	sq_expect_wc(test, f, SQ_ID + 1, IB_WC_SEND, IB_WC_SUCCESS);
	sq_expect_no_wc(test, f);
	/* an entry never read does not complete */
	sq_user_post(ring, 2, SIW_OP_SEND, SIW_WQE_SIGNALLED);
	siw_sq_complete(f->qp, done, 1);
	KUNIT_EXPECT_EQ(test, f->qp->sq.get, 2U);
	sq_expect_no_wc(test, f);
}

/*
 * The flush reports an entry the device read as it was read, and one
 * it never read as the ring holds it
 */
static void sq_user_flush_as_read(struct kunit *test)
{
	struct sq_fixture *f = test->priv;
	struct siw_sqe *ring = sq_user_ring(test, f);
	struct siw_wqe *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, w);
	sq_user_post(ring, 0, SIW_OP_SEND, 0);
	sq_user_post(ring, 1, SIW_OP_WRITE, 0);
	KUNIT_ASSERT_EQ(test, siw_sq_peek(f->qp, 0, w), 0);
	ring[0].id = SQ_FORGED;
	ring[0].opcode = SIW_OP_READ;
	WRITE_ONCE(f->qp->state, SIW_QP_ERROR);
	siw_qp_flush(f->qp);
	KUNIT_EXPECT_EQ(test, f->qp->sq.get, 2U);
	sq_expect_wc(test, f, SQ_ID, IB_WC_SEND, IB_WC_WR_FLUSH_ERR);
	sq_expect_wc(test, f, SQ_ID + 1, IB_WC_RDMA_WRITE, IB_WC_WR_FLUSH_ERR);
	sq_expect_no_wc(test, f);
	KUNIT_EXPECT_FALSE(test, f->qp->sq.taken[0].taken);
}

/* The QP is a kernel consumer's: its send ring holds struct siw_wqe */
static void sq_kernel_ring(struct kunit *test, struct sq_fixture *f)
{
	f->qp->sq.ring = kunit_kcalloc(test, SQ_SIZE, sizeof(struct siw_wqe),
				       GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f->qp->sq.ring);
}

/*
 * A fast-registration MR of the fixture's PD mapped to @page, as the
 * RDMA core and map_mr_sg leave it
 */
static struct siw_mr *sq_fr_mr(struct kunit *test, struct sq_fixture *f,
			       void *page)
{
	struct ib_mr *base = siw_alloc_mr(&f->pd, IB_MR_TYPE_MEM_REG, 1);
	struct siw_mr *mr;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, base);
	base->device = f->pd.device;
	base->pd = &f->pd;
	base->type = IB_MR_TYPE_MEM_REG;
	base->iova = 0x10000;
	base->length = PAGE_SIZE;
	base->page_size = PAGE_SIZE;
	mr = to_siw_mr(base);
	mr->map_pbl[0] = (u64)(uintptr_t)page;
	mr->map_npages = 1;
	return mr;
}

/* The consumer posts a signalled REG_MR of @mr under key @key */
static void sq_post_reg(struct kunit *test, struct sq_fixture *f,
			struct siw_mr *mr, u8 key)
{
	struct ib_reg_wr wr = {
		.wr = {
			.wr_id = SQ_ID, .opcode = IB_WR_REG_MR,
			.send_flags = IB_SEND_SIGNALED,
		},
		.mr = &mr->base,
		.key = (mr->stag & ~SIW_STAG_KEY_MASK) | key,
		.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE,
	};
	const struct ib_send_wr *bad = NULL;

	KUNIT_ASSERT_EQ(test, siw_post_send(&f->qp->base, &wr.wr, &bad), 0);
}

/*
 * A kernel consumer posts a REG_MR and deregisters the MR before the
 * device reached the request. The request holds the MR's description
 * (a reference), not its registration: carried out after, it is
 * refused, the region stays revoked and unfindable, and the completion
 * lets the description go.
 */
static void sq_reg_mr_after_dereg(struct kunit *test)
{
	struct sq_fixture *f = test->priv;
	void *page = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	struct siw_sq_done done = { .status = IB_WC_LOC_PROT_ERR };
	struct siw_wqe *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	struct siw_mr *mr;

	KUNIT_ASSERT_TRUE(test, page && w);
	sq_kernel_ring(test, f);
	mr = sq_fr_mr(test, f, page);
	sq_post_reg(test, f, mr, 0x42);
	KUNIT_ASSERT_EQ_MSG(test, refcount_read(&mr->ref), 2U,
			    "the REG_MR holds no reference on its MR");
	siw_dereg_mr(&mr->base, NULL);
	KUNIT_ASSERT_EQ(test, refcount_read(&mr->ref), 1U);

	/* the transmit side reaches the request */
	KUNIT_ASSERT_EQ(test, siw_sq_peek(f->qp, 0, w), 0);
	KUNIT_ASSERT_EQ(test, w->opcode, SIW_OP_REG_MR);
	KUNIT_EXPECT_EQ(test, siw_mem_fastreg(to_siw_mr(w->mr), &f->pd,
					      w->rkey, w->access), -ENOENT);
	KUNIT_EXPECT_FALSE_MSG(test, mr->valid,
			       "a deregistered region is valid again");
	KUNIT_EXPECT_NULL(test, siw_mr_get(&f->sdev->mem, w->rkey));
	siw_sq_complete(f->qp, &done, 1);
	sq_expect_wc(test, f, SQ_ID, IB_WC_REG_MR, IB_WC_LOC_PROT_ERR);
	KUNIT_EXPECT_EQ(test, f->qp->sq.get, 1U);
}

/*
 * A REG_MR flushed, or discarded, before the device reached it lets its
 * MR go as it leaves the queue; so does one completed
 */
static void sq_reg_mr_leaves_queue(struct kunit *test)
{
	struct sq_fixture *f = test->priv;
	void *page = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	struct siw_sq_done done = { .status = IB_WC_SUCCESS };
	struct siw_wqe *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	struct siw_mr *mr;

	KUNIT_ASSERT_TRUE(test, page && w);
	sq_kernel_ring(test, f);
	mr = sq_fr_mr(test, f, page);

	sq_post_reg(test, f, mr, 0x43);
	KUNIT_ASSERT_EQ(test, siw_sq_peek(f->qp, 0, w), 0);
	KUNIT_EXPECT_EQ(test, siw_mem_fastreg(mr, &f->pd, w->rkey, w->access),
			0);
	KUNIT_EXPECT_TRUE(test, mr->valid);
	siw_sq_complete(f->qp, &done, 1);
	sq_expect_wc(test, f, SQ_ID, IB_WC_REG_MR, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, refcount_read(&mr->ref), 1U);
	KUNIT_ASSERT_EQ(test, siw_mem_invalidate(&f->sdev->mem, &f->pd,
						 mr->stag, false), 0);

	sq_post_reg(test, f, mr, 0x44);
	KUNIT_EXPECT_EQ(test, refcount_read(&mr->ref), 2U);
	WRITE_ONCE(f->qp->state, SIW_QP_ERROR);
	siw_qp_flush(f->qp);
	sq_expect_wc(test, f, SQ_ID, IB_WC_REG_MR, IB_WC_WR_FLUSH_ERR);
	KUNIT_EXPECT_EQ(test, refcount_read(&mr->ref), 1U);

	WRITE_ONCE(f->qp->state, SIW_QP_IDLE);
	sq_post_reg(test, f, mr, 0x45);
	KUNIT_EXPECT_EQ(test, refcount_read(&mr->ref), 2U);
	siw_qp_discard(f->qp);
	sq_expect_no_wc(test, f);
	KUNIT_EXPECT_EQ(test, refcount_read(&mr->ref), 1U);
	KUNIT_EXPECT_FALSE(test, mr->valid);
	siw_dereg_mr(&mr->base, NULL);
}

static struct kunit_case siw_sq_cases[] = {
	KUNIT_CASE(sq_user_completes_as_read),
	KUNIT_CASE(sq_user_valid_cleared),
	KUNIT_CASE(sq_user_flush_as_read),
	KUNIT_CASE(sq_reg_mr_after_dereg),
	KUNIT_CASE(sq_reg_mr_leaves_queue),
	{}
};

static struct kunit_suite siw_sq_suite = {
	.name = "siw_sq",
	.init = sq_init,
	.exit = sq_exit,
	.test_cases = siw_sq_cases,
};

kunit_test_suite(siw_sq_suite);
