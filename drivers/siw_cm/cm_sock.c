// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel TCP sockets for the CM: created in the network namespace of the
 * device's netdev, callbacks that only queue the endpoint's work, MPA
 * frames read without taking a single octet past their end (what
 * follows belongs to the QP), orderly close and reset.
 */
#include <linux/errno.h>
#include <linux/net.h>
#include <linux/netdevice.h>
#include <linux/tcp.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "siw_compat.h"
#include "cm_internal.h"
#include "siw_cm.h"

/**
 * siw_cm_sock_create() - a TCP socket in the device's namespace
 * @ibdev: the device
 * @family: AF_INET or AF_INET6
 * @sockp: set to the socket
 *
 * Context: process.
 * Returns: 0, -ENODEV if the device has no netdev, or the
 * error of sock_create_kern().
 */
int siw_cm_sock_create(struct ib_device *ibdev, int family,
		       struct socket **sockp)
{
	struct net_device *netdev = siw_dev_netdev_get(ibdev);
	int rv;

	if (!netdev)
		return -ENODEV;
	rv = sock_create_kern(dev_net(netdev), family, SOCK_STREAM,
			      IPPROTO_TCP, sockp);
	dev_put(netdev);
	return rv;
}

/**
 * siw_cm_sock_setup() - socket options of a connection
 * @sock: the socket
 * @nodelay: set TCP_NODELAY
 *
 * Context: process.
 */
void siw_cm_sock_setup(struct socket *sock, bool nodelay)
{
	if (nodelay)
		tcp_sock_set_nodelay(sock->sk);
}

static void siw_cep_sk_data_ready(struct sock *sk)
{
	struct siw_cep *cep;

	read_lock_bh(&sk->sk_callback_lock);
	cep = sk->sk_user_data;
	if (cep)
		siw_cep_kick(cep, SIW_CEP_P_SOCK);
	read_unlock_bh(&sk->sk_callback_lock);
}

/**
 * siw_cep_sock_attach() - the endpoint owns a socket and hears its events
 * @cep: the endpoint, locked
 * @sock: the socket; @cep releases it
 *
 * The installed callbacks hold a reference on @cep.
 *
 * Context: process, @cep->lock held.
 */
void siw_cep_sock_attach(struct siw_cep *cep, struct socket *sock)
{
	struct sock *sk = sock->sk;

	lockdep_assert_held(&cep->lock);
	cep->sock = sock;
	siw_cep_get(cep);
	write_lock_bh(&sk->sk_callback_lock);
	cep->saved_data_ready = sk->sk_data_ready;
	cep->saved_state_change = sk->sk_state_change;
	sk->sk_user_data = cep;
	sk->sk_data_ready = siw_cep_sk_data_ready;
	sk->sk_state_change = siw_cep_sk_data_ready;
	write_unlock_bh(&sk->sk_callback_lock);
}

/**
 * siw_cep_sock_detach() - stop hearing the socket's events
 * @cep: the endpoint, locked
 *
 * Once this returns, no callback of ours runs on the socket.
 *
 * Context: process, @cep->lock held.
 */
void siw_cep_sock_detach(struct siw_cep *cep)
{
	struct sock *sk;

	lockdep_assert_held(&cep->lock);
	if (!cep->sock || !cep->saved_data_ready)
		return;
	sk = cep->sock->sk;
	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = NULL;
	sk->sk_data_ready = cep->saved_data_ready;
	sk->sk_state_change = cep->saved_state_change;
	write_unlock_bh(&sk->sk_callback_lock);
	cep->saved_data_ready = NULL;
	cep->saved_state_change = NULL;
	siw_cep_put(cep);
}

/**
 * siw_cep_sock_release() - let go of the socket
 * @cep: the endpoint, locked
 * @abort: reset the connection instead of closing it in order
 *
 * Context: process, @cep->lock held.
 */
void siw_cep_sock_release(struct siw_cep *cep, bool abort)
{
	struct socket *sock = cep->sock;

	lockdep_assert_held(&cep->lock);
	if (!sock)
		return;
	siw_cep_sock_detach(cep);
	if (abort)
		sock_no_linger(sock->sk);
	cep->sock = NULL;
	sock_release(sock);
}

static int siw_cm_addr_len(const struct sockaddr_storage *a)
{
	return a->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
					  sizeof(struct sockaddr_in);
}

