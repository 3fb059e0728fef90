// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite siw_mpa_negotiate: connection setup rules.
 *
 * Each row is one rule of RFC 5044 section 7.1 (CRC, markers, revision,
 * keys) or RFC 6581 sections 9.1 to 9.3 (IRD/ORD with the four 0x3FFF
 * cases, the peer-to-peer model and RTR types, Terminate codes 5, 6 and
 * 7), with the expected reply and connection settings worked out from
 * the RFC text. The end-to-end rows run both sides through real frames.
 */
#include <kunit/test.h>
#include <linux/errno.h>
#include <linux/kernel.h>

#include "siw_mpa_test.h"

#define W	SIW_MPA_RTR_F(SIW_MPA_RTR_WRITE)
#define R	SIW_MPA_RTR_F(SIW_MPA_RTR_READ)
#define S	SIW_MPA_RTR_F(SIW_MPA_RTR_SEND)
#define ALL	SIW_MPA_RTR_ALL
#define ULP	SIW_MPA_IRD_ORD_ULP

#define ALLOWED	SIW_MPA_CRC_ALLOWED
#define OFF	SIW_MPA_CRC_OFF

/* Expected booleans of struct siw_mpa_conn */
#define X_CRC	BIT(0)
#define X_TXM	BIT(1)
#define X_RXM	BIT(2)
#define X_ENH	BIT(3)
#define X_P2P	BIT(4)

/* Rev 2, every RTR type, IRD 4 (up to 8), ORD 4, CRC required */
#define POL(...)	{ .rev = 2, .rtr = ALL, .ird = 4, .ird_max = 8, \
			  .ord = 4, __VA_ARGS__ }
#define REQ1(...)	{ .rev = 1, .ird = ULP, .ord = ULP, __VA_ARGS__ }
#define REQ2(i, o, ...)	{ .rev = 2, .enhanced = true, .ird = (i), \
			  .ord = (o), __VA_ARGS__ }
#define REP1(...)	{ .reply = true, .rev = 1, .ird = ULP, .ord = ULP, \
			  __VA_ARGS__ }
#define REP2(i, o, ...)	{ .reply = true, .rev = 2, .enhanced = true, \
			  .ird = (i), .ord = (o), __VA_ARGS__ }

static void expect_flags(struct kunit *test, const struct siw_mpa_conn *c,
			 u8 flags)
{
	KUNIT_EXPECT_EQ(test, c->crc, !!(flags & X_CRC));
	KUNIT_EXPECT_EQ(test, c->tx_markers, !!(flags & X_TXM));
	KUNIT_EXPECT_EQ(test, c->rx_markers, !!(flags & X_RXM));
	KUNIT_EXPECT_EQ(test, c->enhanced, !!(flags & X_ENH));
	KUNIT_EXPECT_EQ(test, c->p2p, !!(flags & X_P2P));
}

/* The responder: policy and request in, reply and settings out */
struct resp_case {
	const char *name;
	struct siw_mpa_policy pol;
	struct siw_mpa_frame req;
	enum siw_mpa_verdict verdict;
	u8 term;
	struct siw_mpa_frame rep;
	u16 ird;
	u16 ord;
	u8 rtr_accept;
	u8 flags;
	u8 rev;
};

