#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Harness self-test: the guest script's exit status reaches the host.
# Used by scripts/selftest, expected to exit 3.
exit 3
