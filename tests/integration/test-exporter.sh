#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# hcbs-exporter and hcbsctl stats --prometheus against hcbsd, and Debian's
# Prometheus scraping the exporter:
#   - the exporter, socket-activated (systemd-socket-activate, as the unit
#     does), serves /metrics; promtool check metrics finds nothing in it nor
#     in hcbsctl stats --prometheus, and both carry the same samples;
#   - a SCHED_FIFO load in a group: the histogram's cumulative counts equal
#     the sums of GetStats' buckets at each bound, _count and _sum equal
#     latency_count and latency_sum_ns;
#   - prometheus (2.42, bookworm) scrapes it every second; once it holds the
#     final count, a PromQL histogram_quantile(0.99, ...) over the HTTP API
#     lies in the Prometheus bucket that holds hcbsd's own p99;
#   - hcbsd stopped: hcbs_up 0 and the exporter keeps serving; restarted: 1;
#     the bus restarted: the first scrape after connects again (hcbs_up 1);
#   - HTTP: 404, 405, 400, HEAD without a body, a silent connection does not
#     hold up a scrape.
#
# usage: test-exporter.sh BUILD_DIR

# shellcheck source=tests/integration/lib.sh disable=SC2119
. "$(dirname "$0")/lib.sh"
it_init "${1:-}"
EXPORTER=$BUILD/exporter/hcbs-exporter
LOAD=$BUILD/tests/integration/stats-load
[ -x "$EXPORTER" ] || it_skip_all "$EXPORTER is not built"
command -v systemd-socket-activate >/dev/null || it_skip_all "systemd-socket-activate is not installed (package systemd)"
it_write_conf "Capacity=25%" # of the machine's RT budget, which other suites share

it_start_bus
it_start_hcbsd_or_die

