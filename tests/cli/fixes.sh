# Fix lines lead somewhere: a missing or empty MODEL_FILE is one finding
# whose fix does not send the user round C02 and C03; an unreadable
# payload's fix says its mode, owner and who reads it (USER); M03 names the
# nearest CTX_SIZE that divides; C09 gives the key line to write.
. "$(dirname "$0")/../lib.sh"
cd "$TMP" || exit 1
must "$ZEALOT" synth llama -o l.gguf || exit 1
printf '#!/bin/sh\nexec true\n' >rt.sh && chmod +x rt.sh
ep() { printf 'RUNTIME=%s\nCTX_SIZE=4096\n' "$TMP/rt.sh"; printf '%s\n' "$@"; }
fixes() { jq -r '.findings[]|select(.severity=="error")|"\(.law) \(.fix)"' "$TMP/out"; }

ep MODEL_FILE=nowhere.gguf >missing.env
run "$ZEALOT" check --json missing.env
check "missing MODEL_FILE: one error, C03" test "$(fixes | wc -l)" -eq 1 -a -n "$(fixes | grep '^C03 ')"
check "missing MODEL_FILE: the fix offers no empty value (no opt-out, C02)" \
	test -z "$(fixes | grep -iE 'empty|opt out')" -a -n "$(fixes | grep -F 'MODEL_URL')"
ep MODEL_FILE= >empty.env
run "$ZEALOT" check --json empty.env
check "MODEL_FILE= : one error (C02), not C02 and C03" test "$(fixes | wc -l)" -eq 1 -a -n "$(fixes | grep '^C02 ')"
check "MODEL_FILE= : the fix does not say to remove the line (no default)" \
	test -z "$(fixes | grep -F 'remove the line to take the default')"

# an unreadable payload: mode, owner, USER
cp l.gguf locked.gguf
chmod 600 locked.gguf
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	ep MODEL_FILE=locked.gguf USER=nobody >locked.env
	run "$ZEALOT" check --json locked.env
	check "a payload USER cannot read: exit 1, C03 on MODEL_FILE" \
		test "$rc" -eq 1 -a "$(jq -r '[.findings[]|select(.law=="C03")|.key]|join(",")' "$TMP/out")" = MODEL_FILE
	check "its fix: mode 0600, owner, USER nobody" \
		test -n "$(fixes | grep -F 'mode 0600' | grep -F "owner $(id -un):$(id -gn)" | grep -F 'USER' | grep -F nobody)"
	check "one finding for it, not a second C03 'replace the file'" test -z "$(fixes | grep -F 'replace the file')"
fi
chmod 000 locked.gguf
if [ "$(id -u)" != 0 ]; then
	ep MODEL_FILE=locked.gguf >locked.env
	run "$ZEALOT" check --json locked.env
	check "a payload this user cannot read: its mode in the fix" test -n "$(fixes | grep -F 'mode 0000')"
fi

# M03: the nearest CTX_SIZE
printf 'RUNTIME=%s\nMODEL_FILE=l.gguf\nCTX_SIZE=8192\nPARALLEL=3\n' "$TMP/rt.sh" >m03.env
run "$ZEALOT" check --json m03.env
check "M03: the fix names CTX_SIZE=8190 or CTX_SIZE=8193" \
	test -n "$(fixes | grep '^M03 ' | grep -F 'CTX_SIZE=8190 or CTX_SIZE=8193')"

# C09: the key line to write, with EXTRA_ARGS's value
ep MODEL_FILE=l.gguf 'EXTRA_ARGS=--ctx-size 8192 -np=2 --metrics' >c09.env
run "$ZEALOT" check --json c09.env
check "C09 --ctx-size 8192: write the line CTX_SIZE=8192" test -n "$(fixes | grep '^C09 ' | grep -F 'write the line CTX_SIZE=8192')"
check "C09 -np=2: write the line PARALLEL=2" test -n "$(fixes | grep '^C09 ' | grep -F 'write the line PARALLEL=2')"
check "C09 --metrics: write the line METRICS=1" test -n "$(fixes | grep '^C09 ' | grep -F 'write the line METRICS=1')"
check "no sanitizer report" no_sanitizer
