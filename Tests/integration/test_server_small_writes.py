# SPDX-License-Identifier: Apache-2.0
"""Concurrent small writes over the server (issue 80): a statement outside a transaction
block takes its table's lock first and its snapshot after, so an autocommit DELETE or
UPDATE that waited for another writer never fails with 1023 for a conflict the wait
resolved. A transaction block that read the table before another writer committed
still gets Redshift's 1023.
"""
import random
import threading
import time

import pytest

from server_support import Server, connect, need, run, wait_until

ROWS = 20_000


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    need("psycopg2")
    s = Server(tmp_path_factory.mktemp("data"))
    yield s
    s.stop()


def fresh_table(conn, name):
    run(conn, f"drop table if exists {name}")
    run(conn, f"create table {name} (id bigint, grp int, amount decimal(12,2)) distkey(id) sortkey(id)")
    for start in range(1, ROWS + 1, 2000):
        values = ",".join(f"({n}, {n % 50}, {(n % 1000) / 10.0})" for n in range(start, start + 2000))
        run(conn, f"insert into {name} values {values}")


def waiting_for_lock(conn):
    return run(conn, "select count(*) from svv_transactions where not granted")[0][0] > 0


def behind_a_writer(server, statement):
    """Run `statement` autocommit on a second connection while a first holds the table's
    lock in a block that changes it; the first commits once the second is waiting.
    The second's outcome: its status message or the error it got."""
    import psycopg2
    holder, waiter, watcher = connect(server), connect(server), connect(server)
    holder.autocommit = False
    run(holder, "delete from w where id = 1")
    outcome = {}

    def second():
        cur = waiter.cursor()
        try:
            cur.execute(statement)
            outcome["status"] = cur.statusmessage
        except psycopg2.Error as e:
            outcome["error"] = (e.pgcode, str(e))

    t = threading.Thread(target=second)
    t.start()
    assert wait_until(lambda: waiting_for_lock(watcher)), "the second statement never waited for the lock"
    holder.commit()
    t.join(30)
    assert not t.is_alive()
    for c in (holder, waiter, watcher):
        c.close()
    return outcome


def test_autocommit_delete_waits_then_succeeds(server):
    conn = connect(server)
    fresh_table(conn, "w")
    assert behind_a_writer(server, "delete from w where id = 2") == {"status": "DELETE 1"}
    assert run(conn, "select count(*) from w where id in (1, 2)") == [(0,)]


def test_autocommit_update_waits_then_sees_the_committed_rows(server):
    conn = connect(server)
    fresh_table(conn, "w")
    # The UPDATE reads after the DELETE committed: row 1 is gone, so 4 of 5 are updated.
    assert behind_a_writer(server, "update w set amount = -1 where id between 1 and 5") == {"status": "UPDATE 4"}
    assert run(conn, "select count(*) from w where amount = -1") == [(4,)]


def test_autocommit_insert_select_from_itself_waits_then_succeeds(server):
    conn = connect(server)
    fresh_table(conn, "w")
    out = behind_a_writer(server, "insert into w select id + 1000000, grp, amount from w where id <= 10")
    assert out == {"status": "INSERT 0 9"}
    assert run(conn, "select count(*) from w") == [(ROWS - 1 + 9,)]


def test_a_block_that_read_before_the_commit_still_conflicts(server):
    import psycopg2
    conn = connect(server)
    fresh_table(conn, "w")
    block = connect(server)
    block.autocommit = False
    assert run(block, "select count(*) from w") == [(ROWS,)]
    assert run(conn, "delete from w where id = 7") is None
    with pytest.raises(psycopg2.Error) as e:
        run(block, "delete from w where id = 8")
    assert e.value.pgcode == "40001"
    assert "Serializable isolation violation" in str(e.value)
    block.rollback()
    block.close()
    assert run(conn, "select count(*) from w where id in (7, 8)") == [(1,)]


def test_eight_clients_of_small_writes_and_aggregates_never_fail(server):
    """The issue's mix at a smaller scale: 8 clients, 10% single-row INSERTs, 2%
    single-row DELETEs, the rest small aggregates, all autocommit, for a few seconds.
    Not one statement fails, and the table holds exactly what was committed."""
    import psycopg2
    conn = connect(server)
    fresh_table(conn, "mix")
    stop = time.time() + 6
    errors, inserted, deleted, lock = [], [], [], threading.Lock()

    def client(k):
        rng = random.Random(k)
        c = connect(server)
        cur = c.cursor()
        n = 0
        while time.time() < stop:
            r = rng.random()
            try:
                if r < 0.10:
                    key = 10_000_000 + k * 1_000_000 + n
                    n += 1
                    cur.execute("insert into mix values (%s, %s, 1.5)", (key, k))
                    with lock:
                        inserted.append(key)
                elif r < 0.12:
                    key = rng.randrange(1, ROWS + 1)
                    cur.execute("delete from mix where id = %s", (key,))
                    if cur.rowcount == 1:
                        with lock:
                            deleted.append(key)
                else:
                    cur.execute("select grp, sum(amount) from mix where grp = %s group by grp", (rng.randrange(50),))
                    cur.fetchall()
            except psycopg2.Error as e:
                with lock:
                    errors.append((e.pgcode, str(e).strip()))
        c.close()

    threads = [threading.Thread(target=client, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []
    assert inserted and deleted, "the mix ran no writes"
    assert run(conn, "select count(*) from mix") == [(ROWS + len(inserted) - len(deleted),)]
    assert run(conn, "select count(*) from mix where id >= 10000000") == [(len(inserted),)]
