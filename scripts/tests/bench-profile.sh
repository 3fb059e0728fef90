#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Where the CPU time of perftest runs, or of fio on NFS, goes, inside one
# guest (started by scripts/bench-profile): for each contender, a perftest
# server here and its client in $SIW_NS (timed_client of perf-lib.sh),
# or nfsd in $SIW_NS and fio on its mount here (the NFS client here; fio
# itself runs in $SIW_NS), the whole guest sampled
# by perf (cpu-clock, 1000 Hz, all CPUs) from just before the client
# starts until it ended.
# Reports, never judges: the exit status says only whether the script
# itself worked.
#
#   bench-profile.sh OURS_KO UPSTREAM_KO [KEY=VALUE...]
#
# Keys: WHO ("ours upstream"; also ours-crc, and ours,PARAM=V[,...]:
# ours with more module parameters; for fio: "nfs-rdma nfs-tcp", NFS
# over ours with CRCs off and over TCP, and nfs-rdma,PARAM=V[,...] and
# nfs-upstream, NFS over upstream siw),
# TEST (ib_send_bw; any perftest test, or fio_read, fio_write,
# fio_randread: fio's read, write or randread, queue depth 16,
# O_DIRECT, on NFS as bench_nfs_up of perf-lib.sh mounts it with nfsd
# in $SIW_NS), SIZE (64; fio_read and
# fio_write 1048576, fio_randread 4096), COUNT (100000 iterations; for
# fio 256 I/Os), MTU (1500), NFS_MIB (256: the file fio works on, as
# in make bench), CALLERS (kernel symbols,
# comma-separated: record call chains too and list where the time in
# each came from; none by default, as chains cost time under emulation),
# METER (perf, the default; or insns: no sampling, the instructions the
# guest kernel executed, counted by scripts/insns-plugin.c in QEMU,
# which this guest must run under).
# Each contender runs COUNT and 3 * COUNT iterations, each run sampled
# alone; scripts/bench-profile takes the difference, which cancels the
# client's start and connection setup (as make bench does with wall
# times). One line each:
#
#   prof: setup KEY=VALUE...
#   prof: run WHO N SECONDS (the client's wall time) / prof: fail WHO N WHY
#   prof: class WHO N CLASS NS (CPU time sampled: module, kernel, user, idle)
#   prof: sym WHO N NS NAME (the module's symbols, most time first)
#   prof: ksym WHO N NS NAME (the rest of the kernel's, the first 60)
#   prof: comm WHO N NS TASK (the time by task name, the first 8; idle is
#         swapper's)
#   prof: caller WHO N NS CHAIN (with CALLERS: the time in such a symbol
#         by its three callers, innermost first, joined by '<'; with
#         several symbols, CHAIN starts with the symbol and a ':')
#   prof: insns WHO N BEFORE AFTER TAG (METER=insns, instead of the
#         class, sym, ksym and comm lines: the run lies between the
#         plugin's snapshots insns-BEFORE.txt and insns-AFTER.txt in
#         /siw-out, whose kernel addresses kallsyms-TAG.txt there
#         resolves; TAG is WHO made a file name)
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

WHO='' TEST=ib_send_bw SIZE='' COUNT='' MTU=1500 CALLERS='' METER=perf
NFS_MIB=256
for kv in "$@"; do
	case ${kv%%=*} in
	WHO|TEST|SIZE|COUNT|MTU|CALLERS|METER|NFS_MIB) declare "$kv" ;;
	*) echo "bench-profile.sh: unknown setting $kv" >&2; exit 2 ;;
	esac
done
case $METER in
perf|insns) ;;
*) echo "bench-profile.sh: METER is perf or insns, not $METER" >&2; exit 2 ;;
esac
FIO=0
case $TEST in
ib_send_bw|ib_write_bw|ib_read_bw|ib_send_lat|ib_write_lat|ib_read_lat)
	: "${WHO:=ours upstream}" "${SIZE:=64}" "${COUNT:=100000}" ;;
