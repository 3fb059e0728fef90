/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Wire formats of MPA (RFC 5044 as updated by RFC 6581), private to
 * drivers/siw_mpa (and its KUnit suites); the sizes other layers use are
 * in siw_mpa.h (FPDUs) and siw_mpa_conn.h (connection setup).
 *
 * Bit 0 in the RFC figures is the most significant bit of the first
 * octet. Multi-octet integers are network byte order, with one
 * exception: the CRC field of an FPDU (see below). Flag octets are plain
 * u8 with masks, never C bitfields, so nothing depends on the host's bit
 * order.
 */
#ifndef SIW_MPA_WIRE_H
#define SIW_MPA_WIRE_H

#include <linux/build_bug.h>
#include <linux/math.h>
#include <linux/string.h>
#include <linux/types.h>
#include <asm/byteorder.h>
#include "siw_compat.h"
#include "siw_mpa_conn.h"

/*
 * FPDU (RFC 5044 section 4.1), markers not drawn:
 *
 *  | ULPDU Length (16)  | ULPDU ...                                  |
 *  | ... ULPDU | PAD (0-3 octets of zero)                            |
 *  |                          CRC (32)                               |
 *
 * The whole FPDU is a multiple of 4 octets. Its sizes (SIW_MPA_HDR_LEN,
 * SIW_MPA_CRC_LEN, SIW_MPA_PAD_MAX, the largest ULPDU and FPDU, the
 * marker period) are in siw_mpa.h, for the engine to size its buffers.
 */

/*
 * CRC field. The CRC32c of RFC 3720 (initial value all ones, reflected,
 * final complement) is stored least significant octet first: this is
 * how RFC 3720 appendix B.4 lists its digests and how RFC 5044 figures 5
 * and 6 carry theirs (value 0x83992352 is sent as 52 23 99 83).
 */
struct siw_mpa_crc_wire {
	__le32	crc;
} __packed;
static_assert(sizeof(struct siw_mpa_crc_wire) == SIW_MPA_CRC_LEN);

/*
 * Marker (RFC 5044 section 4.2):
 *
 *  |          RESERVED (16)          |         FPDUPTR (16)         |
 *
 * Placed every 512 octets of TCP sequence space counted from the start
 * of MPA mode. FPDUPTR counts back from the marker's first octet to the
 * first octet of the ULPDU Length field of the FPDU the marker is in, or
 * is 0 when the marker sits right before an FPDU's header. Its two low
 * bits are reserved: sent as 0, treated as 0 on receive.
 */
#define SIW_MPA_FPDUPTR_RSVD	0x0003

struct siw_mpa_marker_wire {
	__be16	rsvd;
	__be16	fpduptr;
} __packed;
static_assert(sizeof(struct siw_mpa_marker_wire) == SIW_MPA_MARKER_LEN);

/*
 * MPA Request / Reply frame (RFC 5044 section 7.1.1, RFC 6581
 * section 6), 20 octets followed by PD_Length octets of private data:
 *
 *  |                 Key (16 octets)                                 |
 *  |M|C|R|S| Res   |     Rev       |          PD_Length              |
 */
#define SIW_MPA_KEY_LEN		16
#define SIW_MPA_KEY_REQ		"MPA ID Req Frame"
#define SIW_MPA_KEY_REP		"MPA ID Rep Frame"

#define SIW_MPA_RR_M		0x80	/* markers required by the sender */
#define SIW_MPA_RR_C		0x40	/* CRC wanted by the sender */
#define SIW_MPA_RR_R		0x20	/* reply only: connection rejected */
#define SIW_MPA_RR_S		0x10	/* rev 2: enhanced data leads the PD */
#define SIW_MPA_RR_RES		0x0f	/* sent as 0, ignored on receive */

struct siw_mpa_rr_wire {
	u8	key[SIW_MPA_KEY_LEN];
	u8	flags;
	u8	rev;
	__be16	pd_len;
} __packed;
static_assert(sizeof(struct siw_mpa_rr_wire) == SIW_MPA_RR_LEN);
static_assert(sizeof(SIW_MPA_KEY_REQ) - 1 == SIW_MPA_KEY_LEN);
static_assert(sizeof(SIW_MPA_KEY_REP) - 1 == SIW_MPA_KEY_LEN);

/*
 * Enhanced RDMA connection establishment data (RFC 6581 section 9),
 * the first 4 octets of the private data when S is set:
 *
 *  |A|B|        IRD (14)           |C|D|        ORD (14)           |
 *
 * A: peer-to-peer model. B: zero-length Send RTR. C: zero-length RDMA
 * Write RTR. D: zero-length RDMA Read RTR. IRD or ORD 0x3FFF: no
 * automatic negotiation of that value.
 */
#define SIW_MPA_ENH_A		0x8000	/* in the IRD word */
#define SIW_MPA_ENH_B		0x4000	/* in the IRD word */
#define SIW_MPA_ENH_C		0x8000	/* in the ORD word */
#define SIW_MPA_ENH_D		0x4000	/* in the ORD word */
#define SIW_MPA_ENH_VAL		0x3fff

struct siw_mpa_enh_wire {
	__be16	ird;
	__be16	ord;
} __packed;
static_assert(sizeof(struct siw_mpa_enh_wire) == SIW_MPA_ENH_LEN);

/* Accessors */

static inline u8 siw_mpa_rr_flags(const struct siw_mpa_rr_wire *w)
{
	return w->flags & ~SIW_MPA_RR_RES;
}

static inline u16 siw_mpa_enh_val(__be16 word)
{
	return be16_to_cpu(word) & SIW_MPA_ENH_VAL;
}

static inline bool siw_mpa_enh_flag(__be16 word, u16 flag)
{
	return be16_to_cpu(word) & flag;
}

static inline __be16 siw_mpa_enh_word(u16 val, u16 flags)
{
	return cpu_to_be16((val & SIW_MPA_ENH_VAL) | flags);
}

static inline void siw_mpa_crc_put(void *field, u32 crc)
{
	put_unaligned_le32(crc, field);
}

static inline u32 siw_mpa_crc_get(const void *field)
{
	return get_unaligned_le32(field);
}

static inline void siw_mpa_marker_put(void *field, u16 fpduptr)
{
	struct siw_mpa_marker_wire m = {
		.rsvd = 0,
		.fpduptr = cpu_to_be16(fpduptr),
	};

	memcpy(field, &m, sizeof(m));
}

/* FPDUPTR of a received marker, its reserved low bits cleared */
static inline u16 siw_mpa_marker_get(const void *field)
{
	const u8 *p = field;

	return get_unaligned_be16(p + 2) & ~SIW_MPA_FPDUPTR_RSVD;
}

#endif /* SIW_MPA_WIRE_H */
