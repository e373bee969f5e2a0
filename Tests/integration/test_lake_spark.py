# SPDX-License-Identifier: Apache-2.0
"""Apache Spark (PySpark, local mode) and Slicehouse sharing Hive-partitioned Parquet on
the local file system (`file://` locations, the data directory's own catalog).

Spark writes a table partitioned by region and year (`partitionBy`, with its `_SUCCESS`
and `.crc` files and a NULL region's `__HIVE_DEFAULT_PARTITION__` folder; INT96
timestamps, INT64 decimals); Slicehouse registers it with CREATE EXTERNAL TABLE and ALTER
TABLE ADD PARTITION, and both answer the same questions — counts, sums per partition, a
filter on the partition columns (which reads one partition), a join with a local
Slicehouse table, every row and the files read — alike. The other way, Slicehouse writes
with CREATE EXTERNAL TABLE AS and INSERT INTO (also into a table Spark made), and Spark's
partition discovery reads what Slicehouse reads. Last, partition values that folder names
hold as `%XX` escapes (`region=n%2Fa`), written by either.

Needs pyspark and a Java runtime (`java` on PATH or JAVA_HOME): skipped without them,
except under CI=true, where their absence fails the test.
"""
import os
import shutil
import urllib.parse

import pytest

from server_support import CI, Server, connect, need, run

psycopg2 = pytest.importorskip("psycopg2") if not CI else __import__("psycopg2")

ROLE = "arn:aws:iam::123456789012:role/spectrum"
ROWS = 2000
# Five regions, one with a space (not escaped in folder names); ids 7, 207, … have no
# region (a NULL partition). Values written as `%XX` in folder names: ESCAPED, below.
REGIONS = ["east", "west", "north", "south", "south east"]
TS = "to_char(ts, 'YYYY-MM-DD HH24:MI:SS')"          # Slicehouse's text of a timestamp
SPARK_TS = "date_format(ts, 'yyyy-MM-dd HH:mm:ss')"   # Spark's (session time zone UTC)
COLUMNS = "id bigint, name varchar(64), amount double precision, price decimal(10,2), day date, ts timestamp"


def uri(path):
    return "file://" + str(path)


def norm(value):
    """Doubles summed in another order differ in their last bits."""
    return round(value, 6) if isinstance(value, float) else value


def rows(result):
    return [tuple(norm(v) for v in r) for r in result]


def unordered(result):
    return sorted(rows(result), key=repr)


