// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite siw_mpa_crc: the FPDU CRC32c and its place on the wire.
 *
 * The vectors are RFC 3720 appendix B.4 (32 octets of zeros, of ones,
 * ascending, descending, and an iSCSI Read command PDU), the customary
 * CRC-32C check value of "123456789", and the two FPDUs of RFC 5044
 * figures 5 and 6 without their CRC field. Each states the value and the
 * four octets the wire carries, copied from the RFC listings: RFC 3720
 * lists "aa 36 91 8a" for value 0x8a9136aa, RFC 5044 sends 0x83992352 as
 * 52 23 99 83, so the field is least significant octet first.
 */
#include <kunit/test.h>
#include <linux/crc32c.h>
#include <linux/kernel.h>
#include <linux/slab.h>

#include "siw_mpa_test.h"

static const u8 b4_zeros[32];

static const u8 b4_ones[32] = {
	[0 ... 31] = 0xff,
};

static const u8 b4_incr[32] = {
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
	0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
	0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17,
	0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f,
};

static const u8 b4_decr[32] = {
	0x1f, 0x1e, 0x1d, 0x1c, 0x1b, 0x1a, 0x19, 0x18,
	0x17, 0x16, 0x15, 0x14, 0x13, 0x12, 0x11, 0x10,
	0x0f, 0x0e, 0x0d, 0x0c, 0x0b, 0x0a, 0x09, 0x08,
	0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01, 0x00,
};

