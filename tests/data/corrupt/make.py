#!/usr/bin/env python3
"""Write the hand-made corrupt GGUF fixtures in this folder.

Each file breaks one thing the reader must refuse with a clear error
(exit 3 from `zealot inspect`), never a crash, hang or huge allocation.
Run it again after changing a fixture; the outputs are committed.
"""
import struct

def s(x):
    b = x.encode() if isinstance(x, str) else x
    return struct.pack('<Q', len(b)) + b

def kv_str(k, v):
    return s(k) + struct.pack('<I', 8) + s(v)

def kv_u32(k, v):
    return s(k) + struct.pack('<I', 4) + struct.pack('<I', v)

def head(n_tensors, n_kv, version=3):
    return b'GGUF' + struct.pack('<IQQ', version, n_tensors, n_kv)

def tensor(name, dims, typ, off):
    return s(name) + struct.pack('<I', len(dims)) + b''.join(struct.pack('<Q', d) for d in dims) + struct.pack('<IQ', typ, off)

def pad(b, a=32):
    return b + b'\0' * (-len(b) % a)

ARCH = kv_str('general.architecture', 'llama')
GEOM = (kv_u32('llama.block_count', 1) + kv_u32('llama.context_length', 4096) +
        kv_u32('llama.embedding_length', 64) + kv_u32('llama.attention.head_count', 4))

fixtures = {
    'empty.gguf': b'',
    'magic.gguf': b'GGML' + b'\0' * 60,
    'version9.gguf': head(0, 0, version=9),
    'version1.gguf': head(0, 0, version=1),
    'truncated-kv.gguf': head(0, 3) + ARCH,
    'truncated-mid-string.gguf': head(0, 1) + s('general.architecture')[:12],
    'huge-kv-count.gguf': head(0, 1 << 62) + ARCH,
    'huge-tensor-count.gguf': head(1 << 40, 1) + ARCH,
    'huge-key-length.gguf': head(0, 1) + struct.pack('<Q', 1 << 40) + b'general',
    'huge-array.gguf': head(0, 1) + s('tokenizer.ggml.tokens') + struct.pack('<IIQ', 9, 8, 1 << 60),
    'nested-array.gguf': head(0, 1) + s('x') + struct.pack('<IIQ', 9, 9, 1) + struct.pack('<IQ', 4, 0),
    'bad-value-type.gguf': head(0, 1) + s('x') + struct.pack('<I', 77) + b'\0' * 8,
    'dup-key.gguf': head(0, 2) + ARCH + ARCH,
    'bad-dims.gguf': pad(head(1, 1) + ARCH + s('t') + struct.pack('<I', 9) + b'\0' * 80),
    'zero-dim.gguf': pad(head(1, 1) + ARCH + tensor('t', [0], 0, 0)),
    'long-name.gguf': pad(head(1, 1) + ARCH + tensor('x' * 80, [32], 0, 0)) + b'\0' * 128,
    'misaligned.gguf': pad(head(1, 1) + ARCH + tensor('t', [8], 0, 3)) + b'\0' * 64,
    'data-past-eof.gguf': pad(head(1, 1) + ARCH + tensor('t', [1024], 0, 0)) + b'\0' * 100,
    'overlap.gguf': pad(head(2, 1) + ARCH + tensor('a', [64], 0, 0) + tensor('b', [64], 0, 32)) + b'\0' * 512,
    'bad-alignment.gguf': head(0, 2) + ARCH + kv_u32('general.alignment', 24),
    'no-arch.gguf': head(0, 1) + kv_u32('x', 1),
    'no-block-count.gguf': head(0, 1) + ARCH,
    'short-head-array.gguf': head(0, 6) + ARCH + GEOM + s('llama.attention.head_count_kv') +
        struct.pack('<IIQ', 9, 4, 3) + struct.pack('<III', 1, 1, 1),
    # the engine's reader (ggml/src/gguf.cpp) refuses these too:
    'empty-key.gguf': head(0, 1) + s('') + struct.pack('<I', 4) + struct.pack('<I', 1),
    'alignment-type.gguf': head(0, 2) + ARCH + s('general.alignment') + struct.pack('<IQ', 10, 64),
    'dup-tensor.gguf': pad(head(2, 1) + ARCH + tensor('t', [8], 0, 0) + tensor('t', [8], 0, 32)) + b'\0' * 64,
    'elements-overflow.gguf': pad(head(1, 1) + ARCH + tensor('t', [1 << 32, 1 << 31], 0, 0)) + b'\0' * 64,
    'bytes-overflow.gguf': pad(head(1, 1) + ARCH + tensor('t', [1 << 31, 1 << 31], 0, 0)) + b'\0' * 64,
    # q4_K rows of 128 elements: "not a multiple of block size (256)"
    'row-block.gguf': pad(head(1, 1) + ARCH + tensor('blk.0.ssm_out.weight', [128, 2], 12, 0)) + b'\0' * 256,
    # type 4 (Q4_2) was removed from ggml: block size 0
    'removed-type.gguf': pad(head(1, 1) + ARCH + tensor('t', [32], 4, 0)) + b'\0' * 64,
    # data not back to back in the order of the infos: "has offset N, expected M"
    'gap.gguf': pad(head(2, 1) + ARCH + tensor('a', [64], 0, 0) + tensor('b', [64], 0, 512)) + b'\0' * 1024,
    'out-of-order.gguf': pad(head(2, 1) + ARCH + tensor('b', [64], 0, 256) + tensor('a', [64], 0, 0)) + b'\0' * 512,
    'string-count.gguf': head(0, 5) + ARCH + kv_str('llama.block_count', 'two') + GEOM[len(kv_u32('llama.block_count', 1)):],
    # the engine's model loader (llama-model-loader.cpp check_tensor_dims, and
    # its tensor count) refuses these; the header decides it (law S17):
    # a token list of 3 over a token_embd of 2 rows
    'vocab-vs-embd.gguf': pad(head(1, 6) + ARCH + GEOM + s('tokenizer.ggml.tokens') +
        struct.pack('<IIQ', 9, 8, 3) + s('a') + s('b') + s('c') + tensor('token_embd.weight', [64, 2], 0, 0)) +
        b'\0' * 512,
    # a block past block_count (1): the loader never creates it
    'blk-past-count.gguf': pad(head(1, 5) + ARCH + GEOM + tensor('blk.1.attn_norm.weight', [64], 0, 0)) +
        b'\0' * 256,
    # an output projection that does not lead back to n_embd (64)
    'attn-out-rows.gguf': pad(head(1, 5) + ARCH + GEOM + tensor('blk.0.attn_output.weight', [64, 32], 0, 0)) +
        b'\0' * 8192,
    # K of 32 rows where head_count_kv (4, from head_count) x key_length
    # (16, n_embd / head_count) is 64: llama's load_arch_tensors refuses it
    'attn-k-heads.gguf': pad(head(1, 5) + ARCH + GEOM + tensor('blk.0.attn_k.weight', [64, 32], 0, 0)) +
        b'\0' * 8192,
    # a header claiming a 2^30-token vocabulary: refused at once by the
    # header cap (1 GiB), before any walk (the sparse 8 GiB version is made
    # by tests/cli/inspect.sh)
    'vocab-2p30.gguf': head(0, 2) + ARCH + s('tokenizer.ggml.tokens') + struct.pack('<IIQ', 9, 8, 1 << 30) +
        b'\0' * 4096,
}

for name, data in fixtures.items():
    with open(name, 'wb') as f:
        f.write(data)
