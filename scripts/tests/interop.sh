#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Interoperability with upstream siw, in two guests joined by the QEMU
# socket network: ours (siw0 on eth0) in the main guest, upstream siw
# (usiw0 on eth0, built from linux-source) in the peer guest. The peer
# runs interop-agent.py, through which the main guest starts servers and
# clients there. Run as:
#
#   scripts/guest --peer-script scripts/tests/interop.sh scripts/tests/interop.sh
#
# rping with data validation in both roles, for every combination that
# upstream siw on 6.1 supports (its policy is fixed: MPA rev 2, CRC only
# if the peer asks, no markers, peer-to-peer only as responder, with a
# Write or Read RTR). Ours is set per case through its mpa_* attributes
# and must reach the outcome RFC 5044 and RFC 6581 give, as its
# siw_cm:siw_cm_mpa trace shows:
#
#   ours initiating: {CRC off, CRC required} x {client-server, P2P with
#     Write RTR, Read RTR, any RTR}
#   ours responding: {CRC allowed, CRC required}
#
# MPA rev 1 is left out: upstream on 6.1 cannot run it in either role.
# As responder to our rev 1 request it accepts, then fails its own first
# RDMA Read post (rping: "post send error -1"); as initiator it always
# offers rev 2, and a rev 1 reply (RFC 6581 allows a rev 1 responder to
# answer so) leaves its connect hanging, where ours continues in rev 1.
#
# and what upstream cannot do fails cleanly, with a reject or a closed
# connection on both ends and a log line on ours that says why:
#
#   ours initiating, asking for markers (upstream rejects markers)
#   ours responding, asking for markers
#   ours initiating, P2P with only a Send RTR (upstream has none): only
#     with INTEROP_CRASH_UPSTREAM=1, as our Terminate makes upstream's
#     kernel hit a BUG() in iw_cm (see the case below)
#
# INTEROP_COUNT sets the pings per rping (5), INTEROP_SIZE their size
# (4096); one rping per role also runs INTEROP_LONG (50) pings of 64 KiB.
# A failed case keeps, in $SIW_OUT/interop/, what both ends saw: the
# clients' and servers' logs, ours' trace (events siw and siw_cm, all on
# for the run; upstream siw has no tracepoints), the case's TCP sockets
# as `ss -tin` showed them on both ends while it ran, sampled five times
# a second (NAME.ss-ours, NAME.ss-upstream), and each end's `rdma
# statistic`, `rdma res` and TCP counters (nstat) before the case and
# after it (NAME.ends-before, NAME.ends-after; upstream siw on 6.1 has
# no counters, its `rdma statistic` answers "Invalid argument"), with
# upstream's kernel log (NAME.dmesg-upstream).
# shellcheck source=guest-lib.sh
. "$(dirname "$0")/guest-lib.sh"

here=$(cd "$(dirname "$0")" && pwd)
agent=$here/interop-agent.py
AGENT_PORT=7999
COUNT=${INTEROP_COUNT:-5}
SIZE=${INTEROP_SIZE:-4096}
LONG=${INTEROP_LONG:-50}
CLI_LIMIT=90	# seconds a client may take
SRV_LIMIT=150	# seconds a server may live
REAP=30		# seconds a server may take to end after its client
DEV=siw0
work=/tmp/interop
port=7500

# The peer guest: upstream siw and the agent, until the main guest is done

if [ "${SIW_ROLE:-}" = peer ]; then
	t_check "upstream siw.ko exists for $SIW_KVER" test -f "$SIW_UPSTREAM_KO"
	t_check "load upstream siw" load_siw "$SIW_UPSTREAM_KO"
	t_check "upstream: rdma link add usiw0 on eth0" \
		rdma link add usiw0 type siw netdev eth0
	t_log "agent on $SIW_IP_ETH:$AGENT_PORT"
	t_check "the agent ran until the main guest said quit" \
		timeout "$((SIW_TIMEOUT - 30))" \
		python3 "$agent" serve "$SIW_IP_ETH" "$AGENT_PORT"
	# Upstream's own teardown is reported, not judged: it is not ours.
	# Bounded: an upstream device with a connection it never let go of
	# would hang the delete, and the guest with it.
	rdma resource show cm_id | grep "dev usiw0" &&
		t_log "note: upstream still holds cm_ids"
	timeout 60 rdma link delete usiw0 ||
		t_log "note: upstream: rdma link delete usiw0 failed or hung"
	unload_siw || t_log "note: upstream siw does not unload"
	t_done
