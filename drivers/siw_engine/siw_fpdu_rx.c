// SPDX-License-Identifier: GPL-2.0
/*
 * Receive engine: the events of the MPA deframer become checked DDP
 * segments (RFC 5041 sections 5 and 7), placed through the caller's
 * callbacks, and completed RDMAP messages (RFC 5040 section 5).
 *
 * One pass: the engine places each run of ULPDU as the deframer hands
 * it out, once the segment's header has been gathered (it may arrive in
 * any number of runs), decoded and checked, and the placement copy
 * feeds the octets to the FPDU's CRC as it copies them
 * (siw_mpa_crc_copy()); what is not placed (headers, Read Requests,
 * Terminates, the rest of a failed FPDU) the engine sums as it takes
 * it. No octet of payload is read twice. Nothing is delivered or
 * completed before the FPDU's CRC checked out (SIW_MPA_EV_FPDU); Read
 * Requests and Terminates, which are small, are kept whole until then.
 *
 * When a check fails, placing stops at once, but the error is reported
 * only at the end of the FPDU: if its CRC then fails, the header that
 * looked wrong was damaged on the way and the CRC error is the one to
 * report. Either way the stream stops there, and the caller builds the
 * Terminate from siw_engine_rx_term_info().
 */
#include <kunit/visibility.h>
#include <linux/build_bug.h>
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/skbuff.h>
#include <linux/string.h>
#include <rdma/ib_verbs.h>

#include "siw_engine.h"

/* The DDP error table has the MPA rows in the order of enum siw_mpa_err */
static_assert(SIW_DDP_ERR_LLP_CRC - SIW_DDP_ERR_LLP_CLOSED ==
	      SIW_MPA_ERR_CRC - SIW_MPA_ERR_CLOSED);
static_assert(SIW_DDP_ERR_LLP_NO_RTR - SIW_DDP_ERR_LLP_CLOSED ==
	      SIW_MPA_ERR_NO_RTR - SIW_MPA_ERR_CLOSED);
static_assert(SIW_ENGINE_RX_KEEP <= U8_MAX);

static const char * const siw_engine_rx_stage_names[] = {
	[SIW_ENGINE_RXS_HDR]		= "header",
	[SIW_ENGINE_RXS_PLACE]		= "place",
	[SIW_ENGINE_RXS_GATHER]		= "gather",
	[SIW_ENGINE_RXS_DRAIN]		= "drain",
	[SIW_ENGINE_RXS_STOPPED]	= "stopped",
};

static_assert(ARRAY_SIZE(siw_engine_rx_stage_names) ==
	      SIW_ENGINE_RX_NUM_STAGES);

/**
 * siw_engine_rx_stage_name() - name of a receive state, for logs and traces
 * @stage: the state
 *
 * Context: any.
 * Returns: a constant string.
 */
const char *siw_engine_rx_stage_name(enum siw_engine_rx_stage stage)
{
	if ((unsigned int)stage >= ARRAY_SIZE(siw_engine_rx_stage_names))
		return "unknown";
	return siw_engine_rx_stage_names[stage];
}
EXPORT_SYMBOL_IF_KUNIT(siw_engine_rx_stage_name);

/**
 * siw_engine_rx_init() - start the receive direction of a stream
 * @rx: the state, embedded by the caller
 * @cfg: callbacks, memory layer, PD, IRD and MPA settings
 *
 * Context: any.
 */
void siw_engine_rx_init(struct siw_engine_rx *rx,
			const struct siw_engine_rx_cfg *cfg)
{
	memset(rx, 0, sizeof(*rx));
	siw_mpa_rx_init(&rx->mpa, cfg->markers, cfg->crc);
	siw_mpa_rx_caller_sums(&rx->mpa);
	siw_ddp_uq_init(rx->uq, cfg->ird);
	rx->ops = cfg->ops;
	rx->ctx = cfg->ctx;
	rx->mem = cfg->mem;
	rx->pd = cfg->pd;
	rx->stage = SIW_ENGINE_RXS_HDR;
}
EXPORT_SYMBOL_IF_KUNIT(siw_engine_rx_init);

