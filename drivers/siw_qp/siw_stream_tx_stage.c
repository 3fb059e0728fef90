// SPDX-License-Identifier: GPL-2.0
/*
 * The stage ring: the stream's own pages, into which the transmit engine
 * copies whole FPDUs of a batch, summing the payload as it copies, for
 * TCP to take by reference (siw_stx_stage_start()). A stream keeps up to
 * SIW_TX_STAGE_RING such allocations and uses each again once TCP let go
 * of it. The transmit side's, under @tx_mutex (struct siw_stream).
 */
#include <kunit/visibility.h>
#include <linux/gfp.h>
#include <linux/mm.h>

#include "siw_fault.h"
#include "siw_stats.h"
#include "siw_stream_tx.h"

#if IS_ENABLED(CONFIG_KUNIT)
/* Stage allocations a stream keeps for reuse; a KUnit hook may lower it */
static unsigned int siw_stx_stage_ring = SIW_TX_STAGE_RING;

/**
 * siw_stx_stage_ring_swap() - set the stage allocations a stream keeps
 * @n: the new number, 1 to SIW_TX_STAGE_RING
 *
 * For the tests of the ring.
 *
 * Returns: the old one.
 */
unsigned int siw_stx_stage_ring_swap(unsigned int n)
{
	return xchg(&siw_stx_stage_ring, n);
}
EXPORT_SYMBOL_IF_KUNIT(siw_stx_stage_ring_swap);

/* The stage allocations a stream keeps now */
static u32 siw_stx_stage_ring_n(void)
{
	return clamp_val(READ_ONCE(siw_stx_stage_ring), 1, SIW_TX_STAGE_RING);
}
#else
/* The stage allocations a stream keeps: kernels without KUnit, no hook */
static u32 siw_stx_stage_ring_n(void)
{
	return SIW_TX_STAGE_RING;
}
#endif

/*
 * Pages TCP let go of: every skb that took octets from them by reference
 * is freed, so only the stream's reference is left (TCP's references on
 * parts of a compound allocation count on its head). The stream writes
 * into them only after this read.
 */
static bool siw_stx_stage_idle(struct page *pg)
{
	if (page_ref_count(pg) != 1)
		return false;
	smp_acquire__after_ctrl_dep();
	return true;
}

/* Drop the stages at @n and above: the ring went down to @n, or 0 */
static void siw_stx_stage_trim(struct siw_stream *s, u32 n)
{
	u32 i;

	for (i = n; i < ARRAY_SIZE(s->stage_pg); i++) {
		if (s->stage_pg[i])
			put_page(s->stage_pg[i]);
		s->stage_pg[i] = NULL;
	}
}

/* Drop the stream's references on its stages; TCP holds its own */
void siw_stx_stage_put(struct siw_stream *s)
{
	siw_stx_stage_trim(s, 0);
	s->stage_at = 0;
	s->stage = (struct siw_engine_stage){ };
}

/*
 * The stage for the batch that starts now, or NULL to send it as the
 * engine references it. With CRCs on, octets TCP would copy are read
 * twice (the CRC, then TCP's copy); staged, the engine copies each FPDU
 * whole into the stream's pages, CRC in the same pass, and TCP takes
 * those pages by reference: nothing waits for the peer's ACK, the pages
 * are the stream's. With CRCs off the stage is still the better copy:
 * its pages are used again (below), where TCP copies into page fragments
 * it reuses only while no skb holds them and otherwise allocates anew.
 *
 * A batch never spans two allocations, so the stage changes only
 * between batches. A full stage is used again at once if TCP let go of
 * it; otherwise the next of up to SIW_TX_STAGE_RING allocations is, if TCP
 * let go of that one, which it had longest, and only if TCP still holds
 * it too are its pages left to TCP and fresh ones taken: the kernel
 * zeroes what it allocates (init_on_alloc), a pass over the stage that
 * reuse saves.
 */
struct siw_engine_stage *siw_stx_stage_start(struct siw_stream *s)
{
	const gfp_t gfp = GFP_NOIO | __GFP_NOWARN;
	u32 n = siw_stx_stage_ring_n();
	unsigned int order = SIW_TX_STAGE_ORDER;
	u32 need = siw_stx_stage_need(s);
	struct page *pg;

	if (s->tx_zc)
		return NULL;
	pg = s->stage_pg[s->stage_at];
	if (pg && s->stage.size - s->stage.used >= need)
		return &s->stage;
	if (!pg || !siw_stx_stage_idle(pg) || s->stage_at >= n) {
		siw_stx_stage_trim(s, n);
		s->stage_at = (s->stage_at + 1) % n;
		pg = s->stage_pg[s->stage_at];
	}
	if (pg && (!siw_stx_stage_idle(pg) || page_size(pg) < need)) {
		put_page(pg);
		pg = NULL;
	}
	s->stage_pg[s->stage_at] = pg;
	s->stage = (struct siw_engine_stage){ };
	if (!pg) {
		if (need > PAGE_SIZE << order)
			return NULL;
		pg = SIW_FAULT(alloc_pages(gfp | __GFP_COMP | __GFP_NORETRY,
					   order));
		if (!pg && need <= PAGE_SIZE)
			pg = SIW_FAULT(alloc_page(gfp));
		if (!pg)
			return NULL;
		siw_stats_add(s->qp->qdev->stats, SIW_STAT_TX_STAGE_ALLOCS, 1);
		s->stage_pg[s->stage_at] = pg;
	}
	s->stage = (struct siw_engine_stage){
		.buf = page_address(pg),
		.size = page_size(pg),
	};
	return &s->stage;
}
EXPORT_SYMBOL_IF_KUNIT(siw_stx_stage_start);