fi

# The main guest: ours

UP=$SIW_IP_ETH_PEER	# upstream's address
US=$SIW_IP_ETH		# ours

remote() { python3 "$agent" run "$UP" "$AGENT_PORT" "$*"; }

# ends: the counters and resources of both ends, ours first
ends() {
	echo "=== ours ($SIW_IP_ETH) $(date +%T)"
	rdma statistic show
	rdma -dd res show qp
	rdma res show cm_id
	nstat -asz 2>/dev/null | grep -E "^#|Tcp|TCPTimeouts|Retrans|Reset|Abort"
	echo "=== upstream ($UP)"
	# the agent takes one line a command
	remote "rdma statistic show; rdma -dd res show qp; rdma res show cm_id; nstat -asz 2>/dev/null | grep -E '^#|Tcp|TCPTimeouts|Retrans|Reset|Abort'"
}

# watch_start NAME: from now until watch_stop, the case's TCP sockets
# (port $port) on both ends, as `ss -tin` shows them each time they
# change (ss-watch.sh), and both ends' counters now (ends)
watched=
watch_start() {
	ends > "$work/$1.ends-before" 2>&1
	timeout $((SRV_LIMIT + 30)) bash "$here/ss-watch.sh" "$port" \
		> "$work/$1.ss-ours" 2>&1 &
	watched=$!
	# named by interop-watch-NAME, for watch_stop's pkill
	remote "timeout $((SRV_LIMIT + 30)) bash $here/ss-watch.sh $port interop-watch-$1 > /tmp/interop-$1.ss 2>&1 &" \
		> /dev/null 2>&1
}

watch_stop() {
	[ -n "$watched" ] || return 0
	kill "$watched" 2>/dev/null
	wait "$watched" 2>/dev/null
	watched=
	# [i]: a pattern that does not match the pkill's own command line
	remote "pkill -f '[i]nterop-watch-$1\$'" > /dev/null 2>&1
	return 0
}

# keep NAME: save what both ends saw of a failed case (see the top)
keep() {
	watch_stop "$1"
	ends > "$work/$1.ends-after" 2>&1
	remote "cat /tmp/interop-$1.ss" > "$work/$1.ss-upstream" 2>&1
	remote "dmesg | tail -n 200" > "$work/$1.dmesg-upstream" 2>&1
	t_keep interop "$1"
}

# on the way out, whatever happened: the peer guest's agent ends, so
# that the peer guest does not wait for its time limit
cleanup() {
	[ -z "${watched:-}" ] || kill "$watched" 2>/dev/null
	srv_reap 0
	[ -n "${rsrv:-}" ] && kill "$rsrv" 2>/dev/null
	remote "pkill rping" > /dev/null 2>&1
	remote "@@quit" > /dev/null 2>&1
}
trap cleanup EXIT

# trace_clear, mpa_seen, mpa_expect: guest-lib.sh

# mpa_ok REV CRC P2P RTR: an accepting outcome, no markers
mpa_ok() {
	echo "accept (ok) term 0 rev $1 crc $2 markers tx 0 rx 0 p2p $3 rtr $4"
}

# Upstream's server, started through the agent

rsrv=

# rsrv_start NAME PORT COMMAND: start COMMAND in the peer guest and wait
# until upstream listens on PORT there
rsrv_start() {
	local name=$1 p=$2
	remote "timeout -k 5 $SRV_LIMIT stdbuf -oL $3" > "$work/$name.srv" 2>&1 &
	rsrv=$!
	for _ in $(seq 1 60); do
		remote "rdma resource show cm_id | grep -q 'state LISTEN .*src-addr [0-9.]*:$p '" &&
			return 0
		kill -0 "$rsrv" 2>/dev/null || break
		sleep 0.5
	done
	echo "upstream's server never listened on port $p:"
	tail -n 5 "$work/$name.srv"
	rsrv_reap 0
	return 1
}

