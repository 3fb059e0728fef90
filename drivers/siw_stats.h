/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-device counters, shown by `rdma statistic show link siwN/1`
 * through the RDMA core's hw_stats interface (siw_stats.c). Each CPU
 * counts into its own copy, so the data path pays one this_cpu_add()
 * per FPDU or per event; a read sums the copies.
 */
#ifndef SIW_STATS_H
#define SIW_STATS_H

#include <linux/percpu.h>
#include <linux/types.h>

struct ib_device;
struct rdma_hw_stats;

/* One per counter; siw_stats.c names them in the same order */
enum siw_stat {
	SIW_STAT_TX_FPDUS,		/* FPDUs handed to TCP in full */
	SIW_STAT_TX_OCTETS,		/* their stream octets */
	SIW_STAT_RX_FPDUS,		/* FPDUs received whose CRC checked */
	SIW_STAT_RX_OCTETS,		/* stream octets the engine consumed */
	SIW_STAT_RX_CRC_ERRORS,		/* streams stopped on a wrong CRC */
	SIW_STAT_RX_MARKER_ERRORS,	/* streams stopped on a bad marker */
	SIW_STAT_TERM_TX_RDMAP,		/* Terminates sent, by layer */
	SIW_STAT_TERM_TX_DDP,
	SIW_STAT_TERM_TX_LLP,
	SIW_STAT_TERM_RX_RDMAP,		/* Terminates received, by layer */
	SIW_STAT_TERM_RX_DDP,
	SIW_STAT_TERM_RX_LLP,
	SIW_STAT_MPA_REJECT_TX,		/* MPA Replies with R set sent */
	SIW_STAT_MPA_REJECT_RX,		/* and received */
	SIW_STAT_CONN_SETUPS,		/* connections that reached ESTABLISHED */
	SIW_STAT_CONN_FAILURES,		/* setups that ended before it */
	SIW_STAT_TX_STALLS,		/* transmit stopped on a full send buffer */
	SIW_STAT_TX_ZCOPY_OCTETS,	/* octets TCP took by page reference */
	SIW_STAT_TX_COPY_OCTETS,	/* octets TCP copied */
	SIW_STAT_TX_STAGED_OCTETS,	/* FPDUs copied to our pages, CRC and
					 * copy one pass, TCP took by reference
					 */
	SIW_STAT_TX_STAGE_ALLOCS,	/* page allocations for staging */
	SIW_STAT_RX_WORK_OCTETS,	/* stream octets the receive work read */
	SIW_NUM_STATS,
};

/**
 * struct siw_stats - one CPU's counts of a device
 * @v: indexed by enum siw_stat
 */
struct siw_stats {
	u64 v[SIW_NUM_STATS];
};

/**
 * siw_stats_add() - count @n events of kind @i on the current CPU
 * @st: the device's counters
 * @i: enum siw_stat
 * @n: how many
 *
 * Context: any.
 */
static inline void siw_stats_add(struct siw_stats __percpu *st,
				 enum siw_stat i, u64 n)
{
	this_cpu_add(st->v[i], n);
}

struct siw_stats __percpu *siw_stats_alloc(void);
void siw_stats_free(struct siw_stats __percpu *st);
void siw_stats_count(struct ib_device *ibdev, enum siw_stat i);
u64 siw_stats_sum(struct siw_stats __percpu *st, enum siw_stat i);
struct rdma_hw_stats *siw_stats_alloc_port(struct ib_device *ibdev,
					   u32 port);
int siw_stats_get(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		  u32 port, int index);

#endif /* SIW_STATS_H */
