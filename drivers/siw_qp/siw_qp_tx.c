// SPDX-License-Identifier: GPL-2.0
/*
 * Transmit: the QP's TX work item picks the next message (the Terminate,
 * the RTR, a Read Response, the next send work request, in that order),
 * has the transmit engine (siw_fpdu_tx.c) cut it into FPDUs and hands
 * each FPDU's pieces to TCP in one sendmsg.
 *
 * The socket is never waited for: a full send buffer ends the work item,
 * and the socket's write-space callback queues it again. Send work
 * requests complete in order once they are on the socket (a READ once
 * its last response arrived), from this work item only.
 *
 * Payload is described page by page (siw_mr_page()); TCP copies it when
 * sendmsg runs, so a buffer may be reused as soon as its work request
 * completed.
 */
#include <linux/bvec.h>
#include <linux/highmem.h>
#include <linux/uio.h>
#include <net/tcp.h>

#include "siw_dev/siw_dev.h"
#include "siw_stream.h"

/* FPDUs one run of the work item sends before it lets others run */
#define SIW_TX_BUDGET	128

static void siw_tx_put_mrs(struct siw_stream *s)
{
	while (s->tx_nmr)
		siw_mr_put(s->tx_mr[--s->tx_nmr]);
}

/**
 * siw_tx_release() - the stream stops: drop what transmit holds
 * @s: the stream; its TX work is idle and will not run again
 *
 * Work requests in progress stay on the send queue, for the flush.
 *
 * Context: process.
 */
void siw_tx_release(struct siw_stream *s)
{
	unsigned long flags;
	struct siw_mr *mr;

	siw_tx_put_mrs(s);
	if (s->tx_kind == SIW_TX_RRESP && s->rresp.mr)
		siw_mr_put(s->rresp.mr);
	s->rresp.mr = NULL;
	s->tx_kind = SIW_TX_IDLE;
	s->tx_fpdu = false;
	spin_lock_irqsave(&s->lock, flags);
	while (s->irq_get != s->irq_put) {
		mr = s->irq[s->irq_get++ % s->ird].mr;
		if (mr)
			siw_mr_put(mr);
	}
	spin_unlock_irqrestore(&s->lock, flags);
}

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
	r->done = true;
	spin_unlock_irqrestore(&s->lock, flags);
	siw_stream_kick(s);
}

static void siw_tx_wqe_done(struct siw_stream *s, enum ib_wc_status status)
{
	struct siw_sq_rec *r;
	unsigned long flags;

	spin_lock_irqsave(&s->lock, flags);
	r = &s->sq_rec[s->wqe_seq & s->sq_mask];
	r->status = status;
	r->bytes = s->wqe_bytes;
	r->done = true;
	spin_unlock_irqrestore(&s->lock, flags);
}

/* Complete, in order, every work request at the head that is done */
static bool siw_tx_retire(struct siw_stream *s)
{
	struct siw_qp *qp = s->qp;
	struct siw_sq_rec r;
	unsigned long flags;
	bool failed = false;

	for (;;) {
		spin_lock_irqsave(&s->lock, flags);
		if (s->sq_head == s->sq_next ||
		    !s->sq_rec[s->sq_head & s->sq_mask].done) {
			spin_unlock_irqrestore(&s->lock, flags);
			break;
		}
		r = s->sq_rec[s->sq_head & s->sq_mask];
		memset(&s->sq_rec[s->sq_head & s->sq_mask], 0, sizeof(r));
		s->sq_head++;
		spin_unlock_irqrestore(&s->lock, flags);
		if (r.inval && r.status == IB_WC_SUCCESS &&
		    siw_mem_invalidate(qp->sdev, qp->base.pd, r.inval_stag,
				       false))
			r.status = IB_WC_LOC_PROT_ERR;
		siw_sq_complete(qp, r.status, r.bytes);
		failed |= r.status != IB_WC_SUCCESS;
	}
	return failed;
}

