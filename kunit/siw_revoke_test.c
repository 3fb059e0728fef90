// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite siw_revoke: invalidation and deregistration against
 * accesses already under way (Documentation/security.rst).
 *
 * A device made up for the test holds a fast-registration region backed
 * by a real page. The cases run the real memory layer and, for the
 * receive side, the real receive engine with the QP layer's own
 * placement callbacks (siw_srx_ops), and stop a transfer half-way the
 * way a peer can: a tagged Write FPDU cut in two around a Local
 * Invalidate, a Read Response stalled between two FPDUs around a Send
 * with Invalidate, a deregistration while a stream still holds the
 * region. Nothing may reach the memory after the revocation returned,
 * and deregistration must not wait for the holder.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/highmem.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include "siw_dev/siw_dev.h"
#include "siw_qp/siw_stream.h"
#include "siw_ddp_test.h"

#define RV_IOVA		0x40000ULL
#define RV_ACCESS	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
			 IB_ACCESS_REMOTE_READ)
#define RV_WRITE_LEN	2048
#define RV_FILL		0x5a

/**
 * struct rv_fixture - a device, a PD and a registered region
 * @sdev: a device with nothing but an STag table
 * @pd: a PD of that device
 * @mr: a fast-registration MR mapping @page, registered as @stag
 * @page: the region's memory, filled with RV_FILL
 * @other: a page the consumer maps the MR to for its next use, or NULL
 * @stag: the STag it is registered under
 */
struct rv_fixture {
	struct siw_device *sdev;
	struct ib_pd pd;
	struct siw_mr *mr;
	struct page *page;
	struct page *other;
	u32 stag;
};

/* Every octet of [@off, @off + @len) of @pg is @val */
static bool rv_all(struct page *pg, u32 off, u32 len, u8 val)
{
	u8 *va = kmap_local_page(pg);
	bool same = !memchr_inv(va + off, val, len);

	kunmap_local(va);
	return same;
}

/* A fast-registration MR mapping @addr's page, registered with @key */
static struct siw_mr *rv_fastreg(struct kunit *test, struct rv_fixture *f,
				 const void *addr, u8 key)
{
	struct ib_mr *base;
	struct siw_mr *mr;

	base = siw_alloc_mr(&f->pd, IB_MR_TYPE_MEM_REG, 1);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, base);
	mr = to_siw_mr(base);
	base->pd = &f->pd;
	base->iova = RV_IOVA + offset_in_page(addr);
	base->length = PAGE_SIZE - offset_in_page(addr);
	base->page_size = PAGE_SIZE;
	/* what map_mr_sg leaves for the REG_MR */
	mr->map_pbl[0] = (u64)(uintptr_t)addr & PAGE_MASK;
	mr->map_npages = 1;
	mr->map_off = offset_in_page(addr);
	f->stag = (mr->stag & ~SIW_STAG_KEY_MASK) | key;
	KUNIT_ASSERT_EQ(test, siw_mem_fastreg(mr, &f->pd, f->stag, RV_ACCESS),
			0);
	return mr;
}

static int rv_init(struct kunit *test)
{
	struct rv_fixture *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	if (!f)
		return -ENOMEM;
	f->sdev = kunit_kzalloc(test, sizeof(*f->sdev), GFP_KERNEL);
	f->page = alloc_page(GFP_KERNEL);
	if (!f->sdev || !f->page)
		return -ENOMEM;
	/* a stream counts into the device's counters */
	f->sdev->stats = siw_stats_alloc();
	if (!f->sdev->stats)
		return -ENOMEM;
	siw_mem_table_init(&f->sdev->mem);
	f->pd.device = &f->sdev->base;
	memset(page_address(f->page), RV_FILL, PAGE_SIZE);
	test->priv = f;
	f->mr = rv_fastreg(test, f, page_address(f->page), 0x11);
	return 0;
}

static void rv_exit(struct kunit *test)
{
	struct rv_fixture *f = test->priv;

	if (f->mr)
		siw_dereg_mr(&f->mr->base, NULL);
	siw_mem_table_destroy(&f->sdev->mem);
	siw_stats_free(f->sdev->stats);
	__free_page(f->page);
	if (f->other)
		__free_page(f->other);
}

/*
 * A peer's tagged Write of RV_WRITE_LEN octets from @data, framed by the
 * transmit engine into @w for an EMSS of @emss; returns the wire length.
 * @first is set to the wire length of the first FPDU, @placed to its
 * payload.
 */
