# SPDX-License-Identifier: Apache-2.0
"""The interactive slicehouse shell driven through a real pseudo-terminal, as a person
uses it: prompts, aligned output, continuation lines, errors with carets, COPY with its
progress line, history across restarts, exits.

Run: SLICEHOUSE_BIN=/path/to/slicehouse python3 -m pytest Tests/integration -q
(needs `pip install pexpect pytest`).
"""
import os
import re
import time

import pexpect
import pytest

from conftest import CONT_PROMPT, PROMPT, strip_ansi


def test_start_shows_banner_and_prompt(spawn_shell):
    sh = spawn_shell()
    sh.expect_exact(PROMPT)
    assert "slicehouse" in sh.child.before
    sh.child.sendline("\\q")
    sh.expect_exit(0)


def test_select_one_aligned(spawn_shell):
    sh = spawn_shell()
    sh.prompt()
    out = sh.run("select 1;")
    lines = [l for l in out.replace("\r", "").split("\n")]
    # echo, header, rule, value, footer
    assert lines[0] == "select 1;", out
    assert lines[1:5] == [" ?column? ", "----------", "        1", "(1 row)"], out
    sh.child.sendline("\\q")
    sh.expect_exit(0)


def test_multiline_statement_uses_continuation_prompt(spawn_shell):
    sh = spawn_shell()
    sh.prompt()
    sh.child.sendline("select")
    sh.expect_exact(CONT_PROMPT)
    sh.child.sendline("1 + 1")
    sh.expect_exact(CONT_PROMPT)
    sh.child.sendline(";")
    sh.expect(r"\?column\? \r\n-+\r\n +2\r\n\(1 row\)")
    sh.prompt()
    sh.child.sendline("\\q")
    sh.expect_exit(0)


def test_backslash_d_lists_created_table(spawn_shell):
    sh = spawn_shell()
    sh.prompt()
    out = sh.run("create table pty_items (a int, b varchar(20)) diststyle key distkey(a) sortkey(a);")
    assert "CREATE TABLE" in out
    out = sh.run("\\d")
    assert "List of relations" in out, out
    assert re.search(r"public\s+\|\s+pty_items\s+\|\s+table\s+\|", out), out
    assert "(1 row)" in out, out
    out = sh.run("\\d pty_items")
    assert re.search(r"\ba\s+\|\s+integer", out), out
    sh.child.sendline("\\q")
    sh.expect_exit(0)


def test_error_has_line_and_caret(spawn_shell):
    sh = spawn_shell()
    sh.prompt()
    out = sh.run("select nosuch from nowhere;").replace("\r", "")
    assert re.search(r"^ERROR:  ", out, re.M), out
    m = re.search(r"^(LINE 1: )(select nosuch from nowhere;?)\n( *)\^$", out, re.M)
    assert m, f"no LINE 1:/caret pair in {out!r}"
    prefix, text, spaces = m.groups()
    assert text.startswith("select nosuch from nowhere")
    # The error is about the relation: the caret goes under "nowhere".
    assert len(spaces) == len(prefix) + text.index("nowhere"), out
    # The shell keeps going after an error.
    out = sh.run("select 2;")
    assert "(1 row)" in out
    sh.child.sendline("\\q")
    sh.expect_exit(0)


