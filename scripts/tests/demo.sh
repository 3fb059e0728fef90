#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The main job's guest side (make demo): what a new user wants to see.
# Load siw, make a device on each end of the veth pair and one on
# loopback; rping with every ping's data verified across the pair; RDMA
# Write and Read bandwidth (perftest, timed from outside); an NFSv4.1
# mount over RDMA from the other namespace with a file written, read
# back and compared, its callback channel on RDMA; the negotiated
# settings of the live connection as `rdma res show qp -dd` shows them;
# then everything is taken down and the module unloaded.
#
# Each step prints ok:/FAIL: and the run ends with a summary table. A
# step that fails skips the steps that need it; the script exits 1 and
# names the first failed step.
# shellcheck source=guest-lib.sh
. "$(dirname "$0")/guest-lib.sh"
# shellcheck source=perf-lib.sh
. "$(dirname "$0")/perf-lib.sh"
# shellcheck source=consumer-lib.sh
. "$(dirname "$0")/consumer-lib.sh"

work=/tmp/demo
port=18500
LIMIT=60		# seconds one perftest or rping client may take
SRV_LIMIT=90 REAP=30
PING_COUNT=50 PING_SIZE=4096
BW_SIZE=65536 BW_COUNT=1000	# and 3 * BW_COUNT: 62.5 and 187.5 MiB
FILE_MB=16
MNT=/mnt/siw-demo
TRACE=/sys/kernel/tracing
rm -rf "$work" && mkdir -p "$work"

rows=() first_fail=
# step NAME FUNC: run FUNC, time it, and add a row to the summary; FUNC
# may set $detail. Returns FUNC's status.
step() {
	local name=$1 t0=$EPOCHREALTIME rc secs
	shift
	detail=
	echo "---- $name"
	"$@"
	rc=$?
	secs=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
	if [ $rc -eq 0 ]; then
		t_pass "$name"
		rows+=("$(printf '%-34s %-4s %6ss  %s' "$name" ok "$secs" "$detail")")
	else
		t_fail "$name${detail:+: $detail}"
		rows+=("$(printf '%-34s %-4s %6ss  %s' "$name" FAIL "$secs" "$detail")")
		[ -n "$first_fail" ] || first_fail=$name
	fi
	return $rc
}

# skipped NAME: a step that could not run because one it needs failed
skipped() {
	echo "skip: $1 (needs: $first_fail)"
	rows+=("$(printf '%-34s %-4s %7s  %s' "$1" skip - "needs: $first_fail")")
}

load() {
	load_siw || return 1
	detail="$(modinfo -F version "$SIW_KO" 2>/dev/null) $(uname -r)"
	lsmod | grep -q "^siw "
}

links() {
	rdma link add siw_a type siw netdev "$SIW_IF_A" &&
	ns rdma link add siw_b type siw netdev "$SIW_IF_B" &&
	rdma link add siw_lo type siw netdev lo || return 1
	rdma link show
	ns rdma link show
	ibv_devices
	ibv_devinfo -d siw_a | grep -E "hca_id|transport|fw_ver|node_guid|state|active_mtu"
	# each device is on its netdev, its port active
	rdma link show siw_a/1 | grep -q "state ACTIVE.*netdev $SIW_IF_A" &&
	ns rdma link show siw_b/1 | grep -q "state ACTIVE.*netdev $SIW_IF_B" &&
	rdma link show siw_lo/1 | grep -q "state ACTIVE.*netdev lo" &&
	detail="siw_a on $SIW_IF_A, siw_b on $SIW_IF_B (namespace $SIW_NS), siw_lo on lo"
}

# rping: the server reads each ping from the client and writes it back;
# the client compares (-V) and prints it (-v): every ping must be there
ping_pair() {
	local n
	port=$((port + 1))
	srv_start "$work/rping.srv" "$port" rping -s -a "$SIW_IP_A" \
		-p "$port" -V -C "$PING_COUNT" -S "$PING_SIZE" || return 1
	ns timeout -k 5 "$LIMIT" rping -c -a "$SIW_IP_A" -p "$port" -V -v \
		-C "$PING_COUNT" -S "$PING_SIZE" > "$work/rping.cli" 2>&1 ||
		{ tail -n 5 "$work/rping.cli"; srv_reap; return 1; }
	srv_reap || return 1
	n=$(grep -c "^ping data: " "$work/rping.cli")
	head -n 2 "$work/rping.cli" | cut -c1-76
	detail="$n of $PING_COUNT pings of $PING_SIZE B verified"
	[ "$n" = "$PING_COUNT" ]
}

