#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# NFS over RDMA through an RDMA device on each end of the veth pair:
# nfsd in the initial namespace, exporting a tmpfs; the client mounts
# from $SIW_NS (across the pair) and, where asked, from the initial
# namespace (its own address). Versions 3, 4.1 and 4.2; a file workload
# verified by checksums; /proc/self/mountstats must show the rdma
# transport.
#
#   nfs.sh [PEER [VERSIONS [WHERE]]]
#   PEER: siw (ours, default), usiw (upstream siw) or rxe
#   VERSIONS: "3 4.1 4.2" (default); WHERE: "ns init" (default)
. "$(dirname "$0")/lib.sh"

PEER=${1:-siw}
VERS=${2:-"3 4.1 4.2"}
WHERE=${3:-"ns init"}
EXPORT=/srv/siw-nfs
MNT=/mnt/siw-nfs
PORT=20049

ns() { ip netns exec "$SIW_NS" "$@"; }

case $PEER in
siw)	t_check "load siw" load_siw; type=siw ;;
usiw)	t_check "load upstream siw" load_siw "$SIW_UPSTREAM_KO"; type=siw ;;
rxe)	t_check "load rdma_rxe" modprobe -a ib_core rdma_ucm rdma_rxe; type=rxe ;;
*)	t_fail "unknown peer $PEER"; t_done ;;
esac
t_check "$PEER: device on $SIW_IF_A" \
	rdma link add nfs_a type "$type" netdev "$SIW_IF_A"
t_check "$PEER: device on $SIW_IF_B (in $SIW_NS)" \
	ns rdma link add nfs_b type "$type" netdev "$SIW_IF_B"

# The server, in the initial namespace
modprobe -a nfsd rpcrdma svcrdma xprtrdma 2>/dev/null
mkdir -p "$EXPORT" "$MNT" /var/lib/nfs/rpc_pipefs /run/rpcbind
mount -t tmpfs -o size=256m siw-nfs "$EXPORT"
mountpoint -q /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd
mountpoint -q /var/lib/nfs/rpc_pipefs ||
	mount -t rpc_pipefs sunrpc /var/lib/nfs/rpc_pipefs
rpcbind -w 2>/dev/null || rpcbind
# fsid=0: the export is NFSv4's pseudo root, so that no parent directory
# (on the guest's overlayfs, which nfsd cannot export) has to be walked
echo "$EXPORT 192.0.2.0/24(rw,no_root_squash,insecure,fsid=0,no_subtree_check)" > /etc/exports
exportfs -ra
rpc.mountd --no-udp 2>/dev/null || rpc.mountd
rpc.nfsd 4
t_check "nfsd listens on rdma port $PORT" \
	bash -c "echo rdma $PORT > /proc/fs/nfsd/portlist && grep -q 'rdma $PORT' /proc/fs/nfsd/portlist"
cat /proc/fs/nfsd/portlist

# workload DIR: write, read back and compare; many small files; a file
# larger than what the page cache keeps (the guest has 2 GiB)
workload() {
	local d=$1 i sum1 sum2
	dd if=/dev/urandom of=/tmp/nfs-big bs=1M count=64 status=none
	sum1=$(sha256sum < /tmp/nfs-big)
	cp /tmp/nfs-big "$d/big" || return 1
	sync
	echo 3 > /proc/sys/vm/drop_caches
	sum2=$(sha256sum < "$d/big")
	[ "$sum1" = "$sum2" ] || { echo "big file differs"; return 1; }
	mkdir -p "$d/small"
	for i in $(seq 1 200); do
		echo "file $i $RANDOM" > "$d/small/$i" || return 1
	done
	echo 3 > /proc/sys/vm/drop_caches
	[ "$(cat "$d"/small/* | wc -l)" = 200 ] || { echo "small files lost"; return 1; }
	rm -rf "$d/small" "$d/big"
}

mount_test() {
	local where=$1 vers=$2 run= path=/ opts
	opts="vers=$vers,proto=rdma,port=$PORT"
	[ "$where" = ns ] && run=ns
	# v3: the export's path, and no lock manager (statd would need
	# rpcbind in each namespace); v4: the pseudo root
	if [ "$vers" = 3 ]; then path=$EXPORT; opts+=",nolock"; fi
	if ! $run timeout 120 mount -t nfs -o "$opts" \
		"$SIW_IP_A:$path" "$MNT" 2> /tmp/nfs-mount.err; then
		t_fail "$PEER: NFSv$vers mount over rdma from $where: $(tail -n 1 /tmp/nfs-mount.err)"
		return
	fi
	t_pass "$PEER: NFSv$vers mount over rdma from $where"
	t_check "$PEER: NFSv$vers from $where: mountstats show the rdma transport" \
		grep -q "xprt:.*rdma" /proc/self/mountstats
	t_check "$PEER: NFSv$vers from $where: file workload" workload "$MNT"
	t_check "$PEER: NFSv$vers from $where: unmount" umount "$MNT"
}

for where in $WHERE; do
	for v in $VERS; do
		mount_test "$where" "$v"
	done
done

rpc.nfsd 0
exportfs -ua
pkill rpc.mountd
pkill rpcbind
umount "$EXPORT"
ns rdma link delete nfs_b
rdma link delete nfs_a
kmemleak_scan
t_done
