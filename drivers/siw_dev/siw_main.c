// SPDX-License-Identifier: GPL-2.0
/*
 * Module entry points and device creation through `rdma link add`.
 */
#include <linux/module.h>
#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#include <linux/idr.h>
#include <linux/jhash.h>
#include <net/addrconf.h>
#include <net/net_namespace.h>
#include <linux/rtnetlink.h>
#include <rdma/iw_cm.h>
#include <rdma/rdma_netlink.h>

#include "siw_cm/siw_cm.h"
#include "siw_dev.h"
#include "siw_mpa/siw_mpa.h"
#include "siw_qp/siw_qp.h"
#include "siw_fault.h"

static DEFINE_IDA(siw_dev_ida);

static bool siw_netdev_supported(const struct net_device *netdev)
{
	return netdev->type == ARPHRD_ETHER || netdev->type == ARPHRD_LOOPBACK;
}

/*
 * iWARP identifies a port by its MAC. Devices without one (loopback, some
 * tunnels) get a locally administered address derived from what names
 * the netdev, so it is stable for the netdev's lifetime and differs
 * between namespaces.
 */
static void siw_make_guid(struct siw_device *sdev, struct net_device *netdev)
{
	u8 mac[ETH_ALEN];
	__be32 h;

	if (netdev->addr_len == ETH_ALEN && !is_zero_ether_addr(netdev->dev_addr)) {
		ether_addr_copy(mac, netdev->dev_addr);
	} else {
		h = cpu_to_be32(jhash_2words(netdev->ifindex,
					     dev_net(netdev)->ns.inum,
					     jhash(netdev->name,
						   strnlen(netdev->name, IFNAMSIZ),
						   0)));
		mac[0] = 0x02;	/* locally administered, unicast */
		mac[1] = 0x51;
		memcpy(&mac[2], &h, sizeof(h));
	}
	addrconf_addr_eui48((u8 *)&sdev->base.node_guid, mac);
}

static struct siw_device *siw_device_create(struct net_device *netdev)
{
	struct siw_device *sdev;
	int id;

	id = ida_alloc(&siw_dev_ida, GFP_KERNEL);
	if (id < 0)
		return ERR_PTR(id);

	sdev = ib_alloc_device(siw_device, base);
	if (!sdev)
		goto err_free_id;
	sdev->stats = siw_stats_alloc();
	if (!sdev->stats)
		goto err_free_dev;
	sdev->dev_id = id;
	sdev->netdev = netdev;
	netdev_hold(netdev, &sdev->netdev_tracker, GFP_KERNEL);
	siw_mem_table_init(&sdev->mem);
	siw_cm_dev_init(&sdev->cm);
	sdev->qp.mtu = READ_ONCE(netdev->mtu);
	xa_init_flags(&sdev->qp.qp_xa, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_IRQ);
	sdev->qp.qp_next = 1;
	sdev->qp.mem = &sdev->mem;
	sdev->qp.stats = sdev->stats;

	siw_make_guid(sdev, netdev);
	sdev->base.node_type = RDMA_NODE_RNIC;
	sdev->base.phys_port_cnt = 1;
	sdev->base.num_comp_vectors = 1;
	sdev->base.local_dma_lkey = 0;
	memcpy(sdev->base.node_desc, "siw software iWARP",
	       sizeof("siw software iWARP"));
	memcpy(sdev->base.iw_ifname, netdev->name, sizeof(sdev->base.iw_ifname));
	/*
	 * Our sockets are the host stack's: a port iwpmd mapped would be
	 * taken twice. iw_cm then registers each address with iwpmd
	 * unmapped.
	 */
	sdev->base.iw_driver_flags = IW_F_NO_PORT_MAP;
	/*
	 * The provider rings the send queue's doorbell with the legacy
	 * post_send write command, which uverbs offers only when asked.
	 */
	sdev->base.uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND);
	ib_set_device_ops(&sdev->base, &siw_device_ops);
	ib_set_device_ops(&sdev->base, &siw_cm_ops);
	return sdev;

err_free_dev:
	ib_dealloc_device(&sdev->base);
err_free_id:
	ida_free(&siw_dev_ida, id);
	return ERR_PTR(-ENOMEM);
}

/* Called by the core once the last user of a device is gone. */
/**
 * siw_dev_mem() - the memory layer's part of a device: its STag table
 * @ibdev: a siw device
 *
 * Context: any.
 * Returns: the device's struct siw_mem_table, which lives as long as it.
 */
struct siw_mem_table *siw_dev_mem(struct ib_device *ibdev)
{
	return &to_siw_dev(ibdev)->mem;
}

/**
 * siw_dev_qp() - the QP layer's part of a device
 * @ibdev: a siw device
 *
 * Context: any.
 * Returns: the device's struct siw_qp_dev, which lives as long as it.
 */
struct siw_qp_dev *siw_dev_qp(struct ib_device *ibdev)
{
	return &to_siw_dev(ibdev)->qp;
}

/**
 * siw_dev_cm() - the CM's part of a device
 * @ibdev: a siw device
 *
 * Context: any.
 * Returns: the device's struct siw_cm_dev, which lives as long as it.
 */
struct siw_cm_dev *siw_dev_cm(struct ib_device *ibdev)
{
	return &to_siw_dev(ibdev)->cm;
}

