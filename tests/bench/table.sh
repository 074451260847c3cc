#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The reviewer's table of `make bench`: every bench adds its rows, the
# Makefile prints the table once all have run.
#
# A row is one line of $HCBS_BENCH_TABLE (a file the Makefile empties
# first), four fields separated by tabs:
#
#   FIGURE <TAB> TARGET <TAB> NOW <TAB> ok|miss|n/a
#
# FIGURE and TARGET are what the issue's table says ("round trip at 10,000
# groups", "<= 1.3x raw writes"), NOW the measurement and what it is
# measured against ("1.12x (5.1 ms against 4.6 ms)"), the last field
# whether NOW meets TARGET (n/a: not measured here, NOW says why). To add a
# line from a shell bench: `. tests/bench/table.sh` then
# `table_row FIGURE TARGET NOW VERDICT` (or `table_verdict` to compute the
# verdict); from C: tests/bench/bench-table.h, bench_table_row(). Without
# $HCBS_BENCH_TABLE (a bench run on its own) rows go nowhere.
#
# usage: tests/bench/table.sh FILE   prints FILE as a markdown table

# table_row FIGURE TARGET NOW VERDICT
table_row() {
        [ -n "${HCBS_BENCH_TABLE:-}" ] || return 0
        printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >>"$HCBS_BENCH_TABLE"
}

# table_verdict VALUE OP LIMIT: "ok" if VALUE OP LIMIT holds (OP: <=, <, >=, >), else "miss"
table_verdict() {
        local v
        v=$(echo "$1 $2 $3" | bc -l 2>/dev/null)
        [ "$v" = 1 ] && echo ok || echo miss
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
        [ -f "${1:-}" ] || { echo "usage: $0 TABLE_FILE" >&2; exit 2; }
        echo "| figure | target | now | |"
        echo "|---|---|---|---|"
        while IFS=$'\t' read -r figure target now verdict; do
                case $verdict in
                ok) mark="✓" ;;
                miss) mark="✗" ;;
                *) mark="n/a" ;;
                esac
                echo "| $figure | $target | $now | $mark |"
        done <"$1"
fi
