# The house's layer order, from the #include lines of src/ (tests/layers.py
# holds the ranks): no folder includes one above it, no circle of modules.
. "$(dirname "$0")/../lib.sh"
cd "$ROOT" || exit 1

run python3 tests/layers.py src
check "src/ includes only down the layer order, with no circle of modules" rc_is 0

# the rule can fail: a planted include against the order is found
mkdir -p "$TMP/src/base" "$TMP/src/plan"
printf '#include "../plan/x.h"\n' >"$TMP/src/base/y.c"
: >"$TMP/src/plan/x.h"
run python3 tests/layers.py "$TMP/src"
check "an include from base/ up into plan/ is named" out_has "src/base/y.c: includes '../plan/x.h'"
printf '#include "a.h"\n' >"$TMP/src/plan/b.h"
printf '#include "b.h"\n' >"$TMP/src/plan/a.h"
run python3 tests/layers.py "$TMP/src"
check "a circle between two modules of one folder is named" out_has "a circle of includes: plan/a -> plan/b -> plan/a"
