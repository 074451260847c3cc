# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=sh
#
# The scripted hcbsctl session of make demo (POSIX sh, busybox's too): sourced
# by tests/demo/demo.sh on this machine's kernel and by tests/demo/guest.sh on
# the HCBS kernel under qemu. hcbsd must be running; HCBSCTL names hcbsctl
# (default: on PATH). demo_basics is what every RT group kernel shows;
# demo_hcbs is what only HCBS shows: a reservation that holds beside a
# SCHED_FIFO-99 hog on every CPU. Each leaves no process or group behind.

HCBSCTL=${HCBSCTL:-hcbsctl}
DEMO_PIDS=

bold() { printf '\n\033[1m%s\033[0m\n' "$*"; }
say() { printf '\033[1;34m$ %s\033[0m\n' "$*"; }
run() {
        say "hcbsctl $*"
        "$HCBSCTL" "$@" || echo "(exit status $?)"
}

# demo_spawn CMD...: a background process of the session, stopped by demo_stop
demo_spawn() {
        "$@" &
        DEMO_PID=$!
        DEMO_PIDS="$DEMO_PIDS $DEMO_PID"
}

demo_stop() {
        [ -n "$DEMO_PIDS" ] || return 0
        # shellcheck disable=SC2086
        kill $DEMO_PIDS 2>/dev/null || true
        # shellcheck disable=SC2086
        wait $DEMO_PIDS 2>/dev/null || true
        DEMO_PIDS=
}

demo_basics() {
        bold "1. What hcbsd manages (Mode: what this kernel gives)"
        run status

        bold "2. A parent with a child, and the tree with free bandwidth"
        run create media 20ms 100ms
        run create media/video 16ms 100ms
        run tree

        bold "3. A real process, made SCHED_FIFO inside media/video, and what hcbsctl why sees"
        demo_spawn sleep 600
        run attach media/video "$DEMO_PID" --fifo 10
        run why "$DEMO_PID"

        bold "4. An over-commit, refused before the kernel sees it, with its reason"
        run create media/audio 10ms 100ms
        run check media/audio 4ms 100ms
        say "... and with --grow-parents, media grows first (top-down)"
        run create media/audio 10ms 100ms --grow-parents
        run tree

        bold "5. Why a thread cannot become SCHED_FIFO: a user without RLIMIT_RTPRIO"
        if setpriv --help 2>&1 | grep -q -- --reuid; then
                demo_spawn setpriv --reuid=65534 --regid=65534 --clear-groups sleep 600
        else # busybox's setpriv changes no uid; its su execs the command
                demo_spawn su -s /bin/sh nobody -c 'exec sleep 600'
        fi
        sleep 0.2
        run why "$DEMO_PID"

        bold "6. Clean up: detach, delete"
        set -- $DEMO_PIDS
        run detach "$1"
        demo_stop
        run delete media/audio
        run delete media/video
        run delete media
        run list
}

# demo_load RUNTIME_US: the task set in group control beside a FIFO-99 hog on every CPU
demo_load() {
        _cpus=$(nproc)
        _c=0
        while [ "$_c" -lt "$_cpus" ]; do
                demo_spawn spin -c "$_c" -p 99 120 >/dev/null 2>&1
                _c=$((_c + 1))
        done
        say "spin -c CPU -p 99 &   # a SCHED_FIFO-99 busy loop in the root cgroup on each of the $_cpus CPUs"
        sleep 0.5
        say "hcbsctl run control -- hcbs-rtload --text --periods 200 --cpu 0 $DEMO_TASKS"
        # shellcheck disable=SC2086
        "$HCBSCTL" run control -- hcbs-rtload --text --periods 200 --cpu 0 $DEMO_TASKS ||
                echo "(exit status $?)"
        demo_stop
}

demo_hcbs() {
        DEMO_TASKS="2ms:25ms 3ms:40ms 5ms:50ms"
        bold "7. HCBS: a reservation sized for three periodic tasks"
        run size --task 2ms:25ms --task 3ms:40ms --task 5ms:50ms --cpus 1 --period 10ms
        run create control --task 2ms:25ms --task 3ms:40ms --task 5ms:50ms --cpus 1 --period 10ms
        _rt=$("$HCBSCTL" --json size --task 2ms:25ms --task 3ms:40ms --task 5ms:50ms --cpus 1 --period 10ms |
                sed -n 's/.*"runtime_us": *\([0-9]*\).*/\1/p' | head -n 1)

        bold "8. ... meets every deadline beside a SCHED_FIFO-99 hog on every CPU"
        # First without a hog, briefly: under qemu (TCG) a busy host stalls the virtual CPUs, and then
        # no timing in the guest means anything; say so rather than show numbers that mislead.
        say "hcbsctl run control -- hcbs-rtload --text --periods 40 --cpu 0 $DEMO_TASKS   # alone, first"
        # shellcheck disable=SC2086
        _alone=$("$HCBSCTL" run control -- hcbs-rtload --text --periods 40 --cpu 0 $DEMO_TASKS 2>&1)
        printf '%s\n' "$_alone"
        case $_alone in
        *": 0 deadlines missed"*) ;;
        *) printf '%s\n' "(This guest misses deadlines even without a hog: the host is too busy for qemu's" \
                "virtual CPUs to keep time, so the figures below mean nothing here. Run it again on an" \
                "idle machine: make demo KERNEL=hcbs; the kernel is cached now.)" ;;
        esac
        demo_load

        bold "9. The same with half the runtime: the reservation, not luck, kept the deadlines"
        run set control "$((${_rt:-3500} / 2))us" 10ms
        demo_load

        bold "10. What the collector saw in control"
        run stats control
        run delete control
}
