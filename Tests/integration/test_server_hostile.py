# SPDX-License-Identifier: Apache-2.0
"""A hostile but ordinary user against `slicehouse serve` (issue 74): `bob` holds no grants
and tries to read and delete the server's files, to read other users' passwords, SQL and
rows, to take over other users' functions and sessions, to lock everyone out and to grow
the server without bound. Every case asserts what Redshift's rules say he gets: an error
(SQLSTATE 42501 for privileges), and nothing of what he must not reach.
"""
import glob
import os
import socket
import stat
import struct
import threading
import time

import pytest

from server_support import PASSWORD, Server, connect, need, run, wait_until

BOB_PASSWORD = "B0b-password"
ALICE_PASSWORD = "Al1ce-password"
CAROL_PASSWORD = "C4rol-password"
SECRET = "FrankSecret77"


@pytest.fixture(scope="module")
def psycopg2():
    return need("psycopg2")


@pytest.fixture(scope="module")
def env(tmp_path_factory, psycopg2):
    """A server with one directory opened for users (SHARE), its data directory DATA, and
    users bob, alice and carol; OUTSIDE is a directory no user was given."""
    share = tmp_path_factory.mktemp("share")
    outside = tmp_path_factory.mktemp("outside")
    data = tmp_path_factory.mktemp("data") / "db"
    hba = tmp_path_factory.mktemp("hba") / "hba.conf"
    hba.write_text("host all rejected reject\nhost all carol scram-sha-256\nhost all all md5\n")
    server = Server(data, args=["--copy-dir", str(share), "--hba-file", str(hba), "--max-connections", "12"])
    admin = connect(server)
    for name, pw in [("bob", BOB_PASSWORD), ("alice", ALICE_PASSWORD), ("carol", CAROL_PASSWORD),
                     ("rejected", "Rej3cted-pass")]:
        run(admin, f"create user {name} password '{pw}'")
    run(admin, "create table secrets (id int, ssn varchar(11))")
    run(admin, "insert into secrets values (1, '123-45-6789'), (2, '987-65-4321')")
    yield {"server": server, "admin": admin, "share": share, "outside": outside, "data": str(data)}
    admin.close()
    server.stop()


def refused(psycopg2, conn, sql, message, code="42501"):
    with pytest.raises(psycopg2.Error) as e:
        run(conn, sql)
    assert message in str(e.value), str(e.value)
    if code:
        assert e.value.pgcode == code, (e.value.pgcode, str(e.value))
    return str(e.value)


def bob(psycopg2, env):
    return connect(env["server"], "bob", BOB_PASSWORD)


def block_files(data):
    return sorted(glob.glob(os.path.join(data, "slice*", "*")))


# -- 1, 2: the server's file system -------------------------------------------------------

def test_copy_reads_no_server_file_outside_the_opened_directories(psycopg2, env):
    b = bob(psycopg2, env)
    run(b, "create table loot (line varchar(65535))")
    refused(psycopg2, b, "copy loot from '/etc/passwd' delimiter '~'", "permission denied")
    assert run(b, "select count(*) from loot") == [(0,)]
    # The data directory: blocks, the system logs, the catalog.
    for target in [os.path.join(env["data"], "slice0/"), os.path.join(env["data"], "syslog/"),
                   os.path.join(env["data"], "manifest.json"), env["data"] + "/"]:
        refused(psycopg2, b, f"copy loot from '{target}' delimiter '~'", "permission denied")
    # A path that climbs out of the opened directory, and a link that leads out of it.
    (env["outside"] / "private.txt").write_text("private\n")
    refused(psycopg2, b, f"copy loot from '{env['share']}/../{env['outside'].name}/private.txt'", "permission denied")
    link = env["share"] / "passwd_link"
    os.symlink("/etc/passwd", link)
    try:
        refused(psycopg2, b, f"copy loot from '{link}' delimiter '~'", "permission denied")
        # A prefix that matches the link among ordinary files refuses the whole COPY.
        (env["share"] / "passwd_ok.txt").write_text("fine\n")
        refused(psycopg2, b, f"copy loot from '{env['share']}/passwd' delimiter '~'", "permission denied")
    finally:
        os.unlink(link)
        os.unlink(env["share"] / "passwd_ok.txt")
    # A manifest inside the opened directory that names a file outside it.
    manifest = env["share"] / "loot.manifest"
    manifest.write_text('{"entries": [{"url": "file:///etc/passwd", "mandatory": true}]}')
    refused(psycopg2, b, f"copy loot from '{manifest}' manifest delimiter '~'", "permission denied")
    assert run(b, "select count(*) from loot") == [(0,)]
    # Inside the opened directory: allowed, as a bucket the user's role reaches.
    (env["share"] / "rows.txt").write_text("one\ntwo\n")
    run(b, f"copy loot from '{env['share']}/rows.txt'")
    assert run(b, "select line from loot order by 1") == [("one",), ("two",)]
    b.close()