@pytest.fixture(scope="module")
def spark(tmp_path_factory):
    need("pyspark")
    if not (shutil.which("java") or os.environ.get("JAVA_HOME")):
        if CI:
            pytest.fail("no Java runtime for Spark (java on PATH or JAVA_HOME)")
        pytest.skip("no Java runtime for Spark (java on PATH or JAVA_HOME)")
    from pyspark.sql import SparkSession
    scratch = tmp_path_factory.mktemp("spark")
    session = (SparkSession.builder.master("local[1]").appName("slicehouse-lake")
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", "2")
               .config("spark.default.parallelism", "1")
               .config("spark.sql.session.timeZone", "UTC")
               # Dates before 1582 in files no Spark wrote are proleptic Gregorian, as everywhere
               # else (Spark's default refuses to guess).
               .config("spark.sql.parquet.datetimeRebaseModeInRead", "CORRECTED")
               .config("spark.sql.parquet.int96RebaseModeInRead", "CORRECTED")
               .config("spark.driver.host", "127.0.0.1")
               .config("spark.driver.bindAddress", "127.0.0.1")
               .config("spark.local.dir", str(scratch / "local"))
               .config("spark.sql.warehouse.dir", str(scratch / "warehouse"))
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(scope="module")
def lake(tmp_path_factory):
    return tmp_path_factory.mktemp("lake")


@pytest.fixture(scope="module")
def conn(tmp_path_factory):
    # The data directory's catalog, not Glue: no AWS endpoint from the environment. The
    # superuser may name any role (no iam_roles.json), and `file://` locations need no keys.
    data = tmp_path_factory.mktemp("data")
    server = Server(data, env_extra={"AWS_ENDPOINT_URL": "", "AWS_ENDPOINT_URL_GLUE": ""})
    c = connect(server)
    run(c, "set enable_result_cache_for_session to off")
    run(c, f"create external schema sp from data catalog database 'sparkdb' iam_role '{ROLE}' "
           f"create external database if not exists")
    yield c
    c.close()
    server.stop()


def register(conn, table, path):
    """CREATE EXTERNAL TABLE over Spark's folder and ADD PARTITION for each folder it made."""
    run(conn, f"create external table sp.{table} ({COLUMNS}) partitioned by (region varchar(16), year int) "
              f"stored as parquet location '{uri(path)}/'")
    specs = []
    for r in sorted(os.listdir(path)):
        if not r.startswith("region="):
            continue
        for y in sorted(os.listdir(path / r)):
            if y.startswith("year="):
                region = urllib.parse.unquote(r.split("=", 1)[1])   # __HIVE_DEFAULT_PARTITION__ is NULL
                specs.append(f"partition (region = '{region}', year = {int(y.split('=', 1)[1])}) "
                             f"location '{uri(path / r / y)}/'")
    run(conn, f"alter table sp.{table} add {' '.join(specs)}")
    return len(specs)


@pytest.fixture(scope="module")
def spark_table(spark, conn, lake):
    """Spark's partitioned table, registered in Slicehouse as sp.t and in Spark as view t."""
    path = lake / "spark_t"
    regions = ", ".join(f"'{r}'" for r in REGIONS)
    df = spark.sql(f"""
        select id,
               case when id % 50 = 0 then null else concat('n', id % 97) end as name,
               case when id % 61 = 0 then null else cast(id * 1.37 % 500 as double) end as amount,
               cast(id % 1000 / 4 as decimal(10,2)) as price,
               date_add(date'2024-01-01', cast(id % 365 as int)) as day,
               timestamp_seconds(1704067200 + id * 3607) as ts,
               case when id % 200 = 7 then null else element_at(array({regions}), cast(id % 5 + 1 as int)) end as region,
               cast(2023 + id % 2 as int) as year
        from range(1, {ROWS + 1})""")
    df.repartition(2).write.partitionBy("region", "year").parquet(uri(path))
    # What Spark leaves beside the data: Slicehouse reads none of it.
    assert (path / "_SUCCESS").exists()
    assert any(f.endswith(".crc") for _, _, fs in os.walk(path) for f in fs)
    assert (path / "region=south east").is_dir() and (path / "region=__HIVE_DEFAULT_PARTITION__").is_dir()
    partitions = register(conn, "t", path)
    assert partitions == 11
    spark.read.parquet(uri(path)).createOrReplaceTempView("t")
    return path


def both(conn, spark, ours, theirs=None):
    """The same question put to Slicehouse and to Spark."""
    return run(conn, ours), [tuple(r) for r in spark.sql(theirs or ours).collect()]


def test_spark_infers_the_partition_columns(spark, spark_table):
    assert dict(spark.table("t").dtypes) == {
        "id": "bigint", "name": "string", "amount": "double", "price": "decimal(10,2)", "day": "date",
        "ts": "timestamp", "region": "string", "year": "int"}


def test_counts_and_sums_per_partition_agree(conn, spark, spark_table):
    ours, theirs = both(conn, spark, "select count(*), count(name), count(amount), count(region), count(distinct region) from sp.t",
                        "select count(*), count(name), count(amount), count(region), count(distinct region) from t")
    assert ours == theirs == [(ROWS, ROWS - ROWS // 50, ROWS - ROWS // 61, ROWS - 10, 5)]

    q = ("select region, year, count(*), count(name), sum(amount), sum(price), min(day), max(day), "
         "min(id), max(id) from {} group by region, year")
    ours, theirs = both(conn, spark, q.format("sp.t"), q.format("t"))
    assert len(ours) == 11
    assert unordered(ours) == unordered(theirs)

    q = "select region, avg(amount), max(amount), sum(price) / count(*) from {} group by region"
    ours, theirs = both(conn, spark, q.format("sp.t"), q.format("t"))
    assert [(r, round(a, 6), m) for r, a, m, _ in unordered(ours)] == \
        [(r, round(a, 6), m) for r, a, m, _ in unordered(theirs)]


def test_a_filter_on_the_partition_columns_reads_one_partition(conn, spark, spark_table):
    q = (f"select id, name, amount, price, day, {{}}, region, year from {{}} "
         f"where region = 'south east' and year = 2024 and amount > 250 order by id")
    ours = run(conn, q.format(TS, "sp.t"))
    query = run(conn, "select pg_last_query_id()")[0][0]
    theirs = [tuple(r) for r in spark.sql(q.format(SPARK_TS, "t")).collect()]
    assert ours and rows(ours) == rows(theirs)
    assert run(conn, f"select total_partitions, qualified_partitions from svl_s3partition where query = {query}") == [(11, 1)]

    # Another partition, and Hive's NULL partition.
    ours, theirs = both(conn, spark, "select count(*), sum(price) from sp.t where region = 'south'",
                        "select count(*), sum(price) from t where region = 'south'")
    assert ours == theirs and ours[0][0] == 400
    ours, theirs = both(conn, spark, "select year, count(*), min(id) from sp.t where region is null group by year",
                        "select year, count(*), min(id) from t where region is null group by year")
    assert ours == theirs == [(2024, 10, 7)]


def test_a_join_with_a_local_table_agrees(conn, spark, spark_table):
    managers = [("east", "Ada"), ("west", "Grace"), ("south east", "Edsger"), ("south", "Barbara")]
    run(conn, "create table managers (region varchar(16), manager varchar(20))")
    run(conn, "insert into managers values " + ", ".join(f"('{r}', '{m}')" for r, m in managers))
    spark.createDataFrame(managers, "region string, manager string").createOrReplaceTempView("managers")
    q = ("select m.manager, t.year, count(*), sum(t.amount), count(distinct t.name) from {} t "
         "join managers m on t.region = m.region where t.day between '2024-03-01' and '2024-06-30' "
         "group by m.manager, t.year")
    ours, theirs = both(conn, spark, q.format("sp.t"), q.format("t"))
    assert len(ours) == 8
    assert unordered(ours) == unordered(theirs)


def test_every_row_agrees_and_only_the_data_files_are_read(conn, spark, spark_table):
    q = "select id, name, amount, price, day, {}, region, year from {} order by id"
    ours = run(conn, q.format(TS, "sp.t"))
    theirs = [tuple(r) for r in spark.sql(q.format(SPARK_TS, "t")).collect()]
    assert len(ours) == ROWS and rows(ours) == rows(theirs)
    files = {os.path.join(d, f) for d, _, fs in os.walk(spark_table) for f in fs if f.endswith(".parquet") and f[0] not in "._"}
    assert len(files) == 22
    # `$path` is the file's address as is (as Spectrum's is the S3 key); Spark's is a URI.
    paths = {p for (p,) in run(conn, 'select distinct "$path" from sp.t')}
    assert paths == {"file://" + f for f in files}
    spark_paths = {r[0] for r in spark.read.parquet(uri(spark_table)).select("_metadata.file_path").distinct().collect()}
    assert {urllib.parse.unquote(urllib.parse.urlparse(p).path) for p in spark_paths} == files


@pytest.fixture(scope="module")
def slicehouse_table(spark, conn, lake, spark_table):
    """sp.out, written by Slicehouse from Spark's table and a local one; view o in Spark."""
    path = lake / "out"
    run(conn, f"create external table sp.out partitioned by (region) stored as parquet location '{uri(path)}/' as "
              f"select id, name, amount, price, day, ts, (id % 7 = 0) as flag, (id % 300)::smallint as qty, region "
              f"from sp.t where year = 2024 and id % 3 = 0")
    run(conn, "create table extra (id bigint, name varchar(64), amount double precision, price decimal(10,2), "
              "day date, ts timestamp, flag boolean, qty smallint, region varchar(16))")
    run(conn, "insert into extra values "
              "(100001, 'Zoë ''quoted''', 12.5, 99999999.99, '1999-12-31', '2000-01-01 23:59:59', true, -5, 'central'), "
              "(100002, null, null, null, null, null, null, null, 'central'), "
              "(100003, 'leap', -0.25, -1.00, '2024-02-29', '2024-02-29 12:00:00', false, 32767, 'north'), "
              "(100004, 'no region', 1e300, 0.01, '0001-01-01', '1970-01-01 00:00:00', true, 0, null), "
              "(100005, 'east again', 3.75, 5.00, '2024-12-31', '2024-12-31 00:00:01', false, 1, 'east')")
    run(conn, "insert into sp.out select * from extra")
    assert (path / "region=__HIVE_DEFAULT_PARTITION__").is_dir()
    spark.read.parquet(uri(path)).createOrReplaceTempView("o")
    return path


def test_spark_reads_what_slicehouse_wrote(conn, spark, slicehouse_table):
    # A timestamp without time zone is Parquet's isAdjustedToUTC=false: Spark's TIMESTAMP_NTZ.
    assert dict(spark.table("o").dtypes) == {
        "id": "bigint", "name": "string", "amount": "double", "price": "decimal(10,2)", "day": "date",
        "ts": "timestamp_ntz", "flag": "boolean", "qty": "smallint", "region": "string"}

    q = "select id, name, amount, price, day, {}, flag, qty, region from {} order by id"
    ours = run(conn, q.format(TS, "sp.out"))
    theirs = [tuple(r) for r in spark.sql(q.format(SPARK_TS, "o")).collect()]
    assert len(ours) == 333 + 5 and rows(ours) == rows(theirs)
    assert ours[-5:][0][1] == "Zoë 'quoted'" and ours[-5:][2][-1] == "north" and ours[-5:][3][-1] is None

    q = "select region, count(*), count(name), sum(amount), sum(price), min(day), max(day), sum(qty) from {} group by region"
    ours, theirs = both(conn, spark, q.format("sp.out"), q.format("o"))
    assert len(ours) == 7 and unordered(ours) == unordered(theirs)

    ours, theirs = both(conn, spark, "select id, amount from sp.out where region = 'central' order by id",
                        "select id, amount from o where region = 'central' order by id")
    assert ours == theirs == [(100001, 12.5), (100002, None)]

    partitions = run(conn, "select values from svv_external_partitions where tablename = 'out'")
    assert len(partitions) == 7


def test_the_round_trip_keeps_spark_rows(spark, slicehouse_table):
    # Spark's rows, through Slicehouse's CTAS, back in Spark unchanged.
    gone = spark.sql("select id, name, amount, price, day, ts, region from t where year = 2024 and id % 3 = 0 "
                     "except all select id, name, amount, price, day, cast(ts as timestamp), region from o")
    assert gone.count() == 0


def test_slicehouse_inserts_into_the_table_spark_wrote(conn, spark, spark_table, lake):
    # A copy of Spark's folder, registered afresh; Slicehouse adds a year and rows to an
    # existing partition, and Spark's partition discovery finds both.
    path = lake / "spark_copy"
    shutil.copytree(spark_table, path)
    register(conn, "t2", path)
    run(conn, "insert into sp.t2 select id + 10000, name, amount, price, day, ts, region, 2025 "
              "from sp.t where year = 2023 and id < 100")
    run(conn, "insert into sp.t2 values (20000, 'one more', 1.5, 2.50, '2024-05-05', '2024-05-05 05:05:05', 'west', 2024)")
    assert (path / "region=west" / "year=2025").is_dir()
    spark.read.parquet(uri(path)).createOrReplaceTempView("t2")
    q = "select region, year, count(*), sum(amount), sum(price), max(id) from {} group by region, year"
    ours, theirs = both(conn, spark, q.format("sp.t2"), q.format("t2"))
    assert len(ours) == 11 + 5 and unordered(ours) == unordered(theirs)
    assert run(conn, "select count(*) from sp.t2") == [(ROWS + 49 + 1,)]


# Partition values written as `%XX` in folder names: Spark escapes what Hive does
# (`region=n%2Fa`), Slicehouse also what is not ASCII (`region=z%C3%BCrich`). A location
# names the folder as it is on disk, and the reader takes the value from the catalog.
ESCAPED = ["n/a", "k=v", "x:y", "100%", "zürich"]
ESCAPED_QUERY = "select region, count(*), sum(id) from {} group by region"
ESCAPED_ANSWER = unordered((v, 10, sum(i for i in range(1, 51) if i % 5 == k)) for k, v in enumerate(ESCAPED))


def test_partition_folders_spark_escaped(conn, spark, lake):
    path = lake / "escaped"
    data = [(i, ESCAPED[i % 5]) for i in range(1, 51)]
    spark.createDataFrame(data, "id bigint, region string").write.partitionBy("region").parquet(uri(path))
    folders = sorted(d for d in os.listdir(path) if d.startswith("region="))
    assert folders == ["region=100%25", "region=k%3Dv", "region=n%2Fa", "region=x%3Ay", "region=zürich"]
    run(conn, f"create external table sp.escaped (id bigint) partitioned by (region varchar(16)) "
              f"stored as parquet location '{uri(path)}/'")
    run(conn, "alter table sp.escaped add " + " ".join(
        f"partition (region = '{urllib.parse.unquote(f.split('=', 1)[1])}') location '{uri(path / f)}/'" for f in folders))
    spark.read.parquet(uri(path)).createOrReplaceTempView("escaped")
    ours, theirs = both(conn, spark, ESCAPED_QUERY.format("sp.escaped"), ESCAPED_QUERY.format("escaped"))
    assert unordered(theirs) == ESCAPED_ANSWER
    assert unordered(ours) == unordered(theirs)


def test_partition_folders_slicehouse_escaped(conn, spark, lake):
    path = lake / "escaped_out"
    run(conn, "create table escaped_local (id bigint, region varchar(16))")
    run(conn, "insert into escaped_local values " + ", ".join(f"({i}, '{ESCAPED[i % 5]}')" for i in range(1, 51)))
    run(conn, f"create external table sp.escaped_out partitioned by (region) stored as parquet "
              f"location '{uri(path)}/' as select id, region from escaped_local")
    want = unordered(run(conn, ESCAPED_QUERY.format("escaped_local")))
    assert want == ESCAPED_ANSWER
    spark.read.parquet(uri(path)).createOrReplaceTempView("escaped_out")
    theirs = unordered(spark.sql(ESCAPED_QUERY.format("escaped_out")).collect())
    ours = unordered(run(conn, ESCAPED_QUERY.format("sp.escaped_out")))
    # Both readers at once, so that one's failure does not hide the other's.
    assert {"spark": theirs, "slicehouse": ours} == {"spark": want, "slicehouse": want}
