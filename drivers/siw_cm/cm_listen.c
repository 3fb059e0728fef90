// SPDX-License-Identifier: GPL-2.0
/*
 * Listeners: one iw_cm listen, one listening socket per address.
 *
 * A specific address gets one socket. A wildcard address gets one socket
 * per address of the device's netdev (IPv6 wildcards also take the IPv4
 * addresses unless the cm_id is AF-only), so that several devices can
 * listen on the same port, each on its own netdev, as rdma_cm does for a
 * wildcard listen on every device. A netdev without addresses listens on
 * nothing until it is given one and the consumer listens again.
 */
#include <linux/errno.h>
#include <linux/inetdevice.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <net/addrconf.h>
#include <net/ipv6.h>
#include <net/sock.h>

#include "siw_compat.h"
#include "cm_internal.h"
#include "cm_trace.h"
#include "siw_fault.h"

/* Addresses one wildcard listen binds to, at most */
#define SIW_LSN_MAX_ADDRS	32

static void siw_listener_free(struct kref *ref)
{
	struct siw_listener *lsn = container_of(ref, struct siw_listener, ref);

	WARN_ON(!list_empty(&lsn->socks) || !list_empty(&lsn->pending));
	kfree(lsn);
}

/**
 * siw_listener_put() - drop a reference on a listener
 * @lsn: the listener
 *
 * Context: any.
 */
void siw_listener_put(struct siw_listener *lsn)
{
	kref_put(&lsn->ref, siw_listener_free);
}

static void siw_lsock_data_ready(struct sock *sk)
{
	struct siw_lsock *ls;

	read_lock_bh(&sk->sk_callback_lock);
	ls = sk->sk_user_data;
	if (ls && queue_work(siw_cm_wq, &ls->lsn->work))
		kref_get(&ls->lsn->ref);
	read_unlock_bh(&sk->sk_callback_lock);
}

/*
 * An accepted socket is a clone of the listening one, our callback and
 * sk_user_data included: give it the listener's original callback back
 * before anything else can call ours on it.
 */
static void siw_lsock_child_reset(struct siw_lsock *ls, struct socket *sock)
{
	struct sock *sk = sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = NULL;
	sk->sk_data_ready = ls->saved_data_ready;
	write_unlock_bh(&sk->sk_callback_lock);
}

/* A connection came in: an endpoint awaiting the MPA Request */
static void siw_listener_new_conn(struct siw_listener *lsn,
				  struct siw_lsock *ls, struct socket *sock)
{
	struct siw_cm_step st;
	struct siw_cep *cep;
	bool dead;

	siw_lsock_child_reset(ls, sock);
	cep = siw_cep_alloc(lsn->ibdev, false);
	if (!cep) {
		sock_release(sock);
		return;
	}
	siw_cm_sock_setup(sock, cep->nodelay);
	mutex_lock(&cep->lock);
	siw_cep_sock_attach(cep, sock);
	siw_cep_sock_addrs(cep);
	spin_lock(&lsn->lock);
	dead = lsn->dead;
	if (!dead) {
		kref_get(&lsn->ref);
		cep->lsn = lsn;
		list_add_tail(&cep->lsn_entry, &lsn->pending);
	}
	spin_unlock(&lsn->lock);
	siw_cm_fsm_step(&cep->fsm, dead ? SIW_CM_EV_DESTROY : SIW_CM_EV_TCP_UP,
			0, &st);
	siw_cep_run(cep, &st, 0);
	mutex_unlock(&cep->lock);
	siw_cep_put(cep);
}

static void siw_listener_work(struct work_struct *w)
{
	struct siw_listener *lsn = container_of(w, struct siw_listener, work);
	struct siw_lsock *ls;
	struct socket *sock;

	/*
	 * A connection still in a listening socket's accept queue carries
	 * our callback (see siw_lsock_child_reset()), so data it receives
	 * queues this work even after destroy has cancelled it; destroy is
	 * then freeing @socks. Before create has listed all its sockets
	 * (@ready), @socks may still grow: create runs the work once after.
	 */
	if (READ_ONCE(lsn->dead) || !smp_load_acquire(&lsn->ready))
		goto out;
	list_for_each_entry(ls, &lsn->socks, entry)
		while (!READ_ONCE(lsn->dead) &&
		       !kernel_accept(ls->sock, &sock, O_NONBLOCK))
			siw_listener_new_conn(lsn, ls, sock);
out:
	siw_listener_put(lsn);
}

