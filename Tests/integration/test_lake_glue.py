# SPDX-License-Identifier: Apache-2.0
"""External schemas and tables over the Glue Data Catalog and S3 (Redshift Spectrum),
against moto's S3 and Glue, with tables other tools registered: boto3 puts Hive-style
partitioned Parquet (written by pyarrow) and CSV objects and registers them in Glue;
Slicehouse reads them through `CREATE EXTERNAL SCHEMA … FROM DATA CATALOG`, DuckDB (httpfs)
answers the same questions on the same objects, and what Slicehouse registers is what
boto3 reads back from Glue. Partition pruning is seen in the S3 requests a query makes;
privileges are tried by a user who has none.
"""
import io
import os

import pytest

from server_support import CI, Server, connect, need, run
from s3_support import KEY_ID, SECRET, Moto, duckdb_on

psycopg2 = pytest.importorskip("psycopg2") if not CI else __import__("psycopg2")

BUCKET = "lake"
ROLE = "arn:aws:iam::123456789012:role/spectrum"
MONTHS = ["2024-01", "2024-02", "2024-03", "2024-04"]
PARQUET_SERDE = {
    "SerializationLibrary": "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe",
}


def rows_of(month):
    """The rows of one month's partition: (id, customer, amount, day)."""
    m = MONTHS.index(month)
    return [(m * 1000 + i, f"c{i % 7}", round(i * 1.5 + m, 2), 1 + i % 28) for i in range(1, 251)]


@pytest.fixture(scope="module")
def moto():
    m = Moto()
    s3 = m.client()
    s3.create_bucket(Bucket=BUCKET)
    pa = need("pyarrow")
    import pyarrow.parquet as pq
    for month in MONTHS:
        rows = rows_of(month)
        table = pa.table({"id": pa.array([r[0] for r in rows], pa.int64()),
                          "customer": pa.array([r[1] for r in rows], pa.string()),
                          "amount": pa.array([r[2] for r in rows], pa.float64()),
                          "day": pa.array([r[3] for r in rows], pa.int32())})
        for half, part in enumerate((table.slice(0, 125), table.slice(125))):
            buf = io.BytesIO()
            pq.write_table(part, buf, row_group_size=50)
            s3.put_object(Bucket=BUCKET, Key=f"sales/month={month}/part-{half}.parquet", Body=buf.getvalue())
    # Files Spectrum leaves out: hidden, and a folder marker.
    s3.put_object(Bucket=BUCKET, Key="sales/month=2024-01/_SUCCESS", Body=b"")
    s3.put_object(Bucket=BUCKET, Key="sales/month=2024-01/.hidden.parquet", Body=b"not parquet")
    csv = "id,name,region\n" + "".join(f"{i},\"name {i}\",r{i % 3}\n" for i in range(1, 31))
    s3.put_object(Bucket=BUCKET, Key="customers/customers.csv", Body=csv.encode())

    glue = glue_client(m)
    glue.create_database(DatabaseInput={"Name": "salesdb"})
    glue.create_table(DatabaseName="salesdb", TableInput={
        "Name": "sales", "TableType": "EXTERNAL_TABLE", "Parameters": {"classification": "parquet", "numRows": "1000"},
        "PartitionKeys": [{"Name": "month", "Type": "string"}],
        "StorageDescriptor": {
            "Columns": [{"Name": "id", "Type": "bigint"}, {"Name": "customer", "Type": "string"},
                        {"Name": "amount", "Type": "double"}, {"Name": "day", "Type": "int"}],
            "Location": f"s3://{BUCKET}/sales/",
            "InputFormat": "org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat",
            "OutputFormat": "org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat",
            "SerdeInfo": PARQUET_SERDE}})
    glue.batch_create_partition(DatabaseName="salesdb", TableName="sales", PartitionInputList=[
        {"Values": [month], "StorageDescriptor": {"Location": f"s3://{BUCKET}/sales/month={month}/",
                                                  "SerdeInfo": PARQUET_SERDE}} for month in MONTHS])
    glue.create_table(DatabaseName="salesdb", TableInput={
        "Name": "customers", "TableType": "EXTERNAL_TABLE",
        "Parameters": {"skip.header.line.count": "1"},
        "StorageDescriptor": {
            "Columns": [{"Name": "id", "Type": "int"}, {"Name": "name", "Type": "string"},
                        {"Name": "region", "Type": "string"}],
            "Location": f"s3://{BUCKET}/customers/",
            "InputFormat": "org.apache.hadoop.mapred.TextInputFormat",
            "SerdeInfo": {"SerializationLibrary": "org.apache.hadoop.hive.serde2.OpenCSVSerde",
                          "Parameters": {"separatorChar": ",", "quoteChar": "\""}}}})
    yield m
    m.stop()


