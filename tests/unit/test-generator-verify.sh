#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Runs the real hcbs-generator on tests/fixtures/generator/root, then asks
# systemd itself about the result:
#  1. `systemd-analyze verify` on units next to their generated drop-ins (plus
#     units/hcbs.slice and a stand-in hcbsd.service): any message about a
#     drop-in, hcbsctl, hcbs.slice or hcbsd.service fails, so does a non-zero exit;
#  2. an instance's own zz-hcbs.conf masks the template's (one reserve step):
#     a probe key added to the template's file must warn for an instance
#     without its own file and stay silent for one with it.
# Usage: test-generator-verify.sh GENERATOR SRCDIR
set -eu

gen=$1
srcdir=$2
case $gen in /*) ;; *) gen=$PWD/$gen ;; esac
root=$srcdir/tests/fixtures/generator/root

if ! command -v systemd-analyze >/dev/null 2>&1; then
        echo "SKIP: systemd-analyze is not installed"
        exit 77
fi

tmp=$(mktemp -d /tmp/hcbs-generator-verify.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/out" "$tmp/units"
printf '#!/bin/sh\nexit 0\n' >"$tmp/hcbsctl"
chmod +x "$tmp/hcbsctl"

HCBS_GENERATOR_ROOT=$root HCBS_GENERATOR_HCBSCTL=$tmp/hcbsctl HCBS_GENERATOR_LOG=$tmp/log \
        "$gen" "$tmp/out" "$tmp/out" "$tmp/out"

cp "$srcdir/units/hcbs.slice" "$tmp/units/"
printf '[Unit]\nDescription=Stand-in for hcbsd\n\n[Service]\nExecStart=/bin/sleep infinity\n' \
        >"$tmp/units/hcbsd.service"

# Copies a unit file and the fixture's and the generated NAME.d/ of each name given.
install_unit() { # FILE NAME...
        cp "$1" "$tmp/units/"
        shift
        for name; do
                for d in "$root/etc/systemd/system/$name.d" "$root/usr/lib/systemd/system/$name.d" \
                        "$tmp/out/$name.d"; do
                        if [ -d "$d" ]; then
                                mkdir -p "$tmp/units/$name.d"
                                cp "$d"/* "$tmp/units/$name.d/"
                        fi
                done
        done
}

analyze() { # UNIT_OR_PATH
        (cd "$tmp/units" && SYSTEMD_UNIT_PATH="$tmp/units:" systemd-analyze verify "$1" 2>&1)
}

status=0
fail() {
        echo "FAIL: $*"
        status=1
}

verify() { # UNIT_OR_PATH
        rc=0
        out=$(analyze "$1") || rc=$?
        [ -z "$out" ] || printf '%s\n' "$out" | sed "s|^|  systemd-analyze: |"
        if [ "$rc" -ne 0 ] || printf '%s\n' "$out" | grep -Eq 'zz-hcbs\.conf|hcbsctl|hcbs\.slice|hcbsd\.service'; then
                fail "systemd-analyze verify $1 (exit $rc) complained about the generated drop-in"
        else
                echo "ok: verify $1"
        fi
}

for f in "$tmp/out"/*.d/zz-hcbs.conf; do
        [ -f "$f" ] || fail "the generator wrote nothing"
done
install_unit "$root/etc/systemd/system/motor.service" motor.service
install_unit "$root/etc/systemd/system/batch.service" batch.service
install_unit "$root/etc/systemd/system/pinned.service" pinned.service
install_unit "$root/etc/systemd/system/svc-syntax.service" svc-syntax.service
install_unit "$root/usr/lib/systemd/system/worker@.service" worker@.service worker@b.service worker@c.service
verify "$tmp/units/motor.service"
verify "$tmp/units/batch.service"
verify "$tmp/units/pinned.service"
verify "$tmp/units/svc-syntax.service"
verify worker@a.service
verify worker@b.service
verify worker@c.service

printf 'HcbsMaskProbe=1\n' >>"$tmp/units/worker@.service.d/zz-hcbs.conf"
if analyze worker@b.service | grep -q HcbsMaskProbe; then
        fail "worker@b.service also reads worker@.service.d/zz-hcbs.conf: two reserve steps"
else
        echo "ok: worker@b.service.d/zz-hcbs.conf masks worker@.service.d/zz-hcbs.conf"
fi
if analyze worker@a.service | grep -q HcbsMaskProbe; then
        echo "ok: worker@a.service reads worker@.service.d/zz-hcbs.conf"
else
        fail "worker@a.service does not read the template's drop-in: the probe is blind"
fi

[ "$status" -eq 0 ] && echo "1 passed, 0 failed" || echo "0 passed, 1 failed"
exit "$status"
