#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The verbs and the user ABI: rdma-core's pyverbs suite against our
# device and, in the same guest, against upstream siw (we must pass
# whatever it passes); then `rdma link add`/`delete` in a loop with a
# process holding QPs, and rmmod.
#
# Tests listed in verbs.exclude may fail; each line there says why.
# SIW_VERBS_LOOP sets the number of link add/delete rounds (100; 30 on
# the debug kernel, where a round takes about 3 s under emulation).
# shellcheck source=guest-lib.sh
. "$(dirname "$0")/guest-lib.sh"

here=$(cd "$(dirname "$0")" && pwd)
work=/tmp/pyverbs
py=/usr/bin/python3

pyverbs_prepare() {
	rm -rf "$work" && mkdir -p "$work" &&
	cp -r /usr/share/doc/rdma-core/tests "$work/tests" &&
	gunzip -f "$work"/tests/*.gz
}

# pyverbs_run NAME DEV [ARGS...]: run the suite on DEV (ARGS: more
# run_tests.py arguments); "ID RESULT" lines in $work/NAME.res, the whole
# log in $SIW_OUT/pyverbs-NAME.log, the runner's exit status in
# $work/NAME.rc
pyverbs_run() {
	local name=$1 dev=$2 log=$SIW_OUT/pyverbs-$1.log
	shift 2
	(cd "$work/tests" && timeout 1200 "$py" "$here/pyverbs-run.py" \
		"$work/tests" --dev "$dev" -v "$@") \
		> "$log" 2>&1
	echo $? > "$work/$name.rc"
	# "test_x (tests.test_y.Class[.test_x]) ... ok|FAIL|ERROR|skipped '...'"
	# A test that printed something of its own before its result has
	# that text where the result would be: the summary's "ERROR: test_x
	# (...)" or "FAIL: ..." lines say how it ended, and anything else
	# counts as an error.
	sed -nE 's/^(test[A-Za-z0-9_]*) \(([^)]*)\) \.\.\. ([a-zA-Z]+).*/\2 \1 \3/p' \
		"$log" | awk '{ id = $1; if (id !~ "\\." $2 "$") id = id "." $2;
			       r = $3
			       if (r != "ok" && r != "skipped" && r != "FAIL")
				       r = "ERROR"
			       print id, r }' | sort > "$work/$name.res"
	sed -nE 's/^(FAIL): (test[A-Za-z0-9_]*) \(([^)]*)\).*/\3 \2 \1/p' "$log" |
		awk '{ id = $1; if (id !~ "\\." $2 "$") id = id "." $2; print id, $3 }' |
		while read -r id r; do
			sed -i "s/^$id [A-Za-z]*\$/$id $r/" "$work/$name.res"
		done
	t_log "pyverbs on $name: $(pyverbs_counts "$name"), the runner exited $(cat "$work/$name.rc")"
	tail -n 3 "$log"
}

pyverbs_counts() {
	awk '$2 == "ok" { p++ } $2 == "FAIL" || $2 == "ERROR" { f++ }
	     $2 == "skipped" { s++ }
	     END { printf "%d passed, %d failed, %d skipped\n", p, f, s }' \
		"$work/$1.res"
}

# pyverbs_done NAME: the run of NAME finished with a result for every
# test it ran (judge-lib.sh)
pyverbs_done() {
	pyverbs_complete "$SIW_OUT/pyverbs-$1.log" "$work/$1.res" \
		"$(cat "$work/$1.rc" 2>/dev/null || echo none)"
}

# pyverbs_judge NAME: the run finished, and every failure is excluded,
# with its reason (verbs.exclude)
pyverbs_judge() {
	t_check "pyverbs on $1: the run finished, a result for each test" \
		pyverbs_done "$1" || return 1
	t_check "pyverbs on $1: every failure is an excluded one" \
		pyverbs_failures "$work/$1.res" "$here/verbs.exclude"
}

# pyverbs_compare UPSTREAM OURS: upstream's run finished, and every
# test it passes we pass too. A run of upstream's that skipped every
# test leaves nothing to compare: a skip, with pyverbs' most frequent
# reason (test_rdmacm on upstream siw: "Device siw0 doesn't have net
# interface", as upstream's device has no device/net/, see link.sh).
pyverbs_compare() {
	local why
	t_check "pyverbs on $1: the run finished, a result for each test" \
		pyverbs_done "$1" || return 1
	if ! grep -qvE " skipped$" "$work/$1.res"; then
		why=$(sed -nE 's/.* \.\.\. skipped (.*)/\1/p' "$SIW_OUT/pyverbs-$1.log" |
			sort | uniq -c | sort -rn | head -n 1 | sed 's/^ *[0-9]* //')
		t_skip "we pass every test upstream siw passes ($2): upstream skipped all $(grep -c . "$work/$1.res") tests ($why)"
		return 0
	fi
	t_check "we pass every test upstream siw passes ($2)" \
		pyverbs_passes_all "$work/$1.res" "$work/$2.res"
}

# rdmacm_passed NAME: the rdmacm tests that apply to iWARP ran and
# passed (verbs.exclude says why the others do not apply)
rdmacm_passed() {
	local t bad=0
	for t in sync_traffic async_reject_traffic async_read async_write; do
		t=tests.test_rdmacm.CMTestCase.test_rdmacm_$t
		if ! grep -qxF "$t ok" "$work/$1.res"; then
			echo "$t: $(grep -F "$t " "$work/$1.res" | cut -d' ' -f2) (not ok)"
			bad=1
		fi
	done
	return $bad
}

