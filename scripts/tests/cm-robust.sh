#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Connection management when things go wrong: every failure must end
# cleanly (a failed connect event, a closed connection, a log line),
# never in a hang, a crash or a leak. siw_a on $SIW_IF_A here, siw_b on
# $SIW_IF_B in $SIW_NS; servers run here, clients in $SIW_NS.
#
#  a. MPA setup against a plain TCP peer (cm-robust-raw.py). Our
#     responder: a client that stays silent (the MPA timer closes it), a
#     half Request then a reset, malformed Requests (not an MPA key, a
#     Reply's key, Rev 0 and 3, PD_Length 513: Reject frame, close); the
#     listener then serves an rping. Our initiator: a server that stays
#     silent (UNREACHABLE), resets (REJECTED) or answers with a malformed
#     Reply (CONNECT_ERROR).
#  b. A listener killed with connections parked at the MPA stage: each
#     is reset.
#  c. Consumers giving up during setup (cm-robust-cm.c): rdma_destroy_id
#     right after rdma_connect, a process exiting with its connects under
#     way, a responder destroying or abandoning requests unanswered, a
#     responder accepting a request after its connection died.
#  d. Devices and the netdev removed while connections are set up.
#  e. CM_ROBUST_TOTAL connections (500; 100 on the debug kernel), up to
#     CM_ROBUST_INFLIGHT (50; 20) at a time, each with a QP: connect,
#     established, disconnect, destroy.
#
# After each part: no cm_id or QP left on our devices, no TCP socket
# left on the port but TIME-WAIT ones; at the end the module unloads and
# kmemleak scans. Logs of a failed check are kept in $SIW_OUT/cm-robust/.
#
#   cm-robust.sh [MODULE]
#
# MODULE is the siw.ko to test ($SIW_KO).
# shellcheck source=guest-lib.sh
. "$(dirname "$0")/guest-lib.sh"

here=$(cd "$(dirname "$0")" && pwd)
ko=${1:-$SIW_KO}
work=/tmp/cm-robust
tool=$work/cm-robust-cm
raw=(/usr/bin/python3 "$here/cm-robust-raw.py")
LIMIT=120		# seconds any helper may live
MPA_MS=3000		# the MPA timer while this runs
export CM_ROBUST_LIMIT=60	# seconds a raw peer waits for our close
TOTAL=${CM_ROBUST_TOTAL:-500}
INFLIGHT=${CM_ROBUST_INFLIGHT:-50}
if [ "${SIW_KERNEL:-}" = debug ]; then
	TOTAL=${CM_ROBUST_TOTAL:-100}
	INFLIGHT=${CM_ROBUST_INFLIGHT:-20}
fi
params=/sys/module/siw/parameters
port=7600
declare -A pid

# keep NAME...: save the logs of a failed check
keep() { t_keep cm-robust "$@"; }

# bg NAME [ns] COMMAND...: start a helper, its output in $work/NAME.log
bg() {
	local name=$1
	shift
	if [ "$1" = ns ]; then
		shift
		ns timeout -k 5 "$LIMIT" "$@" > "$work/$name.log" 2>&1 &
	else
		timeout -k 5 "$LIMIT" "$@" > "$work/$name.log" 2>&1 &
	fi
	pid[$name]=$!
}

# reap NAME: its exit status (124: it had to be stopped)
reap() {
	local p=${pid[$1]:-}
	[ -n "$p" ] || return 0
	wait "$p"
	local rc=$?
	unset "pid[$1]"
	return $rc
}

# stop NAME: kill a helper that may still run: the child of its
# timeout(1) (`ip netns exec` runs timeout in its own place)
stop() {
	local p=${pid[$1]:-} c
	[ -n "$p" ] || return 0
	for c in $(ps -o pid= --ppid "$p"); do
		kill -9 "$c" 2>/dev/null
	done
	kill -9 "$p" 2>/dev/null
	wait "$p" 2>/dev/null
	unset "pid[$1]"
}

cleanup() {
	local n
	for n in "${!pid[@]}"; do stop "$n"; done
}
trap cleanup EXIT

# wait_line NAME REGEX [COUNT]: until NAME's log has COUNT (1) lines
# matching, or NAME ended
wait_line() {
	local n=${3:-1}
	for _ in $(seq 1 300); do
		[ "$(grep -Ec "$2" "$work/$1.log")" -ge "$n" ] && return 0
		kill -0 "${pid[$1]}" 2>/dev/null || break
		sleep 0.2
	done
	[ "$(grep -Ec "$2" "$work/$1.log")" -ge "$n" ] && return 0
	echo "$1: no '$2' in its log:"
	tail -n 5 "$work/$1.log"
	return 1
}

# expect NAME REGEX: NAME's log has a line matching
expect() { log_has "$work/$1.log" "$2"; }

