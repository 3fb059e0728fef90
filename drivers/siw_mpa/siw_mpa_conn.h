/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MPA (RFC 5044, updated by RFC 6581), the connection side: MPA Request,
 * Reply and Reject frames and the rules that turn a request into a
 * reply and a connection's settings. Pure like the FPDU side
 * (siw_mpa.h); the connection manager is its one user.
 *
 * See Documentation/mpa.rst.
 */
#ifndef SIW_MPA_CONN_H
#define SIW_MPA_CONN_H

#include "siw_mpa.h"

/* Sizes and values of the frames (RFC 5044 7.1, RFC 6581 section 9) */
#define SIW_MPA_PD_MAX		512
#define SIW_MPA_REV_1		1
#define SIW_MPA_REV_2		2
#define SIW_MPA_RR_LEN		20
#define SIW_MPA_ENH_LEN		4
#define SIW_MPA_IRD_ORD_ULP	0x3fff	/* "not negotiated, ULP's business" */
#define SIW_MPA_IRD_ORD_MAX	0x3ffe	/* largest value that negotiates */

/* mpa_frame.c: MPA Request, Reply and Reject frames */

/**
 * struct siw_mpa_frame - an MPA Request or Reply frame, decoded
 * @pd: private data of the ULP (after the enhanced data, if any)
 * @pd_len: octets at @pd; PD_Length on the wire adds 4 if @enhanced
 * @ird: enhanced data: IRD (14 bits; SIW_MPA_IRD_ORD_ULP: not negotiated)
 * @ord: enhanced data: ORD (likewise)
 * @rev: Rev field, 1 or 2
 * @rtr: enhanced data: mask of SIW_MPA_RTR_F() from the B, C, D flags,
 *	0 unless @p2p
 * @reply: the key is "MPA ID Rep Frame"
 * @markers: M bit
 * @crc: C bit
 * @reject: R bit (replies only)
 * @enhanced: S bit (rev 2 only): the private data starts with the
 *	enhanced data
 * @p2p: enhanced data: flag A, the peer-to-peer model
 */
struct siw_mpa_frame {
	const u8 *pd;
	u16 pd_len;
	u16 ird;
	u16 ord;
	u8 rev;
	u8 rtr;
	bool reply;
	bool markers;
	bool crc;
	bool reject;
	bool enhanced;
	bool p2p;
};

/* Outcome of decoding a frame; siw_mpa_frame_st_name() names them */
enum siw_mpa_frame_st {
	SIW_MPA_FRAME_MORE,	/* incomplete so far */
	SIW_MPA_FRAME_DONE,	/* complete and well formed */
	SIW_MPA_FRAME_EKEY,	/* the key is no MPA key */
	SIW_MPA_FRAME_EROLE,	/* the other role's key: peer in our role */
	SIW_MPA_FRAME_EREV,	/* Rev is neither 1 nor 2 */
	SIW_MPA_FRAME_EPDLEN,	/* PD_Length above 512 */
	SIW_MPA_FRAME_EENH,	/* S set and PD_Length below 4 */
	SIW_MPA_FRAME_ETRUNC,	/* the stream ended inside the frame */
	SIW_MPA_FRAME_NUM_ST,
};

/**
 * struct siw_mpa_frame_rx - incremental receiver of one frame
 * @frame: the frame, valid once SIW_MPA_FRAME_DONE was returned; its
 *	@pd points into @buf
 * @got: octets received
 * @need: octets the frame has (20 until the header is in)
 * @st: enum siw_mpa_frame_st
 * @want_reply: expect "MPA ID Rep Frame" (we are the initiator)
 * @buf: the frame as received
 *
 * Embedded by the caller; no field is for the caller to touch.
 */
struct siw_mpa_frame_rx {
	struct siw_mpa_frame frame;
	u16 got;
	u16 need;
	u8 st;
	bool want_reply;
	u8 buf[SIW_MPA_RR_LEN + SIW_MPA_PD_MAX];
};

/* Longest frame: header and the most private data */
#define SIW_MPA_FRAME_MAX	(SIW_MPA_RR_LEN + SIW_MPA_PD_MAX)

ssize_t siw_mpa_frame_build(const struct siw_mpa_frame *f, void *buf,
			    size_t size);
enum siw_mpa_frame_st siw_mpa_frame_decode(const void *buf, size_t len,
					   bool want_reply,
					   struct siw_mpa_frame *f);
void siw_mpa_frame_rx_init(struct siw_mpa_frame_rx *fr, bool want_reply);
size_t siw_mpa_frame_rx_feed(struct siw_mpa_frame_rx *fr, const void *buf,
			     size_t len, enum siw_mpa_frame_st *st);
enum siw_mpa_frame_st siw_mpa_frame_rx_eof(struct siw_mpa_frame_rx *fr);
const char *siw_mpa_frame_st_name(enum siw_mpa_frame_st st);
enum siw_mpa_err siw_mpa_frame_st_err(enum siw_mpa_frame_st st);

/* mpa_negotiate.c: connection setup rules */

/* Local CRC policy (RFC 5044 section 4.4) */
enum siw_mpa_crc_policy {
	SIW_MPA_CRC_REQUIRED,	/* send C = 1: CRCs always (the default) */
	SIW_MPA_CRC_ALLOWED,	/* send C = 0, use CRCs if the peer wants */
	SIW_MPA_CRC_OFF,	/* send C = 0, refuse a peer that wants CRCs */
};

