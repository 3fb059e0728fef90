#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark inside one guest (started by scripts/bench): ours with MPA CRC
# off and on, upstream siw and plain TCP (iperf3), across the veth pair
# (server here, client in $SIW_NS), and NFS over ours against NFS over
# TCP (fio; nfsd in $SIW_NS, the NFS client here), at each MTU asked
# for. Reports, never judges: the exit status
# says only whether the script itself worked.
#
#   bench.sh OURS_KO UPSTREAM_KO [KEY=VALUE...]
#
# The logs of a failed run go to $SIW_OUT/bench-fail/.
#
# Keys: ROUNDS (3), MTUS ("1500 9000"), SIZES ("4096 65536 1048576"),
# WHO ("ours ours-crc upstream tcp tcp-z nfs"; tcp-z: iperf3 -Z, which
# sends by sendfile, without the copy into the socket; also ours-copy: ours with
# zcopy_tx=N; ours-poll, ours-crc-poll: ours and ours-crc with
# rx_poll_us=400; nfs stands for nfs-rdma, nfs-upstream and nfs-tcp: NFS
# over ours, CRC off, over upstream siw and over TCP;
# nfs-rdma-poll: nfs-rdma with rx_poll_us=400; nfs-rdma-t16,
# nfs-tcp-t16: nfs-rdma and nfs-tcp with 16 nfsd threads, not 4), NFS
# (1; 0 leaves every NFS contender out), MIB (96: MiB moved by the short
# RDMA bandwidth run), TCP_MIB (192: the same for TCP), LAT_ITERS
# (10000: round trips of the short latency run), RATE (40000: 64-octet
# Sends of the short message-rate run), NFS_MIB (256: the file fio
# works on, and what the short sequential run moves), NFS_RAND_MIB (64:
# the part of it the 4 KiB random reads cover, and what the short run
# reads), PROBE (the CRC32c probe module to load once first,
# scripts/bench-probe; none if empty), METER (none; insns: the guest runs
# under scripts/insns-plugin.c, and each timed client lies between two of
# its snapshots).
#
# perftest's own figures come from the TSC, which emulation makes
# unreliable, and a short run is mostly connection setup. So each
# measurement is two runs, of COUNT and 3 * COUNT iterations, timed from
# outside; scripts/bench takes the difference, which cancels the setup.
# Contenders are interleaved: every round runs each of them once at each
# MTU, starting with a different one each round. One line a run:
#
#   bench: run ROUND MTU WHO TEST SIZE COUNT SECONDS
#   bench: cpu ROUND MTU WHO TEST SIZE COUNT user=U nice=N system=S
#          idle=I iowait=W irq=Q softirq=T steal=X (the guest's CPU ticks,
#          all CPUs, while that run's client ran; the setup line has hz=)
#   bench: insns ROUND MTU WHO TEST SIZE COUNT LABEL SYMS (METER=insns:
#          that run lies between the snapshots insns-LABEL-a.txt and
#          insns-LABEL-b.txt in /siw-out; SYMS there holds the kernel
#          modules' symbols as they were loaded, "-" if none was saved;
#          kallsyms-image.txt the kernel image's, once)
#   bench: fail ROUND MTU WHO TEST SIZE COUNT WHY
#   bench: skip WHO WHY
#   bench: note MTU WHO mpa_crc=VALUE (the module's, in round 1)
#   bench: crc impl NAME / bench: crc FUNC SIZE MBPS (the probe's lines)
#   bench: elapsed SECONDS
# shellcheck source=guest-lib.sh
. "$(dirname "$0")/guest-lib.sh"
# shellcheck source=perf-lib.sh
. "$(dirname "$0")/perf-lib.sh"
# nfsd, and its ns(): nsenter, so that a mount made in $SIW_NS is ours too
# shellcheck source=consumer-lib.sh
. "$(dirname "$0")/consumer-lib.sh"

OURS=${1:?ours}
UPSTREAM=${2:?upstream}
shift 2

ROUNDS=3 MTUS="1500 9000" SIZES="4096 65536 1048576"
WHO="ours ours-crc upstream tcp tcp-z nfs" MIB=96 TCP_MIB=192 LAT_ITERS=10000
RATE=40000 PROBE='' NFS=1 NFS_MIB=256 NFS_RAND_MIB=64 METER=none
for kv in "$@"; do
	case ${kv%%=*} in
	ROUNDS|MTUS|SIZES|WHO|MIB|TCP_MIB|LAT_ITERS|RATE|PROBE|NFS|NFS_MIB|\
	NFS_RAND_MIB|METER) declare "$kv" ;;
	*) echo "bench.sh: unknown setting $kv" >&2; exit 2 ;;
	esac
done
case $METER in
none|insns) ;;
*) echo "bench.sh: METER is none or insns, not $METER" >&2; exit 2 ;;
esac

