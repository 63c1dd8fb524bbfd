# A real nginx on loopback for the download tests. Source after lib.sh.
#
#   nginx_start ROOT         serve ROOT at http://127.0.0.1:$NGINX_PORT/ (and
#                            /slow/ rate-limited to $NGINX_SLOW per connection)
#   nginx_bytes PATH         body bytes nginx sent for PATH (its access log)
#   nginx_requests PATH      requests nginx answered for PATH
#   nginx_stop
#
# nginx runs from a config of its own in $TMP/nginx (pid, logs, temp dirs):
# no privilege needed beyond a loopback port, nothing of the host's nginx.
command -v wait_for >/dev/null || . "$(dirname "${BASH_SOURCE[0]}")/wait.sh"
command -v free_port >/dev/null || . "$(dirname "${BASH_SOURCE[0]}")/ports.sh"
NGINX_SLOW=${NGINX_SLOW:-32m}

nginx_start() {
	local root=$1 d=$TMP/nginx
	mkdir -p "$d/tmp" "$d/logs"
	NGINX_PORT=$(free_port)
	NGINX_LOG=$d/logs/access.log
	cat >"$d/nginx.conf" <<EOF
# user only matters when started as root: workers then keep this user so
# they can read the test's private temp dir
user $(id -un) $(id -gn);
worker_processes 1;
pid $d/nginx.pid;
error_log $d/logs/error.log warn;
events { worker_connections 256; }
http {
    log_format zl '\$request_uri \$status \$body_bytes_sent "\$http_range" "\$http_authorization"';
    access_log $NGINX_LOG zl;
    client_body_temp_path $d/tmp/body;
    proxy_temp_path $d/tmp/proxy;
    fastcgi_temp_path $d/tmp/fastcgi;
    uwsgi_temp_path $d/tmp/uwsgi;
    scgi_temp_path $d/tmp/scgi;
    types { application/octet-stream gguf; }
    default_type application/octet-stream;
    sendfile on;
    server {
        listen 127.0.0.1:$NGINX_PORT;
        root $root;
        location /slow/ { alias $root/; limit_rate $NGINX_SLOW; }
        location = /zl-status { stub_status; access_log off; }
        location /gated/ { alias $root/;
            if (\$http_authorization != "Bearer zealot-test-token") { return 401; } }
    }
}
EOF
	nginx -p "$d" -c "$d/nginx.conf" -e "$d/logs/error.log" 2>"$d/start.err" || { cat "$d/start.err" >&2; return 1; }
	wait_for 60 curl -s -o /dev/null "http://127.0.0.1:$NGINX_PORT/"
}

nginx_stop() {
	local pidf=$TMP/nginx/nginx.pid
	[ -f "$pidf" ] && kill "$(cat "$pidf")" 2>/dev/null
	wait_for 60 test ! -f "$pidf"
}

# nginx writes a request's access log line when it ends the request, then
# closes the connection: wait until nginx's own count of open connections
# is the status request's alone. (A killed client's socket leaves
# ESTABLISHED at its reset, before nginx's worker has seen it and logged.)
_nginx_idle() { curl -s -m 5 "http://127.0.0.1:$NGINX_PORT/zl-status" | grep -qE '^Active connections: 1 *$'; }
_nginx_settle() { wait_for 60 _nginx_idle; }
nginx_bytes() { _nginx_settle; awk -v p="$1" '$1 == p { s += $3 } END { print s + 0 }' "$NGINX_LOG"; }
nginx_requests() { _nginx_settle; awk -v p="$1" '$1 == p { n++ } END { print n + 0 }' "$NGINX_LOG"; }
