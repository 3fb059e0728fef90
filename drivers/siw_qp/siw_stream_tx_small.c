// SPDX-License-Identifier: GPL-2.0
/*
 * Small messages in one pass: a Send or an RDMA Write whose payload fits
 * one FPDU of the current MULPDU is framed at its start, whole, into the
 * stage (siw_stream_tx_stage.c). Each SGE's region is looked up,
 * checked and read in one hold of its lock, with no reference taken
 * (siw_mr_fetch_local()), right after the header the engine wrote (CRC
 * summed in the same pass), and the engine writes pad and CRC in place
 * and moves the MSN and the stream offset on (siw_engine_tx_flat_begin(),
 * siw_engine_tx_flat_end()). The push loop hands the FPDU to TCP as it
 * hands any staged batch, and the work request completes once it is on
 * the socket, as a copied one does. No page reference, no segment
 * array, no piece per page.
 *
 * The same octets go on the wire as the general path's (message start,
 * then the engine cutting FPDUs); everything else takes that path.
 */
#include "siw_mem/siw_mem.h"
#include "siw_stream_tx.h"

/* Payload octets of the work request in progress, U64_MAX if unknown */
static u64 siw_stx_small_len(const struct siw_wqe *w)
{
	u64 len = 0;
	u32 i;

	if (w->flags & SIW_WQE_INLINE)
		return w->inline_len;
	if (w->num_sge > SIW_DEV_MAX_SGE)
		return U64_MAX;
	for (i = 0; i < w->num_sge; i++)
		len += w->sge[i].length;
	return len;
}

/* @len octets at @src to @dst, summed into *@crc unless it is NULL */
static void siw_stx_small_put(u8 *dst, const void *src, u32 len, u32 *crc)
{
	if (crc)
		*crc = siw_mpa_crc_copy(*crc, dst, src, len);
	else
		memcpy(dst, src, len);
}

/*
 * Copy the payload of the work request in progress to @fl->payload:
 * each SGE checked for local read (lkey, PD, bounds) and read under its
 * region's lock (siw_mr_fetch_local()). Returns 0, or -EACCES if a
 * region refused the access or was revoked during the copy, as
 * siw_mr_get_page() would have refused it.
 */
static int siw_stx_small_copy(struct siw_stream *s,
			      struct siw_engine_flat *fl)
{
	struct siw_mem_table *t = s->qp->qdev->mem;
	struct ib_pd *pd = s->qp->base.pd;
	struct siw_wqe *w = &s->wqe;
	const struct siw_sge *sge;
	u8 *to = fl->payload;
	u32 i;

	if (w->flags & SIW_WQE_INLINE) {
		siw_stx_small_put(to, w->data, w->inline_len, fl->crc);
		return 0;
	}
	for (i = 0; i < w->num_sge; i++) {
		sge = &w->sge[i];
		if (!sge->length)
			continue;
		if (siw_mr_fetch_local(t, pd, sge->lkey, sge->laddr, to,
				       sge->length, fl->crc))
			return -EACCES;
		to += sge->length;
	}
	return 0;
}

/**
 * siw_stx_small() - frame a small Send or Write whole, at its start
 * @s: the stream; the work request in progress is in @s->wqe
 * @msg: its message, as siw_engine_tx_msg() would take it
 *
 * Context: process, @s->tx_mutex held, the socket not held.
 * Returns: 1 with the FPDU in @s->txd for the push loop; 0 if the
 * message is not one for this path (more than one FPDU, markers, pages
 * to go by reference, no stage), and nothing changed; -EACCES if an
 * SGE failed its check (the engine's sequence did not move).
 */
int siw_stx_small(struct siw_stream *s, const struct siw_engine_msg *msg)
{
	u64 len = siw_stx_small_len(&s->wqe);
	u32 room = siw_stx_fpdu_room(s);
	struct siw_engine_stage *st;
	struct siw_engine_flat fl;
	int rv;

	siw_engine_tx_set_emss(&s->tx, room);
	if (len >= room ||
	    (!(s->wqe.flags & SIW_WQE_INLINE) && siw_stx_zc_ok(s, len)))
		return 0;
	st = siw_stx_stage_start(s);
	if (!st)
		return 0;
	fl = (struct siw_engine_flat){
		.buf = st->buf + st->used,
		.size = st->size - st->used,
		.len = len,
	};
	if (siw_engine_tx_flat_begin(&s->tx, msg, &fl))
		return 0;
	s->wqe_bytes = len;
	rv = siw_stx_small_copy(s, &fl);
	if (rv)
		return rv;
	rv = siw_engine_tx_flat_end(&s->tx, &fl);
	if (rv < 0)
		return rv;
	st->used += rv;
	s->piece[0] = (struct siw_engine_seg){
		.addr = fl.buf, .len = rv, .kind = SIW_ENGINE_SEG_STAGED,
	};
	s->txd = (struct siw_engine_txd){
		.piece = s->piece,
		.max = SIW_ENGINE_TX_PIECES,
		.stage = st,
		.n = 1,
		.wire_len = rv,
		.payload = len,
		.last = true,
	};
	s->tx_off = 0;
	s->tx_fpdu = true;
	s->tx_nfpdu = 1;
	s->tx_frame_used = 0;
	return 1;
}
