# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Judges of guest test scripts that decide on a tool's output, kept apart
# so that scripts/selftest can feed each one a planted input on the host
# (no guest): an empty result, a run cut short, a count of nothing. Each
# returns 0 when the input passes and says why it does not otherwise.
# Sourced by guest-lib.sh inside the guest, and by scripts/selftest on
# the host.

# pyverbs_complete LOG RES RC: a pyverbs run (pyverbs-run.py, whose
# output is LOG and whose exit status is RC) ran to its end and RES, the
# "ID RESULT" lines taken from LOG, holds a result for every test it
# ran. unittest ends with "Ran N tests" and exits 0, or 1 when a test
# failed; anything else (124: timed out, a signal, an import error) is
# a run that did not finish, whatever RES holds.
pyverbs_complete() {
	local log=$1 res=$2 rc=$3 ran n bad
	ran=$(sed -n 's/^Ran \([0-9]*\) tests\{0,1\} in .*/\1/p' "$log" 2>/dev/null | tail -n 1)
	n=$(grep -c . "$res" 2>/dev/null)
	bad=$(grep -cE " (FAIL|ERROR)$" "$res" 2>/dev/null)
	if [ -z "$ran" ]; then
		echo "no \"Ran N tests\" line in $log: the runner did not finish (exit $rc)"
		return 1
	fi
	if [ "$ran" -eq 0 ] || [ "${n:-0}" -eq 0 ]; then
		echo "the runner ran $ran tests, $n results read: nothing was tested"
		return 1
	fi
	if [ "$n" -ne "$ran" ]; then
		echo "the runner ran $ran tests, but $n results were read from its log"
		return 1
	fi
	case $rc in
	0) return 0 ;;
	1)	[ "${bad:-0}" -gt 0 ] && return 0
		echo "the runner exited 1 with no failed test in its results" ;;
	*) echo "the runner exited $rc (124: timed out)" ;;
	esac
	return 1
}

# pyverbs_excluded ID EXCLUDE: the test ID is listed in EXCLUDE
# (verbs.exclude: "ID reason", # comments)
pyverbs_excluded() {
	grep -v '^#' "$2" | awk '{ print $1 }' | grep -qxF "$1"
}

# pyverbs_failures RES EXCLUDE: every FAIL or ERROR in RES is excluded,
# with its reason; prints one line a failure, "excluded: ID: reason" or
# "not excluded: ID RESULT"
pyverbs_failures() {
	local id r bad=0
	while read -r id r; do
		case $r in
		FAIL | ERROR)
			if pyverbs_excluded "$id" "$2"; then
				echo "excluded: $id: $(grep -F "$id " "$2" | cut -d' ' -f2-)"
			else
				echo "not excluded: $id $r"
				bad=1
			fi ;;
		esac
	done < "$1"
	return $bad
}

# pyverbs_passes_all UPSTREAM OURS: every test UPSTREAM's results pass,
# OURS passes too. Upstream must have passed something: an empty or
# failed upstream run would make the comparison pass on nothing.
pyverbs_passes_all() {
	local id r n bad=0
	n=$(grep -c " ok$" "$1" 2>/dev/null)
	if [ "${n:-0}" -eq 0 ]; then
		echo "upstream passed no test ($1): nothing to compare with"
		return 1
	fi
	while read -r id r; do
		[ "$r" = ok ] || continue
		if ! grep -qxF "$id ok" "$2"; then
			echo "upstream passes $id, we do not"
			bad=1
		fi
	done < "$1"
	[ "$bad" = 0 ] && echo "upstream passed $n tests, and so did we"
	return $bad
}

# hostile_frames LOG...: the hostile frames the peers' logs count
# ("seed S: F hostile frames (...)"), added up; a log without that line
# (a peer that died first) counts none
hostile_frames() {
	sed -n 's/^seed [0-9]*: \([0-9]*\) hostile frames.*/\1/p' "$@" 2>/dev/null |
		awk '{ t += $1 } END { print t + 0 }'
}

# hostile_sent MIN LOG...: the peers whose logs are LOG sent at least MIN
# hostile frames in all
hostile_sent() {
	local min=$1 n
	shift
	n=$(hostile_frames "$@")
	echo "hostile: $n hostile frames in all, at least $min wanted"
	[ "$n" -ge "$min" ]
}

# hostile_min_frames CONNS SOFT: the fewest hostile frames a run of CONNS
# connections with up to SOFT survivable frames each must send: a third
# of CONNS x (SOFT + 1). Each connection the module takes gets up to SOFT
# survivable frames and one fatal one; at the defaults (SOFT 4) a run of
# 200 sends 800 to 1400, and the floor is 333.
hostile_min_frames() {
	echo $(($1 * ($2 + 1) / 3))
}

# param_gate KO OURS PARAM: may a section that needs module parameter
# PARAM run on KO? 0: KO has it; 1: KO is not ours (OURS, our siw.ko)
# and lacks it, the section is skipped; 2: ours lacks it, a failure (a
# parameter of ours that went away must not turn its tests into skips)
param_gate() {
	modinfo -p "$1" 2>/dev/null | grep -q "^$3:" && return 0
	[ "$1" = "$2" ] && return 2
	return 1
}

# kmemleak_planted LISTING: every object kmemleak lists in LISTING (its
# debugfs file) is one the fault module planted (512 octets of 0x5a,
# scripts/selftest-fault), and there is at least one: kmemleak found the
# leak planted and nothing else
kmemleak_planted() {
	awk '
		/^unreferenced object/ {
			n++; planted = ($0 ~ /\(size 512\):$/); want = 0; next
		}
		/hex dump/ { want = 1; next }
		want {
			want = 0
			if (planted && $0 ~ /^ *(5a )+ ZZZZZZZZZZZZZZZZ$/ &&
			    gsub(/5a/, "&") == 16)
				p++
		}
		END {
			printf "kmemleak lists %d objects, %d of them planted\n", n, p
			exit !(n > 0 && n == p)
		}' "$1"
}

# batch_name SCRIPT[:ARG...]: the name batch.sh gives a script's log and
# exit status, and make check its tag: the script's name without .sh,
# then each argument after a dash, commas as plus signs
# ("consumer-teardown.sh:siw:nfs,iser" is consumer-teardown-siw-nfs+iser)
batch_name() {
	local name
	name=$(basename "${1%%:*}" .sh)
	[ "$1" = "${1%%:*}" ] || name=$name-$(echo "${1#*:}" | tr ':,' '-+')
	echo "$name"
}
