/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The D-Bus argument readers (daemon/bus/bus-util.c): bus_read_options() with
 * each option table of hcbsd's methods, then bus_parse_policy() on what it
 * read, as Attach and ReserveUnit do. The input builds one method call:
 *
 *   TABLE  SIGNATURE \0  VALUES...
 *
 * TABLE picks the option table, SIGNATURE is the call's D-Bus signature
 * (hcbsd's vtable only lets "a{sv}" through to these readers, but a variant
 * holds anything), and VALUES feed the appender: one byte for y and b, 2,
 * 4 or 8 little-endian bytes for the integers, a length byte and the bytes
 * for strings, a count byte for arrays and a signature (length byte first)
 * for each variant. The message is built with the public sd-bus calls on a
 * bus that never connects (a socketpair nobody answers), sealed, and read
 * back through the same code paths as a received call.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <systemd/sd-bus.h>

#include "bus-util.h"
#include "fuzz-util.h"

#define MAX_DEPTH 16

static sd_bus *bus;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv) {
        int fds[2];

        /* messages need a bus that has started; this one never gets further than its AUTH line */
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, fds) < 0 || sd_bus_new(&bus) < 0 ||
            sd_bus_set_fd(bus, fds[0], fds[0]) < 0 || sd_bus_start(bus) < 0)
                abort();
        return 0;
}

typedef struct Input {
        const uint8_t *p;
        size_t left;
} Input;

static bool take(Input *in, void *buf, size_t n) {
        if (in->left < n)
                return false;
        memcpy(buf, in->p, n);
        in->p += n;
        in->left -= n;
        return true;
}

/* Length of the complete type at the start of s, 0 if there is none. */
static size_t single_type_len(const char *s, unsigned depth) {
        char close;
        size_t n;

        if (depth > MAX_DEPTH)
                return 0;
        switch (*s) {
        case 'a':
                n = single_type_len(s + 1, depth + 1);
                return n ? n + 1 : 0;
        case '(':
        case '{':
                close = *s == '(' ? ')' : '}';
                for (n = 1; s[n] && s[n] != close;) {
                        size_t k = single_type_len(s + n, depth + 1);
                        if (!k)
                                return 0;
                        n += k;
                }
                return s[n] == close ? n + 1 : 0;
        case '\0':
        case ')':
        case '}':
                return 0;
        default:
                return 1;
        }
}

static int append_types(sd_bus_message *m, const char *sig, size_t len, Input *in, unsigned depth);

static int append_string(sd_bus_message *m, char type, Input *in) {
        uint8_t n;
        char buf[256];

        if (!take(in, &n, 1) || !take(in, buf, n))
                return -ENODATA;
        buf[n] = '\0';
        return sd_bus_message_append_basic(m, type, buf);
}

static int append_one(sd_bus_message *m, const char *sig, size_t len, Input *in, unsigned depth) {
        char contents[256];
        uint8_t u8 = 0;
        uint16_t u16 = 0;
        uint32_t u32 = 0;
        uint64_t u64 = 0;
        int b, r;

        if (depth > MAX_DEPTH)
                return -E2BIG;
        switch (sig[0]) {
        case 'y':
                return take(in, &u8, 1) ? sd_bus_message_append_basic(m, 'y', &u8) : -ENODATA;
        case 'b':
                if (!take(in, &u8, 1))
                        return -ENODATA;
                b = u8 & 1;
                return sd_bus_message_append_basic(m, 'b', &b);
        case 'n':
        case 'q':
                return take(in, &u16, 2) ? sd_bus_message_append_basic(m, sig[0], &u16) : -ENODATA;
        case 'i':
        case 'u':
                return take(in, &u32, 4) ? sd_bus_message_append_basic(m, sig[0], &u32) : -ENODATA;
        case 'x':
        case 't':
        case 'd':
                return take(in, &u64, 8) ? sd_bus_message_append_basic(m, sig[0], &u64) : -ENODATA;
        case 's':
        case 'o':
        case 'g':
                return append_string(m, sig[0], in);
        case 'v':
                if (!take(in, &u8, 1) || !take(in, contents, u8))
                        return -ENODATA;
                contents[u8] = '\0';
                if (single_type_len(contents, depth + 1) != u8 || u8 == 0)
                        return -EINVAL;
                r = sd_bus_message_open_container(m, 'v', contents);
                if (r >= 0)
                        r = append_types(m, contents, u8, in, depth + 1);
                return r < 0 ? r : sd_bus_message_close_container(m);
        case 'a':
                if (len < 2 || len - 1 >= sizeof(contents) || !take(in, &u8, 1))
                        return -ENODATA;
                memcpy(contents, sig + 1, len - 1);
                contents[len - 1] = '\0';
                r = sd_bus_message_open_container(m, 'a', contents);
                for (unsigned i = 0; r >= 0 && i < (u8 & 15u); i++)
                        r = append_types(m, contents, len - 1, in, depth + 1);
                return r < 0 ? r : sd_bus_message_close_container(m);
        case '(':
        case '{':
                if (len < 2 || len - 2 >= sizeof(contents))
                        return -EINVAL;
                memcpy(contents, sig + 1, len - 2);
                contents[len - 2] = '\0';
                r = sd_bus_message_open_container(m, sig[0] == '(' ? 'r' : 'e', contents);
                if (r >= 0)
                        r = append_types(m, contents, len - 2, in, depth + 1);
                return r < 0 ? r : sd_bus_message_close_container(m);
        default: /* 'h' needs a real fd, and the rest is no type */
                return -EINVAL;
        }
}

