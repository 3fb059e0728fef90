// SPDX-License-Identifier: GPL-2.0
/*
 * The parent device of a siw device in sysfs.
 *
 * User space finds the netdev under an RDMA device by listing
 * /sys/class/infiniband/<dev>/device/net/ (rdma-core's tests, ibdev2netdev
 * and udev rules do). A physical NIC's device directory has such a list,
 * but it may name several netdevs, and veth, VLAN and loopback devices
 * have no parent at all. So every siw device gets a parent of its own,
 * /sys/devices/siw/siw_port<N>, whose net/ directory holds exactly one
 * entry: a link named after our netdev, pointing at it.
 */
#include <linux/device.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "siw_dev.h"
#include "siw_fault.h"

/**
 * struct siw_parent - the sysfs parent of one siw device
 * @dev: the device; its release frees the structure
 * @net_dir: the net/ directory under @dev
 * @link: name of the link in @net_dir (the netdev's name when it was made)
 */
struct siw_parent {
	struct device dev;
	struct kobject *net_dir;
	char link[IFNAMSIZ];
};

static struct device *siw_root;

static void siw_parent_release(struct device *dev)
{
	kfree(container_of(dev, struct siw_parent, dev));
}

/**
 * siw_parent_create - make the parent device of @sdev and point it at
 * @netdev
 * @sdev: the device, not yet registered with the RDMA core
 * @netdev: its netdev
 *
 * On success sdev->base.dev.parent is set; siw_parent_destroy() undoes
 * this once the RDMA core is done with the device.
 *
 * Context: process context, may sleep.
 * Returns: 0 or a negative errno.
 */
int siw_parent_create(struct siw_device *sdev, struct net_device *netdev)
{
	struct siw_parent *p;
	int rv;

	p = SIW_FAULT(kzalloc(sizeof(*p), GFP_KERNEL));
	if (!p)
		return -ENOMEM;
	device_initialize(&p->dev);
	p->dev.parent = siw_root;
	p->dev.release = siw_parent_release;
	rv = dev_set_name(&p->dev, "siw_port%u", sdev->dev_id);
	if (rv)
		goto err_put;
	rv = device_add(&p->dev);
	if (rv)
		goto err_put;

	p->net_dir = kobject_create_and_add("net", &p->dev.kobj);
	if (!p->net_dir) {
		rv = -ENOMEM;
		goto err_del;
	}
	strscpy(p->link, netdev->name, sizeof(p->link));
	rv = sysfs_create_link(p->net_dir, &netdev->dev.kobj, p->link);
	if (rv)
		goto err_dir;

	sdev->parent = p;
	sdev->base.dev.parent = &p->dev;
	return 0;

err_dir:
	kobject_put(p->net_dir);
err_del:
	device_del(&p->dev);
err_put:
	put_device(&p->dev);
	return rv;
}

/**
 * siw_parent_rename - follow a rename of the netdev
 * @sdev: the device
 * @netdev: its netdev, already carrying the new name
 *
 * Context: process context under RTNL (netdev notifier).
 */
void siw_parent_rename(struct siw_device *sdev, struct net_device *netdev)
{
	struct siw_parent *p = sdev->parent;

	if (!p || !strcmp(p->link, netdev->name))
		return;
	sysfs_remove_link(p->net_dir, p->link);
	strscpy(p->link, netdev->name, sizeof(p->link));
	if (sysfs_create_link(p->net_dir, &netdev->dev.kobj, p->link))
		netdev_warn(netdev, "siw: no sysfs link for %s after rename\n",
			    dev_name(&sdev->base.dev));
}

/**
 * siw_parent_destroy - remove the parent device of @sdev
 * @sdev: the device; the RDMA core has deleted it from sysfs
 *
 * The link goes first, while the netdev reference is still held. The
 * memory goes with the last reference to the parent device.
 */
void siw_parent_destroy(struct siw_device *sdev)
{
	struct siw_parent *p = sdev->parent;

	if (!p)
		return;
	sdev->parent = NULL;
	sysfs_remove_link(p->net_dir, p->link);
	kobject_put(p->net_dir);
	device_unregister(&p->dev);
}

/**
 * siw_parent_init - make /sys/devices/siw, under which the parents live
 *
 * Returns: 0 or a negative errno.
 */
int siw_parent_init(void)
{
	siw_root = root_device_register("siw");
	return PTR_ERR_OR_ZERO(siw_root);
}

void siw_parent_exit(void)
{
	root_device_unregister(siw_root);
	siw_root = NULL;
}