# run NAME [ns] COMMAND...: a helper in the foreground; its exit status
run() {
	local name=$1
	bg "$@"
	reap "$name"
	local rc=$?
	sed "s/^/$name: /" "$work/$name.log" | tail -n 3
	[ $rc = 0 ] || keep "$name"
	return $rc
}

# server NAME MODE [TOTAL]: cm-robust-cm server on siw_a, listening
server() {
	port=$((port + 1))
	bg "$1" "$tool" server "$SIW_IP_A" "$port" "${3:-1}" "$2" &&
		wait_line "$1" "^listening"
}

# server_ends NAME: the server ended by itself, with status 0
server_ends() {
	reap "$1" && return 0
	echo "$1 failed:"
	tail -n 5 "$work/$1.log"
	keep "$1"
	return 1
}

# rping_listen NAME: an rping server on siw_a
rping_listen() {
	port=$((port + 1))
	bg "$1" rping -s -a "$SIW_IP_A" -p "$port" -V -C 3 -S 4096 || return 1
	for _ in $(seq 1 150); do
		rdma resource show cm_id 2>/dev/null |
			grep -q "state LISTEN .*src-addr [0-9.]*:$port " &&
			return 0
		sleep 0.2
	done
	echo "rping never listened on port $port"
	return 1
}

# Leaks

# sockets NS PORT [held]: TCP sockets on PORT in NS ("-" here), but
# listening and TIME-WAIT ones; with "held", only those a socket still
# owns (ss shows an orphan, which TCP finishes closing by itself, as
# ino:0)
sockets() {
	local pre=()
	[ "$1" = - ] || pre=(ip netns exec "$1")
	"${pre[@]}" ss -Htane "( sport = :$2 or dport = :$2 )" |
		grep -Ev "^(LISTEN|TIME-WAIT)" |
		if [ "${3:-}" = held ]; then grep -v " ino:0 "; else cat; fi
}

# no_sockets PORT [held]: none left on either side (orphans may take a
# moment to finish their FIN exchange)
no_sockets() {
	for _ in $(seq 1 150); do
		[ -z "$(sockets - "$1" "${2:-}")$(sockets "$SIW_NS" "$1" "${2:-}")" ] &&
			break
		sleep 0.2
	done
	if [ -n "$(sockets - "$1" "${2:-}")$(sockets "$SIW_NS" "$1" "${2:-}")" ]; then
		echo "TCP sockets left on port $1:"
		sockets - "$1"
		sockets "$SIW_NS" "$1"
		return 1
	fi
	[ -n "${2:-}" ] || return 0
	[ -z "$(sockets - "$1")$(sockets "$SIW_NS" "$1")" ] && return 0
	echo "orphans that TCP is still closing on port $1 (allowed):"
	sockets - "$1"
	sockets "$SIW_NS" "$1"
}

# no_ids: no cm_id and no QP on our devices
no_ids() {
	local left
	for _ in $(seq 1 150); do
		left=$( (rdma resource show cm_id; rdma resource show qp) |
			grep "link siw_")
		[ -z "$left" ] && return 0
		sleep 0.2
	done
	echo "left on our devices:"
	echo "$left"
	return 1
}

# clean PORT [held]: after a part, nothing is left of its connections
# (with "held": nothing but orphans, see no_sockets)
clean() {
	no_sockets "$1" "${2:-}" && no_ids
}

# Setup

link_up() { links_up check siw_a siw_b; }

up() {
	check "load the module, MPA timer ${MPA_MS} ms" \
		load_siw "$ko" mpa_timeout_ms="$MPA_MS"
	link_up
}

# a. Our responder against a plain TCP client

responder_raw() {
	local kind
	check "a: listener (rping -s) on siw_a" rping_listen rping-a || return
	check "a: silent client: closed by the MPA timer" \
		run silent ns "${raw[@]}" silent "$SIW_IP_A" "$port"
	check "a: half a Request, then a reset: nothing left" \
		run partial ns "${raw[@]}" partial-rst "$SIW_IP_A" "$port"
	for kind in key repkey rev0 rev3 pdlen; do
		check "a: malformed Request ($kind): Reject frame, closed" \
			run "bad-$kind" ns "${raw[@]}" bad "$kind" \
			"$SIW_IP_A" "$port"
	done
	check "a: no socket left but the listener" no_sockets "$port"
	check "a: the listener still works: rping x3 validated" \
		run rping-c ns rping -c -a "$SIW_IP_A" -p "$port" -V -C 3 -S 4096
	check "a: rping server ended by itself" server_ends rping-a
	check "a: responder: nothing left" clean "$port"
}

# a. Our initiator against a plain TCP server