static int append_types(sd_bus_message *m, const char *sig, size_t len, Input *in, unsigned depth) {
        while (len > 0) {
                size_t k = single_type_len(sig, depth);
                int r;

                if (k == 0 || k > len)
                        return -EINVAL;
                r = append_one(m, sig, k, in, depth);
                if (r < 0)
                        return r;
                sig += k;
                len -= k;
        }
        return 0;
}

static void read_options(sd_bus_message *m, unsigned table) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        const char *policy = "keep", *str = NULL;
        bool b1 = false, b2 = false;
        int32_t priority = 0;
        BusOption create[] = {
                { "persistent", "b", &b1 },
                { "grow_parents", "b", &b2 },
                { "move_processes_to", "s", &str },
        };
        BusOption set[] = { { "grow_parents", "b", &b1 } };
        BusOption delete[] = { { "migrate_to", "s", &str } };
        BusOption attach[] = { { "policy", "s", &policy }, { "priority", "i", &priority } };
        struct {
                BusOption *opts;
                size_t n;
        } tables[] = {
                { create, ELEMENTSOF(create) },
                { set, ELEMENTSOF(set) },
                { delete, ELEMENTSOF(delete) },
                { attach, ELEMENTSOF(attach) },
                { NULL, 0 },
        };
        int r;

        table %= ELEMENTSOF(tables);
        r = bus_read_options(m, tables[table].opts, tables[table].n, &error);
        if (r >= 0) {
                fuzz_check(!sd_bus_error_is_set(&error), "success with the error %s", error.name);
                if (str)
                        fuzz_check(strlen(str) < 256, "a string option of %zu characters", strlen(str));
                if (tables[table].opts == attach) {
                        ProcPolicy p;
                        r = bus_parse_policy(policy, priority, &p, &error);
                        fuzz_check(r == 0 || sd_bus_error_has_name(&error, "org.hcbsd1.Error.InvalidArgument"),
                                   "bus_parse_policy: %d %s", r, error.name);
                }
        } else if (sd_bus_error_is_set(&error))
                fuzz_check(sd_bus_error_has_name(&error, "org.hcbsd1.Error.InvalidArgument"), "error %s (%s)",
                           error.name, error.message);
        sd_bus_error_free(&error);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        static uint64_t cookie;
        sd_bus_message *m = NULL;
        const uint8_t *nul;
        char sig[256];
        Input in;
        size_t len;

        if (size < 2 || size > 16 * 1024 || !(nul = memchr(data + 1, '\0', size - 1)))
                return 0;
        len = (size_t) (nul - data - 1);
        if (len >= sizeof(sig))
                return 0;
        memcpy(sig, data + 1, len);
        sig[len] = '\0';
        in = (Input) { nul + 1, size - len - 2 };

        if (sd_bus_message_new_method_call(bus, &m, HCBS_BUS_NAME, HCBS_MANAGER_PATH, HCBS_MANAGER_IFACE, "Fuzz") < 0)
                abort();
        if (append_types(m, sig, len, &in, 0) >= 0 && sd_bus_message_seal(m, ++cookie, 0) >= 0 &&
            sd_bus_message_rewind(m, true) >= 0)
                read_options(m, data[0]);
        sd_bus_message_unref(m);
        return 0;
}
