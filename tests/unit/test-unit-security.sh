#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# A unit's sandbox, as systemd scores it: `systemd-analyze security
# --offline=true` must rate the built unit at most MAX (tenths; for
# hcbsd.service 21 = 2.1, the score of the hardening in docs/systemd.md; it
# was 4.6 before; for hcbs-exporter.service 2). A unit that
# gains a capability or loses a protection scores higher and fails here; what
# the sandbox may not break is proven in the systemd guest (suite-hardening.sh).
# Usage: test-unit-security.sh UNIT_FILE [MAX]
set -u

unit=$1
max=${2:-20}

if ! command -v systemd-analyze >/dev/null 2>&1; then
        echo "SKIP: systemd-analyze is not installed"
        exit 77
fi
if ! out=$(systemd-analyze security --offline=true --threshold=100 "$unit" 2>&1); then
        echo "SKIP: this systemd-analyze cannot score a unit file offline (systemd >= 250): $(printf '%s\n' "$out" | tail -n 1)"
        exit 77
fi
printf '%s\n' "$out" | grep -E '^✗|Overall'
score=$(printf '%s\n' "$out" | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
if systemd-analyze security --offline=true --threshold="$max" "$unit" >/dev/null 2>&1; then
        echo "PASS: $unit scores $score (at most $max tenths)"
        exit 0
fi
echo "FAIL: $unit scores $score, above the allowed $max tenths: see the lines above"
exit 1
