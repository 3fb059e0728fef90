// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite siw_cm_fsm: the endpoint state machine, cell by cell.
 *
 * Every (state, event) pair is one case. The expected cells are written
 * here from what iw_cm and RFC 6581 demand, not copied from the table:
 * one CONNECT_REPLY for every connect, ESTABLISHED before CLOSE after
 * an accept, nothing sent by a responder before the RTR indication, the
 * QP detached and the socket released on every way into "closed". A
 * pair not listed must be refused (consumer calls) or ignored. Each
 * case also checks the invariants that hold for all cells.
 */
#include <kunit/test.h>
#include <linux/errno.h>
#include <linux/kernel.h>

#include "siw_cm_test.h"

#define S(x)	SIW_CM_##x
#define E(x)	SIW_CM_EV_##x
#define A(x)	SIW_CM_A_##x
#define TM(x)	SIW_CM_T_##x

#define UP_FAIL_LATE	(A(UP_ESTABLISHED) | A(UP_DISCONNECT) | A(UP_CLOSE))
#define QP_GONE		(A(QP_DETACH) | A(ABORT))

/**
 * struct cell - an expected transition
 * @from: state
 * @ev: event
 * @to: next state
 * @timer: timer armed
 * @actions: exactly these actions
 * @status: errno for the upcall or the consumer
 */
struct cell {
	u8 from;
	u8 ev;
	u8 to;
	u8 timer;
	u16 actions;
	s16 status;
};

