/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus-client.h"
#include "bus-errors.h"
#include "bus-names.h"
#include "ctl-bus.h"
#include "ctl.h"
#include "macro.h"
#include "strutil.h"

int ctl_connect_quietly(Ctl *ctl) {
        int r;

        if (ctl->bus)
                return 0;
        r = hcbs_bus_open_client(ctl->bus_address, &ctl->bus);
        if (r < 0)
                return r;
        (void) sd_bus_set_allow_interactive_authorization(ctl->bus, ctl->ask_password);
        return 0;
}

int ctl_connect(Ctl *ctl) {
        int r;

        r = ctl_connect_quietly(ctl);
        if (r < 0)
                return ctl_fail(CTL_EXIT_UNREACHABLE, "cannot connect to the %s bus%s%s: %s",
                                ctl->bus_address ? "given" : "system", ctl->bus_address ? " " : "",
                                ctl->bus_address ? ctl->bus_address : "", strerror(-r));
        return CTL_EXIT_OK;
}

static bool name_is_one_of(const char *name, const char *const names[]) {
        for (size_t i = 0; name && names[i]; i++)
                if (strcmp(name, names[i]) == 0)
                        return true;
        return false;
}

static const char *const unreachable_names[] = {
        SD_BUS_ERROR_SERVICE_UNKNOWN,
        SD_BUS_ERROR_NAME_HAS_NO_OWNER,
        SD_BUS_ERROR_NO_REPLY,
        SD_BUS_ERROR_TIMEOUT,
        "org.freedesktop.DBus.Error.TimedOut",
        SD_BUS_ERROR_DISCONNECTED,
        SD_BUS_ERROR_NO_SERVER,
        SD_BUS_ERROR_NO_NETWORK,
        "org.freedesktop.systemd1.ShuttingDown",
        NULL,
};

static bool errno_is_unreachable(int r) {
        switch (-r) {
        case ECONNREFUSED: case ECONNRESET: case ENOTCONN: case ETIMEDOUT:
        case EPIPE: case ESHUTDOWN: case EHOSTDOWN: case ENOENT:
                return true;
        default:
                return false;
        }
}

static CtlExit exit_for_hcbs(HcbsError e) {
        switch (e) {
        case HCBS_E_NO_SUCH_GROUP:
        case HCBS_E_NO_SUCH_PROCESS:
                return CTL_EXIT_NOT_FOUND;
        case HCBS_E_INVALID_ARGUMENT:
        case HCBS_E_INVALID_NAME:
                return CTL_EXIT_USAGE;
        default:
                return CTL_EXIT_REFUSED;
        }
}

CtlExit ctl_exit_for_error(const sd_bus_error *error, int r) {
        HcbsError e = hcbs_bus_error_to_hcbs(error);

        if (e != HCBS_OK)
                return exit_for_hcbs(e);
        if (sd_bus_error_is_set(error)) {
                if (name_is_one_of(error->name, unreachable_names))
                        return CTL_EXIT_UNREACHABLE;
                if (sd_bus_error_has_name(error, SD_BUS_ERROR_INVALID_ARGS))
                        return CTL_EXIT_USAGE;
                /* "System.Error.E..." is sd-bus quoting a local errno: judge the errno */
                if (!hcbs_startswith(error->name, "System.Error."))
                        return CTL_EXIT_REFUSED;
        }
        return errno_is_unreachable(r) ? CTL_EXIT_UNREACHABLE : CTL_EXIT_REFUSED;
}

CtlExit ctl_exit_for_error_name(const char *name) {
        int e = name ? hcbs_error_from_string(name) : -EINVAL;

        return e > 0 ? exit_for_hcbs((HcbsError) e) : CTL_EXIT_REFUSED;
}

/* Copies s into buf with line breaks turned into spaces: a refusal is one line. */
static const char *one_line(const char *s, char *buf, size_t size) {
        size_t i;

        for (i = 0; s[i] && i + 1 < size; i++)
                buf[i] = (s[i] == '\n' || s[i] == '\r') ? ' ' : s[i];
        buf[i] = '\0';
        while (i > 0 && buf[i - 1] == ' ')
                buf[--i] = '\0';
        return buf;
}

