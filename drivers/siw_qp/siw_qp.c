// SPDX-License-Identifier: GPL-2.0
/*
 * Queue pair objects: create, destroy, query, modify, references and
 * the device's QP table.
 *
 * The RDMA core allocates and frees the QP's memory; destroy therefore
 * waits until every reference (the table's, iw_cm's, the engines') is
 * gone before it returns.
 */
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <rdma/siw-abi.h>

#include "siw_fault.h"
#include "siw_mem/siw_limits.h"
#include "siw_mem/siw_umap.h"
#include "siw_qp.h"
#include "siw_trace.h"

#define SIW_QPN_MAX	0xffffffU

/**
 * siw_qp_get() - take a reference on a QP
 * @qp: a QP the caller already holds a reference on
 */
void siw_qp_get(struct siw_qp *qp)
{
	refcount_inc(&qp->ref);
}

/**
 * siw_qp_put() - drop a reference on a QP
 * @qp: the QP
 *
 * Context: any.
 */
void siw_qp_put(struct siw_qp *qp)
{
	if (refcount_dec_and_test(&qp->ref))
		complete(&qp->freed);
}

/**
 * siw_qp_lookup() - find a live QP by number
 * @qdev: the QP layer's part of the device
 * @qpn: the QP number
 *
 * Context: any.
 * Returns: the QP with a reference taken, or NULL.
 */
struct siw_qp *siw_qp_lookup(struct siw_qp_dev *qdev, u32 qpn)
{
	struct siw_qp *qp;
	unsigned long flags;

	/* under the table lock: destroy erases before it waits */
	xa_lock_irqsave(&qdev->qp_xa, flags);
	qp = xa_load(&qdev->qp_xa, qpn);
	if (qp && !refcount_inc_not_zero(&qp->ref))
		qp = NULL;
	xa_unlock_irqrestore(&qdev->qp_xa, flags);
	return qp;
}

/**
 * siw_qp_event() - raise an asynchronous event on a QP
 * @qp: the QP
 * @type: IB_EVENT_QP_FATAL, IB_EVENT_COMM_EST, ...
 *
 * Context: any; the caller holds no QP lock.
 */
void siw_qp_event(struct siw_qp *qp, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = qp->base.device,
		.event = type,
		.element.qp = &qp->base,
	};

	if (qp->base.event_handler)
		qp->base.event_handler(&ev, qp->base.qp_context);
}

/**
 * siw_qp_enter_locked() - move @qp to state @to, traced
 * @qp: the QP
 * @to: enum siw_qp_state
 *
 * Context: any; caller holds @qp->state_lock.
 */
void siw_qp_enter_locked(struct siw_qp *qp, enum siw_qp_state to)
{
	lockdep_assert_held(&qp->state_lock);
	if (qp->state != to)
		trace_siw_qp_state(qp->base.qp_num, qp->state, to);
	WRITE_ONCE(qp->state, to);
}

/**
 * siw_qp_set_state() - an engine's or the CM's state change
 * @qp: the QP
 * @from: the state the caller expects the QP in
 * @to: the new state
 *
 * Context: any.
 * Returns: true if the QP was in @from and is now in @to.
 */
bool siw_qp_set_state(struct siw_qp *qp, enum siw_qp_state from,
		      enum siw_qp_state to)
{
	unsigned long flags;
	bool done;

	spin_lock_irqsave(&qp->state_lock, flags);
	done = qp->state == from;
	if (done)
		siw_qp_enter_locked(qp, to);
	spin_unlock_irqrestore(&qp->state_lock, flags);
	return done;
}

/**
 * siw_qp_enter_error() - move a QP to ERROR on the device's own account
 * @qp: the QP
 * @event: the async event to raise (IB_EVENT_QP_FATAL,
 *	IB_EVENT_QP_REQ_ERR, IB_EVENT_QP_ACCESS_ERR), or 0 for none
 *
 * Flushes both queues. The engines stop themselves; the CM learns of it
 * through its own path (siw_cm_llp_closed()).
 *
 * Context: any; no QP lock held.
 */
void siw_qp_enter_error(struct siw_qp *qp, enum ib_event_type event)
{
	unsigned long flags;
	bool changed;

	spin_lock_irqsave(&qp->state_lock, flags);
	changed = qp->state != SIW_QP_ERROR;
	siw_qp_enter_locked(qp, SIW_QP_ERROR);
	spin_unlock_irqrestore(&qp->state_lock, flags);
	if (changed && event)
		siw_qp_event(qp, event);
	siw_qp_flush(qp);
}

