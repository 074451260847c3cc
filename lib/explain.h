/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * One-line explanations of refusals, with the numbers and the groups
 * involved: "audio needs 10.0% per CPU; parent media has 4.0% free:
 * 20.0% minus siblings video 16.0%". Groups are named relative to `base`
 * (hcbsd's root); groups above it by their cgroup path.
 */

#include "error.h"
#include "model.h"

/* Fills v for the kernel check c refusing n at (period_us, runtime_us). */
void hcbs_explain(const HcbsModel *m, const HcbsNode *base, const HcbsNode *n, uint64_t period_us,
                  int64_t runtime_us, HcbsCheck c, HcbsVerdict *v);

/* How n is called in messages. Writes into buf and returns it. */
const char *hcbs_display_name(const HcbsNode *base, const HcbsNode *n, char *buf, size_t size);
