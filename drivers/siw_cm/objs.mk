# SPDX-License-Identifier: GPL-2.0
# Objects of drivers/siw_cm, linked into siw.ko (see the top-level Kbuild).

siw-y += drivers/siw_cm/cm_fsm.o
siw-y += drivers/siw_cm/cm_names.o
siw-y += drivers/siw_cm/cm_policy.o
siw-y += drivers/siw_cm/cm_dev.o
siw-y += drivers/siw_cm/cm_cep.o
siw-y += drivers/siw_cm/cm_sock.o
siw-y += drivers/siw_cm/cm_listen.o
siw-y += drivers/siw_cm/cm_trace.o
siw-y += drivers/siw_cm/siw_cm.o

# cm_trace.h is found by define_trace.h through this path
ccflags-y += -I$(src)/drivers/siw_cm
