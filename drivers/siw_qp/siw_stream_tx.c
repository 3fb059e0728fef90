// SPDX-License-Identifier: GPL-2.0
/*
 * Transmit: the QP's TX work item picks the next message (the Terminate,
 * the RTR, a Read Response, the next send work request, in that order),
 * has the transmit engine (siw_fpdu_tx.c) cut it into FPDUs and hands
 * them to TCP, up to SIW_TX_BATCH_FPDUS FPDUs of a message at a time,
 * their copied pieces in one sendmsg.
 *
 * The socket is never waited for: a full send buffer ends the work item,
 * and the socket's write-space callback queues it again. Send work
 * requests complete in order once they are on the socket (a READ once
 * its last response arrived), from this work item only.
 *
 * Payload is described page by page, each page taken with a reference
 * of the stream's while the region was valid (siw_mr_get_page()) and
 * held until the message is on the socket: a region revoked meanwhile
 * cannot have its pages freed under the sender. A Read Response checks
 * its source again before each FPDU and ends in a Terminate once the
 * region was invalidated or deregistered; its octets are always copied.
 * With zcopy_tx, a send work request of at least SIW_TX_ZC_MIN octets,
 * on a connection whose MSS is at least a page, hands its pages to
 * TCP by reference (MSG_ZEROCOPY with a notification of ours,
 * siw_stream_zc.c) and completes only once no skb holds them any more,
 * so that the consumer never rewrites a buffer TCP or a local receiver
 * may still read. Smaller messages, slab pages (which must not be
 * spliced) and the framing (headers, markers, pad and CRC, from the
 * stream's own buffer) are copied, and complete once on the socket.
 * With CRCs on, such FPDUs are staged instead: the engine copies each
 * whole into the stream's own pages, summing the payload as it copies,
 * and TCP takes those pages by reference (siw_stx_stage_start()).
 *
 * This file is the push loop; message start, the stage ring, and retire
 * and completion have files of their own (siw_stream_tx.h).
 */
#include <linux/bvec.h>
#include <linux/highmem.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/sizes.h>
#include <linux/uio.h>
#include <kunit/visibility.h>
#include <net/tcp.h>

#include "siw_compat.h"
#include "siw_mem/siw_mem.h"
#include "siw_stats.h"
#include "siw_stream_tx.h"

/* FPDUs one run of the work item sends before it lets others run */
#define SIW_TX_BUDGET	128

/*
 * FPDUs of one message pushed under one hold of the socket's lock before
 * TCP's backlog is processed
 */
#define SIW_TX_HOLD_FPDUS	16

/* A message this short, or shorter, may share a segment with the last */
#define SIW_TX_PACK_MAX		512
/* framing octets an FPDU of such a message adds, at most */
#define SIW_TX_PACK_FRAMING	64

/* Octets of @w's message, or U32_MAX if it is not a Send or a Write */
static u32 siw_stx_msg_len(const struct siw_wqe *w)
{
	u32 len = 0;
	int i;

	switch (w->opcode) {
	case SIW_OP_SEND:
	case SIW_OP_SEND_WITH_IMM:
	case SIW_OP_SEND_REMOTE_INV:
	case SIW_OP_WRITE:
		break;
	default:
		return U32_MAX;
	}
	if (w->flags & SIW_WQE_INLINE)
		return w->inline_len;
	for (i = 0; i < w->num_sge && i < SIW_DEV_MAX_SGE; i++)
		len += w->sge[i].length;
	return len;
}

/*
 * May the message whose last FPDU is pushed now go with MSG_MORE, for
 * the next one to share its segment? Only if the next is a short Send
 * or Write, already posted, and both fit in what is left of the
 * segment, so that every FPDU lies whole in one segment (RFC 5044
 * section 8). A message that does not fit starts a segment of its own;
 * a run that ends with a message held back pushes it (siw_stx_uncork()).
 * The socket is held.
 */
