// SPDX-License-Identifier: GPL-2.0
/*
 * FPDU transmit framing (RFC 5044 sections 4.1, 4.3 and 4.4).
 *
 * The framer never touches the payload. For each FPDU it hands the
 * caller a sequence of pieces in stream order: framing octets it owns
 * (markers, ULPDU Length, pad, CRC), and ranges of the caller's ULPDU,
 * cut wherever a marker falls. The caller sends the pieces as they are
 * (kvecs, pages, whatever holds its ULPDU) and feeds each ULPDU range to
 * siw_mpa_fpdu_data() before asking for the next piece, so the CRC sees
 * every octet in stream order, markers included.
 *
 * Without markers an FPDU can also be written whole into one buffer of
 * the caller's (siw_mpa_fpdu_flat(), siw_mpa_fpdu_flat_end()): the framer
 * writes the length, pad and CRC fields in place around the ULPDU the
 * caller copies in, the same octets the pieces would make.
 *
 * Marker rules: a marker due when nothing of the FPDU has been framed
 * yet sits right before its header, carries FPDUPTR 0 and opens its CRC;
 * every later one carries the distance back to the header and is in the
 * CRC as well, including one that falls right before the CRC field. A
 * marker due right after the CRC is left to the next FPDU.
 */
#include <kunit/visibility.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/minmax.h>
#include <linux/string.h>

#include "mpa_wire.h"

/* Fields of one FPDU in stream order; private to this file */
enum siw_mpa_tx_stage {
	SIW_MPA_TXS_HDR,
	SIW_MPA_TXS_DATA,
	SIW_MPA_TXS_PAD,
	SIW_MPA_TXS_CRC,
	SIW_MPA_TXS_DONE,
};

static const u8 siw_mpa_zero_pad[SIW_MPA_PAD_MAX];

/**
 * siw_mpa_tx_init() - start MPA full operation in the send direction
 * @tx: direction state
 * @markers: the peer asked for markers (M in its frame)
 * @crc: CRCs are on for the connection
 *
 * The first octet framed after this is stream offset 0, so the first
 * FPDU opens with a marker when @markers is set.
 *
 * Context: any.
 */
void siw_mpa_tx_init(struct siw_mpa_tx *tx, bool markers, bool crc)
{
	tx->pos = 0;
	tx->markers = markers;
	tx->crc = crc;
}
EXPORT_SYMBOL_IF_KUNIT(siw_mpa_tx_init);

/* Start the FPDU's state at its header; -EMSGSIZE for an oversized ULPDU */
static __always_inline int siw_mpa_fpdu_init(struct siw_mpa_fpdu *f,
					     struct siw_mpa_tx *tx,
					     u32 ulpdu_len)
{
	if (ulpdu_len > SIW_MPA_ULPDU_MAX)
		return -EMSGSIZE;

	f->tx = tx;
	f->start = tx->pos;
	f->crc = SIW_MPA_CRC_SEED;
	f->given = 0;
	f->summed = 0;
	f->ulpdu_len = ulpdu_len;
	f->own_len = 0;
	f->stage = SIW_MPA_TXS_HDR;
	f->stage_off = 0;
	f->pad = siw_mpa_pad_len(ulpdu_len);
	f->nmarkers = 0;
	return 0;
}

/**
 * siw_mpa_fpdu_begin() - start framing one FPDU
 * @f: FPDU state; pieces of the previous FPDU framed in it become invalid
 * @tx: the direction it goes out on
 * @ulpdu_len: ULPDU octets (a DDP segment)
 *
 * Context: any.
 * Returns: 0, or -EMSGSIZE if @ulpdu_len exceeds 64768 (RFC 5044
 * section 3).
 */
int siw_mpa_fpdu_begin(struct siw_mpa_fpdu *f, struct siw_mpa_tx *tx,
		       u32 ulpdu_len)
{
	return siw_mpa_fpdu_init(f, tx, ulpdu_len);
}
EXPORT_SYMBOL_IF_KUNIT(siw_mpa_fpdu_begin);

