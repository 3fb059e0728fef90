#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The device appears on `rdma link add`, is an iWARP device to user space,
# follows its netdev and goes away cleanly.
. "$(dirname "$0")/lib.sh"

t_check "load siw.ko" load_siw
t_check "rdma link add on veth" rdma link add siw0 type siw netdev "$SIW_IF_A"
t_check "rdma link add on loopback" rdma link add siw_lo type siw netdev lo
t_check "a second link on the same netdev is refused" \
	bash -c '! rdma link add siw1 type siw netdev "$SIW_IF_A" 2>/dev/null'

rdma link show
t_check "siw0 is ACTIVE on $SIW_IF_A" \
	bash -c "rdma link show siw0/1 | grep -q 'state ACTIVE.*netdev $SIW_IF_A'"

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

t_check "object verbs fail instead of pretending" \
	bash -c '! ibv_rc_pingpong -d siw0 -g 0 192.0.2.1 >/dev/null 2>&1'

t_check "rdma link delete" rdma link delete siw0
t_check "siw0 is gone" bash -c '! rdma link show siw0/1 2>/dev/null'

# A netdev that goes away takes its device with it.
ip link add siw-tmp type veth peer name siw-tmp2
rdma link add siw_tmp type siw netdev siw-tmp
ip link del siw-tmp
sleep 2
t_check "device removed with its netdev" \
	bash -c '! rdma link show siw_tmp/1 2>/dev/null'

t_check "rmmod siw" unload_siw
kmemleak_scan
t_done
