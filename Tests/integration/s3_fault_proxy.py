# SPDX-License-Identifier: Apache-2.0
"""A small HTTP proxy in front of the local S3 server that injects faults: it relays
every request, except those its `plan` picks, which it answers with a dropped
connection (a TCP reset), a 503 SlowDown, a body cut short, a 500, or a stall.

`plan(method, path, query, headers, n)` is called for each request (`n` counts them
from 1) and returns None to relay it, or one of the actions below.
"""
import http.client
import http.server
import socket
import struct
import threading
import time
from urllib.parse import urlsplit

RESET, SLOWDOWN, TRUNCATE, ERROR500, STALL = "reset", "slowdown", "truncate", "500", "stall"

SLOWDOWN_BODY = (b'<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code>'
                 b'<Message>Please reduce your request rate.</Message></Error>')
INTERNAL_BODY = (b'<?xml version="1.0" encoding="UTF-8"?><Error><Code>InternalError</Code>'
                 b'<Message>We encountered an internal error. Please try again.</Message></Error>')


class FaultProxy:
    def __init__(self, upstream_port, stall_seconds=60):
        self.upstream_port = upstream_port
        self.stall_seconds = stall_seconds
        self.plan = lambda method, path, query, headers, n: None
        self.count = 0
        self.injected = []
        # Ranged GETs relayed: their Range headers, and the most under way at once.
        self.ranges = []
        self.inflight = 0
        self.max_inflight = 0
        self.lock = threading.Lock()
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def relay(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                split = urlsplit(self.path)
                with proxy.lock:
                    proxy.count += 1
                    n = proxy.count
                action = proxy.plan(self.command, split.path, split.query, self.headers, n)
                if action:
                    with proxy.lock:
                        proxy.injected.append((action, self.command, self.path))
                if action == RESET:
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    self.close_connection = True
                    self.connection.close()
                    return
                if action == STALL:
                    time.sleep(proxy.stall_seconds)
                    self.close_connection = True
                    return
                if action in (SLOWDOWN, ERROR500):
                    status, text = (503, SLOWDOWN_BODY) if action == SLOWDOWN else (500, INTERNAL_BODY)
                    self.send_response(status)
                    self.send_header("Content-Type", "application/xml")
                    self.send_header("Content-Length", str(len(text)))
                    self.end_headers()
                    self.wfile.write(text)
                    return
                ranged = self.command == "GET" and self.headers.get("Range")
                if ranged:
                    with proxy.lock:
                        proxy.ranges.append(self.headers.get("Range"))
                        proxy.inflight += 1
                        proxy.max_inflight = max(proxy.max_inflight, proxy.inflight)
                try:
                    upstream = http.client.HTTPConnection("127.0.0.1", proxy.upstream_port, timeout=60)
                    headers = {k: v for k, v in self.headers.items() if k.lower() not in ("connection",)}
                    upstream.request(self.command, self.path, body=body, headers=headers)
                    r = upstream.getresponse()
                    data = r.read()
                    upstream.close()
                finally:
                    if ranged:
                        with proxy.lock:
                            proxy.inflight -= 1
                self.send_response(r.status)
                for k, v in r.getheaders():
                    if k.lower() not in ("connection", "transfer-encoding", "content-length", "server", "date"):
                        self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if self.command == "HEAD":
                    return
                if action == TRUNCATE and len(data) > 1:
                    self.wfile.write(data[: len(data) // 2])
                    self.wfile.flush()
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                self.wfile.write(data)

            do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = relay

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
