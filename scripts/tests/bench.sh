#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark inside one guest: plain TCP, Debian's rxe, upstream siw and
# ours, each across the veth pair (initial namespace -> $SIW_NS), with the
# same tools and sizes. Prints one "bench: PEER TEST VALUE UNIT" line a
# measurement and "bench: PEER TEST n/a (why)" where a peer cannot run
# a test; scripts/bench turns these into a table of ratios. The numbers
# are only comparable within one run (emulated CPU, shared cores).
. "$(dirname "$0")/lib.sh"

DUR=${SIW_BENCH_SECONDS:-4}
SIZES=${SIW_BENCH_SIZES:-"4096 65536"}
LAT_SIZE=64

ns() { ip netns exec "$SIW_NS" "$@"; }

report() { echo "bench: $*"; }

# tcp: iperf3 single stream, and the latency of a 64-octet ping-pong
bench_tcp() {
	local s bps
	ns iperf3 -s -1 -B "$SIW_IP_B" > /dev/null 2>&1 &
	sleep 1
	for s in $SIZES; do
		bps=$(timeout 60 iperf3 -c "$SIW_IP_B" -t "$DUR" -l "$s" -J 2>/dev/null |
		      python3 -c 'import json,sys
print(json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"] / 1e9)' 2>/dev/null)
		if [ -n "$bps" ]; then
			report "tcp bw_$s $bps Gb/s"
		else
			report "tcp bw_$s n/a (iperf3 failed)"
		fi
		ns iperf3 -s -1 -B "$SIW_IP_B" > /dev/null 2>&1 &
		sleep 1
	done
	pkill -x iperf3 2>/dev/null
	wait 2>/dev/null
}

# One perftest tool between device $2 (here) and $3 (in $SIW_NS, or here
# too when $LOCAL is set)
perf() {
	local peer=$1 da=$2 db=$3 tool=$4 size=$5 out unit srv=ns dst=$SIW_IP_B
	local opts=(-R -F -D "$DUR" -s "$size") lim=$((DUR + 40))

	if [ -n "$LOCAL" ]; then srv=; dst=$SIW_IP_A; fi
	case $tool in
	*_lat) opts+=(--output=latency); unit=usec ;;
	*) opts+=(--output=bandwidth --report_gbits); unit=Gb/s ;;
	esac
	$srv timeout "$lim" "$tool" -d "$db" "${opts[@]}" > "/tmp/bench-srv.log" 2>&1 &
	sleep 2
	out=$(timeout "$lim" "$tool" -d "$da" "${opts[@]}" "$dst" 2>/tmp/bench-cli.err |
	      awk 'NF == 1 && $1 ~ /^[0-9.]+$/ { v = $1 } END { print v }')
	wait
	if [ -n "$out" ]; then
		report "$peer ${tool#ib_}_$size $out $unit"
	else
		report "$peer ${tool#ib_}_$size n/a ($(grep -v inline /tmp/bench-cli.err 2>/dev/null | tail -n 1 | tr -d '\n' | cut -c1-60))"
	fi
}

# bench_rdma PEER TYPE: one device on each end of the veth pair; with
# LOCAL=1 one device in the initial namespace talking to itself (rxe on
# 6.1 opens its UDP socket in the initial namespace only, so a device on
# the far end of the pair never hears anything)
LOCAL=
bench_rdma() {
	local peer=$1 type=$2 da=${1}a db=${1}b s t

	if [ -n "$LOCAL" ]; then
		db=$da
		rdma link add "$da" type "$type" netdev "$SIW_IF_A" || {
			report "$peer all n/a (rdma link add failed)"
			return
		}
	elif ! rdma link add "$da" type "$type" netdev "$SIW_IF_A" ||
	   ! ns rdma link add "$db" type "$type" netdev "$SIW_IF_B"; then
		report "$peer all n/a (rdma link add failed)"
		return
	fi
	for t in ib_write_bw ib_read_bw ib_send_bw; do
		for s in $SIZES; do
			perf "$peer" "$da" "$db" "$t" "$s"
		done
	done
	perf "$peer" "$da" "$db" ib_write_lat "$LAT_SIZE"
	perf "$peer" "$da" "$db" ib_send_lat "$LAT_SIZE"
	[ -n "$LOCAL" ] || ns rdma link delete "$db"
	rdma link delete "$da"
}

# Kernel memory a module costs: its size, and slab growth while two
# devices exist (none of the tests leaves anything open at that point)
mem_report() {
	local peer=$1 mod=$2
	report "$peer module_kib $(awk -v m="$mod" '$1 == m { print int($2 / 1024) }' /proc/modules) KiB"
}

modprobe -a ib_core iw_cm ib_uverbs rdma_ucm libcrc32c

bench_tcp

if modprobe rdma_rxe; then
	mem_report rxe rdma_rxe
	LOCAL=1 bench_rdma rxe rxe
	modprobe -r rdma_rxe
else
	report "rxe all n/a (no rdma_rxe)"
fi

if [ -f "$SIW_UPSTREAM_KO" ] && load_siw "$SIW_UPSTREAM_KO"; then
	mem_report usiw siw
	bench_rdma usiw siw
	unload_siw
else
	report "usiw all n/a (upstream siw does not load)"
fi

if load_siw; then
	mem_report siw siw
	bench_rdma siw siw
	unload_siw
else
	report "siw all n/a (ours does not load)"
fi
exit 0
