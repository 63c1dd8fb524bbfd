# zealot links no libcurl: commands that never speak HTTP start without its
# 29 libraries, and the ones that do load it on first use (curl_lazy.c).
# Nor libcrypto: the commands that hash load it on first use (crypto_lazy.c).
. "$(dirname "$0")/../lib.sh"
cd "$ROOT" || exit 1

libs=$(ldd ./zealot 2>&1)
check "./zealot is not linked against libcurl" test -z "$(echo "$libs" | grep -F libcurl)"
check "./zealot is not linked against libcrypto" test -z "$(echo "$libs" | grep -F libcrypto)"
n=$(echo "$libs" | grep -c '=>')
check "./zealot loads at most 7 shared libraries at start ($n)" test "$n" -le 7

# an HTTP command still reaches a server through the lazily loaded libcurl:
# a loopback port nobody listens on gives libcurl's own connect error
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
run "$ZEALOT" inspect "http://127.0.0.1:$port/x.gguf"
check "inspect of a URL: libcurl loaded on use, its error named, exit 3" \
	eval 'rc_is 3 && err_has "Couldn'"'"'t connect to server" && no_sanitizer'
