// SPDX-License-Identifier: GPL-2.0
/*
 * A QP takes its connected stream from the CM and gives it back: the QP
 * side of siw_cm_qp.h, the socket callbacks hooked and unhooked (the
 * callbacks themselves are siw_stream_rx.c's, with the receive work, and
 * siw_stream_tx.c's, write space), and the QP hooks of siw_qp.h (kick,
 * stop, close).
 *
 * A stream lives from siw_qp_cm_attach() to siw_qp_cm_detach(). While it
 * lives, @qp->stream points at it (under the QP's state_lock) and the
 * socket's sk_user_data does (under sk_callback_lock); detach clears both
 * and then stops the stream (siw_stream_stop(): receive, then transmit),
 * so nothing touches a stream after it is freed.
 */
#include <kunit/visibility.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <net/tcp.h>

#include "siw_stats.h"
#include "siw_stream.h"
#include "siw_compat.h"
#include "siw_fault.h"
#include "siw_trace.h"

static struct workqueue_struct *siw_stx_wq;

/**
 * siw_stream_init() - module load: the transmit and receive workqueues
 *
 * The transmit work of a stream runs on the CPU that queued it (the
 * poster's, or the receive path's), whose cache holds what it sends.
 *
 * Returns: 0 or -ENOMEM.
 */
int siw_stream_init(void)
{
	/* NFS and iSER send from memory reclaim: the queue must make progress */
	siw_stx_wq = alloc_workqueue("siw_tx",
				     WQ_MEM_RECLAIM | WQ_HIGHPRI | WQ_PERCPU, 0);
	if (!siw_stx_wq)
		return -ENOMEM;
	if (siw_srx_init()) {
		destroy_workqueue(siw_stx_wq);
		return -ENOMEM;
	}
	return 0;
}

/**
 * siw_stream_exit() - module unload, after every device is gone
 */
void siw_stream_exit(void)
{
	siw_zc_exit();
	siw_srx_exit();
	destroy_workqueue(siw_stx_wq);
}

/**
 * siw_stream_kick() - make sure the transmit work runs
 * @s: the stream
 *
 * Not once the stream is torn down. That test is unlocked: whoever may
 * still kick when the teardown begins is waited for by it
 * (siw_stream_stop()), or kicks with siw_stream_kick_locked().
 *
 * Context: any; never sleeps.
 */
void siw_stream_kick(struct siw_stream *s)
{
	if (!READ_ONCE(s->torn))
		queue_work(siw_stx_wq, &s->tx_work);
}

/**
 * siw_stream_kick_locked() - siw_stream_kick() from under @s->lock
 * @s: the stream
 *
 * The receive path kicks so: it may be inside an skb when the teardown
 * begins, and the kick is either before the teardown's @torn, and so
 * before it cancels the work, or not made.
 *
 * Context: any; @s->lock held.
 */
void siw_stream_kick_locked(struct siw_stream *s)
{
	lockdep_assert_held(&s->lock);
	if (!s->torn)
		queue_work(siw_stx_wq, &s->tx_work);
}

/**
 * siw_stream_closed() - tell the CM, once, that the stream ended
 * @s: the stream
 * @err: 0 for the peer's FIN, -errno otherwise (see siw_cm_llp_closed())
 *
 * Context: any.
 */
void siw_stream_closed(struct siw_stream *s, int err)
{
	unsigned long flags;
	bool tell, markers;

	spin_lock_irqsave(&s->lock, flags);
	tell = !s->closed_told;
	s->closed_told = true;
	s->stopped = true;
	spin_unlock_irqrestore(&s->lock, flags);
	if (!tell)
		return;
	/*
	 * An initiator that cannot take what our MPA Reply asked for can
	 * only close; one without marker support (upstream siw) does so
	 * for markers. Say so in the log, once per connection: nothing
	 * else would tell an administrator why.
	 */
	markers = !s->initiator && s->conn.rx_markers &&
		  !READ_ONCE(s->rx.mpa.pos);
	if (markers)
		pr_info_ratelimited("siw: QP %u: the initiator closed the connection without sending an FPDU; our MPA Reply asked for markers, which it may not support\n",
				    s->qp->base.qp_num);
	trace_siw_stream_lost(s->qp->base.qp_num, err, markers);
	siw_cm_llp_closed(s->cep, err);
}

static enum ib_event_type siw_stream_event(enum siw_ddp_err err)
{
	switch (siw_ddp_errinfo(err)->kind) {
	case SIW_DDP_KIND_ACCESS:
		return IB_EVENT_QP_ACCESS_ERR;
	case SIW_DDP_KIND_REQUEST:
		return IB_EVENT_QP_REQ_ERR;
	default:
		return IB_EVENT_QP_FATAL;
	}
}

