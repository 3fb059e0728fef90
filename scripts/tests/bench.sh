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
# round trips of the short latency run).
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
#   bench: elapsed SECONDS
. "$(dirname "$0")/lib.sh"

here=$(cd "$(dirname "$0")" && pwd)
OURS=${1:?ours}
UPSTREAM=${2:?upstream}
shift 2

ROUNDS=3 MTUS="1500 9000" SIZES="4096 65536 1048576"
WHO="ours ours-crc upstream tcp" MIB=24 TCP_MIB=192 LAT_ITERS=1000
for kv in "$@"; do
	case ${kv%%=*} in
	ROUNDS|MTUS|SIZES|WHO|MIB|TCP_MIB|LAT_ITERS) declare "$kv" ;;
	*) echo "bench.sh: unknown setting $kv" >&2; exit 2 ;;
	esac
done

LAT_SIZE=64
LIMIT=180		# seconds one client may take
work=/tmp/bench
port=18000

ns() { ip netns exec "$SIW_NS" "$@"; }
say() { echo "bench: $*"; }

# wait_tcp_listen PORT PID: poll until a TCP listener on PORT exists
# here, or the server PID died
wait_tcp_listen() {
	local i
	for i in $(seq 1 300); do
		ss -Hltn "sport = :$1" | grep -q . && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# last_words: the client's first complaint, else its last line that is
# not a table heading (perftest prints errors before its buffered table)
last_words() {
	{ grep -i -m 1 -e "couldn't" -e fail -e error "$work/cli.log" ||
	  grep -v -e '#bytes' -e '^ *-*$' "$work/cli.log" | tail -n 1; } |
		cut -c1-80
}

# timed_pair SERVER... -- CLIENT...: start the server here, wait until it
# listens on $port, run the client in $SIW_NS and print its wall time;
# the server must end by itself soon after. Logs: $work/srv.log, cli.log
timed_pair() {
	local s=() pid t0 t1 rc=0

	while [ "$1" != -- ]; do s+=("$1"); shift; done
	shift
	timeout -k 5 $((LIMIT + 30)) "${s[@]}" > "$work/srv.log" 2>&1 &
	pid=$!
	if ! wait_tcp_listen "$port" "$pid"; then
		echo "server did not listen"
		rc=1
	else
		t0=$EPOCHREALTIME
		ns timeout -k 5 "$LIMIT" "$@" > "$work/cli.log" 2>&1 || rc=$?
		t1=$EPOCHREALTIME
		[ "$rc" = 0 ] || echo "client exited $rc: $(last_words)"
	fi
	for _ in $(seq 1 100); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill "$pid" 2>/dev/null && { [ "$rc" != 0 ] || echo "server did not end"; rc=1; }
	wait "$pid" 2>/dev/null || { [ "$rc" != 0 ] || echo "server failed"; rc=1; }
	[ "$rc" = 0 ] || return 1
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f\n", b - a }'
}

# one_perf TOOL SIZE COUNT: one perftest run over rdma_cm, server on
# siw_a here, client on siw_b; prints the client's seconds
one_perf() {
	local tool=$1 size=$2 count=$3 secs pre=() opts

	opts=(-R -F -s "$size" -n "$count" -p "$port")
	if [ -f "$work/cmsync.so" ]; then
		rm -f "$work/listening"
		pre=(env LD_PRELOAD="$work/cmsync.so"
		     TRAFFIC_CM_SYNC="$work/listening")
	fi
	secs=$(timed_pair "${pre[@]}" "$tool" -d siw_a "${opts[@]}" -- \
		"${pre[@]}" "$tool" -d siw_b "${opts[@]}" "$SIW_IP_A") ||
		{ echo "$secs"; return 1; }
	if ! awk -v s="$size" -v n="$count" '$1 == s && $2 == n { f = 1 }
	     END { exit !f }' "$work/cli.log"; then
		echo "no result line"
		return 1
	fi
	echo "$secs"
}

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
}

tcp_tests() {
	local r=$1 s
	for s in $SIZES; do
		measure "$r" tcp stream_bw "$s" "$(bw_count "$s" "$TCP_MIB")" \
			one_tcp
	done
}

# rdma_up KO [PARAM...]: load a module, a device on each end of the pair
rdma_up() {
	load_siw "$@" &&
	rdma link add siw_a type siw netdev "$SIW_IF_A" &&
	ns rdma link add siw_b type siw netdev "$SIW_IF_B"
}

rdma_down() {
	ns rdma link delete siw_b
	rdma link delete siw_a
	unload_siw
}

# contender ROUND WHO: one contender's full set of tests at $mtu
contender() {
	local r=$1 who=$2 crc
	case $who in
	tcp) tcp_tests "$r"; return ;;
	ours) rdma_up "$OURS" mpa_crc=off ;;
	ours-crc) rdma_up "$OURS" mpa_crc=required ;;
	# a process's doorbell only wakes the transmit work (tx_direct=N)
	ours-queued) rdma_up "$OURS" mpa_crc=off tx_direct=N ;;
	upstream) rdma_up "$UPSTREAM" ;;
	esac || { say "fail $r $mtu $who all - - module or link"; rdma_down; return; }
	crc=$(cat /sys/module/siw/parameters/mpa_crc 2>/dev/null)
	[ "$r" != 1 ] || say "note $mtu $who mpa_crc=${crc:-none}"
	rdma_tests "$r" "$who"
	rdma_down
}

set_mtu() {
	ip link set "$SIW_IF_A" mtu "$1" && ns ip link set "$SIW_IF_B" mtu "$1"
}

rm -rf "$work" && mkdir -p "$work"
gcc -shared -fPIC -O2 -o "$work/cmsync.so" "$here/traffic-cmsync.c" -ldl ||
	echo "note: traffic-cmsync.c does not build; perftest runs unsynchronized"
modprobe -a ib_core iw_cm ib_uverbs rdma_ucm libcrc32c
say "setup kernel=$(uname -r) cpus=$(nproc) rounds=$ROUNDS mtus=${MTUS// /,}" \
	"sizes=${SIZES// /,} mib=$MIB tcp_mib=$TCP_MIB lat_iters=$LAT_ITERS"
say "skip rxe Debian 6.1 rxe opens its UDP socket in the initial namespace" \
	"only, so a device on the far end of the veth pair never hears" \
	"its peer; the two-guest variant is not implemented"

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
