# SPDX-License-Identifier: GPL-2.0
# Objects of drivers/siw_cm, linked into siw.ko (see the top-level Kbuild).

siw-y += drivers/siw_cm/cm_fsm.o
siw-y += drivers/siw_cm/cm_names.o
siw-y += drivers/siw_cm/cm_policy.o
