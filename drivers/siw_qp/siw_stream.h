/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A QP's connected stream: the state that joins the protocol core of
 * siw_engine.h to a kernel TCP socket, the send queue and the receive
 * queue. siw_stream.c takes the socket from the CM and gives it back;
 * siw_stream_tx.c and the files of siw_stream_tx.h turn work requests,
 * Read Responses and Terminates into FPDUs on the socket; siw_stream_rx.c
 * places what arrives and completes it.
 *
 * Who runs where:
 * - transmit runs under @tx_mutex: in the QP's TX work item, or in the
 *   thread of a process that rang its QP's doorbell while the stream
 *   was idle (siw_qp_sq_send()); the transmit fields below are
 *   protected by it; a kernel consumer's post, the receive path and the
 *   socket's write-space callback only queue the work;
 * - receive runs under the socket's lock: from the socket's data-ready
 *   or state-change callback (softirq, bh_lock_sock), or from process
 *   context with lock_sock() (the receive work, attach); the receive
 *   fields and @rx_deferred are protected by it;
 * - @lock protects what both sides share: the inbound and outbound read
 *   queues, the send queue's completion records of READs in flight (the
 *   receive path completes those; every other record is transmit's
 *   alone) and the stop flags. Transmit may look at a shared field
 *   without it where whoever changes the field queues the work after,
 *   so that a stale answer is corrected by the next run. The receive
 *   path queues a Read Request and kicks the transmit work under it
 *   (siw_stream_kick_locked()), so that the teardown's @torn, set under
 *   it, is seen by each (siw_stream_stop()).
 */
#ifndef SIW_STREAM_H
#define SIW_STREAM_H

#include <linux/bvec.h>
#include <linux/cpumask.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <net/sock.h>

#include "siw_cm/siw_cm_qp.h"
#include "siw_engine/siw_engine.h"
#include "siw_qp.h"

struct siw_mr;
struct siw_zc_hub;

/* STag of the zero-length RTR messages: any value but 0 (RFC 6581 9.2) */
#define SIW_RTR_STAG		0x100

/* Payload segments a QP starts with (1 MiB of 4 KiB pages and spare) */
#define SIW_TX_SEGS		272

/*
 * FPDUs of one message cut ahead and handed to TCP together (one
 * sendmsg for their copied octets): at most SIW_TX_BATCH_FPDUS, in at
 * most SIW_TX_BATCH_PIECES pieces, their framing octets (all but the
 * last FPDU's) in SIW_TX_FRAME_OCTETS
 */
#define SIW_TX_BATCH_FPDUS	48
#define SIW_TX_BATCH_PIECES	(4 * SIW_ENGINE_TX_PIECES)
#define SIW_TX_FRAME_OCTETS	1024

/*
 * Order of the pages FPDUs are staged in, and how many such allocations
 * a stream may keep for reuse (siw_stx_stage_start())
 */
#define SIW_TX_STAGE_ORDER	4
#define SIW_TX_STAGE_RING	8

/**
 * struct siw_orq_entry - one outbound Read Request awaiting its response
 * @sink_stag: the local STag the response must target
 * @sink_to: the Tagged Offset the next response octet must go to
 * @left: response octets still expected
 * @wqe_seq: send queue sequence number of the READ work request
 * @last: the work request's last Read Request
 * @rtr: the zero-length Read of the RTR: no work request
 */
struct siw_orq_entry {
	u32 sink_stag;
	u64 sink_to;
	u32 left;
	u32 wqe_seq;
	bool last;
	bool rtr;
};

/**
 * struct siw_irq_entry - one inbound Read Request awaiting its response
 * @rr: the request
 * @mr: the source region, referenced (NULL for a zero-length Read)
 * @gen: @mr's change count when the request was checked
 */
struct siw_irq_entry {
	struct siw_rdmap_rreq rr;
	struct siw_mr *mr;
	u64 gen;
};

