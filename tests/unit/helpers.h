/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <criterion/criterion.h>
#include <errno.h>

#include "model.h"

/* Adds parent/name and forces its values, bypassing the checks: a fixture, not an operation. */
static inline HcbsNode *fixture_add(HcbsModel *m, const char *parent, const char *name, uint64_t period_us,
                                    int64_t runtime_us) {
        HcbsNode *p = hcbs_model_find(m, parent), *n = NULL;
        cr_assert_not_null(p, "no fixture parent '%s'", parent);
        cr_assert_eq(hcbs_model_add(m, p, name, &n), 0);
        hcbs_model_set(m, n, period_us, runtime_us);
        return n;
}

static inline HcbsModel *fixture_model(HcbsInterface iface, bool kernel_root) {
        HcbsProfile p;
        HcbsModel *m = NULL;
        hcbs_profile_init(&p, iface);
        cr_assert_eq(hcbs_model_new(&m, &p, kernel_root), 0);
        return m;
}

/* Asserts the incremental verdict, and that the whole-tree walk agrees with it. */
#define assert_check(m, n, period, runtime, err, why)                                                      \
        do {                                                                                               \
                HcbsCheck _c = hcbs_model_check((m), (n), (period), (runtime));                            \
                HcbsCheck _w = hcbs_model_walk_check((m), (n), (period), (runtime));                       \
                cr_assert_eq(_c.kernel_errno, (err), "errno %d, expected %d", _c.kernel_errno, (err));    \
                cr_assert_eq(_c.reason, (why), "reason %d, expected %d", _c.reason, (why));               \
                cr_assert_eq(_w.kernel_errno, _c.kernel_errno, "walk says %d", _w.kernel_errno);           \
        } while (0)
