#!/usr/bin/env bash
# Write src/payload/loader_attn.c: per architecture, the shapes the pinned
# engine's loader expects of each block's attention projections, read from
# its own source. For each architecture (llama-model.cpp's factory: case
# LLM_ARCH_X -> llama_model_Y), the body of llama_model_Y::load_arch_tensors
# in src/models/*.cpp is read:
#   create_tensor_qkv(layer, i, n_embd, Q, K, V, flags)   (attn_q/k/v or a fused attn_qkv)
#   create_tensor(tn(LLM_TENSOR_ATTN_OUT, "weight", i), {O, n_embd}, ...)
# An architecture is mirrored when its body has one such qkv call and one
# attn_output shape, creates no attention projection another way, does not
# redefine the sizes locally, and every Q, K, V, O is an expression listed in
# EXPR below. Any other architecture is written with its reason, and zealot
# says it does not check that architecture's attention shapes.
# tests/live/loader.sh regenerates it from the engine's source and fails when
# the committed file differs.
#
#   scripts/gen-loader-attn.sh [ENGINE_SRC] > src/payload/loader_attn.c
set -euo pipefail
src=${1:-${ZEALOT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/zealot}/engine-node-llama-cpp-3.21.1/src}
[ -r "$src/src/llama-model.cpp" ] || { echo "gen-loader-attn: no $src/src/llama-model.cpp" >&2; exit 3; }
rev=$(git -C "$src" log -1 --format='%h %cs' 2>/dev/null || echo unknown)

# the expressions, as the engine writes them (whitespace squeezed), and
# zealot's name for each (loader.c evaluates them with layer 0's hparams, as
# LLAMA_LOAD_LOCALS does; the _IL ones with the layer's own)
expr() {
	case "$1" in
	"n_embd") echo LX_EMBD ;;
	"n_embd_head_k * n_head" | "n_head*n_embd_head_k" | "n_head * n_embd_head_k") echo LX_HK_H ;;
	"n_embd_head_k * n_head * 2") echo LX_HK_H2 ;;
	"n_embd_head_v * n_head" | "n_head * n_embd_head_v") echo LX_HV_H ;;
	"n_embd_k_gqa") echo LX_KGQA ;;
	"n_embd_v_gqa" | "n_embd_gqa") echo LX_VGQA ;;
	"n_head * n_rot") echo LX_ROT_H ;;
	"n_head_kv * n_rot") echo LX_ROT_HKV ;;
	"hparams.n_embd_k_gqa(i)") echo LX_KGQA_IL ;;
	"hparams.n_embd_v_gqa(i)") echo LX_VGQA_IL ;;
	*) return 1 ;;
	esac
}

names=$(awk '/LLM_ARCH_NAMES = \{/,/^\};/' "$src/src/llama-arch.cpp" |
	grep -oE '\{ *LLM_ARCH_[A-Z0-9_]+, *"[^"]+"' | sed -E 's/\{ *(LLM_ARCH_[A-Z0-9_]+), *"([^"]+)"/\1 \2/')
factory=$(awk '/switch \(arch\)/ { on = 1 }
	on && /case LLM_ARCH_/ { gsub(/[ :]/, "", $2); cases = cases " " $2 }
	on && /return new llama_model_/ { match($0, /llama_model_[a-z0-9_]+/); cls = substr($0, RSTART, RLENGTH)
		n = split(cases, a, " "); for (i = 1; i <= n; i++) print a[i], cls; cases = "" }
	on && /^}/ { exit }' "$src/src/llama-model.cpp")
[ -n "$factory" ] || { echo "gen-loader-attn: no factory switch in llama-model.cpp" >&2; exit 3; }

