// SPDX-License-Identifier: GPL-2.0
/*
 * The device's counters through the RDMA core's hw_stats interface:
 * the core allocates the values with siw_stats_alloc_port() once per
 * port and asks siw_stats_get() to fill them when someone reads them
 * (netlink or sysfs). Documentation/observability.rst says what
 * increments each one.
 */
#include <kunit/visibility.h>
#include <rdma/ib_verbs.h>

#include "siw_dev.h"

static const struct rdma_stat_desc siw_stats_desc[] = {
	[SIW_STAT_TX_FPDUS] = { .name = "tx_fpdus" },
	[SIW_STAT_TX_OCTETS] = { .name = "tx_octets" },
	[SIW_STAT_RX_FPDUS] = { .name = "rx_fpdus" },
	[SIW_STAT_RX_OCTETS] = { .name = "rx_octets" },
	[SIW_STAT_RX_CRC_ERRORS] = { .name = "rx_crc_errors" },
	[SIW_STAT_RX_MARKER_ERRORS] = { .name = "rx_marker_errors" },
	[SIW_STAT_TERM_TX_RDMAP] = { .name = "term_tx_rdmap" },
	[SIW_STAT_TERM_TX_DDP] = { .name = "term_tx_ddp" },
	[SIW_STAT_TERM_TX_LLP] = { .name = "term_tx_llp" },
	[SIW_STAT_TERM_RX_RDMAP] = { .name = "term_rx_rdmap" },
	[SIW_STAT_TERM_RX_DDP] = { .name = "term_rx_ddp" },
	[SIW_STAT_TERM_RX_LLP] = { .name = "term_rx_llp" },
	[SIW_STAT_MPA_REJECT_TX] = { .name = "mpa_reject_tx" },
	[SIW_STAT_MPA_REJECT_RX] = { .name = "mpa_reject_rx" },
	[SIW_STAT_CONN_SETUPS] = { .name = "conn_setups" },
	[SIW_STAT_CONN_FAILURES] = { .name = "conn_failures" },
	[SIW_STAT_TX_STALLS] = { .name = "tx_stalls" },
	[SIW_STAT_TX_ZCOPY_OCTETS] = { .name = "tx_zcopy_octets" },
	[SIW_STAT_TX_COPY_OCTETS] = { .name = "tx_copy_octets" },
	[SIW_STAT_TX_STAGED_OCTETS] = { .name = "tx_staged_octets" },
	[SIW_STAT_TX_STAGE_ALLOCS] = { .name = "tx_stage_allocs" },
	[SIW_STAT_RX_WORK_OCTETS] = { .name = "rx_work_octets" },
};

static_assert(ARRAY_SIZE(siw_stats_desc) == SIW_NUM_STATS);

/**
 * siw_stats_alloc() - zeroed counters for a new device
 *
 * Context: process.
 * Returns: the per-CPU counters, or NULL.
 */
struct siw_stats __percpu *siw_stats_alloc(void)
{
	return alloc_percpu(struct siw_stats);
}
EXPORT_SYMBOL_IF_KUNIT(siw_stats_alloc);

/**
 * siw_stats_free() - free what siw_stats_alloc() returned
 * @st: the counters, or NULL
 */
void siw_stats_free(struct siw_stats __percpu *st)
{
	free_percpu(st);
}
EXPORT_SYMBOL_IF_KUNIT(siw_stats_free);

/**
 * siw_stats_count() - count one event of kind @i on a device
 * @ibdev: a siw device
 * @i: enum siw_stat
 *
 * For the layers that know the device only as an ib_device (the CM).
 *
 * Context: any.
 */
void siw_stats_count(struct ib_device *ibdev, enum siw_stat i)
{
	siw_stats_add(to_siw_dev(ibdev)->stats, i, 1);
}

/**
 * siw_stats_sum() - the count of kind @i over all CPUs
 * @st: the counters
 * @i: enum siw_stat
 *
 * Context: any.
 * Returns: the sum; CPUs may count meanwhile.
 */
u64 siw_stats_sum(struct siw_stats __percpu *st, enum siw_stat i)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(st, cpu)->v[i]);
	return sum;
}
EXPORT_SYMBOL_IF_KUNIT(siw_stats_sum);

/**
 * siw_stats_alloc_port() - the core's alloc_hw_port_stats op
 * @ibdev: the device
 * @port: its port (1, the only one)
 *
 * Context: process.
 * Returns: the value array the core keeps for @port, or NULL.
 */
struct rdma_hw_stats *siw_stats_alloc_port(struct ib_device *ibdev, u32 port)
{
	return rdma_alloc_hw_stats_struct(siw_stats_desc, SIW_NUM_STATS,
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

/**
 * siw_stats_get() - the core's get_hw_stats op: fill @stats
 * @ibdev: the device
 * @stats: what siw_stats_alloc_port() returned, locked by the core
 * @port: the port
 * @index: the counter asked for, or the number of counters for all
 *
 * All counters are filled whatever @index is: a sum costs little.
 *
 * Context: process.
 * Returns: the number of counters filled.
 */
int siw_stats_get(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		  u32 port, int index)
{
	struct siw_stats __percpu *st = to_siw_dev(ibdev)->stats;
	unsigned int i;

	for (i = 0; i < SIW_NUM_STATS; i++)
		stats->value[i] = siw_stats_sum(st, i);
	return SIW_NUM_STATS;
}
