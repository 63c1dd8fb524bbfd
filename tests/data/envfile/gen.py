#!/usr/bin/env python3
"""Write the hostile endpoint-file corpus of tests/cli/envfile.sh and
tests/fuzz/fuzz_envfile.c: the reproductions of issue 18 (named), then
files put together at random from the pieces systemd's EnvironmentFile=
reads in its own way (quotes, escapes, continuations, comments, CR, NUL,
blanks, odd keys, bad UTF-8). Run it from this directory; the output is
committed, so a change of Python's random module changes nothing."""
import random

named = {
    "repro-bare-cr": b"ALIAS=frank\rLD_PRELOAD=/tmp/evil.so\rLLAMA_ARG_CHAT_TEMPLATE=evil\n",
    "repro-user-newline": b'USER="nobody\nExecStartPre=/bin/touch /tmp/pwned"\n',
    "repro-model-escaped-newline": b'MODEL_FILE="/srv/m.gguf\\nExecStartPre=+/bin/touch /tmp/pwned"\n',
    "repro-gpu-newline": b'GPU="0\nExecStartPre=/bin/true"\n',
    "repro-percent": b"USER=nobody%n\nALIAS=a%%b%i\n",
    "comment-backslash": b"# a comment \\\nALIAS=hidden\n",
    "comment-backslash-crlf": b"# a comment \\\r\nALIAS=shown\r\n",
    "crlf": b"ALIAS=frank\r\nCTX_SIZE=4096\r\n",
    "nul": b"ALIAS=a\x00\nUSER=root\n",
    "continuation": b"EXTRA_ARGS=--a \\\n --b\nALIAS=x\n",
    "continuation-crlf": b"EXTRA_ARGS=--a \\\r\nALIAS=x\r\n",
    "unquoted-backslash": b"OVERRIDE_TENSOR=blk\\.0\\.ffn=CPU\n",
    "single-quoted-backslash": b"OVERRIDE_TENSOR='blk\\.0\\.ffn=CPU'\n",
    "double-quoted-escapes": b'ALIAS="a\\"b\\\\c\\$d\\`e\\nf"\n',
    "after-quote": b'ALIAS="a" b\n',
    "adjacent-quotes": b"ALIAS=\"a\"'b'\n",
    "unterminated": b'ALIAS="open\nUSER=root\n',
    "export": b"export ALIAS=x\n",
    "no-equals": b"ALIAS\nUSER=nobody\n",
    "key-blank": b"ALIAS =x\n  USER\t= nobody  \n",
    "key-digit": b"1ALIAS=x\n",
    "key-dash": b"AL-IAS=x\n",
    "empty-key": b"=x\n",
    "double-equals": b"==x\n",
    "bad-utf8-value": b"ALIAS=\xff\xfe\n",
    "bad-utf8-key": b"AL\xc3IAS=x\n",
    "overlong-utf8": b"ALIAS=\xc0\xaf\n",
    "good-utf8": "ALIAS=caf\u00e9 \u2603\n".encode(),
    "tab-in-value": b"ALIAS=a\tb\n",
    "trailing-blanks": b"ALIAS=a b \t \nUSER=  nobody\n",
    "escaped-trailing-blank": b"ALIAS='a '\nUSER=nobody\n",
    "inline-hash": b"ALIAS=a # not a comment\n",
    "semicolon-comment": b"; ALIAS=hidden\nUSER=nobody\n",
    "indented-comment": b"   # ALIAS=hidden\nUSER=nobody\n",
    "empty-values": b"MMPROJ_FILE=\nLORA_FILE=''\nPRESENCE_PENALTY=\"\"\n",
    "twice": b"ALIAS=a\nALIAS=b\n",
    "no-final-newline": b"ALIAS=last",
    "quote-no-final-newline": b"ALIAS='last'",
    "backslash-eof": b"ALIAS=last\\",
    "unknown-key": b"KV_CACHE_TYPE=q8_0\n",
    "path-env": b"PATH=/tmp/evil\n",
    "ld-preload": b"LD_PRELOAD=/tmp/evil.so\n",
    "gpu-words": b"GPU='0 LD_PRELOAD=/tmp/evil.so'\n",
    "gpu-percent": b"GPU=0%n\n",
    "gpu-quote": b"GPU='0\" \"LD_PRELOAD=/tmp/evil.so'\n",
    "user-words": b"USER='nobody ExecStartPre=/bin/true'\n",
    "model-semicolon": b"MODEL_FILE='/tmp/a b/m.gguf ; /bin/touch /tmp/pwned'\n",
    "model-quotes": b"MODEL_FILE='/tmp/q\"x\\y%i:z/m.gguf'\nMMPROJ_FILE=\"/home/p r/%h.gguf\"\n",
    "alias-percent": b"ALIAS=%n%i%%\nUSER=daemon\n",
}

good_keys = ["ALIAS", "USER", "GPU", "MODEL_FILE", "EXTRA_ARGS", "OVERRIDE_TENSOR", "CPU_FEATURES", "TENSOR_SPLIT",
             "RPC", "HOST", "COMPACTION_HUB", "MODEL_URL", "DEVICE", "BIND_ADDR"]
bad_keys = ["LD_PRELOAD", "export ALIAS", "AL IAS", "9X", "A-B", "", "LLAMA_ARG_MODEL"]
words = [b"a", b"b c", b"x=y", b"%n", b"$HOME", b"`id`", b"#h", b";s", b"\xc3\xa9", b"-x",
         b"/tmp/m.gguf", b"1,2", b"cpu"]
glue = [b" ", b"  ", b"\t", b"\\", b"\\\\", b"\\\n", b"\\\r\n", b"\\ ", b'"', b"'", b"\\\"", b"\r",
        b"\r\n", b"\n", b"\x00", b"\xff", b"\\n", b"\\$", b"#", b";", b"="]


def value(r):
    out = b""
    for _ in range(r.randint(0, 4)):
        out += r.choice(words)
        if r.random() < 0.5:
            out += r.choice(glue)
    if r.random() < 0.3:
        out = b"'" + out.replace(b"'", b"") + b"'"
    elif r.random() < 0.3:
        out = b'"' + out + b'"'
    return out


def line(r):
    k = r.random()
    if k < 0.08:
        return r.choice([b"# ", b"; ", b"  #"]) + value(r) + b"\n"
    if k < 0.12:
        return b"\n"
    key = r.choice(bad_keys if r.random() < 0.1 else good_keys).encode()
    pre = r.choice([b"", b" ", b"\t"])
    eq = r.choice([b"=", b"=", b"=", b" = ", b"= "])
    end = r.choice([b"\n", b"\n", b"\n", b"\r\n", b" \n", b""])
    return pre + key + eq + value(r) + end


def main():
    for name, data in named.items():
        with open(name + ".env", "wb") as f:
            f.write(data)
    r = random.Random(18)
    for i in range(120):
        used = set()
        body = b""
        for _ in range(r.randint(1, 5)):
            ln = line(r)
            body += ln
        with open("gen-%03d.env" % i, "wb") as f:
            f.write(body)


main()
