// SPDX-License-Identifier: GPL-2.0
/*
 * The endpoint: its table, references, work item and timer, and the
 * executor that carries out what the state machine asks for, one action
 * bit at a time, in the table's order.
 */
#include <linux/errno.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include <rdma/iw_cm.h>

#include "cm_internal.h"
#include "siw_cm_qp.h"
#include "cm_trace.h"
#include "siw_stats.h"
#include "siw_trace.h"
#include "siw_fault.h"

/* Live endpoints by id; the entry holds one reference */
static DEFINE_XARRAY_ALLOC1(siw_cep_table);
static u32 siw_cep_next_id;		/* xa_alloc_cyclic()'s cursor */
static atomic_t siw_cep_serial;

struct workqueue_struct *siw_cm_wq;

static void siw_cep_work(struct work_struct *w);
static void siw_cep_timeout(struct work_struct *w);

/**
 * siw_cep_alloc() - a new endpoint in the table
 * @ibdev: its device
 * @initiator: it will connect (else a listener accepted it)
 *
 * The policy is the device's as of now: the module parameters with the
 * device's knobs applied.
 *
 * Context: process.
 * Returns: the endpoint with two references, the table's and the
 * caller's, or NULL.
 */
struct siw_cep *siw_cep_alloc(struct ib_device *ibdev, bool initiator)
{
	struct siw_cm_policy pol;
	struct siw_cep *cep;

	cep = SIW_FAULT(kzalloc(sizeof(*cep), GFP_KERNEL));
	if (!cep)
		return NULL;
	kref_init(&cep->ref);
	mutex_init(&cep->lock);
	INIT_LIST_HEAD(&cep->lsn_entry);
	INIT_WORK(&cep->work, siw_cep_work);
	INIT_DELAYED_WORK(&cep->timer, siw_cep_timeout);
	cep->ibdev = ibdev;
	siw_cm_dev_policy(ibdev, &pol);
	siw_cm_fsm_init(&cep->fsm, initiator, &pol.mpa, &pol.tmo);
	cep->nodelay = pol.nodelay;
	cep->serial = (u32)atomic_inc_return(&siw_cep_serial);
	if (xa_alloc_cyclic(&siw_cep_table, &cep->id, cep, xa_limit_31b,
			    &siw_cep_next_id, GFP_KERNEL) < 0) {
		kfree(cep);
		return NULL;
	}
	kref_get(&cep->ref);
	return cep;
}

static void siw_cep_free(struct kref *ref)
{
	struct siw_cep *cep = container_of(ref, struct siw_cep, ref);

	WARN_ON(cep->sock || cep->cm_id || cep->qp || cep->lsn);
	kfree_rcu(cep, rcu);
}

/**
 * siw_cep_get() - take a reference on an endpoint
 * @cep: an endpoint the caller holds a reference on
 *
 * Context: any.
 */
void siw_cep_get(struct siw_cep *cep)
{
	kref_get(&cep->ref);
}

/* See siw_cm_qp.h */
void siw_cep_put(struct siw_cep *cep)
{
	kref_put(&cep->ref, siw_cep_free);
}

/**
 * siw_cep_lookup() - the live endpoint at an index of the table
 * @id: the index
 *
 * Context: any.
 * Returns: the endpoint with a reference for the caller, or NULL if
 * there is none.
 */
static struct siw_cep *siw_cep_lookup(u32 id)
{
	struct siw_cep *cep;

	rcu_read_lock();
	cep = xa_load(&siw_cep_table, id);
	if (cep && !kref_get_unless_zero(&cep->ref))
		cep = NULL;
	rcu_read_unlock();
	return cep;
}

/**
 * siw_cep_handle() - what iw_cm keeps in a cm_id's provider_data
 * @cep: the endpoint
 *
 * A connection can end while its request waits for the consumer, and
 * its table index then goes to a new endpoint sooner or later (indexes
 * are handed out in a cycle of 2^31); the consumer's late accept or
 * reject must not reach that one. The handle carries the serial number
 * too, in the upper half of a 64-bit pointer; a 32-bit kernel has only
 * the cycle.
 *
 * Context: any.
 * Returns: the handle; never NULL (indexes start at 1).
 */
