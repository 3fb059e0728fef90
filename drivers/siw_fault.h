/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Injected allocation failures, for the fault runs (scripts/tests/
 * faults.sh). In a kernel with CONFIG_FAULT_INJECTION_DEBUG_FS the
 * module has /sys/kernel/debug/siw_fail, a set of the kernel's fault
 * attributes (probability, interval, times, task-filter, ...; see the
 * kernel's Documentation/fault-injection). Every allocation of ours is
 * made through SIW_FAULT(), so the failures land on this module's error
 * paths, in whatever context they run (softirq included), and nowhere
 * else in the kernel. Without that option SIW_FAULT(x) is x.
 */
#ifndef SIW_FAULT_H
#define SIW_FAULT_H

#include <linux/types.h>

#ifdef CONFIG_FAULT_INJECTION_DEBUG_FS
bool siw_fault(void);
void siw_fault_init(void);
void siw_fault_exit(void);
#else
static inline bool siw_fault(void)
{
	return false;
}

static inline void siw_fault_init(void)
{
}

static inline void siw_fault_exit(void)
{
}
#endif

/* SIW_FAULT(alloc): the allocation, or NULL when a failure is injected */
#define SIW_FAULT(alloc) (siw_fault() ? NULL : (alloc))

#endif
