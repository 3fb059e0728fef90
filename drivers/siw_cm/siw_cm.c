// SPDX-License-Identifier: GPL-2.0
/*
 * The iw_cm provider: connect, accept, reject, listen, and the device
 * client that ends a device's connections before the device goes.
 *
 * iw_cm's rules this file keeps: a connect that returned 0 gets exactly
 * one CONNECT_REPLY, an accept that returned 0 gets ESTABLISHED and
 * later CLOSE, a failed call gets no event at all. Events may come
 * before the call returns.
 */
#include <linux/errno.h>
#include <linux/module.h>
#include <rdma/ib_verbs.h>
#include <rdma/iw_cm.h>

#include "siw_compat.h"
#include "cm_internal.h"
#include "siw_cm.h"

static struct ib_qp *siw_cm_get_qp(struct ib_device *ibdev, u32 qpn)
{
	if (!ibdev->ops.iw_get_qp)
		return NULL;
	return ibdev->ops.iw_get_qp(ibdev, qpn);
}

/* The initiator's socket: bound to the local address iw_cm chose */
static int siw_cm_connect_sock(struct iw_cm_id *cm_id, bool nodelay,
			       struct socket **sockp)
{
	struct sockaddr_storage *laddr = &cm_id->m_local_addr;
	int len = laddr->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
						 sizeof(struct sockaddr_in);
	int rv;

	if (cm_id->m_remote_addr.ss_family != laddr->ss_family)
		return -EAFNOSUPPORT;
	rv = siw_cm_sock_create(cm_id->device, laddr->ss_family, sockp);
	if (rv)
		return rv;
	siw_cm_sock_setup(*sockp, nodelay);
	/*
	 * rdma_cm chose the port from its own table, which does not see
	 * TCP's TIME-WAIT sockets: an earlier connection of ours that closed
	 * first holds its port for a minute, and the bind would fail with
	 * EADDRINUSE although the new 4-tuple differs. TCP still refuses a
	 * connect that would reuse the very same 4-tuple.
	 */
	sock_set_reuseaddr((*sockp)->sk);
	rv = kernel_bind(*sockp, (struct sockaddr_unsized *)laddr, len);
	if (rv) {
		sock_release(*sockp);
		*sockp = NULL;
	}
	return rv;
}

static int siw_cm_connect(struct iw_cm_id *cm_id,
			  struct iw_cm_conn_param *param)
{
	struct ib_qp *qp = siw_cm_get_qp(cm_id->device, param->qpn);
	struct siw_cm_step st;
	struct socket *sock;
	struct siw_cep *cep;
	int rv;

	if (!qp)
		return -EINVAL;
	cep = siw_cep_alloc(cm_id->device, true);
	if (!cep)
		return -ENOMEM;
	mutex_lock(&cep->lock);
	/* the device's removal may have destroyed it since it was made */
	if (cep->fsm.state != SIW_CM_IDLE)
		rv = -ENODEV;
	else
		rv = siw_cm_connect_sock(cm_id, cep->nodelay, &sock);
	if (!rv) {
		siw_cep_sock_attach(cep, sock);
		siw_cep_set_cm_id(cep, cm_id);
		siw_cep_set_qp(cep, qp);
		cm_id->provider_data = siw_cep_handle(cep);
		rv = siw_cm_fsm_connect(&cep->fsm, param->ird, param->ord,
					param->private_data,
					param->private_data_len, &st);
	}
	if (rv) {
		/* no event for a connect that fails: drop the ids first */
		siw_cep_release_ids(cep);
		siw_cm_fsm_step(&cep->fsm, SIW_CM_EV_DESTROY, 0, &st);
	}
	siw_cep_run(cep, &st, rv);
	mutex_unlock(&cep->lock);
	siw_cep_put(cep);
	return rv;
}

static int siw_cm_accept(struct iw_cm_id *cm_id,
			 struct iw_cm_conn_param *param)
{
	struct siw_cep *cep = siw_cep_from_handle(cm_id->provider_data);
	struct siw_cm_step st;
	struct ib_qp *qp;
	bool bound;
	int rv;

