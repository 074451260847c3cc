/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The designer's time (hcbs_size(), with the per-task response bounds, as
 * SizeReservation calls it) for 10, 100 and 1,000 tasks on 1, 4 and 16
 * CPUs, the default period range (D_min/10 .. D_min, within 100us..4s).
 * Task sets: implicit deadlines, periods from 10ms to 1s, utilisation
 * 40% per CPU split at random. Prints, per cell, the median and the maximum
 * of the CPU time the designer took (CLOCK_THREAD_CPUTIME_ID: what it costs,
 * whatever else the machine runs) and the median wall time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../random.h"
#include "bandwidth.h"
#include "sizing.h"

static double now(clockid_t id) {
        struct timespec ts;
        clock_gettime(id, &ts);
        return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b) {
        double x = *(const double *) a, y = *(const double *) b;
        return x < y ? -1 : (x > y);
}

static void task_set(Rng *r, HcbsTask *t, size_t n, unsigned cpus) {
        static const uint64_t periods_ms[] = { 10, 20, 25, 40, 50, 100, 200, 250, 500, 1000 };
        double w[1024], sum = 0, total = 0.4 * cpus;

        for (size_t i = 0; i < n; i++)
                sum += w[i] = 1 + (double) rng_below(r, 1000);
        for (size_t i = 0; i < n; i++) {
                double u = total * w[i] / sum;
                if (u > 0.3)
                        u = 0.3;
                t[i].period_us = periods_ms[rng_below(r, sizeof(periods_ms) / sizeof(periods_ms[0]))] * 1000;
                t[i].wcet_us = (uint64_t) (u * t[i].period_us);
                if (t[i].wcet_us == 0)
                        t[i].wcet_us = 1;
                t[i].deadline_us = 0;
        }
}

int main(int argc, char **argv) {
        static const size_t sizes[] = { 10, 100, 1000 };
        static const unsigned cpus[] = { 1, 4, 16 };
        unsigned runs = argc > 1 ? (unsigned) atoi(argv[1]) : 7;
        static HcbsTask t[1024];
        static HcbsTaskBound b[1024];
        Rng r = { 12 };

        if (runs < 1 || runs > 101)
                runs = 7;
        printf("designer time (%u task sets each), default period range:\n", runs);
        printf("%8s %6s %14s %12s %14s %s\n", "tasks", "cpus", "cpu median", "cpu max", "wall median",
               "  (designed / refused)");
        for (size_t a = 0; a < 3; a++)
                for (size_t c = 0; c < 3; c++) {
                        double times[101], walls[101];
                        unsigned ok = 0, refused = 0;
                        for (unsigned run = 0; run < runs; run++) {
                                HcbsSizingRequest req = {
                                        .tasks = t,
                                        .n_tasks = sizes[a],
                                        .cpus = cpus[c],
                                        .limit_min_period_us = 100,
                                        .limit_max_period_us = 4000000,
                                        .limit_bw = hcbs_bw(1000000, 950000),
                                };
                                HcbsSizing s;
                                HcbsVerdict v;
                                double t0, w0;

                                task_set(&r, t, sizes[a], cpus[c]);
                                t0 = now(CLOCK_THREAD_CPUTIME_ID);
                                w0 = now(CLOCK_MONOTONIC);
                                if (hcbs_size(&req, &s, b, &v) < 0)
                                        return 1;
                                times[run] = now(CLOCK_THREAD_CPUTIME_ID) - t0;
                                walls[run] = now(CLOCK_MONOTONIC) - w0;
                                if (v.error == HCBS_OK)
                                        ok++;
                                else
                                        refused++;
                        }
                        qsort(times, runs, sizeof(times[0]), cmp_double);
                        qsort(walls, runs, sizeof(walls[0]), cmp_double);
                        printf("%8zu %6u %11.3f ms %9.3f ms %11.3f ms   (%u / %u)\n", sizes[a], cpus[c],
                               times[runs / 2] * 1e3, times[runs - 1] * 1e3, walls[runs / 2] * 1e3, ok, refused);
                }
        printf("target: 100 tasks on 4 CPUs <= 10 ms (SizeReservation runs beside hcbsd's event loop, on a thread)\n");
        return 0;
}
