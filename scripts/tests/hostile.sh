#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A hostile peer against the module (issue 14 item 5): hostile-peer.py
# in $SIW_NS speaks MPA/DDP/RDMAP from the RFCs to hostile-target, an
# rdma_cm server on siw_a here. Each connection is set up honestly, the
# peer writes validly into the region the target advertises, then sends
# one hostile frame (a wrong CRC, forged STags and keys, Tagged Offsets
# out of bounds or wrapping, Sends too long or with bad QN, MSN or MO,
# Read Requests out of bounds, huge, forged or past the IRD, unasked
# Read Responses, Terminates, unknown opcodes and versions, lengths that
# lie, garbage, random headers with a valid CRC, torn frames). Every
# connection must end in a Terminate or a close; the target checks that
# nothing was written outside its region and receive buffers, that each
# connection ended, and tears it down. Then an honest rping across the
# pair still works, and the module unloads.
#
#   hostile.sh [CONNS [SEED]]
#
# CONNS: connections (default: 1000 on the debug kernel, where KASAN,
# lockdep and kmemleak watch, 300 on Debian's; env HOSTILE_CONNS); SEED:
# the PRNG seed (default: the time); both are printed.
. "$(dirname "$0")/lib.sh"

here=$(cd "$(dirname "$0")" && pwd)
conns=300
[ -e /sys/kernel/debug/kmemleak ] && conns=1000
CONNS=${1:-${HOSTILE_CONNS:-$conns}}
SEED=${2:-$(date +%s)}
PORT=7471
work=/tmp/hostile
SRV_LIMIT=$((CONNS * 25 + 60))
REAP=60
mkdir -p "$work"

ns() { ip netns exec "$SIW_NS" "$@"; }
cleanup() { srv_reap 0; }
trap cleanup EXIT

check "hostile-target.c builds" \
	gcc -O2 -Wall -o "$work/hostile-target" "$here/hostile-target.c" \
	-lrdmacm -libverbs || t_done
check "load the module" load_siw || t_done
check "rdma link add siw_a on $SIW_IF_A" \
	rdma link add siw_a type siw netdev "$SIW_IF_A"

# peer PEER_ARGS...: the hostile peer against a fresh target
hostile_run() {
	local rc_p rc_t
	srv_start "$work/target.log" "$PORT" \
		"$work/hostile-target" "$SIW_IP_A" "$PORT" "$CONNS" 30 || return 1
	t_log "hostile peer: $CONNS connections, seed $SEED"
	ns timeout -k 5 "$SRV_LIMIT" python3 "$here/hostile-peer.py" \
		"$SIW_IP_A" "$PORT" "$CONNS" "$SEED" > "$work/peer.log" 2>&1
	rc_p=$?
	srv_reap
	rc_t=$?
	sed 's/^/  peer: /' "$work/peer.log" | tail -n 40
	sed 's/^/  target: /' "$work/target.log" | tail -n 5
	[ "$rc_p" = 0 ] && [ "$rc_t" = 0 ]
}
check "hostile peer: every connection ends in a Terminate or a close, nothing lands outside the target's buffers (seed $SEED)" \
	hostile_run

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
