// SPDX-License-Identifier: GPL-2.0
/*
 * Transmit engine: one outbound RDMAP message becomes successive DDP
 * segments (RFC 5041 section 5, RFC 5040 section 4), each framed into
 * an FPDU (RFC 5044 section 4) no larger than the MULPDU.
 *
 * Every FPDU comes out as a short array of pieces in stream order. By
 * default the engine copies nothing: framing octets (length, markers,
 * pad, CRC) are those of the MPA layer's struct siw_mpa_fpdu, the
 * DDP/RDMAP header is written into a small buffer of struct
 * siw_engine_tx, and payload pieces point at the caller's memory. The CRC
 * is the only pass the engine makes over the payload; pages are mapped
 * one at a time for it.
 *
 * A caller that would copy the payload anyway (TCP copies what it is not
 * handed by page reference) passes a stage instead: the engine then
 * copies the whole FPDU there, contiguous, summing the payload while it
 * copies it, so that CRC and copy are one pass and the caller can hand
 * the stage's pages to TCP.
 *
 * An FPDU must fit the caller's piece array, so the engine shortens a
 * segment when the payload is scattered over more pieces than the array
 * holds; DDP lets a sender cut segments wherever it likes.
 */
#include <kunit/visibility.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/highmem.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/string.h>

#include "siw_compat.h"
#include "siw_engine.h"

/* Pieces of an FPDU that are not payload: length, DDP header, trailer */
#define SIW_TX_FIXED_PIECES	3
/* A marker adds its own piece and may split the piece it falls into */
#define SIW_TX_MARKER_PIECES	2

/**
 * siw_engine_sgl_len() - payload octets an sgl describes
 * @sgl: the segments
 *
 * Context: any.
 * Returns: the sum of their lengths, U32_MAX if it does not fit 32 bits.
 */
u32 siw_engine_sgl_len(const struct siw_engine_sgl *sgl)
{
	u64 sum = 0;
	u32 i;

	for (i = 0; i < sgl->nseg; i++)
		sum += sgl->seg[i].len;
	return min_t(u64, sum, U32_MAX);
}
EXPORT_SYMBOL_IF_KUNIT(siw_engine_sgl_len);

/**
 * siw_engine_tx_set_emss() - size FPDUs for a new effective MSS
 * @tx: the direction
 * @emss: effective maximum segment size of the TCP connection
 *
 * Takes effect with the next FPDU.
 *
 * Context: any; the caller serialises @tx.
 */
void siw_engine_tx_set_emss(struct siw_engine_tx *tx, u32 emss)
{
	tx->mulpdu = siw_mpa_mulpdu(emss, tx->mpa.markers);
}
EXPORT_SYMBOL_IF_KUNIT(siw_engine_tx_set_emss);

/**
 * siw_engine_tx_init() - start the transmit direction of a stream
 * @tx: the state, embedded by the caller
 * @markers: insert markers (the peer set M)
 * @crc: compute CRCs
 * @emss: effective MSS; FPDUs are sized to siw_mpa_mulpdu() of it
 *
 * MSNs of all three untagged queues start at 1 (RFC 5041 section 4.3).
 *
 * Context: any.
 */
void siw_engine_tx_init(struct siw_engine_tx *tx, bool markers, bool crc,
			u32 emss)
{
	u32 q;

	memset(tx, 0, sizeof(*tx));
	siw_mpa_tx_init(&tx->mpa, markers, crc);
	siw_engine_tx_set_emss(tx, emss);
	for (q = 0; q < SIW_DDP_NUM_QN; q++)
		tx->msn[q] = 1;
}
EXPORT_SYMBOL_IF_KUNIT(siw_engine_tx_init);

/**
 * siw_engine_tx_busy() - is a message in progress?
 * @tx: the direction
 *
 * Context: any; the caller serialises @tx.
 * Returns: true until the FPDU with the L bit has been handed out.
 */
bool siw_engine_tx_busy(const struct siw_engine_tx *tx)
{
	return tx->busy;
}
EXPORT_SYMBOL_IF_KUNIT(siw_engine_tx_busy);

