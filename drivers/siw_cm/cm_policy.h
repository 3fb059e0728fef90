/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Connection policy: the MPA settings a new endpoint starts from, its
 * timers and socket options. The defaults are module parameters
 * (modinfo lists them); a device may override the MPA ones (enum
 * siw_cm_knob in siw_cm.h) through its sysfs attributes.
 */
#ifndef SIW_CM_POLICY_H
#define SIW_CM_POLICY_H

#include <linux/types.h>

#include "cm_fsm.h"
#include "siw_cm.h"

/**
 * struct siw_cm_policy - everything a new endpoint is configured with
 * @mpa: MPA revision, CRC, markers, model, RTR types; the consumer's
 *	IRD and ORD are filled in per connection
 * @tmo: timer durations
 * @nodelay: set TCP_NODELAY on the connection's socket
 */
struct siw_cm_policy {
	struct siw_mpa_policy mpa;
	struct siw_cm_timeouts tmo;
	bool nodelay;
};

/* Most IRD an endpoint may be raised to by the peer's ORD */
#define SIW_CM_IRD_MAX		128

void siw_cm_policy_default(struct siw_cm_policy *pol);
void siw_cm_policy_build(struct siw_cm_policy *pol,
			 const struct siw_cm_overrides *ovr);
void siw_cm_overrides_init(struct siw_cm_overrides *ovr);
int siw_cm_knob_parse(enum siw_cm_knob k, const char *s, u8 *v);
int siw_cm_knob_print(enum siw_cm_knob k, u8 v, char *buf, size_t size);
int siw_cm_rtr_parse(const char *s, u8 *mask);
int siw_cm_rtr_print(u8 mask, char *buf, size_t size);
int siw_cm_crc_parse(const char *s, enum siw_mpa_crc_policy *crc);
const char *siw_cm_crc_name(enum siw_mpa_crc_policy crc);

#endif /* SIW_CM_POLICY_H */
