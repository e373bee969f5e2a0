# SPDX-License-Identifier: Apache-2.0
"""Shared fixtures for the pseudo-terminal tests of the slicehouse shell.

The binary under test comes from $SLICEHOUSE_BIN (default /tmp/shbin/slicehouse).
Every test gets a fresh HOME (history goes to $HOME/.slicehouse_history) and a fresh
data directory, TERM=xterm and a 40x120 window.
"""
import io
import os
import re

import pexpect
import pytest

# dbt-redshift's own functional suite is run by dbt_redshift/run.py in a process of its
# own (test_dbt_redshift_suite.py), with its own conftest and pytest plugins.
collect_ignore = ["dbt_redshift"]

BIN = os.environ.get("SLICEHOUSE_BIN", "/tmp/shbin/slicehouse")
TIMEOUT = 20          # seconds for any single expectation
ROWS, COLS = 40, 120
PROMPT = "slicehouse=> "
CONT_PROMPT = "slicehouse-> "


class Shell:
    """One slicehouse process on a pty, with a transcript of everything it printed."""

    def __init__(self, home, data_dir, args=(), with_data_dir=True):
        self.home = str(home)
        self.data_dir = str(data_dir)
        env = {k: v for k, v in os.environ.items() if not k.startswith("SLICEHOUSE_")}
        env.update(HOME=self.home, TERM="xterm", LANG="C.UTF-8", LC_ALL="C.UTF-8",
                   COLUMNS=str(COLS), LINES=str(ROWS))
        argv = (["-D", self.data_dir] if with_data_dir else []) + list(args)
        self.transcript = io.StringIO()
        self.child = pexpect.spawn(BIN, argv, env=env, dimensions=(ROWS, COLS),
                                   encoding="utf-8", codec_errors="replace",
                                   timeout=TIMEOUT, echo=True)
        self.child.logfile_read = self.transcript
        self.argv = [BIN] + argv

    # -- expectations (each one fails the test on timeout or on early EOF) --------
    def expect_exact(self, text, timeout=TIMEOUT):
        return self._expect(self.child.expect_exact, text, timeout)

    def expect(self, pattern, timeout=TIMEOUT):
        return self._expect(self.child.expect, pattern, timeout)

    def _expect(self, fn, pattern, timeout):
        try:
            fn(pattern, timeout=timeout)
        except pexpect.TIMEOUT:
            pytest.fail(f"timed out after {timeout}s waiting for {pattern!r}\n"
                        f"command: {self.argv}\n{self.tail()}")
        except pexpect.EOF:
            self.child.close()
            pytest.fail(f"process ended (exit {self.child.exitstatus}, signal "
                        f"{self.child.signalstatus}) while waiting for {pattern!r}\n"
                        f"command: {self.argv}\n{self.tail()}")
        return self.child.match

    def prompt(self, timeout=TIMEOUT):
        self.expect_exact(PROMPT, timeout)

    def run(self, line, timeout=TIMEOUT):
        """Send one line and wait for the next main prompt; returns what came between."""
        self.child.sendline(line)
        self.prompt(timeout)
        return self.child.before

    def tail(self, n=3000):
        return "--- transcript (last %d chars) ---\n%r" % (n, self.transcript.getvalue()[-n:])

    # -- the end ----------------------------------------------------------------
    def expect_exit(self, status=0, timeout=TIMEOUT):
        """Wait for the process to end; fail unless it exited normally with `status`."""
        try:
            self.child.expect(pexpect.EOF, timeout=timeout)
        except pexpect.TIMEOUT:
            self.child.terminate(force=True)
            pytest.fail(f"process did not exit within {timeout}s\ncommand: {self.argv}\n{self.tail()}")
        self.child.close()
        sig, code = self.child.signalstatus, self.child.exitstatus
        assert sig is None, f"process killed by signal {sig}\ncommand: {self.argv}\n{self.tail()}"
        assert code == status, f"exit status {code}, expected {status}\ncommand: {self.argv}\n{self.tail()}"

    def kill(self):
        if self.child.isalive():
            self.child.terminate(force=True)


@pytest.fixture
def spawn_shell(tmp_path):
    """spawn_shell(*args, home=None, data_dir=None) -> Shell. Defaults: per-test HOME
    and data directory (the same ones on every call within a test, so a second call
    is a restart)."""
    home = tmp_path / "home"
    home.mkdir()
    data = tmp_path / "data"
    shells = []

    def spawn(*args, **kw):
        s = Shell(kw.get("home", home), kw.get("data_dir", data), args)
        shells.append(s)
        return s

    spawn.home = home
    spawn.data_dir = data
    yield spawn
    for s in shells:
        s.kill()


@pytest.fixture(scope="session")
def big_csv(tmp_path_factory):
    """6,000,000 rows / 180 MB: a COPY of it takes over a second on two cores, half of it parsing, long
    enough for the progress line (shown from a quarter second on) to appear."""
    path = tmp_path_factory.mktemp("csv") / "big.csv"
    n = 6_000_000
    with open(path, "w") as f:
        f.writelines(f"{i},name_{(i * 7919) % 1000003:09d},{(i % 100003) * 0.001:.3f}\n"
                     for i in range(n))
    return path, n


def strip_ansi(s):
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", s)
