# The card the endpoint uses (issue 33 item 8): plan asks nvidia-smi about
# GPU's card (-i GPU), never every card at once; GPU unset is card 0. A
# fake nvidia-smi on PATH logs its argv and answers per card.
. "$(dirname "$0")/../lib.sh"
cd "$TMP" || exit 1

mkdir bin
cat >bin/nvidia-smi <<'X'
#!/bin/sh
printf '%s\n' "$*" >>"$NVLOG"
case "$*" in
*"-i 1"*) echo 1111 ;;
*"-i 0"*) echo 9999 ;;
*) printf '9999\n1111\n' ;;
esac
X
chmod 755 bin/nvidia-smi
export NVLOG=$TMP/nv.log
must "$ZEALOT" synth --preset bonsai-9b --set type=142 -o b9.gguf || exit 1
printf 'MODEL_FILE=b9.gguf\nCTX_SIZE=65536\nDEVICE=rtx3090\nGPU=1\n' >g1.env
printf 'MODEL_FILE=b9.gguf\nCTX_SIZE=65536\nDEVICE=rtx3090\n' >g0.env

PATH=$TMP/bin:$PATH run "$ZEALOT" plan g1.env
check "plan GPU=1: exit 0" rc_is 0
check "plan GPU=1: nvidia-smi was asked about card 1 only (-i 1)" \
	test "$(grep -c . nv.log)" -ge 1 -a "$(grep -vc -- '-i 1$' nv.log)" = 0
check "plan GPU=1: card 1's free memory is the one shown (1,111 MiB)" \
	test -n "$(grep -E '^card free now +1,111' "$TMP/out")"
: >nv.log
PATH=$TMP/bin:$PATH run "$ZEALOT" plan g0.env
check "plan without GPU: card 0 (-i 0), its 9,999 MiB" \
	test "$(grep -vc -- '-i 0$' nv.log)" = 0 -a -n "$(grep -E '^card free now +9,999' "$TMP/out")"
check "no sanitizer report" no_sanitizer
