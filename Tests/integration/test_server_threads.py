# SPDX-License-Identifier: Apache-2.0
"""The server's threads (issue 75, item 6): a connection holds no thread of its own. 200
clients logged in and idle add a few threads to `slicehouse serve`, not one per
connection; statements run on a shared pool of statement threads that grows with the
statements running at once, and every connection still answers.
"""
import os

import pytest

from server_support import Server, connect, need, run, wait_until


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    need("psycopg2")
    s = Server(tmp_path_factory.mktemp("data"), args=["--max-connections", "300"])
    yield s
    s.stop()


def threads(pid):
    return len(os.listdir(f"/proc/{pid}/task"))


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="counts threads in /proc")
def test_idle_connections_hold_no_threads(server):
    first = connect(server)
    assert run(first, "select 1") == [(1,)]
    before = threads(server.proc.pid)
    conns = [connect(server) for _ in range(200)]
    idle = threads(server.proc.pid)
    assert idle - before < 10, (before, idle)
    for i, c in enumerate(conns):
        assert run(c, f"select {i}") == [(i,)]
    after = threads(server.proc.pid)
    assert after - before < 40, (before, after)
    for c in conns:
        c.close()
    assert run(first, "select count(*) from stv_sessions") is not None
    assert wait_until(lambda: run(first, "select count(*) from stv_sessions")[0][0] == 1)
    first.close()
