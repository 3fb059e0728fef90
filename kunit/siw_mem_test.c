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
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
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

/*
 * A REG_MR still queued when its MR is deregistered holds a reference on
 * the description; carried out after, it must not make the destroyed
 * region valid again, under any key
 */
static void mem_fastreg_after_dereg(struct kunit *test)
{
	struct mem_fixture *f = test->priv;
	struct ib_pd pd = { .device = &f->sdev->base };
	struct ib_mr *base;
	struct siw_mr *mr;

	base = siw_alloc_mr(&pd, IB_MR_TYPE_MEM_REG, 1);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, base);
	base->pd = &pd;
	mr = to_siw_mr(base);
	/* the queued request's reference */
	siw_mr_hold(mr);
	siw_dereg_mr(base, NULL);
	KUNIT_EXPECT_EQ(test, siw_mem_fastreg(mr, &pd, mr->stag, ACC_RW),
			-ENOENT);
	KUNIT_EXPECT_FALSE(test, mr->valid);
	KUNIT_EXPECT_EQ(test, siw_mem_fastreg(mr, &pd, mr->stag ^ 1, ACC_RW),
			-ENOENT);
	KUNIT_EXPECT_FALSE(test, mr->valid);
	KUNIT_EXPECT_NULL(test, siw_mr_get(&f->sdev->mem, mr->stag));
	siw_mr_put(mr);
}

#define PG_FILL		0x3c
#define PG_DATA		0xd7

/*
 * A fast-registration MR of @f's device mapped by the map_mr_sg verb,
 * with a page size of @page_size, to the @n buffers at @buf of @len
 * octets each, and registered (REG_MR) for local and remote access
 */
static struct siw_mr *pg_mr(struct kunit *test, struct mem_fixture *f,
			    struct ib_pd *pd, unsigned int page_size,
			    u8 *const *buf, u32 len, int n)
{
	struct scatterlist sg[4];
	struct ib_mr *base;
	struct siw_mr *mr;
	int i;

	KUNIT_ASSERT_LE(test, n, (int)ARRAY_SIZE(sg));
	pd->device = &f->sdev->base;
	base = siw_alloc_mr(pd, IB_MR_TYPE_MEM_REG, 4);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, base);
	base->pd = pd;
	mr = to_siw_mr(base);
	/* the RDMA core's software DMA mapping: addresses are virtual */
	sg_init_table(sg, n);
	for (i = 0; i < n; i++) {
		sg_set_buf(&sg[i], buf[i], len);
		sg_dma_address(&sg[i]) = (u64)(uintptr_t)buf[i];
		sg_dma_len(&sg[i]) = len;
	}
	/* what ib_map_mr_sg() sets before it calls the driver */
	base->page_size = page_size;
	KUNIT_ASSERT_EQ(test, siw_map_mr_sg(base, sg, n, NULL), n);
	KUNIT_ASSERT_EQ(test, siw_mem_fastreg(mr, pd, mr->stag, ACC_RW), 0);
	return mr;
}

/*
 * A region of 512-octet pages (nvme-rdma's 4 KiB pages on a kernel of
 * 64 KiB ones, scaled down), each in a kernel page of its own: a copy
 * into it goes to the end of the region's page, then on in the next
 * region page, never on to the end of the kernel page
 */
static void mem_place_small_pages(struct kunit *test)
{
	struct mem_fixture *f = test->priv;
	u8 *a = kunit_kmalloc(test, PAGE_SIZE, GFP_KERNEL);
	u8 *b = kunit_kmalloc(test, PAGE_SIZE, GFP_KERNEL);
	u8 data[600];
	struct ib_pd pd = { };
	struct siw_mr *mr;
	u8 *buf[2];

	KUNIT_ASSERT_TRUE(test, a && b);
	memset(a, PG_FILL, PAGE_SIZE);
	memset(b, PG_FILL, PAGE_SIZE);
	memset(data, PG_DATA, sizeof(data));
	/* the second half of a region page of a, the first of b */
	buf[0] = a + 1024 + 256;
	buf[1] = b;
	mr = pg_mr(test, f, &pd, SZ_512, buf, 256, 2);
	KUNIT_EXPECT_EQ(test, mr->page_shift, 9);
	KUNIT_EXPECT_EQ(test, mr->len, 512ULL);

	KUNIT_EXPECT_EQ(test, siw_mr_place(mr, mr->gen, mr->va, data, 512,
					   NULL), 0);
	KUNIT_EXPECT_TRUE(test, !memchr_inv(a, PG_FILL, 1024 + 256));
	KUNIT_EXPECT_TRUE(test, !memchr_inv(a + 1024 + 256, PG_DATA, 256));
	KUNIT_EXPECT_TRUE_MSG(test, !memchr_inv(a + 1536, PG_FILL,
						PAGE_SIZE - 1536),
			      "placement ran past the region's page");
	KUNIT_EXPECT_TRUE(test, !memchr_inv(b, PG_DATA, 256));
	KUNIT_EXPECT_TRUE(test, !memchr_inv(b + 256, PG_FILL, PAGE_SIZE - 256));
	siw_dereg_mr(&mr->base, NULL);
}

