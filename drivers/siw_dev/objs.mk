# SPDX-License-Identifier: GPL-2.0
# Objects of drivers/siw_dev, linked into siw.ko (see the top-level Kbuild).
siw-y += drivers/siw_dev/siw_main.o
siw-y += drivers/siw_dev/siw_netdev.o
siw-y += drivers/siw_dev/siw_verbs.o
siw-y += drivers/siw_dev/siw_parent.o
siw-y += drivers/siw_dev/siw_stats.o
siw-y += drivers/siw_dev/siw_trace.o
siw-$(CONFIG_FAULT_INJECTION_DEBUG_FS) += drivers/siw_dev/siw_fault.o
