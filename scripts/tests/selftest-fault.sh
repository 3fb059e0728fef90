#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Harness self-test: load scripts/selftest-fault's module with one planted
# kernel failure; the script itself succeeds, so only the harness's
# judgement of the kernel log (or of kmemleak's scan) can fail the run.
# Used by scripts/selftest, expected to fail. Several run in one batch
# (batch.sh, "selftest-fault.sh:FAULT"): each unloads the module again,
# so that the next can load it.
#
#   selftest-fault.sh FAULT [KO]   KO: by default the module that
#                                  scripts/selftest built for this kernel
# shellcheck source=guest-lib.sh
. "$(dirname "$0")/guest-lib.sh"

fault=$1
ko=${2:-$SIW_TOP/out/selftest/fault-$SIW_KVER/siw_selftest_fault.ko}
hung=/proc/sys/kernel/hung_task
args=()
if [ "$fault" = hung ]; then
	# report a task blocked for 2 s, checked every second: the loader,
	# blocked for 8 s, is reported after 3 to 4 s
	old_timeout=$(cat "${hung}_timeout_secs") || exit 1
	old_interval=$(cat "${hung}_check_interval_secs") || exit 1
	echo 2 > "${hung}_timeout_secs" || exit 1
	echo 1 > "${hung}_check_interval_secs" || exit 1
	args=(hung_secs=8)
fi
insmod "$ko" fault="$fault" "${args[@]}" || exit 1
case $fault in
leak)
	# older than kmemleak's minimum age (5 s), then scanned: in a batch
	# too, which would scan only after its last script
	sleep 8
	SIW_BATCH='' kmemleak_scan ;;
hung)
	# the hung-task detector runs in its own thread: give it a moment
	sleep 2
	echo "$old_timeout" > "${hung}_timeout_secs"
	echo "$old_interval" > "${hung}_check_interval_secs" ;;
esac
rmmod siw_selftest_fault || exit 1
echo "planted $fault"
exit 0