static const struct resp_case resp_cases[] = {
	/* CRC: RFC 5044 sections 4.4 and 7.1.1 */
	{ "C=0, CRC required: C=1, CRC on", POL(), REQ1(), SIW_MPA_ACCEPT, 0,
	  REP1(.crc = true), 4, 4, 0, X_CRC, 1 },
	{ "C=1, CRC required: CRC on", POL(), REQ1(.crc = true),
	  SIW_MPA_ACCEPT, 0, REP1(.crc = true), 4, 4, 0, X_CRC, 1 },
	{ "C=0, CRC allowed: CRC off", POL(.crc = ALLOWED), REQ1(),
	  SIW_MPA_ACCEPT, 0, REP1(), 4, 4, 0, 0, 1 },
	{ "C=1, CRC allowed: CRC on", POL(.crc = ALLOWED), REQ1(.crc = true),
	  SIW_MPA_ACCEPT, 0, REP1(.crc = true), 4, 4, 0, X_CRC, 1 },
	{ "C=0, CRC off: CRC off", POL(.crc = OFF), REQ1(), SIW_MPA_ACCEPT, 0,
	  REP1(), 4, 4, 0, 0, 1 },
	{ "C=1, CRC off: reject", POL(.crc = OFF), REQ1(.crc = true),
	  SIW_MPA_REJECT, 0, REP1(.reject = true), 4, 4, 0, X_CRC, 1 },
	/* markers, each direction on its own */
	{ "peer wants markers, we do not", POL(),
	  REQ1(.crc = true, .markers = true), SIW_MPA_ACCEPT, 0,
	  REP1(.crc = true), 4, 4, 0, X_CRC | X_TXM, 1 },
	{ "we want markers, the peer does not", POL(.markers = true),
	  REQ1(.crc = true), SIW_MPA_ACCEPT, 0,
	  REP1(.crc = true, .markers = true), 4, 4, 0, X_CRC | X_RXM, 1 },
	{ "both want markers", POL(.markers = true),
	  REQ1(.crc = true, .markers = true), SIW_MPA_ACCEPT, 0,
	  REP1(.crc = true, .markers = true), 4, 4, 0,
	  X_CRC | X_TXM | X_RXM, 1 },
	/* revisions: RFC 6581 sections 6 and 10 */
	{ "rev 2 without S: rev 2 reply without S", POL(),
	  { .rev = 2, .crc = true, .ird = ULP, .ord = ULP }, SIW_MPA_ACCEPT,
	  0, { .reply = true, .rev = 2, .crc = true, .ird = ULP, .ord = ULP },
	  4, 4, 0, X_CRC, 2 },
	{ "enhanced request, rev 1 responder: rev 1 reply",
	  { .rev = 1, .rtr = ALL, .ird = 4, .ird_max = 8, .ord = 4 },
	  REQ2(2, 3, .crc = true), SIW_MPA_ACCEPT, 0, REP1(.crc = true), 4, 4,
	  0, X_CRC, 1 },
	{ "p2p request, rev 1 responder: no p2p",
	  { .rev = 1, .rtr = ALL, .ird = 4, .ird_max = 8, .ord = 4 },
	  REQ2(2, 3, .p2p = true, .rtr = W), SIW_MPA_ACCEPT, 0,
	  REP1(.crc = true), 4, 4, 0, X_CRC, 1 },
	{ "a reply where the request belongs: close, code 4", POL(),
	  { .reply = true, .rev = 1 }, SIW_MPA_CLOSE, 4,
	  { .reply = true, .rev = 1, .ird = ULP, .ord = ULP }, 4, 4, 0, 0, 1 },
	/* IRD and ORD: RFC 6581 section 9.1 */
	{ "IRD at least the initiator ORD, ORD at most its IRD", POL(),
	  REQ2(6, 2), SIW_MPA_ACCEPT, 0, REP2(4, 4, .crc = true), 4, 4, 0,
	  X_CRC | X_ENH, 2 },
	{ "initiator ORD 6 raises our IRD", POL(), REQ2(6, 6), SIW_MPA_ACCEPT,
	  0, REP2(6, 4, .crc = true), 6, 4, 0, X_CRC | X_ENH, 2 },
	{ "initiator ORD 20: IRD stops at ird_max", POL(), REQ2(6, 20),
	  SIW_MPA_ACCEPT, 0, REP2(8, 4, .crc = true), 8, 4, 0, X_CRC | X_ENH,
	  2 },
	{ "initiator IRD 1 cuts our ORD to 1", POL(), REQ2(1, 0),
	  SIW_MPA_ACCEPT, 0, REP2(4, 1, .crc = true), 4, 1, 0, X_CRC | X_ENH,
	  2 },
	{ "initiator IRD 0: ORD 0", POL(), REQ2(0, 0), SIW_MPA_ACCEPT, 0,
	  REP2(4, 0, .crc = true), 4, 0, 0, X_CRC | X_ENH, 2 },
	{ "initiator IRD below ord_min: reject, code 6", POL(.ord_min = 3),
	  REQ2(2, 1), SIW_MPA_REJECT, 6,
	  REP2(4, 3, .crc = true, .reject = true), 4, 2, 0, X_CRC | X_ENH, 2 },
	{ "initiator IRD equal to ord_min", POL(.ord_min = 3), REQ2(3, 1),
	  SIW_MPA_ACCEPT, 0, REP2(4, 3, .crc = true), 4, 3, 0, X_CRC | X_ENH,
	  2 },
	/* the 0x3FFF rules of section 9.1 */
	{ "initiator ORD 0x3fff: IRD unchanged, 0x3fff back", POL(),
	  REQ2(2, ULP), SIW_MPA_ACCEPT, 0, REP2(ULP, 2, .crc = true), 4, 2, 0,
	  X_CRC | X_ENH, 2 },
	{ "initiator IRD 0x3fff: ORD unchanged, 0x3fff back", POL(),
	  REQ2(ULP, 2), SIW_MPA_ACCEPT, 0, REP2(4, ULP, .crc = true), 4, 4, 0,
	  X_CRC | X_ENH, 2 },
	{ "initiator IRD 0x3fff: no ord_min check", POL(.ord_min = 3),
	  REQ2(ULP, 2), SIW_MPA_ACCEPT, 0, REP2(4, ULP, .crc = true), 4, 4, 0,
	  X_CRC | X_ENH, 2 },
	{ "both 0x3fff", POL(), REQ2(ULP, ULP), SIW_MPA_ACCEPT, 0,
	  REP2(ULP, ULP, .crc = true), 4, 4, 0, X_CRC | X_ENH, 2 },
	{ "initiator ORD 0x3fff keeps our IRD 0",
	  { .rev = 2, .rtr = ALL, .ird = 0, .ird_max = 8, .ord = 4 },
	  REQ2(2, ULP), SIW_MPA_ACCEPT, 0, REP2(ULP, 2, .crc = true), 0, 2, 0,
	  X_CRC | X_ENH, 2 },
	/* the connection model and RTR types: section 9.2 */
	{ "client-server in, client-server out", POL(), REQ2(4, 4),
	  SIW_MPA_ACCEPT, 0, REP2(4, 4, .crc = true), 4, 4, 0, X_CRC | X_ENH,
	  2 },
	{ "p2p, all asked, all supported", POL(),
	  REQ2(4, 4, .p2p = true, .rtr = W | R | S), SIW_MPA_ACCEPT, 0,
	  REP2(4, 4, .crc = true, .p2p = true, .rtr = W | R | S), 4, 4,
	  W | R | S, X_CRC | X_ENH | X_P2P, 2 },
	{ "p2p, send asked, we do write and read: ours offered",
	  { .rev = 2, .rtr = W | R, .ird = 4, .ird_max = 8, .ord = 4 },
	  REQ2(4, 4, .p2p = true, .rtr = S), SIW_MPA_ACCEPT, 0,
	  REP2(4, 4, .crc = true, .p2p = true, .rtr = W | R), 4, 4, W | R,
	  X_CRC | X_ENH | X_P2P, 2 },
	{ "p2p, write asked", POL(), REQ2(4, 4, .p2p = true, .rtr = W),
	  SIW_MPA_ACCEPT, 0, REP2(4, 4, .crc = true, .p2p = true, .rtr = W),
	  4, 4, W, X_CRC | X_ENH | X_P2P, 2 },
	{ "p2p, read and send asked, only send common",
	  { .rev = 2, .rtr = W | S, .ird = 4, .ird_max = 8, .ord = 4 },
	  REQ2(4, 4, .p2p = true, .rtr = R | S), SIW_MPA_ACCEPT, 0,
	  REP2(4, 4, .crc = true, .p2p = true, .rtr = S), 4, 4, S,
	  X_CRC | X_ENH | X_P2P, 2 },
	{ "p2p, read asked, no IRD at all: write and send offered",
	  { .rev = 2, .rtr = ALL, .ird = 0, .ird_max = 0, .ord = 4 },
	  REQ2(4, 0, .p2p = true, .rtr = R), SIW_MPA_ACCEPT, 0,
	  REP2(0, 4, .crc = true, .p2p = true, .rtr = W | S), 0, 4, W | S,
	  X_CRC | X_ENH | X_P2P, 2 },
	{ "p2p, read asked with ORD 0: IRD raised to 1",
	  { .rev = 2, .rtr = ALL, .ird = 0, .ird_max = 4, .ord = 4 },
	  REQ2(4, 0, .p2p = true, .rtr = R), SIW_MPA_ACCEPT, 0,
	  REP2(1, 4, .crc = true, .p2p = true, .rtr = R), 1, 4, R,
	  X_CRC | X_ENH | X_P2P, 2 },
	{ "p2p, read asked, ORD 0x3fff, IRD 0: read not offered",
	  { .rev = 2, .rtr = ALL, .ird = 0, .ird_max = 4, .ord = 4 },
	  REQ2(4, ULP, .p2p = true, .rtr = R), SIW_MPA_ACCEPT, 0,
	  REP2(ULP, 4, .crc = true, .p2p = true, .rtr = W | S), 0, 4, W | S,
	  X_CRC | X_ENH | X_P2P, 2 },
	{ "p2p, no RTR type supported: reject, code 7",
	  { .rev = 2, .rtr = 0, .ird = 4, .ird_max = 8, .ord = 4 },
	  REQ2(4, 4, .p2p = true, .rtr = W), SIW_MPA_REJECT, 7,
	  REP2(4, 4, .crc = true, .p2p = true, .reject = true), 4, 4, 0,
	  X_CRC | X_ENH | X_P2P, 2 },
	{ "ord_min and RTR both fail: code 6 first",
	  { .rev = 2, .rtr = 0, .ird = 4, .ird_max = 8, .ord = 4,
	    .ord_min = 3 },
	  REQ2(1, 1, .p2p = true, .rtr = W), SIW_MPA_REJECT, 6,
	  REP2(4, 3, .crc = true, .p2p = true, .reject = true), 4, 1, 0,
	  X_CRC | X_ENH | X_P2P, 2 },
	{ "CRC off and no RTR: the CRC rule first, no code",
	  { .crc = OFF, .rev = 2, .rtr = 0, .ird = 4, .ird_max = 8,
	    .ord = 4 },
	  REQ2(4, 4, .crc = true, .p2p = true, .rtr = W), SIW_MPA_REJECT, 0,
	  REP2(4, 4, .p2p = true, .reject = true), 4, 4, 0,
	  X_CRC | X_ENH | X_P2P, 2 },
};

