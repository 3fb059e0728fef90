# SPDX-License-Identifier: GPL-2.0
# How `make check` counts what guest runs report; sourced by scripts/check
# and by scripts/selftest, which plants failures and checks that these
# functions count them. Never run.
#
# A guest script's checks are its lines "ok: ...", "FAIL: ..." and
# "skip: ..." (passed, failed, skipped). scripts/tests/LIST gives the
# fewest checks each script must report.

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

# count_lines TAG LOG: add a plain "N passed, N failed[, N skipped]"
# line (the last in LOG); none at all is a failure
count_lines() {
	local line p f s
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
}

# list_min SCRIPT KERNEL: the fewest checks SCRIPT must report on KERNEL
# (debian or debug), from scripts/tests/LIST; empty if it does not run
# there
list_min() {
	awk -v t="$1" -v k="$2" '$1 == t { print (k == "debug") ? $3 : $2 }' \
		"$SIW_TOP/scripts/tests/LIST" | sed 's/^-$//'
}
