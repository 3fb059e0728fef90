// SPDX-License-Identifier: GPL-2.0
/*
 * What `rdma res show qp -dd` shows of a connected QP: the settings its
 * connection negotiated (MPA revision, CRC, markers each way, the
 * peer-to-peer model and its RTR type, IRD and ORD), the FPDU size and
 * the TCP 4-tuple. The RDMA core asks through the device's
 * fill_res_qp_entry op; the driver attributes go into its nested
 * RDMA_NLDEV_ATTR_DRIVER table. A QP without a stream shows none.
 */
#include <net/sock.h>
#include <rdma/rdma_netlink.h>
#include <rdma/restrack.h>

#include "siw_stream.h"

/* A snapshot of a stream, taken under the QP's modify_mutex */
struct siw_qp_res {
	struct siw_mpa_conn conn;
	bool initiator;
	u32 fpdu;
	char laddr[64];
	char raddr[64];
};

static void siw_qp_res_addr(const struct sock *sk, char *l, char *r,
			    size_t len)
{
	u16 lport = sk->sk_num, rport = ntohs(sk->sk_dport);

#if IS_ENABLED(CONFIG_IPV6)
	if (sk->sk_family == AF_INET6) {
		snprintf(l, len, "[%pI6c]:%u", &sk->sk_v6_rcv_saddr, lport);
		snprintf(r, len, "[%pI6c]:%u", &sk->sk_v6_daddr, rport);
		return;
	}
#endif
	snprintf(l, len, "%pI4:%u", &sk->sk_rcv_saddr, lport);
	snprintf(r, len, "%pI4:%u", &sk->sk_daddr, rport);
}

/* Returns: true if @qp has a stream, and @res describes it */
static bool siw_qp_res_take(struct siw_qp *qp, struct siw_qp_res *res)
{
	struct siw_stream *s;
	unsigned long flags;

	/* attach and detach change @qp->stream under modify_mutex */
	mutex_lock(&qp->modify_mutex);
	spin_lock_irqsave(&qp->state_lock, flags);
	s = qp->stream;
	spin_unlock_irqrestore(&qp->state_lock, flags);
	if (s) {
		res->conn = s->conn;
		res->initiator = s->initiator;
		res->fpdu = READ_ONCE(s->tx.mulpdu);
		siw_qp_res_addr(s->sock->sk, res->laddr, res->raddr,
				sizeof(res->laddr));
	}
	mutex_unlock(&qp->modify_mutex);
	return s;
}

static const char *siw_qp_res_rtr(const struct siw_mpa_conn *c)
{
	static const char * const names[] = {
		[SIW_MPA_RTR_WRITE] = "write",
		[SIW_MPA_RTR_READ] = "read",
		[SIW_MPA_RTR_SEND] = "send",
	};

	if (!c->p2p || c->rtr >= SIW_MPA_NUM_RTR)
		return "none";
	return names[c->rtr];
}

static int siw_qp_res_put(struct sk_buff *msg, const struct siw_qp_res *res)
{
	const struct siw_mpa_conn *c = &res->conn;

	if (rdma_nl_put_driver_u32(msg, "mpa_rev", c->rev) ||
	    rdma_nl_put_driver_u32(msg, "crc", c->crc) ||
	    rdma_nl_put_driver_u32(msg, "markers_tx", c->tx_markers) ||
	    rdma_nl_put_driver_u32(msg, "markers_rx", c->rx_markers) ||
	    rdma_nl_put_driver_u32(msg, "p2p", c->p2p) ||
	    rdma_nl_put_driver_string(msg, "rtr", siw_qp_res_rtr(c)) ||
	    rdma_nl_put_driver_string(msg, "role", res->initiator ?
				      "initiator" : "responder") ||
	    rdma_nl_put_driver_u32(msg, "ird", c->ird) ||
	    rdma_nl_put_driver_u32(msg, "ord", c->ord) ||
	    rdma_nl_put_driver_u32(msg, "fpdu", res->fpdu) ||
	    rdma_nl_put_driver_string(msg, "laddr", res->laddr) ||
	    rdma_nl_put_driver_string(msg, "raddr", res->raddr))
		return -EMSGSIZE;
	return 0;
}

/**
 * siw_qp_fill_res_entry() - the driver attributes of a QP for restrack
 * @msg: the netlink message being built
 * @base: the QP
 *
 * Context: process (a netlink dump); no lock held. May sleep.
 * Returns: 0, or -EMSGSIZE when @msg is full.
 */
int siw_qp_fill_res_entry(struct sk_buff *msg, struct ib_qp *base)
{
	struct siw_qp_res res;
	struct nlattr *table;

	if (!siw_qp_res_take(to_siw_qp(base), &res))
		return 0;
	table = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table)
		return -EMSGSIZE;
	if (siw_qp_res_put(msg, &res)) {
		nla_nest_cancel(msg, table);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, table);
	return 0;
}
