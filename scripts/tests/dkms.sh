#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The module DKMS built and installed on the host (scripts/dkms-test,
# with the siw-dkms package installed), as a user on that kernel gets
# it: modprobe finds it in /lib/modules/<release>/updates/dkms, it loads
# with what it depends on, a link on each end of the veth pair, rping -V
# across them with every ping validated, then modprobe -r.
# shellcheck source=guest-lib.sh
. "$(dirname "$0")/guest-lib.sh"

kver=$(uname -r)
work=/tmp/dkms
mkdir -p "$work"

where=$(modinfo -n siw 2>/dev/null)
echo "modinfo -n siw: ${where:-nothing}"
t_check "modprobe finds siw in /lib/modules/$kver/updates/dkms" \
	bash -c "case '$where' in /lib/modules/$kver/updates/dkms/siw.ko*) true ;; *) false ;; esac"
check "its vermagic is this kernel's" \
	bash -c "modinfo -F vermagic siw | grep -q '^$kver '"
t_check "modinfo siw: version $(cat "$SIW_TOP/VERSION") (the package's)" \
	test "$(modinfo -F version siw)" = "$(cat "$SIW_TOP/VERSION")"
check "modprobe siw" modprobe siw || t_done
links_up t_check siw_a siw_b

rping_pair() {
	local count=20 size=16384 rc n
	srv_start "$work/srv.log" 7174 \
		rping -s -a "$SIW_IP_A" -p 7174 -V -C "$count" -S "$size" ||
		return 1
	ns timeout -k 5 100 rping -c -a "$SIW_IP_A" -p 7174 -V -v \
		-C "$count" -S "$size" > "$work/cli.log" 2>&1
	rc=$?
	n=$(grep -c "^ping data: " "$work/cli.log")
	echo "client exit $rc, $n of $count pings validated"
	srv_reap || rc=1
	[ "$rc" = 0 ] && [ "$n" = "$count" ]
}
t_check "rping -V across the pair: 20 pings of 16 KiB, each validated" \
	rping_pair
t_check "rdma link delete siw_b" ns rdma link delete siw_b
t_check "rdma link delete siw_a" rdma link delete siw_a
t_check "modprobe -r siw" modprobe -r siw
t_done
