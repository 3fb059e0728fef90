// SPDX-License-Identifier: GPL-2.0
/*
 * The copy that places received payload and stages FPDUs to send.
 *
 * Two implementations move the same octets: the kernel's memcpy(), which
 * on x86 with ERMS is a single "rep movsb", and a loop of ours that
 * moves eight-octet words, four to a step. On real x86 the string
 * instruction is at least as fast; under QEMU's TCG, which runs it one
 * octet per iteration of its main loop, it moved 247 MB/s at 1448
 * octets where the word loop moved 2304 (2026-11-27, an ad-hoc probe in
 * the benchmark's guest). As for CRC32c (mpa_crc.c), the module times
 * both at load and keeps the faster; the module parameter copy_impl
 * names it and can force either.
 *
 * TCP's own copy (tcp_sendmsg() of octets not handed by reference) is
 * always memcpy(): the transmit path copies the FPDUs it does not hand
 * over by reference into its own pages itself, with this copy (the
 * stage of siw_stream_tx.c).
 */
#include <kunit/visibility.h>
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "siw_compat.h"
#include "siw_mpa.h"

/* Calibration: a buffer of this size, each implementation this often */
#define SIW_COPY_CAL_LEN	4096
#define SIW_COPY_CAL_ROUNDS	8

enum siw_copy_impl { SIW_COPY_AUTO, SIW_COPY_MEMCPY, SIW_COPY_WORDS };

static const char * const siw_copy_impl_names[] = {
	[SIW_COPY_AUTO] = "auto",
	[SIW_COPY_MEMCPY] = "memcpy",
	[SIW_COPY_WORDS] = "words",
};

static enum siw_copy_impl siw_copy_asked = SIW_COPY_AUTO;
static bool siw_copy_use_words __read_mostly;
/* module loaded far enough to time: a choice given at load waits */
static bool siw_copy_ready;

/* Eight-octet words, four a step; neither end needs to be aligned */
static void siw_copy_words(u8 *d, const u8 *s, size_t len)
{
	u64 a, b, c, e;

	for (; len >= 32; d += 32, s += 32, len -= 32) {
		a = get_unaligned((const u64 *)s);
		b = get_unaligned((const u64 *)(s + 8));
		c = get_unaligned((const u64 *)(s + 16));
		e = get_unaligned((const u64 *)(s + 24));
		put_unaligned(a, (u64 *)d);
		put_unaligned(b, (u64 *)(d + 8));
		put_unaligned(c, (u64 *)(d + 16));
		put_unaligned(e, (u64 *)(d + 24));
	}
	for (; len >= 8; d += 8, s += 8, len -= 8)
		put_unaligned(get_unaligned((const u64 *)s), (u64 *)d);
	while (len--)
		*d++ = *s++;
}

/*
 * Nanoseconds for SIW_COPY_CAL_ROUNDS copies of @src, the best of 3. The
 * length is hidden from the compiler: a memcpy() of a known 4 KiB is
 * inlined as a word move, where the data path, whose lengths vary, calls
 * the kernel's memcpy() (at 1/10 of the speed under TCG, measured)
 */
static u64 siw_copy_time(u8 *dst, const u8 *src, bool words)
{
	size_t len = SIW_COPY_CAL_LEN;
	u64 best = U64_MAX, t0;
	int i, r;

	OPTIMIZER_HIDE_VAR(len);
	for (i = 0; i < 3; i++) {
		t0 = ktime_get_ns();
		for (r = 0; r < SIW_COPY_CAL_ROUNDS; r++) {
			if (words)
				siw_copy_words(dst, src, len);
			else
				memcpy(dst, src, len);
			barrier_data(dst);
		}
		best = min(best, ktime_get_ns() - t0);
	}
	return best;
}

