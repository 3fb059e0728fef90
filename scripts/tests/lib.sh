# SPDX-License-Identifier: GPL-2.0
# Helpers for guest test scripts; sourced inside the guest.

set -u
fails=0

t_log() { echo "[$(date +%T)] $*"; }
t_fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
t_pass() { echo "ok: $*"; }

# t_check DESCRIPTION COMMAND...: run, record pass or fail
t_check() {
	local what=$1; shift
	if "$@"; then t_pass "$what"; else t_fail "$what"; fi
}

t_done() {
	if [ "$fails" -ne 0 ]; then
		echo "$fails check(s) failed"
		exit 1
	fi
	echo "all checks passed"
	exit 0
}

# The RDMA core and user access, then our module (or another given one).
load_siw() {
	local ko=${1:-$SIW_KO}
	modprobe -a ib_core iw_cm ib_uverbs rdma_ucm libcrc32c || return 1
	insmod "$ko" "${@:2}"
}

unload_siw() {
	local i
	for i in 1 2 3 4 5; do
		rmmod siw 2>/dev/null && return 0
		sleep 1
	done
	rmmod siw
}

# Scan kmemleak (debug kernel only); leaks land in the kernel log, which
# the harness judges.
kmemleak_scan() {
	local f=/sys/kernel/debug/kmemleak
	[ -w "$f" ] || return 0
	# a batch scans once, after its last script
	[ -z "${SIW_BATCH:-}" ] || return 0
	# one scan reports objects unreferenced for longer than its minimum
	# age (5 s); a scan is slow under emulation, so only one
	echo scan > "$f"
	cat "$f"
}
