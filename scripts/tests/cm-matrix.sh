#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Connection setup matrix through the per-device policy attributes: one
# module, siw_a on $SIW_IF_A here (the rping server, MPA responder) and
# siw_b on $SIW_IF_B in $SIW_NS (the client, MPA initiator), each with
# its own mpa_* attributes under /sys/class/infiniband/<dev>/. For
#
#   {rev 1, rev 2}
#   x {CRC off on both, on (required) on both, required by the server
#      only (the client "allowed")}
#   x {no markers, markers client->server only, markers both ways}
#   x {client-server, peer-to-peer with a Write, Read or Send RTR
#      (rev 2 only)}
#
# one rping (-V -C 3 -S 4096) must validate every ping, and the MPA
# outcome each side traces (siw_cm:siw_cm_mpa) must be the one RFC 5044
# and RFC 6581 give for the two policies. Then the edges: CRC required
# by the client only, markers server->client only, a rev 2 peer-to-peer
# client against a rev 1 server (continues in rev 1, client-server),
# devices on "default" following the module parameters; and the
# combinations the RFCs refuse, which must fail cleanly: the client
# reports a rejected or failed connect in time, the side at fault says
# why, nothing hangs.
#
#   cm-matrix.sh
#
# Logs of a failed check are kept in $SIW_OUT/cm-matrix/.
# CM_MATRIX_COUNT sets the pings per rping (3), CM_MATRIX_SIZE their
# size (4096). On the debug kernel only part of the matrix runs unless
# CM_MATRIX_FULL=1.
# shellcheck source=guest-lib.sh
. "$(dirname "$0")/guest-lib.sh"

COUNT=${CM_MATRIX_COUNT:-3}
SIZE=${CM_MATRIX_SIZE:-4096}
CLI_LIMIT=60	# seconds a client may take
SRV_LIMIT=100	# seconds a server may live
REAP=30		# seconds a server may take to end after its client
SRV=siw_a	# responder, here
CLI=siw_b	# initiator, in $SIW_NS
work=/tmp/cm-matrix
# tr: guest-lib.sh
port=7400

# Servers: srv_start, srv_reap, srv_ends in guest-lib.sh.

cleanup() { srv_reap 0; }
trap cleanup EXIT

# keep NAME: save the logs and the trace of a failed check
keep() { t_keep cm-matrix "$@"; }

# The policy attributes (knob, policy: guest-lib.sh)

# knobs_default DEV: every attribute reads "default"
knobs_default() {
	local k got
	for k in $KNOBS; do
		got=$(cat "/sys/class/infiniband/$1/$k") || return 1
		[ "$got" = default ] || { echo "$1 $k: '$got'"; return 1; }
	done
}

# refused DEV NAME VALUE: a write that must fail and change nothing
refused() {
	local f=/sys/class/infiniband/$1/$2 before
	before=$(cat "$f")
	if echo "$3" > "$f" 2>/dev/null; then
		echo "$1 $2: '$3' was taken"
		return 1
	fi
	[ "$(cat "$f")" = "$before" ]
}

# The MPA outcome, as each side traces it (siw_cm:siw_cm_mpa): "VERDICT
# (REASON) term T rev R crc C markers tx X rx Y p2p P rtr N", IRD and
# ORD left out. RTR: 0 Write, 1 Read, 2 Send, 3 none (client-server,
# and always on the responder).

# trace_clear, mpa_seen, mpa_expect: guest-lib.sh

# mpa_ok REV CRC TX RX P2P RTR [REASON]: an accepting outcome
mpa_ok() {
	echo "accept (${7:-ok}) term 0 rev $1 crc $2 markers tx $3 rx $4 p2p $5 rtr $6"
}

