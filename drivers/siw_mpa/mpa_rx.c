// SPDX-License-Identifier: GPL-2.0
/*
 * Receive deframing (RFC 5044 sections 4, 4.3, 4.4, 6 and 8).
 *
 * An incremental parser over the in-order TCP byte stream: it takes
 * input in pieces of any size (one octet, a linear buffer, a page
 * fragment, a whole skb), keeps no pointer to it between calls and
 * reports, one event per call: the header of an FPDU, runs of its ULPDU
 * (pointers into the caller's input) and the end of the FPDU once its
 * CRC checked out. The parser feeds the ULPDU runs to the CRC as it
 * hands them out, or, once the caller asked for it
 * (siw_mpa_rx_caller_sums()), leaves that to the caller, who copies and
 * sums each run in one pass (siw_mpa_crc_copy()).
 *
 * Markers are taken out of the stream, fed to the CRC with the octets
 * around them, and checked: FPDUPTR must lead back to the header of the
 * FPDU the marker is in, or be 0 right before a header. A marker that
 * does not is reported at once as error 3 (RFC 5044 section 8): the
 * ULPDU Length that placed the data can no longer be trusted.
 *
 * ULPDU runs are not validated until SIW_MPA_EV_FPDU: the caller may
 * place them but must not deliver anything before that event. After an
 * error the parser reports the same error again and consumes nothing.
 */
#include <kunit/visibility.h>
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/skbuff.h>
#include <linux/string.h>

#include "mpa_wire.h"

static const char * const siw_mpa_rx_stage_names[SIW_MPA_RX_NUM_STAGES] = {
	[SIW_MPA_RXS_HDR]	= "header",
	[SIW_MPA_RXS_DATA]	= "ulpdu",
	[SIW_MPA_RXS_PAD]	= "pad",
	[SIW_MPA_RXS_CRC]	= "crc",
	[SIW_MPA_RXS_FAILED]	= "failed",
};

/**
 * siw_mpa_rx_stage_name() - name of a receive state, for logs and traces
 * @stage: the state
 *
 * Context: any.
 * Returns: a constant string.
 */
const char *siw_mpa_rx_stage_name(enum siw_mpa_rx_stage stage)
{
	if ((unsigned int)stage >= ARRAY_SIZE(siw_mpa_rx_stage_names))
		return "unknown";
	return siw_mpa_rx_stage_names[stage];
}
EXPORT_SYMBOL_IF_KUNIT(siw_mpa_rx_stage_name);

static void siw_mpa_rx_next_fpdu(struct siw_mpa_rx *rx)
{
	rx->stage = SIW_MPA_RXS_HDR;
	rx->got = 0;
	rx->off = 0;
	rx->crc = SIW_MPA_CRC_SEED;
}

/**
 * siw_mpa_rx_init() - start MPA full operation in the receive direction
 * @rx: direction state
 * @markers: the peer inserts markers (we set M in our frame)
 * @crc: CRCs are on for the connection
 *
 * The next octet parsed is stream offset 0; with @markers it must be the
 * marker that opens the first FPDU.
 *
 * Context: any.
 */
void siw_mpa_rx_init(struct siw_mpa_rx *rx, bool markers, bool crc)
{
	memset(rx, 0, sizeof(*rx));
	rx->markers = markers;
	rx->crc_on = crc;
	siw_mpa_rx_next_fpdu(rx);
}
EXPORT_SYMBOL_IF_KUNIT(siw_mpa_rx_init);

/**
 * siw_mpa_rx_caller_sums() - the caller feeds the ULPDU runs to the CRC
 * @rx: direction state, from siw_mpa_rx_init()
 *
 * From now on a SIW_MPA_EV_DATA event of an FPDU with a CRC carries
 * @ev->crc, the FPDU's CRC state: the caller must feed every octet of
 * the run into it, in order, before it parses on. The parser still sums
 * everything else (header, markers, pad). Without this call the parser
 * sums the runs itself and @ev->crc is NULL.
 *
 * Context: any; the caller serialises @rx.
 */
