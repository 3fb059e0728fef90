#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Load siw.ko and KUnit modules (default: siw_kunit) in the debug kernel
# and save every suite's KTAP, read from debugfs, to $SIW_OUT/ktap.txt.
. "$(dirname "$0")/lib.sh"

mods=("$@")
[ ${#mods[@]} -gt 0 ] || mods=(siw_kunit)

load_siw || { echo "cannot load siw.ko"; exit 1; }
for m in "${mods[@]}"; do
	insmod "$SIW_KUNIT_DIR/$m.ko" || { echo "cannot load $m.ko"; exit 1; }
done

# Each suite's debugfs results are a KTAP document of their own (header,
# plan 1..1, the suite as test 1). Merge them into one document: one
# header, one plan, the suites numbered in order.
suites=$(ls /sys/kernel/debug/kunit/ | grep "^siw_")
{
	echo "KTAP version 1"
	echo "1..$(echo "$suites" | grep -c .)"
	n=0
	for s in $suites; do
		n=$((n + 1))
		tr -d '\r' < "/sys/kernel/debug/kunit/$s/results" |
		awk -v n=$n '
			NR <= 2 && (/^KTAP version/ || /^1\.\./) { next }
			/^# Totals:/ { next }
			/^(not )?ok 1 / { sub(/ok 1 /, "ok " n " ") }
			{ print }'
	done
} > "$SIW_OUT/ktap.txt"
cat "$SIW_OUT/ktap.txt"

for m in "${mods[@]}"; do
	rmmod "$m" || exit 1
done
unload_siw || exit 1
kmemleak_scan
exit 0
