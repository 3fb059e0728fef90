#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Harness self-test: load scripts/selftest-fault's module with one planted
# kernel failure; the script itself succeeds, so only the harness's
# judgement of the kernel log (or of kmemleak's scan) can fail the run.
# Used by scripts/selftest, expected to fail.
#
#   selftest-fault.sh FAULT KO
# shellcheck source=guest-lib.sh
. "$(dirname "$0")/guest-lib.sh"

fault=$1 ko=$2
if [ "$fault" = hung ]; then
	# report a task blocked for 2 s, checked every second
	echo 2 > /proc/sys/kernel/hung_task_timeout_secs || exit 1
	echo 1 > /proc/sys/kernel/hung_task_check_interval_secs || exit 1
fi
insmod "$ko" fault="$fault" || exit 1
if [ "$fault" = leak ]; then
	# older than kmemleak's minimum age (5 s), then scanned
	sleep 8
	kmemleak_scan
fi
# the hung-task detector runs in its own thread: give it a moment
sleep 3
echo "planted $fault"
exit 0
