#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Writes the seed corpora of corpus/ (run from anywhere; rerun after changing a seed).

Seeds are small real inputs: the shipped configuration and the test fixtures,
state and plan files as hcbsd writes them, and method-call options encoded for
fuzz-bus-options (TABLE SIGNATURE \\0 VALUES, see fuzz-bus-options.c).
Reproducers of findings live next to them as regress-*, written by hand.
"""
import glob
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def w(harness, name, data):
    d = os.path.join(HERE, 'corpus', harness)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, name), 'wb') as f:
        f.write(data)


for i, s in enumerate(["media/audio", "10ms", "1.5s", "500us", "250", "90%", "90.5%", "100%", "0.000001%",
                       "a/b/c/d/e/f/g/h", "motor@left.service", "cpu.rt", "18446744073709551us", "1.0005ms"]):
    w('fuzz-values', 'str-%02d' % i, s)
for i, (p, bw) in enumerate([(10000, 1 << 19), (1000000, 943718), (4000000, 1 << 20), (7, 3)]):
    w('fuzz-values', 'bw-%02d' % i, struct.pack('<QQ', p, bw))

for i, f in enumerate([ROOT + '/conf.d/hcbsd.conf', ROOT + '/conf.d/50-example.conf.example'] +
                      sorted(glob.glob(ROOT + '/tests/fixtures/conf/*.conf'))):
    w('fuzz-conf', 'file-%02d' % i, open(f, 'rb').read())
w('fuzz-conf', 'main-and-dropin', b"[Manager]\nCapacity=80%\n[Group media]\nRuntime=20ms\nPeriod=100ms\n\0"
  b"[Group media/audio]\nRuntime=5ms\nPeriod=100ms\n[Group media]\nRuntime=30ms\n")

w('fuzz-persist', 'groups', "# hcbsd groups v1\naudio 500 5000\nmedia 20000 100000\nmedia/video 10000 100000\n")
w('fuzz-persist', 'header-only', "# hcbsd groups v1\n")
w('fuzz-persist', 'max', "# hcbsd groups v1\nbox max 100000\nbox/rt 500 100000\n")

w('fuzz-journal', 'plan', "# hcbsd plan v1\nW 1 1000000 0 hcbs\nW 0 0 1000000 hcbs/audio\nR 0 0 0 hcbs/audio\n")
w('fuzz-journal', 'plan-max', "# hcbsd plan v1\nW 2 -1 1000000 media\nW 2 5000 10000 media/audio\n")

units = sorted(glob.glob(ROOT + '/tests/fixtures/generator/*/etc/systemd/system/*.service') +
               glob.glob(ROOT + '/tests/fixtures/generator/*/usr/lib/systemd/system/*.service'))
for i, f in enumerate(units):
    w('fuzz-unit-file', 'unit-%02d' % i, os.path.basename(f).encode() + b"\n" + open(f, 'rb').read())
w('fuzz-unit-file', 'instance-dropin',
  "a-b-c@left.service\n[Service]\nExecStart=/bin/true\nCPUSchedulingPolicy=fifo\nCPUSchedulingPriority=80\n"
  "[X-HCBS]\nRuntime=2ms\nPeriod=10ms\n\0[X-HCBS]\nRuntime=3ms\n")
w('fuzz-unit-file', 'rt-keys', "motor.service\n[Service]\nRTRuntime=2ms\nRTPeriod=10ms\nCPUSchedulingPolicy=rr\n")
w('fuzz-unit-file', 'continuation', "x-y.service\n[X-HCBS]\nRuntime=\\\n  2ms\nPeriod=10ms ; not a comment\n")


def s(x):
    x = x.encode()
    return bytes([len(x)]) + x


def entry(key, sig, val):
    return s(key) + s(sig) + val


calls = {
    'create': (0, 'a{sv}', bytes([3]) + entry('persistent', 'b', b'\1') + entry('grow_parents', 'b', b'\0') +
               entry('move_processes_to', 's', s('media'))),
    'set': (1, 'a{sv}', bytes([1]) + entry('grow_parents', 'b', b'\1')),
    'delete': (2, 'a{sv}', bytes([1]) + entry('migrate_to', 's', s(''))),
    'attach': (3, 'a{sv}', bytes([2]) + entry('policy', 's', s('fifo')) + entry('priority', 'i', struct.pack('<i', 50))),
    'attach-args': (3, 'saua{sv}', s('media/audio') + bytes([2]) + struct.pack('<II', 1, 2) + bytes([1]) +
                    entry('policy', 's', s('rr'))),
    'wrong-type': (3, 'a{sv}', bytes([1]) + entry('priority', 's', s('50'))),
    'unknown': (4, 'a{sv}', bytes([1]) + entry('bogus', 'u', struct.pack('<I', 7))),
    'nested': (0, 'a{sv}', bytes([1]) + entry('persistent', 'a{sv}', bytes([1]) + entry('x', 'ai', bytes([1]) + b'\1\0\0\0'))),
}
for n, (t, sig, vals) in calls.items():
    w('fuzz-bus-options', n, bytes([t]) + sig.encode() + b'\0' + vals)
