# SPDX-License-Identifier: GPL-2.0
# Objects of drivers/siw_ddp, linked into siw.ko (see the top-level Kbuild).
