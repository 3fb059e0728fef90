// SPDX-License-Identifier: GPL-2.0
/*
 * Module parameters for the connection policy, the per-device knobs
 * that may replace some of them, and the parsers both share.
 *
 * Each parameter, and each knob of the endpoint's device, is read once
 * per new endpoint, so a change applies to connections set up after it;
 * none is changed under a live one.
 */
#include <kunit/visibility.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/kstrtox.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "cm_policy.h"

static const char * const siw_cm_crc_names[] = {
	[SIW_MPA_CRC_REQUIRED]	= "required",
	[SIW_MPA_CRC_ALLOWED]	= "allowed",
	[SIW_MPA_CRC_OFF]	= "off",
};

static const char * const siw_cm_rtr_names[SIW_MPA_NUM_RTR] = {
	[SIW_MPA_RTR_WRITE]	= "write",
	[SIW_MPA_RTR_READ]	= "read",
	[SIW_MPA_RTR_SEND]	= "send",
};

/**
 * siw_cm_crc_name() - name of a CRC policy
 * @crc: the policy
 *
 * Context: any.
 * Returns: "required", "allowed", "off" or "unknown".
 */
const char *siw_cm_crc_name(enum siw_mpa_crc_policy crc)
{
	if ((unsigned int)crc >= ARRAY_SIZE(siw_cm_crc_names))
		return "unknown";
	return siw_cm_crc_names[crc];
}
EXPORT_SYMBOL_IF_KUNIT(siw_cm_crc_name);

/**
 * siw_cm_crc_parse() - a CRC policy from its name
 * @s: "required", "allowed" or "off", a trailing newline allowed
 * @crc: set on success
 *
 * Context: any.
 * Returns: 0 or -EINVAL.
 */
