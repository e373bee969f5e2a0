# SPDX-License-Identifier: Apache-2.0
"""psql's describe commands against `slicehouse serve`, compared with PostgreSQL 15's
answers for the same schema.

psql builds each describe command (`\\d name`, `\\d+`, `\\dt+`, `\\dv`, `\\df`, `\\dn+`,
`\\l`) from catalog queries chosen by the server's version: against Slicehouse (which
reports Redshift's 8.0.2) they need qualified type casts (`::pg_catalog.regtype`),
`ARRAY(SELECT ... FROM unnest(...))`, pg_collation, pg_inherits, pg_trigger,
pg_get_function_result / _arguments, pg_table_size, pg_size_pretty and more. The same
tables, view and function are made in a PostgreSQL 15 server started for the test,
and the two outputs are compared cell by cell under the headers both show.

What differs by design (docs/DIFFERENCES.md):
- column headers come back in lower case where psql takes them from the query (Redshift
  folds quoted aliases: `AS "Name"` is `name`);
- a PRIMARY KEY's or UNIQUE constraint's index is listed as PostgreSQL lists it, though
  nothing is built (Redshift's keys are informational);
- columns psql asks only of a newer server (Compression, Access method) are absent;
- a view's definition is its text as written, where PostgreSQL prints it deparsed;
- sizes are Slicehouse's encoded bytes; owners and ACLs are Redshift's (rdsdb owns public).
"""
import os
import shutil
import socket
import subprocess
import tempfile

import pytest

from server_support import CI, PASSWORD, USER, Server, need

PG_BIN = "/usr/lib/postgresql/15/bin"

SETUP = [
    "create schema sales",
    "create table sales.orders (id integer not null, amount decimal(10,2) default 0, note varchar(40), "
    "placed date, primary key (id))",
    "create table sales.items (order_id integer references sales.orders(id), sku char(8), qty smallint, "
    "price double precision, created timestamp, flag boolean, big bigint, unique (sku))",
    "create view sales.big_orders as select id, amount from sales.orders where amount > 100",
    "comment on table sales.orders is 'all orders'",
    "comment on column sales.orders.note is 'free text'",
    "create function sales.f_double(integer) returns integer stable as $$ select $1 * 2 $$ language sql",
    "create function sales.f_label(varchar, numeric(10,2)) returns varchar stable as $$ select $1 $$ language sql",
]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Postgres:
    """PostgreSQL 15 in a temporary directory, run as the `postgres` user, reached by its
    Unix socket; its superuser is named as Slicehouse's (awsuser) so owners agree."""

    def __init__(self):
        self.work = tempfile.mkdtemp(prefix="slicehouse-pg15-")
        os.chmod(self.work, 0o755)
        shutil.chown(self.work, "postgres")
        self.data = os.path.join(self.work, "data")
        self.port = free_port()
        as_pg = ["runuser", "-u", "postgres", "--"]
        subprocess.run(as_pg + [f"{PG_BIN}/initdb", "-D", self.data, "-A", "trust", "-U", USER, "-E", "UTF8",
                                "--locale", "C"], check=True, capture_output=True)
        subprocess.run(as_pg + [f"{PG_BIN}/pg_ctl", "-D", self.data, "-l", os.path.join(self.work, "log"), "-w", "start",
                                "-o", f"-p {self.port} -k {self.work} -c listen_addresses=''"],
                       check=True, capture_output=True)
        subprocess.run(["psql", "-X", "-q", "-h", self.work, "-p", str(self.port), "-U", USER, "-d", "postgres",
                        "-c", "create database dev"], check=True, capture_output=True)

    def args(self):
        return ["-h", self.work, "-p", str(self.port), "-U", USER, "dev"]

    def stop(self):
        subprocess.run(["runuser", "-u", "postgres", "--", f"{PG_BIN}/pg_ctl", "-D", self.data, "-m", "fast", "stop"],
                       capture_output=True)
        shutil.rmtree(self.work, ignore_errors=True)


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    if shutil.which("psql") is None or not os.path.exists(f"{PG_BIN}/initdb") or shutil.which("runuser") is None \
            or os.geteuid() != 0:
        if CI:
            raise AssertionError("this test needs psql, PostgreSQL 15's server and root (runuser postgres)")
        pytest.skip("psql, PostgreSQL 15 or root is missing")
    psycopg2 = need("psycopg2")
    sh = Server(tmp_path_factory.mktemp("data"))
    pg = Postgres()
    try:
        conn = psycopg2.connect(host=sh.host, port=sh.port, user=USER, password=PASSWORD, dbname="dev")
        conn.autocommit = True
        with conn.cursor() as cur:
            for sql in SETUP:
                cur.execute(sql)
        conn.close()
        conn = psycopg2.connect(host=pg.work, port=pg.port, user=USER, dbname="dev")
        conn.autocommit = True
        with conn.cursor() as cur:
            for sql in SETUP:
                cur.execute(sql)
        conn.close()
        yield sh, pg
    finally:
        sh.stop()
        pg.stop()