holder_start() {
	/tmp/verbs-holder "$1" 4 > /tmp/holder.out 2>&1 &
	holder=$!
	# up to a minute: a hang, not speed (a loaded host is slow)
	for _ in $(seq 1 600); do
		grep -q ready /tmp/holder.out && return 0
		kill -0 "$holder" 2>/dev/null || break
		sleep 0.1
	done
	cat /tmp/holder.out
	return 1
}

holder_stop() {
	kill -9 "$holder" 2>/dev/null
	wait "$holder" 2>/dev/null
	return 0
}

t_check "pyverbs suite copied" pyverbs_prepare
t_check "holder builds" gcc -O2 -o /tmp/verbs-holder "$here/verbs-holder.c" -libverbs

# Ours
t_check "load siw.ko" load_siw
t_check "rdma link add siw0" rdma link add siw0 type siw netdev "$SIW_IF_A"
t_check "a process creates PD, MR, CQ, SRQ and QPs through the ABI" \
	holder_start siw0
t_check "its objects show in rdma resource" \
	bash -c 'rdma resource show qp link siw0 | grep -q "lqpn"'
holder_stop
t_check "posted work flushes in order to the CQs when a QP goes to ERR" \
	/tmp/verbs-holder siw0 flush
t_check "a CQ that overflows raises CQ_ERR and puts its other QP in ERR" \
	/tmp/verbs-holder siw0 overflow
# Rings a process asks for are its memory: 8 CQ rings of 2 MiB must
# show in its memory cgroup's usage (the holder alone uses about 2 MiB)
memcg_rings() {
	local cg=/sys/fs/cgroup/siw-verbs pid used
	mountpoint -q /sys/fs/cgroup ||
		mount -t cgroup2 cgroup2 /sys/fs/cgroup || return 1
	echo +memory > /sys/fs/cgroup/cgroup.subtree_control || return 1
	mkdir -p "$cg" || return 1
	bash -c 'echo $$ > "$0/cgroup.procs" && exec "${@}"' "$cg" \
		/tmp/verbs-holder siw0 memcg > /tmp/memcg.out 2>&1 &
	pid=$!
	for _ in $(seq 1 600); do
		grep -q "^made" /tmp/memcg.out && break
		sleep 0.1
	done
	used=$(cat "$cg/memory.current")
	cat /tmp/memcg.out
	kill "$pid"
	wait "$pid" 2>/dev/null
	sleep 0.5
	rmdir "$cg"
	echo "the cgroup uses $((used >> 20)) MiB"
	grep -q "^made 8" /tmp/memcg.out && [ "$used" -ge $((16 << 20)) ]
}
t_check "CQ rings count against the process's memory cgroup" memcg_rings
pyverbs_run ours siw0
pyverbs_judge ours
# pyverbs ignores a GID whose last 8 octets are zero, and an iWARP GID is
# the netdev's hardware address padded with zeros: named explicitly, GID
# 0 lets the tests that need traffic run. test_rdmacm is the module
# whose tests apply to iWARP (its client and server connect through the
# device's own address).
pyverbs_run ours-rdmacm siw0 --gid 0 test_rdmacm
pyverbs_judge ours-rdmacm
t_check "pyverbs test_rdmacm: the iWARP tests pass on ours" rdmacm_passed ours-rdmacm
t_check "rdma link delete siw0" rdma link delete siw0
t_check "rmmod siw" unload_siw

# Upstream siw in the same guest
if [ -f "${SIW_UPSTREAM_KO:-}" ]; then
	t_check "load upstream siw" load_siw "$SIW_UPSTREAM_KO"
	t_check "upstream: rdma link add siw0" \
		rdma link add siw0 type siw netdev "$SIW_IF_A"
	pyverbs_run upstream siw0
	pyverbs_run upstream-rdmacm siw0 --gid 0 test_rdmacm
	rdma link delete siw0
	unload_siw
	pyverbs_compare upstream ours
	pyverbs_compare upstream-rdmacm ours-rdmacm
else
	t_skip "pyverbs, ours against upstream siw: no upstream siw.ko for $SIW_KVER (scripts/build-module builds it for Debian's kernels)"
fi

# Link add/delete with a process holding QPs, then rmmod
t_check "load siw.ko again" load_siw
rounds=100
[ "${SIW_KERNEL:-debian}" != debug ] || rounds=30
rounds=${SIW_VERBS_LOOP:-$rounds} ok=1
for i in $(seq 1 "$rounds"); do
	rdma link add siw0 type siw netdev "$SIW_IF_A" || { ok=0; break; }
	holder_start siw0 || { ok=0; holder_stop; break; }
	# every other round the process dies first, the other the link goes
	if [ $((i % 2)) = 0 ]; then
		holder_stop
		timeout 60 rdma link delete siw0 || { ok=0; break; }
	else
		timeout 60 rdma link delete siw0 || { ok=0; holder_stop; break; }
		holder_stop
	fi
done
t_check "$rounds rounds of link add, QPs in a process, link delete" \
	test "$ok" = 1
t_check "rmmod after the rounds" unload_siw
kmemleak_scan
t_done
