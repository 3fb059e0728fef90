// SPDX-License-Identifier: GPL-2.0
/*
 * The endpoint state machine: one const table of transitions and the
 * classifiers that turn MPA frames, the consumer's accept and an RTR
 * indication into the table's events by the MPA layer's rules.
 *
 * The table answers three questions for every (state, event): where to
 * go, what the caller must do, and which errno the consumer sees. Two
 * promises to iw_cm are built into it. An initiator that returned from
 * connect always gets exactly one CONNECT_REPLY, whatever ends the
 * attempt. A responder whose accept succeeded always gets ESTABLISHED
 * before CLOSE, even when the RTR indication never comes, because iw_cm
 * takes a CLOSE only on an established cm_id.
 */
#include <kunit/visibility.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/string.h>

#include "cm_fsm.h"

#define T(nxt, tmr, act, err) {						\
	.next = SIW_CM_##nxt, .timer = SIW_CM_T_##tmr,			\
	.actions = (act), .status = (err), .valid = true }

/* Leaving a connection whose QP took over the socket */
#define A_QP_GONE	(SIW_CM_A_QP_DETACH | SIW_CM_A_ABORT)
/* A responder that returned from accept: ESTABLISHED must come first */
#define A_LATE_FAIL	(SIW_CM_A_UP_ESTABLISHED | SIW_CM_A_UP_DISCONNECT | \
			 SIW_CM_A_UP_CLOSE)

