# SPDX-License-Identifier: GPL-2.0
# Objects of drivers/siw_ddp, linked into siw.ko (see the top-level Kbuild).

siw-y += drivers/siw_ddp/ddp_error.o
siw-y += drivers/siw_ddp/ddp_hdr.o
siw-y += drivers/siw_ddp/ddp_place.o
siw-y += drivers/siw_ddp/ddp_stag.o
siw-y += drivers/siw_ddp/rdmap_opcode.o
siw-y += drivers/siw_ddp/rdmap_term.o