def test_unload_writes_and_deletes_only_inside_the_opened_directories(psycopg2, env):
    b = bob(psycopg2, env)
    admin = env["admin"]
    before = block_files(env["data"])
    assert before, "the superuser's table has block files"
    refused(psycopg2, b, f"unload ('select 1') to '{env['data']}/slice' cleanpath", "permission denied")
    refused(psycopg2, b, f"unload ('select 1') to '{env['data']}/slice0/' cleanpath", "permission denied")
    # The superuser cannot either: the data directory is nobody's through UNLOAD.
    refused(psycopg2, admin, f"unload ('select 1') to '{env['data']}/slice' cleanpath", "permission denied")
    assert block_files(env["data"]) == before
    assert run(admin, "select count(*) from secrets") == [(2,)]
    # An unrelated directory, and one reached by climbing out of the opened one.
    keep = env["outside"] / "keep_me.txt"
    keep.write_text("keep\n")
    refused(psycopg2, b, f"unload ('select 1') to '{env['outside']}/keep' cleanpath", "permission denied")
    refused(psycopg2, b, f"unload ('select 1') to '{env['share']}/../{env['outside'].name}/run_' allowoverwrite",
            "permission denied")
    assert keep.read_text() == "keep\n"
    assert not glob.glob(str(env["outside"] / "run_*"))
    # Inside it: CLEANPATH removes the files the prefix names, nothing else.
    share = env["share"]
    (share / "run_old_part").write_text("old\n")
    (share / "run_dir").mkdir()
    (share / "run_dir" / "other.txt").write_text("other\n")
    (share / "unrelated.txt").write_text("unrelated\n")
    run(b, f"unload ('select 42') to '{share}/run_' cleanpath parallel off")
    assert not (share / "run_old_part").exists()
    assert (share / "run_dir" / "other.txt").read_text() == "other\n"
    assert (share / "unrelated.txt").read_text() == "unrelated\n"
    assert (share / "run_000").read_text() == "42\n"
    # A link planted under the prefix is not written through.
    target = env["outside"] / "target.txt"
    target.write_text("target\n")
    os.symlink(target, share / "lnk_000")
    try:
        with pytest.raises(psycopg2.Error):
            run(b, f"unload ('select 1') to '{share}/lnk_' allowoverwrite parallel off")
        assert target.read_text() == "target\n"
    finally:
        os.unlink(share / "lnk_000")
    b.close()


def test_server_file_roles_reach_outside_but_never_the_data_directory(psycopg2, env):
    admin = env["admin"]
    run(admin, "create user reader password 'Re4der-pass'")
    run(admin, "grant role pg_read_server_files to reader")
    r = connect(env["server"], "reader", "Re4der-pass")
    (env["outside"] / "outside_rows.txt").write_text("x\n")
    run(r, "create table reader_t (line varchar(100))")
    run(r, f"copy reader_t from '{env['outside']}/outside_rows.txt'")
    assert run(r, "select line from reader_t") == [("x",)]
    refused(psycopg2, r, f"copy reader_t from '{env['data']}/syslog/'", "permission denied")
    # Reading is not writing.
    refused(psycopg2, r, f"unload ('select 1') to '{env['outside']}/r_'", "permission denied")
    run(admin, "revoke role pg_read_server_files from reader")
    refused(psycopg2, r, f"copy reader_t from '{env['outside']}/outside_rows.txt'", "permission denied")
    r.close()


