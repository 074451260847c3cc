#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# catalog/hcbsd.catalog and daemon/message-ids.h stay in step: every
# MESSAGE_ID hcbsd sends has exactly one catalog entry with a Subject: and
# Defined-By: hcbsd, and the catalog explains no id hcbsd never sends. Then
# journalctl's own parser reads the catalog (--update-catalog into a
# scratch --root, --list-catalog back), as `journalctl -x` would.
#
# usage: test-catalog.sh SOURCE_DIR
set -u
SRC=${1:?usage: test-catalog.sh SOURCE_DIR}
HDR=$SRC/daemon/message-ids.h
CAT=$SRC/catalog/hcbsd.catalog
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0 skipped=0

ok() { echo "ok: $1"; pass=$((pass + 1)); }
bad() { echo "FAIL: $1"; fail=$((fail + 1)); }

sed -n 's/^#define HCBS_MESSAGE_[A-Z_]* "\([0-9a-f]*\)"$/\1/p' "$HDR" | sort >"$tmp/hdr"
sed -n 's/^-- \([0-9a-f]*\)$/\1/p' "$CAT" | sort >"$tmp/cat"

n=$(wc -l <"$tmp/hdr")
[ "$n" -ge 6 ] && ok "message-ids.h defines $n ids" || bad "message-ids.h defines $n ids, expected at least 6"
bad_ids=$(grep -Ev '^[0-9a-f]{32}$' "$tmp/hdr" "$tmp/cat")
[ -z "$bad_ids" ] && ok "every id is 128 bits of lower-case hex" || bad "malformed ids: $bad_ids"
dups=$(cat "$tmp/hdr" "$tmp/cat" | sort | uniq -c | awk '$1 != 2 { print $2 }')
[ -z "$dups" ] && ok "header and catalog hold the same ids, each once" || bad "ids not once in each: $dups"

# each entry: a Subject: and Defined-By: hcbsd in its header lines, and some text
awk '
        /^-- / { if (id) check(); id = $2; hdr = 1; subj = 0; def = 0; body = 0; next }
        !id { next }
        hdr && /^$/ { hdr = 0; next }
        hdr && /^Subject: ./ { subj = 1 }
        hdr && /^Defined-By: hcbsd$/ { def = 1 }
        !hdr && /[a-z]/ { body++ }
        function check() { if (!subj || !def || body < 2) print id }
        END { if (id) check() }
' "$CAT" >"$tmp/incomplete"
[ ! -s "$tmp/incomplete" ] && ok "every entry has Subject:, Defined-By: hcbsd and an explanation" ||
        bad "incomplete entries: $(tr '\n' ' ' <"$tmp/incomplete")"

if ! command -v journalctl >/dev/null; then
        echo "SKIP: journalctl is not installed: the catalog is not checked with journald's own parser"
        skipped=$((skipped + 1))
else
        mkdir -p "$tmp/root/usr/lib/systemd/catalog" "$tmp/root/var/lib/systemd/catalog"
        cp "$CAT" "$tmp/root/usr/lib/systemd/catalog/"
        if journalctl --root="$tmp/root" --update-catalog >"$tmp/log" 2>&1 &&
           journalctl --root="$tmp/root" --list-catalog >"$tmp/list" 2>>"$tmp/log"; then
                missing=
                while read -r id; do
                        subject=$(sed -n "/^-- $id\$/,/^\$/s/^Subject: //p" "$CAT")
                        grep -Fq "$id hcbsd: $subject" "$tmp/list" || missing="$missing $id"
                done <"$tmp/hdr"
                [ -z "$missing" ] && ok "journalctl --update-catalog indexes every entry with its subject" ||
                        bad "journalctl does not list:$missing ($(head -c 300 "$tmp/list"))"
        else
                bad "journalctl --update-catalog refuses the catalog: $(head -c 300 "$tmp/log")"
        fi
fi
if [ "$skipped" -gt 0 ]; then echo "$pass passed, $fail failed, $skipped skipped"; else echo "$pass passed, $fail failed"; fi
[ "$fail" -eq 0 ]
