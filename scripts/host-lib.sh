# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Shared definitions for the project's scripts; sourced, never run.

SIW_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# Build products that outlive a checkout: the debug kernel, upstream siw.
SIW_CACHE=${SIW_CACHE:-/var/cache/siw}

# Parallel jobs for the module builds (kbuild of ~40 files: -j halves
# them on 2 cores)
SIW_JOBS=${SIW_JOBS:-$(nproc)}

log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "error: $*"; exit 1; }

# The Debian kernels users run, by series: 6.1 (Debian 12's own) and
# 6.12 (Debian 12's newer image, Debian 13's kernel). The newest
# installed image of the series whose headers are installed too.
debian_kver() {
	local series=${1:-6.1} v best=""
	for v in $(ls /boot/ 2>/dev/null | sed -n "s|^vmlinuz-\($series\.[0-9].*\)|\1|p" |
		   sort -V); do
		[ -d "/usr/src/linux-headers-$v" ] && best=$v
	done
	[ -n "$best" ] ||
		die "no Debian $series kernel with headers installed; run scripts/setup"
	echo "$best"
}

# Debian's linux-source tarball of a series (default 6.1)
linux_source_tarball() {
	ls /usr/src/linux-source-"${1:-6.1}".tar.* 2>/dev/null | head -n1
}

# The guest kernels by name: debian (6.1), 6.12, newest (7.x, from
# scripts/kernel-newest) and debug (scripts/debug-kernel). The series of
# a Debian one, empty for the others.
kernel_series() {
	case "$1" in
	debian | 6.1) echo 6.1 ;;
	6.12) echo 6.12 ;;
	*) echo "" ;;
	esac
}

# bench_kver NAME SETTING: build ours for the Debian kernel NAME (debian
# or 6.1, or 6.12) and print that kernel's release; SETTING names the
# variable NAME came from, for the error
bench_kver() {
	local series
	series=$(kernel_series "$1")
	[ -n "$series" ] || die "$2 is debian (6.1) or 6.12"
	"$SIW_TOP/scripts/build-module" "$1" > /dev/null
	debian_kver "$series"
}

# insns_plugin DIR: build scripts/insns-plugin.c into DIR/insns.so with
# the host's compiler and have scripts/guest load it into QEMU
insns_plugin() {
	gcc -O2 -Wall -Wextra -shared -fPIC -fvisibility=hidden -pthread \
		-o "$1/insns.so" "$SIW_TOP/scripts/insns-plugin.c" ||
		die "could not build scripts/insns-plugin.c"
	export SIW_GUEST_INSNS=$1/insns.so
}

# Cache key of the debug kernel: source version, config fragment, the
# patches applied to the source (names and contents), builder.
# The builder is hashed as it read before lib.sh became host-lib.sh and
# its source line got a shellcheck directive: neither changes the kernel,
# and an hour's rebuild for a rename would buy nothing.
debug_kernel_key() {
	local srcver p
	srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null)
	{ echo "$srcver"; cat "$SIW_TOP/scripts/config/debug-kernel.config"
	  for p in "$SIW_TOP"/scripts/config/debug-kernel-patches/*.patch; do
		[ ! -e "$p" ] || { echo "${p##*/}"; cat "$p"; }
	  done
	  sed -e '/^# shellcheck source=host-lib\.sh$/d' \
	      -e 's|^\(\. "$(dirname "$0")/\)host-lib\.sh"$|\1lib.sh"|' \
	      "$SIW_TOP/scripts/debug-kernel"; } | sha256sum | cut -c1-16
}

debug_kernel_dir() {
	echo "$SIW_CACHE/debug-kernel-$(debug_kernel_key)"
}

# fault_ko KERNEL DIR: build scripts/selftest-fault (the harness's
# test-only module, never part of siw.ko) for KERNEL (debian or debug)
# in DIR/fault-<release>, unless it is there; prints the module's path
fault_ko() {
	local kdir kver dest
	if [ "$1" = debug ]; then
		kdir=$("$SIW_TOP/scripts/debug-kernel")/src || return 1
		kver=$(cat "$kdir/../release")
	else
		kver=$(debian_kver)
		kdir=/usr/src/linux-headers-$kver
	fi
	dest=$2/fault-$kver
	[ ! -f "$dest/siw_selftest_fault.ko" ] ||
		{ echo "$dest/siw_selftest_fault.ko"; return 0; }
	rm -rf "$dest" && mkdir -p "$2" &&
		cp -r "$SIW_TOP/scripts/selftest-fault" "$dest" || return 1
	if ! make -s -j"$SIW_JOBS" -C "$kdir" M="$dest" W=1 modules \
		> "$dest/build.log" 2>&1 || grep -qi "warning:" "$dest/build.log"; then
		cat "$dest/build.log" >&2
		rm -f "$dest/siw_selftest_fault.ko"
		return 1
	fi
	echo "$dest/siw_selftest_fault.ko"
}

# Kernel log lines that fail a guest run (log_reports below, the judge
# of scripts/guest). kmemleak's own: a leak, and kmemleak switching
# itself off (its pool or an allocation ran out, or "off" was written),
# after which no leak is seen.
BAD_LOG='WARNING:|BUG:|Oops|general protection fault|kernel BUG at|'\
'possible circular locking|possible recursive locking|'\
'inconsistent lock state|INFO: trying to register non-static key|'\
'KASAN|UBSAN|blocked for more than|unreferenced object|'\
'suspected memory leak|Kernel memory leak detector disabled|'\
'Kmemleak disabled without freeing|Cannot allocate a kmemleak_object|'\
'kmemleak: Memory pool empty|'\
'Kernel panic|RCU stall|soft lockup|hard LOCKUP|refcount_t:|'\
'unregister_netdevice: waiting for'

# judged FILE: a guest's kernel log as scripts/guest judges it: kmemleak's
# summary line of the leak that batch.sh plants on purpose
# (kmemleak_probe in scripts/tests/guest-lib.sh), between its two
# markers, is left out; the probe's own check says whether the leak was
# found. Nothing else is, and nothing of a probe without its end marker.
judged() {
	awk 'function flush(all, i) {
		for (i = 1; i <= n; i++)
			if (all || buf[i] !~ /kmemleak: [0-9]+ new suspected memory leaks/)
				print buf[i]
		n = 0
	}
	/siw-leak-probe: planting a leak/ { flush(1); probe = 1 }
	probe { buf[++n] = $0 }
	!probe { print }
	probe && /siw-leak-probe: done/ { flush(0); probe = 0 }
	END { flush(1) }' "$1" 2>/dev/null
}

# log_reports FILE: the lines of a guest's kernel log (console.txt,
# dmesg.txt) that fail its run: judged, then matching BAD_LOG.
# scripts/guest judges whole logs with it; scripts/selftest also the
# part of one log that each planted fault of a shared boot wrote.
log_reports() {
	judged "$1" | grep -E "$BAD_LOG"
}
