#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel consumer scripts against several devices in one guest, one
# after the other, and a table of their results side by side. Each
# script's output goes to $SIW_OUT/<peer>-<script>.log.
#
#   consumer-compare.sh [PEERS [SCRIPTS]]
#   PEERS: "siw usiw" (default; see nfs.sh for the names)
#   SCRIPTS: "nfs iser nvmeof consumer-teardown" (default)
# shellcheck source=guest-lib.sh
. "$(dirname "$0")/guest-lib.sh"

PEERS=${1:-"siw usiw"}
SCRIPTS=${2:-"nfs iser nvmeof consumer-teardown"}
rc=0
declare -A res

for p in $PEERS; do
	for t in $SCRIPTS; do
		log=$SIW_OUT/${p##*/}-$t.log
		echo "compare: $p $t" > /dev/kmsg
		start=$(date +%s)
		timeout -k 10 900 bash "$(dirname "$0")/$t.sh" "$p" > "$log" 2>&1 < /dev/null
		r=$?
		res[$p,$t]="$(grep -c '^ok:' "$log") ok, $(grep -c '^FAIL:' "$log") FAIL, exit $r, $(( $(date +%s) - start ))s"
		echo "=== $p $t: ${res[$p,$t]}"
		grep '^FAIL:' "$log"
		[ $r -eq 0 ] || rc=1
	done
done

echo
for t in $SCRIPTS; do
	for p in $PEERS; do
		printf '%-20s %-8s %s\n' "$t" "${p##*/}" "${res[$p,$t]}"
	done
done
exit $rc
