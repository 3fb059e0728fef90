#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The README's real-machine path, in the guest: `make install` of a built
# tree into this kernel's /lib/modules (the guest's overlay root), then
# modprobe (not insmod), modinfo, a link, modprobe -r and
# `make uninstall`; on the way, the module's parameters and a device's
# knobs against Documentation/parameters.rst. The tree is the one
# scripts/build-module built for this kernel on the host; make finds it
# up to date and only installs.
# shellcheck source=guest-lib.sh
. "$(dirname "$0")/guest-lib.sh"

kver=$(uname -r)
tree=$SIW_TOP/out/build/$kver
mk() { make -s -C "$tree" -f "$SIW_TOP/Makefile" "$@"; }

t_check "siw is not installed before" bash -c '! modinfo -n siw 2>/dev/null'
t_check "make install" mk install
# compressed as the kernel's own modules are (.ko.xz from 6.12 on)
ko=$(ls /lib/modules/"$kver"/extra/siw.ko* 2>/dev/null | head -n1)
t_check "siw.ko is in /lib/modules/$kver/extra" \
	test -n "$ko" -a -f "$ko"
t_check "depmod: modprobe finds siw there" \
	test -n "$ko" -a "$(modinfo -n siw 2>/dev/null)" = "$ko"
t_check "modprobe siw (and the RDMA core it needs)" modprobe siw
t_check "siw is loaded" bash -c 'lsmod | grep -q "^siw "'
modinfo siw | grep -E "^(filename|version|description|license|depends|vermagic|parm):" |
	cut -c1-100
t_check "modinfo siw: version $(cat "$SIW_TOP/VERSION")" \
	test "$(modinfo -F version siw)" = "$(cat "$SIW_TOP/VERSION")"
# every parameter and knob of Documentation/parameters.rst, and no other
# (scripts/check-params): modinfo of the installed module, then sysfs of
# the module just loaded (each reads its default) and of a new device
params=$("$SIW_TOP/scripts/check-params" names param)
t_check "Documentation/parameters.rst lists module parameters" test -n "$params"
for p in $params; do
	t_check "modinfo siw lists parameter $p" \
		bash -c "modinfo -F parm siw | grep -q '^$p:'"
done
t_check "modinfo siw: the table's parameters and no other, each described" \
	"$SIW_TOP/scripts/check-params" modinfo siw
t_check "/sys/module/siw/parameters: the table's names, permissions, defaults" \
	"$SIW_TOP/scripts/check-params" params
t_check "rdma link add siw0 type siw netdev $SIW_IF_A" \
	rdma link add siw0 type siw netdev "$SIW_IF_A"
t_check "/sys/class/infiniband/siw0: the table's knobs, permissions, defaults" \
	"$SIW_TOP/scripts/check-params" knobs siw0
t_check "ibv_devinfo -d siw0: port active" \
	bash -c 'ibv_devinfo -d siw0 | grep -q PORT_ACTIVE'
t_check "rdma link delete siw0" rdma link delete siw0
t_check "modprobe -r siw" modprobe -r siw
t_check "siw is unloaded" bash -c '! lsmod | grep -q "^siw "'
t_check "make uninstall" mk uninstall
t_check "siw is not installed after" bash -c '! modinfo -n siw 2>/dev/null'
t_done
