// SPDX-License-Identifier: GPL-2.0
/*
 * Placeholders for the QP side of siw_cm_qp.h until drivers/siw_qp
 * provides it: a QP that cannot take a stream, so every connection that
 * negotiates successfully is aborted right after. The QP layer drops
 * this file from objs.mk when it lands its own implementation.
 */
#include <linux/errno.h>

#include "siw_cm_qp.h"

int siw_qp_cm_attach(struct ib_qp *qp, struct siw_cep *cep,
		     struct socket *sock, const struct siw_mpa_conn *conn,
		     bool initiator)
{
	return -EOPNOTSUPP;
}

int siw_qp_cm_send_rtr(struct ib_qp *qp, enum siw_mpa_rtr rtr)
{
	return -EOPNOTSUPP;
}

int siw_qp_cm_rts(struct ib_qp *qp)
{
	return -EOPNOTSUPP;
}

void siw_qp_cm_terminate(struct ib_qp *qp, enum siw_mpa_err code)
{
}

void siw_qp_cm_detach(struct ib_qp *qp)
{
}
