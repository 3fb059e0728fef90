#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark inside one guest (started by scripts/bench): ours with MPA CRC
# off and on, upstream siw and plain TCP (iperf3), across the veth pair
# (server here, client in $SIW_NS), at each MTU asked for. Reports, never
# judges: the exit status says only whether the script itself worked.
#
#   bench.sh OURS_KO UPSTREAM_KO [KEY=VALUE...]
#
# The logs of a failed run go to $SIW_OUT/bench-fail/.
#
# Keys: ROUNDS (3), MTUS ("1500 9000"), SIZES ("4096 65536 1048576"),
# WHO ("ours ours-crc upstream tcp"; also ours-queued: ours with
# tx_direct=N), MIB (24: MiB moved by the short
# RDMA bandwidth run), TCP_MIB (192: the same for TCP), LAT_ITERS (1000:
# round trips of the short latency run), RATE (20000: 64-octet Sends of
# the short message-rate run), PROBE (the CRC32c probe module to load
# once first, scripts/bench-probe; none if empty).
#
# perftest's own figures come from the TSC, which emulation makes
# unreliable, and a short run is mostly connection setup. So each
# measurement is two runs, of COUNT and 3 * COUNT iterations, timed from
# outside; scripts/bench takes the difference, which cancels the setup.
# Contenders are interleaved: every round runs each of them once at each
# MTU, starting with a different one each round. One line a run:
#
#   bench: run ROUND MTU WHO TEST SIZE COUNT SECONDS
#   bench: fail ROUND MTU WHO TEST SIZE COUNT WHY
#   bench: skip WHO WHY
#   bench: note MTU WHO mpa_crc=VALUE (the module's, in round 1)
#   bench: crc impl NAME / bench: crc FUNC SIZE MBPS (the probe's lines)
#   bench: elapsed SECONDS
# shellcheck source=guest-lib.sh
. "$(dirname "$0")/guest-lib.sh"
# shellcheck source=perf-lib.sh
. "$(dirname "$0")/perf-lib.sh"

OURS=${1:?ours}
UPSTREAM=${2:?upstream}
shift 2

ROUNDS=3 MTUS="1500 9000" SIZES="4096 65536 1048576"
WHO="ours ours-crc upstream tcp" MIB=24 TCP_MIB=192 LAT_ITERS=1000
RATE=20000 PROBE=
for kv in "$@"; do
	case ${kv%%=*} in
	ROUNDS|MTUS|SIZES|WHO|MIB|TCP_MIB|LAT_ITERS|RATE|PROBE) declare "$kv" ;;
	*) echo "bench.sh: unknown setting $kv" >&2; exit 2 ;;
	esac
done

LAT_SIZE=64
LIMIT=180		# seconds one client may take
work=/tmp/bench
port=18000

say() { echo "bench: $*"; }

# one_tcp SIZE COUNT: iperf3, one stream of COUNT writes of SIZE, in the
# same direction as the RDMA runs
one_tcp() {
	timed_pair iperf3 -s -1 -B "$SIW_IP_A" -p "$port" -- \
		iperf3 -c "$SIW_IP_A" -p "$port" -n $(($1 * $2)) -l "$1"
}

# measure ROUND WHO TEST SIZE COUNT CMD...: run CMD for COUNT and for
# 3 * COUNT, a line for each
measure() {
	local r=$1 who=$2 test=$3 size=$4 count=$5 c out
	shift 5
	for c in "$count" $((3 * count)); do
		# a fresh port for every run: none meets the TIME_WAIT of
		# the one before
		port=$(( (port - 18000 + 1) % 2000 + 18000 ))
		if out=$("$@" "$size" "$c"); then
			say "run $r $mtu $who $test $size $c $out"
		else
			say "fail $r $mtu $who $test $size $c $out"
			keep_logs "$r-$mtu-$who-$test-$size-$c"
		fi
	done
}

