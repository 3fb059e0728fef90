/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Queue pairs and shared receive queues: the objects, their work queue
 * rings, the iWARP QP state machine, posting and flushing.
 *
 * The TX and RX engines and the connection manager plug in through the
 * hooks at the end of this file and through the queue accessors
 * (siw_sq_peek(), siw_sq_complete(), siw_rq_take(), siw_rq_complete()).
 *
 * Lock order: @modify_mutex, then @state_lock, then @sq_lock or
 * @rq_lock (or an SRQ's @lock), then a CQ's lock. No lock is held while
 * a consumer's completion or event handler runs.
 */
#ifndef SIW_QP_H
#define SIW_QP_H

#include <linux/completion.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include "siw_cq.h"
#include "siw_wqe.h"

struct siw_cep;
struct siw_mem_table;
struct siw_stats;
struct siw_stream;

/**
 * struct siw_qp_dev - the QP layer's part of a device
 * @qp_xa: QP number to QP, for iw_get_qp; lookups, insertion and removal
 *	under its own (irq-safe) lock
 * @qp_next: cyclic allocation cursor of @qp_xa
 * @nr_qp: live QPs, bounded by SIW_DEV_MAX_QP
 * @nr_cq: live CQs, bounded by SIW_DEV_MAX_CQ
 * @nr_srq: live SRQs, bounded by SIW_DEV_MAX_SRQ
 * @mtu: last MTU seen on the device's netdev, kept by the device
 *	(netdev notifier context); READ_ONCE() to read it
 * @mem: the device's STag table
 * @stats: the device's counters (siw_stats.h), per CPU
 *
 * Embedded in the device, which initializes it and hands it out through
 * siw_dev_qp(); it lives as long as the device.
 */
struct siw_qp_dev {
	struct xarray qp_xa;
	u32 qp_next;
	atomic_t nr_qp;
	atomic_t nr_cq;
	atomic_t nr_srq;
	unsigned int mtu;
	struct siw_mem_table *mem;
	struct siw_stats __percpu *stats;
};

/*
 * What the QP layer needs of a device, implemented by the device
 * (siw_dev/siw_main.c): the QP layer's part of the device behind @ibdev.
 */
struct siw_qp_dev *siw_dev_qp(struct ib_device *ibdev);

/* iWARP QP states (RDMAC verbs), with the IB states they answer to */
enum siw_qp_state {
	SIW_QP_IDLE,		/* INIT (and RESET, which iWARP lacks) */
	SIW_QP_RTR,		/* RTR: may receive */
	SIW_QP_RTS,		/* RTS */
	SIW_QP_CLOSING,		/* SQD: graceful close under way */
	SIW_QP_TERMINATE,	/* SQE: Terminate sent or received */
	SIW_QP_ERROR,		/* ERR */
	SIW_QP_NUM_STATES,
};

/* What a transition does besides changing the state */
#define SIW_QP_ACT_FLUSH	BIT(0)	/* flush SQ and RQ to the CQs */
#define SIW_QP_ACT_CLOSE	BIT(1)	/* graceful close of the stream */
#define SIW_QP_ACT_ABORT	BIT(2)	/* abortive close of the stream */
#define SIW_QP_ACT_RESET	BIT(3)	/* discard the queues */

/**
 * struct siw_qp_trans - the outcome of a consumer's state change
 * @next: enum siw_qp_state to enter
 * @actions: SIW_QP_ACT_*
 */
struct siw_qp_trans {
	u8 next;
	u8 actions;
};

/**
 * struct siw_wq_taken - what completes a process's send work request, as
 *	the device read it
 * @id: its wr_id
 * @opcode: its opcode, as siw_wqe_flush_opcode() reports it
 * @signalled: it asked for a completion
 * @taken: the entry was read (siw_sq_peek()) and is not completed yet
 */
struct siw_wq_taken {
	u64 id;
	u8 opcode;
	bool signalled;
	bool taken;
};

/**
 * struct siw_wq - one work queue ring
 * @ring: user QPs: struct siw_sqe or struct siw_rqe, as in siw-abi.h;
 *	kernel QPs: struct siw_wqe
 * @mmap: the ring's mmap entry (user QPs)
 * @taken: a user QP's send queue: one record per entry of what the
 *	device read from it, for the completion; NULL otherwise
 * @size: entries, a power of two; 0 if the QP has none (SRQ attached)
 * @get: next entry the device consumes (free running)
 * @put: next entry a kernel consumer fills (free running)
 * @caps: what a work request may carry
 *
 * An entry is the consumer's while its VALID flag is clear and the
 * device's while it is set; a process's send queue entry is the
 * device's from the moment it was read (@taken) until it completes,
 * whatever the process writes into it meanwhile.
 */
struct siw_wq {
	void *ring;
	struct rdma_user_mmap_entry *mmap;
	struct siw_wq_taken *taken;
	u32 size;
	u32 get;
	u32 put;
	struct siw_wq_caps caps;
};

/**
 * struct siw_srq - a shared receive queue
 * @base: the RDMA core's SRQ
 * @lock: protects @rq, @limit and @armed
 * @rq: the ring
 * @limit: the limit event fires when fewer entries remain posted
 * @armed: the limit event is armed
 * @user: the consumer is a process
 */
struct siw_srq {
	struct ib_srq base;
	spinlock_t lock;	/* see @lock above */
	struct siw_wq rq;
	u32 limit;
	bool armed;
	bool user;
};

/**
 * struct siw_qp - a queue pair
 * @base: the RDMA core's QP; @base.qp_num is its index in the device's
 *	QP table
 * @qdev: the QP layer's part of the device
 * @ref: one for the QP table, one per iw_add_ref and lookup
 * @freed: completed when @ref drops to zero; destroy waits for it
 * @modify_mutex: serializes state changes asked for by the consumer,
 *	the CM and destroy (process context)
 * @state_lock: protects @state, @ird, @ord, @access and @cep; taken
 *	from any context
 * @state: enum siw_qp_state
 * @user: the consumer is a process
 * @sig_all: every send work request completes (IB_SIGNAL_ALL_WR)
 * @sq_lock: protects @sq (get, put and kernel ring entries)
 * @rq_lock: protects @rq
 * @sq: the send queue
 * @rq: the receive queue (unused with @srq)
 * @srq: the shared receive queue, or NULL
 * @scq: CQ of the send queue
 * @rcq: CQ of the receive queue
 * @ird: inbound RDMA Reads the QP answers at once (responder resources)
 * @ord: outbound RDMA Reads the QP has outstanding at most
 * @access: IB_ACCESS_REMOTE_* the QP lets the peer use
 * @cep: the CM endpoint while a stream is attached, else NULL
 * @stream: the connected stream while one is attached (siw_stream.h),
 *	else NULL
 */
struct siw_qp {
	struct ib_qp base;
	struct siw_qp_dev *qdev;
	refcount_t ref;
	struct completion freed;
	struct mutex modify_mutex;	/* see @modify_mutex above */
	spinlock_t state_lock;		/* see @state_lock above */
	u8 state;
	bool user;
	bool sig_all;
	spinlock_t sq_lock;		/* see @sq_lock above */
	spinlock_t rq_lock;		/* see @rq_lock above */
	struct siw_wq sq;
	struct siw_wq rq;
	struct siw_srq *srq;
	struct siw_cq *scq;
	struct siw_cq *rcq;
	u32 ird;
	u32 ord;
	u32 access;
	struct siw_cep *cep;
	struct siw_stream *stream;
};

static inline struct siw_qp *to_siw_qp(struct ib_qp *qp)
{
	return container_of(qp, struct siw_qp, base);
}

static inline struct siw_srq *to_siw_srq(struct ib_srq *srq)
{
	return container_of(srq, struct siw_srq, base);
}

/* siw_qp_state.c: the state machine, pure */
int siw_qp_transition(enum siw_qp_state cur, bool attached,
		      enum ib_qp_state target, struct siw_qp_trans *t);
enum ib_qp_state siw_qp_ib_state(enum siw_qp_state state);
const char *siw_qp_state_name(enum siw_qp_state state);

/* siw_qp.c: verbs and references */
int siw_create_qp(struct ib_qp *qp, struct ib_qp_init_attr *attr,
		  struct ib_udata *udata);
int siw_destroy_qp(struct ib_qp *qp, struct ib_udata *udata);
int siw_query_qp(struct ib_qp *qp, struct ib_qp_attr *attr, int mask,
		 struct ib_qp_init_attr *init);
int siw_modify_qp(struct ib_qp *qp, struct ib_qp_attr *attr, int mask,
		  struct ib_udata *udata);
void siw_qp_get(struct siw_qp *qp);
void siw_qp_put(struct siw_qp *qp);
struct siw_qp *siw_qp_lookup(struct siw_qp_dev *qdev, u32 qpn);
void siw_qp_event(struct siw_qp *qp, enum ib_event_type type);
void siw_qp_enter_error(struct siw_qp *qp, enum ib_event_type event);
bool siw_qp_set_state(struct siw_qp *qp, enum siw_qp_state from,
		      enum siw_qp_state to);
void siw_qp_enter_locked(struct siw_qp *qp, enum siw_qp_state to);

/**
 * struct siw_sq_done - how a send work request ended, for siw_sq_complete()
 * @bytes: octets it moved
 * @status: its completion status (enum ib_wc_status)
 */
struct siw_sq_done {
	u32 bytes;
	u8 status;
};

/* siw_qp_post.c: posting, flushing and what the engines consume */
int siw_post_send(struct ib_qp *qp, const struct ib_send_wr *wr,
		  const struct ib_send_wr **bad_wr);
int siw_post_recv(struct ib_qp *qp, const struct ib_recv_wr *wr,
		  const struct ib_recv_wr **bad_wr);
void siw_qp_flush(struct siw_qp *qp);
void siw_qp_discard(struct siw_qp *qp);
int siw_sq_peek(struct siw_qp *qp, u32 n, struct siw_wqe *wqe);
bool siw_sq_posted(struct siw_qp *qp, u32 n);
void siw_sq_complete(struct siw_qp *qp, const struct siw_sq_done *done,
		     unsigned int n);
int siw_rq_take(struct siw_qp *qp, struct siw_wqe *wqe);
void siw_rq_complete(struct siw_qp *qp, const struct siw_wqe *wqe,
		     enum ib_wc_status status, u32 bytes, u32 inval_stag,
		     bool invalidated, bool solicited);
int siw_wq_take(struct siw_wq *wq, bool user, struct siw_wqe *wqe);

/* siw_srq.c */
int siw_create_srq(struct ib_srq *srq, struct ib_srq_init_attr *attr,
		   struct ib_udata *udata);
int siw_destroy_srq(struct ib_srq *srq, struct ib_udata *udata);
int siw_modify_srq(struct ib_srq *srq, struct ib_srq_attr *attr,
		   enum ib_srq_attr_mask mask, struct ib_udata *udata);
int siw_query_srq(struct ib_srq *srq, struct ib_srq_attr *attr);
int siw_post_srq_recv(struct ib_srq *srq, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad_wr);
int siw_srq_take(struct siw_srq *srq, struct siw_wqe *wqe);

/*
 * Hooks between the QP and its stream (siw_stream.c): the TX and RX
 * engines and the CM. A QP that never gets a stream only ever stops.
 */

/**
 * siw_qp_sq_kick() - the send queue has new work for a QP in RTS
 * @qp: the QP
 *
 * Context: any; called with no QP lock held. Must not sleep.
 */
void siw_qp_sq_kick(struct siw_qp *qp);

/**
 * siw_qp_sq_send() - a process rang the doorbell of its QP in RTS
 * @qp: the QP
 *
 * Like siw_qp_sq_kick(), but an idle stream sends the next message from
 * the calling thread.
 *
 * Context: process (the doorbell's system call); no lock held. May sleep.
 */
void siw_qp_sq_send(struct siw_qp *qp);

/**
 * siw_qp_engine_stop() - the QP left RTR/RTS: stop transmitting and
 *	receiving, complete the work request in progress (if any) with
 *	IB_WC_WR_FLUSH_ERR through siw_sq_complete()/siw_rq_complete()
 * @qp: the QP, now in CLOSING, TERMINATE, ERROR or IDLE
 *
 * Context: process; @qp->modify_mutex held. May sleep.
 */
void siw_qp_engine_stop(struct siw_qp *qp);

/**
 * siw_qp_fatal() - fail a QP on the device's own account (its CQ lost a
 *	completion): a connected QP sends a Terminate (RDMAP, local
 *	catastrophic error) and the CM closes it; any other goes to ERROR
 *	at once. The consumer gets IB_EVENT_QP_FATAL either way.
 * @qp: the QP, referenced by the caller
 *
 * Context: process; no QP lock held. May sleep.
 */
void siw_qp_fatal(struct siw_qp *qp);

/**
 * siw_qp_llp_close() - ask the CM to close the QP's stream
 * @qp: the QP
 * @abrupt: reset instead of a graceful close
 *
 * Context: process; @qp->modify_mutex held. Only called with a
 * stream attached (@qp->cep set).
 */
void siw_qp_llp_close(struct siw_qp *qp, bool abrupt);

/* siw_qp_res.c */
int siw_qp_fill_res_entry(struct sk_buff *msg, struct ib_qp *qp);

/* siw_stream.c: module load and unload (the transmit workqueue) */
int siw_stream_init(void);
void siw_stream_exit(void);

#endif /* SIW_QP_H */