/* Drop the reference on a sink or on an STag to invalidate */
static void siw_rx_release(struct siw_engine_rx *rx)
{
	siw_ddp_stag_put(&rx->mem, &rx->region);
}

static void siw_rx_stop(struct siw_engine_rx *rx, enum siw_ddp_err err)
{
	siw_rx_release(rx);
	rx->err = err;
	rx->stage = SIW_ENGINE_RXS_STOPPED;
}

/* Stop placing now; report at the end of the FPDU */
static void siw_rx_fail(struct siw_engine_rx *rx, enum siw_ddp_err err)
{
	siw_rx_release(rx);
	rx->err = err;
	rx->stage = SIW_ENGINE_RXS_DRAIN;
	/* never answer a Terminate with a Terminate (RFC 5040 5.3) */
	if (!rx->h.tagged && rx->h.opcode == SIW_RDMAP_TERMINATE)
		rx->peer_term = true;
}

static const struct siw_rdmap_opinfo *siw_rx_op(const struct siw_engine_rx *rx)
{
	return siw_rdmap_opinfo(rx->h.opcode);
}

static void siw_rx_fpdu_start(struct siw_engine_rx *rx,
			      const struct siw_mpa_rx_ev *ev)
{
	rx->ulpdu_len = ev->ulpdu_len;
	rx->payload = 0;
	rx->done = 0;
	rx->got = 0;
	rx->need = 1;	/* the T bit tells the header's length */
	memset(&rx->h, 0, sizeof(rx->h));
	rx->stage = SIW_ENGINE_RXS_HDR;
}

/*
 * Bind a receive buffer to the Send message that begins. QN, MSN and the
 * message's shape are checked first, as if a buffer of any length were
 * there, so that the QP layer never gives a WQE to a segment that is
 * wrong anyway.
 */
static enum siw_ddp_err siw_rx_bind(struct siw_engine_rx *rx)
{
	struct siw_ddp_uq q[SIW_DDP_NUM_QN];
	enum siw_ddp_err err;
	u32 len;

	memcpy(q, rx->uq, sizeof(q));
	q[SIW_DDP_QN_SEND].avail = 1;
	q[SIW_DDP_QN_SEND].buf_len = U32_MAX;
	err = siw_ddp_untagged_check(&rx->h, 0, q);
	if (err)
		return err;
	if (rx->ops->recv_buf(rx->ctx, &rx->h, &len))
		return SIW_DDP_ERR_DDP_U_MSN_NO_BUF;
	rx->uq[SIW_DDP_QN_SEND].avail = 1;
	rx->uq[SIW_DDP_QN_SEND].buf_len = len;
	rx->buf_bound = true;
	return SIW_DDP_OK;
}

/* RFC 5040 5.4: the STag a Send with Invalidate names, on its last segment */
static enum siw_ddp_err siw_rx_inval_check(struct siw_engine_rx *rx)
{
	struct siw_ddp_stag_req req = {
		.pd = rx->pd,
		.stag = rx->h.inval_stag,
		.use = SIW_DDP_STAG_INVALIDATE,
	};

	if (!(siw_rx_op(rx)->flags & SIW_RDMAP_F_INVALIDATE) || !rx->h.last)
		return SIW_DDP_OK;
	return siw_ddp_stag_resolve(&rx->mem, &req, &rx->region);
}

static enum siw_ddp_err siw_rx_untagged_begin(struct siw_engine_rx *rx)
{
	enum siw_ddp_err err;

	/* a tagged message cut short still holds its region */
	siw_rx_release(rx);
	if (rx->h.qn == SIW_DDP_QN_SEND && !rx->buf_bound) {
		err = siw_rx_bind(rx);
		if (err)
			return err;
	}
	err = siw_ddp_untagged_check(&rx->h, rx->payload, rx->uq);
	if (err)
		return err;
	if (siw_rx_op(rx)->class == SIW_RDMAP_CLASS_SEND) {
		rx->stage = SIW_ENGINE_RXS_PLACE;
		return siw_rx_inval_check(rx);
	}
	/* Read Request or Terminate: the shape check bounded the payload */
	rx->need = rx->got + rx->payload;
	rx->stage = SIW_ENGINE_RXS_GATHER;
	return SIW_DDP_OK;
}

