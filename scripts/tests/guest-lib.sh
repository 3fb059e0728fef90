# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Helpers for guest test scripts; sourced inside the guest.

set -u
fails=0
# the judges scripts/selftest also runs on the host
# shellcheck source=judge-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/judge-lib.sh"

# The checks a script reports, as make check counts them
# (scripts/check-lib.sh): one line "ok: ...", "FAIL: ..." or "skip: ..."
# each. $fails counts the failed ones for t_done.
t_log() { echo "[$(date +%T)] $*"; }
t_fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
t_pass() { echo "ok: $*"; }
t_skip() { echo "skip: $*"; }

# t_check DESCRIPTION COMMAND...: run, record pass or fail; returns
# non-zero on fail, so that `if t_check ...` can skip what depends on it
t_check() {
	local what=$1; shift
	if "$@"; then
		t_pass "$what"
		return 0
	fi
	t_fail "$what"
	return 1
}

# check DESCRIPTION COMMAND...: t_check, and the time it took in the log
check() {
	local name=$1 t0=$SECONDS rc=0
	shift
	t_check "$name" "$@" || rc=1
	t_log "$name: $((SECONDS - t0))s"
	return $rc
}

# t_keep DIR NAME...: copy $work/NAME.* and the trace buffer (as
# NAME.trace) to $SIW_OUT/DIR, to look at after a failed check, with
# both ends as they are now (NAME.ends: each namespace's `rdma
# statistic`, `rdma res` and `ss -tina`)
t_keep() {
	local dir n
	[ -n "${SIW_OUT:-}" ] || return 0
	dir=$SIW_OUT/$1
	shift
	mkdir -p "$dir" || return 0
	for n in "$@"; do
		# shellcheck disable=SC2154 # $work: the calling script's
		cp "$work/$n".* "$dir/" 2>/dev/null
		cp "$tr/trace" "$dir/$n.trace" 2>/dev/null
		t_ends > "$dir/$n.ends" 2>&1
	done
	return 0
}

# t_ends: this namespace's and $SIW_NS's RDMA counters and resources and
# TCP sockets, for a failed check's record
t_ends() {
	local where
	for where in here "$SIW_NS"; do
		echo "=== $where $(date +%T)"
		if [ "$where" = here ]; then
			rdma statistic show; rdma res show qp; rdma res show cm_id
			ss -tina
		else
			ip netns exec "$SIW_NS" sh -c \
				'rdma statistic show; rdma res show qp; rdma res show cm_id; ss -tina'
		fi
	done
}

# log_has FILE REGEX [N]: FILE has a line matching the extended REGEX;
# prints the lines that match, or else the last N (5) lines of FILE
log_has() {
	grep -E "$2" "$1" && return 0
	echo "no \"$2\" in $1; it ends with:"
	tail -n "${3:-5}" "$1"
	return 1
}

t_done() {
	if [ "$fails" -ne 0 ]; then
		echo "$fails check(s) failed"
		exit 1
	fi
	echo "all checks passed"
	exit 0
}

# ns COMMAND...: run COMMAND in $SIW_NS, the network namespace of the
# far end of the veth pair ($SIW_IF_B)
ns() { ip netns exec "$SIW_NS" "$@"; }

# The RDMA core and user access, then our module (or another given one).
load_siw() {
	local ko=${1:-$SIW_KO}
	# the RDMA core the tests use, and what the module itself depends on
	# (libcrc32c up to 6.13; the CRC library is built in from then on)
	# shellcheck disable=SC2046
	modprobe -a ib_core iw_cm ib_uverbs rdma_ucm \
		$(modinfo -F depends "$ko" | tr ',' ' ') || return 1
	insmod "$ko" "${@:2}"
}

unload_siw() {
	for _ in 1 2 3 4 5; do
		rmmod siw 2>/dev/null && return 0
		sleep 1
	done
	rmmod siw
}

# links_up CHECK A [B]: a siw device A on $SIW_IF_A here and, unless B is
# empty, B on $SIW_IF_B in $SIW_NS; each one check through CHECK (check
# or t_check), both tried even if the first fails
links_up() {
	local chk=$1 a=$2 b=${3:-} rc=0

	"$chk" "rdma link add $a on $SIW_IF_A" \
		rdma link add "$a" type siw netdev "$SIW_IF_A" || rc=1
	[ -n "$b" ] || return $rc
	"$chk" "rdma link add $b on $SIW_IF_B (in $SIW_NS)" \
		ns rdma link add "$b" type siw netdev "$SIW_IF_B" || rc=1
	return $rc
}

