/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Between the manager's files; not for the bus layer. */

#include "manager.h"

typedef struct Origin {
        pid_t pid;
        char *cgroup; /* relative to the mount */
} Origin;

/* manager-startup.c */
int manager_ensure_root(Manager *m);
int manager_build_model(Manager *m);
int manager_apply_capacity(Manager *m);
void manager_apply_declared(Manager *m);
int manager_apply_persistent(Manager *m);
int manager_save_persistent(Manager *m);
const char *manager_state_dir(const Manager *m);

/* manager.c */
/* hcbsd's root relative to the mount: "hcbs" for /sys/fs/cgroup/cpu/hcbs. */
const char *manager_root_rel(const Manager *m);
int manager_group_info_ensure(HcbsNode *n);

/* manager-ops.c */
/* Applies a plan to the kernel, commits it to the model and emits signals. v says what the kernel refused. */
int manager_execute(Manager *m, HcbsPlan *plan, HcbsVerdict *v);
void manager_origins_clear(Manager *m);
