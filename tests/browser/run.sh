#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The host's side of the systemd guest's browser test (guest-systemd/
# suite-cockpit.sh), started by tests/kernel/qemu/harness.sh beside qemu:
# waits until the guest's console log says HCBS-COCKPIT-READY, runs
# cockpit-page.js against the guest's cockpit-ws (forwarded to URL), and
# sends its lines, then HCBS-BROWSER-END, to the guest's report port
# (forwarded to 127.0.0.1:REPORT_PORT), where the guest prints them among
# its own results. Gives up when the guest finishes or after 900 s.
#
# usage: run.sh CONSOLE_LOG URL REPORT_PORT ARTIFACTS
#
# tests/browser/check.sh says whether this host can run it at all.

set -u
log=$1 url=$2 port=$3 artifacts=$4
HERE=$(cd "$(dirname "$0")" && pwd)

mkdir -p "$artifacts"
for _ in $(seq 900); do
        grep -q '^HCBS-COCKPIT-READY' "$log" 2>/dev/null && break
        grep -q '^HCBS-GUEST-RESULT' "$log" 2>/dev/null && { echo "run.sh: the guest finished without asking"; exit 0; }
        sleep 1
done
grep -q '^HCBS-COCKPIT-READY' "$log" || { echo "run.sh: the guest never said HCBS-COCKPIT-READY"; exit 1; }

echo "run.sh: the guest is ready; Chromium against $url, screenshots in $artifacts"
# 420 s: the guest waits 480 s for the report
timeout -k 10 420 node "$HERE/cockpit-page.js" "$url" "$artifacts" >"$artifacts/report.txt" 2>"$artifacts/stderr.txt"
rc=$?
[ "$rc" = 124 ] && echo "FAIL: browser: cockpit-page.js did not finish within 420 s" >>"$artifacts/report.txt"
echo "HCBS-BROWSER-END (cockpit-page.js exit $rc)" >>"$artifacts/report.txt"
cat "$artifacts/report.txt"
for _ in $(seq 10); do
        if exec 3<>"/dev/tcp/127.0.0.1/$port"; then
                cat "$artifacts/report.txt" >&3
                exec 3>&-
                exit 0
        fi
        sleep 2
done
echo "run.sh: cannot send the report to 127.0.0.1:$port"
exit 1
