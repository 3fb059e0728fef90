/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The connection endpoint state machine, as a pure core: states, events
 * and one const table that maps (state, event) to the next state, the
 * actions the caller carries out and the timer to arm. It knows MPA
 * frames (through drivers/siw_mpa) but no socket, QP, work queue or
 * iw_cm: the caller feeds it what happened and executes what it returns.
 *
 * Nothing here allocates, sleeps or takes a lock; the caller serialises
 * all calls on one struct siw_cm_fsm.
 *
 * See Documentation/cm.rst.
 */
#ifndef SIW_CM_FSM_H
#define SIW_CM_FSM_H

#include <linux/bits.h>
#include <linux/types.h>

#include "siw_mpa/siw_mpa_conn.h"

/* Endpoint states; siw_cm_state_name() names them */
enum siw_cm_state {
	SIW_CM_IDLE,		/* created, nothing on the wire yet */
	SIW_CM_CONNECTING,	/* initiator: TCP connect under way */
	SIW_CM_REQ_SENT,	/* initiator: MPA Request sent, Reply awaited */
	SIW_CM_AWAIT_REQ,	/* responder: TCP up, MPA Request awaited */
	SIW_CM_REQ_RCVD,	/* responder: consumer decides */
	SIW_CM_AWAIT_RTR,	/* responder, peer-to-peer: Reply sent, the
				 * RTR indication awaited; nothing may be
				 * sent until it arrives
				 */
	SIW_CM_ESTABLISHED,	/* the QP owns the stream */
	SIW_CM_CLOSING,		/* FIN sent, the peer's awaited */
	SIW_CM_CLOSED,		/* final; the socket is gone */
	SIW_CM_NUM_STATES,
};

/*
 * Events, as the table sees them. MPA frames, the consumer's accept and
 * an RTR indication are classified by siw_cm_fsm_frame(),
 * siw_cm_fsm_accept() and siw_cm_fsm_rtr() into the events below, by
 * the MPA layer's rules; the rest are fed as they are with
 * siw_cm_fsm_step(). siw_cm_event_name() names them.
 */
enum siw_cm_event {
	/* the consumer, through iw_cm */
	SIW_CM_EV_CONNECT,	/* connect: build the request */
	SIW_CM_EV_ACCEPT,	/* accept, client-server model */
	SIW_CM_EV_ACCEPT_P2P,	/* accept, peer-to-peer: RTR to wait for */
	SIW_CM_EV_ACCEPT_REFUSE, /* accept the rules refuse (IRD too low) */
	SIW_CM_EV_REJECT,	/* reject, with private data */
	SIW_CM_EV_DISCONNECT,	/* graceful close */
	SIW_CM_EV_ABORT,	/* abrupt close */
	SIW_CM_EV_DESTROY,	/* the cm_id or listener goes away */
	/* TCP */
	SIW_CM_EV_TCP_UP,	/* connected (initiator) or accepted */
	SIW_CM_EV_TCP_FAIL,	/* connect failed, the status says why */
	SIW_CM_EV_LLP_CLOSED,	/* FIN, RST or error from the peer */
	SIW_CM_EV_TIMEOUT,	/* the state's timer expired */
	/* MPA frames */
	SIW_CM_EV_REQ,		/* a request the rules let reach the ULP */
	SIW_CM_EV_REQ_REFUSE,	/* a request the rules refuse */
	SIW_CM_EV_BAD_FRAME,	/* a malformed frame, or the wrong one */
	SIW_CM_EV_REP,		/* an accepting reply, client-server */
	SIW_CM_EV_REP_RTR,	/* an accepting reply, peer-to-peer */
	SIW_CM_EV_REP_REJECT,	/* the peer rejected (R set) */
	SIW_CM_EV_REP_TERM,	/* a reply the rules answer by Terminate */
	/* the QP, in the responder's SIW_CM_AWAIT_RTR */
	SIW_CM_EV_RTR,		/* the negotiated RTR indication arrived */
	SIW_CM_EV_RTR_BAD,	/* an RTR type that was not offered */
	SIW_CM_NUM_EVENTS,
};

/*
 * Actions, executed by the caller in this bit order: wire first, then
 * the QP, then the socket's end, then the upcalls.
 */
