# SPDX-License-Identifier: GPL-2.0
# Objects of drivers/siw_mpa, linked into siw.ko (see the top-level Kbuild).

siw-y += drivers/siw_mpa/mpa_crc.o
siw-y += drivers/siw_mpa/mpa_frame.o
siw-y += drivers/siw_mpa/mpa_marker.o
siw-y += drivers/siw_mpa/mpa_negotiate.o
siw-y += drivers/siw_mpa/mpa_rx.o
siw-y += drivers/siw_mpa/mpa_tables.o
siw-y += drivers/siw_mpa/mpa_tx.o
