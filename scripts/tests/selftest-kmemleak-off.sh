#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Harness self-test: kmemleak switched off in the middle of a batch
# (batch.sh runs this as one of its scripts); the script itself passes,
# so only the batch's own scan and leak probe, and the kernel log, can
# fail the run. Used by scripts/selftest, expected to fail.
# shellcheck source=guest-lib.sh
. "$(dirname "$0")/guest-lib.sh"

t_check "kmemleak switched off" \
	sh -c 'echo off > /sys/kernel/debug/kmemleak'
t_done
