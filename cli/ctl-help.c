/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>
#include <string.h>

#include "ctl-help.h"
#include "macro.h"

/*
 * The manual, as tables of text. Each command has a synopsis, a description,
 * its options and examples; hcbsctl --help prints the common sections and
 * every synopsis, hcbsctl COMMAND --help the command's own page.
 */

typedef struct VerbHelp {
        const char *name;
        const char *synopsis;
        const char *description;
        const char *options;  /* NULL: none */
        const char *examples;
} VerbHelp;

static const VerbHelp verbs[] = {
        {
                "status",
                "hcbsctl [--json] status",
                "Shows hcbsd's version, the kernel interface it drives (rfc1, rtmax,\n"
                "legacy-v1 or legacy-v2), its cgroup root, the capacity it hands out\n"
                "(runtime/period and percent of one CPU), how much of it is allocated (to\n"
                "groups and services together), the number of groups, the services' own\n"
                "reservations and the statistics backend (\"bpf\", or \"cgroupfs\" and why).\n"
                "\n"
                "Mode: says which RT group scheduling the kernel has and what it gives:\n"
                "hcbs-rfc1 or hcbs-rtmax (the HCBS patches: a group's runtime is a hard\n"
                "reservation on every CPU), mainline-v1 or mainline-v2 (mainline rules:\n"
                "admission and RT throttling, no reservations), or unlimited\n"
                "(kernel.sched_rt_runtime_us is -1: the kernel admits every RT task and\n"
                "nothing is guaranteed), then a Fix: line with the command that fixes it.\n"
                "On kernels hcbsd cannot work on it does not start: 'hcbsd --check-kernel'\n"
                "says why and what to do (hcbsd(8), KERNEL MODES).\n"
                "\n"
                "Units: gives the number of services holding a reservation (see 'hcbsctl\n"
                "units') and their total, then one line per service: its name,\n"
                "runtime/period, bandwidth and policy. It reads 'none' when there are none,\n"
                "and is left out with an hcbsd that does not know services' reservations.\n"
                "\n"
                "With --json: one object with version, kernel_interface, mode,\n"
                "mode_reason, mode_fix (empty when there is nothing to fix), cgroup_root,\n"
                "capacity_runtime_us, capacity_period_us, capacity, allocated, free\n"
                "(fractions of one CPU), capacity_fp, allocated_fp (the kernel's fixed\n"
                "point), group_count, stats_backend, stats_backend_reason (why it is not\n"
                "\"bpf\", empty when it is) and units: the array 'hcbsctl --json units'\n"
                "prints (empty when there are none, or with an older hcbsd).",
                NULL,
                "  hcbsctl status\n"
                "  hcbsctl --json status\n",
        },
        {
                "create",
                "hcbsctl create GROUP {RUNTIME PERIOD | max [PERIOD]} [--cpus LIST] [--persistent] [--grow-parents]\n"
                "                 [--move-processes]\n"
                "  hcbsctl create GROUP --tasks FILE | --task WCET:PERIOD[:DEADLINE]... [--cpus N|LIST]\n"
                "                 [--period P | --period-range A..B] [--persistent] [--grow-parents]",
                "Creates GROUP (a path such as media/audio, below hcbsd's root) with a\n"
                "reservation of RUNTIME every PERIOD on every CPU. The parent must exist\n"
                "and have enough free bandwidth, unless --grow-parents is given.\n"
                "\n"
                "With max (HCBS v6 kernels, interface rtmax only) GROUP gets no\n"
                "reservation: its RT tasks run on the nearest ancestor's that has one\n"
                "(the root's CPUs in the end), and its subgroups' reservations count\n"
                "against that ancestor. list, show and tree print such groups as max.\n"
                "\n"
                "With --tasks or --task instead of RUNTIME PERIOD, hcbsd first sizes the\n"
                "reservation for those periodic tasks exactly as 'hcbsctl size' does (see\n"
                "'hcbsctl size --help' for the task syntax and the sizing options), then\n"
                "creates GROUP with the runtime and period it found. Nothing is created\n"
                "when no reservation can schedule the tasks (exit status 1).\n"
                "\n"
                "--cpus LIST gives GROUP its CPUs (cpuset.cpus, as 0-1 or 2,3; '' for all of\n"
                "its parent's), written before its reservation, which then holds on those\n"
                "CPUs only and is admitted on each of them. Only kernels whose reservations\n"
                "follow cpusets take a list (HCBS devel-v7: interface rtmax, revision 7);\n"
                "others refuse it (NotSupported). With --tasks or --task, --cpus also gives\n"
                "sizing its number of CPUs; a bare number N there (as in 'hcbsctl size')\n"
                "only sizes for N CPUs and pins nothing.",
                "  --cpus LIST       the group's CPUs (rtmax v7 kernels)\n"
                "  --persistent      keep the group across restarts of hcbsd\n"
                "                    (stored in hcbsd's state directory)\n"
                "  --grow-parents    grow the ancestors' reservations as far as needed\n"
                "                    (top-down) instead of refusing\n"
                "  --move-processes  move the processes of the parent into GROUP first, so\n"
                "                    the parent becomes an inner node (RT tasks live in\n"
                "                    leaves only)\n",
                "  hcbsctl create media 20ms 100ms\n"
                "  hcbsctl create media/audio 500us 5ms --persistent\n"
                "  hcbsctl create robot/control 1ms 10ms --grow-parents\n"
                "  hcbsctl create robot/control --tasks control.tasks --cpus 2\n"
                "  hcbsctl create robot/arm 2ms 10ms --cpus 2-3\n"
                "  hcbsctl create tenants max\n",
        },
        {
                "size",
                "hcbsctl [--json] size --task WCET:PERIOD[:DEADLINE]... | --tasks FILE [--cpus N]\n"
                "               [--period P | --period-range A..B] [--scheduler fp|edf]\n"
                "  hcbsctl [--json] size --observe GROUP|UNIT|PID [--for DURATION] [--margin PCT]\n"
                "               [--apply] [--cpus N] [--period P | --period-range A..B]",
                "Finds the smallest reservation (runtime every period, on each CPU) under\n"
                "which a set of periodic real-time tasks meets every deadline, and prints\n"
                "it with the 'hcbsctl create' command that reserves it. Nothing changes:\n"
                "hcbsd only computes (method SizeReservation), and anyone may ask.\n"
                "\n"
                "A task runs at most WCET of CPU time (its worst case) every PERIOD and\n"
                "must finish within DEADLINE of its release (default: the period; at\n"
                "most the period). Durations take us, ms or s; a bare number is\n"
                "microseconds. A task file holds one task a line, as WCET:PERIOD[:DEADLINE]\n"
                "or the same fields separated by blanks; '#' starts a comment; '-' reads\n"
                "standard input. At most 1024 tasks.\n"
                "\n"
                "The analysis is the periodic resource model (Shin & Lee, RTSS 2003): a\n"
                "server that gives RUNTIME every PERIOD may, in the worst case, give\n"
                "nothing for 2 x (PERIOD - RUNTIME). On one CPU the tasks are checked\n"
                "under fixed priorities, deadline-monotonic (shortest deadline first:\n"
                "give them distinct SCHED_FIFO priorities in the printed rank order), or\n"
                "under EDF with --scheduler edf. On N CPUs (HCBS gives the group a server\n"
                "on each CPU of its cpuset, and the tasks migrate among them) the test is\n"
                "a global fixed-priority one over the multiprocessor periodic resource\n"
                "(Easwaran, Shin & Lee, 2009), and the runtime on each CPU is the budget\n"
                "divided by N. The result is sufficient: the tasks meet their deadlines\n"
                "if their WCETs hold; it may be larger than strictly needed on N CPUs.\n"
                "\n"
                "Without --period or --period-range the period is searched between a tenth\n"
                "of the shortest deadline and the shortest deadline (within hcbsd's\n"
                "MinPeriod..MaxPeriod): shorter periods need less bandwidth but switch\n"
                "more often. The smallest bandwidth wins, ties going to the longer period.\n"
                "The runtime stays within the kernel's global RT limit and hcbsd's\n"
                "Capacity= per CPU, and at least 2us (the kernel's 1024ns floor).\n"
                "\n"
                "The output gives the interface, its bandwidth per CPU and in all, and\n"
                "per task its rank, a bound on its worst response time and the slack to\n"
                "its deadline. A refusal names the task that cannot fit and why: a WCET\n"
                "longer than the deadline, utilisation above N x the per-CPU limit, or no\n"
                "runtime within the limit that passes; or the analysis' own limit, 100\n"
                "million steps for one request (a given period, a narrower range or fewer\n"
                "tasks need fewer). hcbsd analyses beside its event loop, one request of a\n"
                "user at a time: a user's calls wait for each other.\n"
                "\n"
                "--observe GROUP|UNIT|PID derives the tasks from what the target's RT\n"
                "threads do (method ObserveTasks): for DURATION (--for, default 10s, 1s to\n"
                "10min) hcbsd's BPF collector records every job of each SCHED_FIFO or\n"
                "SCHED_RR thread of the group, of the unit's reservation, or of the process\n"
                "(a job runs from a wakeup to the next voluntary sleep; its execution time\n"
                "is the thread's CPU time in between). Each thread is shown with its jobs,\n"
                "their execution time (mean, p50, p99.9, max) and its shape: periodic (the\n"
                "intervals whole multiples of their median, each within 20%, nearly all of\n"
                "one period: the period is their sum over the periods they span, the jitter\n"
                "the farthest interval from its periods), sporadic (irregular, no two\n"
                "releases closer than 20% of the mean: sized at its least interval),\n"
                "aperiodic (bursts), unbounded (it ran half the observation without a\n"
                "sleep) or too few jobs. The task set follows in the --tasks FILE format,\n"
                "one periodic or sporadic thread a line, WCET being the largest execution\n"
                "time seen plus the margin (--margin, default 20%: the largest of a few\n"
                "hundred jobs is a sample, not a bound), ready to edit and use again; then\n"
                "the reservation sized for it, as above. A thread of any other shape has no\n"
                "task, and nothing is sized (exit status 1, naming it). --apply gives the\n"
                "group (SetBandwidth) or the unit (ReserveUnit) that reservation, through\n"
                "hcbsd's admission and plan (who may change it: as for 'set'). A process\n"
                "outside hcbsd's groups is observed, not applied to; only its owner and\n"
                "root may observe a process. One observation per user at once.\n"
                "\n"
                "With --json: {\"runtime_us\", \"period_us\", \"cpus\", \"bandwidth\" (per CPU,\n"
                "a fraction), \"schedulable\": true, \"budget_us\", \"bandwidth_total\",\n"
                "\"utilisation\", \"limit\", \"scheduler\", \"tasks\": [{\"wcet_us\",\n"
                "\"period_us\", \"deadline_us\", \"rank\", \"response_us\", \"slack_us\"}],\n"
                "\"create\"}; when refused {\"schedulable\": false, \"error\", \"reason\"}.\n"
                "With --observe: {\"group\", \"unit\", \"pid\", \"duration_us\", \"margin\",\n"
                "\"jobs_lost\", \"jobs_dropped\", \"threads\": [{\"tid\", \"tgid\", \"comm\",\n"
                "\"shape\", \"jobs\", \"exec_mean_ns\", \"exec_p50_ns\", \"exec_p999_ns\", \"exec_max_ns\",\n"
                "\"period_ns\", \"jitter_ns\", \"interval_min_ns\", \"interval_max_ns\",\n"
                "\"wcet_us\", \"task_period_us\" or \"no_task\" (why)}], \"sizing\" (the object\n"
                "above, or null), \"applied\"}.\n"
                "\n"
                "Exit status: 0 a reservation exists, 1 none does, 2 bad input.",
                "  --task WCET:PERIOD[:DEADLINE]\n"
                "                    one task (repeatable), e.g. --task 2ms:10ms:8ms\n"
                "  --tasks FILE      tasks from FILE, one a line ('-': standard input)\n"
                "  --cpus N          size for N CPUs (default: the CPUs online where hcbsd\n"
                "                    runs); the group must be confined to N CPUs\n"
                "  --period P        use only this period\n"
                "  --period-range A..B\n"
                "                    search periods from A to B (e.g. 1ms..20ms)\n"
                "  --scheduler fp|edf\n"
                "                    the tasks' scheduler inside the group (default fp;\n"
                "                    edf on one CPU only)\n"
                "  --observe GROUP|UNIT|PID\n"
                "                    derive the tasks from the target's RT threads\n"
                "  --for DURATION    how long to observe (default 10s)\n"
                "  --margin PCT      added to the largest execution time (default 20)\n"
                "  --apply           set the reservation on the group or unit observed\n",
                "  hcbsctl size --task 2ms:20ms --task 3ms:30ms --cpus 1\n"
                "  hcbsctl size --tasks control.tasks --cpus 2 --period-range 1ms..5ms\n"
                "  hcbsctl --json size --task 500us:5ms:4ms --period 1ms --cpus 1\n"
                "  printf '1ms 10ms\\n2ms 40ms 30ms\\n' | hcbsctl size --tasks - --cpus 1\n"
                "  hcbsctl size --observe media/audio --for 30s --cpus 1 --apply\n",
        },
        {
                "set",
                "hcbsctl set GROUP {RUNTIME PERIOD | max [PERIOD]} [--cpus LIST] [--grow-parents]",
                "Changes the reservation of an existing GROUP. hcbsd orders the kernel\n"
                "writes so that every intermediate state is valid, and rolls back if the\n"
                "kernel refuses one of them.\n"
                "\n"
                "--cpus LIST moves GROUP to other CPUs (rtmax v7 kernels, see 'hcbsctl\n"
                "create --help'). The kernel changes a cpuset only while no group at or\n"
                "below it holds a reservation, so GROUP's goes to max for the change and\n"
                "comes back on the new CPUs: refused (GroupBusy) while RT tasks run in it,\n"
                "and while a group below it holds a reservation of its own.",
                "  --cpus LIST       the group's CPUs from now on ('' for all of its parent's)\n"
                "  --grow-parents    grow the ancestors' reservations as far as needed\n",
                "  hcbsctl set media/audio 1ms 5ms\n"
                "  hcbsctl set robot/control 2ms 10ms --grow-parents\n"
                "  hcbsctl set robot/arm 2ms 10ms --cpus 0-1\n",
        },
        {
                "check",
                "hcbsctl [--json] check GROUP RUNTIME PERIOD",
                "Asks whether 'create' (GROUP absent) or 'set' (GROUP present) with these\n"
                "values would be admitted, without changing anything. Exits 0 if it would,\n"
                "else prints the reason and exits with the code the real command would\n"
                "give (1 for a refusal of bandwidth or by the kernel model).",
                NULL,
                "  hcbsctl check media/video 4ms 20ms && hcbsctl create media/video 4ms 20ms\n",
        },
        {
                "apply",
                "hcbsctl [--json] apply FILE [--dry-run] [--grow-parents]",
                "Creates, changes and deletes many groups in one step. FILE ('-' for\n"
                "standard input) has the format of hcbsd.conf's groups: a [Group NAME]\n"
                "section per group with Runtime= and Period= (the group is created, or\n"
                "set if it exists), CPUs= for its CPUs (rtmax v7 kernels, as --cpus of\n"
                "'hcbsctl create'), Persistent=yes to keep a created group across\n"
                "restarts, or Delete=yes alone to remove it. Parents need not be in the\n"
                "file if they exist already.\n"
                "\n"
                "The whole file is checked first: any error applies nothing and names the\n"
                "file, the line and the reason. hcbsd then admits and plans the whole\n"
                "batch (deletes first, deepest first, then the rest, parents first),\n"
                "applies it as one plan, and rolls it back as a whole if the kernel\n"
                "refuses any write; a refusal names the group. A crash of hcbsd in the\n"
                "middle is undone at its next start, as for any change.\n"
                "\n"
                "With --json: {dry_run, groups, plan: [{op, group, value}]}.",
                "  --dry-run       print the plan (mkdir, write FILE=VALUE, rmdir), write nothing\n"
                "  --grow-parents  grow existing ancestors as far as needed\n",
                "  hcbsctl apply /etc/hcbsd/robot.groups --dry-run\n"
                "  printf '[Group a]\\nRuntime=1ms\\nPeriod=10ms\\n' | hcbsctl apply -\n",
        },
        {
                "delete",
                "hcbsctl delete GROUP [--migrate-to GROUP2]",
                "Removes GROUP and returns its bandwidth to its parent. A group that still\n"
                "holds processes is refused (GroupBusy) unless --migrate-to is given.",
                "  --migrate-to GROUP2  move GROUP's processes to the leaf GROUP2 first; an\n"
                "                       empty string or '/' detaches them instead (SCHED_OTHER,\n"
                "                       back where hcbsd found them)\n",
                "  hcbsctl delete media/video\n"
                "  hcbsctl delete media/audio --migrate-to media/fallback\n",
        },
        {
                "attach",
                "hcbsctl attach GROUP PID... [--fifo PRIO | --rr PRIO | --other]",
                "Moves whole processes (all their threads) into GROUP, then sets the\n"
                "scheduling policy of all their threads. Without a policy option the\n"
                "threads keep their policy. A caller who is not root may only move\n"
                "processes it owns.",
                "  --fifo PRIO   SCHED_FIFO with priority PRIO (1..99)\n"
                "  --rr PRIO     SCHED_RR with priority PRIO (1..99)\n"
                "  --other       SCHED_OTHER\n",
                "  hcbsctl attach media/audio 1234 --fifo 50\n"
                "  hcbsctl attach robot/control $(pidof controller) --rr 80\n",
        },
        {
                "detach",
                "hcbsctl detach PID...",
                "Resets the processes to SCHED_OTHER, then returns them to the cgroup where\n"
                "hcbsd found them (or to hcbsd's root).",
                NULL,
                "  hcbsctl detach 1234 1235\n",
        },
        {
                "run",
                "hcbsctl run GROUP [--fifo PRIO | --rr PRIO] -- COMMAND [ARGS...]",
                "Starts COMMAND inside GROUP: hcbsctl forks, has hcbsd attach the child\n"
                "(with the policy given), and only then lets the child execute COMMAND, so\n"
                "COMMAND never runs outside its reservation. hcbsctl waits for COMMAND and\n"
                "exits with its exit status (128+N if killed by signal N). If the attach is\n"
                "refused, the child is killed before it ran anything and hcbsctl exits\n"
                "with the refusal's code; if COMMAND cannot be executed, with 127 (not\n"
                "found) or 126. SIGTERM and SIGHUP are forwarded to COMMAND.\n"
                "\n"
                "hcbsctl's options go before '--'; everything after it is COMMAND and its\n"
                "arguments. Without '--', COMMAND starts at the first argument after GROUP\n"
                "that is not an option. Without --fifo or --rr, COMMAND keeps the policy it\n"
                "inherits from hcbsctl.",
                "  --fifo PRIO   SCHED_FIFO with priority PRIO (1..99)\n"
                "  --rr PRIO     SCHED_RR with priority PRIO (1..99)\n",
                "  hcbsctl run media/audio --fifo 50 -- pw-play song.wav\n"
                "  hcbsctl run robot/control --rr 80 -- ./controller --config c.yaml\n",
        },
        {
                "list",
                "hcbsctl [--json] list",
                "Lists every group, parents first: NAME, RUNTIME, PERIOD, BANDWIDTH (percent\n"
                "of one CPU, reserved on every CPU), LEAF, PROCS (processes) and RT (real-\n"
                "time tasks). With --json: an array of objects with name, runtime_us,\n"
                "period_us, bandwidth (fraction of one CPU), bandwidth_fp (the kernel's\n"
                "fixed point, 1048576 = one CPU), leaf, processes and rt_tasks.",
                NULL,
                "  hcbsctl list\n"
                "  hcbsctl --json list | python3 -m json.tool\n",
        },
        {
                "tree",
                "hcbsctl [--json] tree",
                "Draws the hierarchy below hcbsd's root with each group's runtime/period and\n"
                "bandwidth, and under every inner node (and the root) the bandwidth still\n"
                "free: its own minus what its children hold.\n"
                "\n"
                "The services' own reservations (see 'hcbsctl units') follow in a section of\n"
                "their own, headed 'units in SLICE:', one line per service marked 'unit'\n"
                "with its policy. They share hcbsd's capacity, so the root's free bandwidth\n"
                "counts them as children. Without any (or with an hcbsd that does not know\n"
                "them) the section is left out.\n"
                "\n"
                "With --json: the root as an object (name \"\", cgroup_root, runtime_us,\n"
                "period_us, bandwidth, bandwidth_fp, children_bandwidth, free, free_fp,\n"
                "children: the same objects, nested), whose units key holds the array\n"
                "'hcbsctl --json units' prints.",
                NULL,
                "  hcbsctl tree\n"
                "  hcbsctl --json tree\n",
        },
        {
                "show",
                "hcbsctl [--json] show GROUP",
                "Shows the properties of one group: name, runtime, period, bandwidth, the\n"
                "bandwidth its children hold, whether it is a leaf, whether it persists,\n"
                "its processes and its number of RT tasks.",
                NULL,
                "  hcbsctl show media/audio\n",
        },
        {
                "stats",
                "hcbsctl [--json] stats [GROUP|UNIT] [--watch SECONDS] [--histogram|--per-cpu] [--prometheus]",
                "Shows the statistics of GROUP, of a service UNIT's reservation, or of\n"
                "every group and unit, one row each:\n"
                "  RESERVED   runtime/period;\n"
                "  RT-TIME    CPU time of its SCHED_FIFO/SCHED_RR tasks since hcbsd began\n"
                "             counting the group (at its creation, or hcbsd's start);\n"
                "  SHARE      RT-TIME over what the reservation allows in that time (with\n"
                "             --watch: over the last interval); 100% uses all of it;\n"
                "  WAKEUPS    wakeups of the group's tasks;\n"
                "  P50, P99, MAX  wakeup-to-run latency of its SCHED_FIFO/SCHED_RR tasks\n"
                "             (from a histogram whose buckets are at most 12.5% wide, so a\n"
                "             percentile is within 12.5%);\n"
                "  PREEMPT    times a task was switched out while still runnable;\n"
                "  WAITED     time tasks were runnable but not running;\n"
                "  EXHAUST    times the group's runtime ran out on a CPU and the kernel\n"
                "             throttled it until the next replenishment (HCBS kernels:\n"
                "             the group's per-CPU deadline server; n/a on kernels without\n"
                "             them, such as mainline);\n"
                "  THROTTLED  the kernel's cpu.stat nr_throttled (on cgroup-v1 kernels\n"
                "             this counts CFS quota throttling, not RT throttling, which\n"
                "             mainline does not report per group).\n"
                "All but THROTTLED come from hcbsd's BPF collector; with the cgroupfs\n"
                "backend ('hcbsctl status' says why) they read '-'.\n"
                "\n"
                "--watch SECONDS prints the table again every SECONDS until interrupted.\n"
                "--histogram draws GROUP's latency histogram: one line per non-empty\n"
                "bucket with its range, count, percentage and a bar.\n"
                "--per-cpu shows the budget exhaustion of GROUP (or of every group and\n"
                "unit) per CPU, one row for each CPU where its server ran: EXHAUSTIONS,\n"
                "THROTTLED-FOR (the time from each exhaustion until the group ran again\n"
                "there) and REPLENISHMENTS (the server's budgets the group started);\n"
                "on a kernel without deadline servers, one line that says so.\n"
                "\n"
                "With --json: an object per group (an array without GROUP) with every\n"
                "counter GetStats returns (durations in ns as *_ns, cpu.stat's in *_usec),\n"
                "reservation_share (a fraction), latency_buckets, the non-empty\n"
                "buckets as [lower_ns, upper_ns, count], and servers, an object per CPU\n"
                "with cpu, exhaustions, throttled_ns and replenishments (or\n"
                "servers_unavailable, why there are none).\n"
                "\n"
                "--prometheus prints, instead, what hcbs-exporter(8) serves at /metrics\n"
                "(the Prometheus text format: hcbsd's figures, and per group, unit and\n"
                "container its reservation, counters and latency histogram), for\n"
                "node_exporter's textfile collector; write it to a temporary file and\n"
                "rename it into the collector's directory.",
                NULL,
                "  hcbsctl stats\n"
                "  hcbsctl stats media/audio --watch 1\n"
                "  hcbsctl stats media/audio --histogram\n"
                "  hcbsctl stats media/audio --per-cpu\n"
                "  hcbsctl --json stats motor.service\n"
                "  hcbsctl stats --prometheus >/var/lib/prometheus/node-exporter/hcbs.prom.$$ &&\n"
                "    mv /var/lib/prometheus/node-exporter/hcbs.prom.$$ /var/lib/prometheus/node-exporter/hcbs.prom\n",
        },
        {
                "why",
                "hcbsctl [--json] why PID|TID|UNIT|CONTAINER",
                "Explains why a thread cannot become SCHED_FIFO or SCHED_RR, or why it does\n"
                "not get its real-time share, and what fixes each cause. It only reads:\n"
                "the thread's policy, CAP_SYS_NICE and limits (RLIMIT_RTPRIO,\n"
                "RLIMIT_RTTIME), its cgroup and every cgroup above it with its RT runtime\n"
                "and period, the kernel's mode and kernel.sched_rt_runtime_us; from\n"
                "systemd the unit that holds it, with its RestrictRealtime=, LimitRTPRIO=,\n"
                "CPUSchedulingPolicy= and the reservation its [X-HCBS] section asks for;\n"
                "from hcbsd whether it manages the cgroup (one of its groups, a unit's or a\n"
                "container's reservation) and the collector's recent latency and budget\n"
                "use; whether rtkit is on the bus. Any user may ask about their own\n"
                "processes, root about all; units and containers are open to all, as\n"
                "'systemctl status' is.\n"
                "\n"
                "PID names a process (its main thread), TID one thread, UNIT a systemd unit\n"
                "('motor' means motor.service: its main process, or the unit alone when\n"
                "none runs), CONTAINER the scope of a container that holds a reservation\n"
                "(libpod-ID.scope) or the first characters of its ID.\n"
                "\n"
                "Each cause is printed as BLOCKS (the thread cannot become SCHED_FIFO/RR),\n"
                "SHARE (it runs real-time but does not get, or may lose, its share) or\n"
                "NOTE, with its name, and on the next line the fix: an hcbsctl command or\n"
                "an [X-HCBS] setting ('fix:'), or what only the administrator can change\n"
                "('fix (not hcbsd's):'). hcbsctl(1) explains each cause.\n"
                "\n"
                "Exit status: 0 nothing is wrong (notes only), 1 a cause blocks the thread\n"
                "or costs it its share (or the process is another user's), 3 no bus at\n"
                "all for a unit, 4 no such process, thread, unit or container.\n"
                "\n"
                "With --json: one object: target, kind (thread, unit, container), ok, pid,\n"
                "tid, comm, uid, policy, priority, threads, rt_threads, cap_sys_nice,\n"
                "seccomp_filter, rlimit_rtprio, rlimit_rtprio_hard, rlimit_rttime_us,\n"
                "rlimit_rttime_hard_us (null: unlimited), mount, chain (path, rt_files,\n"
                "max, runtime_us, period_us, from the root down), first_zero (the first at\n"
                "0, or null), context (the reservation a max group runs on, or null),\n"
                "busy_child, unit (name, slice, state, restrict_realtime, limit_rtprio,\n"
                "cpu_scheduling_policy, cpu_scheduling_priority, reserves, runtime_us,\n"
                "period_us, reservation_held; null without one), hcbsd (running,\n"
                "managed: no, group, unit or container, name, and the collector's\n"
                "latency_count, latency_p99_ns, latency_max_ns, reservation_share and\n"
                "budget_exhaustions where it has them), mode, mode_reason, mode_fix,\n"
                "sched_rt_runtime_us, sched_rt_period_us, and causes (id, kind, message,\n"
                "fix, hcbsd_can_fix).",
                NULL,
                "  hcbsctl why 4242\n"
                "  hcbsctl why motor.service\n"
                "  hcbsctl --json why 4243\n",
        },
        {
                "units",
                "hcbsctl [--json] units",
                "Lists the reservations systemd services hold in their own cgroups (see\n"
                "reserve-unit): UNIT, CGROUP (relative to the cgroup mount, e.g.\n"
                "hcbs.slice/motor.service), RUNTIME, PERIOD, BANDWIDTH (percent of one CPU,\n"
                "reserved on every CPU) and POLICY: 'fifo PRIO' or 'rr PRIO', 'other', or\n"
                "'keep', the policy hcbsd gives the service's main process once it runs.\n"
                "Without reservations only the heading is printed.\n"
                "\n"
                "With --json: an array, empty when there are none, of objects with unit,\n"
                "cgroup, runtime_us, period_us, bandwidth (fraction of one CPU),\n"
                "bandwidth_fp (the kernel's fixed point, 1048576 = one CPU), policy and\n"
                "priority (0 for other and keep). An hcbsd too old to know services'\n"
                "reservations is a refusal (exit 1).",
                NULL,
                "  hcbsctl units\n"
                "  hcbsctl --json units | python3 -m json.tool\n",
        },
        {
                "containers",
                "hcbsctl [--json] containers",
                "Lists the reservations containers hold (see hcbs-oci-hook(1)): the rows of\n"
                "'hcbsctl units' whose unit is a container engine's scope in the pool\n"
                "(libpod-ID.scope for podman, crio-ID.scope for CRI-O), with the same\n"
                "columns: UNIT, CGROUP, RUNTIME, PERIOD, BANDWIDTH and POLICY, the policy\n"
                "hcbs-oci-hook asked for the container's process.\n"
                "\n"
                "With --json: the same array as 'hcbsctl --json units', of those rows only.",
                NULL,
                "  hcbsctl containers\n"
                "  hcbsctl --json containers\n",
        },
        {
                "reserve-unit",
                "hcbsctl reserve-unit UNIT RUNTIME PERIOD [--fifo PRIO | --rr PRIO] [--cpus LIST]",
                "Reserves RUNTIME every PERIOD on every CPU for the systemd service UNIT\n"
                "(its full name, e.g. motor.service) in the service's own cgroup, taken\n"
                "from the capacity hcbsd shares with its groups. With --fifo or --rr,\n"
                "hcbsd gives the service's main process that policy once systemd reports it\n"
                "started; without either, the process keeps the policy it has. With --cpus\n"
                "(rtmax v7 kernels) the reservation holds on those CPUs only, which are the\n"
                "unit's cpuset (systemd writes them from the AllowedCPUs= hcbs-generator\n"
                "gives a unit with [X-HCBS] CPUs=LIST). Repeating the command with the\n"
                "same values changes nothing.\n"
                "\n"
                "This is normally not typed by hand. For a service whose unit file declares\n"
                "[X-HCBS] Runtime= and Period=, hcbs-generator writes a drop-in with\n"
                "Slice=hcbs.slice and\n"
                "  ExecStartPre=+hcbsctl --no-ask-password reserve-unit %n RUNTIME PERIOD\n"
                "  ExecStopPost=-+hcbsctl --no-ask-password release-unit %n\n"
                "adding --fifo PRIO or --rr PRIO from the unit's CPUSchedulingPolicy= and\n"
                "CPUSchedulingPriority= (which it then resets, so that hcbsd, not systemd,\n"
                "sets the policy once the reservation holds). The service starts only once\n"
                "its bandwidth is reserved, and gives it back when it stops. The\n"
                "reservation lives in the unit's cgroup, which exists only while the unit\n"
                "starts or runs.\n"
                "\n"
                "A refusal is one line on stderr that names the unit, and so lands in the\n"
                "unit's journal:\n"
                "  hcbsctl: motor.service: no reservation: REASON\n"
                "with exit status 1 (2 for an invalid value), and systemd does not start the\n"
                "service. hcbsd refuses with NotSupported unless it runs as hcbsd.service\n"
                "in a slice of its own under systemd.",
                "  --fifo PRIO   SCHED_FIFO with priority PRIO (1..99) for the main process\n"
                "  --rr PRIO     SCHED_RR with priority PRIO (1..99) for the main process\n"
                "  --cpus LIST   the unit's CPUs (rtmax v7 kernels)\n",
                "  hcbsctl reserve-unit motor.service 2ms 10ms --fifo 80\n"
                "  hcbsctl --no-ask-password reserve-unit camera@0.service 500us 5ms\n",
        },
        {
                "release-unit",
                "hcbsctl release-unit UNIT",
                "Gives the reservation of the systemd service UNIT back to the capacity.\n"
                "Succeeds when UNIT holds none, so it is safe in ExecStopPost=, where\n"
                "hcbs-generator puts it next to reserve-unit's ExecStartPre= (see\n"
                "'hcbsctl reserve-unit --help'). hcbsd also takes a reservation back by\n"
                "itself when systemd reports that the unit stopped without giving it back.\n"
                "A refusal reads 'hcbsctl: UNIT: reservation not given back: REASON'.",
                NULL,
                "  hcbsctl release-unit motor.service\n",
        },
};

