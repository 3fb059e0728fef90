#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A hostile peer against the module (issue 14 item 5): hostile-peer.py
# in $SIW_NS speaks MPA/DDP/RDMAP from the RFCs to hostile-target, an
# rdma_cm end on siw_a here, in three phases:
#
#  connect  the peer connects to the target's listen. Some connections
#           send a mutated MPA Request (keys, revisions, flags, lengths
#           too big or lying, enhanced IRD/ORD and RTR data, truncated,
#           garbage, nothing); the module must refuse what the RFCs call
#           malformed and end it, take what they say to take.
#  markers  the same against siw_a asking for MPA markers (its
#           mpa_markers attribute): markers that point anywhere, missing
#           or extra markers, right markers around a wrong CRC.
#  listen   the target connects out to the peer, which answers with
#           mutated MPA Replies (bad keys, revisions, reject, lengths,
#           IRD/ORD, a model not asked for, garbage, truncated, nothing
#           and a close, a reset or silence); every connect must end in
#           ESTABLISHED or an error event within its limit.
#
# Every connection the module takes gets valid Writes into the region the
# target advertises, survivable hostile frames (reserved bits, zero-length
# segments with forged STags, boundary offsets and lengths, segments out
# of order, torn FPDUs, Read Requests and Read Responses at odd edges and
# in odd segments, marker reserved bits) that must leave it up, a read
# back of the region compared with what was written, then one fatal
# hostile frame (wrong CRC, forged STags and keys, Tagged Offsets out of
# bounds, bad Sends, Read Requests out of bounds, huge, forged, short or
# past the IRD, bogus Read Responses, Terminates at several stages,
# unknown opcodes and versions, lengths that lie, garbage, random headers
# with a valid CRC, torn frames). Every connection must end in a
# Terminate or a close; the target checks that nothing was written
# outside its region, read sink and receive buffers, that every read it
# made brought what it asked, that each connection ended, and tears it
# down. Then an honest rping across the pair still works, and the module
# unloads.
#
#   hostile.sh [CONNS [SEED [SOFT [MIN_FRAMES]]]]
#
# CONNS: connections over the three phases, 3/5 connect, 1/5 markers,
# 1/5 listen (default: 300 on the debug kernel, where KASAN, lockdep and
# kmemleak watch, 200 on Debian's; env HOSTILE_CONNS; make check-long
# runs 1500 on the debug kernel); SEED: the PRNG
# seed (default: the time); SOFT: the most survivable frames per
# connection (default 4; env HOSTILE_SOFT); MIN_FRAMES: the fewest
# hostile frames the run must count (default: a third of CONNS x (SOFT +
# 1), hostile_min_frames in judge-lib.sh). All are printed. The
# module's MPA and RTR timers are set to 2 s so that a peer that falls
# silent costs little.
# shellcheck source=guest-lib.sh
. "$(dirname "$0")/guest-lib.sh"

here=$(cd "$(dirname "$0")" && pwd)
conns=200
[ -e /sys/kernel/debug/kmemleak ] && conns=300
CONNS=${1:-${HOSTILE_CONNS:-$conns}}
SEED=${2:-$(date +%s)}
SOFT=${3:-${HOSTILE_SOFT:-4}}
MIN_FRAMES=${4:-$(hostile_min_frames "$CONNS" "$SOFT")}
N_CONNECT=$((CONNS * 3 / 5))
N_MARKERS=$((CONNS / 5))
N_LISTEN=$((CONNS - N_CONNECT - N_MARKERS))
PORT=7471
work=/tmp/hostile
REAP=60
# the module's timers for a silent peer, and the peer's idea of them
TMO_MS=2000
export HOSTILE_MPA_TMO=$((TMO_MS / 1000))
export HOSTILE_SOFT=$SOFT
mkdir -p "$work"

cleanup() { srv_reap 0; }
trap cleanup EXIT

t_log "hostile: $CONNS connections ($N_CONNECT connect, $N_MARKERS markers, $N_LISTEN listen), seed $SEED, up to $SOFT survivable frames each"
check "hostile-target.c builds" \
	gcc -O2 -Wall -o "$work/hostile-target" "$here/hostile-target.c" \
	-lrdmacm -libverbs || t_done
check "load the module (MPA and RTR timers ${TMO_MS} ms)" \
	load_siw "$SIW_KO" mpa_timeout_ms=$TMO_MS rtr_timeout_ms=$TMO_MS ||
	t_done
check "rdma link add siw_a on $SIW_IF_A" \
	rdma link add siw_a type siw netdev "$SIW_IF_A"

