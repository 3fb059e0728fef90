// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite siw_cm_nego: two endpoints set up a connection through
 * the fake transport of siw_cm_test.h, with real MPA frames, and each
 * outcome is checked on both sides: revision, CRC, markers per
 * direction, IRD/ORD (RFC 6581 section 9.1, 0x3FFF included), the
 * peer-to-peer model and the RTR type the initiator picks, rejects with
 * private data, Terminate codes 5, 6 and 7. Every row runs three times:
 * the frames delivered whole, octet by octet and in 7-octet pieces.
 * Then the parsers of the module parameters and of a device's knobs,
 * and the policy a device's knobs make of the module parameters.
 */
#include <kunit/test.h>
#include <linux/errno.h>
#include <linux/kernel.h>

#include "siw_cm_test.h"
#include "siw_mpa/mpa_wire.h"

#define W	SIW_MPA_RTR_F(SIW_MPA_RTR_WRITE)
#define R	SIW_MPA_RTR_F(SIW_MPA_RTR_READ)
#define SND	SIW_MPA_RTR_F(SIW_MPA_RTR_SEND)
#define ALL	SIW_MPA_RTR_ALL
#define ULP	SIW_MPA_IRD_ORD_ULP

#define REQ	SIW_MPA_CRC_REQUIRED
#define ALW	SIW_MPA_CRC_ALLOWED
#define OFF	SIW_MPA_CRC_OFF

/*
 * A policy; fields left out take the defaults of pol_fix(): rev 2, CRC
 * required, client-server, every RTR type, IRD up to 128. NO_RTR stands
 * for an empty RTR set.
 */
#define POL(...)	{ __VA_ARGS__ }
#define NO_RTR		0x80

static struct siw_mpa_policy pol_fix(const struct siw_mpa_policy *in)
{
	struct siw_mpa_policy p = *in;

	if (!p.rev)
		p.rev = 2;
	if (!p.rtr)
		p.rtr = ALL;
	else if (p.rtr == NO_RTR)
		p.rtr = 0;
	if (!p.ird_max)
		p.ird_max = 128;
	return p;
}

#define MKPOL(...)	pol_fix(&(struct siw_mpa_policy)POL(__VA_ARGS__))

/* How each side ends */
enum nego_end {
	N_EST,		/* established (responder: after the RTR if p2p) */
	N_REFUSED,	/* initiator: peer rejected; responder: it refused */
	N_TERM,		/* initiator: sent a Terminate */
	N_REJECTED,	/* responder: the consumer rejected */
	N_ACC_REFUSED,	/* responder: accept refused by the IRD/ORD rules */
	N_AWAIT_RTR,	/* responder: still waiting for an RTR */
};

/**
 * struct nego_case - one connection setup
 * @name: case name
 * @ip: initiator policy
 * @rp: responder policy
 * @iird: initiator consumer IRD
 * @iord: initiator consumer ORD
 * @rird: responder consumer IRD
 * @rord: responder consumer ORD
 * @reject: the responder's consumer rejects
 * @iend: how the initiator ends
 * @rend: how the responder ends
 * @rev: revision in use
 * @crc: CRCs on
 * @im: initiator markers: bit 0 it sends them, bit 1 it expects them
 * @rtr: RTR type the initiator sends, SIW_MPA_RTR_NONE for none
 * @term: Terminate code the initiator sends
 * @ird: initiator IRD after setup (0: not checked)
 * @ord: initiator ORD after setup
 * @r_ird: responder IRD after setup (0: not checked)
 * @r_ord: responder ORD after setup
 * @up_ird: IRD the responder's consumer is told (0: not checked)
 * @up_ord: ORD the responder's consumer is told
 */
struct nego_case {
	const char *name;
	struct siw_mpa_policy ip;
	struct siw_mpa_policy rp;
	u16 iird, iord, rird, rord;
	bool reject;
	u8 iend, rend;
	u8 rev;
	bool crc;
	u8 im;
	u8 rtr;
	u8 term;
	u16 ird, ord, r_ird, r_ord;
	u8 up_ird, up_ord;
};

#define NONE	SIW_MPA_RTR_NONE

