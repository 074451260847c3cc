/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The annotation contract (lib/container.c) and hcbs-oci-hook's reading of the OCI state (oci/oci-state.c). */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "container.h"
#include "oci-state.h"

static void bad_with_tasks(const char *runtime, const char *period, const char *policy, const char *tasks,
                           const char *needle) {
        HcbsContainerAnnotations a = { runtime, period, policy, tasks };
        HcbsContainerRequest q;
        char err[512] = "";

        cr_assert_eq(hcbs_container_request_parse(&a, &q, err, sizeof(err)), -EINVAL, "%s/%s/%s/%s accepted", runtime,
                     period, policy, tasks);
        cr_assert_not_null(strstr(err, needle), "message '%s' lacks '%s'", err, needle);
        cr_assert_null(strchr(err, '\n'), "message '%s' is more than one line", err);
}

static void bad(const char *runtime, const char *period, const char *policy, const char *needle) {
        bad_with_tasks(runtime, period, policy, NULL, needle);
}

static HcbsContainerRequest good_with_tasks(const char *runtime, const char *period, const char *policy,
                                            const char *tasks) {
        HcbsContainerAnnotations a = { runtime, period, policy, tasks };
        HcbsContainerRequest q;
        char err[512] = "";

        cr_assert_eq(hcbs_container_request_parse(&a, &q, err, sizeof(err)), 1, "%s", err);
        return q;
}

static HcbsContainerRequest good(const char *runtime, const char *period, const char *policy) {
        return good_with_tasks(runtime, period, policy, NULL);
}

Test(annotations, valid) {
        HcbsContainerRequest q = good("2ms", "10ms", "fifo:50");

        cr_assert_eq(q.runtime_us, 2000);
        cr_assert_eq(q.period_us, 10000);
        cr_assert_str_eq(q.policy, "fifo");
        cr_assert_eq(q.priority, 50);
        q = good("500us", "1s", "rr:1");
        cr_assert_eq(q.runtime_us, 500);
        cr_assert_eq(q.period_us, 1000000);
        cr_assert_str_eq(q.policy, "rr");
        cr_assert_eq(q.priority, 1);
        q = good("10ms", "10ms", "rr:99");
        cr_assert_eq(q.priority, 99);
        q = good("1000", "2000", NULL); /* bare microseconds; no policy: keep */
        cr_assert_str_eq(q.policy, "keep");
        cr_assert_eq(q.priority, 0);
        cr_assert_str_eq(good("1ms", "2ms", "other").policy, "other");
}

Test(annotations, absent) {
        HcbsContainerRequest q;
        char err[64] = "";

        cr_assert_eq(hcbs_container_request_parse(&(HcbsContainerAnnotations) {}, &q, err, sizeof(err)), 0);
        cr_assert_eq(hcbs_container_request_parse(&(HcbsContainerAnnotations) { .policy = "fifo:50" }, &q, err,
                                                  sizeof(err)),
                     0);
}

Test(annotations, tasks) {
        HcbsContainerRequest q = good_with_tasks(NULL, NULL, "fifo:20", "2ms:20ms, 3ms:30ms:25ms");

        cr_assert_eq(q.n_tasks, 2);
        cr_assert_eq(q.tasks[1].deadline_us, 25000);
        cr_assert_eq(q.runtime_us, 0, "hcbsd sizes them");
        cr_assert_str_eq(q.policy, "fifo");
        hcbs_container_request_done(&q);
        bad_with_tasks("2ms", NULL, NULL, "2ms:20ms", "org.hcbsd1.tasks excludes org.hcbsd1.runtime and org.hcbsd1.period");
        bad_with_tasks(NULL, NULL, NULL, " , ", "org.hcbsd1.tasks is empty");
        bad_with_tasks(NULL, NULL, NULL, "2ms:20ms 3ms", "org.hcbsd1.tasks=2ms:20ms 3ms: task '3ms': expected WCET:PERIOD");
        bad_with_tasks(NULL, NULL, "fifo:0", "2ms:20ms", "from 1 to 99");
}

