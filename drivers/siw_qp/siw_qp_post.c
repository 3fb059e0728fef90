// SPDX-License-Identifier: GPL-2.0
/*
 * Work queues: posting for kernel consumers, the doorbell for user
 * consumers, flushing to the CQs, and the accessors through which the
 * TX and RX engines consume work.
 *
 * A user QP's rings are written by the process directly (rdma-core's
 * provider); the kernel reads an entry once, into a private copy, and
 * checks that copy. The process can change the shared entry at any time
 * and only ever hurts itself: what a send work request's completion
 * says (its id, its opcode, whether it is signalled) comes from the
 * copy the device acted on (struct siw_wq_taken), never from the ring
 * again.
 */
#include <kunit/visibility.h>
#include <linux/string.h>

#include "siw_mem/siw_mem.h"
#include "siw_qp.h"

/* What every ring entry starts with (kernel, SQ and RQ layouts alike) */
struct siw_wq_head {
	u64 id;
	u16 flags;
	u8 num_sge;
	u8 opcode;
};

static_assert(offsetof(struct siw_wq_head, flags) ==
	      offsetof(struct siw_wqe, flags));
static_assert(offsetof(struct siw_wq_head, opcode) ==
	      offsetof(struct siw_wqe, opcode));

static size_t siw_wq_stride(const struct siw_qp *qp, bool sq)
{
	if (!qp->user)
		return sizeof(struct siw_wqe);
	return sq ? sizeof(struct siw_sqe) : sizeof(struct siw_rqe);
}

static struct siw_wq_head *siw_wq_entry(const struct siw_wq *wq,
					size_t stride, u32 n)
{
	return wq->ring + (size_t)(n & (wq->size - 1)) * stride;
}

static bool siw_wq_posted(struct siw_wq_head *e)
{
	/* pairs with the poster's release: contents are read after this */
	return smp_load_acquire(&e->flags) & SIW_WQE_VALID;
}

static void siw_wq_release(struct siw_wq_head *e)
{
	/* our reads of the entry are done before the consumer reuses it */
	smp_store_release(&e->flags, 0);
}

/*
 * A kernel consumer's REG_MR names its MR from post until it leaves the
 * send queue (completed, flushed or discarded) and holds a reference on
 * it all that time: a consumer that deregisters the MR meanwhile frees
 * the registration, not the description the work request still points
 * to (siw_mem_fastreg() refuses a deregistered MR).
 */
static void siw_sq_let_go(struct siw_qp *qp, struct siw_wq_head *e)
{
	struct siw_wqe *w = (struct siw_wqe *)e;

	if (!qp->user && w->opcode == SIW_OP_REG_MR)
		siw_mr_put(to_siw_mr(w->mr));
}

/*
 * Walk the posted entries of @wq from its head, handing each back;
 * with @cq, report each as flushed. At most one lap: a process that
 * keeps posting behind us cannot keep us here.
 */
static bool siw_wq_drain(struct siw_qp *qp, struct siw_wq *wq, bool sq,
			 struct siw_cq *cq)
{
	size_t stride = siw_wq_stride(qp, sq);
	struct siw_cqe_src src = {
		.qp = &qp->base,
		.status = IB_WC_WR_FLUSH_ERR,
	};
	struct siw_wq_taken *t;
	bool signal = false;
	u32 n;

	for (n = 0; n < wq->size; n++) {
		struct siw_wq_head *e = siw_wq_entry(wq, stride, wq->get);

		/* an entry the device read flushes as it was read */
		t = wq->taken ? &wq->taken[wq->get & (wq->size - 1)] : NULL;
		if (t && t->taken) {
			src.id = t->id;
			src.opcode = t->opcode;
			t->taken = false;
		} else if (siw_wq_posted(e)) {
			src.id = READ_ONCE(e->id);
			src.opcode = sq ?
				siw_wqe_flush_opcode(READ_ONCE(e->opcode)) :
				SIW_OP_RECEIVE;
		} else {
			break;
		}
		if (sq)
			siw_sq_let_go(qp, e);
		/* the slot is free before its completion can be seen */
		siw_wq_release(e);
		wq->get++;
		if (cq)
			signal |= siw_cq_post(cq, &src) > 0;
	}
	return signal;
}