# -- 3: passwords reach no log, table or file --------------------------------------------

def test_passwords_are_masked_everywhere(psycopg2, env):
    admin = env["admin"]
    run(admin, f"create user frank password '{SECRET}' createuser")
    run(admin, f"alter user frank password '{SECRET}x'")
    texts = run(admin, "select text from svl_statementtext where text like '%frank%'")
    assert texts and all(SECRET not in t[0] for t in texts), texts
    assert any("'***'" in t[0] for t in texts), texts
    for table, column in [("stl_utilitytext", "text"), ("stl_ddltext", "text"), ("stl_query", "querytxt")]:
        rows = run(admin, f"select {column} from {table}")
        assert all(SECRET not in (r[0] or "") for r in rows), table
    # No file of the data directory holds it; the directory and its files are private.
    for path in glob.glob(os.path.join(env["data"], "**", "*"), recursive=True):
        if os.path.isfile(path):
            with open(path, "rb") as f:
                assert SECRET.encode() not in f.read(), path
    assert stat.S_IMODE(os.stat(env["data"]).st_mode) == 0o700
    for path in [os.path.join(env["data"], "manifest.json"), os.path.join(env["data"], "wal.log")]:
        if os.path.exists(path):
            assert stat.S_IMODE(os.stat(path).st_mode) & 0o077 == 0, path


# -- 4, 9, 11: logins ---------------------------------------------------------------------

def test_user_names_fold_before_rules_and_checks(psycopg2, env):
    server = env["server"]
    # carol's rule asks for SCRAM whatever case her name is sent in (a SCRAM proof does
    # not depend on the name; an md5 one is computed by the client from the name as
    # typed, so md5 logins need the name as it was created).
    c = connect(server, "CAROL", CAROL_PASSWORD)
    assert run(c, "select current_user, session_user") == [("carol", "carol")]
    c.close()
    for name in ["rejected", "REJECTED", "Rejected"]:
        with pytest.raises(psycopg2.OperationalError) as e:
            connect(server, name, "Rej3cted-pass")
        assert "no host rule" in str(e.value)


def test_the_superuser_password_changed_by_alter_user(psycopg2, tmp_path):
    server = Server(tmp_path / "db")
    try:
        c = connect(server)
        run(c, "alter user awsuser password 'N3w-superuser'")
        c.close()
        for name in ["awsuser", "AWSUSER", "AwsUser"]:
            with pytest.raises(psycopg2.OperationalError):
                connect(server, name, PASSWORD)
        connect(server, "awsuser", "N3w-superuser").close()
    finally:
        server.stop()


def startup_message(user):
    body = struct.pack("!i", 196608) + b"user\0" + user.encode() + b"\0database\0dev\0\0"
    return struct.pack("!i", len(body) + 4) + body


def first_reply(port, user):
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    try:
        s.sendall(startup_message(user))
        header = s.recv(5)
        kind = header[:1]
        length = struct.unpack("!i", header[1:5])[0]
        rest = b""
        while len(rest) < length - 4:
            rest += s.recv(length - 4 - len(rest))
        return kind, rest
    finally:
        s.close()


def test_unknown_users_are_challenged_like_known_ones(env):
    port = env["server"].port
    # AuthenticationMD5Password for a user who exists, one who does not, and one whose
    # password is disabled: nothing tells them apart before the password is checked.
    env["admin"].cursor().execute("create user disabled_user password disable")
    for user in ["bob", "nobody_here", "disabled_user"]:
        kind, rest = first_reply(port, user)
        assert kind == b"R" and struct.unpack("!i", rest[:4])[0] == 5, (user, kind, rest)


