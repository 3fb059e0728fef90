#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The verbs and the user ABI: rdma-core's pyverbs suite against our
# device and, in the same guest, against upstream siw (we must pass
# whatever it passes); then `rdma link add`/`delete` in a loop with a
# process holding QPs, and rmmod.
#
# Tests listed in verbs.exclude may fail; each line there says why.
# SIW_VERBS_LOOP sets the number of link add/delete rounds (100).
. "$(dirname "$0")/lib.sh"

here=$(cd "$(dirname "$0")" && pwd)
work=/tmp/pyverbs
py=/usr/bin/python3

pyverbs_prepare() {
	rm -rf "$work" && mkdir -p "$work" &&
	cp -r /usr/share/doc/rdma-core/tests "$work/tests" &&
	gunzip -f "$work"/tests/*.gz
}

# pyverbs_run NAME DEV: run the suite on DEV; "ID RESULT" lines in
# $work/NAME.res, the whole log in $SIW_OUT/pyverbs-NAME.log
pyverbs_run() {
	local name=$1 dev=$2 log=$SIW_OUT/pyverbs-$1.log
	(cd "$work/tests" && timeout 1200 "$py" "$here/pyverbs-run.py" \
		"$work/tests" --dev "$dev" -v) \
		> "$log" 2>&1
	# "test_x (tests.test_y.Class[.test_x]) ... ok|FAIL|ERROR|skipped '...'"
	sed -nE 's/^(test[A-Za-z0-9_]*) \(([^)]*)\) \.\.\. ([a-zA-Z]+).*/\2 \1 \3/p' \
		"$log" | awk '{ id = $1; if (id !~ "\\." $2 "$") id = id "." $2;
			       print id, $3 }' | sort > "$work/$name.res"
	t_log "pyverbs on $name: $(pyverbs_counts "$name")"
	tail -n 3 "$log"
}

pyverbs_counts() {
	awk '$2 == "ok" { p++ } $2 == "FAIL" || $2 == "ERROR" { f++ }
	     $2 == "skipped" { s++ }
	     END { printf "%d passed, %d failed, %d skipped\n", p, f, s }' \
		"$work/$1.res"
}

excluded() {
	grep -v '^#' "$here/verbs.exclude" | awk '{ print $1 }' | grep -qxF "$1"
}

# Every failure must be excluded, with its reason
pyverbs_judge() {
	local id res bad=0
	while read -r id res; do
		case $res in
		FAIL | ERROR)
			if excluded "$id"; then
				echo "excluded: $id: $(grep -F "$id " "$here/verbs.exclude" | cut -d' ' -f2-)"
			else
				t_fail "pyverbs: $id $res"
				bad=1
			fi ;;
		esac
	done < "$work/$1.res"
	[ "$bad" = 0 ] && t_pass "pyverbs on $1: every failure is an excluded one"
}

# Every test upstream siw passes, we pass too
pyverbs_compare() {
	local id res bad=0
	while read -r id res; do
		[ "$res" = ok ] || continue
		if ! grep -qxF "$id ok" "$work/ours.res"; then
			t_fail "upstream passes $id, we do not"
			bad=1
		fi
	done < "$work/upstream.res"
	[ "$bad" = 0 ] && t_pass "we pass every test upstream siw passes"
}

holder_start() {
	/tmp/verbs-holder "$1" 4 > /tmp/holder.out 2>&1 &
	holder=$!
	for _ in $(seq 1 100); do
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
pyverbs_run ours siw0
pyverbs_judge ours
t_check "rdma link delete siw0" rdma link delete siw0
t_check "rmmod siw" unload_siw

# Upstream siw in the same guest
if [ -f "${SIW_UPSTREAM_KO:-}" ]; then
	t_check "load upstream siw" load_siw "$SIW_UPSTREAM_KO"
	t_check "upstream: rdma link add siw0" \
		rdma link add siw0 type siw netdev "$SIW_IF_A"
	pyverbs_run upstream siw0
	rdma link delete siw0
	unload_siw
	pyverbs_compare
else
	t_log "no upstream siw.ko for $SIW_KVER: comparison skipped"
fi

# Link add/delete with a process holding QPs, then rmmod
t_check "load siw.ko again" load_siw
rounds=${SIW_VERBS_LOOP:-100} ok=1
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
