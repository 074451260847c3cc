#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Runs last: hcbsd and hcbsctl are an ASan+UBSan build in this guest, and the
# suites before this one started, restarted and stopped them; any report they
# wrote (memory errors, leaks at exit, undefined behaviour) is in the journal.

HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"

for b in /usr/sbin/hcbsd /usr/bin/hcbsctl; do
	if ldd "$b" | grep -q libasan; then
		pass "$b is an ASan+UBSan build"
	else
		fail "$b is not a sanitizer build: this suite would prove nothing"
	fi
done

reports=$(journalctl -b --no-pager -o cat | grep -E 'AddressSanitizer|LeakSanitizer|runtime error:|SUMMARY: ')
if [ -z "$reports" ]; then
	pass "no sanitizer report in the journal ($(journalctl -b --no-pager -u hcbsd -o cat | grep -c 'Ready:') hcbsd start(s))"
else
	fail "sanitizer reports in the journal"
	journalctl -b --no-pager -o cat | grep -E -A30 'AddressSanitizer|LeakSanitizer|runtime error:' | head -80 |
		sed 's/^/INFO: /'
fi
