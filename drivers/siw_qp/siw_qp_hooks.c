// SPDX-License-Identifier: GPL-2.0
/*
 * Where the TX and RX engines and the connection manager join the QP
 * layer (see siw_qp.h). Until they land, a QP never has a stream, so
 * there is nothing to start, stop or close.
 */
#include "siw_qp.h"

void siw_qp_sq_kick(struct siw_qp *qp)
{
}

void siw_qp_engine_stop(struct siw_qp *qp)
{
}

void siw_qp_llp_close(struct siw_qp *qp, bool abrupt)
{
}