/**
 * struct siw_sq_rec - how a send work request ended, until it is retired
 * @done: transmitted (or, for a READ, answered) and ready to complete
 * @status: its completion status
 * @bytes: octets it moved
 * @inval: READ_LOCAL_INV: invalidate @inval_stag before completing
 * @inval_stag: the local STag
 * @zc: its payload went to TCP by reference and an skb may still hold
 *	its pages: it completes only once the kernel released them
 *	(siw_stream_zc.c), so that its buffer may be reused
 */
struct siw_sq_rec {
	bool done;
	u8 status;
	bool inval;
	bool zc;
	u32 bytes;
	u32 inval_stag;
};

/* What the transmit side is sending */
enum siw_tx_kind {
	SIW_TX_IDLE,
	SIW_TX_WQE,		/* a send work request */
	SIW_TX_RRESP,		/* a Read Response */
	SIW_TX_TERM,		/* the Terminate */
	SIW_TX_RTR,		/* the zero-length RTR message */
};

/**
 * struct siw_stream - a QP's connected stream
 * @qp: the QP
 * @cep: the CM endpoint, referenced
 * @sock: the socket (the CM's; never released here)
 * @conn: the negotiated MPA settings
 * @initiator: our side sent the MPA Request
 * @saved_data_ready: the socket's callback before ours
 * @saved_write_space: likewise
 * @saved_state_change: likewise
 * @tx_work: the transmit work item
 * @rx_work: the receive work item (module parameter rx_poll_us)
 * @rx_deferred: the receive work owns reception: the data-ready callback
 *	leaves the socket to it
 * @tx_mutex: held by whoever transmits (see the file comment)
 * @rcu: the stream is freed after a grace period (siw_stx_direct())
 * @lock: see the file comment
 * @stopped: no new message starts; set once the QP left RTR/RTS or the
 *	stream failed (the Terminate of a failure is still sent)
 * @torn: the stream is torn down (siw_stream_stop()): nothing is queued
 *	on the inbound read queue and the transmit work is not kicked any
 *	more
 * @closed_told: the CM was told the stream ended
 * @term_pending: a Terminate is to be sent, then nothing more
 * @rtr_pending: the initiator's RTR is to be sent first
 * @rtr: which one
 * @term_err: what the Terminate reports
 * @term_seg: the offending segment's first octets
 * @term_seg_len: octets at @term_seg
 * @term_ulpdu_len: its MPA ULPDU Length, if known
 * @term_len_valid: @term_ulpdu_len is known
 * @orq: outbound Read Requests in flight, @ord entries
 * @orq_get: oldest in flight
 * @orq_put: next free
 * @ord: negotiated ORD (at least 1)
 * @irq: inbound Read Requests to answer, @ird entries
 * @irq_get: oldest
 * @irq_put: next free
 * @ird: negotiated IRD (at least 1)
 * @sq_rec: completion records, one per send queue entry
 * @sq_mask: send queue size - 1
 * @sq_head: sequence number of the oldest work request not retired
 * @sq_next: sequence number of the next work request to start
 * @tx: the transmit engine
 * @tx_kind: enum siw_tx_kind of the message in progress
 * @txd: the FPDU being sent
 * @tx_off: octets of @txd already sent
 * @tx_fpdu: @txd holds an FPDU not yet fully sent
 * @tx_zc: the message in progress may hand its payload pages to TCP
 *	by reference
 * @tx_ubuf: the notification its pages go with (siw_zc_start()), the
 *	stream's reference
 * @zc_hub: what the notifications of this stream's messages share
 * @tx_blocked: the socket's send buffer was full; write space resumes
 * @tx_more: the message whose last FPDU is being pushed has a short one
 *	behind it in this run that fits its segment: TCP holds the part
 *	segment for it (MSG_MORE; siw_stx_pack_fits())
 * @tx_corked: the last push was such a one: push before the run ends
 * @tx_pack_octets: octets pushed with MSG_MORE since the last push
 *	without
 * @wqe_next: scratch copy of the work request behind @wqe
 * @tx_term_err: the error the Terminate in progress reports
 * @wqe: the send work request in progress (a copy)
 * @wqe_seq: its sequence number
 * @wqe_bytes: its message length
 * @rd_sge: READ: the next SGE to request
 * @rd_off: READ: octets requested so far
 * @rresp: the inbound Read Request being answered
 * @tx_mr: regions the message in progress references
 * @tx_nmr: entries in @tx_mr
 * @seg: the payload of the message in progress (kvmalloc'd, grown as
 *	messages need)
 * @seg_max: entries at @seg
 * @seg_page: the pages of @seg the stream holds a reference on
 * @seg_refs: entries at @seg_page
 * @tx_nfpdu: FPDUs in @txd (siw_stx_run() cuts a batch of them)
 * @tx_cut_err: a batch ended on this error of the engine: the message
 *	fails once the FPDUs cut before it are sent
 * @tx_frame_used: octets used at @tx_frame
 * @piece: the pieces of @txd
 * @tx_bv: @piece as TCP takes it, for one sendmsg
 * @tx_frame: framing octets of a batch's FPDUs but the last (the engine
 *	reuses its own buffer for each FPDU)
 * @stage_pg: the stream's stage allocations (compound pages), each
 *	with the stream's reference, or NULL; used in turn
 * @stage_at: the entry of @stage_pg FPDUs are staged in now
 * @stage: what of @stage_pg[@stage_at] holds FPDUs
 * @rx: the receive engine
 * @rx_wqe: the receive work request bound to the Send arriving
 * @rx_mr: regions of @rx_wqe's SGEs, referenced
 * @rx_gen: their change counts when they were checked
 * @rx_bound: @rx_wqe is bound
 * @rx_rtr_wait: responder of a peer-to-peer connection: the first FPDU
 *	is the RTR and is reported to the CM, never placed
 * @rx_zero_rtr: the Send being received is the zero-length RTR
 * @rx_revoked: a copy into the bound receive's buffer was refused (its
 *	region was revoked under it); the receive fails when the engine
 *	stops at the end of the FPDU
 * @term_from_cm: the CM asked for the Terminate and closes by itself
 */
