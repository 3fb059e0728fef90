// SPDX-License-Identifier: GPL-2.0
/*
 * CRC32c of FPDUs (RFC 5044 section 4.4): the iSCSI CRC of RFC 3720.
 *
 * Two implementations give the same values: the kernel's crc32c(), which
 * uses the CPU's CRC32 instruction where there is one, and a
 * table-driven one of ours (eight tables of 256 entries, eight octets a
 * step). On real x86 the instruction is several times faster; where it
 * is emulated (QEMU's TCG) it is several times slower than the tables.
 * At load the module times both over the same buffer and keeps the
 * faster (the module parameter mpa_crc_impl names it, and can force
 * either); the kernel's xor and raid6 code choose their routines the
 * same way.
 *
 * The running state is the raw register: start at SIW_MPA_CRC_SEED
 * (all ones), feed the octets in stream order, and complement at the end
 * (siw_mpa_crc_value()). The value goes on the wire least significant
 * octet first; see mpa_wire.h.
 */
#include <kunit/visibility.h>
#include <linux/crc32c.h>
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "siw_compat.h"
#include "mpa_wire.h"

/* The Castagnoli polynomial, bit-reflected (RFC 3720 section 12.1) */
#define SIW_CRC32C_POLY		0x82f63b78U
/* Calibration: a buffer of this size, each implementation this often */
#define SIW_CRC_CAL_LEN		4096
#define SIW_CRC_CAL_ROUNDS	8

enum siw_crc_impl { SIW_CRC_AUTO, SIW_CRC_KERNEL, SIW_CRC_TABLE };

static const char * const siw_crc_impl_names[] = {
	[SIW_CRC_AUTO] = "auto",
	[SIW_CRC_KERNEL] = "kernel",
	[SIW_CRC_TABLE] = "table",
};

/* [k][b]: the register after octet b followed by k zero octets */
static u32 siw_crc_tab[8][256] __read_mostly;
/* what mpa_crc_impl asked for, and what is in use */
static enum siw_crc_impl siw_crc_asked = SIW_CRC_AUTO;
static bool siw_crc_use_table __read_mostly;
/* with the tables: copy and sum in one loop, else a copy then a sum */
static bool siw_crc_fused __read_mostly = true;
/* the tables are made: a choice given at load waits for this */
static bool siw_crc_ready;

/*
 * Eight octets, read as one little-endian word @v: the register meets
 * them as two 32-bit halves
 */
static __always_inline u32 siw_crc_step8(u32 crc, u64 v)
{
	const u32 (*t)[256] = siw_crc_tab;
	u32 a = lower_32_bits(v) ^ crc, b = upper_32_bits(v);

	return t[7][a & 0xff] ^ t[6][(a >> 8) & 0xff] ^
	       t[5][(a >> 16) & 0xff] ^ t[4][a >> 24] ^
	       t[3][b & 0xff] ^ t[2][(b >> 8) & 0xff] ^
	       t[1][(b >> 16) & 0xff] ^ t[0][b >> 24];
}

static __always_inline u32 siw_crc_step1(u32 crc, u8 c)
{
	return (crc >> 8) ^ siw_crc_tab[0][(crc ^ c) & 0xff];
}

static u32 siw_crc_table_update(u32 crc, const u8 *p, size_t len)
{
	for (; len >= 8; p += 8, len -= 8)
		crc = siw_crc_step8(crc, get_unaligned_le64(p));
	while (len--)
		crc = siw_crc_step1(crc, *p++);
	return crc;
}

/*
 * Copy @len octets from @p to @d and feed them into @crc in the same
 * loop: each eight-octet word is loaded once, stored and folded in
 */
static u32 siw_crc_table_copy(u32 crc, u8 *d, const u8 *p, size_t len)
{
	u64 v;
	u8 c;

	for (; len >= 8; p += 8, d += 8, len -= 8) {
		v = get_unaligned_le64(p);
		put_unaligned_le64(v, d);
		crc = siw_crc_step8(crc, v);
	}
	while (len--) {
		c = *p++;
		*d++ = c;
		crc = siw_crc_step1(crc, c);
	}
	return crc;
}

static void siw_crc_tables_make(void)
{
	u32 b, k, c;

	for (b = 0; b < 256; b++) {
		c = b;
		for (k = 0; k < 8; k++)
			c = (c >> 1) ^ (c & 1 ? SIW_CRC32C_POLY : 0);
		siw_crc_tab[0][b] = c;
	}
	for (k = 1; k < 8; k++)
		for (b = 0; b < 256; b++) {
			c = siw_crc_tab[k - 1][b];
			siw_crc_tab[k][b] = (c >> 8) ^ siw_crc_tab[0][c & 0xff];
		}
}