static const struct cell spec[] = {
	/* an initiator starts, a responder is born with its TCP up */
	{ S(IDLE), E(CONNECT), S(CONNECTING), TM(CONNECT), A(TCP_CONNECT) },
	{ S(IDLE), E(TCP_UP), S(AWAIT_REQ), TM(MPA), A(RECV) },
	{ S(IDLE), E(DESTROY), S(CLOSED), TM(NONE), A(ABORT) },
	/* connect: one CONNECT_REPLY, whatever ends it */
	{ S(CONNECTING), E(TCP_UP), S(REQ_SENT), TM(MPA),
	  A(SEND_FRAME) | A(RECV) },
	{ S(CONNECTING), E(TCP_FAIL), S(CLOSED), TM(NONE),
	  A(ABORT) | A(UP_REPLY), -EHOSTUNREACH },
	{ S(CONNECTING), E(LLP_CLOSED), S(CLOSED), TM(NONE),
	  A(ABORT) | A(UP_REPLY), -ECONNRESET },
	{ S(CONNECTING), E(TIMEOUT), S(CLOSED), TM(NONE),
	  A(ABORT) | A(UP_REPLY), -ETIMEDOUT },
	{ S(CONNECTING), E(DESTROY), S(CLOSED), TM(NONE),
	  A(ABORT) | A(UP_REPLY), -ECONNABORTED },
	{ S(REQ_SENT), E(REP), S(ESTABLISHED), TM(NONE),
	  A(QP_ATTACH) | A(QP_RTS) | A(UP_REPLY) },
	{ S(REQ_SENT), E(REP_RTR), S(ESTABLISHED), TM(NONE),
	  A(QP_ATTACH) | A(QP_RTR) | A(QP_RTS) | A(UP_REPLY) },
	{ S(REQ_SENT), E(REP_REJECT), S(CLOSED), TM(NONE),
	  A(CLOSE) | A(UP_REPLY), -ECONNREFUSED },
	{ S(REQ_SENT), E(REP_TERM), S(CLOSED), TM(NONE),
	  A(QP_ATTACH) | A(QP_TERM) | A(QP_DETACH) | A(CLOSE) | A(UP_REPLY),
	  -ECONNREFUSED },
	{ S(REQ_SENT), E(BAD_FRAME), S(CLOSED), TM(NONE),
	  A(ABORT) | A(UP_REPLY), -EPROTO },
	{ S(REQ_SENT), E(LLP_CLOSED), S(CLOSED), TM(NONE),
	  A(ABORT) | A(UP_REPLY), -ECONNRESET },
	{ S(REQ_SENT), E(TIMEOUT), S(CLOSED), TM(NONE),
	  A(ABORT) | A(UP_REPLY), -ETIMEDOUT },
	{ S(REQ_SENT), E(DESTROY), S(CLOSED), TM(NONE),
	  A(ABORT) | A(UP_REPLY), -ECONNABORTED },
	/* responder before the consumer knows: no upcall to fail */
	{ S(AWAIT_REQ), E(REQ), S(REQ_RCVD), TM(CONSUMER), A(UP_REQUEST) },
	{ S(AWAIT_REQ), E(REQ_REFUSE), S(CLOSED), TM(NONE),
	  A(SEND_FRAME) | A(CLOSE), -ECONNREFUSED },
	{ S(AWAIT_REQ), E(BAD_FRAME), S(CLOSED), TM(NONE),
	  A(SEND_FRAME) | A(CLOSE), -EPROTO },
	{ S(AWAIT_REQ), E(LLP_CLOSED), S(CLOSED), TM(NONE), A(ABORT),
	  -ECONNRESET },
	{ S(AWAIT_REQ), E(TIMEOUT), S(CLOSED), TM(NONE), A(ABORT),
	  -ETIMEDOUT },
	{ S(AWAIT_REQ), E(DESTROY), S(CLOSED), TM(NONE), A(ABORT),
	  -ECONNABORTED },
	/* the consumer decides */
	{ S(REQ_RCVD), E(ACCEPT), S(ESTABLISHED), TM(NONE),
	  A(SEND_FRAME) | A(QP_ATTACH) | A(QP_RTS) | A(UP_ESTABLISHED) },
	{ S(REQ_RCVD), E(ACCEPT_P2P), S(AWAIT_RTR), TM(RTR),
	  A(SEND_FRAME) | A(QP_ATTACH) },
	{ S(REQ_RCVD), E(ACCEPT_REFUSE), S(CLOSED), TM(NONE),
	  A(SEND_FRAME) | A(CLOSE), -ECONNREFUSED },
	{ S(REQ_RCVD), E(REJECT), S(CLOSED), TM(NONE),
	  A(SEND_FRAME) | A(CLOSE) },
	{ S(REQ_RCVD), E(LLP_CLOSED), S(CLOSED), TM(NONE), A(ABORT),
	  -ECONNRESET },
	{ S(REQ_RCVD), E(TIMEOUT), S(CLOSED), TM(NONE), A(ABORT),
	  -ETIMEDOUT },
	{ S(REQ_RCVD), E(DESTROY), S(CLOSED), TM(NONE), A(ABORT),
	  -ECONNABORTED },
	/* peer-to-peer responder: ESTABLISHED always precedes CLOSE */
	{ S(AWAIT_RTR), E(RTR), S(ESTABLISHED), TM(NONE),
	  A(QP_RTS) | A(UP_ESTABLISHED) },
	{ S(AWAIT_RTR), E(RTR_BAD), S(CLOSED), TM(NONE),
	  A(QP_TERM) | A(QP_DETACH) | A(CLOSE) | UP_FAIL_LATE, -ECONNRESET },
	{ S(AWAIT_RTR), E(LLP_CLOSED), S(CLOSED), TM(NONE),
	  QP_GONE | UP_FAIL_LATE, -ECONNRESET },
	{ S(AWAIT_RTR), E(TIMEOUT), S(CLOSED), TM(NONE),
	  QP_GONE | UP_FAIL_LATE, -ETIMEDOUT },
	{ S(AWAIT_RTR), E(ABORT), S(CLOSED), TM(NONE),
	  QP_GONE | UP_FAIL_LATE, -ECONNABORTED },
	{ S(AWAIT_RTR), E(DESTROY), S(CLOSED), TM(NONE),
	  QP_GONE | UP_FAIL_LATE, -ECONNABORTED },
	/* connected */
	{ S(ESTABLISHED), E(DISCONNECT), S(CLOSING), TM(CLOSE), A(SHUTDOWN) },
	{ S(ESTABLISHED), E(ABORT), S(CLOSED), TM(NONE),
	  QP_GONE | A(UP_CLOSE) },
	{ S(ESTABLISHED), E(LLP_CLOSED), S(CLOSED), TM(NONE),
	  A(QP_DETACH) | A(CLOSE) | A(UP_DISCONNECT) | A(UP_CLOSE) },
	{ S(ESTABLISHED), E(DESTROY), S(CLOSED), TM(NONE),
	  QP_GONE | A(UP_CLOSE), -ECONNABORTED },
	{ S(CLOSING), E(DISCONNECT), S(CLOSING), TM(CLOSE), 0 },
	{ S(CLOSING), E(LLP_CLOSED), S(CLOSED), TM(NONE),
	  A(QP_DETACH) | A(CLOSE) | A(UP_CLOSE) },
	{ S(CLOSING), E(TIMEOUT), S(CLOSED), TM(NONE), QP_GONE | A(UP_CLOSE) },
	{ S(CLOSING), E(ABORT), S(CLOSED), TM(NONE), QP_GONE | A(UP_CLOSE) },
	{ S(CLOSING), E(DESTROY), S(CLOSED), TM(NONE),
	  QP_GONE | A(UP_CLOSE), -ECONNABORTED },
	/* late consumer calls on a dead connection */
	{ S(CLOSED), E(ACCEPT), S(CLOSED), TM(NONE), 0, -ECONNRESET },
	{ S(CLOSED), E(ACCEPT_P2P), S(CLOSED), TM(NONE), 0, -ECONNRESET },
	{ S(CLOSED), E(ACCEPT_REFUSE), S(CLOSED), TM(NONE), 0, -ECONNRESET },
	{ S(CLOSED), E(REJECT), S(CLOSED), TM(NONE), 0, -ECONNRESET },
	{ S(CLOSED), E(DISCONNECT), S(CLOSED), TM(NONE), 0 },
	{ S(CLOSED), E(ABORT), S(CLOSED), TM(NONE), 0 },
	{ S(CLOSED), E(DESTROY), S(CLOSED), TM(NONE), 0 },
};

