# SPDX-License-Identifier: Apache-2.0
"""Apache Superset 6.1.0 end to end against `slicehouse serve`, through Superset's REST API.

    SUPERSET_VENV/bin/python Tests/integration/superset/superset_flow.py SLICEHOUSE_BIN WORKDIR [--cache-dir DIR]

Run it with the Python of a venv holding apache-superset 6.1.0, sqlalchemy-redshift,
psycopg2-binary, rich, cachetools and flask-caching 2.3.1 (scripts/setup-system.sh makes
one); the screenshot needs Debian's chromium and chromium-driver (/usr/bin/chromium,
/usr/bin/chromedriver). test_superset.py runs it.

  1. `slicehouse serve -D WORKDIR/shdata --port 0` (TLS with its self-signed certificate),
     with schema sales, table sales.orders (6 rows) and view sales.region_totals;
  2. meanwhile WORKDIR/superset/superset_config.py (SQLite metadata DB, no CSRF, Celery
     tasks run eagerly in the web process so the screenshot needs no worker) and the
     metadata DB (migrations, roles, an admin user, in one process);
  3. Superset under gunicorn on a free loopback port;
  4. through the REST API: JWT login; test_connection (the certificate must verify with
     sslrootcert=server.crt, and must not against sqlalchemy-redshift's bundled Amazon CA);
     the database as redshift+psycopg2://...?sslmode=verify-full&sslrootcert=server.crt;
     schemas, tables and their column types; datasets on the table, the view and a SQL
     query; SQL Lab rows, an error, and Stop on a running query; CSV upload; a bar chart's
     data, a monthly time series, drill to detail, CSV export; and the chart's screenshot
     rendered by Superset's own selenium machinery in headless Chromium, which must be a
     PNG of at least 400x200 that is not blank.

Exit status 0 when every check passed, 1 when one failed (each failure is printed with its
step and what came back), 2 on a setup error. WORKDIR keeps the logs (slicehouse.log,
superset_init.log, superset_web.log, chromedriver.log), chart.png, and
superset/sql_errors.jsonl: every statement sent to Slicehouse that failed, with the
Superset code path that sent it (printed in the summary).
"""
import argparse
import collections
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
import traceback
import urllib.parse
import zlib

PASSWORD = "Sl1ce-h0use pass"
ADMIN_USER, ADMIN_PASS = "admin", "admin"

SETUP_SQL = [
    "create schema sales",
    "create table sales.orders (id int primary key, region varchar(20), amount decimal(10,2), ordered date)",
    "insert into sales.orders values (1,'north',100.50,'2024-01-05'),(2,'south',200.00,'2024-01-06'),"
    "(3,'north',50.25,'2024-02-01'),(4,'east',75.00,'2024-02-10'),(5,'west',300.10,'2024-03-15'),"
    "(6,'south',20.00,'2024-03-20')",
    "create view sales.region_totals as select region, sum(amount) as total, count(*) as n "
    "from sales.orders group by region",
]
EXPECTED_TOTALS = {"east": 75.0, "north": 150.75, "south": 220.0, "west": 300.1}

