#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A buffer whose work request completed is the consumer's again at once:
# what the consumer writes there afterwards must never reach the peer.
# reuse.c, an rdma_cm client and server, runs with the server on siw_a
# here and the client across the veth pair (siw_b in $SIW_NS) at MTU
# 1500 and 9000, or on siw_a too, to its own address (loopback), each
# with MPA CRC off and required, with messages of 64 KiB and 1 MiB:
#
#   send   the client fills its one registered buffer with message i's
#          pattern, Sends it, and overwrites the whole buffer with 0xff
#          as soon as the Send completed; the server checks every octet
#   write  the same with an RDMA Write into one of the server's slots,
#          then a small Send naming the message
#   read   the server deregisters a region that the client is reading,
#          on the client's Send right behind the Read Request, and fills
#          it with another pattern: the Read completes with the region's
#          first pattern or in error, never with an octet of the second
#
# The race needs the receiving siw to copy late, after TCP acknowledged
# what it queued. While a case runs, each vCPU has a shell busy loop and
# an iperf3 stream over 127.0.0.1 pinned to it, at nice REUSE_NICE
# (default 0, as the module's work and the test's own processes); and
# the pair's routes carry quickack, so that the receiving TCP
# acknowledges each segment as it queues it, as loopback does (without
# it the veth pair at MTU 9000 lost 0 to 7 of 1000 64 KiB messages on a
# quiet host, against 40 to 850 with it). Each case is one check: both
# ends exit 0, no message wrong, nothing failed (a Read that completes in
# error is allowed).
#
#   reuse.sh [long]
#
# Every case runs in `make check`, where the 1 MiB cases send 30
# messages and the Read cases run 100 rounds at 64 KiB and 20 at 1 MiB;
# `long` (make check-long) repeats more: 100 messages of 1 MiB, and 300
# and 60 Read rounds. The 64 KiB Sends and Writes, the cases that show a
# buffer reused too early most often, send 1000 messages in both.
# REUSE_COUNT sets the messages per case of 64 KiB and of 1 MiB,
# REUSE_ROUNDS the Read rounds, REUSE_PATHS the paths
# ("1500 9000 local"), REUSE_CRC the CRC policies ("off required"),
# REUSE_MODES the modes ("send write read"), REUSE_SIZES the sizes
# ("65536 1048576"), REUSE_PARAMS parameters for insmod; REUSE_PRESSURE=0
# runs without the load, REUSE_QUICKACK=0 without quickack. The logs of
# a failed case are kept in $SIW_OUT/reuse/.
# shellcheck source=guest-lib.sh
. "$(dirname "$0")/guest-lib.sh"

if [ "${1:-}" = long ]; then
	read -r COUNT_64K COUNT_1M <<< "${REUSE_COUNT:-1000 100}"
	read -r ROUNDS_64K ROUNDS_1M <<< "${REUSE_ROUNDS:-300 60}"
else
	read -r COUNT_64K COUNT_1M <<< "${REUSE_COUNT:-1000 30}"
	read -r ROUNDS_64K ROUNDS_1M <<< "${REUSE_ROUNDS:-100 20}"
fi
PATHS=${REUSE_PATHS:-"1500 9000 local"}
CRCS=${REUSE_CRC:-"off required"}
MODES=${REUSE_MODES:-"send write read"}
SIZES=${REUSE_SIZES:-"65536 1048576"}
NICE=${REUSE_NICE:-0}
LIMIT=90			# seconds the program may take (its -t)
CLI_LIMIT=$((LIMIT + 20))	# the client's timeout
SRV_LIMIT=$((LIMIT + 40))	# the server's (guest-lib.sh)
REAP=20				# seconds the server may take after its client
IPERF_PORT=5301			# and up, one a vCPU
work=/tmp/reuse
load=()

# load_on: a busy loop and a TCP stream over loopback on each vCPU
load_on() {
	local c p
	[ "${REUSE_PRESSURE:-1}" != 0 ] || return 0
	for c in $(seq 0 $(($(nproc) - 1))); do
		taskset -c "$c" nice -n "$NICE" bash -c 'while :; do :; done' &
		load+=($!)
		p=$((IPERF_PORT + c))
		taskset -c "$c" nice -n "$NICE" \
			iperf3 -s -1 -B 127.0.0.1 -p "$p" > /dev/null 2>&1 &
		load+=($!)
		for _ in $(seq 1 50); do
			ss -Hltn "sport = :$p" | grep -q . && break
			sleep 0.1
		done
		taskset -c "$c" nice -n "$NICE" \
			iperf3 -c 127.0.0.1 -p "$p" -t 600 > /dev/null 2>&1 &
		load+=($!)
	done
}

