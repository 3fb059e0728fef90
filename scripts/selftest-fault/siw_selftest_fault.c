// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only module for the harness's self-tests (scripts/selftest),
 * never part of siw.ko: loading it plants one kind of kernel failure, so
 * that a self-test can show that the guest run it happens in fails.
 *
 *   insmod siw_selftest_fault.ko fault=NAME
 *
 *   warn     a WARNING with a backtrace
 *   leak     allocations nobody references: kmemleak reports them
 *   kasan    a read one byte past a slab object: KASAN reports it
 *   lockdep  two mutexes taken in both orders: lockdep reports a
 *	      possible circular locking dependency
 *   hung     the loading task sleeps uninterruptibly for hung_secs
 *	      (default 12): the hung-task detector reports it once its
 *	      timeout (set low by the test) has passed
 */
#include <linux/compiler.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>

static char *fault = "";
module_param(fault, charp, 0444);
MODULE_PARM_DESC(fault, "warn, leak, kasan, lockdep or hung");

static uint hung_secs = 12;
module_param(hung_secs, uint, 0444);
MODULE_PARM_DESC(hung_secs, "seconds the hung fault blocks the loader");

static DEFINE_MUTEX(selftest_a);
static DEFINE_MUTEX(selftest_b);

static int plant_leak(void)
{
	unsigned int i;
	char *p;

	/*
	 * Each pointer is overwritten by the next one; only the last may
	 * live on in a stale stack slot that kmemleak scans.
	 */
	for (i = 0; i < 16; i++) {
		p = kmalloc(512, GFP_KERNEL);
		if (!p)
			return -ENOMEM;
		memset(p, 0x5a, 512);
	}
	pr_info("siw-selftest-fault: leaked 16 objects of 512 bytes on purpose\n");
	return 0;
}

static int plant_kasan(void)
{
	size_t len = 16, i = 16;
	char *p = kmalloc(len, GFP_KERNEL);
	char c;

	if (!p)
		return -ENOMEM;
	/* hide the index, so that the compiler cannot see the overflow */
	OPTIMIZER_HIDE_VAR(i);
	c = READ_ONCE(p[i]);
	pr_info("siw-selftest-fault: read past a %zu byte object: %d\n",
		len, c);
	kfree(p);
	return 0;
}

static void plant_lockdep(void)
{
	mutex_lock(&selftest_a);
	mutex_lock(&selftest_b);
	mutex_unlock(&selftest_b);
	mutex_unlock(&selftest_a);

	mutex_lock(&selftest_b);
	mutex_lock(&selftest_a);
	mutex_unlock(&selftest_a);
	mutex_unlock(&selftest_b);
}

static void plant_hung(void)
{
	unsigned long end = jiffies + hung_secs * HZ;

	while (time_before(jiffies, end)) {
		set_current_state(TASK_UNINTERRUPTIBLE);
		schedule_timeout(end - jiffies);
	}
}

static int __init selftest_fault_init(void)
{
	pr_info("siw-selftest-fault: planting '%s'\n", fault);
	if (!strcmp(fault, "warn"))
		WARN(1, "siw-selftest-fault: planted WARNING\n");
	else if (!strcmp(fault, "leak"))
		return plant_leak();
	else if (!strcmp(fault, "kasan"))
		return plant_kasan();
	else if (!strcmp(fault, "lockdep"))
		plant_lockdep();
	else if (!strcmp(fault, "hung"))
		plant_hung();
	else
		return -EINVAL;
	return 0;
}

static void __exit selftest_fault_exit(void)
{
}

module_init(selftest_fault_init);
module_exit(selftest_fault_exit);
MODULE_DESCRIPTION("siw harness self-test: planted kernel failures");
MODULE_LICENSE("GPL");