# rsrv_reap [SECONDS]: as srv_reap, for upstream's server
rsrv_reap() {
	local limit=${1:-$REAP} rc
	[ -n "$rsrv" ] || return 0
	for _ in $(seq 1 $((limit * 5))); do
		kill -0 "$rsrv" 2>/dev/null || break
		sleep 0.2
	done
	if kill -0 "$rsrv" 2>/dev/null; then
		[ "$limit" = 0 ] ||
			echo "upstream's server still running ${limit}s after its client: stopped"
		remote "pkill -f 'rping -s -a $UP -p $port '" > /dev/null 2>&1
		wait "$rsrv" 2>/dev/null
		rsrv=
		return 1
	fi
	wait "$rsrv"
	rc=$?
	rsrv=
	return $rc
}

# rsrv_ends SECONDS: did upstream's server end by itself in time?
rsrv_ends() {
	for _ in $(seq 1 $(($1 * 5))); do
		kill -0 "$rsrv" 2>/dev/null || { rsrv_reap 0; return 0; }
		sleep 0.2
	done
	rsrv_reap 0
	return 1
}

rping_srv() { echo "rping -s -a $1 -p $port -V -C $2 -S $3"; }
rping_cli() { echo "rping -c -a $1 -p $port -V -v -C $2 -S $3"; }

# judge NAME RC_C RC_S COUNT: both ends exited 0 and the client
# validated COUNT pings
judge() {
	local name=$1 n
	n=$(grep -c "ping data: " "$work/$name.cli")
	[ "$2" = 0 ] && [ "$3" = 0 ] && [ "$n" = "$4" ] && return 0
	echo "client exited $2, server $3 (124: timed out); $n of $4 pings validated"
	echo "--- server:"; tail -n 5 "$work/$name.srv" | cut -c1-200
	echo "--- client:"; tail -n 5 "$work/$name.cli" | cut -c1-200
	mpa_seen | sed 's/^/traced: /'
	keep "$name"
	return 1
}

# to_upstream NAME COUNT SIZE MPA-LINE: ours connects to upstream's
# rping server; ours traces MPA-LINE
to_upstream() {
	local name=$1 rc_c rc_s
	port=$((port + 1))
	trace_clear
	watch_start "$name"
	rsrv_start "$name" "$port" "$(rping_srv "$UP" "$2" "$3")" ||
		{ keep "$name"; return 1; }
	# shellcheck disable=SC2046
	timeout -k 5 "$CLI_LIMIT" stdbuf -oL $(rping_cli "$UP" "$2" "$3") \
		> "$work/$name.cli" 2>&1
	rc_c=$?
	rsrv_reap
	rc_s=$?
	judge "$name" "$rc_c" "$rc_s" "$2" || return 1
	mpa_expect "$4" || { keep "$name"; return 1; }
	watch_stop "$name"
}

# from_upstream NAME COUNT SIZE MPA-LINE: upstream connects to our
# rping server
from_upstream() {
	local name=$1 rc_c rc_s
	port=$((port + 1))
	trace_clear
	watch_start "$name"
	# rping_srv prints a command line, split into its words on purpose
	# shellcheck disable=SC2046
	srv_start "$work/$name.srv" "$port" $(rping_srv "$US" "$2" "$3") ||
		{ keep "$name"; return 1; }
	remote "timeout -k 5 $CLI_LIMIT stdbuf -oL $(rping_cli "$US" "$2" "$3")" \
		> "$work/$name.cli" 2>&1
	rc_c=$?
	srv_reap
	rc_s=$?
	judge "$name" "$rc_c" "$rc_s" "$2" || return 1
	mpa_expect "$4" || { keep "$name"; return 1; }
	watch_stop "$name"
}

# failed_cleanly LOG: the client's rping failed in time with a rejected
# or failed connect
failed_cleanly() {
	if [ "$2" = 0 ] || [ "$2" = 124 ] || [ "$2" = 137 ] ||
	   ! grep -Eq "cma event RDMA_CM_EVENT_(REJECTED|CONNECT_ERROR|UNREACHABLE)" "$1"; then
		echo "the client (exit $2) did not fail cleanly:"
		tail -n 5 "$1" | cut -c1-200
		return 1
	fi
	echo "client exited $2: $(grep -m1 "cma event" "$1")"
}

