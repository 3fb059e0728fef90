// SPDX-License-Identifier: GPL-2.0
/*
 * CRC32c of FPDUs (RFC 5044 section 4.4): the iSCSI CRC of RFC 3720,
 * computed by the kernel's crc32c(), which uses the CPU's CRC32
 * instruction where there is one.
 *
 * The running state is the raw register: start at SIW_MPA_CRC_SEED
 * (all ones), feed the octets in stream order, and complement at the end
 * (siw_mpa_crc_value()). The value goes on the wire least significant
 * octet first; see mpa_wire.h.
 */
#include <kunit/visibility.h>
#include <linux/crc32c.h>
#include <linux/export.h>
#include <linux/limits.h>
#include <linux/minmax.h>
#include <linux/string.h>

#include "siw_mpa.h"

/*
 * Copy and sum a piece small enough to stay in the first-level cache at a
 * time: the copy, then the sum of the source while it is there (never the
 * destination: its owner may be writing to it)
 */
#define SIW_CRC_COPY_PIECE	1024

/**
 * siw_mpa_crc_update() - feed octets into a running CRC32c
 * @state: SIW_MPA_CRC_SEED or the result of an earlier call
 * @buf: the octets
 * @len: how many
 *
 * Context: any.
 * Returns: the new state.
 */
u32 siw_mpa_crc_update(u32 state, const void *buf, size_t len)
{
	const u8 *p = buf;
	unsigned int n;

	/* crc32c() takes an unsigned int length */
	while (len) {
		n = min_t(size_t, len, UINT_MAX);
		state = crc32c(state, p, n);
		p += n;
		len -= n;
	}
	return state;
}
EXPORT_SYMBOL_IF_KUNIT(siw_mpa_crc_update);

/**
 * siw_mpa_crc_copy() - copy octets and feed them into a running CRC32c
 * @state: SIW_MPA_CRC_SEED or the result of an earlier call
 * @dst: where the octets go (may not overlap @src)
 * @src: the octets
 * @len: how many
 *
 * Piece by piece, a copy and then the sum of the source while it is in
 * the cache: the receive path places payload and the transmit path
 * stages FPDUs with it, so that the CRC costs no pass over memory of
 * its own.
 *
 * Context: any.
 * Returns: the new state, as siw_mpa_crc_update() over @src would.
 */
u32 siw_mpa_crc_copy(u32 state, void *dst, const void *src, size_t len)
{
	const u8 *p = src;
	u8 *d = dst;
	size_t n;

	while (len) {
		n = min_t(size_t, len, SIW_CRC_COPY_PIECE);
		memcpy(d, p, n);
		state = crc32c(state, p, n);
		d += n;
		p += n;
		len -= n;
	}
	return state;
}
EXPORT_SYMBOL_IF_KUNIT(siw_mpa_crc_copy);

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * siw_mpa_crc32c() - the CRC32c value of one buffer
 * @buf: the octets
 * @len: how many
 *
 * Context: any.
 * Returns: the value RFC 3720 defines (e.g. 0x8a9136aa for 32 zeros).
 */
u32 siw_mpa_crc32c(const void *buf, size_t len)
{
	return siw_mpa_crc_value(siw_mpa_crc_update(SIW_MPA_CRC_SEED, buf,
						    len));
}
EXPORT_SYMBOL_IF_KUNIT(siw_mpa_crc32c);
#endif
