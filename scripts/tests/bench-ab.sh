#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A/B inside one guest (started by scripts/bench-ab): ours loaded once,
# one of its writable module parameters set to A, then to B, between runs
# seconds apart, for each cell in turn; the order flips every round. On
# a host whose speed drifts by 2-3x over minutes this compares the two
# values far better than two contenders of scripts/bench, which run
# minutes apart. Reports, never judges: the exit status says only whether
# the script itself worked.
#
#   bench-ab.sh OURS_KO PARAM A B [KEY=VALUE...]
#
# Keys: ROUNDS (5), MTU (1500), LOAD ("mpa_crc=off": parameters the
# module is loaded with), CELLS ("nfs_read nfs_write"; also nfs_rand,
# and TOOL:SIZE for a perftest tool, e.g. ib_write_bw:65536,
# ib_write_lat:64, ib_send_bw:64), MIB (96: MiB a short perftest
# bandwidth run moves), LAT_ITERS (10000), RATE (40000: messages of a
# short run at 64 octets or less), NFS_MIB (256: fio's file and what a
# sequential run moves), NFS_RAND_MIB (64).
#
# NFS figures are fio's own; a perftest figure is two runs, of COUNT and
# 3 * COUNT, timed from outside, the difference cancelling the setup (as
# in bench.sh). One line a run:
#
#   ab: run ROUND VALUE CELL FIGURE UNIT
#   ab: fail ROUND VALUE CELL WHY
#   ab: setup ...
# shellcheck source=guest-lib.sh
. "$(dirname "$0")/guest-lib.sh"
# shellcheck source=perf-lib.sh
. "$(dirname "$0")/perf-lib.sh"
# shellcheck source=consumer-lib.sh
. "$(dirname "$0")/consumer-lib.sh"

OURS=${1:?ours}
PARAM=${2:?parameter}
A=${3:?value A}
B=${4:?value B}
shift 4

ROUNDS=5 MTU=1500 LOAD="mpa_crc=off" CELLS="nfs_read nfs_write" MIB=96
LAT_ITERS=10000 RATE=40000 NFS_MIB=256 NFS_RAND_MIB=64
for kv in "$@"; do
	case ${kv%%=*} in
	ROUNDS|MTU|LOAD|CELLS|MIB|LAT_ITERS|RATE|NFS_MIB|NFS_RAND_MIB)
		declare "$kv" ;;
	*) echo "bench-ab.sh: unknown setting $kv" >&2; exit 2 ;;
	esac
done

LIMIT=180		# seconds one client may take
NFS_DEPTH=16		# fio's iodepth
work=/tmp/bench-ab
port=18000
MNT=/mnt/siw-ab
NFS_RPCBIND_PID='' NFS_MOUNTD_PID=''
knobs=/sys/module/siw/parameters

say() { echo "ab: $*"; }

# perf_cell TOOL SIZE: the cell's figure from two runs, or fails
perf_cell() {
	local tool=$1 size=$2 n t1 t3

	case $tool in
	*_lat) n=$LAT_ITERS ;;
	*) n=$(( MIB * 1048576 / size )); [ "$size" -gt 64 ] || n=$RATE ;;
	esac
	port=$(( (port - 18000 + 1) % 2000 + 18000 ))
	t1=$(one_perf "$tool" "$size" "$n") || { echo "$t1"; return 1; }
	port=$(( (port - 18000 + 1) % 2000 + 18000 ))
	t3=$(one_perf "$tool" "$size" $((3 * n))) || { echo "$t3"; return 1; }
	awk -v t="$tool" -v s="$size" -v n="$n" -v a="$t1" -v b="$t3" 'BEGIN {
		if (b < 1.1 * a) { print "the long run took under 1.1 times the short"; exit 1 }
		if (t ~ /_lat$/) printf "%.1f us\n", (b - a) / (2 * n) * 1e6
		else if (s <= 64) printf "%.2f kmsg/s\n", 2 * n / (b - a) / 1e3
		else printf "%.1f MB/s\n", 2 * n * s / (b - a) / 1e6 }'
}