/**
 * siw_stream_fail() - the stream hit an error: stop, Terminate, close
 * @s: the stream
 * @err: the error; the QP's consumer gets the matching async event
 * @ti: what the Terminate reports, or NULL to send none (the peer sent
 *	one, or the stream is gone)
 *
 * The QP moves to TERMINATE; the transmit work sends the Terminate as
 * the last FPDU and then tells the CM, which detaches the QP (ERROR,
 * flush) and closes the socket.
 *
 * Context: any.
 */
void siw_stream_fail(struct siw_stream *s, enum siw_ddp_err err,
		     const struct siw_rdmap_term_info *ti)
{
	const struct siw_ddp_errinfo *e = siw_ddp_errinfo(err);
	struct siw_qp *qp = s->qp;
	unsigned long flags;
	bool first;

	spin_lock_irqsave(&s->lock, flags);
	first = !s->stopped && !s->term_pending;
	if (first) {
		s->stopped = true;
		s->term_err = err;
		if (ti) {
			s->term_pending = true;
			s->term_seg_len = 0;
			if (ti->seg) {
				s->term_seg_len = min(ti->seg_avail,
						      sizeof(s->term_seg));
				memcpy(s->term_seg, ti->seg, s->term_seg_len);
			}
			s->term_ulpdu_len = ti->seg_len;
			s->term_len_valid = ti->seg_len_valid;
		}
	}
	spin_unlock_irqrestore(&s->lock, flags);
	if (!first)
		return;
	trace_siw_stream_fail(qp->base.qp_num, err, e->layer, e->etype,
			      e->ecode);
	if (!siw_qp_set_state(qp, SIW_QP_RTS, SIW_QP_TERMINATE))
		siw_qp_set_state(qp, SIW_QP_RTR, SIW_QP_TERMINATE);
	siw_qp_event(qp, siw_stream_event(err));
	if (ti)
		siw_stream_kick(s);
	else
		siw_stream_closed(s, -EPROTO);
}

static void siw_stream_hook(struct siw_stream *s)
{
	struct sock *sk = s->sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	s->saved_data_ready = sk->sk_data_ready;
	s->saved_write_space = sk->sk_write_space;
	s->saved_state_change = sk->sk_state_change;
	sk->sk_user_data = s;
	sk->sk_data_ready = siw_sk_data_ready;
	sk->sk_write_space = siw_sk_write_space;
	sk->sk_state_change = siw_sk_state_change;
	write_unlock_bh(&sk->sk_callback_lock);
}

/* Once this returns, no callback of ours runs on the socket */
static void siw_stream_unhook(struct siw_stream *s)
{
	struct sock *sk = s->sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = NULL;
	sk->sk_data_ready = s->saved_data_ready;
	sk->sk_write_space = s->saved_write_space;
	sk->sk_state_change = s->saved_state_change;
	write_unlock_bh(&sk->sk_callback_lock);
}

static void siw_stream_free(struct siw_stream *s)
{
	siw_zc_hub_detach(s);
	kvfree(s->seg);
	kvfree(s->seg_page);
	kfree(s->orq);
	kfree(s->irq);
	kfree(s->sq_rec);
	/* a doorbell may still be inside mutex_unlock(): see siw_stx_direct() */
	kfree_rcu(s, rcu);
}

static struct siw_stream *siw_stream_alloc(struct siw_qp *qp,
					   const struct siw_mpa_conn *conn)
{
	/* kmalloc, not vmalloc: framing octets in it are sent by page */
	struct siw_stream *s = SIW_FAULT(kzalloc(sizeof(*s), GFP_KERNEL));

	if (!s)
		return NULL;
	s->ord = max_t(u32, conn->ord, 1);
	s->ird = max_t(u32, conn->ird, 1);
	s->sq_mask = qp->sq.size - 1;
	s->seg_max = SIW_TX_SEGS;
	s->seg = kvmalloc_array(s->seg_max, sizeof(*s->seg), GFP_KERNEL);
	s->seg_page = kvmalloc_array(s->seg_max, sizeof(*s->seg_page),
				     GFP_KERNEL);
	s->orq = SIW_FAULT(kcalloc(s->ord, sizeof(*s->orq), GFP_KERNEL));
	s->irq = SIW_FAULT(kcalloc(s->ird, sizeof(*s->irq), GFP_KERNEL));
	s->sq_rec = kcalloc(qp->sq.size, sizeof(*s->sq_rec), GFP_KERNEL);
	if (!s->seg || !s->seg_page || !s->orq || !s->irq || !s->sq_rec ||
	    siw_zc_hub_init(s)) {
		siw_stream_free(s);
		return NULL;
	}
	s->qp = qp;
	spin_lock_init(&s->lock);
	mutex_init(&s->tx_mutex);
	INIT_WORK(&s->tx_work, siw_stx_work);
	INIT_WORK(&s->rx_work, siw_srx_work);
	return s;
}