fio_read|fio_write)
	FIO=1
	: "${WHO:=nfs-rdma nfs-tcp}" "${SIZE:=1048576}" "${COUNT:=256}" ;;
fio_randread)
	FIO=1
	: "${WHO:=nfs-rdma nfs-tcp}" "${SIZE:=4096}" "${COUNT:=8192}" ;;
*) echo "bench-profile.sh: not a perftest or fio test: $TEST" >&2; exit 2 ;;
esac
# for bench_nfs_up and one_fio (perf-lib.sh): fio's random reads, as its
# sequential ones, anywhere in the file
NFS_VERS=4.2 NFS_DEPTH=16 NFS_RAND_MIB=$NFS_MIB MNT=/mnt/siw-bench-profile
NFS_RPCBIND_PID='' NFS_MOUNTD_PID=''
# every NFS contender alike: nfsd in $SIW_NS, the client here, the one
# topology in which NFS over upstream siw mounts (consumer-lib.sh,
# NFS_SERVER_NS)
NFS_SERVER_NS=$SIW_NS

LIMIT=600
work=/tmp/bench-profile
port=18700

say() { echo "prof: $*"; }

# perf_ctl COMMAND: enable or disable the sampling, wait for perf's ack
perf_ctl() {
	echo "$1" >&"$ctl_fd"
	local reply=''
	read -r -t 300 -u "$ack_fd" reply && [ "$reply" = ack ]
}

# report WHO N DATA: the sampled time of the run of N iterations by task,
# by class and by symbol
report() {
	local who=$1 n=$2 data=$3

	perf report -i "$data" --stdio --no-children -g none \
		-F period,comm 2> /dev/null |
		awk -v who="$who" -v n="$n" '!/^#/ && NF >= 2 && k++ < 8 {
			printf "prof: comm %s %s %.0f %s\n", who, n, $1, $2 }'
	perf report -i "$data" --stdio --no-children -g none \
		-F period,sym 2> /dev/null |
		awk -v who="$who" -v n="$n" -v mods="$work/module.syms" '
		BEGIN { while ((getline s < mods) > 0) mod[s] = 1 }
		/^#/ || NF < 3 { next }
		{
			ns = $1; kind = $2; name = $3
			if (name ~ /^(native_safe_halt|default_idle|arch_cpu_idle|cpu_idle_poll|acpi_idle_do_entry|mwait_idle)/)
				cls = "idle"
			else if (kind == "[k]" && (name in mod))
				cls = "module"
			else if (kind == "[k]")
				cls = "kernel"
			else
				cls = "user"
			sum[cls] += ns
			if (cls == "module")
				printf "prof: sym %s %s %.0f %s\n", who, n, ns, name
			else if (cls == "kernel" && nk++ < 60)
				printf "prof: ksym %s %s %.0f %s\n", who, n, ns, name
		}
		END {
			k = split("module kernel user idle", c, " ")
			for (i = 1; i <= k; i++)
				printf "prof: class %s %s %s %.0f\n", who, n, c[i], sum[c[i]]
		}'
	[ -n "$CALLERS" ] || return 0
	# a sample: its frames, one a line, innermost first; a blank line ends it
	perf script -i "$data" -F ip,sym 2> /dev/null |
		awk -v who="$who" -v n="$n" -v want="$CALLERS" '
		BEGIN { k = split(want, w, ","); for (i = 1; i <= k; i++) wanted[w[i]] = 1 }
		function flush() {
			if (nf > 1 && (f[1] in wanted)) {
				c = (k > 1 ? f[1] ":" : "") f[2]
				for (i = 3; i <= 4 && i <= nf; i++)
					c = c "<" f[i]
				t[c] += 1000000
			}
			nf = 0
		}
		/^[ \t]*$/ { flush(); next }
		NF >= 2 { s = $2; sub(/\+0x[0-9a-f]+$/, "", s); f[++nf] = s }
		END {
			flush()
			for (c in t)
				printf "prof: caller %s %s %.0f %s\n", who, n, t[c], c
		}'
}

