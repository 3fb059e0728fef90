// SPDX-License-Identifier: GPL-2.0
/*
 * MPA Request, Reply and Reject frames (RFC 5044 section 7.1.1, RFC 6581
 * sections 6 and 9): building them, decoding them, and receiving them
 * incrementally from the stream.
 *
 * Decoding is syntax only: the key and its role, Rev 1 or 2, PD_Length
 * at most 512, at least 4 octets of private data when S is set. What the
 * fields mean for the connection is mpa_negotiate.c's business. Reserved
 * bits are sent as zero and ignored on receive; so are R in a request, S
 * in a rev 1 frame and B, C, D when A is clear.
 */
#include <kunit/visibility.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/string.h>

#include "mpa_wire.h"

/**
 * struct siw_mpa_frame_stinfo - one row of the frame status table
 * @name: for logs and traces
 * @err: the MPA error code it amounts to
 */
struct siw_mpa_frame_stinfo {
	const char *name;
	enum siw_mpa_err err;
};

static const struct siw_mpa_frame_stinfo
siw_mpa_frame_sts[SIW_MPA_FRAME_NUM_ST] = {
	[SIW_MPA_FRAME_MORE]	= { "incomplete", SIW_MPA_OK },
	[SIW_MPA_FRAME_DONE]	= { "complete", SIW_MPA_OK },
	[SIW_MPA_FRAME_EKEY]	= { "not an MPA key", SIW_MPA_ERR_FRAME },
	[SIW_MPA_FRAME_EROLE]	= { "key of the wrong role", SIW_MPA_ERR_FRAME },
	[SIW_MPA_FRAME_EREV]	= { "unsupported revision", SIW_MPA_ERR_FRAME },
	[SIW_MPA_FRAME_EPDLEN]	= { "PD_Length above 512", SIW_MPA_ERR_FRAME },
	[SIW_MPA_FRAME_EENH]	= { "S set, PD_Length below 4",
				    SIW_MPA_ERR_FRAME },
	[SIW_MPA_FRAME_ETRUNC]	= { "stream ended inside the frame",
				    SIW_MPA_ERR_CLOSED },
};

/**
 * siw_mpa_frame_st_name() - name of a frame status
 * @st: the status
 *
 * Context: any.
 * Returns: a constant string.
 */
const char *siw_mpa_frame_st_name(enum siw_mpa_frame_st st)
{
	if ((unsigned int)st >= SIW_MPA_FRAME_NUM_ST)
		return "unknown";
	return siw_mpa_frame_sts[st].name;
}
EXPORT_SYMBOL_IF_KUNIT(siw_mpa_frame_st_name);

/**
 * siw_mpa_frame_st_err() - the MPA error a frame status amounts to
 * @st: the status
 *
 * Malformed frames are error 4 (the TCP connection must be closed), a
 * stream that ends inside the frame error 1.
 *
 * Context: any.
 * Returns: SIW_MPA_OK for SIW_MPA_FRAME_MORE and SIW_MPA_FRAME_DONE.
 */
enum siw_mpa_err siw_mpa_frame_st_err(enum siw_mpa_frame_st st)
{
	if ((unsigned int)st >= SIW_MPA_FRAME_NUM_ST)
		return SIW_MPA_ERR_FRAME;
	return siw_mpa_frame_sts[st].err;
}
EXPORT_SYMBOL_IF_KUNIT(siw_mpa_frame_st_err);

static const char *siw_mpa_key(bool reply)
{
	return reply ? SIW_MPA_KEY_REP : SIW_MPA_KEY_REQ;
}

static void siw_mpa_enh_pack(const struct siw_mpa_frame *f,
			     struct siw_mpa_enh_wire *w)
{
	u16 word[2] = { f->ird, f->ord };
	const struct siw_mpa_rtr_info *ri;
	enum siw_mpa_rtr t;

	if (f->p2p) {
		word[0] |= SIW_MPA_ENH_A;
		for (t = 0; t < SIW_MPA_NUM_RTR; t++) {
			ri = siw_mpa_rtr_info(t);
			if (f->rtr & SIW_MPA_RTR_F(t))
				word[ri->in_ord_word] |= ri->flag;
		}
	}
	w->ird = cpu_to_be16(word[0]);
	w->ord = cpu_to_be16(word[1]);
}

static int siw_mpa_frame_check(const struct siw_mpa_frame *f)
{
	if (f->rev != SIW_MPA_REV_1 && f->rev != SIW_MPA_REV_2)
		return -EINVAL;
	if (f->reject && !f->reply)
		return -EINVAL;
	if (f->pd_len && !f->pd)
		return -EINVAL;
	if (!f->enhanced)
		return 0;
	if (f->rev < SIW_MPA_REV_2 || f->ird > SIW_MPA_ENH_VAL ||
	    f->ord > SIW_MPA_ENH_VAL || (f->rtr & ~SIW_MPA_RTR_ALL) ||
	    (f->rtr && !f->p2p))
		return -EINVAL;
	return 0;
}

