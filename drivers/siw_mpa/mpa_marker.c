// SPDX-License-Identifier: GPL-2.0
/*
 * FPDU geometry: pad (RFC 5044 section 4.1), where markers fall and how
 * many an FPDU holds (section 4.3), and the MULPDU (section 4.5).
 *
 * Stream offsets count octets from the start of MPA mode in one
 * direction, mod 2^32; markers sit where the offset is a multiple of 512
 * (siw_mpa_marker_dist()). The first marker is at offset 0, right before
 * the first FPDU, and every FPDU is a multiple of 4 octets, so an FPDU
 * always starts on a multiple of 4 and markers only fall on FPDU offsets
 * that are multiples of 4: before the header, inside the ULPDU, or right
 * after the pad, before the CRC.
 */
#include <kunit/visibility.h>
#include <linux/export.h>
#include <linux/math.h>
#include <linux/minmax.h>

#include "mpa_wire.h"

/**
 * siw_mpa_pad_len() - pad octets after a ULPDU
 * @ulpdu_len: ULPDU octets
 *
 * Context: any.
 * Returns: 0 to 3, so that header, ULPDU and pad fill whole words.
 */
u32 siw_mpa_pad_len(u32 ulpdu_len)
{
	return (0U - (SIW_MPA_HDR_LEN + ulpdu_len)) & 3;
}
EXPORT_SYMBOL_IF_KUNIT(siw_mpa_pad_len);

/**
 * siw_mpa_fpdu_len() - octets of an FPDU, markers not counted
 * @ulpdu_len: ULPDU octets
 *
 * Context: any.
 * Returns: header, ULPDU, pad and CRC: a multiple of 4.
 */
u32 siw_mpa_fpdu_len(u32 ulpdu_len)
{
	return SIW_MPA_FPDU_OVERHEAD + ulpdu_len + siw_mpa_pad_len(ulpdu_len);
}
EXPORT_SYMBOL_IF_KUNIT(siw_mpa_fpdu_len);

/**
 * siw_mpa_fpdu_markers() - markers inside an FPDU
 * @pos: stream offset where the FPDU starts (where its leading marker,
 *	if any, goes)
 * @ulpdu_len: ULPDU octets
 *
 * A marker belongs to the FPDU if FPDU octets remain to be sent when the
 * stream reaches it: one at @pos itself counts (FPDUPTR 0), one right
 * after the CRC belongs to the next FPDU. Successive markers are 508
 * FPDU octets apart.
 *
 * Context: any.
 * Returns: the number of markers sent with the FPDU when markers are on.
 */
u32 siw_mpa_fpdu_markers(u32 pos, u32 ulpdu_len)
{
	u32 len = siw_mpa_fpdu_len(ulpdu_len);
	u32 dist = siw_mpa_marker_dist(pos);

	if (dist >= len)
		return 0;
	return DIV_ROUND_UP(len - dist,
			    SIW_MPA_MARKER_PERIOD - SIW_MPA_MARKER_LEN);
}
EXPORT_SYMBOL_IF_KUNIT(siw_mpa_fpdu_markers);

/**
 * siw_mpa_fpdu_wire_len() - stream octets an FPDU takes
 * @pos: stream offset where it starts
 * @markers: markers are on
 * @ulpdu_len: ULPDU octets
 *
 * Context: any.
 * Returns: siw_mpa_fpdu_len() plus 4 octets for each marker it holds.
 */
u32 siw_mpa_fpdu_wire_len(u32 pos, bool markers, u32 ulpdu_len)
{
	u32 len = siw_mpa_fpdu_len(ulpdu_len);

	if (markers)
		len += SIW_MPA_MARKER_LEN * siw_mpa_fpdu_markers(pos, ulpdu_len);
	return len;
}
EXPORT_SYMBOL_IF_KUNIT(siw_mpa_fpdu_wire_len);

/**
 * siw_mpa_mulpdu() - largest ULPDU that fits one TCP segment
 * @emss: effective maximum segment size
 * @markers: markers are on in this direction
 *
 * The formulas of RFC 5044 section 4.5, which count the worst-case
 * number of markers, kept within 128 and 64768 (sections 3 and 4.5).
 *
 * Context: any.
 * Returns: the MULPDU.
 */
u32 siw_mpa_mulpdu(u32 emss, bool markers)
{
	u32 over = SIW_MPA_FPDU_OVERHEAD + emss % 4;

	if (markers)
		over += SIW_MPA_MARKER_LEN *
			(emss / SIW_MPA_MARKER_PERIOD +
			 !!(emss % SIW_MPA_MARKER_PERIOD));
	if (emss < over + SIW_MPA_MULPDU_MIN)
		return SIW_MPA_MULPDU_MIN;
	return min_t(u32, emss - over, SIW_MPA_ULPDU_MAX);
}
EXPORT_SYMBOL_IF_KUNIT(siw_mpa_mulpdu);