static const struct siw_cm_trans
siw_cm_table[SIW_CM_NUM_STATES][SIW_CM_NUM_EVENTS] = {
	[SIW_CM_IDLE] = {
		[SIW_CM_EV_CONNECT]	= T(CONNECTING, CONNECT,
					    SIW_CM_A_TCP_CONNECT, 0),
		[SIW_CM_EV_TCP_UP]	= T(AWAIT_REQ, MPA, SIW_CM_A_RECV, 0),
		[SIW_CM_EV_DESTROY]	= T(CLOSED, NONE, SIW_CM_A_ABORT, 0),
	},
	[SIW_CM_CONNECTING] = {
		[SIW_CM_EV_TCP_UP]	= T(REQ_SENT, MPA, SIW_CM_A_SEND_FRAME |
					    SIW_CM_A_RECV, 0),
		[SIW_CM_EV_TCP_FAIL]	= T(CLOSED, NONE, SIW_CM_A_ABORT |
					    SIW_CM_A_UP_REPLY, 0),
		[SIW_CM_EV_LLP_CLOSED]	= T(CLOSED, NONE, SIW_CM_A_ABORT |
					    SIW_CM_A_UP_REPLY, -ECONNRESET),
		[SIW_CM_EV_TIMEOUT]	= T(CLOSED, NONE, SIW_CM_A_ABORT |
					    SIW_CM_A_UP_REPLY, -ETIMEDOUT),
		[SIW_CM_EV_DESTROY]	= T(CLOSED, NONE, SIW_CM_A_ABORT |
					    SIW_CM_A_UP_REPLY, -ECONNABORTED),
	},
	[SIW_CM_REQ_SENT] = {
		[SIW_CM_EV_REP]		= T(ESTABLISHED, NONE,
					    SIW_CM_A_QP_ATTACH | SIW_CM_A_QP_RTS |
					    SIW_CM_A_UP_REPLY, 0),
		[SIW_CM_EV_REP_RTR]	= T(ESTABLISHED, NONE,
					    SIW_CM_A_QP_ATTACH | SIW_CM_A_QP_RTR |
					    SIW_CM_A_QP_RTS | SIW_CM_A_UP_REPLY, 0),
		[SIW_CM_EV_REP_REJECT]	= T(CLOSED, NONE, SIW_CM_A_CLOSE |
					    SIW_CM_A_UP_REPLY, -ECONNREFUSED),
		[SIW_CM_EV_REP_TERM]	= T(CLOSED, NONE, SIW_CM_A_QP_ATTACH |
					    SIW_CM_A_QP_TERM | SIW_CM_A_QP_DETACH |
					    SIW_CM_A_CLOSE | SIW_CM_A_UP_REPLY,
					    -ECONNREFUSED),
		[SIW_CM_EV_BAD_FRAME]	= T(CLOSED, NONE, SIW_CM_A_ABORT |
					    SIW_CM_A_UP_REPLY, -EPROTO),
		[SIW_CM_EV_LLP_CLOSED]	= T(CLOSED, NONE, SIW_CM_A_ABORT |
					    SIW_CM_A_UP_REPLY, -ECONNRESET),
		[SIW_CM_EV_TIMEOUT]	= T(CLOSED, NONE, SIW_CM_A_ABORT |
					    SIW_CM_A_UP_REPLY, -ETIMEDOUT),
		[SIW_CM_EV_DESTROY]	= T(CLOSED, NONE, SIW_CM_A_ABORT |
					    SIW_CM_A_UP_REPLY, -ECONNABORTED),
	},
	[SIW_CM_AWAIT_REQ] = {
		[SIW_CM_EV_REQ]		= T(REQ_RCVD, CONSUMER,
					    SIW_CM_A_UP_REQUEST, 0),
		[SIW_CM_EV_REQ_REFUSE]	= T(CLOSED, NONE, SIW_CM_A_SEND_FRAME |
					    SIW_CM_A_CLOSE, -ECONNREFUSED),
		[SIW_CM_EV_BAD_FRAME]	= T(CLOSED, NONE, SIW_CM_A_SEND_FRAME |
					    SIW_CM_A_CLOSE, -EPROTO),
		[SIW_CM_EV_LLP_CLOSED]	= T(CLOSED, NONE, SIW_CM_A_ABORT,
					    -ECONNRESET),
		[SIW_CM_EV_TIMEOUT]	= T(CLOSED, NONE, SIW_CM_A_ABORT,
					    -ETIMEDOUT),
		[SIW_CM_EV_DESTROY]	= T(CLOSED, NONE, SIW_CM_A_ABORT,
					    -ECONNABORTED),
	},
	[SIW_CM_REQ_RCVD] = {
		[SIW_CM_EV_ACCEPT]	= T(ESTABLISHED, NONE,
					    SIW_CM_A_SEND_FRAME |
					    SIW_CM_A_QP_ATTACH | SIW_CM_A_QP_RTS |
					    SIW_CM_A_UP_ESTABLISHED, 0),
		[SIW_CM_EV_ACCEPT_P2P]	= T(AWAIT_RTR, RTR, SIW_CM_A_SEND_FRAME |
					    SIW_CM_A_QP_ATTACH, 0),
		[SIW_CM_EV_ACCEPT_REFUSE] = T(CLOSED, NONE, SIW_CM_A_SEND_FRAME |
					      SIW_CM_A_CLOSE, -ECONNREFUSED),
		[SIW_CM_EV_REJECT]	= T(CLOSED, NONE, SIW_CM_A_SEND_FRAME |
					    SIW_CM_A_CLOSE, 0),
		[SIW_CM_EV_LLP_CLOSED]	= T(CLOSED, NONE, SIW_CM_A_ABORT,
					    -ECONNRESET),
		[SIW_CM_EV_TIMEOUT]	= T(CLOSED, NONE, SIW_CM_A_ABORT,
					    -ETIMEDOUT),
		[SIW_CM_EV_DESTROY]	= T(CLOSED, NONE, SIW_CM_A_ABORT,
					    -ECONNABORTED),
	},
	[SIW_CM_AWAIT_RTR] = {
		[SIW_CM_EV_RTR]		= T(ESTABLISHED, NONE, SIW_CM_A_QP_RTS |
					    SIW_CM_A_UP_ESTABLISHED, 0),
		[SIW_CM_EV_RTR_BAD]	= T(CLOSED, NONE, SIW_CM_A_QP_TERM |
					    SIW_CM_A_QP_DETACH | SIW_CM_A_CLOSE |
					    A_LATE_FAIL, -ECONNRESET),
		[SIW_CM_EV_LLP_CLOSED]	= T(CLOSED, NONE, A_QP_GONE | A_LATE_FAIL,
					    -ECONNRESET),
		[SIW_CM_EV_TIMEOUT]	= T(CLOSED, NONE, A_QP_GONE | A_LATE_FAIL,
					    -ETIMEDOUT),
		[SIW_CM_EV_ABORT]	= T(CLOSED, NONE, A_QP_GONE | A_LATE_FAIL,
					    -ECONNABORTED),
		[SIW_CM_EV_DESTROY]	= T(CLOSED, NONE, A_QP_GONE | A_LATE_FAIL,
					    -ECONNABORTED),
	},
	[SIW_CM_ESTABLISHED] = {
		[SIW_CM_EV_DISCONNECT]	= T(CLOSING, CLOSE, SIW_CM_A_SHUTDOWN, 0),
		[SIW_CM_EV_ABORT]	= T(CLOSED, NONE, A_QP_GONE |
					    SIW_CM_A_UP_CLOSE, 0),
		[SIW_CM_EV_LLP_CLOSED]	= T(CLOSED, NONE, SIW_CM_A_QP_DETACH |
					    SIW_CM_A_CLOSE |
					    SIW_CM_A_UP_DISCONNECT |
					    SIW_CM_A_UP_CLOSE, 0),
		[SIW_CM_EV_DESTROY]	= T(CLOSED, NONE, A_QP_GONE |
					    SIW_CM_A_UP_CLOSE, -ECONNABORTED),
	},
	[SIW_CM_CLOSING] = {
		[SIW_CM_EV_DISCONNECT]	= T(CLOSING, CLOSE, 0, 0),
		[SIW_CM_EV_LLP_CLOSED]	= T(CLOSED, NONE, SIW_CM_A_QP_DETACH |
					    SIW_CM_A_CLOSE | SIW_CM_A_UP_CLOSE, 0),
		[SIW_CM_EV_TIMEOUT]	= T(CLOSED, NONE, A_QP_GONE |
					    SIW_CM_A_UP_CLOSE, 0),
		[SIW_CM_EV_ABORT]	= T(CLOSED, NONE, A_QP_GONE |
					    SIW_CM_A_UP_CLOSE, 0),
		[SIW_CM_EV_DESTROY]	= T(CLOSED, NONE, A_QP_GONE |
					    SIW_CM_A_UP_CLOSE, -ECONNABORTED),
	},
	[SIW_CM_CLOSED] = {
		/* the peer or a timer ended it while the consumer decided */
		[SIW_CM_EV_ACCEPT]	= T(CLOSED, NONE, 0, -ECONNRESET),
		[SIW_CM_EV_ACCEPT_P2P]	= T(CLOSED, NONE, 0, -ECONNRESET),
		[SIW_CM_EV_ACCEPT_REFUSE] = T(CLOSED, NONE, 0, -ECONNRESET),
		[SIW_CM_EV_REJECT]	= T(CLOSED, NONE, 0, -ECONNRESET),
		[SIW_CM_EV_DISCONNECT]	= T(CLOSED, NONE, 0, 0),
		[SIW_CM_EV_ABORT]	= T(CLOSED, NONE, 0, 0),
		[SIW_CM_EV_DESTROY]	= T(CLOSED, NONE, 0, 0),
	},
};