static const char common_intro[] =
        "hcbsctl - control hcbsd, the real-time CPU reservation daemon\n"
        "\n"
        "SYNOPSIS\n"
        "  hcbsctl [OPTIONS] COMMAND [ARGS...]\n"
        "  hcbsctl COMMAND --help\n"
        "\n"
        "DESCRIPTION\n"
        "  hcbsctl talks to hcbsd (org.hcbsd1 on the system bus), which owns the\n"
        "  real-time cgroup subtree: every group holds RUNTIME every PERIOD on every\n"
        "  CPU for its SCHED_FIFO/SCHED_RR tasks, and hcbsd admits a reservation only\n"
        "  if it fits in its parent and in hcbsd's capacity.\n";

static const char services_section[] =
        "SYSTEMD SERVICES\n"
        "  A service can hold a reservation of its own, in its own cgroup, instead\n"
        "  of joining a group. Its unit file declares\n"
        "      [X-HCBS]\n"
        "      Runtime=2ms\n"
        "      Period=10ms\n"
        "  (or RTRuntime= and RTPeriod= in [Service]), and hcbs-generator gives it a\n"
        "  drop-in that puts it in hcbs.slice and runs\n"
        "      ExecStartPre=+hcbsctl --no-ask-password reserve-unit %n 2000us 10000us\n"
        "      ExecStopPost=-+hcbsctl --no-ask-password release-unit %n\n"
        "  with --fifo PRIO or --rr PRIO taken from the unit's CPUSchedulingPolicy=\n"
        "  and CPUSchedulingPriority=. The service starts only once its bandwidth\n"
        "  is reserved, and a refusal is in its journal. 'hcbsctl units' lists\n"
        "  these reservations; status and tree show them too. They need hcbsd to\n"
        "  run as hcbsd.service under systemd.\n"
        "  Instead of Runtime=, a unit may list its periodic tasks,\n"
        "      [X-HCBS]\n"
        "      Tasks=2ms:20ms 3ms:30ms:25ms\n"
        "      CPUs=1\n"
        "  (WCET:PERIOD[:DEADLINE], an empty Tasks= resets the list; Period= fixes\n"
        "  the period): hcbs-generator sizes the reservation as 'hcbsctl size' does.\n";