int siw_cm_crc_parse(const char *s, enum siw_mpa_crc_policy *crc)
{
	int i = sysfs_match_string(siw_cm_crc_names, s);

	if (i < 0)
		return -EINVAL;
	*crc = i;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(siw_cm_crc_parse);

/**
 * siw_cm_rtr_parse() - a set of RTR types from a list
 * @s: names from "write", "read", "send", separated by commas, or
 *	"none"; a trailing newline allowed
 * @mask: set to SIW_MPA_RTR_F() bits on success
 *
 * Context: any.
 * Returns: 0, or -EINVAL for an unknown or empty name.
 */
int siw_cm_rtr_parse(const char *s, u8 *mask)
{
	char buf[32], *p = buf, *tok;
	u8 m = 0;
	int i;

	if (strscpy(buf, s, sizeof(buf)) < 0)
		return -EINVAL;
	strim(buf);
	if (!strcmp(buf, "none")) {
		*mask = 0;
		return 0;
	}
	while ((tok = strsep(&p, ",")) != NULL) {
		i = match_string(siw_cm_rtr_names, SIW_MPA_NUM_RTR, tok);
		if (i < 0)
			return -EINVAL;
		m |= SIW_MPA_RTR_F(i);
	}
	*mask = m;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(siw_cm_rtr_parse);

/**
 * siw_cm_rtr_print() - a set of RTR types as a list
 * @mask: SIW_MPA_RTR_F() bits
 * @buf: where the list goes, "none" for an empty set
 * @size: room at @buf
 *
 * Context: any.
 * Returns: characters written, without the terminating NUL.
 */
int siw_cm_rtr_print(u8 mask, char *buf, size_t size)
{
	int n = 0, t;

	if (!size)
		return 0;
	buf[0] = '\0';
	for (t = 0; t < SIW_MPA_NUM_RTR; t++)
		if (mask & SIW_MPA_RTR_F(t))
			n += scnprintf(buf + n, size - n, "%s%s",
				       n ? "," : "", siw_cm_rtr_names[t]);
	if (!n)
		n = scnprintf(buf, size, "none");
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(siw_cm_rtr_print);

/* Per-device knobs: one row each for parsing, printing and applying */

static int siw_cm_rev_parse(const char *s, u8 *v)
{
	u8 rev;

	if (kstrtou8(s, 0, &rev) ||
	    (rev != SIW_MPA_REV_1 && rev != SIW_MPA_REV_2))
		return -EINVAL;
	*v = rev;
	return 0;
}

static int siw_cm_rev_print(u8 v, char *buf, size_t size)
{
	return scnprintf(buf, size, "%u", v);
}

static void siw_cm_rev_apply(struct siw_mpa_policy *m, u8 v)
{
	m->rev = v;
}

static int siw_cm_crc_knob_parse(const char *s, u8 *v)
{
	enum siw_mpa_crc_policy crc;
	int rv = siw_cm_crc_parse(s, &crc);

	if (!rv)
		*v = crc;
	return rv;
}

static int siw_cm_crc_knob_print(u8 v, char *buf, size_t size)
{
	return scnprintf(buf, size, "%s", siw_cm_crc_name(v));
}

static void siw_cm_crc_apply(struct siw_mpa_policy *m, u8 v)
{
	m->crc = v;
}

/* As a bool module parameter: kstrtobool() in, Y or N out */
static int siw_cm_bool_parse(const char *s, u8 *v)
{
	bool b;
	int rv = kstrtobool(s, &b);

	if (!rv)
		*v = b;
	return rv;
}

static int siw_cm_bool_print(u8 v, char *buf, size_t size)
{
	return scnprintf(buf, size, "%c", v ? 'Y' : 'N');
}

static void siw_cm_markers_apply(struct siw_mpa_policy *m, u8 v)
{
	m->markers = v;
}

static void siw_cm_p2p_apply(struct siw_mpa_policy *m, u8 v)
{
	m->p2p = v;
}

static void siw_cm_rtr_apply(struct siw_mpa_policy *m, u8 v)
{
	m->rtr = v;
}

/**
 * struct siw_cm_knob_info - how one knob is read, shown and applied
 * @parse: the module parameter's syntax to a value (never
 *	SIW_CM_DEFAULT); 0 or -EINVAL
 * @print: a value in the same syntax, without a newline
 * @apply: set the value in an MPA policy
 */
struct siw_cm_knob_info {
	int (*parse)(const char *s, u8 *v);
	int (*print)(u8 v, char *buf, size_t size);
	void (*apply)(struct siw_mpa_policy *m, u8 v);
};

static const struct siw_cm_knob_info siw_cm_knobs[SIW_CM_NUM_KNOBS] = {
	[SIW_CM_K_REV]	   = { siw_cm_rev_parse, siw_cm_rev_print,
			       siw_cm_rev_apply },
	[SIW_CM_K_CRC]	   = { siw_cm_crc_knob_parse, siw_cm_crc_knob_print,
			       siw_cm_crc_apply },
	[SIW_CM_K_MARKERS] = { siw_cm_bool_parse, siw_cm_bool_print,
			       siw_cm_markers_apply },
	[SIW_CM_K_P2P]	   = { siw_cm_bool_parse, siw_cm_bool_print,
			       siw_cm_p2p_apply },
	[SIW_CM_K_RTR]	   = { siw_cm_rtr_parse, siw_cm_rtr_print,
			       siw_cm_rtr_apply },
};

/**
 * siw_cm_knob_parse() - a knob's value from what a user wrote
 * @k: the knob
 * @s: "default", or a value in the syntax of the knob's module
 *	parameter; a trailing newline allowed
 * @v: set on success: the value, or SIW_CM_DEFAULT for "default"
 *
 * Context: any.
 * Returns: 0 or -EINVAL.
 */
int siw_cm_knob_parse(enum siw_cm_knob k, const char *s, u8 *v)
{
	if ((unsigned int)k >= SIW_CM_NUM_KNOBS)
		return -EINVAL;
	if (sysfs_streq(s, "default")) {
		*v = SIW_CM_DEFAULT;
		return 0;
	}
	return siw_cm_knobs[k].parse(s, v);
}
EXPORT_SYMBOL_IF_KUNIT(siw_cm_knob_parse);

/**
 * siw_cm_knob_print() - a knob's value as a user writes it
 * @k: the knob
 * @v: its value, or SIW_CM_DEFAULT
 * @buf: where the text goes, without a newline
 * @size: room at @buf
 *
 * Context: any.
 * Returns: characters written, without the terminating NUL.
 */
int siw_cm_knob_print(enum siw_cm_knob k, u8 v, char *buf, size_t size)
{
	if ((unsigned int)k >= SIW_CM_NUM_KNOBS)
		return scnprintf(buf, size, "unknown");
	if (v == SIW_CM_DEFAULT)
		return scnprintf(buf, size, "default");
	return siw_cm_knobs[k].print(v, buf, size);
}
EXPORT_SYMBOL_IF_KUNIT(siw_cm_knob_print);

/**
 * siw_cm_overrides_init() - every knob follows its module parameter
 * @ovr: set to SIW_CM_DEFAULT throughout
 *
 * Context: any.
 */
void siw_cm_overrides_init(struct siw_cm_overrides *ovr)
{
	memset(ovr->val, SIW_CM_DEFAULT, sizeof(ovr->val));
}
EXPORT_SYMBOL_IF_KUNIT(siw_cm_overrides_init);

/* Module parameters; writes serialise through the kernel's param lock */

static uint mpa_rev = SIW_MPA_REV_2;
module_param(mpa_rev, uint, 0644);
MODULE_PARM_DESC(mpa_rev, "Highest MPA revision offered and accepted: 1 or 2 (default 2)");

static enum siw_mpa_crc_policy mpa_crc = SIW_MPA_CRC_REQUIRED;

static int siw_cm_crc_set(const char *val, const struct kernel_param *kp)
{
	return siw_cm_crc_parse(val, kp->arg);
}

static int siw_cm_crc_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n",
			  siw_cm_crc_name(*(enum siw_mpa_crc_policy *)kp->arg));
}

static const struct kernel_param_ops siw_cm_crc_ops = {
	.set = siw_cm_crc_set,
	.get = siw_cm_crc_get,
};
module_param_cb(mpa_crc, &siw_cm_crc_ops, &mpa_crc, 0644);
MODULE_PARM_DESC(mpa_crc, "MPA CRC32c: off, allowed (used if the peer asks) or required (default required, as RFC 5044 has it)");

static bool mpa_markers;
module_param(mpa_markers, bool, 0644);
MODULE_PARM_DESC(mpa_markers, "Ask the peer to insert MPA markers in what it sends (default N)");

static bool mpa_p2p;
module_param(mpa_p2p, bool, 0644);
MODULE_PARM_DESC(mpa_p2p, "Initiator: ask for the peer-to-peer model with an RTR indication (RFC 6581; default N)");

static u8 mpa_rtr = SIW_MPA_RTR_ALL;

static int siw_cm_rtr_set(const char *val, const struct kernel_param *kp)
{
	return siw_cm_rtr_parse(val, kp->arg);
}

static int siw_cm_rtr_get(char *buf, const struct kernel_param *kp)
{
	char list[32];

	siw_cm_rtr_print(*(u8 *)kp->arg, list, sizeof(list));
	return sysfs_emit(buf, "%s\n", list);
}

static const struct kernel_param_ops siw_cm_rtr_ops = {
	.set = siw_cm_rtr_set,
	.get = siw_cm_rtr_get,
};
module_param_cb(mpa_rtr, &siw_cm_rtr_ops, &mpa_rtr, 0644);
MODULE_PARM_DESC(mpa_rtr, "RTR indications offered (initiator) and accepted (responder): comma list of write, read, send (default write,read,send)");

static bool tcp_nodelay = true;
module_param(tcp_nodelay, bool, 0644);
MODULE_PARM_DESC(tcp_nodelay, "Set TCP_NODELAY on connection sockets (default Y)");

static uint mpa_timeout_ms = 20000;
module_param(mpa_timeout_ms, uint, 0644);
MODULE_PARM_DESC(mpa_timeout_ms, "How long to wait for the peer's MPA Request or Reply, ms (default 20000)");

static uint connect_timeout_ms = 30000;
module_param(connect_timeout_ms, uint, 0644);
MODULE_PARM_DESC(connect_timeout_ms, "How long a TCP connect may take, ms (default 30000)");

static uint accept_timeout_ms = 60000;
module_param(accept_timeout_ms, uint, 0644);
MODULE_PARM_DESC(accept_timeout_ms, "How long the consumer may take to accept or reject, ms (default 60000)");

static uint rtr_timeout_ms = 20000;
module_param(rtr_timeout_ms, uint, 0644);
MODULE_PARM_DESC(rtr_timeout_ms, "Responder: how long to wait for the RTR indication, ms (default 20000)");

static uint close_timeout_ms = 5000;
module_param(close_timeout_ms, uint, 0644);
MODULE_PARM_DESC(close_timeout_ms, "How long to wait for the peer's FIN after ours before a reset, ms (default 5000)");

/* A timer of 0 ms would fire before anything could arrive */
static unsigned int siw_cm_ms(uint v)
{
	return max_t(uint, v, 100);
}

/**
 * siw_cm_policy_build() - the policy of a new endpoint
 * @pol: filled with it
 * @ovr: a device's knobs, each replacing its module parameter unless
 *	SIW_CM_DEFAULT; NULL for the module parameters alone. The caller
 *	passes a copy it owns: nothing here locks.
 *
 * An inconsistent combination (peer-to-peer with rev 1 or without an
 * RTR type) falls back to the client-server model.
 *
 * Context: any.
 */
void siw_cm_policy_build(struct siw_cm_policy *pol,
			 const struct siw_cm_overrides *ovr)
{
	struct siw_mpa_policy *m = &pol->mpa;
	unsigned int k;

	memset(pol, 0, sizeof(*pol));
	siw_mpa_policy_init(m);
	m->rev = READ_ONCE(mpa_rev) == SIW_MPA_REV_1 ? SIW_MPA_REV_1 :
						       SIW_MPA_REV_2;
	m->crc = READ_ONCE(mpa_crc);
	m->markers = READ_ONCE(mpa_markers);
	m->rtr = READ_ONCE(mpa_rtr);
	m->p2p = READ_ONCE(mpa_p2p);
	m->ird_max = SIW_CM_IRD_MAX;
	for (k = 0; ovr && k < SIW_CM_NUM_KNOBS; k++)
		if (ovr->val[k] != SIW_CM_DEFAULT)
			siw_cm_knobs[k].apply(m, ovr->val[k]);
	if (siw_mpa_policy_check(m))
		m->p2p = false;
	pol->nodelay = READ_ONCE(tcp_nodelay);
	pol->tmo.ms[SIW_CM_T_CONNECT] = siw_cm_ms(READ_ONCE(connect_timeout_ms));
	pol->tmo.ms[SIW_CM_T_MPA] = siw_cm_ms(READ_ONCE(mpa_timeout_ms));
	pol->tmo.ms[SIW_CM_T_CONSUMER] = siw_cm_ms(READ_ONCE(accept_timeout_ms));
	pol->tmo.ms[SIW_CM_T_RTR] = siw_cm_ms(READ_ONCE(rtr_timeout_ms));
	pol->tmo.ms[SIW_CM_T_CLOSE] = siw_cm_ms(READ_ONCE(close_timeout_ms));
}
EXPORT_SYMBOL_IF_KUNIT(siw_cm_policy_build);

/**
 * siw_cm_policy_default() - the policy the module parameters describe
 * @pol: filled with it
 *
 * As siw_cm_policy_build() for a device that overrides nothing.
 *
 * Context: any.
 */
void siw_cm_policy_default(struct siw_cm_policy *pol)
{
	siw_cm_policy_build(pol, NULL);
}
EXPORT_SYMBOL_IF_KUNIT(siw_cm_policy_default);
