#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# NFS over RDMA through an RDMA device on each end of the veth pair:
# nfsd in the initial namespace, exporting a tmpfs; the client mounts
# from $SIW_NS (across the pair) and from the initial namespace (its own
# address). For each placement and version: the mount must use the rdma
# transport (/proc/self/mountstats), and a file workload must come back
# with the checksums it went out with. With NFSv4.1 the client also
# takes a delegation that the server recalls over the RDMA backchannel
# (RFC 8167), shown by the rpcrdma and nfsd tracepoints.
#
#   nfs.sh [PEER [VERSIONS [WHERE]]]
#   PEER: siw (ours, default), usiw (upstream siw), rxe, or a siw.ko path
#   VERSIONS: "3 4.1 4.2" (default); WHERE: "ns init" (default; see
#   below for make check)
# shellcheck source=guest-lib.sh
. "$(dirname "$0")/guest-lib.sh"
# shellcheck source=consumer-lib.sh
. "$(dirname "$0")/consumer-lib.sh"

# `make check` (a batch) runs the client placement that matters, across
# the pair; on the debug kernel, NFSv4.1 alone: emulation with KASAN is
# slow
if [ -z "${SIW_BATCH:-}" ]; then
	def_vers="3 4.1 4.2" def_where="ns init"
elif [ "${SIW_KERNEL:-debian}" = debug ]; then
	def_vers=4.1 def_where=ns
else
	def_vers="3 4.1 4.2" def_where=ns
fi
PEER=${1:-siw}
VERS=${2:-$def_vers}
WHERE=${3:-$def_where}
EXPORT=$NFS_EXPORT
MNT=/mnt/siw-nfs
TRACE=/sys/kernel/tracing
# The client's memory share (a cgroup) and a file larger than it
CG=/sys/fs/cgroup/nfs-client
CG_MEM=$((32 << 20))
BIG_MB=48 SMALL=200
# the debug kernel (KASAN) takes minutes over each: less of both
[ "${SIW_KERNEL:-debian}" = debug ] && BIG_MB=40 SMALL=60

consumer_load "$PEER" || t_done
consumer_links nfs
mkdir -p "$MNT"
t_check "nfsd exports a tmpfs and listens on rdma port $NFS_PORT" nfs_server_up

# The client's memory share: a cgroup v2 memory limit for the workload
cgroup_setup() {
	mountpoint -q /sys/fs/cgroup ||
		mount -t cgroup2 cgroup2 /sys/fs/cgroup || return 1
	echo +memory > /sys/fs/cgroup/cgroup.subtree_control || return 1
	# memory.high throttles and reclaims; memory.max would have the
	# OOM killer take the writer while its dirty pages wait for the
	# server
	mkdir -p "$CG" && echo "$CG_MEM" > "$CG/memory.high"
}
t_check "a $((CG_MEM >> 20)) MiB memory cgroup for the client's workload" \
	cgroup_setup

# in_cg COMMAND...: run in the client's memory cgroup
in_cg() {
	bash -c 'echo $$ > "$0/cgroup.procs" && exec "${@}"' "$CG" "$@"
}

# big_file DIR: a file larger than the client's memory share, written,
# dropped from the cache and read back
big_file() {
	local d=$1 sum1 sum2
	dd if=/dev/urandom of=/tmp/nfs-big bs=1M count="$BIG_MB" status=none
	sum1=$(sha256sum < /tmp/nfs-big)
	in_cg dd if=/tmp/nfs-big of="$d/big" bs=1M conv=fsync status=none ||
		return 1
	echo 3 > /proc/sys/vm/drop_caches
	sum2=$(in_cg sha256sum < "$d/big")
	[ "$sum1" = "$sum2" ] || { echo "big file differs"; return 1; }
	# what the server holds is what the client wrote
	[ "$sum1" = "$(sha256sum < "$EXPORT/big")" ] ||
		{ echo "big file differs on the server"; return 1; }
	rm -f "$d/big" /tmp/nfs-big
}

