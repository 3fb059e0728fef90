// SPDX-License-Identifier: GPL-2.0
/*
 * Placement rules for untagged DDP segments (RFC 5041 sections 4.3, 5
 * and 7.1) and the RDMAP rules on the untagged messages (RFC 5040
 * section 4): queue numbers, MSN ordering, MO and length within the
 * posted buffer, and the L bit completing a message.
 *
 * The receive state of each queue is a struct siw_ddp_uq the QP layer
 * owns; these functions only read it, except siw_ddp_uq_advance().
 */
#include <kunit/visibility.h>
#include <linux/export.h>

#include "siw_ddp.h"

/**
 * siw_ddp_uq_init() - receive state of the three queues of a new stream
 * @q: the queues
 * @ird: the negotiated inbound RDMA Read queue depth
 *
 * MSNs start at 1 (RFC 5041 section 4.3). Queue 0 has no buffer until
 * the QP layer posts receive WQEs; queue 1 has one slot per IRD; queue
 * 2 takes a single Terminate of any legal length.
 *
 * Context: any.
 */
void siw_ddp_uq_init(struct siw_ddp_uq q[SIW_DDP_NUM_QN], u32 ird)
{
	q[SIW_DDP_QN_SEND] = (struct siw_ddp_uq){ .msn = 1 };
	q[SIW_DDP_QN_RREQ] = (struct siw_ddp_uq){
		.msn = 1, .avail = ird, .buf_len = SIW_RDMAP_RREQ_LEN,
	};
	q[SIW_DDP_QN_TERM] = (struct siw_ddp_uq){
		.msn = 1, .avail = 1, .buf_len = SIW_RDMAP_TERM_MAX_LEN,
	};
}
EXPORT_SYMBOL_IF_KUNIT(siw_ddp_uq_init);

/*
 * TCP delivers DDP segments in order and DDP messages never interleave
 * on one stream, so the only MSN a segment can legally carry is the one
 * the queue waits for: anything else is outside the window. A correct
 * MSN with no buffer behind it is the other error; for queue 1 this is
 * a Read Request beyond the IRD.
 */
static enum siw_ddp_err siw_ddp_msn_check(u32 msn, const struct siw_ddp_uq *q)
{
	if (msn != q->msn)
		return SIW_DDP_ERR_DDP_U_MSN_RANGE;
	if (!q->avail)
		return SIW_DDP_ERR_DDP_U_MSN_NO_BUF;
	return SIW_DDP_OK;
}

/*
 * RFC 5041 7.1 checks 3 and 4. A segment without data places nothing,
 * but its MO still counts: on the last segment it makes the message's
 * length (MO + 0), which must fit the buffer like any other; MO equal
 * to the buffer's length is a legal empty tail.
 */
static enum siw_ddp_err siw_ddp_mo_check(u32 mo, u32 len, u32 buf_len)
{
	if (!len)
		return mo > buf_len ? SIW_DDP_ERR_DDP_U_INVALID_MO : SIW_DDP_OK;
	if (mo >= buf_len)
		return SIW_DDP_ERR_DDP_U_INVALID_MO;
	if (len > buf_len - mo)
		return SIW_DDP_ERR_DDP_U_TOO_LONG;
	return SIW_DDP_OK;
}

/*
 * Read Request and Terminate are one segment each, starting at MO 0;
 * their payload is a header of fixed (Read Request) or bounded
 * (Terminate) length. RFC 5040 has no specific code for a message of
 * the wrong shape, hence the unspecified operation error.
 */
static enum siw_ddp_err siw_rdmap_shape_check(const struct siw_ddp_hdr *h,
					      u32 len,
					      const struct siw_rdmap_opinfo *op)
{
	if ((op->flags & SIW_RDMAP_F_ONE_SEG) && (!h->last || h->mo))
		return SIW_DDP_ERR_RDMAP_OP_UNSPECIFIED;
	if (len < op->min_len || len > op->max_len)
		return SIW_DDP_ERR_RDMAP_OP_UNSPECIFIED;
	return SIW_DDP_OK;
}

/**
 * siw_ddp_untagged_check() - may this untagged segment be placed?
 * @h: the decoded header (siw_ddp_hdr_decode() returned SIW_DDP_OK)
 * @len: payload octets in the segment, after the DDP header
 * @q: receive state of the three queues
 *
 * Checks, in this order: the opcode is a supported untagged one (as
 * siw_ddp_hdr_decode() made sure), the QN exists and is the opcode's
 * queue, the MSN is the one the queue waits for and it has a buffer, MO
 * and MO + @len lie within that buffer (segments with data only), a
 * Send's MO continues its message where the segment before it ended,
 * and the RDMAP shape of Read Request and Terminate messages.
 *
 * TCP delivers a message's segments in order, and every sender frames a
 * message front to back, so a Send segment whose MO skips octets (a last
 * segment with a large MO and nothing before it) could only make the
 * message's length (MO + payload of its last segment) claim octets that
 * were never placed: RFC 5041 lets the receiver refuse it, and we do.
 *
 * Context: any; the caller holds whatever protects @q.
 * Returns: SIW_DDP_OK or the error to report.
 */
enum siw_ddp_err siw_ddp_untagged_check(const struct siw_ddp_hdr *h,
					u32 len,
					const struct siw_ddp_uq q[SIW_DDP_NUM_QN])
{
	const struct siw_rdmap_opinfo *op = siw_rdmap_opinfo(h->opcode);
	enum siw_ddp_err err;

	/* siw_ddp_hdr_decode() refused these already; stay safe regardless */
	if (!(op->flags & SIW_RDMAP_F_SUPPORTED) ||
	    (op->flags & SIW_RDMAP_F_TAGGED))
		return SIW_DDP_ERR_RDMAP_OPCODE;
	if (h->qn >= SIW_DDP_NUM_QN || h->qn != op->qn)
		return SIW_DDP_ERR_DDP_U_INVALID_QN;

	err = siw_ddp_msn_check(h->msn, &q[h->qn]);
	if (err)
		return err;
	err = siw_ddp_mo_check(h->mo, len, q[h->qn].buf_len);
	if (err)
		return err;
	if (h->qn == SIW_DDP_QN_SEND && h->mo != q[h->qn].next_mo)
		return SIW_DDP_ERR_DDP_U_INVALID_MO;
	return siw_rdmap_shape_check(h, len, op);
}
EXPORT_SYMBOL_IF_KUNIT(siw_ddp_untagged_check);

/**
 * siw_ddp_uq_advance() - account for a placed untagged segment
 * @q: the state of the segment's queue
 * @h: the segment's header, already checked
 * @len: its payload octets
 * @msg_len: if not NULL and the message completed, set to its length
 *
 * The L bit completes the message: its length is the MO plus the
 * payload of that last segment (RFC 5041 section 5.4), the queue moves
 * on to the next MSN and one buffer is used up. Before it, the next
 * segment's MO is where this one ended. For queue 1 the QP
 * layer gives the slot back (@q->avail++) once it has sent the Read
 * Response; for queue 0 it adds one per posted receive WQE.
 *
 * Context: any; the caller holds whatever protects @q.
 * Returns: true if the segment completed its message.
 */
bool siw_ddp_uq_advance(struct siw_ddp_uq *q, const struct siw_ddp_hdr *h,
			u32 len, u32 *msg_len)
{
	if (!h->last) {
		q->next_mo = h->mo + len;
		return false;
	}
	if (msg_len)
		*msg_len = h->mo + len;
	q->next_mo = 0;
	q->msn++;
	if (q->avail)
		q->avail--;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(siw_ddp_uq_advance);
