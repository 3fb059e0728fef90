#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The device appears on `rdma link add`, is an iWARP device to user space,
# follows its netdev and goes away cleanly.
# shellcheck source=guest-lib.sh
. "$(dirname "$0")/guest-lib.sh"

t_check "load siw.ko" load_siw
t_check "rdma link add on veth" rdma link add siw0 type siw netdev "$SIW_IF_A"
t_check "rdma link add on loopback" rdma link add siw_lo type siw netdev lo
t_check "a second link on the same netdev is refused" \
	bash -c '! rdma link add siw1 type siw netdev "$SIW_IF_A" 2>/dev/null'

rdma link show
t_check "siw0 is ACTIVE on $SIW_IF_A" \
	bash -c "rdma link show siw0/1 | grep -q 'state ACTIVE.*netdev $SIW_IF_A'"

# rdma-core's tests and ibdev2netdev find the netdev under device/net/
t_check "siw0: device/net/ names $SIW_IF_A and nothing else" \
	test "$(ls /sys/class/infiniband/siw0/device/net/)" = "$SIW_IF_A"
t_check "siw0: device/net/$SIW_IF_A is the netdev" \
	test "$(cat "/sys/class/infiniband/siw0/device/net/$SIW_IF_A/ifindex")" = \
	"$(cat "/sys/class/net/$SIW_IF_A/ifindex")"
t_check "siw_lo: device/net/ names lo" \
	test "$(ls /sys/class/infiniband/siw_lo/device/net/)" = lo
ip link add siw-ren type veth peer name siw-ren2
rdma link add siw_ren type siw netdev siw-ren
ip link set siw-ren name siw-renamed
t_check "device/net/ follows a rename of the netdev" \
	test "$(ls /sys/class/infiniband/siw_ren/device/net/ 2>&1)" = siw-renamed
rdma link delete siw_ren
ip link del siw-renamed

ibv_devinfo -d siw0 > /tmp/devinfo 2>&1; cat /tmp/devinfo
t_check "ibv_devinfo: transport iWARP" grep -q "transport:.*iWARP" /tmp/devinfo
t_check "ibv_devinfo: port active" grep -q "state:.*PORT_ACTIVE" /tmp/devinfo
ibv_devinfo -d siw_lo > /tmp/devinfo_lo 2>&1; cat /tmp/devinfo_lo
t_check "loopback device has a non-zero GUID" \
	bash -c '! grep -q "node_guid:.*0000:0000:0000:0000" /tmp/devinfo_lo'

ip link set "$SIW_IF_A" down
sleep 1
t_check "port follows netdev down" \
	bash -c "rdma link show siw0/1 | grep -q 'state DOWN'"
ip link set "$SIW_IF_A" up
sleep 1
t_check "port follows netdev up" \
	bash -c "rdma link show siw0/1 | grep -q 'state ACTIVE'"

# iWARP has only RC QPs: a UD QP must be refused with EOPNOTSUPP, while
# an RC QP on the same PD and CQ is made (so the refusal is not some
# other failure)
qp_types() {
	/usr/bin/python3 - "$1" <<'EOF'
import errno, sys
from pyverbs.device import Context
from pyverbs.pd import PD
from pyverbs.cq import CQ
from pyverbs.qp import QP, QPCap, QPInitAttr
from pyverbs.pyverbs_error import PyverbsRDMAError
import pyverbs.enums as e

ctx = Context(name=sys.argv[1])
pd = PD(ctx)
cq = CQ(ctx, 16)
def qp(qp_type):
    return QP(pd, QPInitAttr(qp_type=qp_type, scq=cq, rcq=cq,
                             cap=QPCap(max_send_wr=4, max_recv_wr=4)))
rc = qp(e.IBV_QPT_RC)
print('RC QP', rc.qp_num, 'made')
try:
    ud = qp(e.IBV_QPT_UD)
except PyverbsRDMAError as ex:
    print('UD QP refused:', ex)
    sys.exit(ex.error_code != errno.EOPNOTSUPP)
print('UD QP', ud.qp_num, 'made')
sys.exit(1)
EOF
}
t_check "siw0 makes an RC QP and refuses a UD QP with EOPNOTSUPP" qp_types siw0

