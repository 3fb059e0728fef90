// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite siw_ddp_stag: the STag checks of tagged placement (RFC
 * 5041 section 7.1), of Read Request sources and of Send with
 * Invalidate (RFC 5040), through a fake memory layer that counts the
 * references it hands out.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <rdma/ib_verbs.h>

#include "siw_ddp_test.h"

/* two protection domains; only their addresses matter */
static int pd_qp, pd_other;

#define ACC_RW	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
		 IB_ACCESS_REMOTE_READ)

/* STag = index << 8 | key */
#define MK_STAG(i, k)	(((u32)(i) << 8) | (k))
#define ST_RW		MK_STAG(1, 0x5a)	/* [0x1000, 0x2000), all rights */
#define ST_FOREIGN	MK_STAG(2, 0x01)	/* another PD's region */
#define ST_RO		MK_STAG(3, 0x02)	/* remote read only */
#define ST_WO		MK_STAG(4, 0x03)	/* remote write only */
#define ST_DEAD		MK_STAG(5, 0x04)	/* invalidated */
#define ST_TOP		MK_STAG(6, 0x05)	/* the last 4 KiB below 2^64 */
#define ST_NOINV		MK_STAG(7, 0x06)	/* not remotely invalidatable */
#define ST_EMPTY		MK_STAG(8, 0x07)	/* zero-length region */
#define ST_ALL		MK_STAG(9, 0x08)	/* [0, 2^64 - 1) */
#define ST_FOREIGN_RO	MK_STAG(10, 0x09)	/* another PD's, read only */

#define TOP_BASE	(U64_MAX - 0xfffULL)

static const struct siw_ddp_region fake_regions[] = {
	{ .stag = ST_RW, .pd = &pd_qp, .base = 0x1000, .len = 0x1000,
	  .access = ACC_RW, .state = SIW_DDP_REGION_VALID, .remote_inv = true },
	{ .stag = ST_FOREIGN, .pd = &pd_other, .base = 0x1000, .len = 0x1000,
	  .access = ACC_RW, .state = SIW_DDP_REGION_VALID, .remote_inv = true },
	{ .stag = ST_RO, .pd = &pd_qp, .base = 0x1000, .len = 0x1000,
	  .access = IB_ACCESS_REMOTE_READ, .state = SIW_DDP_REGION_VALID },
	{ .stag = ST_WO, .pd = &pd_qp, .base = 0x1000, .len = 0x1000,
	  .access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE,
	  .state = SIW_DDP_REGION_VALID },
	{ .stag = ST_DEAD, .pd = &pd_qp, .base = 0x1000, .len = 0x1000,
	  .access = ACC_RW, .state = SIW_DDP_REGION_INVALID, .remote_inv = true },
	{ .stag = ST_TOP, .pd = &pd_qp, .base = TOP_BASE, .len = 0x1000,
	  .access = ACC_RW, .state = SIW_DDP_REGION_VALID },
	{ .stag = ST_NOINV, .pd = &pd_qp, .base = 0x1000, .len = 0x1000,
	  .access = ACC_RW, .state = SIW_DDP_REGION_VALID },
	{ .stag = ST_EMPTY, .pd = &pd_qp, .base = 0x1000, .len = 0,
	  .access = ACC_RW, .state = SIW_DDP_REGION_VALID },
	{ .stag = ST_ALL, .pd = &pd_qp, .base = 0, .len = U64_MAX,
	  .access = ACC_RW, .state = SIW_DDP_REGION_VALID },
	{ .stag = ST_FOREIGN_RO, .pd = &pd_other, .base = 0x1000,
	  .len = 0x1000, .access = IB_ACCESS_REMOTE_READ,
	  .state = SIW_DDP_REGION_VALID },
};

