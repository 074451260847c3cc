/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The statistics module's bookkeeping: the backend choice and the table of
 * tracked cgroups (track, untrack, capacity, slot reuse, a recreated
 * group), without the collector (HCBS_STATS_BPF=table) and with it. With BPF
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

static Stats *open_bpf(uint32_t capacity) {
        Stats *s = NULL;

        unsetenv("HCBS_STATS_BPF");
        if (geteuid() != 0)
                SKIP("needs root to load the BPF collector");
        if (access("/sys/kernel/btf/vmlinux", R_OK) < 0)
                SKIP("no kernel BTF (/sys/kernel/btf/vmlinux)");
        cr_assert_eq(stats_new(&s, capacity), 0);
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
        cr_assert_eq(stats_new(&s, 64), 0);
        cr_assert_str_eq(stats_backend(s), "cgroupfs");
        cr_assert(strstr(stats_backend_reason(s), "HCBS_STATS_BPF=0"), "reason: %s", stats_backend_reason(s));
        cr_assert_eq(stats_track(s, "g", 12345), 0, "tracking is a no-op without BPF");
        cr_assert_eq(stats_tracked(s), 0);
        cr_assert_eq(stats_untrack(s, "g"), -ENOENT);
        StatsFigures f;
        cr_assert_eq(stats_read(s, "g", &f), -ENOENT);
        stats_free(s);
        unsetenv("HCBS_STATS_BPF");
}

/* Fills a table of capacity n, checks -ENOSPC, then that an untracked slot is reused. */
static void fill_and_reuse(Stats *s, uint32_t n, bool bpf) {
        char key[32];
        StatsFigures f;

        for (uint32_t i = 0; i < n; i++) {
                snprintf(key, sizeof(key), "g%u", i);
                cr_assert_eq(stats_track(s, key, 0xfffffff100000000ULL + i), 0, "slot %u", i);
        }
        cr_assert_eq(stats_tracked(s), n);
        cr_assert_eq(stats_track(s, "one-too-many", 0xfffffff200000000ULL), -ENOSPC);
        cr_assert_eq(stats_tracked(s), n, "a refused track leaves the table as it was");
        cr_assert_eq(stats_untrack(s, "g7"), 0);
        cr_assert_eq(stats_untrack(s, "g7"), -ENOENT, "untracked once");
        cr_assert_eq(stats_track(s, "one-too-many", 0xfffffff200000000ULL), 0, "an untracked slot is reused");
        cr_assert_eq(stats_track(s, "two-too-many", 0xfffffff200000001ULL), -ENOSPC);
        cr_assert_eq(stats_read(s, "g7", &f), -ENOENT);
        if (bpf) {
                cr_assert_eq(stats_read(s, "one-too-many", &f), 0);
                cr_assert_eq(f.c.rt_time_ns, 0, "a reused slot starts from zero");
                cr_assert_eq(stats_read(s, "g8", &f), 0, "the others are still counted");
        }
        for (uint32_t i = 0; i < n; i++) {
                snprintf(key, sizeof(key), "g%u", i);
                cr_assert_eq(stats_untrack(s, key), i == 7 ? -ENOENT : 0, "%s", key);
        }
        cr_assert_eq(stats_untrack(s, "one-too-many"), 0);
        cr_assert_eq(stats_tracked(s), 0);
        for (uint32_t i = 0; i < n; i++) { /* every slot came back */
                snprintf(key, sizeof(key), "h%u", i);
                cr_assert_eq(stats_track(s, key, 0xfffffff300000000ULL + i), 0, "slot %u again", i);
        }
}

Test(stats, the_table_without_the_collector) {
        Stats *s = NULL;

        setenv("HCBS_STATS_BPF", "table", 1);
        cr_assert_eq(stats_new(&s, 40), 0);
        cr_assert_str_eq(stats_backend(s), "cgroupfs");
        cr_assert(!stats_have_bpf(s));
        cr_assert_eq(stats_capacity(s), 40, "MaxGroups= sizes the table");
        fill_and_reuse(s, 40, false);
        stats_free(s);
        unsetenv("HCBS_STATS_BPF");
}

Test(stats, track_and_untrack) {
        Stats *s = open_bpf(64);
        StatsFigures f;

        cr_assert_str_eq(stats_backend(s), "bpf");
        cr_assert_str_eq(stats_backend_reason(s), "");
        cr_assert_eq(stats_track(s, "a", 0xfffffff000000001ULL), 0);
        cr_assert_eq(stats_track(s, "b", 0xfffffff000000002ULL), 0);
        cr_assert_eq(stats_read(s, "a", &f), 0);
        cr_assert_eq(f.c.wakeups, 0);
        cr_assert_eq(stats_read(s, "b", &f), 0);
        cr_assert_eq(stats_untrack(s, "b"), 0);
        cr_assert_eq(stats_read(s, "a", &f), 0, "a is kept");
        cr_assert_eq(stats_read(s, "b", &f), -ENOENT, "b is gone");
        cr_assert_eq(stats_tracked(s), 1);
        stats_free(s);
}

Test(stats, a_recreated_group_starts_again) {
        Stats *s = open_bpf(64);
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
        cr_assert_eq(stats_tracked(s), 1);
        stats_free(s);
}

Test(stats, every_slot_then_enospc_then_reuse) {
        Stats *s = open_bpf(48);

        cr_assert_eq(stats_capacity(s), 48, "MaxGroups= below what the maps hold");
        fill_and_reuse(s, 48, true);
        stats_free(s);
}

Test(stats, no_more_than_the_maps_hold) {
        Stats *s = open_bpf(UINT32_MAX);

        /* the maps allocate per group, so filling 131072 costs seconds: every_slot_then_enospc_then_reuse fills 48 */
        cr_assert_eq(stats_capacity(s), HCBS_STATS_MAP_MAX);
        cr_assert_eq(stats_track(s, "a", 0xfffffff000000001ULL), 0);
        stats_free(s);
}
