# SPDX-License-Identifier: GPL-2.0
# Objects of drivers/siw_engine, the data path's protocol core (see
# siw_engine.h), linked into siw.ko (see the top-level Kbuild).

siw-y += drivers/siw_engine/siw_fpdu_tx.o
siw-y += drivers/siw_engine/siw_fpdu_rx.o
