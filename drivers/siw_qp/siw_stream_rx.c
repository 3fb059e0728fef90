// SPDX-License-Identifier: GPL-2.0
/*
 * Receive: octets from the socket go through the receive engine
 * (siw_fpdu_rx.c), which checks every segment before it calls back here
 * to place payload, bind receive work requests, queue Read Requests and
 * complete messages.
 *
 * Everything here runs under the socket's lock (struct siw_stream), from
 * the data-ready callback in softirq or from process context; nothing
 * sleeps. Payload is copied into regions whose bounds the DDP layer
 * (tagged) or siw_mr_get_local() (receive buffers) checked when the
 * segment or the Send began; each copy checks again, under the region's
 * lock, that the region was not revoked since (siw_mr_place()), so a
 * segment cut in two around an invalidation places nothing after it.
 *
 * The stream's receive functions are siw_srx_*; siw_rx_* are the
 * receive engine's own (siw_fpdu_rx.c), whose callbacks these are.
 */
#include <kunit/visibility.h>
#include <net/tcp.h>

#include "siw_mem/siw_mem.h"
#include "siw_stats.h"
#include "siw_stream.h"
#include "siw_trace.h"

/* Drop the bound receive work request's regions */
static void siw_srx_put_mrs(struct siw_stream *s)
{
	u32 i;

	for (i = 0; i < ARRAY_SIZE(s->rx_mr); i++) {
		if (s->rx_mr[i])
			siw_mr_put(s->rx_mr[i]);
		s->rx_mr[i] = NULL;
	}
}

static void siw_srx_unbind(struct siw_stream *s, enum ib_wc_status status,
			   u32 bytes, u32 inval_stag, bool invalidated,
			   bool solicited)
{
	siw_srx_put_mrs(s);
	s->rx_bound = false;
	siw_rq_complete(s->qp, &s->rx_wqe, status, bytes, inval_stag,
			invalidated, solicited);
}

/* Every SGE of the receive work request must be locally writable */
static int siw_srx_check_sgl(struct siw_stream *s, u32 *len)
{
	struct siw_qp_dev *qdev = s->qp->qdev;
	struct siw_wqe *w = &s->rx_wqe;
	enum siw_mem_err err;
	u64 total = 0;
	u32 i;

	for (i = 0; i < w->num_sge; i++) {
		if (!w->sge[i].length)
			continue;
		s->rx_mr[i] = siw_mr_get_local(qdev->mem, s->qp->base.pd,
					       w->sge[i].lkey, w->sge[i].laddr,
					       w->sge[i].length,
					       IB_ACCESS_LOCAL_WRITE,
					       &s->rx_gen[i], &err);
		if (!s->rx_mr[i])
			return -EACCES;
		total += w->sge[i].length;
	}
	*len = min_t(u64, total, U32_MAX);
	return 0;
}

static int siw_srx_recv_buf(void *ctx, const struct siw_ddp_hdr *h, u32 *len)
{
	struct siw_stream *s = ctx;
	int rv;

	if (s->rx_rtr_wait) {
		/* the Send RTR: no receive work request, no completion */
		s->rx_zero_rtr = true;
		*len = 0;
		return 0;
	}
	rv = siw_rq_take(s->qp, &s->rx_wqe);
	if (rv == -ENOENT)
		return rv;
	s->rx_bound = true;
	if (rv) {
		siw_srx_unbind(s, IB_WC_LOC_QP_OP_ERR, 0, 0, false, false);
		return rv;
	}
	rv = siw_srx_check_sgl(s, len);
	if (rv)
		siw_srx_unbind(s, IB_WC_LOC_PROT_ERR, 0, 0, false, false);
	return rv;
}

static enum siw_ddp_err siw_srx_recv_place(void *ctx,
					   const struct siw_ddp_hdr *h, u32 mo,
					   const void *data, u32 len, u32 *crc)
{
	struct siw_stream *s = ctx;
	struct siw_wqe *w = &s->rx_wqe;
	u32 i, n, off;

	if (!s->rx_bound)
		return SIW_DDP_ERR_RDMAP_CATASTROPHIC;
	for (i = 0; i < w->num_sge && len; i++) {
		if (mo >= w->sge[i].length) {
			mo -= w->sge[i].length;
			continue;
		}
		off = mo;
		n = min(len, w->sge[i].length - off);
		if (siw_mr_place(s->rx_mr[i], s->rx_gen[i],
				 w->sge[i].laddr + off, data, n, crc)) {
			/*
			 * The consumer revoked the buffer's region under
			 * its posted receive: the stream stops, and that
			 * receive fails on its memory, not as flushed
			 */
			s->rx_revoked = true;
			return SIW_DDP_ERR_RDMAP_CATASTROPHIC;
		}
		data += n;
		len -= n;
		mo = 0;
	}
	return len ? SIW_DDP_ERR_DDP_U_TOO_LONG : SIW_DDP_OK;
}

