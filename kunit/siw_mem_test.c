// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite siw_mem: the STag table and the memory checks.
 *
 * A table of a device made up for the test holds hand-built regions;
 * the cases look them up the way the receive path does (through the
 * DDP layer's memory interface), invalidate and re-register them, and
 * count references. Local access checks and the page arithmetic are
 * pure functions, checked at their boundaries.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/slab.h>

#include "siw_ddp/siw_ddp.h"
#include "siw_dev/siw_dev.h"

static int pd_a, pd_b;	/* two protection domains: only addresses matter */

#define ACC_RW	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
		 IB_ACCESS_REMOTE_READ)

/**
 * struct check_case - one local access against one region
 * @name: case name
 * @stag: STag the work request names
 * @pd: the QP's PD
 * @va: first address
 * @len: octets
 * @access: rights needed
 * @err: expected verdict
 */
struct check_case {
	const char *name;
	u32 stag;
	const void *pd;
	u64 va;
	u32 len;
	u32 access;
	enum siw_mem_err err;
};

/* Region under test: [0x10000, 0x12000), STag 0x000105, local write only */
static const struct siw_ddp_region region = {
	.pd = &pd_a, .base = 0x10000, .len = 0x2000, .stag = 0x105,
	.access = IB_ACCESS_LOCAL_WRITE, .state = SIW_DDP_REGION_VALID,
};

static const struct check_case check_cases[] = {
	{ "whole", 0x105, &pd_a, 0x10000, 0x2000, IB_ACCESS_LOCAL_WRITE,
	  SIW_MEM_OK },
	{ "read_needs_nothing", 0x105, &pd_a, 0x10000, 1, 0, SIW_MEM_OK },
	{ "empty_at_end", 0x105, &pd_a, 0x12000, 0, 0, SIW_MEM_OK },
	{ "wrong_key", 0x106, &pd_a, 0x10000, 1, 0, SIW_MEM_ERR_STAG },
	{ "other_pd", 0x105, &pd_b, 0x10000, 1, 0, SIW_MEM_ERR_PD },
	{ "remote_write_missing", 0x105, &pd_a, 0x10000, 1,
	  IB_ACCESS_REMOTE_WRITE, SIW_MEM_ERR_ACCESS },
	{ "below", 0x105, &pd_a, 0xffff, 1, 0, SIW_MEM_ERR_BOUNDS },
	{ "one_past", 0x105, &pd_a, 0x10000, 0x2001, 0, SIW_MEM_ERR_BOUNDS },
	{ "start_past", 0x105, &pd_a, 0x12001, 0, 0, SIW_MEM_ERR_BOUNDS },
	{ "last_octet", 0x105, &pd_a, 0x11fff, 1, 0, SIW_MEM_OK },
	{ "wrap", 0x105, &pd_a, U64_MAX, 2, 0, SIW_MEM_ERR_BOUNDS },
};

static void check_desc(const struct check_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(check, check_cases, check_desc);

static void mem_check(struct kunit *test)
{
	const struct check_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, siw_mr_check(&region, c->pd, c->stag, c->va,
					   c->len, c->access), c->err);
}

/* A DMA MR spans the whole address space without wrapping */
static void mem_check_dma(struct kunit *test)
{
	struct siw_ddp_region r = region;

	r.base = 0;
	r.len = U64_MAX;
	KUNIT_EXPECT_EQ(test, siw_mr_check(&r, &pd_a, 0x105, U64_MAX - 9, 9,
					   0), SIW_MEM_OK);
	KUNIT_EXPECT_EQ(test, siw_mr_check(&r, &pd_a, 0x105, U64_MAX - 9, 10,
					   0), SIW_MEM_ERR_BOUNDS);
	r.state = SIW_DDP_REGION_INVALID;
	KUNIT_EXPECT_EQ(test, siw_mr_check(&r, &pd_a, 0x105, 0, 1, 0),
			SIW_MEM_ERR_INVALID);
}