/* What the segment in @rx asks of its STag, @op its opcode's */
static struct siw_ddp_stag_req siw_rx_stag_req(const struct siw_engine_rx *rx,
					       const struct siw_rdmap_opinfo *op)
{
	return (struct siw_ddp_stag_req){
		.pd = rx->pd,
		.to = rx->h.to,
		.stag = rx->h.stag,
		.len = rx->payload,
		.access = op->access,
		.use = SIW_DDP_STAG_PLACE,
	};
}

static enum siw_ddp_err siw_rx_tagged_begin(struct siw_engine_rx *rx)
{
	const struct siw_rdmap_opinfo *op = siw_rx_op(rx);
	struct siw_ddp_stag_req req = siw_rx_stag_req(rx, op);
	enum siw_ddp_err err;

	if (op->class == SIW_RDMAP_CLASS_READ_RESP && rx->ops->read_resp) {
		err = rx->ops->read_resp(rx->ctx, &rx->h, rx->payload);
		if (err)
			return err;
		/*
		 * It answers a Read Request of ours, into exactly the sink
		 * that request named: the consumer's local write access to
		 * the sink suffices (verbs consumers register Read sinks
		 * with IB_ACCESS_LOCAL_WRITE alone, rdma_reg_read() does).
		 */
		req.access |= IB_ACCESS_LOCAL_WRITE;
		req.access_any = true;
	}
	/* the region of the message's previous segment, if unchanged */
	err = siw_ddp_stag_again(&rx->mem, &req, &rx->region);
	if (!err)
		rx->stage = SIW_ENGINE_RXS_PLACE;
	return err;
}

/* The header decoded well: check the segment against the queues */
static void siw_rx_segment_check(struct siw_engine_rx *rx)
{
	enum siw_ddp_err err;

	err = rx->h.tagged ? siw_rx_tagged_begin(rx) :
			     siw_rx_untagged_begin(rx);
	if (err)
		siw_rx_fail(rx, err);
}

/* The whole header is in @keep: decode and check it */
static void siw_rx_segment_begin(struct siw_engine_rx *rx)
{
	enum siw_ddp_err err;

	rx->payload = rx->ulpdu_len - rx->got;
	err = siw_ddp_hdr_decode(rx->keep, rx->got, &rx->h);
	if (err)
		siw_rx_fail(rx, err);
	else
		siw_rx_segment_check(rx);
}

/* Keep octets of a header, Read Request or Terminate (and sum them) */
static u32 siw_rx_gather(struct siw_engine_rx *rx, const u8 *p, u32 len,
			 u32 *crc)
{
	u32 n = min_t(u32, len, rx->need - rx->got);

	if (crc)
		*crc = siw_mpa_crc_copy(*crc, rx->keep + rx->got, p, n);
	else
		memcpy(rx->keep + rx->got, p, n);
	rx->got += n;
	return n;
}

/* The header's length, from its first octet at @first */
static void siw_rx_hdr_need(struct siw_engine_rx *rx, const u8 *first)
{
	rx->need = siw_ddp_hdr_len(first, 1);
	/* a ULPDU shorter than its header fails at the FPDU's end */
	if (rx->need > rx->ulpdu_len)
		rx->need = rx->ulpdu_len;
}

static u32 siw_rx_hdr(struct siw_engine_rx *rx, const u8 *p, u32 len,
		      u32 *crc)
{
	u32 n;

	/* more than the first octet is here: gather the header in one go */
	if (!rx->got && len > 1)
		siw_rx_hdr_need(rx, p);
	n = siw_rx_gather(rx, p, len, crc);
	if (rx->got < rx->need)
		return n;
	if (rx->need == 1) {
		siw_rx_hdr_need(rx, rx->keep);
		return n;
	}
	siw_rx_segment_begin(rx);
	return n;
}