static const struct nego_case nego_cases[] = {
	/* revisions: RFC 5044 7.1.1, RFC 6581 sections 6 and 10 */
	{ "rev 2 with rev 2", POL(), POL(), 4, 4, 4, 4, false, N_EST, N_EST,
	  2, true, 0, NONE, 0, 4, 4, 4, 4, 4, 4 },
	{ "rev 1 with rev 2", POL(.rev = 1), POL(), 4, 4, 4, 4, false, N_EST,
	  N_EST, 1, true, 0, NONE },
	{ "rev 2 with rev 1: continues in rev 1", POL(), POL(.rev = 1), 4, 4,
	  4, 4, false, N_EST, N_EST, 1, true, 0, NONE },
	{ "rev 1 with rev 1", POL(.rev = 1), POL(.rev = 1), 4, 4, 4, 4, false,
	  N_EST, N_EST, 1, true, 0, NONE },
	/* CRC: RFC 5044 section 4.4, each policy against each */
	{ "CRC off/off", POL(.crc = OFF), POL(.crc = OFF), 1, 1, 1, 1, false,
	  N_EST, N_EST, 2, false, 0, NONE },
	{ "CRC off/allowed", POL(.crc = OFF), POL(.crc = ALW), 1, 1, 1, 1,
	  false, N_EST, N_EST, 2, false, 0, NONE },
	{ "CRC off/required: Terminate 5", POL(.crc = OFF), POL(), 1, 1, 1, 1,
	  false, N_TERM, N_EST, 2, true, 0, NONE, SIW_MPA_ERR_LOCAL },
	{ "CRC allowed/off", POL(.crc = ALW), POL(.crc = OFF), 1, 1, 1, 1,
	  false, N_EST, N_EST, 2, false, 0, NONE },
	{ "CRC allowed/allowed", POL(.crc = ALW), POL(.crc = ALW), 1, 1, 1, 1,
	  false, N_EST, N_EST, 2, false, 0, NONE },
	{ "CRC allowed/required", POL(.crc = ALW), POL(), 1, 1, 1, 1, false,
	  N_EST, N_EST, 2, true, 0, NONE },
	{ "CRC required/off: refused", POL(), POL(.crc = OFF), 1, 1, 1, 1,
	  false, N_REFUSED, N_REFUSED, 2, true, 0, NONE },
	{ "CRC required/allowed", POL(), POL(.crc = ALW), 1, 1, 1, 1, false,
	  N_EST, N_EST, 2, true, 0, NONE },
	{ "CRC required/required", POL(), POL(), 1, 1, 1, 1, false, N_EST,
	  N_EST, 2, true, 0, NONE },
	{ "CRC off/off in rev 1", POL(.rev = 1, .crc = OFF),
	  POL(.rev = 1, .crc = OFF), 1, 1, 1, 1, false, N_EST, N_EST, 1,
	  false, 0, NONE },
	/* markers, per direction: RFC 5044 section 7.1.1 */
	{ "no markers", POL(), POL(), 1, 1, 1, 1, false, N_EST, N_EST, 2, true,
	  0, NONE },
	{ "markers to the initiator", POL(.markers = true), POL(), 1, 1, 1, 1,
	  false, N_EST, N_EST, 2, true, 2, NONE },
	{ "markers to the responder", POL(), POL(.markers = true), 1, 1, 1, 1,
	  false, N_EST, N_EST, 2, true, 1, NONE },
	{ "markers both ways", POL(.markers = true), POL(.markers = true), 1,
	  1, 1, 1, false, N_EST, N_EST, 2, true, 3, NONE },
	{ "markers both ways, rev 1, CRC off", POL(.rev = 1, .crc = OFF,
	  .markers = true), POL(.rev = 1, .crc = OFF, .markers = true), 1, 1,
	  1, 1, false, N_EST, N_EST, 1, false, 3, NONE },
	/* peer-to-peer and RTR: RFC 6581 sections 9.2 and 9.3 */
	{ "p2p, all RTR types: Write first", POL(.p2p = true), POL(), 4, 4, 4,
	  4, false, N_EST, N_EST, 2, true, 0, SIW_MPA_RTR_WRITE },
	{ "p2p, Send RTR", POL(.p2p = true, .rtr = SND), POL(), 4, 4, 4, 4,
	  false, N_EST, N_EST, 2, true, 0, SIW_MPA_RTR_SEND },
	{ "p2p, Read RTR", POL(.p2p = true, .rtr = R), POL(), 4, 4, 4, 4,
	  false, N_EST, N_EST, 2, true, 0, SIW_MPA_RTR_READ },
	{ "p2p, Write RTR", POL(.p2p = true, .rtr = W), POL(), 4, 4, 4, 4,
	  false, N_EST, N_EST, 2, true, 0, SIW_MPA_RTR_WRITE },
	{ "p2p, Read RTR with ORD 0: responder IRD 1", POL(.p2p = true,
	  .rtr = R), POL(), 0, 0, 0, 0, false, N_EST, N_EST, 2, true, 0,
	  SIW_MPA_RTR_READ, 0, 0, 0, 1, 0 },
	{ "p2p, Read and Send offered, Read and Write taken: Read",
	  POL(.p2p = true, .rtr = R | SND), POL(.rtr = W | R), 4, 4, 4, 4,
	  false, N_EST, N_EST, 2, true, 0, SIW_MPA_RTR_READ },
	{ "p2p, Send asked, Write taken: Terminate 7", POL(.p2p = true,
	  .rtr = SND), POL(.rtr = W), 4, 4, 4, 4, false, N_TERM, N_AWAIT_RTR, 2,
	  true, 0, NONE, SIW_MPA_ERR_NO_RTR },
	{ "p2p, responder takes no RTR: refused", POL(.p2p = true), POL(.rtr =
	  NO_RTR), 4, 4, 4, 4, false, N_REFUSED, N_REFUSED, 2, true, 0, NONE },
	{ "p2p to a rev 1 responder: client-server rev 1", POL(.p2p = true),
	  POL(.rev = 1), 4, 4, 4, 4, false, N_EST, N_EST, 1, true, 0, NONE },
	{ "p2p, markers and CRC off", POL(.p2p = true, .crc = OFF,
	  .markers = true), POL(.crc = OFF, .markers = true), 4, 4, 4, 4,
	  false, N_EST, N_EST, 2, false, 3, SIW_MPA_RTR_WRITE },
	/* IRD and ORD: RFC 6581 section 9.1 */
	{ "IRD/ORD equal", POL(), POL(), 4, 4, 4, 4, false, N_EST, N_EST, 2,
	  true, 0, NONE, 0, 4, 4, 4, 4, 4, 4 },
	{ "responder IRD raised to initiator ORD", POL(), POL(), 1, 16, 8, 8,
	  false, N_EST, N_EST, 2, true, 0, NONE, 0, 1, 16, 16, 1, 1, 16 },
	{ "responder ORD cut to initiator IRD", POL(), POL(), 2, 2, 2, 8,
	  false, N_EST, N_EST, 2, true, 0, NONE, 0, 2, 2, 2, 2, 2, 2 },
	{ "responder IRD capped at its most", POL(), POL(.ird_max = 8), 4, 32,
	  4, 4, false, N_EST, N_EST, 2, true, 0, NONE, 0, 4, 8, 8, 4, 4, 32 },
	{ "initiator IRD 0x3FFF: responder keeps ORD", POL(.ird_ulp = true),
	  POL(), 4, 4, 6, 6, false, N_EST, N_EST, 2, true, 0, NONE, 0, 0, 0,
	  6, 6, 128, 4 },
	{ "initiator ORD 0x3FFF: responder keeps IRD", POL(.ord_ulp = true),
	  POL(), 4, 4, 6, 6, false, N_EST, N_EST, 2, true, 0, NONE, 0, 0, 0,
	  6, 4, 4, 128 },
	{ "both 0x3FFF: each keeps its own", POL(.ird_ulp = true,
	  .ord_ulp = true), POL(), 3, 5, 6, 7, false, N_EST, N_EST, 2, true, 0,
	  NONE, 0, 3, 5, 6, 7, 128, 128 },
	{ "initiator IRD below required ORD: reject, code 6", POL(),
	  POL(.ord_min = 8), 2, 2, 8, 8, false, N_REFUSED, N_ACC_REFUSED, 2,
	  true, 0, NONE },
	{ "rev 1: IRD/ORD left to the consumers", POL(.rev = 1), POL(), 3, 5,
	  6, 7, false, N_EST, N_EST, 1, true, 0, NONE, 0, 3, 5, 6, 7, 128,
	  128 },
	/* the consumer rejects */
	{ "consumer reject, rev 2", POL(), POL(), 4, 4, 4, 4, true, N_REFUSED,
	  N_REJECTED, 2, true, 0, NONE },
	{ "consumer reject, rev 1", POL(.rev = 1), POL(), 4, 4, 4, 4, true,
	  N_REFUSED, N_REJECTED, 1, true, 0, NONE },
	{ "consumer reject, p2p", POL(.p2p = true), POL(), 4, 4, 4, 4, true,
	  N_REFUSED, N_REJECTED, 2, true, 0, NONE },
};

