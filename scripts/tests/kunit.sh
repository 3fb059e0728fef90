#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Load siw.ko and KUnit modules (default: siw_kunit) in the debug kernel
# and save the suites' KTAP, taken from the kernel log, to $SIW_OUT/ktap.txt.
# shellcheck source=guest-lib.sh
. "$(dirname "$0")/guest-lib.sh"

mods=("$@")
[ ${#mods[@]} -gt 0 ] || mods=(siw_kunit)

load_siw "$SIW_KO" || { echo "cannot load siw.ko"; exit 1; }
# Suites run synchronously while their module loads; mark where their
# output starts and ends in the kernel log.
echo "siw-kunit: begin" > /dev/kmsg
for m in "${mods[@]}"; do
	insmod "$SIW_KUNIT_DIR/$m.ko" || { echo "cannot load $m.ko"; exit 1; }
done
echo "siw-kunit: end" > /dev/kmsg

# The KTAP comes from the kernel log: on 6.1, debugfs keeps only the
# last line of a parameterized case. Suites loaded from a module print no
# top-level header and number themselves per module, so keep the KTAP
# lines (indented suite bodies, top-level results and their comments),
# renumber the suites and put one header and plan in front.
dmesg -t | awk '/siw-kunit: begin/ { on = 1; next } /siw-kunit: end/ { on = 0 } on' |
	grep -E '^[[:space:]]+[^[:space:]]|^(not )?ok [0-9]+ |^# ' |
	grep -v '^# Totals:' > "$SIW_OUT/ktap.body"
{
	echo "KTAP version 1"
	echo "1..$(grep -cE '^(not )?ok [0-9]+ ' "$SIW_OUT/ktap.body")"
	awk '/^(not )?ok [0-9]+ / { n++; sub(/ok [0-9]+ /, "ok " n " ") } { print }' \
		"$SIW_OUT/ktap.body"
} > "$SIW_OUT/ktap.txt"
cat "$SIW_OUT/ktap.txt"

for m in "${mods[@]}"; do
	rmmod "$m" || exit 1
done
unload_siw || exit 1
kmemleak_scan
exit 0