/*
 * Stop both engines: no message starts, the receive engine holds
 * nothing, the transmit work is idle and not queued. The one teardown
 * order, for every path: the QP leaving RTR/RTS (a consumer's modify to
 * ERROR, destroy: siw_qp_engine_stop()) and detach (after the peer's
 * close or a local error's Terminate: siw_qp_cm_detach()).
 *
 * 1. Under @lock, @stopped and @torn: from here the receive path queues
 *    no Read Request and kicks no transmit work (it does both under
 *    @lock), and nothing else kicks it.
 * 2. Receive, first, since it queues transmit work: the receive work is
 *    cancelled if the callbacks are gone (@unhooked: nothing queues it
 *    again); the socket's lock waits for a reader still inside an skb
 *    (the data-ready callback or the receive work), and every later read
 *    sees @stopped and discards. What receive holds is dropped.
 * 3. Transmit: a doorbell's siw_stx_direct(), the work;
 *    the Terminate still due goes out; what transmit holds, the inbound
 *    Read Requests and their regions included, is dropped.
 *
 * Callbacks still hooked stay, so that the CM learns of the peer's close.
 */
static void siw_stream_stop(struct siw_stream *s, bool unhooked)
{
	struct sock *sk = s->sock->sk;
	unsigned long flags;

	spin_lock_irqsave(&s->lock, flags);
	s->stopped = true;
	s->torn = true;
	spin_unlock_irqrestore(&s->lock, flags);

	if (unhooked)
		cancel_work_sync(&s->rx_work);
	lock_sock(sk);
	siw_srx_release(s);
	release_sock(sk);

	/*
	 * A page TCP lets go of from now on kicks nothing: a work request
	 * still waiting for one is flushed with the send queue
	 */
	siw_zc_hub_detach(s);
	/*
	 * A doorbell's siw_stx_direct() may still run and queue the work:
	 * wait for it first. One that starts later sees @stopped.
	 */
	mutex_lock(&s->tx_mutex);
	mutex_unlock(&s->tx_mutex);
	cancel_work_sync(&s->tx_work);
	mutex_lock(&s->tx_mutex);
	/* a Terminate a local error queued still goes before the close */
	siw_stx_flush_term(s);
	siw_stx_release(s);
	mutex_unlock(&s->tx_mutex);
}

/* See siw_cm_qp.h */
int siw_qp_cm_attach(struct ib_qp *base, struct siw_cep *cep,
		     struct socket *sock, const struct siw_mpa_conn *conn,
		     bool initiator)
{
	struct siw_qp *qp = to_siw_qp(base);
	struct siw_stream *s;
	unsigned long flags;
	int rv = 0;

	s = siw_stream_alloc(qp, conn);
	if (!s)
		return -ENOMEM;
	s->cep = cep;
	s->sock = sock;
	s->conn = *conn;
	s->initiator = initiator;
	siw_engine_tx_init(&s->tx, conn->tx_markers, conn->crc,
			   READ_ONCE(tcp_sk(sock->sk)->mss_cache));
	siw_srx_start(s);

	mutex_lock(&qp->modify_mutex);
	spin_lock_irqsave(&qp->state_lock, flags);
	if (qp->cep || (qp->state != SIW_QP_IDLE && qp->state != SIW_QP_RTR)) {
		rv = -EINVAL;
	} else {
		qp->cep = cep;
		qp->stream = s;
		qp->ird = s->ird;
		qp->ord = s->ord;
		siw_qp_enter_locked(qp, SIW_QP_RTR);
	}
	spin_unlock_irqrestore(&qp->state_lock, flags);
	if (!rv) {
		siw_stream_hook(s);
		siw_srx_poll(s);
	}
	mutex_unlock(&qp->modify_mutex);
	if (rv)
		siw_stream_free(s);
	return rv;
}

static struct siw_stream *siw_qp_stream(struct siw_qp *qp)
{
	unsigned long flags;
	struct siw_stream *s;

	spin_lock_irqsave(&qp->state_lock, flags);
	s = qp->stream;
	spin_unlock_irqrestore(&qp->state_lock, flags);
	return s;
}

/* See siw_cm_qp.h */
int siw_qp_cm_send_rtr(struct ib_qp *base, enum siw_mpa_rtr rtr)
{
	struct siw_stream *s = siw_qp_stream(to_siw_qp(base));
	unsigned long flags;

	if (!s || rtr >= SIW_MPA_NUM_RTR)
		return -EINVAL;
	spin_lock_irqsave(&s->lock, flags);
	s->rtr_pending = true;
	s->rtr = rtr;
	spin_unlock_irqrestore(&s->lock, flags);
	siw_stream_kick(s);
	return 0;
}

