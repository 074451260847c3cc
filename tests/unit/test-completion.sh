#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# completion/hcbsctl, sourced into bash with bash-completion: verbs, global
# and per-verb options, group and unit names (from a stand-in hcbsctl on PATH
# that prints what 'hcbsctl --json list/units' prints), pids, and nothing at
# all, quietly, from the real hcbsctl when no hcbsd answers. Its verb list is
# the one of 'hcbsctl --help'. No root, no daemon, no cgroups.
#
# usage: test-completion.sh COMPLETION_FILE HCBSCTL
set -u
COMPLETION=${1:?usage: test-completion.sh COMPLETION_FILE HCBSCTL}
HCBSCTL=${2:?}
BC=
for f in "$(pkg-config --variable=compatdir bash-completion 2>/dev/null)/../bash_completion" \
         /usr/share/bash-completion/bash_completion; do
        [ -r "$f" ] && BC=$f && break
done
if [ -z "$BC" ]; then
        echo "SKIP: bash-completion is not installed (apt-get install bash-completion)"
        exit 77
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir "$T/bin"
cat >"$T/bin/hcbsctl" <<'STUB'
#!/bin/sh
# a stand-in for hcbsctl talking to a running hcbsd
for a; do last=$a; done
case $last in
list) echo '[{"name":"media","runtime_us":20000},{"name":"media/audio","runtime_us":500},{"name":"robot"}]' ;;
units) echo '[{"unit":"motor.service","cgroup":"hcbs.slice/motor.service"}]' ;;
*) exit 3 ;;
esac
STUB
chmod +x "$T/bin/hcbsctl"
COMPLETION=$(realpath "$COMPLETION") HCBSCTL=$(realpath "$HCBSCTL")
export COMPLETION HCBSCTL BC T

# run in a fresh interactive-like bash: bash-completion, then our file
bash --norc --noprofile <<'SCRIPT'
set -u
fail=0 pass=0
shopt -s extglob progcomp
. "$BC"
. "$COMPLETION"
spec=$(complete -p hcbsctl 2>&1)
if [ "$spec" = "complete -F _hcbsctl hcbsctl" ]; then pass=$((pass + 1)); else echo "FAIL: complete -p hcbsctl: $spec"; fail=1; fi

# comp LINE: COMPREPLY for the last word of LINE (a trailing space: an empty word)
comp() {
        local line=$1
        read -ra COMP_WORDS <<<"$line"
        [[ $line == *' ' ]] && COMP_WORDS+=("")
        COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
        COMP_LINE=$line COMP_POINT=${#line}
        COMPREPLY=()
        _hcbsctl hcbsctl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
        printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ' | sed 's/ $//'
}
# expect LINE WANT
expect() {
        local got
        got=$(comp "$1")
        if [ "$got" = "$2" ]; then pass=$((pass + 1)); else echo "FAIL: '$1': got '$got', want '$2'"; fail=1; fi
}
# contains LINE WORD
contains() {
        local got
        got=" $(comp "$1") "
        if [[ $got == *" $2 "* ]]; then pass=$((pass + 1)); else echo "FAIL: '$1': '$2' missing from '$got'"; fail=1; fi
}

PATH=$T/bin:$PATH
expect "hcbsctl st" "stats status"
expect "hcbsctl re" "release-unit reserve-unit"
expect "hcbsctl --j" "--json"
expect "hcbsctl --json l" "list"
expect "hcbsctl create foo 1ms 10ms --p" "--period --period-range --persistent"
expect "hcbsctl size --scheduler " "edf fp"
expect "hcbsctl set " "media media/audio robot"
expect "hcbsctl --json show media" "media media/audio"
expect "hcbsctl --bus-address unix:path=/x show r" "robot"
expect "hcbsctl delete media --migrate-to r" "robot"
expect "hcbsctl create " "media/ media/audio/ robot/"
expect "hcbsctl create x " "max"
expect "hcbsctl stats m" "media media/audio motor.service"
expect "hcbsctl release-unit " "motor.service"
expect "hcbsctl why mo" "motor.service"
contains "hcbsctl why " "$$"
expect "hcbsctl attach media/audio --f" "--fifo"
expect "hcbsctl attach media/audio --fifo 50 $$" "$(compgen -W "$(ls /proc | grep -E '^[0-9]+$')" -- $$ | sort | tr '\n' ' ' | sed 's/ $//')"
contains "hcbsctl detach " "$$"
contains "hcbsctl attach robot " "1"
contains "hcbsctl run media -- ba" "bash"
expect "hcbsctl list " ""
# with no hcbsd: the real hcbsctl on a bus nobody listens on, quietly nothing
PATH=$(dirname "$HCBSCTL"):${PATH#"$T/bin:"}
err=$(comp "hcbsctl --bus-address unix:path=$T/none show " 2>&1 >/dev/null)
got=$(comp "hcbsctl --bus-address unix:path=$T/none show ")
if [ -z "$got" ] && [ -z "$err" ]; then pass=$((pass + 1)); else echo "FAIL: without hcbsd: got '$got', stderr '$err'"; fail=1; fi
# every verb of hcbsctl --help is completed, and no other
want=$(hcbsctl --help | awk '/^[^ ]/ { on = ($0 == "COMMANDS"); next } on && /^  [a-z]/ && $1 != "hcbsctl" { print $1 }' | sort | tr '\n' ' ' | sed 's/ $//')
expect "hcbsctl " "$want"
[ "$fail" = 0 ] && echo "PASS: $pass completions"
exit "$fail"
SCRIPT