# show NAME: the peer's and the target's logs of phase NAME
show() {
	sed 's/^/  peer: /' "$work/$1.peer"
	sed 's/^/  target: /' "$work/$1.target" | tail -n 3
}

# The connect and markers phases share one target (a target costs
# seconds to start and end): it listens here until the markers run's
# last connection tells it to stop. peer MODE N: the peer makes N
# connections to it; the target's result counts in the markers phase.
SRV_LIMIT=$(((N_CONNECT + N_MARKERS) * 25 + 120))
srv_start "$work/target" "$PORT" \
	"$work/hostile-target" listen "$SIW_IP_A" "$PORT" 30 || t_done
peer() {
	local mode=$1 n=$2 rc_p rc_t=0
	ns env ${3:+HOSTILE_NO_STOP=1} timeout -k 5 "$SRV_LIMIT" \
		python3 "$here/hostile-peer.py" "$mode" "$SIW_IP_A" "$PORT" \
		"$n" "$SEED" > "$work/$mode.peer" 2>&1
	rc_p=$?
	if [ -z "${3:-}" ]; then
		srv_reap
		rc_t=$?
		cp "$work/target" "$work/$mode.target"
	else
		# the target stays; it has failed if it ended
		cp "$work/target" "$work/$mode.target"
		kill -0 "$srv" 2>/dev/null || rc_t=1
	fi
	show "$mode"
	[ "$rc_p" = 0 ] && [ "$rc_t" = 0 ]
}

check "connect: mutated MPA Requests and hostile traffic, every connection ends in a Terminate or a close (seed $SEED)" \
	peer connect "$N_CONNECT" more

check "siw_a asks for markers" knob siw_a mpa_markers Y
check "markers: markers pointing anywhere, missing, extra, around wrong CRCs; hostile traffic; the target's buffers intact over both phases (seed $SEED)" \
	peer markers "$N_MARKERS"
check "siw_a back to the default markers" knob siw_a mpa_markers default

# The listen phase: the peer listens in $SIW_NS, the target connects to
# it N times
against_connect() {
	local n=$1 rc_p rc_t limit=$(($1 * 25 + 120)) peer
	ns timeout -k 5 "$limit" python3 "$here/hostile-peer.py" listen \
		"$SIW_IP_B" 7473 "$n" "$SEED" > "$work/listen.peer" 2>&1 &
	peer=$!
	for _ in $(seq 1 100); do
		ns ss -Hltn "sport = :7473" | grep -q . && break
		sleep 0.2
	done
	timeout -k 5 "$limit" "$work/hostile-target" connect "$SIW_IP_B" 7473 \
		"$n" 30 > "$work/listen.target" 2>&1
	rc_t=$?
	# the peer ends once it served its last connection
	for _ in $(seq 1 $((REAP * 5))); do
		kill -0 "$peer" 2>/dev/null || break
		sleep 0.2
	done
	kill "$peer" 2>/dev/null
	wait "$peer"
	rc_p=$?
	show listen
	[ "$rc_p" = 0 ] && [ "$rc_t" = 0 ]
}
check "listen: mutated MPA Replies, every connect of the module ends in bounded time, then hostile traffic (seed $SEED)" \
	against_connect "$N_LISTEN"

check "at least $MIN_FRAMES hostile frames sent (seed $SEED, $CONNS connections)" \
	hostile_sent "$MIN_FRAMES" "$work/connect.peer" "$work/markers.peer" \
	"$work/listen.peer"

# afterwards, an honest client is served as before
check "rdma link add siw_b on $SIW_IF_B (in $SIW_NS)" \
	ns rdma link add siw_b type siw netdev "$SIW_IF_B"
SRV_LIMIT=120
REAP=20
honest() {
	local n
	srv_start "$work/rping.srv" 7472 \
		rping -s -a "$SIW_IP_A" -p 7472 -V -C 20 -S 4096 || return 1
	ns timeout -k 5 60 rping -c -a "$SIW_IP_A" -p 7472 -V -v -C 20 \
		-S 4096 > "$work/rping.cli" 2>&1 || { srv_reap; return 1; }
	srv_reap || return 1
	n=$(grep -c "^ping data: " "$work/rping.cli")
	echo "$n of 20 pings validated"
	[ "$n" = 20 ]
}
check "then an honest rping -V across the pair: 20 pings of 4 KiB" honest
check "rdma link delete siw_b" ns rdma link delete siw_b
check "rdma link delete siw_a" rdma link delete siw_a
check "unload the module" unload_siw
kmemleak_scan
t_done
