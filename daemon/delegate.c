/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "delegate.h"
#include "macro.h"
#include "process.h"
#include "strutil.h"

int delegate_detect(char **ret) {
        char *own = NULL;
        int r;

        if (sd_booted() <= 0 || !getenv("INVOCATION_ID"))
                return 0;
        r = proc_get_cgroup(getpid(), "", &own);
        if (r == -ENODATA)
                return 0;
        if (r < 0)
                return r;
        if (!own[0] || !hcbs_endswith(own, ".service")) {
                free(own);
                return 0;
        }
        *ret = own;
        return 1;
}

int delegate_move_self(CgroupFs *fs, const char *own, CgroupFsError *e) {
        char path[PATH_MAX];
        int r;

        snprintf(path, sizeof(path), "%s/" DELEGATE_DAEMON, own);
        if (!cgroupfs_exists(fs, path)) {
                r = cgroupfs_mkdir(fs, path, e);
                if (r < 0)
                        return r;
        }
        return cgroupfs_attach(fs, path, getpid(), e);
}

char *delegate_pool_of(const char *own) {
        static const char *const systemds[] = { "system.slice", "user.slice", "machine.slice" };
        const char *slash = strrchr(own, '/'), *name;
        char *pool;

        if (!slash)
                return NULL; /* a service directly in the root */
        pool = strndup(own, (size_t) (slash - own));
        if (!pool)
                return NULL;
        name = strrchr(pool, '/') ? strrchr(pool, '/') + 1 : pool;
        for (size_t i = 0; i < ELEMENTSOF(systemds); i++)
                if (strcmp(name, systemds[i]) == 0)
                        name = "";
        if (!hcbs_endswith(name, ".slice")) {
                free(pool);
                return NULL;
        }
        return pool;
}
