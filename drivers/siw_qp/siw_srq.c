// SPDX-License-Identifier: GPL-2.0
/*
 * Shared receive queues: a ring of receive work requests that several
 * QPs take from, and the limit event that tells the consumer to post
 * more.
 */
#include <rdma/siw-abi.h>

#include "siw_mem/siw_limits.h"
#include "siw_mem/siw_umap.h"
#include "siw_qp.h"

static int siw_srq_reply(struct siw_srq *srq, struct ib_udata *udata)
{
	struct siw_uresp_create_srq uresp = { .num_rqe = srq->rq.size };
	int rv;

	if (udata->outlen < sizeof(uresp))
		return -EINVAL;
	rv = siw_ring_export(udata, srq->rq.ring,
			     srq->rq.size * sizeof(struct siw_rqe),
			     &srq->rq.mmap, &uresp.srq_key);
	if (rv)
		return rv;
	return ib_copy_to_udata(udata, &uresp, sizeof(uresp));
}

/**
 * siw_create_srq() - the create_srq verb
 * @base: the core's SRQ
 * @init: basic SRQ; max_wr and max_sge granted are written back
 * @udata: for a process: returns struct siw_uresp_create_srq
 *
 * Returns: 0 or -errno.
 */
int siw_create_srq(struct ib_srq *base, struct ib_srq_init_attr *init,
		   struct ib_udata *udata)
{
	struct siw_qp_dev *qdev = siw_dev_qp(base->device);
	struct siw_srq *srq = to_siw_srq(base);
	struct ib_srq_attr *attr = &init->attr;
	size_t rqe;
	int rv;

	srq->user = !!udata;
	srq->rq.caps.user = srq->user;
	srq->rq.caps.max_sge = udata ? SIW_MAX_SGE : SIW_DEV_MAX_SGE;
	if (init->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	if (!attr->max_wr || attr->max_wr > SIW_DEV_MAX_SRQ_WR ||
	    attr->max_sge > srq->rq.caps.max_sge ||
	    attr->srq_limit > attr->max_wr)
		return -EINVAL;
	if (atomic_inc_return(&qdev->nr_srq) > SIW_DEV_MAX_SRQ) {
		rv = -ENOMEM;
		goto err_count;
	}
	spin_lock_init(&srq->lock);
	srq->rq.size = siw_ring_entries(attr->max_wr);
	rqe = udata ? sizeof(struct siw_rqe) : sizeof(struct siw_wqe);
	srq->rq.ring = siw_ring_alloc(srq->rq.size * rqe, srq->user);
	if (!srq->rq.ring) {
		rv = -ENOMEM;
		goto err_count;
	}
	srq->limit = attr->srq_limit;
	srq->armed = !!srq->limit;
	if (udata) {
		rv = siw_srq_reply(srq, udata);
		if (rv)
			goto err_ring;
	}
	attr->max_wr = srq->rq.size;
	attr->max_sge = srq->rq.caps.max_sge;
	return 0;

err_ring:
	siw_ring_free(srq->rq.ring, srq->rq.mmap);
err_count:
	atomic_dec(&qdev->nr_srq);
	return rv;
}

/**
 * siw_destroy_srq() - the destroy_srq verb
 * @base: the SRQ; no QP uses it any more
 * @udata: user data
 *
 * Returns: 0.
 */
int siw_destroy_srq(struct ib_srq *base, struct ib_udata *udata)
{
	struct siw_srq *srq = to_siw_srq(base);

	siw_ring_free(srq->rq.ring, srq->rq.mmap);
	atomic_dec(&siw_dev_qp(base->device)->nr_srq);
	return 0;
}

/**
 * siw_modify_srq() - the modify_srq verb
 * @base: the SRQ
 * @attr: the new limit
 * @mask: IB_SRQ_LIMIT arms the limit event; IB_SRQ_MAX_WR is refused
 * @udata: user data
 *
 * Returns: 0, -EOPNOTSUPP or -EINVAL.
 */
int siw_modify_srq(struct ib_srq *base, struct ib_srq_attr *attr,
		   enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct siw_srq *srq = to_siw_srq(base);
	unsigned long flags;

	/* the ring is mapped into the process at its size: no resizing */
	if (mask & IB_SRQ_MAX_WR)
		return -EOPNOTSUPP;
	if (!(mask & IB_SRQ_LIMIT))
		return 0;
	if (attr->srq_limit > srq->rq.size)
		return -EINVAL;
	spin_lock_irqsave(&srq->lock, flags);
	srq->limit = attr->srq_limit;
	srq->armed = !!attr->srq_limit;
	spin_unlock_irqrestore(&srq->lock, flags);
	return 0;
}

/**
 * siw_query_srq() - the query_srq verb
 * @base: the SRQ
 * @attr: size, SGEs and the armed limit (0 if not armed)
 *
 * Returns: 0.
 */
int siw_query_srq(struct ib_srq *base, struct ib_srq_attr *attr)
{
	struct siw_srq *srq = to_siw_srq(base);
	unsigned long flags;

	spin_lock_irqsave(&srq->lock, flags);
	attr->max_wr = srq->rq.size;
	attr->max_sge = srq->rq.caps.max_sge;
	attr->srq_limit = srq->armed ? srq->limit : 0;
	spin_unlock_irqrestore(&srq->lock, flags);
	return 0;
}

/*
 * Fewer than @limit entries remain posted if the entry @limit - 1 past
 * the head is free: the consumer fills the ring in order.
 */
static bool siw_srq_below_limit(struct siw_srq *srq)
{
	size_t stride = srq->user ? sizeof(struct siw_rqe) :
				    sizeof(struct siw_wqe);
	u32 idx = (srq->rq.get + srq->limit - 1) & (srq->rq.size - 1);
	const u16 *flags = srq->rq.ring + idx * stride +
			   offsetof(struct siw_wqe, flags);

	/* pairs with the poster's release of the entry */
	return !(smp_load_acquire(flags) & SIW_WQE_VALID);
}

static void siw_srq_event(struct siw_srq *srq)
{
	struct ib_event ev = {
		.device = srq->base.device,
		.event = IB_EVENT_SRQ_LIMIT_REACHED,
		.element.srq = &srq->base,
	};

	if (srq->base.event_handler)
		srq->base.event_handler(&ev, srq->base.srq_context);
}

/**
 * siw_srq_take() - take the next receive work request of an SRQ
 * @srq: the SRQ
 * @wqe: the checked copy; its ring entry is the consumer's again
 *
 * Raises IB_EVENT_SRQ_LIMIT_REACHED, once per arming, when fewer than
 * the limit remain posted.
 *
 * Context: any.
 * Returns: as siw_rq_take().
 */
int siw_srq_take(struct siw_srq *srq, struct siw_wqe *wqe)
{
	unsigned long flags;
	bool event = false;
	int rv;

	spin_lock_irqsave(&srq->lock, flags);
	rv = siw_wq_take(&srq->rq, srq->user, wqe);
	if (rv != -ENOENT && srq->armed && siw_srq_below_limit(srq)) {
		srq->armed = false;
		event = true;
	}
	spin_unlock_irqrestore(&srq->lock, flags);
	if (event)
		siw_srq_event(srq);
	return rv;
}