/* Room for @need payload segments */
static int siw_tx_seg_reserve(struct siw_stream *s, u64 need)
{
	struct siw_engine_seg *seg;

	if (need <= s->seg_max)
		return 0;
	if (need > U32_MAX / sizeof(*seg))
		return -ENOMEM;
	seg = kvmalloc_array(need, sizeof(*seg), GFP_KERNEL);
	if (!seg)
		return -ENOMEM;
	kvfree(s->seg);
	s->seg = seg;
	s->seg_max = need;
	return 0;
}

/* Describe [@va, @va + @len) of @mr as page segments from s->seg[*n] */
static int siw_tx_add_range(struct siw_stream *s, struct siw_mr *mr, u64 va,
			    u32 len, u32 *n)
{
	unsigned int pg_off;
	struct page *pg;
	u32 c;

	while (len) {
		pg = siw_mr_page(mr, va, &pg_off);
		if (!pg || *n >= s->seg_max)
			return -EFAULT;
		c = min_t(u32, len, PAGE_SIZE - pg_off);
		s->seg[(*n)++] = (struct siw_engine_seg){
			.page = pg, .off = pg_off, .len = c,
			.kind = SIW_ENGINE_SEG_PAGE,
		};
		va += c;
		len -= c;
	}
	return 0;
}

static u64 siw_tx_range_segs(u32 len)
{
	return (len >> PAGE_SHIFT) + 2;
}

/* The payload of a Send or Write work request, checked for local read */
static int siw_tx_wqe_sgl(struct siw_stream *s, struct siw_engine_sgl *sgl)
{
	struct siw_wqe *w = &s->wqe;
	enum siw_mem_err err;
	struct siw_mr *mr;
	u64 need = 0;
	u32 i, n = 0;
	int rv;

	if (w->flags & SIW_WQE_INLINE) {
		s->seg[0] = (struct siw_engine_seg){
			.addr = w->data, .len = w->inline_len,
			.kind = SIW_ENGINE_SEG_KVA,
		};
		*sgl = (struct siw_engine_sgl){ .seg = s->seg, .nseg = 1 };
		s->wqe_bytes = w->inline_len;
		return 0;
	}
	for (i = 0; i < w->num_sge; i++)
		need += siw_tx_range_segs(w->sge[i].length);
	rv = siw_tx_seg_reserve(s, need);
	if (rv)
		return rv;
	s->wqe_bytes = 0;
	for (i = 0; i < w->num_sge; i++) {
		if (!w->sge[i].length)
			continue;
		mr = siw_mr_get_local(s->qp->sdev, s->qp->base.pd,
				      w->sge[i].lkey, w->sge[i].laddr,
				      w->sge[i].length, 0, &err);
		if (!mr)
			return -EACCES;
		s->tx_mr[s->tx_nmr++] = mr;
		rv = siw_tx_add_range(s, mr, w->sge[i].laddr, w->sge[i].length,
				      &n);
		if (rv)
			return rv;
		s->wqe_bytes += w->sge[i].length;
	}
	*sgl = (struct siw_engine_sgl){ .seg = s->seg, .nseg = n };
	return 0;
}

static u8 siw_tx_send_opcode(const struct siw_wqe *w)
{
	bool se = w->flags & SIW_WQE_SOLICITED;

	if (w->opcode == SIW_OP_SEND_REMOTE_INV)
		return se ? SIW_RDMAP_SEND_SE_INV : SIW_RDMAP_SEND_INV;
	return se ? SIW_RDMAP_SEND_SE : SIW_RDMAP_SEND;
}

/* Every sink SGE of a READ must take the Read Responses: RFC 5040 asks
 * the sink STag for remote write access as well as local
 */
static int siw_tx_read_check(struct siw_stream *s)
{
	const u32 access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;
	struct siw_wqe *w = &s->wqe;
	enum siw_mem_err err;
	struct siw_mr *mr;
	u32 i;

	s->wqe_bytes = 0;
	for (i = 0; i < w->num_sge; i++) {
		if (!w->sge[i].length)
			continue;
		mr = siw_mr_get_local(s->qp->sdev, s->qp->base.pd,
				      w->sge[i].lkey, w->sge[i].laddr,
				      w->sge[i].length, access, &err);
		if (!mr)
			return -EACCES;
		siw_mr_put(mr);
		s->wqe_bytes += w->sge[i].length;
	}
	return 0;
}