def test_sockets_that_never_log_in_lock_nobody_out(psycopg2, env):
    server = env["server"]
    sockets = []
    try:
        # More half-open logins than the server has connections (12).
        for _ in range(30):
            s = socket.create_connection(("127.0.0.1", server.port), timeout=10)
            s.sendall(startup_message("bob"))
            sockets.append(s)
        time.sleep(0.3)
        connect(server).close()
        connect(server, "bob", BOB_PASSWORD).close()
        # Fill the ordinary users' slots: the superuser still gets in.
        held = []
        try:
            while True:
                held.append(connect(server, "carol", CAROL_PASSWORD))
                assert len(held) <= 12
        except psycopg2.OperationalError as e:
            assert "reserved for superusers" in str(e)
        connect(server).close()
        for h in held:
            h.close()
    finally:
        for s in sockets:
            s.close()


# -- 5, 6, 7, 8, 10: other users' functions, sessions, grants, logs and rows -------------

def test_functions_belong_to_their_owners(psycopg2, env):
    admin = env["admin"]
    a = connect(env["server"], "alice", ALICE_PASSWORD)
    b = bob(psycopg2, env)
    run(admin, "grant select on secrets to alice")
    run(a, "create function f_mask(varchar) returns varchar stable as $$ select 'xxx-xx-' || right($1, 4) $$ language sql")
    run(a, "create view masked as select id, f_mask(ssn) as ssn from secrets")
    run(a, "grant select on masked to bob")
    assert run(b, "select ssn from masked order by id") == [("xxx-xx-6789",), ("xxx-xx-4321",)]
    refused(psycopg2, b, "create or replace function f_mask(varchar) returns varchar stable as $$ select $1 $$ language sql",
            "must be owner of function f_mask")
    refused(psycopg2, b, "drop function f_mask(varchar)", "must be owner of function f_mask")
    assert run(b, "select ssn from masked order by id") == [("xxx-xx-6789",), ("xxx-xx-4321",)]
    # EXECUTE: PUBLIC's by default, the owner's to take away; inside the view the owner's rights count.
    assert run(b, "select f_mask('111-22-3333')") == [("xxx-xx-3333",)]
    run(a, "revoke execute on function f_mask(varchar) from public")
    refused(psycopg2, b, "select f_mask('111-22-3333')", "permission denied for function f_mask")
    assert run(b, "select ssn from masked order by id") == [("xxx-xx-6789",), ("xxx-xx-4321",)]
    run(a, "grant execute on function f_mask(varchar) to bob")
    assert run(b, "select f_mask('111-22-3333')") == [("xxx-xx-3333",)]
    a.close()
    b.close()


def test_sessions_are_signalled_only_by_their_user_or_a_superuser(psycopg2, env):
    a = connect(env["server"], "alice", ALICE_PASSWORD)
    b = bob(psycopg2, env)
    pid = run(a, "select pg_backend_pid()")[0][0]
    refused(psycopg2, b, f"select pg_cancel_backend({pid})", "permission denied")
    refused(psycopg2, b, f"select pg_terminate_backend({pid})", "permission denied")
    assert run(a, "select 1") == [(1,)]
    # The user's own other session, and a superuser, may.
    a2 = connect(env["server"], "alice", ALICE_PASSWORD)
    assert run(a2, f"select pg_cancel_backend({pid})") == [(1,)]
    assert run(env["admin"], f"select pg_terminate_backend({pid})") == [(1,)]
    assert wait_until(lambda: a.closed or not probe(psycopg2, a))
    a2.close()
    b.close()


def probe(psycopg2, conn):
    try:
        run(conn, "select 1")
        return True
    except psycopg2.Error:
        return False


def test_revoke_reaches_the_grants_made_with_the_revoked_option(psycopg2, env):
    admin = env["admin"]
    a = connect(env["server"], "alice", ALICE_PASSWORD)
    b = bob(psycopg2, env)
    c = connect(env["server"], "carol", CAROL_PASSWORD)
    run(a, "create table alice_t (x int)")
    run(a, "insert into alice_t values (7)")
    run(a, "grant select on alice_t to bob with grant option")
    run(b, "grant select on alice_t to carol")
    assert run(c, "select x from alice_t") == [(7,)]
    refused(psycopg2, a, "revoke select on alice_t from bob", "dependent privileges exist", code="2BP01")
    assert run(b, "select x from alice_t") == [(7,)]
    run(a, "revoke select on alice_t from bob cascade")
    refused(psycopg2, b, "select x from alice_t", "permission denied")
    refused(psycopg2, c, "select x from alice_t", "permission denied")
    # REVOKE GRANT OPTION FOR: bob keeps SELECT, carol's grant from him goes.
    run(a, "grant select on alice_t to bob with grant option")
    run(b, "grant select on alice_t to carol")
    run(a, "revoke grant option for select on alice_t from bob cascade")
    assert run(b, "select x from alice_t") == [(7,)]
    refused(psycopg2, c, "select x from alice_t", "permission denied")
    for conn in (a, b, c):
        conn.close()
    del admin


