#!/usr/bin/env python3
"""A stand-in llama-server that replays a recorded boot, for the tests of the
live tests' verdict (tests/cli/engine-answer.sh).

usage: fakeboot.py [llama-server args...]   (reads --port)
FAKEBOOT_LOG   the boot log to print on stdout (e.g. tests/data/amx-boots/*.log)
FAKEBOOT_MODE  answer: serve GET /health (200) and POST /completion on
                       127.0.0.1:PORT, as an engine that booted
               sigill: die by SIGILL after the log, as the pinned engine
                       does at warm-up on an AMX host (issue 8)
               exit1:  exit with status 1 after the log (a refused load)
Serves loopback only and exits by itself after 60 s.
"""
import json
import os
import signal
import sys
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

args = sys.argv[1:]
port = int(args[args.index("--port") + 1]) if "--port" in args else 8080
mode = os.environ.get("FAKEBOOT_MODE", "answer")
with open(os.environ["FAKEBOOT_LOG"], "rb") as f:
    sys.stdout.buffer.write(f.read())
sys.stdout.flush()

if mode == "sigill":
    time.sleep(0.3)  # a moment "warming up", as /health says 503 meanwhile
    signal.signal(signal.SIGILL, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGILL)
    time.sleep(5)
    sys.exit(99)
if mode == "exit1":
    sys.exit(1)


class Engine(BaseHTTPRequestHandler):
    def reply(self, code, body):
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path == "/health":
            self.reply(200, {"status": "ok"})
        else:
            self.reply(404, {"error": "not found"})

    def do_POST(self):
        n = int(self.headers.get("Content-Length", 0))
        req = json.loads(self.rfile.read(n) or b"{}")
        if self.path == "/completion":
            k = int(req.get("n_predict", 4))
            self.reply(200, {"content": " blue" * k, "tokens_predicted": k, "stop": True})
        else:
            self.reply(404, {"error": "not found"})

    def log_message(self, *a):
        pass


srv = HTTPServer(("127.0.0.1", port), Engine)
srv.timeout = 0.2
deadline = time.time() + 60
while time.time() < deadline:
    srv.handle_request()
