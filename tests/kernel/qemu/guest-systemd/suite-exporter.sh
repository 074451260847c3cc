#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# hcbs-exporter as the package installs it, under its own unit on the real
# system bus: hcbs-exporter.socket (not enabled by the package) started, the
# first connection to port 9847 starts hcbs-exporter.service, which runs as
# the package's system user hcbs-exporter under the unit's sandbox and
# answers /metrics from hcbsd: hcbs_up 1, the kernel interface, a unit's
# reservation (runtime, period, bandwidth) and, with the bpf backend, its
# wakeups. With hcbsd stopped it answers hcbs_up 0 and hcbsd stays stopped
# (its calls never start it, though hcbsd is D-Bus activatable); hcbsd
# started again, hcbs_up 1 at the next scrape. systemd-analyze security's
# rating of the unit is printed. Prometheus' promtool is not in the guest:
# the host's tests/integration/test-exporter.sh checks the same formatter's
# text with promtool check metrics. Everything is stopped again at the end.

HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"

UNIT=hcbs-exporter-load.service
cleanup() {
	systemctl stop hcbs-exporter.socket hcbs-exporter.service "$UNIT" 2>/dev/null
	rm -f "/etc/systemd/system/$UNIT"
	systemctl daemon-reload
	systemctl start hcbsd.service 2>/dev/null
}
trap cleanup EXIT

# scrape: the body of GET /metrics from 127.0.0.1:9847, through bash's /dev/tcp
scrape() {
	local out
	exec 3<>/dev/tcp/127.0.0.1/9847 || return 1
	printf 'GET /metrics HTTP/1.0\r\nHost: guest\r\n\r\n' >&3
	out=$(timeout 30 cat <&3)
	exec 3>&-
	printf '%s\n' "$out" | tr -d '\r' | awk 'body { print } /^$/ { body = 1 }'
}
# has SAMPLE-LINE: the last scrape ($out) holds this line exactly
has() { printf '%s\n' "$out" | grep -qxF "$1"; }
oneline() { printf '%s' "$1" | head -c 400 | tr '\n' '|'; }

if ! systemctl cat hcbs-exporter.socket >/dev/null 2>&1; then
	fail "the package installed no hcbs-exporter.socket"
	exit 1
fi
getent passwd hcbs-exporter >/dev/null &&
	pass "the package created the system user hcbs-exporter (sysusers.d)" ||
	fail "no user hcbs-exporter after the package's install"
state=$(systemctl is-enabled hcbs-exporter.socket 2>&1)
[ "$state" = disabled ] && pass "the package leaves hcbs-exporter.socket disabled" ||
	fail "hcbs-exporter.socket is '$state' after install, not disabled"

# a unit with a reservation that wakes up ten times a second
cat >"/etc/systemd/system/$UNIT" <<'UNIT'
[Service]
ExecStart=/bin/sh -c 'while :; do sleep 0.1; done'
CPUSchedulingPolicy=fifo
CPUSchedulingPriority=10

[X-HCBS]
Runtime=3ms
Period=20ms
UNIT
systemctl daemon-reload && systemctl start "$UNIT" || fail "cannot start $UNIT for a unit's reservation"

systemctl start hcbs-exporter.socket || {
	fail "systemctl start hcbs-exporter.socket: $(oneline "$(systemctl status hcbs-exporter.socket 2>&1 | tail -n 3)")"
	exit 1
}
systemctl is-active --quiet hcbs-exporter.service &&
	fail "hcbs-exporter.service runs before any connection" ||
	pass "the socket listens and no exporter runs before a connection"
out=$(scrape)
if has 'hcbs_up 1'; then
	pass "the first connection to port 9847 started the exporter and it serves hcbs_up 1"
else
	fail "no hcbs_up 1 on port 9847: '$(oneline "$out")' $(oneline "$(journalctl -u hcbs-exporter.service -n 5 --no-pager 2>&1)")"
fi
iface=$(hcbsctl --json status 2>/dev/null | sed -n 's/.*"kernel_interface": *"\([^"]*\)".*/\1/p')
backend=$(printf '%s\n' "$out" | sed -n 's/^hcbs_info{.*stats_backend="\([^"]*\)".*/\1/p')
printf '%s\n' "$out" | grep -q "^hcbs_info{.*kernel_interface=\"${iface:-?}\"" &&
	pass "hcbs_info names the kernel interface hcbsd runs ($iface; stats backend $backend)" ||
	fail "hcbs_info does not name kernel_interface=\"$iface\": $(printf '%s\n' "$out" | grep '^hcbs_info')"
