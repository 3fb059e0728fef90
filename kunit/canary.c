// SPDX-License-Identifier: GPL-2.0
/*
 * A suite that fails on purpose. The harness self-test loads it to show
 * that a failing KUnit case fails the run; `make check` never loads it
 * with the real suites.
 */
#include <linux/module.h>
#include <kunit/test.h>

static void siw_canary_passes(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, 1 + 1, 2);
}

static void siw_canary_fails(struct kunit *test)
{
	KUNIT_EXPECT_EQ_MSG(test, 1 + 1, 3, "this case fails by design");
}

static struct kunit_case siw_canary_cases[] = {
	KUNIT_CASE(siw_canary_passes),
	KUNIT_CASE(siw_canary_fails),
	{}
};

static struct kunit_suite siw_canary_suite = {
	.name = "siw_harness_canary",
	.test_cases = siw_canary_cases,
};

kunit_test_suite(siw_canary_suite);

MODULE_DESCRIPTION("siw harness self-test: a KUnit suite that must fail");
MODULE_LICENSE("GPL");
