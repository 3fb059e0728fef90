/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The protocol core of the data path: outbound RDMAP messages cut into
 * framed DDP segments (siw_fpdu_tx.c) and inbound MPA events turned into
 * validated placements, deliveries and completions (siw_fpdu_rx.c).
 *
 * Neither half knows sockets, QPs or work requests. The transmit half
 * describes each FPDU as a short array of pieces for the caller to hand
 * to TCP; the receive half calls back into the caller through a small
 * ops table to find buffers and to copy payload. All state lives in
 * structures the caller embeds; nothing allocates, sleeps or takes a
 * lock, so both halves may run in softirq context. The caller
 * serialises each state object (e.g. the QP's send or receive lock).
 *
 * See Documentation/datapath.rst.
 */
#ifndef SIW_ENGINE_H
#define SIW_ENGINE_H

#include <linux/types.h>

#include "siw_ddp/siw_ddp.h"
#include "siw_mpa/siw_mpa.h"

struct page;
struct sk_buff;

/* Where the octets of a segment or of an FPDU piece live */
enum siw_engine_seg_kind {
	SIW_ENGINE_SEG_KVA,	/* caller's kernel virtual range at @addr */
	SIW_ENGINE_SEG_PAGE,	/* caller's page(s): @page, @off, @len */
	SIW_ENGINE_SEG_OWN,	/* output only: framing octets the engine
				 * owns, valid until the next FPDU; never
				 * splice them, copy them
				 */
	SIW_ENGINE_SEG_STAGED,	/* output only: octets the engine copied
				 * into the caller's stage, at @addr
				 */
};

/**
 * struct siw_engine_seg - a run of payload octets, or a piece of an FPDU
 * @addr: SIW_ENGINE_SEG_KVA and SIW_ENGINE_SEG_OWN: the first octet
 * @page: SIW_ENGINE_SEG_PAGE: the first page; @off may run past it into
 *	the pages that follow it (siw_nth_page())
 * @off: SIW_ENGINE_SEG_PAGE: offset from the start of @page
 * @len: octets
 * @kind: enum siw_engine_seg_kind
 *
 * As output of the transmit engine a SIW_ENGINE_SEG_PAGE piece never
 * crosses a page boundary (@off < PAGE_SIZE).
 */
struct siw_engine_seg {
	union {
		const void *addr;
		struct page *page;
	};
	u32 off;
	u32 len;
	u8 kind;
};

/**
 * struct siw_engine_sgl - the payload of one message
 * @seg: the segments, in order; segments of length 0 are skipped
 * @nseg: entries at @seg
 */
struct siw_engine_sgl {
	const struct siw_engine_seg *seg;
	u32 nseg;
};

/* Transmit */

/* Pieces an FPDU may take: pass at least SIW_ENGINE_TX_PIECES_MIN */
#define SIW_ENGINE_TX_PIECES_MIN	16
#define SIW_ENGINE_TX_PIECES		32

/**
 * struct siw_engine_msg - one outbound RDMAP message
 * @opcode: enum siw_rdmap_opcode, one siw supports
 * @stag: tagged (Write, Read Response): the sink STag
 * @to: tagged: the Tagged Offset of the first payload octet
 * @inval_stag: Send with Invalidate: the STag the peer invalidates
 * @rreq: Read Request: its header (the message has no other payload)
 * @term: Terminate: what to report (the message has no other payload)
 * @sgl: the payload (Write, Read Response, the Sends)
 *
 * The MSN of an untagged message is the engine's: it counts the
 * messages sent on each queue from 1.
 */
struct siw_engine_msg {
	u8 opcode;
	u32 stag;
	u64 to;
	u32 inval_stag;
	const struct siw_rdmap_rreq *rreq;
	const struct siw_rdmap_term_info *term;
	struct siw_engine_sgl sgl;
};

/**
 * struct siw_engine_stage - caller's buffer an FPDU may be copied into
 * @buf: its first octet, kernel memory that stays mapped
 * @used: octets at @buf holding FPDUs already
 * @size: octets at @buf
 *
 * The next FPDU goes at @buf + @used, right after the last one.
 */
struct siw_engine_stage {
	u8 *buf;
	u32 used;
	u32 size;
};

/**
 * struct siw_engine_txd - one FPDU to send, as siw_engine_tx_next() made it
 * @piece: caller's array the pieces go to
 * @max: entries at @piece, at least SIW_ENGINE_TX_PIECES_MIN
 * @stage: set by the caller, or NULL: if the whole FPDU fits the room
 *	left in it, the engine copies the FPDU there, CRC computed in the
 *	same pass as the payload's copy, and hands it out as one
 *	SIW_ENGINE_SEG_STAGED piece
 * @n: pieces filled, in stream order
 * @wire_len: stream octets in the pieces (markers included)
 * @payload: message payload octets carried
 * @last: the message's last segment (L bit): once it is sent, the
 *	message is
 */
struct siw_engine_txd {
	struct siw_engine_seg *piece;
	unsigned int max;
	struct siw_engine_stage *stage;
	unsigned int n;
	u32 wire_len;
	u32 payload;
	bool last;
};

/**
 * struct siw_engine_tx - the transmit direction of one stream
 * @mpa: MPA framing state of the direction
 * @fpdu: the FPDU being framed; its octets back the framing pieces
 * @ddp: header of the next DDP segment (host order)
 * @cur: payload of the message in progress
 * @seg_i: segment of @cur the next payload octet is in
 * @seg_off: offset in that segment
 * @left: payload octets not yet framed
 * @mulpdu: largest ULPDU to frame
 * @msn: next MSN of each untagged queue
 * @fixed_len: octets of @hdr beyond the DDP header that form the whole
 *	payload (Read Request, Terminate); 0 for other opcodes
 * @hdr_len: octets of @hdr in the current segment
 * @busy: a message is in progress
 * @stage: the stage the current FPDU is copied into, or NULL
 * @crc_reads: payload octets read for the CRC alone, apart from any copy
 *	(a second pass over them when TCP copies them too); for tests
 * @hdr: DDP/RDMAP header of the current segment, with the Read Request
 *	or Terminate payload after it
 *
 * Embedded by the caller and serialised by it (the QP's send lock); no
 * field is for the caller to touch.
 */
struct siw_engine_tx {
	struct siw_mpa_tx mpa;
	struct siw_mpa_fpdu fpdu;
	struct siw_ddp_hdr ddp;
	struct siw_engine_sgl cur;
	u32 seg_i;
	u32 seg_off;
	u32 left;
	u32 mulpdu;
	u32 msn[SIW_DDP_NUM_QN];
	u16 fixed_len;
	u16 hdr_len;
	bool busy;
	struct siw_engine_stage *stage;
	u64 crc_reads;
	u8 hdr[SIW_RDMAP_TERM_MAX_MSG];
};

/**
 * struct siw_engine_flat - a small message framed whole into one buffer
 * @buf: set by the caller: where the FPDU goes
 * @size: set by the caller: octets of room at @buf
 * @len: set by the caller: payload octets
 * @payload: set by the engine: where the caller writes the payload
 * @crc: set by the engine: the CRC32c state the caller feeds the
 *	payload into as it copies it, NULL with CRCs off
 */
struct siw_engine_flat {
	u8 *buf;
	u32 size;
	u32 len;
	u8 *payload;
	u32 *crc;
};

void siw_engine_tx_init(struct siw_engine_tx *tx, bool markers, bool crc,
			u32 emss);
void siw_engine_tx_set_emss(struct siw_engine_tx *tx, u32 emss);
int siw_engine_tx_msg(struct siw_engine_tx *tx,
		      const struct siw_engine_msg *msg);
int siw_engine_tx_next(struct siw_engine_tx *tx, struct siw_engine_txd *d);
int siw_engine_tx_flat_begin(struct siw_engine_tx *tx,
			     const struct siw_engine_msg *msg,
			     struct siw_engine_flat *fl);
int siw_engine_tx_flat_end(struct siw_engine_tx *tx,
			   struct siw_engine_flat *fl);
bool siw_engine_tx_busy(const struct siw_engine_tx *tx);
void siw_engine_tx_abort(struct siw_engine_tx *tx);
u32 siw_engine_sgl_len(const struct siw_engine_sgl *sgl);

/* Receive */

/**
 * struct siw_engine_rx_msg - a received message, complete and verified
 * @hdr: header of its last segment
 * @len: Sends: the message length (MO + payload of the last segment);
 *	tagged messages: payload octets of all its segments
 * @inval: Send with Invalidate: the region @hdr->inval_stag names,
 *	checked (valid, same PD, remotely invalidatable); the reference is
 *	dropped after the callback returns
 */
struct siw_engine_rx_msg {
	const struct siw_ddp_hdr *hdr;
	u32 len;
	const struct siw_ddp_region *inval;
};

/**
 * struct siw_engine_rx_ops - what the receive engine asks of the QP layer
 * @recv_buf: the first segment of Send message @h->msn arrived: bind the
 *	receive buffer (the head receive WQE) to it and give its length in
 *	@len. Returns 0, or a negative errno if no buffer is posted.
 * @recv_place: copy @len octets at @data into the bound buffer at
 *	message offset @mo; [@mo, @mo + @len) was checked against its
 *	length. If @crc is not NULL, feed the octets into that CRC state
 *	in the same pass (siw_mpa_crc_copy()); after an error its value
 *	does not matter. Returns SIW_DDP_OK or the error to report (a
 *	local fault).
 * @tagged_place: copy @len octets at @data to Tagged Offset @to of
 *	region @r, which siw_ddp_stag_again() checked for the whole
 *	segment; @crc as for @recv_place. Returns SIW_DDP_OK or the error
 *	to report.
 * @tagged_once: optional; an RDMA Write in one segment, whose payload
 *	(@len octets at @data, at least one) lies whole in one run and no
 *	region of an earlier segment is held: check @req as
 *	siw_ddp_stag_resolve() would and place the payload as
 *	@tagged_place would, in one call that holds nothing afterwards;
 *	@crc as for @recv_place. Returns SIW_DDP_OK or the error to report;
 *	nothing is placed when the check fails.
 * @read_resp: optional; a Read Response segment with header @h and
 *	@len payload octets begins: does it answer an outstanding Read
 *	Request? Returns SIW_DDP_OK or the error to report
 *	(SIW_DDP_ERR_RDMAP_OPCODE if no Read is outstanding).
 * @read_req: a Read Request arrived and its CRC checked; its source was
 *	checked as @src (zeroed for a zero-length Read); take a reference
 *	on @src->obj to keep it. Returns SIW_DDP_OK or the error to report.
 * @terminate: the peer sent a Terminate, parsed into @rep; the stream
 *	stops after this callback.
 * @msg_done: the last segment of a message arrived and its CRC checked.
 *
 * Every callback runs in the receive engine's context (softirq) with
 * the caller's receive lock held, and must not sleep.
 */
struct siw_engine_rx_ops {
	int (*recv_buf)(void *ctx, const struct siw_ddp_hdr *h, u32 *len);
	enum siw_ddp_err (*recv_place)(void *ctx, const struct siw_ddp_hdr *h,
				       u32 mo, const void *data, u32 len,
				       u32 *crc);
	enum siw_ddp_err (*tagged_place)(void *ctx,
					 const struct siw_ddp_region *r,
					 u64 to, const void *data, u32 len,
					 u32 *crc);
	enum siw_ddp_err (*tagged_once)(void *ctx,
					const struct siw_ddp_stag_req *req,
					const void *data, u32 len, u32 *crc);
	enum siw_ddp_err (*read_resp)(void *ctx, const struct siw_ddp_hdr *h,
				      u32 len);
	enum siw_ddp_err (*read_req)(void *ctx, const struct siw_rdmap_rreq *rr,
				     const struct siw_ddp_region *src);
	void (*terminate)(void *ctx, const struct siw_rdmap_term_report *rep);
	void (*msg_done)(void *ctx, const struct siw_engine_rx_msg *m);
};

/* Receive states; siw_engine_rx_stage_name() names them */
enum siw_engine_rx_stage {
	SIW_ENGINE_RXS_HDR,	/* gathering a DDP/RDMAP header */
	SIW_ENGINE_RXS_PLACE,	/* placing payload */
	SIW_ENGINE_RXS_GATHER,	/* gathering a Read Request or Terminate */
	SIW_ENGINE_RXS_DRAIN,	/* error found: consume to the FPDU's end */
	SIW_ENGINE_RXS_STOPPED,	/* error reported or Terminate received */
	SIW_ENGINE_RX_NUM_STAGES,
};

/* Octets of a segment the receive engine keeps: header and small payload */
#define SIW_ENGINE_RX_KEEP	SIW_RDMAP_TERM_MAX_MSG

/**
 * struct siw_engine_rx - the receive direction of one stream
 * @mpa: MPA deframing state of the direction
 * @ops: the QP layer's callbacks
 * @ctx: passed to @ops
 * @mem: the memory layer, for STag lookups
 * @pd: protection domain of the QP, compared with the regions'
 * @uq: receive state of the three untagged queues
 * @h: header of the current segment, once decoded
 * @region: tagged message: the sink, referenced until its last segment
 *	ends (the next segment reuses it while unchanged); Send with
 *	Invalidate: the STag to invalidate, until the message ends
 * @ulpdu_len: MPA ULPDU Length of the current segment
 * @payload: payload octets of the current segment
 * @done: payload octets of the current segment consumed
 * @msg_len: tagged message: payload octets of its segments so far
 * @err: the error found, SIW_DDP_OK if none
 * @got: octets of the current segment in @keep
 * @need: octets of it @keep must hold before the next step
 * @stage: enum siw_engine_rx_stage
 * @buf_bound: the QN 0 message @uq[0].msn has a receive buffer
 * @tagged_open: a tagged message has begun and its last segment has not
 *	arrived (its segments may all have been empty so far)
 * @peer_term: the stream stopped on a Terminate from the peer, or on an
 *	error in one: no Terminate is to be answered
 * @fpdus: FPDUs whose CRC checked, since siw_engine_rx_init(); the
 *	caller may read it (for its counters) but not write it
 * @fast: FPDUs taken whole in one step, checked or not (KUnit only)
 * @keep: the first octets of the current segment
 *
 * Embedded by the caller and serialised by it (the QP's receive lock);
 * no field is for the caller to touch.
 */
struct siw_engine_rx {
	struct siw_mpa_rx mpa;
	const struct siw_engine_rx_ops *ops;
	void *ctx;
	struct siw_ddp_mem mem;
	const void *pd;
	struct siw_ddp_uq uq[SIW_DDP_NUM_QN];
	struct siw_ddp_hdr h;
	struct siw_ddp_region region;
	u32 ulpdu_len;
	u32 payload;
	u32 done;
	u32 msg_len;
	enum siw_ddp_err err;
	u8 got;
	u8 need;
	u8 stage;
	bool buf_bound;
	bool tagged_open;
	bool peer_term;
	u32 fpdus;
#if IS_ENABLED(CONFIG_KUNIT)
	u32 fast;
#endif
	u8 keep[SIW_ENGINE_RX_KEEP];
};

/**
 * struct siw_engine_rx_cfg - how a stream's receive direction works
 * @ops: the QP layer's callbacks
 * @ctx: passed to @ops
 * @mem: the memory layer
 * @pd: the QP's protection domain identity
 * @ird: negotiated inbound Read queue depth
 * @markers: the peer inserts markers
 * @crc: CRCs are on
 */
struct siw_engine_rx_cfg {
	const struct siw_engine_rx_ops *ops;
	void *ctx;
	struct siw_ddp_mem mem;
	const void *pd;
	u32 ird;
	bool markers;
	bool crc;
};

void siw_engine_rx_init(struct siw_engine_rx *rx,
			const struct siw_engine_rx_cfg *cfg);
#if IS_ENABLED(CONFIG_KUNIT)
/* for the tests: the engine fed events or a linear buffer */
int siw_engine_rx_event(struct siw_engine_rx *rx,
			const struct siw_mpa_rx_ev *ev);
size_t siw_engine_rx_feed(struct siw_engine_rx *rx, const void *buf,
			  size_t len);
#endif
unsigned int siw_engine_rx_skb(struct siw_engine_rx *rx, struct sk_buff *skb,
			       unsigned int offset, unsigned int len);
void siw_engine_rx_ird_put(struct siw_engine_rx *rx);
void siw_engine_rx_close(struct siw_engine_rx *rx);
enum siw_ddp_err siw_engine_rx_error(const struct siw_engine_rx *rx);
bool siw_engine_rx_stopped(const struct siw_engine_rx *rx);
bool siw_engine_rx_midmsg(const struct siw_engine_rx *rx);
bool siw_engine_rx_term_info(const struct siw_engine_rx *rx,
			     struct siw_rdmap_term_info *ti);
const char *siw_engine_rx_stage_name(enum siw_engine_rx_stage stage);

#endif /* SIW_ENGINE_H */