static bool siw_stx_pack_fits(struct siw_stream *s)
{
	struct siw_wqe *next = &s->wqe_next;
	u32 len, mss;

	/* what goes now leaves room for a short message: else no peek */
	mss = READ_ONCE(tcp_sk(s->sock->sk)->mss_cache);
	len = s->tx_pack_octets + s->txd.wire_len - s->tx_off +
	      SIW_TX_PACK_FRAMING;
	if (len >= mss)
		return false;
	if (READ_ONCE(s->irq_get) != READ_ONCE(s->irq_put) ||
	    siw_sq_peek(s->qp, s->sq_next - s->sq_head, next))
		return false;
	return siw_stx_msg_len(next) <= min_t(u32, SIW_TX_PACK_MAX, mss - len);
}

/**
 * siw_stx_release() - the stream stops: drop what transmit holds
 * @s: the stream; its TX work is idle and will not run again
 *
 * Work requests in progress stay on the send queue, for the flush.
 *
 * Context: process.
 */
void siw_stx_release(struct siw_stream *s)
{
	unsigned long flags;
	struct siw_mr *mr;

	siw_stx_put_msg(s);
	siw_stx_stage_put(s);
	s->tx_kind = SIW_TX_IDLE;
	s->tx_fpdu = false;
	s->tx_cut_err = 0;
	spin_lock_irqsave(&s->lock, flags);
	while (s->irq_get != s->irq_put) {
		mr = s->irq[s->irq_get++ % s->ird].mr;
		if (mr)
			siw_mr_put(mr);
	}
	spin_unlock_irqrestore(&s->lock, flags);
}