CM_CASE_DESC(nego_case)
KUNIT_ARRAY_PARAM(nego, nego_cases, nego_case_desc);

static const char ipd[] = "initiator private data";
static const char rpd[] = "responder says hello";

/* Run one setup; @chunk octets per delivery, 0 for whole frames */
static void nego_run(struct kunit *test, const struct nego_case *c,
		     struct cm_end *i, struct cm_end *r, size_t chunk)
{
	struct siw_mpa_policy ip = pol_fix(&c->ip), rp = pol_fix(&c->rp);
	const struct siw_mpa_frame *peer;
	int rv;

	cm_end_init(i, true, &ip);
	cm_end_init(r, false, &rp);
	rv = siw_cm_fsm_connect(&i->f, c->iird, c->iord, ipd, sizeof(ipd),
				&i->st);
	KUNIT_ASSERT_EQ(test, rv, 0);
	cm_exec(i);
	cm_ev(i, SIW_CM_EV_TCP_UP, 0);
	cm_ev(r, SIW_CM_EV_TCP_UP, 0);
	KUNIT_EXPECT_EQ(test, cm_deliver(i, r, chunk), 0);

	if (r->f.state == SIW_CM_REQ_RCVD) {
		peer = siw_cm_fsm_peer(&r->f);
		KUNIT_ASSERT_NOT_NULL(test, peer);
		KUNIT_EXPECT_EQ(test, peer->pd_len, sizeof(ipd));
		CM_EXPECT_MEM(test, peer->pd, ipd, sizeof(ipd));
		if (c->up_ird) {
			KUNIT_EXPECT_EQ(test, siw_cm_fsm_peer_ird(&r->f),
					c->up_ird);
			KUNIT_EXPECT_EQ(test, siw_cm_fsm_peer_ord(&r->f),
					c->up_ord);
		}
		if (c->reject)
			rv = siw_cm_fsm_reject(&r->f, rpd, sizeof(rpd), &r->st);
		else
			rv = siw_cm_fsm_accept(&r->f, c->rird, c->rord, rpd,
					       sizeof(rpd), &r->st);
		cm_exec(r);
		KUNIT_EXPECT_EQ(test, rv, c->rend == N_ACC_REFUSED ?
				-ECONNREFUSED : 0);
	}
	KUNIT_EXPECT_EQ(test, cm_deliver(r, i, chunk), 0);
	if (i->f.state == SIW_CM_ESTABLISHED && i->f.conn.p2p) {
		/* the initiator's QP sends the RTR; the responder's sees it */
		siw_cm_fsm_rtr(&r->f, i->f.conn.rtr, &r->st);
		cm_exec(r);
	}
}