# rping_ok NAME MPA-LINE...: COUNT validated pings of SIZE octets, the
# server here, the client in $SIW_NS; then the traced outcome
rping_ok() {
	local name=$1 rc_c rc_s n
	shift
	port=$((port + 1))
	trace_clear
	srv_start "$work/$name.srv" "$port" \
		rping -s -a "$SIW_IP_A" -p "$port" -V -C "$COUNT" -S "$SIZE" ||
		{ keep "$name"; return 1; }
	ns timeout -k 5 "$CLI_LIMIT" stdbuf -oL \
		rping -c -a "$SIW_IP_A" -p "$port" -V -v -C "$COUNT" -S "$SIZE" \
		> "$work/$name.cli" 2>&1
	rc_c=$?
	srv_reap
	rc_s=$?
	n=$(grep -c "^ping data: " "$work/$name.cli")
	if [ "$rc_c" != 0 ] || [ "$rc_s" != 0 ] || [ "$n" != "$COUNT" ]; then
		echo "client exited $rc_c, server $rc_s (124: timed out); $n of $COUNT pings validated"
		echo "--- server:"; tail -n 5 "$work/$name.srv" | cut -c1-200
		echo "--- client:"; tail -n 5 "$work/$name.cli" | cut -c1-200
		mpa_seen | sed 's/^/traced: /'
		keep "$name"
		return 1
	fi
	mpa_expect "$@" || { keep "$name"; return 1; }
}

# rping_fails NAME SERVER MPA-LINE...: the connection must fail cleanly:
# the client ends in time with a rejected or failed connect, and the
# outcomes traced are these. SERVER is "listening" when the responder
# refuses the request itself: the server never hears of it and is
# stopped here; "ends" when the server accepted: it must end by itself.
rping_fails() {
	local name=$1 fate=$2 rc_c ok=0
	shift 2
	port=$((port + 1))
	trace_clear
	srv_start "$work/$name.srv" "$port" \
		rping -s -a "$SIW_IP_A" -p "$port" -V -C "$COUNT" -S "$SIZE" ||
		{ keep "$name"; return 1; }
	ns timeout -k 5 "$CLI_LIMIT" stdbuf -oL \
		rping -c -a "$SIW_IP_A" -p "$port" -V -v -C "$COUNT" -S "$SIZE" \
		> "$work/$name.cli" 2>&1
	rc_c=$?
	echo "client exited $rc_c: $(grep -m1 "cma event" "$work/$name.cli")"
	if [ "$rc_c" = 0 ] || [ "$rc_c" = 124 ] || [ "$rc_c" = 137 ] ||
	   ! grep -Eq "cma event RDMA_CM_EVENT_(REJECTED|CONNECT_ERROR)" \
		"$work/$name.cli"; then
		echo "the client did not fail cleanly:"
		tail -n 5 "$work/$name.cli" | cut -c1-200
		ok=1
	fi
	if [ "$fate" = listening ]; then
		if srv_ends 1; then
			echo "the server ended, though its request was refused"
			ok=1
		else
			echo "server: still listening, stopped"
		fi
	elif srv_ends "$REAP"; then
		echo "server: ended by itself"
	else
		echo "the server did not end ${REAP}s after its client: killed"
		ok=1
	fi
	mpa_expect "$@" || ok=1
	[ "$ok" = 0 ] || keep "$name"
	return $ok
}

# The matrix

# crc_of CASE: server and client mpa_crc, and whether CRCs are on
crc_of() {
	case $1 in
	off) echo "off off 0" ;;
	on) echo "required required 1" ;;
	server) echo "required allowed 1" ;;
	client) echo "allowed required 1" ;;
	esac
}

# markers_of CASE: server and client mpa_markers (each asks its peer to
# insert markers in what the peer sends)
markers_of() {
	case $1 in
	none) echo "N N" ;;
	to-server) echo "Y N" ;;
	to-client) echo "N Y" ;;
	both) echo "Y Y" ;;
	esac
}

# model_of CASE: client mpa_p2p and mpa_rtr, p2p in the outcome, the RTR
# the client sends
model_of() {
	case $1 in
	cs) echo "N default 0 3" ;;
	write) echo "Y write 1 0" ;;
	read) echo "Y read 1 1" ;;
	send) echo "Y send 1 2" ;;
	esac
}

declare -A CRC_NAME=([off]="CRC off" [on]="CRC on"
	[server]="CRC required by the server only"
	[client]="CRC required by the client only")
