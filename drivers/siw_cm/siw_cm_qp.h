/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The contract between the connection manager and the QP layer.
 *
 * The CM sets a connection up on a TCP socket and hands the socket, with
 * the negotiated MPA settings, to the QP; from then on the QP's TX and
 * RX engines own the stream until the CM takes it back. The first group
 * of functions is provided by drivers/siw_qp and called by the CM; the
 * second is provided by the CM and called by the QP layer.
 *
 * Locking: the CM calls the QP functions with its endpoint mutex held,
 * from process context (a work item or the consumer's call). The QP
 * functions must not call back into the CM synchronously; the CM
 * functions of the second group never sleep and never take a QP lock,
 * they only queue work, so the QP layer may call them from any context
 * and under its own locks.
 *
 * See Documentation/cm.rst.
 */
#ifndef SIW_CM_QP_H
#define SIW_CM_QP_H

#include <linux/types.h>

#include "siw_mpa/siw_mpa_conn.h"

struct ib_qp;
struct socket;
struct siw_cep;

/* Provided by the QP layer */

/**
 * siw_qp_cm_attach() - give a QP its connected stream
 * @qp: the QP the consumer named in connect or accept (the CM holds a
 *	reference through the device's iw_add_ref)
 * @cep: the CM endpoint. On success the QP holds one reference on it
 *	and keeps @cep for the siw_cm_* callbacks below; it drops it
 *	with siw_cep_put() once it will make no more callbacks (at the
 *	latest after siw_qp_cm_detach()). On failure it keeps none.
 * @sock: the TCP socket. The CM has removed its own socket callbacks;
 *	the QP installs its own and must look at data already queued (the
 *	peer may have sent FPDUs right behind its MPA frame). The socket
 *	stays the CM's: the QP never releases it.
 * @conn: the negotiated settings: @conn->rev, @conn->crc,
 *	@conn->tx_markers and @conn->rx_markers (MPA full operation starts
 *	at stream offset 0 in both directions now), @conn->ird and
 *	@conn->ord (to apply to the QP), @conn->p2p and, for an initiator,
 *	@conn->rtr
 * @initiator: the QP's side sent the MPA Request
 *
 * The QP moves to RTR (receive enabled, nothing sent). A responder in
 * the peer-to-peer model (@conn->p2p, !@initiator) must send nothing at
 * all, not even a Read Response, until siw_qp_cm_rts(); its RX engine
 * reports the first FPDU with siw_cm_rtr_received(). A zero-length Send
 * RTR consumes no receive WQE and makes no completion.
 *
 * Context: process; the CM's endpoint mutex held.
 * Returns: 0, or -errno if the QP cannot take a stream (wrong state, or
 * already connected); the CM then aborts the connection.
 */
int siw_qp_cm_attach(struct ib_qp *qp, struct siw_cep *cep,
		     struct socket *sock, const struct siw_mpa_conn *conn,
		     bool initiator);

/**
 * siw_qp_cm_send_rtr() - initiator: send the RTR indication
 * @qp: an attached QP
 * @rtr: SIW_MPA_RTR_WRITE, _READ or _SEND: a zero-length RDMA Write,
 *	RDMA Read Request or Send, as the first FPDU on the stream, before
 *	any work request of the consumer (RFC 6581 section 5). Its STag
 *	is not 0 (some hardware refuses STag 0); a zero-length Read takes
 *	one of the peer's IRD slots and its response is consumed silently.
 *
 * Context: process; the CM's endpoint mutex held.
 * Returns: 0 once the message is queued first on the send queue.
 */
int siw_qp_cm_send_rtr(struct ib_qp *qp, enum siw_mpa_rtr rtr);

/**
 * siw_qp_cm_rts() - the QP may send: move it to RTS
 * @qp: an attached QP
 *
 * Context: process; the CM's endpoint mutex held.
 * Returns: 0, or -errno if the QP left RTR meanwhile.
 */
int siw_qp_cm_rts(struct ib_qp *qp);

/**
 * siw_qp_cm_terminate() - send a Terminate for an MPA error and stop
 * @qp: an attached QP
 * @code: Error Code, with Layer 2 (LLP) and Error Type 0 (MPA): 5
 *	(local catastrophic), 6 (insufficient IRD) or 7 (no matching RTR)
 *	per RFC 6581 section 8
 *
 * The Terminate is framed with the negotiated CRC and markers and is
 * the last FPDU; the QP moves to TERMINATE/ERROR. The CM detaches and
 * closes right after.
 *
 * Context: process; the CM's endpoint mutex held.
 */
void siw_qp_cm_terminate(struct ib_qp *qp, enum siw_mpa_err code);

/**
 * siw_qp_cm_detach() - take the stream back from the QP
 * @qp: an attached QP
 *
 * The QP restores the socket's callbacks, stops touching the socket
 * before returning, and moves to ERROR (flushing its work requests) if
 * it is not there yet. The CM then releases the socket.
 *
 * Context: process; the CM's endpoint mutex held. May sleep.
 */
void siw_qp_cm_detach(struct ib_qp *qp);

/* Provided by the CM, for the QP layer */

/**
 * siw_cm_llp_closed() - the QP's stream ended
 * @cep: from siw_qp_cm_attach()
 * @err: 0 for the peer's FIN, -errno for a reset or a socket error, or
 *	-EPROTO for a Terminate received or sent by the QP on its own
 *
 * Context: any.
 */
void siw_cm_llp_closed(struct siw_cep *cep, int err);

/**
 * siw_cm_qp_disconnect() - the consumer moved the QP out of RTS
 * @cep: from siw_qp_cm_attach()
 * @abrupt: false for a graceful close (iw_cm's modify to SQD/CLOSING:
 *	FIN, then wait for the peer's), true for ERROR (reset)
 *
 * Context: any.
 */
void siw_cm_qp_disconnect(struct siw_cep *cep, bool abrupt);

/**
 * siw_cm_rtr_received() - responder: the first FPDU of a peer-to-peer
 *	connection arrived
 * @cep: from siw_qp_cm_attach()
 * @rtr: which zero-length message it was, SIW_MPA_RTR_NONE for any other
 *	FPDU. The QP places nothing of it and waits for siw_qp_cm_rts() or
 *	siw_qp_cm_terminate().
 *
 * Context: any.
 */
void siw_cm_rtr_received(struct siw_cep *cep, enum siw_mpa_rtr rtr);

/**
 * siw_cep_put() - drop the QP's reference on a CM endpoint
 * @cep: from siw_qp_cm_attach()
 *
 * Context: any.
 */
void siw_cep_put(struct siw_cep *cep);

#endif /* SIW_CM_QP_H */
