// SPDX-License-Identifier: GPL-2.0
/*
 * Completion queues: the ring shared with the consumer, arming and
 * signalling, and poll_cq for kernel consumers.
 */
#include <kunit/visibility.h>
#include <linux/vmalloc.h>

#include "siw_mem/siw_limits.h"
#include "siw_mem/siw_umap.h"
#include "siw_cq.h"
#include "siw_qp.h"
#include "siw_wqe.h"
#include "siw_trace.h"

static void siw_cq_event(struct siw_cq *cq, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = cq->base.device,
		.event = type,
		.element.cq = &cq->base,
	};

	if (cq->base.event_handler)
		cq->base.event_handler(&ev, cq->base.cq_context);
}

/*
 * A completion was lost. The consumer hears of it here, in process
 * context and with no lock of ours held (siw_cq_post() runs under QP
 * locks, and an event handler may call back into the device). Every QP
 * whose send or receive completions go to this CQ is failed: each one
 * may have lost a completion, and a QP left in its state would have a
 * consumer wait for it forever.
 */
static void siw_cq_overflow_work(struct work_struct *w)
{
	struct siw_cq *cq = container_of(w, struct siw_cq, overflow_work);
	struct siw_qp_dev *qdev = siw_dev_qp(cq->base.device);
	unsigned long i = 0, flags;
	struct siw_qp *qp;

	siw_cq_event(cq, IB_EVENT_CQ_ERR);
	for (;;) {
		xa_lock_irqsave(&qdev->qp_xa, flags);
		qp = xa_find(&qdev->qp_xa, &i, ULONG_MAX, XA_PRESENT);
		if (qp && ((qp->scq != cq && qp->rcq != cq) ||
			   !refcount_inc_not_zero(&qp->ref)))
			qp = ERR_PTR(-ENOENT);
		xa_unlock_irqrestore(&qdev->qp_xa, flags);
		if (!qp)
			break;
		if (!IS_ERR(qp)) {
			trace_siw_cq_overflow(qp->base.qp_num);
			siw_qp_fatal(qp);
			siw_qp_put(qp);
		}
		i++;
	}
}

static int siw_cq_reply(struct siw_cq *cq, struct ib_udata *udata,
			size_t bytes)
{
	struct siw_uresp_create_cq uresp = {
		.num_cqe = cq->num_cqe,
		.cq_id = 0,
	};
	int rv;

	if (udata->outlen < sizeof(uresp))
		return -EINVAL;
	rv = siw_ring_export(udata, cq->queue, bytes, &cq->mmap,
			     &uresp.cq_key);
	if (rv)
		return rv;
	return ib_copy_to_udata(udata, &uresp, sizeof(uresp));
}

/**
 * siw_cq_create() - make a CQ, the work of the create_cq verb
 * @base: the core's CQ
 * @attr: entries wanted; no flags
 * @udata: for a process: returns struct siw_uresp_create_cq
 *
 * Returns: 0 or -errno.
 */
int siw_cq_create(struct ib_cq *base, const struct ib_cq_init_attr *attr,
		  struct ib_udata *udata)
{
	struct siw_qp_dev *qdev = siw_dev_qp(base->device);
	struct siw_cq *cq = to_siw_cq(base);
	size_t bytes;
	int rv;

	if (attr->flags)
		return -EOPNOTSUPP;
	if (attr->cqe < 1 || attr->cqe > SIW_DEV_MAX_CQE)
		return -EINVAL;
	if (atomic_inc_return(&qdev->nr_cq) > SIW_DEV_MAX_CQ) {
		rv = -ENOMEM;
		goto err_count;
	}
	spin_lock_init(&cq->lock);
	INIT_WORK(&cq->overflow_work, siw_cq_overflow_work);
	cq->user = !!udata;
	cq->num_cqe = siw_ring_entries(attr->cqe);
	bytes = siw_cq_ring_bytes(cq->num_cqe);
	cq->queue = siw_ring_alloc(bytes, cq->user);
	if (!cq->queue) {
		rv = -ENOMEM;
		goto err_count;
	}
	cq->ctrl = (struct siw_cq_ctrl *)&cq->queue[cq->num_cqe];
	base->cqe = cq->num_cqe;
	if (udata) {
		rv = siw_cq_reply(cq, udata, bytes);
		if (rv)
			goto err_ring;
	}
	return 0;

err_ring:
	siw_ring_free(cq->queue, cq->mmap);
err_count:
	atomic_dec(&qdev->nr_cq);
	return rv;
}
EXPORT_SYMBOL_IF_KUNIT(siw_cq_create);