#define SIW_CM_UPCALLS	(SIW_CM_A_UP_REQUEST | SIW_CM_A_UP_REPLY | \
			 SIW_CM_A_UP_ESTABLISHED | SIW_CM_A_UP_DISCONNECT | \
			 SIW_CM_A_UP_CLOSE)

/**
 * siw_cm_trans() - one cell of the transition table
 * @s: a state
 * @ev: an event
 *
 * Context: any.
 * Returns: the cell; NULL if @s or @ev is out of range.
 */
const struct siw_cm_trans *siw_cm_trans(enum siw_cm_state s,
					enum siw_cm_event ev)
{
	if ((unsigned int)s >= SIW_CM_NUM_STATES ||
	    (unsigned int)ev >= SIW_CM_NUM_EVENTS)
		return NULL;
	return &siw_cm_table[s][ev];
}
EXPORT_SYMBOL_IF_KUNIT(siw_cm_trans);

/**
 * siw_cm_event_is_consumer() - does the event come from a consumer call?
 * @ev: the event
 *
 * Such events return an errno to the caller: -EINVAL where the state
 * does not take them.
 *
 * Context: any.
 * Returns: true for connect, accept, reject, disconnect and abort.
 */
bool siw_cm_event_is_consumer(enum siw_cm_event ev)
{
	return ev <= SIW_CM_EV_ABORT;
}
EXPORT_SYMBOL_IF_KUNIT(siw_cm_event_is_consumer);

