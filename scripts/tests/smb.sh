#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# SMB Direct (SMB3 over RDMA, MS-SMBD) over siw, on the debug kernel:
# Debian's kernels build the SMB client and ksmbd without their RDMA
# transports (Documentation/consumers.rst). ksmbd serves a tmpfs; the
# client mounts it with -o rdma,vers=3.1.1.
#
# Where the ends are: on 6.1 both the client (smbdirect.c) and ksmbd
# (transport_rdma.c) make their rdma_cm ids in the initial network
# namespace, whatever the namespace of the mount or of ksmbd.mountd, and
# the RDMA core takes a connection on a listener only for a local
# address in the listener's namespace (rdma_translate_ip() in
# iw_conn_req_handler()): a connection to ksmbd through smb_b, whose
# address is in $SIW_NS, is refused before ksmbd sees it (an MPA Reply
# with R set). So on one machine client and server meet on a local
# address, $SIW_IP_A, through one device, smb_a: two QPs whose stream
# runs over a local TCP connection, as iSER and NVMe-oF do
# (consumers.rst). ksmbd listens on port 5445 (iWARP's SMB Direct port)
# of every RDMA device; its TCP listener (port 445) is there too.
#
# The proof that a mount runs over RDMA: the client's
# /proc/fs/cifs/DebugData lists an SMBDirect transport for it, smb_a's
# counters (rdma statistic) grow by at least the data moved, and the
# SMB Direct layer's RDMA reads and writes are counted: 6.1's SMB
# Direct keeps no such counters of its own, so kprobes count calls of
# ksmbd's smb_direct_rdma_read() (the server pulls a client's write
# with RDMA Reads) and smb_direct_rdma_write() (it pushes a read's data
# with RDMA Writes), and of the client's smbd_register_mr() (a buffer
# registered for the peer to read or write), in kprobe_profile.
#
#   smb.sh [lean|full] [PLANT]
#   lean   the short set (the default in a batch; about 3 minutes on the
#          debug kernel under TCG): files of 1 octet to 16 MiB, 40 small
#          files, a second mount, the unmount under a writer
#   full   (the default by hand; what `make check-long` runs, about 7
#          minutes) files up to 64 MiB, 300 small files, and the
#          teardowns under a writer: unmount, `rdma link delete` of the
#          device (the server's, and on one machine the client's too),
#          ksmbd stopped and started again
#   PLANT  a planted fault, for showing that the test fails (by hand,
#          never in a batch): "tcp", every mount over TCP instead of
#          RDMA (mount without -o rdma): the RDMA proof must fail, and
#          nothing else; "octet", one octet of the server's copy of each
#          file changed before it is read back: the comparisons must
#          fail, and nothing else
#
# ksmbd of Debian's 6.1.192-3 needs two fixes to get through this
# (scripts/config/debug-kernel-patches/); the debug kernel carries them.
# shellcheck source=guest-lib.sh
. "$(dirname "$0")/guest-lib.sh"
# shellcheck source=consumer-lib.sh
. "$(dirname "$0")/consumer-lib.sh"

if [ -n "${SIW_BATCH:-}" ]; then MODE=lean; else MODE=full; fi
MODE=${1:-$MODE}
PLANT=${2:-}
case $MODE in lean | full) ;; *) echo "smb.sh: lean or full, not $MODE"; exit 2 ;; esac
case $PLANT in '' | tcp | octet) ;; *) echo "smb.sh: no planted fault $PLANT"; exit 2 ;; esac
if [ -n "$PLANT" ] && [ -n "${SIW_BATCH:-}" ]; then
	echo "smb.sh: a planted fault is for a run by hand, not a batch"
	exit 2
fi
[ -n "$PLANT" ] && t_log "PLANTED FAULT: $PLANT (this run must fail)"

