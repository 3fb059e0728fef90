#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The main job's guest side: load the module, make a device on the veth
# link and one on loopback, and show them as RDMA tools see them.
. "$(dirname "$0")/lib.sh"

set -x
load_siw
rdma link add siw0 type siw netdev "$SIW_IF_A"
rdma link add siw_lo type siw netdev lo
rdma link show
rdma dev show
ibv_devices
ibv_devinfo -v -d siw0
cat /sys/class/infiniband/siw0/node_type
set +x
# RDMA traffic (rping, perftest) joins this demo once the connection
# manager and the data path exist; today object verbs fail on purpose:
if ibv_rc_pingpong -d siw0 -g 0 2>&1 | head -n 3; then :; fi
rdma link delete siw0
rdma link delete siw_lo
unload_siw
echo "demo: module loaded, devices created and removed, module unloaded"