static const struct cell *spec_find(unsigned int s, unsigned int ev)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(spec); i++)
		if (spec[i].from == s && spec[i].ev == ev)
			return &spec[i];
	return NULL;
}

#define UPCALLS	(A(UP_REQUEST) | A(UP_REPLY) | A(UP_ESTABLISHED) | \
		 A(UP_DISCONNECT) | A(UP_CLOSE))

/* What must hold for any transition, listed or not */
static void check_invariants(struct kunit *test, const struct siw_cm_step *st)
{
	u16 a = st->actions;

	/* a responder sends nothing before the RTR indication */
	if (st->from == S(AWAIT_RTR) && st->ev != E(RTR))
		KUNIT_EXPECT_FALSE(test, a & (A(QP_RTS) | A(SEND_FRAME) |
					      A(QP_RTR)));
	/* the initiator always hears how its connect ended */
	if ((st->from == S(CONNECTING) || st->from == S(REQ_SENT)) &&
	    st->to == S(CLOSED))
		KUNIT_EXPECT_TRUE(test, a & A(UP_REPLY));
	/* ESTABLISHED before CLOSE once accept returned */
	if (st->from == S(AWAIT_RTR) && st->to == S(CLOSED))
		KUNIT_EXPECT_EQ(test, a & UP_FAIL_LATE, UP_FAIL_LATE);
	/* the socket is released on every way into closed */
	if (st->from != S(CLOSED) && st->to == S(CLOSED))
		KUNIT_EXPECT_TRUE(test, a & (A(CLOSE) | A(ABORT)));
	/* a QP that holds the socket gives it back */
	if ((st->from == S(AWAIT_RTR) || st->from == S(ESTABLISHED) ||
	     st->from == S(CLOSING)) && st->to == S(CLOSED))
		KUNIT_EXPECT_TRUE(test, a & A(QP_DETACH));
	/* QP_RTR and QP_TERM only with a QP attached before or now */
	if (a & (A(QP_RTR) | A(QP_TERM)))
		KUNIT_EXPECT_TRUE(test, (a & A(QP_ATTACH)) ||
				  st->from == S(AWAIT_RTR));
	/* no timer runs in closed */
	if (st->to == S(CLOSED))
		KUNIT_EXPECT_EQ(test, st->timer, TM(NONE));
	/* CLOSE only after ESTABLISHED reached the consumer */
	if (a & A(UP_CLOSE))
		KUNIT_EXPECT_TRUE(test, st->from == S(ESTABLISHED) ||
				  st->from == S(CLOSING) ||
				  (a & A(UP_ESTABLISHED)));
	/* an upcall with a status never says success when closing */
	if ((a & A(UP_REPLY)) && st->to == S(CLOSED))
		KUNIT_EXPECT_LT(test, st->status, 0);
	KUNIT_EXPECT_FALSE(test, (a & A(CLOSE)) && (a & A(ABORT)));
	if (!(a & UPCALLS) && st->to == S(ESTABLISHED))
		KUNIT_FAIL(test, "established without telling the consumer");
}

/* One case per cell; the parameter's offset in this array is the cell */
static const u8 cells[SIW_CM_NUM_STATES * SIW_CM_NUM_EVENTS];

