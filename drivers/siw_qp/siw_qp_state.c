// SPDX-License-Identifier: GPL-2.0
/*
 * The iWARP QP state machine as the consumer drives it through
 * modify_qp: one table from (current state, requested IB state) to the
 * next state and what the transition does. Pure; siw_qp.c applies it.
 *
 * IB names the states the consumer asks for. iWARP has no RESET: a QP
 * is born IDLE, which query_qp reports as INIT (as rdma-core's tests
 * expect of an RNIC), and RESET leads back to IDLE, discarding the
 * queues. SQD is the graceful close iw_cm asks for on disconnect; RTS
 * needs a stream, so only the CM's attach makes it reachable.
 */
#include <kunit/visibility.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/kernel.h>

#include "siw_qp.h"

#define SIW_NEED_OK	BIT(0)	/* the transition exists */
#define SIW_NEED_STREAM	BIT(1)	/* only with a stream attached */

/**
 * struct siw_qp_rule - one cell of the transition table
 * @next: enum siw_qp_state
 * @actions: SIW_QP_ACT_*
 * @need: SIW_NEED_*
 */
struct siw_qp_rule {
	u8 next;
	u8 actions;
	u8 need;
};

#define R(n, a, nd)	{ .next = SIW_QP_##n, .actions = (a), \
			  .need = SIW_NEED_OK | (nd) }

/* Leaving a live connection for RESET or ERR resets the stream */
#define TO_RESET	R(IDLE, SIW_QP_ACT_ABORT | SIW_QP_ACT_RESET, 0)
#define TO_ERR		R(ERROR, SIW_QP_ACT_FLUSH | SIW_QP_ACT_ABORT, 0)

static const struct siw_qp_rule siw_qp_rules[SIW_QP_NUM_STATES][IB_QPS_ERR + 1] = {
	[SIW_QP_IDLE] = {
		[IB_QPS_RESET] = R(IDLE, SIW_QP_ACT_RESET, 0),
		[IB_QPS_INIT] = R(IDLE, 0, 0),
		[IB_QPS_RTR] = R(RTR, 0, 0),
		[IB_QPS_RTS] = R(RTS, 0, SIW_NEED_STREAM),
		[IB_QPS_ERR] = R(ERROR, SIW_QP_ACT_FLUSH, 0),
	},
	[SIW_QP_RTR] = {
		[IB_QPS_RESET] = TO_RESET,
		[IB_QPS_RTR] = R(RTR, 0, 0),
		[IB_QPS_RTS] = R(RTS, 0, SIW_NEED_STREAM),
		[IB_QPS_SQD] = R(CLOSING, SIW_QP_ACT_CLOSE, SIW_NEED_STREAM),
		[IB_QPS_ERR] = TO_ERR,
	},
	[SIW_QP_RTS] = {
		[IB_QPS_RESET] = TO_RESET,
		[IB_QPS_RTS] = R(RTS, 0, 0),
		[IB_QPS_SQD] = R(CLOSING, SIW_QP_ACT_CLOSE, SIW_NEED_STREAM),
		[IB_QPS_ERR] = TO_ERR,
	},
	[SIW_QP_CLOSING] = {
		[IB_QPS_RESET] = TO_RESET,
		[IB_QPS_SQD] = R(CLOSING, 0, 0),
		[IB_QPS_ERR] = TO_ERR,
	},
	/*
	 * A graceful close (SQD, what rdma_disconnect() asks for) of a QP
	 * whose connection has ended already has nothing left to do: it
	 * succeeds and changes nothing, so that a consumer disconnecting
	 * after its peer did is not told it failed.
	 */
	[SIW_QP_TERMINATE] = {
		[IB_QPS_RESET] = TO_RESET,
		[IB_QPS_SQD] = R(TERMINATE, 0, 0),
		[IB_QPS_SQE] = R(TERMINATE, 0, 0),
		[IB_QPS_ERR] = TO_ERR,
	},
	[SIW_QP_ERROR] = {
		[IB_QPS_RESET] = TO_RESET,
		[IB_QPS_SQD] = R(ERROR, 0, 0),
		[IB_QPS_ERR] = R(ERROR, SIW_QP_ACT_FLUSH, 0),
	},
};

static const char * const siw_qp_state_names[SIW_QP_NUM_STATES] = {
	[SIW_QP_IDLE] = "IDLE",
	[SIW_QP_RTR] = "RTR",
	[SIW_QP_RTS] = "RTS",
	[SIW_QP_CLOSING] = "CLOSING",
	[SIW_QP_TERMINATE] = "TERMINATE",
	[SIW_QP_ERROR] = "ERROR",
};

static const u8 siw_qp_ib_states[SIW_QP_NUM_STATES] = {
	[SIW_QP_IDLE] = IB_QPS_INIT,
	[SIW_QP_RTR] = IB_QPS_RTR,
	[SIW_QP_RTS] = IB_QPS_RTS,
	[SIW_QP_CLOSING] = IB_QPS_SQD,
	[SIW_QP_TERMINATE] = IB_QPS_SQE,
	[SIW_QP_ERROR] = IB_QPS_ERR,
};

/**
 * siw_qp_transition() - where a consumer's modify_qp leads
 * @cur: the current state
 * @attached: a stream is attached
 * @target: the IB state the consumer asks for
 * @t: the next state and the actions to take
 *
 * Returns: 0, or -EINVAL if the transition is not allowed.
 */
int siw_qp_transition(enum siw_qp_state cur, bool attached,
		      enum ib_qp_state target, struct siw_qp_trans *t)
{
	const struct siw_qp_rule *r;

	if (cur >= SIW_QP_NUM_STATES || target > IB_QPS_ERR)
		return -EINVAL;
	r = &siw_qp_rules[cur][target];
	if (!(r->need & SIW_NEED_OK))
		return -EINVAL;
	if ((r->need & SIW_NEED_STREAM) && !attached)
		return -EINVAL;
	t->next = r->next;
	t->actions = r->actions;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(siw_qp_transition);

/**
 * siw_qp_ib_state() - the IB state query_qp reports
 * @state: enum siw_qp_state
 *
 * Returns: the enum ib_qp_state.
 */
enum ib_qp_state siw_qp_ib_state(enum siw_qp_state state)
{
	if (state >= SIW_QP_NUM_STATES)
		return IB_QPS_ERR;
	return siw_qp_ib_states[state];
}
EXPORT_SYMBOL_IF_KUNIT(siw_qp_ib_state);

/**
 * siw_qp_state_name() - a state's name for logs and traces
 * @state: enum siw_qp_state
 *
 * Returns: the name, "?" for a value out of range.
 */
const char *siw_qp_state_name(enum siw_qp_state state)
{
	return state < SIW_QP_NUM_STATES ? siw_qp_state_names[state] : "?";
}
EXPORT_SYMBOL_IF_KUNIT(siw_qp_state_name);
