/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Completion queues. A CQ is a ring of struct siw_cqe (siw-abi.h)
 * followed by the control word that arms it; for a process the ring is
 * mapped into it and polled there, for a kernel consumer poll_cq reads
 * it. An entry belongs to the device while its VALID flag is clear and
 * to the consumer while it is set.
 */
#ifndef SIW_CQ_H
#define SIW_CQ_H

#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <rdma/siw-abi.h>
#include <rdma/uverbs_ioctl.h>

/**
 * struct siw_cq - a completion queue
 * @base: the RDMA core's CQ; @base.cqe is @num_cqe
 * @lock: protects @queue, @num_cqe, @put and @get against concurrent
 *	producers (and, for a kernel CQ, poll_cq and resize_cq)
 * @queue: @num_cqe entries, then the control word
 * @ctrl: the control word after the last entry; a process writes it
 *	to arm the CQ, we clear it when we signal
 * @mmap: the ring's mmap entry (user CQs)
 * @num_cqe: entries, a power of two
 * @put: next entry the device writes (free running)
 * @get: next entry poll_cq reads (kernel CQs; free running)
 * @user: the consumer is a process
 * @overflowed: a completion found the ring full (under @lock); the
 *	consumer is told once, by @overflow_work
 * @overflow_work: in process context, raises IB_EVENT_CQ_ERR and puts
 *	every QP that completes to this CQ in ERROR: a completion was
 *	lost, so nothing that waits for one (ib_drain_qp) may go on
 *	waiting on a QP that looks healthy
 */
struct siw_cq {
	struct ib_cq base;
	spinlock_t lock;	/* see @lock above */
	struct siw_cqe *queue;
	struct siw_cq_ctrl *ctrl;
	struct rdma_user_mmap_entry *mmap;
	u32 num_cqe;
	u32 put;
	u32 get;
	bool user;
	bool overflowed;
	struct work_struct overflow_work;
};

static inline struct siw_cq *to_siw_cq(struct ib_cq *cq)
{
	return container_of(cq, struct siw_cq, base);
}

/**
 * struct siw_cqe_src - a completion as a QP reports it
 * @id: the work request's wr_id
 * @qp: the QP
 * @opcode: enum siw_opcode of the work request
 * @status: verbs status
 * @bytes: octets transferred (receives: received)
 * @inval_stag: STag the peer invalidated (Send with Invalidate)
 * @invalidated: @inval_stag is meaningful
 * @solicited: the completion is a solicited event
 */
struct siw_cqe_src {
	u64 id;
	struct ib_qp *qp;
	u8 opcode;
	enum ib_wc_status status;
	u32 bytes;
	u32 inval_stag;
	bool invalidated;
	bool solicited;
};

int siw_cq_create(struct ib_cq *cq, const struct ib_cq_init_attr *attr,
		  struct ib_udata *udata);
int siw_create_cq(struct ib_cq *cq, const struct ib_cq_init_attr *attr,
		  struct uverbs_attr_bundle *attrs);
int siw_destroy_cq(struct ib_cq *cq, struct ib_udata *udata);
int siw_poll_cq(struct ib_cq *cq, int num_entries, struct ib_wc *wc);
int siw_req_notify_cq(struct ib_cq *cq, enum ib_cq_notify_flags flags);
int siw_resize_cq(struct ib_cq *cq, int cqe, struct ib_udata *udata);

int siw_cq_post(struct siw_cq *cq, const struct siw_cqe_src *src);
void siw_cq_signal(struct siw_cq *cq);

#endif /* SIW_CQ_H */
