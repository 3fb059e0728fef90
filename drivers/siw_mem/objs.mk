# SPDX-License-Identifier: GPL-2.0
# Objects of drivers/siw_mem, linked into siw.ko (see the top-level Kbuild).

siw-y += drivers/siw_mem/siw_mem.o
siw-y += drivers/siw_mem/siw_umap.o