static int siw_qp_check_init(struct ib_qp_init_attr *attr,
			     const struct siw_wq_caps *caps)
{
	const struct ib_qp_cap *cap = &attr->cap;

	if (attr->qp_type != IB_QPT_RC || attr->create_flags)
		return -EOPNOTSUPP;
	if (!attr->send_cq || !attr->recv_cq)
		return -EINVAL;
	if (cap->max_send_wr > SIW_DEV_MAX_QP_WR ||
	    cap->max_send_sge > caps->max_sge ||
	    cap->max_inline_data > caps->max_inline)
		return -EINVAL;
	if (!attr->srq && (cap->max_recv_wr > SIW_DEV_MAX_QP_WR ||
			   cap->max_recv_sge > caps->max_sge))
		return -EINVAL;
	return 0;
}

/* Rings: ABI entries for a process, struct siw_wqe for the kernel */
static int siw_qp_alloc_rings(struct siw_qp *qp, struct ib_qp_init_attr *attr)
{
	size_t sqe = qp->user ? sizeof(struct siw_sqe) : sizeof(struct siw_wqe);
	size_t rqe = qp->user ? sizeof(struct siw_rqe) : sizeof(struct siw_wqe);

	qp->sq.size = siw_ring_entries(attr->cap.max_send_wr);
	qp->sq.ring = siw_ring_alloc(qp->sq.size * sqe, qp->user);
	if (!qp->sq.ring)
		return -ENOMEM;
	if (qp->user) {
		qp->sq.taken = SIW_FAULT(kvcalloc(qp->sq.size,
						  sizeof(*qp->sq.taken),
						  GFP_KERNEL_ACCOUNT));
		if (!qp->sq.taken)
			return -ENOMEM;
	}
	if (attr->srq)
		return 0;
	qp->rq.size = siw_ring_entries(attr->cap.max_recv_wr);
	qp->rq.ring = siw_ring_alloc(qp->rq.size * rqe, qp->user);
	if (!qp->rq.ring)
		return -ENOMEM;
	return 0;
}

static void siw_qp_free_rings(struct siw_qp *qp)
{
	kvfree(qp->sq.taken);
	siw_ring_free(qp->sq.ring, qp->sq.mmap);
	siw_ring_free(qp->rq.ring, qp->rq.mmap);
}

/*
 * With an SRQ there is no RQ to map, and rq_key stays 0: the provider
 * takes SIW_INVAL_UOBJ_KEY in either key as a failed create.
 */
static int siw_qp_reply(struct siw_qp *qp, struct ib_udata *udata)
{
	struct siw_uresp_create_qp uresp = {
		.qp_id = qp->base.qp_num,
		.num_sqe = qp->sq.size,
		.num_rqe = qp->rq.size,
	};
	int rv;

	if (udata->outlen < sizeof(uresp))
		return -EINVAL;
	rv = siw_ring_export(udata, qp->sq.ring,
			     qp->sq.size * sizeof(struct siw_sqe),
			     &qp->sq.mmap, &uresp.sq_key);
	if (rv)
		return rv;
	if (qp->rq.size) {
		rv = siw_ring_export(udata, qp->rq.ring,
				     qp->rq.size * sizeof(struct siw_rqe),
				     &qp->rq.mmap, &uresp.rq_key);
		if (rv)
			return rv;
	}
	return ib_copy_to_udata(udata, &uresp, sizeof(uresp));
}

static void siw_qp_init_fields(struct siw_qp *qp, struct ib_qp_init_attr *attr,
			       bool user)
{
	qp->qdev = siw_dev_qp(qp->base.device);
	refcount_set(&qp->ref, 1);
	init_completion(&qp->freed);
	mutex_init(&qp->modify_mutex);
	spin_lock_init(&qp->state_lock);
	spin_lock_init(&qp->sq_lock);
	spin_lock_init(&qp->rq_lock);
	qp->state = SIW_QP_IDLE;
	qp->user = user;
	qp->sig_all = attr->sq_sig_type == IB_SIGNAL_ALL_WR;
	qp->scq = to_siw_cq(attr->send_cq);
	qp->rcq = to_siw_cq(attr->recv_cq);
	qp->srq = attr->srq ? to_siw_srq(attr->srq) : NULL;
	qp->ird = SIW_DEV_MAX_IRD_QP;
	qp->ord = SIW_DEV_MAX_ORD_QP;
	qp->sq.caps.user = user;
	qp->sq.caps.max_sge = user ? SIW_MAX_SGE : SIW_DEV_MAX_SGE;
	qp->sq.caps.max_inline = user ? SIW_MAX_INLINE : SIW_DEV_MAX_INLINE;
	qp->rq.caps = qp->sq.caps;
	qp->rq.caps.max_inline = 0;
}