def describe(args, command, password=None):
    env = dict(os.environ, PGSSLMODE="disable")
    if password:
        env["PGPASSWORD"] = password
    r = subprocess.run(["psql", "-X", "-A", "-v", "ON_ERROR_STOP=1"] + args + ["-c", command],
                       capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 0 and not r.stderr, f"{command}: {r.stdout}{r.stderr}"
    return r.stdout


def parse(text):
    """psql's unaligned output: (title, headers, rows as dicts, footer lines)."""
    lines = text.rstrip("\n").split("\n")
    title, header = lines[0], lines[1].split("|")
    rows, footers = [], []
    for line in lines[2:]:
        if not footers and line.count("|") == len(header) - 1:
            rows.append(dict(zip([h.lower() for h in header], line.split("|"))))
        elif not (line.startswith("(") and line.endswith(")")):
            footers.append(line)
    return title, header, rows, footers


def sections(footers):
    """Footer lines by section: a line at the margin opens one ("Indexes:", "Access
    method: heap"), indented lines are its entries."""
    out, current = {}, None
    for line in footers:
        if line.startswith("    ") and current is not None:
            out[current].append(line.strip())
        else:
            current = line
            out[current] = []
    return out


def compare(servers, command, ignore=()):
    """Both servers' answers: the title, the headers (case aside) and every cell under a
    header both show must agree; PostgreSQL 15's extra headers may only be those of a
    newer server. Returns both parsed answers for further checks."""
    sh, pg = servers
    ours = parse(describe(["-h", sh.host, "-p", str(sh.port), "-U", USER, "dev"], command, PASSWORD))
    theirs = parse(describe(pg.args(), command))
    assert ours[0] == theirs[0], command
    our_headers = [h.lower() for h in ours[1]]
    their_headers = [h.lower() for h in theirs[1]]
    newer_only = {"compression", "access method", "icu locale", "locale provider"}
    assert [h for h in their_headers if h not in newer_only] == our_headers, (command, ours[1], theirs[1])
    common = [h for h in our_headers if h not in ignore]
    assert [{h: r[h] for h in common} for r in ours[2]] == [{h: r[h] for h in common} for r in theirs[2]], command
    return ours, theirs


def test_describe_table(servers):
    # Every column's type, collation, nullability and default as PostgreSQL shows them;
    # the keys' indexes and the foreign keys both ways.
    for name in ["sales.orders", "sales.items"]:
        ours, theirs = compare(servers, rf"\d {name}")
        assert sections(ours[3]) == sections(theirs[3]), name
    ours, _ = compare(servers, r"\d sales.items")
    assert sections(ours[3]) == {
        "Indexes:": ['"items_sku_key" UNIQUE CONSTRAINT, btree (sku)'],
        "Foreign-key constraints:": ['"items_order_id_fkey" FOREIGN KEY (order_id) REFERENCES sales.orders(id)']}


def test_describe_table_verbose(servers):
    # \d+ adds storage, statistics target and each column's comment.
    ours, theirs = compare(servers, r"\d+ sales.orders")
    assert [r["description"] for r in ours[2]] == ["", "", "free text", ""]
    assert [r["storage"] for r in ours[2]] == ["plain", "main", "extended", "plain"]
    theirs_s = sections(theirs[3])
    theirs_s.pop("Access method: heap")
    assert sections(ours[3]) == theirs_s


def test_describe_view(servers):
    compare(servers, r"\d sales.big_orders")
    ours, _ = compare(servers, r"\d+ sales.big_orders")
    # The definition as written (PostgreSQL prints its own deparsed text).
    assert ours[3] == ["View definition:", "select id, amount from sales.orders where amount > 100;"]


def test_list_relations(servers):
    compare(servers, r"\dt sales.*")
    ours, _ = compare(servers, r"\dt+ sales.*", ignore=("size",))
    assert [(r["name"], r["description"]) for r in ours[2]] == [("items", ""), ("orders", "all orders")]
    assert all(r["size"].endswith(("bytes", "kB", "MB")) for r in ours[2])
    compare(servers, r"\dv sales.*")
    compare(servers, r"\dtv sales.*")


def test_list_functions(servers):
    ours, _ = compare(servers, r"\df sales.*")
    assert [(r["name"], r["result data type"], r["argument data types"]) for r in ours[2]] == [
        ("f_double", "integer", "integer"), ("f_label", "character varying", "character varying, numeric")]


def test_list_schemas_and_databases(servers):
    sh, _ = servers
    ours = parse(describe(["-h", sh.host, "-p", str(sh.port), "-U", USER, "dev"], r"\dn+ sales", PASSWORD))
    assert [h.lower() for h in ours[1]] == ["name", "owner", "access privileges", "description"]
    assert ours[2] == [{"name": "sales", "owner": "awsuser", "access privileges": "", "description": ""}]
    compare(servers, r"\dn sales")
    ours = parse(describe(["-h", sh.host, "-p", str(sh.port), "-U", USER, "dev"], r"\l", PASSWORD))
    assert [h.lower() for h in ours[1]] == ["name", "owner", "encoding", "collate", "ctype", "icu locale",
                                            "locale provider", "access privileges"]
    assert [(r["name"], r["encoding"], r["collate"]) for r in ours[2]] == [("dev", "UTF8", "C")]
