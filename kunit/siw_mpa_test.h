/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the siw_mpa_* KUnit suites.
 *
 * The reference model below writes an MPA stream octet by octet, the way
 * RFC 5044 sections 4.1 to 4.4 describe it: the FPDU body first, a
 * marker wherever the stream offset is a multiple of 512 (FPDUPTR 0 right
 * before a header, the distance back to the header elsewhere), then one
 * CRC32c over the finished wire image of the FPDU. It shares no code with
 * the layer under test but the kernel's crc32c(), which the siw_mpa_crc
 * suite pins to the RFC 3720 vectors.
 */
#ifndef SIW_MPA_TEST_H
#define SIW_MPA_TEST_H

#include <kunit/test.h>
#include <linux/crc32c.h>
#include <linux/string.h>
#include "siw_compat.h"

#include "siw_mpa/mpa_wire.h"

/* KUNIT_ARRAY_PARAM description: every case table has a ->name */
#define MPA_CASE_DESC(type)						\
	static void type##_desc(const struct type *c, char *desc)	\
	{								\
		strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);		\
	}

/* Index of the first octet that differs, @len if none */
static inline size_t mpa_first_diff(const void *a, const void *b, size_t len)
{
	const u8 *x = a, *y = b;
	size_t i;

	for (i = 0; i < len; i++)
		if (x[i] != y[i])
			break;
	return i;
}

/* KUnit of 6.1 has no KUNIT_EXPECT_MEMEQ */
#define MPA_EXPECT_BYTES(test, got, exp, len)				\
	do {								\
		const u8 *__g = (const u8 *)(got);			\
		const u8 *__e = (const u8 *)(exp);			\
		size_t __n = (len);					\
		size_t __i = mpa_first_diff(__g, __e, __n);		\
									\
		KUNIT_EXPECT_EQ_MSG(test, __i, __n,			\
				    "octet %zu: got 0x%02x, want 0x%02x", \
				    __i, __i < __n ? __g[__i] : 0,	\
				    __i < __n ? __e[__i] : 0);		\
	} while (0)

/* ULPDU contents: a pattern that differs from FPDU to FPDU */
static inline u8 mpa_pat(u32 i, u8 seed)
{
	return (u8)(seed + i * 13 + (i >> 8));
}

/* The standard CRC32c value, straight from the kernel */
static inline u32 mpa_ref_crc(const void *p, size_t len)
{
	return ~crc32c(~0U, p, len);
}

/* What each octet of a reference stream is */
enum mpa_ref_kind {
	MPA_K_HDR = 1,
	MPA_K_DATA,
	MPA_K_PAD,
	MPA_K_CRC,
	MPA_K_MARKER,
};

#define MPA_REF_MAX_FPDU	8

/**
 * struct mpa_ref_fpdu - where one FPDU of a reference stream is
 * @first: index of its first octet (a leading marker or its header)
 * @hdr: index of its ULPDU Length field
 * @crc: index of its CRC field
 * @end: index after its CRC field
 * @ulp: index of its ULPDU in the concatenated ULPDUs
 * @ulpdu_len: ULPDU octets
 * @crc_val: the CRC value it carries (0 with CRCs off)
 */
struct mpa_ref_fpdu {
	u32 first;
	u32 hdr;
	u32 crc;
	u32 end;
	u32 ulp;
	u32 ulpdu_len;
	u32 crc_val;
};

/**
 * struct mpa_ref - a reference MPA stream
 * @buf: the wire image
 * @kind: enum mpa_ref_kind of every octet of @buf
 * @ulp: every ULPDU, concatenated
 * @size: room at @buf and @kind
 * @ulp_size: room at @ulp
 * @len: octets in @buf
 * @ulp_len: octets in @ulp
 * @pos0: stream offset of @buf[0]
 * @markers: markers on
 * @crc: CRCs on
 * @nfpdu: FPDUs in @fpdu
 * @fpdu: the FPDUs
 */
struct mpa_ref {
	u8 *buf;
	u8 *kind;
	u8 *ulp;
	size_t size;
	size_t ulp_size;
	size_t len;
	size_t ulp_len;
	u32 pos0;
	bool markers;
	bool crc;
	unsigned int nfpdu;
	struct mpa_ref_fpdu fpdu[MPA_REF_MAX_FPDU];
};

