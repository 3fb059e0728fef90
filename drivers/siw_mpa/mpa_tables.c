// SPDX-License-Identifier: GPL-2.0
/*
 * Protocol facts as tables: the MPA error codes (RFC 5044 section 8,
 * RFC 6581 section 8) and the RTR indications of the peer-to-peer model
 * with their flags in the enhanced data (RFC 6581 sections 9 and 9.2).
 */
#include <kunit/visibility.h>
#include <linux/export.h>
#include <linux/kernel.h>

#include "mpa_wire.h"

static const char * const siw_mpa_err_names[SIW_MPA_NUM_ERR] = {
	[SIW_MPA_OK]		= "no error",
	[SIW_MPA_ERR_CLOSED]	= "TCP connection closed, terminated or lost",
	[SIW_MPA_ERR_CRC]	= "MPA CRC error",
	[SIW_MPA_ERR_MARKER]	= "MPA marker and ULPDU Length disagree",
	[SIW_MPA_ERR_FRAME]	= "invalid MPA Request or Reply frame",
	[SIW_MPA_ERR_LOCAL]	= "local catastrophic",
	[SIW_MPA_ERR_NO_IRD]	= "insufficient IRD resources",
	[SIW_MPA_ERR_NO_RTR]	= "no matching RTR option",
};

/**
 * siw_mpa_err_name() - the RFC's wording for an MPA error code
 * @err: the code
 *
 * Context: any.
 * Returns: a constant string, "unknown" for codes no RFC defines.
 */
const char *siw_mpa_err_name(enum siw_mpa_err err)
{
	if ((unsigned int)err >= ARRAY_SIZE(siw_mpa_err_names))
		return "unknown";
	return siw_mpa_err_names[err];
}
EXPORT_SYMBOL_IF_KUNIT(siw_mpa_err_name);

static const struct siw_mpa_rtr_info siw_mpa_rtr_table[SIW_MPA_NUM_RTR] = {
	[SIW_MPA_RTR_WRITE] = {
		.name = "zero-length RDMA Write",
		.flag = SIW_MPA_ENH_C,
		.in_ord_word = true,
	},
	[SIW_MPA_RTR_READ] = {
		.name = "zero-length RDMA Read",
		.flag = SIW_MPA_ENH_D,
		.in_ord_word = true,
		.needs_ird = true,
	},
	[SIW_MPA_RTR_SEND] = {
		.name = "zero-length Send",
		.flag = SIW_MPA_ENH_B,
	},
};

/**
 * siw_mpa_rtr_info() - the table row of an RTR indication type
 * @rtr: the type
 *
 * Context: any.
 * Returns: the row, or NULL for SIW_MPA_RTR_NONE and out-of-range values.
 */
const struct siw_mpa_rtr_info *siw_mpa_rtr_info(enum siw_mpa_rtr rtr)
{
	if ((unsigned int)rtr >= SIW_MPA_NUM_RTR)
		return NULL;
	return &siw_mpa_rtr_table[rtr];
}
EXPORT_SYMBOL_IF_KUNIT(siw_mpa_rtr_info);
