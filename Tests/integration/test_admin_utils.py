# SPDX-License-Identifier: Apache-2.0
"""amazon-redshift-utils' AdminViews and AdminScripts over a realistic workload (issue 76).

One `slicehouse serve` runs the workload of redshift_utils/run.py (tables of every
DISTSTYLE, sort keys, COPY with bad rows under MAXERROR, DELETE then VACUUM, ANALYZE, a
user and a group with grants, views, a materialized view, a UDF, a procedure), then
creates every AdminView in schema `admin`, selects from it, and runs every AdminScript.

The ratchet: at least MIN_PASSING of the 69 files run, and every file in EXPECTED_PASS
does (so a regression in any of them fails by name). When more files run, add them to
EXPECTED_PASS and raise MIN_PASSING; redshift_utils/TRIAGE.md says what blocks the rest.
Beside running, some results are checked for plausibility: the DDL names the tables'
keys, the load-error views report the bad COPY's lines, the privilege views show the
grants made. A check on a file that does not run yet is an expected failure (xfail)
naming the file's error; it becomes a real check as soon as the file runs.
"""
import importlib.util
import os

import pytest

from server_support import need

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("redshift_utils_run", os.path.join(HERE, "redshift_utils", "run.py"))
admin_utils = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(admin_utils)

TOTAL_FILES = 69
MIN_PASSING = 67  # raise as files start to pass (issue 76 asks for 60)

EXPECTED_PASS = [
    "AdminViews/v_check_data_distribution.sql",
    "AdminViews/v_check_transaction_locks.sql",
    "AdminViews/v_check_wlm_query_time.sql",
    "AdminViews/v_check_wlm_query_trend_daily.sql",
    "AdminViews/v_check_wlm_query_trend_hourly.sql",
    "AdminViews/v_connection_summary.sql",
    "AdminViews/v_constraint_dependency.sql",
    "AdminViews/v_extended_table_info.sql",
    "AdminViews/v_find_dropuser_objs.sql",
    "AdminViews/v_fragmentation_info.sql",
    "AdminViews/v_generate_cancel_query.sql",
    "AdminViews/v_generate_cursor_query.sql",
    "AdminViews/v_generate_database_ddl.sql",
    "AdminViews/v_generate_external_tbl_ddl.sql",
    "AdminViews/v_generate_group_ddl.sql",
    "AdminViews/v_generate_schema_ddl.sql",
    "AdminViews/v_generate_tbl_ddl.sql",
    "AdminViews/v_generate_terminate_session.sql",
    "AdminViews/v_generate_udf_ddl.sql",
    "AdminViews/v_generate_unload_copy_cmd.sql",
    "AdminViews/v_generate_user_grant_revoke_ddl.sql",
    "AdminViews/v_generate_user_object_permissions.sql",
    "AdminViews/v_generate_view_ddl.sql",
    "AdminViews/v_get_blocking_locks.sql",
    "AdminViews/v_get_cluster_restart_ts.sql",
    "AdminViews/v_get_obj_priv_by_user.sql",
    "AdminViews/v_get_schema_priv_by_user.sql",
    "AdminViews/v_get_stored_proc_params.sql",
    "AdminViews/v_get_tbl_priv_by_group.sql",
    "AdminViews/v_get_tbl_priv_by_user.sql",
    "AdminViews/v_get_tbl_reads_and_writes.sql",
    "AdminViews/v_get_tbl_scan_frequency.sql",
    "AdminViews/v_get_users_in_group.sql",
    "AdminViews/v_get_vacuum_details.sql",
    "AdminViews/v_get_view_priv_by_user.sql",
    "AdminViews/v_my_last_copy_errors.sql",
    "AdminViews/v_my_last_query_summary.sql",
    "AdminViews/v_object_dependency.sql",
    "AdminViews/v_open_session.sql",
    "AdminViews/v_query_type_duration_summary.sql",
    "AdminViews/v_session_leakage_by_cnt.sql",
    "AdminViews/v_space_used_per_tbl.sql",
    "AdminViews/v_vacuum_summary.sql",
    "AdminViews/v_view_dependency.sql",
    "AdminViews/v_view_table_column_dependency.sql",
    "AdminViews/v_wlm_queue_state.sql",
    "AdminScripts/current_session_info.sql",
    "AdminScripts/filter_used.sql",
    "AdminScripts/insert_into_table_dk_mismatch.sql",
    "AdminScripts/lock_wait.sql",
    "AdminScripts/missing_table_stats.sql",
    "AdminScripts/perf_alert.sql",
    "AdminScripts/predicate_columns.sql",
    "AdminScripts/queue_resources_hourly.sql",
    "AdminScripts/queuing_queries.sql",
    "AdminScripts/running_queues.sql",
    "AdminScripts/table_alerts.sql",
    "AdminScripts/table_info.sql",
    "AdminScripts/table_inspector.sql",
    "AdminScripts/top_queries.sql",
    "AdminScripts/top_queries_and_cursors.sql",
    "AdminScripts/unscanned_table_summary.sql",
    "AdminScripts/user_to_be_dropped_objs.sql",
    "AdminScripts/user_to_be_dropped_privs.sql",
    "AdminScripts/wlm_apex.sql",
    "AdminScripts/wlm_apex_hourly.sql",
    "AdminScripts/wlm_qmr_rule_candidates.sql",
]