static int siw_lsock_add(struct siw_listener *lsn,
			 const struct sockaddr_storage *addr)
{
	int len = addr->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
						sizeof(struct sockaddr_in);
	struct siw_lsock *ls;
	struct sock *sk;
	int rv;

	ls = SIW_FAULT(kzalloc(sizeof(*ls), GFP_KERNEL));
	if (!ls)
		return -ENOMEM;
	rv = siw_cm_sock_create(lsn->ibdev, addr->ss_family, &ls->sock);
	if (rv)
		goto err_free;
	sk = ls->sock->sk;
	sock_set_reuseaddr(sk);
	if (addr->ss_family == AF_INET6)
		sk->sk_ipv6only = true;
	rv = kernel_bind(ls->sock, (struct sockaddr_unsized *)addr, len);
	if (!rv)
		rv = kernel_listen(ls->sock, lsn->backlog);
	trace_siw_cm_listen(lsn->cm_id, (const struct sockaddr *)addr, rv);
	if (rv)
		goto err_release;
	ls->lsn = lsn;
	write_lock_bh(&sk->sk_callback_lock);
	ls->saved_data_ready = sk->sk_data_ready;
	sk->sk_user_data = ls;
	sk->sk_data_ready = siw_lsock_data_ready;
	write_unlock_bh(&sk->sk_callback_lock);
	list_add_tail(&ls->entry, &lsn->socks);
	return 0;

err_release:
	sock_release(ls->sock);
err_free:
	kfree(ls);
	return rv;
}

static void siw_lsock_close(struct siw_lsock *ls)
{
	struct sock *sk = ls->sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = NULL;
	sk->sk_data_ready = ls->saved_data_ready;
	write_unlock_bh(&sk->sk_callback_lock);
}

static void siw_lsock_free_all(struct siw_listener *lsn)
{
	struct siw_lsock *ls, *tmp;

	list_for_each_entry_safe(ls, tmp, &lsn->socks, entry) {
		list_del(&ls->entry);
		sock_release(ls->sock);
		kfree(ls);
	}
}

/* The IPv4 addresses of @netdev, with @port */
static int siw_addrs_v4(struct net_device *netdev, __be16 port,
			struct sockaddr_storage *out, int max)
{
	const struct in_ifaddr *ifa;
	struct in_device *in_dev;
	struct sockaddr_in *sin;
	int n = 0;

	rcu_read_lock();
	in_dev = __in_dev_get_rcu(netdev);
	if (in_dev) {
		in_dev_for_each_ifa_rcu(ifa, in_dev) {
			if (n == max)
				break;
			sin = (struct sockaddr_in *)&out[n++];
			memset(sin, 0, sizeof(out[0]));
			sin->sin_family = AF_INET;
			sin->sin_port = port;
			sin->sin_addr.s_addr = ifa->ifa_local;
		}
	}
	rcu_read_unlock();
	return n;
}

/* The IPv6 addresses of @netdev, with @port */
static int siw_addrs_v6(struct net_device *netdev, __be16 port,
			struct sockaddr_storage *out, int max)
{
	struct inet6_ifaddr *ifp;
	struct sockaddr_in6 *sin6;
	struct inet6_dev *idev;
	int n = 0;

	idev = in6_dev_get(netdev);
	if (!idev)
		return 0;
	read_lock_bh(&idev->lock);
	list_for_each_entry(ifp, &idev->addr_list, if_list) {
		if (n == max)
			break;
		sin6 = (struct sockaddr_in6 *)&out[n++];
		memset(sin6, 0, sizeof(out[0]));
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = port;
		sin6->sin6_addr = ifp->addr;
		if (ipv6_addr_type(&ifp->addr) & IPV6_ADDR_LINKLOCAL)
			sin6->sin6_scope_id = netdev->ifindex;
	}
	read_unlock_bh(&idev->lock);
	in6_dev_put(idev);
	return n;
}

static bool siw_addr_is_any(const struct sockaddr_storage *a)
{
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       htonl(INADDR_ANY);
	return ipv6_addr_any(&((const struct sockaddr_in6 *)a)->sin6_addr);
}

/* Fill @out with the addresses a wildcard listen on @cm_id covers */
static int siw_listen_addrs(struct iw_cm_id *cm_id,
			    struct sockaddr_storage *out, int max)
{
	const struct sockaddr_storage *a = &cm_id->m_local_addr;
	struct net_device *netdev;
	__be16 port;
	int n = 0;

	netdev = siw_dev_netdev_get(cm_id->device);
	if (!netdev)
		return -ENODEV;
	if (a->ss_family == AF_INET6) {
		port = ((const struct sockaddr_in6 *)a)->sin6_port;
		n = siw_addrs_v6(netdev, port, out, max);
		if (!cm_id->afonly)
			n += siw_addrs_v4(netdev, port, out + n, max - n);
	} else {
		port = ((const struct sockaddr_in *)a)->sin_port;
		n = siw_addrs_v4(netdev, port, out, max);
	}
	dev_put(netdev);
	return n;
}

static int siw_listener_bind_all(struct siw_listener *lsn)
{
	struct iw_cm_id *cm_id = lsn->cm_id;
	struct sockaddr_storage *addrs;
	int i, n, rv = 0;

	if (!siw_addr_is_any(&cm_id->m_local_addr))
		return siw_lsock_add(lsn, &cm_id->m_local_addr);
	addrs = SIW_FAULT(kcalloc(SIW_LSN_MAX_ADDRS, sizeof(*addrs), GFP_KERNEL));
	if (!addrs)
		return -ENOMEM;
	n = siw_listen_addrs(cm_id, addrs, SIW_LSN_MAX_ADDRS);
	if (n < 0)
		rv = n;
	for (i = 0; i < n && !rv; i++)
		rv = siw_lsock_add(lsn, &addrs[i]);
	kfree(addrs);
	return rv;
}