static const char common_options[] =
        "OPTIONS\n"
        "  --json               print machine-readable JSON on stdout (status, list,\n"
        "                       tree, show, stats, check, units, containers, size,\n"
        "                       why)\n"
        "  --no-ask-password    do not ask for interactive (polkit) authorisation\n"
        "  --bus-address ADDR   talk to the bus at ADDR (e.g. unix:path=/run/x)\n"
        "                       instead of the system bus\n"
        "  -h, --help           show this manual\n"
        "  --version            show hcbsctl's version\n";

static const char common_tail[] =
        "DURATIONS\n"
        "  RUNTIME and PERIOD take a unit: 500us, 10ms, 1.5s. A bare number is\n"
        "  microseconds, as in the kernel's cpu.rt_* files. Values must be whole\n"
        "  microseconds; PERIOD must lie within hcbsd's MinPeriod..MaxPeriod.\n"
        "\n"
        "BANDWIDTH\n"
        "  Shown in percent of one CPU (RUNTIME/PERIOD), computed in the kernel's\n"
        "  fixed point; a group holds it on every CPU.\n"
        "\n"
        "EXIT STATUS\n"
        "  0  done (check: admitted)\n"
        "  1  refused: not enough bandwidth, not a leaf, group busy or exists,\n"
        "     permission denied, not supported here, or rejected by the kernel\n"
        "  2  usage: bad arguments, invalid name, duration or option\n"
        "  3  hcbsd unreachable: no bus, not running, or no reply\n"
        "  4  no such group or process\n"
        "  Every refusal prints its reason as one line on stderr: 'hcbsctl: ...'.\n"
        "\n"
        "ENVIRONMENT\n"
        "  DBUS_SYSTEM_BUS_ADDRESS  the system bus to use when --bus-address is absent\n";