Test(annotations, invalid) {
        bad("2ms", NULL, NULL, "org.hcbsd1.runtime is given without org.hcbsd1.period");
        bad(NULL, "10ms", NULL, "org.hcbsd1.period is given without org.hcbsd1.runtime");
        bad("2xs", "10ms", NULL, "org.hcbsd1.runtime=2xs: ");
        bad("abc", "10ms", NULL, "org.hcbsd1.runtime=abc");
        bad("2ms", "ten", NULL, "org.hcbsd1.period=ten");
        bad("1.5", "10ms", NULL, "whole number");
        bad("-1ms", "10ms", NULL, "negative");
        bad("0", "10ms", NULL, "the runtime must not be 0");
        bad("0", "0", NULL, "the period must not be 0");
        bad("20ms", "10ms", NULL, "org.hcbsd1.runtime=20ms is longer than org.hcbsd1.period=10ms");
        bad("2ms", "10ms", "deadline", "expected fifo:PRIO, rr:PRIO, other or keep");
        bad("2ms", "10ms", "fifo", "expected fifo:PRIO");
        bad("2ms", "10ms", "FIFO:50", "expected fifo:PRIO");
        bad("2ms", "10ms", "fifoo:5", "expected fifo:PRIO");
        bad("2ms", "10ms", "fifo:0", "from 1 to 99");
        bad("2ms", "10ms", "fifo:100", "from 1 to 99");
        bad("2ms", "10ms", "rr:-1", "from 1 to 99");
        bad("2ms", "10ms", "rr:+5", "from 1 to 99");
        bad("2ms", "10ms", "rr: 5", "from 1 to 99");
        bad("2ms", "10ms", "rr:5x", "from 1 to 99");
        bad("2ms", "10ms", "rr:", "from 1 to 99");
        bad("2ms", "10ms", "fifo:99999999999999999999", "from 1 to 99");
}

static void split_ok(const char *cgroup, const char *want, size_t scope_len) {
        char err[256] = "", *p = NULL;
        size_t len = 0;

        cr_assert_eq(hcbs_container_cgroup_split(cgroup, "hcbs.slice", &p, &len, err, sizeof(err)), 0, "%s: %s",
                     cgroup, err);
        cr_assert_str_eq(p, want);
        cr_assert_eq(len, scope_len, "%s: scope length %zu", cgroup, len);
        free(p);
}

static void split_bad(const char *cgroup, const char *needle) {
        char err[256] = "", *p = NULL;
        size_t len = 0;

        cr_assert_eq(hcbs_container_cgroup_split(cgroup, "hcbs.slice", &p, &len, err, sizeof(err)), -EINVAL,
                     "%s accepted", cgroup);
        cr_assert_not_null(strstr(err, needle), "%s: message '%s' lacks '%s'", cgroup, err, needle);
}

Test(cgroup, split) {
        split_ok("/hcbs.slice/libpod-0123abcd.scope/container", "hcbs.slice/libpod-0123abcd.scope/container",
                 strlen("hcbs.slice/libpod-0123abcd.scope"));
        split_ok("hcbs.slice/crio-77.scope", "hcbs.slice/crio-77.scope", strlen("hcbs.slice/crio-77.scope"));
        split_ok("/hcbs.slice/a.scope/b/c/d/e", "hcbs.slice/a.scope/b/c/d/e", strlen("hcbs.slice/a.scope"));
        split_bad("/system.slice/libpod-1.scope/container", "not in the pool hcbs.slice");
        split_bad("/hcbs.slicex/libpod-1.scope", "not in the pool");
        split_bad("/hcbs.slice", "not in the pool");
        split_bad("/hcbs.slice/motor.service", "not a scope's cgroup");
        split_bad("/hcbs.slice/.scope", "not a scope's cgroup");
        split_bad("/hcbs.slice/_x.scope", "not a scope's cgroup");
        split_bad("/hcbs.slice/a\\x2db.scope", "not a scope's cgroup");
        split_bad("/hcbs.slice/a b.scope", "not a scope's cgroup");
        split_bad("/hcbs.slice/../x.scope", "not a cgroup path");
        split_bad("/hcbs.slice/a.scope/../../etc", "not a cgroup path");
        split_bad("/hcbs.slice//a.scope", "not a cgroup path");
        split_bad("", "not a cgroup path");
        split_bad("/hcbs.slice/a.scope/1/2/3/4/5", "deeper than 4 levels");
}