/* See siw_cm_qp.h */
int siw_qp_cm_rts(struct ib_qp *base)
{
	struct siw_qp *qp = to_siw_qp(base);
	struct siw_stream *s;
	bool ok;

	mutex_lock(&qp->modify_mutex);
	s = siw_qp_stream(qp);
	ok = s && siw_qp_set_state(qp, SIW_QP_RTR, SIW_QP_RTS);
	mutex_unlock(&qp->modify_mutex);
	if (!ok)
		return -EINVAL;
	/* work posted while in RTR, and Read Requests already received */
	siw_stream_kick(s);
	return 0;
}

/* See siw_cm_qp.h */
void siw_qp_cm_terminate(struct ib_qp *base, enum siw_mpa_err code)
{
	struct siw_stream *s = siw_qp_stream(to_siw_qp(base));
	struct siw_rdmap_term_info ti = { };

	if (!s)
		return;
	if (code < SIW_MPA_ERR_CLOSED || code >= SIW_MPA_NUM_ERR)
		code = SIW_MPA_ERR_LOCAL;
	ti.err = SIW_DDP_ERR_LLP_CLOSED + (code - SIW_MPA_ERR_CLOSED);
	s->term_from_cm = true;
	siw_stream_fail(s, ti.err, &ti);
	/* the CM closes right after: the Terminate must be out first */
	flush_work(&s->tx_work);
}

/* See siw_cm_qp.h */
void siw_qp_cm_detach(struct ib_qp *base)
{
	struct siw_qp *qp = to_siw_qp(base);
	struct siw_stream *s;
	unsigned long flags;

	mutex_lock(&qp->modify_mutex);
	spin_lock_irqsave(&qp->state_lock, flags);
	s = qp->stream;
	qp->stream = NULL;
	qp->cep = NULL;
	spin_unlock_irqrestore(&qp->state_lock, flags);
	if (s) {
		siw_stream_unhook(s);
		siw_stream_stop(s, true);
	}
	mutex_unlock(&qp->modify_mutex);
	if (!s)
		return;
	siw_qp_enter_error(qp, 0);
	siw_cep_put(s->cep);
	siw_stream_free(s);
}

/* QP hooks of siw_qp.h */

void siw_qp_sq_kick(struct siw_qp *qp)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->state_lock, flags);
	if (qp->stream)
		siw_stream_kick(qp->stream);
	spin_unlock_irqrestore(&qp->state_lock, flags);
}

/*
 * A doorbell: send from the caller if the stream is idle, else make sure
 * the work runs
 */
void siw_qp_sq_send(struct siw_qp *qp)
{
	struct siw_stream *s;
	unsigned long flags;

	spin_lock_irqsave(&qp->state_lock, flags);
	s = qp->stream;
	/*
	 * Taken under state_lock, the mutex keeps the stream alive until
	 * siw_stx_direct() lets go: detach waits for it
	 */
	if (s && !mutex_trylock(&s->tx_mutex)) {
		siw_stream_kick(s);
		s = NULL;
	}
	spin_unlock_irqrestore(&qp->state_lock, flags);
	if (s)
		siw_stx_direct(s);
}
EXPORT_SYMBOL_IF_KUNIT(siw_qp_sq_send);

void siw_qp_engine_stop(struct siw_qp *qp)
{
	struct siw_stream *s;

	lockdep_assert_held(&qp->modify_mutex);
	s = siw_qp_stream(qp);
	if (s)
		siw_stream_stop(s, false);
}
EXPORT_SYMBOL_IF_KUNIT(siw_qp_engine_stop);

void siw_qp_fatal(struct siw_qp *qp)
{
	struct siw_rdmap_term_info ti = { };
	struct siw_stream *s;

	/* held so that the stream cannot be detached and freed under us */
	mutex_lock(&qp->modify_mutex);
	s = siw_qp_stream(qp);
	if (s)
		siw_stream_fail(s, SIW_DDP_ERR_RDMAP_CATASTROPHIC, &ti);
	mutex_unlock(&qp->modify_mutex);
	if (!s)
		siw_qp_enter_error(qp, IB_EVENT_QP_FATAL);
}
EXPORT_SYMBOL_IF_KUNIT(siw_qp_fatal);

void siw_qp_llp_close(struct siw_qp *qp, bool abrupt)
{
	lockdep_assert_held(&qp->modify_mutex);
	if (qp->cep)
		siw_cm_qp_disconnect(qp->cep, abrupt);
}