void siw_mpa_rx_caller_sums(struct siw_mpa_rx *rx)
{
	rx->caller_sums = true;
}
EXPORT_SYMBOL_IF_KUNIT(siw_mpa_rx_caller_sums);

/**
 * siw_mpa_rx_idle() - is the stream between two FPDUs?
 * @rx: direction state
 *
 * For the end of the stream: a FIN that arrives when this is false cut
 * an FPDU short.
 *
 * Context: any.
 * Returns: true if no part of an FPDU or marker is pending.
 */
bool siw_mpa_rx_idle(const struct siw_mpa_rx *rx)
{
	return rx->stage == SIW_MPA_RXS_HDR && !rx->got && !rx->mgot;
}
EXPORT_SYMBOL_IF_KUNIT(siw_mpa_rx_idle);

static void siw_mpa_rx_sum(struct siw_mpa_rx *rx, const u8 *p, u32 n)
{
	if (rx->crc_on)
		rx->crc = siw_mpa_crc_update(rx->crc, p, n);
}

static void siw_mpa_rx_event(const struct siw_mpa_rx *rx,
			     struct siw_mpa_rx_ev *ev, enum siw_mpa_ev kind)
{
	ev->kind = kind;
	ev->ulpdu_len = rx->ulpdu_len;
	ev->fpdu_pos = rx->start;
	ev->err = rx->err;
}

/*
 * An event with every field zero but @kind, stored field by field: a
 * compound literal becomes a string store, which emulators run a word
 * per step
 */
static void siw_mpa_rx_ev_clear(struct siw_mpa_rx_ev *ev, enum siw_mpa_ev kind)
{
	ev->data = NULL;
	ev->crc = NULL;
	ev->len = 0;
	ev->off = 0;
	ev->fpdu_pos = 0;
	ev->crc_rcvd = 0;
	ev->crc_calc = 0;
	ev->ulpdu_len = 0;
	ev->kind = kind;
	ev->err = SIW_MPA_OK;
}

/* A fresh event of @kind for the current FPDU */
static void siw_mpa_rx_ev_new(const struct siw_mpa_rx *rx,
			      struct siw_mpa_rx_ev *ev, enum siw_mpa_ev kind)
{
	siw_mpa_rx_ev_clear(ev, kind);
	siw_mpa_rx_event(rx, ev, kind);
}

static void siw_mpa_rx_fail(struct siw_mpa_rx *rx, enum siw_mpa_err err)
{
	rx->stage = SIW_MPA_RXS_FAILED;
	rx->err = err;
}

/* Advance past a completed field, skipping an empty ULPDU or pad */
static void siw_mpa_rx_advance(struct siw_mpa_rx *rx)
{
	rx->got = 0;
	rx->stage++;
	if (rx->stage == SIW_MPA_RXS_DATA && !rx->ulpdu_len)
		rx->stage++;
	if (rx->stage == SIW_MPA_RXS_PAD && !rx->pad)
		rx->stage++;
}

/* Take up to one marker's octets; check it once all four are in */
static u32 siw_mpa_rx_marker(struct siw_mpa_rx *rx, const u8 *p, size_t avail)
{
	u32 n = min_t(size_t, SIW_MPA_MARKER_LEN - rx->mgot, avail);
	u16 want;

	if (!rx->mgot)
		rx->mlead = rx->stage == SIW_MPA_RXS_HDR && !rx->got;
	memcpy(rx->mark + rx->mgot, p, n);
	/* in the CRC unless the CRC field has begun */
	if (rx->stage != SIW_MPA_RXS_CRC || !rx->got)
		siw_mpa_rx_sum(rx, p, n);
	rx->mgot += n;
	rx->pos += n;
	if (rx->mgot < SIW_MPA_MARKER_LEN)
		return n;

	rx->mgot = 0;
	want = rx->mlead ? 0 : (u16)(rx->pos - SIW_MPA_MARKER_LEN - rx->start);
	if (siw_mpa_marker_get(rx->mark) != want)
		siw_mpa_rx_fail(rx, SIW_MPA_ERR_MARKER);
	return n;
}

