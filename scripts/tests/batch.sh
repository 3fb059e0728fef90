#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run several guest test scripts one after the other in one guest (a boot
# of the debug kernel under emulation costs a minute). Each script's
# output goes to $SIW_OUT/<name>.log and its exit status to
# $SIW_OUT/<name>.rc. Exits non-zero if any of them did.
# shellcheck source=guest-lib.sh
. "$(dirname "$0")/guest-lib.sh"

export SIW_BATCH=1
rc=0
for t in "$@"; do
	name=$(basename "$t" .sh)
	echo "batch: $name" > /dev/kmsg
	echo "=== $name"
	timeout -k 10 900 bash "$(dirname "$0")/$t" > "$SIW_OUT/$name.log" 2>&1 < /dev/null
	r=$?
	echo "$r" > "$SIW_OUT/$name.rc"
	echo "=== $name exited $r"
	[ $r -eq 0 ] || rc=1
done
SIW_BATCH='' kmemleak_scan
exit $rc