static bool siw_tx_orq_full(struct siw_stream *s)
{
	unsigned long flags;
	bool full;

	spin_lock_irqsave(&s->lock, flags);
	full = s->orq_put - s->orq_get >= s->ord;
	spin_unlock_irqrestore(&s->lock, flags);
	return full;
}

static bool siw_tx_orq_empty(struct siw_stream *s)
{
	unsigned long flags;
	bool empty;

	spin_lock_irqsave(&s->lock, flags);
	empty = s->orq_put == s->orq_get;
	spin_unlock_irqrestore(&s->lock, flags);
	return empty;
}

static void siw_tx_orq_push(struct siw_stream *s,
			    const struct siw_rdmap_rreq *rr, bool last,
			    bool rtr)
{
	struct siw_orq_entry *e;
	unsigned long flags;

	spin_lock_irqsave(&s->lock, flags);
	e = &s->orq[s->orq_put++ % s->ord];
	e->sink_stag = rr->sink_stag;
	e->sink_to = rr->sink_to;
	e->left = rr->len;
	e->wqe_seq = s->wqe_seq;
	e->last = last;
	e->rtr = rtr;
	spin_unlock_irqrestore(&s->lock, flags);
}

/*
 * The next Read Request of the READ in progress: one per SGE (each
 * names its own sink), one zero-length request if it has no octets.
 * Returns 1 with a message started, 0 if the ORD is used up.
 */
static int siw_tx_read_next(struct siw_stream *s)
{
	struct siw_wqe *w = &s->wqe;
	struct siw_engine_msg msg = { .opcode = SIW_RDMAP_READ_REQ };
	struct siw_rdmap_rreq rr = { .src_stag = w->rkey };
	u32 i = s->rd_sge;
	bool last;

	while (i < w->num_sge && !w->sge[i].length && s->wqe_bytes)
		i++;
	if (siw_tx_orq_full(s))
		return 0;
	if (i < w->num_sge) {
		rr.sink_stag = w->sge[i].lkey;
		rr.sink_to = w->sge[i].laddr;
		rr.len = w->sge[i].length;
	} else {
		rr.sink_stag = SIW_RTR_STAG;
	}
	rr.src_to = w->raddr + s->rd_off;
	s->rd_off += rr.len;
	s->rd_sge = i + 1;
	last = s->rd_off == s->wqe_bytes;
	msg.rreq = &rr;
	if (siw_engine_tx_msg(&s->tx, &msg))
		return -EPROTO;
	siw_tx_orq_push(s, &rr, last, false);
	return 1;
}

/* Local operations complete where the send queue reaches them */
static enum ib_wc_status siw_tx_local_op(struct siw_stream *s)
{
	struct siw_wqe *w = &s->wqe;
	struct siw_qp *qp = s->qp;
	int rv;

	if (w->opcode == SIW_OP_REG_MR)
		rv = siw_mem_fastreg(to_siw_mr(w->mr), qp->base.pd, w->rkey,
				     w->access);
	else
		rv = siw_mem_invalidate(qp->sdev, qp->base.pd, w->inval_stag,
					false);
	return rv ? IB_WC_LOC_PROT_ERR : IB_WC_SUCCESS;
}