static u32 siw_rx_place(struct siw_engine_rx *rx, const u8 *p, u32 len,
			u32 *crc)
{
	u32 n = min(len, rx->payload - rx->done);
	u32 before = crc ? *crc : 0;
	enum siw_ddp_err err;

	if (rx->h.tagged)
		err = rx->ops->tagged_place(rx->ctx, &rx->region,
					    rx->h.to + rx->done, p, n, crc);
	else
		err = rx->ops->recv_place(rx->ctx, &rx->h, rx->h.mo + rx->done,
					  p, n, crc);
	rx->done += n;
	if (err) {
		/*
		 * The copy may have stopped anywhere: sum the run again, so
		 * that a CRC error still wins over the one found here
		 */
		if (crc)
			*crc = siw_mpa_crc_update(before, p, n);
		siw_rx_fail(rx, err);
	}
	return n;
}

/*
 * A run of ULPDU: with @crc, every octet goes into that CRC state once,
 * by the copy that takes it or, where nothing copies it, here
 */
static void siw_rx_data(struct siw_engine_rx *rx, const u8 *p, u32 len,
			u32 *crc)
{
	u32 n = 0;

	while (len) {
		switch (rx->stage) {
		case SIW_ENGINE_RXS_HDR:
			n = siw_rx_hdr(rx, p, len, crc);
			break;
		case SIW_ENGINE_RXS_PLACE:
			n = siw_rx_place(rx, p, len, crc);
			break;
		case SIW_ENGINE_RXS_GATHER:
			n = siw_rx_gather(rx, p, len, crc);
			break;
		default:
			n = 0;
			break;
		}
		if (!n)
			break;
		p += n;
		len -= n;
	}
	if (crc && len)
		*crc = siw_mpa_crc_update(*crc, p, len);
}

static void siw_rx_tagged_end(struct siw_engine_rx *rx)
{
	struct siw_engine_rx_msg m = { .hdr = &rx->h };

	rx->msg_len += rx->payload;
	/* an empty first segment opens the message all the same */
	rx->tagged_open = !rx->h.last;
	/* the next segment likely names the same region: keep it held */
	if (!rx->h.last)
		return;
	siw_rx_release(rx);
	m.len = rx->msg_len;
	rx->msg_len = 0;
	rx->ops->msg_done(rx->ctx, &m);
}

static void siw_rx_send_end(struct siw_engine_rx *rx)
{
	struct siw_engine_rx_msg m = { .hdr = &rx->h };

	if (!siw_ddp_uq_advance(&rx->uq[SIW_DDP_QN_SEND], &rx->h, rx->payload,
				&m.len))
		return;
	rx->buf_bound = false;
	if (rx->region.state == SIW_DDP_REGION_VALID)
		m.inval = &rx->region;
	rx->ops->msg_done(rx->ctx, &m);
	siw_rx_release(rx);
}

static enum siw_ddp_err siw_rx_read_req(struct siw_engine_rx *rx)
{
	const struct siw_rdmap_opinfo *op = siw_rx_op(rx);
	struct siw_ddp_stag_req req = {
		.pd = rx->pd,
		.access = op->access,
		.use = SIW_DDP_STAG_READ_SRC,
	};
	struct siw_rdmap_rreq rr;
	enum siw_ddp_err err;

	siw_rdmap_rreq_decode(rx->keep + SIW_DDP_UNTAGGED_HLEN, &rr);
	req.stag = rr.src_stag;
	req.to = rr.src_to;
	req.len = rr.len;
	err = siw_ddp_stag_resolve(&rx->mem, &req, &rx->region);
	if (err)
		return err;
	err = rx->ops->read_req(rx->ctx, &rr, &rx->region);
	siw_rx_release(rx);
	if (!err)
		siw_ddp_uq_advance(&rx->uq[SIW_DDP_QN_RREQ], &rx->h, rx->payload,
				   NULL);
	return err;
}

