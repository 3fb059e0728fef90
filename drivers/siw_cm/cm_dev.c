// SPDX-License-Identifier: GPL-2.0
/*
 * The CM's part of a device: its connection policy knobs, as sysfs
 * attributes in the device's directory (/sys/class/infiniband/<dev>/
 * mpa_rev, mpa_crc, mpa_markers, mpa_p2p, mpa_rtr), and the policy a
 * new endpoint of the device starts from.
 *
 * Each attribute reads "default" while the module parameter of the
 * same name applies, else the device's value in the parameter's syntax;
 * writing either sets it. A value is only stored here: a new endpoint
 * copies the device's knobs once, so a write never changes a connection
 * that already exists.
 *
 * The state lives in the device (struct siw_cm_dev in siw_cm.h, reached
 * through siw_dev_cm()), which the RDMA core frees only after the
 * attributes are gone.
 */
#include <linux/device.h>
#include <linux/spinlock.h>
#include <linux/sysfs.h>
#include <rdma/ib_verbs.h>

#include "cm_internal.h"
#include "siw_cm.h"

/**
 * siw_cm_dev_init() - a device's knobs all follow the module parameters
 * @cmdev: the CM's part of a new device, before it is registered
 *
 * Context: any.
 */
void siw_cm_dev_init(struct siw_cm_dev *cmdev)
{
	spin_lock_init(&cmdev->lock);
	siw_cm_overrides_init(&cmdev->ovr);
}

/**
 * siw_cm_dev_policy() - the policy a new endpoint of a device starts from
 * @ibdev: the device
 * @pol: filled with the module parameters, the device's knobs applied
 *
 * Context: any; takes the device's knob lock.
 */
void siw_cm_dev_policy(struct ib_device *ibdev, struct siw_cm_policy *pol)
{
	struct siw_cm_dev *cmdev = siw_dev_cm(ibdev);
	struct siw_cm_overrides ovr;

	spin_lock(&cmdev->lock);
	ovr = cmdev->ovr;
	spin_unlock(&cmdev->lock);
	siw_cm_policy_build(pol, &ovr);
}

/**
 * struct siw_cm_dev_attr - a sysfs attribute for one knob
 * @attr: the attribute; its name is the module parameter's
 * @knob: the knob it shows and sets
 */
struct siw_cm_dev_attr {
	struct device_attribute attr;
	enum siw_cm_knob knob;
};

static enum siw_cm_knob siw_cm_attr_knob(struct device_attribute *attr)
{
	return container_of(attr, struct siw_cm_dev_attr, attr)->knob;
}

static ssize_t siw_cm_knob_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	struct siw_cm_dev *cmdev = siw_dev_cm(rdma_device_to_ibdev(dev));
	enum siw_cm_knob k = siw_cm_attr_knob(attr);
	char val[32];

	/* one byte, written under the lock: no torn read without it */
	siw_cm_knob_print(k, READ_ONCE(cmdev->ovr.val[k]), val, sizeof(val));
	return sysfs_emit(buf, "%s\n", val);
}

static ssize_t siw_cm_knob_store(struct device *dev,
				 struct device_attribute *attr,
				 const char *buf, size_t count)
{
	struct siw_cm_dev *cmdev = siw_dev_cm(rdma_device_to_ibdev(dev));
	enum siw_cm_knob k = siw_cm_attr_knob(attr);
	u8 v;
	int rv;

	rv = siw_cm_knob_parse(k, buf, &v);
	if (rv)
		return rv;
	spin_lock(&cmdev->lock);
	WRITE_ONCE(cmdev->ovr.val[k], v);
	spin_unlock(&cmdev->lock);
	return count;
}

#define SIW_CM_KNOB_ATTR(_name, _knob)					\
	static struct siw_cm_dev_attr siw_cm_attr_##_name = {		\
		.attr = __ATTR(_name, 0644, siw_cm_knob_show,		\
			       siw_cm_knob_store),			\
		.knob = (_knob),					\
	}

SIW_CM_KNOB_ATTR(mpa_rev, SIW_CM_K_REV);
SIW_CM_KNOB_ATTR(mpa_crc, SIW_CM_K_CRC);
SIW_CM_KNOB_ATTR(mpa_markers, SIW_CM_K_MARKERS);
SIW_CM_KNOB_ATTR(mpa_p2p, SIW_CM_K_P2P);
SIW_CM_KNOB_ATTR(mpa_rtr, SIW_CM_K_RTR);

static struct attribute *siw_cm_attrs[] = {
	&siw_cm_attr_mpa_rev.attr.attr,
	&siw_cm_attr_mpa_crc.attr.attr,
	&siw_cm_attr_mpa_markers.attr.attr,
	&siw_cm_attr_mpa_p2p.attr.attr,
	&siw_cm_attr_mpa_rtr.attr.attr,
	NULL,
};

/* In the device's own directory: siw_cm_ops.device_group */
const struct attribute_group siw_cm_attr_group = {
	.attrs = siw_cm_attrs,
};