# links_down CHECK A [B]: delete what links_up made, B first
links_down() {
	local chk=$1 a=$2 b=${3:-} rc=0

	if [ -n "$b" ]; then
		"$chk" "rdma link delete $b" ns rdma link delete "$b" || rc=1
	fi
	"$chk" "rdma link delete $a" rdma link delete "$a" || rc=1
	return $rc
}

# pair_up [KO [PARAM...]]: load a module (default ours) and make siw_a
# and siw_b on the pair, reporting no checks (for timed runs)
pair_up() {
	load_siw "$@" &&
	rdma link add siw_a type siw netdev "$SIW_IF_A" &&
	ns rdma link add siw_b type siw netdev "$SIW_IF_B"
}

# tx_counts DEV [CMD...]: "FPDUS OCTETS" that siw device DEV sent, read
# with CMD in front (ns, for a device in $SIW_NS)
tx_counts() {
	local dev=$1
	shift
	"$@" rdma statistic show link "$dev/1" | awk '
		{ for (i = 3; i < NF; i += 2) c[$i] = $(i + 1) }
		END { print c["tx_fpdus"] + 0, c["tx_octets"] + 0 }'
}

# pair_down: undo pair_up
pair_down() {
	ns rdma link delete siw_b
	rdma link delete siw_a
	unload_siw
}

# Scan kmemleak (debug kernel only). What the scan lists goes to
# $SIW_OUT/kmemleak.txt, and (kmemleak.verbose=1) each leak to the kernel
# log: the harness fails the run on either. A scan that cannot run
# (kmemleak disabled itself: its file refuses "scan", or is missing on
# the debug kernel) is a failed check: a leak would go unseen.
kmemleak_scan() {
	local f=/sys/kernel/debug/kmemleak
	if [ ! -e "$f" ]; then
		[ "${SIW_KERNEL:-}" != debug ] && return 0
		t_fail "kmemleak scan: no $f on the debug kernel"
		return 1
	fi
	# a batch scans once, after its last script
	[ -z "${SIW_BATCH:-}" ] || return 0
	# A scan reports an object unreferenced for longer than kmemleak's
	# minimum age (5 s) only if its contents did not change since the
	# scan before: the first scan records every new object's checksum,
	# the second reports. One scan alone reports almost nothing.
	if ! { echo scan > "$f" && echo scan > "$f"; } 2> /tmp/kmemleak.err; then
		t_fail "kmemleak scan: $f refused it ($(tail -n 1 /tmp/kmemleak.err)): kmemleak is off"
		return 1
	fi
	cat "$f" | tee -a "${SIW_OUT:-/tmp}/kmemleak.txt"
}

# kmemleak_probe KO: kmemleak still finds a leak: KO (scripts/selftest-fault's
# module) plants one after everything else, and a scan must list it and
# nothing else (kmemleak_planted, judge-lib.sh); the listing is kept in
# $SIW_OUT/kmemleak-probe.txt. Objects are not printed to the kernel log
# (verbose off) and kmemleak's summary line, which is, stands between
# two markers in the log: scripts/guest does not count that one line
# against the run. Anything kmemleak listed before is cleared first, so
# that only the probe's objects are new.
kmemleak_probe() {
	local f=/sys/kernel/debug/kmemleak out=${SIW_OUT:-/tmp}/kmemleak-probe.txt
	# kmemleak switched off refuses a scan, but takes "clear", which on
	# 6.1 then races kmemleak's own cleanup work (a general protection
	# fault in __kmemleak_do_cleanup(), seen once): scan first
	echo scan > "$f" || return 1
	echo 0 > /sys/module/kmemleak/parameters/verbose || return 1
	echo clear > "$f" || return 1
	echo "siw-leak-probe: planting a leak" > /dev/kmsg
	insmod "$1" fault=leak || return 1
	# older than kmemleak's minimum age (5 s), then two scans
	sleep 8
	{ echo scan > "$f" && echo scan > "$f"; } || return 1
	cat "$f" > "$out"
	echo "siw-leak-probe: done" > /dev/kmsg
	kmemleak_planted "$out"
}

# Servers for RDMA traffic checks. A script sets SRV_LIMIT (seconds a
# server may live) and REAP (seconds a server may take to end after its
# client); the running server's pid is in $srv.
srv=

# listening PORT: a TCP listener on PORT here, or an rdma_cm listen on it
listening() {
	ss -Hltn "sport = :$1" | grep -q . ||
		rdma resource show cm_id 2>/dev/null |
		grep -q "state LISTEN .*src-addr [0-9.]*:$1 "
}