# the mirrored rows first, then the others with their reasons: one row a
# line (clang-format off), so the table reads as the two lists it is
rows="" skipped=""
while read -r enumv cls; do
	name=$(echo "$names" | awk -v e="$enumv" '$1 == e { print $2 }')
	[ -n "$name" ] || continue
	# a class without load_arch_tensors of its own inherits its parent's
	# (models.h: struct llama_model_X : public llama_model_Y)
	own=$cls tweaks=()
	f=$(grep -l "${cls}::load_arch_tensors" "$src"/src/models/*.cpp | head -1 || true)
	while [ -z "$f" ]; do
		while IFS= read -r t; do tweaks+=("$t"); done < <(grep -l "${cls}::load_arch_hparams" "$src"/src/models/*.cpp || true)
		cls=$(grep -oE "struct ${cls} : public llama_model_[a-z0-9_]+" "$src/src/models/models.h" | sed -E 's/.*public //' || true)
		[ -n "$cls" ] || break
		f=$(grep -l "${cls}::load_arch_tensors" "$src"/src/models/*.cpp | head -1 || true)
	done
	if [ -z "$f" ]; then
		skipped+="    {\"$name\", NULL, 0, 0, 0, 0, \"its loader is a class ($own) with no load_arch_tensors zealot can find\"},"$'\n'
		continue
	fi
	# load_arch_hparams that rewrites the head counts or sizes
	rewrite=$(cat "$f" "${tweaks[@]}" | grep -cE 'hparams\.(n_head_arr|n_head_kv_arr|n_embd_head_[kv]_(full|swa)|n_rot_full|n_embd)(\[[^]]*\])? *=[^=]' || true)
	file=src/models/$(basename "$f")
	body=$(awk -v c="${cls}::load_arch_tensors" 'index($0, c) { on = 1 } on { print } on && /^}/ { exit }' "$f")
	# the qkv calls, their flags dropped; the attn_output shapes
	qkv=$(echo "$body" | grep -E 'create_tensor_qkv\(' | sed -E 's/^ *//; s/ +/ /g; s/.*create_tensor_qkv\(layer, [a-z]+, //; s/, [^,]*\);.*//' | sort -u || true)
	wo=$(echo "$body" | grep -E 'LLM_TENSOR_ATTN_OUT, *"weight"' | sed -E 's/ +/ /g; s/.*"weight", [a-z]+\), *\{ *//; s/ *\}.*//' | sort -u || true)
	direct=$(echo "$body" | grep -cE 'LLM_TENSOR_ATTN_(Q|K|V|QKV), *"weight"' || true)
	local_def=$(echo "$body" | grep -cE '(int64_t|int32_t|uint32_t|int|auto) +(n_embd|n_head|n_head_kv|n_embd_head_k|n_embd_head_v|n_embd_gqa|n_embd_k_gqa|n_embd_v_gqa|n_rot) *=' || true)
	why=""
	if [ -z "$qkv" ] && [ -z "$wo" ] && [ "$direct" = 0 ]; then
		why="it creates no attention projections through create_tensor_qkv"
	elif [ "$direct" != 0 ]; then
		why="it creates attention projections outside create_tensor_qkv ($file)"
	elif [ "$(echo "$qkv" | grep -c .)" != 1 ] || [ "$(echo "$wo" | grep -c .)" != 1 ]; then
		why="its attention shapes differ by branch ($file)"
	elif [ "$rewrite" != 0 ]; then
		why="its load_arch_hparams rewrites the head counts or sizes ($file)"
	elif [ "$local_def" != 0 ]; then
		why="it redefines the sizes its shapes use ($file)"
	fi
	row=""
	if [ -z "$why" ]; then
		IFS=',' read -r e q k v <<<"$qkv"
		o=${wo%,*}
		e=$(echo "$e" | xargs) q=$(echo "$q" | xargs) k=$(echo "$k" | xargs) v=$(echo "$v" | xargs) o=$(echo "$o" | xargs)
		if [ "$e" = n_embd ] && eq=$(expr "$q") && ek=$(expr "$k") && ev=$(expr "$v") && eo=$(expr "$o") &&
			[ "$(echo "$wo" | sed -E 's/.*, *//')" = n_embd ]; then
			row="    {\"$name\", \"$file\", $eq, $ek, $ev, $eo, NULL},"
		else
			why="its shapes use sizes zealot does not derive ($file: $q, $k, $v; $o)"
		fi
	fi
	if [ -n "$row" ]; then
		rows+="$row"$'\n'
	else
		skipped+="    {\"$name\", NULL, 0, 0, 0, 0, \"$why\"},"$'\n'
	fi
done <<<"$factory"

{
	cat <<X
/* Generated by scripts/gen-loader-attn.sh from the pinned engine's source;
 * do not edit (tests/live/loader.sh holds it equal to that source). */
#include "loader.h"

const char *const loader_attn_source =
    "src/llama-model.cpp and src/models/*.cpp of llama.cpp $rev (node-llama-cpp 3.21.1)";

/* clang-format off */
const struct loader_attn_rule loader_attn_rules[] = {
X
	printf '%s' "$rows" "$skipped"
	cat <<X
};
/* clang-format on */

const size_t loader_attn_rules_count = sizeof(loader_attn_rules) / sizeof(loader_attn_rules[0]);
X
} | clang-format --assume-filename=src/payload/loader_attn.c