void *siw_cep_handle(const struct siw_cep *cep)
{
	u64 h = (u64)cep->serial << 32 | cep->id;

	return (void *)(uintptr_t)h;
}

/**
 * siw_cep_from_handle() - the live endpoint a cm_id names
 * @handle: from cm_id->provider_data, made by siw_cep_handle()
 *
 * Context: any.
 * Returns: the endpoint with a reference for the caller, or NULL if it
 * is gone (even when its index was given to another one since).
 */
struct siw_cep *siw_cep_from_handle(const void *handle)
{
	struct siw_cep *cep = siw_cep_lookup(lower_32_bits((uintptr_t)handle));

	if (cep && siw_cep_handle(cep) != handle) {
		siw_cep_put(cep);
		cep = NULL;
	}
	return cep;
}

/**
 * siw_cep_table_empty() - are all endpoints gone?
 *
 * Context: any.
 * Returns: true if the table is empty.
 */
bool siw_cep_table_empty(void)
{
	return xa_empty(&siw_cep_table);
}

/**
 * siw_cep_kick() - note an event and make sure the work item runs
 * @cep: an endpoint the caller holds a reference on
 * @what: the event
 *
 * Context: any; never sleeps.
 */
void siw_cep_kick(struct siw_cep *cep, enum siw_cep_pending what)
{
	set_bit(what, &cep->pending);
	if (queue_work(siw_cm_wq, &cep->work))
		siw_cep_get(cep);
}

/* See siw_cm_qp.h */
void siw_cm_llp_closed(struct siw_cep *cep, int err)
{
	WRITE_ONCE(cep->llp_err, err);
	siw_cep_kick(cep, SIW_CEP_P_LLP_CLOSED);
}

/* See siw_cm_qp.h */
void siw_cm_qp_disconnect(struct siw_cep *cep, bool abrupt)
{
	siw_cep_kick(cep, abrupt ? SIW_CEP_P_ABORT : SIW_CEP_P_DISCONNECT);
}

/* See siw_cm_qp.h */
void siw_cm_rtr_received(struct siw_cep *cep, enum siw_mpa_rtr rtr)
{
	WRITE_ONCE(cep->rtr, rtr);
	siw_cep_kick(cep, SIW_CEP_P_RTR);
}

/**
 * siw_cep_set_cm_id() - the endpoint reports to a cm_id from now on
 * @cep: the endpoint, locked
 * @cm_id: the consumer's cm_id; a reference is taken
 *
 * Context: process, @cep->lock held.
 */
void siw_cep_set_cm_id(struct siw_cep *cep, struct iw_cm_id *cm_id)
{
	lockdep_assert_held(&cep->lock);
	if (cep->cm_id)
		return;
	cm_id->add_ref(cm_id);
	cep->cm_id = cm_id;
}

/**
 * siw_cep_set_qp() - the QP the connection will hand its stream to
 * @cep: the endpoint, locked
 * @qp: the QP; a reference is taken through the device's iw_add_ref
 *
 * Context: process, @cep->lock held.
 */
void siw_cep_set_qp(struct siw_cep *cep, struct ib_qp *qp)
{
	lockdep_assert_held(&cep->lock);
	if (cep->qp)
		return;
	qp->device->ops.iw_add_ref(qp);
	cep->qp = qp;
}

/**
 * siw_cep_release_ids() - drop the cm_id and the QP
 * @cep: the endpoint, locked
 *
 * After this no upcall reaches the consumer.
 *
 * Context: process, @cep->lock held.
 */
void siw_cep_release_ids(struct siw_cep *cep)
{
	struct iw_cm_id *cm_id = cep->cm_id;
	struct ib_qp *qp = cep->qp;

	lockdep_assert_held(&cep->lock);
	cep->cm_id = NULL;
	cep->qp = NULL;
	if (qp)
		qp->device->ops.iw_rem_ref(qp);
	if (cm_id)
		cm_id->rem_ref(cm_id);
}

/* Upcalls */