SHARE=/srv/siw-smb
MNT=/mnt/siw-smb
MNT2=/mnt/siw-smb2
CONF_DIR=/tmp/siw-smb-conf
CONF=$CONF_DIR/ksmbd.conf
PWDB=$CONF_DIR/ksmbdpwd.db
SMB_USER=root
SMB_PASS=siw-smb-test
SMB_PORT=5445
WORK=/tmp/siw-smb
WRITER_ENDED=
KP=/sys/kernel/tracing
# bounds (seconds) on what may not hang
MOUNT_LIMIT=120 UMOUNT_LIMIT=60 DELETE_LIMIT=120 ERROR_LIMIT=180
RECOVER_LIMIT=180

if [ "$MODE" = full ]; then
	SIZES="1 2 4095 4096 4097 65537 1048576 16777216 67108864"
	SMALL=300 PAR_MB=32
else
	SIZES="1 4095 4096 4097 65537 1048576 16777216"
	SMALL=40 PAR_MB=8
fi
BIG=${SIZES##* }

mkdir -p "$WORK" "$MNT" "$MNT2" "$SHARE" "$CONF_DIR"

# --- counters ------------------------------------------------------------

# ctr DEV NAME [CMD...]: siw device DEV's counter NAME, read with CMD
ctr() {
	local dev=$1 name=$2
	shift 2
	"$@" rdma statistic show link "$dev/1" | awk -v n="$name" '
		{ for (i = 3; i < NF; i += 2) if ($i == n) v = $(i + 1) }
		END { print v + 0 }'
}

# The SMB Direct layer's calls, counted by kprobes: srv_rdma_read and
# srv_rdma_write on ksmbd's side, cli_reg_mr on the client's
KPROBES="srv_rdma_read:smb_direct_rdma_read srv_rdma_write:smb_direct_rdma_write
	cli_reg_mr:smbd_register_mr"

kprobes_on() {
	local p
	for p in $KPROBES; do
		echo "p:siwsmb/${p%%:*} ${p#*:}" >> "$KP/kprobe_events" || return 1
	done
	echo 1 > "$KP/events/siwsmb/enable"
}

kprobes_off() {
	local p
	echo 0 > "$KP/events/siwsmb/enable" 2>/dev/null
	for p in $KPROBES; do
		echo "-:siwsmb/${p%%:*}" >> "$KP/kprobe_events" 2>/dev/null
	done
}

# hits NAME: how often the kprobe NAME was hit
hits() {
	awk -v n="$1" '$1 == n || $1 == "siwsmb/" n { print $2; f = 1 }
		END { if (!f) print 0 }' "$KP/kprobe_profile"
}

# snap: every counter smb.sh looks at, into the array at
declare -A at
snap() {
	at[tx]=$(ctr smb_a tx_octets)
	at[rx]=$(ctr smb_a rx_octets)
	at[srv_rdma_read]=$(hits srv_rdma_read)
	at[srv_rdma_write]=$(hits srv_rdma_write)
	at[cli_reg_mr]=$(hits cli_reg_mr)
}

# grew KEY MIN: the counter KEY grew by at least MIN since the last
# snap (the array was), saying by how much
declare -A was
grew() {
	local d=$((at[$1] - was[$1]))
	echo "$1: +$d (at least $2 wanted)"
	[ "$d" -ge "$2" ]
}

snap_before() {
	local k
	snap
	for k in "${!at[@]}"; do was[$k]=${at[$k]}; done
}

# --- server and client ---------------------------------------------------

# server_listening: ksmbd's rdma_cm listen on port 5445 of smb_a
server_listening() {
	rdma resource show cm_id 2>/dev/null |
		grep -q "link smb_a/[-0-9]* .*state LISTEN .*:$SMB_PORT "
}

# server_up: ksmbd.mountd with a share "siw" on the tmpfs $SHARE, a
# user, and the kernel server listening for SMB Direct on smb_a
# (ksmbd-tools 3.5's options: scripts/setup says why not Debian 12's)
MOUNTD=
server_up() {
	local i
	mountpoint -q "$SHARE" ||
		mount -t tmpfs -o size=768m siw-smb "$SHARE" || return 1
	# tmpfs on 6.1 keeps no user.* xattrs, where ksmbd would store DOS
	# attributes
	cat > "$CONF" <<-EOF
	[global]
		server signing = disabled
		smb3 encryption = no
	[siw]
		path = $SHARE
		writeable = yes
		store dos attributes = no
	EOF
	[ -f "$PWDB" ] ||
		ksmbd.adduser -a -p "$SMB_PASS" -P "$PWDB" -C "$CONF" "$SMB_USER" ||
		return 1
	mountd_start
}

mountd_start() {
	local i
	ksmbd.mountd -n -C "$CONF" -P "$PWDB" > "$WORK/mountd.log" 2>&1 &
	MOUNTD=$!
	for i in $(seq 1 120); do
		server_listening && return 0
		kill -0 "$MOUNTD" 2>/dev/null || break
		sleep 0.5
	done
	echo "ksmbd does not listen on smb_a:$SMB_PORT; mountd:"
	tail -n 5 "$WORK/mountd.log"
	rdma resource show cm_id
	return 1
}

# server_stop: ksmbd.control's shutdown, and mountd gone, in 60 s
server_stop() {
	local i
	timeout 60 ksmbd.control -s || echo "ksmbd.control -s: exit status $?"
	for i in $(seq 1 120); do
		kill -0 "$MOUNTD" 2>/dev/null || break
		sleep 0.5
	done
	if kill -0 "$MOUNTD" 2>/dev/null; then
		echo "ksmbd.mountd still runs 60 s after the shutdown: killed"
		kill "$MOUNTD"
		wait "$MOUNTD" 2>/dev/null
		return 1
	fi
	wait "$MOUNTD" 2>/dev/null
	for i in $(seq 1 60); do
		server_listening || return 0
		sleep 0.5
	done
	echo "ksmbd still listens on smb_a 30 s after its shutdown"
	return 1
}

# smb_mount DIR [OPTION]: the share on DIR over SMB Direct, with OPTION
# added; over TCP when the planted fault is "tcp"
smb_mount() {
	local dir=$1 opts
	opts="vers=3.1.1,username=$SMB_USER,password=$SMB_PASS${2:+,$2}"
	[ "$PLANT" = tcp ] || opts="rdma,$opts"
	timeout "$MOUNT_LIMIT" mount -t cifs "//$SIW_IP_A/siw" "$dir" \
		-o "$opts" 2> "$WORK/mount.err" && return 0
	cat "$WORK/mount.err"
	dmesg | grep -iE "cifs|smb|ksmbd" | tail -n 10
	return 1
}

# smb_umount DIR: unmount in UMOUNT_LIMIT seconds, retried while busy
smb_umount() {
	local i
	for i in $(seq 1 $((UMOUNT_LIMIT * 5))); do
		timeout "$UMOUNT_LIMIT" umount "$1" 2> "$WORK/umount.err" &&
			return 0
		mountpoint -q "$1" || return 0
		sleep 0.2
	done
	echo "umount $1: not done in ${UMOUNT_LIMIT}s: $(cat "$WORK/umount.err")"
	return 1
}

# smbdirect_conns: how many SMBDirect transports the client lists
smbdirect_conns() {
	grep -c "^SMBDirect (in hex) protocol version" /proc/fs/cifs/DebugData
}

# rsize_of DIR / wsize_of DIR: the mount's negotiated I/O sizes
opt_of() {
	awk -v m="$1" '$2 == m { print $4 }' /proc/mounts | tr , '\n' |
		sed -n "s/^$2=//p"
}

# --- data ------------------------------------------------------------------

# src SIZE: a file of SIZE random octets in $WORK (made once)
src() {
	local f=$WORK/src.$1
	[ -f "$f" ] || head -c "$1" /dev/urandom > "$f"
	echo "$f"
}

sum() { sha256sum < "$1" | cut -d' ' -f1; }

# plant_octet FILE: with the planted fault "octet", change one octet of
# the server's FILE (its middle) behind the client's back
plant_octet() {
	local f=$1 off b
	[ "$PLANT" = octet ] || return 0
	off=$(( $(stat -c %s "$f") / 2 ))
	b=$(od -An -tu1 -j "$off" -N1 "$f" | tr -d ' ')
	# shellcheck disable=SC2059 # the octet, as an octal escape
	printf "\\$(printf %03o $(( (b + 1) % 256 )))" |
		dd of="$f" bs=1 seek="$off" conv=notrunc status=none
	echo "planted: octet $off of $f changed"
}

# file_check SIZE: a file of SIZE octets written through the mount
# buffered (with fsync) and with O_DIRECT, each compared by sha256 on
# the server, then read back after a cache drop buffered and with
# O_DIRECT
file_check() {
	local s=$1 f want got rc=0
	f=$(src "$s")
	want=$(sum "$f")
	dd if="$f" of="$MNT/b.$s" bs=1M conv=fsync status=none || return 1
	dd if="$f" of="$MNT/d.$s" bs=4M oflag=direct status=none || return 1
	plant_octet "$SHARE/b.$s"
	plant_octet "$SHARE/d.$s"
	for got in b d; do
		[ "$(sum "$SHARE/$got.$s")" = "$want" ] ||
			{ echo "$s octets: the server's $got.$s differs"; rc=1; }
	done
	echo 3 > /proc/sys/vm/drop_caches
	[ "$(sum "$MNT/b.$s")" = "$want" ] ||
		{ echo "$s octets: b.$s read back buffered differs"; rc=1; }
	got=$(dd if="$MNT/d.$s" bs=4M iflag=direct status=none |
		sha256sum | cut -d' ' -f1)
	[ "$got" = "$want" ] ||
		{ echo "$s octets: d.$s read back with O_DIRECT differs"; rc=1; }
	# the big ones stay for the RDMA read and write checks
	[ "$s" = "$BIG" ] || rm -f "$MNT/b.$s" "$MNT/d.$s"
	return $rc
}

# small_files: $SMALL files of 1 to 8192 octets copied to the share,
# compared on the server and, after a cache drop, through the mount
small_files() {
	local i d=$WORK/small
	rm -rf "$d"
	mkdir -p "$d"
	for i in $(seq 1 "$SMALL"); do
		head -c $((RANDOM % 8192 + 1)) /dev/urandom > "$d/f$i"
	done
	(cd "$d" && sha256sum -- *) > "$WORK/small.sum"
	cp -r "$d" "$MNT/small" || return 1
	sync
	for i in $(seq 1 "$SMALL"); do plant_octet "$SHARE/small/f$i" > /dev/null; done
	(cd "$SHARE/small" && sha256sum --quiet -c "$WORK/small.sum") ||
		{ echo "the server's copies differ"; return 1; }
	echo 3 > /proc/sys/vm/drop_caches
	(cd "$MNT/small" && sha256sum --quiet -c "$WORK/small.sum") ||
		{ echo "read back through the mount, they differ"; return 1; }
	rm -rf "$MNT/small"
}

# parallel_io: a file of PAR_MB MiB written through each mount at once,
# then read back through the other one at once
parallel_io() {
	local f want p1 p2 rc=0 m n
	f=$(src $((PAR_MB << 20)))
	want=$(sum "$f")
	dd if="$f" of="$MNT/p1" bs=1M oflag=direct status=none & p1=$!
	dd if="$f" of="$MNT2/p2" bs=1M conv=fsync status=none & p2=$!
	wait $p1 || rc=1
	wait $p2 || rc=1
	[ $rc = 0 ] || { echo "a writer failed"; return 1; }
	plant_octet "$SHARE/p1"
	echo 3 > /proc/sys/vm/drop_caches
	sha256sum < "$MNT2/p1" > "$WORK/p1.sum" & p1=$!
	sha256sum < "$MNT/p2" > "$WORK/p2.sum" & p2=$!
	wait $p1 $p2
	for m in p1 p2; do
		n=$(cut -d' ' -f1 < "$WORK/$m.sum")
		[ "$n" = "$want" ] || { echo "$m read back differs"; rc=1; }
		[ "$(sum "$SHARE/$m")" = "$want" ] ||
			{ echo "$m differs on the server"; rc=1; }
	done
	rm -f "$MNT/p1" "$MNT/p2"
	return $rc
}

# --- a writer for the teardowns ---------------------------------------------

# writer_start DIR: writes files of 256 KiB into DIR, each with fsync,
# and logs "NAME SUM" in $WORK/synced once its fsync returned, until a
# write fails; WRITER is its pid. Succeeds once 3 files are synced.
WRITER=
writer_start() {
	local dir=$1 i
	rm -f "$WORK/synced" "$WORK/writer.err"
	touch "$WORK/synced"
	mkdir -p "$dir" || return 1
	(
		n=0
		while :; do
			n=$((n + 1))
			head -c 262144 /dev/urandom > "$WORK/w.src"
			dd if="$WORK/w.src" of="$dir/w$n" bs=64k conv=fsync \
				status=none 2>> "$WORK/writer.err" || break
			echo "w$n $(sum "$WORK/w.src")" >> "$WORK/synced"
		done
	) &
	WRITER=$!
	for i in $(seq 1 240); do
		[ "$(wc -l < "$WORK/synced")" -ge 3 ] && return 0
		kill -0 "$WRITER" 2>/dev/null || break
		sleep 0.5
	done
	echo "the writer synced $(wc -l < "$WORK/synced") file(s) in 120 s: $(tail -n 2 "$WORK/writer.err")"
	return 1
}

# writer_ends SECONDS: the writer ended (a write failed) within SECONDS
writer_ends() {
	local i
	for i in $(seq 1 $(($1 * 2))); do
		if ! kill -0 "$WRITER" 2>/dev/null; then
			wait "$WRITER"
			echo "the writer ended after $(wc -l < "$WORK/synced") synced file(s): $(tail -n 1 "$WORK/writer.err")"
			WRITER=
			return 0
		fi
		sleep 0.5
	done
	echo "the writer still runs after ${1}s"
	return 1
}

# writer_moves SECONDS: the writer synced another file, or ended,
# within SECONDS
writer_moves() {
	local n i
	n=$(wc -l < "$WORK/synced")
	for i in $(seq 1 $(($1 * 2))); do
		[ "$(wc -l < "$WORK/synced")" -gt "$n" ] && return 0
		kill -0 "$WRITER" 2>/dev/null || return 0
		sleep 0.5
	done
	echo "the writer neither synced a file nor ended in ${1}s"
	return 1
}

writer_kill() {
	[ -n "$WRITER" ] || return 0
	kill "$WRITER" 2>/dev/null
	wait "$WRITER" 2>/dev/null
	WRITER=
}

# synced_intact DIR: every file the writer logged as synced is on the
# server, in $SHARE/DIR, with its sum
synced_intact() {
	local name want n=0 bad=0
	while read -r name want; do
		n=$((n + 1))
		plant_octet "$SHARE/$1/$name" > /dev/null
		[ "$(sum "$SHARE/$1/$name" 2>/dev/null)" = "$want" ] ||
			{ echo "$1/$name: not what the writer synced"; bad=1; }
	done < "$WORK/synced"
	echo "$n synced file(s) checked on the server"
	[ $n -gt 0 ] && [ $bad = 0 ]
}

# io_works DIR SECONDS: a file of 1 MiB written and read back through
# DIR, tried until it works or SECONDS pass (the client reconnects);
# no attempt outlives the SECONDS
io_works() {
	local f want i=0 end=$((SECONDS + $2)) left
	f=$(src 1048576)
	want=$(sum "$f")
	while left=$((end - SECONDS)); [ "$left" -gt 0 ]; do
		i=$((i + 1))
		if timeout "$left" dd if="$f" of="$1/again" bs=1M conv=fsync \
			status=none 2> "$WORK/again.err" &&
		   echo 3 > /proc/sys/vm/drop_caches &&
		   left=$((end - SECONDS)) && [ "$left" -gt 0 ] &&
		   [ "$(timeout "$left" sha256sum < "$1/again" | cut -d' ' -f1)" = "$want" ]; then
			echo "I/O works again after ${i} attempt(s)"
			rm -f "$1/again"
			return 0
		fi
		sleep 1
	done
	echo "no working I/O through $1 in ${2}s ($i attempts): $(tail -n 1 "$WORK/again.err")"
	return 1
}

# --- the run ----------------------------------------------------------------

t_check "load siw" load_siw || t_done
t_check "rdma link add smb_a on $SIW_IF_A" \
	rdma link add smb_a type siw netdev "$SIW_IF_A" || t_done
t_check "kprobes on the SMB Direct layer's RDMA read, write and registration" \
	kprobes_on
if ! check "ksmbd serves a share, listening for SMB Direct on smb_a:$SMB_PORT" \
	server_up; then
	t_done
fi

if [ "$PLANT" = tcp ]; then how="-o vers=3.1.1 (planted: no rdma)"
else how="-o rdma,vers=3.1.1"; fi
if ! check "mount $how //$SIW_IP_A/siw" smb_mount "$MNT"; then
	server_stop
	t_done
fi
cp /proc/fs/cifs/DebugData "$SIW_OUT/DebugData.txt" 2>/dev/null
grep -A3 "^SMBDirect" /proc/fs/cifs/DebugData
t_check "DebugData lists the mount's SMBDirect transport" \
	test "$(smbdirect_conns)" -ge 1
# MS-SMBD 1.0 (0x100); SMBD_CONNECTED is 2 in 6.1's smbdirect.h
t_check "DebugData: SMB Direct 1.0, the transport connected (status 2)" \
	grep -q "^SMBDirect (in hex) protocol version: 100 transport status: 2$" \
	/proc/fs/cifs/DebugData
# the connection the mount made: the client's QP and ksmbd's on smb_a
rdma resource show qp link smb_a/1 | tee "$WORK/qp"
t_check "two RC QPs on smb_a, the client's and ksmbd's" \
	test "$(grep -c "type RC" "$WORK/qp")" -ge 2
wsize=$(opt_of "$MNT" wsize) rsize=$(opt_of "$MNT" rsize)
echo "negotiated: rsize=$rsize wsize=$wsize"

for s in $SIZES; do
	[ "$s" = "$BIG" ] && snap_before
	check "$s octets: written buffered and direct, read back buffered and direct, sha256 alike on both ends" \
		file_check "$s"
done
snap
# The big file went out twice (buffered, direct) and came back twice,
# each time through smb_a: sent by one of its QPs and received by the
# other, so smb_a sent and received it at least four times over (RDMA
# Read Responses to ksmbd's Reads, ksmbd's RDMA Writes); and the SMB
# Direct layer counted at least one RDMA Read a wsize of the writes and
# one RDMA Write an rsize of the reads, and the client registered a
# buffer for each
t_check "siw counters: smb_a sent and received the big file four times over" \
	eval 'grew tx $((4 * BIG)) && grew rx $((4 * BIG))'
t_check "SMB Direct: ksmbd pulled the big writes with RDMA Reads (one a wsize at least)" \
	grew srv_rdma_read $((2 * BIG / ${wsize:-1}))
t_check "SMB Direct: ksmbd pushed the big reads with RDMA Writes (one an rsize at least)" \
	grew srv_rdma_write $((2 * BIG / ${rsize:-1}))
t_check "SMB Direct: the client registered a buffer for each" \
	grew cli_reg_mr $((2 * BIG / ${wsize:-1} + 2 * BIG / ${rsize:-1}))
rm -f "$MNT/b.$BIG" "$MNT/d.$BIG"

check "$SMALL small files, compared on the server and read back" small_files

# a second mount of the share with a connection of its own
if check "a second mount in parallel (nosharesock), a connection of its own" \
	smb_mount "$MNT2" nosharesock; then
	t_check "DebugData lists two SMBDirect transports" \
		test "$(smbdirect_conns)" -ge 2
	check "$PAR_MB MiB through each mount at once, read back through the other" \
		parallel_io
	t_check "unmount the second mount" smb_umount "$MNT2"
fi

# Teardown (a): the client unmounts after sync while a writer runs;
# every file the writer saw synced must be on the server, intact
if check "teardown (a): a writer syncs files on the mount" \
	writer_start "$MNT/ta"; then
	sync
	check "teardown (a): unmount after sync under the writer (${UMOUNT_LIMIT} s)" \
		smb_umount "$MNT"
	t_check "teardown (a): the writer's next file fails (${ERROR_LIMIT} s)" \
		writer_ends "$ERROR_LIMIT"
	writer_kill
	t_check "teardown (a): every file the writer synced is intact on the server" \
		synced_intact ta
else
	writer_kill
	smb_umount "$MNT"
fi

if [ "$MODE" = full ]; then
	# Teardown (b): the device deleted under a writer (the server's,
	# and on one machine the client's too). The removal must end in
	# DELETE_LIMIT; the client gets errors (the writer stops) or waits
	# for a reconnect, which must come once the device is back; every
	# file synced before stays intact.
	if check "teardown (b): mount again" smb_mount "$MNT" &&
	   check "teardown (b): a writer syncs files" writer_start "$MNT/tb"; then
		if ! check "teardown (b): rdma link delete smb_a under the writer (${DELETE_LIMIT} s)" \
			link_delete "$DELETE_LIMIT" smb_a; then
			# the device is gone or half gone: nothing after
			# this can be judged, and the client's I/O may
			# wait for ever (so the writer is not waited for)
			kill "$WRITER" 2>/dev/null
			t_done
		fi
		WRITER_ENDED=
		writer_ends "$ERROR_LIMIT" && WRITER_ENDED=1
		t_check "teardown (b): rdma link add smb_a again" \
			rdma link add smb_a type siw netdev "$SIW_IF_A"
		t_check "teardown (b): ksmbd listens on the new smb_a" \
			eval 'for i in $(seq 1 60); do server_listening && break; sleep 0.5; done; server_listening'
		if [ -z "${WRITER_ENDED:-}" ]; then
			t_check "teardown (b): the writer, stuck while the device was gone, goes on or ends once it is back (${RECOVER_LIMIT} s)" \
				writer_moves "$RECOVER_LIMIT"
		else
			t_pass "teardown (b): the writer got an error within ${ERROR_LIMIT} s"
		fi
		writer_kill
		check "teardown (b): the client reconnects: I/O works again (${RECOVER_LIMIT} s)" \
			io_works "$MNT" "$RECOVER_LIMIT"
		t_check "teardown (b): every file the writer synced is intact on the server" \
			synced_intact tb
	fi
	writer_kill
	t_check "teardown (b): unmount (${UMOUNT_LIMIT} s)" smb_umount "$MNT"

	# Teardown (c): ksmbd stopped and started again under a writer:
	# the client recovers, or fails cleanly (errors, an unmount)
	if check "teardown (c): mount again" smb_mount "$MNT" &&
	   check "teardown (c): a writer syncs files" writer_start "$MNT/tc"; then
		check "teardown (c): ksmbd stopped under the writer (60 s)" server_stop
		WRITER_ENDED=
		writer_ends "$ERROR_LIMIT" && WRITER_ENDED=1
		check "teardown (c): ksmbd started again" mountd_start
		if [ -z "${WRITER_ENDED:-}" ]; then
			t_check "teardown (c): the writer, stuck while ksmbd was gone, goes on or ends once it is back (${RECOVER_LIMIT} s)" \
				writer_moves "$RECOVER_LIMIT"
		else
			t_pass "teardown (c): the writer got an error within ${ERROR_LIMIT} s"
		fi
		writer_kill
		if io_works "$MNT" "$RECOVER_LIMIT"; then
			t_pass "teardown (c): the client recovered: I/O works again"
		else
			t_pass "teardown (c): the client did not recover: it failed cleanly (I/O errors; the unmount below must work)"
		fi
		t_check "teardown (c): every file the writer synced is intact on the server" \
			synced_intact tc
	fi
	writer_kill
	t_check "teardown (c): unmount (${UMOUNT_LIMIT} s)" smb_umount "$MNT"
fi

t_check "ksmbd shut down" server_stop
kprobes_off
umount "$SHARE"
t_check "rdma link delete smb_a" link_delete "$DELETE_LIMIT" smb_a
t_check "unload siw" unload_siw
kmemleak_scan
t_done
