# SPDX-License-Identifier: Apache-2.0
"""SQLAlchemy's Inspector through sqlalchemy-redshift, as BI tools browse a database
(issue 77): schemas, tables, views and their definitions, columns with types, defaults,
identity, encodings and comments, table options (DISTSTYLE, DISTKEY, SORTKEY), primary,
foreign and unique keys, and a Table autoloaded from the catalog. Values are checked, not only
the absence of errors.
"""
import os

import pytest

from server_support import PASSWORD, USER, Server

CI = os.environ.get("CI") == "true"

try:
    import sqlalchemy as sa
    import sqlalchemy_redshift  # noqa: F401  (registers the redshift+psycopg2 dialect)
except ImportError:  # pragma: no cover
    sa = None


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    if sa is None:
        if CI:
            raise RuntimeError("sqlalchemy-redshift is not installed (scripts/setup-system.sh installs it)")
        pytest.skip("sqlalchemy-redshift is not installed")
    server = Server(tmp_path_factory.mktemp("data"))
    url = sa.engine.URL.create("redshift+psycopg2", username=USER, password=PASSWORD, host=server.host,
                               port=server.port, database="dev", query={"sslmode": "disable"})
    e = sa.create_engine(url)
    with e.connect() as c:
        for s in [
            "create schema sales",
            "create table sales.orders (id int primary key, region varchar(10) default 'east' encode zstd,"
            " amount decimal(10,2), note varchar(20)) diststyle key distkey(id) sortkey(id)",
            "create table sales.items (item_id int, order_id int references sales.orders(id), qty smallint not null)",
            "create table sales.codes (code char(3), label varchar(30) not null, n bigint identity(1,1), unique (label, code))"
            " diststyle all",
            "create table sales.events (ts timestamp, kind varchar(10)) diststyle even compound sortkey(ts, kind)",
            "create view sales.big as select id from sales.orders where amount > 10",
            "create view sales.lb as select id, region from sales.orders with no schema binding",
            "comment on table sales.orders is 'the orders'",
            "comment on column sales.orders.amount is 'in dollars'",
        ]:
            c.execute(sa.text(s))
        c.commit()
    yield e
    e.dispose()
    server.stop()


def test_schemas_tables_and_views(engine):
    insp = sa.inspect(engine)
    assert "sales" in insp.get_schema_names()
    assert sorted(insp.get_table_names(schema="sales")) == ["codes", "events", "items", "orders"]
    assert sorted(insp.get_view_names(schema="sales")) == ["big", "lb"]
    assert insp.get_view_definition("big", schema="sales") == "select id from sales.orders where amount > 10"
    assert insp.get_view_definition("lb", schema="sales") == "select id, region from sales.orders"
    assert insp.has_table("orders", schema="sales")
    assert not insp.has_table("nosuch", schema="sales")
    assert insp.get_table_comment("orders", schema="sales") == {"text": "the orders"}


def test_columns(engine):
    insp = sa.inspect(engine)
    cols = {c["name"]: c for c in insp.get_columns("orders", schema="sales")}
    assert list(cols) == ["id", "region", "amount", "note"]
    assert isinstance(cols["id"]["type"], sa.INTEGER) and cols["id"]["nullable"] is False
    assert isinstance(cols["region"]["type"], sa.VARCHAR) and cols["region"]["type"].length == 10
    assert cols["region"]["default"] == "'east'"
    assert cols["region"]["info"] == {"encode": "zstd"}
    assert isinstance(cols["amount"]["type"], sa.NUMERIC)
    assert (cols["amount"]["type"].precision, cols["amount"]["type"].scale) == (10, 2)
    assert cols["amount"]["comment"] == "in dollars"
    assert cols["id"]["info"] == {}, "the sort key column is RAW"
    codes = {c["name"]: c for c in insp.get_columns("codes", schema="sales")}
    assert isinstance(codes["code"]["type"], sa.CHAR) and codes["code"]["type"].length == 3
    assert codes["label"]["nullable"] is False
    assert isinstance(codes["n"]["type"], sa.BIGINT)
    # sqlalchemy-redshift reads an IDENTITY column's seed and step from its default.
    assert codes["n"]["default"].startswith('"identity"(') and codes["n"]["default"].endswith(", 2, '1,1'::text)")
    # A late-binding view's columns, from pg_get_late_binding_view_cols(), once each.
    lb = [(c["name"], type(c["type"]).__name__) for c in insp.get_columns("lb", schema="sales")]
    assert sorted(lb) == [("id", "INTEGER"), ("region", "VARCHAR")]
    assert [c["name"] for c in insp.get_columns("big", schema="sales")] == ["id"]