# logged PATTERN: ours said so in the kernel log since the case began
logged() {
	dmesg | sed -n "/interop: case $port\$/,\$p" | grep -E "$1" && return 0
	echo "no kernel log line matching '$1'"
	return 1
}

# to_upstream_fails NAME LOG-PATTERN: ours connects, upstream cannot
# take it: our client fails cleanly, upstream's server keeps listening
# or ends, and ours logs why
to_upstream_fails() {
	local name=$1 rc_c ok=0
	port=$((port + 1))
	echo "interop: case $port" > /dev/kmsg
	trace_clear
	watch_start "$name"
	rsrv_start "$name" "$port" "$(rping_srv "$UP" 1 "$SIZE")" ||
		{ keep "$name"; return 1; }
	# shellcheck disable=SC2046
	timeout -k 5 "$CLI_LIMIT" stdbuf -oL $(rping_cli "$UP" 1 "$SIZE") \
		> "$work/$name.cli" 2>&1
	rc_c=$?
	failed_cleanly "$work/$name.cli" "$rc_c" || ok=1
	rsrv_reap 0
	mpa_seen | sed 's/^/traced: /'
	logged "$2" || ok=1
	[ "$ok" = 0 ] || keep "$name"
	watch_stop "$name"
	return $ok
}

# from_upstream_fails NAME LOG-PATTERN: upstream connects, refuses our
# reply: its client fails cleanly, our server ends by itself (the
# connection closed), ours logs why
from_upstream_fails() {
	local name=$1 rc_c ok=0
	port=$((port + 1))
	echo "interop: case $port" > /dev/kmsg
	trace_clear
	watch_start "$name"
	# shellcheck disable=SC2046 # rping_srv: a command line, to split
	srv_start "$work/$name.srv" "$port" $(rping_srv "$US" 1 "$SIZE") ||
		{ keep "$name"; return 1; }
	remote "timeout -k 5 $CLI_LIMIT stdbuf -oL $(rping_cli "$US" 1 "$SIZE")" \
		> "$work/$name.cli" 2>&1
	rc_c=$?
	failed_cleanly "$work/$name.cli" "$rc_c" || ok=1
	if srv_ends "$REAP"; then
		echo "our server ended by itself"
	else
		echo "our server did not end ${REAP}s after upstream's client"
		ok=1
	fi
	mpa_seen | sed 's/^/traced: /'
	logged "$2" || ok=1
	[ "$ok" = 0 ] || keep "$name"
	watch_stop "$name"
	return $ok
}

rm -rf "$work" && mkdir -p "$work"
t0=$SECONDS
check "module file exists" test -f "$SIW_KO"
check "load the module" load_siw "$SIW_KO"
check "rdma link add $DEV on eth0" rdma link add "$DEV" type siw netdev eth0
# siw_cm:siw_cm_mpa judges each case's MPA outcome; the rest of siw_cm
# and siw are kept with a failed case
check "trace events siw_cm and siw enabled" \
	sh -c "echo 1 > $tr/events/siw_cm/enable && echo 1 > $tr/events/siw/enable"
check "the peer guest's agent answers" \
	python3 "$agent" wait "$UP" "$AGENT_PORT" 180
check "the peer guest runs upstream siw" \
	remote "rdma dev show usiw0 && test ! -e /sys/module/siw/parameters/mpa_rev"
[ "$fails" = 0 ] || t_done

