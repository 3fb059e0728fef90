# SPDX-License-Identifier: GPL-2.0
"""The snapshots of scripts/insns-plugin.c and the guest's symbols, for
scripts/insns-report and scripts/bench-insns."""
import bisect
import os


def snapshot(gdir, label):
    """user instructions, {kernel block address: instructions}"""
    user, blocks = 0, {}
    with open(os.path.join(gdir, "insns-%s.txt" % label)) as f:
        for line in f:
            w = line.split()
            if w[0] == "user":
                user = int(w[1])
            else:
                blocks[int(w[0], 16)] = int(w[1])
    return user, blocks


def run_delta(gdir, before, after):
    """what ran between two snapshots: user instructions, {address:
    instructions} of the kernel blocks whose count moved"""
    u0, b0 = snapshot(gdir, before)
    u1, b1 = snapshot(gdir, after)
    return u1 - u0, {a: v - b0.get(a, 0) for a, v in b1.items()
                     if v != b0.get(a, 0)}


class Symbols:
    """the guest's text symbols, from one or more copies of /proc/kallsyms
    (whole, or its kernel image's and its modules' lines apart)"""

    def __init__(self, *paths):
        syms = []
        for path in paths:
            with open(path) as f:
                for line in f:
                    w = line.split()
                    if len(w) < 3 or w[1] not in "tTwW":
                        continue
                    syms.append((int(w[0], 16), w[2],
                                 w[3].strip("[]") if len(w) > 3 else ""))
        syms.sort()
        self.addrs = [s[0] for s in syms]
        self.syms = syms

    def lookup(self, addr):
        """the symbol's name and its module ("" for the kernel image)"""
        i = bisect.bisect_right(self.addrs, addr) - 1
        if i < 0:
            return "?", ""
        return self.syms[i][1], self.syms[i][2]