/**
 * siw_cm_fsm_init() - a new endpoint in SIW_CM_IDLE
 * @f: the endpoint's state
 * @initiator: it will connect (else it came from a listener)
 * @pol: MPA policy; the consumer's IRD and ORD are filled in later
 * @tmo: timer durations
 *
 * Context: any.
 */
void siw_cm_fsm_init(struct siw_cm_fsm *f, bool initiator,
		     const struct siw_mpa_policy *pol,
		     const struct siw_cm_timeouts *tmo)
{
	memset(f, 0, sizeof(*f));
	f->state = SIW_CM_IDLE;
	f->initiator = initiator;
	f->pol = *pol;
	f->tmo = *tmo;
	f->conn.rtr = SIW_MPA_RTR_NONE;
	siw_mpa_frame_rx_init(&f->rx, initiator);
}
EXPORT_SYMBOL_IF_KUNIT(siw_cm_fsm_init);

static void siw_cm_step_none(const struct siw_cm_fsm *f,
			     enum siw_cm_event ev, struct siw_cm_step *st)
{
	memset(st, 0, sizeof(*st));
	st->from = f->state;
	st->to = f->state;
	st->ev = ev;
	st->timer = SIW_CM_T_NONE;
}

/**
 * siw_cm_fsm_step() - apply one event
 * @f: the endpoint
 * @ev: what happened
 * @status: errno that came with it (SIW_CM_EV_TCP_FAIL), else 0
 * @st: filled with what to do. A cell that is not valid changes nothing
 *	and asks for nothing; @st->timer is then SIW_CM_T_NONE but the
 *	running timer must be left alone (@st->from == @st->to, no
 *	actions).
 *
 * Context: any; the caller serialises calls on @f.
 * Returns: @st->rv: 0; the cell's errno for a consumer event whose cell
 * makes no upcall (e.g. -ECONNRESET for an accept after the peer went
 * away); -EINVAL for a consumer event the state does not take.
 */
int siw_cm_fsm_step(struct siw_cm_fsm *f, enum siw_cm_event ev, int status,
		    struct siw_cm_step *st)
{
	const struct siw_cm_trans *t = siw_cm_trans(f->state, ev);

	siw_cm_step_none(f, ev, st);
	if (!t || !t->valid) {
		st->rv = siw_cm_event_is_consumer(ev) ? -EINVAL : 0;
		return st->rv;
	}
	st->to = t->next;
	st->actions = t->actions;
	st->timer = t->timer;
	st->timeout_ms = f->tmo.ms[t->timer];
	st->status = t->status ? t->status : status;
	if (siw_cm_event_is_consumer(ev) && !(t->actions & SIW_CM_UPCALLS))
		st->rv = st->status;
	f->state = t->next;
	f->status = st->status;
	return st->rv;
}
EXPORT_SYMBOL_IF_KUNIT(siw_cm_fsm_step);

/* IRD/ORD from a consumer call, as the MPA rules take them */
static u16 siw_cm_clamp(u32 v)
{
	return min_t(u32, v, SIW_MPA_IRD_ORD_MAX);
}

static int siw_cm_out(struct siw_cm_fsm *f, const struct siw_mpa_frame *fr)
{
	ssize_t n = siw_mpa_frame_build(fr, f->out, sizeof(f->out));

	if (n < 0)
		return n;
	f->out_len = n;
	return 0;
}

/**
 * siw_cm_fsm_connect() - the consumer connects
 * @f: an initiator endpoint in SIW_CM_IDLE
 * @ird: the consumer's IRD
 * @ord: the consumer's ORD
 * @pd: private data for the request
 * @pd_len: octets at @pd: at most 508 with rev 2, 512 with rev 1
 * @st: filled with what to do
 *
 * Builds the MPA Request into @f->out, sent once TCP is up.
 *
 * Context: any.
 * Returns: 0; -EINVAL for a responder, a state other than idle, an
 * inconsistent policy or too much private data.
 */
