# SPDX-License-Identifier: GPL-2.0
# Objects of drivers/siw_qp, linked into siw.ko (see the top-level Kbuild).

siw-y += drivers/siw_qp/siw_cq.o
siw-y += drivers/siw_qp/siw_qp.o
siw-y += drivers/siw_qp/siw_qp_post.o
siw-y += drivers/siw_qp/siw_qp_state.o
siw-y += drivers/siw_qp/siw_srq.o
siw-y += drivers/siw_qp/siw_wqe.o
siw-y += drivers/siw_qp/siw_stream.o
siw-y += drivers/siw_qp/siw_stream_tx.o
siw-y += drivers/siw_qp/siw_stream_tx_msg.o
siw-y += drivers/siw_qp/siw_stream_tx_small.o
siw-y += drivers/siw_qp/siw_stream_tx_stage.o
siw-y += drivers/siw_qp/siw_stream_tx_done.o
siw-y += drivers/siw_qp/siw_stream_rx.o
siw-y += drivers/siw_qp/siw_stream_zc.o
siw-y += drivers/siw_qp/siw_qp_res.o