/* Step to the next field, skipping an empty ULPDU or pad */
static void siw_mpa_tx_advance(struct siw_mpa_fpdu *f)
{
	f->stage_off = 0;
	f->stage++;
	if (f->stage == SIW_MPA_TXS_DATA && !f->ulpdu_len)
		f->stage++;
	if (f->stage == SIW_MPA_TXS_PAD && !f->pad)
		f->stage++;
}

static bool siw_mpa_tx_marker_due(const struct siw_mpa_fpdu *f)
{
	return f->tx->markers && !siw_mpa_marker_dist(f->tx->pos);
}

/* Octets the next piece may have before a marker must go in */
static u32 siw_mpa_tx_room(const struct siw_mpa_fpdu *f)
{
	return f->tx->markers ? siw_mpa_marker_dist(f->tx->pos) : U32_MAX;
}

static void siw_mpa_tx_own(struct siw_mpa_fpdu *f, const void *src, u32 len,
			   bool in_crc)
{
	memcpy(f->own + f->own_len, src, len);
	if (in_crc && f->tx->crc)
		f->crc = siw_mpa_crc_update(f->crc, src, len);
	f->own_len += len;
	f->tx->pos += len;
}

static void siw_mpa_tx_marker(struct siw_mpa_fpdu *f)
{
	bool lead = f->stage == SIW_MPA_TXS_HDR && !f->stage_off;
	bool in_crc = f->stage != SIW_MPA_TXS_CRC || !f->stage_off;
	u8 m[SIW_MPA_MARKER_LEN];

	siw_mpa_marker_put(m, lead ? 0 : (u16)(f->tx->pos - f->start));
	siw_mpa_tx_own(f, m, sizeof(m), in_crc);
	f->nmarkers++;
}

/* The octets of the current header, pad or CRC field, and its length */
static const u8 *siw_mpa_tx_field(struct siw_mpa_fpdu *f, u8 *hdr, u32 *len)
{
	switch (f->stage) {
	case SIW_MPA_TXS_HDR:
		if (!f->stage_off)
			f->start = f->tx->pos;
		put_unaligned_be16(f->ulpdu_len, hdr);
		*len = SIW_MPA_HDR_LEN;
		return hdr;
	case SIW_MPA_TXS_PAD:
		*len = f->pad;
		return siw_mpa_zero_pad;
	default:
		if (!f->stage_off)
			siw_mpa_crc_put(f->crc_field, f->tx->crc ?
					siw_mpa_crc_value(f->crc) : 0);
		*len = SIW_MPA_CRC_LEN;
		return f->crc_field;
	}
}

/* Append framing octets to @own until ULPDU octets or the end are next */
static void siw_mpa_tx_fill(struct siw_mpa_fpdu *f)
{
	u8 hdr[SIW_MPA_HDR_LEN];
	const u8 *src;
	u32 len, n;

	while (f->stage != SIW_MPA_TXS_DONE) {
		if (siw_mpa_tx_marker_due(f)) {
			siw_mpa_tx_marker(f);
			continue;
		}
		if (f->stage == SIW_MPA_TXS_DATA)
			break;
		src = siw_mpa_tx_field(f, hdr, &len);
		n = min(len - f->stage_off, siw_mpa_tx_room(f));
		siw_mpa_tx_own(f, src + f->stage_off, n,
			       f->stage != SIW_MPA_TXS_CRC);
		f->stage_off += n;
		if (f->stage_off == len)
			siw_mpa_tx_advance(f);
	}
}

/**
 * siw_mpa_fpdu_next() - the next piece of an FPDU to send
 * @f: FPDU state, from siw_mpa_fpdu_begin()
 * @p: filled with the piece
 *
 * The direction's stream offset moves past the piece: the caller must
 * send every piece, in order. A SIW_MPA_PIECE_ULPDU piece must be fed to
 * siw_mpa_fpdu_data() in full before the next call.
 *
 * Context: any.
 * Returns: 1 with a piece in @p, 0 when the FPDU is complete, -EPROTO if
 * ULPDU octets handed out were not all fed back.
 */
