/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The connection manager as the device layer sees it: the iw_cm
 * operations and the policy attributes to merge into the device's ops,
 * the CM's part of a device, and module setup.
 *
 * See Documentation/cm.rst.
 */
#ifndef SIW_CM_H
#define SIW_CM_H

#include <linux/spinlock.h>
#include <linux/types.h>
#include <rdma/ib_verbs.h>

/*
 * iw_connect, iw_accept, iw_reject, iw_create_listen, iw_destroy_listen,
 * and device_group: the per-device policy attributes (mpa_rev, mpa_crc,
 * ...) in the device's sysfs directory. The device calls
 * ib_set_device_ops(ibdev, &siw_cm_ops) after its own ops, which must
 * leave these six unset. iw_add_ref, iw_rem_ref and iw_get_qp are the
 * QP layer's.
 */
extern const struct ib_device_ops siw_cm_ops;

/* Policy values a device may set in place of the module parameters */
enum siw_cm_knob {
	SIW_CM_K_REV,		/* mpa_rev: 1 or 2 */
	SIW_CM_K_CRC,		/* mpa_crc: enum siw_mpa_crc_policy */
	SIW_CM_K_MARKERS,	/* mpa_markers: 0 or 1 */
	SIW_CM_K_P2P,		/* mpa_p2p: 0 or 1 */
	SIW_CM_K_RTR,		/* mpa_rtr: mask of SIW_MPA_RTR_F() */
	SIW_CM_NUM_KNOBS,
};

/* A knob that follows its module parameter */
#define SIW_CM_DEFAULT		U8_MAX

/**
 * struct siw_cm_overrides - a device's connection policy
 * @val: indexed by enum siw_cm_knob: the value, or SIW_CM_DEFAULT
 */
struct siw_cm_overrides {
	u8 val[SIW_CM_NUM_KNOBS];
};

/**
 * struct siw_cm_dev - the CM's part of a device
 * @lock: protects @ovr, so that a new endpoint copies one consistent
 *	set; sysfs writes one value under it. Never taken from softirq.
 * @ovr: what the device's sysfs attributes say
 *
 * Embedded in the device and set up with siw_cm_dev_init(); only the
 * CM looks inside.
 */
struct siw_cm_dev {
	spinlock_t lock;	/* @ovr */
	struct siw_cm_overrides ovr;
};

void siw_cm_dev_init(struct siw_cm_dev *cmdev);
void siw_cm_dev_gone(struct ib_device *ibdev);

/*
 * What the CM needs from a device, provided by the device layer
 * (siw_dev/siw_main.c), so that the CM never looks into struct
 * siw_device and drivers/siw_cm includes nothing of drivers/siw_dev.
 */
struct siw_cm_dev *siw_dev_cm(struct ib_device *ibdev);
struct net_device *siw_dev_netdev_get(struct ib_device *ibdev);

int siw_cm_init(void);
void siw_cm_exit(void);

#endif /* SIW_CM_H */