l="{name=\"$UNIT\",kind=\"unit\"}"
has "hcbs_reservation_runtime_seconds$l 0.003" && has "hcbs_reservation_period_seconds$l 0.02" &&
	has "hcbs_reservation_bandwidth_ratio$l 0.15" &&
	pass "the unit's reservation: runtime 0.003 s, period 0.02 s, bandwidth 0.15" ||
	fail "the unit's reservation is not 3ms/20ms: $(oneline "$(printf '%s\n' "$out" | grep -F "$l")")"
if [ "$backend" = bpf ]; then
	n=$(printf '%s\n' "$out" | sed -n "s/^hcbs_wakeups_total{name=\"$UNIT\",kind=\"unit\"} //p")
	[ "${n:-0}" -gt 0 ] 2>/dev/null && pass "the unit's wakeups are counted ($n)" ||
		fail "no wakeups of $UNIT: '$n'"
fi
n=$(printf '%s\n' "$out" | sed -n 's/^hcbs_reservations{kind="unit"} //p')
[ "${n:-0}" -ge 1 ] 2>/dev/null && pass "hcbs_reservations{kind=\"unit\"} counts it ($n)" ||
	fail "hcbs_reservations{kind=\"unit\"} is '$n'"

PID=$(systemctl show -p MainPID --value hcbs-exporter.service)
status_of() { sed -n "s/^$1:[[:space:]]*//p" "/proc/$PID/status"; }
if [ -n "$PID" ] && [ "$PID" != 0 ]; then
	user=$(ps -o user= -p "$PID")
	[ "$user" = hcbs-exporter ] && pass "the exporter runs as hcbs-exporter" ||
		fail "the exporter runs as '$user', not hcbs-exporter"
	[ "$(status_of CapEff)" = 0000000000000000 ] && [ "$(status_of CapBnd)" = 0000000000000000 ] &&
		pass "the exporter has no capabilities, not even in its bounding set" ||
		fail "the exporter's CapEff $(status_of CapEff), CapBnd $(status_of CapBnd)"
	[ "$(status_of Seccomp)" = 2 ] && [ "$(status_of NoNewPrivs)" = 1 ] &&
		pass "the exporter runs under seccomp with no_new_privs" ||
		fail "the exporter's Seccomp $(status_of Seccomp), NoNewPrivs $(status_of NoNewPrivs)"
	for ns in net user mnt; do
		[ "$(readlink "/proc/$PID/ns/$ns")" != "$(readlink /proc/1/ns/$ns)" ] ||
			fail "the exporter shares PID 1's $ns namespace"
	done
	pass "the exporter has network, user and mount namespaces of its own and still serves the socket"
else
	fail "hcbs-exporter.service has no main process"
fi

# hcbsd down: hcbs_up 0, and the exporter's calls do not start it again
systemctl stop hcbsd.service
out=$(scrape)
[ "$(printf '%s\n' "$out" | grep -v '^#')" = "hcbs_up 0" ] &&
	pass "hcbsd stopped: the exporter serves hcbs_up 0 alone" ||
	fail "hcbsd stopped: the exporter served '$(oneline "$out")'"
state=$(systemctl is-active hcbsd.service)
[ "$state" = inactive ] && pass "a scrape does not start hcbsd (it is D-Bus activatable)" ||
	fail "hcbsd.service is $state after a scrape"
systemctl start hcbsd.service
out=$(scrape)
has 'hcbs_up 1' && has "hcbs_reservation_runtime_seconds$l 0.003" &&
	pass "hcbsd started again: hcbs_up 1 and the unit's reservation, from the same exporter ($PID)" ||
	fail "hcbsd started again, but: '$(oneline "$out")'"
[ "$(systemctl show -p MainPID --value hcbs-exporter.service)" = "$PID" ] ||
	fail "the exporter was restarted meanwhile (pid $(systemctl show -p MainPID --value hcbs-exporter.service), was $PID)"

sec=$(systemd-analyze security --no-pager hcbs-exporter.service 2>&1)
info "systemd-analyze security hcbs-exporter.service: $(printf '%s\n' "$sec" | grep -i 'overall exposure')"
printf '%s\n' "$sec" | grep '^✗' | sed 's/^/INFO:   /'

trap - EXIT
cleanup
exit 0
