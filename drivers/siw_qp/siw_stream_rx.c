// SPDX-License-Identifier: GPL-2.0
/*
 * Receive: octets from the socket go through the receive engine
 * (siw_fpdu_rx.c), which checks every segment before it calls back here
 * to place payload, bind receive work requests, queue Read Requests and
 * complete messages.
 *
 * The engine's callbacks run under the socket's lock (struct
 * siw_stream), from the data-ready callback in softirq or from process
 * context; they never sleep. Payload is copied into regions whose bounds the DDP layer
 * (tagged) or siw_mr_get_local() (receive buffers) checked when the
 * segment or the Send began; each copy checks again, under the region's
 * lock, that the region was not revoked since (siw_mr_place()), so a
 * segment cut in two around an invalidation places nothing after it.
 *
 * The socket's data-ready and state-change callbacks are here too, and
 * the receive work the data-ready callback may hand reception to
 * (module parameter rx_poll_us): it reads the socket with lock_sock() on
 * another CPU and busy-polls between reads (siw_srx_work()).
 *
 * The stream's receive functions are siw_srx_* (its transmit functions
 * siw_stx_*); siw_rx_* are the receive engine's own (siw_fpdu_rx.c),
 * whose callbacks these are.
 */
#include <kunit/visibility.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/isolation.h>
#include <net/tcp.h>

#include "siw_compat.h"
#include "siw_mem/siw_mem.h"
#include "siw_stats.h"
#include "siw_stream.h"
#include "siw_trace.h"

static struct workqueue_struct *siw_srx_wq;

/* a read of less than this and the receive work does not wait for more */
#define SIW_RX_POLL_MIN	4096
/* the longest wait rx_poll_us may ask for */
#define SIW_RX_POLL_MAX_US	10000

static unsigned int rx_poll_us;
module_param(rx_poll_us, uint, 0644);
MODULE_PARM_DESC(rx_poll_us,
		 "Busy-poll the socket up to this many microseconds for the rest of a large message after reading from it, in a work item on another CPU (0, the default: off; at most 10000)");

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

/* What a placement's siw_mr_place() @rv reports */
static enum siw_ddp_err siw_srx_place_err(int rv)
{
	switch (rv) {
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

static enum siw_ddp_err siw_srx_tagged_place(void *ctx,
					     const struct siw_ddp_region *r,
					     u64 to, const void *data, u32 len,
					     u32 *crc)
{
	struct siw_stream *s = ctx;

	/* the responder places nothing before the RTR */
	if (s->rx_rtr_wait)
		return SIW_DDP_ERR_LLP_NO_RTR;
	return siw_srx_place_err(siw_mr_place(r->obj, r->version, to, data,
					      len, crc));
}

/* A Write before the RTR: its STag's error if any, else no RTR yet */
static enum siw_ddp_err siw_srx_no_rtr(struct siw_stream *s,
				       const struct siw_ddp_stag_req *req)
{
	struct siw_ddp_region r;
	enum siw_ddp_err err;

	err = siw_ddp_stag_resolve(&s->rx.mem, req, &r);
	siw_ddp_stag_put(&s->rx.mem, &r);
	return err ? err : SIW_DDP_ERR_LLP_NO_RTR;
}

/*
 * A Write in one segment: its STag checked and its payload placed in one
 * hold of the region's lock (siw_mr_place_once()). Before the RTR the
 * check still comes first, as on the general path, then nothing is
 * placed.
 */
static enum siw_ddp_err siw_srx_tagged_once(void *ctx,
					    const struct siw_ddp_stag_req *req,
					    const void *data, u32 len,
					    u32 *crc)
{
	struct siw_stream *s = ctx;
	enum siw_ddp_err err;
	int rv = 0;

	if (s->rx_rtr_wait)
		return siw_srx_no_rtr(s, req);
	err = siw_mr_place_once(s->qp->qdev->mem, req, data, crc, &rv);
	return err ? err : siw_srx_place_err(rv);
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
	.tagged_once = siw_srx_tagged_once,
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

/**
 * siw_srx_init() - module load: the receive workqueue
 *
 * Returns: 0 or -ENOMEM.
 */
int siw_srx_init(void)
{
	/* CPU intensive: a work that waits for data holds no other up */
	siw_srx_wq = alloc_workqueue("siw_rx",
				     WQ_MEM_RECLAIM | WQ_HIGHPRI |
				     WQ_CPU_INTENSIVE | WQ_PERCPU, 0);
	return siw_srx_wq ? 0 : -ENOMEM;
}

/**
 * siw_srx_exit() - module unload, after every device is gone
 */
void siw_srx_exit(void)
{
	destroy_workqueue(siw_srx_wq);
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

void siw_sk_data_ready(struct sock *sk)
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
void siw_srx_work(struct work_struct *w)
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

/*
 * TCP calls this with the socket held. The peer's FIN comes here before
 * the data-ready callback of the segment that carries it (tcp_fin()
 * runs first), and everything the peer sent before its FIN is to be
 * received: on a clean close, read what is queued first, or, while the
 * receive work holds reception, leave the close to it. A reset or an
 * error closes at once.
 */
void siw_sk_state_change(struct sock *sk)
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

/* Feed what is queued already: the peer may have sent behind its frame */
void siw_srx_poll(struct siw_stream *s)
{
	struct sock *sk = s->sock->sk;

	lock_sock(sk);
	siw_srx_read_owned(s);
	release_sock(sk);
	if (siw_sk_peer_gone(sk))
		siw_stream_closed(s, sk->sk_err ? -sk->sk_err : 0);
}