/* The fake memory layer: finds by index, reports the current key */
struct fake_mem {
	int gets;
	int puts;
	int foreign_puts;	/* regions this instance never handed out */
	int lookups;
	bool changed;		/* what @unchanged answers, negated */
	int asked;		/* @unchanged calls */
};

static int fake_lookup(void *ctx, u32 stag, struct siw_ddp_region *r)
{
	struct fake_mem *fm = ctx;
	unsigned int i;

	fm->lookups++;
	for (i = 0; i < ARRAY_SIZE(fake_regions); i++) {
		if (siw_stag_index(fake_regions[i].stag) ==
		    siw_stag_index(stag)) {
			*r = fake_regions[i];
			r->obj = fm;
			fm->gets++;
			return 0;
		}
	}
	return -ENOENT;
}

static void fake_put(void *ctx, struct siw_ddp_region *r)
{
	struct fake_mem *fm = ctx;

	if (r->obj != fm)
		fm->foreign_puts++;
	fm->puts++;
}

static bool fake_unchanged(void *ctx, const struct siw_ddp_region *r)
{
	struct fake_mem *fm = ctx;

	fm->asked++;
	return !fm->changed;
}

static const struct siw_ddp_mem_ops fake_mem_ops = {
	.lookup = fake_lookup,
	.put = fake_put,
	.unchanged = fake_unchanged,
};

struct stag_case {
	const char *name;
	struct siw_ddp_stag_req req;
	struct siw_ddp_triple exp;
};

#define REQ_PLACE(s, t, l)	{ .pd = &pd_qp, .stag = (s), .to = (t), .len = (l), \
			  .access = IB_ACCESS_REMOTE_WRITE, \
			  .use = SIW_DDP_STAG_PLACE }
#define REQ_READ(s, t, l)	{ .pd = &pd_qp, .stag = (s), .to = (t), .len = (l), \
			  .access = IB_ACCESS_REMOTE_READ, \
			  .use = SIW_DDP_STAG_READ_SRC }
#define REQ_INVAL(s)	{ .pd = &pd_qp, .stag = (s), \
			  .use = SIW_DDP_STAG_INVALIDATE }

