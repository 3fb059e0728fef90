#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The long traffic runs of the data path's acceptance: traffic.sh across
# the veth pair and on a local address, each with CRC on (required, the
# default) and off: rping with data validation, 1000 pings at each of 64
# B to 64 KiB; ucmatose; rdma_server/rdma_client; every perftest tool
# (ib_{write,read,send}_bw, ib_{write,send}_lat) at every power of two
# from 2 B to 8 MiB (perftest -a; 1 MiB is what the acceptance asks).
# Run by `make check-long` (scripts/check-long), not by `make check`.
#
#   traffic-long.sh [PARAM=VALUE...]   (PARAMs go to insmod as well)
# shellcheck source=guest-lib.sh
. "$(dirname "$0")/guest-lib.sh"

here=$(cd "$(dirname "$0")" && pwd)
export TRAFFIC_COUNT=${TRAFFIC_COUNT:-1000}
export TRAFFIC_SIZES=${TRAFFIC_SIZES:-"64 1024 4096 16384 65535"}
export TRAFFIC_PERF=all
export TRAFFIC_PERF_ITERS=${TRAFFIC_PERF_ITERS:-20}
export TRAFFIC_TIMEOUT=${TRAFFIC_TIMEOUT:-900}
rc=0
for where in pair local; do
	for crc in required off; do
		echo "=== traffic-long: $where, mpa_crc=$crc"
		TRAFFIC_LOCAL=$([ $where = local ] && echo 1) \
			bash "$here/traffic.sh" "mpa_crc=$crc" "$@" |
			sed -u "s/^\(ok\|FAIL\): /\1: [$where, CRC $crc] /"
		[ "${PIPESTATUS[0]}" = 0 ] || rc=1
	done
done
exit $rc
