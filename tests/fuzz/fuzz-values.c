/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Names, durations and percentages (lib/name.c, lib/duration.c,
 * lib/bandwidth.c): the input as one string to every parser, with the
 * properties their headers promise checked on what they accept, and its
 * first 16 bytes as (period, bandwidth) for hcbs_runtime_for_bw().
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bandwidth.h"
#include "duration.h"
#include "fuzz-util.h"
#include "name.h"

static void check_name(const char *s) {
        char err[HCBS_ERRLEN] = "";
        int r = hcbs_name_validate(s, err, sizeof(err));

        fuzz_check(r == 0 || r == -EINVAL, "hcbs_name_validate returned %d", r);
        fuzz_check(r == 0 || err[0], "a refusal without a reason");
        if (r < 0)
                return;
        size_t len = strlen(s), plen = hcbs_name_parent_len(s);
        unsigned depth = hcbs_name_depth(s);
        fuzz_check(len <= HCBS_NAME_MAX, "valid name of %zu characters", len);
        fuzz_check(depth >= 1 && depth <= HCBS_NAME_DEPTH_MAX, "depth %u", depth);
        fuzz_check(s[0] != '/' && s[len - 1] != '/' && !strstr(s, "//"), "'%s' is not relative and clean", s);
        fuzz_check(strcmp(s, "..") != 0 && strncmp(s, "../", 3) != 0 && !strstr(s, "/../") &&
                           !(len >= 3 && strcmp(s + len - 3, "/..") == 0),
                   "'%s' leaves the root", s);
        fuzz_check((plen == 0) == (depth == 1), "parent length %zu at depth %u", plen, depth);
        if (plen > 0) {
                char *parent = strndup(s, plen);
                if (!parent)
                        abort();
                fuzz_check(hcbs_name_is_valid(parent), "the parent '%s' of a valid name is invalid", parent);
                fuzz_check(hcbs_name_depth(parent) == depth - 1, "parent depth");
                free(parent);
        }
        fuzz_check(hcbs_name_last(s) == s + (plen ? plen + 1 : 0), "last segment");
}

static void check_duration(const char *s) {
        char err[HCBS_ERRLEN] = "", buf[HCBS_DURATION_STRLEN];
        uint64_t us = 0, again = 0;
        int r = hcbs_duration_parse(s, &us, err, sizeof(err));

        fuzz_check(r == 0 || r == -EINVAL || r == -ERANGE, "hcbs_duration_parse returned %d", r);
        fuzz_check(r == 0 || err[0], "a refusal without a reason");
        if (r < 0)
                return;
        fuzz_check(us <= HCBS_MAX_FILE_USEC, "'%s' gave %" PRIu64 "us", s, us);
        /* what we print, we read back to the same value */
        hcbs_duration_format(us, buf);
        r = hcbs_duration_parse(buf, &again, err, sizeof(err));
        fuzz_check(r == 0 && again == us, "'%s' = %" PRIu64 "us prints as '%s', which reads back as %d/%" PRIu64, s,
                   us, buf, r, again);
}

static void check_percent(const char *s) {
        char err[HCBS_ERRLEN] = "", buf[HCBS_BW_STRLEN];
        uint64_t bw = 0;
        int r = hcbs_percent_parse(s, &bw, err, sizeof(err));

        fuzz_check(r == 0 || r == -EINVAL || r == -ERANGE, "hcbs_percent_parse returned %d", r);
        fuzz_check(r == 0 || err[0], "a refusal without a reason");
        if (r < 0)
                return;
        fuzz_check(bw <= HCBS_BW_UNIT, "'%s' is above 100%%: %" PRIu64, s, bw);
        hcbs_bw_format(bw, buf);
        fuzz_check(strlen(buf) >= 4 && buf[strlen(buf) - 1] == '%', "'%s' formats as '%s'", s, buf);
}

/* Same contract as the header: the least runtime <= period whose bandwidth reaches bw, or -ERANGE. */
static void check_runtime_for_bw(uint64_t period_us, uint64_t bw) {
        uint64_t runtime = UINT64_MAX;
        int r = hcbs_runtime_for_bw(period_us, bw, &runtime);

        fuzz_check(r == 0 || r == -ERANGE, "hcbs_runtime_for_bw returned %d", r);
        /* beyond this the kernel's shift overflows, and nothing is promised */
        if (period_us > HCBS_MAX_RT_RUNTIME_NS / HCBS_NSEC_PER_USEC)
                return;
        if (r < 0) {
                fuzz_check(period_us == 0 || hcbs_bw(period_us, (int64_t) period_us) < bw,
                           "period %" PRIu64 "us can reach bw %" PRIu64 " but got -ERANGE", period_us, bw);
                return;
        }
        fuzz_check(runtime <= period_us, "runtime %" PRIu64 " above period %" PRIu64, runtime, period_us);
        fuzz_check(hcbs_bw(period_us, (int64_t) runtime) >= bw,
                   "runtime %" PRIu64 "us at period %" PRIu64 "us gives %" PRIu64 " < bw %" PRIu64, runtime, period_us,
                   hcbs_bw(period_us, (int64_t) runtime), bw);
        fuzz_check(runtime == 0 || hcbs_bw(period_us, (int64_t) runtime - 1) < bw,
                   "runtime %" PRIu64 "us is not the least for bw %" PRIu64 " at %" PRIu64 "us", runtime, bw,
                   period_us);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s;

        if (size > 4096)
                return 0;
        s = fuzz_strndup(data, size);
        check_name(s);
        check_duration(s);
        check_percent(s);
        (void) hcbs_service_name_is_valid(s);
        free(s);

        if (size >= 16) {
                uint64_t period_us, bw;
                memcpy(&period_us, data, 8);
                memcpy(&bw, data + 8, 8);
                check_runtime_for_bw(period_us, bw);
                /* and in the ranges that matter: periods up to a few seconds, bandwidth up to 100% */
                check_runtime_for_bw(period_us % (UINT64_C(1) << 23), bw % (HCBS_BW_UNIT + 2));
        }
        return 0;
}