static void mem_pgidx(struct kunit *test)
{
	u32 idx, off;

	/* 4 KiB pages, the region starts 0x100 into its first page */
	KUNIT_ASSERT_EQ(test, siw_mr_pgidx(0x5000, 0x100, 12, 0x5000, &idx,
					   &off), 0);
	KUNIT_EXPECT_EQ(test, idx, 0U);
	KUNIT_EXPECT_EQ(test, off, 0x100U);
	KUNIT_ASSERT_EQ(test, siw_mr_pgidx(0x5000, 0x100, 12, 0x5eff, &idx,
					   &off), 0);
	KUNIT_EXPECT_EQ(test, idx, 0U);
	KUNIT_EXPECT_EQ(test, off, 0xfffU);
	KUNIT_ASSERT_EQ(test, siw_mr_pgidx(0x5000, 0x100, 12, 0x5f00, &idx,
					   &off), 0);
	KUNIT_EXPECT_EQ(test, idx, 1U);
	KUNIT_EXPECT_EQ(test, off, 0U);
	/* 2 MiB pages of a fast registration */
	KUNIT_ASSERT_EQ(test, siw_mr_pgidx(0, 0, 21, 0x600001, &idx, &off), 0);
	KUNIT_EXPECT_EQ(test, idx, 3U);
	KUNIT_EXPECT_EQ(test, off, 1U);
	KUNIT_EXPECT_EQ(test, siw_mr_pgidx(0x5000, 0, 12, 0x4fff, &idx, &off),
			-ERANGE);
}

/* A device with nothing but an STag table */
struct mem_fixture {
	struct siw_device *sdev;
	struct siw_mr *mr[4];
};

static struct siw_mr *fake_mr(struct kunit *test, struct siw_device *sdev,
			      enum siw_mr_kind kind, const void *pd, bool valid)
{
	struct siw_mr *mr = kunit_kzalloc(test, sizeof(*mr), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, mr);
	mr->table = &sdev->mem;
	refcount_set(&mr->ref, 1);
	spin_lock_init(&mr->lock);
	seqcount_spinlock_init(&mr->seq, &mr->lock);
	mr->base.pd = (struct ib_pd *)pd;
	mr->kind = kind;
	mr->valid = valid;
	mr->access = ACC_RW;
	mr->va = 0x1000;
	mr->len = 0x1000;
	mr->base.iova = 0x8000;
	mr->base.length = 0x3000;
	KUNIT_ASSERT_EQ(test, siw_mr_publish(mr), 0);
	return mr;
}

static int mem_test_init(struct kunit *test)
{
	struct mem_fixture *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	if (!f)
		return -ENOMEM;
	f->sdev = kunit_kzalloc(test, sizeof(*f->sdev), GFP_KERNEL);
	if (!f->sdev)
		return -ENOMEM;
	siw_mem_table_init(&f->sdev->mem);
	test->priv = f;
	return 0;
}

static void mem_test_exit(struct kunit *test)
{
	struct mem_fixture *f = test->priv;
	unsigned long index;
	struct siw_mr *mr;

	xa_for_each(&f->sdev->mem.xa, index, mr)
		xa_erase(&f->sdev->mem.xa, index);
	siw_mem_table_destroy(&f->sdev->mem);
}

/* Indices are never 0, never shared; keys are drawn, not counted */
static void mem_stag_alloc(struct kunit *test)
{
	struct mem_fixture *f = test->priv;
	u32 first_key = 0, same_key = 0, prev = 0;
	int i;

	for (i = 0; i < 64; i++) {
		struct siw_mr *mr = fake_mr(test, f->sdev, SIW_MR_USER, &pd_a,
					    true);

		KUNIT_EXPECT_NE(test, siw_stag_index(mr->stag), 0U);
		KUNIT_EXPECT_GT(test, siw_stag_index(mr->stag), prev);
		KUNIT_EXPECT_EQ(test, mr->base.lkey, mr->stag);
		KUNIT_EXPECT_EQ(test, mr->base.rkey, mr->stag);
		prev = siw_stag_index(mr->stag);
		if (!i)
			first_key = mr->stag & SIW_STAG_KEY_MASK;
		else if ((mr->stag & SIW_STAG_KEY_MASK) == first_key)
			same_key++;
	}
	/* 63 draws all equal to the first: chance 2^-504 */
	KUNIT_EXPECT_LT(test, same_key, 63U);
}

/* A freed index is not handed out again at once */
static void mem_stag_no_reuse(struct kunit *test)
{
	struct mem_fixture *f = test->priv;
	struct siw_mr *a = fake_mr(test, f->sdev, SIW_MR_USER, &pd_a, true);
	u32 gone = siw_stag_index(a->stag);
	struct siw_mr *b;

	xa_erase(&f->sdev->mem.xa, gone);
	b = fake_mr(test, f->sdev, SIW_MR_USER, &pd_a, true);
	KUNIT_EXPECT_NE(test, siw_stag_index(b->stag), gone);
	KUNIT_EXPECT_NULL(test, siw_mr_get(&f->sdev->mem, a->stag));
}