/**
 * siw_engine_tx_abort() - abandon the message in progress
 * @tx: the direction
 *
 * For a Terminate that must follow the last FPDU handed out: the
 * message's remaining segments are never framed. The stream offset
 * (markers) and the MSNs stay as they are.
 *
 * Context: any; the caller serialises @tx.
 */
void siw_engine_tx_abort(struct siw_engine_tx *tx)
{
	tx->busy = false;
}
EXPORT_SYMBOL_IF_KUNIT(siw_engine_tx_abort);

/* Read Request and Terminate: the whole message is in @hdr */
static int siw_tx_fixed_msg(struct siw_engine_tx *tx,
			    const struct siw_engine_msg *msg)
{
	int len;

	if (msg->opcode == SIW_RDMAP_READ_REQ) {
		if (!msg->rreq)
			return -EINVAL;
		tx->ddp.msn = tx->msn[SIW_DDP_QN_RREQ];
		len = siw_ddp_hdr_encode(&tx->ddp, tx->hdr, sizeof(tx->hdr));
		if (len < 0)
			return len;
		siw_rdmap_rreq_encode(msg->rreq, tx->hdr + len);
		len += SIW_RDMAP_RREQ_LEN;
	} else {
		if (!msg->term)
			return -EINVAL;
		len = siw_rdmap_term_build(msg->term, tx->msn[SIW_DDP_QN_TERM],
					   tx->hdr, sizeof(tx->hdr));
		if (len < 0)
			return len;
	}
	tx->fixed_len = len - SIW_DDP_UNTAGGED_HLEN;
	return 0;
}

/**
 * siw_engine_tx_msg() - start sending a message
 * @tx: the direction; no message may be in progress
 * @msg: the message; @msg->sgl must stay valid, and its memory
 *	unchanged, until the last FPDU is sent
 *
 * Untagged messages take the next MSN of their queue, even if the
 * connection fails before they are sent.
 *
 * Context: any; the caller serialises @tx.
 * Returns: 0; -EBUSY if a message is in progress; -EINVAL for an opcode
 * siw does not send, a Read Request or Terminate without its header or
 * with an sgl.
 */
