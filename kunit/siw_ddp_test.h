/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the siw_ddp_* KUnit suites.
 *
 * Cases state the error they expect as the raw layer/type/code triple
 * of RFC 5040/5041, written down from the RFCs, not as an enum value:
 * a wrong row in the layer's error table then fails the case.
 */
#ifndef SIW_DDP_TEST_H
#define SIW_DDP_TEST_H

#include <kunit/test.h>
#include <linux/string.h>

#include "siw_ddp/siw_ddp.h"

struct siw_ddp_triple {
	u8 layer;
	u8 etype;
	u8 ecode;
	bool ok;
};

#define SIW_T_OK		{ .ok = true }
#define SIW_T(l, t, c)		{ .layer = (l), .etype = (t), .ecode = (c) }

/* RFC 5040 sections 4.8 and 7 (RDMAP, layer 0) */
#define T_RDMAP_INV_STAG	SIW_T(0x0, 0x1, 0x00)
#define T_RDMAP_BOUNDS		SIW_T(0x0, 0x1, 0x01)
#define T_RDMAP_ACCESS		SIW_T(0x0, 0x1, 0x02)
#define T_RDMAP_NOT_ASSOC	SIW_T(0x0, 0x1, 0x03)
#define T_RDMAP_TO_WRAP		SIW_T(0x0, 0x1, 0x04)
#define T_RDMAP_PROT_NO_INV	SIW_T(0x0, 0x1, 0x09)
#define T_RDMAP_VERSION		SIW_T(0x0, 0x2, 0x05)
#define T_RDMAP_OPCODE		SIW_T(0x0, 0x2, 0x06)
#define T_RDMAP_OP_NO_INV	SIW_T(0x0, 0x2, 0x09)
#define T_RDMAP_OP_UNSPEC	SIW_T(0x0, 0x2, 0xff)
/* RFC 5041 section 7.2 (DDP, layer 1) */
#define T_DDP_CATA		SIW_T(0x1, 0x0, 0x00)
#define T_DDP_T_INV_STAG	SIW_T(0x1, 0x1, 0x00)
#define T_DDP_T_BOUNDS		SIW_T(0x1, 0x1, 0x01)
#define T_DDP_T_NOT_ASSOC	SIW_T(0x1, 0x1, 0x02)
#define T_DDP_T_TO_WRAP		SIW_T(0x1, 0x1, 0x03)
#define T_DDP_T_VERSION		SIW_T(0x1, 0x1, 0x04)
#define T_DDP_U_QN		SIW_T(0x1, 0x2, 0x01)
#define T_DDP_U_NO_BUF		SIW_T(0x1, 0x2, 0x02)
#define T_DDP_U_MSN_RANGE	SIW_T(0x1, 0x2, 0x03)
#define T_DDP_U_MO		SIW_T(0x1, 0x2, 0x04)
#define T_DDP_U_TOO_LONG	SIW_T(0x1, 0x2, 0x05)
#define T_DDP_U_VERSION		SIW_T(0x1, 0x2, 0x06)

static inline void siw_ddp_expect(struct kunit *test, enum siw_ddp_err err,
				  const struct siw_ddp_triple *exp)
{
	const struct siw_ddp_errinfo *e = siw_ddp_errinfo(err);

	if (exp->ok) {
		KUNIT_EXPECT_EQ_MSG(test, err, SIW_DDP_OK, "got \"%s\"",
				    e->name);
		return;
	}
	KUNIT_ASSERT_NE_MSG(test, err, SIW_DDP_OK,
			    "expected %x/%x/%02x, got no error",
			    exp->layer, exp->etype, exp->ecode);
	KUNIT_EXPECT_TRUE(test, e->on_wire);
	KUNIT_EXPECT_EQ_MSG(test, e->layer, exp->layer, "got \"%s\"", e->name);
	KUNIT_EXPECT_EQ_MSG(test, e->etype, exp->etype, "got \"%s\"", e->name);
	KUNIT_EXPECT_EQ_MSG(test, e->ecode, exp->ecode, "got \"%s\"", e->name);
}

/* Index of the first octet that differs, @len if none */
static inline size_t siw_ddp_first_diff(const void *a, const void *b,
					size_t len)
{
	const u8 *x = a, *y = b;
	size_t i;

	for (i = 0; i < len; i++)
		if (x[i] != y[i])
			break;
	return i;
}

/* KUnit of 6.1 has no KUNIT_EXPECT_MEMEQ */
#define SIW_EXPECT_BYTES(test, got, exp, len)				\
	do {								\
		const u8 *__g = (const u8 *)(got);			\
		const u8 *__e = (const u8 *)(exp);			\
		size_t __n = (len);					\
		size_t __i = siw_ddp_first_diff(__g, __e, __n);		\
									\
		KUNIT_EXPECT_EQ_MSG(test, __i, __n,			\
				    "octet %zu: got 0x%02x, want 0x%02x", \
				    __i, __i < __n ? __g[__i] : 0,	\
				    __i < __n ? __e[__i] : 0);		\
	} while (0)

/* KUNIT_ARRAY_PARAM description: every case table has a ->name */
#define SIW_DDP_CASE_DESC(type)						\
	static void type##_desc(const struct type *c, char *desc)	\
	{								\
		strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);		\
	}

#endif /* SIW_DDP_TEST_H */
