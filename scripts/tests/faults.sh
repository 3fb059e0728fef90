#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Faults under traffic (issue 14 item 6), for the debug kernel, where
# KASAN, lockdep, kmemleak and the hung-task watchdog watch:
#
#  - allocation failures in this module (3 in 100 of its allocations,
#    in any context, through /sys/kernel/debug/siw_fail) while rping -V
#    connects, moves verified data and disconnects, and while a link is
#    added and deleted;
#  - netem loss, reordering, duplication and delay on both ends of the
#    veth pair under verified traffic;
#  - the client killed (SIGKILL) in the middle of a transfer;
#  - the netdev taken down and up under traffic;
#  - `rdma link delete` and `rmmod` under traffic.
#
# Every fault may end a transfer; none may crash, hang, leak or corrupt
# data: rping -V fails on any byte that differs, every run must end
# within its limit, the module's resources must all be gone afterwards
# (rdma resource counts, kmemleak), an honest rping -V must work after
# each part, and the module must unload.
#
#   faults.sh [ROUNDS]   (default 20 fault-injected connections)
# shellcheck source=guest-lib.sh
. "$(dirname "$0")/guest-lib.sh"

ROUNDS=${1:-20}
work=/tmp/faults
fi_dir=/sys/kernel/debug
mkdir -p "$work"
SRV_LIMIT=120
REAP=20
port=7480

cleanup() {
	fail_off
	tc qdisc del dev "$SIW_IF_A" root 2>/dev/null
	ns tc qdisc del dev "$SIW_IF_B" root 2>/dev/null
	srv_reap 0
}
trap cleanup EXIT

# Allocation failures injected into this module only, in every context
# (/sys/kernel/debug/siw_fail, drivers/siw_fault.h). The kernel's own
# failslab would fail the guest's file system too, which does not
# recover.
fdir=$fi_dir/siw_fail
FI_TIMES=1000000
fail_set() {
	[ -d "$fdir" ] || return 1
	echo "$1" > "$fdir/probability" &&
	echo 1 > "$fdir/interval" &&
	echo "$FI_TIMES" > "$fdir/times" &&
	echo 0 > "$fdir/space" &&
	echo 0 > "$fdir/verbose" &&
	echo N > "$fdir/task-filter"
}
fail_off() {
	[ -d "$fdir" ] && echo 0 > "$fdir/probability"
	return 0
}
# failures injected since fail_set: "times" counts down from FI_TIMES
fail_count() {
	echo $((FI_TIMES - $(cat "$fdir/times")))
}

# QPs, CQs, MRs, PDs and cm_ids the RDMA core still lists here and in
# the peer's namespace, for siw devices
leftovers() {
	local r n=0
	for r in qp cq mr pd cm_id; do
		n=$((n + $(rdma resource show "$r" 2>/dev/null | grep -c siw_) +
		     $(ns rdma resource show "$r" 2>/dev/null | grep -c siw_)))
	done
	echo "$n"
}
# nothing_left: every object of the runs before is gone (within 10 s)
nothing_left() {
	local n
	for _ in $(seq 1 50); do
		n=$(leftovers)
		[ "$n" = 0 ] && return 0
		sleep 0.2
	done
	echo "$n RDMA objects still listed:"
	rdma resource show qp; rdma resource show cm_id
	ns rdma resource show qp; ns rdma resource show cm_id
	return 1
}

# rping_pair COUNT SIZE [CLIENT_WRAPPER...]: a verified rping; 0 if the
# client validated every ping. The server is left to $srv.
rping_pair() {
	local count=$1 size=$2 rc n
	shift 2
	port=$((port + 1))
	srv_start "$work/srv.log" "$port" \
		rping -s -a "$SIW_IP_A" -p "$port" -V -C "$count" -S "$size" ||
		return 1
	ns timeout -k 5 100 "$@" rping -c -a "$SIW_IP_A" -p "$port" -V -v \
		-C "$count" -S "$size" > "$work/cli.log" 2>&1
	rc=$?
	n=$(grep -c "^ping data: " "$work/cli.log")
	echo "client exit $rc, $n of $count pings validated"
	[ "$rc" = 0 ] && [ "$n" = "$count" ]
}
# no_mismatch: rping -V found no octet that differs (a run cut short
# by a fault is fine, a wrong one is not)
no_mismatch() {
	! grep -qi "mismatch" "$work/cli.log" "$work/srv.log"
}

honest() {
	rping_pair 10 4096 && srv_reap
}

check "load the module" load_siw || t_done
links_up check siw_a siw_b

