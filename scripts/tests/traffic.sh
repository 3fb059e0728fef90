#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# RDMA traffic between two devices of one loaded module across the veth
# pair: siw_a on $SIW_IF_A here, siw_b on $SIW_IF_B in $SIW_NS. Servers
# run here, clients in $SIW_NS: rping with data validation, ucmatose,
# rdma_server/rdma_client and small perftest runs; then both links go
# and the module unloads. A module that can negotiate RTR (RFC 6581) is
# loaded once more for a ucmatose whose server sends first. kmemleak
# scans at the end.
#
#   traffic.sh [--upstream] [PARAM=VALUE...]
#
# --upstream loads upstream siw ($SIW_UPSTREAM_KO); otherwise TRAFFIC_KO
# names the module (default $SIW_KO, ours). PARAMs go to insmod.
# TRAFFIC_COUNT sets the rping iterations per size (20), TRAFFIC_SIZES
# the rping sizes ("64 4096 65535"; rping takes at most 65535),
# TRAFFIC_TIMEOUT the seconds a client may take (60; the slowest takes
# about 10 under emulation). TRAFFIC_PERF sets the perftest sizes
# ("4096 65536"; "all" runs each tool once with -a, every power of two
# from 2 B to 8 MiB) and TRAFFIC_PERF_ITERS its iterations (50; latency
# tools twice as many). TRAFFIC_RD_ITERS sets the iterations of the six
# ib_read_bw runs with the receive work on another CPU (1500, on the
# debug kernel 200; a module with rx_poll_us only). TRAFFIC_LOCAL=1 puts
# the client on siw_a too,
# talking to its own address (loopback through a local address) instead
# of across the pair. The logs of a failed check are kept in
# $SIW_OUT/traffic/. perftest runs with traffic-cmsync.c preloaded,
# which holds the client's N-th rdma_connect() until the server's N-th
# rdma_listen() returned.
# shellcheck source=guest-lib.sh
. "$(dirname "$0")/guest-lib.sh"

ko=${TRAFFIC_KO:-$SIW_KO}
if [ "${1:-}" = --upstream ]; then
	ko=$SIW_UPSTREAM_KO
	shift
fi
params=("$@")
COUNT=${TRAFFIC_COUNT:-20}
SIZES=${TRAFFIC_SIZES:-"64 4096 65535"}
PERF=${TRAFFIC_PERF:-"4096 65536"}
ITERS=${TRAFFIC_PERF_ITERS:-50}
# the debug kernel (KASAN, lockdep, kmemleak) runs every check with
# fewer repetitions: the same paths, in the time make check has
if [ "${SIW_KERNEL:-debian}" = debug ]; then
	COUNT=${TRAFFIC_COUNT:-5}
	ITERS=${TRAFFIC_PERF_ITERS:-20}
fi
# the Read Responses of each rx_poll_us run: a few seconds each on
# Debian's kernel; the debug kernel (KASAN) takes 20 to 70 s for 1500
RD_ITERS=${TRAFFIC_RD_ITERS:-1500}
[ "${SIW_KERNEL:-debian}" != debug ] || RD_ITERS=${TRAFFIC_RD_ITERS:-200}
CLI_LIMIT=${TRAFFIC_TIMEOUT:-60}	# seconds a client may take
SRV_LIMIT=$((CLI_LIMIT + 60))	# seconds a server may live
REAP=30				# seconds a server may take after its client
work=/tmp/traffic

case $ko in
"${SIW_UPSTREAM_KO:-}") what="upstream siw ($ko)" ;;
"$SIW_KO") what="ours ($ko)" ;;
*) what=$ko ;;
esac

# the client's side: across the pair, or here on the server's device
# ($far: the device on the far end of the pair, none when local)
if [ -n "${TRAFFIC_LOCAL:-}" ]; then
	cli() { "$@"; }
	CLI_DEV=siw_a
	far=
	where="on a local address"
else
	cli() { ns "$@"; }
	CLI_DEV=siw_b
	far=siw_b
	where="across the veth pair"
fi

# Servers: srv_start and srv_reap in guest-lib.sh.

cleanup() { srv_reap 0; }
trap cleanup EXIT

# pair NAME PORT SERVER... -- CLIENT...: the server here, the client in
# $SIW_NS; both must exit 0 in time. Logs: $work/NAME.srv and NAME.cli
pair() {
	local name=$1 port=$2 s=() rc_c rc_s
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do s+=("$1"); shift; done
	shift
	srv_start "$work/$name.srv" "$port" "${s[@]}" || return 1
	cli timeout -k 5 "$CLI_LIMIT" stdbuf -oL "$@" > "$work/$name.cli" 2>&1
	rc_c=$?
	srv_reap
	rc_s=$?
	[ "$rc_c" = 0 ] && [ "$rc_s" = 0 ] && return 0
	echo "$name: client exited $rc_c, server $rc_s (124: timed out)"
	echo "--- server:"; tail -n 5 "$work/$name.srv" | cut -c1-200
	echo "--- client:"; tail -n 5 "$work/$name.cli" | cut -c1-200
	keep "$name"
	return 1
}

