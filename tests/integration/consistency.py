#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Checks that hcbsd's view and the kernel's agree, and that nothing is over-committed.

usage: consistency.py STATUS.json LIST.json CGROUP_ROOT

STATUS.json and LIST.json are `hcbsctl --json status` and `hcbsctl --json list`.
Checks, in the kernel's own fixed point (to_ratio = (runtime_ns << 20) / period_ns):
  - every listed group's cpu.rt_runtime_us / cpu.rt_period_us equal what is listed;
  - every directory below CGROUP_ROOT is a listed group (no leftovers, no strays);
  - every listed group's parent is listed (or is the root);
  - the top-level groups fit in the capacity, and each group's children fit in it;
  - the root's own files hold the capacity hcbsd reports.
Prints one line per problem; exit status 1 if any, 0 otherwise.
"""

import json
import os
import sys

SHIFT = 20


def to_ratio(period_us, runtime_us):
    if runtime_us < 0:
        return 1 << SHIFT
    if period_us == 0:
        return 0
    return ((runtime_us * 1000) << SHIFT) // (period_us * 1000)


def read_int(path):
    with open(path) as f:
        return int(f.read().strip())


def main():
    status_path, list_path, root = sys.argv[1:4]
    with open(status_path) as f:
        status = json.load(f)
    with open(list_path) as f:
        groups = json.load(f)
    problems = []
    listed = {g["name"]: g for g in groups}

    cap = to_ratio(status["capacity_period_us"], status["capacity_runtime_us"])
    try:
        k_rt = read_int(os.path.join(root, "cpu.rt_runtime_us"))
        k_p = read_int(os.path.join(root, "cpu.rt_period_us"))
        if (k_rt, k_p) != (status["capacity_runtime_us"], status["capacity_period_us"]):
            problems.append(f"root: kernel {k_rt}/{k_p}, hcbsd capacity "
                            f"{status['capacity_runtime_us']}/{status['capacity_period_us']}")
    except OSError as e:
        problems.append(f"root: {e}")

    for name, g in listed.items():
        d = os.path.join(root, name)
        try:
            k_rt = read_int(os.path.join(d, "cpu.rt_runtime_us"))
            k_p = read_int(os.path.join(d, "cpu.rt_period_us"))
        except OSError as e:
            problems.append(f"{name}: listed but unreadable in the kernel: {e}")
            continue
        if (k_rt, k_p) != (g["runtime_us"], g["period_us"]):
            problems.append(f"{name}: listed {g['runtime_us']}/{g['period_us']}, kernel {k_rt}/{k_p}")
        parent = name.rpartition("/")[0]
        if parent and parent not in listed:
            problems.append(f"{name}: parent {parent} is not listed")

    for dirpath, dirnames, _ in os.walk(root):
        for dn in dirnames:
            rel = os.path.relpath(os.path.join(dirpath, dn), root)
            if rel not in listed:
                problems.append(f"{rel}: a cgroup below the root that hcbsd does not list")

    children = {}
    for name, g in listed.items():
        children.setdefault(name.rpartition("/")[0], []).append(to_ratio(g["period_us"], g["runtime_us"]))
    for parent, bws in children.items():
        own = cap if parent == "" else to_ratio(listed[parent]["period_us"], listed[parent]["runtime_us"]) \
            if parent in listed else None
        if own is not None and sum(bws) > own:
            problems.append(f"{parent or 'root'}: children hold {sum(bws)} > {own} (fixed point)")

    for p in problems:
        print(p)
    print(f"{len(listed)} groups, capacity {cap}, top-level sum {sum(children.get('', []))}, "
          f"{len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