static void siw_cep_event(struct siw_cep *cep, struct iw_cm_event *ev,
			  enum iw_cm_event_type type, int status)
{
	const struct siw_mpa_frame *peer = siw_cm_fsm_peer(&cep->fsm);

	memset(ev, 0, sizeof(*ev));
	ev->event = type;
	ev->status = status;
	ev->local_addr = cep->laddr;
	ev->remote_addr = cep->raddr;
	if (peer && (type == IW_CM_EVENT_CONNECT_REQUEST ||
		     type == IW_CM_EVENT_CONNECT_REPLY)) {
		ev->private_data = (void *)peer->pd;
		ev->private_data_len = min_t(u16, peer->pd_len, U8_MAX);
	}
	if (peer) {
		ev->ird = siw_cm_fsm_peer_ird(&cep->fsm);
		ev->ord = siw_cm_fsm_peer_ord(&cep->fsm);
	}
}

static void siw_cep_up(struct siw_cep *cep, enum iw_cm_event_type type,
		       int status)
{
	struct iw_cm_event ev;

	if (!cep->cm_id)
		return;
	siw_cep_event(cep, &ev, type, status);
	cep->cm_id->event_handler(cep->cm_id, &ev);
}

static void siw_cep_a_up_request(struct siw_cep *cep,
				 const struct siw_cm_step *st)
{
	struct iw_cm_event ev;

	siw_cep_event(cep, &ev, IW_CM_EVENT_CONNECT_REQUEST, 0);
	ev.provider_data = siw_cep_handle(cep);
	/* listener gone, or iw_cm could not take it: nobody will decide */
	if (!siw_listener_upcall(cep, &ev))
		siw_cep_kick(cep, SIW_CEP_P_DESTROY);
}

static void siw_cep_a_up_reply(struct siw_cep *cep,
			       const struct siw_cm_step *st)
{
	siw_cep_up(cep, IW_CM_EVENT_CONNECT_REPLY, st->status);
	/* a failed connect ends iw_cm's interest in the cm_id and QP */
	if (st->status)
		siw_cep_release_ids(cep);
}

static void siw_cep_a_up_established(struct siw_cep *cep,
				     const struct siw_cm_step *st)
{
	siw_cep_up(cep, IW_CM_EVENT_ESTABLISHED, 0);
}

static void siw_cep_a_up_disconnect(struct siw_cep *cep,
				    const struct siw_cm_step *st)
{
	siw_cep_up(cep, IW_CM_EVENT_DISCONNECT, 0);
}

static void siw_cep_a_up_close(struct siw_cep *cep,
			       const struct siw_cm_step *st)
{
	siw_cep_up(cep, IW_CM_EVENT_CLOSE, 0);
	siw_cep_release_ids(cep);
}

/* TCP and MPA frames */

static void siw_cep_a_connect(struct siw_cep *cep,
			      const struct siw_cm_step *st)
{
	int rv = siw_cep_sock_connect(cep, &cep->cm_id->m_remote_addr);

	if (rv && rv != -EINPROGRESS) {
		cep->llp_err = rv;
		siw_cep_kick(cep, SIW_CEP_P_SOCK);
	}
}

static void siw_cep_a_recv(struct siw_cep *cep, const struct siw_cm_step *st)
{
	/* the frame may be in the socket already */
	siw_cep_kick(cep, SIW_CEP_P_SOCK);
}

static void siw_cep_a_send_frame(struct siw_cep *cep,
				 const struct siw_cm_step *st)
{
	if (!cep->fsm.out_len)
		return;
	if (siw_cep_sock_send(cep, cep->fsm.out, cep->fsm.out_len))
		siw_cep_kick(cep, SIW_CEP_P_SOCK);
}

/* The QP */

/*
 * The QP would not send the RTR or go to RTS. Mostly it refused nothing:
 * the peer's Terminate or close reached it first (the initiator answers
 * a Reply it cannot take with a Terminate right away), and it reports
 * the stream's end as it stops. The work item decides after that report
 * (see siw_cep_qp_refused()), so that only a real refusal is logged.
 */
static void siw_cep_qp_failed(struct siw_cep *cep, int rv)
{
	WRITE_ONCE(cep->qp_err, rv);
	siw_cep_kick(cep, SIW_CEP_P_QP_FAILED);
}