declare -A MK_NAME=([none]="no markers" [to-server]="markers client->server"
	[to-client]="markers server->client" [both]="markers both ways")
declare -A MODEL_NAME=([cs]="client-server" [write]="P2P, Write RTR"
	[read]="P2P, Read RTR" [send]="P2P, Send RTR")

# combo REV CRC MARKERS MODEL: set both devices, then rping
combo() {
	local rev=$1 s_crc c_crc crc s_mk c_mk p2p rtr tp trtr tx rx
	read -r s_crc c_crc crc <<< "$(crc_of "$2")"
	read -r s_mk c_mk <<< "$(markers_of "$3")"
	read -r p2p rtr tp trtr <<< "$(model_of "$4")"
	policy "$SRV" "$rev" "$s_crc" "$s_mk" default default || return 1
	policy "$CLI" "$rev" "$c_crc" "$c_mk" "$p2p" "$rtr" || return 1
	# markers tx: what the peer asked for; rx: what this side asked for
	tx=$([ "$s_mk" = Y ] && echo 1 || echo 0)
	rx=$([ "$c_mk" = Y ] && echo 1 || echo 0)
	rping_ok "r$rev-$2-$3-$4" \
		"$(mpa_ok "$rev" "$crc" "$tx" "$rx" "$tp" "$trtr")" \
		"$(mpa_ok "$rev" "$crc" "$rx" "$tx" "$tp" 3)"
}

combo_name() {
	echo "rev $1, ${CRC_NAME[$2]}, ${MK_NAME[$3]}, ${MODEL_NAME[$4]}: rping x$COUNT $SIZE B"
}

# Setup

up() {
	check "load the module" load_siw "$SIW_KO"
	links_up check "$SRV" "$CLI"
}

down() {
	links_down check "$SRV" "$CLI"
	check "unload the module" unload_siw
}

rm -rf "$work" && mkdir -p "$work"
t0=$SECONDS
check "module file exists" test -f "$SIW_KO"
up
check "trace event siw_cm:siw_cm_mpa enabled" \
	sh -c "echo 1 > $tr/events/siw_cm/siw_cm_mpa/enable"
[ "$fails" = 0 ] || t_done

# The interface
for d in "$SRV" "$CLI"; do
	check "$d: mpa_* attributes read \"default\"" knobs_default "$d"
done
check "$CLI: values in the parameters' syntax read back" \
	policy "$CLI" 1 allowed Y Y read,send
check "$CLI: rev 3 refused" refused "$CLI" mpa_rev 3
check "$CLI: CRC \"maybe\" refused" refused "$CLI" mpa_crc maybe
check "$CLI: markers \"perhaps\" refused" refused "$CLI" mpa_markers perhaps
check "$CLI: RTR \"atomic\" refused" refused "$CLI" mpa_rtr atomic
check "$CLI: back to \"default\"" \
	policy "$CLI" default default default default default
check "$SRV unchanged by writes to $CLI" knobs_default "$SRV"
[ "$fails" = 0 ] || t_done

# The matrix
# The debug kernel (KASAN, lockdep) is several times slower: there the
# matrix keeps every revision and model but one CRC and two marker
# settings, unless CM_MATRIX_FULL=1. Debian's kernel runs all of it.
crcs="off on server" mks="none to-server both"
if [ "${SIW_KERNEL:-}" = debug ] && [ -z "${CM_MATRIX_FULL:-}" ]; then
	crcs="on" mks="none both"
	t_log "debug kernel: CRC $crcs, markers $mks only (CM_MATRIX_FULL=1 for all)"
fi
for rev in 1 2; do
	for crc in $crcs; do
		for mk in $mks; do
			for model in cs write read send; do
				[ "$rev" = 1 ] && [ "$model" != cs ] && continue
				check "$(combo_name "$rev" "$crc" "$mk" "$model")" \
					combo "$rev" "$crc" "$mk" "$model"
			done
		done
	done
done

# Edges that work
for rev in 1 2; do
	check "$(combo_name "$rev" client none cs)" combo "$rev" client none cs
	check "$(combo_name "$rev" on to-client cs)" combo "$rev" on to-client cs
