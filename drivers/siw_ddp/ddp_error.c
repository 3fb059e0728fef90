// SPDX-License-Identifier: GPL-2.0
/*
 * The Terminate error table: every layer/type/code triple of RFC 5040
 * sections 4.8 and 7 (RDMAP), RFC 5041 section 7.2 (DDP), RFC 5044
 * section 8 and RFC 6581 section 8 (MPA, reported as layer LLP, type
 * MPA), in one const array indexed by enum siw_ddp_err. The IANA "RDDP" registries (RFC
 * 6580) list the same RDMAP and DDP triples.
 */
#include <kunit/visibility.h>
#include <linux/export.h>
#include <linux/kernel.h>

#include "siw_ddp.h"

#define ROW(l, t, c, k, n) { .layer = (l), .etype = (t), .ecode = (c), \
			     .kind = SIW_DDP_KIND_##k, .name = (n), \
			     .on_wire = true }
#define RDMAP(t, c, k, n)	ROW(SIW_TERM_LAYER_RDMAP, t, c, k, n)
#define DDP(t, c, k, n)		ROW(SIW_TERM_LAYER_DDP, t, c, k, n)
#define MPA(c, k, n)		ROW(SIW_TERM_LAYER_LLP, \
				    SIW_TERM_ETYPE_LLP_MPA, c, k, n)

#define R_CATA	SIW_TERM_ETYPE_RDMAP_CATASTROPHIC
#define R_PROT	SIW_TERM_ETYPE_RDMAP_PROTECTION
#define R_OPER	SIW_TERM_ETYPE_RDMAP_OPERATION
#define D_CATA	SIW_TERM_ETYPE_DDP_CATASTROPHIC
#define D_TAG	SIW_TERM_ETYPE_DDP_TAGGED
#define D_UNTAG	SIW_TERM_ETYPE_DDP_UNTAGGED

static const struct siw_ddp_errinfo siw_ddp_errors[SIW_DDP_NUM_ERR] = {
	[SIW_DDP_OK] = { .name = "no error" },

	[SIW_DDP_ERR_RDMAP_CATASTROPHIC] =
		RDMAP(R_CATA, 0x00, FATAL, "Local Catastrophic Error"),
	[SIW_DDP_ERR_RDMAP_INVALID_STAG] =
		RDMAP(R_PROT, 0x00, ACCESS, "Invalid STag"),
	[SIW_DDP_ERR_RDMAP_BASE_BOUNDS] =
		RDMAP(R_PROT, 0x01, ACCESS, "Base or bounds violation"),
	[SIW_DDP_ERR_RDMAP_ACCESS] =
		RDMAP(R_PROT, 0x02, ACCESS, "Access rights violation"),
	[SIW_DDP_ERR_RDMAP_STAG_NOT_ASSOC] =
		RDMAP(R_PROT, 0x03, ACCESS,
		      "STag not associated with RDMAP Stream"),
	[SIW_DDP_ERR_RDMAP_TO_WRAP] =
		RDMAP(R_PROT, 0x04, ACCESS, "TO wrap"),
	[SIW_DDP_ERR_RDMAP_PROT_CANNOT_INV] =
		RDMAP(R_PROT, 0x09, ACCESS, "STag cannot be Invalidated"),
	[SIW_DDP_ERR_RDMAP_PROT_UNSPECIFIED] =
		RDMAP(R_PROT, 0xff, ACCESS, "Unspecified protection error"),
	[SIW_DDP_ERR_RDMAP_VERSION] =
		RDMAP(R_OPER, 0x05, REQUEST, "Invalid RDMAP version"),
	[SIW_DDP_ERR_RDMAP_OPCODE] =
		RDMAP(R_OPER, 0x06, REQUEST, "Unexpected OpCode"),
	[SIW_DDP_ERR_RDMAP_CATA_STREAM] =
		RDMAP(R_OPER, 0x07, FATAL,
		      "Catastrophic error, localized to RDMAP Stream"),
	[SIW_DDP_ERR_RDMAP_CATA_GLOBAL] =
		RDMAP(R_OPER, 0x08, FATAL, "Catastrophic error, global"),
	[SIW_DDP_ERR_RDMAP_OP_CANNOT_INV] =
		RDMAP(R_OPER, 0x09, REQUEST, "STag cannot be Invalidated"),
	[SIW_DDP_ERR_RDMAP_OP_UNSPECIFIED] =
		RDMAP(R_OPER, 0xff, REQUEST, "Unspecified operation error"),

	[SIW_DDP_ERR_DDP_CATASTROPHIC] =
		DDP(D_CATA, 0x00, FATAL, "Local Catastrophic"),
	[SIW_DDP_ERR_DDP_T_INVALID_STAG] =
		DDP(D_TAG, 0x00, ACCESS, "Invalid STag"),
	[SIW_DDP_ERR_DDP_T_BASE_BOUNDS] =
		DDP(D_TAG, 0x01, ACCESS, "Base or bounds violation"),
	[SIW_DDP_ERR_DDP_T_STAG_NOT_ASSOC] =
		DDP(D_TAG, 0x02, ACCESS, "STag not associated with DDP Stream"),
	[SIW_DDP_ERR_DDP_T_TO_WRAP] =
		DDP(D_TAG, 0x03, ACCESS, "TO wrap"),
	[SIW_DDP_ERR_DDP_T_VERSION] =
		DDP(D_TAG, 0x04, REQUEST, "Invalid DDP version (tagged)"),
	[SIW_DDP_ERR_DDP_U_INVALID_QN] =
		DDP(D_UNTAG, 0x01, REQUEST, "Invalid QN"),
	[SIW_DDP_ERR_DDP_U_MSN_NO_BUF] =
		DDP(D_UNTAG, 0x02, REQUEST, "Invalid MSN - no buffer available"),
	[SIW_DDP_ERR_DDP_U_MSN_RANGE] =
		DDP(D_UNTAG, 0x03, REQUEST,
		    "Invalid MSN - MSN range is not valid"),
	[SIW_DDP_ERR_DDP_U_INVALID_MO] =
		DDP(D_UNTAG, 0x04, REQUEST, "Invalid MO"),
	[SIW_DDP_ERR_DDP_U_TOO_LONG] =
		DDP(D_UNTAG, 0x05, REQUEST,
		    "DDP Message too long for available buffer"),
	[SIW_DDP_ERR_DDP_U_VERSION] =
		DDP(D_UNTAG, 0x06, REQUEST, "Invalid DDP version (untagged)"),

	[SIW_DDP_ERR_LLP_CLOSED] =
		MPA(0x01, FATAL, "TCP connection closed, terminated or lost"),
	[SIW_DDP_ERR_LLP_CRC] =
		MPA(0x02, FATAL, "MPA CRC error"),
	[SIW_DDP_ERR_LLP_MARKER] =
		MPA(0x03, FATAL, "MPA Marker and ULPDU Length mismatch"),
	[SIW_DDP_ERR_LLP_BAD_FRAME] =
		MPA(0x04, FATAL, "Invalid MPA Request or Reply frame"),
	[SIW_DDP_ERR_LLP_CATASTROPHIC] =
		MPA(0x05, FATAL, "Local catastrophic (MPA)"),
	[SIW_DDP_ERR_LLP_NO_IRD] =
		MPA(0x06, FATAL, "Insufficient IRD resources"),
	[SIW_DDP_ERR_LLP_NO_RTR] =
		MPA(0x07, FATAL, "No matching RTR option"),

	[SIW_DDP_ERR_UNKNOWN] = {
		.name = "unknown error", .kind = SIW_DDP_KIND_FATAL,
	},
};

