# House rules that a machine can check: no banned functions, and the
# committed .clang-format holds for every C file.
. "$(dirname "$0")/../lib.sh"
cd "$ROOT" || exit 1

files=$(ls src/*.c src/*/*.c src/*/*.h $(find src -mindepth 3 -name "*.[ch]") tests/unit/*.c tests/unit/*.h tests/fuzz/*.c bench/*.c)
banned=$(grep -nE '\b(strcpy|strcat|sprintf|vsprintf|strtok|gets|atoi)\s*\(' src/*.c src/*/*.c $(find src -mindepth 3 -name '*.c') || true)
check "no strcpy/strcat/sprintf/strtok/gets/atoi in src/" test -z "$banned"
[ -z "$banned" ] || echo "$banned" | sed 's/^/#   /'
if command -v clang-format >/dev/null; then
	# shellcheck disable=SC2086
	run clang-format --dry-run -Werror $files
	check "clang-format: every C file is formatted" rc_is 0
fi
