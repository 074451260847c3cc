/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The statistics module's bookkeeping: the backend choice and the set of
 * tracked cgroups (sync, prune, slot reuse, a recreated group). With BPF
 * these run against the real collector's maps (root and kernel BTF
 * needed, else skipped); the cgroup ids are made up, so no task is
 * counted and no cgroup is touched.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stats.h"

/* skips loudly: a line starting "SKIP: " for make test's summary, then Criterion's skip */
#define SKIP(why)                                                 \
        do {                                                      \
                printf("SKIP: test-stats: %s\n", why);            \
                fflush(stdout);                                   \
                cr_skip_test("SKIP: %s", why);                    \
        } while (0)

static Stats *open_bpf(void) {
        Stats *s = NULL;

        unsetenv("HCBS_STATS_BPF");
        if (geteuid() != 0)
                SKIP("needs root to load the BPF collector");
        if (access("/sys/kernel/btf/vmlinux", R_OK) < 0)
                SKIP("no kernel BTF (/sys/kernel/btf/vmlinux)");
        cr_assert_eq(stats_new(&s), 0);
        if (!stats_have_bpf(s)) {
#if HCBS_TEST_HAVE_BPF
                cr_assert(false, "the collector did not load as root with BTF: %s", stats_backend_reason(s));
#else
                stats_free(s);
                SKIP("built without the BPF collector");
#endif
        }
        return s;
}

Test(stats, disabled_by_the_environment) {
        Stats *s = NULL;

        setenv("HCBS_STATS_BPF", "0", 1);
        cr_assert_eq(stats_new(&s), 0);
        cr_assert_str_eq(stats_backend(s), "cgroupfs");
        cr_assert(strstr(stats_backend_reason(s), "HCBS_STATS_BPF=0"), "reason: %s", stats_backend_reason(s));
        cr_assert_eq(stats_track(s, "g", 12345), 0, "tracking is a no-op without BPF");
        StatsFigures f;
        cr_assert_eq(stats_read(s, "g", &f), -ENOENT);
        stats_free(s);
        unsetenv("HCBS_STATS_BPF");
}

Test(stats, sync_prunes_what_was_not_tracked) {
        Stats *s = open_bpf();
        StatsFigures f;

        cr_assert_str_eq(stats_backend(s), "bpf");
        cr_assert_str_eq(stats_backend_reason(s), "");
        stats_sync_begin(s);
        cr_assert_eq(stats_track(s, "a", 0xfffffff000000001ULL), 0);
        cr_assert_eq(stats_track(s, "b", 0xfffffff000000002ULL), 0);
        stats_sync_end(s);
        cr_assert_eq(stats_read(s, "a", &f), 0);
        cr_assert_eq(f.c.wakeups, 0);
        cr_assert_eq(stats_read(s, "b", &f), 0);

        stats_sync_begin(s);
        cr_assert_eq(stats_track(s, "a", 0xfffffff000000001ULL), 0);
        stats_sync_end(s);
        cr_assert_eq(stats_read(s, "a", &f), 0, "a is kept");
        cr_assert_eq(stats_read(s, "b", &f), -ENOENT, "b is pruned");
        stats_free(s);
}

Test(stats, a_recreated_group_starts_again) {
        Stats *s = open_bpf();
        StatsFigures f1, f2;

        cr_assert_eq(stats_track(s, "a", 0xfffffff000000001ULL), 0);
        usleep(20000);
        cr_assert_eq(stats_read(s, "a", &f1), 0);
        cr_assert_geq(f1.window_ns, 20000000ULL);
        cr_assert_eq(stats_track(s, "a", 0xfffffff000000001ULL), 0, "idempotent");
        cr_assert_eq(stats_read(s, "a", &f2), 0);
        cr_assert_geq(f2.window_ns, f1.window_ns, "the same cgroup keeps its window");
        cr_assert_eq(stats_track(s, "a", 0xfffffff000000009ULL), 0, "the same name, a new cgroup id");
        cr_assert_eq(stats_read(s, "a", &f2), 0);
        cr_assert_lt(f2.window_ns, f1.window_ns, "a new cgroup starts a new window");
        stats_free(s);
}

Test(stats, every_slot_then_enospc_then_reuse) {
        Stats *s = open_bpf();
        char key[32];
        StatsFigures f;

        for (unsigned i = 0; i < HCBS_STATS_MAX_GROUPS; i++) {
                snprintf(key, sizeof(key), "g%u", i);
                cr_assert_eq(stats_track(s, key, 0xfffffff100000000ULL + i), 0, "slot %u", i);
        }
        cr_assert_eq(stats_track(s, "one-too-many", 0xfffffff200000000ULL), -ENOSPC);
        stats_sync_begin(s);
        cr_assert_eq(stats_track(s, "g7", 0xfffffff100000007ULL), 0);
        stats_sync_end(s);
        cr_assert_eq(stats_track(s, "one-too-many", 0xfffffff200000000ULL), 0, "pruned slots are reused");
        cr_assert_eq(stats_read(s, "one-too-many", &f), 0);
        cr_assert_eq(f.c.rt_time_ns, 0, "a reused slot starts from zero");
        cr_assert_eq(stats_read(s, "g8", &f), -ENOENT);
        stats_free(s);
}