static size_t rv_write_fpdus(struct kunit *test, u32 stag, const u8 *data,
			     u8 *w, size_t size, u32 emss, size_t *first,
			     u32 *placed)
{
	struct siw_engine_seg seg = { .addr = data, .len = RV_WRITE_LEN,
				      .kind = SIW_ENGINE_SEG_KVA };
	struct siw_engine_msg m = { .opcode = SIW_RDMAP_WRITE, .stag = stag,
				    .to = RV_IOVA,
				    .sgl = { .seg = &seg, .nseg = 1 } };
	struct siw_engine_txd d = { .max = SIW_ENGINE_TX_PIECES };
	struct siw_engine_tx *tx;
	unsigned int i, nfpdu = 0;
	size_t len = 0;
	u8 *va;

	tx = kunit_kzalloc(test, sizeof(*tx), GFP_KERNEL);
	d.piece = kunit_kcalloc(test, SIW_ENGINE_TX_PIECES, sizeof(*d.piece),
				GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, tx && d.piece);
	siw_engine_tx_init(tx, false, true, emss);
	KUNIT_ASSERT_EQ(test, siw_engine_tx_msg(tx, &m), 0);
	while (siw_engine_tx_next(tx, &d) == 1) {
		for (i = 0; i < d.n; i++) {
			KUNIT_ASSERT_LE(test, len + d.piece[i].len, size);
			if (d.piece[i].kind == SIW_ENGINE_SEG_PAGE) {
				va = kmap_local_page(d.piece[i].page);
				memcpy(w + len, va + d.piece[i].off,
				       d.piece[i].len);
				kunmap_local(va);
			} else {
				memcpy(w + len, d.piece[i].addr,
				       d.piece[i].len);
			}
			len += d.piece[i].len;
		}
		if (!nfpdu++)
			*first = len;
	}
	KUNIT_ASSERT_GT(test, nfpdu, 0U);
	/* the first ULPDU Length, less the tagged header */
	*placed = (w[0] << 8 | w[1]) - SIW_DDP_TAGGED_HLEN;
	return len;
}

/* The Write in one FPDU */
static size_t rv_write_wire(struct kunit *test, u32 stag, const u8 *data,
			    u8 *w, size_t size)
{
	size_t first, len;
	u32 placed;

	len = rv_write_fpdus(test, stag, data, w, size, 9000, &first, &placed);
	KUNIT_ASSERT_EQ(test, first, len);
	return len;
}

/* The receive engine with the QP layer's callbacks on a bare stream */
static struct siw_engine_rx *rv_rx(struct kunit *test, struct rv_fixture *f)
{
	struct siw_stream *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	struct siw_qp *qp = kunit_kzalloc(test, sizeof(*qp), GFP_KERNEL);
	struct siw_engine_rx *rx = kunit_kzalloc(test, sizeof(*rx),
						 GFP_KERNEL);
	struct siw_engine_rx_cfg cfg = {
		.ops = &siw_srx_ops, .ctx = s,
		.mem = { .ops = &siw_mem_ddp_ops, .ctx = &f->sdev->mem },
		.pd = &f->pd, .ird = 1, .crc = true,
	};

	KUNIT_ASSERT_TRUE(test, s && qp && rx);
	s->qp = qp;
	siw_engine_rx_init(rx, &cfg);
	return rx;
}

/* What the consumer does to the sink between two parts of a Write */
enum rv_change {
	RV_KEEP,	/* nothing */
	RV_INVAL,	/* a Local Invalidate */
	RV_AGAIN,	/* invalidates, registers again: same STag, no rights */
	RV_REMAP,	/* maps the MR to @other for its next REG_MR */
};

/*
 * The consumer invalidates the region, then registers it again under the
 * same STag with local write access alone: none a peer may use
 */
static void rv_again_unwritable(struct kunit *test, struct rv_fixture *f)
{
	KUNIT_ASSERT_EQ(test, siw_mem_invalidate(&f->sdev->mem, &f->pd, f->stag,
						 false), 0);
	KUNIT_ASSERT_EQ(test, siw_mem_fastreg(f->mr, &f->pd, f->stag,
					      IB_ACCESS_LOCAL_WRITE), 0);
}

/*
 * The consumer maps the still registered MR to f->other, as a ULP does
 * before it posts LOCAL_INV and REG_MR for the MR's next use
 */