load_off() {
	[ ${#load[@]} -gt 0 ] || return 0
	kill "${load[@]}" 2>/dev/null
	wait "${load[@]}" 2>/dev/null
	load=()
}

# quickack 0|1: the pair's routes, on both ends, without or with quickack
quickack() {
	local qa=()
	[ "$1" = 0 ] || qa=(quickack 1)
	ip route replace 192.0.2.0/25 dev "$SIW_IF_A" proto kernel scope link \
		src "$SIW_IP_A" "${qa[@]}" &&
	ns ip route replace 192.0.2.0/25 dev "$SIW_IF_B" proto kernel scope link \
		src "$SIW_IP_B" "${qa[@]}"
}

mtu_set() {
	ip link set "$SIW_IF_A" mtu "$1" && ns ip link set "$SIW_IF_B" mtu "$1"
}

crc_set() {
	knob siw_a mpa_crc "$1" && knob siw_b mpa_crc "$1"
}

cleanup() {
	load_off
	srv_reap 0
	quickack 0
	mtu_set 1500
}
trap cleanup EXIT

keep() { t_keep reuse "$@"; }

# reuse_run NAME PORT MODE SIZE COUNT: the server here, the client
# through cli, both under load; prints their summaries and the first
# wrong messages or rounds
reuse_run() {
	local name=$1 port=$2 rc_c rc_s
	shift 2
	srv_start "$work/$name.srv" "$port" \
		"$work/reuse" -t $((LIMIT + 20)) server "$SIW_IP_A" "$port" "$@" ||
		return 1
	load_on
	cli timeout -k 5 "$CLI_LIMIT" stdbuf -oL \
		"$work/reuse" -t "$LIMIT" client "$SIW_IP_A" "$port" "$@" \
		> "$work/$name.cli" 2>&1
	rc_c=$?
	load_off
	srv_reap
	rc_s=$?
	grep -h -E "^(result|client|server):" "$work/$name.srv" "$work/$name.cli"
	grep -h -E "^(message|round) " "$work/$name.srv" "$work/$name.cli" |
		head -n 3
	[ "$rc_c" = 0 ] && [ "$rc_s" = 0 ] && return 0
	echo "$name: client exited $rc_c, server $rc_s (124: timed out)"
	grep -h -v -E "^(result|client|server|message|round|listening)[ :]?" \
		"$work/$name.srv" "$work/$name.cli" | head -n 5 | cut -c1-200
	keep "$name"
	return 1
}

# log_clean: no kernel report in the log since this script began
log_clean() {
	! dmesg | sed -n '/reuse\.sh: begin/,$p' |
		grep -E "WARNING:|BUG:|Oops|general protection|KASAN|UBSAN|possible .*deadlock|blocked for more than|soft lockup|rcu.*stall"
}

echo "reuse.sh: begin" > /dev/kmsg
rm -rf "$work" && mkdir -p "$work"
check "reuse.c builds" gcc -O2 -Wall -o "$work/reuse" \
	"$(dirname "$0")/reuse.c" -lrdmacm -libverbs || t_done
# shellcheck disable=SC2086 # REUSE_PARAMS: words for insmod
check "load the module${REUSE_PARAMS:+ with $REUSE_PARAMS}" \
	load_siw "$SIW_KO" ${REUSE_PARAMS:-}
links_up check siw_a siw_b
[ "$fails" = 0 ] || t_done
if [ "${REUSE_QUICKACK:-1}" != 0 ]; then
	check "the pair's routes ack at once (quickack)" quickack 1
fi
[ "${REUSE_PRESSURE:-1}" = 0 ] ||
	echo "reuse: under load: a busy loop and an iperf3 stream on each of $(nproc) vCPUs, nice $NICE"

port=7600
for path in $PATHS; do
	if [ "$path" = local ]; then
		cli() { "$@"; }
		where="on a local address"
	else
		cli() { ns "$@"; }
		where="across the veth pair, MTU $path"
		check "MTU $path on the veth pair" mtu_set "$path"
	fi
	for crc in $CRCS; do
		check "mpa_crc $crc on siw_a and siw_b" crc_set "$crc" || continue
		for mode in $MODES; do
			for size in $SIZES; do
				if [ "$mode" = read ]; then
					n=$ROUNDS_64K
					[ "$size" -le 65536 ] || n=$ROUNDS_1M
					what="rounds, the region deregistered and rewritten under the Read: each Read as registered or failed"
				else
					n=$COUNT_64K
					[ "$size" -le 65536 ] || n=$COUNT_1M
					what="messages from one buffer, overwritten at each completion: every octet as sent"
				fi
				check "$mode $((size / 1024)) KiB, $where, CRC $crc: $n $what" \
					reuse_run "$mode-$size-$path-$crc" "$port" \
					"$mode" "$size" "$n"
				port=$((port + 1))
			done
		done
	done
done

quickack 0
mtu_set 1500
links_down check siw_a siw_b
check "unload the module" unload_siw
check "the kernel log holds no report" log_clean
kmemleak_scan
t_done
