/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>

/* Prints the full manual (hcbsctl --help) to stdout. */
void ctl_help_main(void);

/* Prints the manual of one command; returns false if there is no such command. */
bool ctl_help_verb(const char *verb);
