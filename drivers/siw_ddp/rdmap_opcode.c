// SPDX-License-Identifier: GPL-2.0
/*
 * The RDMAP opcode table: RFC 5040 section 4.3 ("RDMA Usage of DDP
 * Fields") and the opcodes RFC 7306 added, as one const array. Code that
 * needs to know something about an opcode asks this table instead of
 * switching on the opcode.
 */
#include <kunit/visibility.h>
#include <linux/export.h>
#include <linux/limits.h>
#include <rdma/ib_verbs.h>

#include "siw_ddp.h"

#define TAGGED		.hdr_len = SIW_DDP_TAGGED_HLEN
#define UNTAGGED(q)	.hdr_len = SIW_DDP_UNTAGGED_HLEN, .qn = (q)
#define ANY_LEN		.min_len = 0, .max_len = U32_MAX

/* One row per opcode; read through siw_rdmap_opinfo() (siw_ddp.h) */
const struct siw_rdmap_opinfo siw_rdmap_ops[SIW_RDMAP_NUM_OPCODES] = {
	[SIW_RDMAP_WRITE] = {
		.name = "RDMA Write", TAGGED, ANY_LEN,
		.flags = SIW_RDMAP_F_SUPPORTED | SIW_RDMAP_F_TAGGED,
		.class = SIW_RDMAP_CLASS_WRITE,
		.access = IB_ACCESS_REMOTE_WRITE,
	},
	[SIW_RDMAP_READ_REQ] = {
		.name = "RDMA Read Request", UNTAGGED(SIW_DDP_QN_RREQ),
		.min_len = SIW_RDMAP_RREQ_LEN, .max_len = SIW_RDMAP_RREQ_LEN,
		.flags = SIW_RDMAP_F_SUPPORTED | SIW_RDMAP_F_ONE_SEG,
		.class = SIW_RDMAP_CLASS_READ_REQ,
		.access = IB_ACCESS_REMOTE_READ,
	},
	/*
	 * The peer writes a Read Response into the sink it was given, so
	 * iWARP asks the sink STag for remote write access (the reason
	 * the RDMA core's rw API adds IB_ACCESS_REMOTE_WRITE on iWARP).
	 * A receiver that matched the response to a Read Request of its
	 * own may accept local write access instead (siw_fpdu_rx.c).
	 */
	[SIW_RDMAP_READ_RESP] = {
		.name = "RDMA Read Response", TAGGED, ANY_LEN,
		.flags = SIW_RDMAP_F_SUPPORTED | SIW_RDMAP_F_TAGGED,
		.class = SIW_RDMAP_CLASS_READ_RESP,
		.access = IB_ACCESS_REMOTE_WRITE,
	},
	[SIW_RDMAP_SEND] = {
		.name = "Send", UNTAGGED(SIW_DDP_QN_SEND), ANY_LEN,
		.flags = SIW_RDMAP_F_SUPPORTED,
		.class = SIW_RDMAP_CLASS_SEND,
	},
	[SIW_RDMAP_SEND_INV] = {
		.name = "Send with Invalidate", UNTAGGED(SIW_DDP_QN_SEND),
		ANY_LEN,
		.flags = SIW_RDMAP_F_SUPPORTED | SIW_RDMAP_F_INVALIDATE,
		.class = SIW_RDMAP_CLASS_SEND,
	},
	[SIW_RDMAP_SEND_SE] = {
		.name = "Send with Solicited Event",
		UNTAGGED(SIW_DDP_QN_SEND), ANY_LEN,
		.flags = SIW_RDMAP_F_SUPPORTED | SIW_RDMAP_F_SOLICITED,
		.class = SIW_RDMAP_CLASS_SEND,
	},
	[SIW_RDMAP_SEND_SE_INV] = {
		.name = "Send with Solicited Event and Invalidate",
		UNTAGGED(SIW_DDP_QN_SEND), ANY_LEN,
		.flags = SIW_RDMAP_F_SUPPORTED | SIW_RDMAP_F_SOLICITED |
			 SIW_RDMAP_F_INVALIDATE,
		.class = SIW_RDMAP_CLASS_SEND,
	},
	[SIW_RDMAP_TERMINATE] = {
		.name = "Terminate", UNTAGGED(SIW_DDP_QN_TERM),
		.min_len = SIW_RDMAP_TERM_HLEN,
		.max_len = SIW_RDMAP_TERM_MAX_LEN,
		.flags = SIW_RDMAP_F_SUPPORTED | SIW_RDMAP_F_ONE_SEG,
		.class = SIW_RDMAP_CLASS_TERMINATE,
	},
	[0x8] = { .name = "reserved (0x8)" },
	[0x9] = { .name = "reserved (0x9)" },
	/* RFC 7306: recognised by name only; receiving one is an error */
	[SIW_RDMAP_ATOMIC_REQ] = {
		.name = "Atomic Request", .flags = SIW_RDMAP_F_RFC7306,
	},
	[SIW_RDMAP_ATOMIC_RESP] = {
		.name = "Atomic Response", .flags = SIW_RDMAP_F_RFC7306,
	},
	[SIW_RDMAP_IMM] = {
		.name = "Immediate Data", .flags = SIW_RDMAP_F_RFC7306,
	},
	[SIW_RDMAP_IMM_SE] = {
		.name = "Immediate Data with Solicited Event",
		.flags = SIW_RDMAP_F_RFC7306,
	},
	[0xe] = { .name = "reserved (0xe)" },
	[0xf] = { .name = "reserved (0xf)" },
};
EXPORT_SYMBOL_IF_KUNIT(siw_rdmap_ops);

/**
 * siw_rdmap_opcode_supported() - may this opcode be sent and received?
 * @opcode: the 4-bit opcode
 *
 * Context: any.
 * Returns: true for the eight RFC 5040 opcodes, false for the rest.
 */
bool siw_rdmap_opcode_supported(u8 opcode)
{
	return opcode < SIW_RDMAP_NUM_OPCODES &&
	       (siw_rdmap_ops[opcode].flags & SIW_RDMAP_F_SUPPORTED);
}
EXPORT_SYMBOL_IF_KUNIT(siw_rdmap_opcode_supported);