# 1. allocation failures on both ends. The server may wait for a client
# whose connect failed before it left; it is stopped then. A client
# that does not end within its limit, or data that differs, fails.
fault_rounds() {
	local i ok=0 bad=0 stuck=0 r c
	fail_set 3
	echo 1 > "$tr/events/siw_cm/enable"
	for i in $(seq 1 "$ROUNDS"); do
		port=$((port + 1))
		trace_clear
		if ! srv_start "$work/srv.log" "$port" \
			rping -s -a "$SIW_IP_A" -p "$port" -V -C 20 -S 16384; then
			echo "round $i: the server failed to listen (a fault)"
			continue
		fi
		ip netns exec "$SIW_NS" rping -c -a "$SIW_IP_A" -p "$port" -V \
			-C 20 -S 16384 > "$work/cli.log" 2>&1 &
		c=$!
		for _ in $(seq 1 300); do
			kill -0 "$c" 2>/dev/null || break
			sleep 0.2
		done
		# rping itself may hang in its own cleanup after it was told
		# of an error (a thread joined that waits for events that
		# cannot come); only a client never told is our hang
		if kill -0 "$c" 2>/dev/null; then
			if grep -qi "error" "$work/cli.log"; then
				echo "round $i: rping stuck after an error it got:" \
					"$(grep -i error "$work/cli.log" | head -n 1)"
				stuck=$((stuck + 1))
			else
				echo "round $i: the client was told nothing in 60 s"
				hang_report "$c"
				bad=$((bad + 1))
			fi
			kill -9 "$c"
		fi
		wait "$c"
		r=$?
		[ "$r" = 0 ] && ok=$((ok + 1))
		srv_reap 10 > /dev/null
		no_mismatch || { echo "round $i: wrong data"; bad=$((bad + 1)); }
	done
	echo 0 > "$tr/events/siw_cm/enable"
	echo "$ROUNDS connections under allocation failures: $ok completed," \
		"$((ROUNDS - ok)) failed ($stuck rping stuck after its error);" \
		"$bad hung or wrong; $(fail_count) allocations failed"
	fail_off
	[ "$bad" = 0 ]
}
# hang_report PID: what a client that does not end waits for
hang_report() {
	local t
	fail_off
	echo "--- client:"; cat "$work/cli.log"
	echo "--- server:"; cat "$work/srv.log"
	echo "--- cm_ids:"; rdma resource show cm_id; ns rdma resource show cm_id
	echo "--- QPs:"; rdma resource show qp; ns rdma resource show qp
	for t in /proc/"$1"/task/*; do
		echo "--- task $t: $(cat "$t/wchan")"
		cat "$t/stack"
	done
	echo "--- sockets:"; ss -tan; ns ss -tan
	echo "--- siw_cm trace:"; tail -n 60 "$tr/trace"
	fail_set 3
}
links_failing() {
	local i made=0
	ip link add siw-f0 type veth peer name siw-f1 || return 1
	ip link set siw-f0 up
	fail_set 20
	for i in $(seq 1 20); do
		rdma link add siw_f type siw netdev siw-f0 \
			2>/dev/null && made=$((made + 1))
		rdma link delete siw_f 2>/dev/null
	done
	echo "20 rounds of link add under failing allocations: $made made;" \
		"$(fail_count) allocations failed"
	fail_off
	ip link delete siw-f0
	! rdma link show | grep -q "siw_f"
}
# The debug kernel has fault injection (Debian's has not): there, it
# must be there
if [ -e /sys/kernel/debug/kmemleak ]; then
	check "fault injection is available (/sys/kernel/debug/siw_fail)" \
		fail_set 0 || t_done
	check "rping -V with 3% of siw's allocations failing: every connection ends, no wrong data" \
		fault_rounds
	check "afterwards no RDMA object of those connections is left" nothing_left
	check "and an honest rping -V works" honest

	check "rdma link add and delete under allocation failures leave no device" \
		links_failing
	check "then an honest rping -V works" honest
fi

# 2. netem on both ends
netem_on() {
	tc qdisc add dev "$SIW_IF_A" root netem delay 5ms 2ms loss 2% \
		duplicate 1% reorder 25% 50% &&
	ns tc qdisc add dev "$SIW_IF_B" root netem delay 5ms 2ms loss 2% \
		duplicate 1% reorder 25% 50%
}
netem_off() {
	tc qdisc del dev "$SIW_IF_A" root && ns tc qdisc del dev "$SIW_IF_B" root
}
check "netem on both ends: 5 ms delay, 2% loss, 1% duplicates, reordering" \
	netem_on
netem_traffic() {
	rping_pair 50 32768 && srv_reap
}
check "rping -V of 50 x 32 KiB across netem: every ping validated" \
	netem_traffic
check "netem off" netem_off
check "afterwards no RDMA object is left" nothing_left

# 3. the client killed mid-transfer
killed() {
	local cpid
	port=$((port + 1))
	srv_start "$work/srv.log" "$port" \
		rping -s -a "$SIW_IP_A" -p "$port" -V -C 100000 -S 32768 ||
		return 1
	# ip netns exec execs rping: $! is the client itself
	ip netns exec "$SIW_NS" rping -c -a "$SIW_IP_A" -p "$port" -V \
		-C 100000 -S 32768 > "$work/cli.log" 2>&1 &
	cpid=$!
	sleep 4
	kill -0 "$cpid" || { echo "the client ended early"; return 1; }
	kill -9 "$cpid"
	wait "$cpid" 2>/dev/null
	echo "client killed after 4 s"
	# the server sees the connection end and exits
	srv_ends 30 || { echo "the server did not notice"; return 1; }
}
check "a client killed (SIGKILL) mid-transfer: the server notices and ends" \
	killed
check "afterwards no RDMA object is left" nothing_left
check "and an honest rping -V works" honest

# 4. the netdev down and up under traffic
flap() {
	local cpid
	port=$((port + 1))
	srv_start "$work/srv.log" "$port" \
		rping -s -a "$SIW_IP_A" -p "$port" -V -C 100000 -S 32768 ||
		return 1
	ip netns exec "$SIW_NS" timeout -k 5 90 rping -c -a "$SIW_IP_A" \
		-p "$port" -V -C 100000 -S 32768 > "$work/cli.log" 2>&1 &
	cpid=$!
	sleep 3
	ip link set "$SIW_IF_A" down
	sleep 3
	ip link set "$SIW_IF_A" up
	# TCP may carry the connection over the gap; stop it either way
	sleep 3
	kill "$cpid" 2>/dev/null
	wait "$cpid"
	srv_ends 30 || { echo "the server did not end"; return 1; }
	no_mismatch || { echo "wrong data"; return 1; }
	echo "the transfer over the down/up ended cleanly"
}
check "$SIW_IF_A down for 3 s and up under traffic: the transfer ends cleanly" \
	flap
check "afterwards no RDMA object is left" nothing_left
link_up() {
	for _ in $(seq 1 50); do
		rdma link show siw_a/1 | grep -q "state ACTIVE" && return 0
		sleep 0.2
	done
	rdma link show siw_a/1
	return 1
}
check "siw_a is ACTIVE again" link_up
check "and an honest rping -V works" honest

# 5. rdma link delete, then rmmod, under traffic
busy_start() {
	port=$((port + 1))
	srv_start "$work/srv.log" "$port" \
		rping -s -a "$SIW_IP_A" -p "$port" -V -C 100000 -S 32768 ||
		return 1
	ip netns exec "$SIW_NS" timeout -k 5 90 rping -c -a "$SIW_IP_A" \
		-p "$port" -V -C 100000 -S 32768 > "$work/cli.log" 2>&1 &
	busy=$!
	sleep 3
	kill -0 "$busy"
}
busy_ends() {
	# both ends must notice within 30 s; a hang is a failure
	for _ in $(seq 1 150); do
		kill -0 "$busy" 2>/dev/null || break
		sleep 0.2
	done
	if kill -0 "$busy" 2>/dev/null; then
		echo "the client did not end"
		kill -9 "$busy"
		return 1
	fi
	wait "$busy"
	srv_ends 30 || { echo "the server did not end"; return 1; }
	no_mismatch || { echo "wrong data"; return 1; }
}
link_delete_busy() {
	busy_start || return 1
	timeout 60 rdma link delete siw_a || { echo "link delete failed"; return 1; }
	busy_ends
}
check "rdma link delete siw_a under traffic: it completes, both ends end" \
	link_delete_busy
check "rdma link delete siw_b" ns rdma link delete siw_b
check "afterwards no RDMA object is left" nothing_left
check "rdma link add siw_a and siw_b again" \
	sh -c "rdma link add siw_a type siw netdev $SIW_IF_A &&
	       ip netns exec $SIW_NS rdma link add siw_b type siw netdev $SIW_IF_B"
check "an honest rping -V works" honest
rmmod_busy() {
	local rc
	busy_start || return 1
	timeout 60 rmmod siw
	rc=$?
	# 124: rmmod hung; anything else (done, or refused) is fine
	[ "$rc" = 124 ] && { echo "rmmod did not return"; return 1; }
	echo "rmmod under traffic returned $rc"
	# refused (the processes hold the device): they go on until stopped
	[ "$rc" = 0 ] || kill "$busy"
	busy_ends
}
check "rmmod siw under traffic: it returns, both ends end" rmmod_busy
unloaded() {
	if grep -q "^siw " /proc/modules; then
		echo "rmmod was refused: again, now that nothing holds it"
		unload_siw
	fi
}
check "the module is unloaded (again if it was refused)" unloaded
check "it loads again" load_siw
check "rdma link add siw_a and siw_b" \
	sh -c "rdma link add siw_a type siw netdev $SIW_IF_A &&
	       ip netns exec $SIW_NS rdma link add siw_b type siw netdev $SIW_IF_B"
check "an honest rping -V works" honest
check "rdma link delete siw_b" ns rdma link delete siw_b
check "rdma link delete siw_a" rdma link delete siw_a
check "unload the module" unload_siw
kmemleak_scan
t_done