/* Take octets of the header, pad or CRC field */
static u32 siw_mpa_rx_field(struct siw_mpa_rx *rx, const u8 *p, size_t room,
			    u32 len, bool in_crc)
{
	u32 n = min_t(size_t, len - rx->got, room);

	if (rx->stage == SIW_MPA_RXS_HDR && !rx->got)
		rx->start = rx->pos;
	memcpy(rx->field + rx->got, p, n);
	if (in_crc)
		siw_mpa_rx_sum(rx, p, n);
	rx->got += n;
	rx->pos += n;
	return n;
}

static void siw_mpa_rx_header(struct siw_mpa_rx *rx, struct siw_mpa_rx_ev *ev)
{
	rx->ulpdu_len = get_unaligned_be16(rx->field);
	rx->pad = siw_mpa_pad_len(rx->ulpdu_len);
	rx->off = 0;
	siw_mpa_rx_advance(rx);
	siw_mpa_rx_event(rx, ev, SIW_MPA_EV_HDR);
}

static void siw_mpa_rx_trailer(struct siw_mpa_rx *rx, struct siw_mpa_rx_ev *ev)
{
	ev->crc_rcvd = siw_mpa_crc_get(rx->field);
	ev->crc_calc = siw_mpa_crc_value(rx->crc);
	if (rx->crc_on && ev->crc_rcvd != ev->crc_calc) {
		siw_mpa_rx_fail(rx, SIW_MPA_ERR_CRC);
		siw_mpa_rx_event(rx, ev, SIW_MPA_EV_ERROR);
		return;
	}
	siw_mpa_rx_event(rx, ev, SIW_MPA_EV_FPDU);
	siw_mpa_rx_next_fpdu(rx);
}

static void siw_mpa_rx_data(struct siw_mpa_rx *rx, const u8 *p, u32 n,
			    struct siw_mpa_rx_ev *ev)
{
	siw_mpa_rx_event(rx, ev, SIW_MPA_EV_DATA);
	ev->data = p;
	ev->len = n;
	ev->off = rx->off;
	if (rx->crc_on && rx->caller_sums)
		ev->crc = &rx->crc;
	else
		siw_mpa_rx_sum(rx, p, n);
	rx->off += n;
	rx->pos += n;
	if (rx->off == rx->ulpdu_len)
		siw_mpa_rx_advance(rx);
}

/* One step within the current FPDU field; true if it produced an event */
static bool siw_mpa_rx_step(struct siw_mpa_rx *rx, const u8 *p, size_t room,
			    struct siw_mpa_rx_ev *ev, u32 *used)
{
	switch (rx->stage) {
	case SIW_MPA_RXS_HDR:
		*used = siw_mpa_rx_field(rx, p, room, SIW_MPA_HDR_LEN, true);
		if (rx->got < SIW_MPA_HDR_LEN)
			return false;
		siw_mpa_rx_header(rx, ev);
		return true;
	case SIW_MPA_RXS_DATA:
		*used = min_t(size_t, rx->ulpdu_len - rx->off, room);
		siw_mpa_rx_data(rx, p, *used, ev);
		return true;
	case SIW_MPA_RXS_PAD:
		*used = siw_mpa_rx_field(rx, p, room, rx->pad, true);
		if (rx->got == rx->pad)
			siw_mpa_rx_advance(rx);
		return false;
	default:
		*used = siw_mpa_rx_field(rx, p, room, SIW_MPA_CRC_LEN, false);
		if (rx->got < SIW_MPA_CRC_LEN)
			return false;
		siw_mpa_rx_trailer(rx, ev);
		return true;
	}
}

