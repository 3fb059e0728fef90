// SPDX-License-Identifier: GPL-2.0
/*
 * The device's verbs table: queries and the user context here, the
 * objects in siw_mem.c (PD, MR) and drivers/siw_qp (CQ, QP, SRQ).
 */
#include <linux/etherdevice.h>
#include <rdma/ib_verbs.h>
#include <rdma/iw_cm.h>
#include <rdma/uverbs_ioctl.h>
#include <rdma/siw-abi.h>

#include "siw_compat.h"
#include "siw_dev.h"
#include "siw_mem/siw_limits.h"
#include "siw_qp/siw_qp.h"

static int siw_query_device(struct ib_device *ibdev,
			    struct ib_device_attr *attr, struct ib_udata *udata)
{
	/* User QPs carry SGEs in the ABI's fixed-size SQE */
	int max_sge = udata ? SIW_MAX_SGE : SIW_DEV_MAX_SGE;

	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;

	memset(attr, 0, sizeof(*attr));
	attr->vendor_id = SIW_VENDOR_ID;
	attr->vendor_part_id = SIW_VENDOR_PART_ID;
	attr->hw_ver = SIW_HW_VER;
	attr->sys_image_guid = ibdev->node_guid;
	attr->max_mr_size = SIW_DEV_MAX_MR_SIZE;
	attr->page_size_cap = PAGE_SIZE;
	attr->max_qp = SIW_DEV_MAX_QP;
	attr->max_qp_wr = SIW_DEV_MAX_QP_WR;
	attr->device_cap_flags = IB_DEVICE_MEM_MGT_EXTENSIONS;
	attr->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
	attr->max_send_sge = max_sge;
	attr->max_recv_sge = max_sge;
	attr->max_sge_rd = max_sge;
	attr->max_cq = SIW_DEV_MAX_CQ;
	attr->max_cqe = SIW_DEV_MAX_CQE;
	attr->max_mr = SIW_DEV_MAX_MR;
	attr->max_pd = SIW_DEV_MAX_PD;
	attr->max_qp_rd_atom = SIW_DEV_MAX_ORD_QP;
	attr->max_qp_init_rd_atom = SIW_DEV_MAX_ORD_QP;
	attr->max_res_rd_atom = SIW_DEV_MAX_QP * SIW_DEV_MAX_IRD_QP;
	attr->atomic_cap = IB_ATOMIC_NONE;
	attr->max_srq = SIW_DEV_MAX_SRQ;
	attr->max_srq_wr = SIW_DEV_MAX_SRQ_WR;
	attr->max_srq_sge = max_sge;
	attr->max_fast_reg_page_list_len = SIW_DEV_MAX_FR_PAGES;
	attr->max_pkeys = 1;
	return 0;
}

static int siw_query_port(struct ib_device *ibdev, u32 port,
			  struct ib_port_attr *attr)
{
	struct siw_device *sdev = to_siw_dev(ibdev);
	struct net_device *netdev = sdev->netdev;
	bool up = siw_netdev_is_up(netdev);
	unsigned int max_mtu = READ_ONCE(netdev->max_mtu);
	int rv = 0;

	/* The core zeroes *attr before calling us */
	if (netdev->flags & IFF_LOOPBACK) {
		/* no link speed to ask ethtool for */
		attr->active_speed = IB_SPEED_EDR;
		attr->active_width = IB_WIDTH_4X;
	} else {
		rv = ib_get_eth_speed(ibdev, port, &attr->active_speed,
				      &attr->active_width);
	}
	attr->state = up ? IB_PORT_ACTIVE : IB_PORT_DOWN;
	attr->phys_state = up ? IB_PORT_PHYS_STATE_LINK_UP :
				IB_PORT_PHYS_STATE_DISABLED;
	/* max_mtu 0 means the netdev sets no upper bound */
	attr->max_mtu = ib_mtu_int_to_enum(max_mtu ? max_mtu : INT_MAX);
	attr->active_mtu = ib_mtu_int_to_enum(READ_ONCE(sdev->qp.mtu));
	attr->gid_tbl_len = 1;
	attr->pkey_tbl_len = 1;
	attr->port_cap_flags = IB_PORT_CM_SUP | IB_PORT_DEVICE_MGMT_SUP;
	attr->max_msg_sz = -1;
	return rv;
}

static int siw_get_port_immutable(struct ib_device *ibdev, u32 port,
				  struct ib_port_immutable *immutable)
{
	struct ib_port_attr attr;
	int rv;

	rv = ib_query_port(ibdev, port, &attr);
	if (rv)
		return rv;
	immutable->gid_tbl_len = attr.gid_tbl_len;
	immutable->pkey_tbl_len = attr.pkey_tbl_len;
	immutable->core_cap_flags = RDMA_CORE_PORT_IWARP;
	return 0;
}

/* iWARP's one GID is the port's MAC (or the one we made up for it). */
/* The 48-bit address the node GUID was made from (addrconf_addr_eui48()) */
static void siw_guid_to_eui48(__be64 guid, u8 *mac)
{
	const u8 *g = (const u8 *)&guid;

	mac[0] = g[0] ^ 0x02;
	mac[1] = g[1];
	mac[2] = g[2];
	mac[3] = g[5];
	mac[4] = g[6];
	mac[5] = g[7];
}