/*
 * A sender takes from a page only the octets of the region's page: the
 * rest of the kernel page is not the region's
 */
static void mem_get_page_small_pages(struct kunit *test)
{
	struct mem_fixture *f = test->priv;
	u8 *a = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	u8 *b = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	struct ib_pd pd = { };
	struct siw_mr_src src;
	struct siw_mr *mr;
	u8 *buf[2];

	KUNIT_ASSERT_TRUE(test, a && b);
	buf[0] = a + 512;
	buf[1] = b + 2048;
	mr = pg_mr(test, f, &pd, SZ_512, buf, 512, 2);

	KUNIT_ASSERT_EQ(test, siw_mr_get_page(mr, mr->gen, mr->va + 100, 900,
					      false, &src), 0);
	KUNIT_EXPECT_PTR_EQ(test, src.page, virt_to_page(a));
	KUNIT_EXPECT_EQ(test, src.off, 612U);
	KUNIT_EXPECT_EQ_MSG(test, src.len, 412U,
			    "the page served octets past the region's page");
	KUNIT_ASSERT_EQ(test, siw_mr_get_page(mr, mr->gen, mr->va + 512, 488,
					      false, &src), 0);
	KUNIT_EXPECT_PTR_EQ(test, src.page, virt_to_page(b));
	KUNIT_EXPECT_EQ(test, src.off, 2048U);
	KUNIT_EXPECT_EQ(test, src.len, 488U);
	/* slab memory: a Read Response takes a copy of only those octets */
	KUNIT_ASSERT_EQ(test, siw_mr_get_page(mr, mr->gen, mr->va + 500, 24,
					      true, &src), 0);
	KUNIT_EXPECT_EQ(test, src.len, 12U);
	KUNIT_EXPECT_TRUE(test, src.ref);
	if (src.ref)
		put_page(src.page);
	siw_dereg_mr(&mr->base, NULL);
}

/**
 * struct fetch_case - one SGE read by siw_mr_fetch_local()
 * @name: the case
 * @key: XORed into the lkey (a wrong key), or the whole lkey if @index0
 * @index0: an lkey of index 0
 * @other_pd: the QP's PD is another than the region's
 * @revoked: the region was invalidated before the read
 * @off: the SGE's address, as an offset from the region's start
 * @len: its length
 * @rv: what the read returns; on error nothing is copied
 */
struct fetch_case {
	const char *name;
	u32 key;
	bool index0;
	bool other_pd;
	bool revoked;
	u32 off;
	u32 len;
	int rv;
};

/* The region: 2 pages of 512 octets, each in a kernel page of its own */
static const struct fetch_case fetch_cases[] = {
	{ "whole_across_pages", 0, false, false, false, 0, 1024, 0 },
	{ "across_the_boundary", 0, false, false, false, 500, 24, 0 },
	{ "within_first_page", 0, false, false, false, 100, 300, 0 },
	{ "last_octet", 0, false, false, false, 1023, 1, 0 },
	{ "empty_at_end", 0, false, false, false, 1024, 0, 0 },
	{ "wrong_key", 1, false, false, false, 0, 64, -EACCES },
	{ "index_zero", 0, true, false, false, 0, 64, -EACCES },
	{ "other_pd", 0, false, true, false, 0, 64, -EACCES },
	{ "one_past", 0, false, false, false, 1, 1024, -EACCES },
	{ "start_past", 0, false, false, false, 1025, 0, -EACCES },
	{ "invalidated", 0, false, false, true, 0, 64, -EACCES },
};