# bw TOOL: MB/s from two runs of BW_COUNT and 3 * BW_COUNT messages of
# BW_SIZE, each timed from outside; the difference cancels setup time
bw() {
	local t1 t3 mbs
	port=$((port + 1))
	t1=$(one_perf "$1" "$BW_SIZE" "$BW_COUNT") || { echo "$t1"; return 1; }
	port=$((port + 1))
	t3=$(one_perf "$1" "$BW_SIZE" $((3 * BW_COUNT))) || { echo "$t3"; return 1; }
	grep -A 1 "#bytes" "$work/cli.log"
	mbs=$(awk -v a="$t1" -v b="$t3" -v n=$((2 * BW_COUNT * BW_SIZE)) \
		'BEGIN { if (b > a) printf "%.0f", n / (b - a) / 1e6 }')
	detail="${mbs:-?} MB/s at $((BW_SIZE / 1024)) KiB (runs of ${t1}s and ${t3}s)"
	[ -n "$mbs" ]
}

nfs_up() {
	nfs_server_up || return 1
	echo > "$TRACE/trace"
	echo 1 > "$TRACE/events/nfsd/nfsd_cb_setup/enable" &&
	echo 1 > "$TRACE/events/rpcrdma/xprtrdma_cb_call/enable" &&
	echo 1 > "$TRACE/events/rpcrdma/xprtrdma_cb_reply/enable" &&
	echo 1 > "$TRACE/tracing_on" || return 1
	mkdir -p "$MNT"
	ns timeout 120 mount -t nfs -o "vers=4.1,proto=rdma,port=$NFS_PORT" \
		"$SIW_IP_A:/" "$MNT" || return 1
	grep " $MNT " /proc/mounts
	detail="$SIW_IP_A:/ on $MNT from $SIW_NS, transport $(nfs_xprt "$MNT")"
	[ "$(nfs_xprt "$MNT")" = rdma ]
}

nfs_file() {
	local sum1 sum2 sum3
	dd if=/dev/urandom of="$work/file" bs=1M count="$FILE_MB" status=none
	sum1=$(sha256sum < "$work/file" | cut -c1-16)
	dd if="$work/file" of="$MNT/file" bs=1M conv=fsync status=none || return 1
	echo 3 > /proc/sys/vm/drop_caches
	sum2=$(sha256sum < "$MNT/file" | cut -c1-16)
	sum3=$(sha256sum < "$NFS_EXPORT/file" | cut -c1-16)
	echo "sha256: sent $sum1, read back $sum2, on the server $sum3"
	if [ "$sum1" = "$sum2" ] && [ "$sum1" = "$sum3" ]; then
		detail="$FILE_MB MiB, sha256 $sum1 written, read back and on the server"
		return 0
	fi
	detail="sha256 differs: sent $sum1, read back $sum2, server $sum3"
	return 1
}

# The NFSv4.1 backchannel (RFC 8167): nfsd sets it up over rdma; the
# client opens a file and holds a read delegation, the server's own
# write recalls it with a CB_RECALL that the client receives and answers
# on the RDMA connection
nfs_callback() {
	local f=$NFS_EXPORT/deleg holder
	echo before > "$f"
	deleg_hold "$MNT/deleg"
	holder=$deleg_pid
	deleg_client_info | grep -E "callback"
	[ -n "$holder" ] || { detail="no delegation granted"; return 1; }
	timeout 60 bash -c "echo after >> '$f'" || { detail="recall hung"; return 1; }
	kill "$holder"
	wait "$holder" 2>/dev/null
	grep -E "nfsd_cb_setup|xprtrdma_cb" "$TRACE/trace" | head -n 3 | cut -c1-150
	detail="backchannel set up over rdma, CB_RECALL in and its reply out over rdma"
	grep -q "nfsd_cb_setup:.*proto=rdma" "$TRACE/trace" &&
	grep -q "xprtrdma_cb_call:" "$TRACE/trace" &&
	grep -q "xprtrdma_cb_reply:" "$TRACE/trace" &&
	grep -q after "$MNT/deleg"
}