static const void *cell_gen(const void *prev, char *desc)
{
	const u8 *c = prev ? (const u8 *)prev + 1 : cells;
	size_t i = c - cells;

	if (i >= ARRAY_SIZE(cells))
		return NULL;
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s x %s",
		 siw_cm_state_name(i / SIW_CM_NUM_EVENTS),
		 siw_cm_event_name(i % SIW_CM_NUM_EVENTS));
	return c;
}

static void cm_cell(struct kunit *test)
{
	size_t i = (const u8 *)test->param_value - cells;
	unsigned int cs = i / SIW_CM_NUM_EVENTS, cev = i % SIW_CM_NUM_EVENTS;
	const struct cell *exp = spec_find(cs, cev);
	struct siw_mpa_policy pol;
	struct cm_end *e;
	int rv;

	e = kunit_kzalloc(test, sizeof(*e), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, e);
	siw_mpa_policy_init(&pol);
	cm_end_init(e, cs == S(CONNECTING) || cs == S(REQ_SENT), &pol);
	e->f.state = cs;
	/* only a failed TCP connect comes with a status of its own */
	rv = siw_cm_fsm_step(&e->f, cev,
			     cev == E(TCP_FAIL) ? -EHOSTUNREACH : 0, &e->st);
	KUNIT_EXPECT_EQ(test, e->st.from, (enum siw_cm_state)cs);
	KUNIT_EXPECT_EQ(test, e->st.ev, (enum siw_cm_event)cev);
	if (!exp) {
		KUNIT_EXPECT_EQ(test, e->f.state, (enum siw_cm_state)cs);
		KUNIT_EXPECT_EQ(test, e->st.actions, 0);
		KUNIT_EXPECT_EQ(test, e->st.timer, TM(NONE));
		KUNIT_EXPECT_EQ(test, rv, siw_cm_event_is_consumer(cev) ?
				-EINVAL : 0);
		return;
	}
	KUNIT_EXPECT_EQ(test, e->st.to, (enum siw_cm_state)exp->to);
	KUNIT_EXPECT_EQ(test, e->f.state, (enum siw_cm_state)exp->to);
	KUNIT_EXPECT_EQ(test, e->st.actions, exp->actions);
	KUNIT_EXPECT_EQ(test, e->st.timer, (enum siw_cm_timer)exp->timer);
	KUNIT_EXPECT_EQ(test, e->st.timeout_ms, e->f.tmo.ms[exp->timer]);
	KUNIT_EXPECT_EQ(test, e->st.status, (int)exp->status);
	if (siw_cm_event_is_consumer(cev) && !(exp->actions & UPCALLS))
		KUNIT_EXPECT_EQ(test, rv, (int)exp->status);
	else
		KUNIT_EXPECT_EQ(test, rv, 0);
	check_invariants(test, &e->st);
}

/* Every timer a state arms, and how long it runs */
struct timer_case {
	const char *name;
	u8 s;
	u8 ev;
	u8 timer;
	unsigned int ms;
};

static const struct timer_case timer_cases[] = {
	{ "connect arms the TCP connect timer", S(IDLE), E(CONNECT),
	  TM(CONNECT), 1000 },
	{ "initiator waits for the reply", S(CONNECTING), E(TCP_UP), TM(MPA),
	  2000 },
	{ "responder waits for the request", S(IDLE), E(TCP_UP), TM(MPA),
	  2000 },
	{ "responder waits for the consumer", S(AWAIT_REQ), E(REQ),
	  TM(CONSUMER), 3000 },
	{ "responder waits for the RTR", S(REQ_RCVD), E(ACCEPT_P2P), TM(RTR),
	  4000 },
	{ "FIN waits for the peer's", S(ESTABLISHED), E(DISCONNECT),
	  TM(CLOSE), 5000 },
	{ "established runs no timer", S(REQ_SENT), E(REP), TM(NONE), 0 },
	{ "RTR stops the timer", S(AWAIT_RTR), E(RTR), TM(NONE), 0 },
};

CM_CASE_DESC(timer_case)
KUNIT_ARRAY_PARAM(timer, timer_cases, timer_case_desc);

static void cm_timer(struct kunit *test)
{
	const struct timer_case *c = test->param_value;
	struct siw_mpa_policy pol;
	struct cm_end *e;

	e = kunit_kzalloc(test, sizeof(*e), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, e);
	siw_mpa_policy_init(&pol);
	cm_end_init(e, true, &pol);
	e->f.state = c->s;
	cm_ev(e, c->ev, 0);
	KUNIT_EXPECT_EQ(test, e->st.timer, (enum siw_cm_timer)c->timer);
	KUNIT_EXPECT_EQ(test, e->st.timeout_ms, c->ms);
}