def glue_client(moto):
    import boto3
    return boto3.client("glue", endpoint_url=moto.url, aws_access_key_id=KEY_ID,
                        aws_secret_access_key=SECRET, region_name="us-east-1")


@pytest.fixture(scope="module")
def server(moto, tmp_path_factory):
    # Glue and S3 from the environment's AWS_ENDPOINT_URL, the role's keys from the role map.
    data = tmp_path_factory.mktemp("data")
    (data / "iam_roles.json").write_text(
        f'{{"{ROLE}": {{"access_key_id": "{KEY_ID}", "secret_access_key": "{SECRET}", "users": ["*"]}}}}')
    env = {"AWS_ENDPOINT_URL": moto.url, "AWS_REGION": "us-east-1"}
    s = Server(data, env_extra=env)
    yield s
    s.stop()


@pytest.fixture(scope="module")
def conn(server):
    c = connect(server)
    run(c, f"create external schema spectrum from data catalog database 'salesdb' iam_role '{ROLE}'")
    yield c
    c.close()


def test_partitioned_parquet_registered_by_boto3_agrees_with_duckdb(moto, conn):
    got = run(conn, "select month, count(*), sum(amount)::numeric(12,2), count(distinct customer) "
                    "from spectrum.sales group by month order by month")
    con = duckdb_on(moto)
    want = con.execute(f"select month, count(*), sum(amount)::numeric(12,2), count(distinct customer) "
                       f"from read_parquet('s3://{BUCKET}/sales/*/part-*.parquet', hive_partitioning = true) "
                       f"group by month order by month").fetchall()
    assert [(m, n, float(s), c) for m, n, s, c in got] == [(m, n, float(s), c) for m, n, s, c in want]
    assert len(got) == 4

    got = run(conn, "select id, customer, amount, day, month from spectrum.sales where day = 3 and amount > 300 order by id")
    want = con.execute(f"select id, customer, amount, day, month from read_parquet('s3://{BUCKET}/sales/*/part-*.parquet', "
                       f"hive_partitioning = true) where day = 3 and amount > 300 order by id").fetchall()
    assert [tuple(r) for r in got] == [tuple(r) for r in want] and got


def test_csv_with_header_and_join_with_a_local_table(moto, conn):
    assert run(conn, "select count(*), min(name), max(region) from spectrum.customers") == [(30, "name 1", "r2")]
    run(conn, "create table regions (region varchar(4), label varchar(20))")
    run(conn, "insert into regions values ('r0', 'north'), ('r1', 'south'), ('r2', 'west')")
    got = run(conn, "select r.label, count(*) from spectrum.customers c join regions r on c.region = r.region "
                    "join spectrum.sales s on s.id % 30 + 1 = c.id and s.month = '2024-02' group by r.label order by 1")
    con = duckdb_on(moto)
    con.execute("create table regions (region varchar, label varchar)")
    con.execute("insert into regions values ('r0', 'north'), ('r1', 'south'), ('r2', 'west')")
    want = con.execute(f"select r.label, count(*) from read_csv('s3://{BUCKET}/customers/customers.csv', header = true) c "
                       f"join regions r on c.region = r.region "
                       f"join read_parquet('s3://{BUCKET}/sales/*/part-*.parquet', hive_partitioning = true) s "
                       f"on s.id % 30 + 1 = c.id and s.month = '2024-02' group by r.label order by 1").fetchall()
    assert got == [tuple(r) for r in want]


def test_one_month_reads_only_its_partition(conn):
    assert run(conn, "select count(*) from spectrum.sales where month = '2024-03'") == [(250,)]
    query = run(conn, "select pg_last_query_id()")[0][0]
    # The GETs of objects (a listing's GET names no key): only March's, if any — an earlier
    # test read every month, whose footers and columns the external file cache still holds.
    keys = [k.strip() for (k,) in run(conn, f"select key from stl_s3client where query = {query} "
                                             f"and http_method = 'GET' and trim(key) <> ''")]
    assert all(k.startswith("sales/month=2024-03/") for k in keys), keys
    summary = run(conn, f"select trim(external_table_name), trim(file_format), is_partitioned, s3_scanned_rows, files "
                        f"from svl_s3query_summary where query = {query}")
    assert summary == [("spectrum.sales", "PARQUET", "t", 250, 2)], summary
    assert run(conn, f"select total_partitions, qualified_partitions from svl_s3partition where query = {query}") == [(4, 1)]


