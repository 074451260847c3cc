#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# suite-zy-package.sh — hcbsd as its Debian package installs it. The harness
# built hcbsd_*.deb with `make deb` on the host and installed it in the stage
# with `dpkg -i`; the same file is next to this script (hcbsd.deb). Checks:
# dpkg's record and files, the man pages (`man -w`, `man hcbsctl`), the bash
# completion (loaded by bash-completion, and completing a group of the
# running hcbsd), then the maintainer scripts for real under systemd: a
# reinstall (upgrade path) reloads systemd and leaves the running hcbsd
# alone, a remove stops it and takes the units away, a fresh install starts
# nothing. hcbsd is started again at the end. Runs after the other suites,
# before suite-zz-sanitizers.sh (which then sees these starts and stops too).

HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
DEB=$HERE/hcbsd.deb
GROUP=pkg-completion-test

# --- what dpkg installed
st=$(dpkg-query -W -f='${Status} ${Version}' hcbsd 2>&1)
case $st in
"install ok installed "*) pass "dpkg: hcbsd ${st##* } is installed" ;;
*) fail "dpkg: hcbsd: $st" ;;
esac
missing=$(dpkg -L hcbsd | while read -r f; do [ -e "$f" ] || echo "$f"; done)
if [ -z "$missing" ]; then
	pass "every file of dpkg -L hcbsd exists ($(dpkg -L hcbsd | wc -l) paths)"
else
	fail "files of dpkg -L hcbsd missing: $(echo $missing)"
fi
if dpkg-query -W -f='${Conffiles}' hcbsd | grep -q '^ /etc/hcbsd/hcbsd.conf '; then
	pass "/etc/hcbsd/hcbsd.conf is a conffile"
else
	fail "/etc/hcbsd/hcbsd.conf is not a conffile: $(dpkg-query -W -f='${Conffiles}' hcbsd)"
fi

# --- man pages
for p in 1:hcbsctl 8:hcbsd 5:hcbsd.conf 8:hcbs-generator 5:org.hcbsd1; do
	if w=$(man -w "${p%%:*}" "${p#*:}" 2>&1); then
		pass "man -w ${p%%:*} ${p#*:}: $w"
	else
		fail "man -w ${p%%:*} ${p#*:}: $w"
	fi
done
out=$(MANPAGER=cat MANWIDTH=80 man hcbsctl 2>&1)
if printf '%s\n' "$out" | grep -q 'hcbsctl - control hcbsd' &&
	printf '%s\n' "$out" | grep -q 'reserve-unit UNIT RUNTIME PERIOD'; then
	pass "man hcbsctl renders ($(printf '%s\n' "$out" | wc -l) lines)"
else
	fail "man hcbsctl: $(printf '%s\n' "$out" | head -n 5)"
fi

# --- bash completion, loaded as an interactive bash loads it
spec=$(bash --norc -c '. /usr/share/bash-completion/bash_completion
	_completion_loader hcbsctl 2>/dev/null; complete -p hcbsctl' 2>&1)
if [ "$spec" = "complete -F _hcbsctl hcbsctl" ]; then
	pass "bash-completion loads /usr/share/bash-completion/completions/hcbsctl ($spec)"
else
	fail "bash-completion does not load hcbsctl's completion: $spec"
fi
# comp LINE: what completing LINE's last word offers
comp() {
	bash --norc -c '. /usr/share/bash-completion/bash_completion
		_completion_loader hcbsctl 2>/dev/null
		read -ra COMP_WORDS <<<"$1"; [[ $1 == *" " ]] && COMP_WORDS+=("")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1)) COMP_LINE=$1 COMP_POINT=${#1}
		_hcbsctl hcbsctl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		printf "%s\n" "${COMPREPLY[@]}"' comp "$1" 2>&1 | sort | tr '\n' ' ' | sed 's/ $//'
}
got=$(comp "hcbsctl rel")
[ "$got" = release-unit ] && pass "completion: 'hcbsctl rel' -> $got" || fail "completion: 'hcbsctl rel' -> '$got'"
if out=$(hcbsctl create $GROUP 1ms 100ms 2>&1); then
	got=$(comp "hcbsctl show pkg-comp")
	if [ "$got" = $GROUP ]; then
		pass "completion: 'hcbsctl show pkg-comp' -> $got, from the running hcbsd"
	else
		fail "completion: 'hcbsctl show pkg-comp' -> '$got', expected $GROUP"
	fi
	hcbsctl delete $GROUP >/dev/null 2>&1 || fail "cannot delete $GROUP"
else
	fail "hcbsctl create $GROUP 1ms 100ms: $out"
fi

