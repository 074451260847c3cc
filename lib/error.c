/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "strutil.h"

static const char *const names[_HCBS_E_MAX] = {
        [HCBS_E_INVALID_ARGUMENT] = "InvalidArgument",
        [HCBS_E_INVALID_NAME] = "InvalidName",
        [HCBS_E_NO_SUCH_GROUP] = "NoSuchGroup",
        [HCBS_E_GROUP_EXISTS] = "GroupExists",
        [HCBS_E_INSUFFICIENT_BANDWIDTH] = "InsufficientBandwidth",
        [HCBS_E_NOT_LEAF] = "NotLeaf",
        [HCBS_E_GROUP_BUSY] = "GroupBusy",
        [HCBS_E_NO_SUCH_PROCESS] = "NoSuchProcess",
        [HCBS_E_PERMISSION_DENIED] = "PermissionDenied",
        [HCBS_E_KERNEL_REJECTED] = "KernelRejected",
        [HCBS_E_NOT_SUPPORTED] = "NotSupported",
        [HCBS_E_LIMITS_EXCEEDED] = "LimitsExceeded",
};

const char *hcbs_error_to_string(HcbsError e) {
        if (e <= HCBS_OK || e >= _HCBS_E_MAX)
                return NULL;
        return names[e];
}

int hcbs_error_from_string(const char *s) {
        if (hcbs_startswith(s, HCBS_ERROR_PREFIX))
                s += strlen(HCBS_ERROR_PREFIX);
        for (int e = HCBS_OK + 1; e < _HCBS_E_MAX; e++)
                if (strcmp(s, names[e]) == 0)
                        return e;
        return -EINVAL;
}

int hcbs_verdict_set(HcbsVerdict *v, HcbsError e, int kernel_errno, const char *fmt, ...) {
        va_list ap;

        assert(v);
        assert(e > HCBS_OK && e < _HCBS_E_MAX); /* a refusal names its reason */
        assert(kernel_errno >= 0);
        v->error = e;
        v->kernel_errno = kernel_errno;
        va_start(ap, fmt);
        vsnprintf(v->message, sizeof(v->message), fmt, ap);
        va_end(ap);
        return (int) e;
}