MPA_CASE_DESC(resp_case)
KUNIT_ARRAY_PARAM(resp, resp_cases, resp_case_desc);

static void expect_reply(struct kunit *test, const struct siw_mpa_frame *g,
			 const struct siw_mpa_frame *w)
{
	KUNIT_EXPECT_TRUE(test, g->reply);
	KUNIT_EXPECT_EQ(test, g->rev, w->rev);
	KUNIT_EXPECT_EQ(test, g->markers, w->markers);
	KUNIT_EXPECT_EQ(test, g->crc, w->crc);
	KUNIT_EXPECT_EQ(test, g->reject, w->reject);
	KUNIT_EXPECT_EQ(test, g->enhanced, w->enhanced);
	KUNIT_EXPECT_EQ(test, g->p2p, w->p2p);
	KUNIT_EXPECT_EQ(test, g->rtr, w->rtr);
	KUNIT_EXPECT_EQ(test, g->ird, w->ird);
	KUNIT_EXPECT_EQ(test, g->ord, w->ord);
	KUNIT_EXPECT_EQ(test, g->pd_len, 0);
}

static void siw_mpa_negotiate_responder(struct kunit *test)
{
	const struct resp_case *c = test->param_value;
	struct siw_mpa_frame rep;
	struct siw_mpa_conn conn;

	KUNIT_ASSERT_EQ(test, siw_mpa_policy_check(&c->pol), 0);
	siw_mpa_respond(&c->pol, &c->req, &rep, &conn);
	KUNIT_EXPECT_EQ(test, conn.verdict, c->verdict);
	KUNIT_EXPECT_EQ(test, (u8)conn.term, c->term);
	expect_reply(test, &rep, &c->rep);
	KUNIT_EXPECT_EQ(test, conn.ird, c->ird);
	KUNIT_EXPECT_EQ(test, conn.ord, c->ord);
	KUNIT_EXPECT_EQ(test, conn.rtr_accept, c->rtr_accept);
	KUNIT_EXPECT_EQ(test, conn.rev, c->rev);
	expect_flags(test, &conn, c->flags);
	/* the peer's values reach the ULP (section 9.1) */
	KUNIT_EXPECT_EQ(test, conn.peer_ird, c->req.enhanced ? c->req.ird : ULP);
	KUNIT_EXPECT_EQ(test, conn.peer_ord, c->req.enhanced ? c->req.ord : ULP);
	/* the reply must be sendable as it is */
	if (c->verdict != SIW_MPA_CLOSE) {
		u8 buf[SIW_MPA_RR_LEN + SIW_MPA_ENH_LEN];

		KUNIT_EXPECT_GT(test, siw_mpa_frame_build(&rep, buf,
							  sizeof(buf)), 0L);
	}
}