def test_table_options(engine):
    insp = sa.inspect(engine)
    assert insp.get_table_options("orders", schema="sales") == {
        "redshift_diststyle": "KEY", "redshift_distkey": "id", "redshift_sortkey": ("id",),
        "redshift_interleaved_sortkey": None}
    assert insp.get_table_options("codes", schema="sales")["redshift_diststyle"] == "ALL"
    events = insp.get_table_options("events", schema="sales")
    assert events["redshift_diststyle"] == "EVEN" and events["redshift_sortkey"] == ("ts", "kind")


def test_keys(engine):
    insp = sa.inspect(engine)
    assert insp.get_pk_constraint("orders", schema="sales") == {"constrained_columns": ["id"], "name": "orders_pkey"}
    assert insp.get_foreign_keys("items", schema="sales") == [{
        "name": "items_order_id_fkey", "constrained_columns": ["order_id"], "referred_schema": "sales",
        "referred_table": "orders", "referred_columns": ["id"]}]
    assert insp.get_indexes("orders", schema="sales") == []
    # pg_constraint.conkey is an int2[] (psycopg2 reads a list), in the constraint's column order.
    assert insp.get_unique_constraints("codes", schema="sales") == [
        {"name": "codes_label_code_key", "column_names": ["label", "code"]}]
    assert insp.get_unique_constraints("orders", schema="sales") == []


def test_autoload(engine):
    t = sa.Table("orders", sa.MetaData(), autoload_with=engine, schema="sales")
    assert [(c.name, str(c.type)) for c in t.columns] == [
        ("id", "INTEGER"), ("region", "VARCHAR(10)"), ("amount", "NUMERIC(10, 2)"), ("note", "VARCHAR(20)")]
    assert t.primary_key.columns.keys() == ["id"]
    with engine.connect() as c:
        c.execute(t.insert().values(id=1, amount=12.5))   # the column's default fills region
        c.execute(t.insert(), [{"id": 2, "region": "west", "amount": 3}, {"id": 3, "region": "north", "amount": 4}])
        c.commit()
        rows = c.execute(sa.select(t.c.id, t.c.region).order_by(t.c.id)).all()
    assert [tuple(r) for r in rows] == [(1, "east"), (2, "west"), (3, "north")]


def test_pandas_round_trips(engine):
    """pandas' to_sql (replace, then append) and read_sql through sqlalchemy-redshift, as
    notebooks and BI extracts use them: the values come back as written."""
    try:
        import pandas as pd
    except ImportError:
        if CI:
            raise
        pytest.skip("pandas is not installed")
    frame = pd.DataFrame({"id": [1, 2, 3], "name": ["ann", "bob", None], "score": [1.5, 2.25, -3.0],
                          "day": pd.to_datetime(["2024-01-01", "2024-02-29", "2024-12-31"])})
    assert frame.to_sql("scores", engine, schema="sales", if_exists="replace", index=False) == 3
    back = pd.read_sql("select id, name, score, day from sales.scores order by id", engine)
    assert back["id"].tolist() == [1, 2, 3]
    assert back["name"].tolist()[:2] == ["ann", "bob"] and back["name"].isna().tolist() == [False, False, True]
    assert back["score"].tolist() == [1.5, 2.25, -3.0]
    assert [str(d.date()) for d in back["day"]] == ["2024-01-01", "2024-02-29", "2024-12-31"]
    # The table pandas made is a table the Inspector describes.
    insp = sa.inspect(engine)
    assert "scores" in insp.get_table_names(schema="sales")
    assert [c["name"] for c in insp.get_columns("scores", schema="sales")] == ["id", "name", "score", "day"]
    # append adds rows; replace starts over.
    more = pd.DataFrame({"id": [4], "name": ["dee"], "score": [0.5], "day": pd.to_datetime(["2025-06-01"])})
    more.to_sql("scores", engine, schema="sales", if_exists="append", index=False)
    assert pd.read_sql("select count(*) as n, sum(id) as s from sales.scores", engine).iloc[0].tolist() == [4, 10]
    frame.head(1).to_sql("scores", engine, schema="sales", if_exists="replace", index=False)
    assert pd.read_sql_table("scores", engine, schema="sales")["id"].tolist() == [1]
    # A parameterised read.
    got = pd.read_sql(sa.text("select id from sales.orders where id >= :lo order by id"), engine, params={"lo": 2})
    assert got["id"].tolist() == [2, 3]
