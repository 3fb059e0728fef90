/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Objects of the CM glue, shared by its files: the endpoint (one TCP
 * connection and its state machine) and the listener (one iw_cm listen,
 * one or more listening sockets).
 *
 * Lifetime. An endpoint is counted by @ref: one reference while it is in
 * the endpoint table (from creation until its state machine reaches
 * "closed"), one per queued work item, one for an armed timer, one while
 * its socket callbacks are installed, one for the QP while attached
 * (dropped by the QP with siw_cep_put()). iw_cm finds an endpoint only
 * through its table id (cm_id->provider_data), with a reference taken
 * under RCU, so an accept or reject that comes after the endpoint died
 * finds nothing and fails with -ECONNRESET, never a stale pointer.
 */
#ifndef SIW_CM_INTERNAL_H
#define SIW_CM_INTERNAL_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/socket.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <rdma/iw_cm.h>

#include "cm_fsm.h"
#include "cm_policy.h"

struct siw_listener;

/* Things that happened to an endpoint, for its work item to process */
enum siw_cep_pending {
	SIW_CEP_P_SOCK,		/* socket readable or state changed */
	SIW_CEP_P_LLP_CLOSED,	/* the QP saw the stream end */
	SIW_CEP_P_DISCONNECT,	/* the QP was moved to SQD/CLOSING */
	SIW_CEP_P_ABORT,	/* the QP was moved to ERROR */
	SIW_CEP_P_RTR,		/* the QP saw the first FPDU: @rtr */
	SIW_CEP_P_QP_FAILED,	/* the QP would not send the RTR or go
				 * to RTS: @qp_err
				 */
	SIW_CEP_P_DESTROY,	/* device or listener goes away */
	SIW_CEP_P_DEV_GOING,	/* the device is being removed: end the
				 * endpoint if it is still in setup
				 */
};

/**
 * struct siw_cep - a connection endpoint
 * @ref: see the file comment
 * @rcu: frees the endpoint after lookups under RCU are done
 * @id: index in the endpoint table
 * @serial: tells the endpoint from earlier ones that had the same @id
 *	(see siw_cep_handle())
 * @lock: serialises everything below; taken by the work item, the timer
 *	and the consumer's calls. Never taken from softirq.
 * @fsm: the protocol state
 * @ibdev: the device (a reference through ib_device_get... is not
 *	needed: the device's dealloc_driver destroys every endpoint left
 *	before the device goes)
 * @sock: the TCP socket, until released by a close or abort action
 * @cm_id: the consumer's cm_id, referenced with its add_ref, or NULL
 * @qp: the QP, referenced with the device's iw_add_ref, or NULL
 * @lsn: responder: the listener it came from, until the request reached
 *	the consumer (referenced)
 * @lsn_entry: in @lsn->pending, under @lsn->lock
 * @laddr: local address, once TCP is up
 * @raddr: remote address, once TCP is up
 * @nodelay: set TCP_NODELAY on @sock
 * @qp_holds_cep: the QP took a reference with a successful attach
 * @pending: enum siw_cep_pending bits, set from any context
 * @rtr: for SIW_CEP_P_RTR: the message the QP saw
 * @llp_err: for SIW_CEP_P_LLP_CLOSED: why
 * @qp_err: for SIW_CEP_P_QP_FAILED: what the QP returned
 * @tseq: bumped by every transition; the timer fires for one value only
 * @tseq_armed: @tseq when the timer was armed
 * @work: processes @pending
 * @timer: the state's timeout
 * @saved_data_ready: the socket's callbacks before ours
 * @saved_state_change: likewise
 */
struct siw_cep {
	struct kref ref;
	struct rcu_head rcu;
	u32 id;
	u32 serial;
	struct mutex lock;	/* the endpoint: see @lock above */
	struct siw_cm_fsm fsm;
	struct ib_device *ibdev;
	struct socket *sock;
	struct iw_cm_id *cm_id;
	struct ib_qp *qp;
	struct siw_listener *lsn;
	struct list_head lsn_entry;
	struct sockaddr_storage laddr;
	struct sockaddr_storage raddr;
	bool nodelay;
	bool qp_holds_cep;
	unsigned long pending;
	enum siw_mpa_rtr rtr;
	int llp_err;
	int qp_err;
	u32 tseq;
	u32 tseq_armed;
	struct work_struct work;
	struct delayed_work timer;
	void (*saved_data_ready)(struct sock *sk);
	void (*saved_state_change)(struct sock *sk);
};