def test_system_tables_show_only_the_users_own_work(psycopg2, env):
    admin = env["admin"]
    bob_id = run(admin, "select usesysid from pg_user where usename = 'bob'")[0][0]
    b = bob(psycopg2, env)
    run(b, "select 1")
    for table, column in [("stl_wlm_query", "userid"), ("svl_query_report", "userid"),
                          ("svl_query_summary", "userid"), ("stl_query_metrics", "userid"), ("stl_query", "userid"),
                          ("sys_query_history", "user_id")]:
        users = {r[0] for r in run(b, f"select distinct {column} from {table}")}
        assert users <= {bob_id}, (table, users)
        all_users = {r[0] for r in run(admin, f"select distinct {column} from {table}")}
        assert len(all_users) >= 1, table
    # STL_SCAN has no user id: the rows of bob's own queries only (none of the superuser's
    # scan of secrets, whose table id would tell what he read).
    run(admin, "create table admin_only (x int)")
    run(admin, "insert into admin_only values (1)")
    run(admin, "select count(*) from admin_only where x > 0")
    table_id = run(admin, "select oid from pg_class where relname = 'admin_only'")[0][0]
    assert run(admin, f"select count(*) from stl_scan where tbl = {table_id}")[0][0] > 0
    assert run(b, f"select count(*) from stl_scan where tbl = {table_id}") == [(0,)]
    assert run(b, "select count(*) from stl_scan")[0][0] > 0
    b.close()


# -- 12: a client that sends without reading ---------------------------------------------

def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def test_a_client_that_never_reads_cannot_grow_the_server(psycopg2, env):
    server = env["server"]
    admin = env["admin"]
    run(admin, "create table one (x int)")
    run(admin, "insert into one values (1)")
    run(admin, "grant select on one to bob")
    s = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 << 10)
    s.sendall(startup_message("bob"))
    # md5 challenge: answer it.
    import hashlib
    header = s.recv(5)
    length = struct.unpack("!i", header[1:5])[0]
    body = s.recv(length - 4)
    salt = body[4:8]
    inner = hashlib.md5((BOB_PASSWORD + "bob").encode()).hexdigest()
    outer = "md5" + hashlib.md5(inner.encode() + salt).hexdigest()
    msg = outer.encode() + b"\0"
    s.sendall(b"p" + struct.pack("!i", len(msg) + 4) + msg)
    time.sleep(0.3)
    before = rss_kb(server.proc.pid)
    query = b"select repeat('y', 60000) from one\0"
    packet = b"Q" + struct.pack("!i", len(query) + 4) + query
    s.setblocking(False)
    sent = 0
    deadline = time.time() + 8
    # 20,000 queries (1.2 GB of replies) sent, never a byte read: the server stops
    # answering once its unread replies pass the channel's bound, then stops reading.
    data = packet * 20000
    while sent < len(data) and time.time() < deadline:
        try:
            sent += s.send(data[sent:sent + (1 << 16)])
        except BlockingIOError:
            time.sleep(0.01)
    time.sleep(2)
    after = rss_kb(server.proc.pid)
    s.close()
    assert after - before < 100_000, (before, after)
    assert server.alive()
    connect(server).close()


# -- 14, 15, 16: materialized views answer only for what they hold -----------------------

