#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# iSER: a LIO target with isert (made through configfs, as targetcli
# would: ramdisk backstore, a portal with iSER enabled) and the
# open-iscsi initiator with the iser transport. On 6.1 both make their
# RDMA endpoints in the initial namespace only, so they meet through one
# device on a local address.
# Each round logs in, checks the session's transport, writes a data set
# of its own (fresh random octets, so that a write lost in a later round
# cannot hide behind an earlier round's identical data) with O_DIRECT,
# reads it back against its checksum and logs out.
#
#   iser.sh [PEER [ROUNDS]]
#   PEER: siw (ours, default), usiw (upstream siw), rxe, or a siw.ko path
#   ROUNDS: login/IO/logout rounds (default 20)
# shellcheck source=guest-lib.sh
. "$(dirname "$0")/guest-lib.sh"
# shellcheck source=consumer-lib.sh
. "$(dirname "$0")/consumer-lib.sh"

PEER=${1:-siw}
ROUNDS=${2:-20}
IQN=iqn.2003-01.org.siw.test:iser
PORTAL=$SIW_IP_A:3260
DATA_MB=8

consumer_load "$PEER" || t_done
t_check "$PEER: device on $SIW_IF_A" \
	rdma link add iser_a type "$CONSUMER_TYPE" netdev "$SIW_IF_A"

modprobe -a target_core_mod iscsi_target_mod ib_isert ib_iser sd_mod
t_check "the target: ramdisk, iSCSI target, iSER portal" iser_target_up "$IQN" "$SIW_IP_A"
t_check "iscsid runs" iscsid_start

# round N: login, transport, I/O, logout; returns non-zero at the first
# step that fails and says which
round() {
	local dev sum
	dd if=/dev/urandom of=/tmp/iser-data bs=1M count=$DATA_MB status=none
	sum=$(sha256sum < /tmp/iser-data)
	iscsiadm -m node -T "$IQN" -p "$PORTAL" -l > /dev/null ||
		{ echo "round $1: login failed"; return 1; }
	iscsiadm -m session | grep -q "^iser: .*$IQN" ||
		{ echo "round $1: the session is not iser"; iscsiadm -m session; return 1; }
	dev=$(iscsi_disk "$IQN") ||
		{ echo "round $1: no disk"; iscsiadm -m node -T "$IQN" -p "$PORTAL" -u; return 1; }
	if ! dd if=/tmp/iser-data of="/dev/$dev" bs=1M oflag=direct status=none ||
	   [ "$(dd if="/dev/$dev" bs=1M count=$DATA_MB iflag=direct status=none | sha256sum)" != "$sum" ]; then
		echo "round $1: the data read back from $dev differs"
		iscsiadm -m node -T "$IQN" -p "$PORTAL" -u
		return 1
	fi
	iscsiadm -m node -T "$IQN" -p "$PORTAL" -u > /dev/null ||
		{ echo "round $1: logout failed"; return 1; }
	! iscsiadm -m session > /dev/null 2>&1 ||
		{ echo "round $1: a session is left"; return 1; }
}

if t_check "the node record of $IQN (iser)" iser_node "$IQN" "$PORTAL"; then
	ok=$(consumer_rounds "$ROUNDS" round)
	t_check "$PEER: $ROUNDS rounds of iSER login, ${DATA_MB} MiB written and read back, logout ($ok done)" \
		test "$ok" -eq "$ROUNDS"
fi

iscsiadm -m node -o delete > /dev/null 2>&1
iscsid_stop
t_check "the target is torn down" iser_target_down
t_check "$PEER: device deleted" rdma link delete iser_a
rm -f /tmp/iser-data
consumer_unload "$PEER"
kmemleak_scan
t_done