def test_row_group_statistics_skip_what_cannot_match(conn):
    # Ids grow through each file: one row group of 50 rows (ids 2051 to 2100) holds id 2075.
    assert run(conn, "select customer, day from spectrum.sales where id = 2075") == [("c5", 20)]
    query = run(conn, "select pg_last_query_id()")[0][0]
    summary = run(conn, f"select s3_scanned_rows, is_rrscan from svl_s3query_summary where query = {query}")
    assert summary == [(50, "t")], summary


def test_create_external_table_is_seen_by_glue(moto, conn):
    run(conn, f"create external table spectrum.events (id int, kind varchar(10), at timestamp) "
              f"partitioned by (day date) stored as parquet location 's3://{BUCKET}/events/' "
              f"table properties ('numRows'='100')")
    t = glue_client(moto).get_table(DatabaseName="salesdb", Name="events")["Table"]
    assert [(c["Name"], c["Type"]) for c in t["StorageDescriptor"]["Columns"]] == \
        [("id", "int"), ("kind", "varchar(10)"), ("at", "timestamp")]
    assert [(c["Name"], c["Type"]) for c in t["PartitionKeys"]] == [("day", "date")]
    assert t["StorageDescriptor"]["Location"] == f"s3://{BUCKET}/events/"
    assert "parquet" in t["StorageDescriptor"]["SerdeInfo"]["SerializationLibrary"].lower()
    assert t["Parameters"]["numRows"] == "100"
    run(conn, f"alter table spectrum.events add partition (day='2024-05-01') location 's3://{BUCKET}/events/day=2024-05-01/'")
    parts = glue_client(moto).get_partitions(DatabaseName="salesdb", TableName="events")["Partitions"]
    assert [p["Values"] for p in parts] == [["2024-05-01"]]
    assert run(conn, "select count(*) from spectrum.events") == [(0,)]
    run(conn, "drop table spectrum.events")
    assert "events" not in [t["Name"] for t in glue_client(moto).get_tables(DatabaseName="salesdb")["TableList"]]


def test_what_slicehouse_writes_duckdb_and_glue_read(moto, conn):
    # CREATE EXTERNAL TABLE AS and INSERT INTO write Hive-partitioned Parquet to S3 and
    # register the table and its partitions in Glue.
    run(conn, f"create external table spectrum.big_sales partitioned by (month) stored as parquet "
              f"location 's3://{BUCKET}/written/big_sales/' as "
              f"select id, customer, amount, month from spectrum.sales where amount > 200")
    run(conn, f"insert into spectrum.big_sales select id + 100000, customer, amount, '2025-01' from spectrum.sales "
              f"where month = '2024-01' and day = 1")
    ours = run(conn, "select id, customer, amount, month from spectrum.big_sales order by id")
    con = duckdb_on(moto)
    theirs = con.execute(f"select id, customer, amount, month from read_parquet('s3://{BUCKET}/written/big_sales/*/*.parquet', "
                         f"hive_partitioning = true) order by id").fetchall()
    assert ours and [tuple(r) for r in theirs] == ours
    want = con.execute(f"select count(*) from read_parquet('s3://{BUCKET}/sales/*/part-*.parquet', hive_partitioning = true) "
                       f"where amount > 200").fetchall()[0][0]
    assert len([r for r in ours if r[3] != "2025-01"]) == want
    glue = glue_client(moto)
    parts = glue.get_partitions(DatabaseName="salesdb", TableName="big_sales")["Partitions"]
    assert sorted(p["Values"][0] for p in parts) == sorted({r[3] for r in ours})
    assert all(p["StorageDescriptor"]["Location"] == f"s3://{BUCKET}/written/big_sales/month={p['Values'][0]}/" for p in parts)
    t = glue.get_table(DatabaseName="salesdb", Name="big_sales")["Table"]
    assert [c["Name"] for c in t["StorageDescriptor"]["Columns"]] == ["id", "customer", "amount"]
    run(conn, "drop table spectrum.big_sales")


