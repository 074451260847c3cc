/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The generator's readers (generator/unit-file.c, hcbs-unit.c,
 * generator.c). The input is
 *
 *   UNIT NAME \n UNIT FILE [\0 DROP-IN]
 *
 * The name goes through gen_unit_dropin_names() (each name once, the unit's
 * own first), the file and drop-in through gen_settings_parse_file() and
 * gen_settings_reservation(), and then the whole generator runs on a search
 * path holding them: the unit file as NAME, the drop-in in the most generic
 * NAME.d/ directory of the unit (its last dash prefix, or its template).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz-util.h"
#include "gen-log.h"
#include "generator.h"
#include "gen-settings.h"
#include "gen-unit-file.h"

static GenLog gen_log_null;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv) {
        gen_log_open(&gen_log_null, "/dev/null");
        return 0;
}

static void check_dropin_names(const char *name, char ***ret) {
        int kind = gen_unit_name_kind(name), r;
        char **l = NULL;
        size_t n;

        *ret = NULL;
        if (kind < 0)
                return;
        r = gen_unit_dropin_names(name, &l);
        if (r == -ENOMEM)
                abort();
        fuzz_check(r == 0, "gen_unit_dropin_names(%s) returned %d", name, r);
        n = strv_length(l);
        fuzz_check(n >= 1 && strcmp(l[0], name) == 0, "'%s' does not come first", name);
        /* systemd reads each NAME.d/ once: per dash prefix an instance, a template and a plain name */
        size_t dashes = 0;
        for (const char *c = name; *c; c++)
                dashes += *c == '-';
        fuzz_check(n <= 3 * (dashes + 1), "%zu drop-in names for '%s' (%zu dashes)", n, name, dashes);
        for (size_t i = 0; i < n; i++) {
                fuzz_check(gen_unit_name_kind(l[i]) >= 0, "'%s' gives the invalid name '%s'", name, l[i]);
                for (size_t j = 0; j < i; j++)
                        fuzz_check(strcmp(l[i], l[j]) != 0, "'%s' gives '%s' twice", name, l[i]);
        }
        if (kind == GEN_UNIT_NAME_INSTANCE) {
                char *t = NULL;
                fuzz_check(gen_unit_name_template(name, &t) == 0 && gen_unit_name_kind(t) == GEN_UNIT_NAME_TEMPLATE,
                           "template of '%s'", name);
                free(t);
        }
        *ret = l;
}

static void check_settings(const char *name, const char *path) {
        GenSettings s;
        GenReservation res;
        char *text = NULL;
        int r;

        gen_settings_init(&s);
        r = gen_settings_parse_file(&s, path, &gen_log_null);
        fuzz_check(r == 0 || r == -ENOBUFS, "gen_settings_parse_file returned %d", r);
        r = gen_settings_reservation(&s, name, &gen_log_null, &res);
        fuzz_check(r == 0 || r == 1 || r == -EINVAL, "gen_settings_reservation returned %d", r);
        if (r == 1) {
                fuzz_check(res.runtime_us > 0 && res.runtime_us <= res.period_us, "reservation %llu/%llu",
                           (unsigned long long) res.runtime_us, (unsigned long long) res.period_us);
                fuzz_check(gen_dropin_text(&res, path, "/usr/bin/hcbsctl", &text) == 0 && text, "drop-in text");
                free(text);
        }
        gen_settings_done(&s);
}

static void run_generator(const char *name, char *const *dropin_names, const uint8_t *dropin, size_t dropin_size,
                          bool has_dropin) {
        char unit_path[512], dest[512], sub[600];
        GenUnitPaths paths = {};
        int r;

        fuzz_mkdir("units");
        fuzz_mkdir("out");
        if (has_dropin) {
                const char *generic = dropin_names[strv_length(dropin_names) - 1];

                snprintf(sub, sizeof(sub), "units/%s.d", generic);
                fuzz_mkdir(sub);
                snprintf(sub, sizeof(sub), "units/%s.d/50-fuzz.conf", generic);
                fuzz_write_file(sub, dropin, dropin_size);
        }
        snprintf(unit_path, sizeof(unit_path), "%s", fuzz_path("units"));
        snprintf(dest, sizeof(dest), "%s", fuzz_path("out"));
        snprintf(sub, sizeof(sub), "%s/units/%s", fuzz_dir(), name);
        if (rename(fuzz_path("unit"), sub) < 0)
                abort();
        r = gen_unit_paths_init(&paths, unit_path, NULL, NULL);
        fuzz_check(r == 0, "gen_unit_paths_init: %d", r);
        r = gen_run(&paths, dest, "/usr/bin/hcbsctl", &gen_log_null);
        fuzz_check(r == 0, "gen_run returned %d", r);
        gen_unit_paths_done(&paths);
        fuzz_rm_rf("units");
        fuzz_rm_rf("out");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        const uint8_t *eol = memchr(data, '\n', size), *nul;
        char **names = NULL, *name;
        size_t rest;

        if (size > 64 * 1024 || !eol)
                return 0;
        name = fuzz_strndup(data, (size_t) (eol - data));
        rest = size - (size_t) (eol + 1 - data);
        nul = memchr(eol + 1, '\0', rest);

        check_dropin_names(name, &names);
        fuzz_write_file("unit", eol + 1, nul ? (size_t) (nul - eol - 1) : rest);
        check_settings(names ? name : "fuzz.service", fuzz_path("unit"));
        if (names)
                run_generator(name, names, nul ? nul + 1 : NULL, nul ? (size_t) (rest - (nul - eol)) : 0, nul);
        else
                unlink(fuzz_path("unit"));
        strv_free(names);
        free(name);
        return 0;
}
