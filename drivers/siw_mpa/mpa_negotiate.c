// SPDX-License-Identifier: GPL-2.0
/*
 * Connection setup rules as pure functions: from the local policy and
 * the frames exchanged, what to send and how the connection runs.
 *
 *  - CRC and markers: RFC 5044 sections 4.4 and 7.1.1. CRCs are on if
 *    either frame has C set; each side inserts markers if the other
 *    side's frame has M set, so the two directions are independent.
 *  - Revisions: RFC 5044 section 7.1.1, RFC 6581 sections 6 and 10.
 *  - IRD and ORD: RFC 6581 section 9.1, with the four 0x3FFF rules.
 *  - Peer-to-peer model and RTR indications: RFC 6581 sections 9.2, 9.3.
 *  - Terminate codes: RFC 6581 sections 8, 9.1 to 9.3.
 *
 * The first failing rule decides the verdict; later rules still fill in
 * the reply, so that a reject frame carries enhanced data when the
 * request did.
 */
#include <kunit/visibility.h>
#include <linux/bitops.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/string.h>

#include "mpa_wire.h"

static const char * const siw_mpa_verdict_names[SIW_MPA_NUM_VERDICTS] = {
	[SIW_MPA_ACCEPT]	= "accept",
	[SIW_MPA_REJECT]	= "reject",
	[SIW_MPA_TERMINATE]	= "terminate",
	[SIW_MPA_CLOSE]		= "close",
};

static const char * const siw_mpa_reason_names[SIW_MPA_NUM_REASONS] = {
	[SIW_MPA_WHY_OK]		= "ok",
	[SIW_MPA_WHY_DOWNGRADE]		= "continues in MPA rev 1",
	[SIW_MPA_WHY_PEER_REJECT]	= "rejected by the peer",
	[SIW_MPA_WHY_CRC_POLICY]	= "peer wants CRC, local policy is off",
	[SIW_MPA_WHY_ORD_MIN]		= "initiator IRD below required ORD",
	[SIW_MPA_WHY_IRD]		= "responder ORD above local IRD limit",
	[SIW_MPA_WHY_MODEL]		= "connection models differ",
	[SIW_MPA_WHY_NO_RTR]		= "no common RTR indication",
	[SIW_MPA_WHY_ENH_UNASKED]	= "enhanced reply to a plain request",
	[SIW_MPA_WHY_BAD_FRAME]		= "frame of the wrong role",
};

/**
 * siw_mpa_verdict_name() - name of a verdict, for logs and traces
 * @v: the verdict
 *
 * Context: any.
 * Returns: a constant string.
 */
const char *siw_mpa_verdict_name(enum siw_mpa_verdict v)
{
	if ((unsigned int)v >= ARRAY_SIZE(siw_mpa_verdict_names))
		return "unknown";
	return siw_mpa_verdict_names[v];
}
EXPORT_SYMBOL_IF_KUNIT(siw_mpa_verdict_name);

/**
 * siw_mpa_reason_name() - name of a setup outcome's reason
 * @r: the reason
 *
 * Context: any.
 * Returns: a constant string.
 */
const char *siw_mpa_reason_name(enum siw_mpa_reason r)
{
	if ((unsigned int)r >= ARRAY_SIZE(siw_mpa_reason_names))
		return "unknown";
	return siw_mpa_reason_names[r];
}
EXPORT_SYMBOL_IF_KUNIT(siw_mpa_reason_name);

/**
 * siw_mpa_policy_init() - the default policy
 * @pol: filled with it
 *
 * CRCs required (RFC 5044 section 4.4 makes that the default), no
 * markers wanted, rev 2, client-server model, every RTR indication
 * accepted, IRD and ORD 0: the caller sets those from its endpoint.
 *
 * Context: any.
 */
void siw_mpa_policy_init(struct siw_mpa_policy *pol)
{
	memset(pol, 0, sizeof(*pol));
	pol->crc = SIW_MPA_CRC_REQUIRED;
	pol->rev = SIW_MPA_REV_2;
	pol->rtr = SIW_MPA_RTR_ALL;
}
EXPORT_SYMBOL_IF_KUNIT(siw_mpa_policy_init);

/**
 * siw_mpa_policy_check() - is a policy consistent?
 * @pol: the policy
 *
 * Context: any.
 * Returns: 0, or -EINVAL for a revision other than 1 or 2, an unknown
 * CRC policy or RTR bit, peer-to-peer without rev 2 or without an RTR
 * type, IRD/ORD values above 0x3FFE, or @pol->ord_min above @pol->ord.
 */