static void nego_check_initiator(struct kunit *test, const struct nego_case *c,
				 const struct cm_end *i)
{
	const struct siw_mpa_frame *peer = siw_cm_fsm_peer(&i->f);

	KUNIT_EXPECT_TRUE(test, cm_up_at(i, 0, SIW_CM_A_UP_REPLY_BIT));
	KUNIT_EXPECT_EQ(test, i->nups, 1U);
	KUNIT_EXPECT_TRUE(test, i->closed == (c->iend != N_EST));
	switch (c->iend) {
	case N_EST:
		KUNIT_EXPECT_EQ(test, i->f.state, SIW_CM_ESTABLISHED);
		KUNIT_EXPECT_EQ(test, i->st.status, 0);
		KUNIT_EXPECT_TRUE(test, i->qp_rts && i->qp_attached);
		KUNIT_EXPECT_EQ(test, i->f.conn.rev, c->rev);
		KUNIT_EXPECT_EQ(test, i->f.conn.crc, c->crc);
		KUNIT_EXPECT_EQ(test, i->f.conn.tx_markers, !!(c->im & 1));
		KUNIT_EXPECT_EQ(test, i->f.conn.rx_markers, !!(c->im & 2));
		KUNIT_EXPECT_EQ(test, i->f.conn.rtr, c->rtr);
		KUNIT_EXPECT_EQ(test, !!(i->done & SIW_CM_A_QP_RTR),
				c->rtr != NONE);
		if (c->ird || c->ord) {
			KUNIT_EXPECT_EQ(test, i->f.conn.ird, c->ird);
			KUNIT_EXPECT_EQ(test, i->f.conn.ord, c->ord);
		}
		KUNIT_ASSERT_NOT_NULL(test, peer);
		KUNIT_EXPECT_EQ(test, peer->pd_len, sizeof(rpd));
		CM_EXPECT_MEM(test, peer->pd, rpd, sizeof(rpd));
		break;
	case N_REFUSED:
		KUNIT_EXPECT_EQ(test, i->f.state, SIW_CM_CLOSED);
		KUNIT_EXPECT_EQ(test, i->st.status, -ECONNREFUSED);
		KUNIT_EXPECT_FALSE(test, i->done & SIW_CM_A_QP_ATTACH);
		KUNIT_ASSERT_NOT_NULL(test, peer);
		KUNIT_EXPECT_TRUE(test, peer->reject);
		if (c->reject) {
			KUNIT_EXPECT_EQ(test, peer->pd_len, sizeof(rpd));
			CM_EXPECT_MEM(test, peer->pd, rpd, sizeof(rpd));
		}
		break;
	case N_TERM:
		KUNIT_EXPECT_EQ(test, i->f.state, SIW_CM_CLOSED);
		KUNIT_EXPECT_EQ(test, i->st.status, -ECONNREFUSED);
		KUNIT_EXPECT_TRUE(test, i->done & SIW_CM_A_QP_TERM);
		KUNIT_EXPECT_FALSE(test, i->qp_attached);
		KUNIT_EXPECT_FALSE(test, i->done & SIW_CM_A_QP_RTS);
		KUNIT_EXPECT_EQ(test, i->f.term, (enum siw_mpa_err)c->term);
		break;
	}
}

static void nego_check_responder(struct kunit *test, const struct nego_case *c,
				 const struct cm_end *r)
{
	switch (c->rend) {
	case N_EST:
		KUNIT_EXPECT_EQ(test, r->f.state, SIW_CM_ESTABLISHED);
		KUNIT_EXPECT_TRUE(test, cm_up_at(r, 0,
						 SIW_CM_A_UP_REQUEST_BIT));
		KUNIT_EXPECT_TRUE(test, cm_up_at(r, 1,
						 SIW_CM_A_UP_ESTABLISHED_BIT));
		KUNIT_EXPECT_TRUE(test, r->qp_rts && r->qp_attached);
		KUNIT_EXPECT_EQ(test, r->f.conn.rev, c->rev);
		KUNIT_EXPECT_EQ(test, r->f.conn.crc, c->crc);
		KUNIT_EXPECT_EQ(test, r->f.conn.rx_markers, !!(c->im & 1));
		KUNIT_EXPECT_EQ(test, r->f.conn.tx_markers, !!(c->im & 2));
		if (c->r_ird || c->r_ord) {
			KUNIT_EXPECT_EQ(test, r->f.conn.ird, c->r_ird);
			KUNIT_EXPECT_EQ(test, r->f.conn.ord, c->r_ord);
		}
		break;
	case N_REFUSED:
		/* refused before the consumer heard of it */
		KUNIT_EXPECT_EQ(test, r->f.state, SIW_CM_CLOSED);
		KUNIT_EXPECT_EQ(test, r->nups, 0U);
		KUNIT_EXPECT_TRUE(test, r->closed);
		break;
	case N_AWAIT_RTR:
		/* the Terminate will reach its QP; nothing was sent */
		KUNIT_EXPECT_EQ(test, r->f.state, SIW_CM_AWAIT_RTR);
		KUNIT_EXPECT_FALSE(test, r->qp_rts);
		KUNIT_EXPECT_EQ(test, r->nups, 1U);
		break;
	case N_REJECTED:
	case N_ACC_REFUSED:
		KUNIT_EXPECT_EQ(test, r->f.state, SIW_CM_CLOSED);
		KUNIT_EXPECT_EQ(test, r->nups, 1U);
		KUNIT_EXPECT_FALSE(test, r->done & SIW_CM_A_QP_ATTACH);
		KUNIT_EXPECT_TRUE(test, r->closed);
		break;
	}
}

static void cm_nego(struct kunit *test)
{
	const struct nego_case *c = test->param_value;
	static const size_t chunks[] = { 0, 1, 7 };
	struct cm_end *i, *r;
	unsigned int k;

	i = kunit_kzalloc(test, sizeof(*i), GFP_KERNEL);
	r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, i);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, r);
	for (k = 0; k < ARRAY_SIZE(chunks); k++) {
		nego_run(test, c, i, r, chunks[k]);
		nego_check_initiator(test, c, i);
		nego_check_responder(test, c, r);
	}
}

/* Private data limits: 512 octets less the enhanced data */
struct pd_case {
	const char *name;
	u8 rev;
	u16 len;
	int rv;
};

static const struct pd_case pd_cases[] = {
	{ "rev 2, none", 2, 0, 0 },
	{ "rev 2, 508 octets", 2, 508, 0 },
	{ "rev 2, 509 octets", 2, 509, -EINVAL },
	{ "rev 1, 512 octets", 1, 512, 0 },
	{ "rev 1, 513 octets", 1, 513, -EINVAL },
};

CM_CASE_DESC(pd_case)
KUNIT_ARRAY_PARAM(pd, pd_cases, pd_case_desc);