/* The receive path's lookup: by index, whatever the key, with a ref */
static void mem_ddp_lookup(struct kunit *test)
{
	struct mem_fixture *f = test->priv;
	struct siw_mr *mr = fake_mr(test, f->sdev, SIW_MR_FASTREG, &pd_a, true);
	const struct siw_ddp_mem_ops *ops = &siw_mem_ddp_ops;
	struct siw_ddp_region r;

	KUNIT_ASSERT_EQ(test, ops->lookup(&f->sdev->mem, mr->stag ^ 0x1, &r), 0);
	KUNIT_EXPECT_EQ(test, refcount_read(&mr->ref), 2U);
	KUNIT_EXPECT_EQ(test, r.stag, mr->stag);
	KUNIT_EXPECT_PTR_EQ(test, r.pd, (const void *)&pd_a);
	KUNIT_EXPECT_EQ(test, r.base, 0x1000ULL);
	KUNIT_EXPECT_EQ(test, r.len, 0x1000ULL);
	KUNIT_EXPECT_EQ(test, r.state, SIW_DDP_REGION_VALID);
	KUNIT_EXPECT_TRUE(test, r.remote_inv);
	ops->put(&f->sdev->mem, &r);
	KUNIT_EXPECT_EQ(test, refcount_read(&mr->ref), 1U);

	KUNIT_EXPECT_EQ(test, ops->lookup(&f->sdev->mem, 0x000000ab, &r), -ENOENT);
	KUNIT_EXPECT_EQ(test, ops->lookup(&f->sdev->mem, mr->stag + 0x100, &r),
			-ENOENT);
}

/* Invalidation: key, PD and kind checked; visible to the next lookup */
static void mem_invalidate(struct kunit *test)
{
	struct mem_fixture *f = test->priv;
	struct siw_mr *fr = fake_mr(test, f->sdev, SIW_MR_FASTREG, &pd_a, true);
	struct siw_mr *um = fake_mr(test, f->sdev, SIW_MR_USER, &pd_a, true);
	struct siw_ddp_region r;

	KUNIT_EXPECT_EQ(test, siw_mem_invalidate(&f->sdev->mem, &pd_a,
						 fr->stag ^ 0x80, true), -EINVAL);
	KUNIT_EXPECT_EQ(test, siw_mem_invalidate(&f->sdev->mem, &pd_b, fr->stag,
						 true), -EACCES);
	KUNIT_EXPECT_EQ(test, siw_mem_invalidate(&f->sdev->mem, &pd_a, um->stag,
						 false), -EPERM);
	KUNIT_EXPECT_EQ(test, siw_mem_invalidate(&f->sdev->mem, &pd_a,
						 0x00ffff00, false), -ENOENT);
	KUNIT_EXPECT_TRUE(test, fr->valid);

	KUNIT_EXPECT_EQ(test, siw_mem_invalidate(&f->sdev->mem, &pd_a, fr->stag,
						 true), 0);
	KUNIT_ASSERT_EQ(test, siw_mem_ddp_ops.lookup(&f->sdev->mem, fr->stag, &r), 0);
	KUNIT_EXPECT_EQ(test, r.state, SIW_DDP_REGION_INVALID);
	siw_mem_ddp_ops.put(&f->sdev->mem, &r);
	KUNIT_EXPECT_EQ(test, refcount_read(&fr->ref), 1U);
	KUNIT_EXPECT_EQ(test, refcount_read(&um->ref), 1U);
}

/*
 * The QP's own consumer invalidates by index: rdma_rw's READ_WITH_INV
 * names the key before the REG_MR ahead of it bumped it. A peer's Send
 * with Invalidate must name the current key.
 */