static void rv_map_other(struct kunit *test, struct rv_fixture *f)
{
	struct scatterlist sg;

	sg_init_table(&sg, 1);
	sg_set_page(&sg, f->other, PAGE_SIZE, 0);
	/* the RDMA core's software DMA mapping: kernel virtual addresses */
	sg_dma_address(&sg) = (u64)(uintptr_t)page_address(f->other);
	sg_dma_len(&sg) = PAGE_SIZE;
	KUNIT_ASSERT_EQ(test, siw_map_mr_sg(&f->mr->base, &sg, 1, NULL), 1);
}

/*
 * A tagged Write FPDU arrives in two parts; between them the consumer
 * changes the sink as @change says. Returns the octets of the region's
 * page that the first part covers.
 */
static u32 rv_torn_write(struct kunit *test, enum rv_change change)
{
	struct rv_fixture *f = test->priv;
	struct siw_engine_rx *rx = rv_rx(test, f);
	size_t size = RV_WRITE_LEN + 64, len, cut;
	u8 *data, *w;

	data = kunit_kmalloc(test, RV_WRITE_LEN, GFP_KERNEL);
	w = kunit_kzalloc(test, size, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, data && w);
	memset(data, 0xa1, RV_WRITE_LEN);
	len = rv_write_wire(test, f->stag, data, w, size);
	/* the header and the first 1000 payload octets */
	cut = len - RV_WRITE_LEN - 4 + 1000;
	KUNIT_ASSERT_EQ(test, siw_engine_rx_feed(rx, w, cut), cut);
	KUNIT_EXPECT_FALSE(test, siw_engine_rx_stopped(rx));
	KUNIT_EXPECT_TRUE(test, rv_all(f->page, 0, 1000, 0xa1));
	if (change == RV_INVAL)
		KUNIT_ASSERT_EQ(test, siw_mem_invalidate(&f->sdev->mem, &f->pd,
							 f->stag, false), 0);
	if (change == RV_AGAIN)
		rv_again_unwritable(test, f);
	if (change == RV_REMAP)
		rv_map_other(test, f);
	siw_engine_rx_feed(rx, w + cut, len - cut);
	if (change == RV_INVAL || change == RV_AGAIN) {
		siw_ddp_expect(test, siw_engine_rx_error(rx),
			       &(struct siw_ddp_triple)T_DDP_T_INV_STAG);
		KUNIT_EXPECT_TRUE(test, siw_engine_rx_stopped(rx));
	} else {
		KUNIT_EXPECT_FALSE(test, siw_engine_rx_stopped(rx));
	}
	return 1000;
}

/* Without an invalidation the two parts place the whole Write */
static void revoke_torn_write_control(struct kunit *test)
{
	struct rv_fixture *f = test->priv;
	u32 first = rv_torn_write(test, RV_KEEP);

	KUNIT_EXPECT_TRUE(test, rv_all(f->page, first, RV_WRITE_LEN - first,
				       0xa1));
	KUNIT_EXPECT_TRUE(test, rv_all(f->page, RV_WRITE_LEN,
				       PAGE_SIZE - RV_WRITE_LEN, RV_FILL));
}

/* After the Local Invalidate returned, the rest of the FPDU lands nowhere */
static void revoke_torn_write(struct kunit *test)
{
	struct rv_fixture *f = test->priv;
	u32 first = rv_torn_write(test, RV_INVAL);

	KUNIT_EXPECT_TRUE(test, rv_all(f->page, first, PAGE_SIZE - first,
				       RV_FILL));
}

/*
 * Mapped for its next use while the FPDU was half received: the region
 * as registered keeps its pages until the REG_MR, so the rest of the
 * Write lands where the Write was checked, and nothing in the newly
 * mapped page; once registered again, the new pages serve
 */
static void revoke_torn_write_remap(struct kunit *test)
{
	struct rv_fixture *f = test->priv;
	u8 data[16];
	u64 va;

	f->other = alloc_page(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f->other);
	memset(page_address(f->other), RV_FILL, PAGE_SIZE);
	rv_torn_write(test, RV_REMAP);
	KUNIT_EXPECT_TRUE(test, rv_all(f->page, 0, RV_WRITE_LEN, 0xa1));
	KUNIT_EXPECT_TRUE(test, rv_all(f->other, 0, PAGE_SIZE, RV_FILL));

	KUNIT_ASSERT_EQ(test, siw_mem_invalidate(&f->sdev->mem, &f->pd, f->stag,
						 false), 0);
	KUNIT_ASSERT_EQ(test, siw_mem_fastreg(f->mr, &f->pd, f->stag,
					      RV_ACCESS), 0);
	memset(data, 0xe7, sizeof(data));
	va = f->mr->base.iova;
	KUNIT_EXPECT_EQ(test, siw_mr_place(f->mr, f->mr->gen, va + 32, data,
					   sizeof(data), NULL), 0);
	KUNIT_EXPECT_TRUE(test, rv_all(f->other, 32, sizeof(data), 0xe7));
	KUNIT_EXPECT_TRUE(test, rv_all(f->page, 0, RV_WRITE_LEN, 0xa1));
}