/*
 * rdma_cm finds an iWARP device for an address by its GID, which it
 * takes to be the netdev's hardware address, zero-padded to 16 octets
 * (iw_addr_get_sgid()): report exactly that. A netdev without one (or
 * with an all-zero one, like loopback) gets the made-up address its node
 * GUID came from instead: stable and unique, where a zero GID would be
 * dropped from the core's GID cache anyway.
 */
static int siw_query_gid(struct ib_device *ibdev, u32 port, int index,
			 union ib_gid *gid)
{
	struct net_device *netdev = to_siw_dev(ibdev)->netdev;
	unsigned int len;

	if (index != 0)
		return -EINVAL;
	memset(gid, 0, sizeof(*gid));
	rcu_read_lock();
	len = min_t(unsigned int, READ_ONCE(netdev->addr_len),
		    sizeof(gid->raw));
	memcpy(gid->raw, netdev->dev_addr, len);
	rcu_read_unlock();
	if (!memchr_inv(gid->raw, 0, sizeof(gid->raw)))
		siw_guid_to_eui48(ibdev->node_guid, gid->raw);
	return 0;
}

static int siw_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
			  u16 *pkey)
{
	if (index != 0)
		return -EINVAL;
	*pkey = 0xffff;
	return 0;
}

static int siw_alloc_ucontext(struct ib_ucontext *base, struct ib_udata *udata)
{
	struct siw_device *sdev = to_siw_dev(base->device);
	struct siw_uresp_alloc_ctx uresp = { .dev_id = sdev->dev_id };

	if (udata->outlen < sizeof(uresp))
		return -EINVAL;
	return ib_copy_to_udata(udata, &uresp, sizeof(uresp));
}

static void siw_dealloc_ucontext(struct ib_ucontext *base)
{
}

/*
 * The device is going while a process still holds a context: the core
 * destroys the process's objects through our verbs; the rings it has
 * mapped keep their pages until it unmaps them, and nothing else of ours
 * is reachable from it. Having this lets `rdma link delete` and netns
 * moves proceed without waiting for the process.
 */
static void siw_disassociate_ucontext(struct ib_ucontext *base)
{
}

/*
 * iw_cm entry points. They must exist: rdma_cm calls them for every
 * iWARP device on a wildcard listen.
 */
static void siw_qp_add_ref(struct ib_qp *qp)
{
	siw_qp_get(to_siw_qp(qp));
}

static void siw_qp_rem_ref(struct ib_qp *qp)
{
	siw_qp_put(to_siw_qp(qp));
}

/*
 * iw_cm takes its own reference with iw_add_ref right after; the
 * consumer keeps the QP alive in between (it named it in the call).
 */
static struct ib_qp *siw_get_qp(struct ib_device *ibdev, int qpn)
{
	struct siw_qp *qp = siw_qp_lookup(siw_dev_qp(ibdev), qpn);

	if (!qp)
		return NULL;
	siw_qp_put(qp);
	return &qp->base;
}

const struct ib_device_ops siw_device_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_SIW,
	.uverbs_abi_ver = SIW_ABI_VERSION,

	.query_device = siw_query_device,
	.query_port = siw_query_port,
	.get_port_immutable = siw_get_port_immutable,
	.query_gid = siw_query_gid,
	.query_pkey = siw_query_pkey,
	.alloc_ucontext = siw_alloc_ucontext,
	.dealloc_ucontext = siw_dealloc_ucontext,
	.disassociate_ucontext = siw_disassociate_ucontext,

	.mmap = siw_mmap,
	.mmap_free = siw_mmap_free,

	.alloc_pd = siw_alloc_pd,
	.dealloc_pd = siw_dealloc_pd,
	.get_dma_mr = siw_get_dma_mr,
	.reg_user_mr = SIW_REG_USER_MR_OP,
	.alloc_mr = siw_alloc_mr,
	.map_mr_sg = siw_map_mr_sg,
	.dereg_mr = siw_dereg_mr,

	.create_cq = SIW_CREATE_CQ_OP,
	.destroy_cq = siw_destroy_cq,
	.poll_cq = siw_poll_cq,
	.req_notify_cq = siw_req_notify_cq,
	SIW_OPS_RESIZE_CQ

	.create_qp = siw_create_qp,
	.modify_qp = siw_modify_qp,
	.query_qp = siw_query_qp,
	.destroy_qp = siw_destroy_qp,
	.post_send = siw_post_send,
	.post_recv = siw_post_recv,
	.fill_res_qp_entry = siw_qp_fill_res_entry,

	.alloc_hw_port_stats = siw_stats_alloc_port,
	.get_hw_stats = siw_stats_get,

	.create_srq = siw_create_srq,
	.modify_srq = siw_modify_srq,
	.query_srq = siw_query_srq,
	.destroy_srq = siw_destroy_srq,
	.post_srq_recv = siw_post_srq_recv,

	.iw_add_ref = siw_qp_add_ref,
	.iw_rem_ref = siw_qp_rem_ref,
	.iw_get_qp = siw_get_qp,

	INIT_RDMA_OBJ_SIZE(ib_ucontext, siw_ucontext, base),
	INIT_RDMA_OBJ_SIZE(ib_pd, siw_pd, base),
	INIT_RDMA_OBJ_SIZE(ib_cq, siw_cq, base),
	INIT_RDMA_OBJ_SIZE(ib_qp, siw_qp, base),
	INIT_RDMA_OBJ_SIZE(ib_srq, siw_srq, base),
};
