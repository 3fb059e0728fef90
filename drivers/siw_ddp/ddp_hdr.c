// SPDX-License-Identifier: GPL-2.0
/*
 * Header codecs: the DDP tagged and untagged headers with the RDMAP
 * control octet in their RsvdULP field (RFC 5041 section 4, RFC 5040
 * section 4.2), and the RDMA Read Request header (RFC 5040 section 4).
 *
 * Decoding checks what the header alone can tell: its length, the DDP
 * and RDMAP versions and the opcode. Queue, MSN, MO and STag rules need
 * receive state and live in ddp_place.c and ddp_stag.c.
 */
#include <kunit/visibility.h>
#include <linux/export.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <asm/byteorder.h>

#include "ddp_wire.h"
#include "siw_ddp.h"

static size_t siw_ddp_hlen(bool tagged)
{
	return tagged ? SIW_DDP_TAGGED_HLEN : SIW_DDP_UNTAGGED_HLEN;
}

/**
 * siw_ddp_hdr_len() - length of the DDP header that starts at @buf
 * @buf: a received DDP segment
 * @len: octets at @buf
 *
 * Context: any.
 * Returns: 14 or 18 as the T bit says, 0 if @len is 0.
 */
size_t siw_ddp_hdr_len(const void *buf, size_t len)
{
	const u8 *p = buf;

	return len ? siw_ddp_hlen(siw_ddp_ctrl_tagged(p[0])) : 0;
}
EXPORT_SYMBOL_IF_KUNIT(siw_ddp_hdr_len);

static void siw_ddp_unpack_tagged(const struct siw_ddp_tagged_wire *w,
				  struct siw_ddp_hdr *h)
{
	h->stag = be32_to_cpu(w->stag);
	h->to = be64_to_cpu(w->to);
}

static void siw_ddp_unpack_untagged(const struct siw_ddp_untagged_wire *w,
				    struct siw_ddp_hdr *h)
{
	h->inval_stag = be32_to_cpu(w->inval_stag);
	h->qn = be32_to_cpu(w->qn);
	h->msn = be32_to_cpu(w->msn);
	h->mo = be32_to_cpu(w->mo);
}

/**
 * siw_ddp_hdr_unpack() - read the fields of a DDP header, unchecked
 * @buf: a DDP header
 * @len: octets at @buf
 * @h: filled with what @len covers, the rest zero
 *
 * For headers that may be malformed, e.g. the one a Terminate carries.
 *
 * Context: any.
 */
void siw_ddp_hdr_unpack(const void *buf, size_t len, struct siw_ddp_hdr *h)
{
	const u8 *p = buf;

	memset(h, 0, sizeof(*h));
	if (len < 2)
		return;
	h->tagged = siw_ddp_ctrl_tagged(p[0]);
	h->last = siw_ddp_ctrl_last(p[0]);
	h->opcode = siw_rdmap_ctrl_opcode(p[1]);
	if (len < siw_ddp_hlen(h->tagged))
		return;
	if (h->tagged)
		siw_ddp_unpack_tagged(buf, h);
	else
		siw_ddp_unpack_untagged(buf, h);
}
EXPORT_SYMBOL_IF_KUNIT(siw_ddp_hdr_unpack);

/**
 * siw_ddp_hdr_decode() - decode and check a received DDP/RDMAP header
 * @buf: start of the DDP segment (the octet after the MPA length)
 * @len: octets in the segment
 * @h: the decoded header; filled as far as possible even on error
 *
 * Checks, in this order: the segment holds a whole header, the DDP
 * version, the RDMAP version, the opcode is one siw supports and its
 * buffer model matches the T bit.
 *
 * Context: any; no allocation.
 * Returns: SIW_DDP_OK or the error to report.
 */
enum siw_ddp_err siw_ddp_hdr_decode(const void *buf, size_t len,
				    struct siw_ddp_hdr *h)
{
	const struct siw_rdmap_opinfo *op;
	const u8 *p = buf;

	siw_ddp_hdr_unpack(buf, len, h);
	if (len < 2 || len < siw_ddp_hlen(h->tagged))
		return SIW_DDP_ERR_DDP_CATASTROPHIC;
	if (siw_ddp_ctrl_version(p[0]) != SIW_DDP_VERSION)
		return h->tagged ? SIW_DDP_ERR_DDP_T_VERSION :
				   SIW_DDP_ERR_DDP_U_VERSION;
	if (siw_rdmap_ctrl_version(p[1]) != SIW_RDMAP_VERSION)
		return SIW_DDP_ERR_RDMAP_VERSION;

	op = siw_rdmap_opinfo(h->opcode);
	if (!(op->flags & SIW_RDMAP_F_SUPPORTED) ||
	    !!(op->flags & SIW_RDMAP_F_TAGGED) != h->tagged)
		return SIW_DDP_ERR_RDMAP_OPCODE;
	return SIW_DDP_OK;
}
EXPORT_SYMBOL_IF_KUNIT(siw_ddp_hdr_decode);