# keep NAME: save the logs of a failed check
keep() { t_keep traffic "$@"; }

# cas_run LEN PORT: close-after-send.c, a Send of LEN octets whose sender
# disconnects as soon as it completed; the server must receive it whole
cas_run() {
	local name=cas-$1-$2
	pair "$name" "$2" "$work/cas" server "$SIW_IP_A" "$2" "$1" -- \
		"$work/cas" client "$SIW_IP_A" "$2" "$1" || return 1
	grep -h "^receive:" "$work/$name.srv"
	grep -q "^result: ok" "$work/$name.srv" || { keep "$name"; return 1; }
}

# rping_run SIZE PORT: COUNT pings of SIZE octets, each read by the server
# and written back, compared by the client (-V). -v prints each ping to
# the log, so that a client that saw its connection end early (rping exits
# 0 then) fails the count.
rping_run() {
	local size=$1 port=$2 n
	pair "rping-$size" "$port" \
		rping -s -a "$SIW_IP_A" -p "$port" -V -C "$COUNT" -S "$size" -- \
		rping -c -a "$SIW_IP_A" -p "$port" -V -v -C "$COUNT" -S "$size" ||
		return 1
	n=$(grep -c "^ping data: " "$work/rping-$size.cli")
	echo "rping $size B: $n of $COUNT pings validated"
	[ "$n" = "$COUNT" ] || { keep "rping-$size"; return 1; }
}

# cmatose_run PORT MESSAGES: 2 connections; with MESSAGES, that many
# sends of 4096 octets each way, the server's first. ucmatose counts
# completions without looking at their status: its client, which waits
# for every message, is the one that notices a broken stream.
cmatose_run() {
	local name=ucmatose-$2
	pair "$name" "$1" ucmatose -p "$1" -c 2 -C "$2" -S 4096 -- \
		ucmatose -s "$SIW_IP_A" -p "$1" -c 2 -C "$2" -S 4096 || return 1
	[ "$2" = 0 ] && return 0
	if ! grep -q "data transfers complete" "$work/$name.srv" ||
	   ! grep -q "data transfers complete" "$work/$name.cli"; then
		keep "$name"
		return 1
	fi
}

# rdmasrv_run PORT: rdma_client sends 16 octets, rdma_server echoes them
rdmasrv_run() {
	pair rdma_server "$1" rdma_server -p "$1" -- \
		rdma_client -s "$SIW_IP_A" -p "$1" || return 1
	if ! grep -q "rdma_server: end 0" "$work/rdma_server.srv" ||
	   ! grep -q "rdma_client: end 0" "$work/rdma_server.cli"; then
		keep rdma_server
		return 1
	fi
}

# perf_run TOOL SIZE ITERS PORT: a perftest tool over rdma_cm; the client
# must print its result line (SIZE ITERS ...), for each power of two
# from 2 to 1048576 if SIZE is "all"
perf_run() {
	local tool=$1 size=$2 iters=$3 port=$4 name=$1-$2 line s
	local opts=(-R -F -n "$iters" -p "$port") pre=()

	if [ "$size" = all ]; then
		opts+=(-a)
	else
		opts+=(-s "$size")
	fi

	cmsync_pre
	pair "$name" "$port" "${pre[@]}" "$tool" -d siw_a "${opts[@]}" -- \
		"${pre[@]}" "$tool" -d "$CLI_DEV" "${opts[@]}" "$SIW_IP_A" ||
		return 1
	if [ "$size" != all ]; then
		set -- "$size"
	else
		set --
		for ((s = 2; s <= 1048576; s *= 2)); do set -- "$@" "$s"; done
	fi
	for s; do
		line=$(awk -v s="$s" -v n="$iters" '$1 == s && $2 == n' "$work/$name.cli")
		if [ -z "$line" ]; then
			echo "$name: no result line for $s B"
			keep "$name"
			return 1
		fi
	done
	echo "$name: $(awk -v n="$iters" '$2 == n' "$work/$name.cli" | wc -l) result lines, the last:"
	echo "$name: $line"
}

# up [PARAM...]: load the module and make a device on each end
up() {
	check "load the module${*:+ with $*}" load_siw "$ko" "$@"
	links_up check siw_a "$far"
}

down() {
	links_down check siw_a "$far"
	check "unload the module" unload_siw
}

