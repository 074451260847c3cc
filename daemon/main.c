/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admission.h"
#include "bus.h"
#include "config.h"
#include "log.h"
#include "manager.h"

static void help(void) {
        printf("Usage: hcbsd [OPTIONS]\n"
               "\n"
               "The HCBS RT bandwidth daemon: owns a cgroup subtree, admits RT reservations\n"
               "(cpu.rt_runtime_us/cpu.rt_period_us) before the kernel sees them, and serves\n"
               "org.hcbsd1 on the system bus. See hcbsctl(1) for the client.\n"
               "\n"
               "Options:\n"
               "  --bus-address=ADDRESS  connect to this bus instead of the system bus\n"
               "                         (default: $DBUS_SYSTEM_BUS_ADDRESS or the system bus)\n"
               "  --cgroup-root=PATH     hcbsd's subtree root; overrides CgroupRoot=\n"
               "  --interface=NAME       auto, rfc1, rtmax, legacy-v1 or legacy-v2; overrides Interface=\n"
               "  --config=FILE          main configuration (default %s/hcbsd.conf)\n"
               "  --config-dir=DIR       drop-ins, *.conf in lexical order (default %s/conf.d)\n"
               "  --state-dir=DIR        where persistent groups are kept (default %s)\n"
               "  --runtime-dir=DIR      the plan journal and the origins of attached processes,\n"
               "                         which matter until the next reboot (default\n"
               "                         $RUNTIME_DIRECTORY, else %s)\n"
               "  --check-config         validate the configuration and exit: 0 valid, 1 not\n"
               "  --check-kernel         say which RT group scheduling this kernel has (the mode\n"
               "                         hcbsctl status shows), why, and the fix where hcbsd\n"
               "                         cannot work; exit 0 when it can, 1 when it cannot\n"
               "  --no-notify            do not talk to the service manager (sd_notify READY=1,\n"
               "                         STATUS=, RELOADING=1, WATCHDOG=1)\n"
               "  --log-level=LEVEL      debug, info (default), notice, warning, err\n"
               "  --log-target=TARGET    journal (structured fields, MESSAGE_IDs), stderr, or\n"
               "                         auto (default): journal if stderr is $JOURNAL_STREAM\n"
               "  -h, --help             show this help\n"
               "  --version              show the version\n"
               "\n"
               "Signals: SIGTERM/SIGINT exit cleanly, SIGHUP reloads the configuration.\n",
               HCBS_SYSCONFDIR, HCBS_SYSCONFDIR, HCBS_STATEDIR, HCBS_RUNTIMEDIR);
}

enum { ARG_BUS = 0x100, ARG_ROOT, ARG_IFACE, ARG_CONFIG, ARG_CONFIG_DIR, ARG_STATE, ARG_RUNTIME, ARG_CHECK, ARG_CHECK_KERNEL, ARG_NO_NOTIFY,
       ARG_LOG, ARG_LOG_TARGET, ARG_VERSION };

static int parse_log_level(const char *s) {
        static const struct { const char *name; int level; } levels[] = {
                { "debug", LOG_DEBUG }, { "info", LOG_INFO }, { "notice", LOG_NOTICE },
                { "warning", LOG_WARNING }, { "err", LOG_ERR },
        };
        for (size_t i = 0; i < ELEMENTSOF(levels); i++)
                if (strcmp(s, levels[i].name) == 0)
                        return levels[i].level;
        return -EINVAL;
}