# keep_logs NAME: both ends' logs of a failed run, in $SIW_OUT/bench-fail/
keep_logs() {
	[ -n "${SIW_OUT:-}" ] || return 0
	mkdir -p "$SIW_OUT/bench-fail" &&
	cp "$work/srv.log" "$SIW_OUT/bench-fail/$1.srv" &&
	cp "$work/cli.log" "$SIW_OUT/bench-fail/$1.cli"
}

# bw_count SIZE MIB: iterations that move about MIB MiB, at least 8
bw_count() {
	local n=$(( $2 * 1048576 / $1 ))
	[ "$n" -ge 8 ] || n=8
	echo "$n"
}

rdma_tests() {
	local r=$1 who=$2 t s
	for t in write_bw read_bw send_bw; do
		for s in $SIZES; do
			measure "$r" "$who" "$t" "$s" "$(bw_count "$s" "$MIB")" \
				one_perf "ib_$t"
		done
	done
	for t in write_lat send_lat; do
		measure "$r" "$who" "$t" "$LAT_SIZE" "$LAT_ITERS" one_perf "ib_$t"
	done
	# the small-message rate: Sends of 64 octets
	measure "$r" "$who" msg_rate "$LAT_SIZE" "$RATE" one_perf ib_send_bw
}

# crc_probe: what CRC32c and a copy cost in this guest (siw_crcbench.ko)
crc_probe() {
	[ -n "$PROBE" ] || return 0
	if ! insmod "$PROBE"; then
		say "skip crc-probe the probe module did not load"
		return 0
	fi
	dmesg | sed -n 's/.*siw_crcbench: \(impl\|crc32c\|table\|memcpy\) /\1 /p' |
		while read -r line; do say "crc $line"; done
	rmmod siw_crcbench
}

tcp_tests() {
	local r=$1 s
	for s in $SIZES; do
		measure "$r" tcp stream_bw "$s" "$(bw_count "$s" "$TCP_MIB")" \
			one_tcp
	done
}


# contender ROUND WHO: one contender's full set of tests at $mtu
contender() {
	local r=$1 who=$2 crc
	case $who in
	tcp) tcp_tests "$r"; return ;;
	ours) pair_up "$OURS" mpa_crc=off ;;
	ours-crc) pair_up "$OURS" mpa_crc=required ;;
	# a process's doorbell only wakes the transmit work (tx_direct=N)
	ours-queued) pair_up "$OURS" mpa_crc=off tx_direct=N ;;
	upstream) pair_up "$UPSTREAM" ;;
	esac || { say "fail $r $mtu $who all - - module or link"; pair_down; return; }
	crc=$(cat /sys/module/siw/parameters/mpa_crc 2>/dev/null)
	[ "$r" != 1 ] || say "note $mtu $who mpa_crc=${crc:-none}"
	rdma_tests "$r" "$who"
	pair_down
}

set_mtu() {
	ip link set "$SIW_IF_A" mtu "$1" && ns ip link set "$SIW_IF_B" mtu "$1"
}

rm -rf "$work" && mkdir -p "$work"
perf_prepare
modprobe -a ib_core iw_cm ib_uverbs rdma_ucm libcrc32c
say "setup kernel=$(uname -r) cpus=$(nproc) rounds=$ROUNDS mtus=${MTUS// /,}" \
	"sizes=${SIZES// /,} mib=$MIB tcp_mib=$TCP_MIB lat_iters=$LAT_ITERS rate=$RATE"
say "skip rxe Debian 6.1 rxe opens its UDP socket in the initial namespace" \
	"only, so a device on the far end of the veth pair never hears" \
	"its peer; the two-guest variant is not implemented"
crc_probe

read -ra who <<< "$WHO"
for r in $(seq 1 "$ROUNDS"); do
	for mtu in $MTUS; do
		set_mtu "$mtu" || { say "fail $r $mtu all all - - mtu"; continue; }
		# rotate the order each round, so no contender always goes first
		for i in $(seq 0 $(( ${#who[@]} - 1 ))); do
			contender "$r" "${who[$(( (i + r - 1) % ${#who[@]} ))]}"
		done
	done
	echo "[$(date +%T)] round $r done"
done
set_mtu 1500
say "elapsed $SECONDS"
exit 0
