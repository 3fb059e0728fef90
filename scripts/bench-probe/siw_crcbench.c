// SPDX-License-Identifier: GPL-2.0
/*
 * siw_crcbench: how fast this machine computes CRC32c, measured at load.
 *
 * scripts/bench loads it in the benchmark's guest, in the same run as the
 * bandwidth tests, so that Documentation/benchmark.rst can tell what
 * share of the cost of MPA CRCs is the CRC32c computation itself (the
 * crc32 instruction, emulated under TCG) and what share is ours. It
 * reports, at FPDU and message sizes, in 10^6 octets a second:
 *
 *   crc32c    the kernel's crc32c(), what siw uses (its implementation
 *             is named on the "impl" line);
 *   table     __crc32c_le(), the table-driven code without the crc32
 *             instruction;
 *   memcpy    one copy of the same octets: the pass that placement and
 *             a copied send make anyway.
 *
 * Each figure is the best of three timings of at least 100 ms each. The
 * module holds nothing once loaded; unload it with rmmod. Not part of
 * siw.ko.
 */
#include <linux/crc32.h>
#include <linux/crc32c.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>

#define CB_BUF		(1024 * 1024)
#define CB_MIN_NS	(100 * NSEC_PER_MSEC)
#define CB_TRIES	3

enum cb_func { CB_CRC32C, CB_TABLE, CB_MEMCPY };

static const char * const cb_names[] = { "crc32c", "table", "memcpy" };
static const u32 cb_sizes[] = { 1448, 8948, 65536 };

static u8 *cb_src, *cb_dst;
static u32 cb_sink;

/* One pass of @f over @len octets at @off of the buffer */
static void cb_pass(enum cb_func f, u32 off, u32 len)
{
	switch (f) {
	case CB_CRC32C:
		cb_sink ^= crc32c(~0U, cb_src + off, len);
		break;
	case CB_TABLE:
		cb_sink ^= __crc32c_le(~0U, cb_src + off, len);
		break;
	case CB_MEMCPY:
		memcpy(cb_dst + off, cb_src + off, len);
		cb_sink ^= cb_dst[off];
		break;
	}
}

/*
 * Octets a second of @f in blocks of @len, walking the whole buffer so
 * that the caches see what a stream of messages gives them
 */
static u64 cb_rate(enum cb_func f, u32 len)
{
	u64 best = 0, octets, ns, t0;
	u32 off;
	int i;

	for (i = 0; i < CB_TRIES; i++) {
		octets = 0;
		off = 0;
		t0 = ktime_get_ns();
		do {
			cb_pass(f, off, len);
			octets += len;
			off += len;
			if (off + len > CB_BUF) {
				off = 0;
				cond_resched();
			}
			ns = ktime_get_ns() - t0;
		} while (ns < CB_MIN_NS);
		best = max(best, div64_u64(octets * NSEC_PER_SEC, ns));
	}
	return best;
}

static int __init cb_init(void)
{
	unsigned int f, s;
	u32 i;

	cb_src = kvmalloc(CB_BUF, GFP_KERNEL);
	cb_dst = kvmalloc(CB_BUF, GFP_KERNEL);
	if (!cb_src || !cb_dst) {
		kvfree(cb_src);
		kvfree(cb_dst);
		return -ENOMEM;
	}
	for (i = 0; i < CB_BUF; i++)
		cb_src[i] = i * 131 + (i >> 9);
#ifdef CB_CRC32C_IMPL
	pr_info("siw_crcbench: impl %s\n", crc32c_impl());
#else
	pr_info("siw_crcbench: impl lib\n");
#endif
	for (f = 0; f < ARRAY_SIZE(cb_names); f++)
		for (s = 0; s < ARRAY_SIZE(cb_sizes); s++)
			pr_info("siw_crcbench: %s %u %llu\n", cb_names[f],
				cb_sizes[s], div_u64(cb_rate(f, cb_sizes[s]),
						     1000000));
	pr_info("siw_crcbench: done %08x\n", cb_sink);
	kvfree(cb_src);
	kvfree(cb_dst);
	return 0;
}

static void __exit cb_exit(void)
{
}

module_init(cb_init);
module_exit(cb_exit);
MODULE_DESCRIPTION("CRC32c and copy throughput probe for the siw benchmark");
MODULE_LICENSE("GPL");