struct siw_stream {
	struct siw_qp *qp;
	struct siw_cep *cep;
	struct socket *sock;
	struct siw_mpa_conn conn;
	bool initiator;
	void (*saved_data_ready)(struct sock *sk);
	void (*saved_write_space)(struct sock *sk);
	void (*saved_state_change)(struct sock *sk);
	struct work_struct tx_work;
	struct work_struct rx_work;
	bool rx_deferred;
	struct mutex tx_mutex;	/* see the file comment */
	u32 tx_pack_octets;
	struct siw_wqe wqe_next;
	struct rcu_head rcu;

	spinlock_t lock;	/* see the file comment */
	bool stopped;
	bool torn;
	bool closed_told;
	bool term_pending;
	bool rtr_pending;
	u8 rtr;
	enum siw_ddp_err term_err;
	u8 term_seg[SIW_DDP_UNTAGGED_HLEN + SIW_RDMAP_RREQ_LEN];
	u8 term_seg_len;
	u16 term_ulpdu_len;
	bool term_len_valid;
	struct siw_orq_entry *orq;
	u32 orq_get;
	u32 orq_put;
	u32 ord;
	struct siw_irq_entry *irq;
	u32 irq_get;
	u32 irq_put;
	u32 ird;
	struct siw_sq_rec *sq_rec;
	u32 sq_mask;
	u32 sq_head;
	u32 sq_next;