static const struct stag_case stag_cases[] = {
	/* tagged placement: RDMA Write and Read Response */
	{ "write whole region", REQ_PLACE(ST_RW, 0x1000, 0x1000), SIW_T_OK },
	{ "write ends at region end", REQ_PLACE(ST_RW, 0x1fff, 1), SIW_T_OK },
	{ "write one past region end", REQ_PLACE(ST_RW, 0x1fff, 2),
	  T_DDP_T_BOUNDS },
	{ "write starts at region end", REQ_PLACE(ST_RW, 0x2000, 1),
	  T_DDP_T_BOUNDS },
	{ "write below base", REQ_PLACE(ST_RW, 0xfff, 1), T_DDP_T_BOUNDS },
	{ "write below base into region", REQ_PLACE(ST_RW, 0xfff, 0x10),
	  T_DDP_T_BOUNDS },
	{ "write stag 0", REQ_PLACE(0, 0x1000, 1), T_DDP_T_INV_STAG },
	{ "write index 0 with key", REQ_PLACE(0x5a, 0x1000, 1),
	  T_DDP_T_INV_STAG },
	{ "write unknown stag", REQ_PLACE(MK_STAG(0x63, 0), 0x1000, 1),
	  T_DDP_T_INV_STAG },
	{ "write wrong key", REQ_PLACE(MK_STAG(1, 0x5b), 0x1000, 1),
	  T_DDP_T_INV_STAG },
	{ "write foreign pd", REQ_PLACE(ST_FOREIGN, 0x1000, 1),
	  T_DDP_T_NOT_ASSOC },
	{ "write foreign pd wrong key", REQ_PLACE(MK_STAG(2, 0xee), 0x1000, 1),
	  T_DDP_T_INV_STAG },
	{ "write foreign pd read only", REQ_PLACE(ST_FOREIGN_RO, 0x1000, 1),
	  T_DDP_T_NOT_ASSOC },
	{ "write to read only", REQ_PLACE(ST_RO, 0x1000, 1), T_RDMAP_ACCESS },
	{ "write to read only out of bounds", REQ_PLACE(ST_RO, 0x3000, 1),
	  T_RDMAP_ACCESS },
	{ "write invalidated", REQ_PLACE(ST_DEAD, 0x1000, 1), T_DDP_T_INV_STAG },
	{ "write to last octet below 2^64", REQ_PLACE(ST_TOP, U64_MAX, 1),
	  SIW_T_OK },
	{ "write ends exactly at 2^64", REQ_PLACE(ST_TOP, U64_MAX - 15, 16),
	  SIW_T_OK },
	{ "write wraps 2^64 by one", REQ_PLACE(ST_TOP, U64_MAX - 15, 17),
	  T_DDP_T_TO_WRAP },
	{ "write wraps from u64 max", REQ_PLACE(ST_ALL, U64_MAX, 2),
	  T_DDP_T_TO_WRAP },
	{ "wrap reported before bounds", REQ_PLACE(ST_RW, U64_MAX, 0x1000),
	  T_DDP_T_TO_WRAP },
	{ "write 4 GiB - 1 at 0", REQ_PLACE(ST_ALL, 0, U32_MAX), SIW_T_OK },
	{ "write into empty region", REQ_PLACE(ST_EMPTY, 0x1000, 1),
	  T_DDP_T_BOUNDS },
	{ "zero length, stag 0", REQ_PLACE(0, 0x1000, 0), SIW_T_OK },
	{ "zero length, foreign pd", REQ_PLACE(ST_FOREIGN, 0, 0), SIW_T_OK },
	{ "zero length, invalidated", REQ_PLACE(ST_DEAD, U64_MAX, 0), SIW_T_OK },
	/* source of an RDMA Read Request */
	{ "read whole region", REQ_READ(ST_RW, 0x1000, 0x1000), SIW_T_OK },
	{ "read from read only", REQ_READ(ST_RO, 0x1800, 0x800), SIW_T_OK },
	{ "read from write only", REQ_READ(ST_WO, 0x1000, 1), T_RDMAP_ACCESS },
	{ "read stag 0", REQ_READ(0, 0x1000, 1), T_RDMAP_INV_STAG },
	{ "read unknown stag", REQ_READ(MK_STAG(0x64, 1), 0x1000, 1),
	  T_RDMAP_INV_STAG },
	{ "read wrong key", REQ_READ(MK_STAG(3, 0x77), 0x1000, 1),
	  T_RDMAP_INV_STAG },
	{ "read invalidated", REQ_READ(ST_DEAD, 0x1000, 1), T_RDMAP_INV_STAG },
	{ "read foreign pd", REQ_READ(ST_FOREIGN, 0x1000, 1), T_RDMAP_NOT_ASSOC },
	{ "read past region end", REQ_READ(ST_RW, 0x1001, 0x1000),
	  T_RDMAP_BOUNDS },
	{ "read wraps 2^64", REQ_READ(ST_TOP, U64_MAX - 1, 3), T_RDMAP_TO_WRAP },
	{ "read ends exactly at 2^64", REQ_READ(ST_TOP, TOP_BASE, 0x1000),
	  SIW_T_OK },
	{ "zero length read, stag 0", REQ_READ(0, 0, 0), SIW_T_OK },
	/* Invalidate STag of a Send with Invalidate */
	{ "invalidate", REQ_INVAL(ST_RW), SIW_T_OK },
	{ "invalidate stag 0", REQ_INVAL(0), T_RDMAP_OP_NO_INV },
	{ "invalidate unknown stag", REQ_INVAL(MK_STAG(0x65, 0)), T_RDMAP_OP_NO_INV },
	{ "invalidate wrong key", REQ_INVAL(MK_STAG(1, 0x00)), T_RDMAP_OP_NO_INV },
	{ "invalidate twice", REQ_INVAL(ST_DEAD), T_RDMAP_OP_NO_INV },
	{ "invalidate foreign pd", REQ_INVAL(ST_FOREIGN), T_RDMAP_PROT_NO_INV },
	{ "invalidate not allowed", REQ_INVAL(ST_NOINV), T_RDMAP_OP_NO_INV },
};