# has_rx_poll: the module has the busy poll an administrator may turn on
# (upstream siw has none: a skip; ours must have it)
rxp=/sys/module/siw/parameters/rx_poll_us
has_rx_poll() {
	modinfo -p "$ko" 2>/dev/null | grep -q "^rx_poll_us:" && return 0
	[ "$ko" != "$SIW_KO" ] || t_fail "$what has no rx_poll_us"
	return 1
}

rm -rf "$work" && mkdir -p "$work"
cmsync_build
echo "traffic: module: $what${params[*]:+, parameters: ${params[*]}}, $where"
check "module file exists" test -f "$ko"
up "${params[@]}"
[ "$fails" = 0 ] || t_done
rdma link show

port=7200
for s in $SIZES; do
	check "rping $s B x$COUNT, validated" rping_run "$s" "$port"
	port=$((port + 1))
done

check "ucmatose: 2 connections set up and torn down" cmatose_run 7300 0

if command -v rdma_server > /dev/null &&
   command -v rdma_client > /dev/null; then
	check "rdma_server/rdma_client" rdmasrv_run 7310
else
	t_skip "rdma_server/rdma_client (not installed)"
fi

port=18600
for t in ib_write_bw ib_read_bw ib_send_bw; do
	for s in $PERF; do
		if command -v "$t" > /dev/null; then
			check "$t -R $s B x$ITERS" perf_run "$t" "$s" "$ITERS" "$port"
		else
			t_skip "$t (perftest not installed)"
		fi
		port=$((port + 1))
	done
done
lat=64
[ "$PERF" = all ] && lat=all
for t in ib_write_lat ib_send_lat; do
	if command -v "$t" > /dev/null; then
		check "$t -R $lat B x$((ITERS * 2))" perf_run "$t" "$lat" $((ITERS * 2)) "$port"
	else
		t_skip "$t (perftest not installed)"
	fi
	port=$((port + 1))
done

# Everything a peer sent before its FIN is received (RFC 5040 6): a
# message whose last segment carries the FIN, and, with the busy poll an
# administrator may turn on (rx_poll_us), the rest of a message the
# receive work is still reading
if check "close-after-send.c builds" gcc -O2 -Wall -o "$work/cas" \
	"$(dirname "$0")/close-after-send.c" -lrdmacm -libverbs; then
	port=7350
	for s in 65536 1048576; do
		for i in 1 2 3; do
			check "a $s B Send, its sender disconnecting at once: received whole ($i/3)" \
				cas_run "$s" "$port"
			port=$((port + 1))
		done
	done
	if has_rx_poll; then
		echo 400 > "$rxp"
		for s in 4096 65536; do
			check "the same, $s B, rx_poll_us=400" cas_run "$s" "$port"
			port=$((port + 1))
		done
		echo 0 > "$rxp"
	else
		t_skip "close-after-send with rx_poll_us=400: $what has no rx_poll_us"
	fi
fi
down

# Read Responses while the receive work runs on another CPU than the
# transmit work (rx_poll_us): the responder must free a Read Request's
# IRD slot before the requester can see its last Read Response, or the
# requester's next Read Request, sent at once, finds the IRD full (a
# Terminate, "Invalid MSN - no buffer available").
if has_rx_poll; then
	up "${params[@]}" rx_poll_us=400
	for i in 1 2 3 4 5 6; do
		check "ib_read_bw -R 65536 B x$RD_ITERS, receive work on another CPU ($i/6)" \
			perf_run ib_read_bw 65536 "$RD_ITERS" $((7330 + i))
	done
	down
else
	t_skip "ib_read_bw, receive work on another CPU: $what has no rx_poll_us"
fi

# ucmatose's server sends first. RFC 5044 has the initiator send first;
# a responder may do so only in the peer-to-peer model of RFC 6581, after
# the initiator's RTR. Upstream siw cannot negotiate it, and its
# initiator fails a connection (CONNECT_ERROR, -EINVAL) whose first FPDU
# comes in with the MPA Reply; so this runs only where the module can
# negotiate it (mpa_p2p), reloaded with it.
# Ours must have mpa_p2p: without it this fails rather than skips.
param_gate "$ko" "$SIW_KO" mpa_p2p
case $? in
0)	up "${params[@]}" mpa_p2p=1
	check "ucmatose, server first (RTR): 2 connections, 10 sends each way" \
		cmatose_run 7320 10
	down ;;
1)	t_skip "ucmatose, server first: $what cannot negotiate RTR" \
		"(RFC 6581), and without it the server may not send first" ;;
*)	t_fail "ucmatose, server first (RTR): $what has no mpa_p2p parameter" ;;
esac

kmemleak_scan
echo "traffic: ran against $what"
t_done