enum siw_cm_action_bit {
	SIW_CM_A_TCP_CONNECT_BIT,	/* start the TCP connect */
	SIW_CM_A_RECV_BIT,		/* start receiving an MPA frame */
	SIW_CM_A_SEND_FRAME_BIT,	/* send fsm->out (request/reply/reject) */
	SIW_CM_A_QP_ATTACH_BIT,		/* hand the socket and fsm->conn to the QP */
	SIW_CM_A_QP_RTR_BIT,		/* QP sends the RTR indication fsm->conn.rtr */
	SIW_CM_A_QP_RTS_BIT,		/* QP may send */
	SIW_CM_A_QP_TERM_BIT,		/* QP sends a Terminate with fsm->term */
	SIW_CM_A_QP_DETACH_BIT,		/* take the socket back from the QP */
	SIW_CM_A_SHUTDOWN_BIT,		/* send FIN */
	SIW_CM_A_CLOSE_BIT,		/* release the socket, orderly */
	SIW_CM_A_ABORT_BIT,		/* release the socket with RST */
	SIW_CM_A_UP_REQUEST_BIT,	/* IW_CM_EVENT_CONNECT_REQUEST */
	SIW_CM_A_UP_REPLY_BIT,		/* IW_CM_EVENT_CONNECT_REPLY, fsm->status */
	SIW_CM_A_UP_ESTABLISHED_BIT,	/* IW_CM_EVENT_ESTABLISHED */
	SIW_CM_A_UP_DISCONNECT_BIT,	/* IW_CM_EVENT_DISCONNECT */
	SIW_CM_A_UP_CLOSE_BIT,		/* IW_CM_EVENT_CLOSE */
	SIW_CM_NUM_ACTIONS,
};

#define SIW_CM_A_TCP_CONNECT	BIT(SIW_CM_A_TCP_CONNECT_BIT)
#define SIW_CM_A_RECV		BIT(SIW_CM_A_RECV_BIT)
#define SIW_CM_A_SEND_FRAME	BIT(SIW_CM_A_SEND_FRAME_BIT)
#define SIW_CM_A_QP_ATTACH	BIT(SIW_CM_A_QP_ATTACH_BIT)
#define SIW_CM_A_QP_RTR		BIT(SIW_CM_A_QP_RTR_BIT)
#define SIW_CM_A_QP_RTS		BIT(SIW_CM_A_QP_RTS_BIT)
#define SIW_CM_A_QP_TERM	BIT(SIW_CM_A_QP_TERM_BIT)
#define SIW_CM_A_QP_DETACH	BIT(SIW_CM_A_QP_DETACH_BIT)
#define SIW_CM_A_SHUTDOWN	BIT(SIW_CM_A_SHUTDOWN_BIT)
#define SIW_CM_A_CLOSE		BIT(SIW_CM_A_CLOSE_BIT)
#define SIW_CM_A_ABORT		BIT(SIW_CM_A_ABORT_BIT)
#define SIW_CM_A_UP_REQUEST	BIT(SIW_CM_A_UP_REQUEST_BIT)
#define SIW_CM_A_UP_REPLY	BIT(SIW_CM_A_UP_REPLY_BIT)
#define SIW_CM_A_UP_ESTABLISHED	BIT(SIW_CM_A_UP_ESTABLISHED_BIT)
#define SIW_CM_A_UP_DISCONNECT	BIT(SIW_CM_A_UP_DISCONNECT_BIT)
#define SIW_CM_A_UP_CLOSE	BIT(SIW_CM_A_UP_CLOSE_BIT)

/* Timers a state can run; siw_cm_timer_name() names them */
enum siw_cm_timer {
	SIW_CM_T_NONE,
	SIW_CM_T_CONNECT,	/* TCP connect */
	SIW_CM_T_MPA,		/* the peer's MPA frame */
	SIW_CM_T_CONSUMER,	/* the consumer's accept or reject */
	SIW_CM_T_RTR,		/* the initiator's RTR indication */
	SIW_CM_T_CLOSE,		/* the peer's FIN after ours */
	SIW_CM_NUM_TIMERS,
};

/**
 * struct siw_cm_timeouts - how long each timer runs, in milliseconds
 * @ms: indexed by enum siw_cm_timer; 0 for SIW_CM_T_NONE
 */
struct siw_cm_timeouts {
	unsigned int ms[SIW_CM_NUM_TIMERS];
};

/**
 * struct siw_cm_trans - one cell of the transition table
 * @next: state after the event
 * @actions: SIW_CM_A_* for the caller
 * @timer: timer to arm on entering @next (any running one is stopped
 *	by every transition)
 * @status: errno reported in the upcall (SIW_CM_A_UP_REPLY,
 *	SIW_CM_A_UP_ESTABLISHED) and returned to the consumer; 0 takes the
 *	status fed with the event
 * @valid: the event is expected in this state; an invalid consumer
 *	event is refused with -EINVAL, any other is ignored
 */
