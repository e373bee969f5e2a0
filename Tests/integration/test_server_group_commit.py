# SPDX-License-Identifier: Apache-2.0
"""Group commit over the server (issue 80): eight clients insert single rows into one
table, each commit answered only once durable, while the server is killed (`kill -9`) at
random moments. After each restart every client's rows are exactly its first m inserts:
none answered is lost, at most the one in flight when the server died is there
unanswered, and no later row of a client survives an earlier one it lost.
"""
import random
import threading
import time

from server_support import Server, connect, need, run, wait_until

CLIENTS = 8
ROUNDS = 3


def test_kill_during_concurrent_inserts_keeps_every_answered_commit(tmp_path):
    need("psycopg2")
    import psycopg2
    data = tmp_path / "data"
    server = Server(data)
    try:
        run(connect(server), "create table t (client int, seq int) diststyle even")
        answered = [0] * CLIENTS      # per client: inserts answered so far (its next seq)
        rng = random.Random(80)
        for round_ in range(ROUNDS):
            conns = [connect(server) for _ in range(CLIENTS)]
            for c in conns:
                c.autocommit = True

            def client(i):
                cur = conns[i].cursor()
                try:
                    while True:
                        cur.execute("insert into t values (%s, %s)", (i, answered[i]))
                        answered[i] += 1
                except psycopg2.Error:
                    pass   # the server died

            threads = [threading.Thread(target=client, args=(i,)) for i in range(CLIENTS)]
            for t in threads:
                t.start()
            time.sleep(rng.uniform(0.5, 2.0))
            server.proc.kill()
            server.proc.wait()
            for t in threads:
                t.join(timeout=30)
                assert not t.is_alive(), "a client hung after the server died"
            server = Server(data)
            rows = run(connect(server), "select client, count(*), min(seq), max(seq), count(distinct seq)"
                                        " from t group by client order by client")
            seen = {r[0]: r[1:] for r in rows}
            for i in range(CLIENTS):
                n, lo, hi, distinct = seen.get(i, (0, None, None, 0))
                assert n == distinct, f"round {round_}, client {i}: a row twice"
                if n:
                    assert (lo, hi) == (0, n - 1), f"round {round_}, client {i}: rows are not its first {n} inserts"
                assert n >= answered[i], f"round {round_}, client {i}: {answered[i]} answered, {n} kept"
                assert n <= answered[i] + 1, f"round {round_}, client {i}: more kept than sent"
                answered[i] = n
        assert sum(answered) > CLIENTS, "hardly any insert committed before the kills"
    finally:
        server.stop()
