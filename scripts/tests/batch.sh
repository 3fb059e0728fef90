#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run several guest test scripts one after the other in one guest (a boot
# of the debug kernel under emulation costs a minute). Each script's
# output goes to $SIW_OUT/<name>.log and its exit status to
# $SIW_OUT/<name>.rc. Exits non-zero if any of them did.
#
#   batch.sh [--leak-probe KO] SCRIPT[:ARG...]...
#
# A script's arguments follow its name, each after a colon
# ("consumer-teardown.sh:siw:nvme"); its log is then named after both
# (consumer-teardown-siw-nvme.log: batch_name in guest-lib.sh).
#
# Where kmemleak runs (the debug kernel), the batch ends with one scan
# and, with --leak-probe, a leak planted by KO (scripts/selftest-fault's
# module) that the scan must find: kmemleak is shown alive after the
# last script, not only in a short guest of its own. Those checks go to
# $SIW_OUT/kmemleak.log, which make check counts.
# shellcheck source=guest-lib.sh
. "$(dirname "$0")/guest-lib.sh"

probe=
if [ "${1:-}" = --leak-probe ]; then
	probe=$2
	shift 2
fi

export SIW_BATCH=1
rc=0
for t in "$@"; do
	name=$(batch_name "$t")
	IFS=: read -r -a words <<< "$t"
	echo "batch: $name" > /dev/kmsg
	echo "=== $name"
	timeout -k 10 900 bash "$(dirname "$0")/${words[0]}" "${words[@]:1}" \
		> "$SIW_OUT/$name.log" 2>&1 < /dev/null
	r=$?
	echo "$r" > "$SIW_OUT/$name.rc"
	echo "=== $name exited $r"
	[ $r -eq 0 ] || rc=1
done

# kmemleak_final: the batch's scan, then the planted leak
kmemleak_final() {
	if SIW_BATCH='' kmemleak_scan; then
		t_pass "kmemleak: the batch's scan ran after its last script"
	fi
	[ -z "$probe" ] ||
		t_check "kmemleak: a leak planted after the last script is found" \
			kmemleak_probe "$probe"
	[ "$fails" = 0 ]
}
if [ -e /sys/kernel/debug/kmemleak ] || [ "${SIW_KERNEL:-}" = debug ]; then
	# the last script's part of the kernel log ends here
	echo "batch: kmemleak" > /dev/kmsg
	kmemleak_final > "$SIW_OUT/kmemleak.log" 2>&1 || rc=1
	cat "$SIW_OUT/kmemleak.log"
fi
exit $rc
