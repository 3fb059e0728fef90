/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Wire formats of DDP (RFC 5041) and RDMAP (RFC 5040).
 *
 * Everything here is network byte order, exactly as the RFCs draw it;
 * bit 0 in the RFC figures is the most significant bit of the first
 * octet. Single-octet control fields are plain u8 with masks, never C
 * bitfields, so the layout does not depend on the host's bit order.
 *
 * The DDP header starts right after the MPA ULPDU Length field; MPA
 * itself (length, markers, CRC) is the layer below and is not here.
 */
#ifndef SIW_DDP_WIRE_H
#define SIW_DDP_WIRE_H

#include <linux/build_bug.h>
#include <linux/types.h>

/*
 * DDP control octet (RFC 5041 section 4.1):
 *
 *   0 1 2 3 4 5 6 7
 *  +-+-+-+-+-+-+-+-+
 *  |T|L| Rsvd  | DV|
 *  +-+-+-+-+-+-+-+-+
 */
#define SIW_DDP_CTRL_T		0x80	/* tagged buffer model */
#define SIW_DDP_CTRL_L		0x40	/* last segment of the message */
#define SIW_DDP_CTRL_RSVD	0x3c
#define SIW_DDP_CTRL_DV		0x03	/* DDP version */

/*
 * RDMAP control octet, carried in the first octet of DDP's RsvdULP
 * (RFC 5040 section 4.2):
 *
 *   0 1 2 3 4 5 6 7
 *  +-+-+-+-+-+-+-+-+
 *  | RV|Rsv| OpCode|
 *  +-+-+-+-+-+-+-+-+
 */
#define SIW_RDMAP_CTRL_RV	0xc0	/* RDMAP version */
#define SIW_RDMAP_CTRL_RSVD	0x30
#define SIW_RDMAP_CTRL_OPCODE	0x0f
#define SIW_RDMAP_CTRL_RV_SHIFT	6

/*
 * Tagged buffer model header (RFC 5041 section 4.2), 14 octets:
 *
 *  |T|L| Rsvd  | DV|  RsvdULP (RDMAP control)  |
 *  |                 STag                      |
 *  |                 TO (64 bits)              |
 */
struct siw_ddp_tagged_wire {
	u8	ddp_ctrl;
	u8	rdmap_ctrl;
	__be32	stag;
	__be64	to;
} __packed;

/*
 * Untagged buffer model header (RFC 5041 section 4.3), 18 octets.
 * RsvdULP[8:39] is the Invalidate STag for the two Send with
 * Invalidate opcodes and reserved (zero) otherwise (RFC 5040 4.2).
 */
struct siw_ddp_untagged_wire {
	u8	ddp_ctrl;
	u8	rdmap_ctrl;
	__be32	inval_stag;
	__be32	qn;
	__be32	msn;
	__be32	mo;
} __packed;

/* RDMA Read Request header: the payload of opcode 0001b (RFC 5040 4) */
struct siw_rdmap_rreq_wire {
	__be32	sink_stag;
	__be64	sink_to;
	__be32	length;		/* RDMA Read Message Size */
	__be32	src_stag;
	__be64	src_to;
} __packed;

/*
 * Terminate header, the fixed part of the payload of opcode 0111b
 * (RFC 5040 section 4.8):
 *
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  | Layer | EType |  Error Code   |M|D|R|       Reserved          |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *
 * Layer is the high nibble of the first octet, EType the low nibble.
 * What follows, each part only if its Hdrct bit says so:
 *
 *  DDP Segment Length (16 bits)      present if M or D is set
 *  Terminated DDP Header (14 or 18)  present if D is set; its own T bit
 *                                    tells the length
 *  Terminated RDMA Header (28)       present if R is set (the Read
 *                                    Request header)
 */
struct siw_rdmap_term_wire {
	u8	layer_etype;
	u8	ecode;
	__be16	hdrct;
} __packed;

#define SIW_TERM_LAYER_SHIFT	4
#define SIW_TERM_ETYPE_MASK	0x0f
#define SIW_TERM_HDRCT_M	0x8000	/* DDP Segment Length valid */
#define SIW_TERM_HDRCT_D	0x4000	/* DDP header included */
#define SIW_TERM_HDRCT_R	0x2000	/* RDMAP header included */
#define SIW_TERM_HDRCT_RSVD	0x1fff