/* The initiator: policy, its request and the reply in, settings out */
struct init_case {
	const char *name;
	struct siw_mpa_policy pol;
	struct siw_mpa_frame rep;
	enum siw_mpa_verdict verdict;
	u8 term;
	enum siw_mpa_rtr rtr;
	u16 ird;
	u16 ord;
	u8 flags;
	u8 rev;
};

#define NONE	SIW_MPA_RTR_NONE

static const struct init_case init_cases[] = {
	{ "accepted in rev 2", POL(), REP2(4, 4, .crc = true), SIW_MPA_ACCEPT,
	  0, NONE, 4, 4, X_CRC | X_ENH, 2 },
	{ "rejected by the peer", POL(), REP2(2, 9, .reject = true),
	  SIW_MPA_REJECT, 0, NONE, 4, 4, X_CRC, 2 },
	{ "rev 1 reply: continue in rev 1", POL(), REP1(.crc = true),
	  SIW_MPA_ACCEPT, 0, NONE, 4, 4, X_CRC, 1 },
	{ "rev 2 reply without S: no enhanced data", POL(),
	  { .reply = true, .rev = 2, .ird = ULP, .ord = ULP }, SIW_MPA_ACCEPT,
	  0, NONE, 4, 4, X_CRC, 2 },
	{ "p2p asked, rev 1 reply: no RTR", POL(.p2p = true), REP1(),
	  SIW_MPA_ACCEPT, 0, NONE, 4, 4, X_CRC, 1 },
	{ "enhanced reply to a rev 1 request: close, code 4",
	  { .rev = 1, .rtr = ALL, .ird = 4, .ird_max = 8, .ord = 4 },
	  REP2(4, 4), SIW_MPA_CLOSE, 4, NONE, 4, 4, X_CRC, 1 },
	{ "a request where the reply belongs: close, code 4", POL(),
	  REQ2(4, 4), SIW_MPA_CLOSE, 4, NONE, 4, 4, X_CRC, 2 },
	/* CRC */
	{ "CRC required, peer C=0: on", POL(), REP2(4, 4), SIW_MPA_ACCEPT, 0,
	  NONE, 4, 4, X_CRC | X_ENH, 2 },
	{ "CRC allowed, peer C=1: on", POL(.crc = ALLOWED),
	  REP2(4, 4, .crc = true), SIW_MPA_ACCEPT, 0, NONE, 4, 4,
	  X_CRC | X_ENH, 2 },
	{ "CRC allowed, peer C=0: off", POL(.crc = ALLOWED), REP2(4, 4),
	  SIW_MPA_ACCEPT, 0, NONE, 4, 4, X_ENH, 2 },
	{ "CRC off, peer C=1: terminate, code 5", POL(.crc = OFF),
	  REP2(4, 4, .crc = true), SIW_MPA_TERMINATE, 5, NONE, 4, 4, X_CRC,
	  2 },
	{ "CRC off, peer C=0: off", POL(.crc = OFF), REP2(4, 4),
	  SIW_MPA_ACCEPT, 0, NONE, 4, 4, X_ENH, 2 },
	/* markers */
	{ "the peer wants markers from us", POL(),
	  REP2(4, 4, .crc = true, .markers = true), SIW_MPA_ACCEPT, 0, NONE, 4,
	  4, X_CRC | X_ENH | X_TXM, 2 },
	{ "we asked for markers", POL(.markers = true),
	  REP2(4, 4, .crc = true), SIW_MPA_ACCEPT, 0, NONE, 4, 4,
	  X_CRC | X_ENH | X_RXM, 2 },
	/* IRD and ORD: section 9.1 */
	{ "responder ORD 6 raises our IRD to 6", POL(), REP2(4, 6),
	  SIW_MPA_ACCEPT, 0, NONE, 6, 4, X_CRC | X_ENH, 2 },
	{ "responder ORD 2: our IRD stays 4", POL(), REP2(4, 2),
	  SIW_MPA_ACCEPT, 0, NONE, 4, 4, X_CRC | X_ENH, 2 },
	{ "responder ORD 9 above ird_max: terminate, code 6", POL(),
	  REP2(4, 9), SIW_MPA_TERMINATE, 6, NONE, 9, 4, X_CRC | X_ENH, 2 },
	{ "responder IRD 2 cuts our ORD to 2", POL(), REP2(2, 4),
	  SIW_MPA_ACCEPT, 0, NONE, 4, 2, X_CRC | X_ENH, 2 },
	{ "responder IRD 9: our ORD stays 4", POL(), REP2(9, 4),
	  SIW_MPA_ACCEPT, 0, NONE, 4, 4, X_CRC | X_ENH, 2 },
	{ "responder IRD 0x3fff: our ORD unchanged", POL(), REP2(ULP, 2),
	  SIW_MPA_ACCEPT, 0, NONE, 4, 4, X_CRC | X_ENH, 2 },
	{ "responder ORD 0x3fff: our IRD unchanged, no code 6", POL(),
	  REP2(2, ULP), SIW_MPA_ACCEPT, 0, NONE, 4, 2, X_CRC | X_ENH, 2 },
	{ "responder both 0x3fff", POL(), REP2(ULP, ULP), SIW_MPA_ACCEPT, 0,
	  NONE, 4, 4, X_CRC | X_ENH, 2 },
	{ "we sent 0x3fff for both", POL(.ird_ulp = true, .ord_ulp = true),
	  REP2(ULP, ULP), SIW_MPA_ACCEPT, 0, NONE, 4, 4, X_CRC | X_ENH, 2 },
	/* the connection model and RTR types: sections 9.2 and 9.3 */
	{ "p2p, write offered: write", POL(.p2p = true),
	  REP2(4, 4, .p2p = true, .rtr = W), SIW_MPA_ACCEPT, 0,
	  SIW_MPA_RTR_WRITE, 4, 4, X_CRC | X_ENH | X_P2P, 2 },
	{ "p2p, all offered: write first", POL(.p2p = true),
	  REP2(4, 4, .p2p = true, .rtr = W | R | S), SIW_MPA_ACCEPT, 0,
	  SIW_MPA_RTR_WRITE, 4, 4, X_CRC | X_ENH | X_P2P, 2 },
	{ "p2p, read offered, our ORD 0: read all the same",
	  { .rev = 2, .rtr = ALL, .p2p = true, .ird = 4, .ird_max = 8 },
	  REP2(1, 0, .p2p = true, .rtr = R), SIW_MPA_ACCEPT, 0,
	  SIW_MPA_RTR_READ, 4, 0, X_CRC | X_ENH | X_P2P, 2 },
	{ "p2p, read offered: read", POL(.p2p = true),
	  REP2(4, 4, .p2p = true, .rtr = R), SIW_MPA_ACCEPT, 0,
	  SIW_MPA_RTR_READ, 4, 4, X_CRC | X_ENH | X_P2P, 2 },
	{ "p2p, read and send offered: read first", POL(.p2p = true),
	  REP2(4, 4, .p2p = true, .rtr = R | S), SIW_MPA_ACCEPT, 0,
	  SIW_MPA_RTR_READ, 4, 4, X_CRC | X_ENH | X_P2P, 2 },
	{ "p2p, send offered: send", POL(.p2p = true),
	  REP2(4, 4, .p2p = true, .rtr = S), SIW_MPA_ACCEPT, 0,
	  SIW_MPA_RTR_SEND, 4, 4, X_CRC | X_ENH | X_P2P, 2 },
	{ "p2p, read offered, responder IRD 0: terminate, code 7",
	  POL(.p2p = true), REP2(0, 4, .p2p = true, .rtr = R),
	  SIW_MPA_TERMINATE, 7, NONE, 4, 0, X_CRC | X_ENH | X_P2P, 2 },
	{ "p2p, read and write offered, responder IRD 0: write",
	  POL(.p2p = true), REP2(0, 4, .p2p = true, .rtr = R | W),
	  SIW_MPA_ACCEPT, 0, SIW_MPA_RTR_WRITE, 4, 0, X_CRC | X_ENH | X_P2P,
	  2 },
	{ "p2p, nothing offered: terminate, code 7", POL(.p2p = true),
	  REP2(4, 4, .p2p = true), SIW_MPA_TERMINATE, 7, NONE, 4, 4,
	  X_CRC | X_ENH | X_P2P, 2 },
	{ "p2p, only types we cannot send: terminate, code 7",
	  { .rev = 2, .rtr = S, .p2p = true, .ird = 4, .ird_max = 8,
	    .ord = 4 },
	  REP2(4, 4, .p2p = true, .rtr = W | R), SIW_MPA_TERMINATE, 7, NONE, 4,
	  4, X_CRC | X_ENH | X_P2P, 2 },
	{ "p2p asked, reply A=0: terminate, code 7", POL(.p2p = true),
	  REP2(4, 4), SIW_MPA_TERMINATE, 7, NONE, 4, 4, X_CRC | X_ENH, 2 },
	{ "client-server asked, reply A=1: terminate, code 7", POL(),
	  REP2(4, 4, .p2p = true, .rtr = W), SIW_MPA_TERMINATE, 7, NONE, 4, 4,
	  X_CRC | X_ENH, 2 },
	{ "IRD and RTR both fail: code 6 first", POL(.p2p = true),
	  REP2(4, 9, .p2p = true), SIW_MPA_TERMINATE, 6, NONE, 9, 4,
	  X_CRC | X_ENH | X_P2P, 2 },
};

