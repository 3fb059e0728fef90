// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite siw_qp_state: the QP state machine a consumer drives with
 * modify_qp, every cell of it.
 *
 * The legal transitions are written down here from the iWARP verbs
 * (RDMAC) and from what iw_cm, ib_drain_qp() and rdma-core's tests
 * need, not copied from the driver's table: a new QP is IDLE, which is
 * INIT to the consumer; ERR from anywhere flushes (and resets a live
 * stream), RESET from anywhere discards, SQD is the graceful close of a
 * connected QP, RTS needs a stream. Every combination not listed must
 * be refused.
 */
#include <kunit/test.h>
#include <linux/kernel.h>

#include "siw_qp/siw_qp.h"

#define Q(x)	SIW_QP_##x
#define I(x)	IB_QPS_##x
#define FLUSH	SIW_QP_ACT_FLUSH
#define CLOSE	SIW_QP_ACT_CLOSE
#define ABORT	SIW_QP_ACT_ABORT
#define RESET	SIW_QP_ACT_RESET

/* Whether a cell holds only with a stream attached */
#define ANY	0
#define STREAM	1

/**
 * struct qp_cell - one legal transition
 * @name: case name
 * @from: current state
 * @to_ib: IB state asked for
 * @need: ANY or STREAM
 * @next: expected state
 * @actions: expected actions, exactly
 */
struct qp_cell {
	const char *name;
	u8 from;
	u8 to_ib;
	u8 need;
	u8 next;
	u8 actions;
};

static const struct qp_cell legal[] = {
	{ "idle_reset", Q(IDLE), I(RESET), ANY, Q(IDLE), RESET },
	{ "idle_init", Q(IDLE), I(INIT), ANY, Q(IDLE), 0 },
	{ "idle_rtr", Q(IDLE), I(RTR), ANY, Q(RTR), 0 },
	{ "idle_rts_with_stream", Q(IDLE), I(RTS), STREAM, Q(RTS), 0 },
	{ "idle_err", Q(IDLE), I(ERR), ANY, Q(ERROR), FLUSH },
	{ "rtr_reset", Q(RTR), I(RESET), ANY, Q(IDLE), ABORT | RESET },
	{ "rtr_rtr", Q(RTR), I(RTR), ANY, Q(RTR), 0 },
	{ "rtr_rts_with_stream", Q(RTR), I(RTS), STREAM, Q(RTS), 0 },
	{ "rtr_sqd_with_stream", Q(RTR), I(SQD), STREAM, Q(CLOSING), CLOSE },
	{ "rtr_err", Q(RTR), I(ERR), ANY, Q(ERROR), FLUSH | ABORT },
	{ "rts_reset", Q(RTS), I(RESET), ANY, Q(IDLE), ABORT | RESET },
	{ "rts_rts", Q(RTS), I(RTS), ANY, Q(RTS), 0 },
	{ "rts_sqd", Q(RTS), I(SQD), STREAM, Q(CLOSING), CLOSE },
	{ "rts_err", Q(RTS), I(ERR), ANY, Q(ERROR), FLUSH | ABORT },
	{ "closing_reset", Q(CLOSING), I(RESET), ANY, Q(IDLE), ABORT | RESET },
	{ "closing_sqd", Q(CLOSING), I(SQD), ANY, Q(CLOSING), 0 },
	{ "closing_err", Q(CLOSING), I(ERR), ANY, Q(ERROR), FLUSH | ABORT },
	{ "term_reset", Q(TERMINATE), I(RESET), ANY, Q(IDLE), ABORT | RESET },
	{ "term_sqd", Q(TERMINATE), I(SQD), ANY, Q(TERMINATE), 0 },
	{ "term_sqe", Q(TERMINATE), I(SQE), ANY, Q(TERMINATE), 0 },
	{ "term_err", Q(TERMINATE), I(ERR), ANY, Q(ERROR), FLUSH | ABORT },
	{ "error_reset", Q(ERROR), I(RESET), ANY, Q(IDLE), ABORT | RESET },
	/* rdma_disconnect() after the peer closed: a graceful close is moot */
	{ "error_sqd", Q(ERROR), I(SQD), ANY, Q(ERROR), 0 },
	/* ib_drain_sq() then ib_drain_rq(): ERR twice, flushing each time */
	{ "error_err", Q(ERROR), I(ERR), ANY, Q(ERROR), FLUSH },
};