static enum siw_ddp_err siw_srx_tagged_place(void *ctx,
					     const struct siw_ddp_region *r,
					     u64 to, const void *data, u32 len,
					     u32 *crc)
{
	struct siw_stream *s = ctx;

	/* the responder places nothing before the RTR */
	if (s->rx_rtr_wait)
		return SIW_DDP_ERR_LLP_NO_RTR;
	switch (siw_mr_place(r->obj, r->version, to, data, len, crc)) {
	case 0:
		return SIW_DDP_OK;
	case -EACCES:
		/*
		 * invalidated (or deregistered) since the segment was
		 * checked, and maybe registered again under the same STag
		 */
		return SIW_DDP_ERR_DDP_T_INVALID_STAG;
	default:
		return SIW_DDP_ERR_RDMAP_CATASTROPHIC;
	}
}

/*
 * A Read Response must answer the oldest Read Request in flight, into
 * exactly the sink that request named, in order: nothing else of ours
 * may be written by a response.
 */
static enum siw_ddp_err siw_srx_read_resp(void *ctx, const struct siw_ddp_hdr *h,
					  u32 len)
{
	struct siw_stream *s = ctx;
	enum siw_ddp_err err = SIW_DDP_OK;
	struct siw_orq_entry *e;
	unsigned long flags;

	if (s->rx_rtr_wait)
		return SIW_DDP_ERR_LLP_NO_RTR;
	spin_lock_irqsave(&s->lock, flags);
	if (s->orq_get == s->orq_put) {
		err = SIW_DDP_ERR_RDMAP_OPCODE;
		goto out;
	}
	e = &s->orq[s->orq_get % s->ord];
	/*
	 * An empty segment places nothing, so its STag and TO go
	 * unchecked (RFC 5041 section 5.2), here as for any tagged one;
	 * whether it may end the response (the length) is still checked
	 */
	if (len && h->stag != e->sink_stag)
		err = SIW_DDP_ERR_DDP_T_INVALID_STAG;
	else if ((len && h->to != e->sink_to) || len > e->left ||
		 (h->last && len != e->left))
		err = SIW_DDP_ERR_DDP_T_BASE_BOUNDS;
	if (!err) {
		e->sink_to += len;
		e->left -= len;
	}
out:
	spin_unlock_irqrestore(&s->lock, flags);
	return err;
}

#if IS_ENABLED(CONFIG_KUNIT)
static void (*siw_srx_read_req_hook)(struct siw_stream *s);

/**
 * siw_srx_read_req_hook_set() - set the KUnit hook at the Read Request
 * @hook: called as the receive path is about to queue a Read Request,
 *	under the socket's lock; NULL for none
 */
void siw_srx_read_req_hook_set(void (*hook)(struct siw_stream *s))
{
	WRITE_ONCE(siw_srx_read_req_hook, hook);
}
EXPORT_SYMBOL_IF_KUNIT(siw_srx_read_req_hook_set);

static void siw_srx_read_req_test(struct siw_stream *s)
{
	void (*hook)(struct siw_stream *s) = READ_ONCE(siw_srx_read_req_hook);

	if (hook)
		hook(s);
}
#else
static inline void siw_srx_read_req_test(struct siw_stream *s)
{
}
#endif

static enum siw_ddp_err siw_srx_read_req(void *ctx,
					 const struct siw_rdmap_rreq *rr,
					 const struct siw_ddp_region *src)
{
	struct siw_stream *s = ctx;
	struct siw_irq_entry *e;
	unsigned long flags;
	bool full;

	siw_srx_read_req_test(s);
	if (s->rx_rtr_wait) {
		if (rr->len)
			return SIW_DDP_ERR_LLP_NO_RTR;
		s->rx_rtr_wait = false;
		siw_cm_rtr_received(s->cep, SIW_MPA_RTR_READ);
	}
	spin_lock_irqsave(&s->lock, flags);
	/* torn down: the teardown drained the queue, or drains it later */
	if (s->torn) {
		spin_unlock_irqrestore(&s->lock, flags);
		return SIW_DDP_ERR_LLP_CLOSED;
	}
	full = s->irq_put - s->irq_get >= s->ird;
	if (!full) {
		e = &s->irq[s->irq_put++ % s->ird];
		e->rr = *rr;
		e->mr = src->obj;
		e->gen = src->version;
		if (e->mr)
			siw_mr_hold(e->mr);
		siw_stream_kick_locked(s);
	}
	spin_unlock_irqrestore(&s->lock, flags);
	return full ? SIW_DDP_ERR_LLP_NO_IRD : SIW_DDP_OK;
}