# initiator_raw KIND REGEX [EARLY]: one connect against `srv KIND`, the
# client's log matching REGEX; EARLY as cm-robust-cm.c takes it
initiator_raw() {
	local ok=0
	port=$((port + 1))
	bg "srv-$1" "${raw[@]}" srv "$1" "$SIW_IP_A" "$port"
	wait_line "srv-$1" "^listening" || return 1
	run "cli-$1" ns "$tool" client "$SIW_IP_A" "$port" 1 1 fail \
		"${3:-none}" || ok=1
	expect "cli-$1" "$2" || ok=1
	server_ends "srv-$1" || ok=1
	clean "$port" || ok=1
	return $ok
}

# b. A listener killed with connections parked at the MPA stage

parked() {
	local ok=0 n=20 est
	echo 60000 > "$params/mpa_timeout_ms" || return 1
	server srv-b hold || ok=1
	bg park ns "${raw[@]}" park "$n" "$SIW_IP_A" "$port"
	wait_line park "^parked" || ok=1
	# each one accepted by our listener, none closed yet
	for _ in $(seq 1 150); do
		est=$(ss -Htn state established "( sport = :$port )" | wc -l)
		[ "$est" -ge "$n" ] && break
		sleep 0.2
	done
	echo "$est connections parked at the MPA stage"
	[ "$est" -ge "$n" ] || ok=1
	stop srv-b
	reap park || { ok=1; keep park; }
	cat "$work/park.log"
	echo "$MPA_MS" > "$params/mpa_timeout_ms"
	expect park "closed by siw: $n reset" || ok=1
	clean "$port" || ok=1
	return $ok
}

# c. Consumers giving up during setup

# exit_early: a client exits with 10 connects under way; the server
# holds the requests, then is killed with them unanswered
exit_early() {
	local ok=0
	server srv-exit hold || return 1
	run cli-exit ns "$tool" client "$SIW_IP_A" "$port" 10 10 any exit ||
		ok=1
	stop srv-exit
	clean "$port" || ok=1
	return $ok
}

# req_destroyed: the server destroys each request's id unaccepted
req_destroyed() {
	local ok=0
	server srv-rd destroy 5 || return 1
	run cli-rd ns "$tool" client "$SIW_IP_A" "$port" 5 5 fail || ok=1
	expect cli-rd "REJECTED=5" || ok=1
	server_ends srv-rd || ok=1
	clean "$port" || ok=1
	return $ok
}

# req_abandoned: the server is killed with 5 requests unanswered
req_abandoned() {
	local ok=0
	server srv-ra hold || return 1
	bg cli-ra ns "$tool" client "$SIW_IP_A" "$port" 5 5 fail
	wait_line srv-ra "^request" 5 || ok=1
	stop srv-ra
	reap cli-ra || { ok=1; keep cli-ra; }
	sed 's/^/cli-ra: /' "$work/cli-ra.log" | tail -n 2
	clean "$port" || ok=1
	return $ok
}

# req_late: a request whose connection died before the server answered
# it; the next connection may get the dead one's place in the endpoint
# table (its initiator on siw_b does, while ids are reused at once). The
# server's late accept of the first must fail and leave the new one
# alone, which is set up and torn down.
req_late() {
	local ok=0 flag=$work/late.flag
	rm -f "$flag"
	server srv-late late 2 || return 1
	bg raw-late ns "${raw[@]}" req-rst "$SIW_IP_A" "$port" "$flag"
	wait_line srv-late "^request 1" || ok=1
	touch "$flag"
	reap raw-late || { ok=1; keep raw-late; }
	# the reset reached siw_a and its endpoint went
	no_sockets "$port" || ok=1
	sleep 1
	run cli-late ns "$tool" client "$SIW_IP_A" "$port" 1 1 || ok=1
	server_ends srv-late || ok=1
	expect srv-late "^late accept: failed" || ok=1
	sed 's/^/srv-late: /' "$work/srv-late.log" | tail -n 3
	clean "$port" || ok=1
	return $ok
}

# d. Devices and the netdev removed during setup

# removal COMMAND...: run it; it must end within 90 s (a removal stuck
# in the kernel cannot be killed: the script gives up on the rest)
removal() {
	"$@" &
	local p=$!
	for _ in $(seq 1 450); do
		kill -0 "$p" 2>/dev/null || break
		sleep 0.2
	done
	if kill -0 "$p" 2>/dev/null; then
		echo "removal stuck: $*"
		ps -eo pid,stat,wchan:32,cmd | grep -E " D|cm-robust|rdma|ip " |
			grep -v grep
		t_fail "removal ends: $*"
		t_done
	fi
	wait "$p" && return 0
	echo "removal failed: $*"
	return 1
}