/**
 * siw_mpa_rx_parse() - parse received stream octets
 * @rx: direction state
 * @buf: the next octets of the stream
 * @len: how many
 * @ev: filled with what happened
 *
 * Parses until something is to be reported or @buf is used up. The
 * caller calls again with the rest of @buf after every event. For
 * SIW_MPA_EV_DATA, @ev->data points into @buf and the parser has already
 * fed the run to the FPDU's CRC, unless @ev->crc says the caller must.
 *
 * Context: any; does not allocate or sleep.
 * Returns: octets of @buf consumed (0 once the stream has failed).
 */
size_t siw_mpa_rx_parse(struct siw_mpa_rx *rx, const void *buf, size_t len,
			struct siw_mpa_rx_ev *ev)
{
	const u8 *p = buf;
	size_t used = 0;
	size_t room;
	u32 n;

	siw_mpa_rx_ev_clear(ev, SIW_MPA_EV_MORE);
	while (used < len && rx->stage != SIW_MPA_RXS_FAILED) {
		if (rx->mgot || (rx->markers && !siw_mpa_marker_dist(rx->pos))) {
			used += siw_mpa_rx_marker(rx, p + used, len - used);
			continue;
		}
		room = len - used;
		if (rx->markers)
			room = min_t(size_t, room, siw_mpa_marker_dist(rx->pos));
		if (siw_mpa_rx_step(rx, p + used, room, ev, &n))
			return used + n;
		used += n;
	}
	if (rx->stage == SIW_MPA_RXS_FAILED)
		siw_mpa_rx_event(rx, ev, SIW_MPA_EV_ERROR);
	return used;
}
EXPORT_SYMBOL_IF_KUNIT(siw_mpa_rx_parse);

/*
 * Octets of the FPDU at @p, CRC field included, if it lies whole in
 * @len, else 0; its ULPDU Length in *@ulpdu
 */
static u32 siw_mpa_rx_span(const u8 *p, size_t len, u32 *ulpdu)
{
	u32 n;

	if (len < SIW_MPA_HDR_LEN)
		return 0;
	*ulpdu = get_unaligned_be16(p);
	n = SIW_MPA_HDR_LEN + *ulpdu + siw_mpa_pad_len(*ulpdu) +
	    SIW_MPA_CRC_LEN;
	return len < n ? 0 : n;
}

/* The header of the whole FPDU at @p, as siw_mpa_rx_header() leaves it */
static void siw_mpa_rx_whole_hdr(struct siw_mpa_rx *rx, const u8 *p,
				 u32 ulpdu)
{
	siw_mpa_rx_sum(rx, p, SIW_MPA_HDR_LEN);
	rx->start = rx->pos;
	rx->pos += SIW_MPA_HDR_LEN;
	rx->ulpdu_len = ulpdu;
	rx->pad = siw_mpa_pad_len(ulpdu);
	rx->stage = ulpdu ? SIW_MPA_RXS_DATA :
		    rx->pad ? SIW_MPA_RXS_PAD : SIW_MPA_RXS_CRC;
}

/*
 * Pad and CRC field of the whole FPDU at @p, as siw_mpa_rx_trailer()
 * checks them; its ULPDU was passed on. Returns true if the CRC checked
 * out (the parser is between FPDUs again), false if the stream failed.
 */
static bool siw_mpa_rx_whole_end(struct siw_mpa_rx *rx, const u8 *p,
				 u32 *rcvd, u32 *calc)
{
	const u8 *pad = p + SIW_MPA_HDR_LEN + rx->ulpdu_len;

	siw_mpa_rx_sum(rx, pad, rx->pad);
	rx->pos += rx->pad + SIW_MPA_CRC_LEN;
	*rcvd = siw_mpa_crc_get(pad + rx->pad);
	*calc = siw_mpa_crc_value(rx->crc);
	if (rx->crc_on && *rcvd != *calc) {
		rx->got = SIW_MPA_CRC_LEN;
		siw_mpa_rx_fail(rx, SIW_MPA_ERR_CRC);
		return false;
	}
	siw_mpa_rx_next_fpdu(rx);
	return true;
}