# --- the journal: hcbsd's entries carry MESSAGE_IDs, and the catalog explains them
ADOPTED=5e9a19d2bb3d4666b088dcd938ad7940 # HCBS_MESSAGE_ADOPTED (daemon/message-ids.h)
if journalctl -b -u hcbsd.service MESSAGE_ID=$ADOPTED -o verbose --no-pager 2>/dev/null | grep -q '^ *HCBS_ROOT='; then
	pass "journal: hcbsd's start-up adoption is a structured entry (MESSAGE_ID=$ADOPTED, HCBS_ROOT=)"
else
	fail "journal: no entry MESSAGE_ID=$ADOPTED with HCBS_ROOT= from hcbsd.service"
fi
# dpkg's trigger on /usr/lib/systemd/catalog (systemd's) ran journalctl --update-catalog
if journalctl --list-catalog 2>/dev/null | grep -q "^$ADOPTED "; then
	pass "journal: the catalog lists hcbsd's entries ($(journalctl --list-catalog | grep -c hcbsd) of them)"
	# the entry's text from catalog/hcbsd.catalog, its fields filled in
	if journalctl -b -x -u hcbsd.service MESSAGE_ID=$ADOPTED --no-pager 2>&1 | grep -q 'adopted them as they are'; then
		pass "journalctl -x explains the adoption entry from the catalog"
	else
		fail "journalctl -x adds no explanation to the adoption entry: $(journalctl -b -x -u hcbsd.service MESSAGE_ID=$ADOPTED --no-pager 2>&1 | tail -n 4 | tr '\n' '|')"
	fi
else
	fail "journal: the catalog does not list $ADOPTED: $(ls -l /usr/lib/systemd/catalog/ 2>&1 | tr '\n' ' ')"
fi

# --- the maintainer scripts under systemd
[ -f "$DEB" ] || { fail "no $DEB: the harness did not copy the package"; exit 1; }
reloads() { journalctl -b _PID=1 -o cat --no-pager 2>/dev/null | grep -c '^Reloading'; }
pid=$(systemctl show -p MainPID --value hcbsd.service)
r0=$(reloads)
if out=$(dpkg -i "$DEB" 2>&1); then
	pass "dpkg -i again (the upgrade path) succeeds"
else
	fail "dpkg -i again: $(printf '%s\n' "$out" | tail -n 5)"
fi
pid2=$(systemctl show -p MainPID --value hcbsd.service)
if [ "$pid" != 0 ] && [ "$pid2" = "$pid" ]; then
	pass "the upgrade left the running hcbsd alone (MainPID $pid)"
else
	fail "the upgrade restarted or stopped hcbsd: MainPID $pid before, $pid2 after"
fi
r1=$(reloads)
if [ "$r1" -gt "$r0" ]; then
	pass "the upgrade ran systemctl daemon-reload ($r0 -> $r1 reloads in PID 1's journal)"
else
	fail "no daemon-reload by the upgrade ($r0 -> $r1 'Reloading' lines of PID 1)"
fi

if out=$(dpkg -r hcbsd 2>&1); then
	pass "dpkg -r hcbsd succeeds"
else
	fail "dpkg -r hcbsd: $(printf '%s\n' "$out" | tail -n 5)"
fi
st=$(systemctl is-active hcbsd.service)
[ "$st" != active ] && pass "dpkg -r stopped hcbsd.service ($st)" || fail "hcbsd.service is still active after dpkg -r"
ls=$(systemctl show -p LoadState --value hcbsd.service)
[ "$ls" = not-found ] && pass "after dpkg -r systemd no longer knows hcbsd.service" ||
	fail "after dpkg -r hcbsd.service has LoadState=$ls (no daemon-reload?)"
[ ! -e /usr/sbin/hcbsd ] && pass "dpkg -r removed /usr/sbin/hcbsd" || fail "/usr/sbin/hcbsd is still there"
[ -e /etc/hcbsd/hcbsd.conf ] && pass "dpkg -r kept the conffile /etc/hcbsd/hcbsd.conf" ||
	fail "dpkg -r removed /etc/hcbsd/hcbsd.conf"

if out=$(dpkg -i "$DEB" 2>&1); then
	pass "dpkg -i after the remove succeeds"
else
	fail "dpkg -i after the remove: $(printf '%s\n' "$out" | tail -n 5)"
fi
ls=$(systemctl show -p LoadState --value hcbsd.service)
[ "$ls" = loaded ] && pass "systemd knows hcbsd.service again (daemon-reload by postinst)" ||
	fail "hcbsd.service has LoadState=$ls after dpkg -i"
sleep 1
st=$(systemctl is-active hcbsd.service)
[ "$st" != active ] && pass "installing started nothing (hcbsd.service $st)" ||
	fail "installing the package started hcbsd.service"

# leave hcbsd running, as the suites found it
if systemctl start hcbsd.service && hcbsctl status >/dev/null 2>&1; then
	pass "hcbsd.service starts from the reinstalled package and answers hcbsctl status"
else
	fail "hcbsd.service does not start again: $(systemctl status --no-pager hcbsd.service 2>&1 | tail -n 5)"
fi
