/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* hcbsctl's verbs, which hcbsctl.c dispatches to. */

#include "ctl.h"

/* The verbs (ctl-manage.c, ctl-process.c, ctl-show.c, ctl-tree.c, ctl-units.c). */
int verb_create(Ctl *ctl, int argc, char *argv[]);
int verb_set(Ctl *ctl, int argc, char *argv[]);
int verb_check(Ctl *ctl, int argc, char *argv[]);
int verb_apply(Ctl *ctl, int argc, char *argv[]);
int verb_delete(Ctl *ctl, int argc, char *argv[]);
int verb_attach(Ctl *ctl, int argc, char *argv[]);
int verb_detach(Ctl *ctl, int argc, char *argv[]);
int verb_run(Ctl *ctl, int argc, char *argv[]);
int verb_status(Ctl *ctl, int argc, char *argv[]);
int verb_list(Ctl *ctl, int argc, char *argv[]);
int verb_show(Ctl *ctl, int argc, char *argv[]);
int verb_stats(Ctl *ctl, int argc, char *argv[]);
int verb_tree(Ctl *ctl, int argc, char *argv[]);
int verb_units(Ctl *ctl, int argc, char *argv[]);
int verb_containers(Ctl *ctl, int argc, char *argv[]);
int verb_reserve_unit(Ctl *ctl, int argc, char *argv[]);
int verb_release_unit(Ctl *ctl, int argc, char *argv[]);
int verb_size(Ctl *ctl, int argc, char *argv[]); /* ctl-size.c */
int verb_why(Ctl *ctl, int argc, char *argv[]);  /* ctl-why.c */
