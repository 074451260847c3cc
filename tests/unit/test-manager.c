/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The manager (daemon/manager*.c) against the in-memory kernel of
 * fake-kernel.c: every operation, its refusals, a kernel failure injected
 * at each step of its writes (the tree and the model must be back where
 * they were, and the operation must then succeed), adoption of an existing
 * tree, persistence across Managers, and the journal of an interrupted
 * plan.
 *
 * hcbsd's root is /proc/hcbs: find_mount() (manager.c) still stat()s the
 * real path, and /proc is a directory that exists on every Linux as a
 * mount of its own, where nothing can be created. So the mount is always
 * /proc and hcbsd's root "hcbs", and any I/O that slipped past the backend
 * would fail rather than touch a real cgroup.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bandwidth.h"
#include "delegate.h"
#include "fake-kernel.h"
#include "journal.h"
#include "log.h"
#include "manager-containers.h"
#include "manager-internal.h"
#include "manager-stats.h"
#include "name.h"
#include "persist.h"

static char tmp[64], mirror[96], state[96], run[96], confdir[96], conf[96];
static Manager *M;
static HcbsInterface rules_now; /* the fake kernel's */
static unsigned revision_now;   /* rtmax: 6 or 7 */

/* ---- the return convention, in one place ----
 * Today an operation returns 0 both when done and when refused (the refusal in v); the convention
 * being adopted returns the HcbsError of a refusal. Both pass here: adapting is these three macros. */