/**
 * siw_listener_create() - listen for a cm_id
 * @cm_id: the listening cm_id; its m_local_addr says where
 * @backlog: for kernel_listen()
 *
 * Context: process.
 * Returns: 0, or -errno (nothing is left listening then).
 */
int siw_listener_create(struct iw_cm_id *cm_id, int backlog)
{
	struct siw_listener *lsn;
	struct siw_lsock *ls;
	int rv;

	lsn = SIW_FAULT(kzalloc(sizeof(*lsn), GFP_KERNEL));
	if (!lsn)
		return -ENOMEM;
	kref_init(&lsn->ref);
	INIT_LIST_HEAD(&lsn->socks);
	INIT_LIST_HEAD(&lsn->pending);
	INIT_WORK(&lsn->work, siw_listener_work);
	spin_lock_init(&lsn->lock);
	lsn->cm_id = cm_id;
	lsn->ibdev = cm_id->device;
	lsn->backlog = backlog;
	rv = siw_listener_bind_all(lsn);
	if (rv)
		goto err_close;
	cm_id->add_ref(cm_id);
	cm_id->provider_data = lsn;
	/*
	 * Each socket listened before its callback went in, and the work
	 * does not walk @socks while sockets are still being added: a
	 * connection that completed meanwhile woke nobody. One pass now
	 * accepts it.
	 */
	smp_store_release(&lsn->ready, true);
	kref_get(&lsn->ref);
	if (!queue_work(siw_cm_wq, &lsn->work))
		siw_listener_put(lsn);
	return 0;

err_close:
	list_for_each_entry(ls, &lsn->socks, entry)
		siw_lsock_close(ls);
	siw_lsock_free_all(lsn);
	siw_listener_put(lsn);
	return rv;
}

/**
 * siw_listener_destroy() - stop listening for a cm_id
 * @cm_id: a cm_id siw_listener_create() succeeded for
 *
 * Pending connections, whose request has not reached the consumer, are
 * reset. Once this returns no upcall reaches @cm_id.
 *
 * Context: process; may sleep.
 */
void siw_listener_destroy(struct iw_cm_id *cm_id)
{
	struct siw_listener *lsn = cm_id->provider_data;
	struct siw_lsock *ls;
	struct siw_cep *cep;

	spin_lock(&lsn->lock);
	lsn->dead = true;
	spin_unlock(&lsn->lock);
	list_for_each_entry(ls, &lsn->socks, entry)
		siw_lsock_close(ls);
	if (cancel_work_sync(&lsn->work))
		siw_listener_put(lsn);
	siw_lsock_free_all(lsn);

	spin_lock(&lsn->lock);
	while ((cep = list_first_entry_or_null(&lsn->pending, struct siw_cep,
					       lsn_entry))) {
		list_del_init(&cep->lsn_entry);
		siw_cep_get(cep);
		spin_unlock(&lsn->lock);
		siw_cep_kick(cep, SIW_CEP_P_DESTROY);
		siw_cep_put(cep);
		spin_lock(&lsn->lock);
	}
	lsn->cm_id = NULL;
	spin_unlock(&lsn->lock);
	cm_id->provider_data = NULL;
	cm_id->rem_ref(cm_id);
	siw_listener_put(lsn);
}

/**
 * siw_listener_upcall() - hand a request to the listening consumer
 * @cep: a responder endpoint, locked, with its request in @ev
 * @ev: IW_CM_EVENT_CONNECT_REQUEST
 *
 * The endpoint leaves the listener either way.
 *
 * Context: process, @cep->lock held.
 * Returns: true if iw_cm took the request; false if the listener is
 * being destroyed or iw_cm refused: nobody will accept or reject.
 */
bool siw_listener_upcall(struct siw_cep *cep, struct iw_cm_event *ev)
{
	struct siw_listener *lsn = cep->lsn;
	bool ok = false;

	lockdep_assert_held(&cep->lock);
	if (!lsn)
		return false;
	spin_lock(&lsn->lock);
	if (!lsn->dead)
		ok = !lsn->cm_id->event_handler(lsn->cm_id, ev);
	spin_unlock(&lsn->lock);
	siw_listener_forget(cep);
	return ok;
}

/**
 * siw_listener_forget() - the endpoint leaves its listener
 * @cep: the endpoint, locked
 *
 * Context: process, @cep->lock held.
 */
void siw_listener_forget(struct siw_cep *cep)
{
	struct siw_listener *lsn = cep->lsn;

	lockdep_assert_held(&cep->lock);
	if (!lsn)
		return;
	spin_lock(&lsn->lock);
	list_del_init(&cep->lsn_entry);
	spin_unlock(&lsn->lock);
	cep->lsn = NULL;
	siw_listener_put(lsn);
}
