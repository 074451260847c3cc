/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The backend's read-only look at the kernel, for lib/kernel-mode.h's
 * verdict: cgroup mounts (/proc/self/mountinfo), /proc/cgroups, the RT files
 * at each hierarchy's root, the command line, the kernel's configuration
 * (/boot/config-RELEASE, else the symbols of /proc/kallsyms, read only when
 * no RT files exist), the sysctls, and where hcbsd's root would live. It
 * writes nothing and decides nothing. hcbsd (start-up, --check-kernel) and
 * hcbsctl (why, when hcbsd does not answer) share it.
 *
 * Every path is read below a prefix: "" on a machine, a fixture directory
 * in tests (tests/fixtures/kernel/), or $HCBS_KERNEL_ROOT, which lets a test
 * or 'make demo' see a kernel other than the one it runs on.
 */

#include "kernel-mode.h"

/* $HCBS_KERNEL_ROOT, or "" (the machine itself). */
const char *kernel_facts_prefix(void);

/*
 * Reads the facts below prefix for hcbsd's root (an absolute path; NULL or
 * "" for the kernel alone). A file that cannot be read leaves its fact
 * unknown or absent; returns 0, or -ENOMEM.
 */
int kernel_facts_read(const char *prefix, const char *root, HcbsKernelFacts *ret);

/* Reads kernel.sched_rt_{runtime,period}_us below prefix again into f (have_sysctls false when they cannot be read). */
void kernel_facts_read_sysctls(const char *prefix, HcbsKernelFacts *f);
