#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The peers we measure against load in the same guest: upstream siw (built
# from linux-source for this kernel) instead of ours, and Debian's rxe.
# shellcheck source=guest-lib.sh
. "$(dirname "$0")/guest-lib.sh"

t_check "upstream siw.ko exists for $SIW_KVER" test -f "$SIW_UPSTREAM_KO"
t_check "load upstream siw" load_siw "$SIW_UPSTREAM_KO"
t_check "upstream siw: rdma link add" \
	rdma link add usiw0 type siw netdev "$SIW_IF_A"
t_check "upstream siw: ibv_devinfo shows iWARP" \
	bash -c 'ibv_devinfo -d usiw0 | grep -q "transport:.*iWARP"'
t_check "upstream siw: rdma link delete" rdma link delete usiw0
t_check "upstream siw: rmmod" unload_siw

t_check "load rdma_rxe" modprobe rdma_rxe
t_check "rxe: rdma link add" rdma link add rxe0 type rxe netdev "$SIW_IF_A"
t_check "rxe: ibv_devinfo shows InfiniBand transport" \
	bash -c 'ibv_devinfo -d rxe0 | grep -q "transport:.*InfiniBand"'
t_check "rxe: rdma link delete" rdma link delete rxe0
t_check "rxe: rmmod" modprobe -r rdma_rxe

t_check "ours loads after them" load_siw
t_check "ours: rdma link add" rdma link add siw0 type siw netdev "$SIW_IF_A"
t_check "ours: rdma link delete" rdma link delete siw0
t_check "ours: rmmod" unload_siw
kmemleak_scan
t_done