/**
 * siw_create_cq() - the create_cq verb
 * @base: the core's CQ
 * @attr: entries wanted; no flags
 * @attrs: a process's call, whose driver udata takes struct
 *	siw_uresp_create_cq; NULL for a kernel consumer
 *
 * Returns: 0 or -errno.
 */
int siw_create_cq(struct ib_cq *base, const struct ib_cq_init_attr *attr,
		  struct uverbs_attr_bundle *attrs)
{
	return siw_cq_create(base, attr, attrs ? &attrs->driver_udata : NULL);
}

/**
 * siw_destroy_cq() - the destroy_cq verb
 * @base: the CQ; no QP uses it any more
 * @udata: user data
 *
 * Returns: 0.
 */
int siw_destroy_cq(struct ib_cq *base, struct ib_udata *udata)
{
	struct siw_cq *cq = to_siw_cq(base);

	/* no QP completes here any more: only a report may be pending */
	cancel_work_sync(&cq->overflow_work);
	siw_ring_free(cq->queue, cq->mmap);
	atomic_dec(&siw_dev_qp(base->device)->nr_cq);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(siw_destroy_cq);

/* Should this completion raise the consumer's completion handler? */
static bool siw_cq_armed_for(struct siw_cq *cq, bool solicited)
{
	u32 f = READ_ONCE(cq->ctrl->flags);

	if (!(f & SIW_NOTIFY_NEXT_COMPLETION) &&
	    !((f & SIW_NOTIFY_SOLICITED) && solicited))
		return false;
	/* one event per arming; a racing re-arm by the process wins */
	return cmpxchg(&cq->ctrl->flags, f, SIW_NOTIFY_NOT) == f;
}

/**
 * siw_cq_post() - add a completion to a CQ
 * @cq: the CQ
 * @src: the completion
 *
 * Context: any; takes @cq->lock. The caller calls siw_cq_signal() if
 * this returns 1, once it holds no lock of its own.
 * Returns: 1 if the consumer must be signalled, 0 if not, -ENOSPC if
 * the CQ overflowed: the completion is lost, and (the first time) the
 * consumer gets IB_EVENT_CQ_ERR and the CQ's QPs go to ERROR, from a
 * work item.
 */
int siw_cq_post(struct siw_cq *cq, const struct siw_cqe_src *src)
{
	struct siw_cqe *cqe;
	unsigned long flags;
	bool signal;

	spin_lock_irqsave(&cq->lock, flags);
	cqe = &cq->queue[cq->put & (cq->num_cqe - 1)];
	/* pairs with the consumer's clearing: it has read the entry */
	if (smp_load_acquire(&cqe->flags) & SIW_WQE_VALID) {
		bool first = !cq->overflowed;

		cq->overflowed = true;
		spin_unlock_irqrestore(&cq->lock, flags);
		if (first)
			schedule_work(&cq->overflow_work);
		return -ENOSPC;
	}
	cqe->id = src->id;
	cqe->opcode = src->opcode;
	cqe->status = siw_wc_status_to_abi(src->status);
	cqe->bytes = src->bytes;
	cqe->inval_stag = src->invalidated ? src->inval_stag : 0;
	if (cq->user)
		cqe->qp_id = src->qp->qp_num;
	else
		cqe->base_qp = src->qp;
	/* the entry's contents before its VALID flag, for the consumer */
	smp_store_release(&cqe->flags, SIW_WQE_VALID |
			  (src->invalidated ? SIW_WQE_REM_INVAL : 0));
	cq->put++;
	signal = siw_cq_armed_for(cq, src->solicited);
	spin_unlock_irqrestore(&cq->lock, flags);
	return signal;
}

/**
 * siw_cq_signal() - call the consumer's completion handler
 * @cq: a CQ siw_cq_post() said to signal
 *
 * Context: any; the caller holds no QP or CQ lock (the handler may post
 * or poll).
 */
void siw_cq_signal(struct siw_cq *cq)
{
	if (cq->base.comp_handler)
		cq->base.comp_handler(&cq->base, cq->base.cq_context);
}

static void siw_cqe_to_wc(const struct siw_cqe *cqe, struct ib_wc *wc)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = cqe->id;
	wc->status = siw_wc_status_from_abi(cqe->status);
	wc->opcode = siw_wc_opcode(cqe->opcode);
	wc->byte_len = cqe->bytes;
	wc->qp = cqe->base_qp;
	if (cqe->flags & SIW_WQE_REM_INVAL) {
		wc->wc_flags = IB_WC_WITH_INVALIDATE;
		wc->ex.invalidate_rkey = cqe->inval_stag;
	}
}

