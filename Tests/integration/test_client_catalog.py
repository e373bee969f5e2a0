# SPDX-License-Identifier: Apache-2.0
"""What real clients ask the catalog: redshift_connector's get_schemas / get_tables /
get_columns, psycopg against pg_catalog and information_schema, JDBC's DatabaseMetaData,
psql's \\dn / \\dt — answered from schemas and tables made through the server, and the
schemas kept across a restart."""
import os
import shutil
import subprocess

import pytest

from server_support import CI, PASSWORD, USER, Server, need

SETUP = [
    "create schema sales",
    "create table sales.orders (id integer not null, amount decimal(10,2) default 0, note varchar(40), primary key (id))",
    "create table public.orders (id bigint)",
    "create schema shop",
    "create table shop.lines (order_id integer references sales.orders(id), line smallint, sku char(8), "
    "primary key (order_id, line), unique (sku))",
    "create view sales.big_orders as select id, amount from sales.orders where amount > 100",
    "insert into sales.orders values (1, 150.00, 'a'), (2, 50.00, 'b')",
]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    data = tmp_path_factory.mktemp("data")
    s = Server(data)
    psycopg2 = need("psycopg2")
    conn = psycopg2.connect(host=s.host, port=s.port, user=USER, password=PASSWORD, dbname="dev")
    conn.autocommit = True
    with conn.cursor() as cur:
        for sql in SETUP:
            cur.execute(sql)
    conn.close()
    s.data = data
    yield s
    s.stop()


def test_psycopg_catalog_queries(server):
    psycopg2 = need("psycopg2")
    conn = psycopg2.connect(host=server.host, port=server.port, user=USER, password=PASSWORD, dbname="dev")
    cur = conn.cursor()
    cur.execute("select nspname from pg_namespace where nspname in ('public', 'sales') order by 1")
    assert cur.fetchall() == [("public",), ("sales",)]
    cur.execute("select c.relname, c.relkind from pg_class c join pg_namespace n on n.oid = c.relnamespace "
                "where n.nspname = 'sales' order by 1")
    # A key's index is listed as PostgreSQL lists it (relkind 'i').
    assert cur.fetchall() == [("big_orders", "v"), ("orders", "r"), ("orders_pkey", "i")]
    cur.execute("select a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull, a.attnum "
                "from pg_attribute a join pg_class c on c.oid = a.attrelid "
                "join pg_namespace n on n.oid = c.relnamespace "
                "where n.nspname = 'sales' and c.relname = 'orders' and a.attnum > 0 and not a.attisdropped "
                "order by a.attnum")
    assert cur.fetchall() == [("id", "integer", True, 1), ("amount", "numeric(10,2)", False, 2),
                              ("note", "character varying(40)", False, 3)]
    cur.execute("select column_name, data_type, character_maximum_length, numeric_precision, numeric_scale, "
                "is_nullable, column_default from information_schema.columns "
                "where table_schema = 'sales' and table_name = 'orders' order by ordinal_position")
    assert cur.fetchall() == [("id", "integer", None, 32, 0, "NO", None),
                              ("amount", "numeric", None, 10, 2, "YES", "0"),
                              ("note", "character varying", 40, None, None, "YES", None)]
    cur.execute("select table_name, table_type from information_schema.tables where table_schema = 'sales' order by 1")
    assert cur.fetchall() == [("big_orders", "VIEW"), ("orders", "BASE TABLE")]
    cur.execute("select column_name, data_type from svv_columns where table_schema = 'sales' "
                "and table_name = 'big_orders' order by ordinal_position")
    assert cur.fetchall() == [("id", "integer"), ("amount", "numeric")]
    cur.execute("select current_schema(), current_database(), current_schemas(true)")
    assert cur.fetchone() == ("public", "dev", "{pg_catalog,public}")
    cur.execute("select pg_get_viewdef('sales.big_orders')")
    assert "sales.orders" in cur.fetchone()[0]
    cur.execute("select setting from pg_settings where name = 'search_path'")
    assert cur.fetchone() == ("$user, public",)
    # The catalog's int2[] columns reach the driver as arrays (OID 1005): lists in Python.
    cur.execute("select c.conname, c.conkey, c.confkey from pg_constraint c join pg_class t on t.oid = c.conrelid "
                "where t.relname = 'lines' order by 1")
    assert cur.fetchall() == [("lines_order_id_fkey", [1], [1]), ("lines_pkey", [1, 2], None),
                              ("lines_sku_key", [3], None)]
    assert cur.description[1].type_code == 1005
    cur.execute("select array[1::smallint, null, 3], '{ 7 , 8 }'::int[], array[]::bigint[]")
    assert cur.fetchone() == ([1, None, 3], [7, 8], [])
    conn.close()


