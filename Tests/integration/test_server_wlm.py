# SPDX-License-Identifier: Apache-2.0
"""Workload management through the server: `serve --wlm FILE` with two user queues,
routing by query group seen in STL_WLM_QUERY, a query waiting for the default queue's
only slot seen as Queued in STV_WLM_QUERY_STATE from another connection, a query group's
queue unaffected by that wait, a query monitoring rule aborting a query, and an invalid
configuration refused at startup.
"""
import json
import subprocess
import threading
import time

import pytest

from server_support import BIN, PASSWORD, USER, Server, wait_until

psycopg2 = pytest.importorskip("psycopg2")

WLM = [
    {"name": "reports", "query_group": ["report*"], "query_group_wild_card": 1, "query_concurrency": 2,
     "memory_percent_to_use": 40},
    {"query_group": ["guarded"], "query_concurrency": 1,
     "rules": [{"rule_name": "no_quick_ones", "action": "abort",
                "predicate": [{"metric_name": "query_execution_time", "operator": "=", "value": 0}]}]},
    {"query_concurrency": 1},
]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    wlm = tmp_path_factory.mktemp("wlm") / "wlm.json"
    wlm.write_text(json.dumps(WLM))
    s = Server(tmp_path_factory.mktemp("data"), args=["--wlm", str(wlm), "--memory", "1GB"])
    conn = connect(s)
    cur = conn.cursor()
    cur.execute("create table t (a int)")
    cur.execute("create table u (a int)")
    cur.execute("insert into u values (1), (2), (3)")
    conn.close()
    yield s
    s.stop()


def connect(server, autocommit=True):
    conn = psycopg2.connect(host=server.host, port=server.port, user=USER, password=PASSWORD, dbname="dev")
    # The tests watch each query go through WLM: a repeated query must run, not come from
    # the result cache (which answers outside WLM).
    conn.autocommit = True
    conn.cursor().execute("set enable_result_cache_for_session to off")
    conn.autocommit = autocommit
    return conn


def scalar(cur, sql):
    cur.execute(sql)
    return cur.fetchone()[0]


def test_routing_by_query_group(server):
    cur = connect(server).cursor()
    cur.execute("set query_group to 'reports_daily'")
    assert scalar(cur, "select count(*) from u") == 3
    assert scalar(cur, "select service_class from stl_wlm_query where query = pg_last_query_id()") == 6
    cur.execute("reset query_group")
    assert scalar(cur, "select count(*) from u") == 3
    assert scalar(cur, "select service_class from stl_wlm_query where query = pg_last_query_id()") == 8
    cur.execute("select service_class, num_query_tasks, query_working_mem, trim(name) "
                "from stv_wlm_service_class_config order by service_class")
    # 1 GB: queue 1 has 40% over 2 slots, the other two queues 30% each over 1.
    assert cur.fetchall() == [(5, 1, 307, "Superuser queue"), (6, 2, 204, "reports"), (7, 1, 307, "Queue 2"),
                              (8, 1, 307, "Default queue")]


def test_a_rule_aborts_a_query(server):
    cur = connect(server).cursor()
    cur.execute("set query_group to 'guarded'")
    with pytest.raises(psycopg2.Error) as e:
        cur.execute("select count(*) from u")
    assert e.value.pgcode == "57014"
    assert 'cancelled by WLM abort action of Query Monitoring Rule "no_quick_ones".' in e.value.pgerror
    cur.execute("reset query_group")
    cur.execute("select service_class, trim(rule), trim(action) from stl_wlm_rule_action")
    assert cur.fetchall() == [(7, "no_quick_ones", "abort")]


def test_a_query_waits_for_the_only_slot(server):
    holder = connect(server, autocommit=False)
    writer, reader, reporter, observer = (connect(server) for _ in range(4))
    # The holder's open transaction keeps t's lock: the writer's INSERT takes the default
    # queue's only slot and waits for the lock; the reader's SELECT waits for the slot.
    holder.cursor().execute("insert into t values (0)")
    results = {}

    def run(name, conn, sql):
        try:
            cur = conn.cursor()
            cur.execute(sql)
            results[name] = cur.fetchall() if cur.description else cur.rowcount
        except Exception as e:  # noqa: BLE001 - reported by the asserts below
            results[name] = e

    writing = threading.Thread(target=run, args=("writer", writer, "insert into t select a from u"))
    writing.start()
    ocur = observer.cursor()
    assert wait_until(lambda: scalar(ocur, "select count(*) from stv_wlm_query_state where state = 'Running'") == 1)
    reading = threading.Thread(target=run, args=("reader", reader, "select count(*) from u"))
    reading.start()
    assert wait_until(lambda: scalar(ocur, "select count(*) from stv_wlm_query_state where state = 'Queued'") == 1)
    ocur.execute("select service_class, trim(state) from stv_wlm_query_state order by state")
    assert ocur.fetchall() == [(8, "Queued"), (8, "Running")]
    ocur.execute("select service_class, position from stv_wlm_query_queue_state")
    assert ocur.fetchall() == [(8, 0)]
    # The reports queue has slots of its own.
    rcur = reporter.cursor()
    rcur.execute("set query_group to 'report'")
    assert scalar(rcur, "select count(*) from u") == 3
    assert "reader" not in results
    time.sleep(0.3)
    holder.commit()
    writing.join(20)
    reading.join(20)
    assert results["writer"] == 3
    assert results["reader"] == [(3,)]
    assert scalar(ocur, "select count(*) from stv_wlm_query_state") == 0
    assert scalar(ocur, "select count(*) from stl_wlm_query where service_class = 8 and total_queue_time > 300000") == 1


def test_an_invalid_configuration_is_refused(tmp_path):
    wlm = tmp_path / "bad.json"
    wlm.write_text(json.dumps([{"query_concurrency": 40}, {"query_concurrency": 20}]))
    proc = subprocess.run([BIN, "serve", "-D", str(tmp_path / "data"), "--port", "0", "--wlm", str(wlm)],
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 2
    assert "the total query_concurrency of all queues is 60; it can't exceed 50" in proc.stderr
