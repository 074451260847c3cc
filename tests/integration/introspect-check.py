#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Checks that what hcbsd serves matches the API contract, dbus/org.hcbsd1.xml.

usage: introspect-check.py CONTRACT.xml INTERFACE SERVED.xml

Every method (argument types and directions, in order), property (type and
access) and signal (argument types) the contract declares for INTERFACE must
be served identically. Members the daemon serves beyond the contract are
reported but do not fail (the contract is what clients rely on).
Exit status: 0 match, 1 mismatch, 2 usage or unreadable input.
"""

import sys
import xml.etree.ElementTree as ET


def members(path, iface_name):
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as e:
        print(f"cannot read {path}: {e}")
        sys.exit(2)
    for iface in root.iter("interface"):
        if iface.get("name") != iface_name:
            continue
        out = {}
        for m in iface.findall("method"):
            out[("method", m.get("name"))] = [
                (a.get("type"), a.get("direction", "in")) for a in m.findall("arg")
            ]
        for s in iface.findall("signal"):
            out[("signal", s.get("name"))] = [a.get("type") for a in s.findall("arg")]
        for p in iface.findall("property"):
            out[("property", p.get("name"))] = (p.get("type"), p.get("access"))
        return out
    return None


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    contract_path, iface, served_path = sys.argv[1:]
    contract = members(contract_path, iface)
    served = members(served_path, iface)
    if contract is None:
        print(f"{contract_path} has no interface {iface}")
        return 2
    if served is None:
        print(f"the daemon does not serve interface {iface}")
        return 1
    bad = 0
    for key, want in sorted(contract.items()):
        kind, name = key
        got = served.get(key)
        if got is None:
            print(f"missing {kind} {iface}.{name}")
            bad += 1
        elif got != want:
            print(f"{kind} {iface}.{name}: contract {want}, served {got}")
            bad += 1
    for kind, name in sorted(set(served) - set(contract)):
        print(f"note: {kind} {iface}.{name} is served but not in the contract")
    print(f"{iface}: {len(contract)} members checked, {bad} mismatches")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
