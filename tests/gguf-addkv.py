#!/usr/bin/env python3
"""gguf-addkv.py IN OUT KEY=FLOAT...: IN with each KEY an f32 key-value
(a bool one for KEY=true or KEY=false),
written first in the header (then a general.description string whose
length makes the bytes inserted a multiple of 64, so every tensor's data
keeps its offset and alignment). For tests of laws that read metadata the
synthetic payloads do not write."""
import struct
import sys

src, dst, pairs = sys.argv[1], sys.argv[2], sys.argv[3:]
data = open(src, "rb").read()
assert data[:4] == b"GGUF", "not a GGUF"
version, n_tensors, n_kv = struct.unpack_from("<IQQ", data, 4)


def kv_str(key, typ, payload):
    k = key.encode()
    return struct.pack("<Q", len(k)) + k + struct.pack("<I", typ) + payload


def kv(key, v):
    if v in ("true", "false"):
        return kv_str(key, 7, struct.pack("<B", v == "true"))
    return kv_str(key, 6, struct.pack("<f", float(v)))


ins = b"".join(kv(k, v) for k, v in (p.split("=", 1) for p in pairs))
head = kv_str("general.description", 8, struct.pack("<Q", 0))
pad = (-(len(ins) + len(head))) % 64
ins += kv_str("general.description", 8, struct.pack("<Q", pad) + b"." * pad)
out = data[:4] + struct.pack("<IQQ", version, n_tensors, n_kv + len(pairs) + 1) + ins + data[24:]
open(dst, "wb").write(out)