MPA_CASE_DESC(init_case)
KUNIT_ARRAY_PARAM(init, init_cases, init_case_desc);

static void siw_mpa_negotiate_initiator(struct kunit *test)
{
	const struct init_case *c = test->param_value;
	struct siw_mpa_frame req;
	struct siw_mpa_conn conn;

	KUNIT_ASSERT_EQ(test, siw_mpa_request(&c->pol, &req), 0);
	/* what the request says, from the policy (RFC 6581 section 9.3) */
	KUNIT_EXPECT_FALSE(test, req.reply);
	KUNIT_EXPECT_EQ(test, req.rev, c->pol.rev);
	KUNIT_EXPECT_EQ(test, req.crc, c->pol.crc == SIW_MPA_CRC_REQUIRED);
	KUNIT_EXPECT_EQ(test, req.markers, c->pol.markers);
	KUNIT_EXPECT_EQ(test, req.enhanced, c->pol.rev == 2);
	if (req.enhanced) {
		KUNIT_EXPECT_EQ(test, req.ird, c->pol.ird_ulp ? ULP : c->pol.ird);
		KUNIT_EXPECT_EQ(test, req.ord, c->pol.ord_ulp ? ULP : c->pol.ord);
		KUNIT_EXPECT_EQ(test, req.p2p, c->pol.p2p);
		KUNIT_EXPECT_EQ(test, req.rtr, c->pol.p2p ? c->pol.rtr : 0);
	}

	siw_mpa_on_reply(&c->pol, &req, &c->rep, &conn);
	KUNIT_EXPECT_EQ(test, conn.verdict, c->verdict);
	KUNIT_EXPECT_EQ(test, (u8)conn.term, c->term);
	KUNIT_EXPECT_EQ(test, conn.rtr, (u8)c->rtr);
	KUNIT_EXPECT_EQ(test, conn.ird, c->ird);
	KUNIT_EXPECT_EQ(test, conn.ord, c->ord);
	KUNIT_EXPECT_EQ(test, conn.rev, c->rev);
	expect_flags(test, &conn, c->flags);
	KUNIT_EXPECT_EQ(test, conn.peer_ird, c->rep.enhanced ? c->rep.ird : ULP);
	KUNIT_EXPECT_EQ(test, conn.peer_ord, c->rep.enhanced ? c->rep.ord : ULP);
}

