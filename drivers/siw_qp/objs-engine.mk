# SPDX-License-Identifier: GPL-2.0
# The data path's protocol core in drivers/siw_qp (see siw_engine.h),
# linked into siw.ko by the top-level Kbuild.

siw-y += drivers/siw_qp/siw_fpdu_tx.o
siw-y += drivers/siw_qp/siw_fpdu_rx.o
