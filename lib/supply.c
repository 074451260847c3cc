/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "supply.h"

uint64_t hcbs_prm_sbf(uint64_t period, uint64_t budget, uint64_t t) {
        uint64_t blackout = period - budget, tp, k, x;

        if (budget == 0 || t <= blackout)
                return 0;
        tp = t - blackout;
        k = tp / period;
        x = tp - k * period; /* time into the current period, after the first blackout */
        return k * budget + (x > blackout ? x - blackout : 0);
}

uint64_t hcbs_prm_sbf_inverse(uint64_t period, uint64_t budget, uint64_t demand) {
        uint64_t k, rest;

        if (demand == 0)
                return 0;
        /* k whole periods of supply, then the rest (0 < rest <= budget) after a blackout */
        k = (demand - 1) / budget;
        rest = demand - k * budget;
        return 2 * (period - budget) + k * period + rest;
}

uint64_t hcbs_mpr_sbf(uint64_t period, uint64_t budget, unsigned cpus, uint64_t t) {
        uint64_t per_cpu = (budget + cpus - 1) / cpus; /* ⌈Θ/m'⌉ */
        uint64_t lead = period - per_cpu, tp, k, x;
        uint64_t tail; /* m'·(x - Π) + Θ, when positive */

        if (budget == 0 || t < lead)
                return 0;
        tp = t - lead;
        k = tp / period;
        x = tp - k * period;
        tail = (uint64_t) cpus * x + budget;
        tail = tail > (uint64_t) cpus * period ? tail - (uint64_t) cpus * period : 0;
        return k * budget + tail;
}
