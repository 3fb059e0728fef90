# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Helpers for the kernel consumer scripts (nfs.sh, iser.sh, nvmeof.sh,
# consumer-teardown.sh); sourced inside the guest after guest-lib.sh.

NFS_EXPORT=/srv/siw-nfs
NFS_PORT=20049
NVME_NQN=nqn.2014-08.org.siw.test:nvme
NVME_PORT=4420

# `ip netns exec` would also give the command a mount namespace of its
# own, which a mount made there would not outlive; nsenter changes only
# the network namespace
ns() { nsenter --net="/run/netns/$SIW_NS" "$@"; }

# consumer_load PEER: siw (ours), usiw (upstream siw), rxe or a siw.ko
# path; sets CONSUMER_TYPE, the link type for `rdma link add`
consumer_load() {
	case $1 in
	siw)	t_check "load siw" load_siw; CONSUMER_TYPE=siw ;;
	usiw)	t_check "load upstream siw" load_siw "$SIW_UPSTREAM_KO"
		CONSUMER_TYPE=siw ;;
	rxe)	t_check "load rdma_rxe" modprobe -a ib_core rdma_ucm rdma_rxe
		CONSUMER_TYPE=rxe ;;
	/*.ko)	t_check "load $1" load_siw "$1"; CONSUMER_TYPE=siw ;;
	*)	t_fail "unknown peer $1"; return 1 ;;
	esac
}

# consumer_links PREFIX: a device PREFIX_a on SIW_IF_A and PREFIX_b on
# SIW_IF_B (in SIW_NS)
consumer_links() {
	t_check "$PEER: device on $SIW_IF_A" \
		rdma link add "$1_a" type "$CONSUMER_TYPE" netdev "$SIW_IF_A"
	t_check "$PEER: device on $SIW_IF_B (in $SIW_NS)" \
		ns rdma link add "$1_b" type "$CONSUMER_TYPE" netdev "$SIW_IF_B"
}

# link_delete LIMIT DEV [ns]: rdma link delete DEV (in SIW_NS with ns),
# ended after LIMIT seconds. The removal waits until every consumer let
# go of the device: when it takes over 30 s, what still holds it (the
# cm_ids and QPs the RDMA core lists, the NFS clients, the removal's
# kernel stack) goes to the log, to say whose it is.
link_delete() {
	local limit=$1 dev=$2 p i rc
	if [ "${3:-}" = ns ]; then
		ns timeout "$limit" rdma link delete "$dev" &
	else
		timeout "$limit" rdma link delete "$dev" &
	fi
	p=$!
	for i in $(seq 1 "$limit"); do
		kill -0 "$p" 2>/dev/null || break
		[ "$i" = 30 ] || { sleep 1; continue; }
		echo "rdma link delete $dev: still waiting after 30 s; holding on:"
		rdma resource show cm_id; ns rdma resource show cm_id
		rdma resource show qp; ns rdma resource show qp
		cat /proc/fs/nfsfs/servers 2>/dev/null
		ns cat /proc/fs/nfsfs/servers 2>/dev/null
		cat /proc/"$(pgrep -n -x rdma)"/stack 2>/dev/null
		sleep 1
	done
	wait "$p"
	rc=$?
	[ $rc = 0 ] || echo "rdma link delete $dev: exit status $rc (124: not done in ${limit}s)"
	return $rc
}

# consumer_rounds N FUNC: FUNC 1 .. FUNC N until one fails; prints how
# many passed
consumer_rounds() {
	local r ok=0
	for r in $(seq 1 "$1"); do
		"$2" "$r" >&2 || break
		ok=$r
	done
	echo "$ok"
}

# NFS_SERVER_NS: the network namespace nfsd runs in, with its rpcbind
# and mountd: empty (the default) for the initial one, else a name under
# /run/netns (say $SIW_NS). nfsd is per network namespace, and so is
# its control filesystem: the nfsd filesystem on /proc/fs/nfsd belongs
# to the namespace of the task that mounted it, and rpc.nfsd knows no
# other place. Mount namespaces are shared (see ns), so one nfsd at a
# time: nfs_server_up mounts it for NFS_SERVER_NS, nfs_server_down
# unmounts one it mounted in another namespace.
#
# A server in $SIW_NS is for the NFS client here, in the initial one
# (bench_nfs_up of perf-lib.sh): upstream siw makes each TCP socket
# with sock_create(), in the namespace of the task that calls it, which
# for the client's connection is a kernel worker of the initial
# namespace (xprtrdma connects from a workqueue) and for nfsd's listener
# the task that writes "rdma PORT" to portlist. Each of them is then in
# the namespace that has the address it binds. With nfsd here and the
# client in $SIW_NS, upstream siw's connecting socket is made here,
# where $SIW_IP_B does not exist: bind() fails, EADDRNOTAVAIL ("Cannot
# assign requested address"). Ours makes its sockets in the device's
# netdev's namespace and works either way.
NFS_SERVER_NS=${NFS_SERVER_NS:-}
NFS_SERVER_NS_UP=

# nfs_srv COMMAND...: run COMMAND in the namespace of the nfsd that is
# up (NFS_SERVER_NS_UP), or that nfs_server_up starts (NFS_SERVER_NS)
nfs_srv() {
	local n=${NFS_SERVER_NS_UP:-$NFS_SERVER_NS}
	if [ -n "$n" ]; then
		nsenter --net="/run/netns/$n" "$@"
	else
		"$@"
	fi
}

# rpc_wait PROGRAM: until rpcbind (in nfsd's namespace) lists PROGRAM
# (started in the background, it registers a moment later)
rpc_wait() {
	local i
	for i in $(seq 1 30); do
		nfs_srv rpcinfo -p 127.0.0.1 2>/dev/null | grep -qw "$1" && return 0
		sleep 1
	done
	echo "$1 is not registered with rpcbind"
	return 1
}

# nfs_server_up [SIZE]: nfsd in NFS_SERVER_NS (the initial namespace
# by default) exporting a tmpfs of SIZE (mount's units; 256m) on
# NFS_EXPORT, listening for rdma on NFS_PORT (and for tcp on 2049,
# nfsd's default), with NFSD_THREADS threads (4)
nfs_server_up() {
	local pre=()
	modprobe -a nfsd rpcrdma nfsv3 nfsv4 2>/dev/null
	mkdir -p "$NFS_EXPORT" /var/lib/nfs/rpc_pipefs /run/rpcbind
	mount -t tmpfs -o "size=${1:-256m}" siw-nfs "$NFS_EXPORT" || return 1
	NFS_SERVER_NS_UP=$NFS_SERVER_NS
	if [ -n "$NFS_SERVER_NS_UP" ]; then
		pre=(nsenter --net="/run/netns/$NFS_SERVER_NS_UP")
		# the nfsd filesystem of that namespace, not of this one
		! mountpoint -q /proc/fs/nfsd || umount /proc/fs/nfsd || return 1
		nfs_srv mount -t nfsd nfsd /proc/fs/nfsd || return 1
	else
		mountpoint -q /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd
	fi
	mountpoint -q /var/lib/nfs/rpc_pipefs ||
		mount -t rpc_pipefs sunrpc /var/lib/nfs/rpc_pipefs
	# a simple command, not a function, in the background, and nsenter
	# execs the daemon: $! is the daemon's pid, for nfs_server_down
	"${pre[@]}" rpcbind -f -w &
	NFS_RPCBIND_PID=$!
	rpc_wait portmapper || return 1
	# fsid=0: the export is NFSv4's pseudo root, so that no parent
	# directory (on the guest's overlayfs, which nfsd cannot export)
	# has to be walked
	echo "$NFS_EXPORT 192.0.2.0/24(rw,no_root_squash,insecure,fsid=0,no_subtree_check)" \
		> /etc/exports
	nfs_srv exportfs -ra || return 1
	"${pre[@]}" rpc.mountd -F --no-udp &
	NFS_MOUNTD_PID=$!
	rpc_wait mountd || return 1
	# the shortest grace period (10 s): nfsd grants no delegation and
	# no new NFSv4 open during grace
	nfs_srv rpc.nfsd -G 10 -L 10 "${NFSD_THREADS:-4}" || return 1
	# the writer's namespace is where upstream siw makes the
	# listener's socket
	nfs_srv sh -c "echo rdma $NFS_PORT > /proc/fs/nfsd/portlist" &&
		grep -q "rdma $NFS_PORT" /proc/fs/nfsd/portlist
}

nfs_server_down() {
	nfs_srv rpc.nfsd 0
	nfs_srv exportfs -ua
	kill "$NFS_MOUNTD_PID" "$NFS_RPCBIND_PID"
	wait "$NFS_MOUNTD_PID" "$NFS_RPCBIND_PID" 2>/dev/null
	umount "$NFS_EXPORT"
	# another namespace's nfsd filesystem: off /proc/fs/nfsd, so that
	# a server here mounts its own
	[ -z "$NFS_SERVER_NS_UP" ] || umount /proc/fs/nfsd
	NFS_SERVER_NS_UP=
}

# nfsd's view of the client with an open delegation: its info file
deleg_client_info() {
	local c
	for c in /proc/fs/nfsd/clients/*; do
		grep -q "type: deleg" "$c/states" 2>/dev/null && cat "$c/info"
	done
}

# deleg_hold FILE: keep FILE (on an NFSv4.1+ mount) open for reading in
# the background until the client holds a read delegation; the first
# OPEN may race the backchannel's setup, and nfsd grants no delegation
# before the backchannel is up, so open again until one is held (30 s).
# Sets deleg_pid, the holder, left empty when none was granted.
deleg_hold() {
	local i
	for i in $(seq 1 30); do
		# the open file is the point: sleep holds it (and the delegation)
		# shellcheck disable=SC2217
		sleep 1000 < "$1" &
		deleg_pid=$!
		sleep 1
		deleg_client_info | grep -q . && return 0
		kill "$deleg_pid"
		wait "$deleg_pid" 2>/dev/null
	done
	deleg_pid=
	return 1
}

# nfs_xprt MNT: the transport of the NFS mount on MNT (mountstats)
nfs_xprt() {
	awk -v m="$1" '$1 == "device" { cur = ($5 == m) }
		cur && $1 == "xprt:" { print $2; exit }' /proc/self/mountstats
}

# LIO's configfs tree; targetcli writes the same files, but it cannot
# start in the guest (GIO fails to reach a D-Bus session: "Could not
# connect"), so the target is set up here directly
LIO=/sys/kernel/config/target
LIO_RD=$LIO/core/rd_mcp_0/siw_rd

# iser_target_up IQN IP: LIO with a 64 MiB ramdisk as LUN 0 of IQN, one
# portal on IP:3260 with iSER enabled, no authentication, any initiator.
#
# A LIO portal is a TCP listener first; iSER is added to it on the same
# address and port. A siw device listens with a TCP socket of the host
# stack, so its listener and the portal's collide (isert: "rdma_listen()
# failed: -98"), with upstream siw as with ours. The portal's TCP socket
# is therefore made in $SIW_NS (made by the process that creates the
# portal; a non-local bind there), out of the way, and the initiator
# skips SendTargets discovery, which would need it (iser_node).
iser_target_up() {
	local t=$LIO/iscsi/$1/tpgt_1 a
	mountpoint -q /sys/kernel/config ||
		mount -t configfs none /sys/kernel/config || return 1
	modprobe -a target_core_mod iscsi_target_mod ib_isert || return 1
	# 16384 pages of 4 KiB
	mkdir -p "$LIO_RD" &&
	echo rd_pages=16384 > "$LIO_RD/control" &&
	echo 1 > "$LIO_RD/enable" &&
	mkdir -p "$t/lun/lun_0" &&
	ln -s "$LIO_RD" "$t/lun/lun_0/siw_lun" &&
	ns sysctl -qw net.ipv4.ip_nonlocal_bind=1 &&
	ns mkdir "$t/np/$2:3260" &&
	echo 1 > "$t/np/$2:3260/iser" || return 1
	for a in authentication=0 generate_node_acls=1 \
		 demo_mode_write_protect=0 cache_dynamic_acls=1; do
		echo "${a#*=}" > "$t/attrib/${a%=*}" || return 1
	done
	echo 1 > "$t/enable"
}

# iser_target_down: everything iser_target_up made, in reverse; each
# step is tried, so that a half-made target is also undone
iser_target_down() {
	local i t np ok=0
	for i in "$LIO"/iscsi/iqn.*; do
		[ -d "$i" ] || continue
		t=$i/tpgt_1
		echo 0 > "$t/enable" 2>/dev/null
		for np in "$t"/np/*:*; do
			[ -d "$np" ] || continue
			echo 0 > "$np/iser" 2>/dev/null
			rmdir "$np" || ok=1
		done
		rm -f "$t"/lun/lun_0/siw_lun
		rmdir "$t/lun/lun_0" "$t" "$i" || ok=1
	done
	if [ -d "$LIO_RD" ]; then
		rmdir "$LIO_RD" "${LIO_RD%/*}" || ok=1
	fi
	return $ok
}

iscsid_start() {
	mkdir -p /run/lock/iscsi /etc/iscsi
	echo "InitiatorName=iqn.2003-01.org.siw.test:initiator" \
		> /etc/iscsi/initiatorname.iscsi
	# a session of its own: iscsid signals its whole process group
	# when it stops
	setsid iscsid -f &
	ISCSID_PID=$!
	# iscsiadm talks to iscsid through its socket: wait until it answers
	local i
	for i in $(seq 1 30); do
		iscsiadm -m session > /dev/null 2>&1
		[ $? -ne 20 ] && return 0
		sleep 1
	done
	return 1
}

iscsid_stop() {
	kill "$ISCSID_PID"
	wait "$ISCSID_PID" 2>/dev/null
}

# iser_node IQN PORTAL: the initiator's node record for IQN at PORTAL,
# on the iser transport, made by hand (see iser_target_up)
iser_node() {
	iscsiadm -m node -o new -T "$1" -p "$2" -I iser > /dev/null &&
	iscsiadm -m node -T "$1" -p "$2" | grep -q "iface.transport_name = iser"
}

# iscsi_disk IQN: the block device of the session's LUN 0, once the
# SCSI scan (after the login, asynchronous) made it: up to two minutes,
# as on a loaded 2-core host it took over 30 s
iscsi_disk() {
	local s d i
	for i in $(seq 1 120); do
		for s in /sys/class/iscsi_session/session*; do
			grep -qx "$1" "$s/targetname" 2>/dev/null || continue
			for d in "$s"/device/target*/*/block/*; do
				[ -b "/dev/${d##*/}" ] && { echo "${d##*/}"; return 0; }
			done
		done
		sleep 1
	done
	echo "no disk of $1's session:" >&2
	for s in /sys/class/iscsi_session/session*; do
		echo "$s: $(cat "$s/targetname" 2>/dev/null) $(readlink -f "$s/device")" >&2
		ls -d "$s"/device/target*/*/block/* >&2
	done
	ls -l /dev/sd* >&2
	return 1
}

# nvme_img SIZE: prints the path of a new file of SIZE (truncate's
# units) for nvmet to serve, on a tmpfs of its own: nvmet takes a file
# namespace's size from the inode it opened, and an overlayfs inode (the
# guest's root) does not carry its file's size, so on the root the
# namespace has no capacity and every write fails with ENOSPC
NVME_DIR=/srv/siw-nvme
nvme_img() {
	mkdir -p "$NVME_DIR" &&
	{ mountpoint -q "$NVME_DIR" ||
	  mount -t tmpfs -o size=320m siw-nvme "$NVME_DIR"; } &&
	truncate -s "$1" "$NVME_DIR/ns.img" &&
	echo "$NVME_DIR/ns.img"
}

nvme_img_rm() {
	rm -f "$NVME_DIR/ns.img"
	umount "$NVME_DIR" 2>/dev/null
}

# nvmet_up IP FILE: an nvmet subsystem NVME_NQN with FILE as namespace 1,
# any host, on an rdma port at IP:NVME_PORT
nvmet_up() {
	local c=/sys/kernel/config/nvmet s p
	s=$c/subsystems/$NVME_NQN
	p=$c/ports/1
	modprobe -a nvmet nvmet-rdma nvme-rdma || return 1
	mkdir "$s" && echo 1 > "$s/attr_allow_any_host" &&
	mkdir "$s/namespaces/1" && echo "$2" > "$s/namespaces/1/device_path" &&
	# a file on tmpfs cannot be opened with O_DIRECT
	echo 1 > "$s/namespaces/1/buffered_io" &&
	echo 1 > "$s/namespaces/1/enable" &&
	mkdir "$p" && echo rdma > "$p/addr_trtype" &&
	echo ipv4 > "$p/addr_adrfam" && echo "$1" > "$p/addr_traddr" &&
	echo $NVME_PORT > "$p/addr_trsvcid" &&
	ln -s "$s" "$p/subsystems/$NVME_NQN"
}

nvmet_down() {
	local c=/sys/kernel/config/nvmet
	rm -f "$c/ports/1/subsystems/$NVME_NQN"
	rmdir "$c/ports/1" 2>/dev/null
	echo 0 > "$c/subsystems/$NVME_NQN/namespaces/1/enable" 2>/dev/null
	rmdir "$c/subsystems/$NVME_NQN/namespaces/1" "$c/subsystems/$NVME_NQN"
}

# nvme_disk: the namespace block device for NVME_NQN: under the NVMe
# subsystem with native multipath, under the controller without; once
# its capacity is known (the node may appear before); up to two minutes
nvme_disk() {
	local s d i
	for i in $(seq 1 120); do
		for s in /sys/class/nvme-subsystem/* /sys/class/nvme/*; do
			grep -qx "$NVME_NQN" "$s/subsysnqn" 2>/dev/null || continue
			for d in "$s"/nvme*n*; do
				d=${d##*/}
				[ -b "/dev/$d" ] &&
				[ "$(cat "/sys/block/$d/size" 2>/dev/null)" -gt 0 ] 2>/dev/null &&
					{ echo "$d"; return 0; }
			done
		done
		sleep 1
	done
	echo "no namespace of $NVME_NQN with a capacity:" >&2
	grep -H . /sys/block/nvme*/size >&2
	return 1
}

# data_check DEV FILE: FILE written to DEV with O_DIRECT and read back
# against its checksum
data_check() {
	local mb sum
	mb=$(( $(stat -c %s "$2") >> 20 ))
	sum=$(sha256sum < "$2")
	dd if="$2" of="/dev/$1" bs=1M oflag=direct conv=nocreat status=none ||
		return 1
	[ "$(dd if="/dev/$1" bs=1M count="$mb" iflag=direct status=none |
		sha256sum)" = "$sum" ]
}

# consumer_unload PEER: the module consumer_load loaded, once no device
# of it is left
consumer_unload() {
	case $1 in
	rxe)	t_check "unload rdma_rxe" modprobe -r rdma_rxe ;;
	*)	t_check "unload $1" unload_siw ;;
	esac
}
