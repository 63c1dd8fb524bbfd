#!/usr/bin/env python3
"""envfile-compare.py CHECK.json ENV0 BASE0: does the environment systemd
set (ENV0, /usr/bin/env -0 under EnvironmentFile=) hold exactly the keys
and values `zealot check --json` reports? Variables of the baseline run
(BASE0, no EnvironmentFile=) that zealot does not report are systemd's
own and ignored. Prints the differences; exit 0 when there are none."""
import json
import sys


def env0(path):
    out = {}
    with open(path, "rb") as f:
        for item in f.read().split(b"\0"):
            if item:
                k, _, v = item.partition(b"=")
                out[k.decode("utf-8", "surrogateescape")] = v.decode("utf-8", "surrogateescape")
    return out


keys = json.load(open(sys.argv[1]))["keys"]
got = env0(sys.argv[2])
base = env0(sys.argv[3])
bad = 0
for k, v in sorted(got.items()):
    if k in keys:
        if keys[k] != v:
            print("# %s: systemd sets %r, zealot read %r" % (k, v, keys[k]))
            bad = 1
    elif k not in base:
        print("# %s: systemd sets %r, zealot reports no such key" % (k, v))
        bad = 1
for k, v in sorted(keys.items()):
    if k not in got:
        print("# %s: zealot read %r, systemd sets nothing" % (k, v))
        bad = 1
sys.exit(bad)
