#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Two guests: both ends reach each other over the QEMU socket network.
# Run as: scripts/guest --peer-script scripts/tests/pair.sh scripts/tests/pair.sh
# shellcheck source=guest-lib.sh
. "$(dirname "$0")/guest-lib.sh"

reach() {
	for _ in $(seq 60); do
		ping -c 1 -W 1 "$SIW_IP_ETH_PEER" > /dev/null 2>&1 && return 0
	done
	return 1
}
t_check "$SIW_ROLE reaches $SIW_IP_ETH_PEER over eth0" reach
# stay up while the other guest finishes its checks
sleep 10
t_done
