#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# A sysusers.d(5) file as the package's postinst applies it: systemd-sysusers
# on an empty root must create USER (a GECOS with ':' in it, for one, is
# refused there and fails the package's install).
# Usage: test-sysusers.sh FILE USER
set -u

file=$1
user=$2

if ! command -v systemd-sysusers >/dev/null 2>&1; then
        echo "SKIP: systemd-sysusers is not installed"
        exit 77
fi
root=$(mktemp -d) || exit 1
trap 'rm -rf "$root"' EXIT
mkdir "$root/etc"
if ! out=$(systemd-sysusers --root="$root" "$file" 2>&1); then
        echo "FAIL: systemd-sysusers $file: $out"
        exit 1
fi
if grep -q "^$user:x:[0-9]*:[0-9]*:[^:]*:/:/usr/sbin/nologin$" "$root/etc/passwd" && grep -q "^$user:x:" "$root/etc/group"; then
        echo "PASS: systemd-sysusers creates the system user and group $user ($file)"
        exit 0
fi
echo "FAIL: no system user $user with a group after systemd-sysusers $file: $(cat "$root/etc/passwd")"
exit 1
