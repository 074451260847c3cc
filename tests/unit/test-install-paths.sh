#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The defaults compiled into hcbsd for other prefixes: the state directory
# must be /var/lib/hcbsd (what hcbsd.service's StateDirectory= gives) for
# --prefix=/usr, /usr/local and /opt/hcbs, and -Dstatedir must override it.
# Configures throw-away build directories and reads their config.h.
#
# usage: test-install-paths.sh SOURCE_DIR
set -u
SRC=${1:?usage: test-install-paths.sh SOURCE_DIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

check() { # PREFIX EXPECTED [MESON_ARGS...]
        local prefix=$1 expected=$2 dir got
        shift 2
        dir=$tmp/b$(echo "$prefix$*" | tr -c 'a-zA-Z0-9' _)
        if ! meson setup --prefix="$prefix" -Dtests=false -Dbpf=disabled "$@" "$dir" "$SRC" >"$tmp/log" 2>&1; then
                cat "$tmp/log"
                echo "FAIL: meson setup --prefix=$prefix $*"
                fail=$((fail + 1))
                return
        fi
        got=$(sed -n 's/^#define HCBS_STATEDIR "\(.*\)"$/\1/p' "$dir/config.h")
        if [ "$got" = "$expected" ]; then
                echo "ok: --prefix=$prefix $*: state dir $got"
                pass=$((pass + 1))
        else
                echo "FAIL: --prefix=$prefix $*: state dir '$got', expected '$expected'"
                fail=$((fail + 1))
        fi
}

check /usr /var/lib/hcbsd
check /usr/local /var/lib/hcbsd
check /opt/hcbs /var/lib/hcbsd
check /usr/local /srv/hcbsd -Dstatedir=/srv/hcbsd
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
