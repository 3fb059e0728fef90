# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154
# perftest and iperf3 runs timed from outside, for bench.sh and demo.sh
# (and the NFS setup and fio runs of bench.sh, bench-ab.sh and
# bench-profile.sh);
# sourced inside the guest after guest-lib.sh. The caller sets $work (a
# directory for the logs, and cmsync.so from perf_prepare), $port (the
# port of the next run) and LIMIT (seconds one client may take); the
# server runs here on siw_a, the client in $SIW_NS on siw_b.

# perf_prepare: build traffic-cmsync.c, which holds a perftest client's
# N-th rdma_connect() until its server's N-th rdma_listen() returned
perf_prepare() { cmsync_build; }

# wait_tcp_listen PORT PID: poll until a TCP listener on PORT exists
# here, or the server PID died
wait_tcp_listen() {
	for _ in $(seq 1 300); do
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

# cpu_delta BEFORE AFTER: the ticks (USER_HZ) all CPUs spent in each
# state between two copies of /proc/stat's first line, as "user=U nice=N
# system=S idle=I iowait=W irq=Q softirq=T steal=X"
cpu_delta() {
	local cpu_was cpu_now i cpu_out=()
	local cpu_names=(user nice system idle iowait irq softirq steal)

	read -ra cpu_was <<< "$1"
	read -ra cpu_now <<< "$2"
	for i in "${!cpu_names[@]}"; do
		cpu_out+=("${cpu_names[i]}=$(( ${cpu_now[i + 1]:-0} - ${cpu_was[i + 1]:-0} ))")
	done
	echo "${cpu_out[*]}"
}

# insns_mark LABEL: have the QEMU plugin (scripts/insns-plugin.c, loaded
# by scripts/guest with SIW_GUEST_INSNS) write its counts as
# /siw-out/insns-LABEL.txt, and wait until it did
insns_mark() {
	rm -f "$SIW_OUT/insns.ack"
	echo "$1" > "$SIW_OUT/insns.req.tmp"
	mv "$SIW_OUT/insns.req.tmp" "$SIW_OUT/insns.req"
	for _ in $(seq 1 600); do
		[ "$(cat "$SIW_OUT/insns.ack" 2>/dev/null)" = "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

# timed_client CLIENT...: run CLIENT in $SIW_NS (at most $LIMIT seconds,
# its output in $work/cli.log); sets t_secs to its wall time and writes
# the CPU ticks of the whole guest meanwhile to $work/cpu (cpu_delta).
# With $insns_label set, the plugin's snapshots LABEL-a and LABEL-b are
# taken just before and after, outside the timed part.
# Its exit status is the client's (1 if a snapshot was not taken).
timed_client() {
	local c0 c1 t0 t1 rc=0

	rm -f "$work/cpu"
	if [ -n "${insns_label:-}" ] && ! insns_mark "$insns_label-a"; then
		echo "no instruction snapshot" > "$work/cli.log"
		return 1
	fi
	# read, a builtin: no fork between the samples and the clock
	read -r c0 < /proc/stat
	t0=$EPOCHREALTIME
	ns timeout -k 5 "$LIMIT" "$@" > "$work/cli.log" 2>&1 || rc=$?
	t1=$EPOCHREALTIME
	read -r c1 < /proc/stat
	t_secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f\n", b - a }')
	cpu_delta "$c0" "$c1" > "$work/cpu"
	if [ -n "${insns_label:-}" ] && ! insns_mark "$insns_label-b"; then
		echo "no instruction snapshot" >> "$work/cli.log"
		return 1
	fi
	return $rc
}

# timed_pair SERVER... -- CLIENT...: start the server here, wait until it
# listens on $port, run the client in $SIW_NS (timed_client) and print
# its wall time; the server must end by itself soon after. Logs:
# $work/srv.log, cli.log
timed_pair() {
	local s=() pid rc=0

	while [ "$1" != -- ]; do s+=("$1"); shift; done
	shift
	timeout -k 5 $((LIMIT + 30)) "${s[@]}" > "$work/srv.log" 2>&1 &
	pid=$!
	if ! wait_tcp_listen "$port" "$pid"; then
		echo "server did not listen"
		rc=1
	else
		timed_client "$@" || rc=$?
		[ "$rc" = 0 ] || echo "client exited $rc: $(last_words)"
	fi
	for _ in $(seq 1 100); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill "$pid" 2>/dev/null && { [ "$rc" != 0 ] || echo "server did not end"; rc=1; }
	wait "$pid" 2>/dev/null || { [ "$rc" != 0 ] || echo "server failed"; rc=1; }
	[ "$rc" = 0 ] || return 1
	echo "$t_secs"
}

# one_perf TOOL SIZE COUNT: one perftest run over rdma_cm, server on
# siw_a here, client on siw_b; prints the client's seconds
one_perf() {
	local tool=$1 size=$2 count=$3 secs pre=() opts

	opts=(-R -F -s "$size" -n "$count" -p "$port")
	cmsync_pre
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

# bench_nfs_up OPTS XPRT: nfsd's export (a tmpfs with room for the
# file), mounted on $MNT with OPTS over transport XPRT, and the file fio
# works on written once, untimed (which also waits out nfsd's grace
# period: no new open before it ends); else why not in $why. nfsd runs
# here and the client mounts from $SIW_NS, or, with NFS_SERVER_NS set
# to $SIW_NS (consumer-lib.sh), nfsd runs there and the client mounts
# from here: the topology in which upstream siw's sockets are made
# where their addresses are. fio itself runs in $SIW_NS either way
# (timed_client): where its I/O goes is the mount's, not its own.
# For bench.sh, bench-ab.sh and bench-profile.sh: consumer-lib.sh
# sourced, NFS_MIB, NFS_DEPTH and MNT set.
# shellcheck disable=SC2034 # why: the caller's
bench_nfs_up() {
	local cli=(ns) srv=$SIW_IP_A
	why=
	if [ -n "$NFS_SERVER_NS" ]; then
		[ "$NFS_SERVER_NS" = "$SIW_NS" ] ||
			{ why="NFS_SERVER_NS is $NFS_SERVER_NS, not $SIW_NS"; return 1; }
		cli=() srv=$SIW_IP_B
	fi
	if ! nfs_server_up "$((NFS_MIB + 16))m" > "$work/nfsd.log" 2>&1; then
		why="nfsd did not start: $(tail -n 1 "$work/nfsd.log")"
		return 1
	fi
	mkdir -p "$MNT"
	if ! "${cli[@]}" timeout 120 mount -t nfs -o "$1" "$srv:/" "$MNT" \
		2> "$work/cli.log"; then
		why="mount -o $1: $(tail -n 1 "$work/cli.log")"
		return 1
	fi
	if [ "$(nfs_xprt "$MNT")" != "$2" ]; then
		why="the mount's transport is $(nfs_xprt "$MNT"), not $2"
		return 1
	fi
	if ! ns timeout "$LIMIT" fio --name=layout --filename="$MNT/fio.dat" \
		--rw=write --bs=1M --size="${NFS_MIB}M" --ioengine=libaio \
		--iodepth="$NFS_DEPTH" --direct=1 --fallocate=none \
		> "$work/cli.log" 2>&1; then
		why="writing the file failed: $(last_words)"
		return 1
	fi
}

# one_fio RW SIZE COUNT: fio from $SIW_NS on the NFS mount: COUNT I/Os of
# SIZE octets (RW: fio's read, write or randread), iodepth $NFS_DEPTH,
# O_DIRECT (the client's page cache stays out of it), within the first
# NFS_MIB (sequential) or NFS_RAND_MIB (random) MiB of the file, going
# round it again as often as COUNT asks; prints the client's seconds.
# For bench.sh and bench-profile.sh: NFS_RAND_MIB set too.
one_fio() {
	local rw=$1 size=$2 count=$3 mib=$NFS_MIB col=6 kib

	[ "$rw" = randread ] && mib=$NFS_RAND_MIB
	[ "$rw" = write ] && col=47
	if ! timed_client fio --name="$rw" --filename="$MNT/fio.dat" \
		--rw="$rw" --bs="$size" --size="${mib}M" \
		--io_size=$((size * count)) --ioengine=libaio \
		--iodepth="$NFS_DEPTH" --direct=1 --fallocate=none \
		--output-format=terse --terse-version=3; then
		echo "fio failed: $(last_words)"
		return 1
	fi
	# terse version 3: field 5 the error, 6 the KiB read, 47 written
	kib=$(awk -F';' -v c="$col" '$1 == 3 && $5 == 0 { print $c }' \
		"$work/cli.log")
	if [ "$kib" != $((size * count / 1024)) ]; then
		echo "fio moved ${kib:-no} KiB, not $((size * count / 1024))"
		return 1
	fi
	echo "$t_secs"
}
