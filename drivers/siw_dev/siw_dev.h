/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The siw device: one ib_device bound to one Ethernet netdev.
 */
#ifndef SIW_DEV_H
#define SIW_DEV_H

#include <linux/netdevice.h>
#include <rdma/ib_verbs.h>

/**
 * struct siw_device - an RDMA device on top of a netdev
 * @base: the RDMA core's device; first, for container_of
 * @netdev: the netdev we send and receive on. Held with @netdev_tracker
 *	from creation until dealloc_driver, so it never dangles.
 * @netdev_tracker: reference tracker for @netdev
 * @dev_id: small id unique among live siw devices, reported to user space
 * @mtu: last MTU seen on @netdev (netdev notifier context)
 * @parent: our device's parent in sysfs (siw_parent.c)
 */
struct siw_parent;

struct siw_device {
	struct ib_device base;
	struct net_device *netdev;
	netdevice_tracker netdev_tracker;
	struct siw_parent *parent;
	u32 dev_id;
	unsigned int mtu;
};

/**
 * struct siw_ucontext - a user process's context on the device
 * @base: the RDMA core's ucontext
 */
struct siw_ucontext {
	struct ib_ucontext base;
};

/*
 * Driver halves of core objects. They carry nothing yet; the core needs
 * their sizes to allocate the objects it hands to us.
 */
struct siw_pd {
	struct ib_pd base;
};

struct siw_cq {
	struct ib_cq base;
};

struct siw_qp {
	struct ib_qp base;
};

struct siw_srq {
	struct ib_srq base;
};

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
