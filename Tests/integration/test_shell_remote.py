# SPDX-License-Identifier: Apache-2.0
"""The shell as a client of a running server (`slicehouse -h HOST -p PORT -U USER`), used as
people use it: through a pseudo-terminal (prompt, statements, errors with carets, \\d,
Ctrl-C cancelling a long query, the password prompt) and non-interactively (-c, -f, piped
standard input, --csv, -A -t, ON_ERROR_STOP, failed connections with exit status 2). The
same script run through the server and against a directory of its own prints byte for
byte the same output.
"""
import os
import re
import subprocess
import time

import pytest

from conftest import BIN, PROMPT, Shell
from server_support import PASSWORD, USER, Server


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    s = Server(tmp_path_factory.mktemp("remote-data"))
    yield s
    s.stop()


def env_with(password=PASSWORD, home=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLICEHOUSE_") and not k.startswith("PG")}
    env.update(LANG="C.UTF-8", LC_ALL="C.UTF-8")
    if home is not None:
        env["HOME"] = str(home)
    if password is not None:
        env["PGPASSWORD"] = password
    return env


def remote_args(server, user=USER):
    return ["-h", server.host, "-p", str(server.port), "-U", user]


def run_remote(server, *args, password=PASSWORD, input=None, user=USER, cwd=None, timeout=30):
    """The shell run without a terminal (no controlling terminal either: no password prompt)."""
    return subprocess.run([BIN] + remote_args(server, user) + list(args), env=env_with(password), input=input,
                          capture_output=True, text=True, timeout=timeout, start_new_session=True, cwd=cwd)


def spawn_remote(tmp_path, server, *args, password=PASSWORD):
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    saved = {k: os.environ.get(k) for k in ("PGPASSWORD", "SLICEHOUSE_PASSWORD")}
    try:
        os.environ.pop("SLICEHOUSE_PASSWORD", None)
        if password is None:
            os.environ.pop("PGPASSWORD", None)
        else:
            os.environ["PGPASSWORD"] = password
        return Shell(home, tmp_path / "unused", remote_args(server) + list(args), with_data_dir=False)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def lines(text):
    return text.replace("\r", "").split("\n")


def test_interactive_session_through_the_server(tmp_path, server):
    sh = spawn_remote(tmp_path, server)
    sh.prompt()
    assert "slicehouse" in sh.child.before and f"{server.host}:{server.port}" in sh.child.before
    out = sh.run("create table r_items (id int, name varchar(20), price decimal(8,2)) distkey(id) sortkey(id);")
    assert lines(out)[1] == "CREATE TABLE", out
    out = sh.run("insert into r_items values (1, 'apple', 0.5), (2, 'pear', 12.25), (3, null, null);")
    assert lines(out)[1] == "INSERT 0 3", out
    out = sh.run("select * from r_items order by id;")
    assert lines(out)[1:8] == [
        " id | name  | price ",
        "----+-------+-------",
        "  1 | apple |  0.50",
        "  2 | pear  | 12.25",
        "  3 |       |      ",
        "(3 rows)",
        "",
    ], out
    # An error with the statement line and a caret under the unknown relation.
    out = sh.run("select nosuch from nowhere;")
    got = lines(out)
    assert got[1].startswith("ERROR:  "), out
    assert re.fullmatch(r"LINE 1: select nosuch from nowhere;?", got[2]), out
    assert got[3] == " " * (len("LINE 1: ") + len("select nosuch from ")) + "^", out
    # \d through catalog queries to the server.
    out = sh.run("\\d")
    assert "List of relations" in out and re.search(r"public \| r_items \| table \| awsuser", out), out
    out = sh.run("\\d r_items")
    got = lines(out)
    assert 'Table "public.r_items"' in got[1], out
    assert [h.strip() for h in got[2].split("|")] == ["Column", "Type", "Encoding", "DistKey", "SortKey",
                                                      "Nullable", "Default"], out
    assert re.match(r" id +\| integer +\| \w+ +\| t +\| 1 +\| +\| *$", got[4]), out
    assert re.match(r" name +\| character varying\(20\) +\| \w+ +\| f +\| 0 +\|", got[5]), out
    out = sh.run("\\d nosuch")
    assert 'Did not find any relation named "nosuch".' in out, out
    out = sh.run("\\conninfo")
    assert f'as user "awsuser" on host "{server.host}" at port "{server.port}"' in out, out
    sh.child.sendline("\\q")
    sh.expect_exit(0)


def test_ctrl_c_cancels_the_query_on_the_server(tmp_path, server):
    setup = run_remote(server, "-c", "create table c_d (x int)",
                       "-c", "insert into c_d values (0),(1),(2),(3),(4),(5),(6),(7),(8),(9)",
                       "-c", "create table c_n as select a.x * 1000 + b.x * 100 + c.x * 10 + e.x as a "
                             "from c_d a, c_d b, c_d c, c_d e")
    assert setup.returncode == 0, setup.stderr
    sh = spawn_remote(tmp_path, server)
    sh.prompt()
    sh.child.sendline("select count(*) from c_n a, c_n b, c_n c where a.a + b.a + c.a < 0;")
    time.sleep(1.0)
    sent = time.time()
    sh.child.sendintr()
    sh.expect_exact("ERROR:  canceling statement due to user request", timeout=5)
    sh.prompt(timeout=5)
    assert time.time() - sent < 1.0, time.time() - sent
    out = sh.run("select count(*) from c_n;")
    assert re.search(r"^ +10000\r?$", out, re.M), out
    sh.child.sendline("\\q")
    sh.expect_exit(0)


def test_password_prompt_on_the_terminal(tmp_path, server):
    sh = spawn_remote(tmp_path, server, "-c", "select 'in' as logged", password=None)
    sh.expect_exact("Password for user awsuser: ")
    sh.child.sendline(PASSWORD)
    sh.expect(r" logged \r\n-+\r\n in\r\n\(1 row\)")
    sh.expect_exit(0)
    assert PASSWORD not in sh.transcript.getvalue(), "the password was echoed"


def test_dash_c_and_formats(server):
    r = run_remote(server, "-c", "select 6 * 7 as answer, 'x' as s")
    assert (r.returncode, r.stdout, r.stderr) == (0, " answer | s \n--------+---\n     42 | x\n(1 row)\n\n", "")
    r = run_remote(server, "--csv", "-c", "select 'a,b' as x, 2 as y, null as z")
    assert (r.returncode, r.stdout) == (0, 'x,y,z\n"a,b",2,\n'), r.stderr
    r = run_remote(server, "-At", "-c", "select 6 * 7, 'x'")
    assert (r.returncode, r.stdout) == (0, "42|x\n"), r.stderr
    # Several statements in one -c, an error on the second line of it.
    r = run_remote(server, "-c", "select 1 as a;\nselect nosuch from r_nowhere")
    assert r.returncode == 1
    assert r.stderr.startswith("ERROR:  ") and "\nLINE 2: select nosuch from r_nowhere\n" in r.stderr, r.stderr
    assert r.stderr.endswith("\n" + " " * len("LINE 2: select nosuch from ") + "^\n"), r.stderr


def test_stdin_file_and_on_error_stop(tmp_path, server):
    r = run_remote(server, input="select 1 + 1 as two;\n\\timing on\nselect 3;\n")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(" two \n-----\n   2\n(1 row)\n\nTiming is on.\n ?column? \n----------\n        3\n(1 row)\n\nTime: ")
    script = tmp_path / "stop.sql"
    script.write_text("select 1 as one;\nselect nosuch;\nselect 2 as two;\n")
    r = run_remote(server, "-v", "ON_ERROR_STOP=1", "-f", str(script))
    assert r.returncode == 1
    assert r.stdout == " one \n-----\n   1\n(1 row)\n\n", r.stdout
    assert r.stderr.startswith(f"slicehouse:{script}:2: ERROR:  "), r.stderr


def test_connection_failures_exit_2(tmp_path, server):
    r = run_remote(server, "-c", "select 1", password="wrong")
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr == (f'slicehouse: error: connection to server at "{server.host}", port {server.port} failed: '
                        'FATAL:  password authentication failed for user "awsuser"\n'), r.stderr
    r = run_remote(server, "-c", "select 1", user="nobody")
    assert r.returncode == 2 and 'password authentication failed for user "nobody"' in r.stderr, r.stderr
    r = run_remote(server, "-c", "select 1", password=None)
    assert r.returncode == 2 and r.stderr.endswith("failed: fe_sendauth: no password supplied\n"), r.stderr
    # A port nobody listens on.
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        free = s.getsockname()[1]
    r = subprocess.run([BIN, "-h", "127.0.0.1", "-p", str(free), "-c", "select 1"], env=env_with(),
                       capture_output=True, text=True, timeout=30, start_new_session=True)
    assert r.returncode == 2
    assert r.stderr == (f'slicehouse: error: connection to server at "127.0.0.1", port {free} failed: Connection refused\n'
                        "\tIs the server running on that host and accepting TCP/IP connections?\n"), r.stderr
    r = subprocess.run([BIN, "-h", "127.0.0.1", "-D", str(tmp_path / "d"), "-c", "select 1"], env=env_with(),
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 2 and "cannot be combined with -D" in r.stderr, r.stderr


COMPARE_SCRIPT = """\
create table kinds (id int, d decimal(12,2), big decimal(38,4), f float8, r real, b boolean,
                    dt date, ts timestamp, s varchar(20), c char(5)) diststyle even sortkey(id);
create table kinds_empty (k bigint, label varchar(10), flag boolean, amount decimal(10,3)) sortkey(k);
insert into kinds values
  (1, 1234.50, 1193053.2253, 0.1, 1.5, true, '2024-02-29', '2024-02-29 13:45:01.25', 'naïve 日本', 'ab'),
  (2, -0.05, null, -1e300, null, false, '1999-12-31', '1970-01-01 00:00:00', null, null),
  (3, null, 0, null, 3.25, null, null, null, '', 'abcde');
select * from kinds order by id;
select count(*) as n, sum(d) as total, avg(big) as mean, max(ts) as latest from kinds;
\\x
select * from kinds where id = 1;
\\x
\\pset null (null)
select id, s, c from kinds order by id;
\\pset null ''
copy kinds from '{csv}' csv;
select id, d, dt from kinds where id > 3 order by id;
select nosuch
  from kinds;
select 1/0;
\\dt
\\d kinds_empty
update kinds set s = 'upd' where id = 2;
delete from kinds where id > 3;
select id, s from kinds order by id;
"""


def test_remote_output_is_the_local_output(tmp_path, server):
    """One script through the server and against a directory of its own: the same bytes on
    standard output and standard error."""
    csv = tmp_path / "more.csv"
    csv.write_text("4,1.00,2.5,2.5,2.5,t,2024-01-01,2024-01-01 00:00:00,x,y\n"
                   "5,-9.99,,,,,1900-03-01,,\"q,r\",\n")
    script = tmp_path / "compare.sql"
    # The server's database already has tables of other tests: give this script its own
    # names there by running it in a fresh server.
    script.write_text(COMPARE_SCRIPT.format(csv=csv))
    fresh = Server(tmp_path / "fresh-server")
    try:
        remote = run_remote(fresh, "-f", "compare.sql", cwd=tmp_path)
    finally:
        fresh.stop()
    local = subprocess.run([BIN, "-D", str(tmp_path / "local-data"), "-f", "compare.sql"], env=env_with(None),
                           capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert local.returncode == 0 and remote.returncode == 0, (local.stderr, remote.stderr)
    assert "INFO:  Load into table 'kinds' completed, 2 record(s) loaded successfully." in local.stderr
    assert "naïve 日本" in local.stdout and "1193053.2253" in local.stdout and "-1e+300" in local.stdout
    assert remote.stdout == local.stdout
    assert remote.stderr == local.stderr
