# Every key table of src/ holds each name once (tests/tables.py): synth's
# --set keys and families, the endpoint's keys, the options' long names,
# the laws, the types ... A second row of a name is one the lookup never
# reaches (synth's temp_scale: mistral3's row set deepseek2's field).
. "$(dirname "$0")/../lib.sh"
cd "$ROOT" || exit 1

run python3 tests/tables.py src --list
check "tables.py reads the tables of src/ (rc $rc)" rc_is 0
n=$(wc -l <"$TMP/out")
check "at least 40 key tables found ($n), synth's, the endpoint's and the laws' among them" \
	eval 'test "$n" -ge 40 && out_has "payload/synth/keys.c:keys" && out_has "endpoint/keys.c:table" && out_has "judge/lawdoc.c:laws"'
run python3 tests/tables.py src
check "no name on two rows of a table" test "$rc" -eq 0 -a ! -s "$TMP/out"
[ "$rc" -eq 0 ] || sed 's/^/#   /' "$TMP/out"

# the check can fail: planted tables in each shape a row takes
mkdir -p "$TMP/src/x"
cat >"$TMP/src/x/a.c" <<'X'
static const struct key keys[] = {
    {"layers", 1, "a"},
    {"temp_scale", 2, "deepseek2"}, /* { "not a row" */
    {"temp_scale", 3, "mistral3"},
};
static const struct {
	int id;
	const char *name;
} ids[] = {{1, "q4_0"}, {2, "q8_0"}, {3, "q4_0"}};
static const struct opt opts[] = {
    OPT_STRING('o', "output", &out, "FILE", "x"),
    OPT_FLAG(0, "output", &f, "y"),
    OPT_END(),
};
static const struct key_def table[2] = {
    [K_A] = {"CTX_SIZE", K_A},
    [K_B] = {"CTX_SIZE", K_B},
};
static const struct cause { const char *pat[2]; const char *law; } causes[] = {
    {{"a", "b"}, "C08"},
    {{"c"}, "C08"},
};
X
run python3 tests/tables.py "$TMP/src"
check "planted: a {\"name\", ...} row twice is named" out_has "x/a.c: table keys: 'temp_scale' is on two rows"
check "planted: an {id, \"name\"} row twice is named" out_has "table ids: 'q4_0' is on two rows"
check "planted: an option's long name twice is named" out_has "table opts: 'output' is on two rows"
check "planted: a [K_X] = {\"NAME\"} row twice is named" out_has "table table: 'CTX_SIZE' is on two rows"
check "planted: a row whose name is no first field (patterns, then a law) is no key" \
	eval '! out_has "table causes"'
check "planted: exit 1" rc_is 1