# superset_config.py, written into the work dir. Placeholders: __WORK__, __PORT__.
CONFIG_TEMPLATE = r'''
import json, os, traceback
WORK = __WORK__
SECRET_KEY = "superset-flow-0123456789abcdef0123456789abcdef"
SQLALCHEMY_DATABASE_URI = "sqlite:///" + os.path.join(WORK, "superset.db")
WTF_CSRF_ENABLED = False            # REST calls with a JWT, no CSRF token
TALISMAN_ENABLED = False
CONTENT_SECURITY_POLICY_WARNING = False
RATELIMIT_ENABLED = False
AUTH_RATE_LIMITED = False
CACHE_CONFIG = {"CACHE_TYPE": "NullCache"}
DATA_CACHE_CONFIG = {"CACHE_TYPE": "NullCache"}
FILTER_STATE_CACHE_CONFIG = {"CACHE_TYPE": "SimpleCache"}
EXPLORE_FORM_DATA_CACHE_CONFIG = {"CACHE_TYPE": "SimpleCache"}
LOG_LEVEL = "INFO"

# Chart screenshots by Superset's own machinery: THUMBNAILS, Celery tasks run eagerly in the
# web process, selenium driving Debian's chromium and chromedriver.
FEATURE_FLAGS = {"THUMBNAILS": True, "THUMBNAILS_SQLA_LISTENERS": False}
class CeleryConfig:
    broker_url = "memory://"
    result_backend = "cache+memory://"
    task_always_eager = True
    task_eager_propagates = True
    imports = ("superset.tasks.thumbnails",)
CELERY_CONFIG = CeleryConfig
THUMBNAIL_CACHE_CONFIG = {"CACHE_TYPE": "SimpleCache", "CACHE_DEFAULT_TIMEOUT": 3600, "CACHE_KEY_PREFIX": "thumb_"}
WEBDRIVER_TYPE = "chrome"
WEBDRIVER_BASEURL = "http://127.0.0.1:__PORT__/"
WEBDRIVER_BASEURL_USER_FRIENDLY = WEBDRIVER_BASEURL
WEBDRIVER_OPTION_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars"]
WEBDRIVER_CONFIGURATION = {
    "options": {"capabilities": {}, "preferences": {}, "binary_location": "/usr/bin/chromium"},
    "service": {"executable_path": "/usr/bin/chromedriver", "log_output": os.path.join(WORK, "..", "chromedriver.log"),
                "service_args": [], "port": 0, "env": {}},
}
SCREENSHOT_SELENIUM_HEADSTART = 0
SCREENSHOT_SELENIUM_ANIMATION_WAIT = 1
SCREENSHOT_LOCATE_WAIT = 30
SCREENSHOT_LOAD_WAIT = 30

# Every statement sent to Slicehouse that fails, with the Superset code path that sent it.
from sqlalchemy import event
from sqlalchemy.engine import Engine

@event.listens_for(Engine, "handle_error")
def _log_error(ctx):
    if ctx.engine is None or ctx.engine.dialect.name != "redshift":
        return
    stack = [f"{fs.filename.split('site-packages/')[-1]}:{fs.lineno} {fs.name}"
             for fs in traceback.extract_stack()[:-1]
             if "site-packages/superset/" in fs.filename or "sqlalchemy_redshift" in fs.filename]
    with open(os.path.join(WORK, "sql_errors.jsonl"), "a") as f:
        f.write(json.dumps({"sql": ctx.statement, "error": str(ctx.original_exception).strip(),
                            "stack": stack[-6:]}, default=str) + "\n")
'''

# Migrations, roles and the admin user in one process (two app starts fewer than the CLI).
INIT_SCRIPT = r'''
import sys
from superset.app import create_app
app = create_app()
with app.app_context():
    from flask_migrate import upgrade
    upgrade()
    from superset import appbuilder, security_manager, db
    appbuilder.add_permissions(update_perms=True)
    security_manager.sync_role_definitions()
    if not security_manager.find_user(username=sys.argv[1]):
        security_manager.add_user(sys.argv[1], "Admin", "User", "admin@example.com",
                                  security_manager.find_role("Admin"), password=sys.argv[2])
    db.session.commit()
'''


class Fatal(Exception):
    pass


class ApiError(Exception):
    def __init__(self, method, path, status, body):
        if isinstance(body, str) and body.lstrip().startswith("<"):
            text = "HTML error page; the traceback is in superset_web.log"
        else:
            text = (body if isinstance(body, str) else json.dumps(body))[:600]
        super().__init__(f"{method} {path} -> HTTP {status}: {text}")


