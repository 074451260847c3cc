/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl-bus.h"
#include "ctl-cmdline.h"
#include "ctl-format.h"
#include "ctl-getopt.h"
#include "ctl-json.h"
#include "ctl-units.h"
#include "ctl-verbs.h"
#include "macro.h"
#include "name.h"
#include "strutil.h"

/*
 * tree: the hierarchy drawn from ListGroups().
 *
 * Sorting the names with '/' below every other character puts them in
 * depth-first pre-order ("a", "a/b", "a-c" rather than "a", "a-c", "a/b"),
 * so one forward pass with a stack of the open ancestors finds each
 * group's parent (and adds its bandwidth to the parent's children), and a
 * scan past each node's descendants tells whether it is its parent's last
 * child, for the drawing.
 * Position 0 is hcbsd's root, whose bandwidth is the capacity.
 *
 * Services' own reservations (ListUnits) share that capacity with the
 * groups (under systemd it is the slice's), so they count in the root's
 * children; they are drawn in a section of their own below the tree, one
 * heading per slice, since their cgroups are not hcbsd's groups.
 */

typedef struct TreeNode {
        const char *name;    /* "" for the root */
        const char *segment; /* last part of the name */
        unsigned depth;      /* 0 for the root */
        uint64_t runtime, period;
        uint64_t bw, children_bw;
        size_t nchildren;
        bool last;           /* the last child of its parent */
        const char *cpus;    /* the CPUs it was given (rtmax v7), or NULL / "" */
} TreeNode;

typedef struct Tree {
        TreeNode *v;
        size_t n;
} Tree;

static int name_cmp(const void *a, const void *b) {
        const unsigned char *x = (const unsigned char *) ((const TreeNode *) a)->name;
        const unsigned char *y = (const unsigned char *) ((const TreeNode *) b)->name;

        for (; *x && *x == *y; x++, y++)
                ;
        unsigned cx = *x == '/' ? 1 : *x, cy = *y == '/' ? 1 : *y;
        return (int) cx - (int) cy;
}

static unsigned name_depth(const char *name) {
        unsigned d = 1;

        for (; *name; name++)
                d += *name == '/';
        return d;
}

static bool is_parent_of(const TreeNode *p, const TreeNode *c) {
        size_t len = strlen(p->name);

        if (p->depth == 0)
                return c->depth == 1;
        return p->depth + 1 == c->depth && strncmp(p->name, c->name, len) == 0 && c->name[len] == '/';
}

/* Forward pass: charges each node's bandwidth to its parent. */
static void tree_link(Tree *t) {
        size_t stack[HCBS_NAME_DEPTH_MAX + 1] = { 0 };

        for (size_t k = 1; k < t->n; k++) {
                TreeNode *node = &t->v[k];
                unsigned d = MIN(node->depth, HCBS_NAME_DEPTH_MAX);
                TreeNode *parent = &t->v[stack[d - 1]];

                if (is_parent_of(parent, node)) {
                        parent->children_bw += node->bw;
                        parent->nchildren++;
                }
                stack[d] = k;
        }
}

/* A node is last if the next node not below it is shallower (O(n * depth)). */
static void tree_mark_last(Tree *t) {
        for (size_t k = 1; k < t->n; k++) {
                size_t j = k + 1;

                while (j < t->n && t->v[j].depth > t->v[k].depth)
                        j++;
                t->v[k].last = j >= t->n || t->v[j].depth < t->v[k].depth;
        }
}

static int tree_build(const CtlGroupList *l, const CtlManagerProps *p, const CtlUnitList *units, Tree *ret) {
        Tree t = { .n = l->n + 1 };

        t.v = calloc(t.n, sizeof(TreeNode));
        if (!t.v)
                return -ENOMEM;
        t.v[0] = (TreeNode) { .name = "", .segment = "", .runtime = p->capacity_runtime,
                              .period = p->capacity_period, .bw = ctl_bw(p->capacity_period, p->capacity_runtime) };
        for (size_t i = 0; i < l->n; i++) {
                const CtlGroup *g = &l->v[i];
                const char *slash = strrchr(g->name, '/');

                t.v[i + 1] = (TreeNode) { .name = g->name, .segment = slash ? slash + 1 : g->name,
                                          .depth = name_depth(g->name), .runtime = g->runtime,
                                          .period = g->period, .bw = ctl_bw(g->period, g->runtime),
                                          .cpus = g->cpus };
        }
        qsort(t.v + 1, l->n, sizeof(TreeNode), name_cmp);
        tree_link(&t);
        tree_mark_last(&t);
        t.v[0].children_bw += ctl_unit_list_bw(units);
        *ret = t;
        return 0;
}