/*
 * Registered again under the same STag, without remote write, while the
 * FPDU was half received: its checked rights are gone, the rest of the
 * FPDU lands nowhere
 */
static void revoke_torn_write_again(struct kunit *test)
{
	struct rv_fixture *f = test->priv;
	u32 first = rv_torn_write(test, RV_AGAIN);

	KUNIT_EXPECT_TRUE(test, rv_all(f->page, first, PAGE_SIZE - first,
				       RV_FILL));
}

/*
 * A Write of two FPDUs; between them the consumer invalidates the sink
 * (@inval), and registers it again under the same STag, one octet
 * shorter than the Write (@again), or deregisters it (@dereg). The
 * engine keeps the region between the two (siw_ddp_stag_again()): the
 * second FPDU must see the change. Returns the engine.
 */
static struct siw_engine_rx *rv_two_fpdus(struct kunit *test, bool inval,
					  bool again, bool dereg, u32 *placed)
{
	struct rv_fixture *f = test->priv;
	struct siw_engine_rx *rx = rv_rx(test, f);
	size_t size = RV_WRITE_LEN + 128, len, first;
	unsigned int refs;
	u8 *data, *w;

	data = kunit_kmalloc(test, RV_WRITE_LEN, GFP_KERNEL);
	w = kunit_kzalloc(test, size, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, data && w);
	memset(data, 0xc3, RV_WRITE_LEN);
	len = rv_write_fpdus(test, f->stag, data, w, size, 1500, &first,
			     placed);
	/* two FPDUs */
	KUNIT_ASSERT_LT(test, first, len);
	KUNIT_ASSERT_LT(test, *placed, (u32)RV_WRITE_LEN);
	refs = refcount_read(&f->mr->ref);
	KUNIT_ASSERT_EQ(test, siw_engine_rx_feed(rx, w, first), first);
	KUNIT_EXPECT_FALSE(test, siw_engine_rx_stopped(rx));
	/* the message goes on: the engine still holds the region */
	KUNIT_EXPECT_EQ(test, refcount_read(&f->mr->ref), refs + 1);
	if (inval)
		KUNIT_ASSERT_EQ(test, siw_mem_invalidate(&f->sdev->mem, &f->pd,
							 f->stag, false), 0);
	if (again) {
		f->mr->base.length = RV_WRITE_LEN - 1;
		KUNIT_ASSERT_EQ(test, siw_mem_fastreg(f->mr, &f->pd, f->stag,
						      RV_ACCESS), 0);
	}
	if (dereg) {
		/* the engine's reference is the last: close frees it */
		siw_dereg_mr(&f->mr->base, NULL);
		f->mr = NULL;
	}
	siw_engine_rx_feed(rx, w + first, len - first);
	siw_engine_rx_close(rx);
	if (f->mr)
		KUNIT_EXPECT_EQ(test, refcount_read(&f->mr->ref), refs);
	return rx;
}

/* Unchanged between them, the two FPDUs place the whole Write */
static void revoke_two_fpdus_control(struct kunit *test)
{
	struct rv_fixture *f = test->priv;
	u32 placed;
	struct siw_engine_rx *rx = rv_two_fpdus(test, false, false, false, &placed);

	KUNIT_EXPECT_EQ(test, siw_engine_rx_error(rx), SIW_DDP_OK);
	KUNIT_EXPECT_TRUE(test, rv_all(f->page, 0, RV_WRITE_LEN, 0xc3));
	KUNIT_EXPECT_TRUE(test, rv_all(f->page, RV_WRITE_LEN,
				       PAGE_SIZE - RV_WRITE_LEN, RV_FILL));
}