# small_files DIR: many small files, each read back against its sum
small_files() {
	local d=$1 i
	mkdir -p "$d/small" /tmp/nfs-small || return 1
	for i in $(seq 1 "$SMALL"); do
		head -c $((RANDOM % 3000 + 1)) /dev/urandom > "/tmp/nfs-small/$i"
	done
	cp /tmp/nfs-small/* "$d/small/" || return 1
	(cd /tmp/nfs-small && sha256sum -- *) > /tmp/nfs-small.sum
	echo 3 > /proc/sys/vm/drop_caches
	(cd "$d/small" && sha256sum --quiet -c /tmp/nfs-small.sum) || return 1
	rm -rf "$d/small" /tmp/nfs-small /tmp/nfs-small.sum
}

trace_on() {
	local e
	echo > "$TRACE/trace"
	for e in rpcrdma/xprtrdma_cb_call rpcrdma/xprtrdma_cb_reply \
		 nfsd/nfsd_cb_setup nfsd/nfsd_cb_recall \
		 nfsd/nfsd_cb_recall_done; do
		echo 1 > "$TRACE/events/$e/enable" || return 1
	done
	echo 1 > "$TRACE/tracing_on"
}

trace_off() {
	echo 0 > "$TRACE/tracing_on"
	echo 0 > "$TRACE/events/enable"
}

# The backchannel (NFSv4.1 and later): the client keeps a file open for
# reading and holds a read delegation; a local write on the server breaks
# it, so nfsd recalls it through the client's backchannel, which rides
# on the same RDMA connection.
backchannel() {
	local where=$1 f=$EXPORT/deleg holder
	echo "before" > "$f"
	deleg_hold "$MNT/deleg"
	holder=$deleg_pid
	deleg_client_info > /tmp/nfs-clinfo
	cat /tmp/nfs-clinfo
	t_check "$PEER: NFSv4.1 from $where: the client holds a delegation" \
		test -n "$holder"
	t_check "$PEER: NFSv4.1 from $where: nfsd's callback channel is up" \
		grep -q "callback state: UP" /tmp/nfs-clinfo
	# the server's own write: breaks the lease under the delegation and
	# waits until the client returned it
	timeout 60 bash -c "echo after >> '$f'"
	t_check "$PEER: NFSv4.1 from $where: the server's write completed" \
		test $? -eq 0
	sleep 1
	trace_off
	grep -E "xprtrdma_cb|nfsd_cb" "$TRACE/trace" | tee /tmp/nfs-cb.trace
	t_check "$PEER: NFSv4.1 from $where: nfsd set the backchannel up over rdma" \
		grep -q "nfsd_cb_setup:.*proto=rdma" /tmp/nfs-cb.trace
	t_check "$PEER: NFSv4.1 from $where: nfsd recalled the delegation" \
		grep -q "nfsd_cb_recall:" /tmp/nfs-cb.trace
	t_check "$PEER: NFSv4.1 from $where: the callback arrived over rdma (xprtrdma_cb_call)" \
		grep -q "xprtrdma_cb_call:" /tmp/nfs-cb.trace
	t_check "$PEER: NFSv4.1 from $where: its reply went back over rdma (xprtrdma_cb_reply)" \
		grep -q "xprtrdma_cb_reply:" /tmp/nfs-cb.trace
	t_check "$PEER: NFSv4.1 from $where: the recall completed" \
		grep -q "nfsd_cb_recall_done:.*status=0" /tmp/nfs-cb.trace
	[ -n "$holder" ] && kill "$holder" && wait "$holder" 2>/dev/null
	t_check "$PEER: NFSv4.1 from $where: the client reads the server's change" \
		grep -q after "$MNT/deleg"
	rm -f "$f"
}

mount_test() {
	local where=$1 vers=$2 run='' path=/ opts
	opts="vers=$vers,proto=rdma,port=$NFS_PORT"
	[ "$where" = ns ] && run=ns
	# v3: the export's path, and no lock manager (statd would need
	# rpcbind in each namespace); v4: the pseudo root
	if [ "$vers" = 3 ]; then path=$EXPORT; opts+=",nolock"; fi
	# nfsd sets the backchannel up while the client mounts
	[ "$vers" = 4.1 ] && ! trace_on && t_fail "$PEER: tracepoints"
	if ! $run timeout 120 mount -t nfs -o "$opts" \
		"$SIW_IP_A:$path" "$MNT" 2> /tmp/nfs-mount.err; then
		t_fail "$PEER: NFSv$vers mount over rdma from $where: $(tail -n 1 /tmp/nfs-mount.err)"
		return
	fi
	t_pass "$PEER: NFSv$vers mount over rdma from $where"
	t_check "$PEER: NFSv$vers from $where: mountstats show the rdma transport" \
		test "$(nfs_xprt "$MNT")" = rdma
	t_check "$PEER: NFSv$vers from $where: a ${BIG_MB} MiB file through a $((CG_MEM >> 20)) MiB client" \
		big_file "$MNT"
	t_check "$PEER: NFSv$vers from $where: $SMALL small files" \
		small_files "$MNT"
	[ "$vers" = 4.1 ] && backchannel "$where"
	t_check "$PEER: NFSv$vers from $where: unmount" timeout 120 umount "$MNT"
}

for where in $WHERE; do
	for v in $VERS; do
		t_log "NFSv$v from $where"
		mount_test "$where" "$v"
	done
done

nfs_server_down
rmdir "$CG" 2>/dev/null
t_check "$PEER: rdma link delete nfs_b" ns rdma link delete nfs_b
t_check "$PEER: rdma link delete nfs_a" rdma link delete nfs_a
consumer_unload "$PEER"
kmemleak_scan
t_done