static void siw_qp_drain_queues(struct siw_qp *qp, bool report)
{
	unsigned long flags;
	bool sig_s, sig_r = false;

	spin_lock_irqsave(&qp->sq_lock, flags);
	sig_s = siw_wq_drain(qp, &qp->sq, true, report ? qp->scq : NULL);
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	if (!qp->srq) {
		spin_lock_irqsave(&qp->rq_lock, flags);
		sig_r = siw_wq_drain(qp, &qp->rq, false,
				     report ? qp->rcq : NULL);
		spin_unlock_irqrestore(&qp->rq_lock, flags);
	}
	if (sig_s)
		siw_cq_signal(qp->scq);
	if (sig_r)
		siw_cq_signal(qp->rcq);
}

/**
 * siw_qp_flush() - complete every posted work request as flushed
 * @qp: a QP in ERROR
 *
 * Both queues (not an SRQ: its entries belong to no QP) complete with
 * IB_WC_WR_FLUSH_ERR, in order, whether signalled or not.
 *
 * Context: any; no QP lock held.
 */
void siw_qp_flush(struct siw_qp *qp)
{
	siw_qp_drain_queues(qp, true);
}
EXPORT_SYMBOL_IF_KUNIT(siw_qp_flush);

/**
 * siw_qp_discard() - drop every posted work request without completion
 * @qp: a QP moved to RESET
 *
 * Context: any; no QP lock held.
 */
void siw_qp_discard(struct siw_qp *qp)
{
	siw_qp_drain_queues(qp, false);
}
EXPORT_SYMBOL_IF_KUNIT(siw_qp_discard);

/* States in which the engines, not the flush, retire send work */
static bool siw_qp_sq_owned(enum siw_qp_state s)
{
	return s != SIW_QP_ERROR && s != SIW_QP_IDLE;
}

/* States a kernel consumer may post to: all but TERMINATE */
static bool siw_qp_postable(enum siw_qp_state s)
{
	return s != SIW_QP_TERMINATE;
}

/*
 * After posting: have the transmit work send it, or flush it if the QP
 * is in ERROR
 */
static void siw_qp_after_post(struct siw_qp *qp, enum siw_qp_state s,
			      bool sq)
{
	if (s == SIW_QP_ERROR)
		siw_qp_flush(qp);
	else if (sq && s == SIW_QP_RTS)
		siw_qp_sq_kick(qp);
}

/* The provider's doorbell: post_send without work requests */
static int siw_qp_doorbell(struct siw_qp *qp)
{
	enum siw_qp_state s = READ_ONCE(qp->state);

	if (s == SIW_QP_RTS)
		siw_qp_sq_send(qp);
	else
		siw_qp_after_post(qp, s, true);
	return 0;
}

static int siw_sq_post_one(struct siw_qp *qp, const struct ib_send_wr *wr)
{
	struct siw_wqe *slot = (struct siw_wqe *)
		siw_wq_entry(&qp->sq, sizeof(*slot), qp->sq.put);
	int rv;

	lockdep_assert_held(&qp->sq_lock);
	if (slot->flags & SIW_WQE_VALID)
		return -ENOMEM;
	rv = siw_wqe_from_send_wr(wr, &qp->sq.caps, slot);
	if (!rv && slot->opcode == SIW_OP_REG_MR &&
	    slot->mr->device != qp->base.device)
		rv = -EINVAL;
	if (rv) {
		slot->flags = 0;
		return rv;
	}
	/* let go of in siw_sq_let_go() */
	if (slot->opcode == SIW_OP_REG_MR)
		siw_mr_hold(to_siw_mr(slot->mr));
	if (qp->sig_all)
		slot->flags |= SIW_WQE_SIGNALLED;
	/* contents before VALID, for an engine that peeks without sq_lock */
	smp_store_release(&slot->flags, slot->flags | SIW_WQE_VALID);
	qp->sq.put++;
	return 0;
}

/**
 * siw_post_send() - the post_send verb
 * @base: the QP
 * @wr: work requests; NULL from a process is its doorbell
 * @bad_wr: the first not posted, on failure
 *
 * Context: any.
 * Returns: 0, -EINVAL (malformed or unsupported request, wrong state,
 * or work requests for a process's QP) or -ENOMEM (queue full).
 */
