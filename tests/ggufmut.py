#!/usr/bin/env python3
"""Hostile values for a GGUF header's metadata, one key at a time.

  ggufmut.py keys FILE          one line a numeric key: NAME TYPE (a scalar),
                                NAME[0] and NAME[-1] TYPE for a numeric array
                                of at most 4096 entries (per-layer keys)
  ggufmut.py set FILE KEY VAL   rewrite KEY (or KEY[i]) of FILE in place: an
                                integer is cut to the key's width (-1 is all
                                ones), a float may be nan, inf or -inf, a bool
                                takes the byte
  ggufmut.py sample SEED BUDGET [--all] FILE...
                                the mutations of a sweep, one a line:
                                FILE KEY VALUE OFFSET NEWHEX OLDHEX (write
                                NEWHEX at OFFSET, run, write OLDHEX back);
                                see sample() for what a seed picks

The value keeps its type and width, so the header's layout (and every tensor
offset after it) stays as it was: only the number changes.
"""
import math
import struct
import sys

# GGUF value types: the struct format of each fixed-width one
FMT = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "B", 10: "Q", 11: "q", 12: "d"}
NAME = {0: "u8", 1: "i8", 2: "u16", 3: "i16", 4: "u32", 5: "i32", 6: "f32", 7: "bool", 10: "u64", 11: "i64", 12: "f64"}
STRING, ARRAY = 8, 9


def walk(b):
    """(key, type, offset of the value, array count or None) of every key."""
    magic, version, n_t, n_kv = struct.unpack_from("<4sIQQ", b, 0)
    assert magic == b"GGUF" and version >= 2, "not a GGUF v2+"
    at = 24
    for _ in range(n_kv):
        (n,) = struct.unpack_from("<Q", b, at)
        key = b[at + 8 : at + 8 + n].decode("utf-8", "replace")
        at += 8 + n
        (t,) = struct.unpack_from("<I", b, at)
        at += 4
        if t == ARRAY:
            et, cnt = struct.unpack_from("<IQ", b, at)
            at += 12
            yield key, et, at, cnt
            if et == STRING:
                for _ in range(cnt):
                    (sl,) = struct.unpack_from("<Q", b, at)
                    at += 8 + sl
            else:
                at += struct.calcsize("<" + FMT[et]) * cnt
        elif t == STRING:
            (sl,) = struct.unpack_from("<Q", b, at)
            at += 8 + sl
        else:
            yield key, t, at, None
            at += struct.calcsize("<" + FMT[t])


def header(path):
    with open(path, "rb") as f:
        return f.read(16 << 20)


def keys(path):
    for key, t, _, cnt in walk(header(path)):
        if t not in FMT:
            continue
        if cnt is None:
            print(key, NAME[t])
        elif 0 < cnt <= 4096:
            print(key + "[0]", NAME[t])
            if cnt > 1:
                print(key + "[-1]", NAME[t])


def pack(t, val):
    fmt = "<" + FMT[t]
    if t in (6, 12):
        return struct.pack(fmt, float(val))
    v = int(val)
    bits = 8 * struct.calcsize(fmt)
    v &= (1 << bits) - 1  # two's complement at the key's width
    if FMT[t].islower() and v >= 1 << (bits - 1):
        v -= 1 << bits
    return struct.pack(fmt, v)


def setkey(path, name, val):
    idx = None
    if name.endswith("]"):
        name, idx = name[:-1].split("[")
        idx = int(idx)
    for key, t, at, cnt in walk(header(path)):
        if key != name or t not in FMT or (cnt is None) != (idx is None):
            continue
        if idx is not None:
            at += struct.calcsize("<" + FMT[t]) * (idx % cnt)
        with open(path, "r+b") as f:
            f.seek(at)
            f.write(pack(t, val))
        return 0
    print("ggufmut: %s: no numeric key %s" % (path, name), file=sys.stderr)
    return 1


INTS = [0, 1, 2, 3, 7, 255, 65535, 65536, 2**31 - 1, 2**31, 2**32 - 1, 2**63 - 1, -1]
FLOATS = ["0", "-1", "nan", "inf", "-inf", "1e30", "1e-30"]
BOOLS = [0, 1, 2, 255]
HOT = [0, 1, 2**31 - 1, 2**32 - 1]  # the values every key meets first


def values(t):
    if t in (6, 12):
        return FLOATS
    if t == 7:
        return BOOLS
    return INTS


def targets(path):
    """(key, type, offset) of every numeric scalar and array end."""
    for key, t, at, cnt in walk(header(path)):
        if t not in FMT:
            continue
        if cnt is None:
            yield key, t, at
        elif 0 < cnt <= 4096:
            w = struct.calcsize("<" + FMT[t])
            yield key + "[0]", t, at
            if cnt > 1:
                yield key + "[-1]", t, at + w * (cnt - 1)


def sample(seed, budget, every, files):
    """What a sweep runs. Every (file, key) pair is one unit: --all runs each
    with every value of its type. Otherwise a seed runs: each key name
    (its architecture prefix dropped) of every file once and each file at
    least once, with one of the hot values (0, 1, 2^31-1, 2^32-1, or the
    type's first four); then every pair whose hash falls in the seed's
    slice (one in ROUNDS, so ROUNDS seeds in a row cover them all), with a
    value the seed draws; then random pairs and values up to BUDGET."""
    import random
    import zlib

    rng = random.Random(seed)
    pairs = []
    for f in files:
        for key, t, at in targets(f):
            pairs.append((f, key, t, at))
    out = []

    def emit(p, v):
        f, key, t, at = p
        with open(f, "rb") as fh:
            fh.seek(at)
            old = fh.read(struct.calcsize("<" + FMT[t]))
        out.append("%s %s %s %d %s %s" % (f, key, v, at, pack(t, v).hex(), old.hex()))

    if every:
        for p in pairs:
            for v in values(p[2]):
                emit(p, v)
        return out
    rng.shuffle(pairs)
    seen_name, seen_file, done = set(), set(), set()
    for i, p in enumerate(pairs):
        name = p[1].split(".", 1)[1] if "." in p[1] else p[1]
        if name in seen_name and p[0] in seen_file:
            continue
        seen_name.add(name)
        seen_file.add(p[0])
        done.add(i)
        hot = HOT if p[2] not in (6, 7, 12) else values(p[2])[:4]
        emit(p, rng.choice(hot))
    rounds = ROUNDS
    for i, p in enumerate(pairs):
        slot = zlib.crc32(("%s %s" % (p[0].rsplit("/", 1)[-1], p[1])).encode()) % rounds
        if i not in done and slot == seed % rounds:
            done.add(i)
            emit(p, rng.choice(values(p[2])))
    while len(out) < budget and pairs:
        p = rng.choice(pairs)
        emit(p, rng.choice(values(p[2])))
    return out


ROUNDS = 32


def main(argv):
    if len(argv) >= 5 and argv[1] == "sample":
        every = "--all" in argv
        files = [a for a in argv[4:] if a != "--all"]
        print("\n".join(sample(int(argv[2]), int(argv[3]), every, files)))
        return 0
    if len(argv) == 3 and argv[1] == "keys":
        keys(argv[2])
        return 0
    if len(argv) == 5 and argv[1] == "set":
        return setkey(argv[2], argv[3], argv[4])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
