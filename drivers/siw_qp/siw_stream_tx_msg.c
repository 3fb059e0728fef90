// SPDX-License-Identifier: GPL-2.0
/*
 * Message start: the push loop (siw_stream_tx.c) asks siw_stx_start()
 * for the next message, the Terminate, the RTR, a Read Response or the
 * next send work request, in that order. Its payload is checked and
 * described page by page here, each page with a reference of the
 * stream's (siw_stx_put_msg() drops them), and the message handed to the
 * transmit engine (siw_engine_tx_msg()), which cuts it into FPDUs.
 */
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>

#include "siw_fault.h"
#include "siw_mem/siw_mem.h"
#include "siw_stream_tx.h"

/* The smallest message whose pages go to TCP by reference */
#define SIW_TX_ZC_MIN		16384

/*
 * An FPDU at MTU 1500 puts under 1.5 KiB of a page between its framing
 * octets: sent by reference, each is a fragment of its own and an skb
 * (17 fragments) carries about 11 KiB instead of 64 KiB, which costs
 * more than the copy saves (Documentation/datapath.rst)
 */
#define SIW_TX_ZC_MSS_MIN	PAGE_SIZE

static bool zcopy_tx = true;
module_param(zcopy_tx, bool, 0644);
MODULE_PARM_DESC(zcopy_tx,
		 "Send the pages of large Send and Write messages to TCP by reference instead of copying them (default Y)");

/*
 * May a message of @len octets hand its pages to TCP by reference? Not
 * once the kernel copied such pages of this stream (siw_zc_copied())
 */
bool siw_stx_zc_ok(const struct siw_stream *s, u32 len)
{
	return READ_ONCE(zcopy_tx) && len >= SIW_TX_ZC_MIN &&
	       READ_ONCE(tcp_sk(s->sock->sk)->mss_cache) >= SIW_TX_ZC_MSS_MIN &&
	       !siw_zc_copied(s);
}

/* Drop what the message in progress holds: its pages, its regions */
void siw_stx_put_msg(struct siw_stream *s)
{
	/* TCP's references keep the pages; the release completes the WR */
	siw_zc_end(s->tx_ubuf);
	s->tx_ubuf = NULL;
	while (s->seg_refs)
		put_page(s->seg_page[--s->seg_refs]);
	while (s->tx_nmr)
		siw_mr_put(s->tx_mr[--s->tx_nmr]);
	if (s->tx_kind == SIW_TX_RRESP && s->rresp.mr)
		siw_mr_put(s->rresp.mr);
	s->rresp.mr = NULL;
}

/*
 * Room for @need payload segments; what a message in progress holds
 * (its segments so far, its page references) stays. Charged to the
 * memory cgroup of whoever sends: a process's own sizes, once its SGEs
 * were checked (siw_stx_sges()).
 */
static int siw_stx_seg_reserve(struct siw_stream *s, u64 need)
{
	struct siw_engine_seg *seg;
	struct page **pages;

	if (need <= s->seg_max)
		return 0;
	if (need > U32_MAX / sizeof(*seg))
		return -ENOMEM;
	pages = SIW_FAULT(kvmalloc_array(need, sizeof(*pages),
					 GFP_KERNEL_ACCOUNT));
	seg = SIW_FAULT(kvmalloc_array(need, sizeof(*seg),
				       GFP_KERNEL_ACCOUNT));
	if (!seg || !pages) {
		kvfree(pages);
		kvfree(seg);
		return -ENOMEM;
	}
	memcpy(pages, s->seg_page, s->seg_refs * sizeof(*pages));
	memcpy(seg, s->seg, s->seg_max * sizeof(*seg));
	kvfree(s->seg);
	kvfree(s->seg_page);
	s->seg = seg;
	s->seg_page = pages;
	s->seg_max = need;
	return 0;
}

/*
 * Describe [@va, @va + @len) of @mr, checked at change count @gen, as
 * page segments from s->seg[*n], with a reference on each page that
 * takes one (siw_stx_put_msg() drops them); @copy_slab: see
 * siw_mr_get_page(). Each segment ends at the end of the region's page
 * or of the kernel page (siw_mr_get_page()), so a region of pages
 * smaller than the kernel's takes more segments than
 * siw_stx_range_segs() counts: the array grows, sized from @len, which
 * the caller checked against @mr. Returns 0, -EACCES if @mr was revoked
 * or changed since, or -ENOMEM.
 */
