/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Expected outcomes of an operation, as opposed to fatal errors.
 *
 * One rule for every function that can refuse (the manager's operations,
 * and whatever they call that may refuse):
 *
 *   r < 0   a failure of hcbsd itself, a negative errno (ENOMEM, EIO on its
 *           own state...): nobody's business but the log, the bus answers
 *           with a generic error;
 *   r == 0  done; the verdict, if the function takes one, is HCBS_OK;
 *   r > 0   a refusal: r is the HcbsError, and the verdict (which then
 *           holds the same error) says why in words.
 *
 * So `if (r != 0) return r;` passes both a failure and a refusal up, and
 * nobody re-reads v->error to learn what happened. Each HcbsError maps to
 * exactly one D-Bus error name, org.hcbsd1.Error.<Name>, at the bus
 * boundary (bus-errors.h). A positive errno is never returned: what the
 * kernel would answer travels in HcbsVerdict.kernel_errno or HcbsCheck
 * (model.h), or is the one errno a predicate of the model documents.
 *
 * The admission layer (admission.h, plan.h) answers the yes/no question
 * "admitted?" with 1, 0 (refused, v filled) or a negative errno;
 * hcbs_admitted() turns that answer into this rule.
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
        HCBS_E_LIMITS_EXCEEDED, /* more work than hcbsd does for one call, or too many such calls at once */
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

/*
 * Fills v with a refusal: its public code, the errno the kernel would give,
 * and the reason. Returns e, so a refusal is `return hcbs_verdict_set(v, ...);`.
 */
int hcbs_verdict_set(HcbsVerdict *v, HcbsError e, int kernel_errno, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));

/* Fills v with "done"; returns 0. */
static inline int hcbs_verdict_ok(HcbsVerdict *v) {
        v->error = HCBS_OK;
        v->kernel_errno = 0;
        v->message[0] = '\0';
        return 0;
}