int siw_engine_tx_msg(struct siw_engine_tx *tx,
		      const struct siw_engine_msg *msg)
{
	const struct siw_rdmap_opinfo *op = siw_rdmap_opinfo(msg->opcode);
	int rv;

	if (tx->busy)
		return -EBUSY;
	rv = siw_rdmap_hdr_init(&tx->ddp, msg->opcode);
	if (rv)
		return rv;

	tx->fixed_len = 0;
	tx->cur = msg->sgl;
	tx->seg_i = 0;
	tx->seg_off = 0;
	tx->left = siw_engine_sgl_len(&msg->sgl);
	if (op->flags & SIW_RDMAP_F_ONE_SEG) {
		if (tx->left)
			return -EINVAL;
		rv = siw_tx_fixed_msg(tx, msg);
		if (rv)
			return rv;
	} else if (tx->ddp.tagged) {
		tx->ddp.stag = msg->stag;
		tx->ddp.to = msg->to;
	} else {
		tx->ddp.msn = tx->msn[tx->ddp.qn];
		if (op->flags & SIW_RDMAP_F_INVALIDATE)
			tx->ddp.inval_stag = msg->inval_stag;
	}
	if (!tx->ddp.tagged)
		tx->msn[tx->ddp.qn]++;
	tx->busy = true;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(siw_engine_tx_msg);

/* Octets one piece can take from segment @s at offset @off */
static u32 siw_tx_chunk(const struct siw_engine_seg *s, u32 off)
{
	u32 in_page;

	if (s->kind != SIW_ENGINE_SEG_PAGE)
		return s->len - off;
	in_page = offset_in_page(s->off + off);
	return min_t(u32, s->len - off, PAGE_SIZE - in_page);
}

/* Payload octets, up to @want, that @budget pieces can carry */
static u32 siw_tx_fit(const struct siw_engine_tx *tx, u32 want,
		      unsigned int budget)
{
	u32 i = tx->seg_i, off = tx->seg_off, got = 0, n;
	const struct siw_engine_seg *s;

	while (got < want && i < tx->cur.nseg) {
		s = &tx->cur.seg[i];
		if (off >= s->len) {
			i++;
			off = 0;
			continue;
		}
		if (!budget)
			break;
		budget--;
		n = min(siw_tx_chunk(s, off), want - got);
		off += n;
		got += n;
	}
	return got;
}

/*
 * Payload octets for the next segment: as many as the MULPDU allows,
 * fewer if the pieces would not fit @max. Markers only get fewer as the
 * FPDU gets shorter, so the bound found for the longer one holds.
 */
static u32 siw_tx_plan(const struct siw_engine_tx *tx, unsigned int max)
{
	u32 want = min(tx->left, tx->mulpdu - tx->hdr_len);
	unsigned int fixed;
	u32 markers;

	for (;;) {
		markers = tx->mpa.markers ?
			  siw_mpa_fpdu_markers(tx->mpa.pos,
					       tx->hdr_len + want) : 0;
		fixed = SIW_TX_FIXED_PIECES + SIW_TX_MARKER_PIECES * markers;
		if (!want || fixed < max)
			break;
		want /= 2;
	}
	return want ? siw_tx_fit(tx, want, max - fixed) : 0;
}

/*
 * @len octets were copied to the stage's free room: the FPDU's staged
 * piece grows by them
 */
static void siw_tx_staged(struct siw_engine_tx *tx, struct siw_engine_txd *d,
			  u32 len)
{
	struct siw_engine_stage *st = tx->stage;
	struct siw_engine_seg *last = d->n ? &d->piece[d->n - 1] : NULL;

	if (!last || last->kind != SIW_ENGINE_SEG_STAGED)
		d->piece[d->n++] = (struct siw_engine_seg){
			.addr = st->buf + st->used,
			.kind = SIW_ENGINE_SEG_STAGED,
		};
	d->piece[d->n - 1].len += len;
	st->used += len;
	d->wire_len += len;
}

/* A piece of the FPDU, referenced, or copied to the stage (not payload) */
static void siw_tx_put(struct siw_engine_tx *tx, struct siw_engine_txd *d,
		       const struct siw_engine_seg *p)
{
	if (tx->stage) {
		memcpy(tx->stage->buf + tx->stage->used, p->addr, p->len);
		siw_tx_staged(tx, d, p->len);
		return;
	}
	d->piece[d->n++] = *p;
	d->wire_len += p->len;
}

/* Payload octets at @src, copied to the stage with their CRC in one pass */
static void siw_tx_stage_payload(struct siw_engine_tx *tx,
				 struct siw_engine_txd *d, const void *src,
				 u32 len)
{
	siw_mpa_fpdu_data_copy(&tx->fpdu, tx->stage->buf + tx->stage->used,
			       src, len);
	siw_tx_staged(tx, d, len);
}

/* One piece of payload from the cursor, at most @len octets; CRC'd */
static u32 siw_tx_payload_piece(struct siw_engine_tx *tx,
				struct siw_engine_txd *d, u32 len)
{
	const struct siw_engine_seg *s = &tx->cur.seg[tx->seg_i];
	struct siw_engine_seg p = { .kind = s->kind };
	u32 abs = s->off + tx->seg_off;
	void *va;

	p.len = min(siw_tx_chunk(s, tx->seg_off), len);
	tx->seg_off += p.len;
	if (s->kind == SIW_ENGINE_SEG_PAGE) {
		p.page = siw_nth_page(s->page, abs >> PAGE_SHIFT);
		p.off = offset_in_page(abs);
		if (tx->stage) {
			va = kmap_local_page(p.page);
			siw_tx_stage_payload(tx, d, va + p.off, p.len);
			kunmap_local(va);
			return p.len;
		}
		if (tx->mpa.crc) {
			va = kmap_local_page(p.page);
			siw_mpa_fpdu_data(&tx->fpdu, va + p.off, p.len);
			kunmap_local(va);
			tx->crc_reads += p.len;
		} else {
			siw_mpa_fpdu_data(&tx->fpdu, NULL, p.len);
		}
	} else {
		p.kind = SIW_ENGINE_SEG_KVA;
		p.addr = (const u8 *)s->addr + tx->seg_off - p.len;
		if (tx->stage) {
			siw_tx_stage_payload(tx, d, p.addr, p.len);
			return p.len;
		}
		siw_mpa_fpdu_data(&tx->fpdu, p.addr, p.len);
		if (tx->mpa.crc)
			tx->crc_reads += p.len;
	}
	siw_tx_put(tx, d, &p);
	return p.len;
}

/* ULPDU octets [@off, @off + @len): header from @hdr, the rest payload */
static int siw_tx_ulpdu(struct siw_engine_tx *tx, struct siw_engine_txd *d,
			u32 off, u32 len)
{
	struct siw_engine_seg p = { .kind = SIW_ENGINE_SEG_OWN };

	if (off < tx->hdr_len) {
		p.addr = tx->hdr + off;
		p.len = min(len, tx->hdr_len - off);
		siw_mpa_fpdu_data(&tx->fpdu, p.addr, p.len);
		siw_tx_put(tx, d, &p);
		len -= p.len;
	}
	while (len) {
		if (tx->seg_i >= tx->cur.nseg || d->n >= d->max)
			return -EPROTO;
		if (tx->seg_off >= tx->cur.seg[tx->seg_i].len) {
			tx->seg_i++;
			tx->seg_off = 0;
			continue;
		}
		len -= siw_tx_payload_piece(tx, d, len);
	}
	return 0;
}

/* Frame the segment: every piece MPA hands out, into @d */
static int siw_tx_frame(struct siw_engine_tx *tx, struct siw_engine_txd *d)
{
	struct siw_engine_seg own = { .kind = SIW_ENGINE_SEG_OWN };
	struct siw_mpa_piece mp;
	int rv;

	while ((rv = siw_mpa_fpdu_next(&tx->fpdu, &mp)) > 0) {
		if (d->n >= d->max)
			return -EPROTO;
		if (mp.kind == SIW_MPA_PIECE_MPA) {
			own.addr = mp.buf;
			own.len = mp.len;
			siw_tx_put(tx, d, &own);
			continue;
		}
		rv = siw_tx_ulpdu(tx, d, mp.off, mp.len);
		if (rv)
			return rv;
	}
	return rv;
}

/* @len payload octets from the cursor, copied to @out with their CRC */
static int siw_tx_flat_payload(struct siw_engine_tx *tx, u8 *out, u32 len)
{
	const struct siw_engine_seg *s;
	u32 abs, n;
	void *va;

	while (len) {
		if (tx->seg_i >= tx->cur.nseg)
			return -EPROTO;
		s = &tx->cur.seg[tx->seg_i];
		if (tx->seg_off >= s->len) {
			tx->seg_i++;
			tx->seg_off = 0;
			continue;
		}
		n = min(siw_tx_chunk(s, tx->seg_off), len);
		abs = s->off + tx->seg_off;
		if (s->kind == SIW_ENGINE_SEG_PAGE) {
			va = kmap_local_page(siw_nth_page(s->page,
							  abs >> PAGE_SHIFT));
			siw_mpa_fpdu_data_copy(&tx->fpdu, out,
					       va + offset_in_page(abs), n);
			kunmap_local(va);
		} else {
			siw_mpa_fpdu_data_copy(&tx->fpdu, out,
					       (const u8 *)s->addr +
					       tx->seg_off, n);
		}
		tx->seg_off += n;
		out += n;
		len -= n;
	}
	return 0;
}

/*
 * Frame the segment whole into the stage, which has room for it, when
 * no marker can fall inside: length, header, payload, pad and CRC
 * written in place, in one pass each, and handed out as the FPDU's one
 * staged piece (the octets siw_tx_frame() would stage piece by piece)
 */
static int siw_tx_frame_flat(struct siw_engine_tx *tx,
			     struct siw_engine_txd *d, u32 payload)
{
	struct siw_engine_stage *st = tx->stage;
	u8 *out = st->buf + st->used;
	u8 *p = out + SIW_MPA_HDR_LEN;
	int rv;

	rv = siw_mpa_fpdu_flat(&tx->fpdu, &tx->mpa, tx->hdr_len + payload,
			       out);
	if (rv)
		return rv;
	siw_mpa_fpdu_data_copy(&tx->fpdu, p, tx->hdr, tx->hdr_len);
	rv = siw_tx_flat_payload(tx, p + tx->hdr_len, payload);
	if (rv)
		return rv;
	rv = siw_mpa_fpdu_flat_end(&tx->fpdu, out);
	if (rv < 0)
		return rv;
	d->piece[0] = (struct siw_engine_seg){
		.addr = out, .len = rv, .kind = SIW_ENGINE_SEG_STAGED,
	};
	d->n = 1;
	d->wire_len = rv;
	st->used += rv;
	return 0;
}

/* The segment went out: move TO or MO on, finish the message on L */
static void siw_tx_advance(struct siw_engine_tx *tx, u32 payload)
{
	tx->left -= payload;
	if (tx->ddp.tagged)
		tx->ddp.to += payload;
	else
		tx->ddp.mo += payload;
	if (tx->ddp.last)
		tx->busy = false;
}

/**
 * siw_engine_tx_next() - the next FPDU of the message in progress
 * @tx: the direction
 * @d: @d->piece and @d->max set by the caller; the rest is filled
 *
 * The pieces must be sent in order and in full before the next call:
 * the direction's MPA stream offset (for markers) already counts them.
 * SIW_ENGINE_SEG_OWN pieces point into @tx and stay valid until the next
 * call; a SIW_ENGINE_SEG_STAGED piece (the whole FPDU, if @d->stage had
 * room for it) points into @d->stage; the others point into the
 * message's sgl. The CRC is computed over the payload as it is now.
 *
 * Context: any; does not sleep. The caller serialises @tx.
 * Returns: 1 with an FPDU in @d, 0 if no message is in progress,
 * -EINVAL if @d->max is below SIW_ENGINE_TX_PIECES_MIN, -EPROTO if the
 * sgl changed under the engine (the message is abandoned).
 */
int siw_engine_tx_next(struct siw_engine_tx *tx, struct siw_engine_txd *d)
{
	u32 payload, used;
	int rv;

	d->n = 0;
	d->wire_len = 0;
	d->payload = 0;
	d->last = false;
	if (!tx->busy)
		return 0;
	if (d->max < SIW_ENGINE_TX_PIECES_MIN)
		return -EINVAL;

	tx->hdr_len = (tx->ddp.tagged ? SIW_DDP_TAGGED_HLEN :
		       SIW_DDP_UNTAGGED_HLEN) + tx->fixed_len;
	payload = siw_tx_plan(tx, d->max);
	tx->ddp.last = payload == tx->left;
	if (!tx->fixed_len &&
	    siw_ddp_hdr_encode(&tx->ddp, tx->hdr, sizeof(tx->hdr)) < 0)
		return -EPROTO;

	used = d->stage ? d->stage->used : 0;
	tx->stage = d->stage;
	if (tx->stage &&
	    siw_mpa_fpdu_wire_len(tx->mpa.pos, tx->mpa.markers,
				  tx->hdr_len + payload) >
	    tx->stage->size - tx->stage->used)
		tx->stage = NULL;
	if (tx->stage && !tx->mpa.markers) {
		rv = siw_tx_frame_flat(tx, d, payload);
	} else {
		rv = siw_mpa_fpdu_begin(&tx->fpdu, &tx->mpa,
					tx->hdr_len + payload);
		if (!rv)
			rv = siw_tx_frame(tx, d);
	}
	tx->stage = NULL;
	if (rv) {
		if (d->stage)
			d->stage->used = used;
		tx->busy = false;
		return rv;
	}
	siw_tx_advance(tx, payload);
	d->payload = payload;
	d->last = tx->ddp.last;
	return 1;
}
EXPORT_SYMBOL_IF_KUNIT(siw_engine_tx_next);

/**
 * siw_engine_tx_flat_begin() - frame a whole small message into one buffer
 * @tx: the direction; no message may be in progress
 * @msg: a Send (any of the four) or an RDMA Write; @msg->sgl is not read
 * @fl: @fl->buf, @fl->size and @fl->len set by the caller; the engine
 *	sets @fl->payload and @fl->crc
 *
 * For a message that goes as one FPDU of the current MULPDU, without
 * markers: writes the ULPDU Length field and the DDP/RDMAP header at
 * @fl->buf, the octets siw_engine_tx_msg() and siw_engine_tx_next()
 * would send for it. The caller then writes the @fl->len payload octets
 * at @fl->payload, in order, feeding each into *@fl->crc while it
 * copies it if @fl->crc is not NULL (siw_mpa_crc_copy()), and ends the
 * FPDU with siw_engine_tx_flat_end(). Nothing of @tx's sequence (MSNs,
 * stream offset) moves before that: a message begun and never ended
 * (its payload failed a check) leaves the direction as it was.
 *
 * Context: any; does not sleep. The caller serialises @tx.
 * Returns: 0; -EBUSY if a message is in progress; -EINVAL for another
 * opcode, or if the direction sends markers; -EMSGSIZE if the message
 * needs more than one FPDU; -ENOSPC if the FPDU does not fit @fl->size.
 */
int siw_engine_tx_flat_begin(struct siw_engine_tx *tx,
			     const struct siw_engine_msg *msg,
			     struct siw_engine_flat *fl)
{
	struct siw_ddp_hdr *h = &tx->ddp;
	u8 *p = fl->buf + SIW_MPA_HDR_LEN;
	u32 hlen;
	int rv;

	if (tx->busy)
		return -EBUSY;
	switch (msg->opcode) {
	case SIW_RDMAP_WRITE:
	case SIW_RDMAP_SEND:
	case SIW_RDMAP_SEND_INV:
	case SIW_RDMAP_SEND_SE:
	case SIW_RDMAP_SEND_SE_INV:
		break;
	default:
		return -EINVAL;
	}
	if (tx->mpa.markers)
		return -EINVAL;
	rv = siw_rdmap_hdr_init(h, msg->opcode);
	if (rv)
		return rv;
	hlen = h->tagged ? SIW_DDP_TAGGED_HLEN : SIW_DDP_UNTAGGED_HLEN;
	if (tx->mulpdu < hlen || fl->len > tx->mulpdu - hlen)
		return -EMSGSIZE;
	if (siw_mpa_fpdu_wire_len(tx->mpa.pos, false, hlen + fl->len) >
	    fl->size)
		return -ENOSPC;
	if (h->tagged) {
		h->stag = msg->stag;
		h->to = msg->to;
	} else {
		h->msn = tx->msn[h->qn];
		if (siw_rdmap_opinfo(msg->opcode)->flags &
		    SIW_RDMAP_F_INVALIDATE)
			h->inval_stag = msg->inval_stag;
	}
	rv = siw_mpa_fpdu_flat(&tx->fpdu, &tx->mpa, hlen + fl->len, fl->buf);
	if (rv)
		return rv;
	if (siw_ddp_hdr_encode(h, p, hlen) != hlen)
		return -EPROTO;
	siw_mpa_fpdu_data(&tx->fpdu, p, hlen);
	fl->payload = p + hlen;
	fl->crc = siw_mpa_fpdu_flat_sum(&tx->fpdu, fl->len);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(siw_engine_tx_flat_begin);

/**
 * siw_engine_tx_flat_end() - end a message begun by siw_engine_tx_flat_begin()
 * @tx: the direction
 * @fl: the same description, its payload written
 *
 * Writes the pad and the CRC field, and moves the message's MSN (an
 * untagged one) and the stream offset on, as siw_engine_tx_next() does
 * for the message's last FPDU.
 *
 * Context: any; does not sleep. The caller serialises @tx.
 * Returns: the FPDU's octets at @fl->buf, or -EPROTO if no message was
 * begun.
 */
int siw_engine_tx_flat_end(struct siw_engine_tx *tx,
			   struct siw_engine_flat *fl)
{
	int len;

	if (tx->busy)
		return -EPROTO;
	len = siw_mpa_fpdu_flat_end(&tx->fpdu, fl->buf);
	if (len < 0)
		return len;
	if (!tx->ddp.tagged)
		tx->msn[tx->ddp.qn]++;
	return len;
}
EXPORT_SYMBOL_IF_KUNIT(siw_engine_tx_flat_end);
