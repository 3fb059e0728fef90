// SPDX-License-Identifier: GPL-2.0
/*
 * Retire and completion: how each send work request ended is recorded
 * in its record (struct siw_sq_rec) when its last FPDU is on the socket,
 * or, for a READ, when its last Read Response arrived
 * (siw_stream_read_done(), the receive path); siw_stx_retire() completes
 * the records at the head of the send queue in order, from the transmit
 * side only. The Terminate's end is counted here too.
 */
#include "siw_mem/siw_mem.h"
#include "siw_stats.h"
#include "siw_stream_tx.h"
#include "siw_trace.h"

/*
 * Work requests retired under one hold of the send queue's lock (and
 * their records on the stack: 8 octets each)
 */
#define SIW_TX_RETIRE_BATCH	16

/**
 * siw_stream_read_done() - the last Read Response of a READ arrived
 * @s: the stream
 * @wqe_seq: the READ's send queue sequence number
 * @ok: it arrived whole
 *
 * Context: any (the receive path).
 */
void siw_stream_read_done(struct siw_stream *s, u32 wqe_seq, bool ok)
{
	struct siw_sq_rec *r;
	unsigned long flags;

	spin_lock_irqsave(&s->lock, flags);
	r = &s->sq_rec[wqe_seq & s->sq_mask];
	r->status = ok ? IB_WC_SUCCESS : IB_WC_REM_OP_ERR;
	/* siw_stx_retire() reads the record once it sees this, unlocked */
	smp_store_release(&r->done, true);
	siw_stream_kick_locked(s);
	spin_unlock_irqrestore(&s->lock, flags);
}

/*
 * The work request in progress completes with @status once retired. No
 * lock: the receive path writes only the records of READs whose Read
 * Requests went out (siw_stream_read_done()), and no READ gets here
 * after its first one did.
 */
void siw_stx_wqe_done(struct siw_stream *s, enum ib_wc_status status)
{
	struct siw_sq_rec *r;

	r = &s->sq_rec[s->wqe_seq & s->sq_mask];
	r->status = status;
	r->bytes = s->wqe_bytes;
	r->done = true;
}

/*
 * Complete, in order, every work request at the head that is done, up to
 * SIW_TX_RETIRE_BATCH of them under one hold of the send queue's lock.
 * No lock here: a record the receive path finishes
 * (siw_stream_read_done()) is read only once its done flag is seen, and
 * the receive path does not touch it again; every other record is the
 * transmit side's own.
 */
bool siw_stx_retire(struct siw_stream *s)
{
	struct siw_sq_done done[SIW_TX_RETIRE_BATCH];
	struct siw_qp *qp = s->qp;
	struct siw_sq_rec *rec;
	struct siw_sq_rec r;
	bool failed = false;
	unsigned int n = 0;

	for (;;) {
		/* only the transmit side moves either */
		if (s->sq_head == s->sq_next)
			break;
		rec = &s->sq_rec[s->sq_head & s->sq_mask];
		/* pairs with siw_stream_read_done() */
		if (!smp_load_acquire(&rec->done))
			break;
		/*
		 * An skb may still read its pages: the release kicks the
		 * work (siw_zc_put(); pairs with its store)
		 */
		if (smp_load_acquire(&rec->zc))
			break;
		r = *rec;
		memset(rec, 0, sizeof(*rec));
		s->sq_head++;
		if (r.inval && r.status == IB_WC_SUCCESS &&
		    siw_mem_invalidate(qp->qdev->mem, qp->base.pd, r.inval_stag,
				       false))
			r.status = IB_WC_LOC_PROT_ERR;
		done[n].status = r.status;
		done[n].bytes = r.bytes;
		if (++n == ARRAY_SIZE(done)) {
			siw_sq_complete(qp, done, n);
			n = 0;
		}
		failed |= r.status != IB_WC_SUCCESS;
	}
	if (n)
		siw_sq_complete(qp, done, n);
	return failed;
}

/* The Terminate's FPDU is on the socket: nothing follows it */
void siw_stx_term_sent(struct siw_stream *s)
{
	static const u8 stat[] = {
		[SIW_TERM_LAYER_RDMAP] = SIW_STAT_TERM_TX_RDMAP,
		[SIW_TERM_LAYER_DDP] = SIW_STAT_TERM_TX_DDP,
		[SIW_TERM_LAYER_LLP] = SIW_STAT_TERM_TX_LLP,
	};
	const struct siw_ddp_errinfo *e = siw_ddp_errinfo(s->tx_term_err);

	if (e->layer < ARRAY_SIZE(stat))
		siw_stats_add(s->qp->qdev->stats, stat[e->layer], 1);
	trace_siw_term_tx(s->qp->base.qp_num, s->tx_term_err, e->layer,
			  e->etype, e->ecode);
}

/* The message's last FPDU is on the socket */
void siw_stx_msg_sent(struct siw_stream *s)
{
	switch (s->tx_kind) {
	case SIW_TX_WQE:
		siw_stx_put_msg(s);
		if (s->wqe.opcode == SIW_OP_READ ||
		    s->wqe.opcode == SIW_OP_READ_LOCAL_INV) {
			/* more Read Requests to send for it? */
			if (s->rd_off < s->wqe_bytes)
				return;
		} else {
			siw_stx_wqe_done(s, IB_WC_SUCCESS);
		}
		break;
	case SIW_TX_RRESP:
		/* its IRD slot was freed with the socket held: siw_stx_run() */
		siw_stx_put_msg(s);
		break;
	case SIW_TX_TERM:
		siw_stx_term_sent(s);
		if (!s->term_from_cm)
			siw_stream_closed(s, -EPROTO);
		break;
	default:
		break;
	}
	s->tx_kind = SIW_TX_IDLE;
	s->tx_zc = false;
}
