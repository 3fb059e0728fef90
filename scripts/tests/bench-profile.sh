#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Where the CPU time of one perftest run goes, inside one guest (started
# by scripts/bench-profile): for each contender, a perftest server here
# and its client in $SIW_NS, the whole guest sampled by perf (cpu-clock,
# 1000 Hz, all CPUs) from just before the client starts until it ended.
# Reports, never judges: the exit status says only whether the script
# itself worked.
#
#   bench-profile.sh OURS_KO UPSTREAM_KO [KEY=VALUE...]
#
# Keys: WHO ("ours upstream"; also ours-crc), TEST (ib_send_bw), SIZE
# (64), COUNT (100000 iterations), MTU (1500). One line each:
#
#   prof: setup KEY=VALUE...
#   prof: run WHO SECONDS (the client's wall time) / prof: fail WHO WHY
#   prof: class WHO CLASS NS (CPU time sampled: module, kernel, user, idle)
#   prof: sym WHO NS NAME (the module's symbols, most time first)
#   prof: ksym WHO NS NAME (the rest of the kernel's, the first 25)
#   prof: comm WHO NS TASK (the time by task name, the first 8; idle is
#         swapper's)
# shellcheck source=guest-lib.sh
. "$(dirname "$0")/guest-lib.sh"
# shellcheck source=perf-lib.sh
. "$(dirname "$0")/perf-lib.sh"

OURS=${1:?ours}
UPSTREAM=${2:?upstream}
shift 2

WHO="ours upstream" TEST=ib_send_bw SIZE=64 COUNT=100000 MTU=1500
for kv in "$@"; do
	case ${kv%%=*} in
	WHO|TEST|SIZE|COUNT|MTU) declare "$kv" ;;
	*) echo "bench-profile.sh: unknown setting $kv" >&2; exit 2 ;;
	esac
done
case $TEST in
ib_send_bw|ib_write_bw|ib_read_bw|ib_send_lat|ib_write_lat|ib_read_lat) ;;
*) echo "bench-profile.sh: not a perftest test: $TEST" >&2; exit 2 ;;
esac

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

# report WHO DATA: the sampled time by class and symbol, and by task
report() {
	local who=$1 data=$2

	perf report -i "$data" --stdio --no-children -g none \
		-F period,comm 2> /dev/null |
		awk -v who="$who" '!/^#/ && NF >= 2 && n++ < 8 {
			printf "prof: comm %s %.0f %s\n", who, $1, $2 }'

	perf report -i "$data" --stdio --no-children -g none \
		-F period,sym 2> /dev/null |
		awk -v who="$who" -v mods="$work/module.syms" '
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
				printf "prof: sym %s %.0f %s\n", who, ns, name
			else if (cls == "kernel" && nk++ < 25)
				printf "prof: ksym %s %.0f %s\n", who, ns, name
		}
		END {
			n = split("module kernel user idle", c, " ")
			for (i = 1; i <= n; i++)
				printf "prof: class %s %s %.0f\n", who, c[i], sum[c[i]]
		}'
}

# profile WHO: one run of $TEST under perf
profile() {
	local who=$1 data="$work/$1.data" pid srv rc=0 t0 t1

	case $who in
	ours) pair_up "$OURS" mpa_crc=off ;;
	ours-crc) pair_up "$OURS" mpa_crc=required ;;
	upstream) pair_up "$UPSTREAM" ;;
	*) say "fail $who unknown contender"; return ;;
	esac || { say "fail $who module or link"; pair_down; return; }
	grep '\[siw\]' /proc/kallsyms | awk '{ print $3 }' > "$work/module.syms"
	port=$((port + 1))
	rm -f "$work/ctl" "$work/ack"
	mkfifo "$work/ctl" "$work/ack"
	perf record -a -e cpu-clock -F 1000 -D -1 \
		--control "fifo:$work/ctl,$work/ack" -o "$data" \
		> "$work/perf.log" 2>&1 &
	pid=$!
	exec {ctl_fd}<> "$work/ctl" {ack_fd}<> "$work/ack"
	cmsync_pre
	timeout -k 5 "$LIMIT" "${pre[@]}" "$TEST" -d siw_a -R -F -s "$SIZE" \
		-n "$COUNT" -p "$port" > "$work/srv.log" 2>&1 &
	srv=$!
	if ! wait_tcp_listen "$port" "$srv"; then
		say "fail $who server did not listen"
		rc=1
	elif ! perf_ctl enable; then
		say "fail $who perf did not start"
		rc=1
	else
		t0=$EPOCHREALTIME
		ns timeout -k 5 "$LIMIT" "${pre[@]}" "$TEST" -d siw_b -R -F \
			-s "$SIZE" -n "$COUNT" -p "$port" "$SIW_IP_A" \
			> "$work/cli.log" 2>&1 || rc=$?
		t1=$EPOCHREALTIME
		perf_ctl disable || true
		[ "$rc" = 0 ] || say "fail $who client exited $rc: $(tail -n 1 "$work/cli.log")"
	fi
	kill -INT "$pid" 2> /dev/null
	wait "$pid" || true
	exec {ctl_fd}>&- {ack_fd}>&-
	wait "$srv" 2> /dev/null || true
	if [ "$rc" = 0 ]; then
		say "run $who $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }')"
		report "$who" "$data"
	else
		cat "$work/perf.log" "$work/srv.log" "$work/cli.log" >&2
	fi
	rm -f "$data"
	pair_down
}

command -v perf > /dev/null || { echo "bench-profile.sh: perf is not installed" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work"
perf_prepare
modprobe -a ib_core iw_cm ib_uverbs rdma_ucm libcrc32c
echo 0 > /proc/sys/kernel/kptr_restrict
echo -1 > /proc/sys/kernel/perf_event_paranoid
ip link set "$SIW_IF_A" mtu "$MTU" && ns ip link set "$SIW_IF_B" mtu "$MTU"
say "setup kernel=$(uname -r) cpus=$(nproc) test=$TEST size=$SIZE count=$COUNT mtu=$MTU"
for who in $WHO; do
	profile "$who"
done
exit 0
