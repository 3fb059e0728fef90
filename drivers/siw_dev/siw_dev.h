/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The siw device: one ib_device bound to one Ethernet netdev.
 */
#ifndef SIW_DEV_H
#define SIW_DEV_H

#include <linux/netdevice.h>
#include <rdma/ib_verbs.h>

#include "siw_cm/siw_cm.h"
#include "siw_mem/siw_mem.h"
#include "siw_mem/siw_umap.h"
#include "siw_qp/siw_qp.h"
#include "siw_stats.h"

struct siw_parent;

/**
 * struct siw_device - an RDMA device on top of a netdev
 * @base: the RDMA core's device; first, for container_of
 * @netdev: the netdev we send and receive on. Held with @netdev_tracker
 *	from creation until dealloc_driver, so it never dangles.
 * @netdev_tracker: reference tracker for @netdev
 * @dev_id: small id unique among live siw devices, reported to user space
 * @parent: our device's parent in sysfs (siw_parent.c)
 * @mem: the STag table (siw_mem.c)
 * @cm: the connection manager's part: per-device policy knobs
 * @qp: the QP layer's part: QP table, QP/CQ/SRQ counts, MTU, and
 *	pointers to @mem and @stats (siw_dev_qp())
 * @stats: the counters of `rdma statistic` (siw_stats.h), per CPU
 * @flags: SIW_DEV_* bits
 */
struct siw_device {
	struct ib_device base;
	struct net_device *netdev;
	netdevice_tracker netdev_tracker;
	struct siw_parent *parent;
	u32 dev_id;
	struct siw_mem_table mem;
	struct siw_cm_dev cm;
	struct siw_qp_dev qp;
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