static uint64_t node_free(const TreeNode *n) {
        return n->bw > n->children_bw ? n->bw - n->children_bw : 0;
}

/* Opens n's object and its children array; the root also names its cgroup. */
static void tree_json_node(Json *j, const TreeNode *n, const char *cgroup_root) {
        json_object_begin(j);
        json_kv_string(j, "name", n->name);
        if (cgroup_root)
                json_kv_string(j, "cgroup_root", cgroup_root);
        json_kv_uint(j, "runtime_us", n->runtime);
        json_kv_uint(j, "period_us", n->period);
        json_kv_double(j, "bandwidth", ctl_bw_fraction(n->bw));
        json_kv_uint(j, "bandwidth_fp", n->bw);
        json_kv_double(j, "children_bandwidth", ctl_bw_fraction(n->children_bw));
        json_kv_double(j, "free", ctl_bw_fraction(node_free(n)));
        json_kv_uint(j, "free_fp", node_free(n));
        if (n->cpus && n->cpus[0])
                json_kv_string(j, "cpus", n->cpus);
        json_key(j, "children");
        json_array_begin(j);
}

static void tree_json_close(Json *j) {
        json_array_end(j);
        json_object_end(j);
}

static void tree_print_json(const Tree *t, const char *cgroup_root, const CtlUnitList *units) {
        int open = 0; /* depth of the deepest open node */
        Json j;

        json_init(&j, stdout);
        tree_json_node(&j, &t->v[0], cgroup_root ? cgroup_root : "");
        for (size_t k = 1; k < t->n; k++) {
                for (; open >= (int) t->v[k].depth; open--)
                        tree_json_close(&j);
                tree_json_node(&j, &t->v[k], NULL);
                open = (int) t->v[k].depth;
        }
        for (; open > 0; open--)
                tree_json_close(&j);
        json_array_end(&j); /* the root's children */
        json_key(&j, "units");
        ctl_units_json(&j, units);
        json_object_end(&j);
        json_finish(&j);
}

typedef struct Glyphs {
        const char *branch, *last, *pipe, *space;
} Glyphs;

static const Glyphs *tree_glyphs(void) {
        static const Glyphs utf8 = { "\u251c\u2500 ", "\u2514\u2500 ", "\u2502  ", "   " };
        static const Glyphs ascii = { "|- ", "`- ", "|  ", "   " };
        const char *codeset;

        if (!setlocale(LC_CTYPE, ""))
                return &ascii;
        codeset = nl_langinfo(CODESET);
        return codeset && strcmp(codeset, "UTF-8") == 0 ? &utf8 : &ascii;
}

/* The drawn label of node k: ancestors' rails, its own branch, its segment. */
static void tree_label(const TreeNode *n, const bool anc_last[], const Glyphs *g, char *buf, size_t size) {
        buf[0] = '\0';
        if (n->depth == 0) {
                hcbs_strbuf_append(buf, size, "hcbsd");
                return;
        }
        for (unsigned i = 1; i < n->depth; i++)
                hcbs_strbuf_append(buf, size, "%s", anc_last[i] ? g->space : g->pipe);
        hcbs_strbuf_append(buf, size, "%s%s", n->last ? g->last : g->branch, n->segment);
}

static int tree_add_row(Table *tab, const TreeNode *n, const char *label) {
        char res[2 * HCBS_DURATION_STRLEN], bw[HCBS_BW_STRLEN], fb[HCBS_BW_STRLEN], free_text[HCBS_BW_STRLEN + 128];

        free_text[0] = '\0';
        if (n->depth == 0 || n->nchildren > 0)
                snprintf(free_text, sizeof(free_text), "free %s", hcbs_bw_format(node_free(n), fb));
        if (n->cpus && n->cpus[0])
                hcbs_strbuf_append(free_text, sizeof(free_text), "%scpus %.100s", free_text[0] ? ", " : "", n->cpus);
        return table_add_row(tab, (const char *const[]) {
                label, ctl_format_reservation(n->runtime, n->period, res), hcbs_bw_format(n->bw, bw), free_text,
        });
}

static int tree_add_groups(Table *tab, const Tree *t, const Glyphs *g) {
        bool anc_last[HCBS_NAME_DEPTH_MAX + 2] = {};
        char label[HCBS_NAME_MAX + 4 * (HCBS_NAME_DEPTH_MAX + 1) * 4];
        int r = 0;

        for (size_t k = 0; k < t->n && r >= 0; k++) {
                const TreeNode *n = &t->v[k];

                tree_label(n, anc_last, g, label, sizeof(label));
                if (n->depth <= HCBS_NAME_DEPTH_MAX)
                        anc_last[n->depth] = n->last;
                r = tree_add_row(tab, n, label);
        }
        return r;
}

