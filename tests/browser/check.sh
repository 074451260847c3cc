#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Why this host cannot run the browser test (one line, exit 1), or nothing
# (exit 0): Debian's chromium, node and tests/browser/node_modules (npm ci,
# which `make browser-deps` runs) must be there. HCBS_BROWSER=0 turns it off.
HERE=$(cd "$(dirname "$0")" && pwd)
if [ "${HCBS_BROWSER:-1}" = 0 ]; then
        echo "HCBS_BROWSER=0 is set"
elif [ ! -x /usr/bin/chromium ]; then
        echo "/usr/bin/chromium is missing (Debian's chromium; make browser-deps installs it)"
elif ! command -v node >/dev/null; then
        echo "node is missing (Debian's nodejs; make browser-deps installs it)"
elif [ ! -f "$HERE/node_modules/playwright-core/package.json" ]; then
        echo "playwright-core is not installed in tests/browser/node_modules (make browser-deps runs npm ci there)"
else
        exit 0
fi
exit 1
