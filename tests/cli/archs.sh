# zealot archs: the engine's architectures and how each is priced;
# docs/architectures.md is its --markdown, never edited by hand.
. "$(dirname "$0")/../lib.sh"
cd "$ROOT" || exit 1

run "$ZEALOT" archs --markdown
check "archs --markdown runs clean" eval 'rc_is 0 && no_sanitizer'
"$ZEALOT" archs --markdown >"$TMP/md" 2>/dev/null
run diff -u docs/architectures.md "$TMP/md"
check "docs/architectures.md is fresh (regenerate: zealot archs --markdown > docs/architectures.md)" rc_is 0

run "$ZEALOT" archs --json
known=$(jq .known "$TMP/out")
check "every name the engine knows is listed ($known)" test "$known" -eq "$(jq '.archs | length' "$TMP/out")"
check "llama, qwen35 and deepseek2 are mirrored from their builders" \
	test "$(jq -c '[.archs[] | select(.arch == "llama" or .arch == "qwen35" or .arch == "deepseek2") | .mirrored]' "$TMP/out")" = '[true,true,true]'
# an architecture estimated (the first the table lists neither mirrored
# nor decided otherwise) says with what
est=$(jq -r '[.archs[] | select((.mirrored | not) and .served)][0].arch // empty' "$TMP/out")
[ -z "$est" ] || check "$est is estimated, and says with what" \
	test "$(jq -r --arg a "$est" '.archs[] | select(.arch == $a) | .estimate' "$TMP/out" | grep -c "llama's block")" = 1
# every mirrored family is an architecture the engine knows (a misspelt
# family in graph.c would price nothing and show here)
fam=$(grep -oE '^    \{"[^"]+", gr_' src/plan/graph/graph.c | grep -oE '"[^"]+"' | tr -d '"' | sort)
mir=$(jq -r '.archs[] | select(.mirrored) | .arch' "$TMP/out" | sort)
check "every family graph.c mirrors is one the engine knows ($(echo "$fam" | wc -l))" test "$fam" = "$mir"
run "$ZEALOT" archs --json --markdown
check "--json with --markdown is a usage error" rc_is 2
# the architectures llama-server cannot serve (a tower, a vocoder, speech
# heads, drafters: law S18) are decided, with the engine's reason, and
# priced by no estimate
run "$ZEALOT" archs --json
ns='"clip","wavtokenizer-dec","qwen3tts","pockettts","eagle3","dflash","gemma4-assistant","dream","llada","llada-moe","rnd1","t5"'
check "the architectures llama-server cannot serve are named, each with a reason and no estimate" \
	test "$(jq -c "[.archs[] | select(.served == false and (.reason|length) > 40 and .estimate == null) | .arch] | sort" "$TMP/out")" = "$(jq -cn "[$ns] | sort")"
check "decided counts each mirrored or not served architecture once ($(jq -c '[.mirrored,.not_served,.decided]' "$TMP/out"))" \
	jq -e '.decided == ([.archs[] | select(.mirrored or .served == false)] | length) and .not_served == 12' "$TMP/out"
run "$ZEALOT" archs
check "the table says eagle3 is mirrored (a drafter) and not served, not estimated" \
	grep -qE '^  eagle3 +mirrored +src/models/eagle3.cpp; not served by llama-server \(check: S18\)$' "$TMP/out"