/* Nanoseconds for SIW_CRC_CAL_ROUNDS passes over @buf, the best of 3 */
static u64 siw_crc_time(const u8 *buf, bool table, u32 *sink)
{
	u64 best = U64_MAX, t0;
	int i, r;

	for (i = 0; i < 3; i++) {
		t0 = ktime_get_ns();
		for (r = 0; r < SIW_CRC_CAL_ROUNDS; r++)
			*sink ^= table ?
				siw_crc_table_update(~0U, buf, SIW_CRC_CAL_LEN) :
				crc32c(~0U, buf, SIW_CRC_CAL_LEN);
		best = min(best, ktime_get_ns() - t0);
	}
	return best;
}

/*
 * Copy and sum a piece small enough to stay in the first-level cache at a
 * time: the copy, then the sum of the source while it is there (never the
 * destination: its owner may be writing to it)
 */
#define SIW_CRC_COPY_PIECE	1024

static u32 siw_crc_copy_apart(u32 state, u8 *d, const u8 *p, size_t len)
{
	size_t n;

	while (len) {
		n = min_t(size_t, len, SIW_CRC_COPY_PIECE);
		siw_mpa_copy(d, p, n);
		state = siw_mpa_crc_update(state, p, n);
		d += n;
		p += n;
		len -= n;
	}
	return state;
}

/*
 * Nanoseconds for SIW_CRC_CAL_ROUNDS copies of @buf to @dst with the
 * tables' CRC: in one loop (@fused), or piece by piece a copy and then a
 * sum, the best of 3. The length is hidden from the compiler, as the
 * data path's lengths are.
 */
static u64 siw_crc_copy_time(const u8 *buf, u8 *dst, bool fused, u32 *sink)
{
	size_t len = SIW_CRC_CAL_LEN;
	u64 best = U64_MAX, t0;
	int i, r;

	OPTIMIZER_HIDE_VAR(len);
	for (i = 0; i < 3; i++) {
		t0 = ktime_get_ns();
		for (r = 0; r < SIW_CRC_CAL_ROUNDS; r++)
			*sink ^= fused ?
				 siw_crc_table_copy(~0U, dst, buf, len) :
				 siw_crc_copy_apart(~0U, dst, buf, len);
		best = min(best, ktime_get_ns() - t0);
	}
	return best;
}

/*
 * Keep the faster implementation. The kernel's stays if the tables do
 * not give its value over the calibration buffer, or nothing could be
 * timed.
 */
static void siw_crc_calibrate(void)
{
	u64 t_kernel, t_table, t_fused, t_apart;
	u32 sink = 0, i;
	bool same;
	u8 *buf;

	buf = kmalloc(2 * SIW_CRC_CAL_LEN, GFP_KERNEL);
	if (!buf) {
		WRITE_ONCE(siw_crc_use_table, false);
		return;
	}
	for (i = 0; i < SIW_CRC_CAL_LEN; i++)
		buf[i] = i * 167 + (i >> 8);
	same = siw_crc_table_update(~0U, buf + 1, SIW_CRC_CAL_LEN - 1) ==
	       crc32c(~0U, buf + 1, SIW_CRC_CAL_LEN - 1);
	t_kernel = siw_crc_time(buf, false, &sink);
	t_table = siw_crc_time(buf, true, &sink);
	if (!same)
		pr_err("siw: CRC32c tables disagree with crc32c(); not used\n");
	WRITE_ONCE(siw_crc_use_table, same && t_table < t_kernel);
	/*
	 * Placement and staging copy with the CRC: with the tables, in one
	 * loop or a copy then a sum, whichever is faster (under TCG the
	 * word copy and the sum apart beat the loop that does both)
	 */
	t_fused = siw_crc_copy_time(buf, buf + SIW_CRC_CAL_LEN, true, &sink);
	t_apart = siw_crc_copy_time(buf, buf + SIW_CRC_CAL_LEN, false, &sink);
	WRITE_ONCE(siw_crc_fused, t_fused <= t_apart);
	barrier_data(&sink);
	kfree(buf);
	pr_info("siw: CRC32c by %s (%u KiB: crc32c() %llu us, tables %llu us; with the tables, copy and CRC in one loop %llu us, apart %llu us: %s)\n",
		READ_ONCE(siw_crc_use_table) ? "tables" : "crc32c()",
		SIW_CRC_CAL_ROUNDS * SIW_CRC_CAL_LEN / 1024,
		div_u64(t_kernel, 1000), div_u64(t_table, 1000),
		div_u64(t_fused, 1000), div_u64(t_apart, 1000),
		t_fused <= t_apart ? "one loop" : "apart");
}

