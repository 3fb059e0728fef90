# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# How `make check` counts what guest runs report; sourced by scripts/check
# and by scripts/selftest, which plants failures and checks that these
# functions count them. Never run.
#
# scripts/check and scripts/check-kernels also take step, batch and
# two_guests from here; they need $logs, the directory of their logs.
#
# A guest script's checks are its lines "ok: ...", "FAIL: ..." and
# "skip: ..." (passed, failed, skipped). scripts/tests/LIST gives the
# fewest checks each script must report.

# shellcheck source=tests/judge-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/tests/judge-lib.sh"

passed=0 failed=0 skipped=0

ok() { echo "ok: $*"; passed=$((passed + 1)); }
nok() { echo "FAIL: $*"; failed=$((failed + 1)); }

# count_script TAG LOG RC [MIN]: add the checks of one script's LOG,
# printed with TAG. RC is its exit status ("none" if it has none): a
# script that did not exit 0 is a failure even when it printed no FAIL
# line, and so is one that reported fewer than MIN checks (ok and FAIL).
count_script() {
	local tag=$1 logf=$2 rc=$3 min=${4:-} p f s
	p=$(grep -c "^ok:" "$logf" 2>/dev/null)
	f=$(grep -c "^FAIL:" "$logf" 2>/dev/null)
	s=$(grep -c "^skip:" "$logf" 2>/dev/null)
	grep -E "^(ok|FAIL|skip):" "$logf" 2>/dev/null |
		sed "s/^\(ok\|FAIL\|skip\): /\1: [$tag] /"
	passed=$((passed + ${p:-0})) failed=$((failed + ${f:-0}))
	skipped=$((skipped + ${s:-0}))
	if [ "$rc" != 0 ] && [ "${f:-0}" -eq 0 ]; then
		nok "[$tag] exited $rc (log: ${logf#"$SIW_TOP"/})"
		tail -n 20 "$logf" 2>/dev/null | sed 's/^/    /'
	fi
	if [ -n "$min" ] && [ $(( ${p:-0} + ${f:-0} )) -lt "$min" ]; then
		nok "[$tag] reported $(( ${p:-0} + ${f:-0} )) checks, fewer than the $min in scripts/tests/LIST"
	fi
}

# count_guest TAG DIR: the verdict of one guest (DIR/verdict, written by
# scripts/guest): a clean kernel log and a script that ended
count_guest() {
	if grep -q "^script exit status" "$2/verdict" 2>/dev/null; then
		ok "[$1] guest ended with a clean kernel log"
	else
		nok "[$1] guest ended with a clean kernel log: $(head -n 1 "$2/verdict" 2>/dev/null || echo 'no verdict')"
		sed 's/^/    /' "$2/verdict" 2>/dev/null | head -n 80
	fi
}

# count_lines TAG LOG [RC [MIN]]: add a plain "N passed, N failed[, N
# skipped]" line (the last in LOG); none at all is a failure, and so is
# an exit status RC other than 0 (the tool's own verdict) and fewer than
# MIN passed and failed
count_lines() {
	local line p f s rc=${3:-0} min=${4:-}
	line=$(grep -E "^[0-9]+ passed, [0-9]+ failed" "$2" 2>/dev/null | tail -n1)
	if [ -z "$line" ]; then
		nok "$1: no result line (log: ${2#"$SIW_TOP"/})"
		tail -n 30 "$2" 2>/dev/null | sed 's/^/    /'
		return
	fi
	p=$(echo "$line" | sed 's/^\([0-9]*\) passed.*/\1/')
	f=$(echo "$line" | sed 's/.* \([0-9]*\) failed.*/\1/')
	s=$(echo "$line" | sed -n 's/.* \([0-9]*\) skipped.*/\1/p')
	echo "$1: $line"
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + ${s:-0}))
	[ "$f" -eq 0 ] || tail -n 40 "$2" | sed 's/^/    /'
	if [ "$rc" != 0 ] && [ "$f" -eq 0 ]; then
		nok "$1: exited $rc (log: ${2#"$SIW_TOP"/})"
		tail -n 20 "$2" 2>/dev/null | sed 's/^/    /'
	fi
	if [ -n "$min" ] && [ $((p + f)) -lt "$min" ]; then
		nok "$1: reported $((p + f)) checks, fewer than the $min in scripts/tests/LIST"
	fi
}

