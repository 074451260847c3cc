/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The configuration files (lib/conf.c, through inih): the input up to its
 * first NUL byte is hcbsd.conf, the rest (if any) a drop-in
 * conf.d/50-fuzz.conf. Both are loaded as hcbsd loads them; what loads
 * must satisfy what hcbs_conf_load() promises, and a NUL byte anywhere in
 * the drop-in must be refused.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"
#include "fuzz-util.h"
#include "name.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        const uint8_t *nul = memchr(data, '\0', size);
        size_t main_size = nul ? (size_t) (nul - data) : size;
        char err[512] = "", main_path[512], dropin_dir[512];
        HcbsConf c;
        int r;

        if (size > 64 * 1024)
                return 0;
        fuzz_mkdir("conf.d");
        fuzz_write_file("hcbsd.conf", data, main_size);
        if (nul)
                fuzz_write_file("conf.d/50-fuzz.conf", nul + 1, size - main_size - 1);
        snprintf(main_path, sizeof(main_path), "%s", fuzz_path("hcbsd.conf"));
        snprintf(dropin_dir, sizeof(dropin_dir), "%s", fuzz_path("conf.d"));

        /* one file alone, as hcbsd --check-config reads each */
        hcbs_conf_init(&c);
        r = hcbs_conf_parse_file(&c, main_path, err, sizeof(err));
        fuzz_check(r == 0 || r == -EINVAL || r == -ERANGE, "hcbs_conf_parse_file returned %d (%s)", r, err);
        fuzz_check(r == 0 || err[0], "a refusal without a reason");
        hcbs_conf_done(&c);

        /* and everything together */
        err[0] = '\0';
        hcbs_conf_init(&c);
        r = hcbs_conf_load(&c, main_path, dropin_dir, err, sizeof(err));
        fuzz_check(r == 0 || r == -EINVAL || r == -ERANGE, "hcbs_conf_load returned %d (%s)", r, err);
        fuzz_check(r == 0 || err[0], "a refusal without a reason");
        /* a NUL byte is refused wherever it is (the main file ends at the first one) */
        fuzz_check(r < 0 || !nul || !memchr(nul + 1, '\0', size - main_size - 1), "a drop-in with a NUL byte loaded");
        if (r == 0) {
                fuzz_check(c.min_period_us > 0 && c.min_period_us <= c.max_period_us, "MinPeriod/MaxPeriod");
                fuzz_check(c.cgroup_root && c.interface, "strings");
                for (size_t i = 0; i < c.n_groups; i++) {
                        const HcbsGroupConf *g = &c.groups[i];

                        fuzz_check(hcbs_name_is_valid(g->name), "group '%s'", g->name);
                        fuzz_check(g->has_runtime && g->has_period && g->runtime_us <= g->period_us,
                                   "group '%s': %" PRIu64 "/%" PRIu64, g->name, g->runtime_us, g->period_us);
                        fuzz_check(i == 0 || strcmp(c.groups[i - 1].name, g->name) < 0, "groups not sorted");
                        fuzz_check(hcbs_conf_find_group(&c, g->name) == g, "find '%s'", g->name);
                        size_t plen = hcbs_name_parent_len(g->name);
                        if (plen > 0) {
                                char *parent = strndup(g->name, plen);
                                if (!parent)
                                        abort();
                                fuzz_check(hcbs_conf_find_group(&c, parent), "'%s' without its parent", g->name);
                                free(parent);
                        }
                }
                fuzz_check(hcbs_conf_validate(&c, err, sizeof(err)) == 0, "loaded but invalid: %s", err);
        }
        hcbs_conf_done(&c);
        if (nul)
                unlink(fuzz_path("conf.d/50-fuzz.conf"));
        return 0;
}