/* Both sides through real frames */
struct e2e_case {
	const char *name;
	struct siw_mpa_policy pi;	/* initiator */
	struct siw_mpa_policy pr;	/* responder */
	enum siw_mpa_verdict vr;
	u8 term_r;
	enum siw_mpa_verdict vi;
	u8 term_i;
	enum siw_mpa_rtr rtr;
	u8 rev;
	bool crc;
};

static const struct e2e_case e2e_cases[] = {
	{ "defaults on both sides", POL(), POL(), SIW_MPA_ACCEPT, 0,
	  SIW_MPA_ACCEPT, 0, NONE, 2, true },
	{ "rev 1 initiator",
	  { .rev = 1, .rtr = ALL, .ird = 4, .ird_max = 8, .ord = 4 }, POL(),
	  SIW_MPA_ACCEPT, 0, SIW_MPA_ACCEPT, 0, NONE, 1, true },
	{ "rev 1 responder: both go on in rev 1", POL(.p2p = true),
	  { .rev = 1, .rtr = ALL, .ird = 4, .ird_max = 8, .ord = 4 },
	  SIW_MPA_ACCEPT, 0, SIW_MPA_ACCEPT, 0, NONE, 1, true },
	{ "CRC allowed on both sides: off", POL(.crc = ALLOWED),
	  POL(.crc = ALLOWED), SIW_MPA_ACCEPT, 0, SIW_MPA_ACCEPT, 0, NONE, 2,
	  false },
	{ "CRC allowed and required: on", POL(.crc = ALLOWED), POL(),
	  SIW_MPA_ACCEPT, 0, SIW_MPA_ACCEPT, 0, NONE, 2, true },
	{ "CRC off and required: the initiator terminates", POL(.crc = OFF),
	  POL(), SIW_MPA_ACCEPT, 0, SIW_MPA_TERMINATE, 5, NONE, 2, true },
	{ "CRC required and off: the responder rejects", POL(),
	  POL(.crc = OFF), SIW_MPA_REJECT, 0, SIW_MPA_REJECT, 0, NONE, 2,
	  true },
	{ "markers asked by the initiator only", POL(.markers = true), POL(),
	  SIW_MPA_ACCEPT, 0, SIW_MPA_ACCEPT, 0, NONE, 2, true },
	{ "markers asked by the responder only", POL(), POL(.markers = true),
	  SIW_MPA_ACCEPT, 0, SIW_MPA_ACCEPT, 0, NONE, 2, true },
	{ "p2p, everything supported: write", POL(.p2p = true), POL(),
	  SIW_MPA_ACCEPT, 0, SIW_MPA_ACCEPT, 0, SIW_MPA_RTR_WRITE, 2, true },
	{ "p2p, read and send against write only: code 7",
	  { .rev = 2, .rtr = R | S, .p2p = true, .ird = 4, .ird_max = 8,
	    .ord = 4 },
	  { .rev = 2, .rtr = W, .ird = 4, .ird_max = 8, .ord = 4 },
	  SIW_MPA_ACCEPT, 0, SIW_MPA_TERMINATE, 7, NONE, 2, true },
	{ "p2p, read only, ORD 0: responder gives IRD 1",
	  { .rev = 2, .rtr = R, .p2p = true, .ird = 4, .ird_max = 8,
	    .ord = 0 },
	  { .rev = 2, .rtr = ALL, .ird = 0, .ird_max = 2, .ord = 4 },
	  SIW_MPA_ACCEPT, 0, SIW_MPA_ACCEPT, 0, SIW_MPA_RTR_READ, 2, true },
	{ "initiator IRD under the responder's ord_min: code 6",
	  { .rev = 2, .rtr = ALL, .ird = 1, .ird_max = 1, .ord = 4 },
	  { .rev = 2, .rtr = ALL, .ird = 4, .ird_max = 8, .ord = 6,
	    .ord_min = 3 }, SIW_MPA_REJECT, 6, SIW_MPA_REJECT, 0,
	  NONE, 2, true },
	{ "responder ORD cut to the initiator IRD",
	  { .rev = 2, .rtr = ALL, .ird = 2, .ird_max = 2, .ord = 4 },
	  { .rev = 2, .rtr = ALL, .ird = 4, .ird_max = 8, .ord = 8 },
	  SIW_MPA_ACCEPT, 0, SIW_MPA_ACCEPT, 0, NONE, 2, true },
	{ "0x3fff from the initiator both ways",
	  POL(.ird_ulp = true, .ord_ulp = true), POL(), SIW_MPA_ACCEPT, 0,
	  SIW_MPA_ACCEPT, 0, NONE, 2, true },
};

MPA_CASE_DESC(e2e_case)
KUNIT_ARRAY_PARAM(e2e, e2e_cases, e2e_case_desc);

static const u8 e2e_pd_req[] = "private data of the initiator";
static const u8 e2e_pd_rep[] = "and of the responder";

/* Build @f into @buf and decode it back as the peer would */
static void e2e_wire(struct kunit *test, struct siw_mpa_frame *f, u8 *buf,
		     struct siw_mpa_frame *out)
{
	ssize_t len = siw_mpa_frame_build(f, buf, SIW_MPA_FRAME_MAX);