def test_usage_on_the_external_schema_is_what_lets_a_user_read(conn, server):
    run(conn, "create user reader password 'Reader-pw1'")
    reader = connect(server, user="reader", password="Reader-pw1")
    try:
        with pytest.raises(psycopg2.Error) as e:
            run(reader, "select count(*) from spectrum.customers")
        assert "permission denied for schema spectrum" in str(e.value)
        run(conn, "grant usage on schema spectrum to reader")
        assert run(reader, "select count(*) from spectrum.customers") == [(30,)]
        # Nor may the reader change the schema's tables, or make a schema with a role it
        # may not use.
        with pytest.raises(psycopg2.Error) as e:
            run(reader, "drop table spectrum.customers")
        assert "must be owner of external schema spectrum" in str(e.value)
        with pytest.raises(psycopg2.Error) as e:
            run(reader, "create external schema mine from data catalog database 'salesdb' "
                        "iam_role 'arn:aws:iam::123456789012:role/admin'")
        assert "may not assume IAM role" in str(e.value)
        # Nor the server's own keys.
        with pytest.raises(psycopg2.Error) as e:
            run(reader, "create external schema mine from data catalog database 'salesdb' iam_role 'default'")
        assert "permission denied" in str(e.value)
        # A local folder the reader could not COPY from stays closed behind a table a
        # superuser made over it.
        run(conn, "create external table spectrum.etc (line varchar(1000)) row format delimited "
                  "fields terminated by '\\001' stored as textfile location 'file:///etc/'")
        with pytest.raises(psycopg2.Error) as e:
            run(reader, "select count(*) from spectrum.etc")
        assert "permission denied" in str(e.value)
        run(conn, "drop table spectrum.etc")
    finally:
        reader.close()
        run(conn, "revoke usage on schema spectrum from reader")
        run(conn, "drop user reader")


def test_the_data_directory_is_no_ones_location(conn, server):
    data_dir = server.argv[server.argv.index("-D") + 1]
    with pytest.raises(psycopg2.Error) as e:
        run(conn, f"create external table spectrum.inside (line varchar(100)) stored as textfile location 'file://{data_dir}/'")
    assert "permission denied" in str(e.value) or "not allowed" in str(e.value), str(e.value)


def test_a_missing_or_corrupt_object_is_a_clear_error(moto, conn):
    moto.client().put_object(Bucket=BUCKET, Key="broken/part-0.parquet", Body=b"PAR1 this is not a parquet file")
    run(conn, f"create external table spectrum.broken (id bigint) stored as parquet location 's3://{BUCKET}/broken/'")
    with pytest.raises(psycopg2.Error) as e:
        run(conn, "select * from spectrum.broken")
    assert "Spectrum Scan Error" in str(e.value) and f"s3://{BUCKET}/broken/part-0.parquet" in str(e.value)
    run(conn, "drop table spectrum.broken")
    with pytest.raises(psycopg2.Error) as e:
        run(conn, "select * from spectrum.nothing_here")
    assert "does not exist" in str(e.value)


def test_a_table_read_again_costs_its_listing_and_a_rewritten_object_is_read_again(moto, conn):
    """The external file cache: the second query of a table fetches no Parquet bytes (only
    the listing), and an object written again under the same key (a new ETag) is read
    again — the answer follows the files."""
    pa = need("pyarrow")
    import pyarrow.parquet as pq
    s3 = moto.client()

    def put(values):
        buf = io.BytesIO()
        pq.write_table(pa.table({"v": pa.array(values, pa.int64())}), buf)
        s3.put_object(Bucket=BUCKET, Key="cached/part-0.parquet", Body=buf.getvalue())

    put([1, 2, 3])
    run(conn, f"create external table spectrum.cached (v bigint) stored as parquet location 's3://{BUCKET}/cached/'")
    assert run(conn, "select sum(v) from spectrum.cached") == [(6,)]
    assert run(conn, "select sum(v) from spectrum.cached") == [(6,)]
    # The last query's requests: one listing, no GET of the object.
    requests = run(conn, "select count(*), sum(case when trim(key) like '%part-0.parquet' then 1 else 0 end) "
                         "from stl_s3client where query = (select max(query) from stl_s3client)")
    assert requests[0][0] >= 1 and requests[0][1] == 0, requests
    put([10, 20, 30, 40])
    assert run(conn, "select sum(v) from spectrum.cached") == [(100,)]
    run(conn, "drop table spectrum.cached")