int siw_cm_fsm_connect(struct siw_cm_fsm *f, u16 ird, u16 ord,
		       const void *pd, u16 pd_len, struct siw_cm_step *st)
{
	int rv;

	siw_cm_step_none(f, SIW_CM_EV_CONNECT, st);
	if (!f->initiator)
		return -EINVAL;
	if (f->state != SIW_CM_IDLE)
		return siw_cm_fsm_step(f, SIW_CM_EV_CONNECT, 0, st);
	f->pol.ird = siw_cm_clamp(ird);
	f->pol.ord = siw_cm_clamp(ord);
	f->pol.ird_max = max(f->pol.ird_max, f->pol.ird);
	f->pol.ord_min = min(f->pol.ord_min, f->pol.ord);
	if (pd_len > siw_cm_pd_max(f->pol.rev))
		return -EINVAL;
	rv = siw_mpa_request(&f->pol, &f->req);
	if (rv)
		return rv;
	f->req.pd = pd;
	f->req.pd_len = pd_len;
	rv = siw_cm_out(f, &f->req);
	/* the request outlives the consumer's buffer */
	f->req.pd = NULL;
	f->req.pd_len = 0;
	if (rv)
		return -EINVAL;
	return siw_cm_fsm_step(f, SIW_CM_EV_CONNECT, 0, st);
}
EXPORT_SYMBOL_IF_KUNIT(siw_cm_fsm_connect);

/* A plain rev 1 reject for a request we cannot even read */
static void siw_cm_out_bad_request(struct siw_cm_fsm *f)
{
	struct siw_mpa_frame rej = {
		.reply = true, .reject = true, .rev = SIW_MPA_REV_1,
	};

	if (siw_cm_out(f, &rej))
		f->out_len = 0;
}

static enum siw_cm_event siw_cm_classify_req(struct siw_cm_fsm *f)
{
	struct siw_mpa_policy pre = f->pol;
	struct siw_mpa_frame rep;

	/*
	 * Refuse early what no accept could fix (CRC policy, no common RTR
	 * type), as RFC 6581 section 7 lets a provider answer such a
	 * request without bothering the ULP. IRD and ORD wait for accept,
	 * so this check assumes the most IRD and no required ORD.
	 */
	pre.ird = pre.ird_max;
	pre.ord_min = 0;
	siw_mpa_respond(&pre, &f->rx.frame, &rep, &f->conn);
	switch (f->conn.verdict) {
	case SIW_MPA_ACCEPT:
		return SIW_CM_EV_REQ;
	case SIW_MPA_REJECT:
		if (siw_cm_out(f, &rep))
			siw_cm_out_bad_request(f);
		return SIW_CM_EV_REQ_REFUSE;
	default:
		siw_cm_out_bad_request(f);
		return SIW_CM_EV_BAD_FRAME;
	}
}

static enum siw_cm_event siw_cm_classify_rep(struct siw_cm_fsm *f)
{
	siw_mpa_on_reply(&f->pol, &f->req, &f->rx.frame, &f->conn);
	switch (f->conn.verdict) {
	case SIW_MPA_ACCEPT:
		return f->conn.rtr != SIW_MPA_RTR_NONE ? SIW_CM_EV_REP_RTR :
							 SIW_CM_EV_REP;
	case SIW_MPA_REJECT:
		return SIW_CM_EV_REP_REJECT;
	case SIW_MPA_TERMINATE:
		f->term = f->conn.term;
		return SIW_CM_EV_REP_TERM;
	default:
		return SIW_CM_EV_BAD_FRAME;
	}
}

/**
 * siw_cm_fsm_frame() - octets of the peer's MPA Request or Reply
 * @f: the endpoint
 * @buf: octets received
 * @len: how many
 * @st: filled with what to do; @st->ev is SIW_CM_NUM_EVENTS while the
 *	frame is incomplete or the state expects none
 *
 * Takes no octet past the frame: what follows belongs to the QP. A
 * complete request is checked against the policy (a refusal puts the
 * reject frame in @f->out); a complete reply decides the connection. A
 * malformed frame is SIW_CM_EV_BAD_FRAME (responder: @f->out has a
 * reject).
 *
 * Context: any.
 * Returns: octets of @buf consumed.
 */
size_t siw_cm_fsm_frame(struct siw_cm_fsm *f, const void *buf, size_t len,
			struct siw_cm_step *st)
{
	enum siw_mpa_frame_st fst;
	enum siw_cm_event ev;
	size_t used;