static void siw_rx_terminate(struct siw_engine_rx *rx)
{
	struct siw_rdmap_term_report rep;
	enum siw_ddp_err err;

	rx->peer_term = true;
	err = siw_rdmap_term_parse(rx->keep + SIW_DDP_UNTAGGED_HLEN,
				   rx->payload, &rep);
	if (!err)
		rx->ops->terminate(rx->ctx, &rep);
	siw_rx_stop(rx, err);
}

/* The FPDU's CRC checked out: finish its segment */
static void siw_rx_segment_end(struct siw_engine_rx *rx)
{
	enum siw_ddp_err err;

	switch (rx->stage) {
	case SIW_ENGINE_RXS_HDR:
		/* the ULPDU ended inside the header */
		siw_rx_stop(rx, siw_ddp_hdr_decode(rx->keep, rx->got, &rx->h));
		return;
	case SIW_ENGINE_RXS_DRAIN:
		siw_rx_stop(rx, rx->err);
		return;
	default:
		break;
	}
	switch (siw_rx_op(rx)->class) {
	case SIW_RDMAP_CLASS_WRITE:
	case SIW_RDMAP_CLASS_READ_RESP:
		siw_rx_tagged_end(rx);
		break;
	case SIW_RDMAP_CLASS_SEND:
		siw_rx_send_end(rx);
		break;
	case SIW_RDMAP_CLASS_READ_REQ:
		err = siw_rx_read_req(rx);
		if (err) {
			siw_rx_stop(rx, err);
			return;
		}
		break;
	default:
		siw_rx_terminate(rx);
		return;
	}
	rx->stage = SIW_ENGINE_RXS_HDR;
}

static enum siw_ddp_err siw_rx_llp_err(enum siw_mpa_err err)
{
	if (err < SIW_MPA_ERR_CLOSED || err >= SIW_MPA_NUM_ERR)
		return SIW_DDP_ERR_LLP_CATASTROPHIC;
	return SIW_DDP_ERR_LLP_CLOSED + (err - SIW_MPA_ERR_CLOSED);
}

/* The FPDU's CRC checked out */
static void siw_rx_fpdu_end(struct siw_engine_rx *rx)
{
	rx->fpdus++;
	siw_rx_segment_end(rx);
}

/* The deframer failed: the stream stops */
static void siw_rx_llp_fail(struct siw_engine_rx *rx, enum siw_mpa_err err)
{
	/* the header that looked like a Terminate was not one */
	rx->peer_term = false;
	siw_rx_stop(rx, siw_rx_llp_err(err));
}

/*
 * siw_engine_rx_event() itself, in the shape of siw_mpa_rx_skb()'s actor,
 * which calls it for every event of an skb without a wrapper in between
 */
static int siw_rx_event(void *ctx, const struct siw_mpa_rx_ev *ev)
{
	struct siw_engine_rx *rx = ctx;

	if (rx->stage == SIW_ENGINE_RXS_STOPPED)
		return 1;

	switch (ev->kind) {
	case SIW_MPA_EV_HDR:
		siw_rx_fpdu_start(rx, ev);
		break;
	case SIW_MPA_EV_DATA:
		siw_rx_data(rx, ev->data, ev->len, ev->crc);
		break;
	case SIW_MPA_EV_FPDU:
		siw_rx_fpdu_end(rx);
		break;
	case SIW_MPA_EV_ERROR:
		siw_rx_llp_fail(rx, ev->err);
		break;
	default:
		break;
	}
	return rx->stage == SIW_ENGINE_RXS_STOPPED;
}

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * siw_engine_rx_event() - take one event of the MPA deframer
 * @rx: the direction
 * @ev: the event, from siw_mpa_rx_parse() on @rx->mpa
 *
 * Context: any; does not sleep if the callbacks do not. The caller
 * serialises @rx.
 * Returns: 0 to go on, 1 once the stream stopped (an error, or a
 * Terminate received); the caller then feeds nothing more.
 */
int siw_engine_rx_event(struct siw_engine_rx *rx,
			const struct siw_mpa_rx_ev *ev)
{
	return siw_rx_event(rx, ev);
}
EXPORT_SYMBOL_IF_KUNIT(siw_engine_rx_event);