/**
 * struct siw_lsock - one listening socket of a listener
 * @entry: in the listener's @socks
 * @sock: the socket, bound to one address
 * @lsn: its listener
 * @saved_data_ready: the socket's callback before ours
 */
struct siw_lsock {
	struct list_head entry;
	struct socket *sock;
	struct siw_listener *lsn;
	void (*saved_data_ready)(struct sock *sk);
};

/**
 * struct siw_listener - an iw_cm listen on one device
 * @ref: one for the cm_id's provider_data, one per queued work, one per
 *	endpoint in @pending
 * @cm_id: the listening cm_id, referenced with add_ref until destroyed
 * @ibdev: its device
 * @socks: the listening sockets; fixed between create and destroy
 * @work: accepts connections on every socket
 * @lock: protects @pending and @dead; upcalls on @cm_id are made under
 *	it, so that none follows destroy
 * @pending: endpoints accepted whose request has not reached the
 *	consumer yet
 * @dead: destroy_listen began
 * @backlog: for kernel_listen()
 */
struct siw_listener {
	struct kref ref;
	struct iw_cm_id *cm_id;
	struct ib_device *ibdev;
	struct list_head socks;
	struct work_struct work;
	spinlock_t lock;	/* @pending, @dead, upcalls */
	struct list_head pending;
	bool dead;
	bool ready;		/* @socks complete: the work may walk it */
	int backlog;
};

extern struct workqueue_struct *siw_cm_wq;

/* cm_cep.c */
struct siw_cep *siw_cep_alloc(struct ib_device *ibdev, bool initiator);
void *siw_cep_handle(const struct siw_cep *cep);
struct siw_cep *siw_cep_from_handle(const void *handle);
void siw_cep_get(struct siw_cep *cep);
void siw_cep_put(struct siw_cep *cep);
void siw_cep_kick(struct siw_cep *cep, enum siw_cep_pending what);
void siw_cep_run(struct siw_cep *cep, struct siw_cm_step *st, int rv);
void siw_cep_end_setups(struct ib_device *ibdev);
void siw_cep_destroy_all(struct ib_device *ibdev);
bool siw_cep_table_empty(void);
void siw_cep_set_qp(struct siw_cep *cep, struct ib_qp *qp);
void siw_cep_set_cm_id(struct siw_cep *cep, struct iw_cm_id *cm_id);
void siw_cep_release_ids(struct siw_cep *cep);

/* cm_sock.c */
int siw_cm_sock_create(struct ib_device *ibdev, int family,
		       struct socket **sockp);
void siw_cm_sock_setup(struct socket *sock, bool nodelay);
void siw_cep_sock_attach(struct siw_cep *cep, struct socket *sock);
void siw_cep_sock_detach(struct siw_cep *cep);
void siw_cep_sock_release(struct siw_cep *cep, bool abort);
int siw_cep_sock_connect(struct siw_cep *cep,
			 const struct sockaddr_storage *raddr);
void siw_cep_sock_addrs(struct siw_cep *cep);
int siw_cep_sock_send(struct siw_cep *cep, const void *buf, size_t len);
void siw_cep_sock_rx(struct siw_cep *cep, struct siw_cm_step *st);
int siw_cep_sock_tcp_state(struct siw_cep *cep, int *err);
bool siw_cep_sock_peer_gone(struct siw_cep *cep);

/* cm_dev.c */
extern const struct attribute_group siw_cm_attr_group;
void siw_cm_dev_policy(struct ib_device *ibdev, struct siw_cm_policy *pol);

/* cm_listen.c */
int siw_listener_create(struct iw_cm_id *cm_id, int backlog);
void siw_listener_destroy(struct iw_cm_id *cm_id);
void siw_listener_put(struct siw_listener *lsn);
bool siw_listener_upcall(struct siw_cep *cep, struct iw_cm_event *ev);
void siw_listener_forget(struct siw_cep *cep);

#endif /* SIW_CM_INTERNAL_H */
