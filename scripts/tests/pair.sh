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

# echoes: the ICMP echo requests this guest has answered
echoes() {
	awk '$1 == "Icmp:" && !h { for (i = 2; i <= NF; i++) if ($i == "InEchos") c = i; h = 1; next }
	     $1 == "Icmp:" { print $c }' /proc/net/snmp
}

# reached: the other guest has pinged this one and stopped for 3 s: it
# pings until a reply comes, so it has one. Until then this guest stays
# up (it did for a fixed 10 s before).
reached() {
	local n last=-1 still=0
	for _ in $(seq 60); do
		n=$(echoes)
		if [ "${n:-0}" -gt 0 ] && [ "$n" = "$last" ]; then
			still=$((still + 1))
			[ $still -lt 3 ] || return 0
		else
			still=0
		fi
		last=$n
		sleep 1
	done
	return 1
}
t_check "$SIW_ROLE reaches $SIW_IP_ETH_PEER over eth0" reach
t_check "$SIW_IP_ETH_PEER reached $SIW_ROLE and stopped pinging" reached
t_done