/* Start the next send work request. Returns 1, 0 (none ready) or -errno */
static int siw_tx_start_wqe(struct siw_stream *s)
{
	struct siw_engine_msg msg = { };
	struct siw_wqe *w = &s->wqe;
	unsigned long flags;
	int rv;

	rv = siw_sq_peek(s->qp, s->sq_next - s->sq_head, w);
	if (rv == -ENOENT)
		return 0;
	if (!rv && (w->flags & SIW_WQE_READ_FENCE) && !siw_tx_orq_empty(s))
		return 0;
	s->wqe_seq = s->sq_next++;
	s->wqe_bytes = 0;
	if (rv) {
		siw_tx_wqe_done(s, IB_WC_LOC_QP_OP_ERR);
		return -EINVAL;
	}
	switch (w->opcode) {
	case SIW_OP_REG_MR:
	case SIW_OP_INVAL_STAG:
		siw_tx_wqe_done(s, siw_tx_local_op(s));
		return 1;
	case SIW_OP_READ:
	case SIW_OP_READ_LOCAL_INV:
		if (siw_tx_read_check(s)) {
			siw_tx_wqe_done(s, IB_WC_LOC_PROT_ERR);
			return -EACCES;
		}
		spin_lock_irqsave(&s->lock, flags);
		s->sq_rec[s->wqe_seq & s->sq_mask].bytes = s->wqe_bytes;
		s->sq_rec[s->wqe_seq & s->sq_mask].inval =
			w->opcode == SIW_OP_READ_LOCAL_INV;
		s->sq_rec[s->wqe_seq & s->sq_mask].inval_stag = w->inval_stag;
		spin_unlock_irqrestore(&s->lock, flags);
		s->rd_sge = 0;
		s->rd_off = 0;
		s->tx_kind = SIW_TX_WQE;
		return 1;
	case SIW_OP_WRITE:
		msg.opcode = SIW_RDMAP_WRITE;
		msg.stag = w->rkey;
		msg.to = w->raddr;
		break;
	default:
		msg.opcode = siw_tx_send_opcode(w);
		msg.inval_stag = w->inval_stag;
		break;
	}
	rv = siw_tx_wqe_sgl(s, &msg.sgl);
	if (!rv)
		rv = siw_engine_tx_msg(&s->tx, &msg);
	if (rv) {
		siw_tx_put_mrs(s);
		siw_tx_wqe_done(s, IB_WC_LOC_PROT_ERR);
		return rv;
	}
	s->tx_kind = SIW_TX_WQE;
	return 1;
}

/* Answer the oldest inbound Read Request. Returns 1 or 0 (none) */
static int siw_tx_start_rresp(struct siw_stream *s)
{
	struct siw_engine_msg msg = { .opcode = SIW_RDMAP_READ_RESP };
	struct siw_rdmap_rreq *rr = &s->rresp.rr;
	unsigned long flags;
	u32 n = 0;
	int rv;

	spin_lock_irqsave(&s->lock, flags);
	if (s->irq_get == s->irq_put) {
		spin_unlock_irqrestore(&s->lock, flags);
		return 0;
	}
	s->rresp = s->irq[s->irq_get++ % s->ird];
	spin_unlock_irqrestore(&s->lock, flags);
	s->tx_kind = SIW_TX_RRESP;

	rv = siw_tx_seg_reserve(s, siw_tx_range_segs(rr->len));
	if (!rv && rr->len)
		rv = siw_tx_add_range(s, s->rresp.mr, rr->src_to, rr->len, &n);
	if (rv)
		return rv;
	msg.stag = rr->sink_stag;
	msg.to = rr->sink_to;
	msg.sgl = (struct siw_engine_sgl){ .seg = s->seg, .nseg = n };
	return siw_engine_tx_msg(&s->tx, &msg) ? -EPROTO : 1;
}

static int siw_tx_start_rtr(struct siw_stream *s)
{
	struct siw_engine_msg msg = { .stag = SIW_RTR_STAG };
	struct siw_rdmap_rreq rr = {
		.sink_stag = SIW_RTR_STAG,
		.src_stag = SIW_RTR_STAG,
	};

	switch (s->rtr) {
	case SIW_MPA_RTR_WRITE:
		msg.opcode = SIW_RDMAP_WRITE;
		break;
	case SIW_MPA_RTR_READ:
		msg.opcode = SIW_RDMAP_READ_REQ;
		msg.rreq = &rr;
		break;
	default:
		msg.opcode = SIW_RDMAP_SEND;
		break;
	}
	if (siw_engine_tx_msg(&s->tx, &msg))
		return -EPROTO;
	if (s->rtr == SIW_MPA_RTR_READ)
		siw_tx_orq_push(s, &rr, true, true);
	s->tx_kind = SIW_TX_RTR;
	return 1;
}

