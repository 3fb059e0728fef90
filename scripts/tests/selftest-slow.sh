#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Harness self-test: a script that outlives its limit inside the guest,
# printing no FAIL line. Used by scripts/selftest, expected to fail.
echo "ok: this line must not make a timed-out script pass"
sleep 100000