int siw_mpa_fpdu_next(struct siw_mpa_fpdu *f, struct siw_mpa_piece *p)
{
	u32 from = f->own_len;

	if (f->summed != f->given)
		return -EPROTO;

	if (f->stage == SIW_MPA_TXS_DATA && !siw_mpa_tx_marker_due(f)) {
		p->kind = SIW_MPA_PIECE_ULPDU;
		p->buf = NULL;
		p->off = f->given;
		p->len = min(f->ulpdu_len - f->given, siw_mpa_tx_room(f));
		f->given += p->len;
		f->tx->pos += p->len;
		if (f->given == f->ulpdu_len)
			siw_mpa_tx_advance(f);
		return 1;
	}

	siw_mpa_tx_fill(f);
	if (f->own_len == from)
		return 0;
	p->kind = SIW_MPA_PIECE_MPA;
	p->buf = f->own + from;
	p->off = 0;
	p->len = f->own_len - from;
	return 1;
}
EXPORT_SYMBOL_IF_KUNIT(siw_mpa_fpdu_next);

/**
 * siw_mpa_fpdu_data() - account for ULPDU octets of a piece
 * @f: FPDU state
 * @buf: the octets, as they will be sent; may be NULL when CRCs are off
 * @len: how many
 *
 * Call it over the octets of each SIW_MPA_PIECE_ULPDU piece, in order, in
 * one or several calls (e.g. one per page the piece spans).
 *
 * Context: any.
 */
void siw_mpa_fpdu_data(struct siw_mpa_fpdu *f, const void *buf, size_t len)
{
	if (f->tx->crc)
		f->crc = siw_mpa_crc_update(f->crc, buf, len);
	f->summed += len;
}
EXPORT_SYMBOL_IF_KUNIT(siw_mpa_fpdu_data);

/**
 * siw_mpa_fpdu_data_copy() - copy ULPDU octets of a piece, and account for them
 * @f: FPDU state
 * @dst: where the octets go, as they will be sent
 * @src: the octets
 * @len: how many
 *
 * siw_mpa_fpdu_data() for octets the caller copies into its own buffer:
 * with CRCs on, the copy and the CRC are one pass over @src.
 *
 * Context: any.
 */
void siw_mpa_fpdu_data_copy(struct siw_mpa_fpdu *f, void *dst,
			    const void *src, size_t len)
{
	if (f->tx->crc)
		f->crc = siw_mpa_crc_copy(f->crc, dst, src, len);
	else
		memcpy(dst, src, len);
	f->summed += len;
}
EXPORT_SYMBOL_IF_KUNIT(siw_mpa_fpdu_data_copy);

/**
 * siw_mpa_fpdu_flat() - start an FPDU written whole into one buffer
 * @f: FPDU state
 * @tx: the direction; without markers
 * @ulpdu_len: ULPDU octets (a DDP segment)
 * @out: where the FPDU goes, with room for siw_mpa_fpdu_wire_len()
 *	octets
 *
 * Writes the ULPDU Length field at @out. The caller then writes the
 * ULPDU right after it, at @out + SIW_MPA_HDR_LEN, through
 * siw_mpa_fpdu_data_copy() (or feeds siw_mpa_fpdu_data() what it put
 * there itself), in order, and ends the FPDU with
 * siw_mpa_fpdu_flat_end(). The same octets as siw_mpa_fpdu_next()'s
 * pieces, without a piece per field.
 *
 * Context: any.
 * Returns: 0; -EMSGSIZE for an oversized ULPDU; -EINVAL if @tx sends
 * markers.
 */