static int siw_stx_add_range(struct siw_stream *s, struct siw_mr *mr,
			     u64 gen, u64 va, u32 len, bool copy_slab, u32 *n)
{
	struct siw_mr_src src;
	int rv;

	while (len) {
		if (*n >= s->seg_max) {
			rv = siw_stx_seg_reserve(s, *n + siw_mr_pieces(mr, len));
			if (rv)
				return rv;
		}
		rv = siw_mr_get_page(mr, gen, va, len, copy_slab, &src);
		if (rv)
			return rv;
		if (src.ref)
			s->seg_page[s->seg_refs++] = src.page;
		s->seg[(*n)++] = (struct siw_engine_seg){
			.page = src.page, .off = src.off, .len = src.len,
			.kind = SIW_ENGINE_SEG_PAGE,
		};
		va += src.len;
		len -= src.len;
	}
	return 0;
}

/* Segments of a range in kernel pages; smaller region pages take more */
static u64 siw_stx_range_segs(u32 len)
{
	return (len >> PAGE_SHIFT) + 2;
}

/*
 * Look every SGE of the work request in progress up with @access; with
 * @n, keep the regions referenced in s->tx_mr and describe the octets as
 * page segments from s->seg[*n]. Every SGE is looked up before the
 * segment array is sized, and it is sized from the lengths the lookups
 * checked against their regions (siw_mr_pieces()): a process's lengths
 * alone, up to 2^32 - 1 octets, size nothing. Sets s->wqe_bytes.
 */
static int siw_stx_sges(struct siw_stream *s, u32 access, u32 *n)
{
	struct siw_wqe *w = &s->wqe;
	u32 i, nmr = 0, first = s->tx_nmr;
	u64 gen[SIW_DEV_MAX_SGE];
	enum siw_mem_err err;
	struct siw_mr *mr;
	u64 need = 0;
	int rv;

	s->wqe_bytes = 0;
	for (i = 0; i < w->num_sge; i++) {
		if (!w->sge[i].length)
			continue;
		mr = siw_mr_get_local(s->qp->qdev->mem, s->qp->base.pd,
				      w->sge[i].lkey, w->sge[i].laddr,
				      w->sge[i].length, access, &gen[nmr],
				      &err);
		if (!mr)
			return -EACCES;
		if (!n) {
			siw_mr_put(mr);
		} else {
			s->tx_mr[s->tx_nmr++] = mr;
			need += siw_mr_pieces(mr, w->sge[i].length);
			nmr++;
		}
		s->wqe_bytes += w->sge[i].length;
	}
	if (!n)
		return 0;
	rv = siw_stx_seg_reserve(s, *n + need);
	for (i = 0, nmr = 0; !rv && i < w->num_sge; i++) {
		if (!w->sge[i].length)
			continue;
		rv = siw_stx_add_range(s, s->tx_mr[first + nmr], gen[nmr],
				       w->sge[i].laddr, w->sge[i].length, false,
				       n);
		nmr++;
	}
	return rv;
}

/* The payload of a Send or Write work request, checked for local read */
static int siw_stx_wqe_sgl(struct siw_stream *s, struct siw_engine_sgl *sgl)
{
	struct siw_wqe *w = &s->wqe;
	u32 n = 0;
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
	rv = siw_stx_sges(s, 0, &n);
	if (rv)
		return rv;
	*sgl = (struct siw_engine_sgl){ .seg = s->seg, .nseg = n };
	return 0;
}

static u8 siw_stx_send_opcode(const struct siw_wqe *w)
{
	bool se = w->flags & SIW_WQE_SOLICITED;

	if (w->opcode == SIW_OP_SEND_REMOTE_INV)
		return se ? SIW_RDMAP_SEND_SE_INV : SIW_RDMAP_SEND_INV;
	return se ? SIW_RDMAP_SEND_SE : SIW_RDMAP_SEND;
}

/*
 * Every sink SGE of a READ must take the Read Responses: local write
 * access suffices, as the receive path accepts a response only into the
 * sink of the Read Request it answers
 */