LAT_SIZE=64
LIMIT=180		# seconds one client may take
work=/tmp/bench
port=18000
NFS_VERS=4.2
NFS_DEPTH=16		# fio's iodepth
MNT=/mnt/siw-bench
NFS_RPCBIND_PID='' NFS_MOUNTD_PID=''
# every NFS contender alike: nfsd in $SIW_NS, the client here, the one
# topology in which NFS over upstream siw mounts (consumer-lib.sh,
# NFS_SERVER_NS)
NFS_SERVER_NS=$SIW_NS

say() { echo "bench: $*"; }

# one_tcp SIZE COUNT [-Z]: iperf3, one stream of COUNT writes of SIZE, in
# the same direction as the RDMA runs (-Z: by sendfile, not copied into
# the socket)
one_tcp() {
	timed_pair iperf3 -s -1 -B "$SIW_IP_A" -p "$port" -- \
		iperf3 -c "$SIW_IP_A" -p "$port" -n $(($1 * $2)) -l "$1" ${3:+"$3"}
}

# one_tcp_z SIZE COUNT: one_tcp by sendfile
one_tcp_z() { one_tcp "$1" "$2" -Z; }

# save_syms WHO: with METER=insns, the kernel modules' symbols as they
# are loaded now, for the runs of WHO that follow (a module loaded anew
# may sit elsewhere); sets syms to the file's name in /siw-out
save_syms() {
	syms=-
	[ "$METER" = insns ] || return 0
	syms=ksyms-$r-$mtu-$1.txt
	awk 'NF > 3' /proc/kallsyms > "$SIW_OUT/$syms"
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
		rm -f "$work/cpu"
		insns_label=
		[ "$METER" = none ] || insns_label=$r-$mtu-$who-$test-$size-$c
		if out=$("$@" "$size" "$c"); then
			say "run $r $mtu $who $test $size $c $out"
			[ ! -s "$work/cpu" ] ||
				say "cpu $r $mtu $who $test $size $c $(cat "$work/cpu")"
			[ -z "$insns_label" ] ||
				say "insns $r $mtu $who $test $size $c $insns_label $syms"
		else
			say "fail $r $mtu $who $test $size $c $out"
			keep_logs "$r-$mtu-$who-$test-$size-$c"
		fi
	done
	insns_label=
}

# keep_logs NAME: both ends' logs of a failed run, in $SIW_OUT/bench-fail/
# (for NFS, which has no server log of its own, the kernel's last lines)
keep_logs() {
	local d=${SIW_OUT:-}/bench-fail
	[ -n "${SIW_OUT:-}" ] && mkdir -p "$d" || return 0
	cp "$work/cli.log" "$d/$1.cli"
	case $1 in
	*-nfs-*) dmesg | tail -n 40 > "$d/$1.dmesg" ;;
	*) cp "$work/srv.log" "$d/$1.srv" ;;
	esac
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

# warm_up: one untimed perftest run (ours) and one iperf3 run, so that no
# timed run pays for the guest's first start of the tools and their
# libraries (without it, the first perftest run of a guest took longer
# than its 3N partner: round 1's first contender lost its first test)
warm_up() {
	local out
	port=$((port + 1))
	if pair_up "$OURS" mpa_crc=off; then
		out=$(one_perf ib_write_bw 65536 64) ||
			say "note warm-up ib_write_bw: $out"
	fi
	pair_down
	port=$((port + 1))
	out=$(one_tcp 65536 64) || say "note warm-up iperf3: $out"
}

# one_tcp_lat SIZE COUNT: tcp-pingpong, COUNT round trips of SIZE
# octets, both ends spinning in user space as perftest's latency tests do
one_tcp_lat() {
	local secs

	secs=$(timed_pair "$work/tcp-pingpong" -s "$SIW_IP_A" "$port" -- \
		"$work/tcp-pingpong" "$SIW_IP_A" "$port" "$1" "$2") ||
		{ echo "$secs"; return 1; }
	grep -qx "$1 $2" "$work/cli.log" || { echo "no result line"; return 1; }
	echo "$secs"
}

# tcp_tests ROUND WHO: iperf3 (tcp: writes; tcp-z: sendfile) and, for
# tcp, the round trip
tcp_tests() {
	local r=$1 who=$2 s one=one_tcp
	save_syms "$who"
	[ "$who" = tcp ] || one=one_tcp_z
	for s in $SIZES; do
		measure "$r" "$who" stream_bw "$s" "$(bw_count "$s" "$TCP_MIB")" \
			"$one"
	done
	[ "$who" = tcp ] && [ -x "$work/tcp-pingpong" ] || return 0
	measure "$r" tcp tcp_lat "$LAT_SIZE" "$LAT_ITERS" one_tcp_lat
}

# nfs_down: unmount, and stop what bench_nfs_up started, also when it
# stopped half way (the export is mounted first)
nfs_down() {
	! mountpoint -q "$MNT" || timeout 120 umount "$MNT" ||
		say "fail $r $mtu $who all - - umount"
	! mountpoint -q "$NFS_EXPORT" || nfs_server_down > /dev/null 2>&1
	NFS_RPCBIND_PID='' NFS_MOUNTD_PID=''
}

