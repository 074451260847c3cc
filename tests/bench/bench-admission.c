/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Admission checks per second on a 10,000-group tree: the incremental
 * model against the whole-tree walk the kernel performs, measured side by
 * side in one run on the same requests. Prints rates and their ratio.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../random.h"
#include "bandwidth.h"
#include "model.h"

#define GROUPS 10000

static double now(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return ts.tv_sec + ts.tv_nsec / 1e9;
}

typedef HcbsCheck (*CheckFn)(const HcbsModel *, const HcbsNode *, uint64_t, int64_t);

/* Runs checks until at least min_seconds passed; returns checks per second. */
static double rate(CheckFn fn, const HcbsModel *m, HcbsNode **nodes, unsigned n, double min_seconds,
                   unsigned *sink) {
        Rng r = { 42 };
        unsigned long count = 0;
        double start = now(), t;
        do {
                for (unsigned i = 0; i < 1000; i++) {
                        HcbsNode *node = nodes[rng_below(&r, n)];
                        *sink += fn(m, node, 10000, (int64_t) rng_below(&r, 200)).kernel_errno;
                }
                count += 1000;
        } while ((t = now() - start) < min_seconds);
        return count / t;
}

int main(int argc, char **argv) {
        double seconds = argc > 1 ? atof(argv[1]) : 1.0;
        HcbsProfile p;
        HcbsModel *m;
        HcbsNode **nodes = calloc(GROUPS, sizeof(*nodes));
        unsigned n = 0, sink = 0;
        double t0, build, inc, walk;

        hcbs_profile_init(&p, HCBS_IFACE_RFC1);
        if (!nodes || hcbs_model_new(&m, &p, true) < 0)
                return 1;
        hcbs_model_set(m, hcbs_model_root(m), 1000000, 900000);

        /* 100 top-level groups of 99 leaves each: every group a little bandwidth */
        t0 = now();
        for (unsigned i = 0; i < 100 && n < GROUPS; i++) {
                char name[16];
                HcbsNode *top;
                snprintf(name, sizeof(name), "top%u", i);
                if (hcbs_model_add(m, hcbs_model_root(m), name, &top) < 0)
                        return 1;
                hcbs_model_set(m, top, 10000, 80);
                nodes[n++] = top;
                for (unsigned j = 0; j < 99 && n < GROUPS; j++) {
                        HcbsNode *leaf;
                        snprintf(name, sizeof(name), "leaf%u", j);
                        if (hcbs_model_add(m, top, name, &leaf) < 0)
                                return 1;
                        hcbs_model_set(m, leaf, 10000, j % 2 ? 0 : 1);
                        nodes[n++] = leaf;
                }
        }
        build = now() - t0;

        inc = rate(hcbs_model_check, m, nodes, n, seconds, &sink);
        walk = rate(hcbs_model_walk_check, m, nodes, n, seconds, &sink);

        printf("groups:                 %zu\n", hcbs_model_size(m));
        printf("model build:            %.1f ms\n", build * 1e3);
        printf("incremental checks/s:   %.0f\n", inc);
        printf("whole-tree walk checks/s: %.0f\n", walk);
        printf("ratio incremental/walk: %.0fx\n", inc / walk);
        printf("(checksum %u)\n", sink);
        hcbs_model_free(m);
        free(nodes);
        return 0;
}
