# SPDX-License-Identifier: Apache-2.0
"""Real PostgreSQL and Redshift clients against `slicehouse serve` over loopback.

Every client logs in with a password and does the same things: DDL, an INSERT with a
parameter of every type (NULLs, decimals, dates, timestamps, unicode), a COPY from a
file, TPC-H Q6, a transaction rolled back and one committed; each must get the same
answers. Clients: psql, psycopg2, psycopg 3 (text and binary results), pg8000,
Amazon's redshift_connector (plain and TLS with a self-signed certificate),
SQLAlchemy with sqlalchemy-redshift, and JDBC through PostgreSQL's driver.
"""
import datetime
import os
import shutil
import subprocess
from decimal import Decimal

import pytest

from server_support import CI, LINEITEM_DDL, PASSWORD, Q6, Q6_ANSWER, USER, Server, generate_lineitem, need

@pytest.fixture(scope="module")
def tls_files(tmp_path_factory):
    d = tmp_path_factory.mktemp("tls")
    cert, key = d / "server.crt", d / "server.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", "/CN=localhost", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)
    return str(cert), str(key)


@pytest.fixture(scope="module")
def server(tmp_path_factory, tls_files):
    cert, key = tls_files
    s = Server(tmp_path_factory.mktemp("data"), args=["--tls-cert", cert, "--tls-key", key])
    yield s
    s.stop()
    assert s.proc.returncode in (0, -15), f"server exited with {s.proc.returncode}"


@pytest.fixture(scope="module")
def lineitem(tmp_path_factory):
    return generate_lineitem(tmp_path_factory.mktemp("tpch"))


ROW = (7, -123456, 2 ** 40, Decimal("-12.345"), Decimal("123456789012345678.0123456789"), 1.5, 2.25,
       "héllo wörld ✓ 'quoted' \\ back", "ab", datetime.date(1999, 12, 31),
       datetime.datetime(2020, 2, 29, 23, 59, 58, 123456), True)
TYPES_DDL = ("create table {t} (i smallint, j int, b bigint, d decimal(12,3), big decimal(38,10), r real, "
             "f float8, s varchar(60), c char(5), dt date, ts timestamp, ok boolean)")
EXPECTED = list(ROW)
EXPECTED[8] = "ab   "     # CHAR(5) comes back blank-padded


def dbapi_scenario(conn, name, lineitem, placeholder="%s"):
    """The common script through a DB-API 2 connection (autocommit off)."""
    cur = conn.cursor()
    t = f"types_{name}"
    cur.execute(TYPES_DDL.format(t=t))
    insert = f"insert into {t} values ({', '.join([placeholder] * len(ROW))})"
    cur.execute(insert, ROW)
    cur.execute(insert, (None,) * len(ROW))
    conn.commit()
    cur.execute(f"select * from {t} order by j")
    rows = [list(r) for r in cur.fetchall()]
    assert rows[0] == EXPECTED, rows[0]
    assert rows[1] == [None] * len(ROW)
    # Parameters in a WHERE clause, of several types.
    cur.execute(f"select count(*) from {t} where j = {placeholder} and dt = {placeholder} and s like {placeholder}",
                (-123456, datetime.date(1999, 12, 31), "h%"))
    assert cur.fetchone()[0] == 1

    li = f"lineitem_{name}"
    cur.execute(LINEITEM_DDL.replace("lineitem", li, 1))
    cur.execute(f"copy {li} from '{lineitem}' delimiter '|'")
    conn.commit()
    cur.execute(f"select count(*) from {li}")
    assert cur.fetchone()[0] == 60175
    cur.execute(Q6.replace("lineitem", li))
    assert str(cur.fetchone()[0]) == Q6_ANSWER

    tx = f"tx_{name}"
    cur.execute(f"create table {tx} (a int)")
    conn.commit()
    cur.execute(f"insert into {tx} values (1)")
    conn.rollback()
    cur.execute(f"select count(*) from {tx}")
    assert cur.fetchone()[0] == 0
    conn.rollback()
    cur.execute(f"insert into {tx} values (2)")
    conn.commit()
    cur.execute(f"select a from {tx}")
    assert [list(r) for r in cur.fetchall()] == [[2]]
    conn.commit()
    # An error leaves the connection usable after a rollback.
    with pytest.raises(Exception) as e:
        cur.execute("select nosuch from " + tx)
    assert "nosuch" in str(e.value)
    conn.rollback()
    cur.execute("select 1")
    assert cur.fetchone()[0] == 1
    conn.close()


def test_psycopg2(server, lineitem):
    psycopg2 = need("psycopg2")
    conn = psycopg2.connect(host=server.host, port=server.port, user=USER, password=PASSWORD, dbname="dev")
    dbapi_scenario(conn, "psycopg2", lineitem)