	if (!cep)
		return -ECONNRESET;
	qp = siw_cm_get_qp(cm_id->device, param->qpn);
	if (!qp) {
		siw_cep_put(cep);
		return -EINVAL;
	}
	mutex_lock(&cep->lock);
	bound = cep->fsm.state == SIW_CM_REQ_RCVD;
	if (bound) {
		siw_cep_set_cm_id(cep, cm_id);
		siw_cep_set_qp(cep, qp);
	}
	rv = siw_cm_fsm_accept(&cep->fsm, param->ird, param->ord,
			       param->private_data, param->private_data_len,
			       &st);
	/*
	 * A failed accept gets no event: drop the ids before the actions.
	 * Only the ones this call gave: any others are not the caller's.
	 */
	if (rv && bound)
		siw_cep_release_ids(cep);
	siw_cep_run(cep, &st, rv);
	mutex_unlock(&cep->lock);
	siw_cep_put(cep);
	return rv;
}

static int siw_cm_reject(struct iw_cm_id *cm_id, const void *pdata, u8 plen)
{
	struct siw_cep *cep = siw_cep_from_handle(cm_id->provider_data);
	struct siw_cm_step st;
	int rv;

	if (!cep)
		return -ECONNRESET;
	mutex_lock(&cep->lock);
	rv = siw_cm_fsm_reject(&cep->fsm, pdata, plen, &st);
	siw_cep_run(cep, &st, rv);
	mutex_unlock(&cep->lock);
	siw_cep_put(cep);
	return rv;
}

static int siw_cm_create_listen(struct iw_cm_id *cm_id, int backlog)
{
	return siw_listener_create(cm_id, backlog);
}

static int siw_cm_destroy_listen(struct iw_cm_id *cm_id)
{
	if (cm_id->provider_data)
		siw_listener_destroy(cm_id);
	return 0;
}

const struct ib_device_ops siw_cm_ops = {
	.iw_connect = siw_cm_connect,
	.iw_accept = siw_cm_accept,
	.iw_reject = siw_cm_reject,
	.iw_create_listen = siw_cm_create_listen,
	.iw_destroy_listen = siw_cm_destroy_listen,
	.device_group = &siw_cm_attr_group,
};

static int siw_cm_client_add(struct ib_device *ibdev)
{
	return ibdev->ops.driver_id == RDMA_DRIVER_SIW ? 0 : -EOPNOTSUPP;
}

/*
 * The device is being unregistered. Clients go in the reverse order of
 * their registration: when siw was loaded after rdma_cm, this one goes
 * before the RDMA CM's and setups end here at once; when rdma_cm came
 * later, its removal comes first and a connecting cm_id it destroys
 * waits for our setup's timer. Established connections end through the
 * RDMA CM's DEVICE_REMOVAL either way, and what is left in
 * siw_cm_dev_gone().
 */
static void siw_cm_client_remove(struct ib_device *ibdev, void *data)
{
	siw_cep_end_setups(ibdev);
}

/**
 * siw_cm_dev_gone() - no endpoint may outlive its device
 * @ibdev: the device, unregistered (every client removed), about to be
 *	freed
 *
 * Context: process; may sleep (the device's dealloc_driver).
 */
void siw_cm_dev_gone(struct ib_device *ibdev)
{
	siw_cep_destroy_all(ibdev);
}

static struct ib_client siw_cm_client = {
	.name = "siw_cm",
	.add = siw_cm_client_add,
	.remove = siw_cm_client_remove,
};

/**
 * siw_cm_init() - set the CM up, at module load
 *
 * Context: process.
 * Returns: 0 or -errno.
 */
int siw_cm_init(void)
{
	int rv;

	siw_cm_wq = alloc_workqueue("siw_cm", WQ_UNBOUND, 0);
	if (!siw_cm_wq)
		return -ENOMEM;
	rv = ib_register_client(&siw_cm_client);
	if (rv)
		goto err_wq;
	return 0;

err_wq:
	destroy_workqueue(siw_cm_wq);
	return rv;
}

/**
 * siw_cm_exit() - tear the CM down, at module unload
 *
 * Context: process, after every siw device was unregistered (each
 * one's siw_cm_dev_gone() ended its connections by then).
 */
void siw_cm_exit(void)
{
	ib_unregister_client(&siw_cm_client);
	destroy_workqueue(siw_cm_wq);
	WARN_ON(!siw_cep_table_empty());
}