static void siw_srx_terminate(void *ctx, const struct siw_rdmap_term_report *rep)
{
	struct siw_stream *s = ctx;
	unsigned long flags;

	static const u8 stat[] = {
		[SIW_TERM_LAYER_RDMAP] = SIW_STAT_TERM_RX_RDMAP,
		[SIW_TERM_LAYER_DDP] = SIW_STAT_TERM_RX_DDP,
		[SIW_TERM_LAYER_LLP] = SIW_STAT_TERM_RX_LLP,
	};

	trace_siw_term_rx(s->qp->base.qp_num, rep->err, rep->layer,
			  rep->etype, rep->ecode);
	if (rep->layer < ARRAY_SIZE(stat))
		siw_stats_add(s->qp->qdev->stats, stat[rep->layer], 1);
	spin_lock_irqsave(&s->lock, flags);
	s->term_err = rep->err;
	spin_unlock_irqrestore(&s->lock, flags);
}

static void siw_srx_send_done(struct siw_stream *s,
			      const struct siw_engine_rx_msg *m)
{
	const struct siw_rdmap_opinfo *op = siw_rdmap_opinfo(m->hdr->opcode);
	bool invalidated = false;

	if (s->rx_zero_rtr) {
		s->rx_zero_rtr = false;
		s->rx_rtr_wait = false;
		siw_cm_rtr_received(s->cep, SIW_MPA_RTR_SEND);
		return;
	}
	if (!s->rx_bound)
		return;
	/* RFC 5040 5.4: invalid before the completion is seen */
	if (m->inval)
		invalidated = !siw_mem_invalidate(s->qp->qdev->mem, s->qp->base.pd,
						  m->hdr->inval_stag, true);
	siw_srx_unbind(s, IB_WC_SUCCESS, m->len, m->hdr->inval_stag,
		       invalidated, op->flags & SIW_RDMAP_F_SOLICITED);
}

static void siw_srx_read_resp_done(struct siw_stream *s)
{
	struct siw_orq_entry e;
	unsigned long flags;
	bool any;

	spin_lock_irqsave(&s->lock, flags);
	any = s->orq_get != s->orq_put;
	if (any) {
		e = s->orq[s->orq_get++ % s->ord];
		/* an ORD slot is free: the send queue may go on */
		siw_stream_kick_locked(s);
	}
	spin_unlock_irqrestore(&s->lock, flags);
	if (any && !e.rtr && e.last)
		siw_stream_read_done(s, e.wqe_seq, true);
}

static void siw_srx_msg_done(void *ctx, const struct siw_engine_rx_msg *m)
{
	struct siw_stream *s = ctx;

	switch (siw_rdmap_opinfo(m->hdr->opcode)->class) {
	case SIW_RDMAP_CLASS_SEND:
		siw_srx_send_done(s, m);
		break;
	case SIW_RDMAP_CLASS_READ_RESP:
		siw_srx_read_resp_done(s);
		break;
	case SIW_RDMAP_CLASS_WRITE:
		if (s->rx_rtr_wait) {
			s->rx_rtr_wait = false;
			siw_cm_rtr_received(s->cep, SIW_MPA_RTR_WRITE);
		}
		break;
	default:
		break;
	}
}

const struct siw_engine_rx_ops siw_srx_ops = {
	.recv_buf = siw_srx_recv_buf,
	.recv_place = siw_srx_recv_place,
	.tagged_place = siw_srx_tagged_place,
	.read_resp = siw_srx_read_resp,
	.read_req = siw_srx_read_req,
	.terminate = siw_srx_terminate,
	.msg_done = siw_srx_msg_done,
};
EXPORT_SYMBOL_IF_KUNIT(siw_srx_ops);

/**
 * siw_srx_start() - set the receive engine up for a new stream
 * @s: the stream, not yet hooked to its socket
 */