static void mem_invalidate_local_old_key(struct kunit *test)
{
	struct mem_fixture *f = test->priv;
	struct siw_mr *fr = fake_mr(test, f->sdev, SIW_MR_FASTREG, &pd_a, true);
	u32 old = (fr->stag & ~SIW_STAG_KEY_MASK) |
		  ((fr->stag - 1) & SIW_STAG_KEY_MASK);

	KUNIT_EXPECT_EQ(test, siw_mem_invalidate(&f->sdev->mem, &pd_a, old, true),
			-EINVAL);
	KUNIT_EXPECT_TRUE(test, fr->valid);
	KUNIT_EXPECT_EQ(test, siw_mem_invalidate(&f->sdev->mem, &pd_b, old, false),
			-EACCES);
	KUNIT_EXPECT_TRUE(test, fr->valid);
	KUNIT_EXPECT_EQ(test, siw_mem_invalidate(&f->sdev->mem, &pd_a, old, false),
			0);
	KUNIT_EXPECT_FALSE(test, fr->valid);
}

/* Fast registration: only when invalid, same index, same PD */
static void mem_fastreg(struct kunit *test)
{
	struct mem_fixture *f = test->priv;
	struct siw_mr *mr = fake_mr(test, f->sdev, SIW_MR_FASTREG, &pd_a, false);
	u32 next = (mr->stag & ~SIW_STAG_KEY_MASK) |
		   ((mr->stag + 1) & SIW_STAG_KEY_MASK);
	struct siw_ddp_region r;

	KUNIT_EXPECT_EQ(test, siw_mem_fastreg(mr, &pd_a, next + 0x100,
					      IB_ACCESS_REMOTE_READ), -EINVAL);
	KUNIT_EXPECT_EQ(test, siw_mem_fastreg(mr, &pd_b, next,
					      IB_ACCESS_REMOTE_READ), -EACCES);
	KUNIT_ASSERT_EQ(test, siw_mem_fastreg(mr, &pd_a, next,
					      IB_ACCESS_REMOTE_READ), 0);
	KUNIT_EXPECT_EQ(test, siw_mem_fastreg(mr, &pd_a, next,
					      IB_ACCESS_REMOTE_READ), -EBUSY);

	/* the new key, range and rights, and the old key no longer works */
	KUNIT_ASSERT_EQ(test, siw_mem_ddp_ops.lookup(&f->sdev->mem, next, &r), 0);
	KUNIT_EXPECT_EQ(test, r.stag, next);
	KUNIT_EXPECT_EQ(test, r.base, 0x8000ULL);
	KUNIT_EXPECT_EQ(test, r.len, 0x3000ULL);
	KUNIT_EXPECT_EQ(test, r.access, (u32)IB_ACCESS_REMOTE_READ);
	KUNIT_EXPECT_EQ(test, r.state, SIW_DDP_REGION_VALID);
	siw_mem_ddp_ops.put(&f->sdev->mem, &r);

	KUNIT_EXPECT_EQ(test, siw_mem_invalidate(&f->sdev->mem, &pd_a, next, false),
			0);
	KUNIT_EXPECT_FALSE(test, mr->valid);
}

/* A user MR can be neither re-registered nor remotely invalidated */
static void mem_fastreg_wrong_kind(struct kunit *test)
{
	struct mem_fixture *f = test->priv;
	struct siw_mr *mr = fake_mr(test, f->sdev, SIW_MR_USER, &pd_a, false);
	struct siw_ddp_region r;

	KUNIT_EXPECT_EQ(test, siw_mem_fastreg(mr, &pd_a, mr->stag, 0), -EINVAL);
	mr->valid = true;
	KUNIT_ASSERT_EQ(test, siw_mem_ddp_ops.lookup(&f->sdev->mem, mr->stag, &r), 0);
	KUNIT_EXPECT_FALSE(test, r.remote_inv);
	siw_mem_ddp_ops.put(&f->sdev->mem, &r);
}

static struct kunit_case siw_mem_cases[] = {
	KUNIT_CASE_PARAM(mem_check, check_gen_params),
	KUNIT_CASE(mem_check_dma),
	KUNIT_CASE(mem_pgidx),
	KUNIT_CASE(mem_stag_alloc),
	KUNIT_CASE(mem_stag_no_reuse),
	KUNIT_CASE(mem_ddp_lookup),
	KUNIT_CASE(mem_invalidate),
	KUNIT_CASE(mem_invalidate_local_old_key),
	KUNIT_CASE(mem_fastreg),
	KUNIT_CASE(mem_fastreg_wrong_kind),
	{}
};

static struct kunit_suite siw_mem_suite = {
	.name = "siw_mem",
	.init = mem_test_init,
	.exit = mem_test_exit,
	.test_cases = siw_mem_cases,
};

kunit_test_suite(siw_mem_suite);