int siw_post_send(struct ib_qp *base, const struct ib_send_wr *wr,
		  const struct ib_send_wr **bad_wr)
{
	struct siw_qp *qp = to_siw_qp(base);
	enum siw_qp_state s;
	unsigned long flags;
	int rv = 0;

	if (qp->user) {
		/* a process posts into its ring; it may only ring */
		if (wr) {
			*bad_wr = wr;
			return -EINVAL;
		}
		return siw_qp_doorbell(qp);
	}
	spin_lock_irqsave(&qp->sq_lock, flags);
	/* read under sq_lock: a flush that follows a state change sees us */
	s = READ_ONCE(qp->state);
	if (!siw_qp_postable(s))
		rv = -EINVAL;
	for (; wr && !rv; wr = wr->next) {
		rv = siw_sq_post_one(qp, wr);
		if (rv)
			break;
	}
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	if (rv)
		*bad_wr = wr;
	siw_qp_after_post(qp, s, true);
	return rv;
}
EXPORT_SYMBOL_IF_KUNIT(siw_post_send);

static int siw_rq_post_one(struct siw_wq *wq, const struct ib_recv_wr *wr)
{
	struct siw_wqe *slot = (struct siw_wqe *)
		siw_wq_entry(wq, sizeof(*slot), wq->put);
	int rv;

	if (slot->flags & SIW_WQE_VALID)
		return -ENOMEM;
	rv = siw_wqe_from_recv_wr(wr, &wq->caps, slot);
	if (rv) {
		slot->flags = 0;
		return rv;
	}
	/* contents before VALID, as in siw_sq_post_one() */
	smp_store_release(&slot->flags, SIW_WQE_VALID);
	wq->put++;
	return 0;
}

/**
 * siw_wq_post_recv() - post receive work requests to a kernel ring
 * @wq: the RQ or SRQ ring; the caller holds its lock
 * @wr: the list
 * @bad_wr: the first one not posted, on failure
 *
 * Returns: 0, -ENOMEM (ring full) or -EINVAL (malformed request).
 */
static int siw_wq_post_recv(struct siw_wq *wq, const struct ib_recv_wr *wr,
			    const struct ib_recv_wr **bad_wr)
{
	int rv = 0;

	for (; wr; wr = wr->next) {
		rv = siw_rq_post_one(wq, wr);
		if (rv) {
			*bad_wr = wr;
			break;
		}
	}
	return rv;
}

/**
 * siw_post_recv() - the post_recv verb (kernel QPs)
 * @base: the QP
 * @wr: work requests
 * @bad_wr: the first not posted, on failure
 *
 * Context: any.
 * Returns: 0, -EINVAL or -ENOMEM.
 */
int siw_post_recv(struct ib_qp *base, const struct ib_recv_wr *wr,
		  const struct ib_recv_wr **bad_wr)
{
	struct siw_qp *qp = to_siw_qp(base);
	enum siw_qp_state s;
	unsigned long flags;
	int rv;

	/* a process posts into its ring; an SRQ takes the SRQ's verb */
	if (qp->user || qp->srq) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&qp->rq_lock, flags);
	s = READ_ONCE(qp->state);
	if (siw_qp_postable(s)) {
		rv = siw_wq_post_recv(&qp->rq, wr, bad_wr);
	} else {
		*bad_wr = wr;
		rv = -EINVAL;
	}
	spin_unlock_irqrestore(&qp->rq_lock, flags);
	siw_qp_after_post(qp, s, false);
	return rv;
}
EXPORT_SYMBOL_IF_KUNIT(siw_post_recv);

/**
 * siw_post_srq_recv() - post receive work requests to a kernel SRQ
 * @base: the SRQ
 * @wr: the list
 * @bad_wr: the first one not posted, on failure
 *
 * Returns: 0 or -errno.
 */
int siw_post_srq_recv(struct ib_srq *base, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad_wr)
{
	struct siw_srq *srq = to_siw_srq(base);
	unsigned long flags;
	int rv;

	if (srq->user) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&srq->lock, flags);
	rv = siw_wq_post_recv(&srq->rq, wr, bad_wr);
	spin_unlock_irqrestore(&srq->lock, flags);
	return rv;
}

/* Copy and check one entry; the caller holds the ring's lock */
static int siw_wq_read(bool user, bool sq,
		       struct siw_wq_head *e, struct siw_wqe *wqe)
{
	union {
		struct siw_sqe sqe;
		struct siw_rqe rqe;
	} copy;