struct siw_cm_trans {
	u8 next;
	u8 timer;
	u16 actions;
	s16 status;
	bool valid;
};

/**
 * struct siw_cm_step - what one event did
 * @from: state before
 * @to: state after
 * @ev: the event, as classified
 * @actions: SIW_CM_A_* to execute, in bit order
 * @timer: timer to arm, SIW_CM_T_NONE to only stop the running one
 * @timeout_ms: its duration
 * @status: errno for upcalls and for the consumer's call
 * @rv: the consumer's call returns this: 0, @status for a refused
 *	accept, -EINVAL for an event the state does not take
 */
struct siw_cm_step {
	enum siw_cm_state from;
	enum siw_cm_state to;
	enum siw_cm_event ev;
	u16 actions;
	enum siw_cm_timer timer;
	unsigned int timeout_ms;
	int status;
	int rv;
};

/**
 * struct siw_cm_fsm - one endpoint's protocol state
 * @state: enum siw_cm_state
 * @initiator: we sent the request
 * @pol: the MPA policy, from the defaults and the consumer's IRD/ORD
 * @tmo: timer durations
 * @req: initiator: the request sent (its @pd is not kept)
 * @conn: the negotiated settings, valid from an accepting reply or
 *	accept on
 * @term: MPA error code of the Terminate for SIW_CM_A_QP_TERM
 * @status: errno of the last step
 * @rx: the peer's frame being received; @rx.frame once complete
 * @out: the frame to send for SIW_CM_A_SEND_FRAME
 * @out_len: octets at @out
 */
struct siw_cm_fsm {
	enum siw_cm_state state;
	bool initiator;
	struct siw_mpa_policy pol;
	struct siw_cm_timeouts tmo;
	struct siw_mpa_frame req;
	struct siw_mpa_conn conn;
	enum siw_mpa_err term;
	int status;
	struct siw_mpa_frame_rx rx;
	u16 out_len;
	u8 out[SIW_MPA_FRAME_MAX];
};

/* Private data the ULP may send in a frame of revision @rev */
static inline u16 siw_cm_pd_max(u8 rev)
{
	return rev >= SIW_MPA_REV_2 ? SIW_MPA_PD_MAX - SIW_MPA_ENH_LEN :
				      SIW_MPA_PD_MAX;
}

/* cm_fsm.c */
const struct siw_cm_trans *siw_cm_trans(enum siw_cm_state s,
					enum siw_cm_event ev);
bool siw_cm_event_is_consumer(enum siw_cm_event ev);
void siw_cm_fsm_init(struct siw_cm_fsm *f, bool initiator,
		     const struct siw_mpa_policy *pol,
		     const struct siw_cm_timeouts *tmo);
int siw_cm_fsm_step(struct siw_cm_fsm *f, enum siw_cm_event ev, int status,
		    struct siw_cm_step *st);
int siw_cm_fsm_connect(struct siw_cm_fsm *f, u16 ird, u16 ord,
		       const void *pd, u16 pd_len, struct siw_cm_step *st);
size_t siw_cm_fsm_frame(struct siw_cm_fsm *f, const void *buf, size_t len,
			struct siw_cm_step *st);
int siw_cm_fsm_accept(struct siw_cm_fsm *f, u16 ird, u16 ord,
		      const void *pd, u16 pd_len, struct siw_cm_step *st);
int siw_cm_fsm_reject(struct siw_cm_fsm *f, const void *pd, u16 pd_len,
		      struct siw_cm_step *st);
void siw_cm_fsm_rtr(struct siw_cm_fsm *f, enum siw_mpa_rtr rtr,
		    struct siw_cm_step *st);
const struct siw_mpa_frame *siw_cm_fsm_peer(const struct siw_cm_fsm *f);
u8 siw_cm_fsm_peer_ird(const struct siw_cm_fsm *f);
u8 siw_cm_fsm_peer_ord(const struct siw_cm_fsm *f);

/* cm_names.c */
const char *siw_cm_state_name(enum siw_cm_state s);
const char *siw_cm_event_name(enum siw_cm_event ev);
const char *siw_cm_action_name(enum siw_cm_action_bit a);
const char *siw_cm_timer_name(enum siw_cm_timer t);

#endif /* SIW_CM_FSM_H */
