# SPDX-License-Identifier: Apache-2.0
"""Start `slicehouse serve` for the server tests, and what they share.

The server listens on a free loopback port (`--port 0`; the port is read from its
first line). Each server gets its own data directory and, unless told otherwise,
the superuser password PASSWORD.
"""
import os
import re
import subprocess
import time

import pytest

BIN = os.environ.get("SLICEHOUSE_BIN", "/tmp/shbin/slicehouse")
PASSWORD = "Sl1ce-h0use pass"
USER = "awsuser"
CI = os.environ.get("CI") == "true"
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


class Server:
    def __init__(self, data_dir, password=PASSWORD, args=(), env_extra=None):
        env = {k: v for k, v in os.environ.items() if not k.startswith("SLICEHOUSE_")}
        env.update(env_extra or {})
        if password is not None:
            env["SLICEHOUSE_PASSWORD"] = password
        self.argv = [BIN, "serve", "-D", str(data_dir), "--port", "0"] + list(args)
        self.proc = subprocess.Popen(self.argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        line = self.proc.stdout.readline()
        m = re.search(r"listening on [0-9.]+:(\d+)", line)
        if not m:
            rest = self.proc.stdout.read() if self.proc.poll() is not None else ""
            raise RuntimeError(f"server did not start: {line}{rest}")
        self.port = int(m.group(1))
        self.host = "127.0.0.1"

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def alive(self):
        return self.proc.poll() is None


def generate_lineitem(directory):
    """TPC-H SF 0.01 lineitem as dbgen's .tbl (the project's own generator)."""
    subprocess.run([BIN, "datagen", "tpch", "--sf", "0.01", "--tables", "L", "--output", str(directory)],
                   check=True, capture_output=True)
    return os.path.join(str(directory), "lineitem.tbl")


LINEITEM_DDL = ("create table lineitem (l_orderkey integer not null, l_partkey integer not null, "
                "l_suppkey integer not null, l_linenumber integer not null, l_quantity decimal(15,2) not null, "
                "l_extendedprice decimal(15,2) not null, l_discount decimal(15,2) not null, "
                "l_tax decimal(15,2) not null, l_returnflag char(1) not null, l_linestatus char(1) not null, "
                "l_shipdate date not null, l_commitdate date not null, l_receiptdate date not null, "
                "l_shipinstruct char(25) not null, l_shipmode char(10) not null, l_comment varchar(44) not null) "
                "distkey(l_orderkey) sortkey(l_shipdate)")

with open(os.path.join(ROOT, "datasets", "tpch", "queries", "q06.sql")) as f:
    Q6 = f.read().strip().rstrip(";")
# datasets/tpch/answers/sf0.01/q06.csv
Q6_ANSWER = "1193053.2253"


def wait_until(predicate, timeout=10.0, step=0.05):
    end = time.time() + timeout
    while time.time() < end:
        if predicate():
            return True
        time.sleep(step)
    return predicate()


def need(module):
    """Import a client library the tests drive; skip without it, except under CI (where
    scripts/setup-system.sh has installed it, and its absence is a failure)."""
    try:
        return __import__(module)
    except ImportError:
        if CI:
            raise
        pytest.skip(f"{module} is not installed (scripts/setup-system.sh installs it)")


def connect(server, user=USER, password=PASSWORD):
    """An autocommit psycopg2 connection to `server` as `user`."""
    import psycopg2
    conn = psycopg2.connect(host=server.host, port=server.port, user=user, password=password, dbname="dev")
    conn.autocommit = True
    return conn


def run(conn, sql, params=None):
    """Execute `sql`; its rows, or None for a statement that returns none."""
    cur = conn.cursor()
    cur.execute(sql, params)
    return cur.fetchall() if cur.description else None