def test_psycopg3_binary_arrays(server):
    # psycopg 3 asks for binary results: an int2[] in PostgreSQL's binary array form.
    psycopg = need("psycopg")
    with psycopg.connect(host=server.host, port=server.port, user=USER, password=PASSWORD, dbname="dev") as conn:
        cur = conn.cursor(binary=True)
        cur.execute("select c.conkey, array[5::bigint, null], array[]::int[] from pg_constraint c "
                    "join pg_class t on t.oid = c.conrelid where t.relname = 'lines' and c.contype = 'p'")
        assert cur.fetchone() == ([1, 2], [5, None], [])
        cur = conn.cursor()
        cur.execute("select '{1,2}'::smallint[]")
        assert cur.fetchone() == ([1, 2],)


def test_redshift_connector_metadata(server):
    rc = need("redshift_connector")
    conn = rc.connect(host=server.host, port=server.port, user=USER, password=PASSWORD, database="dev", ssl=False)
    cur = conn.cursor()
    schemas = [r[0] for r in cur.get_schemas()]
    assert "sales" in schemas and "public" in schemas
    tables = cur.get_tables(schema_pattern="sales", table_name_pattern="%")
    assert sorted((r[1], r[2], r[3]) for r in tables) == [("sales", "big_orders", "VIEW"), ("sales", "orders", "TABLE"),
                                                          ("sales", "orders_pkey", "INDEX")]
    cols = cur.get_columns(schema_pattern="sales", tablename_pattern="orders")
    assert [(r[3], r[5]) for r in cols] == [("id", "int4"), ("amount", "numeric"), ("note", "varchar")]
    pk = cur.get_primary_keys(schema="sales", table="orders")
    assert [(r[1], r[2], r[3], r[4], r[5]) for r in pk] == [("sales", "orders", "id", 1, "orders_pkey")]
    conn.close()


JAVA = r"""
import java.sql.*;
import java.util.*;

public class CatalogScenario {
    public static void main(String[] args) throws Exception {
        Properties p = new Properties();
        p.setProperty("user", args[1]);
        p.setProperty("password", args[2]);
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + args[0] + "/dev", p)) {
            DatabaseMetaData md = c.getMetaData();
            List<String> out = new ArrayList<>();
            try (ResultSet rs = md.getSchemas()) {
                while (rs.next()) if (rs.getString("TABLE_SCHEM").equals("sales")) out.add("schema " + rs.getString("TABLE_SCHEM"));
            }
            try (ResultSet rs = md.getTables(null, "sales", "%", new String[] {"TABLE", "VIEW"})) {
                while (rs.next()) out.add("table " + rs.getString("TABLE_SCHEM") + "." + rs.getString("TABLE_NAME") + " " + rs.getString("TABLE_TYPE"));
            }
            try (ResultSet rs = md.getColumns(null, "sales", "orders", "%")) {
                while (rs.next()) out.add("column " + rs.getString("COLUMN_NAME") + " " + rs.getString("TYPE_NAME") + " " + rs.getInt("DATA_TYPE") + " " + rs.getInt("COLUMN_SIZE") + " " + rs.getString("IS_NULLABLE"));
            }
            for (String t : new String[] {"sales.orders", "shop.lines"}) {
                try (ResultSet rs = md.getPrimaryKeys(null, t.split("[.]")[0], t.split("[.]")[1])) {
                    while (rs.next()) out.add("pk " + rs.getString("TABLE_NAME") + " " + rs.getString("COLUMN_NAME") + " " + rs.getInt("KEY_SEQ") + " " + rs.getString("PK_NAME"));
                }
            }
            try (ResultSet rs = md.getImportedKeys(null, "shop", "lines")) {
                while (rs.next()) out.add("imported " + rs.getString("FKTABLE_NAME") + "." + rs.getString("FKCOLUMN_NAME") + " -> " + rs.getString("PKTABLE_SCHEM") + "." + rs.getString("PKTABLE_NAME") + "." + rs.getString("PKCOLUMN_NAME") + " " + rs.getInt("KEY_SEQ") + " " + rs.getString("FK_NAME") + " " + rs.getString("PK_NAME"));
            }
            try (ResultSet rs = md.getExportedKeys(null, "sales", "orders")) {
                while (rs.next()) out.add("exported " + rs.getString("PKTABLE_NAME") + "." + rs.getString("PKCOLUMN_NAME") + " <- " + rs.getString("FKTABLE_NAME") + "." + rs.getString("FKCOLUMN_NAME"));
            }
            try (ResultSet rs = md.getIndexInfo(null, "shop", "lines", true, false)) {
                while (rs.next()) out.add("index " + rs.getString("INDEX_NAME") + " " + rs.getString("COLUMN_NAME") + " " + rs.getInt("ORDINAL_POSITION") + " " + rs.getBoolean("NON_UNIQUE"));
            }
            for (String s : out) System.out.println(s);
        }
    }
}
"""


