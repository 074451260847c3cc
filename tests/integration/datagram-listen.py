#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A stand-in for the service manager's $NOTIFY_SOCKET or journald's
/run/systemd/journal/socket, for test-notify.sh.

usage: datagram-listen.py SOCKET OUT

Binds an AF_UNIX datagram socket at SOCKET and appends every datagram to
OUT as one JSON object per line: {"KEY": "value", ...} plus "_T" (seconds
since the listener started). Both protocols are KEY=value lines; the
journal's native protocol also sends a value holding a newline as "KEY\\n",
a 64-bit little-endian length, the bytes and "\\n", which is decoded too.
A KEY sent twice keeps its last value (sd_notify and hcbsd send none twice).
"""
import json
import os
import socket
import struct
import sys
import time


def parse(data):
    fields = {}
    i = 0
    while i < len(data):
        nl = data.find(b"\n", i)
        if nl < 0:
            nl = len(data)
        line = data[i:nl]
        if b"=" in line:
            key, _, value = line.partition(b"=")
            i = nl + 1
        else:  # binary-safe form
            key = line
            (size,) = struct.unpack_from("<Q", data, nl + 1)
            start = nl + 1 + 8
            value = data[start:start + size]
            i = start + size + 1
        fields[key.decode()] = value.decode(errors="replace")
    return fields


def main():
    path, out = sys.argv[1], sys.argv[2]
    if os.path.exists(path):
        os.unlink(path)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    os.chmod(path, 0o666)
    start = time.monotonic()
    with open(out, "a", buffering=1) as f:
        while True:
            data = sock.recv(1 << 20)
            fields = parse(data)
            fields["_T"] = round(time.monotonic() - start, 3)
            f.write(json.dumps(fields) + "\n")


if __name__ == "__main__":
    main()