int siw_mpa_fpdu_flat(struct siw_mpa_fpdu *f, struct siw_mpa_tx *tx,
		      u32 ulpdu_len, u8 *out)
{
	int rv;

	if (tx->markers)
		return -EINVAL;
	rv = siw_mpa_fpdu_init(f, tx, ulpdu_len);
	if (rv)
		return rv;
	/* the whole ULPDU is the caller's to write */
	f->given = ulpdu_len;
	f->stage = SIW_MPA_TXS_DATA;
	put_unaligned_be16(ulpdu_len, out);
	if (tx->crc)
		f->crc = siw_mpa_crc_update(f->crc, out, SIW_MPA_HDR_LEN);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(siw_mpa_fpdu_flat);

/**
 * siw_mpa_fpdu_flat_sum() - the CRC state for ULPDU octets summed by the caller
 * @f: an FPDU begun by siw_mpa_fpdu_flat()
 * @len: ULPDU octets the caller writes at their place in the buffer
 *	and feeds into the returned state itself (siw_mpa_crc_copy()),
 *	in order, before siw_mpa_fpdu_flat_end()
 *
 * For a copy the framer cannot make: one that must hold a lock of the
 * caller's, e.g. a region's while its pages are read.
 *
 * Context: any.
 * Returns: the FPDU's CRC32c state, NULL with CRCs off.
 */
u32 *siw_mpa_fpdu_flat_sum(struct siw_mpa_fpdu *f, u32 len)
{
	f->summed += len;
	return f->tx->crc ? &f->crc : NULL;
}
EXPORT_SYMBOL_IF_KUNIT(siw_mpa_fpdu_flat_sum);

/**
 * siw_mpa_fpdu_flat_end() - end an FPDU begun by siw_mpa_fpdu_flat()
 * @f: FPDU state
 * @out: the same buffer
 *
 * Writes the pad and the CRC field after the ULPDU and moves the
 * direction's stream offset past the whole FPDU.
 *
 * Context: any.
 * Returns: the FPDU's octets; -EPROTO if the ULPDU's octets were not
 * all accounted for, or @f is not an FPDU begun by siw_mpa_fpdu_flat()
 * and not yet ended.
 */
int siw_mpa_fpdu_flat_end(struct siw_mpa_fpdu *f, u8 *out)
{
	u8 *p = out + SIW_MPA_HDR_LEN + f->ulpdu_len;
	u32 len;

	if (f->stage != SIW_MPA_TXS_DATA || f->summed != f->ulpdu_len)
		return -EPROTO;
	if (f->pad) {
		memset(p, 0, f->pad);
		if (f->tx->crc)
			f->crc = siw_mpa_crc_update(f->crc, p, f->pad);
		p += f->pad;
	}
	siw_mpa_crc_put(p, f->tx->crc ? siw_mpa_crc_value(f->crc) : 0);
	len = p + SIW_MPA_CRC_LEN - out;
	f->tx->pos += len;
	f->stage = SIW_MPA_TXS_DONE;
	return len;
}
EXPORT_SYMBOL_IF_KUNIT(siw_mpa_fpdu_flat_end);

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * siw_mpa_fpdu_build() - frame a ULPDU into one contiguous buffer
 * @f: FPDU state to use
 * @tx: the direction
 * @ulpdu: the ULPDU
 * @ulpdu_len: its octets
 * @out: where the FPDU goes, markers included
 * @size: room at @out
 *
 * A copying convenience for the tests (the data path frames in pieces).
 *
 * Context: any.
 * Returns: octets written, -EMSGSIZE for an oversized ULPDU, -ENOSPC if
 * @size is too small (nothing is framed then).
 */
ssize_t siw_mpa_fpdu_build(struct siw_mpa_fpdu *f, struct siw_mpa_tx *tx,
			   const void *ulpdu, u32 ulpdu_len,
			   void *out, size_t size)
{
	struct siw_mpa_piece p;
	const u8 *src;
	size_t done = 0;
	int rv;

	rv = siw_mpa_fpdu_begin(f, tx, ulpdu_len);
	if (rv)
		return rv;
	if (siw_mpa_fpdu_wire_len(tx->pos, tx->markers, ulpdu_len) > size)
		return -ENOSPC;

	while ((rv = siw_mpa_fpdu_next(f, &p)) > 0) {
		if (p.kind == SIW_MPA_PIECE_ULPDU) {
			src = (const u8 *)ulpdu + p.off;
			siw_mpa_fpdu_data(f, src, p.len);
		} else {
			src = p.buf;
		}
		memcpy((u8 *)out + done, src, p.len);
		done += p.len;
	}
	return rv ? rv : done;
}
EXPORT_SYMBOL_IF_KUNIT(siw_mpa_fpdu_build);
#endif
