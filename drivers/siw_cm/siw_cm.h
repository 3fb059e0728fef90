/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The connection manager as the device layer sees it: the iw_cm
 * operations to merge into the device's ops, and module setup.
 *
 * See Documentation/cm.rst.
 */
#ifndef SIW_CM_H
#define SIW_CM_H

#include <rdma/ib_verbs.h>

/*
 * iw_connect, iw_accept, iw_reject, iw_create_listen, iw_destroy_listen.
 * The device calls ib_set_device_ops(ibdev, &siw_cm_ops) after its own
 * ops, which must leave these five unset. iw_add_ref, iw_rem_ref and
 * iw_get_qp are the QP layer's.
 */
extern const struct ib_device_ops siw_cm_ops;

int siw_cm_init(void);
void siw_cm_exit(void);

#endif /* SIW_CM_H */