	siw_cm_step_none(f, SIW_CM_NUM_EVENTS, st);
	if (f->state != SIW_CM_REQ_SENT && f->state != SIW_CM_AWAIT_REQ)
		return 0;
	used = siw_mpa_frame_rx_feed(&f->rx, buf, len, &fst);
	if (fst == SIW_MPA_FRAME_MORE)
		return used;
	if (fst != SIW_MPA_FRAME_DONE) {
		if (!f->initiator)
			siw_cm_out_bad_request(f);
		ev = SIW_CM_EV_BAD_FRAME;
	} else {
		ev = f->initiator ? siw_cm_classify_rep(f) :
				    siw_cm_classify_req(f);
	}
	siw_cm_fsm_step(f, ev, 0, st);
	return used;
}
EXPORT_SYMBOL_IF_KUNIT(siw_cm_fsm_frame);

/* The responder's reply to the request held in @f->rx */
static int siw_cm_respond(struct siw_cm_fsm *f, u16 ird, u16 ord,
			  const void *pd, u16 pd_len, bool reject)
{
	struct siw_mpa_frame rep;

	f->pol.ird = siw_cm_clamp(ird);
	f->pol.ord = siw_cm_clamp(ord);
	f->pol.ird_max = max(f->pol.ird_max, f->pol.ird);
	f->pol.ord_min = min(f->pol.ord_min, f->pol.ord);
	siw_mpa_respond(&f->pol, &f->rx.frame, &rep, &f->conn);
	if (pd_len > siw_cm_pd_max(rep.rev))
		return -EINVAL;
	rep.reject |= reject;
	rep.pd = pd;
	rep.pd_len = pd_len;
	return siw_cm_out(f, &rep) ? -EINVAL : 0;
}

/**
 * siw_cm_fsm_accept() - the consumer accepts the request
 * @f: a responder endpoint
 * @ird: the consumer's IRD
 * @ord: the consumer's ORD
 * @pd: private data for the reply
 * @pd_len: octets at @pd
 * @st: filled with what to do
 *
 * Runs the responder's rules with the consumer's IRD and ORD and puts
 * the reply in @f->out: SIW_CM_EV_ACCEPT, SIW_CM_EV_ACCEPT_P2P (wait
 * for the RTR indication before sending anything), or
 * SIW_CM_EV_ACCEPT_REFUSE with a reject frame (initiator IRD below the
 * policy's required ORD).
 *
 * Context: any.
 * Returns: 0; -ECONNREFUSED if the rules refused; -ECONNRESET if the
 * connection is already gone; -EINVAL in another state or for too much
 * private data.
 */
int siw_cm_fsm_accept(struct siw_cm_fsm *f, u16 ird, u16 ord,
		      const void *pd, u16 pd_len, struct siw_cm_step *st)
{
	enum siw_cm_event ev = SIW_CM_EV_ACCEPT;
	int rv;

	if (f->state != SIW_CM_REQ_RCVD)
		return siw_cm_fsm_step(f, ev, 0, st);
	siw_cm_step_none(f, ev, st);
	rv = siw_cm_respond(f, ird, ord, pd, pd_len, false);
	if (rv)
		return rv;
	if (f->conn.verdict != SIW_MPA_ACCEPT)
		ev = SIW_CM_EV_ACCEPT_REFUSE;
	else if (f->conn.p2p)
		ev = SIW_CM_EV_ACCEPT_P2P;
	return siw_cm_fsm_step(f, ev, 0, st);
}
EXPORT_SYMBOL_IF_KUNIT(siw_cm_fsm_accept);

/**
 * siw_cm_fsm_reject() - the consumer rejects the request
 * @f: a responder endpoint
 * @pd: private data for the reject frame
 * @pd_len: octets at @pd
 * @st: filled with what to do
 *
 * The reject frame (R set) carries the enhanced data the rules would
 * have sent, so the initiator learns our IRD and ORD.
 *
 * Context: any.
 * Returns: 0; -ECONNRESET if the connection is already gone; -EINVAL in
 * another state or for too much private data.
 */
int siw_cm_fsm_reject(struct siw_cm_fsm *f, const void *pd, u16 pd_len,
		      struct siw_cm_step *st)
{
	int rv;

