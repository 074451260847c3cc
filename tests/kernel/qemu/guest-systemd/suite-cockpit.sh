#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# suite-timeout: 600
#
# hcbsd's Cockpit page, installed by the package into Debian's cockpit 287,
# driven by a real browser: Debian's Chromium on the host (through
# playwright-core, tests/browser/cockpit-page.js) logs in to this guest's
# cockpit-ws through a port qemu forwards to 9090, and works the page
# against hcbsd on this system bus:
#   - hcbsweb, in group hcbscockpit, which a polkit rule allows
#     org.hcbsd1.manage, creates a group, sees an over-commit refused with
#     hcbsd's reason on the page, sees the group's statistics, deletes it;
#   - hcbsviewer, whom polkit does not allow it, sees the tree and is refused
#     a create with hcbsd's PermissionDenied on the page.
# Here: the plugin is where Cockpit finds it (cockpit-bridge --packages), the
# users, the rule and cockpit.socket are set up, then "HCBS-COCKPIT-READY" on
# the console tells the host's runner (tests/browser/run.sh, started by the
# harness) to go; it sends its PASS/FAIL lines back to port 9099 (forwarded
# too), and they are printed here, so the runner's verdicts are counted
# with the guest's. After it: hcbsd holds none of the test's groups.
#
# Without a browser on the host (no chromium, node or playwright-core; the
# harness says which in browser.conf) the browser part is a SKIP.

HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"

OPS=hcbscockpit MEMBER=hcbsweb VIEWER=hcbsviewer
RULE=/etc/polkit-1/rules.d/50-hcbs-cockpit-test.rules
REPORT=/run/hcbs-browser.report
LISTENER=

cleanup() {
	[ -n "$LISTENER" ] && kill "$LISTENER" 2>/dev/null
	systemctl stop cockpit.socket cockpit.service 2>/dev/null
	loginctl terminate-user "$MEMBER" 2>/dev/null
	loginctl terminate-user "$VIEWER" 2>/dev/null
	hcbsctl delete browser >/dev/null 2>&1
	hcbsctl delete browser-big >/dev/null 2>&1
	rm -f "$RULE" "$REPORT"
	userdel -r "$MEMBER" 2>/dev/null
	userdel -r "$VIEWER" 2>/dev/null
	groupdel "$OPS" 2>/dev/null
}
trap cleanup EXIT

BROWSER_SKIP=
[ -f "$HERE/browser.conf" ] && . "$HERE/browser.conf"

if [ -f /usr/share/cockpit/hcbsd/manifest.json ] && [ -f /usr/share/cockpit/hcbsd/hcbsd.js ]; then
	pass "the package installed the Cockpit plugin in /usr/share/cockpit/hcbsd"
else
	fail "no Cockpit plugin in /usr/share/cockpit/hcbsd: $(ls /usr/share/cockpit 2>&1 | tr '\n' ' ')"
	exit 1
fi
if cockpit-bridge --packages 2>&1 | grep -q '^hcbsd[[:space:]]'; then
	pass "cockpit-bridge --packages lists hcbsd"
else
	fail "cockpit-bridge --packages does not list hcbsd: $(cockpit-bridge --packages 2>&1 | head -n 20 | tr '\n' '|')"
fi

if [ -n "$BROWSER_SKIP" ]; then
	skip "hcbsd's Cockpit page in Debian's Chromium: $BROWSER_SKIP"
	exit 0
fi

if ! groupadd "$OPS" || ! useradd -m -N -g users -G "$OPS" -s /bin/bash "$MEMBER" ||
	! useradd -m -N -g users -s /bin/bash "$VIEWER"; then
	fail "cannot create the test users"
	exit 1
fi
# throw-away passwords of a throw-away guest; tests/browser/cockpit-page.js has them too
printf '%s:%s\n%s:%s\n' "$MEMBER" hcbs-web-pw "$VIEWER" hcbs-viewer-pw | chpasswd
grant_manage "$OPS" "$RULE" suite-cockpit.sh

if ! systemctl start cockpit.socket; then
	fail "systemctl start cockpit.socket: $(systemctl status cockpit.socket 2>&1 | tail -n 3 | tr '\n' '|')"
	exit 1
fi
# the first connection starts cockpit.service (it makes its certificate): plain HTTP is answered too
# (a redirect to https), each try bounded
ready=
for _ in $(seq 60); do
	timeout 10 bash -c 'exec 3<>/dev/tcp/127.0.0.1/9090 && printf "GET / HTTP/1.0\r\nHost: 127.0.0.1:9090\r\n\r\n" >&3 &&
		head -n 1 <&3 | grep -q "^HTTP/1"' 2>/dev/null && ready=1
	[ -n "$ready" ] && break
	sleep 1
done
[ -n "$ready" ] && pass "cockpit-ws answers on port 9090" ||
	{ fail "cockpit-ws does not answer on port 9090: $(journalctl -u cockpit.service -n 5 --no-pager | tr '\n' '|')"; exit 1; }

# the runner's report: one connection to port 9099, its lines, then HCBS-BROWSER-END
: >"$REPORT"
systemd-socket-activate -l 9099 --accept --inetd -- /bin/sh -c "cat >>$REPORT" >/dev/null 2>&1 &
LISTENER=$!
sleep 1
echo "HCBS-COCKPIT-READY: users $MEMBER (in $OPS) and $VIEWER, cockpit on 9090, report to 9099"

for _ in $(seq 480); do
	grep -q '^HCBS-BROWSER-END' "$REPORT" && break
	sleep 1
done
if grep -q '^HCBS-BROWSER-END' "$REPORT"; then
	grep -E '^(PASS|FAIL|SKIP|INFO): ' "$REPORT"
else
	fail "no report from the browser on the host within 480 s: $(tail -n 5 "$REPORT" | tr '\n' '|')"
fi

# what the page did, seen from here
if hcbsctl --json list | grep -qE '"name": ?"browser'; then
	fail "a group of the browser test is left: $(hcbsctl list | grep browser | tr '\n' '|')"
else
	pass "the page's groups are gone from hcbsd (created, refused, deleted)"
fi
exit 0