int ctl_bus_fail_about(const char *about, const sd_bus_error *error, int r) {
        CtlExit code = ctl_exit_for_error(error, r);
        const char *sep = about ? ": " : "";
        char buf[1024];

        about = about ? about : "";
        if (sd_bus_error_has_names(error, SD_BUS_ERROR_SERVICE_UNKNOWN, SD_BUS_ERROR_NAME_HAS_NO_OWNER))
                return ctl_fail(code, "%s%shcbsd is not running (%s has no owner on this bus)", about, sep,
                                HCBS_BUS_NAME);
        if (error && error->message && *error->message) {
                one_line(error->message, buf, sizeof(buf));
                if (code == CTL_EXIT_UNREACHABLE)
                        return ctl_fail(code, "%s%sno answer from hcbsd: %s", about, sep, buf);
                return ctl_fail(code, "%s%s%s", about, sep, buf);
        }
        if (error && error->name)
                return ctl_fail(code, "%s%s%s", about, sep, error->name);
        return ctl_fail(code, "%s%s%s", about, sep, strerror(r < 0 ? -r : EIO));
}

int ctl_bus_fail(const sd_bus_error *error, int r) {
        return ctl_bus_fail_about(NULL, error, r);
}

int ctl_fail_errno(int r, const char *what) {
        return ctl_fail(CTL_EXIT_REFUSED, "%s: %s", what, strerror(r < 0 ? -r : EIO));
}

int ctl_new_manager_call(Ctl *ctl, const char *method, sd_bus_message **ret) {
        return sd_bus_message_new_method_call(ctl->bus, ret, HCBS_BUS_NAME, HCBS_MANAGER_PATH,
                                              HCBS_MANAGER_IFACE, method);
}

/* What the methods of org.hcbsd1.Manager answer (dbus/org.hcbsd1.xml). */
static const struct {
        const char *member;
        const char *signature;
} manager_replies[] = {
        { "CreateGroup", "o" },
        { "SetBandwidth", "" },
        { "DeleteGroup", "" },
        { "Attach", "" },
        { "Detach", "" },
        { "Apply", "a(sss)" },
        { "CheckBandwidth", "bss" },
        { "SizeReservation", "ttua{sv}" },
        { "ListGroups", "a(sttbuu)" },
        { "ListGroupCPUs", "a(sss)" },
        { "GetStats", "a{sv}" },
        { "ObserveTasks", "a(uussttttttttttt)a{sv}" },
        { "Reload", "" },
        { "ReserveUnit", "" },
        { "ReleaseUnit", "" },
        { "ListUnits", "a(ssttsi)" },
        { "ReserveCgroup", "" },
        { "CheckCgroup", "bss" },
        { "ReleaseCgroup", "" },
        { "ListContainers", "a(ssttsi)" },
};

const char *ctl_reply_signature(const char *interface, const char *member) {
        if (!interface || !member || strcmp(interface, HCBS_MANAGER_IFACE) != 0)
                return NULL;
        for (size_t i = 0; i < ELEMENTSOF(manager_replies); i++)
                if (strcmp(manager_replies[i].member, member) == 0)
                        return manager_replies[i].signature;
        return NULL;
}

int ctl_check_reply(sd_bus_message *call, sd_bus_message *reply, const char *about) {
        const char *member = sd_bus_message_get_member(call);
        const char *expected = ctl_reply_signature(sd_bus_message_get_interface(call), member);
        const char *got = sd_bus_message_get_signature(reply, true);

        if (!expected || (got && strcmp(got, expected) == 0))
                return CTL_EXIT_OK;
        return ctl_fail(CTL_EXIT_REFUSED, "%s%sunexpected reply to %s from %s: signature '%s', expected '%s'",
                        about ? about : "", about ? ": " : "", member, HCBS_BUS_NAME, got ? got : "?", expected);
}

int ctl_call_about(Ctl *ctl, sd_bus_message *m, const char *about, sd_bus_message **ret_reply) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        int r;

        r = sd_bus_call(ctl->bus, m, 0, &error, &reply);
        if (r < 0) {
                r = ctl_bus_fail_about(about, &error, r);
                sd_bus_error_free(&error);
                return r;
        }
        r = ctl_check_reply(m, reply, about);
        if (r != CTL_EXIT_OK) {
                sd_bus_message_unref(reply);
                return r;
        }
        if (ret_reply)
                *ret_reply = reply;
        else
                sd_bus_message_unref(reply);
        return CTL_EXIT_OK;
}

int ctl_call(Ctl *ctl, sd_bus_message *m, sd_bus_message **ret_reply) {
        return ctl_call_about(ctl, m, NULL, ret_reply);
}

int ctl_group_path(const char *name, char **ret) {
        return sd_bus_path_encode(HCBS_GROUP_PREFIX, name, ret);
}