def test_psycopg3_extended_protocol(server, lineitem):
    psycopg = need("psycopg")
    conn = psycopg.connect(host=server.host, port=server.port, user=USER, password=PASSWORD, dbname="dev")
    dbapi_scenario(conn, "psycopg3", lineitem)


def test_psycopg3_binary_results(server):
    psycopg = need("psycopg")
    with psycopg.connect(host=server.host, port=server.port, user=USER, password=PASSWORD, dbname="dev") as conn:
        cur = conn.cursor(binary=True)
        cur.execute(TYPES_DDL.format(t="types_binary"))
        cur.execute("insert into types_binary values (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)", ROW)
        cur.execute("select * from types_binary")
        assert list(cur.fetchone()) == EXPECTED
        cur.execute("select 0.5::decimal(5,2), -0.0001::decimal(10,4), 100000::decimal(12,0), 1e-5::float8")
        assert cur.fetchone() == (Decimal("0.50"), Decimal("-0.0001"), Decimal("100000"), 1e-5)


def test_pg8000(server, lineitem):
    pg8000 = need("pg8000")
    import pg8000.dbapi
    conn = pg8000.dbapi.connect(host=server.host, port=server.port, user=USER, password=PASSWORD, database="dev")
    dbapi_scenario(conn, "pg8000", lineitem)


def test_psycopg2_tls_is_really_tls(server):
    psycopg2 = need("psycopg2")
    conn = psycopg2.connect(host=server.host, port=server.port, user=USER, password=PASSWORD, dbname="dev",
                            sslmode="require")
    assert conn.info.ssl_in_use
    cur = conn.cursor()
    cur.execute("select 42")
    assert cur.fetchone()[0] == 42
    conn.close()


def test_sqlalchemy_redshift(server, lineitem, tls_files):
    sqlalchemy = need("sqlalchemy")
    need("sqlalchemy_redshift")
    from sqlalchemy import text
    # The dialect asks for verify-full against Amazon's CA bundle; verify the test's own
    # certificate instead.
    engine = sqlalchemy.create_engine(
        f"redshift+psycopg2://{USER}:{PASSWORD.replace(' ', '%20')}@{server.host}:{server.port}/dev",
        connect_args={"sslmode": "verify-ca", "sslrootcert": tls_files[0]})
    with engine.connect() as conn:
        conn.execute(text(TYPES_DDL.format(t="types_sqlalchemy")))
        names = ["i", "j", "b", "d", "big", "r", "f", "s", "c", "dt", "ts", "ok"]
        insert = text(f"insert into types_sqlalchemy values ({', '.join(':' + n for n in names)})")
        conn.execute(insert, dict(zip(names, ROW)))
        conn.execute(insert, dict.fromkeys(names))
        conn.commit()
        rows = [list(r) for r in conn.execute(text("select * from types_sqlalchemy order by j"))]
        assert rows == [EXPECTED, [None] * len(ROW)]
        conn.execute(text(LINEITEM_DDL.replace("lineitem", "lineitem_sqlalchemy", 1)))
        conn.execute(text(f"copy lineitem_sqlalchemy from '{lineitem}' delimiter '|'"))
        conn.commit()
        assert str(conn.execute(text(Q6.replace("lineitem", "lineitem_sqlalchemy"))).scalar()) == Q6_ANSWER
        conn.execute(text("create table tx_sqlalchemy (a int)"))
        conn.commit()
        conn.execute(text("insert into tx_sqlalchemy values (1)"))
        conn.rollback()
        conn.execute(text("insert into tx_sqlalchemy values (2)"))
        conn.commit()
        assert [tuple(r) for r in conn.execute(text("select a from tx_sqlalchemy"))] == [(2,)]
    engine.dispose()


def psql(server, *args, input=None, check=True):
    env = dict(os.environ, PGPASSWORD=PASSWORD, PGCONNECT_TIMEOUT="10")
    r = subprocess.run(["psql", "-h", server.host, "-p", str(server.port), "-U", USER, "-d", "dev",
                        "-X", "-v", "ON_ERROR_STOP=1", *args], input=input, env=env,
                       capture_output=True, text=True, timeout=120)
    if check:
        assert r.returncode == 0, r.stdout + r.stderr
    return r


