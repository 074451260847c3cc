/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Expected outcomes of an operation, as opposed to fatal errors.
 *
 * Library and daemon functions return a negative errno for failures that
 * are nobody's business but the log (ENOMEM, EIO on our own state...), and
 * fill an HcbsVerdict for outcomes the caller must act on: a refusal with a
 * named reason. Each HcbsError maps to exactly one D-Bus error name,
 * org.hcbsd1.Error.<Name>, at the bus boundary.
 */

#include <stddef.h>

typedef enum HcbsError {
        HCBS_OK = 0,
        HCBS_E_INVALID_ARGUMENT,
        HCBS_E_INVALID_NAME,
        HCBS_E_NO_SUCH_GROUP,
        HCBS_E_GROUP_EXISTS,
        HCBS_E_INSUFFICIENT_BANDWIDTH,
        HCBS_E_NOT_LEAF,
        HCBS_E_GROUP_BUSY,
        HCBS_E_NO_SUCH_PROCESS,
        HCBS_E_PERMISSION_DENIED,
        HCBS_E_KERNEL_REJECTED,
        HCBS_E_NOT_SUPPORTED,
        _HCBS_E_MAX,
} HcbsError;

#define HCBS_MESSAGE_MAX 512

typedef struct HcbsVerdict {
        HcbsError error;  /* HCBS_OK when admitted */
        int kernel_errno; /* what the kernel answers for the same write: 0, EINVAL, EBUSY, EPERM */
        char message[HCBS_MESSAGE_MAX];
} HcbsVerdict;

#define HCBS_ERROR_PREFIX "org.hcbsd1.Error."

/* "InsufficientBandwidth"; NULL for HCBS_OK or out of range. */
const char *hcbs_error_to_string(HcbsError e);

/* Inverse of hcbs_error_to_string(); accepts the short or the full D-Bus name. Returns -EINVAL if unknown. */
int hcbs_error_from_string(const char *s);

/* Fills v with a refusal: its public code, the errno the kernel would give, and the reason. */
void hcbs_verdict_set(HcbsVerdict *v, HcbsError e, int kernel_errno, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));

static inline void hcbs_verdict_ok(HcbsVerdict *v) {
        v->error = HCBS_OK;
        v->kernel_errno = 0;
        v->message[0] = '\0';
}
