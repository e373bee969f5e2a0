# SPDX-License-Identifier: Apache-2.0
"""Protocol fuzzing: at least 10,000 mutated messages (truncated, wrong lengths, bad
types, flipped and random bytes) over many connections. The server must answer each
connection with messages or close it — never crash, hang or keep a session behind.
"""
import random
import socket
import struct
import time

import pytest

from server_support import Server, wait_until

psycopg2 = pytest.importorskip("psycopg2")


def msg(t, body):
    return t + struct.pack("!i", len(body) + 4) + body


def cstr(s):
    return s.encode() + b"\0"


def startup(user="awsuser", db="dev"):
    body = struct.pack("!i", 196608) + cstr("user") + cstr(user) + cstr("database") + cstr(db) + b"\0"
    return struct.pack("!i", len(body) + 4) + body


SEEDS = [
    msg(b"Q", cstr("select 1")),
    msg(b"Q", cstr("select 1; select 'a' || 'b'; create table if not exists fz (a int)")),
    msg(b"Q", cstr("insert into fz values (1), (2)")),
    msg(b"Q", cstr("")),
    msg(b"P", cstr("s") + cstr("select $1::int + 1") + struct.pack("!hi", 1, 23)),
    msg(b"B", cstr("") + cstr("s") + struct.pack("!hh", 1, 0) + struct.pack("!hi", 1, 1) + b"5" + struct.pack("!hh", 1, 1)),
    msg(b"D", b"P" + cstr("")),
    msg(b"D", b"S" + cstr("s")),
    msg(b"E", cstr("") + struct.pack("!i", 0)),
    msg(b"E", cstr("") + struct.pack("!i", 1)),
    msg(b"C", b"S" + cstr("s")),
    msg(b"S", b""),
    msg(b"H", b""),
    msg(b"p", cstr("password")),
    msg(b"d", b"copy data"),
    msg(b"F", b"\0\0\0\0"),
]


def mutate(rng, m):
    kind = rng.randrange(7)
    b = bytearray(m)
    if kind == 0 and len(b) > 1:                       # truncated
        return bytes(b[:rng.randrange(1, len(b))])
    if kind == 1 and len(b) >= 5:                      # wrong length
        struct.pack_into("!i", b, 1, rng.choice([-1, 0, 3, 4, len(b) + 100, 2 ** 31 - 1, rng.randrange(-2 ** 31, 2 ** 31)]))
        return bytes(b)
    if kind == 2:                                      # bad type byte
        b[0] = rng.randrange(256)
        return bytes(b)
    if kind == 3:                                      # flipped bytes
        for _ in range(rng.randrange(1, 4)):
            b[rng.randrange(len(b))] = rng.randrange(256)
        return bytes(b)
    if kind == 4:                                      # random bytes
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40)))
    if kind == 5:                                      # a valid message
        return m
    # a counted field made huge (parameter counts, lengths inside the body)
    if len(b) > 8:
        i = rng.randrange(5, len(b) - 1)
        struct.pack_into("!h", b, i, rng.choice([0x7FFF, -1, 1000]))
    return bytes(b)


def drain(sock, seconds):
    sock.settimeout(seconds)
    try:
        while sock.recv(65536):
            pass
        return True      # closed by the server
    except socket.timeout:
        return False
    except OSError:
        return True


def test_ten_thousand_mutated_messages(tmp_path):
    server = Server(tmp_path / "data", password=None)      # loopback trust: fuzz past the login
    rng = random.Random(20261123)
    sent = 0
    connections = 0
    deadline = time.time() + 240
    try:
        while sent < 10_000 and time.time() < deadline:
            connections += 1
            with socket.create_connection((server.host, server.port), timeout=5) as sock:
                first = startup()
                if rng.random() < 0.1:
                    first = mutate(rng, first)
                    sent += 1
                try:
                    sock.sendall(first)
                    for _ in range(25):
                        sock.sendall(mutate(rng, rng.choice(SEEDS)))
                        sent += 1
                except OSError:
                    pass          # the server closed the connection on a bad message: fine
                drain(sock, 0.02)
            assert server.alive(), f"server died after {sent} messages"
        assert sent >= 10_000, f"only {sent} messages in the time allowed"

        # Still serving, and every fuzzing session is gone (none leaked).
        conn = psycopg2.connect(host=server.host, port=server.port, user="awsuser", dbname="dev")
        conn.autocommit = True
        cur = conn.cursor()
        cur.execute("select 1")
        assert cur.fetchone()[0] == 1

        def only_me():
            cur.execute("select count(*) from stv_sessions")
            return cur.fetchone()[0] == 1
        assert wait_until(only_me, timeout=20), "sessions were left behind"
        conn.close()
    finally:
        server.stop()
    assert server.proc.returncode in (0, -15)


def read_until_ready(sock):
    """Messages up to and including ReadyForQuery, as (type, body) pairs."""
    buf = b""
    out = []
    sock.settimeout(5)
    while True:
        while len(buf) >= 5:
            length = struct.unpack("!i", buf[1:5])[0]
            if len(buf) < 1 + length:
                break
            out.append((buf[:1], buf[5:1 + length]))
            buf = buf[1 + length:]
            if out[-1][0] == b"Z":
                return out
        chunk = sock.recv(65536)
        assert chunk, f"connection closed after {out}"
        buf += chunk


def test_stray_copy_messages_are_ignored_and_function_calls_refused(tmp_path):
    """CopyData / CopyDone / CopyFail outside a COPY are ignored (PostgreSQL's rule); they
    used to make the connection skip every later Query, waiting for a Sync that a
    simple-protocol client never sends."""
    server = Server(tmp_path / "data", password=None)
    try:
        with socket.create_connection((server.host, server.port), timeout=5) as sock:
            sock.sendall(startup())
            assert read_until_ready(sock)[0][0] == b"R"
            sock.sendall(msg(b"d", b"1|2\n") + msg(b"c", b"") + msg(b"f", cstr("oops")) + msg(b"Q", cstr("select 41 + 1")))
            reply = read_until_ready(sock)
            assert [t for t, _ in reply] == [b"T", b"D", b"C", b"Z"], reply
            assert reply[1][1] == struct.pack("!hi", 1, 2) + b"42"
            sock.sendall(msg(b"F", b"\0\0\0\0"))
            reply = read_until_ready(sock)
            assert [t for t, _ in reply] == [b"E", b"Z"] and b"function call" in reply[0][1], reply
    finally:
        server.stop()