static OciState state_ok(const char *json) {
        char err[512] = "";
        OciState s;

        cr_assert_eq(oci_state_parse(json, strlen(json), &s, err, sizeof(err)), 0, "%s: %s", json, err);
        return s;
}

static void state_bad(const char *json, const char *needle) {
        char err[512] = "";
        OciState s;

        cr_assert_eq(oci_state_parse(json, strlen(json), &s, err, sizeof(err)), -EINVAL, "%s accepted", json);
        cr_assert_not_null(strstr(err, needle), "%s: message '%s' lacks '%s'", json, err, needle);
}

Test(oci_state, parse) {
        OciState s = state_ok("{\"ociVersion\": \"1.0.2\", \"id\": \"0123456789abcdef0123\", \"status\": "
                              "\"creating\", \"pid\": 4242, \"bundle\": \"/b\", \"annotations\": "
                              "{\"org.hcbsd1.runtime\": \"2ms\", \"org.hcbsd1.period\": \"10ms\", "
                              "\"org.hcbsd1.policy\": \"fifo:50\", \"io.podman.x\": \"y\"}}");

        cr_assert_str_eq(s.id, "0123456789abcdef0123");
        cr_assert_eq(s.pid, 4242);
        cr_assert_eq(s.asked, 1);
        cr_assert_eq(s.request.runtime_us, 2000);
        cr_assert_str_eq(s.request.policy, "fifo");
        cr_assert_eq(s.request.priority, 50);

        s = state_ok("{\"id\": \"x\", \"status\": \"stopped\"}"); /* poststop: no pid, no annotations */
        cr_assert_eq(s.pid, 0);
        cr_assert_eq(s.asked, 0);
        s = state_ok("{\"id\": \"x\", \"pid\": 1, \"annotations\": {\"other\": \"1\"}}");
        cr_assert_eq(s.asked, 0);
}

Test(oci_state, invalid) {
        state_bad("", "not a JSON object");
        state_bad("[1]", "not a JSON object");
        state_bad("{\"id\": \"x\"", "not a JSON object");
        state_bad("{\"pid\": 1}", "no valid container id");
        state_bad("{\"id\": \"../etc\"}", "no valid container id");
        state_bad("{\"id\": \"a/b\"}", "no valid container id");
        state_bad("{\"id\": \".x\"}", "no valid container id");
        state_bad("{\"id\": 7}", "no valid container id");
        state_bad("{\"id\": \"x\", \"pid\": -1}", "pid is not a process id");
        state_bad("{\"id\": \"x\", \"pid\": \"1\"}", "pid is not a process id");
        state_bad("{\"id\": \"x\", \"pid\": 99999999999}", "pid is not a process id");
        state_bad("{\"id\": \"x\", \"annotations\": []}", "annotations are not an object");
        state_bad("{\"id\": \"x\", \"annotations\": {\"org.hcbsd1.runtime\": 2}}",
                  "annotation org.hcbsd1.runtime is not a string");
        state_bad("{\"id\": \"abc\", \"annotations\": {\"org.hcbsd1.runtime\": \"9ms\", \"org.hcbsd1.period\": "
                  "\"1ms\"}}",
                  "container abc: org.hcbsd1.runtime=9ms is longer than org.hcbsd1.period=1ms");
}

Test(oci_state, proc_cgroup) {
        char *p = NULL;

        cr_assert_eq(oci_cgroup_from_proc("0::/hcbs.slice/libpod-1.scope/container\n", &p), 0);
        cr_assert_str_eq(p, "hcbs.slice/libpod-1.scope/container");
        free(p);
        cr_assert_eq(oci_cgroup_from_proc("12:cpu,cpuacct:/x\n1:name=systemd:/y\n0::/z", &p), 0);
        cr_assert_str_eq(p, "z");
        free(p);
        cr_assert_eq(oci_cgroup_from_proc("12:cpu:/x\n", &p), -ENOENT);
        cr_assert_eq(oci_cgroup_from_proc("", &p), -ENOENT);
}

static void cgroups_path_ok(const char *cgroups_path, const char *want) {
        char err[256] = "", *p = NULL;

        cr_assert_eq(hcbs_container_cgroups_path(cgroups_path, &p, err, sizeof(err)), 0, "%s: %s", cgroups_path, err);
        cr_assert_str_eq(p, want);
        free(p);
}