/**
 * siw_engine_rx_feed() - receive stream octets from a linear buffer
 * @rx: the direction
 * @buf: the next octets of the stream
 * @len: how many
 *
 * Context: any; does not sleep if the callbacks do not. The caller
 * serialises @rx.
 * Returns: octets consumed; fewer than @len once the stream stopped.
 */
size_t siw_engine_rx_feed(struct siw_engine_rx *rx, const void *buf,
			  size_t len)
{
	struct siw_mpa_rx_ev ev;
	size_t used = 0;

	while (used < len && rx->stage != SIW_ENGINE_RXS_STOPPED) {
		used += siw_mpa_rx_parse(&rx->mpa, (const u8 *)buf + used,
					 len - used, &ev);
		if (ev.kind == SIW_MPA_EV_MORE)
			break;
		siw_rx_event(rx, &ev);
	}
	return used;
}
EXPORT_SYMBOL_IF_KUNIT(siw_engine_rx_feed);
#endif

#if IS_ENABLED(CONFIG_KUNIT)
static void siw_rx_count_fast(struct siw_engine_rx *rx)
{
	rx->fast++;
}
#else
static inline void siw_rx_count_fast(struct siw_engine_rx *rx)
{
}
#endif

/* siw_rx_tagged_once() for a segment that qualified, @op its opcode's */
static void siw_rx_place_once(struct siw_engine_rx *rx,
			      const struct siw_rdmap_opinfo *op, const u8 *p,
			      u32 *crc)
{
	u32 before = crc ? *crc : 0;
	struct siw_ddp_stag_req req = siw_rx_stag_req(rx, op);
	enum siw_ddp_err err;

	err = rx->ops->tagged_once(rx->ctx, &req, p, rx->payload, crc);
	rx->stage = SIW_ENGINE_RXS_PLACE;
	rx->done = rx->payload;
	if (err) {
		/* as siw_rx_place(): the CRC error still wins */
		if (crc)
			*crc = siw_mpa_crc_update(before, p, rx->payload);
		siw_rx_fail(rx, err);
	}
}

/*
 * An RDMA Write in one segment, its payload whole at @p, with no region
 * held from an earlier segment: checked and placed in one callback
 * (@tagged_once), with the outcome siw_rx_segment_check() and
 * siw_rx_place() would have. Returns false, having done nothing, if the
 * segment is not one for it.
 */
static bool siw_rx_tagged_once(struct siw_engine_rx *rx, const u8 *p,
			       u32 *crc)
{
	const struct siw_rdmap_opinfo *op;

	if (!rx->h.tagged || !rx->h.last || !rx->payload ||
	    rx->region.state == SIW_DDP_REGION_VALID || !rx->ops->tagged_once)
		return false;
	op = siw_rx_op(rx);
	if (op->class != SIW_RDMAP_CLASS_WRITE)
		return false;
	siw_rx_place_once(rx, op, p, crc);
	return true;
}

/*
 * The next FPDU lies whole at @p, in @len: take it in one step, with
 * the same steps siw_rx_event() takes for the events of the FPDU (its
 * header, its ULPDU in one run, its end), and so with the same checks,
 * placements, completions and errors. Sends, Writes and Read Responses
 * only, whose headers decode well; anything else is left to the events.
 * Returns true if it took the FPDU; *@span is its octets if it lies
 * whole at @p, else 0.
 */