static void cm_pd(struct kunit *test)
{
	const struct pd_case *c = test->param_value;
	struct siw_mpa_policy pol = MKPOL(.rev = c->rev);
	const struct siw_mpa_frame *peer;
	struct cm_end *i, *r;
	u8 *pd;
	int rv;

	i = kunit_kzalloc(test, sizeof(*i), GFP_KERNEL);
	r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	pd = kunit_kzalloc(test, 600, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, i && r && pd);
	memset(pd, 0x5a, 600);
	cm_end_init(i, true, &pol);
	cm_end_init(r, false, &pol);
	rv = siw_cm_fsm_connect(&i->f, 1, 1, pd, c->len, &i->st);
	KUNIT_EXPECT_EQ(test, rv, c->rv);
	if (rv) {
		KUNIT_EXPECT_EQ(test, i->f.state, SIW_CM_IDLE);
		return;
	}
	cm_exec(i);
	cm_ev(i, SIW_CM_EV_TCP_UP, 0);
	cm_ev(r, SIW_CM_EV_TCP_UP, 0);
	cm_deliver(i, r, 0);
	peer = siw_cm_fsm_peer(&r->f);
	KUNIT_ASSERT_NOT_NULL(test, peer);
	KUNIT_EXPECT_EQ(test, peer->pd_len, c->len);
	/* the reply takes as much */
	rv = siw_cm_fsm_accept(&r->f, 1, 1, pd, c->len, &r->st);
	KUNIT_EXPECT_EQ(test, rv, 0);
	cm_exec(r);
	cm_deliver(r, i, 0);
	KUNIT_EXPECT_EQ(test, i->f.state, SIW_CM_ESTABLISHED);
}

/* Malformed or misplaced frames: rejected (responder) and closed */
struct bad_case {
	const char *name;
	bool initiator;
	const char *key;
	u8 flags;
	u8 rev;
	u16 pd_len;
};

static const struct bad_case bad_cases[] = {
	{ "responder: not an MPA key", false, "GET / HTTP/1.1\r\n", 0, 1, 0 },
	{ "responder: a reply key", false, SIW_MPA_KEY_REP, 0, 1, 0 },
	{ "responder: rev 0", false, SIW_MPA_KEY_REQ, 0, 0, 0 },
	{ "responder: rev 3", false, SIW_MPA_KEY_REQ, 0, 3, 0 },
	{ "responder: PD_Length 513", false, SIW_MPA_KEY_REQ, 0, 1, 513 },
	{ "responder: S with 3 octets", false, SIW_MPA_KEY_REQ, 0x10, 2, 3 },
	{ "initiator: not an MPA key", true, "HTTP/1.1 200 OK\r", 0, 1, 0 },
	{ "initiator: a request key", true, SIW_MPA_KEY_REQ, 0, 1, 0 },
	{ "initiator: rev 7", true, SIW_MPA_KEY_REP, 0, 7, 0 },
	{ "initiator: PD_Length 0xffff", true, SIW_MPA_KEY_REP, 0, 1, 0xffff },
};

CM_CASE_DESC(bad_case)
KUNIT_ARRAY_PARAM(bad, bad_cases, bad_case_desc);

static void cm_bad_frame(struct kunit *test)
{
	const struct bad_case *c = test->param_value;
	struct siw_mpa_policy pol = MKPOL();
	struct siw_mpa_frame rej;
	struct cm_end *e;
	u8 hdr[SIW_MPA_RR_LEN + 8] = {};

	e = kunit_kzalloc(test, sizeof(*e), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, e);
	memcpy(hdr, c->key, SIW_MPA_KEY_LEN);
	hdr[16] = c->flags;
	hdr[17] = c->rev;
	hdr[18] = c->pd_len >> 8;
	hdr[19] = c->pd_len & 0xff;
	cm_end_init(e, c->initiator, &pol);
	if (c->initiator) {
		KUNIT_ASSERT_EQ(test, siw_cm_fsm_connect(&e->f, 1, 1, NULL, 0,
							 &e->st), 0);
		cm_exec(e);
	}
	cm_ev(e, SIW_CM_EV_TCP_UP, 0);
	e->wire_len = 0;
	siw_cm_fsm_frame(&e->f, hdr, sizeof(hdr), &e->st);
	cm_exec(e);
	KUNIT_EXPECT_EQ(test, e->st.ev, SIW_CM_EV_BAD_FRAME);
	KUNIT_EXPECT_EQ(test, e->f.state, SIW_CM_CLOSED);
	KUNIT_EXPECT_TRUE(test, e->closed);
	KUNIT_EXPECT_EQ(test, e->st.status, -EPROTO);
	if (c->initiator) {
		KUNIT_EXPECT_TRUE(test, cm_up_at(e, 0, SIW_CM_A_UP_REPLY_BIT));
		return;
	}
	/* the responder answers with a reject frame before closing */
	KUNIT_EXPECT_EQ(test, e->nups, 0U);
	KUNIT_ASSERT_EQ(test, siw_mpa_frame_decode(e->wire, e->wire_len, true,
						   &rej), SIW_MPA_FRAME_DONE);
	KUNIT_EXPECT_TRUE(test, rej.reject);
}

/* Octets after the frame belong to the QP: the CM leaves them */
static void cm_frame_leaves_fpdus(struct kunit *test)
{
	struct siw_mpa_policy pol = MKPOL();
	struct cm_end *i, *r;

	i = kunit_kzalloc(test, sizeof(*i), GFP_KERNEL);
	r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, i && r);
	cm_end_init(i, true, &pol);
	cm_end_init(r, false, &pol);
	KUNIT_ASSERT_EQ(test, siw_cm_fsm_connect(&i->f, 1, 1, NULL, 0, &i->st),
			0);
	cm_exec(i);
	cm_ev(i, SIW_CM_EV_TCP_UP, 0);
	cm_ev(r, SIW_CM_EV_TCP_UP, 0);
	/* a client sending its first FPDU right behind the request */
	memset(i->wire + i->wire_len, 0xee, 12);
	i->wire_len += 12;
	KUNIT_EXPECT_EQ(test, cm_deliver(i, r, 0), 12);
	KUNIT_EXPECT_EQ(test, r->f.state, SIW_CM_REQ_RCVD);
	KUNIT_EXPECT_EQ(test, siw_cm_fsm_frame(&r->f, i->wire, 12, &r->st), 0);
}