/**
 * siw_ddp_hdr_encode() - write a DDP/RDMAP header
 * @h: the header; versions are always written as 1
 * @buf: where to write
 * @size: octets available at @buf
 *
 * Writes whatever @h says, even an opcode siw does not support, so that
 * tests can build hostile headers; siw_rdmap_hdr_init() gives a header
 * that follows the opcode table.
 *
 * Context: any.
 * Returns: octets written (14 or 18), -EINVAL for an opcode wider than
 * four bits, -ENOSPC if @size is too small.
 */
int siw_ddp_hdr_encode(const struct siw_ddp_hdr *h, void *buf, size_t size)
{
	u8 ddp_ctrl = siw_ddp_ctrl_make(h->tagged, h->last, SIW_DDP_VERSION);
	u8 rdmap_ctrl = siw_rdmap_ctrl_make(SIW_RDMAP_VERSION, h->opcode);
	struct siw_ddp_untagged_wire *u = buf;
	struct siw_ddp_tagged_wire *t = buf;

	if (h->opcode >= SIW_RDMAP_NUM_OPCODES)
		return -EINVAL;
	if (size < siw_ddp_hlen(h->tagged))
		return -ENOSPC;

	if (h->tagged) {
		t->ddp_ctrl = ddp_ctrl;
		t->rdmap_ctrl = rdmap_ctrl;
		t->stag = cpu_to_be32(h->stag);
		t->to = cpu_to_be64(h->to);
		return sizeof(*t);
	}
	u->ddp_ctrl = ddp_ctrl;
	u->rdmap_ctrl = rdmap_ctrl;
	u->inval_stag = cpu_to_be32(h->inval_stag);
	u->qn = cpu_to_be32(h->qn);
	u->msn = cpu_to_be32(h->msn);
	u->mo = cpu_to_be32(h->mo);
	return sizeof(*u);
}
EXPORT_SYMBOL_IF_KUNIT(siw_ddp_hdr_encode);

/**
 * siw_rdmap_hdr_init() - a header for an opcode, from the opcode table
 * @h: zeroed, then given the opcode's buffer model and queue, L set
 * @opcode: an opcode siw supports
 *
 * The caller fills in STag and TO, or MSN and MO, and clears L on all
 * but the last segment of a message.
 *
 * Context: any.
 * Returns: 0, or -EINVAL if siw does not support @opcode.
 */
int siw_rdmap_hdr_init(struct siw_ddp_hdr *h, u8 opcode)
{
	const struct siw_rdmap_opinfo *op = siw_rdmap_opinfo(opcode);

	memset(h, 0, sizeof(*h));
	if (opcode >= SIW_RDMAP_NUM_OPCODES ||
	    !(op->flags & SIW_RDMAP_F_SUPPORTED))
		return -EINVAL;
	h->opcode = opcode;
	h->tagged = op->flags & SIW_RDMAP_F_TAGGED;
	h->qn = h->tagged ? 0 : op->qn;
	h->last = true;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(siw_rdmap_hdr_init);

/**
 * siw_rdmap_rreq_decode() - read an RDMA Read Request header
 * @buf: SIW_RDMAP_RREQ_LEN octets, the payload of a Read Request
 * @rr: the fields in host order
 *
 * Context: any.
 */
void siw_rdmap_rreq_decode(const void *buf, struct siw_rdmap_rreq *rr)
{
	const struct siw_rdmap_rreq_wire *w = buf;

	rr->sink_stag = be32_to_cpu(w->sink_stag);
	rr->sink_to = be64_to_cpu(w->sink_to);
	rr->len = be32_to_cpu(w->length);
	rr->src_stag = be32_to_cpu(w->src_stag);
	rr->src_to = be64_to_cpu(w->src_to);
}
EXPORT_SYMBOL_IF_KUNIT(siw_rdmap_rreq_decode);

/**
 * siw_rdmap_rreq_encode() - write an RDMA Read Request header
 * @rr: the fields in host order
 * @buf: SIW_RDMAP_RREQ_LEN octets
 *
 * Context: any.
 */
void siw_rdmap_rreq_encode(const struct siw_rdmap_rreq *rr, void *buf)
{
	struct siw_rdmap_rreq_wire *w = buf;

	w->sink_stag = cpu_to_be32(rr->sink_stag);
	w->sink_to = cpu_to_be64(rr->sink_to);
	w->length = cpu_to_be32(rr->len);
	w->src_stag = cpu_to_be32(rr->src_stag);
	w->src_to = cpu_to_be64(rr->src_to);
}
EXPORT_SYMBOL_IF_KUNIT(siw_rdmap_rreq_encode);