USER = admin_utils.TEST_USER
# What the workload leaves behind (run.py): sales holds ids 1..N_SALES and the three good
# lines of sales_bad.txt, less those the DELETE removed (id % 10 = 0); VACUUM reclaims them.
_SALES_IDS = list(range(1, admin_utils.N_SALES + 1)) + [admin_utils.N_SALES + k for k in (1, 3, 6)]
SALES_DELETED = sum(1 for i in _SALES_IDS if i % 10 == 0)
SALES_ROWS = len(_SALES_IDS) - SALES_DELETED
WORKLOAD_TABLES = {"category", "venue", "users", "event", "sales", "scratch", "sales_by_event", "sales_2008q1",
                   "user_notes"}


@pytest.fixture(scope="module")
def harness():
    need("psycopg2")
    h = admin_utils.Harness()
    try:
        h.run()
        yield h
    finally:
        h.close()


def summary(results):
    return "\n".join(f"{'PASS' if r.ok else 'FAIL'} {f}" + ("" if r.ok else f": {r.error}")
                     for f, r in results.items())


def result_of(harness, relpath):
    """The file's result; an expected failure (naming its error) while the file does not run."""
    r = harness.results[relpath]
    if not r.ok:
        pytest.xfail(f"{relpath} does not run yet: {r.error}")
    return r


def rows_as_dicts(result):
    return [dict(zip(result.columns, row)) for row in result.rows]


def strip(v):
    return v.strip() if isinstance(v, str) else v


# -- running --------------------------------------------------------------------------

def test_there_are_69_files():
    assert len(admin_utils.all_files()) == TOTAL_FILES


def test_the_workload_runs(harness):
    assert harness.workload_failures == [], harness.workload_failures


def test_the_server_survives(harness):
    assert harness.server.alive(), summary(harness.results)


def test_at_least_min_passing_files_run(harness):
    passed = [f for f, r in harness.results.items() if r.ok]
    assert len(passed) >= MIN_PASSING, summary(harness.results)


@pytest.mark.parametrize("relpath", EXPECTED_PASS)
def test_file_runs(harness, relpath):
    r = harness.results[relpath]
    assert r.ok, f"{relpath}: {r.error}\nin: {r.statement[:500]}"


# -- plausible results ------------------------------------------------------------------

def test_load_errors_report_the_bad_copy(harness):
    r = result_of(harness, "AdminViews/v_my_last_copy_errors.sql")
    rows = rows_as_dicts(r)
    assert sorted(row["line_number"] for row in rows) == [2, 4, 5]
    assert all(strip(row["filename"]).endswith("sales_bad.txt") for row in rows)
    reasons = " ".join(strip(row["err_reason"]) for row in rows)
    assert "Invalid digit" in reasons and "timestamp" in reasons.lower()


def test_object_privileges_show_the_grants_to_the_user(harness):
    r = result_of(harness, "AdminViews/v_get_obj_priv_by_user.sql")
    mine = {(row["schemaname"], row["objectname"]): row for row in rows_as_dicts(r) if row["usename"] == USER}
    sales = mine[("tickit", "sales")]
    assert (sales["sel"], sales["ins"], sales["upd"], sales["del"]) == (True, False, False, False)
    scratch = mine[("tickit", "scratch")]
    assert (scratch["sel"], scratch["ins"], scratch["upd"]) == (True, True, False)


def test_schema_privileges_show_usage_and_create(harness):
    r = result_of(harness, "AdminViews/v_get_schema_priv_by_user.sql")
    rows = {(row["schemaname"], row["usename"]): row for row in rows_as_dicts(r)}
    assert rows[("tickit", USER)]["usg"] is True
    assert rows[("tickit", USER)]["cre"] is True
    assert ("admin", USER) not in rows  # no privilege on schema admin: not listed