/**
 * struct siw_mpa_policy - what the local side wants and can do
 * @crc: enum siw_mpa_crc_policy
 * @ird: the local endpoint's IRD. Initiator: sent in the request;
 *	responder: its IRD unless the initiator's ORD asks for more
 * @ird_max: the most IRD resources the endpoint can give (values below
 *	@ird count as @ird)
 * @ord: the local endpoint's ORD. Initiator: sent in the request;
 *	responder: the ORD it wants, cut to the initiator's IRD
 * @ord_min: responder: the ORD its ULP cannot do without; an initiator
 *	IRD below it gets the request rejected (RFC 6581 section 9.1)
 * @rev: highest MPA revision spoken, 1 or 2
 * @rtr: mask of SIW_MPA_RTR_F(): initiator: RTR indications it can
 *	send; responder: those it accepts
 * @markers: markers wanted in the FPDUs we receive (sent as M)
 * @p2p: initiator: ask for the peer-to-peer model (flag A)
 * @ird_ulp: initiator: send IRD 0x3FFF (no automatic negotiation)
 * @ord_ulp: initiator: send ORD 0x3FFF
 */
struct siw_mpa_policy {
	enum siw_mpa_crc_policy crc;
	u16 ird;
	u16 ird_max;
	u16 ord;
	u16 ord_min;
	u8 rev;
	u8 rtr;
	bool markers;
	bool p2p;
	bool ird_ulp;
	bool ord_ulp;
};

/* What the caller does next; siw_mpa_verdict_name() names them */
enum siw_mpa_verdict {
	SIW_MPA_ACCEPT,		/* full operation (responder: send reply) */
	SIW_MPA_REJECT,		/* responder: send the reply with R set;
				 * initiator: the peer rejected. MPA ends,
				 * TCP stays open for the ULP to decide
				 */
	SIW_MPA_TERMINATE,	/* initiator: send a Terminate with @term in
				 * full operation, then close
				 */
	SIW_MPA_CLOSE,		/* close TCP and leave MPA */
	SIW_MPA_NUM_VERDICTS,
};

/* Why; siw_mpa_reason_name() names them, for logs and traces */
enum siw_mpa_reason {
	SIW_MPA_WHY_OK,
	SIW_MPA_WHY_DOWNGRADE,		/* continues in rev 1 */
	SIW_MPA_WHY_PEER_REJECT,	/* the reply had R set */
	SIW_MPA_WHY_CRC_POLICY,		/* peer wants CRCs, policy is off */
	SIW_MPA_WHY_ORD_MIN,		/* initiator IRD below our ord_min */
	SIW_MPA_WHY_IRD,		/* responder ORD above our ird_max */
	SIW_MPA_WHY_MODEL,		/* flag A differs between the frames */
	SIW_MPA_WHY_NO_RTR,		/* no RTR type both sides support */
	SIW_MPA_WHY_ENH_UNASKED,	/* enhanced reply to a plain request */
	SIW_MPA_WHY_BAD_FRAME,		/* wrong frame for this role */
	SIW_MPA_NUM_REASONS,
};

/**
 * struct siw_mpa_conn - the outcome of connection setup
 * @verdict: enum siw_mpa_verdict
 * @term: Error Code for the Terminate (Layer 2, Type 0), SIW_MPA_OK
 *	if none is due
 * @reason: enum siw_mpa_reason
 * @ird: IRD to set on the local endpoint
 * @ord: ORD to set on the local endpoint
 * @peer_ird: the peer's IRD as received, for the ULP (0x3FFF if none)
 * @peer_ord: the peer's ORD as received, for the ULP (0x3FFF if none)
 * @rev: MPA revision in use (DDP reports it upwards)
 * @rtr: initiator: the RTR indication to send first, SIW_MPA_RTR_NONE
 *	if none
 * @rtr_accept: responder: mask of RTR indications the initiator may send
 * @crc: CRCs are generated and checked in both directions
 * @tx_markers: insert markers in what we send
 * @rx_markers: expect markers in what we receive
 * @enhanced: enhanced data was exchanged
 * @p2p: peer-to-peer model: the responder waits for the RTR indication
 */
struct siw_mpa_conn {
	enum siw_mpa_verdict verdict;
	enum siw_mpa_err term;
	enum siw_mpa_reason reason;
	u16 ird;
	u16 ord;
	u16 peer_ird;
	u16 peer_ord;
	u8 rev;
	u8 rtr;
	u8 rtr_accept;
	bool crc;
	bool tx_markers;
	bool rx_markers;
	bool enhanced;
	bool p2p;
};

void siw_mpa_policy_init(struct siw_mpa_policy *pol);
int siw_mpa_policy_check(const struct siw_mpa_policy *pol);
int siw_mpa_request(const struct siw_mpa_policy *pol,
		    struct siw_mpa_frame *req);
void siw_mpa_respond(const struct siw_mpa_policy *pol,
		     const struct siw_mpa_frame *req,
		     struct siw_mpa_frame *rep, struct siw_mpa_conn *c);
void siw_mpa_on_reply(const struct siw_mpa_policy *pol,
		      const struct siw_mpa_frame *req,
		      const struct siw_mpa_frame *rep, struct siw_mpa_conn *c);
const char *siw_mpa_verdict_name(enum siw_mpa_verdict v);
const char *siw_mpa_reason_name(enum siw_mpa_reason r);

#endif /* SIW_MPA_CONN_H */