# nfs_contender ROUND WHO: fio on NFS over ours (nfs-rdma), upstream siw
# (nfs-upstream) or TCP (nfs-tcp), nfsd in $SIW_NS, the client here
# (fio itself runs in $SIW_NS: one_fio)
nfs_contender() {
	local r=$1 who=$2 mopts="vers=$NFS_VERS,proto=rdma,port=$NFS_PORT"
	local xprt=rdma NFSD_THREADS=4

	# nfsd's threads (nfs_server_up): a 6.1 thread waits out the RDMA
	# Reads of a WRITE it serves, so over RDMA they bound the writes
	# in progress
	case $who in
	*-t16) NFSD_THREADS=16 ;;
	esac
	case $who in
	nfs-rdma|nfs-rdma-t16) pair_up "$OURS" mpa_crc=off ;;
	nfs-rdma-poll) pair_up "$OURS" mpa_crc=off rx_poll_us=400 ;;
	nfs-upstream) pair_up "$UPSTREAM" ;;
	nfs-tcp|nfs-tcp-t16) mopts="vers=$NFS_VERS,proto=tcp,port=2049" xprt=tcp ;;
	esac || { say "fail $r $mtu $who all - - module or link"; pair_down; return; }
	if bench_nfs_up "$mopts" "$xprt"; then
		# after the mount: the NFS modules' symbols too
		save_syms "$who"
		[ "$r" != 1 ] || say "note $mtu $who" \
			"$(awk -v m="$MNT" '$2 == m { print $4 }' /proc/mounts)"
		measure "$r" "$who" seq_read 1048576 "$NFS_MIB" one_fio read
		measure "$r" "$who" seq_write 1048576 "$NFS_MIB" one_fio write
		measure "$r" "$who" rand_read 4096 $((NFS_RAND_MIB * 256)) \
			one_fio randread
	else
		say "fail $r $mtu $who all - - $why"
		keep_logs "$r-$mtu-$who-setup"
	fi
	nfs_down
	[ "$xprt" = tcp ] || pair_down
}

# contender ROUND WHO: one contender's full set of tests at $mtu
contender() {
	local r=$1 who=$2 crc
	case $who in
	tcp|tcp-z) tcp_tests "$r" "$who"; return ;;
	nfs-*) nfs_contender "$r" "$who"; return ;;
	ours) pair_up "$OURS" mpa_crc=off ;;
	ours-crc) pair_up "$OURS" mpa_crc=required ;;
	# every message copied, none by page reference
	ours-copy) pair_up "$OURS" mpa_crc=off zcopy_tx=N ;;
	# the receive work busy-polls for the rest of a message
	ours-poll) pair_up "$OURS" mpa_crc=off rx_poll_us=400 ;;
	ours-crc-poll) pair_up "$OURS" mpa_crc=required rx_poll_us=400 ;;
	upstream) pair_up "$UPSTREAM" ;;
	esac || { say "fail $r $mtu $who all - - module or link"; pair_down; return; }
	save_syms "$who"
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
# TCP's round trip, the floor under any device that rides it
gcc -O2 -o "$work/tcp-pingpong" "$(dirname "$0")/tcp-pingpong.c" ||
	say "skip tcp_lat tcp-pingpong.c does not build"
modprobe -a ib_core iw_cm ib_uverbs rdma_ucm libcrc32c
syms=-
if [ "$METER" = insns ]; then
	# the addresses, not zeros, in /proc/kallsyms
	echo 0 > /proc/sys/kernel/kptr_restrict
	awk 'NF == 3' /proc/kallsyms > "$SIW_OUT/kallsyms-image.txt"
fi
say "setup kernel=$(uname -r) cpus=$(nproc) rounds=$ROUNDS mtus=${MTUS// /,}" \
	"sizes=${SIZES// /,} mib=$MIB tcp_mib=$TCP_MIB lat_iters=$LAT_ITERS rate=$RATE" \
	"nfs_mib=$NFS_MIB nfs_rand_mib=$NFS_RAND_MIB nfs_vers=$NFS_VERS" \
	"nfs_depth=$NFS_DEPTH hz=$(getconf CLK_TCK) meter=$METER"
say "skip rxe Debian 6.1 rxe opens its UDP socket in the initial namespace" \
	"only, so a device on the far end of the veth pair never hears" \
	"its peer; the two-guest variant is not implemented"
crc_probe
warm_up

who=()
for w in $WHO; do
	case $w in
	nfs) [ "$NFS" = 0 ] || who+=(nfs-rdma nfs-upstream nfs-tcp) ;;
	nfs-*) [ "$NFS" = 0 ] || who+=("$w") ;;
	*) who+=("$w") ;;
	esac
done
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