	KUNIT_ASSERT_GT(test, len, 0L);
	KUNIT_ASSERT_EQ(test, siw_mpa_frame_decode(buf, len, f->reply, out),
			SIW_MPA_FRAME_DONE);
	KUNIT_EXPECT_EQ(test, out->pd_len, f->pd_len);
	MPA_EXPECT_BYTES(test, out->pd, f->pd, f->pd_len);
}

static void siw_mpa_negotiate_end_to_end(struct kunit *test)
{
	const struct e2e_case *c = test->param_value;
	u8 *qbuf = kunit_kzalloc(test, SIW_MPA_FRAME_MAX, GFP_KERNEL);
	u8 *pbuf = kunit_kzalloc(test, SIW_MPA_FRAME_MAX, GFP_KERNEL);
	struct siw_mpa_frame req, req_rx, rep, rep_rx;
	struct siw_mpa_conn ci, cr;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, qbuf);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pbuf);
	KUNIT_ASSERT_EQ(test, siw_mpa_request(&c->pi, &req), 0);
	req.pd = e2e_pd_req;
	req.pd_len = sizeof(e2e_pd_req);
	e2e_wire(test, &req, qbuf, &req_rx);

	KUNIT_ASSERT_EQ(test, siw_mpa_policy_check(&c->pr), 0);
	siw_mpa_respond(&c->pr, &req_rx, &rep, &cr);
	KUNIT_EXPECT_EQ(test, cr.verdict, c->vr);
	KUNIT_EXPECT_EQ(test, (u8)cr.term, c->term_r);
	rep.pd = e2e_pd_rep;
	rep.pd_len = sizeof(e2e_pd_rep);
	e2e_wire(test, &rep, pbuf, &rep_rx);

	siw_mpa_on_reply(&c->pi, &req, &rep_rx, &ci);
	KUNIT_EXPECT_EQ(test, ci.verdict, c->vi);
	KUNIT_EXPECT_EQ(test, (u8)ci.term, c->term_i);
	KUNIT_EXPECT_EQ(test, ci.rtr, (u8)c->rtr);
	KUNIT_EXPECT_EQ(test, ci.rev, c->rev);
	KUNIT_EXPECT_EQ(test, cr.rev, c->rev);
	KUNIT_EXPECT_EQ(test, ci.crc, c->crc);
	if (c->vi != SIW_MPA_ACCEPT || c->vr != SIW_MPA_ACCEPT)
		return;

	/* both sides agree on what runs in each direction */
	KUNIT_EXPECT_EQ(test, cr.crc, ci.crc);
	KUNIT_EXPECT_EQ(test, ci.tx_markers, cr.rx_markers);
	KUNIT_EXPECT_EQ(test, ci.rx_markers, cr.tx_markers);
	KUNIT_EXPECT_EQ(test, ci.rx_markers, c->pi.markers);
	KUNIT_EXPECT_EQ(test, cr.rx_markers, c->pr.markers);
	KUNIT_EXPECT_EQ(test, ci.p2p, cr.p2p);
	KUNIT_EXPECT_EQ(test, ci.enhanced, cr.enhanced);
	if (ci.p2p)
		KUNIT_EXPECT_TRUE(test, cr.rtr_accept & SIW_MPA_RTR_F(ci.rtr));
	/* section 9.1: initiator ORD <= responder IRD, and the other way */
	if (ci.enhanced && !c->pi.ord_ulp)
		KUNIT_EXPECT_LE(test, ci.ord, cr.ird);
	if (ci.enhanced && !c->pi.ird_ulp)
		KUNIT_EXPECT_LE(test, cr.ord, ci.ird);
}

struct pol_case {
	const char *name;
	struct siw_mpa_policy pol;
	int want;
};

static const struct pol_case pol_cases[] = {
	{ "the default", POL(), 0 },
	{ "rev 1", { .rev = 1 }, 0 },
	{ "rev 0", { .rev = 0 }, -EINVAL },
	{ "rev 3", { .rev = 3 }, -EINVAL },
	{ "unknown CRC policy", { .rev = 2, .crc = 3 }, -EINVAL },
	{ "unknown RTR bit", { .rev = 2, .rtr = 0x08 }, -EINVAL },
	{ "p2p in rev 1", { .rev = 1, .p2p = true, .rtr = W }, -EINVAL },
	{ "p2p without an RTR type", { .rev = 2, .p2p = true }, -EINVAL },
	{ "p2p with one RTR type", { .rev = 2, .p2p = true, .rtr = S }, 0 },
	{ "IRD 0x3ffe", { .rev = 2, .ird = 0x3ffe }, 0 },
	{ "IRD 0x3fff", { .rev = 2, .ird = 0x3fff }, -EINVAL },
	{ "ird_max 0x3fff", { .rev = 2, .ird_max = 0x3fff }, -EINVAL },
	{ "ORD 0x3fff", { .rev = 2, .ord = 0x3fff }, -EINVAL },
	{ "ord_min above ORD", { .rev = 2, .ord = 2, .ord_min = 3 }, -EINVAL },
};

MPA_CASE_DESC(pol_case)
KUNIT_ARRAY_PARAM(pol, pol_cases, pol_case_desc);

static void siw_mpa_negotiate_policy(struct kunit *test)
{
	const struct pol_case *c = test->param_value;
	struct siw_mpa_frame req;

	KUNIT_EXPECT_EQ(test, siw_mpa_policy_check(&c->pol), c->want);
	KUNIT_EXPECT_EQ(test, siw_mpa_request(&c->pol, &req), c->want);
}

