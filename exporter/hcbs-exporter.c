/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>

#include "config.h"
#include "exporter.h"
#include "exporter-log.h"

static void help(void) {
        printf("Usage: hcbs-exporter [OPTIONS]\n"
               "\n"
               "Serves hcbsd's reservations and statistics to Prometheus: GET /metrics answers\n"
               "in the text exposition format, read from hcbsd over the bus with read-only\n"
               "calls. Started by systemd on a connection to hcbs-exporter.socket (port 9847);\n"
               "by hand, give it a socket the same way:\n"
               "  systemd-socket-activate -l 127.0.0.1:9847 hcbs-exporter\n"
               "\n"
               "Options:\n"
               "  --bus-address=ADDRESS  read hcbsd on this bus instead of the system bus\n"
               "                         (default: $DBUS_SYSTEM_BUS_ADDRESS or the system bus)\n"
               "  -h, --help             show this help\n"
               "  --version              show the version\n"
               "\n"
               "Signals: SIGTERM/SIGINT exit.\n");
}

enum { ARG_BUS = 0x100, ARG_VERSION };

/* 1 to run, 0 to exit successfully, -EINVAL on a usage error. */
static int parse_argv(int argc, char **argv, const char **bus_address) {
        static const struct option options[] = {
                { "bus-address", required_argument, NULL, ARG_BUS },
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, ARG_VERSION },
                {}
        };
        int c;

        while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0)
                switch (c) {
                case ARG_BUS:
                        *bus_address = optarg;
                        break;
                case 'h':
                        help();
                        return 0;
                case ARG_VERSION:
                        printf("hcbs-exporter %s\n", HCBS_VERSION);
                        return 0;
                default:
                        return -EINVAL;
                }
        if (optind < argc) {
                fprintf(stderr, "hcbs-exporter: unexpected argument '%s'\n", argv[optind]);
                return -EINVAL;
        }
        return 1;
}

int main(int argc, char **argv) {
        _cleanup_(exporter_freep) Exporter *x = NULL;
        const char *bus_address = NULL;
        sd_event *event = NULL;
        sigset_t mask;
        int r, n;

        r = parse_argv(argc, argv, &bus_address);
        if (r <= 0)
                return r < 0 ? 2 : 0;
        n = sd_listen_fds(true);
        if (n < 0) {
                exporter_log(LOG_ERR, "cannot read the sockets passed by systemd: %s", strerror(-n));
                return 1;
        }
        if (n == 0) {
                exporter_log(LOG_ERR, "no listening socket: start hcbs-exporter.socket, or run it under "
                                      "systemd-socket-activate -l PORT (hcbs-exporter --help)");
                return 1;
        }
        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        r = sigprocmask(SIG_BLOCK, &mask, NULL) < 0 ? -errno : 0;
        if (r >= 0)
                r = sd_event_default(&event);
        if (r >= 0)
                r = sd_event_add_signal(event, NULL, SIGTERM, NULL, NULL);
        if (r >= 0)
                r = sd_event_add_signal(event, NULL, SIGINT, NULL, NULL);
        if (r >= 0)
                r = exporter_new(event, bus_address, &x);
        for (int fd = SD_LISTEN_FDS_START; r >= 0 && fd < SD_LISTEN_FDS_START + n; fd++) {
                if (sd_is_socket(fd, AF_UNSPEC, SOCK_STREAM, 1) <= 0) {
                        exporter_log(LOG_ERR, "fd %d passed by systemd is not a listening stream socket", fd);
                        r = -EBADF;
                        break;
                }
                r = exporter_listen(x, fd);
        }
        if (r >= 0) {
                (void) sd_notify(false, "READY=1");
                r = sd_event_loop(event);
        }
        if (r < 0)
                exporter_log(LOG_ERR, "%s", strerror(-r));
        x = exporter_free(x);
        sd_event_unref(event);
        return r < 0 ? 1 : 0;
}