/* RFC 3720 B.4: an iSCSI Read (10) command PDU */
static const u8 b4_read_pdu[48] = {
	0x01, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00,
	0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x18,
	0x28, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

static const u8 check_123456789[9] = "123456789";

/* RFC 5044 figure 5 up to its CRC: marker, length 42, a DDP Send */
static const u8 fig5_body[48] = {
	0x00, 0x00, 0x00, 0x00, 0x00, 0x2a, 0x41, 0x43,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
};

/* RFC 5044 figure 6 up to its CRC: length, DDP Send, marker at 0x200 */
static const u8 fig6_body[48] = {
	0x00, 0x2a, 0x41, 0x43, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x14,
};

struct crc_case {
	const char *name;
	const u8 *data;
	size_t len;
	u32 value;
	u8 wire[4];
};

static const struct crc_case crc_cases[] = {
	{ "rfc3720 b4 32 zeros", b4_zeros, 32, 0x8a9136aa,
	  { 0xaa, 0x36, 0x91, 0x8a } },
	{ "rfc3720 b4 32 ones", b4_ones, 32, 0x62a8ab43,
	  { 0x43, 0xab, 0xa8, 0x62 } },
	{ "rfc3720 b4 32 incrementing", b4_incr, 32, 0x46dd794e,
	  { 0x4e, 0x79, 0xdd, 0x46 } },
	{ "rfc3720 b4 32 decrementing", b4_decr, 32, 0x113fdb5c,
	  { 0x5c, 0xdb, 0x3f, 0x11 } },
	{ "rfc3720 b4 iscsi read pdu", b4_read_pdu, 48, 0xd9963a56,
	  { 0x56, 0x3a, 0x96, 0xd9 } },
	{ "check value 123456789", check_123456789, 9, 0xe3069283,
	  { 0x83, 0x92, 0x06, 0xe3 } },
	{ "empty", b4_zeros, 0, 0x00000000, { 0x00, 0x00, 0x00, 0x00 } },
	{ "rfc5044 figure 5", fig5_body, 48, 0x83992352,
	  { 0x52, 0x23, 0x99, 0x83 } },
	{ "rfc5044 figure 6", fig6_body, 48, 0x98589284,
	  { 0x84, 0x92, 0x58, 0x98 } },
};

MPA_CASE_DESC(crc_case)
KUNIT_ARRAY_PARAM(crc, crc_cases, crc_case_desc);

/* One shot, split at every position, octet by octet: one value */
static void siw_mpa_crc_vector(struct kunit *test)
{
	const struct crc_case *c = test->param_value;
	u8 field[4] = { 0 };
	u32 st;
	size_t i;

	KUNIT_EXPECT_EQ(test, siw_mpa_crc32c(c->data, c->len), c->value);
	siw_mpa_crc_put(field, siw_mpa_crc32c(c->data, c->len));
	MPA_EXPECT_BYTES(test, field, c->wire, 4);
	KUNIT_EXPECT_EQ(test, siw_mpa_crc_get(c->wire), c->value);

	for (i = 0; i <= c->len; i++) {
		st = siw_mpa_crc_update(SIW_MPA_CRC_SEED, c->data, i);
		st = siw_mpa_crc_update(st, c->data + i, c->len - i);
		KUNIT_EXPECT_EQ_MSG(test, siw_mpa_crc_value(st), c->value,
				    "split at %zu", i);
	}
	st = SIW_MPA_CRC_SEED;
	for (i = 0; i < c->len; i++)
		st = siw_mpa_crc_update(st, c->data + i, 1);
	KUNIT_EXPECT_EQ(test, siw_mpa_crc_value(st), c->value);
}

/* The layout decision, pinned: value 0x8a9136aa is sent aa 36 91 8a */
static void siw_mpa_crc_wire_order(struct kunit *test)
{
	static const u8 want[4] = { 0xaa, 0x36, 0x91, 0x8a };
	struct siw_mpa_crc_wire w;
	u8 field[6] = { 0xee, 0, 0, 0, 0, 0xee };

	siw_mpa_crc_put(field + 1, 0x8a9136aa);
	MPA_EXPECT_BYTES(test, field + 1, want, 4);
	KUNIT_EXPECT_EQ(test, field[0], 0xee);
	KUNIT_EXPECT_EQ(test, field[5], 0xee);
	memcpy(&w, want, sizeof(w));
	KUNIT_EXPECT_EQ(test, le32_to_cpu(w.crc), 0x8a9136aaU);
	KUNIT_EXPECT_EQ(test, siw_mpa_crc_get(field + 1), 0x8a9136aaU);
	/* not the network-order reading */
	KUNIT_EXPECT_NE(test, get_unaligned_be32(want), 0x8a9136aaU);
}

/* An FPDU's CRC covers its framing: every octet of figure 5 counts */
static void siw_mpa_crc_every_octet(struct kunit *test)
{
	u8 buf[sizeof(fig5_body)];
	unsigned int i, bit;

	for (i = 0; i < sizeof(buf); i++) {
		for (bit = 0; bit < 8; bit++) {
			memcpy(buf, fig5_body, sizeof(buf));
			buf[i] ^= 1 << bit;
			KUNIT_EXPECT_NE_MSG(test, siw_mpa_crc32c(buf, sizeof(buf)),
					    0x83992352U, "octet %u bit %u",
					    i, bit);
		}
	}
}

/* The running state fed in two pieces, split at every octet */
static void siw_mpa_crc_split_vector(struct kunit *test)
{
	const struct crc_case *c = test->param_value;
	u32 st;
	size_t i;

	for (i = 0; i <= c->len; i++) {
		st = siw_mpa_crc_update(SIW_MPA_CRC_SEED, c->data, i);
		st = siw_mpa_crc_update(st, c->data + i, c->len - i);
		KUNIT_EXPECT_EQ_MSG(test, siw_mpa_crc_value(st), c->value,
				    "split at %zu", i);
	}
}

#define CRC_BIG		(65536 + 24)

/* One copy of @len octets from @src to @dst; false if it went wrong */
static bool crc_copy_ok(u8 *dst, size_t room, const u8 *src, size_t len)
{
	u32 st;

	memset(dst - 1, 0xa5, room);
	st = siw_mpa_crc_copy(~0U, dst, src, len);
	return st == crc32c(~0U, src, len) && !memcmp(dst, src, len) &&
	       dst[-1] == 0xa5 && dst[len] == 0xa5;
}

/*
 * Copying with the CRC gives what a copy and a CRC pass over it give, at
 * every alignment of either end, across the pieces it copies in, and
 * writes nothing outside the copy
 */
static void siw_mpa_crc_copy_matches(struct kunit *test)
{
	static const size_t big[] = { 1023, 1024, 1025, 1448, 4096, 8948,
				      65536 + 17 };
	size_t i, len, so, doff, room = CRC_BIG + 16;
	u8 *src = kunit_kmalloc(test, CRC_BIG, GFP_KERNEL);
	u8 *dst = kunit_kmalloc(test, room, GFP_KERNEL);
	u32 x = 0x1d872b41, st, want;

	KUNIT_ASSERT_NOT_NULL(test, src);
	KUNIT_ASSERT_NOT_NULL(test, dst);
	for (i = 0; i < CRC_BIG; i++) {
		x = x * 1103515245 + 12345;
		src[i] = x >> 23;
	}
	for (so = 0; so < 8; so++)
		for (doff = 1; doff < 9; doff += 3)
			for (len = 0; len <= 100; len++)
				if (!crc_copy_ok(dst + doff, room - doff,
						 src + so, len))
					KUNIT_FAIL(test, "%zu to %zu, %zu",
						   so, doff, len);
	for (i = 0; i < ARRAY_SIZE(big); i++) {
		len = big[i];
		memset(dst, 0xa5, room);
		want = crc32c(~0U, src + 3, len);
		/* in two pieces, as runs of one FPDU come */
		st = siw_mpa_crc_copy(~0U, dst + 5, src + 3, len / 3);
		st = siw_mpa_crc_copy(st, dst + 5 + len / 3, src + 3 + len / 3,
				      len - len / 3);
		KUNIT_EXPECT_EQ_MSG(test, st, want, "length %zu", len);
		KUNIT_EXPECT_EQ_MSG(test, memcmp(dst + 5, src + 3, len), 0,
				    "length %zu", len);
		KUNIT_EXPECT_EQ(test, dst[5 + len], 0xa5);
	}
}

static struct kunit_case siw_mpa_crc_cases[] = {
	KUNIT_CASE_PARAM(siw_mpa_crc_vector, crc_gen_params),
	KUNIT_CASE_PARAM(siw_mpa_crc_split_vector, crc_gen_params),
	KUNIT_CASE(siw_mpa_crc_copy_matches),
	KUNIT_CASE(siw_mpa_crc_wire_order),
	KUNIT_CASE(siw_mpa_crc_every_octet),
	{}
};

static struct kunit_suite siw_mpa_crc_suite = {
	.name = "siw_mpa_crc",
	.test_cases = siw_mpa_crc_cases,
};

kunit_test_suite(siw_mpa_crc_suite);