/* The responder's QP sees an RTR it did not offer: Terminate 7 */
struct rtr_case {
	const char *name;
	u8 offered;
	u8 got;
	bool ok;
};

static const struct rtr_case rtr_cases[] = {
	{ "Write offered, Write came", W, SIW_MPA_RTR_WRITE, true },
	{ "Write offered, Send came", W, SIW_MPA_RTR_SEND, false },
	{ "Write offered, Read came", W, SIW_MPA_RTR_READ, false },
	{ "Send offered, Send came", SND, SIW_MPA_RTR_SEND, true },
	{ "Read offered, Read came", R, SIW_MPA_RTR_READ, true },
	{ "all offered, another FPDU came", ALL, SIW_MPA_RTR_NONE, false },
};

CM_CASE_DESC(rtr_case)
KUNIT_ARRAY_PARAM(rtr, rtr_cases, rtr_case_desc);

static void cm_rtr(struct kunit *test)
{
	const struct rtr_case *c = test->param_value;
	struct siw_mpa_policy ip = MKPOL(.p2p = true, .rtr = c->offered);
	struct siw_mpa_policy rp = MKPOL(.rtr = c->offered);
	struct cm_end *i, *r;

	i = kunit_kzalloc(test, sizeof(*i), GFP_KERNEL);
	r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, i && r);
	cm_end_init(i, true, &ip);
	cm_end_init(r, false, &rp);
	KUNIT_ASSERT_EQ(test, siw_cm_fsm_connect(&i->f, 1, 1, NULL, 0, &i->st),
			0);
	cm_exec(i);
	cm_ev(i, SIW_CM_EV_TCP_UP, 0);
	cm_ev(r, SIW_CM_EV_TCP_UP, 0);
	cm_deliver(i, r, 0);
	KUNIT_ASSERT_EQ(test, siw_cm_fsm_accept(&r->f, 1, 1, NULL, 0, &r->st),
			0);
	cm_exec(r);
	KUNIT_EXPECT_EQ(test, r->f.state, SIW_CM_AWAIT_RTR);
	/* nothing may leave the responder yet */
	KUNIT_EXPECT_FALSE(test, r->qp_rts);
	KUNIT_EXPECT_EQ(test, r->nups, 1U);
	siw_cm_fsm_rtr(&r->f, c->got, &r->st);
	cm_exec(r);
	if (c->ok) {
		KUNIT_EXPECT_EQ(test, r->f.state, SIW_CM_ESTABLISHED);
		KUNIT_EXPECT_TRUE(test, r->qp_rts);
		KUNIT_EXPECT_TRUE(test, cm_up_at(r, 1,
						 SIW_CM_A_UP_ESTABLISHED_BIT));
		return;
	}
	KUNIT_EXPECT_EQ(test, r->f.state, SIW_CM_CLOSED);
	KUNIT_EXPECT_TRUE(test, r->done & SIW_CM_A_QP_TERM);
	KUNIT_EXPECT_EQ(test, r->f.term, SIW_MPA_ERR_NO_RTR);
	KUNIT_EXPECT_EQ(test, r->f.conn.verdict, SIW_MPA_TERMINATE);
	KUNIT_EXPECT_EQ(test, r->f.conn.reason, SIW_MPA_WHY_NO_RTR);
	KUNIT_EXPECT_FALSE(test, r->qp_rts);
	KUNIT_EXPECT_TRUE(test, cm_up_at(r, 1, SIW_CM_A_UP_ESTABLISHED_BIT));
	KUNIT_EXPECT_TRUE(test, cm_up_at(r, 3, SIW_CM_A_UP_CLOSE_BIT));
}

/* A reply whose ORD the initiator cannot give as IRD: Terminate 6 */
static void cm_reply_ird_too_big(struct kunit *test)
{
	struct siw_mpa_policy pol = MKPOL(.ird_max = 4);
	struct siw_mpa_frame rep = {
		.reply = true, .rev = 2, .enhanced = true, .crc = true,
		.ird = 4, .ord = 64,
	};
	struct cm_end *i;
	u8 buf[SIW_MPA_RR_LEN + SIW_MPA_ENH_LEN];

	i = kunit_kzalloc(test, sizeof(*i), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, i);
	cm_end_init(i, true, &pol);
	KUNIT_ASSERT_EQ(test, siw_cm_fsm_connect(&i->f, 4, 4, NULL, 0, &i->st),
			0);
	cm_exec(i);
	cm_ev(i, SIW_CM_EV_TCP_UP, 0);
	KUNIT_ASSERT_EQ(test, siw_mpa_frame_build(&rep, buf, sizeof(buf)),
			(ssize_t)sizeof(buf));
	siw_cm_fsm_frame(&i->f, buf, sizeof(buf), &i->st);
	cm_exec(i);
	KUNIT_EXPECT_EQ(test, i->st.ev, SIW_CM_EV_REP_TERM);
	KUNIT_EXPECT_EQ(test, i->f.term, SIW_MPA_ERR_NO_IRD);
	KUNIT_EXPECT_TRUE(test, i->done & SIW_CM_A_QP_TERM);
	KUNIT_EXPECT_EQ(test, i->st.status, -ECONNREFUSED);
}