/**
 * siw_cep_sock_connect() - start the TCP connect
 * @cep: the endpoint, locked
 * @raddr: the peer
 *
 * Context: process, @cep->lock held.
 * Returns: -EINPROGRESS (the state callback tells the outcome), 0, or
 * the error that ended it at once.
 */
int siw_cep_sock_connect(struct siw_cep *cep,
			 const struct sockaddr_storage *raddr)
{
	lockdep_assert_held(&cep->lock);
	return kernel_connect(cep->sock, (struct sockaddr_unsized *)raddr,
			      siw_cm_addr_len(raddr), O_NONBLOCK);
}

/**
 * siw_cep_sock_addrs() - note both ends' addresses for the upcalls
 * @cep: the endpoint, locked, connected
 *
 * Context: process, @cep->lock held.
 */
void siw_cep_sock_addrs(struct siw_cep *cep)
{
	lockdep_assert_held(&cep->lock);
	if (kernel_getsockname(cep->sock, (struct sockaddr *)&cep->laddr) < 0)
		memset(&cep->laddr, 0, sizeof(cep->laddr));
	if (kernel_getpeername(cep->sock, (struct sockaddr *)&cep->raddr) < 0)
		memset(&cep->raddr, 0, sizeof(cep->raddr));
}

/**
 * siw_cep_sock_send() - send an MPA frame
 * @cep: the endpoint, locked
 * @buf: the frame
 * @len: its octets, at most 532: it fits a fresh socket's buffer
 *
 * Context: process, @cep->lock held.
 * Returns: 0, or -EPIPE if not all of it went.
 */
int siw_cep_sock_send(struct siw_cep *cep, const void *buf, size_t len)
{
	struct kvec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL };

	lockdep_assert_held(&cep->lock);
	if (!cep->sock)
		return -EPIPE;
	return kernel_sendmsg(cep->sock, &msg, &iov, 1, len) == len ? 0 :
								     -EPIPE;
}

static int siw_cep_recv(struct siw_cep *cep, void *buf, size_t len,
			int flags)
{
	struct kvec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT | flags };

	return kernel_recvmsg(cep->sock, &msg, &iov, 1, len, msg.msg_flags);
}

/**
 * siw_cep_sock_rx() - feed queued octets to the MPA frame receiver
 * @cep: the endpoint, locked, in a state that awaits a frame
 * @st: the step the frame made; @st->ev is SIW_CM_NUM_EVENTS if the
 *	frame is still incomplete
 *
 * Octets are peeked, and only those the frame takes are consumed.
 *
 * Context: process, @cep->lock held.
 */
void siw_cep_sock_rx(struct siw_cep *cep, struct siw_cm_step *st)
{
	u8 buf[64];
	size_t used;
	int n;

	lockdep_assert_held(&cep->lock);
	st->ev = SIW_CM_NUM_EVENTS;
	while (cep->sock) {
		n = siw_cep_recv(cep, buf, sizeof(buf), MSG_PEEK);
		if (n <= 0)
			return;
		used = siw_cm_fsm_frame(&cep->fsm, buf, n, st);
		if (used && siw_cep_recv(cep, buf, used, 0) != used) {
			cep->llp_err = -EIO;
			return;
		}
		if (st->ev < SIW_CM_NUM_EVENTS || used < n)
			return;
	}
}

/**
 * siw_cep_sock_tcp_state() - where the TCP connection is
 * @cep: the endpoint, locked, with a socket
 * @err: set to -errno of a pending socket error, else 0
 *
 * Context: process, @cep->lock held.
 * Returns: the socket's TCP state (TCP_ESTABLISHED, TCP_CLOSE, ...).
 */
int siw_cep_sock_tcp_state(struct siw_cep *cep, int *err)
{
	struct sock *sk = cep->sock->sk;

	lockdep_assert_held(&cep->lock);
	*err = sock_error(sk);
	return READ_ONCE(sk->sk_state);
}

/**
 * siw_cep_sock_peer_gone() - did the peer end the connection?
 * @cep: the endpoint, locked, with a socket
 *
 * Our own FIN does not count: after it the peer may still send.
 *
 * Context: process, @cep->lock held.
 * Returns: true after the peer's FIN or RST, or a socket error.
 */
bool siw_cep_sock_peer_gone(struct siw_cep *cep)
{
	struct sock *sk = cep->sock->sk;

	lockdep_assert_held(&cep->lock);
	return (READ_ONCE(sk->sk_shutdown) & RCV_SHUTDOWN) ||
	       READ_ONCE(sk->sk_state) == TCP_CLOSE || READ_ONCE(sk->sk_err);
}