static void siw_cep_a_qp_attach(struct siw_cep *cep,
				const struct siw_cm_step *st)
{
	int rv;

	trace_siw_cm_mpa(cep->id, &cep->fsm.conn);
	siw_cep_sock_detach(cep);
	siw_cep_get(cep);
	rv = siw_qp_cm_attach(cep->qp, cep, cep->sock, &cep->fsm.conn,
			      cep->fsm.initiator);
	cep->qp_holds_cep = !rv;
	if (!rv)
		return;
	siw_cep_put(cep);
	pr_warn_ratelimited("siw_cm: cep %u: QP refused the stream: %d\n",
			    cep->id, rv);
	/*
	 * The socket is still ours: hear it again, and close in order, so
	 * that the frame just sent reaches the peer before our FIN. A
	 * responder waiting for the RTR has promised nothing yet: reset.
	 */
	siw_cep_sock_attach(cep, cep->sock);
	siw_cep_kick(cep, cep->fsm.state == SIW_CM_ESTABLISHED ?
		     SIW_CEP_P_DISCONNECT : SIW_CEP_P_ABORT);
}

static void siw_cep_a_qp_rtr(struct siw_cep *cep, const struct siw_cm_step *st)
{
	int rv;

	if (!cep->qp_holds_cep)
		return;
	rv = siw_qp_cm_send_rtr(cep->qp, cep->fsm.conn.rtr);
	if (rv)
		siw_cep_qp_failed(cep, rv);
}

static void siw_cep_a_qp_rts(struct siw_cep *cep, const struct siw_cm_step *st)
{
	int rv;

	if (!cep->qp_holds_cep)
		return;
	rv = siw_qp_cm_rts(cep->qp);
	if (rv)
		siw_cep_qp_failed(cep, rv);
}

static void siw_cep_a_qp_term(struct siw_cep *cep,
			      const struct siw_cm_step *st)
{
	trace_siw_cm_mpa(cep->id, &cep->fsm.conn);
	pr_info_ratelimited("siw_cm: cep %u: MPA setup failed: %s, Terminate code %u\n",
			    cep->id, siw_mpa_reason_name(cep->fsm.conn.reason),
			    cep->fsm.term);
	if (cep->qp_holds_cep)
		siw_qp_cm_terminate(cep->qp, cep->fsm.term);
}

static void siw_cep_a_qp_detach(struct siw_cep *cep,
				const struct siw_cm_step *st)
{
	if (!cep->qp_holds_cep)
		return;
	cep->qp_holds_cep = false;
	siw_qp_cm_detach(cep->qp);
}

/* The socket's end */

static void siw_cep_a_shutdown(struct siw_cep *cep,
			       const struct siw_cm_step *st)
{
	if (cep->sock)
		kernel_sock_shutdown(cep->sock, SHUT_WR);
}

static void siw_cep_a_close(struct siw_cep *cep, const struct siw_cm_step *st)
{
	siw_cep_sock_release(cep, false);
}

static void siw_cep_a_abort(struct siw_cep *cep, const struct siw_cm_step *st)
{
	siw_cep_sock_release(cep, true);
}

typedef void (*siw_cep_action_fn)(struct siw_cep *cep,
				  const struct siw_cm_step *st);

static const siw_cep_action_fn siw_cep_actions[SIW_CM_NUM_ACTIONS] = {
	[SIW_CM_A_TCP_CONNECT_BIT]	= siw_cep_a_connect,
	[SIW_CM_A_RECV_BIT]		= siw_cep_a_recv,
	[SIW_CM_A_SEND_FRAME_BIT]	= siw_cep_a_send_frame,
	[SIW_CM_A_QP_ATTACH_BIT]	= siw_cep_a_qp_attach,
	[SIW_CM_A_QP_RTR_BIT]		= siw_cep_a_qp_rtr,
	[SIW_CM_A_QP_RTS_BIT]		= siw_cep_a_qp_rts,
	[SIW_CM_A_QP_TERM_BIT]		= siw_cep_a_qp_term,
	[SIW_CM_A_QP_DETACH_BIT]	= siw_cep_a_qp_detach,
	[SIW_CM_A_SHUTDOWN_BIT]		= siw_cep_a_shutdown,
	[SIW_CM_A_CLOSE_BIT]		= siw_cep_a_close,
	[SIW_CM_A_ABORT_BIT]		= siw_cep_a_abort,
	[SIW_CM_A_UP_REQUEST_BIT]	= siw_cep_a_up_request,
	[SIW_CM_A_UP_REPLY_BIT]		= siw_cep_a_up_reply,
	[SIW_CM_A_UP_ESTABLISHED_BIT]	= siw_cep_a_up_established,
	[SIW_CM_A_UP_DISCONNECT_BIT]	= siw_cep_a_up_disconnect,
	[SIW_CM_A_UP_CLOSE_BIT]		= siw_cep_a_up_close,
};

