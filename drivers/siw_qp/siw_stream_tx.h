/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The transmit side's own interface among its files, over the transmit
 * fields of struct siw_stream (siw_stream.h):
 * - siw_stream_tx.c: the push loop: the TX work and a doorbell's run,
 *   batches of FPDUs cut by the engine and pushed to TCP, the
 *   teardown's last Terminate;
 * - siw_stream_tx_msg.c: message start: what to send next, its payload
 *   checked and described, handed to the transmit engine;
 * - siw_stream_tx_small.c: a small Send or Write framed whole at its
 *   start, its payload copied and checked in one pass;
 * - siw_stream_tx_stage.c: the stage ring, the stream's pages staged
 *   FPDUs go to TCP in;
 * - siw_stream_tx_done.c: retire and completion: how each send work
 *   request ended, and its completion, in order.
 *
 * The stream's transmit functions are siw_stx_*; siw_tx_* are the
 * transmit engine's own (siw_fpdu_tx.c).
 */
#ifndef SIW_STREAM_TX_H
#define SIW_STREAM_TX_H

#include <net/tcp.h>

#include "siw_stream.h"

/*
 * RFC 5044 section 5.1: a transmitter SHOULD size FPDUs to the EMSS (the
 * MULPDU of section 4.5), so that each TCP segment starts with one and a
 * receiver can place every segment as it comes
 */
/* The EMSS this stream's FPDUs are sized to now (siw_mpa_mulpdu()) */
static inline u32 siw_stx_fpdu_room(const struct siw_stream *s)
{
	return READ_ONCE(tcp_sk(s->sock->sk)->mss_cache);
}

/* Room a staged FPDU may take */
static inline u32 siw_stx_stage_need(const struct siw_stream *s)
{
	return siw_stx_fpdu_room(s);
}

/* siw_stream_tx_stage.c */
#if IS_ENABLED(CONFIG_KUNIT)
/* a KUnit hook; kernels without KUnit have none */
unsigned int siw_stx_stage_ring_swap(unsigned int n);
#endif
struct siw_engine_stage *siw_stx_stage_start(struct siw_stream *s);
void siw_stx_stage_put(struct siw_stream *s);

/* siw_stream_tx_msg.c */
void siw_stx_put_msg(struct siw_stream *s);
int siw_stx_start(struct siw_stream *s);
bool siw_stx_zc_ok(const struct siw_stream *s, u32 len);
int siw_stx_rresp_revoked(struct siw_stream *s);
bool siw_stx_orq_full(struct siw_stream *s);

/* siw_stream_tx_small.c */
int siw_stx_small(struct siw_stream *s, const struct siw_engine_msg *msg);

/* siw_stream_tx_done.c */
void siw_stx_wqe_done(struct siw_stream *s, enum ib_wc_status status);
bool siw_stx_retire(struct siw_stream *s);
void siw_stx_term_sent(struct siw_stream *s);
void siw_stx_msg_sent(struct siw_stream *s);

#endif /* SIW_STREAM_TX_H */