/**
 * siw_ddp_errinfo() - the table row of an error
 * @err: the error
 *
 * Context: any.
 * Returns: the row; an out-of-range @err gives the SIW_DDP_ERR_UNKNOWN row.
 */
const struct siw_ddp_errinfo *siw_ddp_errinfo(enum siw_ddp_err err)
{
	if ((unsigned int)err >= SIW_DDP_NUM_ERR)
		err = SIW_DDP_ERR_UNKNOWN;
	return &siw_ddp_errors[err];
}
EXPORT_SYMBOL_IF_KUNIT(siw_ddp_errinfo);

/**
 * siw_ddp_err_name() - the RFC's wording for an error, for logs
 * @err: the error
 *
 * Context: any.
 * Returns: a static string.
 */
const char *siw_ddp_err_name(enum siw_ddp_err err)
{
	return siw_ddp_errinfo(err)->name;
}
EXPORT_SYMBOL_IF_KUNIT(siw_ddp_err_name);

/**
 * siw_ddp_err_lookup() - map a received triple back to the table
 * @layer: Layer nibble
 * @etype: EType nibble
 * @ecode: Error Code octet
 *
 * RFC 5040 defines the RDMAP Local Catastrophic Error for its error type
 * as a whole, so any code under layer 0 type 0 maps to that row.
 *
 * Context: any.
 * Returns: the matching error, or SIW_DDP_ERR_UNKNOWN.
 */
enum siw_ddp_err siw_ddp_err_lookup(u8 layer, u8 etype, u8 ecode)
{
	const struct siw_ddp_errinfo *e;
	unsigned int i;

	if (layer == SIW_TERM_LAYER_RDMAP &&
	    etype == SIW_TERM_ETYPE_RDMAP_CATASTROPHIC)
		return SIW_DDP_ERR_RDMAP_CATASTROPHIC;

	for (i = 0; i < ARRAY_SIZE(siw_ddp_errors); i++) {
		e = &siw_ddp_errors[i];
		if (e->on_wire && e->layer == layer && e->etype == etype &&
		    e->ecode == ecode)
			return i;
	}
	return SIW_DDP_ERR_UNKNOWN;
}
EXPORT_SYMBOL_IF_KUNIT(siw_ddp_err_lookup);
