#!/usr/bin/env bash
# synth-sums.sh ZEALOT OUT: what `zealot synth` writes, every architecture
# at its defaults and with each key set alone, every preset, the projector
# and the adapters: one line per case (its exit status, the SHA-256 of each
# file it wrote, holes read as their offsets, and of its stderr), to diff
# a refactoring's before and after:
#
#   scripts/synth-sums.sh /tmp/zealot-before /tmp/before.sums
#   scripts/synth-sums.sh ./zealot /tmp/after.sums
#   diff /tmp/before.sums /tmp/after.sums
#
# A sparse file is hashed by its data segments (SEEK_DATA/SEEK_HOLE) and
# their offsets, so the presets' 16 GiB files take a second, not minutes.
set -u
[ $# -eq 2 ] || { sed -n '2,11s/^# \{0,1\}//p' "$0"; exit 2; }
Z=$(realpath "$1")
OUT=$(realpath -m "$2")
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 3

# one key set alone (a value unlike every default), then a few together
sets=(
	"" layers=6 nextn=1 embd=512 ff=1024 heads=8 kv_heads=1 kv_heads=4 head_dim=128 ctx=4096 vocab=1000
	embd_rows=600 heads_meta=2 kv_heads_meta=1 head_dim_meta=32 head_dim_v_meta=32 out_rows=128 rope_dims=32
	interval=2 ssm_conv=3 ssm_state=16 ssm_groups=1 ssm_dt_rank=2 swa=256 swa=0 swa_pattern=3 experts=4
	experts=0 experts_used=1 ff_exp=128 kv_lora=32 q_lora=0 q_lora=64 idx_heads=2 idx_top_k=64 head_dim_v=16
	lead_dense=2 lead_dense=0 shared=2 gating=1 gating=3 probs_b=0 probs_b=1 w_norm=0 w_norm=1 w_scale=10
	"groups=2 groups_used=1" qk_norm=1 qkv_bias=1 mha=1 temp_scale=1 temp_scale=7 gate_up=1 latent=64
	mtp_tensors=0 mtp_tensors=1 efforts=0 split=2 "type=142 bytes=50000000" head_dim_swa=32 kv_heads_swa=1
	shared_kv=2 kv_eq=0 kv_eq=1 per_layer=64 type=q8_0 type=bf16 type=f32 type=q4_K type=142 name=foo
	exp_type=mxfp4 answer=Hi "answer=Hi alt=Bye" "answer=Hi image_answer=Red" "nextn=1 mtp_tensors=0"
	"embd=512 ff=1024 type=q4_0" "embd=512 ff=512 head_dim=128 rope_dims=128 heads=4 kv_heads=2 type=q8_0"
)

archs=$("$Z" synth qqqqqq -o x.gguf 2>&1 | sed 's/.*synth knows //; s/)$//' | tr -d ',')
[ -n "$archs" ] || { echo "synth-sums: no architecture list from $Z" >&2; exit 3; }

# case NAME ARGS...: run synth into d/NAME*, record the exit status
case_() {
	local name=$1
	shift
	mkdir -p "d/$name"
	"$Z" synth "$@" -o "d/$name/out.gguf" 2>"d/$name/stderr"
	echo "$?" >"d/$name/rc"
	sed -i "s|$W/||g" "d/$name/stderr"
}

n=0
for a in $archs; do
	for s in "${sets[@]}"; do
		args=()
		for kv in $s; do args+=(--set "$kv"); done
		case_ "$a.$n" "$a" "${args[@]}"
		n=$((n + 1))
	done
done
for p in bonsai-9b bonsai-27b swift-27b ghost-mtp nosuch; do
	case_ "preset.$p" --preset "$p"
	case_ "preset.$p.ctx" --preset "$p" --set ctx=65536
done
case_ clip clip
case_ clip.red clip --set red=1
case_ clip.dim clip --set projection_dim=512
case_ clip.preset clip --preset bonsai-9b-mmproj
case_ clip.bad clip --preset nosuch
"$Z" synth llama --set answer=Hi --set alt=Bye -o base.gguf 2>/dev/null
"$Z" synth qwen35 -o base35.gguf 2>/dev/null
case_ lora lora --base base35.gguf
case_ lora.r4 lora --base base35.gguf --set rank=4 --set alpha=2 --set touch_embd=1 --set base_name=b
case_ lora.answer lora --base base.gguf --set answer=Bye
case_ lora.noanswer lora --base base.gguf --set answer=Nope
case_ lora.nobase lora

python3 - "$W/d" "$OUT" <<'PY'
import hashlib, os, sys

def digest(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        fd = f.fileno()
        size = os.fstat(fd).st_size
        h.update(b"size %d\n" % size)
        off = 0
        while off < size:
            try:
                start = os.lseek(fd, off, os.SEEK_DATA)
            except OSError:
                break
            end = os.lseek(fd, start, os.SEEK_HOLE)
            h.update(b"at %d\n" % start)
            os.lseek(fd, start, os.SEEK_SET)
            left = end - start
            while left:
                b = os.read(fd, min(left, 1 << 20))
                h.update(b)
                left -= len(b)
            off = end
    return h.hexdigest()[:24]

root, out = sys.argv[1], sys.argv[2]
with open(out, "w") as o:
    for name in sorted(os.listdir(root)):
        d = os.path.join(root, name)
        rc = open(os.path.join(d, "rc")).read().strip()
        parts = [name, "rc=" + rc, "err=" + digest(os.path.join(d, "stderr"))]
        for f in sorted(os.listdir(d)):
            if f.endswith(".gguf"):
                parts.append(f + "=" + digest(os.path.join(d, f)))
        o.write(" ".join(parts) + "\n")
PY
echo "synth-sums: $(wc -l <"$OUT") cases, $(grep -c 'rc=0' "$OUT") written, in $OUT" >&2