def test_rewriting_uses_a_view_only_while_it_means_the_same(psycopg2, env):
    admin = env["admin"]
    run(admin, "create table mvt (k int, v int)")
    run(admin, "insert into mvt values (1, 10), (2, 20)")
    run(admin, "create materialized view mvt_count as select count(*) as n from mvt")
    assert run(admin, "select count(*) from mvt") == [(2,)]
    # A rename swap: `mvt` is another table now.
    run(admin, "alter table mvt rename to mvt_old")
    run(admin, "create table mvt (k int, v int)")
    run(admin, "insert into mvt values (1, 1), (2, 2), (3, 3), (4, 4)")
    assert run(admin, "select count(*) from mvt") == [(4,)]
    # A view under the view's query replaced.
    run(admin, "create table base2 (x int)")
    run(admin, "insert into base2 values (1), (2), (3)")
    run(admin, "create view v2 as select x from base2 where x > 1")
    run(admin, "create materialized view mv2 as select count(*) as n from v2")
    assert run(admin, "select count(*) from v2") == [(2,)]
    run(admin, "create or replace view v2 as select x from base2")
    assert run(admin, "select count(*) from v2") == [(3,)]
    # The time: a view over GETDATE is never used in its place (its rows hold the time
    # of its refresh; a row that has come due since must count).
    import datetime
    soon = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=2)).strftime("%Y-%m-%d %H:%M:%S")
    run(admin, "create table ts_t (d timestamp)")
    run(admin, f"insert into ts_t values ('2001-01-01'), ('2999-01-01'), ('{soon}')")
    run(admin, "create materialized view mv_now as select count(*) as n from ts_t where d < getdate()")
    assert run(admin, "select n from mv_now") == [(1,)]
    time.sleep(3)
    assert run(admin, "select count(*) from ts_t where d < getdate()") == [(2,)]


# -- 17, 18: VACUUM stops when asked; deep views ------------------------------------------

def test_vacuum_stops_at_statement_timeout(psycopg2, env):
    admin = env["admin"]
    run(admin, "create table vac (k int, pad varchar(100)) sortkey(k)")
    values = ", ".join(f"({(i * 7919) % 100000}, '{'p' * 90}')" for i in range(1000))
    run(admin, f"insert into vac values {values}")
    for _ in range(6):
        run(admin, "insert into vac select (random() * 1000000)::int, pad from vac")
    run(admin, "delete from vac where k % 3 = 0")
    run(admin, "set statement_timeout to 1")
    try:
        with pytest.raises(psycopg2.Error) as e:
            run(admin, "vacuum full vac to 100 percent")
        assert e.value.pgcode == "57014", str(e.value)
    finally:
        run(admin, "set statement_timeout to 0")
    run(admin, "vacuum full vac to 100 percent")


def test_a_long_chain_of_views_is_not_a_cycle(psycopg2, env):
    admin = env["admin"]
    run(admin, "create table chain0 (x int)")
    run(admin, "insert into chain0 values (5)")
    run(admin, "create view w0 as select x from chain0")
    # 64 views inside one another are expanded; past that the error says so.
    for i in range(1, 64):
        run(admin, f"create view w{i} as select x from w{i - 1}")
    assert run(admin, "select x from w32") == [(5,)]
    assert run(admin, "select x from w63") == [(5,)]
    run(admin, "create view w64 as select x from public.w63 with no schema binding")
    message = refused(psycopg2, admin, "select x from w64", "nested too deeply", code="54000")
    assert "refers to itself" not in message


def test_refresh_reads_with_the_view_owners_privileges(psycopg2, env):
    admin = env["admin"]
    run(admin, "create table payroll (name varchar(20), salary int)")
    run(admin, "insert into payroll values ('ann', 100)")
    run(admin, "grant select on payroll to alice")
    a = connect(env["server"], "alice", ALICE_PASSWORD)
    run(a, "create materialized view alice_pay as select name, salary from payroll")
    run(admin, "revoke select on payroll from alice")
    run(admin, "insert into payroll values ('ben', 200)")
    # The superuser's REFRESH runs as alice, who may no longer read payroll.
    refused(psycopg2, admin, "refresh materialized view alice_pay", "permission denied for relation payroll")
    assert run(a, "select name from alice_pay order by name") == [("ann",)]
    a.close()
