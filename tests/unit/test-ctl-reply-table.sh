#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# hcbsctl checks each reply's signature against a table (cli/ctl-bus.c); every
# method of dbus/org.hcbsd1.xml must have its row, with the XML's out-signature.
# usage: test-ctl-reply-table.sh SRCDIR
set -u
src=$1 failed=0
python3 - "$src/dbus/org.hcbsd1.xml" >"${TMPDIR:-/tmp}/hcbs-xml-replies.$$" <<'PY' || exit 1
import sys, xml.etree.ElementTree as ET
for m in ET.parse(sys.argv[1]).iter("method"):
    print(m.get("name"), "".join(a.get("type") for a in m.iter("arg") if a.get("direction") == "out"))
PY
while read -r method sig; do
        if grep -qF "{ \"$method\", \"$sig\" }" "$src/cli/ctl-bus.c"; then
                echo "ok - $method -> '$sig'"
        else
                echo "FAIL - $method -> '$sig' has no row in cli/ctl-bus.c's manager_replies"
                failed=$((failed + 1))
        fi
done <"${TMPDIR:-/tmp}/hcbs-xml-replies.$$"
rm -f "${TMPDIR:-/tmp}/hcbs-xml-replies.$$"
[ "$failed" -eq 0 ]