static const char common_examples[] =
        "EXAMPLES\n"
        "  hcbsctl create media 20ms 100ms\n"
        "  hcbsctl create media/audio 500us 5ms --persistent\n"
        "  hcbsctl run media/audio --fifo 50 -- pw-play song.wav\n"
        "  hcbsctl tree\n";

static const char *skip_json(const char *synopsis) {
        return strncmp(synopsis, "[--json] ", 9) == 0 ? synopsis + 9 : synopsis;
}

void ctl_help_main(void) {
        fputs(common_intro, stdout);
        fputs("\nCOMMANDS\n", stdout);
        for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
                printf("  %s\n", skip_json(verbs[i].synopsis + strlen("hcbsctl ")));
        fputs("\n  See 'hcbsctl COMMAND --help' for each command's description and options.\n\n", stdout);
        fputs(services_section, stdout);
        putchar('\n');
        fputs(common_options, stdout);
        putchar('\n');
        fputs(common_tail, stdout);
        putchar('\n');
        fputs(common_examples, stdout);
}

static void print_indented(const char *text) {
        const char *p = text;

        while (*p) {
                const char *nl = strchr(p, '\n');
                size_t n = nl ? (size_t) (nl - p) : strlen(p);

                if (n == 0)
                        putchar('\n');
                else
                        printf("  %.*s\n", (int) n, p);
                p += n + (nl ? 1 : 0);
        }
}

bool ctl_help_verb(const char *verb) {
        for (size_t i = 0; i < ELEMENTSOF(verbs); i++) {
                const VerbHelp *h = &verbs[i];

                if (strcmp(h->name, verb) != 0)
                        continue;
                printf("SYNOPSIS\n  %s\n\nDESCRIPTION\n", h->synopsis);
                print_indented(h->description);
                if (h->options)
                        printf("\nOPTIONS\n%s", h->options);
                printf("\nCOMMON %s\n%s\nEXAMPLES\n%s", common_options, common_tail, h->examples);
                return true;
        }
        return false;
}