/**
 * siw_mpa_frame_build() - write an MPA Request or Reply frame
 * @f: the frame; @f->reply picks the key, @f->enhanced adds the 4 octets
 *	of enhanced data before @f->pd
 * @buf: where it goes
 * @size: room at @buf
 *
 * Reserved bits are written as zero, R only in a reply, S only in rev 2.
 *
 * Context: any.
 * Returns: octets written; -EINVAL for a Rev other than 1 or 2, S with
 * Rev 1, R in a request, RTR flags without A or IRD/ORD above 0x3FFF;
 * -EMSGSIZE if the private data exceeds 512 octets; -ENOSPC if @size is
 * too small.
 */
ssize_t siw_mpa_frame_build(const struct siw_mpa_frame *f, void *buf,
			    size_t size)
{
	struct siw_mpa_rr_wire *w = buf;
	size_t enh = f->enhanced ? SIW_MPA_ENH_LEN : 0;
	size_t pd_len = enh + f->pd_len;
	int rv;

	rv = siw_mpa_frame_check(f);
	if (rv)
		return rv;
	if (pd_len > SIW_MPA_PD_MAX)
		return -EMSGSIZE;
	if (size < SIW_MPA_RR_LEN + pd_len)
		return -ENOSPC;

	memcpy(w->key, siw_mpa_key(f->reply), SIW_MPA_KEY_LEN);
	w->flags = (f->markers ? SIW_MPA_RR_M : 0) |
		   (f->crc ? SIW_MPA_RR_C : 0) |
		   (f->reject ? SIW_MPA_RR_R : 0) |
		   (f->enhanced ? SIW_MPA_RR_S : 0);
	w->rev = f->rev;
	w->pd_len = cpu_to_be16(pd_len);
	if (enh)
		siw_mpa_enh_pack(f, (void *)(w + 1));
	if (f->pd_len)
		memcpy((u8 *)(w + 1) + enh, f->pd, f->pd_len);
	return SIW_MPA_RR_LEN + pd_len;
}
EXPORT_SYMBOL_IF_KUNIT(siw_mpa_frame_build);

/* What the 20-octet header alone tells */
static enum siw_mpa_frame_st siw_mpa_frame_hdr(const struct siw_mpa_rr_wire *w,
					       bool want_reply)
{
	u16 pd_len = be16_to_cpu(w->pd_len);

	if (memcmp(w->key, siw_mpa_key(want_reply), SIW_MPA_KEY_LEN))
		return memcmp(w->key, siw_mpa_key(!want_reply),
			      SIW_MPA_KEY_LEN) ?
		       SIW_MPA_FRAME_EKEY : SIW_MPA_FRAME_EROLE;
	if (w->rev != SIW_MPA_REV_1 && w->rev != SIW_MPA_REV_2)
		return SIW_MPA_FRAME_EREV;
	if (pd_len > SIW_MPA_PD_MAX)
		return SIW_MPA_FRAME_EPDLEN;
	if (w->rev >= SIW_MPA_REV_2 && (w->flags & SIW_MPA_RR_S) &&
	    pd_len < SIW_MPA_ENH_LEN)
		return SIW_MPA_FRAME_EENH;
	return SIW_MPA_FRAME_DONE;
}

static void siw_mpa_enh_unpack(const struct siw_mpa_enh_wire *w,
			       struct siw_mpa_frame *f)
{
	const struct siw_mpa_rtr_info *ri;
	enum siw_mpa_rtr t;
	__be16 word;

	f->ird = siw_mpa_enh_val(w->ird);
	f->ord = siw_mpa_enh_val(w->ord);
	f->p2p = siw_mpa_enh_flag(w->ird, SIW_MPA_ENH_A);
	f->rtr = 0;
	if (!f->p2p)
		return;
	for (t = 0; t < SIW_MPA_NUM_RTR; t++) {
		ri = siw_mpa_rtr_info(t);
		word = ri->in_ord_word ? w->ord : w->ird;
		if (siw_mpa_enh_flag(word, ri->flag))
			f->rtr |= SIW_MPA_RTR_F(t);
	}
}

/* Fill @f from a complete frame whose header passed siw_mpa_frame_hdr() */
static void siw_mpa_frame_fill(const u8 *buf, bool reply,
			       struct siw_mpa_frame *f)
{
	const struct siw_mpa_rr_wire *w = (const void *)buf;
	u8 flags = siw_mpa_rr_flags(w);

