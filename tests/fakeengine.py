#!/usr/bin/env python3
"""A misbehaving engine on loopback for zealot's failure tests.

usage: fakeengine.py PORT MODE [SECONDS]
MODE: garbage (answers every request with bytes that are not HTTP),
      hang (accepts and never answers), reset (closes at once),
      e500 (answers HTTP 500 with an HTML body), json-junk (HTTP 200, not JSON),
      escapes (HTTP 200, JSON whose every string carries terminal escape
      sequences: a title change, a screen clear, a colour, a bell, a line break).
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


def serve(conn):
    try:
        conn.settimeout(2)
        try:
            conn.recv(65536)
        except OSError:
            pass
        if mode == "garbage":
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