def test_view_privileges_list_the_workload_view(harness):
    r = result_of(harness, "AdminViews/v_get_view_priv_by_user.sql")
    rows = {(row["schemaname"], row["viewname"], row["usename"]) for row in rows_as_dicts(r) if row["sel"]}
    assert ("tickit", "v_sales_by_event", USER) in rows


def test_vacuum_details_show_the_deleted_rows(harness):
    r = result_of(harness, "AdminViews/v_get_vacuum_details.sql")
    sales = [row for row in rows_as_dicts(r) if strip(row["table_name"]) == "sales"]
    assert len(sales) == 1
    assert sales[0]["rows_deleted"] == SALES_DELETED
    assert sales[0]["end_rows"] == SALES_ROWS


def test_data_distribution_adds_up_to_the_tables(harness):
    r = result_of(harness, "AdminViews/v_check_data_distribution.sql")
    rows = rows_as_dicts(r)
    totals = {strip(row["tablename"]): row["total_rowcount"] for row in rows if row["schemaname"] == "tickit"}
    assert WORKLOAD_TABLES <= set(totals)
    assert totals["sales"] == SALES_ROWS
    assert totals["category"] == len(admin_utils.CATEGORIES)
    assert {strip(row["diststyle"]) for row in rows if strip(row["tablename"]) == "category"} == {"EVEN"}


def test_table_inspector_sees_keys(harness):
    r = result_of(harness, "AdminScripts/table_inspector.sql")
    rows = {(row["schemaname"], row["tablename"]): row for row in rows_as_dicts(r)}
    assert {("tickit", t) for t in WORKLOAD_TABLES} <= set(rows)
    assert rows[("tickit", "sales")]["has_dist_key"] == 1 and rows[("tickit", "sales")]["has_sort_key"] == 1
    assert rows[("tickit", "category")]["has_dist_key"] == 0 and rows[("tickit", "category")]["has_sort_key"] == 0


def test_sessions_show_the_users_connection(harness):
    r = result_of(harness, "AdminScripts/current_session_info.sql")
    assert USER in {strip(row[3]) for row in r.rows}
    r = result_of(harness, "AdminViews/v_generate_terminate_session.sql")
    assert any(USER == strip(row[2]) for row in r.rows)


def test_table_ddl_names_distkeys_and_sortkeys(harness):
    r = result_of(harness, "AdminViews/v_generate_tbl_ddl.sql")
    ddl = {}
    for row in rows_as_dicts(r):
        if row["schemaname"] == "tickit":
            ddl.setdefault(row["tablename"], []).append((row["seq"], row["ddl"]))
    text = {t: "\n".join(d for _, d in sorted(lines)) for t, lines in ddl.items()}
    assert WORKLOAD_TABLES <= set(text)
    assert "CREATE TABLE IF NOT EXISTS tickit.sales" in text["sales"]
    assert "DISTKEY (sellerid)" in text["sales"]
    assert "SORTKEY" in text["sales"] and "saletime" in text["sales"].split("SORTKEY", 1)[1]
    assert "DISTSTYLE ALL" in text["venue"]
    assert "DISTSTYLE EVEN" in text["category"]
    assert "INTERLEAVED SORTKEY" in text["event"]
    assert "ENCODE az64" in text["venue"]


def test_space_used_per_table_reports_the_workload(harness):
    r = result_of(harness, "AdminViews/v_space_used_per_tbl.sql")
    rows = {(row["schemaname"], row["tablename"]): row for row in rows_as_dicts(r)}
    assert {("tickit", t) for t in WORKLOAD_TABLES} <= set(rows)
    assert rows[("tickit", "sales")]["rowcount"] == SALES_ROWS
    assert rows[("tickit", "sales")]["megabytes"] > 0


def test_table_info_reports_the_workload(harness):
    r = result_of(harness, "AdminScripts/table_info.sql")
    names = {(strip(row[0]), strip(row[1])) for row in r.rows}
    assert {("tickit", t) for t in WORKLOAD_TABLES} <= names


def test_objects_of_a_user_to_be_dropped(harness):
    r = result_of(harness, "AdminScripts/user_to_be_dropped_objs.sql")
    assert ("Table", "tickit", "user_notes") in {(row[0], row[3], row[4]) for row in r.rows}


def test_privileges_of_a_user_to_be_dropped(harness):
    # aclcontains(relacl, makeaclitem(...)) per object, grantor and grantee: the workload's
    # grants to the user, on tables, views, the schema and its default privileges.
    r = result_of(harness, "AdminScripts/user_to_be_dropped_privs.sql")
    rows = {(strip(row[0]), strip(row[1]), strip(row[2]), strip(row[5])) for row in r.rows}
    assert {("tickit", "sales", "Table", USER), ("tickit", "scratch", "Table", USER),
            ("tickit", "v_sales_by_event", "View", USER), (None, "tickit", "Schema", USER),
            ("tickit", "Tables", "Default ACL Schema", USER)} <= rows


