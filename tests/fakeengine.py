#!/usr/bin/env python3
"""A misbehaving engine on loopback for zealot's failure tests.

usage: fakeengine.py PORT MODE [SECONDS]
MODE: garbage (answers every request with bytes that are not HTTP),
      hang (accepts and never answers), reset (closes at once),
      e500 (answers HTTP 500 with an HTML body), json-junk (HTTP 200, not JSON),
      escapes (HTTP 200, JSON whose every string carries terminal escape
      sequences: a title change, a screen clear, a colour, a bell, a line break),
      stream-cut (chat answers "zealot alive"; streamed, its events stop
      without data: [DONE]), stream-differs (streamed, the text is another).
Serves loopback only and exits by itself after SECONDS (default 30).
"""
import socket
import sys
import threading
import time

port, mode = int(sys.argv[1]), sys.argv[2]
life = float(sys.argv[3]) if len(sys.argv) > 3 else 30.0
srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", port))
srv.listen(16)
srv.settimeout(0.2)
held = []
deadline = time.time() + life


def request(conn):
    """The request's bytes: its headers and as much body as they announce."""
    data = b""
    try:
        while b"\r\n\r\n" not in data:
            chunk = conn.recv(65536)
            if not chunk:
                return data
            data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        n = 0
        for line in head.split(b"\r\n"):
            if line.lower().startswith(b"content-length:"):
                n = int(line.split(b":", 1)[1])
        while len(body) < n:
            chunk = conn.recv(65536)
            if not chunk:
                break
            body += chunk
        return head + b"\r\n\r\n" + body
    except OSError:
        return data


def chat(conn, req):
    """stream-*: a plain chat answer, or a stream that breaks its promise."""
    import json
    if b'"stream":true' not in req:
        body = json.dumps({"choices": [{"index": 0, "finish_reason": "stop",
                                        "message": {"role": "assistant", "content": "zealot alive"}}]}).encode()
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
        return
    words = ["zealot", " alive"] if mode == "stream-cut" else ["zealot", " dead"]
    out = b""
    for i, w in enumerate(words):
        ev = {"choices": [{"index": 0, "delta": {"content": w},
                           "finish_reason": "stop" if i == len(words) - 1 else None}]}
        out += b"data: " + json.dumps(ev).encode() + b"\n\n"
    if mode != "stream-cut":
        out += b"data: [DONE]\n\n"
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: %d\r\n\r\n%s" % (len(out), out))


def serve(conn):
    try:
        conn.settimeout(2)
        req = request(conn)
        if mode.startswith("stream-"):
            chat(conn, req)
        elif mode == "garbage":
            conn.sendall(b"\x00\xffNOT HTTP AT ALL\r\n\r\n\x01\x02")
        elif mode == "e500":
            body = b"<html>internal error</html>"
            conn.sendall(b"HTTP/1.1 500 Internal Server Error\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
        elif mode == "json-junk":
            body = b"{{{ not json"
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
        elif mode == "escapes":
            evil = "\x1b]0;PWNED\x07\x1b[2J\x1b[31mred\u009b1m\nsecond line\u202e"
            import json
            body = json.dumps({"status": evil, "data": [{"id": evil, "object": "model"}], "model": evil,
                               "default_generation_settings": {"n_ctx": evil}, "total_slots": evil,
                               "choices": [{"message": {"role": "assistant", "content": evil},
                                            "text": evil, "finish_reason": evil}],
                               "error": {"message": evil}}).encode()
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
        elif mode == "hang":
            held.append(conn)
            return
        conn.close()
    except OSError:
        pass


while time.time() < deadline:
    try:
        conn, _ = srv.accept()
    except socket.timeout:
        continue
    if mode == "reset":
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        conn.close()
        continue
    threading.Thread(target=serve, args=(conn,), daemon=True).start()