# a free TCP port on 127.0.0.1 (bound, closed, handed over: another program may take it meanwhile, rarely)
free_port() {
        python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# http REQUEST-BYTES (python literal) [TIMEOUT]: the raw answer of the exporter, or "timeout"
http() {
        python3 - "$PORT" "$1" "${2:-10}" <<'EOF'
import socket, sys
port, req, timeout = int(sys.argv[1]), eval(sys.argv[2]), float(sys.argv[3])
s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
s.sendall(req)
out = b""
try:
    while True:
        b = s.recv(65536)
        if not b:
            break
        out += b
except socket.timeout:
    print("timeout")
    sys.exit(0)
sys.stdout.write(out.decode())
EOF
}

scrape() {
        http 'b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"' | tr -d '\r' | awk 'body { print } /^$/ { body = 1 }'
}

PORT=$(free_port)
systemd-socket-activate -l "127.0.0.1:$PORT" "$EXPORTER" --bus-address="$ADDR" >"$T/exporter.log" 2>&1 &
EXPORTER_PID=$!
IT_PIDS+=("$EXPORTER_PID")
wait_for 50 python3 -c "import socket; socket.create_connection(('127.0.0.1', $PORT))"

scrape >"$T/empty.prom"
check_match "the exporter serves hcbs_up 1" '^hcbs_up 1$' "$(cat "$T/empty.prom")"
check_match "hcbs_info names the kernel interface and the statistics backend" \
        '^hcbs_info\{version="[^"]+",kernel_interface="legacy-v1",stats_backend="(bpf|cgroupfs)"\} 1$' "$(cat "$T/empty.prom")"

HAVE_PROMTOOL=0
if command -v promtool >/dev/null; then
        HAVE_PROMTOOL=1
        it_run promtool check metrics <"$T/empty.prom"
        check_eq "promtool check metrics: nothing to say of an empty hcbsd" "0:" "$RC:$OUT$ERR"
else
        skip "promtool check metrics" "promtool is not installed (package prometheus; make deps installs it)"
fi

check "create a 2ms 10ms" ctl create a 2ms 10ms
BPF=0
[ "$(busctl --address="$ADDR" get-property org.hcbsd1 /org/hcbsd1 org.hcbsd1.Manager StatsBackend)" = 's "bpf"' ] && BPF=1

PROM_PID=
if command -v prometheus >/dev/null && [ "$BPF" = 1 ]; then
        PROM_PORT=$(free_port)
        mkdir "$T/prom"
        cat >"$T/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: hcbs
    static_configs:
      - targets: ["127.0.0.1:$PORT"]
EOF
        prometheus --config.file="$T/prometheus.yml" --storage.tsdb.path="$T/prom" \
                --web.listen-address="127.0.0.1:$PROM_PORT" --log.level=warn >"$T/prometheus.log" 2>&1 &
        PROM_PID=$!
        IT_PIDS+=("$PROM_PID")
fi

if [ "$BPF" = 1 ] && [ -x "$LOAD" ]; then
        # 3 s: 1 ms of work every 10 ms under SCHED_FIFO, while Prometheus scrapes
        ctl run a --fifo 50 -- "$LOAD" 300 1000 10000 >"$T/a.out" 2>&1
        check_eq "the load in a ran" 0 "$?"
        ctl_json stats a >"$T/a.json"
        scrape >"$T/a.prom"
        "$HCBSCTL" --bus-address "$ADDR" stats --prometheus >"$T/ctl.prom"
        check_eq "hcbsctl stats --prometheus succeeds" 0 "$?"
        # the latency of a, as both wrote it, against GetStats' buckets
        verdict=$(python3 - "$T/a.json" "$T/a.prom" "$T/ctl.prom" <<'EOF'
import json, re, sys
d = json.load(open(sys.argv[1]))
def samples(path):
    out = {}
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        name, value = line.rsplit(" ", 1)
        out[name] = float(value)
    return out
exp, ctl = samples(sys.argv[2]), samples(sys.argv[3])
problems = []
les = [(k, re.search(r'le="([^"]+)"', k).group(1)) for k in exp
       if k.startswith('hcbs_wakeup_latency_seconds_bucket{name="a",kind="group",')]
if len(les) != 42:
    problems.append("%d buckets, not 41 and +Inf" % len(les))
for key, le in les:
    want = d["latency_count"] if le == "+Inf" else sum(b[2] for b in d["latency_buckets"] if b[1] <= round(float(le) * 1e9))
    # the scrape came after the JSON: a only sleeps now, but let its counts be >= and equal once idle
    if exp[key] != want:
        problems.append("%s: %s, GetStats' buckets sum to %s" % (le, exp[key], want))
base = '{name="a",kind="group"}'
if exp.get("hcbs_wakeup_latency_seconds_count" + base) != d["latency_count"]:
    problems.append("_count %s != latency_count %s" % (exp.get("hcbs_wakeup_latency_seconds_count" + base), d["latency_count"]))
if abs(exp.get("hcbs_wakeup_latency_seconds_sum" + base, -1) - d["latency_sum_ns"] / 1e9) > 1e-9:
    problems.append("_sum %s != latency_sum_ns %s" % (exp.get("hcbs_wakeup_latency_seconds_sum" + base), d["latency_sum_ns"]))
if exp.get("hcbs_wakeups_total" + base) != d["wakeups"]:
    problems.append("wakeups_total %s != %s" % (exp.get("hcbs_wakeups_total" + base), d["wakeups"]))
if abs(exp.get("hcbs_rt_cpu_seconds_total" + base, -1) - d["rt_time_ns"] / 1e9) > 1e-9:
    problems.append("rt_cpu_seconds_total %s != %s" % (exp.get("hcbs_rt_cpu_seconds_total" + base), d["rt_time_ns"]))
if exp.get("hcbs_reservation_bandwidth_ratio" + base) != 0.2:
    problems.append("bandwidth_ratio %s" % exp.get("hcbs_reservation_bandwidth_ratio" + base))
# hcbsctl wrote the same samples (the window and counters of an idle group do not move but for its clock)
moving = ("hcbs_cpu_seconds_total", "hcbs_rt_cpu_seconds_total", "hcbs_runnable_wait_seconds_total")
diff = [k for k in set(exp) | set(ctl) if not k.startswith(moving) and exp.get(k) != ctl.get(k)]
if diff:
    problems.append("exporter and hcbsctl differ on: " + ", ".join(sorted(diff)[:5]))
print("; ".join(problems) or "ok")
EOF
)
        check_eq "the histogram's counts, _count and _sum are GetStats' exactly; hcbsctl writes the same" ok "$verdict"
        if [ "$HAVE_PROMTOOL" = 1 ]; then
                it_run promtool check metrics <"$T/a.prom"
                check_eq "promtool check metrics: nothing to say of the exporter's /metrics" "0:" "$RC:$OUT$ERR"
                it_run promtool check metrics <"$T/ctl.prom"
                check_eq "promtool check metrics: nothing to say of hcbsctl stats --prometheus" "0:" "$RC:$OUT$ERR"
        fi

        if [ -n "$PROM_PID" ]; then
                count=$(jpy "d['latency_count']" <"$T/a.json")
                p99=$(jpy "d['latency_p99_ns']" <"$T/a.json")
                # promql EXPR: the value of an instant query, or "none"
                promql() {
                        python3 - "$PROM_PORT" "$1" <<'EOF'
import json, sys, urllib.parse, urllib.request
url = "http://127.0.0.1:%s/api/v1/query?" % sys.argv[1] + urllib.parse.urlencode({"query": sys.argv[2]})
try:
    r = json.load(urllib.request.urlopen(url, timeout=5))
    res = r["data"]["result"]
    print(res[0]["value"][1] if res else "none")
except Exception as e:
    print("none")
EOF
                }
                # Prometheus scrapes every second: wait (up to 30 s) until it holds the final count
                got=none
                for _ in $(seq 60); do
                        got=$(promql "hcbs_wakeup_latency_seconds_count{name=\"a\",kind=\"group\"}")
                        [ "$got" = "$count" ] && break
                        sleep 0.5
                done
                check_eq "Prometheus scraped the exporter: its _count is hcbsd's latency_count" "$count" "$got"
                q=$(promql "histogram_quantile(0.99, hcbs_wakeup_latency_seconds_bucket{name=\"a\",kind=\"group\"})")
                it_log "p99: hcbsd ${p99} ns, PromQL histogram_quantile ${q} s (count $count)"
                verdict=$(python3 - "$q" "$p99" <<'EOF'
import sys
q, p99 = sys.argv[1], int(sys.argv[2])
if q in ("none", "NaN"):
    print("PromQL returned " + q); sys.exit()
q = float(q) * 1e9
# the Prometheus bucket (lo, hi] that holds hcbsd's p99: bounds 2^h-1 and 3*2^(h-1)-1 ns
bounds = [0] + sorted([(1 << h) - 1 for h in range(10, 31)] + [(3 << (h - 1)) - 1 for h in range(10, 30)])
for lo, hi in zip(bounds, bounds[1:]):
    if lo < p99 <= hi:
        print("ok" if lo - 1e-3 <= q <= hi + 1e-3 else "PromQL's %.0f ns is outside (%d, %d] where hcbsd's %d is" % (q, lo, hi, p99))
        break
else:
    print("hcbsd's p99 %d is above the last bound" % p99)
EOF
)
                check_eq "PromQL's p99 from the histogram lies in the bucket of hcbsd's own p99" ok "$verdict"
        else
                skip "Prometheus scraping the exporter" "prometheus is not installed (package prometheus; make deps installs it)"
        fi
elif [ "${HCBS_VALGRIND:-0}" = 1 ]; then
        # lib.sh starts hcbsd without the collector under valgrind (libbpf costs ~20 s a start there);
        # make test's ASan run has it
        skip "the latency histogram through the exporter and Prometheus" \
                "hcbsd runs without the BPF collector under valgrind; the ASan run checks it"
else
        skip "the latency histogram through the exporter and Prometheus" \
                "the statistics backend is not bpf here (hcbsctl status says why) or $LOAD is not built"
fi

# Prometheus is done: from here on the scrapes below are the exporter's only ones
[ -n "$PROM_PID" ] && kill "$PROM_PID" 2>/dev/null && wait "$PROM_PID" 2>/dev/null

# hcbsd stopped: the exporter serves hcbs_up 0 and carries on
it_stop_hcbsd
check_eq "without hcbsd the exporter serves only hcbs_up 0" "hcbs_up 0" "$(scrape | grep -v '^#')"
it_start_hcbsd_or_die
check_match "hcbsd back: hcbs_up 1" '^hcbs_up 1$' "$(scrape)"

# the bus restarted (hcbsd with it): the exporter's connection is dead but
# nothing read it since; the first scrape after is hcbs_up 1 on a new one
it_stop_hcbsd
kill -TERM "$BUS_PID"
bus_gone() { ! kill -0 "$BUS_PID"; }
wait_for 50 bus_gone || it_fail "the private dbus-daemon ends on SIGTERM" "pid $BUS_PID still runs"
rm -f "$T/bus"
it_start_bus
it_start_hcbsd_or_die
check_match "the bus restarted: the first scrape reconnects and serves hcbs_up 1" '^hcbs_up 1$' "$(scrape)"

# HTTP
status() { http "$1" | head -n 1 | tr -d '\r'; }
check_eq "404 for another path" "HTTP/1.1 404 Not Found" "$(status 'b"GET /other HTTP/1.1\r\n\r\n"')"
check_eq "405 for POST" "HTTP/1.1 405 Method Not Allowed" "$(status 'b"POST /metrics HTTP/1.1\r\n\r\n"')"
check_eq "400 for garbage" "HTTP/1.1 400 Bad Request" "$(status 'b"\x00\x01 garbage\r\n\r\n"')"
check_eq "431 for a head past 8 KiB" "HTTP/1.1 431 Request Header Fields Too Large" \
        "$(status 'b"GET /metrics HTTP/1.1\r\nX: " + b"y" * 9000')"
head=$(http 'b"HEAD /metrics HTTP/1.0\r\n\r\n"')
check_eq "HEAD answers 200 without a body" "HTTP/1.1 200 OK|" \
        "$(printf '%s' "$head" | head -n 1 | tr -d '\r')|$(printf '%s' "$head" | tr -d '\r' | awk 'body { print } /^$/ { body = 1 }')"
# a client that connects and says nothing: another scrape is answered meanwhile
exec {silent}<>/dev/tcp/127.0.0.1/"$PORT"
check_match "a scrape is answered while a silent connection is open" '^hcbs_up 1$' \
        "$(http 'b"GET /metrics HTTP/1.1\r\n\r\n"' 5 | tr -d '\r')"
exec {silent}>&-
check "the exporter is still running" kill -0 "$EXPORTER_PID"

kill "$EXPORTER_PID" 2>/dev/null
wait "$EXPORTER_PID" 2>/dev/null
check_eq "the exporter exits 0 on SIGTERM" 0 "$?"
it_finish
