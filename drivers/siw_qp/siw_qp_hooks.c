// SPDX-License-Identifier: GPL-2.0
/*
 * Where the TX and RX engines and the connection manager join the QP
 * layer (see siw_qp.h). Until the engines land, a QP never has a stream,
 * so there is nothing to start or stop; closing goes to the CM through
 * its contract (siw_cm_qp.h).
 */
#include "siw_cm/siw_cm_qp.h"
#include "siw_qp.h"

void siw_qp_sq_kick(struct siw_qp *qp)
{
}

void siw_qp_engine_stop(struct siw_qp *qp)
{
}

void siw_qp_llp_close(struct siw_qp *qp, bool abrupt)
{
	lockdep_assert_held(&qp->modify_mutex);
	if (qp->cep)
		siw_cm_qp_disconnect(qp->cep, abrupt);
}