/* Stop the running timer; arm the one @st asks for */
static void siw_cep_timer(struct siw_cep *cep, const struct siw_cm_step *st)
{
	cep->tseq++;
	if (cancel_delayed_work(&cep->timer))
		siw_cep_put(cep);
	if (st->timer == SIW_CM_T_NONE)
		return;
	cep->tseq_armed = cep->tseq;
	siw_cep_get(cep);
	if (!queue_delayed_work(siw_cm_wq, &cep->timer,
				msecs_to_jiffies(st->timeout_ms)))
		siw_cep_put(cep);
}

/* The state machine reached "closed": let go of everything */
static void siw_cep_closed(struct siw_cep *cep)
{
	siw_cep_sock_release(cep, true);
	siw_cep_release_ids(cep);
	siw_listener_forget(cep);
	if (xa_erase(&siw_cep_table, cep->id) == cep)
		siw_cep_put(cep);
}

/*
 * What a step means to the device's counters and the siw trace: a
 * connection set up, a setup that failed (a step from a state before
 * ESTABLISHED to one past it), an MPA reject sent or received
 */
static void siw_cep_count(struct siw_cep *cep, const struct siw_cm_step *st)
{
	bool before = st->from != SIW_CM_IDLE && st->from < SIW_CM_ESTABLISHED;

	/*
	 * A closed endpoint may outlive its device (siw_cep_destroy_all()
	 * closes them all before the device goes): touch it only before
	 */
	if (st->from == SIW_CM_CLOSED)
		return;
	if (before && st->to == SIW_CM_ESTABLISHED) {
		siw_stats_count(cep->ibdev, SIW_STAT_CONN_SETUPS);
		trace_siw_conn_setup(cep->id, cep->fsm.initiator, true, 0);
	} else if (before && st->to > SIW_CM_ESTABLISHED) {
		siw_stats_count(cep->ibdev, SIW_STAT_CONN_FAILURES);
		trace_siw_conn_setup(cep->id, cep->fsm.initiator, false,
				     st->status);
	}
	if (st->ev == SIW_CM_EV_REP_REJECT)
		siw_stats_count(cep->ibdev, SIW_STAT_MPA_REJECT_RX);
	else if ((st->ev == SIW_CM_EV_REJECT ||
		  st->ev == SIW_CM_EV_REQ_REFUSE ||
		  st->ev == SIW_CM_EV_ACCEPT_REFUSE) &&
		 (st->actions & SIW_CM_A_SEND_FRAME))
		siw_stats_count(cep->ibdev, SIW_STAT_MPA_REJECT_TX);
}

/**
 * siw_cep_run() - carry out one step of the state machine
 * @cep: the endpoint, locked; the caller holds a reference
 * @st: the step
 * @rv: what the call that made the step returned, for the trace
 *
 * Context: process, @cep->lock held.
 */
void siw_cep_run(struct siw_cep *cep, struct siw_cm_step *st, int rv)
{
	unsigned long actions = st->actions;
	unsigned int b;

	lockdep_assert_held(&cep->lock);
	if (st->ev >= SIW_CM_NUM_EVENTS)
		return;
	trace_siw_cm_step(cep->id, cep->cm_id, st);
	siw_cep_count(cep, st);
	if (st->from == st->to && !actions && st->timer == SIW_CM_T_NONE)
		return;
	siw_cep_timer(cep, st);
	for_each_set_bit(b, &actions, SIW_CM_NUM_ACTIONS)
		siw_cep_actions[b](cep, st);
	if (cep->fsm.state == SIW_CM_CLOSED)
		siw_cep_closed(cep);
}

