#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The man pages (man/*.scd, the sources: no scdoc needed) and the programs
# agree on their lists: hcbsctl's verbs, its global options and each verb's
# options (against 'hcbsctl --help' and 'hcbsctl VERB --help'), hcbsd's
# options (hcbsd --help), hcbs-exporter's (hcbs-exporter --help), hcbsd.conf's keys (the key table of lib/conf.c) and
# the generator's [X-HCBS]/[Service] keys (the table of generator/gen-settings.c),
# and the D-Bus API's members and errors (dbus/org.hcbsd1.xml, lib/bus-errors.c).
# A name on one side only is a failure naming the side.
#
# usage: test-man-help.sh HCBSCTL HCBSD SOURCE_ROOT HCBS_EXPORTER
set -u
HCBSCTL=${1:?usage: test-man-help.sh HCBSCTL HCBSD SOURCE_ROOT HCBS_EXPORTER}
HCBSD=${2:?}
SRC=${3:?}
EXPORTER=${4:?}
MAN=$SRC/man
fail=0 checked=0

# compare WHAT PROGRAM_LIST MAN_LIST [may-be-empty] (newline-separated lists)
compare() {
        local what=$1 prog man d
        prog=$(printf '%s\n' "$2" | sed '/^$/d' | sort -u)
        man=$(printf '%s\n' "$3" | sed '/^$/d' | sort -u)
        checked=$((checked + 1))
        if [ -z "$prog" ] && [ -z "${4-}" ]; then
                echo "FAIL: $what: found nothing on the program's side (is the parser of this test out of date?)"
                fail=1
                return
        fi
        d=$(diff <(printf '%s\n' "$prog" | sed '/^$/d') <(printf '%s\n' "$man" | sed '/^$/d'))
        if [ -n "$d" ]; then
                printf '%s\n' "$d" | sed -n 's/^< /only in the program or its source: /p; s/^> /only in the man page: /p' |
                        sed "s|^|FAIL: $what: |"
                fail=1
        fi
}

# section TITLE: the lines of a --help section (a heading line at column 0) on stdin
section() {
        awk -v t="$1" '/^[^ ]/ { on = ($0 == t); next } on'
}
# option names at the start of a help line: "  --foo ARG", "  -h, --help"
help_options() {
        grep -oE '^  (-[a-z], )?--[a-z][a-z-]*' | grep -oE -- '--[a-z][a-z-]*'
}
# scd: the lines of "# TITLE" up to the next "# " heading
scd_section() {
        awk -v t="# $1" '/^# / { on = ($0 == t); next } on' "$2"
}
# scd: the lines of "## TITLE" up to the next heading of either level
scd_subsection() {
        awk -v t="## $1" '/^##? / { on = ($0 == t); next } on' "$2"
}
# scd: option entries, "*--foo* _ARG_" or "*-h*, *--help*" at the start of a line
scd_options() {
        grep -E '^\*-' | grep -oE -- '\*--[a-z][a-z-]*\*' | tr -d '*'
}
# scd: key entries, "*Key=*" or "*A=*, *B=*" at the start of a line
scd_keys() {
        grep -E '^\*[A-Z][A-Za-z]*=\*' | grep -oE '\*[A-Z][A-Za-z]*=\*' | tr -d '*='
}

page=$MAN/hcbsctl.1.scd
verbs=$("$HCBSCTL" --help | section COMMANDS | awk '/^  [a-z]/ && $1 != "hcbsctl" { print $1 }')
compare "hcbsctl(1) COMMANDS" "$verbs" "$(grep -E '^## [a-z]' "$page" | cut -c4-)"
compare "hcbsctl(1) OPTIONS" "$("$HCBSCTL" --help | section OPTIONS | help_options)" \
        "$(scd_section OPTIONS "$page" | scd_options)"
# A verb's options: those of its synopsis and of its OPTIONS entries, less
# the global ones (--json in "hcbsctl [--json] list").
global=$("$HCBSCTL" --help | section OPTIONS | help_options)
verb_only() {
        grep -vxF -e "$global" -e -- || true
}
for v in $verbs; do
        out=$("$HCBSCTL" "$v" --help) || { echo "FAIL: hcbsctl $v --help exits $?"; fail=1; continue; }
        popts=$({
                printf '%s\n' "$out" | section SYNOPSIS | grep -oE -- '--[a-z][a-z-]*'
                printf '%s\n' "$out" | section OPTIONS | help_options
        } | verb_only)
        # the synopsis is the first paragraph after "## VERB"
        mopts=$({
                scd_subsection "$v" "$page" | awk 'NF { on = 1 } on && !NF { exit } on' | grep -oE -- '--[a-z][a-z-]*'
                scd_subsection "$v" "$page" | scd_options
        } | verb_only)
        compare "hcbsctl(1) $v options" "$popts" "$mopts" may-be-empty
done

compare "hcbsd(8) OPTIONS" "$("$HCBSD" --help | section Options: | help_options)" \
        "$(scd_section OPTIONS "$MAN/hcbsd.8.scd" | scd_options)"

compare "hcbs-exporter(8) OPTIONS" "$("$EXPORTER" --help | section Options: | help_options)" \
        "$(scd_section OPTIONS "$MAN/hcbs-exporter.8.scd" | scd_options)"

# lib/conf.c: { SECTION_MANAGER, "Key", ...
compare "hcbsd.conf(5) keys" \
        "$(grep -oE '\{ SECTION_(MANAGER|GROUP|POOL), "[A-Za-z]+"' "$SRC/lib/conf.c" | grep -oE '"[A-Za-z]+"' | tr -d '"')" \
        "$(scd_keys <"$MAN/hcbsd.conf.5.scd")"
# generator/gen-settings.c: { SECTION_HCBS, "Key", ...
compare "hcbs-generator(8) keys" \
        "$(grep -oE '\{ SECTION_(HCBS|SERVICE), "[A-Za-z]+"' "$SRC/generator/gen-settings.c" | grep -oE '"[A-Za-z]+"' | tr -d '"')" \
        "$(scd_keys <"$MAN/hcbs-generator.8.scd")"

# org.hcbsd1(5): the interface listings name every method, signal and
# property of dbus/org.hcbsd1.xml, and no other
compare "org.hcbsd1(5) members" \
        "$(grep -oE '<(method|signal|property) name="[A-Za-z]+"' "$SRC/dbus/org.hcbsd1.xml" | cut -d'"' -f2)" \
        "$(grep -E '^      ([A-Za-z]+\(|readonly [^ ]+ [A-Za-z]+ =)' "$MAN/org.hcbsd1.5.scd" |
                sed -E 's/^ +readonly [^ ]+ ([A-Za-z]+) =.*/\1/; s/^ +([A-Za-z]+)\(.*/\1/')"
# ... and every error of lib/bus-errors.c
compare "org.hcbsd1(5) errors" \
        "$(grep -oE 'MAP\("[A-Za-z]+"' "$SRC/lib/bus-errors.c" | cut -d'"' -f2)" \
        "$(grep -oE '^\*org\.hcbsd1\.Error\.[A-Za-z]+\*' "$MAN/org.hcbsd1.5.scd" | sed 's/.*Error\.//; s/\*$//')"

if [ "$fail" = 0 ]; then
        echo "PASS: $checked lists agree between --help, the key tables and man/*.scd"
fi
exit "$fail"