def test_psql(server, lineitem):
    if shutil.which("psql") is None:
        if CI:
            raise AssertionError("psql is missing")
        pytest.skip("psql is not installed")
    script = f"""
{TYPES_DDL.format(t="types_psql")};
\\set s '''héllo wörld ✓ ''''quoted'''' \\\\ back'''
insert into types_psql values (7, -123456, 1099511627776, -12.345, 123456789012345678.0123456789, 1.5, 2.25,
  :s, 'ab', '1999-12-31', '2020-02-29 23:59:58.123456', true);
insert into types_psql values (null, null, null, null, null, null, null, null, null, null, null, null);
{LINEITEM_DDL.replace("lineitem", "lineitem_psql", 1)};
copy lineitem_psql from '{lineitem}' delimiter '|';
create table tx_psql (a int);
begin;
insert into tx_psql values (1);
rollback;
begin;
insert into tx_psql values (2);
commit;
"""
    psql(server, input=script)
    out = psql(server, "-A", "-t", "-F", "|", "-c", "select * from types_psql order by j").stdout
    assert out.splitlines() == [
        "7|-123456|1099511627776|-12.345|123456789012345678.0123456789|1.5|2.25|héllo wörld ✓ 'quoted' \\ back|ab   |"
        "1999-12-31|2020-02-29 23:59:58.123456|t",
        "|||||||||||"]
    assert psql(server, "-A", "-t", "-c", Q6.replace("lineitem", "lineitem_psql")).stdout.strip() == Q6_ANSWER
    assert psql(server, "-A", "-t", "-c", "select a from tx_psql").stdout.strip() == "2"
    # Several statements in one message, and the error of the second stops the rest.
    r = psql(server, "-c", "select 1; select nosuch; select 3", check=False)
    assert r.returncode != 0 and 'column "nosuch" does not exist' in r.stderr


JAVA = r"""
import java.math.BigDecimal;
import java.sql.*;
import java.util.Properties;

public class JdbcScenario {
    static void check(boolean ok, String what) { if (!ok) throw new AssertionError(what); }

    public static void main(String[] args) throws Exception {
        String url = "jdbc:postgresql://127.0.0.1:" + args[0] + "/dev";
        Properties p = new Properties();
        p.setProperty("user", args[1]);
        p.setProperty("password", args[2]);
        p.setProperty("sslmode", "disable");
        try (Connection c = DriverManager.getConnection(url, p)) {
            Statement s = c.createStatement();
            s.execute("create table types_jdbc (i smallint, j int, b bigint, d decimal(12,3), big decimal(38,10), "
                    + "r real, f float8, s varchar(60), c char(5), dt date, ts timestamp, ok boolean)");
            PreparedStatement ins = c.prepareStatement("insert into types_jdbc values (?,?,?,?,?,?,?,?,?,?,?,?)");
            ins.setShort(1, (short) 7); ins.setInt(2, -123456); ins.setLong(3, 1099511627776L);
            ins.setBigDecimal(4, new BigDecimal("-12.345")); ins.setBigDecimal(5, new BigDecimal("123456789012345678.0123456789"));
            ins.setFloat(6, 1.5f); ins.setDouble(7, 2.25); ins.setString(8, "héllo wörld ✓ 'quoted' \\ back");
            ins.setString(9, "ab"); ins.setDate(10, Date.valueOf("1999-12-31"));
            ins.setTimestamp(11, Timestamp.valueOf("2020-02-29 23:59:58.123456")); ins.setBoolean(12, true);
            check(ins.executeUpdate() == 1, "insert count");
            for (int i = 1; i <= 12; i++) ins.setNull(i, Types.NULL);
            ins.executeUpdate();
            // Prepared statements are reused (server-side after 5 executions).
            PreparedStatement q = c.prepareStatement("select count(*) from types_jdbc where j = ? and dt = ?");
            for (int k = 0; k < 8; k++) {
                q.setInt(1, -123456); q.setDate(2, Date.valueOf("1999-12-31"));
                try (ResultSet rs = q.executeQuery()) { rs.next(); check(rs.getLong(1) == 1, "where count"); }
            }
            try (ResultSet rs = s.executeQuery("select * from types_jdbc order by j")) {
                check(rs.next(), "row 1");
                check(rs.getShort(1) == 7 && rs.getInt(2) == -123456 && rs.getLong(3) == 1099511627776L, "ints");
                check(rs.getBigDecimal(4).equals(new BigDecimal("-12.345")), "decimal " + rs.getBigDecimal(4));
                check(rs.getBigDecimal(5).equals(new BigDecimal("123456789012345678.0123456789")), "big decimal");
                check(rs.getFloat(6) == 1.5f && rs.getDouble(7) == 2.25, "floats");
                check(rs.getString(8).equals("héllo wörld ✓ 'quoted' \\ back"), "unicode " + rs.getString(8));
                check(rs.getString(9).equals("ab   "), "char");
                check(rs.getDate(10).toString().equals("1999-12-31"), "date " + rs.getDate(10));
                check(rs.getTimestamp(11).toString().equals("2020-02-29 23:59:58.123456"), "ts " + rs.getTimestamp(11));
                check(rs.getBoolean(12), "bool");
                check(rs.next(), "row 2");
                for (int i = 1; i <= 12; i++) { rs.getObject(i); check(rs.wasNull(), "null " + i); }
                check(!rs.next(), "two rows");
            }
            s.execute("create table lineitem_jdbc " + args[4]);
            s.execute("copy lineitem_jdbc from '" + args[3] + "' delimiter '|'");
            try (ResultSet rs = s.executeQuery(args[5])) {
                rs.next();
                check(rs.getBigDecimal(1).toPlainString().equals(args[6]), "q6 " + rs.getBigDecimal(1));
            }
            // Rows fetched in batches: a cursor with a fetch size (Execute with a row limit).
            c.setAutoCommit(false);
            try (Statement f = c.createStatement()) {
                f.setFetchSize(1000);
                long n = 0;
                try (ResultSet rs = f.executeQuery("select l_orderkey from lineitem_jdbc")) { while (rs.next()) n++; }
                check(n == 60175, "fetched " + n);
            }
            c.commit();
            s.execute("create table tx_jdbc (a int)");
            c.commit();
            s.execute("insert into tx_jdbc values (1)");
            c.rollback();
            s.execute("insert into tx_jdbc values (2)");
            c.commit();
            try (ResultSet rs = s.executeQuery("select a from tx_jdbc")) {
                check(rs.next() && rs.getInt(1) == 2 && !rs.next(), "transaction");
            }
            c.commit();
            DatabaseMetaData md = c.getMetaData();
            check(md.getDatabaseProductVersion().startsWith("8.0.2"), "version " + md.getDatabaseProductVersion());
        }
        System.out.println("JDBC OK");
    }
}
"""