/**
 * siw_dev_netdev_get() - the netdev a device runs on
 * @ibdev: a siw device
 *
 * Context: any.
 * Returns: the netdev with a reference for the caller (dev_put()), or
 * NULL.
 */
struct net_device *siw_dev_netdev_get(struct ib_device *ibdev)
{
	struct net_device *netdev = to_siw_dev(ibdev)->netdev;

	if (netdev)
		dev_hold(netdev);
	return netdev;
}

static void siw_dealloc_driver(struct ib_device *ibdev)
{
	struct siw_device *sdev = to_siw_dev(ibdev);

	siw_cm_dev_gone(ibdev);
	WARN_ON(!xa_empty(&sdev->qp.qp_xa));
	xa_destroy(&sdev->qp.qp_xa);
	siw_mem_table_destroy(&sdev->mem);
	siw_parent_destroy(sdev);
	netdev_put(sdev->netdev, &sdev->netdev_tracker);
	siw_stats_free(sdev->stats);
	ida_free(&siw_dev_ida, sdev->dev_id);
}

static const struct ib_device_ops siw_dealloc_ops = {
	.dealloc_driver = siw_dealloc_driver,
};

/**
 * siw_device_unregister() - queue the device's unregistration, once
 * @sdev: the device, registered
 *
 * Both the netdev notifier and siw_newlink() may find the netdev gone;
 * only the first of them may queue the unregistration (the core warns
 * on a second one, which may also find the device freed).
 *
 * Context: RTNL held (it orders the two callers).
 */
void siw_device_unregister(struct siw_device *sdev)
{
	ASSERT_RTNL();
	if (!test_and_set_bit(SIW_DEV_UNREG_QUEUED, &sdev->flags))
		ib_unregister_device_queued(&sdev->base);
}

static int siw_newlink(const char *name, struct net_device *netdev)
{
	struct ib_device *existing;
	struct siw_device *sdev;
	bool gone;
	int rv;

	if (!siw_netdev_supported(netdev))
		return -EINVAL;

	existing = ib_device_get_by_netdev(netdev, RDMA_DRIVER_SIW);
	if (existing) {
		ib_device_put(existing);
		return -EEXIST;
	}

	sdev = siw_device_create(netdev);
	if (IS_ERR(sdev))
		return PTR_ERR(sdev);
	ib_set_device_ops(&sdev->base, &siw_dealloc_ops);

	rv = ib_device_set_netdev(&sdev->base, netdev, 1);
	if (rv)
		goto err_dealloc;

	rv = siw_parent_create(sdev, netdev);
	if (rv)
		goto err_dealloc;

	/*
	 * Once registered, the device may be unregistered and freed by the
	 * notifier at any time: hold its memory until we are done with it
	 */
	get_device(&sdev->base.dev);
	/* NULL DMA device: the core's virtual DMA ops, we are software */
	rv = ib_register_device(&sdev->base, name, NULL);
	if (rv) {
		put_device(&sdev->base.dev);
		goto err_dealloc;
	}

	/*
	 * The RDMA core calls us without RTNL. If the netdev's unregistration
	 * began before we were registered, our notifier did not find us and
	 * the netdev would wait forever for the reference we hold; if it
	 * began after, the notifier queued our unregistration already.
	 * Under RTNL the state is stable: a netdev still registered here
	 * will notify us when it goes.
	 */
	rtnl_lock();
	gone = netdev->reg_state != NETREG_REGISTERED;
	if (gone)
		siw_device_unregister(sdev);
	rtnl_unlock();
	if (!gone)
		siw_port_event(sdev, siw_netdev_is_up(netdev) ?
			       IB_EVENT_PORT_ACTIVE : IB_EVENT_PORT_ERR);
	put_device(&sdev->base.dev);
	return gone ? -ENODEV : 0;

err_dealloc:
	/* ib_dealloc_device() runs dealloc_driver, which drops our refs */
	ib_dealloc_device(&sdev->base);
	return rv;
}

static struct rdma_link_ops siw_link_ops = {
	.type = "siw",
	.newlink = siw_newlink,
};

static int __init siw_init_module(void)
{
	int rv;

	rv = siw_stream_init();
	if (rv)
		return rv;
	rv = siw_cm_init();
	if (rv)
		goto err_stream;
	rv = siw_parent_init();
	if (rv)
		goto err_cm;
	rv = siw_netdev_notifier_register();
	if (rv)
		goto err_parent;
	siw_fault_init();
	rdma_link_register(&siw_link_ops);
	return 0;

err_parent:
	siw_parent_exit();
err_cm:
	siw_cm_exit();
err_stream:
	siw_stream_exit();
	return rv;
}

static void __exit siw_exit_module(void)
{
	rdma_link_unregister(&siw_link_ops);
	ib_unregister_driver(RDMA_DRIVER_SIW);
	siw_netdev_notifier_unregister();
	siw_parent_exit();
	siw_cm_exit();
	siw_stream_exit();
	siw_fault_exit();
	WARN_ON(!ida_is_empty(&siw_dev_ida));
	ida_destroy(&siw_dev_ida);
}

module_init(siw_init_module);
module_exit(siw_exit_module);

MODULE_DESCRIPTION("Software iWARP (RDMA over TCP) device");
MODULE_LICENSE("GPL");
MODULE_VERSION(SIW_VERSION);
MODULE_ALIAS_RDMA_LINK("siw");
