// SPDX-License-Identifier: GPL-2.0
/*
 * A QP takes its connected stream from the CM and gives it back: the QP
 * side of siw_cm_qp.h, the socket callbacks that drive the engines, and
 * the QP hooks of siw_qp.h (kick, stop, close).
 *
 * A stream lives from siw_qp_cm_attach() to siw_qp_cm_detach(). While it
 * lives, @qp->stream points at it (under the QP's state_lock) and the
 * socket's sk_user_data does (under sk_callback_lock); detach clears both
 * and then stops the stream (siw_stream_stop(): receive, then transmit),
 * so nothing touches a stream after it is freed.
 */
#include <kunit/visibility.h>
#include <linux/moduleparam.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/isolation.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <net/tcp.h>

#include "siw_stats.h"
#include "siw_stream.h"
#include "siw_compat.h"
#include "siw_fault.h"
#include "siw_trace.h"

static struct workqueue_struct *siw_tx_wq;
static struct workqueue_struct *siw_srx_wq;

/* a read of less than this and the receive work does not wait for more */
#define SIW_RX_POLL_MIN	4096
/* the longest wait rx_poll_us may ask for */
#define SIW_RX_POLL_MAX_US	10000

static unsigned int rx_poll_us;
module_param(rx_poll_us, uint, 0644);
MODULE_PARM_DESC(rx_poll_us,
		 "Busy-poll the socket up to this many microseconds for the rest of a large message after reading from it, in a work item on another CPU (0, the default: off; at most 10000)");

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
	siw_tx_wq = alloc_workqueue("siw_tx",
				    WQ_MEM_RECLAIM | WQ_HIGHPRI | WQ_PERCPU, 0);
	if (!siw_tx_wq)
		return -ENOMEM;
	/* CPU intensive: a work that waits for data holds no other up */
	siw_srx_wq = alloc_workqueue("siw_rx",
				     WQ_MEM_RECLAIM | WQ_HIGHPRI |
				     WQ_CPU_INTENSIVE | WQ_PERCPU, 0);
	if (!siw_srx_wq) {
		destroy_workqueue(siw_tx_wq);
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
	destroy_workqueue(siw_srx_wq);
	destroy_workqueue(siw_tx_wq);
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
		queue_work(siw_tx_wq, &s->tx_work);
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
		queue_work(siw_tx_wq, &s->tx_work);
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

/* Socket callbacks: sk_user_data is the stream while it is attached */

static bool siw_sk_peer_gone(struct sock *sk)
{
	/* our own FIN does not count: the peer may still send after it */
	return (READ_ONCE(sk->sk_shutdown) & RCV_SHUTDOWN) ||
	       READ_ONCE(sk->sk_state) == TCP_CLOSE || READ_ONCE(sk->sk_err);
}

/*
 * Should the receive work take over from the data-ready callback? Only
 * with rx_poll_us, an administrator's choice of latency over CPU time:
 * for the rest of a message under way, which the work then busy-polls
 * for on another CPU. Otherwise everything is received where it arrives.
 */
static bool siw_srx_defer(struct siw_stream *s)
{
	return READ_ONCE(rx_poll_us) && !siw_stream_stopped(s) &&
	       siw_engine_rx_midmsg(&s->rx);
}

/**
 * siw_srx_pick_cpu() - the CPU a stream's receive work is queued on
 * @a: CPUs it may run on
 * @b: likewise: only CPUs in both count
 * @here: the CPU the data-ready callback runs on, never picked
 * @key: spreads streams over the CPUs that count (the QP number)
 *
 * Return: with n CPUs in @a and @b besides @here, the (@key mod n)-th of
 * them in ascending order; nr_cpu_ids if there is none.
 */
unsigned int siw_srx_pick_cpu(const struct cpumask *a, const struct cpumask *b,
			      unsigned int here, u32 key)
{
	unsigned int cpu, n = 0;

	for_each_cpu_and(cpu, a, b)
		n += cpu != here;
	if (!n)
		return nr_cpu_ids;
	key %= n;
	for_each_cpu_and(cpu, a, b) {
		if (cpu != here && !key--)
			return cpu;
	}
	return nr_cpu_ids;
}
EXPORT_SYMBOL_IF_KUNIT(siw_srx_pick_cpu);

/*
 * Where the receive work runs: not on this CPU, which is the one that
 * transmitted when the peer is local (veth, loopback) and the one that
 * takes the device's interrupts otherwise; the copy is the work's. Only
 * on an online CPU the scheduler balances (isolcpus= and isolated
 * cpuset partitions keep theirs), spread by QP number so that streams
 * whose softirq runs on one CPU do not all wait on the same other one.
 * nr_cpu_ids if there is no such CPU: the callback receives itself.
 */
static unsigned int siw_srx_cpu(struct siw_stream *s)
{
	return siw_srx_pick_cpu(cpu_online_mask,
			       housekeeping_cpumask(HK_TYPE_DOMAIN),
			       raw_smp_processor_id(), s->qp->base.qp_num);
}

static void siw_sk_data_ready(struct sock *sk)
{
	struct siw_stream *s;
	unsigned int cpu;

	read_lock_bh(&sk->sk_callback_lock);
	s = sk->sk_user_data;
	/* none, or the receive work reads on */
	if (s && !READ_ONCE(s->rx_deferred)) {
		cpu = siw_srx_defer(s) ? siw_srx_cpu(s) : nr_cpu_ids;
		if (cpu < nr_cpu_ids) {
			WRITE_ONCE(s->rx_deferred, true);
			queue_work_on(cpu, siw_srx_wq, &s->rx_work);
		} else {
			siw_srx_read_sock(s);
		}
	}
	read_unlock_bh(&sk->sk_callback_lock);
}

/* Is anything queued for siw_srx_read_sock(), or in the socket's backlog? */
static bool siw_srx_pending(struct sock *sk)
{
	return !skb_queue_empty_lockless(&sk->sk_receive_queue) ||
	       READ_ONCE(sk->sk_backlog.tail);
}

/*
 * Read the socket, held by lock_sock(), with bottom halves off as in the
 * data-ready callback: the engine's callbacks (completions, a consumer's
 * completion handler) run in the context they run in there.
 */
static void siw_srx_read_owned(struct siw_stream *s)
{
	local_bh_disable();
	siw_srx_read_sock(s);
	local_bh_enable();
}

/* One read of the receive work; @last: hand reception back first */
static u32 siw_srx_work_read(struct siw_stream *s, bool last)
{
	struct sock *sk = s->sock->sk;
	u32 seq, got;

	lock_sock(sk);
	if (last)
		WRITE_ONCE(s->rx_deferred, false);
	seq = READ_ONCE(tcp_sk(sk)->copied_seq);
	siw_srx_read_owned(s);
	got = READ_ONCE(tcp_sk(sk)->copied_seq) - seq;
	release_sock(sk);
	siw_stats_add(s->qp->qdev->stats, SIW_STAT_RX_WORK_OCTETS, got);
	return got;
}

/*
 * The receive work: read the socket while the peer keeps sending, then
 * wait up to rx_poll_us for more before handing reception back to the
 * data-ready callback. While @rx_deferred is set the callback only
 * returns, so a burst of segments costs one wake-up, not one each.
 *
 * It waits only after a read of SIW_RX_POLL_MIN octets or more: a peer
 * that trickles a message in small segments gets a wake-up a segment,
 * not a CPU kept spinning. It stops waiting when another task wants the
 * CPU, and for good once the stream stopped (detach waits for it).
 *
 * @rx_deferred is cleared with the socket held: no segment is delivered
 * to the receive queue meanwhile, the read that follows takes everything
 * queued before, and what the release hands over (the backlog) goes to
 * the callback, which sees the flag clear.
 */
static void siw_srx_work(struct work_struct *w)
{
	struct siw_stream *s = container_of(w, struct siw_stream, rx_work);
	struct sock *sk = s->sock->sk;
	u64 until;
	u32 got;

	while (!siw_stream_stopped(s)) {
		got = siw_srx_work_read(s, false);
		if (got < SIW_RX_POLL_MIN)
			break;
		until = local_clock() + (u64)min_t(unsigned int,
						   READ_ONCE(rx_poll_us),
						   SIW_RX_POLL_MAX_US) *
					NSEC_PER_USEC;
		while (!siw_srx_pending(sk) && !siw_sk_peer_gone(sk) &&
		       !siw_stream_stopped(s) && !need_resched() &&
		       local_clock() < until)
			cpu_relax();
		if (!siw_srx_pending(sk))
			break;
		cond_resched();
	}
	siw_srx_work_read(s, true);
	/*
	 * The peer's close, if it came meanwhile (siw_sk_state_change() left
	 * it to us), unless detach unhooked the stream since
	 */
	read_lock_bh(&sk->sk_callback_lock);
	if (sk->sk_user_data == s && siw_sk_peer_gone(sk))
		siw_stream_closed(s, sk->sk_err ? -sk->sk_err : 0);
	read_unlock_bh(&sk->sk_callback_lock);
}

static void siw_sk_write_space(struct sock *sk)
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
 * TCP calls this with the socket held. The peer's FIN comes here before
 * the data-ready callback of the segment that carries it (tcp_fin()
 * runs first), and everything the peer sent before its FIN is to be
 * received: on a clean close, read what is queued first, or, while the
 * receive work holds reception, leave the close to it. A reset or an
 * error closes at once.
 */
static void siw_sk_state_change(struct sock *sk)
{
	struct siw_stream *s;
	int err;

	read_lock_bh(&sk->sk_callback_lock);
	s = sk->sk_user_data;
	if (s && siw_sk_peer_gone(sk)) {
		err = READ_ONCE(sk->sk_err);
		if (err) {
			siw_stream_closed(s, -err);
		} else if (!READ_ONCE(s->rx_deferred)) {
			siw_srx_read_sock(s);
			siw_stream_closed(s, 0);
		}
	}
	read_unlock_bh(&sk->sk_callback_lock);
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

/* Feed what is queued already: the peer may have sent behind its frame */
static void siw_stream_poll(struct siw_stream *s)
{
	struct sock *sk = s->sock->sk;

	lock_sock(sk);
	siw_srx_read_owned(s);
	release_sock(sk);
	if (siw_sk_peer_gone(sk))
		siw_stream_closed(s, sk->sk_err ? -sk->sk_err : 0);
}

static void siw_stream_free(struct siw_stream *s)
{
	siw_zc_hub_detach(s);
	kvfree(s->seg);
	kvfree(s->seg_page);
	kfree(s->orq);
	kfree(s->irq);
	kfree(s->sq_rec);
	/* a doorbell may still be inside mutex_unlock(): see siw_tx_direct() */
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
	INIT_WORK(&s->tx_work, siw_tx_work);
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
 * 3. Transmit: a doorbell's siw_tx_direct(), the work;
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
	 * A doorbell's siw_tx_direct() may still run and queue the work:
	 * wait for it first. One that starts later sees @stopped.
	 */
	mutex_lock(&s->tx_mutex);
	mutex_unlock(&s->tx_mutex);
	cancel_work_sync(&s->tx_work);
	mutex_lock(&s->tx_mutex);
	/* a Terminate a local error queued still goes before the close */
	siw_tx_flush_term(s);
	siw_tx_release(s);
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
		siw_stream_poll(s);
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
	 * siw_tx_direct() lets go: detach waits for it
	 */
	if (s && !mutex_trylock(&s->tx_mutex)) {
		siw_stream_kick(s);
		s = NULL;
	}
	spin_unlock_irqrestore(&qp->state_lock, flags);
	if (s)
		siw_tx_direct(s);
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