static inline struct mpa_ref *mpa_ref_new(struct kunit *test, size_t size,
					  u32 pos0, bool markers, bool crc)
{
	struct mpa_ref *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, r);
	r->buf = kunit_kzalloc(test, size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, r->buf);
	r->kind = kunit_kzalloc(test, size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, r->kind);
	r->ulp = kunit_kzalloc(test, size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, r->ulp);
	r->size = size;
	r->ulp_size = size;
	r->pos0 = pos0;
	r->markers = markers;
	r->crc = crc;
	return r;
}

static inline void mpa_ref_put(struct mpa_ref *r, u8 b, enum mpa_ref_kind k)
{
	if (r->len < r->size) {
		r->buf[r->len] = b;
		r->kind[r->len] = k;
	}
	r->len++;
}

/* A marker if the stream is at a multiple of 512 */
static inline void mpa_ref_marker(struct mpa_ref *r,
				  const struct mpa_ref_fpdu *f, bool lead)
{
	u32 pos = r->pos0 + (u32)r->len;
	u16 ptr;

	if (!r->markers || pos % 512)
		return;
	ptr = lead ? 0 : (u16)(pos - (r->pos0 + f->hdr));
	mpa_ref_put(r, 0, MPA_K_MARKER);
	mpa_ref_put(r, 0, MPA_K_MARKER);
	mpa_ref_put(r, ptr >> 8, MPA_K_MARKER);
	mpa_ref_put(r, ptr & 0xff, MPA_K_MARKER);
}

/* Recompute and store the CRC of FPDU @i, e.g. after changing it */
static inline void mpa_ref_recrc(struct mpa_ref *r, unsigned int i)
{
	struct mpa_ref_fpdu *f = &r->fpdu[i];

	f->crc_val = r->crc ? mpa_ref_crc(r->buf + f->first,
					  f->crc - f->first) : 0;
	put_unaligned_le32(f->crc_val, r->buf + f->crc);
}

/**
 * mpa_ref_add() - append one FPDU to a reference stream
 * @r: the stream
 * @ulpdu_len: its ULPDU octets
 * @ulpdu: its ULPDU, or NULL for mpa_pat() with seed @seed
 * @seed: pattern seed
 *
 * Returns: the FPDU's index, or -1 if @r is full.
 */
static inline int mpa_ref_add(struct mpa_ref *r, u32 ulpdu_len,
			      const u8 *ulpdu, u8 seed)
{
	u32 body = 2 + ulpdu_len + ((4 - (2 + ulpdu_len) % 4) % 4);
	struct mpa_ref_fpdu *f;
	u32 i;
	u8 b;

	if (r->nfpdu == MPA_REF_MAX_FPDU || r->ulp_len + ulpdu_len > r->ulp_size)
		return -1;
	f = &r->fpdu[r->nfpdu];
	f->first = r->len;
	f->ulpdu_len = ulpdu_len;
	f->ulp = r->ulp_len;
	for (i = 0; i < body; i++) {
		mpa_ref_marker(r, f, i == 0);
		if (i == 0) {
			f->hdr = r->len;
			b = ulpdu_len >> 8;
		} else if (i == 1) {
			b = ulpdu_len & 0xff;
		} else if (i - 2 < ulpdu_len) {
			b = ulpdu ? ulpdu[i - 2] : mpa_pat(i - 2, seed);
			r->ulp[r->ulp_len++] = b;
		} else {
			b = 0;
		}
		mpa_ref_put(r, b, i < 2 ? MPA_K_HDR :
			    i - 2 < ulpdu_len ? MPA_K_DATA : MPA_K_PAD);
	}
	mpa_ref_marker(r, f, false);
	f->crc = r->len;
	for (i = 0; i < 4; i++)
		mpa_ref_put(r, 0, MPA_K_CRC);
	f->end = r->len;
	if (r->len > r->size)
		return -1;
	mpa_ref_recrc(r, r->nfpdu);
	return r->nfpdu++;
}

