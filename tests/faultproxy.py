#!/usr/bin/env python3
"""A fault-injecting HTTP proxy in front of a real server, for zealot fetch.

usage: faultproxy.py UPSTREAM PORT OTHER_ADDR OTHER_PORT LOG

Listens on 127.0.0.1:PORT and forwards to UPSTREAM (http://127.0.0.1:N).
The first path segment picks the fault; the rest is the upstream path:

  /ok/F            forward as is (Range, If-Range passed through)
  /reset/F         the first answer is cut mid-body by a TCP reset; later ones pass
  /stall/F         the first answer stops sending mid-body (and hangs); later ones pass
  /short/F         the first answer announces its length and closes early; later ones pass
  /norange/F       Range is stripped: always 200 and the whole file
  /r416/F          any ranged request is answered 416
  /etag/F          answers pass, but each answer after the first carries another
                   ETag and ignores If-Range (a server that changed the file and
                   lies about it); the first answer is cut mid-body
  /html/F          200 text/html: an error page, not the file
  /redirect/F      302 to http://OTHER_ADDR:OTHER_PORT/ok/F (another host)
  /linked/F        302 to /ok/F on the same listener, with X-Linked-Etag: "SHA256 of F"
                   (a Hugging Face resolve: the publisher's checksum on the redirect)
  /linkedlie/F     the same, but X-Linked-Etag states another file's SHA-256
  /etagsha/F       forward as is, the ETag replaced by "SHA256 of F"
  /etaglie/F       forward as is, the ETag replaced by another file's SHA-256
  /status/N/F      answer HTTP N

It also listens on OTHER_ADDR:OTHER_PORT (another loopback address, i.e.
another host) with the same faults. Every request is logged to LOG as one
JSON line: the listener, the path, the Range, and the Authorization header
exactly as received, so a test can prove where a token went.
"""
import hashlib
import http.client
import json
import socket
import struct
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

UPSTREAM, PORT, OTHER_ADDR, OTHER_PORT, LOG = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5]
up_host, up_port = UPSTREAM.split("//", 1)[1].split(":")
up_port = int(up_port.rstrip("/"))
seen = {}
lock = threading.Lock()


LIE = hashlib.sha256(b"not the payload").hexdigest()
shas = {}


def upstream_sha(path):
    with lock:
        if path in shas:
            return shas[path]
    c = http.client.HTTPConnection(up_host, up_port, timeout=30)
    c.request("GET", path)
    h = hashlib.sha256(c.getresponse().read()).hexdigest()
    c.close()
    with lock:
        shas[path] = h
    return h


def first_time(key):
    with lock:
        n = seen.get(key, 0)
        seen[key] = n + 1
        return n == 0, n


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def log(self):
        with lock, open(LOG, "a") as f:
            f.write(json.dumps({"listener": "%s:%d" % self.server.server_address[:2], "path": self.path,
                                "range": self.headers.get("Range"), "if_range": self.headers.get("If-Range"),
                                "authorization": self.headers.get("Authorization")}) + "\n")

    def send_simple(self, code, body=b"", ctype="text/plain", extra=()):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def upstream(self, path, headers):
        c = http.client.HTTPConnection(up_host, up_port, timeout=30)
        c.request("GET", path, headers=headers)
        return c, c.getresponse()

    def do_GET(self):
        self.log()
        parts = self.path.split("/", 2)
        if len(parts) < 3:
            return self.send_simple(404, b"no fault\n")
        mode, rest = parts[1], "/" + parts[2]
        if mode == "status":
            code, _, rest = rest[1:].partition("/")
            return self.send_simple(int(code), b"status %s\n" % code.encode())
        if mode == "html":
            return self.send_simple(200, b"<!DOCTYPE html><html><body>Access denied</body></html>\n", "text/html")
        if mode == "redirect":
            return self.send_simple(302, b"", extra=[("Location", "http://%s:%d/ok%s" % (OTHER_ADDR, OTHER_PORT, rest))])
        if mode in ("linked", "linkedlie"):
            sha = upstream_sha(rest) if mode == "linked" else LIE
            host = "%s:%d" % self.server.server_address[:2]
            return self.send_simple(302, b"", extra=[("Location", "http://%s/ok%s" % (host, rest)),
                                                     ("X-Linked-Etag", '"%s"' % sha)])
        headers = {}
        for k in ("Range", "If-Range"):
            if self.headers.get(k) and mode != "norange":
                headers[k] = self.headers[k]
        if mode == "r416" and "Range" in headers:
            return self.send_simple(416, b"", extra=[("Content-Range", "bytes */0")])
        first, n = first_time((mode, rest))
        if mode == "etag" and not first:
            headers.pop("If-Range", None)  # the lie: ranges served regardless of the validator
        c, r = self.upstream(rest, headers)
        self.send_response(r.status)
        length = None
        for k, v in r.getheaders():
            kl = k.lower()
            if kl in ("connection", "keep-alive", "transfer-encoding", "server", "date"):
                continue
            if kl == "etag" and mode == "etag" and not first:
                v = '"changed-%d"' % n
            if kl == "etag" and mode in ("etagsha", "etaglie"):
                v = '"%s"' % (upstream_sha(rest) if mode == "etagsha" else LIE)
            if kl == "content-length":
                length = int(v)
            self.send_header(k, v)
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        cut = None
        if first and mode in ("reset", "stall", "short", "etag") and length:
            cut = length // 2
        sent = 0
        try:
            while True:
                want = 1 << 16
                if cut is not None:
                    want = min(want, cut - sent)
                    if want <= 0:
                        break
                chunk = r.read(want)
                if not chunk:
                    break
                self.wfile.write(chunk)
                sent += len(chunk)
            if cut is not None:
                self.wfile.flush()
                if mode == "stall":
                    time.sleep(600)
                elif mode in ("reset", "etag"):
                    # SO_LINGER 0: close sends a TCP reset
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    self.connection.close()
        except (BrokenPipeError, ConnectionResetError):
            pass
        finally:
            c.close()


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


servers = [Server(("127.0.0.1", PORT), Handler), Server((OTHER_ADDR, OTHER_PORT), Handler)]
for s in servers[1:]:
    threading.Thread(target=s.serve_forever, daemon=True).start()
print("ready", flush=True)
servers[0].serve_forever()