# list_min SCRIPT KERNEL: the fewest checks SCRIPT must report on KERNEL
# (debug, or any other: Debian's column), from scripts/tests/LIST; empty
# if it does not run there
list_min() {
	awk -v t="$1" -v k="$2" '$1 == t { print (k == "debug") ? $3 : $2 }' \
		"$SIW_TOP/scripts/tests/LIST" | sed 's/^-$//'
}

# step NAME COMMAND...: one test, pass or fail on the command's status
step() {
	local name=$1 logf
	shift
	# shellcheck disable=SC2154 # $logs: the sourcing script's
	logf=$logs/$(echo "$name" | tr -c 'a-zA-Z0-9\n' '_').log
	if "$@" > "$logf" 2>&1; then
		ok "$name"
	else
		nok "$name (log: ${logf#"$SIW_TOP"/})"
		tail -n 30 "$logf" | sed 's/^/    /'
	fi
}

# batch KERNEL[/NAME] SCRIPT...: one guest runs the scripts one after the
# other (scripts/tests/batch.sh), its artefacts in out/guest/check-KERNEL
# (check-KERNEL-NAME with /NAME: a second boot of the same kernel). Each script's ok/FAIL/skip lines are its
# checks (check-lib.sh: a non-zero exit without a FAIL line fails, and so
# do fewer checks than LIST's minimum); the guest's verdict is one more.
# On the debug kernel the batch ends with kmemleak's scan and a leak
# planted by scripts/selftest-fault's module, which the scan must find
# (batch.sh): two more checks, which must be there.
batch() {
	local kernel=${1%%/*} dir=$SIW_TOP/out/guest/check-${1//\//-} t name ko
	local tag=${1//\//-} probe=()
	shift
	if [ "$kernel" = debug ]; then
		rm -rf "$SIW_TOP/out/fault"
		if ko=$(fault_ko debug "$SIW_TOP/out/fault" 2> "$logs/fault-debug.log"); then
			probe=(--leak-probe "$ko")
		else
			nok "build scripts/selftest-fault for the debug kernel (log: ${logs#"$SIW_TOP"/}/fault-debug.log)"
		fi
	fi
	"$SIW_TOP/scripts/guest" --kernel "$kernel" --timeout 2400 --out "$dir" \
		"$SIW_TOP/scripts/tests/batch.sh" "${probe[@]}" "$@" \
		> "$logs/guest-$tag.log" 2>&1
	for t in "$@"; do
		name=$(batch_name "$t")
		count_script "$kernel $name" "$dir/main/$name.log" \
			"$(cat "$dir/main/$name.rc" 2>/dev/null || echo none)" \
			"$(list_min "$t" "$kernel")"
	done
	[ "$kernel" != debug ] ||
		count_script "$tag kmemleak" "$dir/main/kmemleak.log" 0 2
	count_guest "$tag" "$dir/main"
	grep -q "^script exit status" "$dir/main/verdict" 2>/dev/null || {
		echo "    --- end of the guest's output:"
		tail -n 30 "$logs/guest-$tag.log" | sed 's/^/    /'
	}
}

# two_guests KERNEL NAME SCRIPT: SCRIPT in two guests on KERNEL joined by
# a socket network (scripts/guest --peer-script); the checks of both
# count, and so does each guest's verdict. LIST's minimums for SCRIPT
# interop.sh are on its lines interop-main and interop-peer.
two_guests() {
	local kernel=$1 name=$2 script=$SIW_TOP/scripts/tests/$3
	local dir=$SIW_TOP/out/guest/check-$2 role
	"$SIW_TOP/scripts/guest" --kernel "$kernel" --timeout 1500 --out "$dir" \
		--peer-script "$script" "$script" > "$logs/guest-$name.log" 2>&1
	for role in main peer; do
		count_script "$name $role" "$dir/$role/output.log" \
			"$(cat "$dir/$role/rc" 2>/dev/null || echo none)" \
			"$(list_min "$(basename "$3" .sh)-$role" "$kernel")"
		count_guest "$name $role" "$dir/$role"
	done
}
