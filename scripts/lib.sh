# SPDX-License-Identifier: GPL-2.0
# Shared definitions for the project's scripts; sourced, never run.

SIW_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# Build products that outlive a checkout: the debug kernel, upstream siw.
SIW_CACHE=${SIW_CACHE:-/var/cache/siw}

log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "error: $*"; exit 1; }

# The Debian 6.1 kernel users run: newest installed 6.1 image.
debian_kver() {
	local v
	v=$(ls /boot/vmlinuz-6.1.* 2>/dev/null | sed 's|/boot/vmlinuz-||' |
	    sort -V | tail -n1)
	[ -n "$v" ] || die "no Debian 6.1 kernel in /boot; run scripts/setup"
	echo "$v"
}

linux_source_tarball() {
	ls /usr/src/linux-source-6.1.tar.* 2>/dev/null | head -n1
}

# Cache key of the debug kernel: source version, config fragment, builder.
debug_kernel_key() {
	local srcver
	srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null)
	{ echo "$srcver"; cat "$SIW_TOP/scripts/config/debug-kernel.config" \
	  "$SIW_TOP/scripts/debug-kernel"; } | sha256sum | cut -c1-16
}

debug_kernel_dir() {
	echo "$SIW_CACHE/debug-kernel-$(debug_kernel_key)"
}