/* Each armed timer, when it fires, ends the attempt as iw_cm expects */
struct expiry_case {
	const char *name;
	u8 s;
	u8 to;
	int status;
	u16 ups;
};

static const struct expiry_case expiry_cases[] = {
	{ "TCP connect too slow", S(CONNECTING), S(CLOSED), -ETIMEDOUT,
	  A(UP_REPLY) },
	{ "no MPA Reply", S(REQ_SENT), S(CLOSED), -ETIMEDOUT, A(UP_REPLY) },
	{ "no MPA Request", S(AWAIT_REQ), S(CLOSED), -ETIMEDOUT, 0 },
	{ "consumer never decides", S(REQ_RCVD), S(CLOSED), -ETIMEDOUT, 0 },
	{ "no RTR", S(AWAIT_RTR), S(CLOSED), -ETIMEDOUT, UP_FAIL_LATE },
	{ "no FIN from the peer", S(CLOSING), S(CLOSED), 0, A(UP_CLOSE) },
	{ "stale timer when established", S(ESTABLISHED), S(ESTABLISHED), 0,
	  0 },
	{ "stale timer when closed", S(CLOSED), S(CLOSED), 0, 0 },
};

CM_CASE_DESC(expiry_case)
KUNIT_ARRAY_PARAM(expiry, expiry_cases, expiry_case_desc);

static void cm_expiry(struct kunit *test)
{
	const struct expiry_case *c = test->param_value;
	struct siw_mpa_policy pol;
	struct cm_end *e;

	e = kunit_kzalloc(test, sizeof(*e), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, e);
	siw_mpa_policy_init(&pol);
	cm_end_init(e, true, &pol);
	e->f.state = c->s;
	cm_ev(e, E(TIMEOUT), 0);
	KUNIT_EXPECT_EQ(test, e->f.state, (enum siw_cm_state)c->to);
	KUNIT_EXPECT_EQ(test, e->st.status, c->status);
	KUNIT_EXPECT_EQ(test, e->st.actions & UPCALLS, c->ups);
	if (c->to == S(CLOSED) && c->s != S(CLOSED))
		KUNIT_EXPECT_TRUE(test, e->closed);
}

/* Every enum value has a name of its own */
static void cm_names(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < SIW_CM_NUM_STATES; i++)
		KUNIT_EXPECT_STRNEQ(test, siw_cm_state_name(i), "unknown");
	for (i = 0; i < SIW_CM_NUM_EVENTS; i++)
		KUNIT_EXPECT_STRNEQ(test, siw_cm_event_name(i), "unknown");
	for (i = 0; i < SIW_CM_NUM_ACTIONS; i++)
		KUNIT_EXPECT_STRNEQ(test, siw_cm_action_name(i), "unknown");
	for (i = 0; i < SIW_CM_NUM_TIMERS; i++)
		KUNIT_EXPECT_STRNEQ(test, siw_cm_timer_name(i), "unknown");
	KUNIT_EXPECT_STREQ(test, siw_cm_state_name(SIW_CM_NUM_STATES),
			   "unknown");
	KUNIT_EXPECT_STREQ(test, siw_cm_event_name(SIW_CM_NUM_EVENTS),
			   "unknown");
	KUNIT_EXPECT_NULL(test, siw_cm_trans(SIW_CM_NUM_STATES, 0));
	KUNIT_EXPECT_NULL(test, siw_cm_trans(0, SIW_CM_NUM_EVENTS));
}

/* Every listed cell is a real one: the spec has no typo'd duplicates */
static void cm_spec_sane(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(spec); i++)
		KUNIT_EXPECT_PTR_EQ(test, spec_find(spec[i].from, spec[i].ev),
				    &spec[i]);
}

static struct kunit_case siw_cm_fsm_cases[] = {
	KUNIT_CASE_PARAM(cm_cell, cell_gen),
	KUNIT_CASE_PARAM(cm_timer, timer_gen_params),
	KUNIT_CASE_PARAM(cm_expiry, expiry_gen_params),
	KUNIT_CASE(cm_names),
	KUNIT_CASE(cm_spec_sane),
	{}
};

static struct kunit_suite siw_cm_fsm_suite = {
	.name = "siw_cm_fsm",
	.test_cases = siw_cm_fsm_cases,
};

kunit_test_suite(siw_cm_fsm_suite);