def png_summary(data):
    """(width, height, Counter of colours) of an 8-bit RGB or RGBA, non-interlaced PNG."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"not a PNG: starts with {data[:8]!r}")
    pos, idat, header = 8, [], None
    while pos + 8 <= len(data):
        (length,), kind = struct.unpack(">I", data[pos:pos + 4]), data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + length
    width, height, depth, colour_type, _, _, interlace = header
    if depth != 8 or colour_type not in (2, 6) or interlace:
        raise ValueError(f"unexpected PNG format: depth {depth}, colour type {colour_type}, interlace {interlace}")
    bpp = 3 if colour_type == 2 else 4
    stride = width * bpp
    raw = zlib.decompress(b"".join(idat))
    colours = collections.Counter()
    prev = bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):     # undo the row's filter (PNG spec, section 9)
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                c = prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        colours.update(bytes(line[i:i + bpp]) for i in range(0, stride, bpp))
        prev = line
    return width, height, colours


class Flow:
    def __init__(self, args):
        self.args = args
        self.work = os.path.abspath(args.workdir)
        self.ss_dir = os.path.join(self.work, "superset")
        self.sh_dir = os.path.join(self.work, "shdata")
        self.procs = []
        self.checks = []          # (step, ok, detail)
        self.timings = {}
        self.python = sys.executable
        self.bindir = os.path.dirname(self.python)

    def log(self, msg):
        print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)

    def check(self, step, ok, detail=""):
        self.checks.append((step, bool(ok), detail))
        self.log(("PASS " if ok else "FAIL ") + step + (f": {detail}" if detail and not ok else ""))
        return ok

    # ---------------------------------------------------------------- processes
    def spawn(self, cmd, logname, env=None, cwd=None):
        f = open(os.path.join(self.work, logname), "wb")
        p = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, env=env, cwd=cwd, start_new_session=True)
        self.procs.append((p, f))
        return p

    def shutdown(self):
        """Stop every process started here, with its process group (gunicorn's workers, chromium)."""
        for p, _ in reversed(self.procs):
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        deadline = time.time() + 10
        for p, f in reversed(self.procs):
            try:
                p.wait(timeout=max(0.1, deadline - time.time()))
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                p.wait()
            f.close()

    # ---------------------------------------------------------------- slicehouse
    def start_slicehouse(self):
        t0 = time.time()
        env = dict(os.environ, SLICEHOUSE_PASSWORD=PASSWORD)
        logf = os.path.join(self.work, "slicehouse.log")
        p = self.spawn([os.path.abspath(self.args.slicehouse), "serve", "-D", self.sh_dir, "--port", "0"],
                       "slicehouse.log", env=env)
        while time.time() - t0 < 30:
            if p.poll() is not None:
                raise Fatal(f"slicehouse serve exited with {p.returncode}: {open(logf).read()[-2000:]}")
            first = open(logf).readline()
            if "listening on" in first and first.endswith("\n"):
                hostport = first.split("listening on ", 1)[1].split(",")[0].split()[0]
                self.sh_port = int(hostport.rsplit(":", 1)[1])
                break
            time.sleep(0.05)
        else:
            raise Fatal("slicehouse serve did not print 'listening on' within 30s")
        self.sh_cert = os.path.join(self.sh_dir, "server.crt")
        self.log(f"slicehouse listening on 127.0.0.1:{self.sh_port}")

    def pg(self):
        import psycopg2
        c = psycopg2.connect(host="127.0.0.1", port=self.sh_port, user="awsuser", password=PASSWORD, dbname="dev",
                             sslmode="verify-full", sslrootcert=self.sh_cert, connect_timeout=10)
        c.autocommit = True
        return c

    def query(self, sql):
        c = self.pg()
        try:
            cur = c.cursor()
            cur.execute(sql)
            return cur.fetchall() if cur.description else None
        finally:
            c.close()

    def populate(self):
        for s in SETUP_SQL:
            self.query(s)
        n = self.query("select count(*) from sales.orders")[0][0]
        if n != 6:
            raise Fatal(f"expected 6 rows in sales.orders, got {n}")

    # ---------------------------------------------------------------- superset setup
    def superset_env(self):
        env = dict(os.environ, SUPERSET_CONFIG_PATH=os.path.join(self.ss_dir, "superset_config.py"),
                   SUPERSET_HOME=self.ss_dir, FLASK_APP="superset", PYTHONWARNINGS="ignore",
                   SUPERSET_LOAD_EXAMPLES="no")
        env["PATH"] = self.bindir + os.pathsep + env.get("PATH", "")
        return env

    def write_config(self):
        os.makedirs(self.ss_dir)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.ss_port = s.getsockname()[1]
        cfg = CONFIG_TEMPLATE.replace("__WORK__", repr(self.ss_dir)).replace("__PORT__", str(self.ss_port))
        with open(os.path.join(self.ss_dir, "superset_config.py"), "w") as f:
            f.write(cfg)

    def init_superset(self):
        """The metadata DB; with --cache-dir, a copy of one initialised earlier by this Superset version."""
        t0 = time.time()
        db = os.path.join(self.ss_dir, "superset.db")
        cached = None
        if self.args.cache_dir:
            import importlib.metadata
            os.makedirs(self.args.cache_dir, exist_ok=True)
            cached = os.path.join(self.args.cache_dir,
                                  "superset-%s-metadata.db" % importlib.metadata.version("apache-superset"))
            if os.path.exists(cached):
                shutil.copyfile(cached, db)
                self.log(f"superset metadata DB copied from {cached}")
                return
        script = os.path.join(self.ss_dir, "init_superset.py")
        with open(script, "w") as f:
            f.write(INIT_SCRIPT)
        p = self.spawn([self.python, script, ADMIN_USER, ADMIN_PASS], "superset_init.log",
                       env=self.superset_env(), cwd=self.ss_dir)
        if p.wait() != 0:
            with open(os.path.join(self.work, "superset_init.log")) as f:
                raise Fatal("superset init failed (superset_init.log):\n" + f.read()[-3000:])
        self.timings["superset_init"] = round(time.time() - t0, 1)
        self.log(f"superset metadata DB initialised in {self.timings['superset_init']}s")
        if cached:
            shutil.copyfile(db, cached + ".tmp")
            os.replace(cached + ".tmp", cached)

    def start_superset(self):
        import requests
        t0 = time.time()
        cmd = [os.path.join(self.bindir, "gunicorn"), "-w", "1", "-k", "gthread", "--threads", "8",
               "--timeout", "180", "-b", f"127.0.0.1:{self.ss_port}", "superset.app:create_app()"]
        p = self.spawn(cmd, "superset_web.log", env=self.superset_env(), cwd=self.ss_dir)
        self.base = f"http://127.0.0.1:{self.ss_port}"
        while time.time() - t0 < 120:
            if p.poll() is not None:
                raise Fatal("gunicorn exited: " + open(os.path.join(self.work, "superset_web.log")).read()[-3000:])
            try:
                if requests.get(self.base + "/health", timeout=2).text.strip() == "OK":
                    break
            except requests.RequestException:
                pass
            time.sleep(0.2)
        else:
            raise Fatal("superset did not answer /health within 120s")
        self.timings["superset_start"] = round(time.time() - t0, 1)
        self.log(f"superset up on {self.base} ({self.timings['superset_start']}s)")

    # ---------------------------------------------------------------- REST helpers
    def api(self, method, path, expect=(200,), **kw):
        r = self.http.request(method, self.base + path, timeout=180, **kw)
        try:
            body = r.json()
        except ValueError:
            body = r.text
        if r.status_code not in expect:
            raise ApiError(method, path, r.status_code, body)
        return body

    def step(self, name, fn):
        """Run one step; a failure is recorded and the flow goes on."""
        t0 = time.time()
        try:
            fn()
        except (ApiError, AssertionError) as e:
            self.check(name, False, str(e))
        except Exception as e:  # noqa: BLE001 - any error is this step's failure
            self.check(name, False, f"{type(e).__name__}: {e}")
            traceback.print_exc()
        self.timings[name] = round(time.time() - t0, 1)

    # ---------------------------------------------------------------- the REST flow
    def login(self):
        import requests
        self.http = requests.Session()
        tok = self.api("POST", "/api/v1/security/login",
                       json={"username": ADMIN_USER, "password": ADMIN_PASS, "provider": "db", "refresh": True})
        self.http.headers["Authorization"] = "Bearer " + tok["access_token"]
        me = self.api("GET", "/api/v1/me/")
        self.check("login (JWT)", me["result"]["username"] == ADMIN_USER, me)

    def uri(self, query):
        return f"redshift+psycopg2://awsuser:{urllib.parse.quote(PASSWORD, safe='')}@127.0.0.1:{self.sh_port}/dev" + query

    def test_connections(self):
        cert = urllib.parse.quote(self.sh_cert, safe="")
        variants = [
            ("sslmode=verify-full&sslrootcert=server.crt", f"?sslmode=verify-full&sslrootcert={cert}", True),
            ("sslmode=require&sslrootcert=server.crt", f"?sslmode=require&sslrootcert={cert}", True),
            # sqlalchemy-redshift defaults to sslmode=verify-full with its bundled Amazon CA, and libpq
            # verifies against a given root certificate even under 'require': the self-signed
            # certificate must fail both.
            ("no ssl parameters (dialect default: verify-full, Amazon CA)", "", False),
            ("sslmode=require (dialect adds the Amazon CA)", "?sslmode=require", False),
        ]
        for label, q, expect_ok in variants:
            r = self.http.post(self.base + "/api/v1/database/test_connection/",
                               json={"database_name": "probe", "sqlalchemy_uri": self.uri(q)}, timeout=60)
            self.check(f"test_connection [{label}] -> {'OK' if expect_ok else 'certificate verify failed'}",
                       (r.status_code == 200) == expect_ok
                       and (expect_ok or "certificate verify failed" in r.text), r.text[:300])
        self.db_uri = self.uri(f"?sslmode=verify-full&sslrootcert={cert}")

    def create_database(self):
        b = self.api("POST", "/api/v1/database/", expect=(201,),
                     json={"database_name": "slicehouse", "sqlalchemy_uri": self.db_uri,
                           "expose_in_sqllab": True, "allow_dml": True, "allow_run_async": False})
        self.db_id = b["id"]
        self.check("create database", True)

    def schemas_tables(self):
        import prison
        schemas = self.api("GET", f"/api/v1/database/{self.db_id}/schemas/?q=(force:!t)")["result"]
        self.check("schemas include 'sales' and 'public'", {"sales", "public"} <= set(schemas), f"got {schemas}")
        t = self.api("GET", f"/api/v1/database/{self.db_id}/tables/?q=" +
                     prison.dumps({"schema_name": "sales", "force": True}))
        got = {x["value"]: x["type"] for x in t["result"]}
        self.check("tables in sales: orders (table), region_totals (view)",
                   got == {"orders": "table", "region_totals": "view"}, f"got {got}")

    def table_metadata(self):
        b = self.api("GET", f"/api/v1/database/{self.db_id}/table_metadata/?name=orders&schema=sales")
        cols = {c["name"]: c["longType"] for c in b["columns"]}
        want = {"id": "INTEGER", "region": "VARCHAR(20)", "amount": "NUMERIC(10, 2)", "ordered": "DATE"}
        self.check("table_metadata columns and types (SQL Lab's table preview)", cols == want, f"got {cols}")
        self.api("GET", f"/api/v1/database/{self.db_id}/table_metadata/extra/?name=orders&schema=sales")
        star = self.api("GET", f"/api/v1/database/{self.db_id}/select_star/orders/sales/")["result"]
        self.check("select_star", "FROM sales.orders" in star, star)

    def create_dataset(self):
        b = self.api("POST", "/api/v1/dataset/", expect=(201,),
                     json={"database": self.db_id, "schema": "sales", "table_name": "orders"})
        self.ds_id = b["id"]
        d = self.api("GET", f"/api/v1/dataset/{self.ds_id}")["result"]
        cols = {c["column_name"]: (c["type"], c["is_dttm"]) for c in d["columns"]}
        want = {"id": ("INTEGER", False), "region": ("VARCHAR(20)", False),
                "amount": ("NUMERIC(10, 2)", False), "ordered": ("DATE", True)}
        self.check("dataset sales.orders: reflected columns and types", cols == want, f"got {cols}")
        self.check("dataset main_dttm_col is 'ordered'", d.get("main_dttm_col") == "ordered", d.get("main_dttm_col"))

    def create_view_dataset(self):
        b = self.api("POST", "/api/v1/dataset/", expect=(201,),
                     json={"database": self.db_id, "schema": "sales", "table_name": "region_totals"})
        cols = {c["column_name"]: c["type"] for c in b["data"]["columns"]}
        self.check("dataset on view sales.region_totals",
                   set(cols) == {"region", "total", "n"} and cols["region"] == "VARCHAR(20)", f"got {cols}")

    def create_virtual_dataset(self):
        b = self.api("POST", "/api/v1/dataset/", expect=(201,),
                     json={"database": self.db_id, "schema": "sales", "table_name": "orders_virtual",
                           "sql": "select id, region, amount, ordered, date_trunc('month', ordered) as month "
                                  "from sales.orders"})
        cols = {c["column_name"]: (c["type"], c["is_dttm"]) for c in b["data"]["columns"]}
        self.check("virtual (SQL) dataset columns", set(cols) == {"id", "region", "amount", "ordered", "month"}
                   and cols["month"][1] is True and cols["ordered"][1] is True, f"got {cols}")

    def refresh_and_values(self):
        self.api("PUT", f"/api/v1/dataset/{self.ds_id}/refresh")
        v = self.api("GET", f"/api/v1/datasource/table/{self.ds_id}/column/region/values/")["result"]
        self.check("filter values of region", sorted(v) == sorted(EXPECTED_TOTALS), f"got {v}")

    def sqllab(self):
        sql = ("select region, sum(amount) as total, count(*) as n, min(ordered) as first "
               "from sales.orders group by region order by region")
        b = self.api("POST", "/api/v1/sqllab/execute/",
                     json={"database_id": self.db_id, "sql": sql, "schema": "sales", "runAsync": False,
                           "client_id": "flowq1", "tab": "flow"})
        got = [(r["region"], r["total"], r["n"], r["first"]) for r in b["data"]]
        want = [("east", 75.0, 1, "2024-02-10"), ("north", 150.75, 2, "2024-01-05"),
                ("south", 220.0, 2, "2024-01-06"), ("west", 300.1, 1, "2024-03-15")]
        self.check("SQL Lab result rows", b["status"] == "success" and got == want, f"got {got}")
        types = {c["name"]: c["type"] for c in b["columns"]}
        self.check("SQL Lab column types", types.get("region") == "STRING" and types.get("n") == "INT", f"got {types}")
        r = self.http.post(self.base + "/api/v1/sqllab/execute/", timeout=60,
                           json={"database_id": self.db_id, "sql": "select nosuchcol from sales.orders",
                                 "runAsync": False, "client_id": "flowq2"})
        self.check("SQL Lab passes the server's error message through", r.status_code >= 400 and
                   'column \\"nosuchcol\\" does not exist' in r.text, r.text[:300])

    def sqllab_stop(self):
        """SQL Lab's Stop button: /api/v1/query/stop has the engine spec cancel the running query
        (SELECT pg_cancel_backend(procpid) FROM pg_stat_activity WHERE procpid='<pid>')."""
        import requests
        res = {}
        # About 15s uncancelled (720M rows), so a query that ends soon after Stop was cancelled.
        sql = ("select count(*) as c from generate_series(1,60000) a cross join generate_series(1,12001) b "
               "where (a.a * b.b) % 7 = 3")

        def run():
            s = requests.Session()
            s.headers.update(self.http.headers)
            r = s.post(self.base + "/api/v1/sqllab/execute/", timeout=120,
                       json={"database_id": self.db_id, "sql": sql, "runAsync": False, "client_id": "flowlong"})
            res["status"], res["body"], res["end"] = r.status_code, r.text[:500], time.time()
        th = threading.Thread(target=run)
        th.start()
        running = "select count(*) from pg_stat_activity where current_query like '%12001%' " \
                  "and current_query not like '%pg_stat_activity%'"
        deadline = time.time() + 10
        while time.time() < deadline and not self.query(running)[0][0]:
            time.sleep(0.1)
        time.sleep(0.3)
        t_stop = time.time()
        r = self.http.post(self.base + "/api/v1/query/stop", json={"client_id": "flowlong"}, timeout=60)
        th.join(120)
        body = res.get("body", "")
        self.check("SQL Lab stop of a running query", r.status_code == 200
                   and ('"status": "stopped"' in body or "canceling statement" in body),
                   f"stop -> {r.status_code} {r.text[:200]}; query -> {res.get('status')} {body[:200]}")
        self.check("the stopped query ended within 5s of Stop", res.get("end", t_stop + 999) - t_stop < 5,
                   f"it took {res.get('end', float('nan')) - t_stop:.1f}s")
        aborted = self.query("select aborted from stl_query where querytxt like '%12001%' and querytxt "
                             "not like '%stl_query%' and querytxt not like '%pg_stat_activity%'")
        self.check("stl_query records the stopped query as aborted", [a for (a,) in aborted] == [1], f"got {aborted}")

    def csv_upload(self):
        """Superset's CSV upload: pandas.to_sql, that is CREATE TABLE and a multi-row INSERT."""
        self.api("PUT", f"/api/v1/database/{self.db_id}",
                 json={"allow_file_upload": True, "extra": json.dumps({"schemas_allowed_for_file_upload": []})})
        csv = b'name,qty,price,day\nabc,1,2.5,2024-01-01\n"d,e",2,3.25,2024-01-02\n'
        self.api("POST", f"/api/v1/database/{self.db_id}/upload/", expect=(201,),
                 files={"file": ("up.csv", csv, "text/csv")},
                 data={"type": "csv", "table_name": "uploaded", "schema": "public", "already_exists": "fail",
                       "column_dates": "day"})
        b = self.api("POST", "/api/v1/sqllab/execute/",
                     json={"database_id": self.db_id, "runAsync": False, "client_id": "flowup",
                           "sql": "select name, qty, price, day from public.uploaded order by qty"})
        got = [(r["name"], r["qty"], r["price"], r["day"][:10]) for r in b["data"]]
        self.check("CSV upload into public.uploaded, read back",
                   got == [("abc", 1, 2.5, "2024-01-01"), ("d,e", 2, 3.25, "2024-01-02")], f"got {got}")

    def chart(self):
        metric = {"expressionType": "SIMPLE", "column": {"column_name": "amount", "type": "NUMERIC(10, 2)"},
                  "aggregate": "SUM", "label": "SUM(amount)"}
        params = {"datasource": f"{self.ds_id}__table", "viz_type": "echarts_timeseries_bar", "x_axis": "region",
                  "metrics": [metric], "groupby": [], "adhoc_filters": [], "row_limit": 100,
                  "orientation": "vertical", "x_axis_sort_asc": True, "show_legend": True}
        qc = {"datasource": {"id": self.ds_id, "type": "table"}, "force": True,
              "queries": [{"columns": [{"columnType": "BASE_AXIS", "sqlExpression": "region", "label": "region",
                                        "expressionType": "SQL"}],
                           "metrics": [metric], "orderby": [[metric, False]], "row_limit": 100, "filters": [],
                           "extras": {"having": "", "where": ""}, "series_columns": [],
                           "post_processing": [{"operation": "pivot", "options": {
                               "index": ["region"], "columns": [], "drop_missing_columns": False,
                               "aggregates": {"SUM(amount)": {"operator": "mean"}}}}, {"operation": "flatten"}]}],
              "form_data": params, "result_format": "json", "result_type": "full"}
        b = self.api("POST", "/api/v1/chart/", expect=(201,),
                     json={"slice_name": "Sales by region", "viz_type": "echarts_timeseries_bar",
                           "datasource_id": self.ds_id, "datasource_type": "table",
                           "params": json.dumps(params), "query_context": json.dumps(qc)})
        self.chart_id = b["id"]
        for label, method, path, body in [("GET /api/v1/chart/<id>/data/", "GET",
                                           f"/api/v1/chart/{self.chart_id}/data/?force=true", None),
                                          ("POST /api/v1/chart/data", "POST", "/api/v1/chart/data", qc)]:
            d = self.api(method, path, json=body)["result"][0]
            got = {r["region"]: r["SUM(amount)"] for r in d["data"]}
            self.check(f"bar chart data: sum(amount) by region ({label})",
                       d["status"] == "success" and got == EXPECTED_TOTALS, f"got {got} / {d.get('error')}")

    def timeseries(self):
        metric = {"expressionType": "SIMPLE", "column": {"column_name": "amount"}, "aggregate": "SUM",
                  "label": "SUM(amount)"}
        qc = {"datasource": {"id": self.ds_id, "type": "table"}, "force": True, "result_format": "json",
              "result_type": "full",
              "queries": [{"columns": [{"columnType": "BASE_AXIS", "sqlExpression": "ordered", "label": "ordered",
                                        "expressionType": "SQL", "timeGrain": "P1M"}],
                           "metrics": [metric, "count"], "row_limit": 100,
                           "filters": [{"col": "ordered", "op": "TEMPORAL_RANGE", "val": "2024-01-01 : 2024-03-01"},
                                       {"col": "region", "op": "IN", "val": ["north", "south", "east"]}],
                           "orderby": [["ordered", True]],
                           "extras": {"where": "amount > 1", "having": "", "time_grain_sqla": "P1M"}}]}
        d = self.api("POST", "/api/v1/chart/data", json=qc)["result"][0]
        got = [(time.strftime("%Y-%m", time.gmtime(r["ordered"] / 1000)), r["SUM(amount)"], r["count"])
               for r in d["data"]]
        self.check("monthly time series (DATE_TRUNC, TO_DATE range, IN filter)",
                   got == [("2024-01", 300.5, 2), ("2024-02", 125.25, 2)], f"got {got}")
        qc2 = {"datasource": {"id": self.ds_id, "type": "table"}, "force": True, "result_format": "json",
               "result_type": "drill_detail",
               "queries": [{"columns": [], "metrics": [], "row_limit": 5, "row_offset": 0,
                            "filters": [{"col": "region", "op": "==", "val": "north"}]}]}
        d = self.api("POST", "/api/v1/chart/data", json=qc2)["result"][0]
        self.check("drill to detail rows", sorted(r["id"] for r in d["data"]) == [1, 3], f"got {d['data']}")
        qc3 = {"datasource": {"id": self.ds_id, "type": "table"}, "force": True, "result_format": "csv",
               "result_type": "full", "queries": [{"columns": ["region"], "metrics": [metric],
                                                   "orderby": [["region", True]], "row_limit": 10, "filters": []}]}
        r = self.http.post(self.base + "/api/v1/chart/data", json=qc3, timeout=60)
        self.check("CSV export", r.status_code == 200 and "west,300.10" in r.text, r.text[:200])

    def screenshot(self):
        """The chart's screenshot by Superset itself (selenium + headless Chromium)."""
        b = self.api("GET", f"/api/v1/chart/{self.chart_id}/cache_screenshot/?q=(force:!t)", expect=(200, 202))
        status, deadline = b.get("task_status"), time.time() + 120
        while status not in ("Updated", "Error") and time.time() < deadline:
            time.sleep(0.5)
            status = self.api("GET", f"/api/v1/chart/{self.chart_id}/cache_screenshot/",
                              expect=(200, 202)).get("task_status")
        r = self.http.get(self.base + urllib.parse.urlparse(b["image_url"]).path, timeout=60)
        assert r.status_code == 200, f"task_status {status}, screenshot -> HTTP {r.status_code}: {r.text[:300]}"
        with open(os.path.join(self.work, "chart.png"), "wb") as f:
            f.write(r.content)
        width, height, colours = png_summary(r.content)
        # A rendered chart: the background, and filled bars covering a good part of the image.
        ranked = colours.most_common()
        second = ranked[1][1] / (width * height) if len(ranked) > 1 else 0
        summary = f"{width}x{height}, {len(colours)} colours, the second most common covers {second:.1%}"
        self.check("chart screenshot: a PNG of at least 400x200 with the bars drawn",
                   width >= 400 and height >= 200 and len(colours) >= 16 and second >= 0.05, summary)
        self.log(f"chart.png: {summary}")

    # ---------------------------------------------------------------- main
    def run(self):
        os.makedirs(self.work, exist_ok=True)
        if os.path.exists(self.sh_dir) or os.path.exists(self.ss_dir):
            raise Fatal(f"{self.work} already holds shdata/ or superset/: use a fresh work dir")
        t0 = time.time()
        self.write_config()
        init_err = []

        def init():
            try:
                self.init_superset()
            except Exception as e:  # noqa: BLE001 - raised again below
                init_err.append(e)
        th = threading.Thread(target=init, daemon=True)
        th.start()                       # Superset's metadata DB meanwhile
        self.start_slicehouse()
        self.populate()
        th.join()
        if init_err:
            raise init_err[0]
        self.start_superset()
        self.login()
        self.step("test_connection", self.test_connections)
        self.step("create database", self.create_database)
        if not hasattr(self, "db_id"):
            raise Fatal("could not register the database; nothing else can run")
        for name, fn in [("schemas and tables", self.schemas_tables), ("table metadata", self.table_metadata),
                         ("dataset sales.orders", self.create_dataset), ("dataset on a view", self.create_view_dataset),
                         ("virtual dataset", self.create_virtual_dataset), ("SQL Lab", self.sqllab),
                         ("SQL Lab stop", self.sqllab_stop), ("CSV upload", self.csv_upload)]:
            self.step(name, fn)
        if hasattr(self, "ds_id"):
            self.step("dataset refresh, filter values", self.refresh_and_values)
            self.step("bar chart", self.chart)
            self.step("time series, drill to detail, CSV export", self.timeseries)
        if hasattr(self, "chart_id"):
            self.step("screenshot", self.screenshot)
        else:
            self.check("chart steps", False, "no chart: the dataset or the chart could not be created")
        self.timings["total"] = round(time.time() - t0, 1)

    def report(self):
        failed = [c for c in self.checks if not c[1]]
        print("\n==================== summary ====================")
        print("timings (s): " + json.dumps(self.timings))
        print(f"checks: {len(self.checks) - len(failed)} passed, {len(failed)} failed")
        for step, _, detail in failed:
            print(f"  FAILED: {step}: {str(detail)[:400]}")
        errors = os.path.join(self.ss_dir, "sql_errors.jsonl")
        rejected = [json.loads(line) for line in open(errors)] if os.path.exists(errors) else []
        rejected = [e for e in rejected if e["sql"] is not None]   # not the expected certificate failures
        if rejected:
            print("statements Slicehouse rejected:")
            for e in rejected:
                print(f"  - sql: {' '.join(e['sql'].split())[:600]}\n    error: {e['error'].splitlines()[0][:400]}"
                      f"\n    sent by: {' <- '.join(reversed(e['stack']))}")
        return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("slicehouse", help="path of the slicehouse binary")
    ap.add_argument("workdir", help="work directory (created; must not hold an earlier run)")
    ap.add_argument("--cache-dir", help="keep an initialised Superset metadata DB here and reuse it (saves ~15s)")
    args = ap.parse_args()
    if not os.access(args.slicehouse, os.X_OK):
        print(f"error: {args.slicehouse} is not an executable", file=sys.stderr)
        return 2
    flow = Flow(args)
    # SIGTERM (test_superset.py's timeout) ends the flow through `finally`, which stops what it started.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        flow.run()
        rc = flow.report()
    except Exception as e:  # noqa: BLE001 - a setup error: report what ran, exit 2
        if isinstance(e, Fatal):
            print(f"\nFATAL: {e}", file=sys.stderr)
        else:
            traceback.print_exc()
        flow.report()
        rc = 2
    finally:
        flow.shutdown()
    print(f"exit {rc}; logs in {flow.work}", flush=True)
    return rc


if __name__ == "__main__":
    sys.exit(main())
