#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# NVMe over Fabrics on RDMA: an nvmet-rdma target (configfs, a file on
# tmpfs as namespace 1) and the nvme-rdma host through nvme-cli. On 6.1
# both make their RDMA endpoints in the initial namespace only, so they
# meet through one device on a local address. Each round connects,
# checks the controller's transport, writes a data set of its own (fresh
# random octets, so that a write lost in a later round cannot hide
# behind an earlier round's identical data) with O_DIRECT, reads it back
# against its checksum and disconnects.
#
#   nvmeof.sh [PEER [ROUNDS]]
#   PEER: siw (ours, default), usiw (upstream siw), rxe, or a siw.ko path
#   ROUNDS: connect/IO/disconnect rounds (default 5)
# shellcheck source=guest-lib.sh
. "$(dirname "$0")/guest-lib.sh"
# shellcheck source=consumer-lib.sh
. "$(dirname "$0")/consumer-lib.sh"

PEER=${1:-siw}
ROUNDS=${2:-5}
DATA_MB=8
HOSTNQN=nqn.2014-08.org.siw.test:host

consumer_load "$PEER" || t_done
t_check "$PEER: device on $SIW_IF_A" \
	rdma link add nvme_a type "$CONSUMER_TYPE" netdev "$SIW_IF_A"

IMG=$(nvme_img 64M) || { t_fail "a 64 MiB file for the namespace"; t_done; }
t_check "nvmet: subsystem, namespace and rdma port on $SIW_IP_A:$NVME_PORT" \
	nvmet_up "$SIW_IP_A" "$IMG"

# the controller's transport, as the host reports it
nvme_transport() {
	local c
	for c in /sys/class/nvme/nvme*; do
		grep -qx "$NVME_NQN" "$c/subsysnqn" 2>/dev/null &&
			cat "$c/transport"
	done
}

round() {
	local dev
	dd if=/dev/urandom of=/tmp/nvme-data bs=1M count=$DATA_MB status=none
	nvme connect -t rdma -a "$SIW_IP_A" -s $NVME_PORT -n "$NVME_NQN" \
		--hostnqn="$HOSTNQN" > /dev/null ||
		{ echo "round $1: connect failed"; return 1; }
	[ "$(nvme_transport)" = rdma ] ||
		{ echo "round $1: transport '$(nvme_transport)'"; return 1; }
	dev=$(nvme_disk) || { echo "round $1: no namespace"; return 1; }
	data_check "$dev" /tmp/nvme-data ||
		{ echo "round $1: the data read back from $dev differs"; return 1; }
	nvme disconnect -n "$NVME_NQN" > /dev/null ||
		{ echo "round $1: disconnect failed"; return 1; }
	[ -z "$(nvme_transport)" ] ||
		{ echo "round $1: a controller is left"; return 1; }
}

ok=$(consumer_rounds "$ROUNDS" round)
t_check "$PEER: $ROUNDS rounds of nvme-rdma connect, ${DATA_MB} MiB written and read back, disconnect ($ok done)" \
	test "$ok" -eq "$ROUNDS"
# the image on the target holds what the host wrote
t_check "$PEER: the target's namespace holds the data" \
	cmp -n $((DATA_MB << 20)) /tmp/nvme-data "$IMG"

nvme disconnect -n "$NVME_NQN" > /dev/null 2>&1
nvmet_down
t_check "$PEER: device deleted" rdma link delete nvme_a
rm -f /tmp/nvme-data
nvme_img_rm
consumer_unload "$PEER"
kmemleak_scan
t_done