# nfs_cell RW: fio's own figure for RW on $MNT
nfs_cell() {
	local rw=$1 bs=1M mib=$NFS_MIB

	[ "$rw" = randread ] && bs=4k mib=$NFS_RAND_MIB
	if ! ns timeout "$LIMIT" fio --name="$rw" --filename="$MNT/fio.dat" \
		--rw="$rw" --bs="$bs" --size="${NFS_MIB}M" --io_size="${mib}M" \
		--ioengine=libaio --iodepth="$NFS_DEPTH" --direct=1 \
		--fallocate=none --output-format=terse --terse-version=3 \
		> "$work/cli.log" 2>&1; then
		echo "fio failed: $(last_words)"
		return 1
	fi
	# terse version 3: field 5 the error, 7 read KiB/s, 8 read IOPS,
	# 48 write KiB/s
	awk -F';' -v rw="$rw" '$1 == 3 && $5 == 0 {
		if (rw == "randread") printf "%.3f kIOPS\n", $8 / 1e3
		else printf "%.1f MB/s\n", (rw == "read" ? $7 : $48) * 1024 / 1e6
		f = 1 } END { exit !f }' "$work/cli.log" ||
		{ echo "fio: no result"; return 1; }
}

nfs_down() {
	! mountpoint -q "$MNT" || timeout 120 umount "$MNT"
	! mountpoint -q "$NFS_EXPORT" || nfs_server_down > /dev/null 2>&1
}

rm -rf "$work" && mkdir -p "$work"
perf_prepare
modprobe -a ib_core iw_cm ib_uverbs rdma_ucm libcrc32c
# shellcheck disable=SC2086 # LOAD is a list of parameters
pair_up "$OURS" $LOAD || { say "fail 0 - all module or link"; exit 1; }
if [ ! -w "$knobs/$PARAM" ]; then
	say "fail 0 - all $PARAM is not a writable parameter of the module"
	pair_down
	exit 1
fi
ip link set "$SIW_IF_A" mtu "$MTU" && ns ip link set "$SIW_IF_B" mtu "$MTU"
say "setup kernel=$(uname -r) cpus=$(nproc) param=$PARAM a=$A b=$B" \
	"rounds=$ROUNDS mtu=$MTU load=${LOAD// /,} cells=${CELLS// /,}" \
	"default=$(cat "$knobs/$PARAM")"
nfs=
for c in $CELLS; do
	case $c in nfs_*) nfs=1 ;; esac
done
if [ -n "$nfs" ] &&
   ! bench_nfs_up "vers=4.2,proto=rdma,port=$NFS_PORT" rdma; then
	say "fail 0 - nfs $why"
	nfs_down
	CELLS=$(echo "$CELLS" | tr ' ' '\n' | grep -v '^nfs_' | tr '\n' ' ')
fi
for r in $(seq 1 "$ROUNDS"); do
	order="$A $B"
	[ $((r % 2)) = 1 ] || order="$B $A"
	for c in $CELLS; do
		for v in $order; do
			if ! echo "$v" > "$knobs/$PARAM"; then
				say "fail $r $v $c the parameter refused the value"
				continue
			fi
			case $c in
			nfs_read) out=$(nfs_cell read) ;;
			nfs_write) out=$(nfs_cell write) ;;
			nfs_rand) out=$(nfs_cell randread) ;;
			*:*) out=$(perf_cell "${c%%:*}" "${c#*:}") ;;
			*) out="unknown cell"; false ;;
			esac && say "run $r $v $c $out" || say "fail $r $v $c $out"
		done
	done
	echo "[$(date +%T)] round $r done"
done
[ -z "$nfs" ] || nfs_down
pair_down
say "elapsed $SECONDS"
exit 0