static void siw_crc_apply(enum siw_crc_impl impl)
{
	siw_crc_asked = impl;
	if (!siw_crc_ready)
		return;
	if (impl == SIW_CRC_AUTO)
		siw_crc_calibrate();
	else
		WRITE_ONCE(siw_crc_use_table, impl == SIW_CRC_TABLE);
}

static int siw_crc_impl_set(const char *val, const struct kernel_param *kp)
{
	int i = sysfs_match_string(siw_crc_impl_names, val);

	if (i < 0)
		return -EINVAL;
	siw_crc_apply(i);
	return 0;
}

static int siw_crc_impl_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s (%s)\n", siw_crc_impl_names[siw_crc_asked],
			  READ_ONCE(siw_crc_use_table) ? "table" : "kernel");
}

static const struct kernel_param_ops siw_crc_impl_ops = {
	.set = siw_crc_impl_set,
	.get = siw_crc_impl_get,
};

module_param_cb(mpa_crc_impl, &siw_crc_impl_ops, NULL, 0644);
MODULE_PARM_DESC(mpa_crc_impl,
		 "CRC32c code: auto (the faster, timed at load; default), kernel (crc32c()) or table");

/**
 * siw_mpa_crc_init() - make the tables and pick the implementation
 *
 * Called once at module load, before any FPDU; the choice of a
 * mpa_crc_impl given at load is kept.
 *
 * Context: process.
 */
void siw_mpa_crc_init(void)
{
	siw_crc_tables_make();
	siw_crc_ready = true;
	siw_crc_apply(siw_crc_asked);
}

/**
 * siw_mpa_crc_table_update() - feed octets into a running CRC32c with
 *	the tables, whatever is in use
 * @state: SIW_MPA_CRC_SEED or the result of an earlier call
 * @buf: the octets
 * @len: how many
 *
 * For the tests: the same result as siw_mpa_crc_update().
 *
 * Context: any, after siw_mpa_crc_init().
 * Returns: the new state.
 */
u32 siw_mpa_crc_table_update(u32 state, const void *buf, size_t len)
{
	return siw_crc_table_update(state, buf, len);
}
EXPORT_SYMBOL_IF_KUNIT(siw_mpa_crc_table_update);

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

	if (READ_ONCE(siw_crc_use_table))
		return siw_crc_table_update(state, buf, len);
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
 * One pass over the octets: with the tables each word is loaded once,
 * stored and folded in, unless the timing at load found it faster to
 * do as with crc32c(): each piece of up to 1 KiB copied
 * (siw_mpa_copy()) and then summed from the cache. The receive path
 * places payload with it, so that checking the CRC costs no pass of its
 * own.
 *
 * Context: any.
 * Returns: the new state, as siw_mpa_crc_update() over @src would.
 */
u32 siw_mpa_crc_copy(u32 state, void *dst, const void *src, size_t len)
{
	if (READ_ONCE(siw_crc_use_table) && READ_ONCE(siw_crc_fused))
		return siw_crc_table_copy(state, dst, src, len);
	return siw_crc_copy_apart(state, dst, src, len);
}
EXPORT_SYMBOL_IF_KUNIT(siw_mpa_crc_copy);

/**
 * siw_mpa_crc_fused_swap() - with the tables, copy and sum in one loop or
 *	apart from now on (KUnit)
 * @fused: in one loop
 *
 * Context: any.
 * Returns: whether they were in one loop.
 */
bool siw_mpa_crc_fused_swap(bool fused)
{
	return xchg(&siw_crc_fused, fused);
}
EXPORT_SYMBOL_IF_KUNIT(siw_mpa_crc_fused_swap);

/**
 * siw_mpa_crc_table_copy() - siw_mpa_crc_copy() with the tables,
 *	whatever is in use
 * @state: SIW_MPA_CRC_SEED or the result of an earlier call
 * @dst: where the octets go
 * @src: the octets
 * @len: how many
 *
 * For the tests, as siw_mpa_crc_table_update().
 *
 * Context: any, after siw_mpa_crc_init().
 * Returns: the new state.
 */
u32 siw_mpa_crc_table_copy(u32 state, void *dst, const void *src, size_t len)
{
	return siw_crc_table_copy(state, dst, src, len);
}
EXPORT_SYMBOL_IF_KUNIT(siw_mpa_crc_table_copy);

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