static int siw_stx_read_check(struct siw_stream *s)
{
	return siw_stx_sges(s, IB_ACCESS_LOCAL_WRITE, NULL);
}

bool siw_stx_orq_full(struct siw_stream *s)
{
	unsigned long flags;
	bool full;

	spin_lock_irqsave(&s->lock, flags);
	full = s->orq_put - s->orq_get >= s->ord;
	spin_unlock_irqrestore(&s->lock, flags);
	return full;
}

static bool siw_stx_orq_empty(struct siw_stream *s)
{
	unsigned long flags;
	bool empty;

	spin_lock_irqsave(&s->lock, flags);
	empty = s->orq_put == s->orq_get;
	spin_unlock_irqrestore(&s->lock, flags);
	return empty;
}

static void siw_stx_orq_push(struct siw_stream *s,
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
static int siw_stx_read_next(struct siw_stream *s)
{
	struct siw_wqe *w = &s->wqe;
	struct siw_engine_msg msg = { .opcode = SIW_RDMAP_READ_REQ };
	struct siw_rdmap_rreq rr = { .src_stag = w->rkey };
	u32 i = s->rd_sge;
	bool last;

	while (i < w->num_sge && !w->sge[i].length && s->wqe_bytes)
		i++;
	if (siw_stx_orq_full(s))
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
	siw_stx_orq_push(s, &rr, last, false);
	return 1;
}

/* Local operations complete where the send queue reaches them */
static enum ib_wc_status siw_stx_local_op(struct siw_stream *s)
{
	struct siw_wqe *w = &s->wqe;
	struct siw_qp *qp = s->qp;
	int rv;

	if (w->opcode == SIW_OP_REG_MR)
		rv = siw_mem_fastreg(to_siw_mr(w->mr), qp->base.pd, w->rkey,
				     w->access);
	else
		rv = siw_mem_invalidate(qp->qdev->mem, qp->base.pd, w->inval_stag,
					false);
	return rv ? IB_WC_LOC_PROT_ERR : IB_WC_SUCCESS;
}

/* Start the next send work request. Returns 1, 0 (none ready) or -errno */
static int siw_stx_start_wqe(struct siw_stream *s)
{
	struct siw_engine_msg msg = { };
	struct siw_wqe *w = &s->wqe;
	unsigned long flags;
	int rv;

	rv = siw_sq_peek(s->qp, s->sq_next - s->sq_head, w);
	if (rv == -ENOENT)
		return 0;
	if (!rv && (w->flags & SIW_WQE_READ_FENCE) && !siw_stx_orq_empty(s))
		return 0;
	s->wqe_seq = s->sq_next++;
	s->wqe_bytes = 0;
	if (rv) {
		siw_stx_wqe_done(s, IB_WC_LOC_QP_OP_ERR);
		return -EINVAL;
	}
	switch (w->opcode) {
	case SIW_OP_REG_MR:
	case SIW_OP_INVAL_STAG:
		siw_stx_wqe_done(s, siw_stx_local_op(s));
		return 1;
	case SIW_OP_READ:
	case SIW_OP_READ_LOCAL_INV:
		if (siw_stx_read_check(s)) {
			siw_stx_wqe_done(s, IB_WC_LOC_PROT_ERR);
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
		msg.opcode = siw_stx_send_opcode(w);
		msg.inval_stag = w->inval_stag;
		break;
	}
	/* one FPDU's worth, to be copied: framed whole now, in one pass */
	s->tx_zc = false;
	rv = siw_stx_small(s, &msg);
	if (rv > 0) {
		s->tx_kind = SIW_TX_WQE;
		return 1;
	}
	if (rv) {
		siw_stx_wqe_done(s, IB_WC_LOC_PROT_ERR);
		return rv;
	}
	rv = siw_stx_wqe_sgl(s, &msg.sgl);
	s->tx_zc = !(w->flags & SIW_WQE_INLINE) &&
		   siw_stx_zc_ok(s, s->wqe_bytes);
	if (s->tx_zc && !rv) {
		s->tx_ubuf = siw_zc_start(s, s->wqe_seq);
		s->tx_zc = s->tx_ubuf;
	}
	if (!rv)
		rv = siw_engine_tx_msg(&s->tx, &msg);
	if (rv) {
		siw_stx_put_msg(s);
		siw_stx_wqe_done(s, IB_WC_LOC_PROT_ERR);
		return rv;
	}
	s->tx_kind = SIW_TX_WQE;
	return 1;
}

/*
 * The source region of the Read Response in progress was invalidated or
 * deregistered since the Read Request arrived: the response ends with a
 * Terminate (RDMAP, remote protection error, invalid STag), which the
 * loop sends next. Returns 1.
 */
int siw_stx_rresp_revoked(struct siw_stream *s)
{
	struct siw_rdmap_term_info ti = {
		.err = SIW_DDP_ERR_RDMAP_INVALID_STAG,
	};

	siw_stream_fail(s, ti.err, &ti);
	return 1;
}

/* Answer the oldest inbound Read Request. Returns 1 or 0 (none) */
static int siw_stx_start_rresp(struct siw_stream *s)
{
	struct siw_engine_msg msg = { .opcode = SIW_RDMAP_READ_RESP };
	struct siw_rdmap_rreq *rr = &s->rresp.rr;
	unsigned long flags;
	u32 n = 0;
	int rv;

	/* the receive path kicks the work after it queued a Read Request */
	if (s->irq_get == READ_ONCE(s->irq_put))
		return 0;
	spin_lock_irqsave(&s->lock, flags);
	if (s->irq_get == s->irq_put) {
		spin_unlock_irqrestore(&s->lock, flags);
		return 0;
	}
	s->rresp = s->irq[s->irq_get++ % s->ird];
	spin_unlock_irqrestore(&s->lock, flags);
	s->tx_kind = SIW_TX_RRESP;

	rv = siw_stx_seg_reserve(s, siw_stx_range_segs(rr->len));
	if (!rv && rr->len)
		rv = siw_stx_add_range(s, s->rresp.mr, s->rresp.gen,
				       rr->src_to, rr->len, true, &n);
	if (rv == -EACCES)
		return siw_stx_rresp_revoked(s);
	if (rv)
		return rv;
	msg.stag = rr->sink_stag;
	msg.to = rr->sink_to;
	msg.sgl = (struct siw_engine_sgl){ .seg = s->seg, .nseg = n };
	/*
	 * Copied, never by reference: no completion tells when TCP let go
	 * of the pages, and an invalidation of the source must leave the
	 * peer nothing it could read after (security.rst)
	 */
	s->tx_zc = false;
	return siw_engine_tx_msg(&s->tx, &msg) ? -EPROTO : 1;
}

static int siw_stx_start_rtr(struct siw_stream *s)
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
		siw_stx_orq_push(s, &rr, true, true);
	s->tx_kind = SIW_TX_RTR;
	return 1;
}

static int siw_stx_start_term(struct siw_stream *s)
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
	siw_stx_put_msg(s);
	s->tx_kind = SIW_TX_TERM;
	s->tx_term_err = ti.err;
	return siw_engine_tx_msg(&s->tx, &msg) ? -EPROTO : 1;
}

/* What to send next: 1 with a message started, 0 if nothing, -errno */
int siw_stx_start(struct siw_stream *s)
{
	unsigned long flags;
	bool term, rtr;
	int rv;

	/* whoever sets either kicks the work afterwards */
	if (READ_ONCE(s->term_pending) || READ_ONCE(s->rtr_pending)) {
		spin_lock_irqsave(&s->lock, flags);
		term = s->term_pending;
		rtr = s->rtr_pending && !s->stopped;
		s->term_pending = false;
		s->rtr_pending = false;
		spin_unlock_irqrestore(&s->lock, flags);
		if (term)
			return siw_stx_start_term(s);
		if (rtr)
			return siw_stx_start_rtr(s);
	}
	if (s->tx_kind == SIW_TX_WQE)
		return siw_stx_read_next(s);
	if (siw_stream_stopped(s) || READ_ONCE(s->qp->state) != SIW_QP_RTS)
		return 0;
	rv = siw_stx_start_rresp(s);
	if (!rv)
		rv = siw_stx_start_wqe(s);
	return rv;
}
