/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>

#include "bus-errors.h"
#include "strutil.h"

#define MAP(name, errno_value) SD_BUS_ERROR_MAP(HCBS_ERROR_PREFIX name, errno_value)

const sd_bus_error_map hcbs_bus_error_map[] = {
        MAP("InvalidArgument", EINVAL),
        MAP("InvalidName", EINVAL),
        MAP("NoSuchGroup", ENOENT),
        MAP("GroupExists", EEXIST),
        MAP("InsufficientBandwidth", ENOSPC),
        MAP("NotLeaf", ENOTEMPTY),
        MAP("GroupBusy", EBUSY),
        MAP("NoSuchProcess", ESRCH),
        MAP("PermissionDenied", EPERM),
        MAP("KernelRejected", EIO),
        MAP("NotSupported", EOPNOTSUPP),
        MAP("LimitsExceeded", ENOBUFS),
        SD_BUS_ERROR_MAP_END,
};

int hcbs_bus_errors_register(void) {
        return sd_bus_error_add_map(hcbs_bus_error_map);
}

int hcbs_bus_error_set_verdict(sd_bus_error *e, const HcbsVerdict *v) {
        const char *name = hcbs_error_to_string(v->error);
        char full[128];

        if (!name)
                return sd_bus_error_set(e, SD_BUS_ERROR_FAILED, v->message);
        snprintf(full, sizeof(full), HCBS_ERROR_PREFIX "%s", name);
        return sd_bus_error_set(e, full, v->message);
}

HcbsError hcbs_bus_error_to_hcbs(const sd_bus_error *e) {
        int r;

        if (!e || !e->name)
                return HCBS_OK;
        if (!hcbs_startswith(e->name, HCBS_ERROR_PREFIX))
                return HCBS_OK;
        r = hcbs_error_from_string(e->name);
        return r < 0 ? HCBS_OK : (HcbsError) r;
}
