#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Harness self-test: a guest that never finishes. The script stops the
# `timeout` that guest-init runs it under (its parent), so its own limit
# never fires, and sleeps on: only the host's limit on the whole guest
# can end the run, which must then fail. Used by scripts/selftest.
echo "stopping my timeout ($PPID)"
kill -STOP "$PPID"
sleep 100000