static void cgroups_path_bad(const char *cgroups_path) {
        char err[256] = "", *p = NULL;

        cr_assert_eq(hcbs_container_cgroups_path(cgroups_path, &p, err, sizeof(err)), -EINVAL, "%s accepted",
                     cgroups_path);
        cr_assert_not_null(strstr(err, "linux.cgroupsPath"), "%s: message '%s'", cgroups_path, err);
}

/* The scope an engine will make, as systemd names it from the config's cgroupsPath. */
Test(cgroup, from_cgroups_path) {
        cgroups_path_ok("hcbs.slice:libpod:0123abcd", "hcbs.slice/libpod-0123abcd.scope");
        cgroups_path_ok("hcbs-rt.slice:crio:77", "hcbs.slice/hcbs-rt.slice/crio-77.scope");
        cgroups_path_ok("a-b-c.slice:libpod:1", "a.slice/a-b.slice/a-b-c.slice/libpod-1.scope");
        cgroups_path_ok(":libpod:1", "libpod-1.scope");
        cgroups_path_ok("-.slice:libpod:1", "libpod-1.scope");
        cgroups_path_ok("/hcbs.slice/libpod-1", "hcbs.slice/libpod-1");
        cgroups_path_bad("hcbs.slice:libpod");
        cgroups_path_bad("hcbs.slice::1");
        cgroups_path_bad("hcbs.slice:libpod:");
        cgroups_path_bad("hcbs.slice:a:b:c");
        cgroups_path_bad("hcbs:libpod:1");
        cgroups_path_bad("a--b.slice:libpod:1");
        cgroups_path_bad("-a.slice:libpod:1");
        cgroups_path_bad("a/b.slice:libpod:1");
        cgroups_path_bad("hcbs.slice:libpod:../x");
        cgroups_path_bad("/hcbs.slice/../x");
        cgroups_path_bad("");
}

Test(oci_config, parse) {
        const char *json = "{\"ociVersion\": \"1.0.2\", \"process\": {\"args\": [\"true\"]}, \"linux\": "
                           "{\"cgroupsPath\": \"hcbs.slice:libpod:0123456789abcdef\"}, \"annotations\": "
                           "{\"org.hcbsd1.tasks\": \"2ms:20ms 3ms:30ms\", \"org.hcbsd1.policy\": \"rr:5\"}}";
        char err[512] = "";
        OciConfig c;

        cr_assert_eq(oci_config_parse(json, strlen(json), &c, err, sizeof(err)), 0, "%s", err);
        cr_assert_str_eq(c.id, "0123456789abcdef");
        cr_assert_eq(c.asked, 1);
        cr_assert_str_eq(c.cgroup, "hcbs.slice/libpod-0123456789abcdef.scope");
        cr_assert_eq(c.request.n_tasks, 2);
        cr_assert_str_eq(c.request.policy, "rr");
        oci_config_done(&c);

        /* a container that did not ask needs no cgroupsPath */
        json = "{\"process\": {}}";
        cr_assert_eq(oci_config_parse(json, strlen(json), &c, err, sizeof(err)), 0, "%s", err);
        cr_assert_eq(c.asked, 0);
        oci_config_done(&c);

        json = "{\"annotations\": {\"org.hcbsd1.runtime\": \"2ms\", \"org.hcbsd1.period\": \"10ms\"}}";
        cr_assert_eq(oci_config_parse(json, strlen(json), &c, err, sizeof(err)), -EINVAL);
        cr_assert_not_null(strstr(err, "the OCI config has no linux.cgroupsPath"), "%s", err);
        json = "{\"linux\": {\"cgroupsPath\": \"x.slice:libpod:1\"}, \"annotations\": {\"org.hcbsd1.tasks\": \"2ms\"}}";
        cr_assert_eq(oci_config_parse(json, strlen(json), &c, err, sizeof(err)), -EINVAL);
        cr_assert_not_null(strstr(err, "container 1: org.hcbsd1.tasks=2ms: task '2ms'"), "%s", err);
        json = "[]";
        cr_assert_eq(oci_config_parse(json, strlen(json), &c, err, sizeof(err)), -EINVAL);
        cr_assert_not_null(strstr(err, "the OCI config on stdin is not a JSON object"), "%s", err);
}