def test_grant_revoke_ddl_regrants_the_workloads_grants(harness):
    # relacl, nspacl and PG_DEFAULT_ACL's defaclacl expanded item by item.
    r = result_of(harness, "AdminViews/v_generate_user_grant_revoke_ddl.sql")
    ddl = {(row["ddltype"], " ".join(row["ddl"].split())) for row in rows_as_dicts(r)}
    assert ("grant", f"GRANT SELECT on tickit.sales to {USER};") in ddl
    assert ("grant", f"GRANT INSERT on tickit.scratch to {USER};GRANT SELECT on tickit.scratch to {USER};") in ddl
    assert ("grant", f"GRANT USAGE on schema tickit to group {admin_utils.TEST_GROUP};") in ddl
    assert ("revoke", f"REVOKE ALL on tickit.sales FROM {USER};") in ddl
    assert any(t == "grant" and d.startswith("ALTER DEFAULT PRIVILEGES for user ")
               and d.endswith(f"in schema tickit GRANT SELECT on tables to {USER};") for t, d in ddl)
    # The owners' own items and PUBLIC's rdsdb-granted USAGE on schema public are left out.
    assert not any("schema public" in d for _, d in ddl)
    assert not any(row["grantee"] == row["grantor"] for row in rows_as_dicts(r))


def test_functions_of_a_user_to_be_dropped_carry_their_signatures(harness):
    # textin(regprocedureout(oid::regprocedure)): the name (qualified: tickit is not on
    # search_path) and the argument types.
    r = result_of(harness, "AdminViews/v_find_dropuser_objs.sql")
    functions = {strip(row[4]) for row in r.rows if strip(row[0]) == "Function"}
    assert {"tickit.f_with_tax(double precision)", "tickit.p_add_one(integer,integer)"} <= functions


def test_stored_procedure_parameters_are_listed(harness):
    # generate_series(1, pronargs) per pg_proc row, proargtypes subscripted from 0.
    r = result_of(harness, "AdminViews/v_get_stored_proc_params.sql")
    params = {(strip(row["proc_name"]), row["order"], strip(row["parameter"]), strip(row["data_type"]))
              for row in rows_as_dicts(r)}
    assert {("p_add_one", 1, "a", "integer"), ("p_add_one", 2, "b", "integer")} <= params


def test_udf_ddl_lists_the_workload_function(harness):
    r = result_of(harness, "AdminViews/v_generate_udf_ddl.sql")
    ddl = [strip(row[3]) for row in r.rows if strip(row[1]) == "f_with_tax"]
    assert "double precision" in ddl
    assert any(d.startswith("RETURNS double precision") for d in ddl)


def test_table_reads_and_writes_are_listed(harness):
    # STL_SCAN's reads, STL_DELETE's and STL_INSERT's writes, STL_COMMIT_STATS' commits.
    r = result_of(harness, "AdminViews/v_get_tbl_reads_and_writes.sql")
    ops = {strip(row["operation"]) for row in rows_as_dicts(r)}
    assert {"R", "W", "C"} <= ops


# -- known silent differences (issue 76): these run but report wrong results ----------

def test_constraint_dependency_reports_the_workload_foreign_keys(harness):
    r = result_of(harness, "AdminViews/v_constraint_dependency.sql")
    pairs = {(strip(row["src_objectname"]), strip(row["dependent_objectname"])) for row in rows_as_dicts(r)}
    assert {("venue", "event"), ("category", "event"), ("users", "sales")} <= pairs


def test_connection_summary_shows_the_harness_sessions(harness):
    r = result_of(harness, "AdminViews/v_connection_summary.sql")
    rows = rows_as_dicts(r)
    assert USER in {strip(row["username"]) for row in rows}
    # Each session's login, start and end are joined by its sessionid: one row a session.
    assert len({row["sessionid"] for row in rows}) == len(rows)


def test_view_dependency_reports_the_workload_view(harness):
    r = result_of(harness, "AdminViews/v_view_dependency.sql")
    pairs = {(row["src_objectname"], row["dependent_objectname"]) for row in rows_as_dicts(r)}
    assert ("sales", "v_sales_by_event") in pairs


@pytest.mark.xfail(strict=True, reason="STL_WLM_QUERY.total_queue_time is a few microseconds for queries "
                                       "that never waited for a slot (Redshift: 0)")
def test_queuing_queries_is_empty_without_queuing(harness):
    r = result_of(harness, "AdminScripts/queuing_queries.sql")
    assert r.rows == []
