#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The Cockpit page's files, without Cockpit (the systemd guest drives the
# page in a browser): manifest.json parses and names the page; index.html
# loads only files the package installs (cockpit/meson.build) and Cockpit's
# cockpit.js, with no inline script or style, which Cockpit's default
# Content-Security-Policy would block; the JavaScript (the page's and the
# browser test's) parses (node --check, when node is installed).
#
# usage: test-cockpit-files.sh SOURCE_ROOT
set -u
SRC=${1:?usage: test-cockpit-files.sh SOURCE_ROOT}
C=$SRC/cockpit
fail=0
bad() { echo "FAIL: $*"; fail=1; }

python3 -c 'import json, sys; m = json.load(open(sys.argv[1])); assert m["menu"]["index"]["label"]' "$C/manifest.json" ||
        bad "cockpit/manifest.json does not parse or names no menu entry"
installed=$(grep -oE "'[^'/]+\.[a-z]+'" "$C/meson.build" | tr -d "'")
for f in $(grep -oE '(src|href)="[^"]+"' "$C/index.html" | sed -E 's/^[a-z]+="(.*)"$/\1/'); do
        case $f in
        ../base1/cockpit.js) ;;
        */*|http*) bad "index.html loads $f, which is neither the package's nor cockpit.js" ;;
        *) grep -qx -- "$f" <<<"$installed" || bad "index.html loads $f, which cockpit/meson.build does not install" ;;
        esac
done
for f in $installed; do
        [ -f "$C/$f" ] || bad "cockpit/meson.build installs $f, which is not in cockpit/"
done
grep -nE '<script>|<script [^>]*>[^<]|<style| style="| on[a-z]+="' "$C/index.html" &&
        bad "index.html has an inline script, style or handler (Cockpit's Content-Security-Policy blocks them)"
if command -v node >/dev/null; then
        for js in "$C/hcbsd.js" "$SRC"/tests/browser/*.js; do
                [ -e "$js" ] || continue # no browser test in this tree
                node --check "$js" || bad "$js does not parse"
        done
else
        echo "SKIP: node is not installed: the JavaScript is not parsed here"
fi
[ "$fail" = 0 ] && echo "PASS: the Cockpit page's files agree"
exit "$fail"