static void siw_qp_report_caps(struct siw_qp *qp, struct ib_qp_cap *cap)
{
	cap->max_send_wr = qp->sq.size;
	cap->max_recv_wr = qp->rq.size;
	cap->max_send_sge = qp->sq.caps.max_sge;
	cap->max_recv_sge = qp->srq ? 0 : qp->rq.caps.max_sge;
	cap->max_inline_data = qp->sq.caps.max_inline;
}

/**
 * siw_create_qp() - the create_qp verb
 * @base: the core's QP
 * @attr: RC only, no create flags; the capabilities granted are
 *	written back
 * @udata: for a process: returns struct siw_uresp_create_qp
 *
 * The QP starts IDLE (INIT to the consumer).
 *
 * Returns: 0 or -errno.
 */
int siw_create_qp(struct ib_qp *base, struct ib_qp_init_attr *attr,
		  struct ib_udata *udata)
{
	struct siw_qp_dev *qdev = siw_dev_qp(base->device);
	struct siw_qp *qp = to_siw_qp(base);
	u32 qpn;
	int rv;

	siw_qp_init_fields(qp, attr, !!udata);
	rv = siw_qp_check_init(attr, &qp->sq.caps);
	if (rv)
		return rv;
	if (atomic_inc_return(&qdev->nr_qp) > SIW_DEV_MAX_QP) {
		rv = -ENOMEM;
		goto err_count;
	}
	rv = siw_qp_alloc_rings(qp, attr);
	if (rv)
		goto err_rings;
	/* reserve the number; publish the QP only once it is complete */
	rv = xa_alloc_cyclic_irq(&qdev->qp_xa, &qpn, NULL,
				 XA_LIMIT(1, SIW_QPN_MAX), &qdev->qp_next,
				 GFP_KERNEL);
	if (rv < 0)
		goto err_rings;
	base->qp_num = qpn;
	if (udata) {
		rv = siw_qp_reply(qp, udata);
		if (rv)
			goto err_qpn;
	}
	xa_store_irq(&qdev->qp_xa, qpn, qp, GFP_KERNEL);
	siw_qp_report_caps(qp, &attr->cap);
	return 0;

err_qpn:
	xa_erase_irq(&qdev->qp_xa, qpn);
err_rings:
	siw_qp_free_rings(qp);
err_count:
	atomic_dec(&qdev->nr_qp);
	return rv;
}

/* Carry out what a consumer's transition asks; modify_mutex held */
static void siw_qp_act(struct siw_qp *qp, enum siw_qp_state old,
		       const struct siw_qp_trans *t)
{
	bool was_live = old == SIW_QP_RTR || old == SIW_QP_RTS;
	bool is_live = t->next == SIW_QP_RTR || t->next == SIW_QP_RTS;

	lockdep_assert_held(&qp->modify_mutex);
	if (was_live && !is_live)
		siw_qp_engine_stop(qp);
	if ((t->actions & (SIW_QP_ACT_CLOSE | SIW_QP_ACT_ABORT)) && qp->cep)
		siw_qp_llp_close(qp, t->actions & SIW_QP_ACT_ABORT);
	if (t->actions & SIW_QP_ACT_FLUSH)
		siw_qp_flush(qp);
	if (t->actions & SIW_QP_ACT_RESET)
		siw_qp_discard(qp);
}

/**
 * siw_destroy_qp() - the destroy_qp verb
 * @base: the QP
 * @udata: user data
 *
 * Moves the QP to ERROR without completions, aborts its stream,
 * then waits until iw_cm and the engines drop their references.
 *
 * Context: process; may sleep.
 * Returns: 0.
 */
int siw_destroy_qp(struct ib_qp *base, struct ib_udata *udata)
{
	struct siw_qp *qp = to_siw_qp(base);
	struct siw_qp_dev *qdev = qp->qdev;
	struct siw_qp_trans t = { .next = SIW_QP_ERROR,
				  .actions = SIW_QP_ACT_ABORT };
	enum siw_qp_state old;
	unsigned long flags;

	mutex_lock(&qp->modify_mutex);
	spin_lock_irqsave(&qp->state_lock, flags);
	old = qp->state;
	siw_qp_enter_locked(qp, SIW_QP_ERROR);
	spin_unlock_irqrestore(&qp->state_lock, flags);
	/* no flush: nobody polls for a destroyed QP's completions */
	siw_qp_act(qp, old, &t);
	mutex_unlock(&qp->modify_mutex);

	xa_erase_irq(&qdev->qp_xa, base->qp_num);
	siw_qp_put(qp);
	wait_for_completion(&qp->freed);

	/* what the entries left hold (a REG_MR its MR) goes with them */
	siw_qp_discard(qp);
	siw_qp_free_rings(qp);
	atomic_dec(&qdev->nr_qp);
	return 0;
}