def test_jdbc(server, lineitem, tmp_path):
    jar = "/usr/share/java/postgresql.jar"
    if not os.path.exists(jar) or shutil.which("javac") is None:
        if CI:
            raise AssertionError("JDBC needs javac and Debian's libpostgresql-jdbc-java")
        pytest.skip("javac or the PostgreSQL JDBC driver is missing")
    (tmp_path / "JdbcScenario.java").write_text(JAVA)
    subprocess.run(["javac", "-cp", jar, "JdbcScenario.java"], cwd=tmp_path, check=True, capture_output=True)
    ddl = LINEITEM_DDL[LINEITEM_DDL.index("("):]
    r = subprocess.run(["java", "-cp", f"{jar}:{tmp_path}", "JdbcScenario", str(server.port), USER, PASSWORD,
                        lineitem, ddl, Q6.replace("lineitem", "lineitem_jdbc"), Q6_ANSWER],
                       capture_output=True, text=True, timeout=180)
    assert r.returncode == 0 and "JDBC OK" in r.stdout, r.stdout + r.stderr


def test_redshift_connector(server, lineitem):
    rc = need("redshift_connector")
    conn = rc.connect(host=server.host, port=server.port, user=USER, password=PASSWORD, database="dev", ssl=False)
    dbapi_scenario(conn, "redshift_connector", lineitem)


def test_redshift_connector_tls(server, lineitem, tls_files, monkeypatch):
    rc = need("redshift_connector")
    import ssl
    # redshift_connector verifies the server against Amazon's CA bundle it ships; make it
    # trust the test's self-signed certificate instead.
    original = ssl.SSLContext.load_verify_locations
    monkeypatch.setattr(ssl.SSLContext, "load_verify_locations",
                        lambda self, *a, **k: original(self, cafile=tls_files[0]))
    conn = rc.connect(host=server.host, port=server.port, user=USER, password=PASSWORD, database="dev",
                      ssl=True, sslmode="verify-ca")
    dbapi_scenario(conn, "redshift_tls", lineitem)


def test_same_answers_everywhere(server):
    """Every client's rows, read back through one connection, are the same."""
    psycopg2 = need("psycopg2")
    conn = psycopg2.connect(host=server.host, port=server.port, user=USER, password=PASSWORD, dbname="dev")
    cur = conn.cursor()
    seen = {}
    for name in ["psycopg2", "psycopg3", "pg8000", "redshift_connector", "redshift_tls", "sqlalchemy", "psql", "jdbc"]:
        try:
            cur.execute(f"select * from types_{name} order by j")
        except psycopg2.Error:
            conn.rollback()
            continue
        seen[name] = cur.fetchall()
    conn.close()
    assert len(seen) == 8, sorted(seen)
    first = next(iter(seen.values()))
    for name, rows in seen.items():
        assert rows == first, name
