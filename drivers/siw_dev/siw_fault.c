// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/debug/siw_fail: allocation failures injected into this
 * module only (see siw_fault.h).
 */
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/fault-inject.h>

#include "siw_fault.h"

static DECLARE_FAULT_ATTR(siw_fail_attr);
static struct dentry *siw_fail_dir;

/**
 * siw_fault() - should the allocation being made fail?
 *
 * Context: any.
 * Returns: true when /sys/kernel/debug/siw_fail says so.
 */
bool siw_fault(void)
{
	return should_fail(&siw_fail_attr, 1);
}

/* At module load; without debugfs there is nothing to set, and no fault */
void siw_fault_init(void)
{
	struct dentry *d = fault_create_debugfs_attr("siw_fail", NULL,
						     &siw_fail_attr);

	if (!IS_ERR(d))
		siw_fail_dir = d;
}

void siw_fault_exit(void)
{
	debugfs_remove_recursive(siw_fail_dir);
	siw_fail_dir = NULL;
}
