// SPDX-License-Identifier: GPL-2.0
/*
 * Terminate messages (RFC 5040 section 4.8): building one that
 * reports an error together with the offending headers, and parsing a
 * received one for the QP layer.
 *
 * The control field is laid out octet by octet as the RFC draws it:
 * Layer in the high nibble of the first octet, EType in the low nibble,
 * the Error Code octet, then M, D and R as the three high bits of the
 * third octet. Never a C bitfield: its order depends on the host.
 */
#include <kunit/visibility.h>
#include <linux/export.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <asm/byteorder.h>
#include "siw_compat.h"

#include "ddp_wire.h"
#include "siw_ddp.h"

#define SIW_TERM_SEGLEN_SIZE	2

/* How much of the offending segment the Terminate carries */
struct siw_term_parts {
	size_t ddp_len;		/* 0, 14 or 18 */
	size_t rreq_len;	/* 0 or 28 */
	bool seg_len_field;	/* the 16-bit length field is present */
	u16 hdrct;
};

static bool siw_term_is_rreq(const u8 *seg)
{
	return !siw_ddp_ctrl_tagged(seg[0]) &&
	       siw_rdmap_ctrl_opcode(seg[1]) == SIW_RDMAP_READ_REQ;
}

/*
 * D and R follow from what the caller has of the offending segment; M
 * from whether it knows the segment length. The length field goes out
 * whenever D is set too (as zero without M), so a peer that reads it
 * for D alone and one that reads it for M alone both parse us.
 */
static void siw_term_plan(const struct siw_rdmap_term_info *ti,
			  struct siw_term_parts *pp)
{
	size_t hlen = siw_ddp_hdr_len(ti->seg, ti->seg ? ti->seg_avail : 0);

	memset(pp, 0, sizeof(*pp));
	if (ti->seg_len_valid)
		pp->hdrct |= SIW_TERM_HDRCT_M;
	if (hlen && ti->seg_avail >= hlen) {
		pp->ddp_len = hlen;
		pp->hdrct |= SIW_TERM_HDRCT_D;
		if (siw_term_is_rreq(ti->seg) &&
		    ti->seg_avail >= hlen + SIW_RDMAP_RREQ_LEN) {
			pp->rreq_len = SIW_RDMAP_RREQ_LEN;
			pp->hdrct |= SIW_TERM_HDRCT_R;
		}
	}
	pp->seg_len_field = pp->hdrct & (SIW_TERM_HDRCT_M | SIW_TERM_HDRCT_D);
}

static size_t siw_term_payload_len(const struct siw_term_parts *pp)
{
	return SIW_RDMAP_TERM_HLEN +
	       (pp->seg_len_field ? SIW_TERM_SEGLEN_SIZE : 0) +
	       pp->ddp_len + pp->rreq_len;
}

static void siw_term_write_payload(const struct siw_rdmap_term_info *ti,
				   const struct siw_term_parts *pp, u8 *p)
{
	const struct siw_ddp_errinfo *e = siw_ddp_errinfo(ti->err);
	struct siw_rdmap_term_wire *t = (struct siw_rdmap_term_wire *)p;

	t->layer_etype = siw_term_layer_etype(e->layer, e->etype);
	t->ecode = e->ecode;
	t->hdrct = cpu_to_be16(pp->hdrct);
	p += sizeof(*t);

	if (pp->seg_len_field) {
		put_unaligned_be16(ti->seg_len_valid ? ti->seg_len : 0, p);
		p += SIW_TERM_SEGLEN_SIZE;
	}
	/* the offending DDP header and Read Request header are contiguous */
	if (pp->ddp_len)
		memcpy(p, ti->seg, pp->ddp_len + pp->rreq_len);
}

/**
 * siw_rdmap_term_build() - build a whole Terminate message
 * @ti: the error and the offending segment
 * @msn: MSN of the Terminate on queue 2 (1 for the first)
 * @buf: where to write; SIW_RDMAP_TERM_MAX_MSG octets always suffice
 * @size: octets available at @buf
 *
 * Writes the untagged DDP header (queue 2, MO 0, L set, opcode
 * Terminate) and the Terminate payload. The offending DDP header is
 * copied as received (D set) when @ti->seg covers it, and the Read
 * Request header after it (R set) when the segment was a Read Request.
 * M is set when @ti->seg_len_valid. MPA framing is the caller's.
 *
 * Context: any; no allocation.
 * Returns: octets written, -EINVAL if @ti->err is not an error that goes
 * on the wire, -ENOSPC if @size is too small.
 */