# meter_on LABEL, meter_off LABEL: start and stop perf's sampling, or
# take the plugin's snapshots before and after the run
meter_on() {
	if [ "$METER" = perf ]; then perf_ctl enable; else insns_mark "$1"; fi
}
meter_off() {
	if [ "$METER" = perf ]; then perf_ctl disable || true; else insns_mark "$1"; fi
}

# tag WHO: WHO as a file name and snapshot label
tag() { printf '%s' "$1" | tr -c 'A-Za-z0-9._-' '_'; }

# one WHO N: one client run of N iterations (perftest: its server
# started first; fio: on the mount profile made) under the meter; 1 if
# it failed
one() {
	local who=$1 n=$2 data="$work/$1-$2.data" pid srv='' rc=0 t out
	t=$(tag "$who")

	port=$((port + 1))
	if [ "$METER" = perf ]; then
		rm -f "$work/ctl" "$work/ack"
		mkfifo "$work/ctl" "$work/ack"
		perf record -a -e cpu-clock -F 1000 -D -1 ${CALLERS:+-g} \
			--control "fifo:$work/ctl,$work/ack" -o "$data" \
			> "$work/perf.log" 2>&1 &
		pid=$!
		exec {ctl_fd}<> "$work/ctl" {ack_fd}<> "$work/ack"
	fi
	if [ "$FIO" = 0 ]; then
		cmsync_pre
		timeout -k 5 "$LIMIT" "${pre[@]}" "$TEST" -d siw_a -R -F \
			-s "$SIZE" -n "$n" -p "$port" > "$work/srv.log" 2>&1 &
		srv=$!
	fi
	if [ -n "$srv" ] && ! wait_tcp_listen "$port" "$srv"; then
		say "fail $who $n server did not listen"
		rc=1
	elif ! meter_on "$t-$n-a"; then
		say "fail $who $n the $METER meter did not start"
		rc=1
	elif [ "$FIO" = 1 ]; then
		# one_fio prints the seconds or why not (a subshell: t_secs
		# comes back as its output)
		out=$(one_fio "${TEST#fio_}" "$SIZE" "$n") || rc=1
		meter_off "$t-$n-b" || rc=1
		if [ "$rc" = 0 ]; then
			t_secs=$out
		else
			say "fail $who $n $out"
		fi
	else
		timed_client "${pre[@]}" "$TEST" -d siw_b -R -F -s "$SIZE" \
			-n "$n" -p "$port" "$SIW_IP_A" || rc=$?
		meter_off "$t-$n-b" || rc=1
		[ "$rc" = 0 ] || say "fail $who $n client exited $rc: $(tail -n 1 "$work/cli.log")"
	fi
	if [ "$METER" = perf ]; then
		kill -INT "$pid" 2> /dev/null
		wait "$pid" || true
		exec {ctl_fd}>&- {ack_fd}>&-
	fi
	[ -z "$srv" ] || wait "$srv" 2> /dev/null || true
	if [ "$rc" = 0 ]; then
		say "run $who $n $t_secs"
		if [ "$METER" = perf ]; then
			report "$who" "$n" "$data"
		else
			say "insns $who $n $t-$n-a $t-$n-b $t"
		fi
	else
		cat "$work/perf.log" "$work/srv.log" "$work/cli.log" >&2 2> /dev/null
	fi
	rm -f "$data"
	return $rc
}

# warm WHO: one short run, not sampled: the first perftest run of a
# guest loads perftest and its libraries over 9p, which can make the
# first contender's short run longer than its long one
warm() {
	port=$((port + 1))
	cmsync_pre
	timeout -k 5 "$LIMIT" "${pre[@]}" "$TEST" -d siw_a -R -F -s "$SIZE" \
		-n 100 -p "$port" > "$work/srv.log" 2>&1 &
	local srv=$!
	wait_tcp_listen "$port" "$srv" &&
		timed_client "${pre[@]}" "$TEST" -d siw_b -R -F -s "$SIZE" \
			-n 100 -p "$port" "$SIW_IP_A" ||
		say "note: the warm-up run of $1 failed"
	wait "$srv" 2> /dev/null || true
}