/* Make @dst a copy of @src; @dst must be as large */
static inline void mpa_ref_copy(struct mpa_ref *dst, const struct mpa_ref *src)
{
	memcpy(dst->buf, src->buf, src->len);
	memcpy(dst->kind, src->kind, src->len);
	memcpy(dst->ulp, src->ulp, src->ulp_len);
	dst->len = src->len;
	dst->ulp_len = src->ulp_len;
	dst->pos0 = src->pos0;
	dst->markers = src->markers;
	dst->crc = src->crc;
	dst->nfpdu = src->nfpdu;
	memcpy(dst->fpdu, src->fpdu, sizeof(src->fpdu));
}

/* Index of the @n-th octet of kind @k within FPDU @i, -1 if none */
static inline long mpa_ref_find(const struct mpa_ref *r, unsigned int i,
				enum mpa_ref_kind k, u32 n)
{
	const struct mpa_ref_fpdu *f = &r->fpdu[i];
	u32 j;

	for (j = f->first; j < f->end; j++)
		if (r->kind[j] == k && !n--)
			return j;
	return -1;
}

/**
 * struct mpa_rx_log - what a receive run reported
 * @data: ULPDU octets received, concatenated
 * @size: room at @data
 * @data_len: octets in @data
 * @cur: ULPDU octets of the current FPDU received so far
 * @nhdr: SIW_MPA_EV_HDR events
 * @nfpdu: SIW_MPA_EV_FPDU events
 * @ndata: SIW_MPA_EV_DATA events
 * @nerr: SIW_MPA_EV_ERROR events
 * @err: the error reported
 * @bad: a DATA event arrived out of order or outside an FPDU
 * @len: ULPDU Length of each FPDU, as reported by HDR
 * @crc: crc_calc of each FPDU event
 */
struct mpa_rx_log {
	u8 *data;
	size_t size;
	size_t data_len;
	u32 cur;
	unsigned int nhdr;
	unsigned int nfpdu;
	unsigned int ndata;
	unsigned int nerr;
	enum siw_mpa_err err;
	bool bad;
	u32 len[MPA_REF_MAX_FPDU];
	u32 crc[MPA_REF_MAX_FPDU];
};

static inline void mpa_log_reset(struct mpa_rx_log *log)
{
	u8 *data = log->data;
	size_t size = log->size;

	memset(log, 0, sizeof(*log));
	log->data = data;
	log->size = size;
}

static inline struct mpa_rx_log *mpa_log_new(struct kunit *test, size_t size)
{
	struct mpa_rx_log *log = kunit_kzalloc(test, sizeof(*log), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, log);
	log->data = kunit_kzalloc(test, size ? size : 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, log->data);
	log->size = size;
	return log;
}

static inline void mpa_log_event(struct mpa_rx_log *log,
				 const struct siw_mpa_rx_ev *ev)
{
	switch (ev->kind) {
	case SIW_MPA_EV_HDR:
		if (log->nhdr != log->nfpdu)
			log->bad = true;
		if (log->nhdr < MPA_REF_MAX_FPDU)
			log->len[log->nhdr] = ev->ulpdu_len;
		log->nhdr++;
		log->cur = 0;
		break;
	case SIW_MPA_EV_DATA:
		if (ev->off != log->cur || log->nhdr != log->nfpdu + 1 ||
		    !ev->len || ev->off + ev->len > ev->ulpdu_len ||
		    log->data_len + ev->len > log->size) {
			log->bad = true;
			break;
		}
		memcpy(log->data + log->data_len, ev->data, ev->len);
		log->data_len += ev->len;
		log->cur += ev->len;
		log->ndata++;
		break;
	case SIW_MPA_EV_FPDU:
		if (log->cur != ev->ulpdu_len || log->nhdr != log->nfpdu + 1)
			log->bad = true;
		if (log->nfpdu < MPA_REF_MAX_FPDU)
			log->crc[log->nfpdu] = ev->crc_calc;
		log->nfpdu++;
		break;
	case SIW_MPA_EV_ERROR:
		log->nerr++;
		log->err = ev->err;
		break;
	default:
		break;
	}
}