/* Keep the faster; memcpy() unless the words were timed faster */
static void siw_copy_calibrate(void)
{
	u64 t_memcpy, t_words;
	u8 *buf;
	u32 i;

	buf = kmalloc(2 * SIW_COPY_CAL_LEN, GFP_KERNEL);
	if (!buf) {
		WRITE_ONCE(siw_copy_use_words, false);
		return;
	}
	for (i = 0; i < SIW_COPY_CAL_LEN; i++)
		buf[i] = i * 167 + (i >> 8);
	/* one untimed pass each: both routines and buffers warm */
	siw_copy_words(buf + SIW_COPY_CAL_LEN, buf, SIW_COPY_CAL_LEN);
	memcpy(buf + SIW_COPY_CAL_LEN, buf, SIW_COPY_CAL_LEN);
	t_memcpy = siw_copy_time(buf + SIW_COPY_CAL_LEN, buf, false);
	t_words = siw_copy_time(buf + SIW_COPY_CAL_LEN, buf, true);
	kfree(buf);
	WRITE_ONCE(siw_copy_use_words, t_words < t_memcpy);
	pr_info("siw: copies by %s (%u KiB: memcpy() %llu us, words %llu us)\n",
		t_words < t_memcpy ? "words" : "memcpy()",
		SIW_COPY_CAL_ROUNDS * SIW_COPY_CAL_LEN / 1024,
		div_u64(t_memcpy, 1000), div_u64(t_words, 1000));
}

static void siw_copy_apply(enum siw_copy_impl impl)
{
	siw_copy_asked = impl;
	if (!siw_copy_ready)
		return;
	if (impl == SIW_COPY_AUTO)
		siw_copy_calibrate();
	else
		WRITE_ONCE(siw_copy_use_words, impl == SIW_COPY_WORDS);
}

static int siw_copy_impl_set(const char *val, const struct kernel_param *kp)
{
	int i = sysfs_match_string(siw_copy_impl_names, val);

	if (i < 0)
		return -EINVAL;
	siw_copy_apply(i);
	return 0;
}

static int siw_copy_impl_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s (%s)\n", siw_copy_impl_names[siw_copy_asked],
			  READ_ONCE(siw_copy_use_words) ? "words" : "memcpy");
}

static const struct kernel_param_ops siw_copy_impl_ops = {
	.set = siw_copy_impl_set,
	.get = siw_copy_impl_get,
};

module_param_cb(copy_impl, &siw_copy_impl_ops, NULL, 0644);
MODULE_PARM_DESC(copy_impl,
		 "Payload copy: auto (the faster, timed at load; default), memcpy or words");

/**
 * siw_mpa_copy_init() - pick the copy implementation
 *
 * Called once at module load, before any FPDU; the choice of a copy_impl
 * given at load is kept.
 *
 * Context: process.
 */
void siw_mpa_copy_init(void)
{
	siw_copy_ready = true;
	siw_copy_apply(siw_copy_asked);
}

/**
 * siw_mpa_copy() - copy payload octets with the implementation in use
 * @dst: where they go (may not overlap @src)
 * @src: the octets
 * @len: how many
 *
 * Context: any.
 */
void siw_mpa_copy(void *dst, const void *src, size_t len)
{
	if (READ_ONCE(siw_copy_use_words))
		siw_copy_words(dst, src, len);
	else
		memcpy(dst, src, len);
}
EXPORT_SYMBOL_IF_KUNIT(siw_mpa_copy);

/**
 * siw_mpa_copy_words() - the word loop, whatever is in use (for the tests)
 * @dst: where the octets go
 * @src: the octets
 * @len: how many
 *
 * Context: any.
 */
void siw_mpa_copy_words(void *dst, const void *src, size_t len)
{
	siw_copy_words(dst, src, len);
}
EXPORT_SYMBOL_IF_KUNIT(siw_mpa_copy_words);

/**
 * siw_mpa_copy_own() - is the word loop the copy in use? (KUnit)
 *
 * Context: any.
 * Returns: true while siw_mpa_copy() is the word loop, false while it is
 * memcpy().
 */
bool siw_mpa_copy_own(void)
{
	return READ_ONCE(siw_copy_use_words);
}
EXPORT_SYMBOL_IF_KUNIT(siw_mpa_copy_own);

/**
 * siw_mpa_copy_swap() - use the word loop, or memcpy(), from now on (KUnit)
 * @words: use the word loop
 *
 * Context: any.
 * Returns: whether the word loop was in use.
 */
bool siw_mpa_copy_swap(bool words)
{
	return xchg(&siw_copy_use_words, words);
}
EXPORT_SYMBOL_IF_KUNIT(siw_mpa_copy_swap);