/* Calls in the wrong role or state are refused and change nothing */
static void cm_misuse(struct kunit *test)
{
	struct siw_mpa_policy pol = MKPOL();
	struct cm_end *e;

	e = kunit_kzalloc(test, sizeof(*e), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, e);
	cm_end_init(e, false, &pol);
	KUNIT_EXPECT_EQ(test, siw_cm_fsm_connect(&e->f, 1, 1, NULL, 0, &e->st),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, e->f.state, SIW_CM_IDLE);
	KUNIT_EXPECT_EQ(test, siw_cm_fsm_accept(&e->f, 1, 1, NULL, 0, &e->st),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, siw_cm_fsm_reject(&e->f, NULL, 0, &e->st),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, siw_cm_fsm_frame(&e->f, "x", 1, &e->st), 0);
	KUNIT_EXPECT_EQ(test, e->f.state, SIW_CM_IDLE);
	cm_end_init(e, true, &pol);
	KUNIT_EXPECT_EQ(test, siw_cm_fsm_connect(&e->f, 1, 1, NULL, 0, &e->st),
			0);
	KUNIT_EXPECT_EQ(test, siw_cm_fsm_connect(&e->f, 1, 1, NULL, 0, &e->st),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, e->f.state, SIW_CM_CONNECTING);
}

/* Module parameter parsers */
struct parse_case {
	const char *name;
	const char *in;
	int rv;
	u8 mask;
	const char *out;
};

static const struct parse_case parse_cases[] = {
	{ "all three", "write,read,send", 0, ALL, "write,read,send" },
	{ "any order, newline", "send,write\n", 0, W | SND, "write,send" },
	{ "one", "read", 0, R, "read" },
	{ "none", "none", 0, 0, "none" },
	{ "unknown name", "write,atomic", -EINVAL, 0, NULL },
	{ "empty item", "write,,read", -EINVAL, 0, NULL },
};

CM_CASE_DESC(parse_case)
KUNIT_ARRAY_PARAM(parse, parse_cases, parse_case_desc);

static void cm_parse_rtr(struct kunit *test)
{
	const struct parse_case *c = test->param_value;
	char buf[32];
	u8 mask = 0xff;

	KUNIT_EXPECT_EQ(test, siw_cm_rtr_parse(c->in, &mask), c->rv);
	if (c->rv)
		return;
	KUNIT_EXPECT_EQ(test, mask, c->mask);
	siw_cm_rtr_print(mask, buf, sizeof(buf));
	KUNIT_EXPECT_STREQ(test, buf, c->out);
}

static void cm_parse_crc(struct kunit *test)
{
	enum siw_mpa_crc_policy crc;

	KUNIT_EXPECT_EQ(test, siw_cm_crc_parse("off\n", &crc), 0);
	KUNIT_EXPECT_EQ(test, crc, SIW_MPA_CRC_OFF);
	KUNIT_EXPECT_EQ(test, siw_cm_crc_parse("allowed", &crc), 0);
	KUNIT_EXPECT_EQ(test, crc, SIW_MPA_CRC_ALLOWED);
	KUNIT_EXPECT_EQ(test, siw_cm_crc_parse("required", &crc), 0);
	KUNIT_EXPECT_EQ(test, crc, SIW_MPA_CRC_REQUIRED);
	KUNIT_EXPECT_EQ(test, siw_cm_crc_parse("maybe", &crc), -EINVAL);
	KUNIT_EXPECT_STREQ(test, siw_cm_crc_name(SIW_MPA_CRC_OFF), "off");
}

/* The defaults the module parameters give */
static void cm_policy_defaults(struct kunit *test)
{
	struct siw_cm_policy pol;
	unsigned int t;

	siw_cm_policy_default(&pol);
	KUNIT_EXPECT_EQ(test, siw_mpa_policy_check(&pol.mpa), 0);
	KUNIT_EXPECT_EQ(test, pol.mpa.ird_max, SIW_CM_IRD_MAX);
	for (t = SIW_CM_T_CONNECT; t < SIW_CM_NUM_TIMERS; t++)
		KUNIT_EXPECT_GE(test, pol.tmo.ms[t], 100U);
}

/* Per-device knobs: "default" or the module parameter's syntax */
#define DEF	SIW_CM_DEFAULT

struct knob_case {
	const char *name;
	enum siw_cm_knob knob;
	const char *in;
	int rv;
	u8 v;
	const char *out;
};

static const struct knob_case knob_cases[] = {
	{ "rev 1", SIW_CM_K_REV, "1", 0, 1, "1" },
	{ "rev 2, newline", SIW_CM_K_REV, "2\n", 0, 2, "2" },
	{ "rev 0", SIW_CM_K_REV, "0", -EINVAL, 0, NULL },
	{ "rev 3", SIW_CM_K_REV, "3", -EINVAL, 0, NULL },
	{ "rev 258", SIW_CM_K_REV, "258", -EINVAL, 0, NULL },
	{ "rev default", SIW_CM_K_REV, "default\n", 0, DEF, "default" },
	{ "rev defaults", SIW_CM_K_REV, "defaults", -EINVAL, 0, NULL },
	{ "crc off", SIW_CM_K_CRC, "off\n", 0, OFF, "off" },
	{ "crc allowed", SIW_CM_K_CRC, "allowed", 0, ALW, "allowed" },
	{ "crc required", SIW_CM_K_CRC, "required", 0, REQ, "required" },
	{ "crc unknown", SIW_CM_K_CRC, "sometimes", -EINVAL, 0, NULL },
	{ "crc default", SIW_CM_K_CRC, "default", 0, DEF, "default" },
	{ "markers Y", SIW_CM_K_MARKERS, "Y\n", 0, 1, "Y" },
	{ "markers 0", SIW_CM_K_MARKERS, "0", 0, 0, "N" },
	{ "p2p on", SIW_CM_K_P2P, "on", 0, 1, "Y" },
	{ "p2p maybe", SIW_CM_K_P2P, "maybe", -EINVAL, 0, NULL },
	{ "rtr list", SIW_CM_K_RTR, "send,write\n", 0, W | SND, "write,send" },
	{ "rtr none", SIW_CM_K_RTR, "none", 0, 0, "none" },
	{ "rtr unknown", SIW_CM_K_RTR, "atomic", -EINVAL, 0, NULL },
	{ "rtr default", SIW_CM_K_RTR, "default", 0, DEF, "default" },
	{ "no such knob", SIW_CM_NUM_KNOBS, "1", -EINVAL, 0, NULL },
};