static void siw_stx_bvec(const struct siw_engine_seg *p, u32 skip,
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

/* One call of siw_stx_push() handed TCP these octets */
static void siw_stx_count_octets(struct siw_stream *s, u32 zc, u32 copied,
				 u32 staged)
{
	struct siw_stats __percpu *st = s->qp->qdev->stats;

	siw_stats_add(st, SIW_STAT_TX_OCTETS, zc + copied + staged);
	if (zc)
		siw_stats_add(st, SIW_STAT_TX_ZCOPY_OCTETS, zc);
	if (copied)
		siw_stats_add(st, SIW_STAT_TX_COPY_OCTETS, copied);
	if (staged)
		siw_stats_add(st, SIW_STAT_TX_STAGED_OCTETS, staged);
}

/*
 * A staged piece from @skip on as page vectors at @bv[*n], one per page
 * it touches, a vector extended where the octets go on in its page
 */
static u32 siw_stx_stage_bvecs(const struct siw_engine_seg *p, u32 skip,
			       struct bio_vec *bv, unsigned int *n)
{
	const u8 *a = (const u8 *)p->addr + skip;
	u32 left = p->len - skip, c;
	struct bio_vec *last;

	while (left) {
		c = min_t(u32, left, PAGE_SIZE - offset_in_page(a));
		last = *n ? &bv[*n - 1] : NULL;
		if (last && last->bv_page == virt_to_page(a) &&
		    last->bv_offset + last->bv_len == offset_in_page(a))
			last->bv_len += c;
		else
			bvec_set_page(&bv[(*n)++], virt_to_page(a), c,
				      offset_in_page(a));
		a += c;
		left -= c;
	}
	return p->len - skip;
}

/* Page vectors a staged piece may need */
static unsigned int siw_stx_stage_nbv(const struct siw_engine_seg *p)
{
	return (p->len >> PAGE_SHIFT) + 2;
}

/*
 * @n page vectors, @len octets, to TCP by reference with the message's
 * notification (siw_stream_zc.c): every skb that takes a page holds it,
 * and TCP copies instead where the route cannot gather. Returns the
 * octets queued, or -errno if none.
 */
static int siw_stx_sendmsg_zc(struct siw_stream *s, struct bio_vec *bv,
			      unsigned int n, u32 len, int flags)
{
	struct msghdr msg = {
		.msg_flags = flags | MSG_ZEROCOPY,
		.msg_ubuf = s->tx_ubuf,
	};

	iov_iter_bvec(&msg.msg_iter, WRITE, bv, n, len);
	return tcp_sendmsg_locked(s->sock->sk, &msg, len);
}

/* @n page vectors, @len octets, for TCP to copy; returns as TCP does */
static int siw_stx_sendmsg_copy(struct sock *sk, struct bio_vec *bv,
				unsigned int n, u32 len, int flags)
{
	struct msghdr msg = { .msg_flags = flags };

	iov_iter_bvec(&msg.msg_iter, WRITE, bv, n, len);
	return tcp_sendmsg_locked(sk, &msg, len);
}

/* May this piece go to TCP by reference? */
static bool siw_stx_piece_zc(const struct siw_stream *s,
			     const struct siw_engine_seg *p)
{
	return s->tx_ubuf && p->kind == SIW_ENGINE_SEG_PAGE &&
	       sendpage_ok(p->page);
}

/*
 * How a push ended, @rv what TCP last returned: an error other than
 * -EAGAIN as it is, -EAGAIN while part of the FPDUs is still to go, 0
 * (and the FPDUs counted) once all of them went.
 */
static int siw_stx_push_end(struct siw_stream *s, int rv)
{
	if (rv < 0 && rv != -EAGAIN)
		return rv;
	if (s->tx_off < s->txd.wire_len)
		return -EAGAIN;
	siw_stats_add(s->qp->qdev->stats, SIW_STAT_TX_FPDUS, s->tx_nfpdu);
	return 0;
}

/*
 * The rest of one staged FPDU to TCP: what a small message framed at
 * its start (siw_stx_small()) or a batch of one FPDU leaves, the
 * general loop below without its walk over the pieces. Returns as
 * siw_stx_push().
 */
static int siw_stx_push_staged(struct siw_stream *s)
{
	struct siw_engine_txd *d = &s->txd;
	const u8 *a = (const u8 *)d->piece[0].addr + s->tx_off;
	u32 total = d->piece[0].len - s->tx_off;
	unsigned int n = 1;
	int rv, more;

	/* a small FPDU mostly lies in one page of the stage */
	if (offset_in_page(a) + total <= PAGE_SIZE) {
		bvec_set_page(&s->tx_bv[0], virt_to_page(a), total,
			      offset_in_page(a));
	} else {
		n = 0;
		total = siw_stx_stage_bvecs(&d->piece[0], s->tx_off,
					    s->tx_bv, &n);
	}
	more = (!d->last || s->tx_more) ? MSG_MORE : 0;
	rv = siw_tcp_splice_bvec_locked(s->sock->sk, s->tx_bv, n, total,
					MSG_DONTWAIT | MSG_NOSIGNAL | more);
	if (rv > 0) {
		s->tx_off += rv;
		siw_stx_count_octets(s, 0, 0, rv);
	}
	return siw_stx_push_end(s, rv);
}

/*
 * Hand the rest of the FPDUs in @s->txd to TCP, the socket's lock held:
 * runs of copied pieces in one sendmsg each, pages by reference one at
 * a time. Returns 0 once all of it went, -EAGAIN if the send buffer
 * filled, or another -errno.
 */
static int siw_stx_push(struct siw_stream *s)
{
	const int base = MSG_DONTWAIT | MSG_NOSIGNAL;
	struct bio_vec *bv = s->tx_bv;
	struct siw_engine_txd *d = &s->txd;
	struct sock *sk = s->sock->sk;
	const struct siw_engine_seg *p;
	u32 skip = s->tx_off, total;
	u32 zc = 0, copied = 0, staged = 0;
	unsigned int i = 0, n;
	int rv = 0, more;

	sock_owned_by_me(sk);
	if (d->n == 1 && d->piece[0].kind == SIW_ENGINE_SEG_STAGED)
		return siw_stx_push_staged(s);
	/* skip what went already */
	while (i < d->n && skip >= d->piece[i].len)
		skip -= d->piece[i++].len;

	while (i < d->n) {
		p = &d->piece[i];
		if (p->kind == SIW_ENGINE_SEG_STAGED) {
			/* a run of staged FPDUs: the stream's pages */
			n = 0;
			total = 0;
			do {
				total += siw_stx_stage_bvecs(&d->piece[i++], skip,
							    bv, &n);
				skip = 0;
			} while (i < d->n &&
				 d->piece[i].kind == SIW_ENGINE_SEG_STAGED &&
				 n + siw_stx_stage_nbv(&d->piece[i]) <=
				 ARRAY_SIZE(s->tx_bv));
			more = (i < d->n || !d->last || s->tx_more) ?
			       MSG_MORE : 0;
			rv = siw_tcp_splice_bvec_locked(sk, bv, n, total,
							base | more);
			if (rv > 0) {
				s->tx_off += rv;
				staged += rv;
			}
			if (rv < 0 || rv < total)
				break;
			continue;
		}
		if (siw_stx_piece_zc(s, p)) {
			/* a run of pages by reference, with the notification */
			n = 0;
			total = 0;
			while (i < d->n && siw_stx_piece_zc(s, &d->piece[i])) {
				siw_stx_bvec(&d->piece[i++], skip, &bv[n]);
				total += bv[n++].bv_len;
				skip = 0;
			}
			more = (i < d->n || !d->last || s->tx_more) ?
			       MSG_MORE : 0;
			rv = siw_stx_sendmsg_zc(s, bv, n, total, base | more);
			if (rv > 0) {
				s->tx_off += rv;
				zc += rv;
			}
			if (rv < 0 || rv < total)
				break;
			continue;
		}
		/* a run of pieces to copy */
		n = 0;
		total = 0;
		while (i < d->n && !siw_stx_piece_zc(s, &d->piece[i]) &&
		       d->piece[i].kind != SIW_ENGINE_SEG_STAGED) {
			siw_stx_bvec(&d->piece[i++], skip, &bv[n]);
			total += bv[n++].bv_len;
			skip = 0;
		}
		/* more of the same message, or the next one, follows */
		more = (i < d->n || !d->last || s->tx_more) ? MSG_MORE : 0;
		rv = siw_stx_sendmsg_copy(sk, bv, n, total, base | more);
		if (rv > 0) {
			s->tx_off += rv;
			copied += rv;
		}
		if (rv < 0 || rv < total)
			break;
	}
	siw_stx_count_octets(s, zc, copied, staged);
	return siw_stx_push_end(s, rv);
}

/*
 * The send buffer is full: the write-space callback resumes once there
 * is room. Returns true if there is room already.
 */
static bool siw_stx_block(struct siw_stream *s)
{
	WRITE_ONCE(s->tx_blocked, true);
	siw_stats_add(s->qp->qdev->stats, SIW_STAT_TX_STALLS, 1);
	/* pairs with the barrier of tcp_check_space() */
	smp_mb();
	return sk_stream_is_writeable(s->sock->sk);
}

/* The socket's write-space callback: resume a run the full buffer ended */
void siw_sk_write_space(struct sock *sk)
{
	struct siw_stream *s;

	read_lock_bh(&sk->sk_callback_lock);
	s = sk->sk_user_data;
	if (s && READ_ONCE(s->tx_blocked) && sk_stream_is_writeable(sk)) {
		clear_bit(SOCK_NOSPACE, &sk->sk_socket->flags);
		siw_stream_kick(s);
	}
	read_unlock_bh(&sk->sk_callback_lock);
}

/*
 * Take the socket's lock for a run of FPDUs, unless held already; *@held
 * counts the FPDUs pushed under this hold, plus one (0: not held)
 */
static void siw_stx_sk_hold(struct siw_stream *s, unsigned int *held)
{
	if (*held)
		return;
	lock_sock(s->sock->sk);
	*held = 1;
}

/* Let go of the socket: TCP processes what arrived meanwhile */
static void siw_stx_sk_drop(struct siw_stream *s, unsigned int *held)
{
	if (*held)
		release_sock(s->sock->sk);
	*held = 0;
}

/* The FPDU is cut from a Read Response's source: is it still granted? */
static bool siw_stx_rresp_usable(const struct siw_stream *s)
{
	return s->tx_kind != SIW_TX_RRESP || !s->rresp.mr ||
	       siw_mr_usable(s->rresp.mr, s->rresp.gen);
}

/*
 * Each FPDU fits the segment TCP sends now: a
 * lower path MTU from ICMP changes mss_cache at once, a device's new MTU
 * at TCP's next send, so the FPDU after that one follows it
 */
static void siw_stx_follow_mss(struct siw_stream *s)
{
	siw_engine_tx_set_emss(&s->tx, siw_stx_fpdu_room(s));
}

/*
 * The engine frames the next FPDU in the buffer that holds the framing
 * octets of the last one it cut (pieces from @first on): copy them to
 * the batch's own buffer. Returns false if they do not fit.
 */
static bool siw_stx_keep_frame(struct siw_stream *s, unsigned int first)
{
	struct siw_engine_txd *d = &s->txd;
	struct siw_engine_seg *p;
	u32 need = 0;
	unsigned int i;

	for (i = first; i < d->n; i++)
		if (d->piece[i].kind == SIW_ENGINE_SEG_OWN)
			need += d->piece[i].len;
	if (need > sizeof(s->tx_frame) - s->tx_frame_used)
		return false;
	for (i = first; i < d->n; i++) {
		p = &d->piece[i];
		if (p->kind != SIW_ENGINE_SEG_OWN)
			continue;
		memcpy(s->tx_frame + s->tx_frame_used, p->addr, p->len);
		p->addr = s->tx_frame + s->tx_frame_used;
		s->tx_frame_used += p->len;
	}
	return true;
}

/*
 * Cut one more FPDU of the message into the batch in @s->txd, whose
 * last FPDU starts at piece *@first. Returns true if it did. The batch
 * ends with the message, with a Terminate due, with a Read Response's
 * source revoked (the next FPDU fails on it), or when it is full; an
 * error of the engine is kept for after the batch went out.
 */
static bool siw_stx_cut_more(struct siw_stream *s, unsigned int *first)
{
	struct siw_engine_txd *d = &s->txd;
	struct siw_engine_txd more = {
		.piece = d->piece + d->n,
		.max = SIW_ENGINE_TX_PIECES,
		.stage = d->stage,
	};
	int rv;

	if (d->last || d->n + SIW_ENGINE_TX_PIECES > ARRAY_SIZE(s->piece) ||
	    READ_ONCE(s->term_pending) || !siw_stx_rresp_usable(s) ||
	    !siw_stx_keep_frame(s, *first))
		return false;
	/* the stage is full: the next batch takes the next stage */
	if (d->stage && d->stage->size - d->stage->used < siw_stx_stage_need(s))
		return false;
	siw_stx_follow_mss(s);
	rv = siw_engine_tx_next(&s->tx, &more);
	if (rv <= 0) {
		s->tx_cut_err = rv ? rv : -EPROTO;
		return false;
	}
	*first = d->n;
	d->n += more.n;
	d->wire_len += more.wire_len;
	d->payload += more.payload;
	d->last = more.last;
	s->tx_nfpdu++;
	return true;
}

/*
 * Cut the next FPDUs of the message in progress, up to @batch of them,
 * or start a message; a message starts with the socket let go (*@held,
 * see siw_stx_sk_hold())
 */
static int siw_stx_next_fpdu(struct siw_stream *s, unsigned int *held,
			     unsigned int batch)
{
	unsigned int first = 0;
	int rv = s->tx_cut_err;

	/* the engine failed behind a batch, which went out meanwhile */
	if (rv) {
		s->tx_cut_err = 0;
		return rv;
	}
	if (!siw_engine_tx_busy(&s->tx) ||
	    (READ_ONCE(s->term_pending) && s->tx_kind != SIW_TX_TERM)) {
		siw_stx_sk_drop(s, held);
		rv = siw_stx_start(s);
		if (rv <= 0)
			return rv;
		if (s->tx_fpdu)
			return 1;	/* framed whole at its start */
		if (!siw_engine_tx_busy(&s->tx))
			return 1;	/* a local operation: nothing to send */
	}
	/* each FPDU of a Read Response finds its source still granted */
	if (!siw_stx_rresp_usable(s))
		return siw_stx_rresp_revoked(s);
	siw_stx_follow_mss(s);
	s->txd.piece = s->piece;
	s->txd.max = SIW_ENGINE_TX_PIECES;
	s->txd.stage = siw_stx_stage_start(s);
	rv = siw_engine_tx_next(&s->tx, &s->txd);
	if (rv <= 0)
		return rv ? rv : -EPROTO;
	s->tx_off = 0;
	s->tx_fpdu = true;
	s->tx_nfpdu = 1;
	s->tx_frame_used = 0;
	while (s->tx_nfpdu < batch && siw_stx_cut_more(s, &first))
		;
	return 1;
}

/* A local error on a work request: it completed in error, stop the QP */
static void siw_stx_local_error(struct siw_stream *s, int rv)
{
	siw_stx_retire(s);
	if (rv == -EAGAIN || rv == -EPIPE || rv == -ECONNRESET) {
		siw_stream_closed(s, rv);
		return;
	}
	siw_stream_fail(s, SIW_DDP_ERR_RDMAP_CATASTROPHIC, NULL);
}

/*
 * The FPDU just pushed was not the message's last: the next one is cut
 * and pushed without letting go of the socket, so a message costs one
 * lock_sock() and not one per FPDU. Every SIW_TX_HOLD_FPDUS FPDUs TCP
 * processes the acknowledgments that queued up meanwhile (they free
 * send buffer space and release pages sent by reference).
 */
static void siw_stx_sk_next(struct siw_stream *s, unsigned int *held)
{
	*held += s->tx_nfpdu;
	if (*held > SIW_TX_HOLD_FPDUS) {
		sk_flush_backlog(s->sock->sk);
		*held = 1;
	}
}

/*
 * A message's last FPDU went with MSG_MORE and no message followed it
 * in the run: have TCP send the part segment it holds. The socket is
 * not held.
 */
static void siw_stx_uncork(struct siw_stream *s)
{
	s->tx_corked = false;
	tcp_sock_set_cork(s->sock->sk, false);
}

/*
 * Send up to @budget steps (a work request started, an FPDU cut or
 * pushed), cutting up to @batch FPDUs at a time, @tx_mutex held; stop
 * after the first whole message if @one_msg; queue the work for what is
 * left. A short message the run finds posted behind the one it pushes
 * shares that one's last segment where both fit (siw_stx_pack_fits()):
 * TCP gets the first with MSG_MORE, no timer holds anything.
 */
static void siw_stx_run_steps(struct siw_stream *s, int budget,
			      unsigned int batch, bool one_msg)
{
	unsigned int held = 0;
	int rv = 0;

	lockdep_assert_held(&s->tx_mutex);
	WRITE_ONCE(s->tx_blocked, false);
	while (budget--) {
		if (siw_stream_stopped(s) && !READ_ONCE(s->term_pending) &&
		    s->tx_kind != SIW_TX_TERM)
			break;
		if (s->tx_fpdu) {
			siw_stx_sk_hold(s, &held);
			s->tx_more = !one_msg && budget && s->txd.last &&
				     siw_stx_pack_fits(s);
			s->tx_pack_octets = s->tx_more ? s->tx_pack_octets +
					    s->txd.wire_len - s->tx_off : 0;
			rv = siw_stx_push(s);
			s->tx_corked = s->tx_more && !rv;
			s->tx_more = false;
			if (rv)
				siw_stx_sk_drop(s, &held);
			if (rv == -EAGAIN) {
				if (siw_stx_retire(s))
					siw_stream_fail(s, SIW_DDP_ERR_RDMAP_CATASTROPHIC,
							NULL);
				if (siw_stx_block(s))
					siw_stream_kick(s);
				return;
			}
			if (rv) {
				siw_stream_closed(s, rv);
				return;
			}
			s->tx_fpdu = false;
			if (s->txd.last) {
				/*
				 * A Read Response's IRD slot is free before any
				 * octet that follows it in the peer's stream can
				 * be received: the peer may post its next Read
				 * Request as soon as this one arrives
				 */
				if (s->tx_kind == SIW_TX_RRESP)
					siw_engine_rx_ird_put(&s->rx);
				siw_stx_sk_drop(s, &held);
				siw_stx_msg_sent(s);
				if (one_msg)
					break;
			} else {
				siw_stx_sk_next(s, &held);
			}
			continue;
		}
		rv = siw_stx_next_fpdu(s, &held, batch);
		if (rv <= 0)
			siw_stx_sk_drop(s, &held);
		if (rv < 0) {
			siw_stx_local_error(s, rv);
			return;
		}
		if (!rv)
			break;
		/* a batch costs one step for each FPDU it holds */
		if (s->tx_fpdu)
			budget -= min_t(int, budget, s->tx_nfpdu - 1);
	}
	siw_stx_sk_drop(s, &held);
	if (siw_stx_retire(s))
		siw_stream_fail(s, SIW_DDP_ERR_RDMAP_CATASTROPHIC, NULL);
	/* pairs with the poster's barrier: see entries posted meanwhile */
	smp_mb();
	if (budget < 0)
		siw_stream_kick(s);
	else if (!siw_stream_stopped(s) && s->tx_kind == SIW_TX_IDLE &&
		 siw_sq_posted(s->qp, s->sq_next - s->sq_head) &&
		 !siw_sq_peek(s->qp, s->sq_next - s->sq_head, &s->wqe) &&
		 READ_ONCE(s->qp->state) == SIW_QP_RTS &&
		 !(s->wqe.flags & SIW_WQE_READ_FENCE) && !siw_stx_orq_full(s))
		siw_stream_kick(s);
}

/* siw_stx_run_steps(), then whatever TCP still holds for a next message goes */
static void siw_stx_run(struct siw_stream *s, int budget, unsigned int batch,
			bool one_msg)
{
	siw_stx_run_steps(s, budget, batch, one_msg);
	s->tx_pack_octets = 0;
	if (s->tx_corked)
		siw_stx_uncork(s);
}

/**
 * siw_stx_flush_term() - the stream stops: send the Terminate still due
 * @s: the stream, its TX work cancelled, @s->tx_mutex held
 *
 * A local error queued a Terminate that the work had no time to send
 * before the QP was detached: send it now, after the FPDU under way, as
 * far as the socket takes it without waiting. Nothing else is sent and
 * nothing completes here; what the socket does not take is lost with
 * the connection.
 *
 * Context: process.
 */
void siw_stx_flush_term(struct siw_stream *s)
{
	unsigned int held = 0;
	int steps = 8, rv;

	lockdep_assert_held(&s->tx_mutex);
	while (steps-- && (READ_ONCE(s->term_pending) ||
			   s->tx_kind == SIW_TX_TERM)) {
		if (s->tx_fpdu) {
			lock_sock(s->sock->sk);
			rv = siw_stx_push(s);
			release_sock(s->sock->sk);
			if (rv)
				return;
			s->tx_fpdu = false;
			if (s->tx_kind == SIW_TX_TERM && s->txd.last) {
				siw_stx_term_sent(s);
				return;
			}
			continue;
		}
		if (siw_stx_next_fpdu(s, &held, 1) <= 0)
			return;
	}
}

/**
 * siw_stx_work() - the transmit work item of a stream
 * @w: &struct siw_stream.tx_work
 *
 * Context: process (the siw_tx workqueue); never waits for the socket,
 * only for a doorbell's siw_stx_direct() to finish.
 */
void siw_stx_work(struct work_struct *w)
{
	struct siw_stream *s = container_of(w, struct siw_stream, tx_work);

	mutex_lock(&s->tx_mutex);
	siw_stx_run(s, SIW_TX_BUDGET, SIW_TX_BATCH_FPDUS, false);
	mutex_unlock(&s->tx_mutex);
}
EXPORT_SYMBOL_IF_KUNIT(siw_stx_work);

/**
 * siw_stx_direct() - a process rang its doorbell: send from its thread
 * @s: the stream, with @s->tx_mutex taken by siw_qp_sq_run()
 *
 * If the stream is idle, the doorbell sends the next message from the
 * process's own thread, in batches like the work's, without waking the
 * work item: that saves a context switch per message on the latency
 * path and a hand-off in the middle of a message of a few FPDUs. The
 * rest of a longer run, and everything while a message is under way,
 * are left to the work. Releases @s->tx_mutex.
 *
 * Context: process, may sleep; no lock held but @s->tx_mutex.
 */
void siw_stx_direct(struct siw_stream *s)
{
	if (s->tx_fpdu || s->tx_kind != SIW_TX_IDLE)
		siw_stream_kick(s);
	else
		siw_stx_run(s, SIW_TX_BUDGET, SIW_TX_BATCH_FPDUS, true);
	/*
	 * mutex_unlock() may still touch the mutex after the detach that
	 * waits for it took it; the stream is freed only after a grace
	 * period (siw_stream_free())
	 */
	rcu_read_lock();
	mutex_unlock(&s->tx_mutex);
	rcu_read_unlock();
}