static void siw_mpa_negotiate_policy_default(struct kunit *test)
{
	struct siw_mpa_policy pol;

	siw_mpa_policy_init(&pol);
	KUNIT_EXPECT_EQ(test, siw_mpa_policy_check(&pol), 0);
	/* RFC 5044 section 4.4: CRCs by default */
	KUNIT_EXPECT_EQ(test, pol.crc, SIW_MPA_CRC_REQUIRED);
	KUNIT_EXPECT_FALSE(test, pol.markers);
	KUNIT_EXPECT_EQ(test, pol.rev, 2);
	/* RFC 6581 section 9.2: an enhanced responder supports an RTR */
	KUNIT_EXPECT_NE(test, pol.rtr, 0);
}

/* Error codes a Terminate carries: Layer 2 (LLP), Type 0 (MPA) */
struct err_case {
	const char *name;
	enum siw_mpa_err err;
	u8 code;
};

static const struct err_case err_cases[] = {
	{ "TCP connection closed is 0x01", SIW_MPA_ERR_CLOSED, 0x01 },
	{ "CRC error is 0x02", SIW_MPA_ERR_CRC, 0x02 },
	{ "marker mismatch is 0x03", SIW_MPA_ERR_MARKER, 0x03 },
	{ "invalid request or reply is 0x04", SIW_MPA_ERR_FRAME, 0x04 },
	{ "local catastrophic is 0x05", SIW_MPA_ERR_LOCAL, 0x05 },
	{ "insufficient IRD is 0x06", SIW_MPA_ERR_NO_IRD, 0x06 },
	{ "no matching RTR option is 0x07", SIW_MPA_ERR_NO_RTR, 0x07 },
};

MPA_CASE_DESC(err_case)
KUNIT_ARRAY_PARAM(err, err_cases, err_case_desc);

static void siw_mpa_negotiate_err_codes(struct kunit *test)
{
	const struct err_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, (u8)c->err, c->code);
	KUNIT_EXPECT_EQ(test, SIW_MPA_TERM_LAYER, 0x2);
	KUNIT_EXPECT_EQ(test, SIW_MPA_TERM_ETYPE, 0x0);
	KUNIT_EXPECT_STRNEQ(test, siw_mpa_err_name(c->err), "unknown");
	KUNIT_EXPECT_STRNEQ(test, siw_mpa_err_name(c->err),
			    siw_mpa_err_name(SIW_MPA_OK));
}

/* RTR types and their flags in the enhanced data (section 9) */
struct rtr_case {
	const char *name;
	enum siw_mpa_rtr rtr;
	bool in_ord_word;
	u16 flag;
	bool needs_ird;
};

static const struct rtr_case rtr_cases[] = {
	{ "write is flag C, top bit of the ORD word", SIW_MPA_RTR_WRITE,
	  true, 0x8000, false },
	{ "read is flag D, second bit of the ORD word", SIW_MPA_RTR_READ,
	  true, 0x4000, true },
	{ "send is flag B, second bit of the IRD word", SIW_MPA_RTR_SEND,
	  false, 0x4000, false },
};

MPA_CASE_DESC(rtr_case)
KUNIT_ARRAY_PARAM(rtr, rtr_cases, rtr_case_desc);

static void siw_mpa_negotiate_rtr_table(struct kunit *test)
{
	const struct rtr_case *c = test->param_value;
	const struct siw_mpa_rtr_info *ri = siw_mpa_rtr_info(c->rtr);

	KUNIT_ASSERT_NOT_NULL(test, ri);
	KUNIT_EXPECT_EQ(test, ri->in_ord_word, c->in_ord_word);
	KUNIT_EXPECT_EQ(test, ri->flag, c->flag);
	KUNIT_EXPECT_EQ(test, ri->needs_ird, c->needs_ird);
	KUNIT_EXPECT_NOT_NULL(test, ri->name);
	KUNIT_EXPECT_NULL(test, siw_mpa_rtr_info(SIW_MPA_RTR_NONE));
}

static void siw_mpa_negotiate_names(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < SIW_MPA_NUM_VERDICTS; i++)
		KUNIT_EXPECT_STRNEQ(test, siw_mpa_verdict_name(i), "unknown");
	for (i = 0; i < SIW_MPA_NUM_REASONS; i++)
		KUNIT_EXPECT_STRNEQ(test, siw_mpa_reason_name(i), "unknown");
	KUNIT_EXPECT_STREQ(test, siw_mpa_verdict_name(SIW_MPA_NUM_VERDICTS),
			   "unknown");
	KUNIT_EXPECT_STREQ(test, siw_mpa_reason_name(SIW_MPA_NUM_REASONS),
			   "unknown");
	KUNIT_EXPECT_STREQ(test, siw_mpa_err_name(SIW_MPA_NUM_ERR), "unknown");
}

static struct kunit_case siw_mpa_negotiate_cases[] = {
	KUNIT_CASE_PARAM(siw_mpa_negotiate_responder, resp_gen_params),
	KUNIT_CASE_PARAM(siw_mpa_negotiate_initiator, init_gen_params),
	KUNIT_CASE_PARAM(siw_mpa_negotiate_end_to_end, e2e_gen_params),
	KUNIT_CASE_PARAM(siw_mpa_negotiate_policy, pol_gen_params),
	KUNIT_CASE(siw_mpa_negotiate_policy_default),
	KUNIT_CASE_PARAM(siw_mpa_negotiate_err_codes, err_gen_params),
	KUNIT_CASE_PARAM(siw_mpa_negotiate_rtr_table, rtr_gen_params),
	KUNIT_CASE(siw_mpa_negotiate_names),
	{}
};

static struct kunit_suite siw_mpa_negotiate_suite = {
	.name = "siw_mpa_negotiate",
	.test_cases = siw_mpa_negotiate_cases,
};

kunit_test_suite(siw_mpa_negotiate_suite);