done

p2p_vs_rev1() {
	policy "$SRV" 1 default default default default &&
	policy "$CLI" 2 default default Y write &&
	rping_ok p2p-vs-rev1 \
		"$(mpa_ok 1 1 0 0 0 3 "continues in MPA rev 1")" \
		"$(mpa_ok 1 1 0 0 0 3 "continues in MPA rev 1")"
}
check "rev 2 P2P client, rev 1 server: continues in rev 1, client-server" \
	p2p_vs_rev1

params=/sys/module/siw/parameters
follow_params() {
	local rc
	policy "$SRV" default default default default default &&
	policy "$CLI" default default default default default || return 1
	echo 1 > "$params/mpa_rev" && echo off > "$params/mpa_crc" &&
	echo Y > "$params/mpa_markers" || return 1
	rping_ok follow-params "$(mpa_ok 1 0 1 1 0 3)" "$(mpa_ok 1 0 1 1 0 3)"
	rc=$?
	echo 2 > "$params/mpa_rev"
	echo required > "$params/mpa_crc"
	echo N > "$params/mpa_markers"
	return $rc
}
check "devices on \"default\" follow the module parameters (rev 1, CRC off, markers)" \
	follow_params

# Refused by the RFCs: fail cleanly
# crc_clash REV SERVER-CRC CLIENT-CRC. A Terminate is traced twice by
# the initiator: when its QP takes the stream and when it is sent.
crc_clash() {
	local rev=$1 s_crc=$2 c_crc=$3 term
	policy "$SRV" "$rev" "$s_crc" N default default &&
	policy "$CLI" "$rev" "$c_crc" N N default || return 1
	if [ "$c_crc" = required ]; then
		# the responder refuses the request: Reject frame, no ULP;
		# the initiator traces the Reject it got
		rping_fails "r$rev-crc-cli-req-srv-off" listening \
			"reject (peer wants CRC, local policy is off) term 0 rev $rev crc 1 markers tx 0 rx 0 p2p 0 rtr 3" \
			"reject (rejected by the peer) term 0 rev $rev crc 1 markers tx 0 rx 0 p2p 0 rtr 3"
	else
		# the reply has C set: the initiator sends Terminate code 5
		term="terminate (peer wants CRC, local policy is off) term 5 rev $rev crc 1 markers tx 0 rx 0 p2p 0 rtr 3"
		rping_fails "r$rev-crc-cli-off-srv-req" ends \
			"$(mpa_ok "$rev" 1 0 0 0 3)" "$term" "$term"
	fi
}
for rev in 1 2; do
	check "rev $rev, CRC required by the client, off on the server: rejected" \
		crc_clash "$rev" off required
	check "rev $rev, CRC off on the client, required by the server: Terminate (code 5)" \
		crc_clash "$rev" required off
done

rtr_clash() {
	local term="terminate (no common RTR indication) term 7 rev 2 crc 1 markers tx 0 rx 0 p2p 1 rtr 3"

	policy "$SRV" 2 default default default write &&
	policy "$CLI" 2 default default Y send || return 1
	rping_fails p2p-rtr-clash ends "$(mpa_ok 2 1 0 0 1 3)" "$term" "$term"
}
check "rev 2, P2P: client sends only a Send RTR, server takes only Write: Terminate (code 7)" \
	rtr_clash

rtr_none() {
	policy "$SRV" 2 default default default none &&
	policy "$CLI" 2 default default Y write || return 1
	rping_fails p2p-rtr-none listening \
		"reject (no common RTR indication) term 7 rev 2 crc 1 markers tx 0 rx 0 p2p 1 rtr 3" \
		"reject (rejected by the peer) term 0 rev 2 crc 1 markers tx 0 rx 0 p2p 0 rtr 3"
}
check "rev 2, P2P: server takes no RTR at all: rejected" rtr_none

policy "$SRV" default default default default default
policy "$CLI" default default default default default
echo 0 > "$tr/events/siw_cm/siw_cm_mpa/enable"
down
kmemleak_scan
t_log "cm-matrix: $((SECONDS - t0))s in all"
t_done
