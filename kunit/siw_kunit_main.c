// SPDX-License-Identifier: GPL-2.0
/*
 * siw_kunit.ko: the module that carries every siw_*_test.c suite. The
 * suites register themselves; this file only describes the module.
 */
#include <linux/module.h>
#include <kunit/test.h>

/* Since 6.13 namespaces are string literals; Kbuild tells which. */
#ifdef SIW_NS_IS_STRING
MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");
#else
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
#endif
MODULE_DESCRIPTION("KUnit suites for the siw software iWARP device");
MODULE_LICENSE("GPL");
