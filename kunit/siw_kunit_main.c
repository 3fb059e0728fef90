// SPDX-License-Identifier: GPL-2.0
/*
 * siw_kunit.ko: the module that carries every siw_*_test.c suite. The
 * suites register themselves; this file only describes the module.
 */
#include <linux/module.h>
#include <kunit/test.h>

#include "siw_compat.h"

MODULE_IMPORT_NS(SIW_KUNIT_NS);
MODULE_DESCRIPTION("KUnit suites for the siw software iWARP device");
MODULE_LICENSE("GPL");
