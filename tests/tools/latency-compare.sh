#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# latency-compare.sh CYCLICTEST_OUTPUT STATS_JSON: hcbsd's wakeup latency of
# a group against cyclictest's own, for the group that ran nothing but
# `cyclictest -t1 -h N -q` (one SCHED_FIFO thread; its main thread is
# SCHED_OTHER, and the collector's latency is its RT tasks').
#
# What each measures, for the same wakeups of the same thread:
#   cyclictest: from the timer's expiry to the thread's clock_gettime() back
#               in user space (the hrtimer interrupt, the wakeup, the wait
#               for the CPU, the switch, the return from clock_nanosleep);
#   collector:  from the wakeup (sched_wakeup) to the switch-in (sched_switch),
#               a part of that.
# So each of the collector's samples is at most cyclictest's for the same
# wakeup, and every percentile and the maximum too: collector <= cyclictest,
# the difference being the timer-to-wakeup and switch-to-user paths. The
# collector's percentiles are the upper bounds of their buckets (at most
# 12.5% above the value), cyclictest's histogram has 1 us buckets (a value
# v counts latencies in [v, v+1) us), so the check allows exactly that:
#   collector_pX <= 1.125 * (cyclictest_pX + 1 us), collector_max <= cyclictest_max + 1 us,
# and the sample counts must agree within 2%.
#
# Prints the table and "relation: holds" (exit 0) or "relation: broken: ..."
# (exit 1); exit 2 for unreadable input.

[ $# -eq 2 ] && [ -r "$1" ] && [ -r "$2" ] || { echo "usage: $0 CYCLICTEST_OUTPUT STATS_JSON" >&2; exit 2; }

tr ',{}' '\n\n\n' <"$2" | tr -d '"' | awk -F: -v out="$1" '
	$1 ~ /^latency_(p50|p90|p99|p999|max)_ns$/ { c[$1] = $2 }
	$1 == "latency_count" { c["count"] = $2 }
	# cyclictest pads with zeros, which busybox awk would read as octal
	function num(s) { sub(/^0+/, "", s); return s == "" ? 0 : s + 0 }
	END {
		while ((getline line < out) > 0) {
			if (line ~ /^[0-9]+ [0-9]+$/) { split(line, f, " "); v = num(f[1]); h[v] = num(f[2]); n += h[v]; if (v > top) top = v }
			else if (line ~ /^# Max Latencies:/) { sub(/.*: */, "", line); ymax = num(line) }
			else if (line ~ /^# Histogram Overflows:/) { sub(/.*: */, "", line); over = num(line) }
		}
		if (n == 0 || c["count"] == "") { print "latency-compare: no cyclictest histogram or no collector latency"; exit 2 }
		split("p50 p90 p99 p999", qs, " "); split("0.5 0.9 0.99 0.999", qv, " ")
		printf "%-8s %12s %12s %12s\n", "", "cyclictest", "collector", "difference"
		ok = 1
		for (i = 1; i <= 4; i++) {
			need = qv[i] * (n + over); seen = 0; y = -1
			for (v = 0; v <= top && y < 0; v++) { seen += h[v]; if (seen >= need) y = v }
			if (y < 0) y = ymax # in the overflow: only the maximum is known
			col = c["latency_" qs[i] "_ns"] / 1000
			printf "%-8s %10d us %9.1f us %9.1f us\n", qs[i], y, col, y - col
			if (col > 1.125 * (y + 1)) { ok = 0; why = why " " qs[i] " " col " us > 1.125 * (" y " + 1) us;" }
		}
		col = c["latency_max_ns"] / 1000
		printf "%-8s %10d us %9.1f us %9.1f us\n", "max", ymax, col, ymax - col
		if (col > ymax + 1) { ok = 0; why = why " max " col " us > " ymax " + 1 us;" }
		printf "%-8s %13d %12d\n", "samples", n + over, c["count"]
		d = c["count"] - (n + over); if (d < 0) d = -d
		if (d > 0.02 * (n + over)) { ok = 0; why = why " " c["count"] " samples against " n + over ";" }
		if (ok) { print "relation: holds (collector <= cyclictest for every percentile and the maximum)"; exit 0 }
		print "relation: broken:" why
		exit 1
	}'