static int siw_tx_start_term(struct siw_stream *s)
{
	struct siw_rdmap_term_info ti = {
		.err = s->term_err,
		.seg = s->term_seg_len ? s->term_seg : NULL,
		.seg_avail = s->term_seg_len,
		.seg_len = s->term_ulpdu_len,
		.seg_len_valid = s->term_len_valid,
	};
	struct siw_engine_msg msg = {
		.opcode = SIW_RDMAP_TERMINATE,
		.term = &ti,
	};

	/* a message cut short: the Terminate follows its last full FPDU */
	siw_engine_tx_abort(&s->tx);
	siw_tx_put_mrs(s);
	if (s->tx_kind == SIW_TX_RRESP && s->rresp.mr)
		siw_mr_put(s->rresp.mr);
	s->rresp.mr = NULL;
	s->tx_kind = SIW_TX_TERM;
	return siw_engine_tx_msg(&s->tx, &msg) ? -EPROTO : 1;
}

/* What to send next: 1 with a message started, 0 if nothing, -errno */
static int siw_tx_start(struct siw_stream *s)
{
	unsigned long flags;
	bool term, rtr;
	int rv;

	spin_lock_irqsave(&s->lock, flags);
	term = s->term_pending;
	rtr = s->rtr_pending && !s->stopped;
	s->term_pending = false;
	s->rtr_pending = false;
	spin_unlock_irqrestore(&s->lock, flags);
	if (term)
		return siw_tx_start_term(s);
	if (rtr)
		return siw_tx_start_rtr(s);
	if (s->tx_kind == SIW_TX_WQE)
		return siw_tx_read_next(s);
	if (siw_stream_stopped(s) || READ_ONCE(s->qp->state) != SIW_QP_RTS)
		return 0;
	rv = siw_tx_start_rresp(s);
	if (!rv)
		rv = siw_tx_start_wqe(s);
	return rv;
}

/* The message's last FPDU is on the socket */
static void siw_tx_msg_sent(struct siw_stream *s)
{
	struct sock *sk = s->sock->sk;

	switch (s->tx_kind) {
	case SIW_TX_WQE:
		siw_tx_put_mrs(s);
		if (s->wqe.opcode == SIW_OP_READ ||
		    s->wqe.opcode == SIW_OP_READ_LOCAL_INV) {
			/* more Read Requests to send for it? */
			if (s->rd_off < s->wqe_bytes)
				return;
		} else {
			siw_tx_wqe_done(s, IB_WC_SUCCESS);
		}
		break;
	case SIW_TX_RRESP:
		if (s->rresp.mr)
			siw_mr_put(s->rresp.mr);
		s->rresp.mr = NULL;
		lock_sock(sk);
		siw_engine_rx_ird_put(&s->rx);
		release_sock(sk);
		break;
	case SIW_TX_TERM:
		s->term_sent = true;
		if (!s->term_from_cm)
			siw_stream_closed(s, -EPROTO);
		break;
	default:
		break;
	}
	s->tx_kind = SIW_TX_IDLE;
}

static void siw_tx_bvec(const struct siw_engine_seg *p, u32 skip,
			struct bio_vec *bv)
{
	const u8 *a;

	if (p->kind == SIW_ENGINE_SEG_PAGE) {
		bv->bv_page = p->page;
		bv->bv_offset = p->off + skip;
	} else {
		/* our own kmalloc'd octets: the stream or the WQE copy */
		a = (const u8 *)p->addr + skip;
		bv->bv_page = virt_to_page(a);
		bv->bv_offset = offset_in_page(a);
	}
	bv->bv_len = p->len - skip;
}