/* Length of the slice part of a unit's cgroup ("hcbs.slice" of "hcbs.slice/motor.service"). */
static size_t unit_slice_len(const CtlUnit *u) {
        const char *slash = strrchr(u->cgroup, '/');

        return slash ? (size_t) (slash - u->cgroup) : 0;
}

static bool same_slice(const CtlUnit *a, const CtlUnit *b) {
        size_t n = unit_slice_len(a);

        return n == unit_slice_len(b) && strncmp(a->cgroup, b->cgroup, n) == 0;
}

/* A blank line and "units in SLICE:" before the first unit of each slice. */
static int tree_add_slice_heading(Table *tab, const CtlUnit *u) {
        char heading[512];
        int r;

        r = table_add_row(tab, (const char *const[]) { "", "", "", "" });
        if (r < 0)
                return r;
        if (unit_slice_len(u) > 0)
                snprintf(heading, sizeof(heading), "units in %.*s:", (int) unit_slice_len(u), u->cgroup);
        else
                snprintf(heading, sizeof(heading), "units:");
        return table_add_row(tab, (const char *const[]) { heading, "", "", "" });
}

/* "unit", and the policy hcbsd gives the unit's main process unless it keeps its own. */
static const char *unit_marker(const CtlUnit *u, char *buf, size_t size) {
        char pol[CTL_POLICY_STRLEN];

        if (strcmp(u->policy, "keep") == 0)
                snprintf(buf, size, "unit");
        else
                snprintf(buf, size, "unit, %s", ctl_unit_policy_format(u, pol));
        return buf;
}

static int tree_add_unit(Table *tab, const CtlUnit *u, bool last, const Glyphs *g) {
        char label[512], res[2 * HCBS_DURATION_STRLEN], bw[HCBS_BW_STRLEN], marker[CTL_POLICY_STRLEN + 8];

        snprintf(label, sizeof(label), "%s%s", last ? g->last : g->branch, u->unit);
        return table_add_row(tab, (const char *const[]) {
                label, ctl_format_reservation(u->runtime, u->period, res), hcbs_bw_format(ctl_unit_bw(u), bw),
                unit_marker(u, marker, sizeof(marker)),
        });
}

static int tree_add_units(Table *tab, const CtlUnitList *l, const Glyphs *g) {
        int r = 0;

        for (size_t i = 0; i < l->n && r >= 0; i++) {
                const CtlUnit *u = &l->v[i];

                if (i == 0 || !same_slice(&l->v[i - 1], u))
                        r = tree_add_slice_heading(tab, u);
                if (r >= 0)
                        r = tree_add_unit(tab, u, i + 1 == l->n || !same_slice(u, &l->v[i + 1]), g);
        }
        return r;
}

static int tree_print_text(const Tree *t, const CtlUnitList *units) {
        static const bool right[] = { false, true, true, false };
        Table *tab = table_new(ELEMENTSOF(right), NULL, right);
        const Glyphs *g = tree_glyphs();
        int r;

        if (!tab)
                return ctl_fail_errno(-ENOMEM, "cannot build the tree");
        r = tree_add_groups(tab, t, g);
        if (r >= 0)
                r = tree_add_units(tab, units, g);
        if (r >= 0)
                table_print(tab, stdout);
        table_free(tab);
        return r < 0 ? ctl_fail_errno(r, "cannot build the tree") : CTL_EXIT_OK;
}

int verb_tree(Ctl *ctl, int argc, char *argv[]) {
        CtlManagerProps p = {};
        CtlGroupList l = {};
        CtlUnitList units = {};
        Tree t = {};
        CtlParsed a;
        int r;

        r = ctl_parse_plain_verb(ctl, argc, argv, 0, 0, &a);
        if (r != CTL_EXIT_OK || a.help)
                return r;
        r = ctl_get_manager_props(ctl, &p);
        if (r == CTL_EXIT_OK)
                r = ctl_list_groups(ctl, &l);
        if (r == CTL_EXIT_OK)
                r = ctl_list_units(ctl, true, &units);
        if (r == CTL_EXIT_OK && tree_build(&l, &p, &units, &t) < 0)
                r = ctl_fail_errno(-ENOMEM, "cannot build the tree");
        if (r == CTL_EXIT_OK && ctl->json)
                tree_print_json(&t, p.cgroup_root, &units);
        else if (r == CTL_EXIT_OK)
                r = tree_print_text(&t, &units);
        free(t.v);
        ctl_unit_list_done(&units);
        ctl_group_list_done(&l);
        ctl_props_free(ctl_manager_props, &p);
        return r;
}