	if (f->state != SIW_CM_REQ_RCVD)
		return siw_cm_fsm_step(f, SIW_CM_EV_REJECT, 0, st);
	siw_cm_step_none(f, SIW_CM_EV_REJECT, st);
	rv = siw_cm_respond(f, f->pol.ird, f->pol.ord, pd, pd_len, true);
	if (rv)
		return rv;
	return siw_cm_fsm_step(f, SIW_CM_EV_REJECT, 0, st);
}
EXPORT_SYMBOL_IF_KUNIT(siw_cm_fsm_reject);

/**
 * siw_cm_fsm_rtr() - the QP received the first FPDU of a peer-to-peer
 *	connection
 * @f: a responder endpoint
 * @rtr: the zero-length message it was, SIW_MPA_RTR_NONE for anything
 *	else
 * @st: filled with what to do
 *
 * A type we did not offer (or any other FPDU) is answered with a
 * Terminate, code 7 (RFC 6581 section 9.2); @f->conn records it, so that
 * logs and traces say why.
 *
 * Context: any.
 */
void siw_cm_fsm_rtr(struct siw_cm_fsm *f, enum siw_mpa_rtr rtr,
		    struct siw_cm_step *st)
{
	bool ok = rtr < SIW_MPA_NUM_RTR &&
		  (f->conn.rtr_accept & SIW_MPA_RTR_F(rtr));

	if (f->state == SIW_CM_AWAIT_RTR && !ok) {
		f->term = SIW_MPA_ERR_NO_RTR;
		f->conn.verdict = SIW_MPA_TERMINATE;
		f->conn.term = SIW_MPA_ERR_NO_RTR;
		f->conn.reason = SIW_MPA_WHY_NO_RTR;
	}
	siw_cm_fsm_step(f, ok ? SIW_CM_EV_RTR : SIW_CM_EV_RTR_BAD, 0, st);
}
EXPORT_SYMBOL_IF_KUNIT(siw_cm_fsm_rtr);

/**
 * siw_cm_fsm_peer() - the peer's frame
 * @f: the endpoint
 *
 * Context: any.
 * Returns: the request (responder) or reply (initiator) once complete,
 * else NULL. Its private data stays valid as long as @f.
 */
const struct siw_mpa_frame *siw_cm_fsm_peer(const struct siw_cm_fsm *f)
{
	return f->rx.st == SIW_MPA_FRAME_DONE ? &f->rx.frame : NULL;
}
EXPORT_SYMBOL_IF_KUNIT(siw_cm_fsm_peer);

/* A peer value for iw_cm's u8, 0x3FFF (or none sent) as our own */
static u8 siw_cm_peer_val(const struct siw_cm_fsm *f, u16 peer, u16 own)
{
	const struct siw_mpa_frame *fr = siw_cm_fsm_peer(f);

	if (!fr || !fr->enhanced || peer == SIW_MPA_IRD_ORD_ULP)
		peer = own;
	return min_t(u16, peer, U8_MAX);
}

/**
 * siw_cm_fsm_peer_ird() - the peer's IRD for the consumer's event
 * @f: the endpoint, with the peer's frame received
 *
 * RFC 6581 section 9.1 passes the peer's IRD and ORD up for accepts and
 * rejects alike. Without enhanced data, or for 0x3FFF, the local
 * endpoint's most is reported: the ULPs settle it themselves.
 *
 * Context: any.
 * Returns: the value, at most 255.
 */
u8 siw_cm_fsm_peer_ird(const struct siw_cm_fsm *f)
{
	return siw_cm_peer_val(f, f->rx.frame.ird, f->pol.ird_max);
}
EXPORT_SYMBOL_IF_KUNIT(siw_cm_fsm_peer_ird);

/**
 * siw_cm_fsm_peer_ord() - the peer's ORD for the consumer's event
 * @f: the endpoint, with the peer's frame received
 *
 * Context: any.
 * Returns: the value, at most 255 (see siw_cm_fsm_peer_ird()).
 */
u8 siw_cm_fsm_peer_ord(const struct siw_cm_fsm *f)
{
	return siw_cm_peer_val(f, f->rx.frame.ord, f->pol.ird_max);
}
EXPORT_SYMBOL_IF_KUNIT(siw_cm_fsm_peer_ord);
