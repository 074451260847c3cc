/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The client side of tests/bench/bench-sizing-load.sh: hcbsd's latency for
 * root while other users flood it with SizeReservation.
 *
 *   bench-sizing-load check N          N CheckBandwidth calls from one
 *                                      connection: "n=… p50_us=… p99_us=… max_us=…"
 *   bench-sizing-load flood K SECONDS  K processes, each its own connection,
 *                                      looping SizeReservation on the input of
 *                                      issue 23 (203 tasks, period 100us, 1 CPU)
 *                                      for SECONDS: "calls=… answered=…
 *                                      limits=… errors=… longest_ms=…"
 *
 * The bus is $DBUS_SYSTEM_BUS_ADDRESS; run flood under the uid to test.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <systemd/sd-bus.h>
#include <time.h>
#include <unistd.h>

#include "../bus-client.h"
#include "bus-names.h"

static double now_us(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b) {
        double x = *(const double *) a, y = *(const double *) b;
        return (x > y) - (x < y);
}

static int bus_open(sd_bus **ret) {
        int r = test_bus_open(ret);

        if (r < 0)
                fprintf(stderr, "bench-sizing-load: cannot connect to the bus: %s\n", strerror(-r));
        return r;
}

static int check(unsigned n) {
        double *t = calloc(n ? n : 1, sizeof(double));
        sd_bus *bus = NULL;
        int r = 0;

        if (!t || bus_open(&bus) < 0)
                return 1;
        for (unsigned i = 0; i < n && r >= 0; i++) {
                sd_bus_error error = SD_BUS_ERROR_NULL;
                double start = now_us();
                r = sd_bus_call_method(bus, HCBS_BUS_NAME, HCBS_MANAGER_PATH, HCBS_MANAGER_IFACE, "CheckBandwidth",
                                       &error, NULL, "stt", "bench-check", (uint64_t) 1000, (uint64_t) 100000);
                t[i] = now_us() - start;
                if (r < 0)
                        fprintf(stderr, "bench-sizing-load: CheckBandwidth: %s\n",
                                error.message ? error.message : strerror(-r));
                sd_bus_error_free(&error);
        }
        sd_bus_flush_close_unref(bus);
        if (r < 0)
                return 1;
        qsort(t, n, sizeof(double), cmp_double);
        printf("n=%u p50_us=%.1f p99_us=%.1f max_us=%.1f\n", n, t[n / 2], t[(size_t) (n * 0.99)], t[n - 1]);
        free(t);
        return 0;
}

/* Issue 23's input: 4 tasks using half a CPU, 199 one-microsecond tasks every hour. */
static int size_call(sd_bus *bus, sd_bus_error *error) {
        static const uint64_t head[][2] = { { 2440, 5000 }, { 4740, 400000 }, { 5940, 40000000 }, { 4661, 3600000000 } };
        sd_bus_message *m = NULL, *reply = NULL;
        int r;

        r = sd_bus_message_new_method_call(bus, &m, HCBS_BUS_NAME, HCBS_MANAGER_PATH, HCBS_MANAGER_IFACE,
                                           "SizeReservation");
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'a', "(ttt)");
        for (unsigned i = 0; i < 203 && r >= 0; i++)
                r = sd_bus_message_append(m, "(ttt)", i < 4 ? head[i][0] : 1, i < 4 ? head[i][1] : 3600000000,
                                          (uint64_t) 0);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r >= 0)
                r = sd_bus_message_append(m, "a{sv}", 2, "period", "t", (uint64_t) 100, "cpus", "u", (uint32_t) 1);
        if (r >= 0)
                r = sd_bus_call(bus, m, 60 * 1000000, error, &reply);
        sd_bus_message_unref(m);
        sd_bus_message_unref(reply);
        return r;
}

typedef struct FloodResult {
        unsigned long calls, answered, limits, errors;
        double longest_us;
} FloodResult;

static int flood_client(double deadline, int fd) {
        FloodResult res = {};
        sd_bus *bus = NULL;

        if (bus_open(&bus) < 0)
                return 1;
        while (now_us() < deadline) {
                sd_bus_error error = SD_BUS_ERROR_NULL;
                double start = now_us(), took;
                int r = size_call(bus, &error);

                took = now_us() - start;
                res.calls++;
                res.longest_us = took > res.longest_us ? took : res.longest_us;
                if (r >= 0)
                        res.answered++;
                else if (sd_bus_error_has_name(&error, "org.hcbsd1.Error.LimitsExceeded"))
                        res.limits++;
                else {
                        if (res.errors++ == 0)
                                fprintf(stderr, "bench-sizing-load: SizeReservation: %s\n",
                                        error.message ? error.message : strerror(-r));
                }
                sd_bus_error_free(&error);
        }
        sd_bus_flush_close_unref(bus);
        return write(fd, &res, sizeof(res)) == (ssize_t) sizeof(res) ? 0 : 1;
}

static int flood(unsigned k, double seconds) {
        FloodResult all = {}, one;
        double deadline = now_us() + seconds * 1e6;
        int p[2], failed = 0;

        if (pipe(p) < 0)
                return 1;
        for (unsigned i = 0; i < k; i++) {
                pid_t pid = fork();
                if (pid < 0)
                        return 1;
                if (pid == 0)
                        _exit(flood_client(deadline, p[1]));
        }
        close(p[1]);
        for (unsigned i = 0; i < k; i++) {
                int status;
                if (wait(&status) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
                        failed++;
        }
        while (read(p[0], &one, sizeof(one)) == (ssize_t) sizeof(one)) {
                all.calls += one.calls;
                all.answered += one.answered;
                all.limits += one.limits;
                all.errors += one.errors;
                all.longest_us = one.longest_us > all.longest_us ? one.longest_us : all.longest_us;
        }
        if (failed) {
                fprintf(stderr, "bench-sizing-load flood: %d of %u clients failed\n", failed, k);
                return 1;
        }
        printf("calls=%lu answered=%lu limits=%lu errors=%lu longest_ms=%.1f\n", all.calls, all.answered, all.limits,
               all.errors, all.longest_us / 1000);
        return 0;
}

int main(int argc, char **argv) {
        if (argc == 3 && strcmp(argv[1], "check") == 0)
                return check((unsigned) atoi(argv[2]));
        if (argc == 4 && strcmp(argv[1], "flood") == 0)
                return flood((unsigned) atoi(argv[2]), atof(argv[3]));
        fprintf(stderr, "usage: bench-sizing-load check N | flood K SECONDS\n");
        return 2;
}