SIW_DDP_CASE_DESC(stag_case);
KUNIT_ARRAY_PARAM(stag, stag_cases, stag_case_desc);

static void siw_ddp_stag_lookup(struct kunit *test)
{
	const struct stag_case *c = test->param_value;
	struct fake_mem fm = {};
	const struct siw_ddp_mem mem = { .ops = &fake_mem_ops, .ctx = &fm };
	struct siw_ddp_region r;
	enum siw_ddp_err err;

	err = siw_ddp_stag_resolve(&mem, &c->req, &r);
	siw_ddp_expect(test, err, &c->exp);

	/* a failed check never keeps a reference */
	if (err)
		KUNIT_EXPECT_EQ(test, fm.gets, fm.puts);
	/* zero-length placement and reads look nothing up */
	if (!c->req.len && c->req.use != SIW_DDP_STAG_INVALIDATE)
		KUNIT_EXPECT_EQ(test, fm.lookups, 0);
	/* index 0 is never looked up */
	if (!siw_stag_index(c->req.stag))
		KUNIT_EXPECT_EQ(test, fm.lookups, 0);

	siw_ddp_stag_put(&mem, &r);
	KUNIT_EXPECT_EQ(test, fm.gets, fm.puts);
	KUNIT_EXPECT_EQ(test, fm.foreign_puts, 0);
}

/* The pure check gives the same answer without the memory layer */
static void siw_ddp_stag_pure(struct kunit *test)
{
	const struct stag_case *c = test->param_value;
	const struct siw_ddp_region *r = NULL;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(fake_regions); i++)
		if (siw_stag_index(fake_regions[i].stag) ==
		    siw_stag_index(c->req.stag))
			r = &fake_regions[i];
	siw_ddp_expect(test, siw_ddp_stag_check(r, &c->req), &c->exp);
}

static void siw_ddp_stag_rights(struct kunit *test)
{
	const struct siw_ddp_triple access = T_RDMAP_ACCESS;
	const struct siw_ddp_triple ok = SIW_T_OK;
	struct siw_ddp_stag_req req = REQ_PLACE(ST_WO, 0x1000, 8);

	/* both rights asked, one granted */
	req.access = IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ;
	siw_ddp_expect(test, siw_ddp_stag_check(&fake_regions[3], &req),
		       &access);
	req.access = IB_ACCESS_REMOTE_WRITE;
	siw_ddp_expect(test, siw_ddp_stag_check(&fake_regions[3], &req), &ok);
	/* either of two rights, as for a Read Response into our own sink */
	req.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ;
	siw_ddp_expect(test, siw_ddp_stag_check(&fake_regions[3], &req),
		       &access);
	req.access_any = true;
	siw_ddp_expect(test, siw_ddp_stag_check(&fake_regions[3], &req), &ok);
	req.stag = ST_RO;
	req.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;
	siw_ddp_expect(test, siw_ddp_stag_check(&fake_regions[2], &req),
		       &access);
	req.stag = ST_WO;
	req.access_any = false;
	/* an unknown use is a local error, not an out-of-bounds read */
	req.use = 7;
	KUNIT_EXPECT_EQ(test, siw_ddp_stag_check(&fake_regions[3], &req),
			SIW_DDP_ERR_RDMAP_CATASTROPHIC);
}

/*
 * siw_ddp_stag_again() with the region of the request's STag index held
 * from an earlier lookup (as the engine holds it between the segments
 * of a message): unchanged, it answers as a lookup would without one;
 * changed, for another key or another use of no length, it lets go and
 * looks up again; with nothing held it is siw_ddp_stag_resolve()
 */