static const CtlProp *prop_find(const CtlProp map[], const char *name) {
        for (size_t i = 0; map[i].name; i++)
                if (strcmp(map[i].name, name) == 0)
                        return &map[i];
        return NULL;
}

static int read_u32_array(sd_bus_message *m, CtlU32Array *ret) {
        const void *p;
        size_t size;
        uint32_t *v = NULL;
        int r;

        r = sd_bus_message_read_array(m, 'u', &p, &size);
        if (r < 0)
                return r;
        if (size > 0) {
                v = malloc(size);
                if (!v)
                        return -ENOMEM;
                memcpy(v, p, size);
        }
        free(ret->v);
        ret->v = v;
        ret->n = size / sizeof(uint32_t);
        return 0;
}

static int read_string(sd_bus_message *m, char **ret) {
        const char *s;
        char *copy;
        int r;

        r = sd_bus_message_read_basic(m, 's', &s);
        if (r < 0)
                return r;
        copy = strdup(s);
        if (!copy)
                return -ENOMEM;
        free(*ret);
        *ret = copy;
        return 0;
}

/* Reads the variant's value (already entered) into its field. */
static int prop_read_value(sd_bus_message *m, const CtlProp *p, void *data) {
        uint8_t *field = (uint8_t *) data + p->offset;
        int b, r;

        switch (p->signature[0]) {
        case 's':
                return read_string(m, (char **) field);
        case 'b':
                r = sd_bus_message_read_basic(m, 'b', &b);
                if (r >= 0)
                        *(bool *) field = b;
                return r;
        case 'a':
                return read_u32_array(m, (CtlU32Array *) field);
        default: /* t, u, i, d: read straight into the field */
                return sd_bus_message_read_basic(m, p->signature[0], field);
        }
}

static int prop_read_entry(sd_bus_message *m, const CtlProp map[], void *data) {
        const char *name, *contents;
        const CtlProp *p;
        char type;
        int r;

        r = sd_bus_message_read_basic(m, 's', &name);
        if (r < 0)
                return r;
        p = prop_find(map, name);
        r = sd_bus_message_peek_type(m, &type, &contents);
        if (r < 0)
                return r;
        if (!p || strcmp(contents, p->signature) != 0)
                return sd_bus_message_skip(m, "v");
        r = sd_bus_message_enter_container(m, 'v', contents);
        if (r < 0)
                return r;
        r = prop_read_value(m, p, data);
        if (r < 0)
                return r;
        return sd_bus_message_exit_container(m);
}

int ctl_get_all(Ctl *ctl, const char *path, const char *iface, const CtlProp map[], void *data,
                sd_bus_error *error) {
        return ctl_get_all_from(ctl, HCBS_BUS_NAME, path, iface, map, data, error);
}

int ctl_get_all_from(Ctl *ctl, const char *destination, const char *path, const char *iface, const CtlProp map[],
                     void *data, sd_bus_error *error) {
        _cleanup_msg_ sd_bus_message *reply = NULL;
        int r;

        r = sd_bus_call_method(ctl->bus, destination, path, "org.freedesktop.DBus.Properties", "GetAll", error,
                               &reply, "s", iface);
        if (r < 0)
                return r;
        r = sd_bus_message_enter_container(reply, 'a', "{sv}");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_enter_container(reply, 'e', "sv")) > 0) {
                r = prop_read_entry(reply, map, data);
                if (r < 0)
                        return r;
                r = sd_bus_message_exit_container(reply);
                if (r < 0)
                        return r;
        }
        if (r < 0)
                return r;
        return sd_bus_message_exit_container(reply);
}

void ctl_props_free(const CtlProp map[], void *data) {
        for (size_t i = 0; map[i].name; i++) {
                uint8_t *field = (uint8_t *) data + map[i].offset;

                if (map[i].signature[0] == 's') {
                        free(*(char **) field);
                        *(char **) field = NULL;
                } else if (map[i].signature[0] == 'a') {
                        free(((CtlU32Array *) field)->v);
                        *(CtlU32Array *) field = (CtlU32Array) {};
                }
        }
}

