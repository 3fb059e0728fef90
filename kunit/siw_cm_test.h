/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the siw_cm_* KUnit suites: a fake transport that
 * carries the frames one endpoint sends to the other and records what
 * the state machine asked for, as the socket glue would execute it.
 */
#ifndef SIW_CM_TEST_H
#define SIW_CM_TEST_H

#include <kunit/test.h>
#include <linux/string.h>

#include "siw_cm/cm_fsm.h"
#include "siw_cm/cm_policy.h"

/* KUNIT_ARRAY_PARAM description: every case table has a ->name */
#define CM_CASE_DESC(type)						\
	static void type##_desc(const struct type *c, char *desc)	\
	{								\
		strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);		\
	}

#define CM_EXPECT_MEM(test, a, b, len) \
	KUNIT_EXPECT_EQ(test, memcmp((a), (b), (len)), 0)

#define CM_WIRE_MAX	(2 * SIW_MPA_FRAME_MAX + 64)

/**
 * struct cm_end - one endpoint on the fake transport
 * @f: its state machine
 * @st: the last step
 * @done: every action bit it was asked for so far
 * @nsteps: steps that changed something
 * @wire: octets it sent that the peer has not read yet
 * @wire_len: octets at @wire
 * @qp_rts: the QP was allowed to send
 * @qp_attached: the QP holds the socket
 * @closed: the socket was closed or aborted
 * @ups: upcalls, in order (SIW_CM_A_UP_* bit numbers)
 * @nups: entries in @ups
 */
struct cm_end {
	struct siw_cm_fsm f;
	struct siw_cm_step st;
	u32 done;
	unsigned int nsteps;
	u8 wire[CM_WIRE_MAX];
	size_t wire_len;
	bool qp_rts;
	bool qp_attached;
	bool closed;
	u8 ups[16];
	unsigned int nups;
};

/* Carry out @e->st as the glue would, on the fake transport */
static inline void cm_exec(struct cm_end *e)
{
	u16 a = e->st.actions;
	unsigned int b;

	if (e->st.from != e->st.to || a)
		e->nsteps++;
	e->done |= a;
	if ((a & SIW_CM_A_SEND_FRAME) &&
	    e->wire_len + e->f.out_len <= sizeof(e->wire)) {
		memcpy(e->wire + e->wire_len, e->f.out, e->f.out_len);
		e->wire_len += e->f.out_len;
	}
	if (a & SIW_CM_A_QP_ATTACH)
		e->qp_attached = true;
	if (a & SIW_CM_A_QP_RTS)
		e->qp_rts = true;
	if (a & SIW_CM_A_QP_DETACH)
		e->qp_attached = false;
	if (a & (SIW_CM_A_CLOSE | SIW_CM_A_ABORT))
		e->closed = true;
	for (b = SIW_CM_A_UP_REQUEST_BIT; b <= SIW_CM_A_UP_CLOSE_BIT; b++)
		if ((a & BIT(b)) && e->nups < ARRAY_SIZE(e->ups))
			e->ups[e->nups++] = b;
}

static inline void cm_end_init(struct cm_end *e, bool initiator,
			       const struct siw_mpa_policy *pol)
{
	struct siw_cm_timeouts tmo = { .ms = { 0, 1000, 2000, 3000, 4000,
					       5000 } };

	memset(e, 0, sizeof(*e));
	siw_cm_fsm_init(&e->f, initiator, pol, &tmo);
}

static inline void cm_ev(struct cm_end *e, enum siw_cm_event ev, int status)
{
	siw_cm_fsm_step(&e->f, ev, status, &e->st);
	cm_exec(e);
}

/*
 * Move what @from sent to @to, @chunk octets per call (0: all at once).
 * Returns the octets @to left unread (they belong to its QP).
 */
static inline size_t cm_deliver(struct cm_end *from, struct cm_end *to,
				size_t chunk)
{
	size_t off = 0, n, used;

	while (off < from->wire_len) {
		n = chunk ? min(chunk, from->wire_len - off) :
			    from->wire_len - off;
		used = siw_cm_fsm_frame(&to->f, from->wire + off, n, &to->st);
		cm_exec(to);
		off += used;
		if (used < n)
			break;
	}
	n = from->wire_len - off;
	memmove(from->wire, from->wire + off, n);
	from->wire_len = n;
	return n;
}

/* Is upcall @bit in @e's list, at index @i? */
static inline bool cm_up_at(const struct cm_end *e, unsigned int i,
			    unsigned int bit)
{
	return i < e->nups && e->ups[i] == bit;
}

#endif /* SIW_CM_TEST_H */