/* Invalidated between them: the second FPDU is refused, places nothing */
static void revoke_two_fpdus_inval(struct kunit *test)
{
	struct rv_fixture *f = test->priv;
	u32 placed;
	struct siw_engine_rx *rx = rv_two_fpdus(test, true, false, false, &placed);

	siw_ddp_expect(test, siw_engine_rx_error(rx),
		       &(struct siw_ddp_triple)T_DDP_T_INV_STAG);
	KUNIT_EXPECT_TRUE(test, rv_all(f->page, 0, placed, 0xc3));
	KUNIT_EXPECT_TRUE(test, rv_all(f->page, placed, PAGE_SIZE - placed,
				       RV_FILL));
}

/*
 * Registered again under the same STag, shorter: the second FPDU is
 * checked against the new bounds, not the ones the first was
 */
static void revoke_two_fpdus_again(struct kunit *test)
{
	struct rv_fixture *f = test->priv;
	u32 placed;
	struct siw_engine_rx *rx = rv_two_fpdus(test, true, true, false, &placed);

	siw_ddp_expect(test, siw_engine_rx_error(rx),
		       &(struct siw_ddp_triple)T_DDP_T_BOUNDS);
	KUNIT_EXPECT_TRUE(test, rv_all(f->page, placed, PAGE_SIZE - placed,
				       RV_FILL));
}

/* Deregistered between them: the second FPDU finds no region */
static void revoke_two_fpdus_dereg(struct kunit *test)
{
	struct rv_fixture *f = test->priv;
	u32 placed;
	struct siw_engine_rx *rx = rv_two_fpdus(test, false, false, true,
						&placed);

	siw_ddp_expect(test, siw_engine_rx_error(rx),
		       &(struct siw_ddp_triple)T_DDP_T_INV_STAG);
	KUNIT_EXPECT_TRUE(test, rv_all(f->page, placed, PAGE_SIZE - placed,
				       RV_FILL));
}

/*
 * Registered again under the same STag, shorter: a placement checked
 * against the old registration is refused, inside the new bounds too;
 * one checked against the new one goes through
 */
static void revoke_place_same_key_shorter(struct kunit *test)
{
	struct rv_fixture *f = test->priv;
	u64 old = f->mr->gen;
	u8 data[16];

	memset(data, 0xd4, sizeof(data));
	KUNIT_ASSERT_EQ(test, siw_mem_invalidate(&f->sdev->mem, &f->pd, f->stag,
						 false), 0);
	f->mr->base.length = 64;
	KUNIT_ASSERT_EQ(test, siw_mem_fastreg(f->mr, &f->pd, f->stag,
					      RV_ACCESS), 0);
	KUNIT_EXPECT_EQ(test, siw_mr_place(f->mr, old, RV_IOVA + 56, data,
					   sizeof(data), NULL), -EACCES);
	KUNIT_EXPECT_EQ(test, siw_mr_place(f->mr, old, RV_IOVA + 48, data,
					   sizeof(data), NULL), -EACCES);
	/* and placement stays inside the registration whatever it is given */
	KUNIT_EXPECT_EQ(test, siw_mr_place(f->mr, f->mr->gen, RV_IOVA + 56,
					   data, sizeof(data), NULL), -ERANGE);
	KUNIT_EXPECT_EQ(test, siw_mr_place(f->mr, f->mr->gen, RV_IOVA - 1,
					   data, 1, NULL), -ERANGE);
	KUNIT_EXPECT_TRUE(test, rv_all(f->page, 0, PAGE_SIZE, RV_FILL));
	KUNIT_EXPECT_EQ(test, siw_mr_place(f->mr, f->mr->gen, RV_IOVA + 48,
					   data, sizeof(data), NULL), 0);
	KUNIT_EXPECT_TRUE(test, rv_all(f->page, 48, sizeof(data), 0xd4));
}

/*
 * Registered again under the same STag without remote read while a Read
 * Response from it was under way: its next FPDU takes nothing
 */
static void revoke_read_response_same_key(struct kunit *test)
{
	struct rv_fixture *f = test->priv;
	struct siw_mr_src src;
	u64 gen = f->mr->gen;

	rv_again_unwritable(test, f);
	KUNIT_EXPECT_FALSE(test, siw_mr_usable(f->mr, gen));
	KUNIT_EXPECT_EQ(test, siw_mr_get_page(f->mr, gen, RV_IOVA, 1024, true,
					      &src), -EACCES);
	/* the new registration serves accesses checked against it */
	KUNIT_EXPECT_TRUE(test, siw_mr_usable(f->mr, f->mr->gen));
}