static bool siw_rx_fast(struct siw_engine_rx *rx, const u8 *p, u32 len,
			u32 *span)
{
	const u8 *seg = p + SIW_MPA_HDR_LEN;
	u32 ulpdu, hlen, *crc;
	int whole;

	*span = 0;
	whole = siw_mpa_rx_fpdu_whole(&rx->mpa, p, len);
	if (whole < 0)
		return false;
	ulpdu = whole;
	*span = siw_mpa_fpdu_len(ulpdu);
	hlen = siw_ddp_hdr_len(seg, ulpdu);
	if (!hlen || hlen > ulpdu)
		return false;
	memset(&rx->h, 0, sizeof(rx->h));
	if (siw_ddp_hdr_decode(seg, hlen, &rx->h))
		return false;
	switch (siw_rx_op(rx)->class) {
	case SIW_RDMAP_CLASS_WRITE:
	case SIW_RDMAP_CLASS_READ_RESP:
	case SIW_RDMAP_CLASS_SEND:
		break;
	default:
		return false;
	}
	siw_rx_count_fast(rx);

	/* SIW_MPA_EV_HDR: siw_rx_fpdu_start(), but @h is decoded */
	crc = siw_mpa_rx_fpdu_take(&rx->mpa, p);
	rx->ulpdu_len = ulpdu;
	rx->done = 0;
	rx->got = 0;
	rx->need = hlen;
	/* SIW_MPA_EV_DATA: siw_rx_hdr(), siw_rx_place() or the drain */
	siw_rx_gather(rx, seg, hlen, crc);
	rx->payload = ulpdu - hlen;
	if (!siw_rx_tagged_once(rx, seg + hlen, crc)) {
		siw_rx_segment_check(rx);
		if (rx->payload && rx->stage == SIW_ENGINE_RXS_PLACE)
			siw_rx_place(rx, seg + hlen, rx->payload, crc);
		else if (crc)
			*crc = siw_mpa_crc_update(*crc, seg + hlen,
						  rx->payload);
	}
	/* SIW_MPA_EV_FPDU, or SIW_MPA_EV_ERROR for a bad CRC */
	if (siw_mpa_rx_fpdu_done(&rx->mpa, p))
		siw_rx_fpdu_end(rx);
	else
		siw_rx_llp_fail(rx, SIW_MPA_ERR_CRC);
	return true;
}

/*
 * The octets of @skb from @off on that lie in one run, its linear part
 * or one page fragment: their address, and how many in *@len; NULL if
 * @off is in the frag list or in a fragment not mapped
 */
static const u8 *siw_rx_skb_run(const struct sk_buff *skb, unsigned int off,
				unsigned int *len)
{
	const struct skb_shared_info *sh = skb_shinfo(skb);
	unsigned int head = skb_headlen(skb), i, n;
	const u8 *a;

	if (off < head) {
		*len = head - off;
		return skb->data + off;
	}
	off -= head;
	for (i = 0; i < sh->nr_frags; i++) {
		n = skb_frag_size(&sh->frags[i]);
		if (off < n) {
			a = skb_frag_address_safe(&sh->frags[i]);
			*len = n - off;
			return a ? a + off : NULL;
		}
		off -= n;
	}
	return NULL;
}

/**
 * siw_engine_rx_skb() - receive stream octets from an skb
 * @rx: the direction
 * @skb: the buffer (linear part, page fragments, frag list)
 * @offset: first octet of @skb that belongs to the stream
 * @len: octets to take
 *
 * For a tcp_read_sock() actor: payload runs in page fragments are placed
 * straight from the fragment.
 *
 * Context: any (softirq); does not sleep if the callbacks do not. The
 * caller serialises @rx.
 * Returns: octets consumed; fewer than @len once the stream stopped.
 */
unsigned int siw_engine_rx_skb(struct siw_engine_rx *rx, struct sk_buff *skb,
			       unsigned int offset, unsigned int len)
{
	unsigned int used = 0, n;
	const u8 *p;
	u32 span;

	/*
	 * Whole FPDUs in one run of @skb, each in one step; a whole one of
	 * another kind by its events, and on
	 */
	while (used < len && rx->stage == SIW_ENGINE_RXS_HDR) {
		p = siw_rx_skb_run(skb, offset + used, &n);
		if (!p)
			break;
		if (!siw_rx_fast(rx, p, min(n, len - used), &span)) {
			if (!span)
				break;
			span = siw_mpa_rx_skb(&rx->mpa, skb, offset + used,
					      span, siw_rx_event, rx);
		}
		used += span;
	}
	if (used == len || rx->stage == SIW_ENGINE_RXS_STOPPED)
		return used;
	return used + siw_mpa_rx_skb(&rx->mpa, skb, offset + used, len - used,
				     siw_rx_event, rx);
}
EXPORT_SYMBOL_IF_KUNIT(siw_engine_rx_skb);