	if (!user) {
		memcpy(wqe, e, sizeof(*wqe));
		return 0;
	}
	if (sq) {
		memcpy(&copy.sqe, e, sizeof(copy.sqe));
		return siw_wqe_from_sqe(&copy.sqe, wqe);
	}
	memcpy(&copy.rqe, e, sizeof(copy.rqe));
	return siw_wqe_from_rqe(&copy.rqe, wqe);
}

/**
 * siw_sq_peek() - read a posted send work request without taking it
 * @qp: the QP
 * @n: 0 for the oldest not yet completed, 1 for the next...
 * @wqe: the checked copy
 *
 * Context: any.
 * Returns: 0, -ENOENT if fewer than @n + 1 are posted, -EINVAL if a
 * process wrote an entry its provider never would (complete it with
 * IB_WC_LOC_QP_OP_ERR).
 */
int siw_sq_peek(struct siw_qp *qp, u32 n, struct siw_wqe *wqe)
{
	struct siw_wq_taken *t;
	struct siw_wq_head *e;
	unsigned long flags;
	int rv = -ENOENT;

	spin_lock_irqsave(&qp->sq_lock, flags);
	e = siw_wq_entry(&qp->sq, siw_wq_stride(qp, true), qp->sq.get + n);
	if (n < qp->sq.size && siw_wq_posted(e)) {
		rv = siw_wq_read(qp->user, true, e, wqe);
		/*
		 * What the entry's completion will say: this read's. The
		 * device acts on the last read before it starts the entry
		 * (a read ahead of that is read again), and reads it no more
		 * from then on.
		 */
		if (qp->sq.taken) {
			t = &qp->sq.taken[(qp->sq.get + n) & (qp->sq.size - 1)];
			t->id = wqe->id;
			t->opcode = wqe->opcode;
			t->signalled = wqe->flags & SIW_WQE_SIGNALLED;
			t->taken = true;
		}
	}
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	return rv;
}
EXPORT_SYMBOL_IF_KUNIT(siw_sq_peek);

/**
 * siw_sq_posted() - is a send work request posted at a position?
 * @qp: the QP
 * @n: as for siw_sq_peek()
 *
 * A hint, taken without the queue's lock: the answer may be stale by the
 * time the caller acts on it.
 *
 * Context: any.
 */
bool siw_sq_posted(struct siw_qp *qp, u32 n)
{
	return n < qp->sq.size &&
	       siw_wq_posted(siw_wq_entry(&qp->sq, siw_wq_stride(qp, true),
					  READ_ONCE(qp->sq.get) + n));
}
EXPORT_SYMBOL_IF_KUNIT(siw_sq_posted);

/*
 * What the completion of the oldest send work request @e says, from the
 * copy the device acted on: a kernel QP's entry is that copy (the
 * kernel's own memory, written by siw_post_send()); a process's is its
 * record of the last read (siw_sq_peek()), whatever the process wrote
 * into the shared entry since, its VALID flag included. False if the
 * entry was never posted (kernel) or never read (process).
 */
static bool siw_sq_head_src(struct siw_qp *qp, struct siw_wq_head *e,
			    struct siw_cqe_src *src, bool *signalled)
{
	struct siw_wq_taken *t;

	lockdep_assert_held(&qp->sq_lock);
	if (!qp->sq.taken) {
		if (!siw_wq_posted(e))
			return false;
		src->id = e->id;
		src->opcode = siw_wqe_flush_opcode(e->opcode);
		*signalled = e->flags & SIW_WQE_SIGNALLED;
		return true;
	}
	t = &qp->sq.taken[qp->sq.get & (qp->sq.size - 1)];
	if (!t->taken)
		return false;
	src->id = t->id;
	src->opcode = t->opcode;
	*signalled = t->signalled;
	t->taken = false;
	return true;
}

/**
 * siw_sq_complete() - retire the oldest send work requests
 * @qp: the QP
 * @done: how each ended, oldest first
 * @n: how many
 *
 * Completes each on the send CQ if it was signalled or failed, and hands
 * its entry back to the consumer; one hold of the send queue's lock for
 * all @n, and the CQ's handler called once. Does nothing in ERROR or
 * IDLE: the flush (or the reset) retires every entry then.
 *
 * Context: any; no QP lock held.
 */