/* Registered again under a new key: the old STag places nothing */
static void revoke_place_new_key(struct kunit *test)
{
	struct rv_fixture *f = test->priv;
	u64 gen = f->mr->gen;
	u8 data[16];
	u32 old = f->stag;

	memset(data, 0xb2, sizeof(data));
	KUNIT_ASSERT_EQ(test, siw_mem_invalidate(&f->sdev->mem, &f->pd, old, false),
			0);
	f->stag = (old & ~SIW_STAG_KEY_MASK) | 0x12;
	KUNIT_ASSERT_EQ(test, siw_mem_fastreg(f->mr, &f->pd, f->stag,
					      RV_ACCESS), 0);
	KUNIT_EXPECT_EQ(test, siw_mr_place(f->mr, gen, RV_IOVA, data,
					   sizeof(data), NULL), -EACCES);
	KUNIT_EXPECT_TRUE(test, rv_all(f->page, 0, PAGE_SIZE, RV_FILL));
	KUNIT_EXPECT_EQ(test, siw_mr_place(f->mr, f->mr->gen, RV_IOVA, data,
					   sizeof(data), NULL), 0);
	KUNIT_EXPECT_TRUE(test, rv_all(f->page, 0, sizeof(data), 0xb2));
}

/*
 * A Read Response of two FPDUs from the region; the peer stalls it
 * after the first and sends a Send with Invalidate for the source. The
 * first FPDU's page stays the sender's (its reference), the second FPDU
 * finds the source revoked and takes nothing.
 */
static void revoke_read_response_stalled(struct kunit *test)
{
	struct rv_fixture *f = test->priv;
	struct siw_mr_src src;
	u64 gen = f->mr->gen;
	int count;

	count = page_ref_count(f->page);
	KUNIT_ASSERT_EQ(test, siw_mr_get_page(f->mr, gen, RV_IOVA, 1024,
					      true, &src), 0);
	KUNIT_EXPECT_PTR_EQ(test, src.page, f->page);
	KUNIT_EXPECT_TRUE(test, src.ref);
	KUNIT_EXPECT_EQ(test, page_ref_count(f->page), count + 1);
	KUNIT_EXPECT_TRUE(test, siw_mr_usable(f->mr, gen));

	/* the peer's Send with Invalidate, processed by the receive path */
	KUNIT_ASSERT_EQ(test, siw_mem_invalidate(&f->sdev->mem, &f->pd, f->stag,
						 true), 0);
	KUNIT_EXPECT_FALSE(test, siw_mr_usable(f->mr, gen));
	KUNIT_EXPECT_EQ(test, siw_mr_get_page(f->mr, gen, RV_IOVA + 1024,
					      1024, true, &src), -EACCES);
	/* the page of the FPDU already cut cannot be freed under it */
	KUNIT_EXPECT_EQ(test, page_ref_count(f->page), count + 1);
	put_page(f->page);
}