CM_CASE_DESC(knob_case)
KUNIT_ARRAY_PARAM(knob, knob_cases, knob_case_desc);

static void cm_parse_knob(struct kunit *test)
{
	const struct knob_case *c = test->param_value;
	char buf[32];
	u8 v = 0x55;

	KUNIT_EXPECT_EQ(test, siw_cm_knob_parse(c->knob, c->in, &v), c->rv);
	if (c->rv) {
		KUNIT_EXPECT_EQ(test, v, 0x55);
		return;
	}
	KUNIT_EXPECT_EQ(test, v, c->v);
	siw_cm_knob_print(c->knob, v, buf, sizeof(buf));
	KUNIT_EXPECT_STREQ(test, buf, c->out);
}

/*
 * A device's knobs on top of the module parameters: @set in the order
 * of enum siw_cm_knob (rev, crc, markers, p2p, rtr), DEF for
 * "default"; the policy must have @rev (0: the parameter's) and @p2p.
 */
struct ovr_case {
	const char *name;
	u8 set[SIW_CM_NUM_KNOBS];
	u8 rev;
	bool p2p;
};

static const struct ovr_case ovr_cases[] = {
	{ "nothing set", { DEF, DEF, DEF, DEF, DEF }, 0, false },
	{ "rev 1", { 1, DEF, DEF, DEF, DEF }, 1, false },
	{ "crc off, markers", { DEF, OFF, 1, DEF, DEF }, 0, false },
	{ "p2p, rev 2, read", { 2, DEF, DEF, 1, R }, 2, true },
	{ "p2p with rev 1: client-server", { 1, DEF, DEF, 1, W }, 1, false },
	{ "p2p without RTR: client-server", { 2, DEF, DEF, 1, 0 }, 2, false },
};

CM_CASE_DESC(ovr_case)
KUNIT_ARRAY_PARAM(ovr, ovr_cases, ovr_case_desc);

static void cm_policy_overrides(struct kunit *test)
{
	const struct ovr_case *c = test->param_value;
	struct siw_cm_overrides ovr;
	struct siw_cm_policy base, pol;
	const u8 *v = c->set;
	unsigned int k;

	siw_cm_overrides_init(&ovr);
	for (k = 0; k < SIW_CM_NUM_KNOBS; k++)
		KUNIT_EXPECT_EQ(test, ovr.val[k], DEF);
	memcpy(ovr.val, c->set, sizeof(ovr.val));
	siw_cm_policy_default(&base);
	siw_cm_policy_build(&pol, &ovr);
	KUNIT_EXPECT_EQ(test, siw_mpa_policy_check(&pol.mpa), 0);
	KUNIT_EXPECT_EQ(test, pol.mpa.rev, c->rev ?: base.mpa.rev);
	KUNIT_EXPECT_EQ(test, pol.mpa.crc,
			v[SIW_CM_K_CRC] == DEF ? base.mpa.crc : v[SIW_CM_K_CRC]);
	KUNIT_EXPECT_EQ(test, pol.mpa.markers,
			v[SIW_CM_K_MARKERS] == DEF ? base.mpa.markers :
						     !!v[SIW_CM_K_MARKERS]);
	KUNIT_EXPECT_EQ(test, pol.mpa.rtr,
			v[SIW_CM_K_RTR] == DEF ? base.mpa.rtr : v[SIW_CM_K_RTR]);
	if (v[SIW_CM_K_P2P] != DEF)
		KUNIT_EXPECT_EQ(test, pol.mpa.p2p, c->p2p);
	KUNIT_EXPECT_EQ(test, pol.mpa.ird_max, base.mpa.ird_max);
	KUNIT_EXPECT_EQ(test, pol.nodelay, base.nodelay);
	CM_EXPECT_MEM(test, &pol.tmo, &base.tmo, sizeof(pol.tmo));
}

static struct kunit_case siw_cm_nego_cases[] = {
	KUNIT_CASE_PARAM(cm_nego, nego_gen_params),
	KUNIT_CASE_PARAM(cm_pd, pd_gen_params),
	KUNIT_CASE_PARAM(cm_bad_frame, bad_gen_params),
	KUNIT_CASE_PARAM(cm_rtr, rtr_gen_params),
	KUNIT_CASE_PARAM(cm_parse_rtr, parse_gen_params),
	KUNIT_CASE(cm_frame_leaves_fpdus),
	KUNIT_CASE(cm_reply_ird_too_big),
	KUNIT_CASE(cm_misuse),
	KUNIT_CASE(cm_parse_crc),
	KUNIT_CASE(cm_policy_defaults),
	KUNIT_CASE_PARAM(cm_parse_knob, knob_gen_params),
	KUNIT_CASE_PARAM(cm_policy_overrides, ovr_gen_params),
	{}
};

static struct kunit_suite siw_cm_nego_suite = {
	.name = "siw_cm_nego",
	.test_cases = siw_cm_nego_cases,
};

kunit_test_suite(siw_cm_nego_suite);