/* Parse @len octets; stops at the first error. Returns octets consumed */
static inline size_t mpa_rx_feed(struct siw_mpa_rx *rx, const u8 *buf,
				 size_t len, struct mpa_rx_log *log)
{
	struct siw_mpa_rx_ev ev;
	size_t off = 0;

	while (off < len) {
		off += siw_mpa_rx_parse(rx, buf + off, len - off, &ev);
		if (ev.kind == SIW_MPA_EV_MORE)
			break;
		mpa_log_event(log, &ev);
		if (ev.kind == SIW_MPA_EV_ERROR)
			break;
	}
	return off;
}

static inline void mpa_rx_start(struct siw_mpa_rx *rx, const struct mpa_ref *r)
{
	siw_mpa_rx_init(rx, r->markers, r->crc);
	rx->pos = r->pos0;
}

/* Does @log hold exactly the FPDUs of @r, without error? */
static inline bool mpa_log_matches(const struct mpa_rx_log *log,
				   const struct mpa_ref *r)
{
	unsigned int i;

	if (log->bad || log->nerr || log->nfpdu != r->nfpdu ||
	    log->nhdr != r->nfpdu || log->data_len != r->ulp_len)
		return false;
	for (i = 0; i < r->nfpdu; i++)
		if (log->len[i] != r->fpdu[i].ulpdu_len ||
		    log->crc[i] != r->fpdu[i].crc_val)
			return false;
	return !memcmp(log->data, r->ulp, r->ulp_len);
}

/* Explain a mismatch of mpa_log_matches() */
static inline void mpa_log_expect(struct kunit *test,
				  const struct mpa_rx_log *log,
				  const struct mpa_ref *r, const char *how)
{
	unsigned int i;

	KUNIT_EXPECT_FALSE_MSG(test, log->bad, "%s: events out of order", how);
	KUNIT_EXPECT_EQ_MSG(test, log->nerr, 0U, "%s: error %d", how,
			    log->err);
	KUNIT_EXPECT_EQ_MSG(test, log->nhdr, r->nfpdu, "%s: headers", how);
	KUNIT_EXPECT_EQ_MSG(test, log->nfpdu, r->nfpdu, "%s: FPDUs", how);
	KUNIT_EXPECT_EQ_MSG(test, log->data_len, r->ulp_len, "%s: data", how);
	for (i = 0; i < r->nfpdu && i < log->nfpdu; i++) {
		KUNIT_EXPECT_EQ_MSG(test, log->len[i], r->fpdu[i].ulpdu_len,
				    "%s: FPDU %u length", how, i);
		KUNIT_EXPECT_EQ_MSG(test, log->crc[i], r->fpdu[i].crc_val,
				    "%s: FPDU %u CRC", how, i);
	}
	if (log->data_len == r->ulp_len)
		MPA_EXPECT_BYTES(test, log->data, r->ulp, r->ulp_len);
}

/* Frame one ULPDU with the layer under test, feeding data in two halves */
static inline ssize_t mpa_frame_pieces(struct siw_mpa_fpdu *f,
				       struct siw_mpa_tx *tx,
				       const u8 *ulpdu, u32 ulpdu_len,
				       u8 *out, size_t size)
{
	struct siw_mpa_piece p;
	size_t done = 0;
	u32 half;
	int rv;

	rv = siw_mpa_fpdu_begin(f, tx, ulpdu_len);
	if (rv)
		return rv;
	while ((rv = siw_mpa_fpdu_next(f, &p)) > 0) {
		if (done + p.len > size)
			return -ENOSPC;
		if (p.kind == SIW_MPA_PIECE_MPA) {
			memcpy(out + done, p.buf, p.len);
		} else {
			memcpy(out + done, ulpdu + p.off, p.len);
			half = p.len / 2;
			siw_mpa_fpdu_data(f, ulpdu + p.off, half);
			siw_mpa_fpdu_data(f, ulpdu + p.off + half,
					  p.len - half);
		}
		done += p.len;
	}
	return rv ? rv : (ssize_t)done;
}

#endif /* SIW_MPA_TEST_H */