/*
 * The parser is between two FPDUs and the peer inserts no markers: the
 * next FPDU may lie whole in @p, and then its events need no gathering
 * field by field. Each event, and the parser's state while @actor sees
 * it, are what siw_mpa_rx_parse() gives for the same octets (KUnit
 * siw_mpa_rx_skb_same compares the two at every event), but for @field,
 * which only holds a field while one is gathered.
 * @ev is the caller's, so that the compiler does not clear a new one on
 * each call (the kernel's stack initialisation).
 * Returns the octets consumed: 0 if the FPDU is not whole in @len; sets
 * *@stop when @actor stopped the walk or the CRC failed.
 */
static size_t siw_mpa_rx_whole(struct siw_mpa_rx *rx, const u8 *p,
			       size_t len,
			       int (*actor)(void *ctx,
					    const struct siw_mpa_rx_ev *ev),
			       void *ctx, struct siw_mpa_rx_ev *ev, bool *stop)
{
	u32 ulpdu, span, rcvd, calc;
	bool ok;

	span = siw_mpa_rx_span(p, len, &ulpdu);
	if (!span)
		return 0;

	siw_mpa_rx_whole_hdr(rx, p, ulpdu);
	siw_mpa_rx_ev_new(rx, ev, SIW_MPA_EV_HDR);
	if (actor(ctx, ev)) {
		*stop = true;
		return SIW_MPA_HDR_LEN;
	}

	/* the ULPDU in one run, as siw_mpa_rx_data() hands it out */
	if (ulpdu) {
		siw_mpa_rx_ev_new(rx, ev, SIW_MPA_EV_DATA);
		ev->data = p + SIW_MPA_HDR_LEN;
		ev->len = ulpdu;
		if (rx->crc_on && rx->caller_sums)
			ev->crc = &rx->crc;
		else
			siw_mpa_rx_sum(rx, ev->data, ulpdu);
		rx->off = ulpdu;
		rx->pos += ulpdu;
		rx->stage = rx->pad ? SIW_MPA_RXS_PAD : SIW_MPA_RXS_CRC;
		if (actor(ctx, ev)) {
			*stop = true;
			return SIW_MPA_HDR_LEN + ulpdu;
		}
	}

	ok = siw_mpa_rx_whole_end(rx, p, &rcvd, &calc);
	siw_mpa_rx_ev_new(rx, ev, ok ? SIW_MPA_EV_FPDU : SIW_MPA_EV_ERROR);
	ev->crc_rcvd = rcvd;
	ev->crc_calc = calc;
	if (actor(ctx, ev) || !ok)
		*stop = true;
	return span;
}

/**
 * siw_mpa_rx_fpdu_whole() - does the next FPDU lie whole at @p?
 * @rx: direction state
 * @p: the next octets of the stream
 * @len: octets at @p
 *
 * For a caller that takes an FPDU in one step, without events
 * (siw_mpa_rx_fpdu_take(), then siw_mpa_rx_fpdu_done()): the parser is
 * between two FPDUs, the peer inserts no markers and the FPDU, its CRC
 * field included, lies in @len. Changes nothing.
 *
 * Context: any.
 * Returns: the FPDU's ULPDU Length, or -1 if it cannot be taken whole.
 */
int siw_mpa_rx_fpdu_whole(const struct siw_mpa_rx *rx, const u8 *p,
			  size_t len)
{
	u32 ulpdu;

	if (rx->markers || !siw_mpa_rx_idle(rx) ||
	    !siw_mpa_rx_span(p, len, &ulpdu))
		return -1;
	return ulpdu;
}
EXPORT_SYMBOL_IF_KUNIT(siw_mpa_rx_fpdu_whole);

/**
 * siw_mpa_rx_fpdu_take() - begin the FPDU siw_mpa_rx_fpdu_whole() found
 * @rx: direction state
 * @p: the octets siw_mpa_rx_fpdu_whole() was given
 *
 * The caller consumes the whole ULPDU, at @p + SIW_MPA_HDR_LEN, then
 * calls siw_mpa_rx_fpdu_done(); the parser is inside the FPDU meanwhile.
 *
 * Context: any; the caller serialises @rx.
 * Returns: NULL if the parser summed the ULPDU (CRCs off, or without
 * siw_mpa_rx_caller_sums()); else the FPDU's CRC state, which the caller
 * must feed every octet of the ULPDU into, once and in order.
 */