/* Returns 1 to run, 0 to exit successfully, < 0 on a usage error. */
static int parse_argv(int argc, char **argv, ManagerOptions *o, bool *check_config, bool *check_kernel) {
        static const struct option options[] = {
                { "bus-address", required_argument, NULL, ARG_BUS },
                { "cgroup-root", required_argument, NULL, ARG_ROOT },
                { "interface", required_argument, NULL, ARG_IFACE },
                { "config", required_argument, NULL, ARG_CONFIG },
                { "config-dir", required_argument, NULL, ARG_CONFIG_DIR },
                { "state-dir", required_argument, NULL, ARG_STATE },
                { "runtime-dir", required_argument, NULL, ARG_RUNTIME },
                { "check-config", no_argument, NULL, ARG_CHECK },
                { "check-kernel", no_argument, NULL, ARG_CHECK_KERNEL },
                { "no-notify", no_argument, NULL, ARG_NO_NOTIFY },
                { "log-level", required_argument, NULL, ARG_LOG },
                { "log-target", required_argument, NULL, ARG_LOG_TARGET },
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, ARG_VERSION },
                {}
        };
        int c, level, target;

        while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0)
                switch (c) {
                case ARG_BUS: o->bus_address = optarg; break;
                case ARG_ROOT: o->cgroup_root = optarg; break;
                case ARG_IFACE: o->interface = optarg; break;
                case ARG_CONFIG: o->config_path = optarg; break;
                case ARG_CONFIG_DIR: o->config_dir = optarg; break;
                case ARG_STATE: o->state_dir = optarg; break;
                case ARG_RUNTIME: o->runtime_dir = optarg; break;
                case ARG_CHECK: *check_config = true; break;
                case ARG_CHECK_KERNEL: *check_kernel = true; break;
                case ARG_NO_NOTIFY: o->notify = false; break;
                case ARG_LOG:
                        level = parse_log_level(optarg);
                        if (level < 0)
                                return log_error_errno(-EINVAL, "Unknown log level '%s'", optarg);
                        log_set_max_level(level);
                        break;
                case ARG_LOG_TARGET:
                        target = log_target_from_string(optarg);
                        if (target < 0)
                                return log_error_errno(-EINVAL, "Unknown log target '%s'", optarg);
                        log_set_target(target);
                        break;
                case 'h': help(); return 0;
                case ARG_VERSION: printf("hcbsd %s\n", HCBS_VERSION); return 0;
                default: return -EINVAL;
                }
        if (optind < argc)
                return log_error_errno(-EINVAL, "Unexpected argument '%s'; see --help", argv[optind]);
        return 1;
}

/* --check-config: parse, validate, and check that the declared groups fit, without a kernel. */
static int check_config(const ManagerOptions *o) {
        HcbsConf conf;
        char err[512] = "";
        int r;

        hcbs_conf_init(&conf);
        r = hcbs_conf_load(&conf, o->config_path, o->config_dir, err, sizeof(err));
        if (r < 0)
                fprintf(stderr, "%s\n", err);
        else
                printf("configuration OK: %zu group(s)\n", conf.n_groups);
        hcbs_conf_done(&conf);
        return r < 0 ? 1 : 0;
}

/* --check-kernel: the kernel's mode for the configured root, as start-up decides it. */
static int check_kernel(const ManagerOptions *o) {
        _cleanup_(manager_freep) Manager *m = NULL;
        HcbsKernelVerdict v;
        int r;

        r = manager_new(o, &m);
        if (r < 0)
                return log_error_errno(r, "Out of memory"), 1;
        r = manager_check_kernel(m, &v);
        if (r < 0)
                return 1;
        printf("Mode:   %s\nReason: %s\n", hcbs_kernel_mode_to_string(v.mode), v.reason);
        if (v.fix[0])
                printf("Fix:    %s\n", v.fix);
        return v.usable ? 0 : 1;
}

static int run(int argc, char **argv) {
        ManagerOptions o = {
                .config_path = HCBS_SYSCONFDIR "/hcbsd.conf",
                .config_dir = HCBS_SYSCONFDIR "/conf.d",
                .notify = true,
        };
        _cleanup_(manager_freep) Manager *m = NULL;
        BusServer *bus = NULL;
        bool check = false, check_k = false;
        int r;

        log_set_target(LOG_TARGET_AUTO);
        r = parse_argv(argc, argv, &o, &check, &check_k);
        if (r <= 0)
                return r < 0 ? 2 : 0;
        if (check)
                return check_config(&o);
        if (check_k)
                return check_kernel(&o);
        r = manager_block_signals();
        if (r < 0)
                return log_error_errno(r, "Cannot block signals: %m"), 1;
        r = manager_new(&o, &m);
        if (r < 0)
                return log_error_errno(r, "Out of memory"), 1;
        r = manager_startup(m);
        if (r >= 0)
                r = bus_server_new(m, &bus);
        if (r >= 0)
                r = manager_run(m);
        bus = bus_server_free(bus);
        manager_shutdown(m);
        return r < 0 ? 1 : 0;
}

int main(int argc, char **argv) {
        return run(argc, argv);
}