/* Slab memory takes no reference: a Read Response sends a copy */
static void revoke_read_response_slab(struct kunit *test)
{
	struct rv_fixture *f = test->priv;
	struct siw_mr_src src;
	struct siw_mr *mr;
	u8 *buf;

	buf = kmalloc(64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	memset(buf, 0xc3, 64);
	mr = rv_fastreg(test, f, buf, 0x21);
	KUNIT_EXPECT_EQ(test, siw_mr_get_page(mr, mr->gen, RV_IOVA +
					      offset_in_page(buf), 64, true,
					      &src), 0);
	KUNIT_EXPECT_TRUE(test, src.ref);
	KUNIT_EXPECT_PTR_NE(test, src.page, virt_to_page(buf));
	KUNIT_EXPECT_EQ(test, src.off, (unsigned int)offset_in_page(buf));
	if (src.page) {
		KUNIT_EXPECT_TRUE(test, rv_all(src.page, src.off, 64, 0xc3));
		put_page(src.page);
	}
	/* a send work request's own memory: its owner keeps it */
	KUNIT_EXPECT_EQ(test, siw_mr_get_page(mr, mr->gen, RV_IOVA +
					      offset_in_page(buf), 64, false,
					      &src), 0);
	KUNIT_EXPECT_FALSE(test, src.ref);
	KUNIT_EXPECT_PTR_EQ(test, src.page, virt_to_page(buf));
	siw_dereg_mr(&mr->base, NULL);
	kfree(buf);
}

/**
 * struct rv_dereg - a deregistration on a thread of its own
 * @mr: the region
 * @done: completed when siw_dereg_mr() returned
 */
struct rv_dereg {
	struct siw_mr *mr;
	struct completion done;
};

static int rv_dereg_thread(void *arg)
{
	struct rv_dereg *d = arg;

	siw_dereg_mr(&d->mr->base, NULL);
	complete(&d->done);
	return 0;
}

/*
 * A stream holds the region (a Read Response the peer stalls, a Send
 * half received): deregistration returns without it, and the holder's
 * next access is refused. The thread and the wait only keep a failing
 * kernel from hanging the suite: a deregistration that waits for the
 * holder is seen as one that has not returned when the holder lets go.
 */
static void revoke_dereg_held(struct kunit *test)
{
	struct rv_fixture *f = test->priv;
	struct task_struct *t;
	struct rv_dereg *d;
	struct siw_mr *held;
	bool returned;
	u8 data[8] = { };
	u64 gen;

	d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, d);
	held = siw_mr_get(&f->sdev->mem, f->stag);
	KUNIT_ASSERT_PTR_EQ(test, held, f->mr);
	gen = held->gen;
	d->mr = f->mr;
	f->mr = NULL;
	init_completion(&d->done);
	t = kthread_run(rv_dereg_thread, d, "siw-kunit-dereg");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	returned = wait_for_completion_timeout(&d->done, 20 * HZ);
	KUNIT_EXPECT_TRUE_MSG(test, returned,
			      "dereg_mr waited for a holder of the region");
	if (returned) {
		KUNIT_EXPECT_FALSE(test, siw_mr_usable(held, gen));
		KUNIT_EXPECT_EQ(test, siw_mr_place(held, gen, RV_IOVA,
						   data, sizeof(data), NULL),
				-EACCES);
		KUNIT_EXPECT_PTR_EQ(test, siw_mr_get(&f->sdev->mem, f->stag),
				    (struct siw_mr *)NULL);
	}
	/* the holder lets go: the description goes with it */
	siw_mr_put(held);
	if (!returned)
		wait_for_completion(&d->done);
	KUNIT_EXPECT_TRUE(test, rv_all(f->page, 0, PAGE_SIZE, RV_FILL));
}

/**
 * struct rv_midreg - a lookup racing a registration half done
 * @mr: the region being changed
 * @stag: the STag the reader looks up (the index is what counts)
 * @reader: the thread looking the region up
 * @r: what the lookup returned
 * @rv: the lookup's return value
 * @started: the reader is about to look up
 * @looked: the lookup returned
 * @raced: the reader had started while the change was half done
 * @early: it returned while the change was half done
 * @reader_done: the reader finished
 * @writer_done: the writer finished
 */
struct rv_midreg {
	struct siw_mr *mr;
	u32 stag;
	struct task_struct *reader;
	struct siw_ddp_region r;
	int rv;
	atomic_t started;
	atomic_t looked;
	bool raced;
	bool early;
	struct completion reader_done;
	struct completion writer_done;
};

static int rv_midreg_reader(void *arg)
{
	struct rv_midreg *m = arg;

	atomic_set(&m->started, 1);
	m->rv = siw_mem_ddp_ops.lookup(m->mr->table, m->stag, &m->r);
	atomic_set(&m->looked, 1);
	if (!m->rv)
		siw_mem_ddp_ops.put(m->mr->table, &m->r);
	complete(&m->reader_done);
	return 0;
}

/*
 * Changes the region's key and bounds under its lock and sequence
 * count, as a fast registration's write section does (its change count
 * is left alone: only the lookup is under test), and starts the reader
 * on the other CPU half way: the lookup must not return until the
 * change is whole.
 */
static int rv_midreg_writer(void *arg)
{
	struct rv_midreg *m = arg;
	struct siw_mr *mr = m->mr;
	unsigned long flags;
	int i;

	spin_lock_irqsave(&mr->lock, flags);
	write_seqcount_begin(&mr->seq);
	mr->stag ^= 0x5a;
	wake_up_process(m->reader);
	/* up to five seconds for the reader to be scheduled */
	for (i = 0; i < 1000000 && !atomic_read(&m->started); i++)
		udelay(5);
	/* ample time for a lookup that does not wait to come back */
	mdelay(50);
	m->raced = atomic_read(&m->started);
	m->early = atomic_read(&m->looked);
	mr->len = PAGE_SIZE / 2;
	write_seqcount_end(&mr->seq);
	spin_unlock_irqrestore(&mr->lock, flags);
	complete(&m->writer_done);
	return 0;
}