static void fetch_desc(const struct fetch_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(fetch, fetch_cases, fetch_desc);

/*
 * An SGE read whole at a message's start, looked up, checked and read
 * with no reference (siw_mr_fetch_local()): the octets of the region's
 * pages in order, or nothing and -EACCES where siw_mr_get_local()
 * refuses the access or the region was revoked
 */
static void mem_fetch_local(struct kunit *test)
{
	const struct fetch_case *c = test->param_value;
	struct mem_fixture *f = test->priv;
	u8 *a = kunit_kmalloc(test, PAGE_SIZE, GFP_KERNEL);
	u8 *b = kunit_kmalloc(test, PAGE_SIZE, GFP_KERNEL);
	u8 *dst = kunit_kzalloc(test, 2048, GFP_KERNEL);
	struct ib_pd pd = { }, other = { };
	struct siw_mr *mr;
	u32 lkey, i;
	u8 *buf[2];

	KUNIT_ASSERT_TRUE(test, a && b && dst);
	buf[0] = a + 1024;
	buf[1] = b + 512;
	mr = pg_mr(test, f, &pd, SZ_512, buf, 512, 2);
	for (i = 0; i < 512; i++) {
		buf[0][i] = (u8)(i * 5 + 1);
		buf[1][i] = (u8)(i * 3 + 2);
	}
	lkey = c->index0 ? mr->stag & SIW_STAG_KEY_MASK : mr->stag ^ c->key;
	if (c->revoked)
		KUNIT_ASSERT_EQ(test, siw_mem_invalidate(&f->sdev->mem, &pd,
							 mr->stag, false), 0);

	KUNIT_EXPECT_EQ(test, siw_mr_fetch_local(&f->sdev->mem,
						 c->other_pd ? &other : &pd,
						 lkey, mr->va + c->off, dst,
						 c->len, NULL), c->rv);
	if (c->rv) {
		KUNIT_EXPECT_TRUE_MSG(test, !memchr_inv(dst, 0, 2048),
				      "a refused read copied octets");
	} else {
		for (i = 0; i < c->len; i++) {
			u32 at = c->off + i;
			u8 v = at < 512 ? buf[0][at] : buf[1][at - 512];

			if (dst[i] != v)
				break;
		}
		KUNIT_EXPECT_EQ_MSG(test, i, c->len,
				    "octet %u is not the region's", i);
		KUNIT_EXPECT_TRUE(test, !memchr_inv(dst + c->len, 0,
						    2048 - c->len));
	}
	siw_dereg_mr(&mr->base, NULL);
}

/**
 * struct once_case - one Write segment placed by siw_mr_place_once()
 * @name: the case
 * @key: XORed into the STag (a wrong key)
 * @index0: an STag of index 0
 * @other_pd: the QP's PD is another than the region's
 * @revoked: the region was invalidated before the segment
 * @access: rights the segment needs
 * @off: its Tagged Offset, from the region's start
 * @len: its payload
 * @err: the DDP layer's answer; on error nothing is placed
 */
struct once_case {
	const char *name;
	u32 key;
	bool index0;
	bool other_pd;
	bool revoked;
	u32 access;
	u64 off;
	u32 len;
	enum siw_ddp_err err;
};

/* The region of mem_fetch_local(): 2 pages of 512 octets, ACC_RW */
static const struct once_case once_cases[] = {
	{ "whole_across_pages", 0, false, false, false,
	  IB_ACCESS_REMOTE_WRITE, 0, 1024, SIW_DDP_OK },
	{ "across_the_boundary", 0, false, false, false,
	  IB_ACCESS_REMOTE_WRITE, 500, 24, SIW_DDP_OK },
	{ "last_octet", 0, false, false, false,
	  IB_ACCESS_REMOTE_WRITE, 1023, 1, SIW_DDP_OK },
	{ "wrong_key", 1, false, false, false,
	  IB_ACCESS_REMOTE_WRITE, 0, 64, SIW_DDP_ERR_DDP_T_INVALID_STAG },
	{ "index_zero", 0, true, false, false,
	  IB_ACCESS_REMOTE_WRITE, 0, 64, SIW_DDP_ERR_DDP_T_INVALID_STAG },
	{ "other_pd", 0, false, true, false,
	  IB_ACCESS_REMOTE_WRITE, 0, 64, SIW_DDP_ERR_DDP_T_STAG_NOT_ASSOC },
	{ "no_right", 0, false, false, false,
	  IB_ACCESS_REMOTE_ATOMIC, 0, 64, SIW_DDP_ERR_RDMAP_ACCESS },
	{ "one_past", 0, false, false, false,
	  IB_ACCESS_REMOTE_WRITE, 1, 1024, SIW_DDP_ERR_DDP_T_BASE_BOUNDS },
	{ "below", 0, false, false, false,
	  IB_ACCESS_REMOTE_WRITE, -1ULL, 2, SIW_DDP_ERR_DDP_T_BASE_BOUNDS },
	{ "invalidated", 0, false, false, true,
	  IB_ACCESS_REMOTE_WRITE, 0, 64, SIW_DDP_ERR_DDP_T_INVALID_STAG },
};

static void once_desc(const struct once_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(once, once_cases, once_desc);

/*
 * A Write in one segment checked and placed with no reference
 * (siw_mr_place_once()): the DDP layer's error for what the check
 * refuses, and nothing placed then; else the payload in the region's
 * pages, nothing around it
 */
static void mem_place_once(struct kunit *test)
{
	const struct once_case *c = test->param_value;
	struct mem_fixture *f = test->priv;
	u8 *a = kunit_kmalloc(test, PAGE_SIZE, GFP_KERNEL);
	u8 *b = kunit_kmalloc(test, PAGE_SIZE, GFP_KERNEL);
	u8 *data = kunit_kmalloc(test, 1024, GFP_KERNEL);
	struct ib_pd pd = { }, other = { };
	struct siw_ddp_stag_req req = { };
	struct siw_mr *mr;
	bool outside;
	u8 *buf[2];
	int rv = 1;
	u32 i, at;

	KUNIT_ASSERT_TRUE(test, a && b && data);
	memset(a, PG_FILL, PAGE_SIZE);
	memset(b, PG_FILL, PAGE_SIZE);
	for (i = 0; i < 1024; i++)
		data[i] = (u8)(i * 5 + 1);
	buf[0] = a + 1024;
	buf[1] = b + 512;
	mr = pg_mr(test, f, &pd, SZ_512, buf, 512, 2);
	if (c->revoked)
		KUNIT_ASSERT_EQ(test, siw_mem_invalidate(&f->sdev->mem, &pd,
							 mr->stag, false), 0);
	req = (struct siw_ddp_stag_req){
		.pd = c->other_pd ? &other : &pd,
		.to = mr->va + c->off,
		.stag = c->index0 ? mr->stag & SIW_STAG_KEY_MASK :
				    mr->stag ^ c->key,
		.len = c->len,
		.access = c->access,
		.use = SIW_DDP_STAG_PLACE,
	};

	KUNIT_EXPECT_EQ(test, siw_mr_place_once(&f->sdev->mem, &req, data,
						NULL, &rv), c->err);
	if (c->err) {
		KUNIT_EXPECT_EQ(test, rv, 1);
		KUNIT_EXPECT_TRUE_MSG(test, !memchr_inv(a, PG_FILL, PAGE_SIZE) &&
				      !memchr_inv(b, PG_FILL, PAGE_SIZE),
				      "a refused segment placed octets");
	} else {
		KUNIT_EXPECT_EQ(test, rv, 0);
		for (i = 0; i < 1024; i++) {
			outside = i < c->off || i >= c->off + c->len;
			at = i < 512 ? buf[0][i] : buf[1][i - 512];
			if (at != (outside ? PG_FILL : data[i - c->off]))
				break;
		}
		KUNIT_EXPECT_EQ_MSG(test, i, 1024U,
				    "octet %u of the region is wrong", i);
		KUNIT_EXPECT_TRUE(test, !memchr_inv(a, PG_FILL, 1024));
		KUNIT_EXPECT_TRUE(test, !memchr_inv(b, PG_FILL, 512));
	}
	siw_dereg_mr(&mr->base, NULL);
}

/*
 * Region pages larger than the kernel's (an 8 KiB page here, 2 MiB for
 * a huge page): each access still stops at the end of the kernel page,
 * and the next one takes the next kernel page of the region's page
 */
static void mem_large_pages(struct kunit *test)
{
	struct mem_fixture *f = test->priv;
	u8 *a = kunit_kmalloc(test, 2 * PAGE_SIZE, GFP_KERNEL);
	u8 data[300];
	struct ib_pd pd = { };
	struct siw_mr_src src;
	struct siw_mr *mr;
	u8 *buf[1];

	KUNIT_ASSERT_NOT_NULL(test, a);
	/* kmalloc() aligns a power-of-two size to itself */
	KUNIT_ASSERT_EQ(test, (uintptr_t)a & (2 * PAGE_SIZE - 1), 0UL);
	memset(a, PG_FILL, 2 * PAGE_SIZE);
	memset(data, PG_DATA, sizeof(data));
	buf[0] = a;
	mr = pg_mr(test, f, &pd, 2 * PAGE_SIZE, buf, 2 * PAGE_SIZE, 1);
	KUNIT_EXPECT_EQ(test, mr->page_shift, PAGE_SHIFT + 1);

	KUNIT_ASSERT_EQ(test, siw_mr_get_page(mr, mr->gen,
					      mr->va + PAGE_SIZE - 100, 300,
					      false, &src), 0);
	KUNIT_EXPECT_PTR_EQ(test, src.page, virt_to_page(a));
	KUNIT_EXPECT_EQ(test, src.off, (unsigned int)PAGE_SIZE - 100);
	KUNIT_EXPECT_EQ(test, src.len, 100U);
	KUNIT_ASSERT_EQ(test, siw_mr_get_page(mr, mr->gen, mr->va + PAGE_SIZE,
					      200, false, &src), 0);
	KUNIT_EXPECT_PTR_EQ(test, src.page, virt_to_page(a + PAGE_SIZE));
	KUNIT_EXPECT_EQ(test, src.off, 0U);
	KUNIT_EXPECT_EQ(test, src.len, 200U);

	KUNIT_EXPECT_EQ(test, siw_mr_place(mr, mr->gen,
					   mr->va + PAGE_SIZE - 100, data,
					   sizeof(data), NULL), 0);
	KUNIT_EXPECT_TRUE(test, !memchr_inv(a + PAGE_SIZE - 100, PG_DATA, 300));
	KUNIT_EXPECT_TRUE(test, !memchr_inv(a, PG_FILL, PAGE_SIZE - 100));
	KUNIT_EXPECT_TRUE(test, !memchr_inv(a + PAGE_SIZE + 200, PG_FILL,
					    PAGE_SIZE - 200));
	siw_dereg_mr(&mr->base, NULL);
}

/* Pieces of a range: cut at the smaller of the two page sizes */
static void mem_pieces(struct kunit *test)
{
	struct siw_mr mr = { .page_shift = 9 };

	KUNIT_EXPECT_EQ(test, siw_mr_pieces(&mr, 0), 2ULL);
	KUNIT_EXPECT_EQ(test, siw_mr_pieces(&mr, 4096), 10ULL);
	mr.page_shift = 21;
	KUNIT_EXPECT_EQ(test, siw_mr_pieces(&mr, SZ_1M),
			(u64)(SZ_1M >> PAGE_SHIFT) + 2);
	mr.page_shift = PAGE_SHIFT;
	KUNIT_EXPECT_EQ(test, siw_mr_pieces(&mr, U32_MAX),
			(u64)(U32_MAX >> PAGE_SHIFT) + 2);
}

/* map_mr_sg takes a page size only if it is a power of two */
static void mem_map_page_size(struct kunit *test)
{
	struct mem_fixture *f = test->priv;
	u8 *a = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	struct scatterlist sg;
	struct ib_pd pd = { .device = &f->sdev->base };
	struct ib_mr *base;

	KUNIT_ASSERT_NOT_NULL(test, a);
	base = siw_alloc_mr(&pd, IB_MR_TYPE_MEM_REG, 4);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, base);
	sg_init_one(&sg, a, 1024);
	sg_dma_address(&sg) = (u64)(uintptr_t)a;
	sg_dma_len(&sg) = 1024;
	base->page_size = 3000;
	KUNIT_EXPECT_EQ(test, siw_map_mr_sg(base, &sg, 1, NULL), -EINVAL);
	base->page_size = 0;
	KUNIT_EXPECT_EQ(test, siw_map_mr_sg(base, &sg, 1, NULL), -EINVAL);
	base->page_size = SZ_256;
	KUNIT_EXPECT_EQ(test, siw_map_mr_sg(base, &sg, 1, NULL), 1);
	KUNIT_EXPECT_EQ(test, to_siw_mr(base)->map_npages, 4U);
	KUNIT_EXPECT_EQ(test, to_siw_mr(base)->map_shift, 8);
	siw_dereg_mr(base, NULL);
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
	KUNIT_CASE(mem_fastreg_after_dereg),
	KUNIT_CASE(mem_place_small_pages),
	KUNIT_CASE(mem_get_page_small_pages),
	KUNIT_CASE_PARAM(mem_fetch_local, fetch_gen_params),
	KUNIT_CASE_PARAM(mem_place_once, once_gen_params),
	KUNIT_CASE(mem_large_pages),
	KUNIT_CASE(mem_pieces),
	KUNIT_CASE(mem_map_page_size),
	{}
};

static struct kunit_suite siw_mem_suite = {
	.name = "siw_mem",
	.init = mem_test_init,
	.exit = mem_test_exit,
	.test_cases = siw_mem_cases,
};

kunit_test_suite(siw_mem_suite);