/**
 * siw_engine_rx_ird_put() - a Read Response went out: free an IRD slot
 * @rx: the direction
 *
 * Context: any; the caller serialises @rx.
 */
void siw_engine_rx_ird_put(struct siw_engine_rx *rx)
{
	rx->uq[SIW_DDP_QN_RREQ].avail++;
}
EXPORT_SYMBOL_IF_KUNIT(siw_engine_rx_ird_put);

/**
 * siw_engine_rx_close() - the stream ended or the QP leaves RTS
 * @rx: the direction
 *
 * Drops every reference the engine holds. A stream that ends inside an
 * FPDU, or inside a message, is the LLP error "connection lost".
 *
 * Context: any; the caller serialises @rx.
 */
void siw_engine_rx_close(struct siw_engine_rx *rx)
{
	bool cut;

	if (rx->stage == SIW_ENGINE_RXS_STOPPED)
		return;
	cut = !siw_mpa_rx_idle(&rx->mpa) || rx->buf_bound ||
	      rx->tagged_open || rx->stage == SIW_ENGINE_RXS_DRAIN;
	siw_rx_stop(rx, cut ? SIW_DDP_ERR_LLP_CLOSED : SIW_DDP_OK);
}
EXPORT_SYMBOL_IF_KUNIT(siw_engine_rx_close);

/**
 * siw_engine_rx_error() - why the stream stopped
 * @rx: the direction
 *
 * Context: any.
 * Returns: the error, SIW_DDP_OK if none (still running, closed cleanly
 * or stopped by a Terminate from the peer).
 */
enum siw_ddp_err siw_engine_rx_error(const struct siw_engine_rx *rx)
{
	return rx->stage == SIW_ENGINE_RXS_STOPPED ? rx->err : SIW_DDP_OK;
}
EXPORT_SYMBOL_IF_KUNIT(siw_engine_rx_error);

/**
 * siw_engine_rx_stopped() - has the stream stopped?
 * @rx: the direction
 *
 * Context: any.
 * Returns: true after an error, a Terminate received or a close.
 */
bool siw_engine_rx_stopped(const struct siw_engine_rx *rx)
{
	return rx->stage == SIW_ENGINE_RXS_STOPPED;
}
EXPORT_SYMBOL_IF_KUNIT(siw_engine_rx_stopped);

/**
 * siw_engine_rx_midmsg() - is a message under way?
 * @rx: the direction
 *
 * Context: any; a hint unless the caller serialises @rx.
 * Returns: true inside an FPDU, or between two FPDUs of one message.
 */
bool siw_engine_rx_midmsg(const struct siw_engine_rx *rx)
{
	return !siw_mpa_rx_idle(&rx->mpa) || READ_ONCE(rx->buf_bound) ||
	       READ_ONCE(rx->tagged_open);
}
EXPORT_SYMBOL_IF_KUNIT(siw_engine_rx_midmsg);

/**
 * siw_engine_rx_term_info() - what the Terminate for the error carries
 * @rx: the direction, stopped
 * @ti: filled for siw_rdmap_term_build() (or a Terminate message on the
 *	transmit engine); @ti->seg points into @rx
 *
 * Context: any; the caller serialises @rx.
 * Returns: true if a Terminate is due; false if the stream runs, stopped
 * without error, or stopped on a Terminate from the peer (which is never
 * answered with one).
 */
bool siw_engine_rx_term_info(const struct siw_engine_rx *rx,
			     struct siw_rdmap_term_info *ti)
{
	memset(ti, 0, sizeof(*ti));
	if (rx->stage != SIW_ENGINE_RXS_STOPPED || !rx->err || rx->peer_term)
		return false;
	ti->err = rx->err;
	ti->seg = rx->keep;
	ti->seg_avail = rx->got;
	ti->seg_len = rx->ulpdu_len;
	ti->seg_len_valid = rx->err != SIW_DDP_ERR_LLP_CLOSED;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(siw_engine_rx_term_info);