int siw_mpa_policy_check(const struct siw_mpa_policy *pol)
{
	if (pol->rev != SIW_MPA_REV_1 && pol->rev != SIW_MPA_REV_2)
		return -EINVAL;
	if ((unsigned int)pol->crc > SIW_MPA_CRC_OFF)
		return -EINVAL;
	if (pol->rtr & ~SIW_MPA_RTR_ALL)
		return -EINVAL;
	if (pol->p2p && (pol->rev < SIW_MPA_REV_2 || !pol->rtr))
		return -EINVAL;
	if (pol->ird > SIW_MPA_IRD_ORD_MAX ||
	    pol->ird_max > SIW_MPA_IRD_ORD_MAX ||
	    pol->ord > SIW_MPA_IRD_ORD_MAX || pol->ord_min > pol->ord)
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(siw_mpa_policy_check);

/**
 * siw_mpa_request() - the MPA Request an initiator sends
 * @pol: local policy
 * @req: filled with the frame; the caller sets @req->pd and @req->pd_len
 *	(at most 508 octets with rev 2, 512 with rev 1)
 *
 * Rev 2 always sends the enhanced data: an initiator that wants none of
 * it asks for rev 1 (RFC 6581 section 10).
 *
 * Context: any.
 * Returns: 0, or -EINVAL if siw_mpa_policy_check() refuses @pol.
 */
int siw_mpa_request(const struct siw_mpa_policy *pol,
		    struct siw_mpa_frame *req)
{
	int rv = siw_mpa_policy_check(pol);

	if (rv)
		return rv;
	memset(req, 0, sizeof(*req));
	req->rev = pol->rev;
	req->markers = pol->markers;
	req->crc = pol->crc == SIW_MPA_CRC_REQUIRED;
	req->ird = SIW_MPA_IRD_ORD_ULP;
	req->ord = SIW_MPA_IRD_ORD_ULP;
	if (pol->rev < SIW_MPA_REV_2)
		return 0;
	req->enhanced = true;
	req->ird = pol->ird_ulp ? SIW_MPA_IRD_ORD_ULP : pol->ird;
	req->ord = pol->ord_ulp ? SIW_MPA_IRD_ORD_ULP : pol->ord;
	req->p2p = pol->p2p;
	req->rtr = pol->p2p ? pol->rtr : 0;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(siw_mpa_request);

static void siw_mpa_conn_init(const struct siw_mpa_policy *pol,
			      struct siw_mpa_conn *c)
{
	memset(c, 0, sizeof(*c));
	c->verdict = SIW_MPA_ACCEPT;
	c->ird = pol->ird;
	c->ord = pol->ord;
	c->peer_ird = SIW_MPA_IRD_ORD_ULP;
	c->peer_ord = SIW_MPA_IRD_ORD_ULP;
	c->rtr = SIW_MPA_RTR_NONE;
}

/* Record a failure unless an earlier rule already failed */
static void siw_mpa_fail(struct siw_mpa_conn *c, enum siw_mpa_verdict v,
			 enum siw_mpa_err term, enum siw_mpa_reason why)
{
	if (c->verdict != SIW_MPA_ACCEPT)
		return;
	c->verdict = v;
	c->term = term;
	c->reason = why;
}

/* Most IRD the local endpoint can give */
static u16 siw_mpa_ird_cap(const struct siw_mpa_policy *pol)
{
	return max(pol->ird, pol->ird_max);
}

static void siw_mpa_respond_crc(const struct siw_mpa_policy *pol,
				const struct siw_mpa_frame *req,
				struct siw_mpa_frame *rep,
				struct siw_mpa_conn *c)
{
	switch (pol->crc) {
	case SIW_MPA_CRC_REQUIRED:
		rep->crc = true;
		break;
	case SIW_MPA_CRC_ALLOWED:
		/* echo C: the reply states what the connection does */
		rep->crc = req->crc;
		break;
	default:
		rep->crc = false;
		if (req->crc)
			siw_mpa_fail(c, SIW_MPA_REJECT, SIW_MPA_OK,
				     SIW_MPA_WHY_CRC_POLICY);
		break;
	}
	c->crc = req->crc || rep->crc;
}

/* RTR types to offer (RFC 6581 section 9.2); 0 if there is none */
static u8 siw_mpa_respond_rtr(const struct siw_mpa_policy *pol,
			      const struct siw_mpa_frame *req)
{
	u8 offer = pol->rtr;
	u16 ird = req->ord == SIW_MPA_IRD_ORD_ULP ? pol->ird :
		  siw_mpa_ird_cap(pol);

	/* a zero-length Read takes a slot of our IRD */
	if (!ird)
		offer &= ~SIW_MPA_RTR_F(SIW_MPA_RTR_READ);
	/* the ones asked for that we support, else all we support */
	return (req->rtr & offer) ? req->rtr & offer : offer;
}

/* IRD and ORD of the responder (RFC 6581 section 9.1) */
static void siw_mpa_respond_ird_ord(const struct siw_mpa_policy *pol,
				    const struct siw_mpa_frame *req,
				    struct siw_mpa_frame *rep,
				    struct siw_mpa_conn *c)
{
	if (req->ord == SIW_MPA_IRD_ORD_ULP) {
		c->ird = pol->ird;
		rep->ird = SIW_MPA_IRD_ORD_ULP;
	} else {
		c->ird = min(max(pol->ird, req->ord), siw_mpa_ird_cap(pol));
		if ((rep->rtr & SIW_MPA_RTR_F(SIW_MPA_RTR_READ)) && !c->ird)
			c->ird = 1;
		rep->ird = c->ird;
	}

	if (req->ird == SIW_MPA_IRD_ORD_ULP) {
		c->ord = pol->ord;
		rep->ord = SIW_MPA_IRD_ORD_ULP;
	} else if (req->ird < pol->ord_min) {
		c->ord = req->ird;
		rep->ord = pol->ord_min;
		siw_mpa_fail(c, SIW_MPA_REJECT, SIW_MPA_ERR_NO_IRD,
			     SIW_MPA_WHY_ORD_MIN);
	} else {
		c->ord = min(pol->ord, req->ird);
		rep->ord = c->ord;
	}
}

static void siw_mpa_respond_enhanced(const struct siw_mpa_policy *pol,
				     const struct siw_mpa_frame *req,
				     struct siw_mpa_frame *rep,
				     struct siw_mpa_conn *c)
{
	rep->enhanced = true;
	c->enhanced = true;
	rep->p2p = req->p2p;
	c->p2p = req->p2p;
	if (req->p2p)
		rep->rtr = siw_mpa_respond_rtr(pol, req);
	c->rtr_accept = rep->rtr;
	siw_mpa_respond_ird_ord(pol, req, rep, c);
	if (req->p2p && !rep->rtr)
		siw_mpa_fail(c, SIW_MPA_REJECT, SIW_MPA_ERR_NO_RTR,
			     SIW_MPA_WHY_NO_RTR);
}

/**
 * siw_mpa_respond() - the responder's answer to an MPA Request
 * @pol: local policy, as accepted by siw_mpa_policy_check()
 * @req: the request, as decoded
 * @rep: filled with the reply to send (R set for SIW_MPA_REJECT); the
 *	caller sets @rep->pd and @rep->pd_len
 * @c: filled with the outcome
 *
 * The reply has the lower of the two revisions. An enhanced request gets
 * an enhanced reply in rev 2; a responder held to rev 1 answers rev 1 and
 * leaves IRD, ORD and the model to the ULPs. The reply's M tells what we
 * want, the request's M what we must send. A request in the peer-to-peer
 * model gets A and the RTR types we accept among those asked for, or all
 * we accept if none of them; with none at all, or if the initiator's IRD
 * is below @pol->ord_min, the verdict is SIW_MPA_REJECT with Terminate
 * code 7 or 6 (RFC 6581 sections 9.1, 9.2).
 *
 * Context: any.
 */
void siw_mpa_respond(const struct siw_mpa_policy *pol,
		     const struct siw_mpa_frame *req,
		     struct siw_mpa_frame *rep, struct siw_mpa_conn *c)
{
	siw_mpa_conn_init(pol, c);
	memset(rep, 0, sizeof(*rep));
	rep->reply = true;
	rep->ird = SIW_MPA_IRD_ORD_ULP;
	rep->ord = SIW_MPA_IRD_ORD_ULP;
	rep->rev = min(req->rev, pol->rev);
	c->rev = rep->rev;
	if (req->reply) {
		siw_mpa_fail(c, SIW_MPA_CLOSE, SIW_MPA_ERR_FRAME,
			     SIW_MPA_WHY_BAD_FRAME);
		return;
	}

	rep->markers = pol->markers;
	c->rx_markers = pol->markers;
	c->tx_markers = req->markers;
	siw_mpa_respond_crc(pol, req, rep, c);
	if (req->enhanced) {
		c->peer_ird = req->ird;
		c->peer_ord = req->ord;
		if (rep->rev >= SIW_MPA_REV_2)
			siw_mpa_respond_enhanced(pol, req, rep, c);
		else
			c->reason = SIW_MPA_WHY_DOWNGRADE;
	}
	rep->reject = c->verdict == SIW_MPA_REJECT;
}
EXPORT_SYMBOL_IF_KUNIT(siw_mpa_respond);

/* IRD and ORD of the initiator (RFC 6581 section 9.1) */
static void siw_mpa_reply_ird_ord(const struct siw_mpa_policy *pol,
				  const struct siw_mpa_frame *rep,
				  struct siw_mpa_conn *c)
{
	if (rep->ord != SIW_MPA_IRD_ORD_ULP) {
		c->ird = max(pol->ird, rep->ord);
		if (c->ird > siw_mpa_ird_cap(pol))
			siw_mpa_fail(c, SIW_MPA_TERMINATE, SIW_MPA_ERR_NO_IRD,
				     SIW_MPA_WHY_IRD);
	}
	if (rep->ird != SIW_MPA_IRD_ORD_ULP)
		c->ord = min(pol->ord, rep->ird);
}

/*
 * The RTR indication to send (RFC 6581 sections 9.2, 9.3). A zero-length
 * Read is a provider message, not one of the ULP's reads: it needs room
 * in the responder's IRD, not an ORD of the initiator's own (section 9.1
 * has the responder raise its IRD to 1 for it when the initiator's ORD
 * is 0).
 */
static void siw_mpa_reply_rtr(const struct siw_mpa_policy *pol,
			      const struct siw_mpa_frame *req,
			      const struct siw_mpa_frame *rep,
			      struct siw_mpa_conn *c)
{
	u8 usable = pol->rtr & rep->rtr;
	enum siw_mpa_rtr t;

	if (rep->p2p != req->p2p) {
		siw_mpa_fail(c, SIW_MPA_TERMINATE, SIW_MPA_ERR_NO_RTR,
			     SIW_MPA_WHY_MODEL);
		return;
	}
	if (!req->p2p)
		return;
	c->p2p = true;
	for (t = 0; t < SIW_MPA_NUM_RTR; t++) {
		if (!(usable & SIW_MPA_RTR_F(t)))
			continue;
		if (siw_mpa_rtr_info(t)->needs_ird && !rep->ird)
			continue;
		c->rtr = t;
		return;
	}
	siw_mpa_fail(c, SIW_MPA_TERMINATE, SIW_MPA_ERR_NO_RTR,
		     SIW_MPA_WHY_NO_RTR);
}

/**
 * siw_mpa_on_reply() - the initiator's reading of an MPA Reply
 * @pol: local policy, the one @req was made from
 * @req: the request we sent
 * @rep: the reply, as decoded
 * @c: filled with the outcome
 *
 * R set: SIW_MPA_REJECT, with the peer's IRD and ORD for the ULP. A rev 1
 * reply to an enhanced request (or a rev 2 one without S) continues the
 * connection in rev 1, with IRD, ORD and the model left to the ULPs. An
 * enhanced reply to a plain request is malformed: SIW_MPA_CLOSE. CRCs
 * wanted by the peer against a policy that has them off, an IRD we
 * cannot raise to the responder's ORD, and a model or RTR mismatch each
 * give SIW_MPA_TERMINATE with code 5, 6 or 7.
 *
 * Context: any.
 */
void siw_mpa_on_reply(const struct siw_mpa_policy *pol,
		      const struct siw_mpa_frame *req,
		      const struct siw_mpa_frame *rep, struct siw_mpa_conn *c)
{
	siw_mpa_conn_init(pol, c);
	c->rev = min(req->rev, rep->rev);
	c->rx_markers = req->markers;
	c->tx_markers = rep->markers;
	c->crc = req->crc || rep->crc;
	if (rep->enhanced) {
		c->peer_ird = rep->ird;
		c->peer_ord = rep->ord;
	}

	if (!rep->reply)
		siw_mpa_fail(c, SIW_MPA_CLOSE, SIW_MPA_ERR_FRAME,
			     SIW_MPA_WHY_BAD_FRAME);
	else if (rep->enhanced && !req->enhanced)
		siw_mpa_fail(c, SIW_MPA_CLOSE, SIW_MPA_ERR_FRAME,
			     SIW_MPA_WHY_ENH_UNASKED);
	else if (rep->reject)
		siw_mpa_fail(c, SIW_MPA_REJECT, SIW_MPA_OK,
			     SIW_MPA_WHY_PEER_REJECT);
	else if (pol->crc == SIW_MPA_CRC_OFF && c->crc)
		siw_mpa_fail(c, SIW_MPA_TERMINATE, SIW_MPA_ERR_LOCAL,
			     SIW_MPA_WHY_CRC_POLICY);
	if (c->verdict != SIW_MPA_ACCEPT)
		return;

	if (!rep->enhanced) {
		if (req->enhanced)
			c->reason = SIW_MPA_WHY_DOWNGRADE;
		return;
	}
	c->enhanced = true;
	siw_mpa_reply_ird_ord(pol, rep, c);
	siw_mpa_reply_rtr(pol, req, rep, c);
}
EXPORT_SYMBOL_IF_KUNIT(siw_mpa_on_reply);