static int group_list_read(sd_bus_message *reply, CtlGroupList *l) {
        size_t cap = 0;
        int r;

        r = sd_bus_message_enter_container(reply, 'a', "(sttbuu)");
        if (r < 0)
                return r;
        for (;;) {
                CtlGroup g = {};
                int leaf;

                r = sd_bus_message_read(reply, "(sttbuu)", &g.name, &g.runtime, &g.period, &leaf,
                                        &g.processes, &g.rt_tasks);
                if (r <= 0)
                        break;
                g.leaf = leaf;
                if (l->n == cap) {
                        size_t ncap = cap ? cap * 2 : 16;
                        CtlGroup *v = realloc(l->v, ncap * sizeof(*v));
                        if (!v)
                                return -ENOMEM;
                        l->v = v;
                        cap = ncap;
                }
                l->v[l->n++] = g;
        }
        if (r < 0)
                return r;
        return sd_bus_message_exit_container(reply);
}

/* ListGroupCPUs: each group's CPUs into l, matched by name; nothing from an hcbsd without the method. */
static void group_list_read_cpus(Ctl *ctl, CtlGroupList *l) {
        _cleanup_msg_ sd_bus_message *m = NULL;
        const char *name, *cpus, *eff;
        size_t next = 0;

        if (l->n == 0 || ctl_new_manager_call(ctl, "ListGroupCPUs", &m) < 0 ||
            sd_bus_call(ctl->bus, m, 0, NULL, &l->cpus_reply) < 0 ||
            sd_bus_message_has_signature(l->cpus_reply, "a(sss)") <= 0 ||
            sd_bus_message_enter_container(l->cpus_reply, 'a', "(sss)") < 0)
                return;
        /* both lists come in the same (pre-)order: the next row is almost always the match */
        while (sd_bus_message_read(l->cpus_reply, "(sss)", &name, &cpus, &eff) > 0)
                for (size_t k = 0; k < l->n; k++) {
                        CtlGroup *g = &l->v[(next + k) % l->n];
                        if (strcmp(g->name, name) == 0) {
                                g->cpus = cpus;
                                g->effective_cpus = eff;
                                next = (size_t) (g - l->v) + 1;
                                break;
                        }
                }
}

int ctl_list_groups(Ctl *ctl, CtlGroupList *ret) {
        _cleanup_msg_ sd_bus_message *m = NULL;
        CtlGroupList l = {};
        int r;

        r = ctl_connect(ctl);
        if (r != CTL_EXIT_OK)
                return r;
        r = ctl_new_manager_call(ctl, "ListGroups", &m);
        if (r < 0)
                return ctl_fail_errno(r, "cannot build ListGroups call");
        r = ctl_call(ctl, m, &l.reply);
        if (r != CTL_EXIT_OK)
                return r;
        r = group_list_read(l.reply, &l);
        if (r < 0) {
                ctl_group_list_done(&l);
                return ctl_fail_errno(r, "cannot parse ListGroups reply");
        }
        group_list_read_cpus(ctl, &l);
        *ret = l;
        return CTL_EXIT_OK;
}

void ctl_group_list_done(CtlGroupList *l) {
        free(l->v);
        sd_bus_message_unref(l->reply);
        sd_bus_message_unref(l->cpus_reply);
        *l = (CtlGroupList) {};
}

#define MPROP(n, sig, field) { n, sig, offsetof(CtlManagerProps, field) }
const CtlProp ctl_manager_props[] = {
        MPROP("Version", "s", version),
        MPROP("KernelInterface", "s", kernel_interface),
        MPROP("CgroupRoot", "s", cgroup_root),
        MPROP("CapacityRuntime", "t", capacity_runtime),
        MPROP("CapacityPeriod", "t", capacity_period),
        MPROP("AllocatedBandwidth", "d", allocated),
        MPROP("GroupCount", "u", group_count),
        MPROP("StatsBackend", "s", stats_backend),
        MPROP("StatsBackendReason", "s", stats_backend_reason),
        MPROP("KernelMode", "s", kernel_mode),
        MPROP("KernelModeReason", "s", kernel_mode_reason),
        MPROP("KernelModeFix", "s", kernel_mode_fix),
        {},
};

int ctl_get_manager_props(Ctl *ctl, CtlManagerProps *ret) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        CtlManagerProps p = {};
        int r;

        r = ctl_connect(ctl);
        if (r != CTL_EXIT_OK)
                return r;
        r = ctl_get_all(ctl, HCBS_MANAGER_PATH, HCBS_MANAGER_IFACE, ctl_manager_props, &p, &error);
        if (r < 0) {
                ctl_props_free(ctl_manager_props, &p);
                r = ctl_bus_fail(&error, r);
                sd_bus_error_free(&error);
                return r;
        }
        *ret = p;
        return CTL_EXIT_OK;
}
