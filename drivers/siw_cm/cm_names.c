// SPDX-License-Identifier: GPL-2.0
/*
 * Name tables of the endpoint state machine, for logs and tracepoints.
 */
#include <kunit/visibility.h>
#include <linux/export.h>
#include <linux/kernel.h>

#include "cm_fsm.h"

static const char * const siw_cm_state_names[SIW_CM_NUM_STATES] = {
	[SIW_CM_IDLE]		= "idle",
	[SIW_CM_CONNECTING]	= "connecting",
	[SIW_CM_REQ_SENT]	= "request sent",
	[SIW_CM_AWAIT_REQ]	= "awaiting request",
	[SIW_CM_REQ_RCVD]	= "request received",
	[SIW_CM_AWAIT_RTR]	= "awaiting RTR",
	[SIW_CM_ESTABLISHED]	= "established",
	[SIW_CM_CLOSING]	= "closing",
	[SIW_CM_CLOSED]		= "closed",
};

static const char * const siw_cm_event_names[SIW_CM_NUM_EVENTS] = {
	[SIW_CM_EV_CONNECT]	= "connect",
	[SIW_CM_EV_ACCEPT]	= "accept",
	[SIW_CM_EV_ACCEPT_P2P]	= "accept peer-to-peer",
	[SIW_CM_EV_ACCEPT_REFUSE] = "accept refused",
	[SIW_CM_EV_REJECT]	= "reject",
	[SIW_CM_EV_DISCONNECT]	= "disconnect",
	[SIW_CM_EV_ABORT]	= "abort",
	[SIW_CM_EV_DESTROY]	= "destroy",
	[SIW_CM_EV_TCP_UP]	= "TCP up",
	[SIW_CM_EV_TCP_FAIL]	= "TCP failed",
	[SIW_CM_EV_LLP_CLOSED]	= "LLP closed",
	[SIW_CM_EV_TIMEOUT]	= "timeout",
	[SIW_CM_EV_REQ]		= "request",
	[SIW_CM_EV_REQ_REFUSE]	= "request refused",
	[SIW_CM_EV_BAD_FRAME]	= "bad frame",
	[SIW_CM_EV_REP]		= "reply",
	[SIW_CM_EV_REP_RTR]	= "reply, RTR to send",
	[SIW_CM_EV_REP_REJECT]	= "reject received",
	[SIW_CM_EV_REP_TERM]	= "reply needs Terminate",
	[SIW_CM_EV_RTR]		= "RTR",
	[SIW_CM_EV_RTR_BAD]	= "RTR not offered",
};

static const char * const siw_cm_action_names[SIW_CM_NUM_ACTIONS] = {
	[SIW_CM_A_TCP_CONNECT_BIT]	= "tcp-connect",
	[SIW_CM_A_RECV_BIT]		= "recv",
	[SIW_CM_A_SEND_FRAME_BIT]	= "send-frame",
	[SIW_CM_A_QP_ATTACH_BIT]	= "qp-attach",
	[SIW_CM_A_QP_RTR_BIT]		= "qp-rtr",
	[SIW_CM_A_QP_RTS_BIT]		= "qp-rts",
	[SIW_CM_A_QP_TERM_BIT]		= "qp-terminate",
	[SIW_CM_A_QP_DETACH_BIT]	= "qp-detach",
	[SIW_CM_A_SHUTDOWN_BIT]		= "shutdown",
	[SIW_CM_A_CLOSE_BIT]		= "close",
	[SIW_CM_A_ABORT_BIT]		= "abort",
	[SIW_CM_A_UP_REQUEST_BIT]	= "up-request",
	[SIW_CM_A_UP_REPLY_BIT]		= "up-reply",
	[SIW_CM_A_UP_ESTABLISHED_BIT]	= "up-established",
	[SIW_CM_A_UP_DISCONNECT_BIT]	= "up-disconnect",
	[SIW_CM_A_UP_CLOSE_BIT]		= "up-close",
};

static const char * const siw_cm_timer_names[SIW_CM_NUM_TIMERS] = {
	[SIW_CM_T_NONE]		= "none",
	[SIW_CM_T_CONNECT]	= "connect",
	[SIW_CM_T_MPA]		= "mpa",
	[SIW_CM_T_CONSUMER]	= "consumer",
	[SIW_CM_T_RTR]		= "rtr",
	[SIW_CM_T_CLOSE]	= "close",
};

static const char *siw_cm_name(const char * const *tab, unsigned int n,
			       unsigned int i)
{
	return i < n && tab[i] ? tab[i] : "unknown";
}

/**
 * siw_cm_state_name() - name of an endpoint state
 * @s: the state
 *
 * Context: any.
 * Returns: a constant string.
 */
const char *siw_cm_state_name(enum siw_cm_state s)
{
	return siw_cm_name(siw_cm_state_names, SIW_CM_NUM_STATES, s);
}
EXPORT_SYMBOL_IF_KUNIT(siw_cm_state_name);

/**
 * siw_cm_event_name() - name of an endpoint event
 * @ev: the event
 *
 * Context: any.
 * Returns: a constant string.
 */
const char *siw_cm_event_name(enum siw_cm_event ev)
{
	return siw_cm_name(siw_cm_event_names, SIW_CM_NUM_EVENTS, ev);
}
EXPORT_SYMBOL_IF_KUNIT(siw_cm_event_name);

/**
 * siw_cm_action_name() - name of one action bit
 * @a: the bit number
 *
 * Context: any.
 * Returns: a constant string.
 */
const char *siw_cm_action_name(enum siw_cm_action_bit a)
{
	return siw_cm_name(siw_cm_action_names, SIW_CM_NUM_ACTIONS, a);
}
EXPORT_SYMBOL_IF_KUNIT(siw_cm_action_name);

/**
 * siw_cm_timer_name() - name of a timer
 * @t: the timer
 *
 * Context: any.
 * Returns: a constant string.
 */
const char *siw_cm_timer_name(enum siw_cm_timer t)
{
	return siw_cm_name(siw_cm_timer_names, SIW_CM_NUM_TIMERS, t);
}
EXPORT_SYMBOL_IF_KUNIT(siw_cm_timer_name);