static void siw_cep_step(struct siw_cep *cep, enum siw_cm_event ev,
			 int status)
{
	struct siw_cm_step st;
	int rv = siw_cm_fsm_step(&cep->fsm, ev, status, &st);

	siw_cep_run(cep, &st, rv);
}

static void siw_cep_tcp_up(struct siw_cep *cep)
{
	siw_cep_sock_addrs(cep);
	siw_cep_step(cep, SIW_CM_EV_TCP_UP, 0);
}

/*
 * A request the rules refuse never reaches the consumer, nor the QP
 * whose attach would trace it: say why here.
 */
static void siw_cep_req_refused(struct siw_cep *cep)
{
	trace_siw_cm_mpa(cep->id, &cep->fsm.conn);
	pr_info_ratelimited("siw_cm: cep %u: MPA request refused: %s\n",
			    cep->id, siw_mpa_reason_name(cep->fsm.conn.reason));
}

/*
 * The peer's Reply had R set: the consumer hears ECONNREFUSED and the
 * peer may have said why in its private data; say what we asked for
 */
static void siw_cep_rep_rejected(struct siw_cep *cep)
{
	const struct siw_mpa_policy *p = &cep->fsm.pol;

	trace_siw_cm_mpa(cep->id, &cep->fsm.conn);
	pr_info_ratelimited("siw_cm: cep %u: the peer rejected our MPA Request (rev %u, CRC %s, markers %s, %s)\n",
			    cep->id, p->rev,
			    p->crc == SIW_MPA_CRC_REQUIRED ? "required" : "not asked",
			    p->markers ? "asked" : "not asked",
			    p->p2p ? "peer-to-peer" : "client-server");
}

/* The socket changed state or has data, while the CM owns it */
static void siw_cep_sock_event(struct siw_cep *cep)
{
	struct siw_cm_step st;
	int err = 0, tcp;

	if (!cep->sock || cep->qp_holds_cep)
		return;
	if (cep->fsm.state == SIW_CM_CONNECTING) {
		tcp = siw_cep_sock_tcp_state(cep, &err);
		if (cep->llp_err)
			siw_cep_step(cep, SIW_CM_EV_TCP_FAIL, cep->llp_err);
		else if (tcp == TCP_ESTABLISHED)
			siw_cep_tcp_up(cep);
		else if (tcp == TCP_CLOSE)
			siw_cep_step(cep, SIW_CM_EV_TCP_FAIL,
				     err ?: -ECONNREFUSED);
		return;
	}
	if (cep->fsm.state == SIW_CM_REQ_SENT ||
	    cep->fsm.state == SIW_CM_AWAIT_REQ) {
		siw_cep_sock_rx(cep, &st);
		if (st.ev == SIW_CM_EV_REQ_REFUSE)
			siw_cep_req_refused(cep);
		else if (st.ev == SIW_CM_EV_REP_REJECT)
			siw_cep_rep_rejected(cep);
		if (st.ev < SIW_CM_NUM_EVENTS) {
			siw_cep_run(cep, &st, 0);
			return;
		}
	}
	if (siw_cep_sock_peer_gone(cep) || cep->llp_err)
		siw_cep_step(cep, SIW_CM_EV_LLP_CLOSED, 0);
}

/* After SIW_CEP_P_LLP_CLOSED: was the QP's failure the stream's end? */
static void siw_cep_qp_refused(struct siw_cep *cep)
{
	if (cep->fsm.state == SIW_CM_CLOSED)
		return;
	pr_warn_ratelimited("siw_cm: cep %u: QP refused the stream: %d\n",
			    cep->id, READ_ONCE(cep->qp_err));
	siw_cep_step(cep, SIW_CM_EV_ABORT, 0);
}

static void siw_cep_rtr(struct siw_cep *cep)
{
	struct siw_cm_step st;

	siw_cm_fsm_rtr(&cep->fsm, READ_ONCE(cep->rtr), &st);
	siw_cep_run(cep, &st, 0);
}