void siw_srx_start(struct siw_stream *s)
{
	struct siw_engine_rx_cfg cfg = {
		.ops = &siw_srx_ops,
		.ctx = s,
		.mem = { .ops = &siw_mem_ddp_ops, .ctx = s->qp->qdev->mem },
		.pd = s->qp->base.pd,
		.ird = s->ird,
		.markers = s->conn.rx_markers,
		.crc = s->conn.crc,
	};

	siw_engine_rx_init(&s->rx, &cfg);
	s->rx_rtr_wait = s->conn.p2p && !s->initiator;
}
EXPORT_SYMBOL_IF_KUNIT(siw_srx_start);

/* Count the framing errors an administrator looks for */
static void siw_srx_count_error(struct siw_stream *s)
{
	switch (siw_engine_rx_error(&s->rx)) {
	case SIW_DDP_ERR_LLP_CRC:
		siw_stats_add(s->qp->qdev->stats, SIW_STAT_RX_CRC_ERRORS, 1);
		break;
	case SIW_DDP_ERR_LLP_MARKER:
		siw_stats_add(s->qp->qdev->stats, SIW_STAT_RX_MARKER_ERRORS, 1);
		break;
	default:
		break;
	}
}

/* The receive engine stopped: why, and what follows */
static void siw_srx_stopped(struct siw_stream *s)
{
	struct siw_rdmap_term_info ti;
	bool term_due = siw_engine_rx_term_info(&s->rx, &ti);

	siw_srx_count_error(s);

	if (s->rx_rtr_wait && term_due) {
		/* not an RTR: the CM answers with Terminate code 7 */
		s->rx_rtr_wait = false;
		siw_cm_rtr_received(s->cep, SIW_MPA_RTR_NONE);
		return;
	}
	/* a Terminate from the peer, even in place of the RTR, is never answered */
	s->rx_rtr_wait = false;
	/*
	 * A Send longer than the receive it was bound to: that receive
	 * failed on its length, it was not flushed
	 */
	if (s->rx_bound &&
	    siw_engine_rx_error(&s->rx) == SIW_DDP_ERR_DDP_U_TOO_LONG)
		siw_srx_unbind(s, IB_WC_LOC_LEN_ERR, 0, 0, false, false);
	/* a region revoked under the receive: it failed on its buffer */
	if (s->rx_bound && s->rx_revoked)
		siw_srx_unbind(s, IB_WC_LOC_PROT_ERR, 0, 0, false, false);
	if (term_due)
		siw_stream_fail(s, ti.err, &ti);
	else
		siw_stream_fail(s, s->term_err ? s->term_err :
				siw_engine_rx_error(&s->rx), NULL);
}

/* One skb's worth of the stream went through the engine */
static void siw_srx_count(struct siw_stream *s, u32 fpdus, unsigned int used)
{
	struct siw_stats __percpu *st = s->qp->qdev->stats;

	siw_stats_add(st, SIW_STAT_RX_OCTETS, used);
	if (fpdus)
		siw_stats_add(st, SIW_STAT_RX_FPDUS, fpdus);
}

static int siw_srx_actor(read_descriptor_t *desc, struct sk_buff *skb,
			 unsigned int off, size_t len)
{
	struct siw_stream *s = desc->arg.data;
	u32 fpdus = s->rx.fpdus;
	unsigned int used;

	/* a stopped stream reads on, so that the peer's FIN gets through */
	if (siw_stream_stopped(s) || siw_engine_rx_stopped(&s->rx))
		return len;
	used = siw_engine_rx_skb(&s->rx, skb, off, len);
	siw_srx_count(s, s->rx.fpdus - fpdus, used);
	if (siw_engine_rx_stopped(&s->rx)) {
		siw_srx_stopped(s);
		return len;
	}
	return used;
}

/**
 * siw_srx_read_sock() - take everything the socket has queued
 * @s: the stream
 *
 * Context: the socket's lock held (data-ready callback or lock_sock()).
 */
void siw_srx_read_sock(struct siw_stream *s)
{
	read_descriptor_t desc = { .arg.data = s, .count = 1 };

	siw_assert_sock_locked(s->sock->sk);
	tcp_read_sock(s->sock->sk, &desc, siw_srx_actor);
}
EXPORT_SYMBOL_IF_KUNIT(siw_srx_read_sock);

/**
 * siw_srx_release() - the stream stops: drop what receive holds
 * @s: the stream
 *
 * A receive work request bound to a Send in progress completes as
 * flushed.
 *
 * Context: process; the socket's lock held.
 */
void siw_srx_release(struct siw_stream *s)
{
	siw_assert_sock_locked(s->sock->sk);
	siw_engine_rx_close(&s->rx);
	if (s->rx_bound)
		siw_srx_unbind(s, IB_WC_WR_FLUSH_ERR, 0, 0, false, false);
}