# nfs_up WHO: nfsd and the mount fio runs on, over ours (nfs-rdma,
# nfs-rdma,PARAM=V...), upstream siw (nfs-upstream) or TCP (nfs-tcp);
# bench_nfs_up writes the file once, which also warms fio up
nfs_up() {
	local mopts="vers=$NFS_VERS,proto=rdma,port=$NFS_PORT" xprt=rdma

	case $1 in
	nfs-tcp) mopts="vers=$NFS_VERS,proto=tcp,port=2049" xprt=tcp ;;
	esac
	bench_nfs_up "$mopts" "$xprt" && return 0
	say "fail $1 - $why"
	return 1
}

# nfs_down: unmount and stop nfsd, also when nfs_up stopped half way
nfs_down() {
	! mountpoint -q "$MNT" || timeout 120 umount "$MNT" ||
		say "note: umount $MNT failed"
	! mountpoint -q "$NFS_EXPORT" || nfs_server_down > /dev/null 2>&1
	NFS_RPCBIND_PID='' NFS_MOUNTD_PID=''
}

# siw_down: pair_down where profile loaded a siw module
siw_down() { [ "$who" = nfs-tcp ] || pair_down; }

# profile WHO: the runs of COUNT and 3 * COUNT iterations under the meter
profile() {
	local who=$1 params

	case $who in
	ours|nfs-rdma) pair_up "$OURS" mpa_crc=off ;;
	ours-crc) pair_up "$OURS" mpa_crc=required ;;
	ours,*=*|nfs-rdma,*=*)
		# ours with more parameters, comma-separated
		IFS=, read -ra params <<< "${who#*,}"
		pair_up "$OURS" mpa_crc=off "${params[@]}" ;;
	upstream|nfs-upstream) pair_up "$UPSTREAM" ;;
	nfs-tcp) ;;
	*) say "fail $who - unknown contender"; return ;;
	esac || { say "fail $who - module or link"; siw_down; return; }
	case $FIO,$who in
	1,nfs-*|0,ours*|0,upstream) ;;
	*)
		say "fail $who - not a contender for $TEST"
		siw_down
		return ;;
	esac
	grep '\[siw\]' /proc/kallsyms | awk '{ print $3 }' > "$work/module.syms"
	if [ "$FIO" = 1 ]; then
		nfs_up "$who" || { nfs_down; siw_down; return; }
	fi
	# after the NFS modules loaded: their symbols too
	[ "$METER" = perf ] || cp /proc/kallsyms "$SIW_OUT/kallsyms-$(tag "$who").txt"
	[ "$FIO" = 1 ] || [ -n "$warmed" ] || { warm "$who"; warmed=1; }
	one "$who" "$COUNT" && one "$who" $((3 * COUNT))
	[ "$FIO" = 0 ] || nfs_down
	siw_down
}

[ "$METER" = insns ] || command -v perf > /dev/null || { echo "bench-profile.sh: perf is not installed" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work"
perf_prepare
modprobe -a ib_core iw_cm ib_uverbs rdma_ucm libcrc32c
echo 0 > /proc/sys/kernel/kptr_restrict
echo -1 > /proc/sys/kernel/perf_event_paranoid
ip link set "$SIW_IF_A" mtu "$MTU" && ns ip link set "$SIW_IF_B" mtu "$MTU"
say "setup kernel=$(uname -r) cpus=$(nproc) test=$TEST size=$SIZE count=$COUNT mtu=$MTU meter=$METER${CALLERS:+ callers=$CALLERS}"
warmed=
for who in $WHO; do
	profile "$who"
done
exit 0