# drv FILE KEY: the value of a driver attribute (drv_KEY) in one
# `rdma res show qp -dd` line
drv() { sed -n "s/.* drv_$2 \([^ ]*\).*/\1/p" "$1" | head -n 1; }

# The live NFS connection's QPs, one on each device, as an administrator
# sees them: both ends must report the same settings, mirrored
params() {
	local a=$work/qp_a b=$work/qp_b k
	rdma -dd res show qp link siw_a/1 | grep " drv_mpa_rev " | head -n 1 > "$a"
	rdma -dd res show qp link siw_b/1 | grep " drv_mpa_rev " | head -n 1 > "$b"
	echo "server (siw_a):"; sed 's/^/    /' "$a"
	echo "client (siw_b):"; sed 's/^/    /' "$b"
	[ -s "$a" ] && [ -s "$b" ] || { echo "no QP with driver details"; return 1; }
	for k in mpa_rev crc p2p ird; do
		[ -n "$(drv "$a" "$k")" ] || { echo "no $k"; return 1; }
	done
	detail="MPA rev $(drv "$b" mpa_rev), CRC $(drv "$b" crc), markers tx/rx"
	detail+=" $(drv "$b" markers_tx)/$(drv "$b" markers_rx), P2P $(drv "$b" p2p)"
	detail+=" RTR $(drv "$b" rtr), IRD/ORD $(drv "$b" ird)/$(drv "$b" ord)"
	[ "$(drv "$a" mpa_rev)" = "$(drv "$b" mpa_rev)" ] &&
	[ "$(drv "$a" crc)" = "$(drv "$b" crc)" ] &&
	[ "$(drv "$a" p2p)" = "$(drv "$b" p2p)" ] &&
	[ "$(drv "$a" markers_tx)" = "$(drv "$b" markers_rx)" ] &&
	[ "$(drv "$a" markers_rx)" = "$(drv "$b" markers_tx)" ] &&
	[ "$(drv "$a" laddr)" = "$(drv "$b" raddr)" ] &&
	[ "$(drv "$a" raddr)" = "$(drv "$b" laddr)" ] &&
	[ "$(drv "$a" role)" = responder ] && [ "$(drv "$b" role)" = initiator ]
}

nfs_down() {
	echo 0 > "$TRACE/tracing_on"
	echo 0 > "$TRACE/events/enable"
	ns umount "$MNT" || return 1
	nfs_server_down
}

unload() {
	ns rdma link delete siw_b && rdma link delete siw_a &&
	rdma link delete siw_lo || return 1
	unload_siw && ! lsmod | grep -q "^siw "
}

t0=$SECONDS
if step "load siw.ko" load &&
   step "rdma link add (pair and loopback)" links; then
	step "rping -V across the pair" ping_pair
	perf_prepare
	step "ib_write_bw -R" bw ib_write_bw
	step "ib_read_bw -R" bw ib_read_bw
	if step "NFSv4.1 mount over RDMA" nfs_up; then
		step "NFS file written and read back" nfs_file
		step "NFS callback channel on RDMA" nfs_callback
		step "negotiated settings (rdma res)" params
		step "NFS unmount" nfs_down
	else
		for s in "NFS file written and read back" \
			 "NFS callback channel on RDMA" \
			 "negotiated settings (rdma res)"; do
			skipped "$s"
		done
		nfs_down
	fi
	step "rdma link delete, unload" unload
fi

echo
echo "==== siw demo on $(uname -r): $((SECONDS - t0)) s in the guest"
printf '%s\n' "${rows[@]}"
if [ -n "$first_fail" ]; then
	echo "demo: FAILED at step: $first_fail"
	exit 1
fi
echo "demo: all steps passed"
exit 0