static void cell_desc(const struct qp_cell *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(legal, legal, cell_desc);

/* A legal cell: allowed in its variant, with its outcome exactly */
static void qp_state_legal(struct kunit *test)
{
	const struct qp_cell *c = test->param_value;
	struct siw_qp_trans t = { 0xff, 0xff };
	bool attached = c->need == STREAM;

	KUNIT_ASSERT_EQ(test, siw_qp_transition(c->from, attached, c->to_ib,
						&t), 0);
	KUNIT_EXPECT_EQ(test, t.next, c->next);
	KUNIT_EXPECT_EQ(test, t.actions, c->actions);

	/* without a stream, a request that needs one is refused */
	if (c->need == STREAM)
		KUNIT_EXPECT_EQ(test, siw_qp_transition(c->from, false,
							c->to_ib, &t), -EINVAL);
}

static bool cell_listed(u8 from, u8 to_ib, bool attached)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(legal); i++) {
		const struct qp_cell *c = &legal[i];

		if (c->from != from || c->to_ib != to_ib)
			continue;
		if (c->need == ANY || attached)
			return true;
	}
	return false;
}

/* Every (state, stream?, target) not listed is refused */
static void qp_state_illegal(struct kunit *test)
{
	struct siw_qp_trans t;
	unsigned int from, to, v, refused = 0;

	for (from = 0; from < SIW_QP_NUM_STATES; from++)
		for (to = IB_QPS_RESET; to <= IB_QPS_ERR; to++)
			for (v = 0; v < 2; v++) {
				int rv = siw_qp_transition(from, v, to, &t);

				if (cell_listed(from, to, v)) {
					KUNIT_EXPECT_EQ_MSG(test, rv, 0,
							    "%u -> %u", from, to);
					continue;
				}
				KUNIT_EXPECT_EQ_MSG(test, rv, -EINVAL,
						    "%u -> %u (stream %u)",
						    from, to, v);
				refused++;
			}
	/*
	 * 6 states x 7 targets, with and without a stream: 84 requests;
	 * 24 cells are legal with a stream, the 20 of them that need none
	 * also without: 40 refusals.
	 */
	KUNIT_EXPECT_EQ(test, refused, 40U);
}

/* Out-of-range input never indexes past the table */
static void qp_state_out_of_range(struct kunit *test)
{
	struct siw_qp_trans t;

	KUNIT_EXPECT_EQ(test, siw_qp_transition(SIW_QP_NUM_STATES, true,
						IB_QPS_ERR, &t), -EINVAL);
	KUNIT_EXPECT_EQ(test, siw_qp_transition(SIW_QP_IDLE, true,
						IB_QPS_ERR + 1, &t), -EINVAL);
	KUNIT_EXPECT_STREQ(test, siw_qp_state_name(SIW_QP_NUM_STATES), "?");
	KUNIT_EXPECT_EQ(test, siw_qp_ib_state(SIW_QP_NUM_STATES), IB_QPS_ERR);
}

/* What query_qp reports for each state; a new QP (IDLE) is INIT */
static void qp_state_ib_view(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, siw_qp_ib_state(Q(IDLE)), I(INIT));
	KUNIT_EXPECT_EQ(test, siw_qp_ib_state(Q(RTR)), I(RTR));
	KUNIT_EXPECT_EQ(test, siw_qp_ib_state(Q(RTS)), I(RTS));
	KUNIT_EXPECT_EQ(test, siw_qp_ib_state(Q(CLOSING)), I(SQD));
	KUNIT_EXPECT_EQ(test, siw_qp_ib_state(Q(TERMINATE)), I(SQE));
	KUNIT_EXPECT_EQ(test, siw_qp_ib_state(Q(ERROR)), I(ERR));
}

/* Every state has a name, and they differ */
static void qp_state_names(struct kunit *test)
{
	unsigned int i, j;

	for (i = 0; i < SIW_QP_NUM_STATES; i++) {
		KUNIT_EXPECT_STRNEQ(test, siw_qp_state_name(i), "?");
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_STRNEQ(test, siw_qp_state_name(i),
					    siw_qp_state_name(j));
	}
}

static struct kunit_case siw_qp_state_cases[] = {
	KUNIT_CASE_PARAM(qp_state_legal, legal_gen_params),
	KUNIT_CASE(qp_state_illegal),
	KUNIT_CASE(qp_state_out_of_range),
	KUNIT_CASE(qp_state_ib_view),
	KUNIT_CASE(qp_state_names),
	{}
};

static struct kunit_suite siw_qp_state_suite = {
	.name = "siw_qp_state",
	.test_cases = siw_qp_state_cases,
};

kunit_test_suite(siw_qp_state_suite);
