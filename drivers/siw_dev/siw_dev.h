/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The siw device: one ib_device bound to one Ethernet netdev.
 */
#ifndef SIW_DEV_H
#define SIW_DEV_H

#include <linux/netdevice.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include "siw_cm/siw_cm.h"
#include "siw_mem/siw_mem.h"
#include "siw_mem/siw_umap.h"
#include "siw_stats.h"

struct siw_parent;

/**
 * struct siw_device - an RDMA device on top of a netdev
 * @base: the RDMA core's device; first, for container_of
 * @netdev: the netdev we send and receive on. Held with @netdev_tracker
 *	from creation until dealloc_driver, so it never dangles.
 * @netdev_tracker: reference tracker for @netdev
 * @dev_id: small id unique among live siw devices, reported to user space
 * @mtu: last MTU seen on @netdev (netdev notifier context)
 * @parent: our device's parent in sysfs (siw_parent.c)
 * @mem: the STag table (siw_mem.c)
 * @cm: the connection manager's part: per-device policy knobs
 * @qp_xa: QP number to QP, for iw_get_qp; lookups, insertion and removal
 *	under its own (irq-safe) lock
 * @qp_next: cyclic allocation cursor of @qp_xa
 * @nr_qp: live QPs, bounded by SIW_DEV_MAX_QP
 * @nr_cq: live CQs, bounded by SIW_DEV_MAX_CQ
 * @nr_srq: live SRQs, bounded by SIW_DEV_MAX_SRQ
 * @stats: the counters of `rdma statistic` (siw_stats.h), per CPU
 * @flags: SIW_DEV_* bits
 */
struct siw_device {
	struct ib_device base;
	struct net_device *netdev;
	netdevice_tracker netdev_tracker;
	struct siw_parent *parent;
	u32 dev_id;
	unsigned int mtu;
	struct siw_mem_table mem;
	struct siw_cm_dev cm;
	struct xarray qp_xa;
	u32 qp_next;
	atomic_t nr_qp;
	atomic_t nr_cq;
	atomic_t nr_srq;
	struct siw_stats __percpu *stats;
	unsigned long flags;
};

/* siw_device.flags */
enum {
	SIW_DEV_UNREG_QUEUED,	/* siw_device_unregister() ran */
};

void siw_device_unregister(struct siw_device *sdev);

static inline struct siw_device *to_siw_dev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct siw_device, base);
}

static inline bool siw_netdev_is_up(const struct net_device *netdev)
{
	return netif_running(netdev) && netif_carrier_ok(netdev);
}

/* siw_verbs.c */
extern const struct ib_device_ops siw_device_ops;

/* siw_parent.c */
int siw_parent_init(void);
void siw_parent_exit(void);
int siw_parent_create(struct siw_device *sdev, struct net_device *netdev);
void siw_parent_rename(struct siw_device *sdev, struct net_device *netdev);
void siw_parent_destroy(struct siw_device *sdev);

/* siw_netdev.c */
int siw_netdev_notifier_register(void);
void siw_netdev_notifier_unregister(void);
void siw_port_event(struct siw_device *sdev, enum ib_event_type type);

#endif /* SIW_DEV_H */