# cmsync_build: traffic-cmsync.c into $work/cmsync.so; without it,
# perftest and rping run unsynchronized (see there)
cmsync_build() {
	# shellcheck disable=SC2154 # $work: the calling script's
	gcc -shared -fPIC -O2 -o "$work/cmsync.so" \
		"$(dirname "${BASH_SOURCE[0]}")/traffic-cmsync.c" -ldl ||
		echo "note: traffic-cmsync.c does not build; perftest runs unsynchronized"
}

# cmsync_pre: set the array pre to the command prefix that preloads
# cmsync.so, with no listen counted yet; empty if it did not build
cmsync_pre() {
	pre=()
	[ -f "$work/cmsync.so" ] || return 0
	rm -f "$work/listening"
	# shellcheck disable=SC2034 # the caller's
	pre=(env LD_PRELOAD="$work/cmsync.so" TRAFFIC_CM_SYNC="$work/listening")
}

# srv_start LOG PORT COMMAND...: start a server here and wait until it
# listens on PORT
srv_start() {
	local log=$1 port=$2
	shift 2
	timeout -k 5 "${SRV_LIMIT:-90}" stdbuf -oL "$@" > "$log" 2>&1 &
	srv=$!
	for _ in $(seq 1 150); do
		if listening "$port"; then
			# a wildcard listen goes to every device in turn
			sleep 0.5
			return 0
		fi
		kill -0 "$srv" 2>/dev/null || break
		sleep 0.2
	done
	echo "the server ($log) never listened on port $port:"
	tail -n 5 "$log"
	srv_reap 0
	return 1
}

# srv_reap [SECONDS]: give the server SECONDS ($REAP) to end, then kill
# it; its exit status, or 1 when it had to be killed
srv_reap() {
	local limit=${1:-${REAP:-20}} rc
	[ -n "$srv" ] || return 0
	for _ in $(seq 1 $((limit * 5))); do
		kill -0 "$srv" 2>/dev/null || break
		sleep 0.2
	done
	if kill -0 "$srv" 2>/dev/null; then
		[ "$limit" = 0 ] ||
			echo "server still running ${limit}s after its client: killed"
		kill "$srv" 2>/dev/null
		wait "$srv" 2>/dev/null
		srv=
		return 1
	fi
	wait "$srv"
	rc=$?
	srv=
	return $rc
}

# srv_ends SECONDS: did the server end by itself within SECONDS? It is
# stopped otherwise.
srv_ends() {
	for _ in $(seq 1 $(($1 * 5))); do
		if ! kill -0 "$srv" 2>/dev/null; then
			srv_reap 0
			return 0
		fi
		sleep 0.2
	done
	srv_reap 0
	return 1
}

# The per-device MPA policy attributes (Documentation/cm.rst)
KNOBS="mpa_rev mpa_crc mpa_markers mpa_p2p mpa_rtr"

# knob DEV NAME VALUE: write a device's attribute and read it back
knob() {
	local f=/sys/class/infiniband/$1/$2 got
	if ! echo "$3" > "$f"; then
		echo "$1 $2: writing '$3' failed"
		return 1
	fi
	got=$(cat "$f")
	[ "$got" = "$3" ] && return 0
	echo "$1 $2: wrote '$3', reads '$got'"
	return 1
}

# policy DEV REV CRC MARKERS P2P RTR: all five attributes of a device
policy() {
	local dev=$1 k v
	shift
	for k in $KNOBS; do
		v=$1
		shift
		knob "$dev" "$k" "$v" || return 1
	done
}

# The MPA outcome, as our CM traces it (siw_cm:siw_cm_mpa): "VERDICT
# (REASON) term T rev R crc C markers tx X rx Y p2p P rtr N", IRD and
# ORD left out. RTR: 0 Write, 1 Read, 2 Send, 3 none (client-server,
# and always on the responder). $tr is the tracing directory.
tr=/sys/kernel/tracing

trace_clear() { echo > "$tr/trace"; }

mpa_seen() {
	sed -n 's/.*siw_cm_mpa: cep [0-9]*: \(.*\) ird [0-9]* ord [0-9]*$/\1/p' \
		"$tr/trace" | sort
}

# mpa_expect LINE...: the outcomes traced since trace_clear are these,
# one line per trace entry
mpa_expect() {
	local want seen
	want=$(printf '%s\n' "$@" | sort)
	seen=$(mpa_seen)
	[ "$seen" = "$want" ] && return 0
	echo "MPA outcome traced:"
	echo "${seen:-(none)}" | sed 's/^/    /'
	echo "expected:"
	echo "$want" | sed 's/^/    /'
	return 1
}