/**
 * siw_poll_cq() - the poll_cq verb (kernel CQs)
 * @base: the CQ
 * @num_entries: room in @wc
 * @wc: the completions
 *
 * Context: any.
 * Returns: the number of completions taken.
 */
int siw_poll_cq(struct ib_cq *base, int num_entries, struct ib_wc *wc)
{
	struct siw_cq *cq = to_siw_cq(base);
	unsigned long flags;
	int n;

	spin_lock_irqsave(&cq->lock, flags);
	for (n = 0; n < num_entries; n++) {
		struct siw_cqe *cqe = &cq->queue[cq->get & (cq->num_cqe - 1)];

		if (!(cqe->flags & SIW_WQE_VALID))
			break;
		siw_cqe_to_wc(cqe, &wc[n]);
		WRITE_ONCE(cqe->flags, 0);
		cq->get++;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(siw_poll_cq);

/**
 * siw_req_notify_cq() - the req_notify_cq verb (kernel CQs)
 * @base: the CQ
 * @flags: IB_CQ_SOLICITED or IB_CQ_NEXT_COMP, and
 *	IB_CQ_REPORT_MISSED_EVENTS
 *
 * Context: any.
 * Returns: 1 if asked to report missed events and completions are
 * waiting, else 0.
 */
int siw_req_notify_cq(struct ib_cq *base, enum ib_cq_notify_flags flags)
{
	struct siw_cq *cq = to_siw_cq(base);
	u32 arm = SIW_NOTIFY_SOLICITED;
	unsigned long irq;
	int missed = 0;

	if ((flags & IB_CQ_SOLICITED_MASK) == IB_CQ_NEXT_COMP)
		arm |= SIW_NOTIFY_NEXT_COMPLETION;
	/* under the lock siw_cq_post() looks at it with: nothing is lost */
	spin_lock_irqsave(&cq->lock, irq);
	WRITE_ONCE(cq->ctrl->flags, arm);
	if (flags & IB_CQ_REPORT_MISSED_EVENTS)
		missed = cq->put != cq->get;
	spin_unlock_irqrestore(&cq->lock, irq);
	return missed;
}

/* Move the pending entries of @cq to @ring of @n entries; caller locks */
static void siw_cq_move(struct siw_cq *cq, struct siw_cqe *ring, u32 n)
{
	u32 pending = cq->put - cq->get, i;

	for (i = 0; i < pending; i++)
		ring[i] = cq->queue[(cq->get + i) & (cq->num_cqe - 1)];
	((struct siw_cq_ctrl *)&ring[n])->flags = cq->ctrl->flags;
	cq->queue = ring;
	cq->ctrl = (struct siw_cq_ctrl *)&ring[n];
	cq->num_cqe = n;
	cq->get = 0;
	cq->put = pending;
}

/**
 * siw_resize_cq() - the resize_cq verb (kernel CQs only)
 * @base: the CQ
 * @cqe: entries wanted
 * @udata: set for a process: refused
 *
 * Returns: 0, -EOPNOTSUPP for a user CQ, -EINVAL if the pending
 * completions do not fit, or -ENOMEM.
 */
int siw_resize_cq(struct ib_cq *base, int cqe, struct ib_udata *udata)
{
	struct siw_cq *cq = to_siw_cq(base);
	struct siw_cqe *ring, *old;
	unsigned long flags;
	u32 n;

	/* the provider maps its ring once: only kernel CQs can grow */
	if (cq->user || udata)
		return -EOPNOTSUPP;
	if (cqe < 1 || cqe > SIW_DEV_MAX_CQE)
		return -EINVAL;
	n = siw_ring_entries(cqe);
	ring = siw_ring_alloc(siw_cq_ring_bytes(n), false);
	if (!ring)
		return -ENOMEM;
	spin_lock_irqsave(&cq->lock, flags);
	if (cq->put - cq->get > n) {
		spin_unlock_irqrestore(&cq->lock, flags);
		vfree(ring);
		return -EINVAL;
	}
	old = cq->queue;
	siw_cq_move(cq, ring, n);
	base->cqe = n;
	spin_unlock_irqrestore(&cq->lock, flags);
	vfree(old);
	return 0;
}