	/* transmit: the TX work item only */
	struct siw_engine_tx tx;
	u8 tx_kind;
	struct siw_engine_txd txd;
	u32 tx_off;
	bool tx_fpdu;
	bool tx_zc;
	struct ubuf_info *tx_ubuf;
	struct siw_zc_hub *zc_hub;
	bool tx_blocked;
	bool tx_more;
	bool tx_corked;
	enum siw_ddp_err tx_term_err;
	struct siw_wqe wqe;
	u32 wqe_seq;
	u32 wqe_bytes;
	u32 rd_sge;
	u32 rd_off;
	struct siw_irq_entry rresp;
	struct siw_mr *tx_mr[SIW_DEV_MAX_SGE];
	u32 tx_nmr;
	struct siw_engine_seg *seg;
	u32 seg_max;
	struct page **seg_page;
	u32 seg_refs;
	u32 tx_nfpdu;
	int tx_cut_err;
	u32 tx_frame_used;
	struct siw_engine_seg piece[SIW_TX_BATCH_PIECES];
	struct bio_vec tx_bv[SIW_TX_BATCH_PIECES];
	u8 tx_frame[SIW_TX_FRAME_OCTETS];
	struct page *stage_pg[SIW_TX_STAGE_RING];
	u32 stage_at;
	struct siw_engine_stage stage;

	/* receive: under the socket's lock */
	struct siw_engine_rx rx;
	struct siw_wqe rx_wqe;
	struct siw_mr *rx_mr[SIW_DEV_MAX_SGE];
	u64 rx_gen[SIW_DEV_MAX_SGE];
	bool rx_bound;
	bool rx_rtr_wait;
	bool rx_zero_rtr;
	bool rx_revoked;
	bool term_from_cm;
};

/*
 * The receive side runs under the socket's lock: its spinlock in
 * softirq (bh_lock_sock), its owner in process context (lock_sock())
 */
static inline void siw_assert_sock_locked(const struct sock *sk)
{
	lockdep_assert(lockdep_sock_is_held(sk));
}

/**
 * siw_stream_stopped() - may no new message start?
 * @s: the stream
 *
 * Context: any.
 * Returns: true once the QP left RTR/RTS or the stream failed.
 */
static inline bool siw_stream_stopped(struct siw_stream *s)
{
	return READ_ONCE(s->stopped);
}

/* siw_stream.c */
void siw_stream_kick(struct siw_stream *s);
void siw_stream_kick_locked(struct siw_stream *s);
void siw_stream_fail(struct siw_stream *s, enum siw_ddp_err err,
		     const struct siw_rdmap_term_info *ti);
void siw_stream_closed(struct siw_stream *s, int err);

/* siw_stream_tx.c */
void siw_stx_work(struct work_struct *w);
void siw_stx_direct(struct siw_stream *s);
void siw_sk_write_space(struct sock *sk);
void siw_stx_release(struct siw_stream *s);
void siw_stx_flush_term(struct siw_stream *s);

/* siw_stream_tx_done.c */
void siw_stream_read_done(struct siw_stream *s, u32 wqe_seq, bool ok);

/* siw_stream_zc.c */
int siw_zc_hub_init(struct siw_stream *s);
void siw_zc_hub_detach(struct siw_stream *s);
bool siw_zc_copied(const struct siw_stream *s);
struct ubuf_info *siw_zc_start(struct siw_stream *s, u32 wqe_seq);
void siw_zc_end(struct ubuf_info *u);
void siw_zc_exit(void);

/* siw_stream_rx.c */
extern const struct siw_engine_rx_ops siw_srx_ops;
#if IS_ENABLED(CONFIG_KUNIT)
/* a KUnit hook in siw_srx_read_req(); kernels without KUnit have none */
void siw_srx_read_req_hook_set(void (*hook)(struct siw_stream *s));
#endif
void siw_srx_start(struct siw_stream *s);
void siw_srx_read_sock(struct siw_stream *s);
unsigned int siw_srx_pick_cpu(const struct cpumask *a, const struct cpumask *b,
			      unsigned int here, u32 key);
void siw_srx_release(struct siw_stream *s);
int siw_srx_init(void);
void siw_srx_exit(void);
void siw_sk_data_ready(struct sock *sk);
void siw_sk_state_change(struct sock *sk);
void siw_srx_work(struct work_struct *w);
void siw_srx_poll(struct siw_stream *s);

#endif /* SIW_STREAM_H */