static_assert(sizeof(struct siw_ddp_tagged_wire) == 14);
static_assert(sizeof(struct siw_ddp_untagged_wire) == 18);
static_assert(sizeof(struct siw_rdmap_rreq_wire) == 28);
static_assert(sizeof(struct siw_rdmap_term_wire) == 4);

/**
 * siw_ddp_ctrl_tagged() - the T bit of a DDP control octet
 * @ctrl: the octet
 *
 * Returns: true for the tagged buffer model.
 */
static inline bool siw_ddp_ctrl_tagged(u8 ctrl)
{
	return ctrl & SIW_DDP_CTRL_T;
}

/**
 * siw_ddp_ctrl_last() - the L bit of a DDP control octet
 * @ctrl: the octet
 *
 * Returns: true on the last segment of a message.
 */
static inline bool siw_ddp_ctrl_last(u8 ctrl)
{
	return ctrl & SIW_DDP_CTRL_L;
}

/**
 * siw_ddp_ctrl_version() - the DV field of a DDP control octet
 * @ctrl: the octet
 *
 * Returns: the DDP version, 0 to 3.
 */
static inline u8 siw_ddp_ctrl_version(u8 ctrl)
{
	return ctrl & SIW_DDP_CTRL_DV;
}

/**
 * siw_ddp_ctrl_make() - build a DDP control octet
 * @tagged: the T bit
 * @last: the L bit
 * @version: DV, masked to two bits
 *
 * Returns: the octet; reserved bits zero.
 */
static inline u8 siw_ddp_ctrl_make(bool tagged, bool last, u8 version)
{
	return (tagged ? SIW_DDP_CTRL_T : 0) | (last ? SIW_DDP_CTRL_L : 0) |
	       (version & SIW_DDP_CTRL_DV);
}

/**
 * siw_rdmap_ctrl_version() - the RV field of an RDMAP control octet
 * @ctrl: the octet
 *
 * Returns: the RDMAP version, 0 to 3.
 */
static inline u8 siw_rdmap_ctrl_version(u8 ctrl)
{
	return (ctrl & SIW_RDMAP_CTRL_RV) >> SIW_RDMAP_CTRL_RV_SHIFT;
}

/**
 * siw_rdmap_ctrl_opcode() - the opcode of an RDMAP control octet
 * @ctrl: the octet
 *
 * Returns: the opcode, 0 to 15.
 */
static inline u8 siw_rdmap_ctrl_opcode(u8 ctrl)
{
	return ctrl & SIW_RDMAP_CTRL_OPCODE;
}

/**
 * siw_rdmap_ctrl_make() - build an RDMAP control octet
 * @version: RV, masked to two bits
 * @opcode: masked to four bits
 *
 * Returns: the octet; reserved bits zero.
 */
static inline u8 siw_rdmap_ctrl_make(u8 version, u8 opcode)
{
	return ((version << SIW_RDMAP_CTRL_RV_SHIFT) & SIW_RDMAP_CTRL_RV) |
	       (opcode & SIW_RDMAP_CTRL_OPCODE);
}

/**
 * siw_term_layer() - the Layer of a Terminate header
 * @t: the header
 *
 * Returns: the high nibble of its first octet.
 */
static inline u8 siw_term_layer(const struct siw_rdmap_term_wire *t)
{
	return t->layer_etype >> SIW_TERM_LAYER_SHIFT;
}

/**
 * siw_term_etype() - the EType of a Terminate header
 * @t: the header
 *
 * Returns: the low nibble of its first octet.
 */
static inline u8 siw_term_etype(const struct siw_rdmap_term_wire *t)
{
	return t->layer_etype & SIW_TERM_ETYPE_MASK;
}

/**
 * siw_term_layer_etype() - the first octet of a Terminate header
 * @layer: goes to the high nibble
 * @etype: goes to the low nibble
 *
 * Returns: the octet, as RFC 5040 section 4.8 draws it.
 */
static inline u8 siw_term_layer_etype(u8 layer, u8 etype)
{
	return (layer << SIW_TERM_LAYER_SHIFT) | (etype & SIW_TERM_ETYPE_MASK);
}

#endif /* SIW_DDP_WIRE_H */