def test_jdbc_database_metadata(server, tmp_path):
    jar = "/usr/share/java/postgresql.jar"
    if not os.path.exists(jar) or shutil.which("javac") is None:
        if CI:
            raise AssertionError("JDBC needs javac and Debian's libpostgresql-jdbc-java")
        pytest.skip("javac or the PostgreSQL JDBC driver is missing")
    (tmp_path / "CatalogScenario.java").write_text(JAVA)
    subprocess.run(["javac", "-cp", jar, "CatalogScenario.java"], cwd=tmp_path, check=True, capture_output=True)
    r = subprocess.run(["java", "-cp", f"{jar}:{tmp_path}", "CatalogScenario", str(server.port), USER, PASSWORD],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.splitlines() == [
        "schema sales",
        "table sales.orders TABLE",
        "table sales.big_orders VIEW",
        "column id int4 4 10 NO",
        "column amount numeric 2 10 YES",
        "column note varchar 12 40 YES",
        "pk orders id 1 orders_pkey",
        "pk lines order_id 1 lines_pkey",
        "pk lines line 2 lines_pkey",
        "imported lines.order_id -> sales.orders.id 1 lines_order_id_fkey orders_pkey",
        "exported orders.id <- lines.order_id",
        "index lines_pkey order_id 1 false",
        "index lines_pkey line 2 false",
        "index lines_sku_key sku 1 false",
    ], r.stdout + r.stderr


def psql(server, *commands):
    if shutil.which("psql") is None:
        if CI:
            raise AssertionError("psql is missing")
        pytest.skip("psql is missing")
    env = dict(os.environ, PGPASSWORD=PASSWORD)
    args = [a for c in commands for a in ("-c", c)]
    r = subprocess.run(["psql", "-X", "-A", "-t", "-h", server.host, "-p", str(server.port), "-U", USER, "dev"] + args,
                       capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def test_psql_describe(server):
    assert "sales|awsuser" in psql(server, r"\dn").splitlines()
    assert psql(server, r"\dt sales.*").splitlines() == ["sales|orders|table|awsuser"]
    # Without a pattern: the tables an unqualified name finds (search_path), as psql shows them.
    assert psql(server, r"\dt").splitlines() == ["public|orders|table|awsuser"]
    assert psql(server, "set search_path to sales, public", r"\dt").splitlines() == ["SET", "sales|orders|table|awsuser"]
    assert psql(server, r"\dv sales.*").splitlines() == ["sales|big_orders|view|awsuser"]


def test_schemas_survive_restart(tmp_path):
    psycopg2 = need("psycopg2")
    s = Server(tmp_path)
    try:
        conn = psycopg2.connect(host=s.host, port=s.port, user=USER, password=PASSWORD, dbname="dev")
        conn.autocommit = True
        cur = conn.cursor()
        cur.execute("create schema kept")
        cur.execute("create table kept.t (a int)")
        cur.execute("insert into kept.t values (42)")
        cur.execute("create schema empty_one")
        conn.close()
    finally:
        s.stop()
    s = Server(tmp_path)
    try:
        conn = psycopg2.connect(host=s.host, port=s.port, user=USER, password=PASSWORD, dbname="dev")
        cur = conn.cursor()
        cur.execute("select a from kept.t")
        assert cur.fetchall() == [(42,)]
        cur.execute("select nspname from pg_namespace "
                    "where nspname in ('kept', 'empty_one') order by 1")
        assert [r[0] for r in cur.fetchall()] == ["empty_one", "kept"]
        conn.close()
    finally:
        s.stop()