/* Hand the rest of the FPDU to TCP. Returns 0 once all of it went */
static int siw_tx_push(struct siw_stream *s)
{
	struct bio_vec bv[SIW_ENGINE_TX_PIECES];
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL };
	struct siw_engine_txd *d = &s->txd;
	u32 skip = s->tx_off, total = 0;
	unsigned int i, n = 0;
	int rv;

	for (i = 0; i < d->n; i++) {
		if (skip >= d->piece[i].len) {
			skip -= d->piece[i].len;
			continue;
		}
		siw_tx_bvec(&d->piece[i], skip, &bv[n]);
		total += bv[n++].bv_len;
		skip = 0;
	}
	/* more of the same message follows at once */
	if (!d->last)
		msg.msg_flags |= MSG_MORE;
	iov_iter_bvec(&msg.msg_iter, WRITE, bv, n, total);
	rv = sock_sendmsg(s->sock, &msg);
	if (rv < 0)
		return rv;
	s->tx_off += rv;
	return s->tx_off < d->wire_len ? -EAGAIN : 0;
}

/* Cut the next FPDU of the message in progress, or start a message */
static int siw_tx_next_fpdu(struct siw_stream *s)
{
	int rv;

	if (!siw_engine_tx_busy(&s->tx) ||
	    (READ_ONCE(s->term_pending) && s->tx_kind != SIW_TX_TERM)) {
		rv = siw_tx_start(s);
		if (rv <= 0)
			return rv;
		if (!siw_engine_tx_busy(&s->tx))
			return 1;	/* a local operation: nothing to send */
	}
	s->txd.piece = s->piece;
	s->txd.max = ARRAY_SIZE(s->piece);
	rv = siw_engine_tx_next(&s->tx, &s->txd);
	if (rv <= 0)
		return rv ? rv : -EPROTO;
	s->tx_off = 0;
	s->tx_fpdu = true;
	return 1;
}

/* A local error on a work request: it completed in error, stop the QP */
static void siw_tx_local_error(struct siw_stream *s, int rv)
{
	siw_tx_retire(s);
	if (rv == -EAGAIN || rv == -EPIPE || rv == -ECONNRESET) {
		siw_stream_closed(s, rv);
		return;
	}
	siw_stream_fail(s, SIW_DDP_ERR_RDMAP_CATASTROPHIC, NULL);
}

/**
 * siw_tx_work() - the transmit work item of a stream
 * @w: &struct siw_stream.tx_work
 *
 * Context: process (the siw_tx workqueue); never waits for the socket.
 */
void siw_tx_work(struct work_struct *w)
{
	struct siw_stream *s = container_of(w, struct siw_stream, tx_work);
	int budget = SIW_TX_BUDGET, rv = 0;

	while (budget--) {
		if (siw_stream_stopped(s) && !READ_ONCE(s->term_pending) &&
		    s->tx_kind != SIW_TX_TERM)
			break;
		if (s->tx_fpdu) {
			rv = siw_tx_push(s);
			if (rv == -EAGAIN)
				return;
			if (rv) {
				siw_stream_closed(s, rv);
				return;
			}
			s->tx_fpdu = false;
			if (s->txd.last)
				siw_tx_msg_sent(s);
			continue;
		}
		rv = siw_tx_next_fpdu(s);
		if (rv < 0) {
			siw_tx_local_error(s, rv);
			return;
		}
		if (!rv)
			break;
	}
	if (siw_tx_retire(s))
		siw_stream_fail(s, SIW_DDP_ERR_RDMAP_CATASTROPHIC, NULL);
	/* pairs with the poster's barrier: see entries posted meanwhile */
	smp_mb();
	if (budget < 0)
		siw_stream_kick(s);
	else if (!siw_stream_stopped(s) && s->tx_kind == SIW_TX_IDLE &&
		 !siw_sq_peek(s->qp, s->sq_next - s->sq_head, &s->wqe) &&
		 READ_ONCE(s->qp->state) == SIW_QP_RTS &&
		 !(s->wqe.flags & SIW_WQE_READ_FENCE) && !siw_tx_orq_full(s))
		siw_stream_kick(s);
}