void siw_sq_complete(struct siw_qp *qp, const struct siw_sq_done *done,
		     unsigned int n)
{
	struct siw_cqe_src src = { .qp = &qp->base };
	size_t stride = siw_wq_stride(qp, true);
	struct siw_wq_head *e;
	unsigned long flags;
	bool report, signalled, signal = false;
	unsigned int i;

	spin_lock_irqsave(&qp->sq_lock, flags);
	/*
	 * In ERROR (or after RESET) the flush owns the ring: it ran, or it
	 * waits for sq_lock and reports the entries itself.
	 */
	if (!siw_qp_sq_owned(READ_ONCE(qp->state)))
		n = 0;
	for (i = 0; i < n; i++) {
		e = siw_wq_entry(&qp->sq, stride, qp->sq.get);
		if (!siw_sq_head_src(qp, e, &src, &signalled))
			break;
		src.status = done[i].status;
		src.bytes = done[i].bytes;
		report = src.status != IB_WC_SUCCESS || qp->sig_all ||
			 signalled;
		siw_sq_let_go(qp, e);
		/*
		 * Hand the slot back before the completion is visible: a
		 * process polls its CQ in shared memory and may post into
		 * the slot the moment it sees the completion.
		 */
		siw_wq_release(e);
		qp->sq.get++;
		if (report)
			signal |= siw_cq_post(qp->scq, &src) > 0;
	}
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	if (signal)
		siw_cq_signal(qp->scq);
}
EXPORT_SYMBOL_IF_KUNIT(siw_sq_complete);

/**
 * siw_wq_take() - take the oldest posted entry of a receive ring
 * @wq: the ring; the caller holds its lock
 * @user: the ring holds struct siw_rqe written by a process
 * @wqe: the checked copy
 *
 * Returns: 0, -ENOENT if none is posted, -EINVAL for a malformed entry
 * (taken all the same).
 */
int siw_wq_take(struct siw_wq *wq, bool user, struct siw_wqe *wqe)
{
	size_t stride = user ? sizeof(struct siw_rqe) : sizeof(struct siw_wqe);
	struct siw_wq_head *e = siw_wq_entry(wq, stride, wq->get);
	int rv;

	if (!siw_wq_posted(e))
		return -ENOENT;
	rv = siw_wq_read(user, false, e, wqe);
	siw_wq_release(e);
	wq->get++;
	return rv;
}

/**
 * siw_rq_take() - take the next receive work request of a QP
 * @qp: the QP
 * @wqe: the checked copy; its ring entry is the consumer's again
 *
 * From the QP's SRQ if it has one.
 *
 * Context: any (the RX engine runs in softirq).
 * Returns: 0, -ENOENT if none is posted, -EINVAL for a malformed user
 * entry (its id is in @wqe: complete it with IB_WC_LOC_QP_OP_ERR).
 */
int siw_rq_take(struct siw_qp *qp, struct siw_wqe *wqe)
{
	unsigned long flags;
	int rv;

	if (qp->srq)
		return siw_srq_take(qp->srq, wqe);
	spin_lock_irqsave(&qp->rq_lock, flags);
	rv = siw_wq_take(&qp->rq, qp->user, wqe);
	spin_unlock_irqrestore(&qp->rq_lock, flags);
	return rv;
}

/**
 * siw_rq_complete() - complete a receive work request
 * @qp: the QP it arrived on
 * @wqe: from siw_rq_take()
 * @status: its outcome
 * @bytes: octets received
 * @inval_stag: the STag the peer invalidated
 * @invalidated: @inval_stag is meaningful (Send with Invalidate)
 * @solicited: the Send asked for a solicited event
 *
 * Context: any; no QP lock held.
 */
void siw_rq_complete(struct siw_qp *qp, const struct siw_wqe *wqe,
		     enum ib_wc_status status, u32 bytes, u32 inval_stag,
		     bool invalidated, bool solicited)
{
	struct siw_cqe_src src = {
		.id = wqe->id,
		.qp = &qp->base,
		.opcode = SIW_OP_RECEIVE,
		.status = status,
		.bytes = bytes,
		.inval_stag = inval_stag,
		.invalidated = invalidated,
		.solicited = solicited,
	};

	if (siw_cq_post(qp->rcq, &src) > 0)
		siw_cq_signal(qp->rcq);
}
