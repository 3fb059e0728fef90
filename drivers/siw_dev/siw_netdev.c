// SPDX-License-Identifier: GPL-2.0
/*
 * Following the netdev under a siw device: link state becomes port state,
 * MTU changes are recorded, and unregistration removes the device.
 */
#include <linux/netdevice.h>

#include "siw_dev.h"

/**
 * siw_port_event - raise an asynchronous event on the device's only port
 * @sdev: the device
 * @type: IB_EVENT_PORT_ACTIVE, IB_EVENT_PORT_ERR, IB_EVENT_GID_CHANGE ...
 *
 * Context: any context the RDMA core's event dispatch accepts (process or
 * atomic).
 */
void siw_port_event(struct siw_device *sdev, enum ib_event_type type)
{
	struct ib_event event = {
		.device = &sdev->base,
		.event = type,
		.element.port_num = 1,
	};

	ib_dispatch_event(&event);
}

static int siw_netdev_event(struct notifier_block *nb, unsigned long event,
			    void *arg)
{
	struct net_device *netdev = netdev_notifier_info_to_dev(arg);
	struct ib_device *ibdev;
	struct siw_device *sdev;

	ASSERT_RTNL();

	ibdev = ib_device_get_by_netdev(netdev, RDMA_DRIVER_SIW);
	if (!ibdev)
		return NOTIFY_DONE;
	sdev = to_siw_dev(ibdev);

	switch (event) {
	case NETDEV_UP:
	case NETDEV_CHANGE:
		siw_port_event(sdev, siw_netdev_is_up(netdev) ?
			       IB_EVENT_PORT_ACTIVE : IB_EVENT_PORT_ERR);
		break;
	case NETDEV_DOWN:
		siw_port_event(sdev, IB_EVENT_PORT_ERR);
		break;
	case NETDEV_CHANGEMTU:
		WRITE_ONCE(sdev->qp.mtu, netdev->mtu);
		break;
	case NETDEV_CHANGEADDR:
		siw_port_event(sdev, IB_EVENT_GID_CHANGE);
		break;
	case NETDEV_CHANGENAME:
		siw_parent_rename(sdev, netdev);
		break;
	case NETDEV_UNREGISTER:
		/*
		 * Removal runs from a work item: we hold RTNL here, and
		 * unregistration waits for users that may need it.
		 */
		siw_device_unregister(sdev);
		break;
	default:
		break;
	}
	ib_device_put(ibdev);
	return NOTIFY_OK;
}

static struct notifier_block siw_netdev_nb = {
	.notifier_call = siw_netdev_event,
};

/**
 * siw_netdev_notifier_register - start following netdev events
 *
 * Returns: 0 or a negative errno from register_netdevice_notifier().
 */
int siw_netdev_notifier_register(void)
{
	return register_netdevice_notifier(&siw_netdev_nb);
}

/**
 * siw_netdev_notifier_unregister - stop following netdev events
 */
void siw_netdev_notifier_unregister(void)
{
	unregister_netdevice_notifier(&siw_netdev_nb);
}