def test_copy_big_csv_with_progress_line(spawn_shell, big_csv):
    path, n = big_csv
    sh = spawn_shell()
    sh.prompt()
    sh.run("create table t (a int, b varchar(30), c float8) diststyle key distkey(a) sortkey(a);")
    start = len(sh.transcript.getvalue())
    t0 = time.monotonic()
    sh.child.sendline(f"copy t from '{path}' csv;")
    sh.expect(r"(?m)^COPY %d\r?$" % n, timeout=30)
    elapsed = time.monotonic() - t0
    sh.prompt()
    stream = sh.transcript.getvalue()[start:]
    assert f"{n} record(s) loaded successfully" in stream, stream[-2000:]
    progress = re.findall(r"\rCOPY t: ([^\r\x1b]*)\x1b\[K", stream)
    # Shown for loads whose parsing takes over 0.25 s, which this file's does (about a second).
    assert progress, f"COPY progress line not observed (COPY took {elapsed:.2f}s)"
    for text in progress:
        assert re.fullmatch(r"[\d.]+ (bytes|kB|MB|GB)/[\d.]+ (kB|MB|GB) read, [\d,]+ rows?", text), text
    # The line is erased (carriage return + clear to end of line) before anything else prints.
    assert "\r\x1b[K" in stream, repr(stream[-500:])
    assert "COPY t:" not in strip_ansi(stream.split("\r")[-1])
    out = sh.run("select count(*), sum(a) from t;")
    assert re.search(r"\b%d \| +%d\b" % (n, n * (n - 1) // 2), out), out
    sh.child.sendline("\\q")
    sh.expect_exit(0)


def test_backslash_q_exits_zero(spawn_shell):
    sh = spawn_shell()
    sh.prompt()
    sh.child.sendline("\\q")
    sh.expect_exit(0)


def test_ctrl_d_at_prompt_exits_cleanly(spawn_shell):
    sh = spawn_shell()
    sh.prompt()
    sh.child.sendeof()
    sh.expect_exit(0)


def test_history_survives_restart(spawn_shell):
    stmt = "select 4242 + 17 as pty_history_marker;"
    sh = spawn_shell()
    sh.prompt()
    out = sh.run(stmt)
    assert "4259" in out, out
    sh.child.sendline("\\q")
    sh.expect_exit(0)
    hist = spawn_shell.home / ".slicehouse_history"
    assert hist.exists(), f"no history file at {hist}"
    assert "pty_history_marker" in hist.read_text(errors="replace"), hist.read_text(errors="replace")

    sh2 = spawn_shell()
    sh2.prompt()
    sh2.child.send("\x1b[A")                    # Up arrow recalls the previous statement
    sh2.expect_exact("pty_history_marker")
    sh2.child.send("\r")
    sh2.expect(r"pty_history_marker \r\n-+\r\n +4259\r\n\(1 row\)")
    sh2.prompt()
    sh2.child.sendline("\\q")
    sh2.expect_exit(0)


def test_dash_c_on_a_pty_exits_zero(spawn_shell):
    # stdin, stdout and stderr are all the pty. This crashed with SIGSEGV (exit 139) once.
    sh = spawn_shell("-c", "select 1")
    sh.expect(r" \?column\? \r\n-+\r\n +1\r\n\(1 row\)")
    sh.expect_exit(0)


def test_dash_c_error_on_a_pty_exits_one(spawn_shell):
    sh = spawn_shell("-v", "ON_ERROR_STOP=1", "-c", "select nosuch from nowhere")
    sh.expect(r"ERROR:  .*\r\nLINE 1: select nosuch from nowhere;?\r\n +\^")
    sh.expect_exit(1)


def test_ctrl_c_cancels_the_running_statement_not_the_shell(spawn_shell):
    """As in psql: Ctrl-C during a long statement cancels it within a second, prints the
    error, and the shell goes on (it used to kill the shell)."""
    sh = spawn_shell()
    sh.prompt()
    sh.run("create table d (x int);")
    sh.run("insert into d values (0),(1),(2),(3),(4),(5),(6),(7),(8),(9);")
    sh.run("create table n as select a.x * 1000 + b.x * 100 + c.x * 10 + e.x as a from d a, d b, d c, d e;")
    sh.child.sendline("select count(*) from n a, n b, n c where a.a + b.a + c.a < 0;")
    time.sleep(1.0)
    sent = time.time()
    sh.child.sendintr()
    sh.expect_exact("ERROR:  canceling statement due to user request", timeout=5)
    sh.prompt(timeout=5)
    assert time.time() - sent < 1.0, time.time() - sent
    out = sh.run("select count(*) from n;")
    assert "10000" in out
    sh.child.sendline("\\q")
    sh.expect_exit(0)