/**
 * siw_query_qp() - the query_qp verb
 * @base: the QP
 * @attr: filled in whole
 * @mask: ignored: everything is reported
 * @init: filled in whole
 *
 * Returns: 0.
 */
int siw_query_qp(struct ib_qp *base, struct ib_qp_attr *attr, int mask,
		 struct ib_qp_init_attr *init)
{
	struct siw_qp *qp = to_siw_qp(base);
	unsigned long flags;

	memset(attr, 0, sizeof(*attr));
	memset(init, 0, sizeof(*init));
	spin_lock_irqsave(&qp->state_lock, flags);
	attr->qp_state = siw_qp_ib_state(qp->state);
	attr->qp_access_flags = qp->access;
	attr->max_rd_atomic = qp->ord;
	attr->max_dest_rd_atomic = qp->ird;
	spin_unlock_irqrestore(&qp->state_lock, flags);
	attr->cur_qp_state = attr->qp_state;
	attr->path_mtu = ib_mtu_int_to_enum(READ_ONCE(qp->qdev->mtu));
	attr->port_num = 1;
	siw_qp_report_caps(qp, &attr->cap);

	init->event_handler = base->event_handler;
	init->qp_context = base->qp_context;
	init->send_cq = base->send_cq;
	init->recv_cq = base->recv_cq;
	init->srq = base->srq;
	init->cap = attr->cap;
	init->qp_type = IB_QPT_RC;
	init->sq_sig_type = qp->sig_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR;
	init->port_num = 1;
	return 0;
}

#define SIW_QP_ACCESS	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
			 IB_ACCESS_REMOTE_READ)

static int siw_qp_check_attr(const struct ib_qp_attr *attr, int mask)
{
	if ((mask & IB_QP_ACCESS_FLAGS) &&
	    (attr->qp_access_flags & ~SIW_QP_ACCESS))
		return -EINVAL;
	if ((mask & IB_QP_MAX_QP_RD_ATOMIC) &&
	    attr->max_rd_atomic > SIW_DEV_MAX_ORD_QP)
		return -EINVAL;
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > SIW_DEV_MAX_IRD_QP)
		return -EINVAL;
	return 0;
}

/* Check and apply under state_lock; the caller acts on *t afterwards */
static int siw_qp_modify_locked(struct siw_qp *qp, const struct ib_qp_attr *attr,
				int mask, struct siw_qp_trans *t)
{
	int rv;

	lockdep_assert_held(&qp->state_lock);
	if ((mask & IB_QP_CUR_STATE) &&
	    attr->cur_qp_state != siw_qp_ib_state(qp->state))
		return -EINVAL;
	t->next = qp->state;
	t->actions = 0;
	if (mask & IB_QP_STATE) {
		rv = siw_qp_transition(qp->state, !!qp->cep, attr->qp_state,
				       t);
		if (rv)
			return rv;
	}
	if (mask & IB_QP_ACCESS_FLAGS)
		qp->access = attr->qp_access_flags;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		qp->ord = attr->max_rd_atomic;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		qp->ird = attr->max_dest_rd_atomic;
	siw_qp_enter_locked(qp, t->next);
	return 0;
}

/**
 * siw_modify_qp() - the modify_qp verb
 * @base: the QP
 * @attr: new attributes
 * @mask: IB_QP_STATE, IB_QP_CUR_STATE, IB_QP_ACCESS_FLAGS,
 *	IB_QP_MAX_QP_RD_ATOMIC and IB_QP_MAX_DEST_RD_ATOMIC are looked
 *	at; IB-only attributes are accepted and ignored
 * @udata: user data
 *
 * Context: process; may sleep.
 * Returns: 0, or -EINVAL for a transition siw_qp_transition() refuses
 * or a value out of range.
 */
int siw_modify_qp(struct ib_qp *base, struct ib_qp_attr *attr, int mask,
		  struct ib_udata *udata)
{
	struct siw_qp *qp = to_siw_qp(base);
	struct siw_qp_trans t;
	enum siw_qp_state old;
	unsigned long flags;
	int rv;

	rv = siw_qp_check_attr(attr, mask);
	if (rv)
		return rv;
	mutex_lock(&qp->modify_mutex);
	spin_lock_irqsave(&qp->state_lock, flags);
	old = qp->state;
	rv = siw_qp_modify_locked(qp, attr, mask, &t);
	spin_unlock_irqrestore(&qp->state_lock, flags);
	if (!rv)
		siw_qp_act(qp, old, &t);
	mutex_unlock(&qp->modify_mutex);
	return rv;
}
