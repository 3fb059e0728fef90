/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Device limits reported through query_device and enforced by the verbs.
 * One place, so that what we report and what we enforce cannot drift.
 */
#ifndef SIW_LIMITS_H
#define SIW_LIMITS_H

/*
 * No IEEE OUI is ours: a locally administered one ("\x02SW"). Non-zero,
 * as rdma-core's tests demand; providers match siw by driver id.
 */
#define SIW_VENDOR_ID		0x025357
#define SIW_VENDOR_PART_ID	0x5157	/* our own part id, "SW" */
#define SIW_HW_VER		1

#define SIW_DEV_MAX_QP		(100 * 1024)
#define SIW_DEV_MAX_QP_WR	(32 * 1024)
#define SIW_DEV_MAX_SGE		16	/* kernel consumers; user QPs: the ABI's 6 */
#define SIW_DEV_MAX_SGE_RD	16
#define SIW_DEV_MAX_INLINE	128
#define SIW_DEV_MAX_CQ		(100 * 1024)
#define SIW_DEV_MAX_CQE		(SIW_DEV_MAX_QP_WR * 100)
#define SIW_DEV_MAX_MR		(SIW_DEV_MAX_QP * 10)
#define SIW_DEV_MAX_PD		SIW_DEV_MAX_QP
#define SIW_DEV_MAX_SRQ		SIW_DEV_MAX_QP
#define SIW_DEV_MAX_SRQ_WR	(SIW_DEV_MAX_QP_WR * 10)
#define SIW_DEV_MAX_IRD_QP	128
#define SIW_DEV_MAX_ORD_QP	128
#define SIW_DEV_MAX_FR_PAGES	512
#define SIW_DEV_MAX_MR_SIZE	(~0ULL)

#endif /* SIW_LIMITS_H */