static void siw_ddp_stag_again_cases(struct kunit *test)
{
	const struct stag_case *c = test->param_value;
	bool zero = !c->req.len && c->req.use != SIW_DDP_STAG_INVALIDATE;
	unsigned int held, changed;

	for (held = 0; held <= 1; held++) {
		for (changed = 0; changed <= 1; changed++) {
			struct fake_mem fm = { .changed = changed };
			const struct siw_ddp_mem mem = { .ops = &fake_mem_ops,
							 .ctx = &fm };
			struct siw_ddp_region r = {};
			bool asks, reuse;

			if (held && !fake_lookup(&fm, c->req.stag, &r) &&
			    r.state != SIW_DDP_REGION_VALID) {
				/* a resolve never leaves an invalid one held */
				fake_put(&fm, &r);
				memset(&r, 0, sizeof(r));
			}
			asks = r.state == SIW_DDP_REGION_VALID &&
			       r.stag == c->req.stag && !zero;
			reuse = asks && !changed;
			fm.lookups = 0;
			siw_ddp_expect(test, siw_ddp_stag_again(&mem, &c->req,
								&r),
				       &c->exp);
			/* asked whenever a region of that STag was held */
			KUNIT_EXPECT_EQ(test, fm.asked, (int)asks);
			if (reuse || zero || !siw_stag_index(c->req.stag))
				KUNIT_EXPECT_EQ_MSG(test, fm.lookups, 0,
						    "held %u changed %u", held,
						    changed);
			else
				KUNIT_EXPECT_EQ_MSG(test, fm.lookups, 1,
						    "held %u changed %u", held,
						    changed);
			/* one reference at most, none after a failure */
			KUNIT_EXPECT_EQ(test, fm.gets - fm.puts,
					r.state == SIW_DDP_REGION_VALID);
			siw_ddp_stag_put(&mem, &r);
			KUNIT_EXPECT_EQ(test, fm.gets, fm.puts);
			KUNIT_EXPECT_EQ(test, fm.foreign_puts, 0);
		}
	}
}

/* Without @unchanged the memory layer is asked every time */
static void siw_ddp_stag_again_unasked(struct kunit *test)
{
	static const struct siw_ddp_mem_ops ops = {
		.lookup = fake_lookup,
		.put = fake_put,
	};
	const struct siw_ddp_stag_req req = REQ_PLACE(ST_RW, 0x1000, 8);
	struct fake_mem fm = {};
	const struct siw_ddp_mem mem = { .ops = &ops, .ctx = &fm };
	struct siw_ddp_region r;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, siw_ddp_stag_resolve(&mem, &req, &r), 0);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, siw_ddp_stag_again(&mem, &req, &r), 0);
	KUNIT_EXPECT_EQ(test, fm.lookups, 4);
	KUNIT_EXPECT_EQ(test, fm.gets - fm.puts, 1);
	siw_ddp_stag_put(&mem, &r);
	KUNIT_EXPECT_EQ(test, fm.gets, fm.puts);
}

static struct kunit_case siw_ddp_stag_cases[] = {
	KUNIT_CASE_PARAM(siw_ddp_stag_lookup, stag_gen_params),
	KUNIT_CASE_PARAM(siw_ddp_stag_pure, stag_gen_params),
	KUNIT_CASE(siw_ddp_stag_rights),
	KUNIT_CASE_PARAM(siw_ddp_stag_again_cases, stag_gen_params),
	KUNIT_CASE(siw_ddp_stag_again_unasked),
	{}
};

static struct kunit_suite siw_ddp_stag_suite = {
	.name = "siw_ddp_stag",
	.test_cases = siw_ddp_stag_cases,
};

kunit_test_suite(siw_ddp_stag_suite);