	memset(f, 0, sizeof(*f));
	f->reply = reply;
	f->rev = w->rev;
	f->markers = flags & SIW_MPA_RR_M;
	f->crc = flags & SIW_MPA_RR_C;
	f->reject = reply && (flags & SIW_MPA_RR_R);
	f->enhanced = w->rev >= SIW_MPA_REV_2 && (flags & SIW_MPA_RR_S);
	f->pd = buf + SIW_MPA_RR_LEN;
	f->pd_len = be16_to_cpu(w->pd_len);
	f->ird = SIW_MPA_IRD_ORD_ULP;
	f->ord = SIW_MPA_IRD_ORD_ULP;
	if (!f->enhanced)
		return;
	siw_mpa_enh_unpack((const void *)f->pd, f);
	f->pd += SIW_MPA_ENH_LEN;
	f->pd_len -= SIW_MPA_ENH_LEN;
}

/**
 * siw_mpa_frame_decode() - decode a frame held in one buffer
 * @buf: the frame
 * @len: octets at @buf; octets past the frame's end are not looked at
 * @want_reply: expect a reply (we are the initiator)
 * @f: filled when the frame is well formed; @f->pd points into @buf
 *
 * Context: any.
 * Returns: SIW_MPA_FRAME_DONE, SIW_MPA_FRAME_ETRUNC if @buf ends inside
 * the frame, or the error the header shows.
 */
enum siw_mpa_frame_st siw_mpa_frame_decode(const void *buf, size_t len,
					   bool want_reply,
					   struct siw_mpa_frame *f)
{
	const struct siw_mpa_rr_wire *w = buf;
	enum siw_mpa_frame_st st;

	if (len < SIW_MPA_RR_LEN)
		return SIW_MPA_FRAME_ETRUNC;
	st = siw_mpa_frame_hdr(w, want_reply);
	if (st != SIW_MPA_FRAME_DONE)
		return st;
	if (len < SIW_MPA_RR_LEN + be16_to_cpu(w->pd_len))
		return SIW_MPA_FRAME_ETRUNC;
	siw_mpa_frame_fill(buf, want_reply, f);
	return SIW_MPA_FRAME_DONE;
}
EXPORT_SYMBOL_IF_KUNIT(siw_mpa_frame_decode);

/**
 * siw_mpa_frame_rx_init() - get ready to receive one frame
 * @fr: receiver state
 * @want_reply: expect a reply (we are the initiator)
 *
 * Context: any.
 */
void siw_mpa_frame_rx_init(struct siw_mpa_frame_rx *fr, bool want_reply)
{
	memset(&fr->frame, 0, sizeof(fr->frame));
	fr->got = 0;
	fr->need = SIW_MPA_RR_LEN;
	fr->st = SIW_MPA_FRAME_MORE;
	fr->want_reply = want_reply;
}
EXPORT_SYMBOL_IF_KUNIT(siw_mpa_frame_rx_init);

/**
 * siw_mpa_frame_rx_feed() - take received octets of a frame
 * @fr: receiver state
 * @buf: the next octets of the stream
 * @len: how many
 * @st: the status after them
 *
 * Takes no octet past the end of the frame: what follows it is the
 * start of MPA full operation, or a protocol error the caller sees as
 * octets left over. The header is checked as soon as its 20 octets are
 * in, so a bad key or PD_Length is caught before any private data.
 *
 * Context: any.
 * Returns: octets of @buf consumed.
 */
size_t siw_mpa_frame_rx_feed(struct siw_mpa_frame_rx *fr, const void *buf,
			     size_t len, enum siw_mpa_frame_st *st)
{
	const struct siw_mpa_rr_wire *w = (const void *)fr->buf;
	size_t used = 0;
	size_t n;

	while (fr->st == SIW_MPA_FRAME_MORE && used < len) {
		n = min_t(size_t, fr->need - fr->got, len - used);
		memcpy(fr->buf + fr->got, (const u8 *)buf + used, n);
		fr->got += n;
		used += n;
		if (fr->got < fr->need)
			break;
		if (fr->need == SIW_MPA_RR_LEN) {
			fr->st = siw_mpa_frame_hdr(w, fr->want_reply);
			if (fr->st != SIW_MPA_FRAME_DONE)
				break;
			fr->need += be16_to_cpu(w->pd_len);
			if (fr->got < fr->need) {
				fr->st = SIW_MPA_FRAME_MORE;
				continue;
			}
		}
		siw_mpa_frame_fill(fr->buf, fr->want_reply, &fr->frame);
		fr->st = SIW_MPA_FRAME_DONE;
	}
	*st = fr->st;
	return used;
}
EXPORT_SYMBOL_IF_KUNIT(siw_mpa_frame_rx_feed);

/**
 * siw_mpa_frame_rx_eof() - the stream ended
 * @fr: receiver state
 *
 * Context: any.
 * Returns: SIW_MPA_FRAME_ETRUNC if the frame was incomplete, else the
 * status it already had.
 */
enum siw_mpa_frame_st siw_mpa_frame_rx_eof(struct siw_mpa_frame_rx *fr)
{
	if (fr->st == SIW_MPA_FRAME_MORE)
		fr->st = SIW_MPA_FRAME_ETRUNC;
	return fr->st;
}
EXPORT_SYMBOL_IF_KUNIT(siw_mpa_frame_rx_eof);