# churn NAME REMOVE...: up to 1000 connections, 20 at a time; REMOVE
# runs once the server saw 10 established. Every client connection must end
# somehow, and the removal must have cut some short. With churn_held=held,
# sockets the removal left to TCP as orphans are allowed (see veth_del).
churn_held=
churn() {
	local name=$1 ok=0
	shift
	server "srv-$name" accept 1000 || return 1
	bg "cli-$name" ns "$tool" client "$SIW_IP_A" "$port" 1000 20 any
	wait_line "srv-$name" "^established 10" || ok=1
	removal "$@" || ok=1
	reap "cli-$name" || { ok=1; keep "cli-$name"; }
	sed "s/^/cli-$name: /" "$work/cli-$name.log" | tail -n 2
	if grep -q "disconnected 1000 " "$work/cli-$name.log"; then
		echo "the removal came after the last connection"
		ok=1
	fi
	# the server ends when its device goes, else it is stopped
	for _ in $(seq 1 50); do
		kill -0 "${pid[srv-$name]}" 2>/dev/null || break
		sleep 0.2
	done
	stop "srv-$name"
	sed "s/^/srv-$name: /" "$work/srv-$name.log" | tail -n 2
	clean "$port" "$churn_held" || ok=1
	return $ok
}

# The connections the server was closing when the pair went may be
# orphans half through their FIN exchange; with no route left, TCP
# retransmits their FIN (LAST-ACK) or waits for the peer's (FIN-WAIT-2)
# for a minute or more. They are no longer ours.
veth_del() { ip link del "$SIW_IF_A"; }

veth_add() {
	ip link add "$SIW_IF_A" type veth peer name "$SIW_IF_B" &&
	ip link set "$SIW_IF_B" netns "$SIW_NS" &&
	ip addr add "$SIW_IP_A/25" dev "$SIW_IF_A" &&
	ip link set "$SIW_IF_A" up &&
	ns ip addr add "$SIW_IP_B/25" dev "$SIW_IF_B" &&
	ns ip link set "$SIW_IF_B" up
}

# our devices: none left
no_devices() {
	for _ in $(seq 1 150); do
		rdma link show | grep -q "link siw_" ||
			ns rdma link show | grep -q "link siw_" || return 0
		sleep 0.2
	done
	rdma link show
	return 1
}

# e. Many connections at once

many() {
	local ok=0
	server srv-e accept "$TOTAL" || return 1
	run cli-e ns "$tool" client "$SIW_IP_A" "$port" "$TOTAL" "$INFLIGHT" ||
		ok=1
	server_ends srv-e || ok=1
	sed 's/^/srv-e: /' "$work/srv-e.log" | tail -n 2
	clean "$port" || ok=1
	return $ok
}

rm -rf "$work" && mkdir -p "$work"
t0=$SECONDS
check "cm-robust-cm.c builds" \
	gcc -O2 -Wall -o "$tool" "$here/cm-robust-cm.c" -lrdmacm -libverbs
check "module file exists: $ko" test -f "$ko"
up
[ "$fails" = 0 ] || t_done
rdma link show

responder_raw
check "a: initiator, silent server: UNREACHABLE (MPA timer)" \
	initiator_raw silent UNREACHABLE=1
check "a: initiator, server resets after the Request: REJECTED" \
	initiator_raw rst REJECTED=1
check "a: initiator, Reply with a Request's key: CONNECT_ERROR" \
	initiator_raw bad CONNECT_ERROR=1
check "a: initiator, Reply with PD_Length 600: CONNECT_ERROR" \
	initiator_raw badlen CONNECT_ERROR=1

check "b: listener killed with 20 connections at the MPA stage: all reset" \
	parked

check "c: rdma_destroy_id right after rdma_connect (silent server)" \
	initiator_raw silent "failed 1 " destroy
check "c: client exits with 10 connects under way, server killed holding them" \
	exit_early
check "c: responder destroys 5 requests unaccepted: 5 REJECTED" \
	req_destroyed
check "c: responder killed with 5 requests unanswered: 5 failed connects" \
	req_abandoned
check "c: late accept of a request whose connection died: fails, the next one is set up" \
	req_late

check "d: rdma link delete siw_a (responder) during connects" \
	churn del-a rdma link delete siw_a
check "d: siw_a back" rdma link add siw_a type siw netdev "$SIW_IF_A"
check "d: rdma link delete siw_b (initiator) during connects" \
	churn del-b ns rdma link delete siw_b
check "d: siw_b back" ns rdma link add siw_b type siw netdev "$SIW_IF_B"
churn_held=held
check "d: veth pair deleted during connects" churn veth veth_del
churn_held=
check "d: both devices went with their netdev" no_devices
check "d: veth pair back" veth_add
link_up

check "e: $TOTAL connections, $INFLIGHT at a time: each established and torn down" \
	many

check "rdma link delete siw_b" ns rdma link delete siw_b
check "rdma link delete siw_a" rdma link delete siw_a
check "unload the module" unload_siw
kmemleak_scan
t_log "cm-robust: $((SECONDS - t0))s in all"
t_done