t_check "rdma link delete" rdma link delete siw0
t_check "siw0 is gone" bash -c '! rdma link show siw0/1 2>/dev/null'
t_check "siw0's parent is gone with it" \
	test "$(ls -d /sys/devices/siw/siw_port* | wc -l)" = 1

# A netdev that goes away takes its device with it.
ip link add siw-tmp type veth peer name siw-tmp2
rdma link add siw_tmp type siw netdev siw-tmp
ip link del siw-tmp
sleep 2
t_check "device removed with its netdev" \
	bash -c '! rdma link show siw_tmp/1 2>/dev/null'

# A VLAN on top of the veth
ip link add link "$SIW_IF_A" name siw-a.7 type vlan id 7
ip link set siw-a.7 up
t_check "rdma link add on a VLAN" rdma link add siw_vlan type siw netdev siw-a.7
t_check "the VLAN device is an iWARP device" \
	bash -c 'ibv_devinfo -d siw_vlan | grep -q "transport:.*iWARP"'
ip link del siw-a.7
sleep 2
t_check "the VLAN device goes with its VLAN" \
	bash -c '! rdma link show siw_vlan/1 2>/dev/null'

# A namespace destroyed with a device on one of its netdevs
ip netns add siw-gone
ip link add siw-ns0 type veth peer name siw-ns1
ip link set siw-ns1 netns siw-gone
ip netns exec siw-gone ip link set siw-ns1 up
t_check "rdma link add inside another namespace" \
	ip netns exec siw-gone rdma link add siw_gone type siw netdev siw-ns1
ip netns del siw-gone
for _ in 1 2 3 4 5; do
	rdma link show siw_gone/1 > /dev/null 2>&1 || break
	sleep 1
done
t_check "the device goes when its namespace is destroyed" \
	bash -c '! rdma link show siw_gone/1 2>/dev/null'
ip link del siw-ns0 2>/dev/null

# rdma link add racing with the removal of its netdev: the device must
# never outlive the netdev (the netdev would wait forever for our
# reference; the harness fails on "unregister_netdevice: waiting for").
# The netdev churns until some adds succeeded and some were refused (its
# netdev gone), for 6 s at least and 120 s at most: a race that never
# added a device tested nothing.
touch /tmp/link-race.run
(
	while [ -e /tmp/link-race.run ]; do
		ip link add siw-race type veth peer name siw-race2 2>/dev/null
		ip link del siw-race 2>/dev/null
	done
) &
churn=$!
added=0 refused=0 t0=$SECONDS
while [ $((SECONDS - t0)) -lt 120 ]; do
	if rdma link add siw_race type siw netdev siw-race 2>/dev/null; then
		added=$((added + 1))
	else
		refused=$((refused + 1))
	fi
	[ $((SECONDS - t0)) -lt 6 ] || { [ "$added" -ge 5 ] && [ "$refused" -ge 5 ] && break; }
done
rm -f /tmp/link-race.run
wait "$churn"
echo "race: rdma link add succeeded $added times, was refused $refused times while the netdev churned ($((SECONDS - t0)) s)"
raced() { [ "$added" -gt 0 ] && [ "$refused" -gt 0 ]; }
t_check "the race added devices ($added) and had adds refused ($refused)" raced
sleep 2
t_check "no device outlives its netdev when add races with removal" \
	bash -c '! rdma link show siw_race/1 2>/dev/null'
ip link del siw-race 2>/dev/null

t_check "rmmod siw" unload_siw
t_check "/sys/devices/siw is gone with the module" test ! -e /sys/devices/siw
kmemleak_scan
t_done