/*
 * A lookup takes no lock (siw_mr_describe()): what it returns must
 * still be the region of one moment, never a new key with the old
 * bounds. Needs two CPUs, so that the lookup runs while the change is
 * under way.
 */
static void revoke_lookup_mid_change(struct kunit *test)
{
	struct rv_fixture *f = test->priv;
	struct task_struct *w;
	unsigned int cpu0, cpu1;
	struct rv_midreg *m;
	u32 stag;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two CPUs");
	m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m);
	m->mr = f->mr;
	m->stag = f->stag;
	init_completion(&m->reader_done);
	init_completion(&m->writer_done);
	stag = f->mr->stag ^ 0x5a;
	m->reader = kthread_create(rv_midreg_reader, m, "siw-kunit-look");
	KUNIT_ASSERT_FALSE(test, IS_ERR(m->reader));
	w = kthread_create(rv_midreg_writer, m, "siw-kunit-reg");
	if (IS_ERR(w)) {
		wake_up_process(m->reader);
		wait_for_completion(&m->reader_done);
		KUNIT_FAIL(test, "no writer thread");
		return;
	}
	cpu0 = cpumask_first(cpu_online_mask);
	cpu1 = cpumask_next(cpu0, cpu_online_mask);
	kthread_bind(m->reader, cpu1);
	kthread_bind(w, cpu0);
	wake_up_process(w);
	wait_for_completion(&m->writer_done);
	wait_for_completion(&m->reader_done);
	/* a reader that never overlapped the change tested nothing */
	KUNIT_EXPECT_TRUE_MSG(test, m->raced,
			      "the lookup did not start during the change");
	KUNIT_EXPECT_FALSE_MSG(test, m->early,
			       "a lookup returned during a registration");
	KUNIT_ASSERT_EQ(test, m->rv, 0);
	KUNIT_EXPECT_EQ(test, m->r.stag, stag);
	KUNIT_EXPECT_EQ(test, m->r.len, PAGE_SIZE / 2);
	f->stag = stag;
}

/* A region is findable only once registration can no longer fail */
static void revoke_reserved_unfindable(struct kunit *test)
{
	struct rv_fixture *f = test->priv;
	struct siw_mr *mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	struct siw_mr *found;

	KUNIT_ASSERT_NOT_NULL(test, mr);
	mr->table = &f->sdev->mem;
	refcount_set(&mr->ref, 1);
	spin_lock_init(&mr->lock);
	seqcount_spinlock_init(&mr->seq, &mr->lock);
	mr->kind = SIW_MR_USER;
	mr->valid = true;
	KUNIT_ASSERT_EQ(test, siw_mr_reserve(mr), 0);
	KUNIT_EXPECT_PTR_EQ(test, siw_mr_get(&f->sdev->mem, mr->stag),
			    (struct siw_mr *)NULL);
	siw_mr_store(mr);
	found = siw_mr_get(&f->sdev->mem, mr->stag);
	KUNIT_EXPECT_PTR_EQ(test, found, mr);
	if (found)
		siw_mr_put(found);
	xa_erase(&f->sdev->mem.xa, siw_stag_index(mr->stag));
	kfree(mr);
}

static struct kunit_case siw_revoke_cases[] = {
	KUNIT_CASE(revoke_torn_write_control),
	KUNIT_CASE(revoke_torn_write),
	KUNIT_CASE(revoke_torn_write_again),
	KUNIT_CASE(revoke_torn_write_remap),
	KUNIT_CASE(revoke_place_new_key),
	KUNIT_CASE(revoke_place_same_key_shorter),
	KUNIT_CASE(revoke_two_fpdus_control),
	KUNIT_CASE(revoke_two_fpdus_inval),
	KUNIT_CASE(revoke_two_fpdus_again),
	KUNIT_CASE(revoke_two_fpdus_dereg),
	KUNIT_CASE(revoke_read_response_stalled),
	KUNIT_CASE(revoke_read_response_same_key),
	KUNIT_CASE(revoke_read_response_slab),
	KUNIT_CASE(revoke_dereg_held),
	KUNIT_CASE(revoke_lookup_mid_change),
	KUNIT_CASE(revoke_reserved_unfindable),
	{}
};

static struct kunit_suite siw_revoke_suite = {
	.name = "siw_revoke",
	.init = rv_init,
	.exit = rv_exit,
	.test_cases = siw_revoke_cases,
};

kunit_test_suite(siw_revoke_suite);