# ours initiating (rev 2: see the top of the file for rev 1); c, r and
# offer are used inside the eval'd commands
# shellcheck disable=SC2043,SC2034
for rev in 2; do
	for crc in off on; do
		c=$([ $crc = on ] && echo 1 || echo 0)
		check "ours -> upstream: rev $rev, CRC $crc, client-server: rping x$COUNT $SIZE B" \
			eval 'policy $DEV $rev $([ $crc = on ] && echo required || echo allowed) N N default &&
			      to_upstream r$rev-crc$crc-cs-to $COUNT $SIZE "$(mpa_ok $rev $c 0 3)"'
		for rtr in write read any; do
			r=$(case $rtr in write|any) echo 0 ;; read) echo 1 ;; esac)
			offer=$([ $rtr = any ] && echo default || echo $rtr)
			check "ours -> upstream: rev 2, CRC $crc, P2P offering $rtr RTR: rping x$COUNT $SIZE B" \
				eval 'policy $DEV 2 $([ $crc = on ] && echo required || echo allowed) N Y $offer &&
				      to_upstream r2-crc$crc-p2p-$rtr-to $COUNT $SIZE "$(mpa_ok 2 $c 1 $r)"'
		done
	done
done
check "ours -> upstream: rev 2, CRC on, client-server: rping x$LONG 65535 B" \
	eval 'policy $DEV 2 required N N default &&
	      to_upstream long-to $LONG 65535 "$(mpa_ok 2 1 0 3)"'

# ours responding (c: used inside the eval'd command)
# shellcheck disable=SC2043,SC2034
for rev in 2; do
	for crc in allowed required; do
		c=$([ $crc = required ] && echo 1 || echo 0)
		check "upstream -> ours: rev $rev, CRC $crc on ours: rping x$COUNT $SIZE B" \
			eval 'policy $DEV $rev $crc N default default &&
			      from_upstream r$rev-crc$crc-from $COUNT $SIZE "$(mpa_ok $rev $c 0 3)"'
	done
done
check "upstream -> ours: rev 2, CRC required: rping x$LONG 65535 B" \
	eval 'policy $DEV 2 required N default default &&
	      from_upstream long-from $LONG 65535 "$(mpa_ok 2 1 0 3)"'
# What upstream cannot take, last: upstream siw on 6.1 does not always
# recover from a refused connection (a Terminate in its RTR wait leaves
# its next connect hanging)
check "upstream -> ours, ours asks for markers: fails cleanly, ours says so" \
	eval 'policy $DEV 2 allowed Y default default &&
	      from_upstream_fails markers-from "siw: QP [0-9]+: the initiator closed the connection without sending an FPDU"'

check "ours -> upstream, ours asks for markers: rejected, ours says so" \
	eval 'policy $DEV 2 allowed Y N default &&
	      to_upstream_fails markers-to "siw_cm: cep [0-9]+: the peer rejected our MPA Request"'
# Upstream answers a Send-only offer with a Write RTR it was not offered;
# ours then sends the Terminate RFC 6581 asks for (Layer 2, Type 0, Code
# 7, "No matching RTR option") and closes. Upstream siw on 6.1, waiting
# for the RTR, reports the close to iw_cm before it ever reported the
# connection established, and iw_cm's cm_close_handler() hits BUG() in
# that state: the peer guest's kernel dies. So this runs only when asked
# (INTEROP_CRASH_UPSTREAM=1), and the peer guest's verdict then fails.
if [ -n "${INTEROP_CRASH_UPSTREAM:-}" ]; then
	check "ours -> upstream, P2P with only a Send RTR: fails cleanly, ours says why" \
		eval 'policy $DEV 2 allowed N Y send &&
		      to_upstream_fails p2p-send-to "siw_cm: cep [0-9]+: .*RTR"'
else
	t_skip "ours -> upstream, P2P with only a Send RTR: it crashes upstream's kernel (iw_cm BUG(), see above); INTEROP_CRASH_UPSTREAM=1 runs it"
fi

policy "$DEV" default default default default default
remote "pkill rping; rdma resource show cm_id" > "$work/peer-cm_ids" 2>&1
check "the peer guest's agent quits" remote "@@quit"
echo 0 > "$tr/events/siw_cm/enable"
echo 0 > "$tr/events/siw/enable"
check "no cm_id or QP left on $DEV" \
	bash -c "! rdma resource show cm_id | grep -q 'dev $DEV' && ! rdma resource show qp | grep -q 'dev $DEV'"
check "rdma link delete $DEV" rdma link delete "$DEV"
check "unload the module" unload_siw
kmemleak_scan
t_log "interop: $((SECONDS - t0))s in all"
t_done
