#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Harness self-test: a kernel log with a WARNING must fail the run even
# though this script succeeds. Used by scripts/selftest, expected to fail.
echo "WARNING: CPU: 0 PID: 1 at siw-harness-selftest (planted on purpose)" > /dev/kmsg
exit 0
