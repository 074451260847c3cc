/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The state file STATEDIR/groups (daemon/persist.c): the input is the file.
 * What loads must be valid groups, and must survive persist_save() and a
 * second persist_load() unchanged.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bandwidth.h"
#include "fuzz-util.h"
#include "name.h"
#include "persist.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char err[512] = "", dir[512], saved[512];
        PersistGroup *g = NULL, *again = NULL;
        size_t n = 0, n_again = 0;
        int r;

        if (size > 64 * 1024)
                return 0;
        fuzz_mkdir("state");
        fuzz_write_file("state/" PERSIST_FILE, data, size);
        snprintf(dir, sizeof(dir), "%s", fuzz_path("state"));
        snprintf(saved, sizeof(saved), "%s", fuzz_path("saved"));

        r = persist_load(dir, &g, &n, err, sizeof(err));
        fuzz_check(r == 0 || r == -EBADMSG, "persist_load returned %d (%s)", r, err);
        fuzz_check(r == 0 || err[0], "a refusal without a reason");
        if (r < 0)
                return 0;
        for (size_t i = 0; i < n; i++) {
                fuzz_check(hcbs_name_is_valid(g[i].name), "group '%s'", g[i].name);
                fuzz_check((g[i].runtime_us <= HCBS_MAX_FILE_USEC || g[i].runtime_us == PERSIST_RUNTIME_MAX) &&
                                   g[i].period_us <= HCBS_MAX_FILE_USEC,
                           "group '%s' out of range", g[i].name);
        }

        r = persist_save(saved, g, n);
        fuzz_check(r == 0, "persist_save of what persist_load read: %d", r);
        r = persist_load(saved, &again, &n_again, err, sizeof(err));
        fuzz_check(r == 0 && n_again == n, "reload: %d (%s), %zu groups for %zu", r, err, n_again, n);
        for (size_t i = 0; i < n; i++)
                fuzz_check(strcmp(g[i].name, again[i].name) == 0 && g[i].runtime_us == again[i].runtime_us &&
                                   g[i].period_us == again[i].period_us,
                           "group %zu changed on the way through the file", i);
        persist_groups_free(g, n);
        persist_groups_free(again, n_again);
        return 0;
}