#define expect_done(call, v)                                                                                   \
        do {                                                                                                   \
                int _r = (call);                                                                               \
                cr_assert_eq(_r, 0, "%s: r=%d (%s)", #call, _r, _r < 0 ? strerror(-_r) : "refused");          \
                cr_assert_eq((v).error, HCBS_OK, "%s refused: %s", #call, (v).message);                       \
        } while (0)

#define expect_refused(call, v, e)                                                                             \
        do {                                                                                                   \
                int _r = (call);                                                                               \
                cr_assert_eq(_r, (int) (e), "%s: r=%d, the rule of error.h returns the refusal", #call, _r);   \
                cr_assert_eq((v).error, (e), "%s: expected %s, got %s: %s", #call, hcbs_error_to_string(e),    \
                             (v).error ? hcbs_error_to_string((v).error) : "OK", (v).message);                 \
        } while (0)

#define expect_dry_run(call, v) expect_done(call, v)

#define expect_failed(call, err)                                                                               \
        do {                                                                                                   \
                int _r = (call);                                                                               \
                cr_assert_eq(_r, -(err), "%s: r=%d, expected %d", #call, _r, -(err));                          \
        } while (0)

/* ---- fixtures ---- */

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        return remove(path);
}

static void rm_tree(const char *dir) {
        cr_assert_eq(nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS), 0, "cannot remove %s", dir);
}

static void write_file(const char *path, const char *text) {
        FILE *f = fopen(path, "we");
        cr_assert_not_null(f, "%s: %m", path);
        fputs(text, f);
        cr_assert_eq(fclose(f), 0);
}

static void write_conf(const char *text) {
        write_file(conf, text);
}

static void kernel_revision(HcbsInterface rules, unsigned revision) {
        fake_kernel_free();
        if (access(mirror, F_OK) == 0)
                rm_tree(mirror);
        cr_assert_eq(mkdir(mirror, 0755), 0);
        cr_assert_eq(fake_kernel_new_revision(rules, revision, mirror), 0);
        rules_now = rules;
        revision_now = revision;
}

static void kernel(HcbsInterface rules) {
        kernel_revision(rules, rules == HCBS_IFACE_RTMAX ? 6 : 0);
}

static void setup(void) {
        snprintf(tmp, sizeof(tmp), "/tmp/hcbsd-test-manager.XXXXXX");
        cr_assert_not_null(mkdtemp(tmp));
        snprintf(mirror, sizeof(mirror), "%s/mirror", tmp);
        snprintf(state, sizeof(state), "%s/state", tmp);
        snprintf(run, sizeof(run), "%s/run", tmp);
        snprintf(confdir, sizeof(confdir), "%s/conf.d", tmp);
        snprintf(conf, sizeof(conf), "%s/hcbsd.conf", tmp);
        cr_assert_eq(mkdir(state, 0755), 0);
        cr_assert_eq(mkdir(run, 0755), 0);
        cr_assert_eq(mkdir(confdir, 0755), 0);
        write_conf("[Manager]\n");
        setenv("HCBS_STATS_BPF", "0", 1); /* never load BPF from a unit test, even as root */
        log_set_target(LOG_TARGET_STDERR);
        log_set_max_level(getenv("HCBS_TEST_VERBOSE") ? LOG_DEBUG : LOG_CRIT);
        kernel(HCBS_IFACE_RFC1);
}

static void teardown(void) {
        M = manager_free(M);
        fake_kernel_free();
        rm_tree(tmp);
}

TestSuite(manager, .init = setup, .fini = teardown);

static int try_start(void) {
        ManagerOptions o = { .cgroup_root = "/proc/hcbs", .config_path = conf, .config_dir = confdir,
                             .state_dir = state, .runtime_dir = run };

        M = manager_free(M);
        cr_assert_eq(manager_new(&o, &M), 0);
        return manager_startup(M);
}

static void start(void) {
        int r = try_start();
        cr_assert_eq(r, 0, "manager_startup: %s", strerror(-r));
}

/* A new machine: a fresh kernel, the state directory kept, the runtime directory (tmpfs) emptied. */
static void reboot(HcbsInterface rules) {
        M = manager_free(M);
        kernel_revision(rules, rules == rules_now ? revision_now : rules == HCBS_IFACE_RTMAX ? 6 : 0);
        rm_tree(run);
        cr_assert_eq(mkdir(run, 0755), 0);
}

static HcbsNode *kgroup(const char *name) {
        char path[PATH_MAX];
        snprintf(path, sizeof(path), "hcbs%s%s", name[0] ? "/" : "", name);
        return hcbs_model_find(fake_kernel_model(), path);
}

static HcbsNode *mgroup(const char *name) {
        return hcbs_admission_find(&M->admission, name);
}

#define assert_kernel_rt(name, period, runtime)                                                                \
        do {                                                                                                   \
                HcbsNode *_k = kgroup(name);                                                                   \
                cr_assert_not_null(_k, "the kernel has no group '%s'", name);                                  \
                cr_assert_eq(_k->period_us, (uint64_t) (period), "%s: period %" PRIu64, name, _k->period_us);   \
                cr_assert_eq(_k->runtime_us, (int64_t) (runtime), "%s: runtime %" PRId64, name,                 \
                             _k->runtime_us);                                                                  \
        } while (0)

static void agree_node(const HcbsNode *n) {
        HcbsNode *k = hcbs_model_find(fake_kernel_model(), n->path);

        cr_assert_not_null(k, "the model has '%s', the kernel not", n->path);
        cr_assert_eq(n->period_us, k->period_us, "'%s': period %" PRIu64 " in the model, %" PRIu64 " in the kernel",
                     n->path, n->period_us, k->period_us);
        cr_assert_eq(n->runtime_us, k->runtime_us, "'%s': runtime %" PRId64 " in the model, %" PRId64 " in the kernel",
                     n->path, n->runtime_us, k->runtime_us);
        cr_assert(hcbs_cpuset_equal(&n->cpus, &k->cpus) || !n->parent, "'%s': other CPUs in the model", n->path);
        if (manager_is_group(M, n))
                cr_assert_eq(n->nprocs, k->nprocs, "'%s': %u processes in the model, %u in the kernel", n->path,
                             n->nprocs, k->nprocs);
        HCBS_NODE_FOREACH_CHILD(c, n)
                agree_node(c);
}

static void kernel_in_model(const HcbsNode *k) {
        if (!hcbs_name_is_valid(k->name))
                return; /* not adopted: foreign */
        if (hcbs_node_is_ancestor(kgroup(""), k))
                cr_assert_not_null(hcbs_model_find(M->model, k->path), "the kernel has '%s', the model not", k->path);
        HCBS_NODE_FOREACH_CHILD(c, k)
                kernel_in_model(c);
}

/* The model is consistent and says what the kernel holds, both ways (below hcbsd's root). */
static void assert_agree(void) {
        char err[256];

        cr_assert_eq(hcbs_model_verify(M->model, err, sizeof(err)), 0, "%s", err);
        agree_node(hcbs_model_root(M->model));
        kernel_in_model(hcbs_model_root(fake_kernel_model()));
}

static char *dump(void) {
        char *d = fake_kernel_dump();
        cr_assert_not_null(d);
        return d;
}

static void assert_dump_has(const char *line) {
        char *d = dump();
        bool has = strstr(d, line);
        if (!has)
                cr_log_error("%s", d);
        free(d);
        cr_assert(has, "the kernel has no line %s", line);
}

static const CreateOptions plain = {};

/* ---- start-up ---- */

Test(manager, startup_makes_root_and_reserves_capacity) {
        start();
        cr_assert_str_eq(M->mount, "/proc");
        cr_assert_str_eq(manager_root_rel(M), "hcbs");
        cr_assert_eq(M->iface, HCBS_IFACE_RFC1);
        /* Capacity=90% of CapacityPeriod=1s */
        assert_kernel_rt("", 1000000, 900000);
        cr_assert_eq(manager_group_count(M), 0);
        cr_assert_null(kgroup("hcbs-probe"), "the v2 rules probe is left behind");
        assert_agree();
}

Test(manager, startup_fails_without_rt_scheduling) {
        fake_kernel_set_detectable(false);
        expect_failed(try_start(), ENOTSUP);
}

Test(manager, startup_fails_when_root_cannot_be_made) {
        fake_kernel_fail(FAKE_OP_MKDIR, 1, EACCES);
        expect_failed(try_start(), EACCES);
}

Test(manager, startup_adopts_existing_tree) {
        HcbsVerdict v;

        cr_assert_eq(fake_kernel_set("", 1000000, 900000), 0); /* raised by an earlier hcbsd */
        cr_assert_eq(fake_kernel_mkdir("hcbs"), 0);
        cr_assert_eq(fake_kernel_set("hcbs", 1000000, 500000), 0);
        cr_assert_eq(fake_kernel_mkdir("hcbs/a"), 0);
        cr_assert_eq(fake_kernel_set("hcbs/a", 1000000, 200000), 0);
        cr_assert_eq(fake_kernel_mkdir("hcbs/a/b"), 0);
        cr_assert_eq(fake_kernel_set("hcbs/a/b", 100000, 10000), 0);
        cr_assert_eq(fake_kernel_mkdir("hcbs/bad name"), 0); /* not a valid group name: foreign */
        cr_assert_eq(fake_kernel_set("hcbs/bad name", 1000000, 100000), 0);
        cr_assert_eq(fake_kernel_spawn(700, 0, "hcbs/a/b", PROC_POLICY_FIFO), 0);
        /* another user's cgroup beside hcbsd's root, holding 30% */
        cr_assert_eq(fake_kernel_mkdir("other"), 0);
        cr_assert_eq(fake_kernel_set("other", 1000000, 300000), 0);
        start();

        cr_assert_eq(manager_group_count(M), 2);
        cr_assert_not_null(mgroup("a"));
        cr_assert_not_null(mgroup("a/b"));
        cr_assert_null(mgroup("bad name"));
        cr_assert_eq(mgroup("a/b")->nprocs, 1);
        cr_assert_eq(mgroup("a/b")->nrt, 1);
        cr_assert_eq(M->admission.base->foreign_bw, hcbs_bw(1000000, 100000));
        cr_assert_eq(hcbs_model_root(M->model)->foreign_bw, hcbs_bw(1000000, 300000));
        /* 90% beside the other 30% exceeds the global 95%: hcbsd serves with what it found */
        assert_kernel_rt("", 1000000, 500000);
        assert_agree();
        /* what is adopted is hcbsd's: the leaf with a process cannot go, the other can after it */
        expect_refused(manager_delete_group(M, "a/b", NULL, 0, &v), v, HCBS_E_GROUP_BUSY);
        expect_refused(manager_delete_group(M, "a", NULL, 0, &v), v, HCBS_E_GROUP_BUSY);
        fake_kernel_exit(700);
        expect_done(manager_delete_group(M, "a/b", NULL, 0, &v), v);
        expect_done(manager_delete_group(M, "a", NULL, 0, &v), v);
        assert_agree();
}

/* A level wider than a chunk of start-up's reads (512), read on several threads: every group, in name order. */
Test(manager, startup_adopts_a_wide_level) {
        char path[64];

        cr_assert_eq(fake_kernel_mkdir("hcbs"), 0);
        cr_assert_eq(fake_kernel_set("hcbs", 1000000, 500000), 0);
        cr_assert_eq(fake_kernel_mkdir("hcbs/w"), 0);
        cr_assert_eq(fake_kernel_set("hcbs/w", 1000000, 300000), 0);
        for (unsigned i = 0; i < 1200; i++) {
                snprintf(path, sizeof(path), "hcbs/w/g%04u", i);
                cr_assert_eq(fake_kernel_mkdir(path), 0);
                cr_assert_eq(fake_kernel_set(path, 1000000, 100 + i), 0);
        }
        cr_assert_eq(fake_kernel_mkdir("hcbs/w/g0700/sub"), 0);
        cr_assert_eq(fake_kernel_set("hcbs/w/g0700/sub", 1000000, 50), 0);
        cr_assert_eq(fake_kernel_mkdir("hcbs/w/g0600 bad"), 0); /* not a valid name: foreign, in the middle */
        cr_assert_eq(fake_kernel_set("hcbs/w/g0600 bad", 1000000, 1000), 0);
        cr_assert_eq(fake_kernel_spawn(701, 0, "hcbs/w/g1100", PROC_POLICY_FIFO), 0);
        start();

        cr_assert_eq(manager_group_count(M), 1 + 1200 + 1);
        for (unsigned i = 0; i < 1200; i++) {
                snprintf(path, sizeof(path), "w/g%04u", i);
                cr_assert_not_null(mgroup(path), "%s", path);
                cr_assert_eq(mgroup(path)->runtime_us, 100 + i, "%s", path);
        }
        cr_assert_eq(mgroup("w/g0700/sub")->runtime_us, 50);
        cr_assert_eq(mgroup("w/g1100")->nprocs, 1);
        cr_assert_eq(mgroup("w/g1100")->nrt, 1);
        cr_assert_eq(mgroup("w")->foreign_bw, hcbs_bw(1000000, 1000));
        assert_agree();
}

Test(manager, startup_probes_mainline_rules_behind_v2_files) {
        kernel(HCBS_IFACE_LEGACY_V2);
        start();
        cr_assert_eq(M->iface, HCBS_IFACE_LEGACY_V2);
        cr_assert_null(kgroup("hcbs-probe"));
        assert_agree();
}

/* ---- operations ---- */

Test(manager, create_set_check_delete) {
        HcbsVerdict v;

        start();
        expect_done(manager_create_group(M, "audio", 500, 5000, &plain, &v), v);
        assert_kernel_rt("audio", 5000, 500);
        cr_assert_eq(manager_group_count(M), 1);
        assert_agree();

        expect_done(manager_set_bandwidth(M, "audio", 2000, 10000, NULL, false, &v), v);
        assert_kernel_rt("audio", 10000, 2000);
        assert_agree();

        char *before = dump();
        expect_done(manager_check_bandwidth(M, "audio", 1000, 10000, &v), v);
        expect_done(manager_check_bandwidth(M, "video", 1000, 10000, &v), v);
        expect_refused(manager_check_bandwidth(M, "video", 990000, 1000000, &v), v, HCBS_E_INSUFFICIENT_BANDWIDTH);
        char *after = dump();
        cr_assert_str_eq(before, after, "a check wrote to the kernel");
        free(before);
        free(after);

        expect_done(manager_delete_group(M, "audio", NULL, 0, &v), v);
        cr_assert_null(kgroup("audio"));
        cr_assert_eq(manager_group_count(M), 0);
        assert_agree();
}

Test(manager, refusals) {
        HcbsVerdict v;

        start();
        expect_done(manager_create_group(M, "media", 200000, 1000000, &plain, &v), v);
        expect_done(manager_create_group(M, "media/video", 100000, 1000000, &plain, &v), v);
        char *before = dump();

        expect_refused(manager_create_group(M, "media", 1000, 10000, &plain, &v), v, HCBS_E_GROUP_EXISTS);
        expect_refused(manager_create_group(M, "../x", 1000, 10000, &plain, &v), v, HCBS_E_INVALID_NAME);
        expect_refused(manager_create_group(M, "", 1000, 10000, &plain, &v), v, HCBS_E_INVALID_NAME);
        expect_refused(manager_create_group(M, "none/x", 1000, 10000, &plain, &v), v, HCBS_E_NO_SUCH_GROUP);
        expect_refused(manager_create_group(M, "big", 800000, 1000000, &plain, &v), v,
                       HCBS_E_INSUFFICIENT_BANDWIDTH);
        expect_refused(manager_create_group(M, "media/audio", 200000, 1000000, &plain, &v), v,
                       HCBS_E_INSUFFICIENT_BANDWIDTH);
        expect_refused(manager_create_group(M, "fast", 10, 50, &plain, &v), v, HCBS_E_INVALID_ARGUMENT);
        expect_refused(manager_create_group(M, "slow", 10, 5000000, &plain, &v), v, HCBS_E_INVALID_ARGUMENT);
        expect_refused(manager_create_group(M, "inverted", 2000, 1000, &plain, &v), v, HCBS_E_INVALID_ARGUMENT);
        expect_refused(manager_create_group(M, "x", 1000, 10000,
                                            &(CreateOptions) { .move_processes_to = "y" }, &v), v,
                       HCBS_E_INVALID_ARGUMENT);
        /* a persistent child of a parent that would not come back after a reboot */
        expect_refused(manager_create_group(M, "media/p", 1000, 1000000, &(CreateOptions) { .persistent = true },
                                            &v), v, HCBS_E_INVALID_ARGUMENT);

        expect_refused(manager_set_bandwidth(M, "none", 1000, 10000, NULL, false, &v), v, HCBS_E_NO_SUCH_GROUP);
        expect_refused(manager_set_bandwidth(M, "media", 50000, 1000000, NULL, false, &v), v,
                       HCBS_E_INSUFFICIENT_BANDWIDTH); /* below what video holds */
        expect_refused(manager_set_bandwidth(M, "media/video", 300000, 1000000, NULL, false, &v), v,
                       HCBS_E_INSUFFICIENT_BANDWIDTH);

        expect_refused(manager_delete_group(M, "none", NULL, 0, &v), v, HCBS_E_NO_SUCH_GROUP);
        expect_refused(manager_delete_group(M, "media", NULL, 0, &v), v, HCBS_E_GROUP_BUSY);
        expect_refused(manager_delete_group(M, "media/video", "nowhere", 0, &v), v, HCBS_E_NO_SUCH_GROUP);
        expect_refused(manager_delete_group(M, "media/video", "media/video", 0, &v), v, HCBS_E_NO_SUCH_GROUP);
        expect_refused(manager_delete_group(M, "media/video", "../up", 0, &v), v, HCBS_E_INVALID_NAME);

        char *after = dump();
        cr_assert_str_eq(before, after, "a refusal changed the kernel");
        free(before);
        free(after);
        assert_agree();
}

Test(manager, grow_parents) {
        HcbsVerdict v;

        start();
        expect_done(manager_create_group(M, "media", 100000, 1000000, &plain, &v), v);
        expect_done(manager_create_group(M, "media/video", 100000, 1000000, &plain, &v), v);
        expect_refused(manager_create_group(M, "media/audio", 50000, 1000000, &plain, &v), v,
                       HCBS_E_INSUFFICIENT_BANDWIDTH);
        expect_done(manager_create_group(M, "media/audio", 50000, 1000000, &(CreateOptions) { .grow_parents = true },
                                         &v), v);
        /* grown to what its children hold (the planner rounds the runtime down to the ratio) */
        cr_assert_geq(kgroup("media")->runtime_us, 149999);
        cr_assert_geq(kgroup("media")->bw, kgroup("media")->children_bw);
        expect_done(manager_set_bandwidth(M, "media/video", 200000, 1000000, NULL, true, &v), v);
        cr_assert_geq(kgroup("media")->runtime_us, 249999);
        cr_assert_geq(kgroup("media")->bw, kgroup("media")->children_bw);
        assert_agree();
}

Test(manager, max_groups) {
        HcbsVerdict v;

        write_conf("[Manager]\nMaxGroups=2\n");
        start();
        expect_done(manager_create_group(M, "a", 1000, 100000, &plain, &v), v);
        expect_done(manager_create_group(M, "b", 1000, 100000, &plain, &v), v);
        expect_refused(manager_create_group(M, "c", 1000, 100000, &plain, &v), v, HCBS_E_INVALID_ARGUMENT);
        ApplyEntry e[] = { { "c", 1000, 100000 } };
        expect_refused(manager_apply(M, e, 1, &(ApplyOptions) {}, NULL, &v), v, HCBS_E_INVALID_ARGUMENT);
        ApplyEntry many[] = { { "d", 1000, 100000 }, { "e", 1000, 100000 }, { "f", 1000, 100000 } };
        expect_refused(manager_apply(M, many, 3, &(ApplyOptions) {}, NULL, &v), v, HCBS_E_INVALID_ARGUMENT);
}

Test(manager, apply_batch_dry_run_and_refusals) {
        HcbsVerdict v;
        HcbsPlan plan;

        start();
        expect_done(manager_create_group(M, "old", 100000, 1000000, &plain, &v), v);
        ApplyEntry e[] = {
                { .name = "media/video", .runtime_us = 100000, .period_us = 1000000 },
                { .name = "media", .runtime_us = 300000, .period_us = 1000000 },
                { .name = "old", .delete = true },
                { .name = "audio", .runtime_us = 500, .period_us = 5000, .persistent = true },
        };
        char *before = dump();
        expect_dry_run(manager_apply(M, e, ELEMENTSOF(e), &(ApplyOptions) { .dry_run = true }, &plan, &v), v);
        cr_assert_gt(plan.n_ops, 4);
        hcbs_plan_done(&plan);
        char *after = dump();
        cr_assert_str_eq(before, after, "a dry run wrote to the kernel");
        free(after);
        assert_agree();

        expect_done(manager_apply(M, e, ELEMENTSOF(e), &(ApplyOptions) {}, NULL, &v), v);
        cr_assert_null(kgroup("old"));
        assert_kernel_rt("media", 1000000, 300000);
        assert_kernel_rt("media/video", 1000000, 100000);
        assert_kernel_rt("audio", 5000, 500);
        cr_assert(manager_group_info(mgroup("audio"))->persistent);
        assert_agree();

        /* re-budget an existing group in a batch */
        ApplyEntry set[] = { { .name = "media", .runtime_us = 400000, .period_us = 1000000 } };
        expect_done(manager_apply(M, set, 1, &(ApplyOptions) {}, NULL, &v), v);
        assert_kernel_rt("media", 1000000, 400000);

        free(before);
        before = dump();
        expect_refused(manager_apply(M, e, 0, &(ApplyOptions) {}, NULL, &v), v, HCBS_E_INVALID_ARGUMENT);
        ApplyEntry twice[] = { { "x", 1000, 10000 }, { "x", 1000, 10000 } };
        expect_refused(manager_apply(M, twice, 2, &(ApplyOptions) {}, NULL, &v), v, HCBS_E_INVALID_ARGUMENT);
        ApplyEntry bad[] = { { "ok", 1000, 10000 }, { "../x", 1000, 10000 } };
        expect_refused(manager_apply(M, bad, 2, &(ApplyOptions) {}, NULL, &v), v, HCBS_E_INVALID_NAME);
        ApplyEntry full[] = { { "y", 100000, 1000000 }, { "z", 900000, 1000000 } };
        expect_refused(manager_apply(M, full, 2, &(ApplyOptions) {}, NULL, &v), v, HCBS_E_INSUFFICIENT_BANDWIDTH);
        ApplyEntry gone[] = { { "y", 100000, 1000000 }, { .name = "nothing", .delete = true } };
        expect_refused(manager_apply(M, gone, 2, &(ApplyOptions) {}, NULL, &v), v, HCBS_E_NO_SUCH_GROUP);
        after = dump();
        cr_assert_str_eq(before, after, "a refused batch changed the kernel");
        free(before);
        free(after);
        assert_agree();
}

/*
 * Entries that change nothing plan no writes: two of them in one batch freed
 * the combined plan's arrays and freed them again (found by make soak).
 */
Test(manager, apply_entries_that_change_nothing) {
        HcbsVerdict v;

        start();
        expect_done(manager_create_group(M, "a", 1000, 100000, &plain, &v), v);
        expect_done(manager_create_group(M, "b", 2000, 100000, &plain, &v), v);
        ApplyEntry same[] = { { .name = "a", .runtime_us = 1000, .period_us = 100000 },
                              { .name = "b", .runtime_us = 2000, .period_us = 100000 },
                              { .name = "c", .runtime_us = 500, .period_us = 100000 } };
        expect_done(manager_apply(M, same, 2, &(ApplyOptions) {}, NULL, &v), v);
        expect_done(manager_apply(M, same, 3, &(ApplyOptions) {}, NULL, &v), v);
        assert_kernel_rt("c", 100000, 500);
        assert_agree();
}

/* Apply holds CreateGroup's rule: a persistent group's parent must come back after a reboot too. */
Test(manager, apply_persistent_needs_a_persistent_parent) {
        HcbsVerdict v;

        start();
        ApplyEntry orphan[] = { { .name = "p", .runtime_us = 20000, .period_us = 100000 },
                                { .name = "p/c", .runtime_us = 10000, .period_us = 100000, .persistent = true } };
        expect_refused(manager_apply(M, orphan, 2, &(ApplyOptions) {}, NULL, &v), v, HCBS_E_INVALID_ARGUMENT);
        cr_assert(strstr(v.message, "p/c cannot be persistent: its parent p is neither persistent"), "%s", v.message);
        cr_assert_null(kgroup("p"));

        /* the parent made persistent by the same batch, or already */
        orphan[0].persistent = true;
        expect_done(manager_apply(M, orphan, 2, &(ApplyOptions) {}, NULL, &v), v);
        ApplyEntry more[] = { { .name = "p/d", .runtime_us = 1000, .period_us = 100000, .persistent = true } };
        expect_done(manager_apply(M, more, 1, &(ApplyOptions) {}, NULL, &v), v);
        expect_done(manager_create_group(M, "q", 20000, 100000, &plain, &v), v);
        ApplyEntry under_q[] = { { .name = "q/c", .runtime_us = 1000, .period_us = 100000, .persistent = true } };
        expect_refused(manager_apply(M, under_q, 1, &(ApplyOptions) {}, NULL, &v), v, HCBS_E_INVALID_ARGUMENT);

        /* and what it saved comes back whole */
        reboot(rules_now);
        start();
        assert_kernel_rt("p/c", 100000, 10000);
        assert_kernel_rt("p/d", 100000, 1000);
        cr_assert_null(kgroup("q"));
        assert_agree();
}

/*
 * Apply's duplicates in O(n): 32,768 entries, the last a duplicate of the
 * first, compare their names a bounded number of times per entry (the
 * O(n²) check made 5·10^8 comparisons, 1.8 s of the loop). strcmp() is
 * counted by the link (-Wl,--wrap=strcmp, tests/unit/meson.build).
 */
static unsigned long strcmp_calls;
int __real_strcmp(const char *a, const char *b);
int __wrap_strcmp(const char *a, const char *b);
int __wrap_strcmp(const char *a, const char *b) {
        strcmp_calls++;
        return __real_strcmp(a, b);
}

Test(manager, apply_duplicates_in_linear_time) {
        enum { N = 32768 };
        ApplyEntry *e = calloc(N, sizeof(*e));
        char (*names)[16] = calloc(N, sizeof(*names));
        HcbsVerdict v;

        cr_assert(e && names);
        start();
        for (size_t i = 0; i < N; i++) {
                snprintf(names[i], sizeof(names[i]), "g%zu", i);
                e[i] = (ApplyEntry) { .name = names[i], .runtime_us = 0, .period_us = 100000 };
        }
        e[N - 1].name = names[0];
        strcmp_calls = 0;
        expect_refused(manager_apply(M, e, N, &(ApplyOptions) { .dry_run = true }, NULL, &v), v,
                       HCBS_E_INVALID_ARGUMENT);
        cr_assert_str_eq(v.message, "group g0 appears twice");
        cr_assert_lt(strcmp_calls, 16UL * N, "%lu name comparisons for %d entries", strcmp_calls, N);
        free(e);
        free(names);
}

/* ---- a kernel failure at every step ---- */

typedef void (*Prepare)(void);
typedef int (*Operation)(HcbsVerdict *v);

/*
 * Runs op once to count the kernel calls it makes (n), then for i = 1..n on
 * a fresh kernel: the i-th call fails; op must report KernelRejected, the
 * kernel must be exactly as before and the model agree with it; then op
 * again without a fault must reach the same kernel as the first run.
 */
static void rollback_every_step(Prepare prep, Operation op, unsigned min_steps) {
        HcbsVerdict v;
        unsigned n;

        reboot(rules_now);
        prep();
        fake_kernel_reset_counts();
        expect_done(op(&v), v);
        n = fake_kernel_count(FAKE_OP_ANY);
        cr_assert_geq(n, min_steps, "only %u kernel calls", n);
        char *done = dump();

        for (unsigned i = 1; i <= n; i++) {
                reboot(rules_now);
                prep();
                char *before = dump();
                fake_kernel_fail(FAKE_OP_ANY, i, EIO);
                expect_refused(op(&v), v, HCBS_E_KERNEL_REJECTED);
                cr_assert(strstr(v.message, strerror(EIO)), "step %u: %s", i, v.message);
                char *after = dump();
                cr_assert_str_eq(before, after, "a failure at kernel call %u of %u left the kernel changed", i, n);
                assert_agree();
                expect_done(op(&v), v);
                free(after);
                after = dump();
                cr_assert_str_eq(done, after, "after a failure at call %u of %u, the retry differs", i, n);
                assert_agree();
                free(before);
                free(after);
        }
        free(done);
}

static void prep_started(void) {
        start();
}

static void prep_media(void) {
        HcbsVerdict v;

        start();
        expect_done(manager_create_group(M, "media", 100000, 1000000, &plain, &v), v);
        expect_done(manager_create_group(M, "media/video", 50000, 1000000, &plain, &v), v);
        expect_done(manager_create_group(M, "old", 100000, 1000000, &plain, &v), v);
}

static int op_create(HcbsVerdict *v) {
        return manager_create_group(M, "audio", 500, 5000, &plain, v);
}

static int op_create_growing(HcbsVerdict *v) {
        return manager_create_group(M, "media/audio", 200000, 1000000, &(CreateOptions) { .grow_parents = true }, v);
}

static int op_set_period_and_runtime(HcbsVerdict *v) {
        /* both values change, and the parent must grow first */
        return manager_set_bandwidth(M, "media/video", 150000, 500000, NULL, true, v);
}

static int op_delete(HcbsVerdict *v) {
        return manager_delete_group(M, "old", NULL, 0, v);
}

static int op_apply(HcbsVerdict *v) {
        ApplyEntry e[] = {
                { .name = "old", .delete = true },
                { .name = "media/video", .delete = true },
                { .name = "media", .runtime_us = 400000, .period_us = 1000000 },
                { .name = "media/audio", .runtime_us = 100000, .period_us = 500000 },
                { .name = "rt", .runtime_us = 10000, .period_us = 100000 },
        };
        return manager_apply(M, e, ELEMENTSOF(e), &(ApplyOptions) {}, NULL, v);
}

Test(manager, rollback_create) {
        rollback_every_step(prep_started, op_create, 3);
}

Test(manager, rollback_create_growing_parents) {
        rollback_every_step(prep_media, op_create_growing, 4);
}

Test(manager, rollback_set_bandwidth) {
        rollback_every_step(prep_media, op_set_period_and_runtime, 3);
}

Test(manager, rollback_delete) {
        rollback_every_step(prep_media, op_delete, 2);
}

/* v2: the last child gone, its parent's +cpu goes too, so that it may hold processes; a refusal there is no failure */
Test(manager, delete_last_child_disables_cpu) {
        HcbsVerdict v;

        prep_media();
        fake_kernel_fail(FAKE_OP_CONTROL, 1, EBUSY);
        expect_done(manager_delete_group(M, "media/video", NULL, 0, &v), v);
        cr_assert_null(kgroup("media/video"));
        assert_dump_has("'hcbs/media' 1000000 100000 +cpu\n");
        expect_done(manager_create_group(M, "media/video", 50000, 1000000, &plain, &v), v);
        expect_done(manager_delete_group(M, "media/video", NULL, 0, &v), v);
        assert_dump_has("'hcbs/media' 1000000 100000\n");
        assert_agree();
}

Test(manager, rollback_apply) {
        rollback_every_step(prep_media, op_apply, 10);
}

/* ---- processes ---- */

static void prep_user(void) {
        HcbsVerdict v;

        cr_assert_eq(fake_kernel_mkdir("user.slice"), 0);
        cr_assert_eq(fake_kernel_spawn(4242, 1000, "user.slice", PROC_POLICY_OTHER), 0);
        cr_assert_eq(fake_kernel_spawn(4243, 1001, "user.slice", PROC_POLICY_OTHER), 0);
        start();
        expect_done(manager_create_group(M, "audio", 500, 5000, &plain, &v), v);
        expect_done(manager_create_group(M, "idle", 0, 5000, &plain, &v), v);
}

Test(manager, attach_and_detach) {
        HcbsVerdict v;
        pid_t pid = 4242;
        AttachOptions fifo = { .policy = PROC_POLICY_FIFO, .priority = 10, .caller_uid = 1000 };

        prep_user();
        expect_done(manager_attach(M, "audio", &pid, 1, &fifo, &v), v);
        cr_assert_str_eq(fake_kernel_task_group(pid), "hcbs/audio");
        cr_assert_eq(fake_kernel_task_policy(pid), PROC_POLICY_FIFO);
        cr_assert_eq(mgroup("audio")->nrt, 1);
        assert_agree();

        /* runtime 0 under an RT task is refused by admission, the kernel would say EBUSY */
        expect_refused(manager_set_bandwidth(M, "audio", 0, 5000, NULL, false, &v), v, HCBS_E_GROUP_BUSY);
        expect_refused(manager_delete_group(M, "audio", NULL, 0, &v), v, HCBS_E_GROUP_BUSY);

        expect_done(manager_detach(M, &pid, 1, 1000, &v), v);
        cr_assert_str_eq(fake_kernel_task_group(pid), "user.slice");
        cr_assert_eq(fake_kernel_task_policy(pid), PROC_POLICY_OTHER);
        assert_agree();
}

Test(manager, attach_refusals) {
        HcbsVerdict v;
        pid_t pid = 4242, other = 4243, gone = 9999;
        AttachOptions fifo = { .policy = PROC_POLICY_FIFO, .priority = 10, .caller_uid = 1000 };
        pid_t many[HCBS_PIDS_MAX + 1] = {};

        prep_user();
        char *before = dump();
        expect_refused(manager_attach(M, "none", &pid, 1, &fifo, &v), v, HCBS_E_NO_SUCH_GROUP);
        expect_refused(manager_attach(M, "../x", &pid, 1, &fifo, &v), v, HCBS_E_INVALID_NAME);
        expect_refused(manager_attach(M, "audio", &pid, 0, &fifo, &v), v, HCBS_E_INVALID_ARGUMENT);
        expect_refused(manager_attach(M, "audio", many, ELEMENTSOF(many), &fifo, &v), v, HCBS_E_INVALID_ARGUMENT);
        expect_refused(manager_attach(M, "audio", &gone, 1, &fifo, &v), v, HCBS_E_NO_SUCH_PROCESS);
        expect_refused(manager_attach(M, "audio", &other, 1, &fifo, &v), v, HCBS_E_PERMISSION_DENIED);
        expect_refused(manager_attach(M, "idle", &pid, 1, &fifo, &v), v, HCBS_E_INSUFFICIENT_BANDWIDTH);
        expect_done(manager_create_group(M, "parent", 10000, 100000, &plain, &v), v);
        expect_done(manager_create_group(M, "parent/kid", 1000, 100000, &plain, &v), v);
        free(before);
        before = dump();
        expect_refused(manager_attach(M, "parent", &pid, 1, &fifo, &v), v, HCBS_E_NOT_LEAF);
        /* the kernel refuses the move, then the policy */
        fake_kernel_fail(FAKE_OP_ATTACH, 1, EINVAL);
        expect_refused(manager_attach(M, "audio", &pid, 1, &fifo, &v), v, HCBS_E_KERNEL_REJECTED);
        char *after = dump();
        cr_assert_str_eq(before, after);
        free(after);
        fake_kernel_fail(FAKE_OP_POLICY, 1, EPERM);
        expect_refused(manager_attach(M, "audio", &pid, 1, &fifo, &v), v, HCBS_E_KERNEL_REJECTED);
        cr_assert_eq(fake_kernel_task_policy(pid), PROC_POLICY_OTHER);
        assert_agree();

        /* detach: not pinned, not hcbsd's, origin unknown */
        expect_refused(manager_detach(M, &gone, 1, 0, &v), v, HCBS_E_NO_SUCH_PROCESS);
        expect_refused(manager_detach(M, &other, 1, 0, &v), v, HCBS_E_INVALID_ARGUMENT);
        expect_refused(manager_detach(M, &pid, 0, 0, &v), v, HCBS_E_INVALID_ARGUMENT);
        cr_assert_eq(fake_kernel_spawn(5000, 0, "hcbs/audio", PROC_POLICY_OTHER), 0);
        pid_t stray = 5000;
        expect_refused(manager_detach(M, &stray, 1, 0, &v), v, HCBS_E_NOT_SUPPORTED);
        free(before);
}

Test(manager, attach_skips_a_process_that_exits) {
        HcbsVerdict v;
        pid_t pids[] = { 4242, 4243 };
        AttachOptions keep = { .policy = PROC_POLICY_KEEP };

        prep_user();
        fake_kernel_exit_before(FAKE_OP_ATTACH, 1, 4242);
        expect_done(manager_attach(M, "audio", pids, 2, &keep, &v), v);
        cr_assert_null(fake_kernel_task_group(4242));
        cr_assert_str_eq(fake_kernel_task_group(4243), "hcbs/audio");
        assert_agree();
}

Test(manager, delete_migrating_processes) {
        HcbsVerdict v;
        pid_t pid = 4242;
        AttachOptions rr = { .policy = PROC_POLICY_RR, .priority = 5 };

        prep_user();
        expect_done(manager_create_group(M, "other", 1000, 5000, &plain, &v), v);
        expect_done(manager_attach(M, "audio", &pid, 1, &rr, &v), v);
        expect_refused(manager_delete_group(M, "audio", "idle", 0, &v), v, HCBS_E_INSUFFICIENT_BANDWIDTH);
        expect_refused(manager_delete_group(M, "audio", "other", 1001, &v), v, HCBS_E_PERMISSION_DENIED);
        fake_kernel_fail(FAKE_OP_ATTACH, 1, EIO);
        expect_refused(manager_delete_group(M, "audio", "other", 0, &v), v, HCBS_E_KERNEL_REJECTED);
        cr_assert_not_null(kgroup("audio"));
        expect_done(manager_delete_group(M, "audio", "other", 0, &v), v);
        cr_assert_null(kgroup("audio"));
        cr_assert_str_eq(fake_kernel_task_group(pid), "hcbs/other");
        assert_agree();

        /* out of hcbsd's tree: back where it came from */
        expect_done(manager_delete_group(M, "other", "", 0, &v), v);
        cr_assert_null(kgroup("other"));
        cr_assert_str_eq(fake_kernel_task_group(pid), "user.slice");
        assert_agree();
}

static void prep_app(void) {
        HcbsVerdict v;
        pid_t pids[] = { 4242, 4243 };

        prep_user();
        expect_done(manager_create_group(M, "app", 300000, 1000000, &plain, &v), v);
        expect_done(manager_attach(M, "app", pids, 2,
                                   &(AttachOptions) { .policy = PROC_POLICY_FIFO, .priority = 3 }, &v), v);
}

static int op_create_moving(HcbsVerdict *v) {
        return manager_create_group(M, "app/main", 100000, 1000000,
                                    &(CreateOptions) { .move_processes_to = "app/main" }, v);
}

Test(manager, create_moving_processes) {
        HcbsVerdict v;

        prep_app();
        expect_done(op_create_moving(&v), v);
        cr_assert_str_eq(fake_kernel_task_group(4242), "hcbs/app/main");
        cr_assert_str_eq(fake_kernel_task_group(4243), "hcbs/app/main");
        cr_assert_eq(fake_kernel_task_policy(4242), PROC_POLICY_FIFO, "the RT policy was not given back");
        assert_kernel_rt("app/main", 1000000, 100000);
        cr_assert_eq(mgroup("app")->nprocs, 0);
        assert_agree();
}

Test(manager, create_moving_refusals) {
        HcbsVerdict v;

        prep_app();
        char *before = dump();
        expect_refused(manager_create_group(M, "app/main", 0, 1000000,
                                            &(CreateOptions) { .move_processes_to = "app/main" }, &v), v,
                       HCBS_E_INSUFFICIENT_BANDWIDTH);
        expect_refused(manager_create_group(M, "app/main", 400000, 1000000,
                                            &(CreateOptions) { .move_processes_to = "app/main" }, &v), v,
                       HCBS_E_INSUFFICIENT_BANDWIDTH);
        expect_refused(manager_create_group(M, "app/main", 100000, 1000000,
                                            &(CreateOptions) { .move_processes_to = "app/main", .caller_uid = 1000 },
                                            &v), v, HCBS_E_PERMISSION_DENIED);
        char *after = dump();
        cr_assert_str_eq(before, after);
        free(before);
        free(after);
        assert_agree();
}

Test(manager, rollback_create_moving) {
        rollback_every_step(prep_app, op_create_moving, 5);
}

/* ---- reload, shutdown, units ---- */

Test(manager, reload_applies_declared_groups) {
        HcbsVerdict v;

        write_conf("[Manager]\n[Group audio]\nRuntime=500us\nPeriod=5ms\n");
        start();
        assert_kernel_rt("audio", 5000, 500);

        write_conf("[Manager]\nCapacity=50%\n[Group audio]\nRuntime=1ms\nPeriod=5ms\n[Group media]\nRuntime=10ms\n"
                   "Period=100ms\n[Group media/video]\nRuntime=5ms\nPeriod=100ms\n");
        expect_done(manager_reload(M, &v), v);
        assert_kernel_rt("", 1000000, 500000);
        assert_kernel_rt("audio", 5000, 1000);
        assert_kernel_rt("media/video", 100000, 5000);
        assert_agree();

        write_conf("[Manager]\nCapacity=lots\n");
        char *before = dump();
        expect_refused(manager_reload(M, &v), v, HCBS_E_INVALID_ARGUMENT);
        char *after = dump();
        cr_assert_str_eq(before, after);
        cr_assert_eq(M->conf.capacity_bw, hcbs_bw(1000000, 500000), "the old configuration was not kept");
        free(before);
        free(after);
}

Test(manager, shutdown_gives_capacity_back) {
        HcbsVerdict v;

        start();
        expect_done(manager_create_group(M, "audio", 500, 5000, &plain, &v), v);
        manager_shutdown(M);
        assert_kernel_rt("", 1000000, 100000); /* what audio holds */
        assert_kernel_rt("audio", 5000, 500);
        assert_agree();
}

Test(manager, shutdown_keeps_on_exit) {
        HcbsVerdict v;

        write_conf("[Manager]\nKeepOnExit=yes\n");
        start();
        expect_done(manager_create_group(M, "audio", 500, 5000, &plain, &v), v);
        manager_shutdown(M);
        assert_kernel_rt("", 1000000, 900000);
}

/* A unit operation answered before it returns (no systemd question needed): its outcome. */
typedef struct UnitDone {
        unsigned calls;
        int r;
        HcbsVerdict v;
} UnitDone;

static void unit_done(Manager *m, int r, const HcbsVerdict *v, void *userdata) {
        UnitDone *d = userdata;

        d->calls++;
        d->r = r;
        d->v = *v;
}

static int reserve_now(const UnitReservation *u, HcbsVerdict *v) {
        UnitDone d = { 0 };

        cr_assert_eq(manager_reserve_unit(M, u, unit_done, &d), 0);
        cr_assert_eq(d.calls, 1, "answered before returning");
        *v = d.v;
        return d.r;
}

static int release_now_as(const char *unit, uid_t uid, HcbsVerdict *v) {
        UnitDone d = { 0 };

        cr_assert_eq(manager_release_unit(M, unit, uid, unit_done, &d), 0);
        cr_assert_eq(d.calls, 1, "answered before returning");
        *v = d.v;
        return d.r;
}

static int release_now(const char *unit, HcbsVerdict *v) {
        return release_now_as(unit, 0, v);
}

Test(manager, units_without_pool) {
        HcbsVerdict v;
        UnitReservation u = { .unit = "a.service", .runtime_us = 1000, .period_us = 10000 };

        start();
        expect_refused(reserve_now(&u, &v), v, HCBS_E_NOT_SUPPORTED);
        u.policy = PROC_POLICY_FIFO;
        u.caller_uid = 1000;
        expect_refused(reserve_now(&u, &v), v, HCBS_E_PERMISSION_DENIED);
        expect_refused(release_now("a.service", &v), v, HCBS_E_NOT_SUPPORTED);
        cr_assert_eq(manager_unit_count(M), 0);
}

/* ---- under systemd: hcbsd's delegated cgroup in a slice shared with units (the pool) ---- */

static void start_in_pool(void) {
        ManagerOptions o = { .cgroup_root = "/proc/hcbs.slice/hcbsd.service/" DELEGATE_GROUPS, .config_path = conf,
                             .config_dir = confdir, .state_dir = state, .runtime_dir = run };
        int r;

        M = manager_free(M);
        cr_assert_eq(manager_new(&o, &M), 0);
        M->own_cgroup = strdup("hcbs.slice/hcbsd.service"); /* what delegate_detect() finds under systemd */
        r = manager_startup(M);
        cr_assert_eq(r, 0, "manager_startup: %s", strerror(-r));
}

static void prep_pool(void) {
        cr_assert_eq(fake_kernel_set("", 1000000, 900000), 0);
        cr_assert_eq(fake_kernel_mkdir("hcbs.slice"), 0);
        cr_assert_eq(fake_kernel_mkdir("hcbs.slice/hcbsd.service"), 0);
        cr_assert_eq(fake_kernel_spawn(getpid(), 0, "hcbs.slice/hcbsd.service", PROC_POLICY_OTHER), 0);
        /* a unit's reservation from before hcbsd started */
        cr_assert_eq(fake_kernel_mkdir("hcbs.slice/rt.service"), 0);
        cr_assert_eq(fake_kernel_set("hcbs.slice", 1000000, 100000), 0);
        cr_assert_eq(fake_kernel_set("hcbs.slice/rt.service", 100000, 10000), 0);
        cr_assert_eq(fake_kernel_spawn(800, 0, "hcbs.slice/rt.service", PROC_POLICY_FIFO), 0);
        start_in_pool();
}

Test(manager, pool_grows_on_demand_and_is_trimmed) {
        HcbsVerdict v;
        HcbsNode *k;

        prep_pool();
        cr_assert_not_null(M->admission.pool);
        cr_assert_str_eq(M->admission.pool->path, "hcbs.slice");
        cr_assert_str_eq(fake_kernel_task_group(getpid()), "hcbs.slice/hcbsd.service/" DELEGATE_DAEMON);
        cr_assert_not_null(hcbs_model_find(M->model, "hcbs.slice/rt.service"), "the unit's cgroup is not adopted");
        cr_assert_eq(manager_group_count(M), 0);
        assert_agree();

        expect_done(manager_create_group(M, "audio", 500, 5000, &plain, &v), v);
        k = hcbs_model_find(fake_kernel_model(), "hcbs.slice");
        cr_assert_geq(k->bw, hcbs_bw(5000, 500) + hcbs_bw(100000, 10000), "the pool did not grow");
        assert_agree();
        /* Capacity=90%: the pool holds at most that */
        expect_refused(manager_create_group(M, "big", 750000, 1000000, &plain, &v), v, HCBS_E_INSUFFICIENT_BANDWIDTH);
        expect_done(manager_delete_group(M, "audio", NULL, 0, &v), v);
        k = hcbs_model_find(fake_kernel_model(), "hcbs.slice");
        cr_assert_lt(k->bw, hcbs_bw(5000, 500) + hcbs_bw(100000, 10000), "the pool was not trimmed");
        assert_agree();
}

static int64_t kernel_runtime(const char *path) {
        HcbsNode *k = hcbs_model_find(fake_kernel_model(), path);
        cr_assert_not_null(k, "the kernel has no %s", path);
        return k->runtime_us;
}

/* rtmax: a cgroup in the pool hcbsd does not reserve gets runtime 0, so RT tasks are refused there as on rfc1 */
Test(manager, rtmax_pool_children_without_a_reservation_get_runtime_0) {
        HcbsNode *k;

        reboot(HCBS_IFACE_RTMAX);
        cr_assert_eq(fake_kernel_set("", 1000000, 900000), 0);
        cr_assert_eq(fake_kernel_mkdir("hcbs.slice"), 0);
        cr_assert_eq(fake_kernel_mkdir("hcbs.slice/hcbsd.service"), 0);
        cr_assert_eq(fake_kernel_spawn(getpid(), 0, "hcbs.slice/hcbsd.service", PROC_POLICY_OTHER), 0);
        /* there before hcbsd: one idle, one whose RT task runs on the pool's bandwidth already */
        cr_assert_eq(fake_kernel_mkdir("hcbs.slice/old.scope"), 0);
        cr_assert_eq(fake_kernel_mkdir("hcbs.slice/busy.scope"), 0);
        cr_assert_eq(fake_kernel_spawn(801, 0, "hcbs.slice/busy.scope", PROC_POLICY_FIFO), 0);
        start_in_pool();
        cr_assert_eq(kernel_runtime("hcbs.slice/old.scope"), 0);
        cr_assert_eq(kernel_runtime("hcbs.slice/busy.scope"), -1, "the kernel refuses the switch while it runs");
        /* hcbsd's own cgroup is on its chain: a reservation of 0 at CapacityPeriod=, which grows */
        cr_assert_eq(hcbs_model_find(fake_kernel_model(), "hcbs.slice/hcbsd.service")->period_us, 1000000);
        assert_agree();

        /* made while hcbsd runs: a container without annotations, and its engine's subgroup */
        cr_assert_eq(fake_kernel_mkdir("hcbs.slice/libpod-abc.scope"), 0);
        k = hcbs_model_find(fake_kernel_model(), "hcbs.slice/libpod-abc.scope");
        cr_assert_eq(k->runtime_us, 0);
        cr_assert_eq(fake_kernel_mkdir("hcbs.slice/libpod-abc.scope/container"), 0);
        cr_assert(!hcbs_model_can_attach(fake_kernel_model(), hcbs_model_find(fake_kernel_model(),
                                         "hcbs.slice/libpod-abc.scope/container"), true),
                  "an RT task may enter a plain container's cgroup");
        assert_agree();
        /* gone: forgotten */
        cr_assert_eq(fake_kernel_rmdir("hcbs.slice/libpod-abc.scope/container"), 0);
        cr_assert_eq(fake_kernel_rmdir("hcbs.slice/libpod-abc.scope"), 0);
        cr_assert_null(hcbs_model_find(M->model, "hcbs.slice/libpod-abc.scope"));
        assert_agree();
}

/* rfc1 starts them at runtime 0 itself: hcbsd writes nothing */
Test(manager, rfc1_pool_children_left_alone) {
        prep_pool();
        fake_kernel_reset_counts();
        cr_assert_eq(fake_kernel_mkdir("hcbs.slice/libpod-abc.scope"), 0);
        cr_assert_eq(fake_kernel_count(FAKE_OP_WRITE), 0);
        cr_assert_eq(kernel_runtime("hcbs.slice/libpod-abc.scope"), 0);
}

Test(manager, pool_unit_given_back) {
        HcbsVerdict v;
        HcbsNode *n;

        prep_pool();
        n = hcbs_model_find(M->model, "hcbs.slice/rt.service");
        cr_assert_not_null(n);
        /* its RT process holds it: runtime 0 is refused while it runs */
        expect_refused(manager_unit_drop(M, n, &v), v, HCBS_E_GROUP_BUSY);
        fake_kernel_exit(800);
        expect_done(manager_unit_drop(M, n, &v), v);
        cr_assert_eq(hcbs_model_find(fake_kernel_model(), "hcbs.slice/rt.service")->runtime_us, 0);
        assert_agree();
}

Test(manager, check_cgroup_of_a_container_not_made_yet) {
        HcbsVerdict v;
        char *before, *after;
        size_t nodes;

        prep_pool();
        nodes = hcbs_model_size(M->model);
        before = dump();
        expect_done(manager_check_cgroup(M, "hcbs.slice/libpod-a.scope", 2000, 10000, &v), v);
        expect_done(manager_check_cgroup(M, "/hcbs.slice/libpod-a.scope/container", 2000, 10000, &v), v);
        expect_refused(manager_check_cgroup(M, "hcbs.slice/libpod-a.scope", 900000, 1000000, &v), v,
                       HCBS_E_INSUFFICIENT_BANDWIDTH);
        /* beyond Capacity=: the pool's reason, with what holds it */
        cr_assert(strstr(v.message, "libpod-a.scope needs 90.0% more per CPU; hcbs.slice has 80.0% free of its "
                                    "Capacity= 90.0%: hcbs.slice/rt.service 10.0% hold the rest"), "%s", v.message);
        expect_refused(manager_check_cgroup(M, "user.slice/libpod-a.scope", 2000, 10000, &v), v,
                       HCBS_E_INVALID_ARGUMENT);
        expect_refused(manager_check_cgroup(M, "hcbs.slice/x.service", 2000, 10000, &v), v, HCBS_E_INVALID_ARGUMENT);
        after = dump();
        cr_assert_str_eq(before, after, "a check wrote to the kernel");
        cr_assert_eq(hcbs_model_size(M->model), nodes, "a check left a node in the model");
        free(before);
        free(after);
        assert_agree();

        reboot(HCBS_IFACE_RFC1);
        start();
        expect_refused(manager_check_cgroup(M, "hcbs.slice/libpod-a.scope", 1000, 10000, &v), v, HCBS_E_NOT_SUPPORTED);
}

/* A container's cgroup in the pool, as podman with crun makes it: its scope, the scope's "container" subgroup. */
static const char *const ctr_scope = "hcbs.slice/libpod-c0.scope", *const ctr_cgroup = "hcbs.slice/libpod-c0.scope/container";

static void prep_container(pid_t pid) {
        prep_pool();
        cr_assert_eq(fake_kernel_mkdir(ctr_scope), 0);
        cr_assert_eq(fake_kernel_mkdir(ctr_cgroup), 0);
        cr_assert_eq(fake_kernel_spawn(pid, 0, ctr_cgroup, PROC_POLICY_OTHER), 0);
}

Test(manager, container_reserved_and_released) {
        CgroupReservation c = { .cgroup = ctr_cgroup, .runtime_us = 2000, .period_us = 10000,
                                .policy = PROC_POLICY_FIFO, .priority = 10, .pid = 900 };
        HcbsVerdict v;
        GroupInfo *info;

        prep_container(900);
        expect_done(manager_reserve_cgroup(M, &c, &v), v);
        cr_assert_eq(hcbs_model_find(fake_kernel_model(), ctr_scope)->runtime_us, 2000);
        cr_assert_eq(hcbs_model_find(fake_kernel_model(), ctr_scope)->period_us, 10000);
        cr_assert_eq(hcbs_model_find(fake_kernel_model(), ctr_cgroup)->runtime_us, 2000);
        cr_assert_eq(fake_kernel_task_policy(900), PROC_POLICY_FIFO);
        info = manager_group_info(hcbs_model_find(M->model, ctr_scope));
        cr_assert_str_eq(info->unit, "libpod-c0.scope");
        cr_assert(manager_unit_is_container(info->unit));
        expect_done(manager_reserve_cgroup(M, &c, &v), v); /* idempotent */
        assert_agree();
        /* the scope and its subgroup are the container's, not groups hcbsd serves */
        cr_assert_eq(manager_group_count(M), 0);

        expect_refused(manager_release_cgroup(M, ctr_cgroup, 1000, &v), v, HCBS_E_PERMISSION_DENIED);
        cr_assert(strstr(v.message, "belongs to uid 0"), "%s", v.message);

        /* the container's process holds it: runtime 0 waits until it is gone */
        expect_refused(manager_release_cgroup(M, ctr_cgroup, 0, &v), v, HCBS_E_GROUP_BUSY);
        fake_kernel_exit(900);
        expect_done(manager_release_cgroup(M, ctr_cgroup, 0, &v), v);
        cr_assert_eq(hcbs_model_find(fake_kernel_model(), ctr_cgroup)->runtime_us, 0);
        cr_assert_eq(hcbs_model_find(fake_kernel_model(), ctr_scope)->runtime_us, 0);
        expect_done(manager_release_cgroup(M, ctr_cgroup, 0, &v), v); /* holds nothing: succeeds */
        assert_agree();
}

/* MaxGroups= counts hcbsd's groups: a container's scope and subgroups are not among them. */
Test(manager, containers_do_not_count_as_groups) {
        CgroupReservation c = { .cgroup = ctr_cgroup, .runtime_us = 2000, .period_us = 10000 };
        HcbsVerdict v;

        write_conf("[Manager]\nMaxGroups=1\n");
        prep_container(900);
        expect_done(manager_reserve_cgroup(M, &c, &v), v);
        cr_assert_eq(manager_group_count(M), 0);
        expect_done(manager_create_group(M, "audio", 500, 5000, &plain, &v), v);
        cr_assert_eq(manager_group_count(M), 1);
        expect_refused(manager_create_group(M, "video", 500, 5000, &plain, &v), v, HCBS_E_INVALID_ARGUMENT);
        assert_agree();
}

Test(manager, container_refusals) {
        CgroupReservation c = { .cgroup = ctr_cgroup, .runtime_us = 2000, .period_us = 10000, .pid = 900 };
        HcbsVerdict v;
        char *before, *after;

        prep_container(900);
        cr_assert_eq(fake_kernel_spawn(902, 0, "hcbs.slice", PROC_POLICY_OTHER), 0);
        before = dump();
        c.policy = PROC_POLICY_FIFO, c.priority = 10, c.pid = 0;
        expect_refused(manager_reserve_cgroup(M, &c, &v), v, HCBS_E_INVALID_ARGUMENT); /* a policy needs the pid */
        c.policy = PROC_POLICY_KEEP, c.pid = 901;
        expect_refused(manager_reserve_cgroup(M, &c, &v), v, HCBS_E_NO_SUCH_PROCESS);
        c.pid = 902;
        expect_refused(manager_reserve_cgroup(M, &c, &v), v, HCBS_E_INVALID_ARGUMENT);
        cr_assert(strstr(v.message, "process 902 runs in /hcbs.slice, not in /" "hcbs.slice/libpod-c0.scope/container"),
                  "%s", v.message);
        c.pid = 900, c.caller_uid = 1000;
        expect_refused(manager_reserve_cgroup(M, &c, &v), v, HCBS_E_PERMISSION_DENIED);
        c.caller_uid = 0, c.cgroup = "hcbs.slice/libpod-none.scope";
        expect_refused(manager_reserve_cgroup(M, &c, &v), v, HCBS_E_INVALID_ARGUMENT);
        c.cgroup = "user.slice/libpod-c0.scope";
        expect_refused(manager_reserve_cgroup(M, &c, &v), v, HCBS_E_INVALID_ARGUMENT);
        c.cgroup = ctr_cgroup, c.runtime_us = 950000, c.period_us = 1000000;
        expect_refused(manager_reserve_cgroup(M, &c, &v), v, HCBS_E_INSUFFICIENT_BANDWIDTH);
        after = dump();
        cr_assert_str_eq(before, after, "a refusal wrote to the kernel");
        free(before);
        free(after);
        assert_agree();
}

/* ---- systemd in memory: the core's questions (systemd-questions.h), answered by the test ---- */

typedef struct FakeQuestion {
        SystemdQuestion what;
        char unit[64];
        SystemdAnswerFn fn;
        void *userdata;
} FakeQuestion;

static FakeQuestion asked[16];
static size_t n_asked;
/* unit_of_cgroup's answers: cgroup, unit, state (NULL unit: systemd's error) */
static const char *cgroup_units[4][3];

static int fake_ask(void *client, SystemdQuestion what, const char *unit, SystemdAnswerFn fn, void *userdata) {
        cr_assert_lt(n_asked, ELEMENTSOF(asked));
        asked[n_asked] = (FakeQuestion) { .what = what, .fn = fn, .userdata = userdata };
        snprintf(asked[n_asked].unit, sizeof(asked[n_asked].unit), "%s", unit);
        n_asked++;
        return 0;
}

static int fake_unit_of_cgroup(void *client, const char *cgroup, char **ret_unit, char **ret_state, char **ret_error) {
        for (size_t i = 0; i < ELEMENTSOF(cgroup_units) && cgroup_units[i][0]; i++) {
                if (strcmp(cgroup_units[i][0], cgroup) != 0)
                        continue;
                if (!cgroup_units[i][1]) {
                        *ret_error = strdup("No unit for that cgroup");
                        return -ENOENT;
                }
                *ret_unit = strdup(cgroup_units[i][1]);
                *ret_state = strdup(cgroup_units[i][2]);
                return 0;
        }
        return -ENXIO;
}

static void watch_units(void) {
        SystemdQuestions q = { .ask = fake_ask, .unit_of_cgroup = fake_unit_of_cgroup };

        n_asked = 0;
        cr_assert_eq(manager_units_watch(M, &q), 0);
}

/* Whether a question of this kind about unit waits for its answer. */
static bool is_asked(SystemdQuestion what, const char *unit) {
        for (size_t i = 0; i < n_asked; i++)
                if (asked[i].what == what && strcmp(asked[i].unit, unit) == 0)
                        return true;
        return false;
}

/* Answers the oldest question of this kind about unit, as systemd would from the event loop. */
static void answer(SystemdQuestion what, const char *unit, SystemdAnswer a) {
        for (size_t i = 0; i < n_asked; i++) {
                FakeQuestion q = asked[i];
                if (q.what != what || strcmp(q.unit, unit) != 0)
                        continue;
                memmove(&asked[i], &asked[i + 1], (n_asked - i - 1) * sizeof(FakeQuestion));
                n_asked--;
                q.fn(&a, q.userdata);
                return;
        }
        cr_assert_fail("nobody asked %d about %s", (int) what, unit);
}

static SystemdAnswer answer_state(const char *s) {
        return (SystemdAnswer) { .string = s };
}

static void prep_pool_watched(void) {
        memset(cgroup_units, 0, sizeof(cgroup_units));
        cgroup_units[0][0] = "/hcbs.slice/rt.service";
        cgroup_units[0][1] = "rt.service";
        cgroup_units[0][2] = "active";
        prep_pool();
        watch_units();
        cr_assert_eq(manager_unit_count(M), 1, "the reservation found at start is rt.service's");
        cr_assert_not_null(manager_unit_node(M, "rt.service"));
        cr_assert_eq(fake_kernel_mkdir("hcbs.slice/b.service"), 0); /* systemd made it for the unit's start */
}

/* ReleaseUnit on a container scope's name checks the scope's owner, as ReleaseCgroup does. */
Test(manager, release_unit_of_a_container_checks_its_owner) {
        CgroupReservation c = { .cgroup = ctr_cgroup, .runtime_us = 2000, .period_us = 10000 };
        HcbsVerdict v;

        prep_container(900);
        watch_units();
        expect_done(manager_reserve_cgroup(M, &c, &v), v);
        /* the fake kernel's cgroups are root's: a caller polkit lets manage is not the scope's owner */
        expect_refused(release_now_as("libpod-c0.scope", 1000, &v), v, HCBS_E_PERMISSION_DENIED);
        cr_assert(strstr(v.message, "/hcbs.slice/libpod-c0.scope belongs to uid 0"), "%s", v.message);
        cr_assert_eq(kernel_runtime(ctr_scope), 2000);
        fake_kernel_exit(900);
        expect_done(release_now_as("libpod-c0.scope", 0, &v), v);
        cr_assert_eq(kernel_runtime(ctr_scope), 0);
        assert_agree();
}

/* ReserveUnit for b.service, answered once systemd named the cgroup. */
static void reserve_b(UnitDone *d) {
        UnitReservation u = { .unit = "b.service", .runtime_us = 1000, .period_us = 10000,
                              .policy = PROC_POLICY_FIFO, .priority = 10 };

        *d = (UnitDone) {};
        cr_assert_eq(manager_reserve_unit(M, &u, unit_done, d), 0);
        cr_assert_eq(d->calls, 0, "answered before systemd named the cgroup");
        answer(SYSTEMD_CGROUP, "b.service", answer_state("hcbs.slice/b.service"));
        cr_assert_eq(d->calls, 1);
        expect_done(d->r, d->v);
}

Test(manager, units_follow_systemd) {
        UnitDone d;

        prep_pool_watched();
        reserve_b(&d);
        cr_assert_eq(kernel_runtime("hcbs.slice/b.service"), 1000);
        cr_assert_eq(manager_unit_count(M), 2);
        assert_agree();

        /* started: the policy goes on the main process; it runs, so the reservation stays */
        cr_assert_eq(fake_kernel_spawn(900, 0, "hcbs.slice/b.service", PROC_POLICY_OTHER), 0);
        manager_units_signals()->job_removed(M, "b.service", "done");
        cr_assert(is_asked(SYSTEMD_MAIN_PID, "b.service") && is_asked(SYSTEMD_ACTIVE_STATE, "b.service"));
        answer(SYSTEMD_MAIN_PID, "b.service", (SystemdAnswer) { .pid = 900 });
        cr_assert_eq(fake_kernel_task_policy(900), PROC_POLICY_FIFO);
        answer(SYSTEMD_ACTIVE_STATE, "b.service", answer_state("active"));
        cr_assert_eq(kernel_runtime("hcbs.slice/b.service"), 1000);

        /* an answer about an older reservation of the unit is not acted on */
        manager_units_signals()->unit_removed(M, "b.service");
        reserve_b(&d);
        answer(SYSTEMD_ACTIVE_STATE, "b.service", answer_state("inactive"));
        cr_assert_eq(kernel_runtime("hcbs.slice/b.service"), 1000, "a stale answer released the reservation");

        /* stopped: given back */
        fake_kernel_exit(900);
        manager_units_signals()->job_removed(M, "b.service", "done");
        answer(SYSTEMD_MAIN_PID, "b.service", (SystemdAnswer) { .pid = 0 }); /* none: the start failed */
        answer(SYSTEMD_ACTIVE_STATE, "b.service", answer_state("inactive"));
        cr_assert_eq(kernel_runtime("hcbs.slice/b.service"), 0);
        cr_assert_null(manager_unit_node(M, "b.service"));

        /* systemd forgot the unit: as good as inactive */
        fake_kernel_exit(800);
        manager_units_signals()->reloaded(M);
        answer(SYSTEMD_ACTIVE_STATE, "rt.service",
               (SystemdAnswer) { .r = -ENOENT, .error = "Unit rt.service not loaded.", .unit_gone = true });
        cr_assert_eq(kernel_runtime("hcbs.slice/rt.service"), 0);
        cr_assert_eq(manager_unit_count(M), 0);
        cr_assert_eq(n_asked, 0);
        assert_agree();
}

/* ReserveUnit when systemd answers something else than a cgroup in the pool. */
static UnitDone reserve_b_answered(SystemdAnswer a) {
        UnitReservation u = { .unit = "b.service", .runtime_us = 1000, .period_us = 10000 };
        UnitDone d = {};

        cr_assert_eq(manager_reserve_unit(M, &u, unit_done, &d), 0);
        answer(SYSTEMD_CGROUP, "b.service", a);
        cr_assert_eq(d.calls, 1);
        return d;
}

Test(manager, units_when_systemd_fails) {
        UnitDone d;

        prep_pool_watched();
        d = reserve_b_answered((SystemdAnswer) { .r = -ETIMEDOUT });
        cr_assert_eq(d.r, -ETIMEDOUT);
        cr_assert(strstr(d.v.message, "systemd did not say within 5s"), "%s", d.v.message);
        d = reserve_b_answered((SystemdAnswer) { .r = -ECANCELED });
        cr_assert_eq(d.r, -ECANCELED);
        cr_assert(strstr(d.v.message, "hcbsd stopped"), "%s", d.v.message);
        d = reserve_b_answered((SystemdAnswer) { .r = -EACCES, .error = "Access denied" });
        expect_refused(d.r, d.v, HCBS_E_INVALID_ARGUMENT);
        cr_assert(strstr(d.v.message, "systemd cannot tell the cgroup of b.service: Access denied"), "%s", d.v.message);
        d = reserve_b_answered(answer_state(""));
        expect_refused(d.r, d.v, HCBS_E_INVALID_ARGUMENT);
        d = reserve_b_answered(answer_state("user.slice/b.service"));
        expect_refused(d.r, d.v, HCBS_E_NOT_SUPPORTED);
        cr_assert(strstr(d.v.message, "give it Slice=hcbs.slice"), "%s", d.v.message);
        d = reserve_b_answered(answer_state("hcbs.slice/c.service"));
        expect_refused(d.r, d.v, HCBS_E_INVALID_ARGUMENT);
        cr_assert(strstr(d.v.message, "has no cgroup"), "%s", d.v.message);
        cr_assert_eq(kernel_runtime("hcbs.slice/b.service"), 0);

        /* once hcbsd stops watching (its bus is gone), nothing is asked */
        manager_units_unwatch(M);
        expect_refused(reserve_now(&(UnitReservation) { .unit = "b.service", .runtime_us = 1, .period_us = 10 }, &d.v),
                       d.v, HCBS_E_NOT_SUPPORTED);
        manager_units_signals()->job_removed(M, "rt.service", "done");
        cr_assert_eq(n_asked, 0);
        assert_agree();
}

Test(manager, units_found_at_start_without_a_running_unit) {
        memset(cgroup_units, 0, sizeof(cgroup_units));
        cgroup_units[0][0] = "/hcbs.slice/rt.service";
        cgroup_units[0][1] = "rt.service";
        cgroup_units[0][2] = "failed";
        prep_pool();
        fake_kernel_exit(800);
        watch_units();
        cr_assert_eq(kernel_runtime("hcbs.slice/rt.service"), 0, "a failed unit's reservation is kept");
        cr_assert_eq(manager_unit_count(M), 0);

        /* systemd knows no unit of the cgroup: given back too */
        cgroup_units[0][1] = NULL;
        cr_assert_eq(fake_kernel_set("hcbs.slice", 1000000, 100000), 0);
        cr_assert_eq(fake_kernel_set("hcbs.slice/rt.service", 100000, 10000), 0);
        start_in_pool();
        watch_units();
        cr_assert_eq(kernel_runtime("hcbs.slice/rt.service"), 0);
        assert_agree();
}

Test(manager, units_release_asks_systemd_for_an_unrecorded_cgroup) {
        UnitDone d = {};

        memset(cgroup_units, 0, sizeof(cgroup_units));
        prep_pool(); /* rt.service's reservation, not learned: nobody watched at start */
        watch_units(); /* systemd does not know the cgroup: given back... */
        cr_assert_eq(fake_kernel_set("hcbs.slice/rt.service", 100000, 10000), 0); /* ...and made again behind hcbsd */
        cr_assert_eq(manager_load_node(M, hcbs_model_find(M->model, "hcbs.slice/rt.service")), 0);
        fake_kernel_exit(800);
        cr_assert_eq(manager_release_unit(M, "rt.service", 0, unit_done, &d), 0);
        cr_assert_eq(d.calls, 0);
        answer(SYSTEMD_CGROUP, "rt.service", answer_state("hcbs.slice/rt.service"));
        expect_done(d.r, d.v);
        cr_assert_eq(kernel_runtime("hcbs.slice/rt.service"), 0);
}

/* ---- what changed, for the bus layer's signals ---- */

static char changes_seen[512];
static unsigned changes_calls;

/* The record as one line: "+created -removed | name:bw,tasks,new | manager". */
static void on_changes(Manager *m, const Changes *c, void *userdata) {
        size_t k = 0;

        changes_calls++;
        for (size_t i = 0; i < c->n_events; i++)
                k += snprintf(changes_seen + k, sizeof(changes_seen) - k, "%c%s ", c->events[i].created ? '+' : '-',
                              c->events[i].name);
        k += snprintf(changes_seen + k, sizeof(changes_seen) - k, "|");
        for (size_t i = 0; i < c->n_groups; i++) {
                const GroupChange *g = &c->groups[i];
                k += snprintf(changes_seen + k, sizeof(changes_seen) - k, " %s:%s%s%s", g->name,
                              g->what & CHANGE_BANDWIDTH ? "bw," : "", g->what & CHANGE_TASKS ? "tasks," : "",
                              g->created ? "new" : "");
        }
        snprintf(changes_seen + k, sizeof(changes_seen) - k, " |%s", c->manager ? " manager" : "");
}

#define assert_changes(want)                                                                                   \
        do {                                                                                                   \
                changes_calls = 0;                                                                             \
                changes_seen[0] = '\0';                                                                        \
                manager_flush_changes(M);                                                                      \
                cr_assert_str_eq(changes_seen, want);                                                          \
                cr_assert_leq(changes_calls, 1);                                                               \
        } while (0)

Test(manager, changes_recorded_once_per_call) {
        HcbsVerdict v;
        pid_t pid = 4242;

        prep_user();
        assert_changes(""); /* no listener: nothing recorded */
        manager_set_changes_listener(M, on_changes, NULL);
        expect_done(manager_create_group(M, "media", 200000, 1000000, &plain, &v), v);
        assert_changes("+media | media:bw,new | manager");
        /* a child re-budgets its parent (grow_parents): one entry each */
        expect_done(manager_create_group(M, "media/a", 300000, 1000000,
                                         &(CreateOptions) { .grow_parents = true }, &v), v);
        expect_done(manager_set_bandwidth(M, "media/a", 250000, 1000000, NULL, false, &v), v);
        assert_changes("+media/a | media/a:bw,new media:bw, | manager");
        expect_done(manager_attach(M, "audio", &pid, 1, &(AttachOptions) {}, &v), v);
        assert_changes("| audio:tasks, |");
        expect_done(manager_delete_group(M, "media/a", NULL, 0, &v), v);
        expect_done(manager_create_group(M, "media/a", 1000, 10000, &plain, &v), v);
        assert_changes("-media/a +media/a | media/a:bw,new | manager");
        expect_refused(manager_create_group(M, "big", 990000, 1000000, &plain, &v), v, HCBS_E_INSUFFICIENT_BANDWIDTH);
        assert_changes(""); /* a refusal changed nothing */
        manager_set_changes_listener(M, NULL, NULL);
        expect_done(manager_delete_group(M, "media/a", NULL, 0, &v), v);
        assert_changes("");
}

/* ---- reads ---- */

Test(manager, stats_and_cached_reads) {
        HcbsVerdict v;
        ManagerStats s;
        pid_t pid = 4242;

        prep_user();
        expect_done(manager_attach(M, "audio", &pid, 1, &(AttachOptions) { .policy = PROC_POLICY_FIFO, .priority = 1 },
                                   &v), v);
        cr_assert_eq(manager_get_stats(M, "audio", &s), 0);
        cr_assert_eq(s.node, mgroup("audio"));
        cr_assert_eq(s.n_cpu_stat, 2);
        cr_assert_str_eq(s.cpu_stat[1].key, "throttled_usec");
        cr_assert_eq(s.cpu_stat[1].value, 7);
        cr_assert_eq(manager_get_stats(M, "none", &s), -ENOENT);

        /* a read within the cache's time keeps the RT count; a decision reads afresh */
        cr_assert_eq(fake_kernel_spawn(4300, 0, "hcbs/audio", PROC_POLICY_FIFO), 0);
        manager_refresh_tasks_for_read(M, mgroup("audio"));
        cr_assert_eq(mgroup("audio")->nprocs, 2);
        cr_assert_eq(manager_refresh_tasks(M, mgroup("audio")), 0);
        cr_assert_eq(mgroup("audio")->nrt, 2);
        assert_agree();
}

/*
 * CheckBandwidth is open to all: it counts the parent's RT threads as a
 * read does, at most once in the cache's time, even while the parent's
 * processes come and go (a forking group changed the set every call, and
 * every call read every thread again).
 */
Test(manager, check_bandwidth_reads_threads_through_the_cache) {
        HcbsVerdict v;
        unsigned reads;

        start();
        expect_done(manager_create_group(M, "busy", 10000, 100000, &plain, &v), v);
        for (pid_t pid = 5000; pid < 5100; pid++)
                cr_assert_eq(fake_kernel_spawn(pid, 0, "hcbs/busy", PROC_POLICY_FIFO), 0);
        expect_refused(manager_check_bandwidth(M, "busy/x", 0, 100000, &v), v, HCBS_E_NOT_LEAF);
        reads = fake_kernel_policy_reads();
        for (pid_t pid = 6000; pid < 6050; pid++) { /* forks: another set of processes at every call */
                cr_assert_eq(fake_kernel_spawn(pid, 0, "hcbs/busy", PROC_POLICY_FIFO), 0);
                expect_refused(manager_check_bandwidth(M, "busy/x", 0, 100000, &v), v, HCBS_E_NOT_LEAF);
        }
        cr_assert_eq(fake_kernel_policy_reads(), reads, "%u thread policies read by 50 dry runs",
                     fake_kernel_policy_reads() - reads);
        cr_assert_eq(mgroup("busy")->nprocs, 150);
        /* a decision reads them all */
        expect_refused(manager_create_group(M, "busy/x", 0, 100000, &plain, &v), v, HCBS_E_NOT_LEAF);
        cr_assert_eq(fake_kernel_policy_reads(), reads + 150);
        assert_agree();
}

/* ---- persistence and the journal ---- */

Test(manager, persistent_groups_survive_a_reboot) {
        HcbsVerdict v;

        start();
        expect_done(manager_create_group(M, "media", 200000, 1000000, &(CreateOptions) { .persistent = true }, &v), v);
        expect_done(manager_create_group(M, "media/video", 100000, 1000000, &(CreateOptions) { .persistent = true },
                                         &v), v);
        expect_done(manager_create_group(M, "scratch", 1000, 10000, &plain, &v), v);

        /* a restart on the same kernel adopts everything, and knows which groups are persistent */
        start();
        cr_assert_eq(manager_group_count(M), 3);
        cr_assert(manager_group_info(mgroup("media/video"))->persistent);
        cr_assert_not(manager_group_info(mgroup("scratch"))->persistent);
        assert_agree();

        reboot(HCBS_IFACE_RFC1);
        start();
        cr_assert_eq(manager_group_count(M), 2);
        assert_kernel_rt("media", 1000000, 200000);
        assert_kernel_rt("media/video", 1000000, 100000);
        cr_assert_null(kgroup("scratch"));
        cr_assert(manager_group_info(mgroup("media"))->persistent);
        assert_agree();

        /* deleting one forgets it */
        expect_done(manager_delete_group(M, "media/video", NULL, 0, &v), v);
        reboot(HCBS_IFACE_RFC1);
        start();
        cr_assert_not_null(kgroup("media"));
        cr_assert_null(kgroup("media/video"));
}

/* The state file's inode: each save replaces the file (a rename), so a new inode means it was written. */
static ino_t state_file_ino(void) {
        char path[PATH_MAX];
        struct stat st;

        snprintf(path, sizeof(path), "%s/" PERSIST_FILE, state);
        return stat(path, &st) < 0 ? 0 : st.st_ino;
}

static char *state_file(void) {
        char path[PATH_MAX], *text = NULL;
        size_t len = 0;
        FILE *f;

        snprintf(path, sizeof(path), "%s/" PERSIST_FILE, state);
        f = fopen(path, "re");
        cr_assert_not_null(f);
        cr_assert_geq(getdelim(&text, &len, '\0', f), 0);
        fclose(f);
        return text;
}

Test(manager, persistent_groups_saved_when_they_change_parents_first) {
        HcbsVerdict v;
        ino_t ino;
        char *text;

        start();
        /* the child first in the batch: the file still lists parents first */
        ApplyEntry e[] = { { "m/v", 1000, 100000, .persistent = true }, { "m", 2000, 100000, .persistent = true },
                           { "tmp", 1000, 100000 } };
        expect_done(manager_apply(M, e, 3, &(ApplyOptions) {}, NULL, &v), v);
        text = state_file();
        cr_assert_str_eq(text, "# hcbsd groups v1\nm 2000 100000\nm/v 1000 100000\n");
        free(text);
        ino = state_file_ino();
        /* a group that is not persistent comes and goes: the file is not written */
        expect_done(manager_create_group(M, "x", 1000, 100000, &plain, &v), v);
        expect_done(manager_delete_group(M, "x", NULL, 0, &v), v);
        ApplyEntry del_tmp[] = { { "tmp", .delete = true } };
        expect_done(manager_apply(M, del_tmp, 1, &(ApplyOptions) {}, NULL, &v), v);
        cr_assert_eq(state_file_ino(), ino, "the state file was written for groups that are not persistent");
        /* a persistent one deleted in a batch: written without it */
        ApplyEntry del_v[] = { { "m/v", .delete = true } };
        expect_done(manager_apply(M, del_v, 1, &(ApplyOptions) {}, NULL, &v), v);
        text = state_file();
        cr_assert_str_eq(text, "# hcbsd groups v1\nm 2000 100000\n");
        free(text);
        cr_assert_eq(manager_persistent_count(M), 1);
}

Test(manager, persistent_group_not_restored_is_kept) {
        HcbsVerdict v;

        write_conf("[Manager]\nCapacity=50%\n");
        start();
        expect_done(manager_create_group(M, "big", 400000, 1000000, &(CreateOptions) { .persistent = true }, &v), v);
        reboot(rules_now);
        /* after the reboot a declared group comes first and takes the room */
        write_conf("[Manager]\nCapacity=50%\n[Group hog]\nRuntime=300ms\nPeriod=1s\n");
        start();
        assert_kernel_rt("hog", 1000000, 300000);
        cr_assert_null(kgroup("big"));
        cr_assert_eq(M->n_persist_kept, 1);
        /* a save for another group keeps it in the file... */
        expect_done(manager_create_group(M, "p", 1000, 100000, &(CreateOptions) { .persistent = true }, &v), v);
        start();
        cr_assert_eq(M->n_persist_kept, 1);
        /* ...and a reload restores it once there is room */
        write_conf("[Manager]\nCapacity=50%\n");
        expect_done(manager_delete_group(M, "hog", NULL, 0, &v), v);
        expect_done(manager_reload(M, &v), v);
        assert_kernel_rt("big", 1000000, 400000);
        cr_assert_eq(M->n_persist_kept, 0);
        assert_agree();
}

Test(manager, corrupt_state_is_set_aside) {
        char path[PATH_MAX];

        snprintf(path, sizeof(path), "%s/" PERSIST_FILE, state);
        write_file(path, "this is not a groups file\n");
        start();
        snprintf(path, sizeof(path), "%s/" PERSIST_FILE PERSIST_CORRUPT_SUFFIX, state);
        cr_assert_eq(access(path, F_OK), 0, "the corrupt file was not kept aside");
        cr_assert_eq(manager_group_count(M), 0);
}

/* A crash after k writes of a plan: the next start undoes them from the journal. */
/* A crash with plan in the journal: M's journal is gone without a clean exit, the file holds the plan. */
static void crash_with_plan(const HcbsPlan *plan) {
        char scratch[96], path[PATH_MAX];
        Journal *j = NULL;
        char *text = NULL;
        size_t len = 0;
        FILE *f;

        M->journal = journal_close(M->journal);
        snprintf(scratch, sizeof(scratch), "%s/scratch", tmp);
        cr_assert_eq(journal_open(scratch, &j), 0);
        cr_assert_eq(journal_begin(j, plan), 0);
        snprintf(path, sizeof(path), "%s/" JOURNAL_FILE, scratch);
        cr_assert_not_null(f = fopen(path, "re"));
        cr_assert_geq(getdelim(&text, &len, '\0', f), 0);
        fclose(f);
        journal_close(j);
        snprintf(path, sizeof(path), "%s/" JOURNAL_FILE, run);
        write_file(path, text);
        free(text);
}

Test(manager, interrupted_plan_is_undone_at_start) {
        HcbsVerdict v;
        HcbsPlan plan;
        ApplyEntry e[] = {
                { .name = "media", .runtime_us = 300000, .period_us = 1000000 },
                { .name = "media/video", .runtime_us = 100000, .period_us = 1000000 },
        };

        start();
        expect_dry_run(manager_apply(M, e, ELEMENTSOF(e), &(ApplyOptions) { .dry_run = true }, &plan, &v), v);
        char *before = dump();
        for (size_t k = 1; k < plan.n_ops; k++) {
                CgroupFsError err;

                crash_with_plan(&plan);
                for (size_t i = 0; i < k; i++)
                        cr_assert_eq(cgroupfs_apply_op(M->fs, &plan.ops[i], &err), 0, "op %zu: %s", i, err.file);
                start();
                char *after = dump();
                cr_assert_str_eq(before, after, "a crash after %zu of %zu writes was not undone", k, plan.n_ops);
                free(after);
                assert_agree();
        }
        hcbs_plan_done(&plan);
        free(before);
}

/* rtmax: a persistent "max" group comes back as max, not as a group of runtime 0. */
Test(manager, persistent_max_group_survives_a_reboot) {
        HcbsVerdict v;

        kernel(HCBS_IFACE_RTMAX);
        start();
        expect_done(manager_create_group(M, "box", HCBS_RUNTIME_MAX_US, 100000, &(CreateOptions) { .persistent = true },
                                         &v), v);
        expect_done(manager_create_group(M, "box/rt", 10000, 100000, &(CreateOptions) { .persistent = true }, &v), v);
        assert_kernel_rt("box", 100000, -1);
        reboot(HCBS_IFACE_RTMAX);
        start();
        assert_kernel_rt("box", 100000, -1);
        assert_kernel_rt("box/rt", 100000, 10000);
        cr_assert(manager_group_info(mgroup("box"))->persistent);
        assert_agree();
}

/* ---- the other interfaces ---- */

static void lifecycle(HcbsInterface rules) {
        HcbsVerdict v;
        pid_t pid = 4242;

        kernel(rules);
        cr_assert_eq(fake_kernel_mkdir("user.slice"), 0);
        cr_assert_eq(fake_kernel_spawn(pid, 0, "user.slice", PROC_POLICY_OTHER), 0);
        start();
        cr_assert_eq(M->iface, rules);
        expect_done(manager_create_group(M, "media", 200000, 1000000, &plain, &v), v);
        expect_done(manager_create_group(M, "media/video", 100000, 1000000, &plain, &v), v);
        expect_done(manager_set_bandwidth(M, "media/video", 20000, 100000, NULL, false, &v), v);
        expect_done(manager_attach(M, "media/video", &pid, 1,
                                   &(AttachOptions) { .policy = PROC_POLICY_FIFO, .priority = 1 }, &v), v);
        assert_agree();
        expect_done(manager_detach(M, &pid, 1, 0, &v), v);
        expect_done(manager_delete_group(M, "media/video", NULL, 0, &v), v);
        expect_done(manager_delete_group(M, "media", NULL, 0, &v), v);
        cr_assert_eq(manager_group_count(M), 0);
        assert_agree();
        rollback_every_step(prep_media, op_apply, 10);
}

Test(manager, legacy_v1) {
        lifecycle(HCBS_IFACE_LEGACY_V1);
}

Test(manager, legacy_v2) {
        lifecycle(HCBS_IFACE_LEGACY_V2);
}

Test(manager, rtmax) {
        lifecycle(HCBS_IFACE_RTMAX);
}

/* ---- what a call costs: the record of changes, not the size of the tree ---- */

/* The collector's tracking table without BPF (HCBS_STATS_BPF=table): what would be counted. */
static size_t counted(void) {
        return stats_tracked(M->stats);
}

Test(manager, the_counted_groups_follow_the_changes) {
        HcbsVerdict v;
        HcbsPlan plan;

        setenv("HCBS_STATS_BPF", "table", 1);
        prep_app(); /* audio, idle, and app with two processes */
        cr_assert_eq(counted(), 3);
        expect_done(manager_create_group(M, "audio/a", 100, 5000, &plain, &v), v);
        cr_assert_eq(counted(), 4);
        expect_done(op_create_moving(&v), v);
        cr_assert_eq(counted(), 5, "a group made by moving its parent's processes is counted");
        expect_refused(manager_create_group(M, "big", 990000, 1000000, &plain, &v), v, HCBS_E_INSUFFICIENT_BANDWIDTH);
        cr_assert_eq(counted(), 5, "a refusal counts nothing");
        ApplyEntry e[] = { { "audio/a", .delete = true }, { "b", 100, 5000 }, { "c", 100, 5000 } };
        hcbs_plan_init(&plan);
        expect_done(manager_apply(M, e, 3, &(ApplyOptions) { .dry_run = true }, &plan, &v), v);
        hcbs_plan_done(&plan);
        cr_assert_eq(counted(), 5, "a dry run counts nothing");
        expect_done(manager_apply(M, e, 3, &(ApplyOptions) {}, NULL, &v), v);
        cr_assert_eq(counted(), 6);
        expect_done(manager_delete_group(M, "audio", NULL, 0, &v), v);
        cr_assert_eq(counted(), 5);
        cr_assert_eq(counted(), manager_group_count(M));

        start(); /* a restart counts what it adopts, once */
        cr_assert_eq(counted(), 5);
        unsetenv("HCBS_STATS_BPF");
}

Test(manager, the_units_reservations_are_counted) {
        UnitDone d;

        setenv("HCBS_STATS_BPF", "table", 1);
        prep_pool_watched();
        cr_assert_eq(counted(), 1, "rt.service's reservation, not hcbsd's own cgroup");
        reserve_b(&d);
        cr_assert_eq(counted(), 2);
        /* systemd removed b.service's cgroup: a release finds it gone and forgets it */
        cr_assert_eq(cgroupfs_rmdir(M->fs, "hcbs.slice/b.service", NULL), 0);
        manager_units_signals()->unit_removed(M, "b.service");
        answer(SYSTEMD_ACTIVE_STATE, "b.service", answer_state("inactive"));
        cr_assert_null(hcbs_model_find(M->model, "hcbs.slice/b.service"));
        cr_assert_eq(counted(), 1);
        unsetenv("HCBS_STATS_BPF");
}

/* What a create+delete pair asks of the kernel: every cgroup it looks up, and the cgroup ids it reads. */
static void pair_cost(const char *name, unsigned *ret_lookups, unsigned *ret_ids) {
        HcbsVerdict v;

        fake_kernel_reset_counts();
        expect_done(manager_create_group(M, name, 2, 1000000, &plain, &v), v);
        expect_done(manager_delete_group(M, name, NULL, 0, &v), v);
        *ret_lookups = fake_kernel_lookups();
        *ret_ids = fake_kernel_id_reads();
}

Test(manager, a_call_costs_what_it_changes_not_the_tree) {
        unsigned small_lookups, small_ids, big_lookups, big_ids;
        char name[32];
        HcbsVerdict v;

        setenv("HCBS_STATS_BPF", "table", 1);
        start();
        expect_done(manager_create_group(M, "kept", 2, 1000000, &(CreateOptions) { .persistent = true }, &v), v);
        for (unsigned i = 0; i < 10; i++) {
                snprintf(name, sizeof(name), "g%u", i);
                expect_done(manager_create_group(M, name, 2, 1000000, &plain, &v), v);
        }
        pair_cost("x", &small_lookups, &small_ids);
        cr_assert_eq(small_ids, 1, "a create reads its group's id once; a delete none");
        for (unsigned i = 10; i < 400; i++) {
                snprintf(name, sizeof(name), "g%u", i);
                expect_done(manager_create_group(M, name, 2, 1000000, &plain, &v), v);
        }
        cr_assert_eq(counted(), 401);
        pair_cost("y", &big_lookups, &big_ids);
        cr_assert_eq(big_ids, small_ids, "cgroup ids read: %u at 400 groups, %u at 10", big_ids, small_ids);
        cr_assert_eq(big_lookups, small_lookups, "kernel look-ups: %u at 400 groups, %u at 10", big_lookups,
                     small_lookups);
        cr_assert_eq(counted(), 401);
        unsetenv("HCBS_STATS_BPF");
}

/* ---- the engines' pools ---- */

/*
 * The engines' pools (hcbsd.conf's [Pool NAME]): podman's machine.slice with Capacity= 30%, holding a
 * container made before hcbsd started, and other.slice (10%), which systemd makes only with its first
 * container. Each pool grows with its scopes up to its own Capacity= and is trimmed back; a dry run in
 * other.slice, which does not exist yet, answers as funding will make it and leaves nothing behind.
 */
static const char *const m_scope = "machine.slice/libpod-m0.scope", *const m_cgroup = "machine.slice/libpod-m0.scope/container";

static void prep_engine_pools(void) {
        write_conf("[Manager]\n[Pool machine]\nCgroup=machine.slice\nCapacity=30%\n"
                   "[Pool other]\nCgroup=/other.slice\nCapacity=10%\n");
        cr_assert_eq(fake_kernel_mkdir("machine.slice"), 0);
        cr_assert_eq(fake_kernel_mkdir(m_scope), 0);
        cr_assert_eq(fake_kernel_mkdir(m_cgroup), 0);
        cr_assert_eq(fake_kernel_spawn(910, 0, m_cgroup, PROC_POLICY_OTHER), 0);
        prep_pool();
}

Test(manager, engine_pools_have_their_own_capacity) {
        CgroupReservation c = { .cgroup = m_cgroup, .runtime_us = 2000, .period_us = 10000, .pid = 910 };
        HcbsVerdict v;
        HcbsNode *machine;
        size_t nodes;

        prep_engine_pools();
        machine = hcbs_model_find(M->model, "machine.slice");
        cr_assert_not_null(machine, "machine.slice is not modelled");
        cr_assert_eq(M->n_pools, 2);
        cr_assert_null(M->pools[1].pool.node, "other.slice does not exist yet");
        cr_assert_eq(manager_group_count(M), 0, "the pools' cgroups are not hcbsd's groups");
        assert_agree();

        expect_done(manager_reserve_cgroup(M, &c, &v), v);
        cr_assert_eq(kernel_runtime(m_scope), 2000);
        cr_assert_eq(hcbs_model_find(fake_kernel_model(), "machine.slice")->bw, hcbs_bw(10000, 2000),
                     "machine.slice holds what its scope holds");
        cr_assert_eq(manager_unit_count(M), 1, "the container's (rt.service's is not learned: nobody watches)");
        cr_assert_not_null(manager_unit_node(M, "libpod-m0.scope"));
        assert_agree();

        /* a second container: machine.slice's Capacity= 30% refuses it, naming the pool and who holds it */
        cr_assert_eq(fake_kernel_mkdir("machine.slice/libpod-m1.scope"), 0);
        c.cgroup = "machine.slice/libpod-m1.scope", c.pid = 0;
        expect_refused(manager_reserve_cgroup(M, &c, &v), v, HCBS_E_INSUFFICIENT_BANDWIDTH);
        cr_assert(strstr(v.message, "libpod-m1.scope needs 20.0% more per CPU; machine.slice has 10.0% free of its "
                                    "Capacity= 30.0%: machine.slice/libpod-m0.scope 20.0% hold the rest"),
                  "%s", v.message);
        expect_refused(manager_check_cgroup(M, "machine.slice/libpod-m2.scope", 2000, 10000, &v), v,
                       HCBS_E_INSUFFICIENT_BANDWIDTH);

        /* other.slice: a dry run as funding will make it, then nothing left in the model or the kernel */
        nodes = hcbs_model_size(M->model);
        expect_refused(manager_check_cgroup(M, "other.slice/libpod-o0.scope", 2000, 10000, &v), v,
                       HCBS_E_INSUFFICIENT_BANDWIDTH);
        cr_assert(strstr(v.message, "other.slice has 10.0% free of its Capacity= 10.0%"), "%s", v.message);
        expect_done(manager_check_cgroup(M, "/other.slice/libpod-o0.scope/container", 1000, 10000, &v), v);
        cr_assert_eq(hcbs_model_size(M->model), nodes, "a dry run left a node");
        cr_assert_null(hcbs_model_find(fake_kernel_model(), "other.slice"));

        /* systemd made other.slice with its first container: modelled and funded, then reserved */
        cr_assert_eq(fake_kernel_mkdir("other.slice"), 0);
        cr_assert_eq(fake_kernel_mkdir("other.slice/libpod-o0.scope"), 0);
        c.cgroup = "other.slice/libpod-o0.scope", c.runtime_us = 1000;
        expect_done(manager_reserve_cgroup(M, &c, &v), v);
        cr_assert_not_null(M->pools[1].pool.node);
        cr_assert_eq(kernel_runtime("other.slice/libpod-o0.scope"), 1000);
        assert_agree();

        /* in no pool */
        expect_refused(manager_check_cgroup(M, "user.slice/libpod-u.scope", 1000, 10000, &v), v,
                       HCBS_E_INVALID_ARGUMENT);
        cr_assert(strstr(v.message, "in none of hcbsd's pools (hcbs.slice, machine.slice, other.slice)"), "%s",
                  v.message);

        /* given back: each pool trimmed to what it holds */
        fake_kernel_exit(910);
        expect_done(manager_release_cgroup(M, m_cgroup, 0, &v), v);
        expect_done(manager_release_cgroup(M, "other.slice/libpod-o0.scope", 0, &v), v);
        cr_assert_eq(kernel_runtime("machine.slice"), 0, "machine.slice was not trimmed");
        cr_assert_eq(kernel_runtime("other.slice"), 0, "other.slice was not trimmed");
        cr_assert_eq(manager_unit_count(M), 0);
        assert_agree();
}

/* A pool that is or holds hcbs.slice is refused (logged) and hcbsd starts all the same. */
Test(manager, engine_pool_over_hcbs_slice_is_ignored) {
        write_conf("[Manager]\n[Pool bad]\nCgroup=hcbs.slice\nCapacity=10%\n");
        prep_pool();
        cr_assert_eq(M->n_pools, 0);
        write_conf("[Manager]\n[Pool inside]\nCgroup=hcbs.slice/x.slice\nCapacity=10%\n");
        start_in_pool();
        cr_assert_eq(M->n_pools, 0);
        assert_agree();
}

/* A restarted hcbsd keeps a running container's reservation in machine.slice, and follows its scope after. */
Test(manager, engine_pool_container_across_a_restart) {
        CgroupReservation c = { .cgroup = m_cgroup, .runtime_us = 2000, .period_us = 10000, .pid = 910 };
        HcbsVerdict v;

        prep_engine_pools();
        expect_done(manager_reserve_cgroup(M, &c, &v), v);
        memset(cgroup_units, 0, sizeof(cgroup_units));
        cgroup_units[0][0] = "/machine.slice/libpod-m0.scope";
        cgroup_units[0][1] = "libpod-m0.scope";
        cgroup_units[0][2] = "active";
        start_in_pool();
        watch_units();
        cr_assert_not_null(manager_unit_node(M, "libpod-m0.scope"), "the container's reservation is not known");
        cr_assert_eq(kernel_runtime(m_scope), 2000);
        assert_agree();

        /* conmon killed, no poststop: systemd removes the scope and its cgroups; machine.slice is trimmed */
        fake_kernel_exit(910);
        cr_assert_eq(cgroupfs_rmdir(NULL, m_cgroup, NULL), 0); /* as systemd does, in the fake kernel */
        cr_assert_eq(cgroupfs_rmdir(NULL, m_scope, NULL), 0);
        manager_units_signals()->unit_removed(M, "libpod-m0.scope");
        answer(SYSTEMD_ACTIVE_STATE, "libpod-m0.scope", answer_state("inactive"));
        cr_assert_null(manager_unit_node(M, "libpod-m0.scope"));
        cr_assert_null(hcbs_model_find(M->model, m_scope), "hcbsd still models the scope systemd removed");
        cr_assert_eq(kernel_runtime("machine.slice"), 0);
        assert_agree();
}
/* ---- rtmax v7: reservations follow cpusets ---- */

static HcbsCpuSet cpus_of(const char *list) {
        HcbsCpuSet s;
        cr_assert_eq(hcbs_cpuset_parse(list, &s), 0);
        return s;
}

static void start_v7(void) {
        reboot(HCBS_IFACE_RTMAX);
        kernel_revision(HCBS_IFACE_RTMAX, 7);
        start();
        cr_assert_eq(M->revision, 7);
        cr_assert(hcbs_model_profile(M->model)->cpuset_coupling);
}

Test(manager, rtmax7_cpus) {
        HcbsCpuSet two_three = cpus_of("2-3"), zero = cpus_of("0"), seven = cpus_of("7");
        HcbsVerdict v;

        start_v7();
        expect_done(manager_create_group(M, "arm", 20000, 100000,
                                         &(CreateOptions) { .cpus = &two_three, .persistent = true }, &v), v);
        assert_kernel_rt("arm", 100000, 20000);
        assert_dump_has("'hcbs/arm' 100000 20000 cpus=2-3");
        assert_agree();
        /* another group on CPU 3 only: short there, with the CPU named */
        expect_done(manager_create_group(M, "leg", 70000, 100000, &(CreateOptions) { .cpus = &two_three }, &v), v);
        HcbsCpuSet three = cpus_of("3");
        expect_refused(manager_create_group(M, "hand", 20000, 100000, &(CreateOptions) { .cpus = &three }, &v),
                       v, HCBS_E_INSUFFICIENT_BANDWIDTH);
        cr_assert(strstr(v.message, "on CPU 2") || strstr(v.message, "on CPU 3"), "%s", v.message);
        expect_done(manager_create_group(M, "hand", 20000, 100000, &(CreateOptions) { .cpus = &zero }, &v), v);
        /* a CPU that is not online */
        expect_refused(manager_create_group(M, "eye", 1000, 100000, &(CreateOptions) { .cpus = &seven }, &v), v,
                       HCBS_E_INVALID_ARGUMENT);
        cr_assert_str_eq(v.message, "eye: CPU 7 is not online (online: 0-3)");
        /* other CPUs: the reservation steps aside while they change */
        expect_done(manager_set_bandwidth(M, "arm", 20000, 100000, &zero, false, &v), v);
        assert_dump_has("'hcbs/arm' 100000 20000 cpus=0");
        assert_agree();
        /* not while RT tasks run there */
        cr_assert_eq(fake_kernel_spawn(4242, 0, "hcbs/arm", PROC_POLICY_FIFO), 0);
        expect_refused(manager_set_bandwidth(M, "arm", 20000, 100000, &two_three, false, &v), v, HCBS_E_GROUP_BUSY);
        fake_kernel_exit(4242);
        (void) manager_refresh_tasks(M, mgroup("arm"));
        assert_agree();
        /* kept across a reboot with its CPUs */
        reboot(HCBS_IFACE_RTMAX);
        start();
        assert_dump_has("'hcbs/arm' 100000 20000 cpus=0");
        assert_agree();
}

/* After a plan hcbsd reads the servers back (cpu.rt.max.effective.local): a difference is a model defect */
Test(manager, rtmax7_servers_read_back) {
        HcbsCpuSet one = cpus_of("1");
        HcbsVerdict v;

        start_v7();
        expect_done(manager_create_group(M, "arm", 20000, 100000, &(CreateOptions) { .cpus = &one }, &v), v);
        cr_assert_eq(M->servers_differ, 0);
        fake_kernel_skew_servers(1);
        expect_done(manager_set_bandwidth(M, "arm", 30000, 100000, NULL, false, &v), v);
        cr_assert_geq(M->servers_differ, 1, "a kernel that gives other servers than the model went unnoticed");
        fake_kernel_skew_servers(0);
}

Test(manager, rtmax7_cpus_from_the_configuration) {
        start_v7();
        M = manager_free(M);
        write_conf("[Manager]\n[Group arm]\nRuntime=2ms\nPeriod=10ms\nCPUs=1\n");
        start();
        assert_dump_has("'hcbs/arm' 10000 2000 cpus=1");
        assert_agree();
}

Test(manager, cpus_refused_where_reservations_hold_on_every_cpu) {
        HcbsCpuSet one = cpus_of("1");
        HcbsVerdict v;

        reboot(HCBS_IFACE_RTMAX);
        start();
        expect_refused(manager_create_group(M, "arm", 20000, 100000, &(CreateOptions) { .cpus = &one }, &v), v,
                       HCBS_E_NOT_SUPPORTED);
        cr_assert_str_eq(v.message, "arm: a CPU list needs a kernel whose reservations follow cpusets (HCBS devel-v7, "
                                    "cpu.rt.max.effective.local); on this one (rtmax v6) every reservation holds on "
                                    "every CPU");
        reboot(HCBS_IFACE_RFC1);
        start();
        expect_refused(manager_create_group(M, "arm", 20000, 100000, &(CreateOptions) { .cpus = &one }, &v), v,
                       HCBS_E_NOT_SUPPORTED);
}

static void prep_v7(void) {
        HcbsCpuSet one = cpus_of("1");
        HcbsVerdict v;

        kernel_revision(HCBS_IFACE_RTMAX, 7);
        start();
        expect_done(manager_create_group(M, "arm", 20000, 100000, &(CreateOptions) { .cpus = &one }, &v), v);
}

static int op_create_on_cpus(HcbsVerdict *v) {
        HcbsCpuSet cpus = cpus_of("2-3");
        return manager_create_group(M, "leg", 30000, 100000, &(CreateOptions) { .cpus = &cpus }, v);
}

static int op_move_cpus(HcbsVerdict *v) {
        HcbsCpuSet cpus = cpus_of("0,2");
        return manager_set_bandwidth(M, "arm", 30000, 100000, &cpus, false, v);
}

Test(manager, rollback_rtmax7_create_on_cpus) {
        reboot(HCBS_IFACE_RTMAX);
        revision_now = 7;
        rollback_every_step(prep_v7, op_create_on_cpus, 3);
}

Test(manager, rollback_rtmax7_move_cpus) {
        reboot(HCBS_IFACE_RTMAX);
        revision_now = 7;
        rollback_every_step(prep_v7, op_move_cpus, 3);
}

/* An engine pool's container scope found at start is counted, as hcbs.slice's units are. */
Test(manager, the_engine_pools_scopes_are_counted_at_start) {
        setenv("HCBS_STATS_BPF", "table", 1);
        prep_engine_pools();
        cr_assert_eq(counted(), 2, "rt.service's reservation and machine.slice's libpod-m0.scope");
        unsetenv("HCBS_STATS_BPF");
}
