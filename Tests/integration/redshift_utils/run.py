#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Run amazon-redshift-utils' AdminViews and AdminScripts against Slicehouse.

    python3 Tests/integration/redshift_utils/run.py --bin .build/release/slicehouse

starts `slicehouse serve` on a fresh data directory, runs a small TICKIT-like workload
(tables of every DISTSTYLE, sort keys, encodings, constraints, COPY from local files
including one with bad rows under MAXERROR, DELETE then VACUUM, ANALYZE, a user and a
group with grants, views, a materialized view, a UDF, a procedure and a few queries,
as the superuser and as the user), then creates every AdminView in schema `admin` and
selects from it, and runs every AdminScript. It prints one line a file, PASS or FAIL
with the first error, and the count. test_admin_utils.py drives the same functions.

A file passes when every statement in it runs without an error (for a view: its
CREATE VIEW and `SELECT * FROM admin.<view>`; for the two scripts that PREPARE a
statement: the PREPARE and an EXECUTE of it for the workload's user).
"""
import argparse
import glob
import os
import random
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass, field

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # Tests/integration: server_support

ROOT = HERE   # the folder holding AdminViews/ and AdminScripts/ (--root changes it)

TEST_USER = "adminutils_user"
TEST_USER_PASSWORD = "Abcd1234xyz"
TEST_GROUP = "adminutils_grp"
STATEMENT_TIMEOUT_MS = 120_000


def all_files():
    """The 69 files, as paths relative to this folder: views first, then scripts."""
    views = sorted(glob.glob(os.path.join(ROOT, "AdminViews", "*.sql")))
    scripts = sorted(glob.glob(os.path.join(ROOT, "AdminScripts", "*.sql")))
    return [os.path.relpath(p, ROOT) for p in views + scripts]


# --------------------------------------------------------------------------------------
# Splitting a file into statements: quotes ('..' with Redshift's backslash escapes, ".."),
# comments (-- and /* */, nested) and dollar quotes ($$..$$, $tag$..$tag$).
# --------------------------------------------------------------------------------------
def split_statements(sql):
    out, buf, i, n = [], [], 0, len(sql)
    while i < n:
        c = sql[i]
        if c == "-" and sql.startswith("--", i):
            j = sql.find("\n", i)
            i = n if j < 0 else j + 1
            buf.append("\n")
            continue
        if c == "/" and sql.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if sql.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif sql.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            i = j
            buf.append(" ")
            continue
        if c in ("'", '"'):
            j = i + 1
            while j < n:
                if c == "'" and sql[j] == "\\":
                    j += 2
                    continue
                if sql[j] == c:
                    if j + 1 < n and sql[j + 1] == c:
                        j += 2
                        continue
                    break
                j += 1
            buf.append(sql[i:j + 1])
            i = j + 1
            continue
        if c == "$":
            m = re.match(r"\$[A-Za-z_]*\$", sql[i:])
            if m:
                tag = m.group(0)
                j = sql.find(tag, i + len(tag))
                j = n if j < 0 else j + len(tag)
                buf.append(sql[i:j])
                i = j
                continue
        if c == ";":
            stmt = "".join(buf).strip()
            if stmt:
                out.append(stmt)
            buf = []
            i += 1
            continue
        buf.append(c)
        i += 1
    stmt = "".join(buf).strip()
    if stmt:
        out.append(stmt)
    return out


# --------------------------------------------------------------------------------------
# The workload
# --------------------------------------------------------------------------------------
CITIES = [("San Diego", "CA"), ("Boston", "MA"), ("Austin", "TX"), ("Seattle", "WA"), ("Denver", "CO"),
          ("Chicago", "IL"), ("Miami", "FL"), ("Portland", "OR")]
CATEGORIES = [(1, "Sports", "MLB", "Major League Baseball"), (2, "Sports", "NHL", "National Hockey League"),
              (3, "Sports", "NFL", "National Football League"), (4, "Sports", "NBA", "National Basketball Association"),
              (5, "Sports", "MLS", "Major League Soccer"), (6, "Shows", "Musicals", "Musical theatre"),
              (7, "Shows", "Plays", "All non-musical theatre"), (8, "Shows", "Opera", "All opera and light opera"),
              (9, "Concerts", "Pop", "All rock and pop music concerts"), (10, "Concerts", "Jazz", "All jazz singers and bands"),
              (11, "Concerts", "Classical", "All symphony, concerto, and choir concerts")]

N_USERS, N_VENUES, N_EVENTS, N_SALES = 500, 40, 300, 6000
BAD_SALES_LINES = 3   # lines of sales_bad.txt that cannot be loaded


def write_data_files(directory):
    """Pipe-delimited files for the COPYs; returns their paths by name."""
    rnd = random.Random(76)
    paths = {}

    def write(name, lines):
        path = os.path.join(directory, name)
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        paths[name] = path

    write("category.txt", ["|".join(map(str, c)) for c in CATEGORIES])
    write("venue.txt", [f"{v}|Venue {v}|{CITIES[v % 8][0]}|{CITIES[v % 8][1]}|{1000 + 250 * v}"
                        for v in range(1, N_VENUES + 1)])
    write("users.txt", [f"{u}|U{u:07d}|First{u}|Last{u}|{CITIES[u % 8][0]}|{CITIES[u % 8][1]}|"
                        f"user{u}@example.com|{'t' if u % 3 else 'f'}" for u in range(1, N_USERS + 1)])
    write("event.txt", [f"{e}|{1 + e % N_VENUES}|{1 + e % 11}|Event number {e}|"
                        f"2008-{1 + e % 12:02d}-{1 + e % 28:02d} {e % 24:02d}:30:00" for e in range(1, N_EVENTS + 1)])
    sales = []
    for s in range(1, N_SALES + 1):
        sales.append(f"{s}|{rnd.randint(1, N_EVENTS)}|{rnd.randint(1, N_USERS)}|{rnd.randint(1, 8)}|"
                     f"{rnd.randint(20, 2000)}.{rnd.randint(0, 99):02d}|"
                     f"2008-{rnd.randint(1, 12):02d}-{rnd.randint(1, 28):02d} {rnd.randint(0, 23):02d}:"
                     f"{rnd.randint(0, 59):02d}:00")
    write("sales.txt", sales)
    # Three bad lines among good ones: a letter in an integer, a bad timestamp, a bad number.
    write("sales_bad.txt", [
        f"{N_SALES + 1}|1|1|2|100.00|2008-06-01 10:00:00",
        f"{N_SALES + 2}|not_a_number|1|2|100.00|2008-06-01 10:00:00",
        f"{N_SALES + 3}|2|2|3|150.00|2008-06-02 11:00:00",
        f"{N_SALES + 4}|3|3|1|99.00|2008-13-45 99:99:99",
        f"{N_SALES + 5}|4|4|1|abc|2008-06-03 12:00:00",
        f"{N_SALES + 6}|5|5|4|300.00|2008-06-04 13:00:00",
    ])
    return paths


def workload_statements(paths):
    """(statement, as_test_user) pairs: everything the admin tools will later look at."""
    su = [
        "create schema tickit",
        # DISTSTYLE EVEN
        "create table tickit.category (catid smallint not null primary key, catgroup varchar(10), "
        "catname varchar(10), catdesc varchar(50)) diststyle even",
        # DISTSTYLE ALL, a sort key, encodings
        "create table tickit.venue (venueid smallint not null primary key encode az64, venuename varchar(100) encode zstd, "
        "venuecity varchar(30), venuestate char(2), venueseats integer) diststyle all sortkey(venueid)",
        # DISTSTYLE KEY, column DISTKEY and SORTKEY
        "create table tickit.users (userid integer not null primary key distkey sortkey, username char(8), "
        "firstname varchar(30), lastname varchar(30), city varchar(30), state char(2), email varchar(100), "
        "likesports boolean)",
        # DISTSTYLE AUTO, interleaved sort key, foreign keys
        "create table tickit.event (eventid integer not null primary key, "
        "venueid smallint not null references tickit.venue(venueid), "
        "catid smallint not null references tickit.category(catid), eventname varchar(200), starttime timestamp) "
        "diststyle auto interleaved sortkey(starttime, catid)",
        # DISTKEY table with a compound sort key, a unique constraint, encodings
        "create table tickit.sales (salesid integer not null, eventid integer not null, "
        "sellerid integer not null references tickit.users(userid), qtysold smallint not null encode delta, "
        "pricepaid decimal(8,2) encode lzo, saletime timestamp, unique(salesid)) "
        "distkey(sellerid) compound sortkey(saletime, eventid)",
        # no DISTSTYLE given (AUTO), BACKUP NO
        "create table tickit.scratch (id int, note varchar(20)) backup no",
        # a table with DISTKEY other than sales', to be filled by INSERT ... SELECT
        "create table tickit.sales_by_event (salesid integer, eventid integer distkey, pricepaid decimal(8,2)) "
        "sortkey(eventid)",
        "comment on table tickit.sales is 'ticket sales'",
        "comment on column tickit.sales.pricepaid is 'price in USD'",
        f"copy tickit.category from '{paths['category.txt']}' delimiter '|'",
        f"copy tickit.venue from '{paths['venue.txt']}' delimiter '|'",
        f"copy tickit.users from '{paths['users.txt']}' delimiter '|'",
        f"copy tickit.event from '{paths['event.txt']}' delimiter '|' timeformat 'YYYY-MM-DD HH:MI:SS'",
        f"copy tickit.sales from '{paths['sales.txt']}' delimiter '|' timeformat 'YYYY-MM-DD HH:MI:SS'",
        # COPY with errors: three of six lines are refused and land in STL_LOAD_ERRORS
        f"copy tickit.sales from '{paths['sales_bad.txt']}' delimiter '|' timeformat 'YYYY-MM-DD HH:MI:SS' maxerror 10",
        "insert into tickit.scratch values (1, 'one'), (2, 'two'), (3, 'three')",
        # INSERT ... SELECT into a table of another distribution key
        "insert into tickit.sales_by_event select salesid, eventid, pricepaid from tickit.sales where qtysold > 4",
        # DELETE, then VACUUM and ANALYZE
        "delete from tickit.sales where salesid % 10 = 0",
        "update tickit.users set city = 'Boston' where userid % 50 = 0",
        "vacuum tickit.sales",
        "vacuum delete only tickit.users",
        "vacuum sort only tickit.event",
        "analyze tickit.sales",
        "analyze tickit.users",
        "analyze",
        # users, groups, grants
        f"create user {TEST_USER} password '{TEST_USER_PASSWORD}'",
        f"create group {TEST_GROUP} with user {TEST_USER}",
        f"grant usage on schema tickit to group {TEST_GROUP}",
        f"grant select on tickit.sales to {TEST_USER}",
        f"grant select, insert on tickit.scratch to {TEST_USER}",
        f"grant create on schema tickit to {TEST_USER}",
        f"grant select on all tables in schema tickit to group {TEST_GROUP}",
        f"alter default privileges in schema tickit grant select on tables to {TEST_USER}",
        # views, a materialized view, a UDF, a procedure
        "create view tickit.v_sales_by_event as select s.eventid, e.eventname, sum(s.pricepaid) as total "
        "from tickit.sales s join tickit.event e on s.eventid = e.eventid group by s.eventid, e.eventname",
        "create view tickit.v_late_users as select userid, username from tickit.users with no schema binding",
        "create materialized view tickit.mv_sales_by_seller as select sellerid, count(*) as n, sum(qtysold) as q "
        "from tickit.sales group by sellerid",
        "refresh materialized view tickit.mv_sales_by_seller",
        f"grant select on tickit.v_sales_by_event to {TEST_USER}",
        "create function tickit.f_with_tax(float) returns float stable as $$ select $1 * 1.1 $$ language sql",
        "create procedure tickit.p_add_one(a int, inout b int) as $$ begin b := a + 1; end; $$ language plpgsql",
        # queries: joins, filters on sort keys, aggregates
        "select c.catname, count(*), sum(s.pricepaid) from tickit.sales s join tickit.event e on s.eventid = e.eventid "
        "join tickit.category c on e.catid = c.catid group by c.catname order by 3 desc",
        "select u.city, count(*) from tickit.sales s join tickit.users u on s.sellerid = u.userid "
        "where s.saletime between '2008-03-01' and '2008-04-01' group by u.city",
        "select v.venuename, count(*) from tickit.event e join tickit.venue v on e.venueid = v.venueid "
        "where e.starttime > '2008-06-01' group by v.venuename order by 2 desc limit 5",
        "select * from tickit.v_sales_by_event order by total desc limit 10",
        "select sellerid, n from tickit.mv_sales_by_seller order by n desc limit 5",
        "select tickit.f_with_tax(pricepaid::float) from tickit.sales where salesid < 20",
        "call tickit.p_add_one(41, 0)",
        "create table tickit.sales_2008q1 as select * from tickit.sales where saletime < '2008-04-01'",
        "select count(*) from tickit.sales_2008q1",
    ]
    as_user = [
        # the user owns a table, so the "objects of a user to be dropped" tools find one
        "create table tickit.user_notes (id int, note varchar(100)) diststyle even",
        "insert into tickit.user_notes values (1, 'first'), (2, 'second')",
        "select count(*) from tickit.sales where pricepaid > 1000",
        "select * from tickit.v_sales_by_event order by total desc limit 3",
        "insert into tickit.scratch values (4, 'four')",
    ]
    return [(s, False) for s in su] + [(s, True) for s in as_user]


# --------------------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------------------
@dataclass
class Result:
    file: str
    ok: bool = True
    error: str = ""          # the first error's first line
    statement: str = ""      # the statement that failed
    rows: list = field(default_factory=list)       # rows of the last query
    columns: list = field(default_factory=list)


def first_line(exc):
    text = getattr(exc, "pgerror", None) or str(exc)
    text = text.strip()
    return text.splitlines()[0] if text else type(exc).__name__


class Session:
    """A connection (autocommit) that comes back after a failed statement or a lost server."""

    def __init__(self, connect):
        self._connect = connect
        self.conn = None

    def cursor(self):
        if self.conn is None or self.conn.closed:
            self.conn = self._connect()
            self.conn.autocommit = True
            cur = self.conn.cursor()
            try:
                cur.execute(f"set statement_timeout to {STATEMENT_TIMEOUT_MS}")
            except Exception:
                pass
        return self.conn.cursor()

    def execute(self, sql):
        """Run one statement; (columns, rows), or raises."""
        import psycopg2
        cur = self.cursor()
        try:
            cur.execute(sql)
            if cur.description:
                return [d[0] for d in cur.description], cur.fetchall()
            return [], []
        except (psycopg2.OperationalError, psycopg2.InterfaceError):
            try:
                self.conn.close()
            except Exception:
                pass
            self.conn = None
            raise
        finally:
            try:
                cur.close()
            except Exception:
                pass

    def close(self):
        if self.conn is not None and not self.conn.closed:
            self.conn.close()


def run_workload(session, user_session, paths):
    """Runs the workload; returns the statements that failed with their errors (it should be none)."""
    failures = []
    for sql, as_user in workload_statements(paths):
        try:
            (user_session if as_user else session).execute(sql)
        except Exception as exc:  # noqa: BLE001
            failures.append((sql, first_line(exc)))
    return failures


VIEW_NAME = re.compile(r"create\s+or\s+replace\s+view\s+([A-Za-z_][\w.]*)", re.I)


def _run(result, session, sql):
    if not result.ok:
        return
    try:
        result.columns, result.rows = session.execute(sql)
    except Exception as exc:  # noqa: BLE001
        result.ok = False
        result.error = first_line(exc)
        result.statement = sql


def run_view(session, relpath, create_only=False):
    with open(os.path.join(ROOT, relpath)) as f:
        statements = split_statements(f.read())
    result = Result(relpath)
    name = None
    for sql in statements:
        m = VIEW_NAME.match(sql)
        if m:
            name = m.group(1).lower()
        _run(result, session, sql)
    if not create_only and result.ok:
        _run(result, session, f"select * from {name}")
    return result


PREPARED = {"user_to_be_dropped_objs.sql": "find_drop_userobjs",
            "user_to_be_dropped_privs.sql": "find_drop_userprivs"}


def run_script(session, relpath):
    with open(os.path.join(ROOT, relpath)) as f:
        statements = split_statements(f.read())
    result = Result(relpath)
    for sql in statements:
        _run(result, session, sql)
    base = os.path.basename(relpath)
    if base in PREPARED and any(st.lower().startswith("prepare") for st in statements):
        _run(result, session, f"execute {PREPARED[base]}('{TEST_USER}')")
        columns, rows = result.columns, result.rows
        _run(result, session, f"deallocate {PREPARED[base]}")
        if result.ok:  # the file's result is the EXECUTE's rows, not DEALLOCATE's
            result.columns, result.rows = columns, rows
    return result


def run_admin_files(session, files=None):
    """Creates schema admin and every view (twice, for views over views), selects from each
    view, runs each script. Returns {relpath: Result} in file order."""
    files = files or all_files()
    try:
        session.execute("create schema if not exists admin")
    except Exception:  # noqa: BLE001
        pass
    views = [f for f in files if f.startswith("AdminViews")]
    scripts = [f for f in files if f.startswith("AdminScripts")]
    # A first pass creates what it can, so views over views (v_object_dependency,
    # v_generate_user_object_permissions) find theirs in the second.
    for v in views:
        run_view(session, v, create_only=True)
    results = {}
    for v in views:
        results[v] = run_view(session, v)
    for s in scripts:
        results[s] = run_script(session, s)
    return {f: results[f] for f in files}


# --------------------------------------------------------------------------------------
# A whole run: server, workload, admin files
# --------------------------------------------------------------------------------------
class Harness:
    def __init__(self, bin_path=None, workdir=None):
        import server_support
        if bin_path:
            server_support.BIN = bin_path
        self.own_dir = workdir is None
        self.workdir = workdir or tempfile.mkdtemp(prefix="adminutils-")
        self.files_dir = os.path.join(self.workdir, "files")
        os.makedirs(self.files_dir, exist_ok=True)
        self.server = server_support.Server(os.path.join(self.workdir, "data"))
        import psycopg2

        def su():
            return psycopg2.connect(host=self.server.host, port=self.server.port, user=server_support.USER,
                                    password=server_support.PASSWORD, dbname="dev")

        def user():
            return psycopg2.connect(host=self.server.host, port=self.server.port, user=TEST_USER,
                                    password=TEST_USER_PASSWORD, dbname="dev")

        self.session = Session(su)
        self.user_session = Session(user)
        self.workload_failures = []
        self.results = {}

    def run(self, files=None, prelude=None):
        paths = write_data_files(self.files_dir)
        self.workload_failures = run_workload(self.session, self.user_session, paths)
        for sql in split_statements(prelude or ""):
            try:
                self.session.execute(sql)
            except Exception as exc:  # noqa: BLE001
                self.workload_failures.append((sql, first_line(exc)))
        # Keep the user's session open while the admin files run, so session views see two.
        self.results = run_admin_files(self.session, files)
        return self.results

    def query(self, sql):
        return self.session.execute(sql)

    def close(self):
        self.session.close()
        self.user_session.close()
        self.server.stop()
        if self.own_dir:
            shutil.rmtree(self.workdir, ignore_errors=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default=os.environ.get("SLICEHOUSE_BIN", "/tmp/shbin/slicehouse"),
                    help="the slicehouse binary (default $SLICEHOUSE_BIN)")
    ap.add_argument("--only", action="append", default=[],
                    help="run only files whose name contains this (repeatable)")
    ap.add_argument("--rows", type=int, default=0, help="print up to N rows of each passing file")
    ap.add_argument("--keep", metavar="DIR", help="work in DIR and keep it (data directory and files)")
    ap.add_argument("--statement", action="store_true", help="print the failing statement's start too")
    ap.add_argument("--root", help="read AdminViews/ and AdminScripts/ from this folder (a scratch copy)")
    ap.add_argument("--prelude", help="an SQL file to run after the workload, before the admin files")
    args = ap.parse_args(argv)
    if args.root:
        global ROOT
        ROOT = os.path.abspath(args.root)

    files = all_files()
    if args.only:
        files = [f for f in files if any(o in f for o in args.only)]
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
    h = Harness(args.bin, args.keep)
    try:
        prelude = None
        if args.prelude:
            with open(args.prelude) as f:
                prelude = f.read()
        results = h.run(files, prelude)
        for sql, err in h.workload_failures:
            print(f"WORKLOAD FAIL: {err}\n    {sql[:200]}")
        passed = 0
        for f, r in results.items():
            if r.ok:
                passed += 1
                print(f"PASS {f} ({len(r.rows)} rows)")
                for row in r.rows[:args.rows]:
                    print("     ", row)
            else:
                print(f"FAIL {f}: {r.error}")
                if args.statement:
                    print("      in: " + " ".join(r.statement.split())[:300])
        if not h.server.alive():
            print(f"SERVER DIED (exit {h.server.proc.returncode})")
        print(f"{passed} of {len(results)} passed")
    finally:
        h.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
