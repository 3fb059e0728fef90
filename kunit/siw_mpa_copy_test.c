// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite siw_mpa_copy: the payload copy (mpa_copy.c). Both
 * implementations must move exactly the octets asked for, from and to
 * any alignment, and nothing beyond them; the choice in use decides
 * whether the transmit path copies into its own pages.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/slab.h>

#include "siw_mpa/siw_mpa.h"

#define CP_ROOM		(65536 + 64)
#define CP_GUARD	0xa5

/* The copy by @words (else the one in use after forcing memcpy()) */
static void cp_copy(bool words, void *d, const void *s, size_t len)
{
	if (words)
		siw_mpa_copy_words(d, s, len);
	else
		siw_mpa_copy(d, s, len);
}

/*
 * @len octets from @src + @so to @dst + @doff: exactly those, the
 * octets around them untouched
 */
static bool cp_ok(bool words, u8 *dst, const u8 *src,
		  size_t so, size_t doff, size_t len)
{
	size_t i;

	memset(dst, CP_GUARD, doff + len + 16);
	cp_copy(words, dst + doff, src + so, len);
	for (i = 0; i < doff; i++)
		if (dst[i] != CP_GUARD)
			return false;
	if (memcmp(dst + doff, src + so, len))
		return false;
	for (i = doff + len; i < doff + len + 16; i++)
		if (dst[i] != CP_GUARD)
			return false;
	return true;
}

static u8 *cp_source(struct kunit *test)
{
	u8 *src = kunit_kmalloc(test, CP_ROOM, GFP_KERNEL);
	u32 x = 0x2545f491;
	size_t i;

	KUNIT_ASSERT_NOT_NULL(test, src);
	for (i = 0; i < CP_ROOM; i++) {
		x = x * 1103515245 + 12345;
		/* never the guard value, so a missed octet shows */
		src[i] = (x >> 23) == CP_GUARD ? 0 : x >> 23;
	}
	return src;
}

/*
 * The word loop and memcpy() (forced, whatever was timed at load) at
 * every alignment of both ends and every length up to 100, which covers
 * each tail the loop has (octets, words, four-word steps), and at the
 * sizes payload runs come in
 */
static void siw_mpa_copy_exact(struct kunit *test)
{
	static const size_t big[] = { 1448, 4096, 8948, 65536 };
	u8 *src = cp_source(test);
	u8 *dst = kunit_kmalloc(test, CP_ROOM + 32, GFP_KERNEL);
	bool was = siw_mpa_copy_swap(false);
	size_t so, doff, len, i;
	int words;

	KUNIT_ASSERT_NOT_NULL(test, dst);
	for (words = 0; words < 2; words++) {
		for (so = 0; so < 8; so++)
			for (doff = 0; doff < 8; doff++)
				for (len = 0; len <= 100; len++)
					if (!cp_ok(words, dst, src, so,
						   doff, len))
						KUNIT_FAIL(test, "words %d: %zu to %zu, %zu octets",
							   words, so, doff, len);
		for (i = 0; i < ARRAY_SIZE(big); i++)
			KUNIT_EXPECT_TRUE_MSG(test,
					      cp_ok(words, dst, src, 3, 5,
						    big[i]),
					      "words %d, %zu octets", words,
					      big[i]);
	}
	siw_mpa_copy_swap(was);
}

/*
 * siw_mpa_copy() is exact whichever copy is chosen, and siw_mpa_copy_own()
 * follows the choice (which copy ran is not visible in the octets: the
 * staging test of siw_stream shows what the choice changes)
 */
static void siw_mpa_copy_choice(struct kunit *test)
{
	u8 *src = cp_source(test);
	u8 *dst = kunit_kmalloc(test, 256, GFP_KERNEL);
	bool was;

	KUNIT_ASSERT_NOT_NULL(test, dst);
	was = siw_mpa_copy_swap(true);
	KUNIT_EXPECT_TRUE(test, siw_mpa_copy_own());
	KUNIT_EXPECT_TRUE(test, cp_ok(false, dst, src, 1, 2, 77));
	KUNIT_EXPECT_TRUE(test, siw_mpa_copy_swap(false));
	KUNIT_EXPECT_FALSE(test, siw_mpa_copy_own());
	KUNIT_EXPECT_TRUE(test, cp_ok(false, dst, src, 1, 2, 77));
	siw_mpa_copy_swap(was);
	kunit_info(test, "in use since load: %s", was ? "words" : "memcpy()");
}

static struct kunit_case siw_mpa_copy_cases[] = {
	KUNIT_CASE(siw_mpa_copy_exact),
	KUNIT_CASE(siw_mpa_copy_choice),
	{}
};

static struct kunit_suite siw_mpa_copy_suite = {
	.name = "siw_mpa_copy",
	.test_cases = siw_mpa_copy_cases,
};

kunit_test_suite(siw_mpa_copy_suite);