int siw_rdmap_term_build(const struct siw_rdmap_term_info *ti, u32 msn,
			 void *buf, size_t size)
{
	struct siw_term_parts parts;
	struct siw_ddp_hdr h;
	size_t len;
	int hlen;

	if (!siw_ddp_errinfo(ti->err)->on_wire)
		return -EINVAL;
	siw_term_plan(ti, &parts);
	len = SIW_DDP_UNTAGGED_HLEN + siw_term_payload_len(&parts);
	if (size < len)
		return -ENOSPC;

	siw_rdmap_hdr_init(&h, SIW_RDMAP_TERMINATE);
	h.msn = msn;
	hlen = siw_ddp_hdr_encode(&h, buf, size);
	siw_term_write_payload(ti, &parts, (u8 *)buf + hlen);
	return len;
}
EXPORT_SYMBOL_IF_KUNIT(siw_rdmap_term_build);

static enum siw_ddp_err siw_term_parse_ddp(const u8 **pp, const u8 *end,
					   struct siw_rdmap_term_report *rep)
{
	const u8 *p = *pp;
	size_t hlen = siw_ddp_hdr_len(p, end - p);

	if (!hlen || (size_t)(end - p) < hlen)
		return SIW_DDP_ERR_RDMAP_OP_UNSPECIFIED;
	memcpy(rep->ddp_raw, p, hlen);
	rep->ddp_raw_len = hlen;
	siw_ddp_hdr_unpack(p, hlen, &rep->ddp);
	rep->has_ddp_hdr = true;
	*pp = p + hlen;
	return SIW_DDP_OK;
}

static enum siw_ddp_err siw_term_parse_parts(const u8 *p, const u8 *end,
					     u16 hdrct,
					     struct siw_rdmap_term_report *rep)
{
	enum siw_ddp_err err;

	if (hdrct & (SIW_TERM_HDRCT_M | SIW_TERM_HDRCT_D)) {
		if (end - p < SIW_TERM_SEGLEN_SIZE)
			return SIW_DDP_ERR_RDMAP_OP_UNSPECIFIED;
		rep->seg_len = get_unaligned_be16(p);
		rep->seg_len_valid = hdrct & SIW_TERM_HDRCT_M;
		p += SIW_TERM_SEGLEN_SIZE;
	}
	if (hdrct & SIW_TERM_HDRCT_D) {
		err = siw_term_parse_ddp(&p, end, rep);
		if (err)
			return err;
	}
	if (hdrct & SIW_TERM_HDRCT_R) {
		if (end - p < SIW_RDMAP_RREQ_LEN)
			return SIW_DDP_ERR_RDMAP_OP_UNSPECIFIED;
		siw_rdmap_rreq_decode(p, &rep->rreq);
		rep->has_rreq = true;
	}
	return SIW_DDP_OK;
}

/**
 * siw_rdmap_term_parse() - parse the payload of a received Terminate
 * @buf: the payload, after the Terminate's own DDP header
 * @len: octets at @buf
 * @rep: the report; zeroed first
 *
 * The Terminate's DDP header is checked like any untagged segment
 * (siw_ddp_hdr_decode(), siw_ddp_untagged_check() on queue 2) before
 * this is called. A triple no RFC defines is reported as
 * SIW_DDP_ERR_UNKNOWN, not as a parse error. Bits the RFC reserves are
 * ignored.
 *
 * Context: any; no allocation.
 * Returns: SIW_DDP_OK, or SIW_DDP_ERR_RDMAP_OP_UNSPECIFIED if @buf is
 * shorter than its header control bits announce; @rep->layer, etype,
 * ecode and err are valid whenever @len is at least 4.
 */
enum siw_ddp_err siw_rdmap_term_parse(const void *buf, size_t len,
				      struct siw_rdmap_term_report *rep)
{
	const struct siw_rdmap_term_wire *t = buf;

	memset(rep, 0, sizeof(*rep));
	rep->err = SIW_DDP_ERR_UNKNOWN;
	if (len < sizeof(*t))
		return SIW_DDP_ERR_RDMAP_OP_UNSPECIFIED;

	rep->layer = siw_term_layer(t);
	rep->etype = siw_term_etype(t);
	rep->ecode = t->ecode;
	rep->err = siw_ddp_err_lookup(rep->layer, rep->etype, rep->ecode);
	return siw_term_parse_parts((const u8 *)buf + sizeof(*t),
				    (const u8 *)buf + len,
				    be16_to_cpu(t->hdrct), rep);
}
EXPORT_SYMBOL_IF_KUNIT(siw_rdmap_term_parse);