u32 *siw_mpa_rx_fpdu_take(struct siw_mpa_rx *rx, const u8 *p)
{
	siw_mpa_rx_whole_hdr(rx, p, get_unaligned_be16(p));
	if (rx->crc_on && rx->caller_sums)
		return &rx->crc;
	siw_mpa_rx_sum(rx, p + SIW_MPA_HDR_LEN, rx->ulpdu_len);
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(siw_mpa_rx_fpdu_take);

/**
 * siw_mpa_rx_fpdu_done() - end the FPDU siw_mpa_rx_fpdu_take() began
 * @rx: direction state
 * @p: the same octets
 *
 * Context: any; the caller serialises @rx.
 * Returns: true if the CRC checked out (or CRCs are off): the parser is
 * between FPDUs again; false if the stream failed on the CRC, as
 * siw_mpa_rx_parse() reports it (SIW_MPA_ERR_CRC).
 */
bool siw_mpa_rx_fpdu_done(struct siw_mpa_rx *rx, const u8 *p)
{
	u32 rcvd, calc;

	rx->off = rx->ulpdu_len;
	rx->pos += rx->ulpdu_len;
	return siw_mpa_rx_whole_end(rx, p, &rcvd, &calc);
}
EXPORT_SYMBOL_IF_KUNIT(siw_mpa_rx_fpdu_done);

/**
 * siw_mpa_rx_skb() - parse a range of an skb, page fragments included
 * @rx: direction state
 * @skb: the buffer (linear part, fragments, frag list)
 * @offset: first octet of @skb to parse
 * @len: octets to parse
 * @actor: called for every event but SIW_MPA_EV_MORE; a non-zero return
 *	stops the walk after that event
 * @ctx: passed to @actor
 *
 * Walks @skb with skb_seq_read(), which maps one fragment at a time, and
 * runs siw_mpa_rx_parse() over each piece; without markers, an FPDU that
 * a piece holds whole is taken in one step, with the same events.
 * Stops after an error event.
 *
 * Context: any; does not allocate or sleep.
 * Returns: octets consumed, @len unless @actor stopped the walk or the
 * stream failed.
 */
unsigned int siw_mpa_rx_skb(struct siw_mpa_rx *rx, struct sk_buff *skb,
			    unsigned int offset, unsigned int len,
			    int (*actor)(void *ctx,
					 const struct siw_mpa_rx_ev *ev),
			    void *ctx)
{
	struct skb_seq_state st;
	struct siw_mpa_rx_ev ev;
	unsigned int done = 0;
	unsigned int chunk;
	bool stop = false;
	const u8 *data;
	size_t off, n;

	skb_prepare_seq_read(skb, offset, offset + len, &st);
	while ((chunk = skb_seq_read(done, &data, &st)) != 0) {
		/* a run may go on past @offset + @len */
		chunk = min(chunk, len - done);
		for (off = 0; off < chunk; ) {
			if (!rx->markers && siw_mpa_rx_idle(rx)) {
				n = siw_mpa_rx_whole(rx, data + off,
						     chunk - off, actor, ctx,
						     &ev, &stop);
				off += n;
				if (stop) {
					skb_abort_seq_read(&st);
					return done + off;
				}
				if (n)
					continue;
			}
			off += siw_mpa_rx_parse(rx, data + off, chunk - off, &ev);
			if (ev.kind == SIW_MPA_EV_MORE)
				continue;
			if (actor(ctx, &ev) || ev.kind == SIW_MPA_EV_ERROR) {
				skb_abort_seq_read(&st);
				return done + off;
			}
		}
		done += chunk;
	}
	return done;
}
EXPORT_SYMBOL_IF_KUNIT(siw_mpa_rx_skb);