static void siw_cep_work(struct work_struct *w)
{
	struct siw_cep *cep = container_of(w, struct siw_cep, work);

	mutex_lock(&cep->lock);
	if (test_and_clear_bit(SIW_CEP_P_DESTROY, &cep->pending))
		siw_cep_step(cep, SIW_CM_EV_DESTROY, 0);
	if (test_and_clear_bit(SIW_CEP_P_DEV_GOING, &cep->pending) &&
	    cep->fsm.state < SIW_CM_ESTABLISHED)
		siw_cep_step(cep, SIW_CM_EV_DESTROY, 0);
	if (test_and_clear_bit(SIW_CEP_P_SOCK, &cep->pending))
		siw_cep_sock_event(cep);
	if (test_and_clear_bit(SIW_CEP_P_RTR, &cep->pending))
		siw_cep_rtr(cep);
	if (test_and_clear_bit(SIW_CEP_P_LLP_CLOSED, &cep->pending))
		siw_cep_step(cep, SIW_CM_EV_LLP_CLOSED, 0);
	if (test_and_clear_bit(SIW_CEP_P_QP_FAILED, &cep->pending))
		siw_cep_qp_refused(cep);
	if (test_and_clear_bit(SIW_CEP_P_DISCONNECT, &cep->pending))
		siw_cep_step(cep, SIW_CM_EV_DISCONNECT, 0);
	if (test_and_clear_bit(SIW_CEP_P_ABORT, &cep->pending))
		siw_cep_step(cep, SIW_CM_EV_ABORT, 0);
	mutex_unlock(&cep->lock);
	siw_cep_put(cep);
}

static void siw_cep_timeout(struct work_struct *w)
{
	struct siw_cep *cep = container_of(to_delayed_work(w), struct siw_cep,
					   timer);

	mutex_lock(&cep->lock);
	/* a transition since arming made this expiry stale */
	if (cep->tseq_armed == cep->tseq)
		siw_cep_step(cep, SIW_CM_EV_TIMEOUT, 0);
	mutex_unlock(&cep->lock);
	siw_cep_put(cep);
}

/* Kick every endpoint of @ibdev with @what, then wait for the work */
static void siw_cep_kick_all(struct ib_device *ibdev,
			     enum siw_cep_pending what)
{
	struct siw_cep *cep, *entry;
	unsigned long id;

	xa_for_each(&siw_cep_table, id, entry) {
		/* @entry may be dying: only a reference makes it safe */
		cep = siw_cep_lookup(id);
		if (!cep)
			continue;
		if (cep->ibdev == ibdev)
			siw_cep_kick(cep, what);
		siw_cep_put(cep);
	}
	flush_workqueue(siw_cm_wq);
}

/**
 * siw_cep_end_setups() - end the connection setups of a device
 * @ibdev: the device being removed, before the RDMA CM hears of it
 *
 * An initiator gets its CONNECT_REPLY (-ECONNABORTED) now instead of
 * at its timer: iw_cm's destroy of a connecting cm_id waits for that
 * reply, and with it the RDMA CM's device removal. Established
 * connections are left to their consumers, which end them on the
 * RDMA CM's DEVICE_REMOVAL; ended here, the consumer would see them
 * drop while the device still takes new connections, and may
 * reconnect onto it as it goes.
 *
 * Context: process; may sleep.
 */
void siw_cep_end_setups(struct ib_device *ibdev)
{
	siw_cep_kick_all(ibdev, SIW_CEP_P_DEV_GOING);
}

/**
 * siw_cep_destroy_all() - end every endpoint of a device
 * @ibdev: the device going away, its clients (the RDMA CM among them)
 *	removed
 *
 * Whatever is left (connections closing, ones no consumer ended) ends:
 * initiators get their CONNECT_REPLY, connected endpoints their CLOSE;
 * returns once all of them were processed.
 *
 * Context: process; may sleep.
 */
void siw_cep_destroy_all(struct ib_device *ibdev)
{
	siw_cep_kick_all(ibdev, SIW_CEP_P_DESTROY);
}
