# SPDX-License-Identifier: Apache-2.0
"""Apache Iceberg tables in the Glue Data Catalog, read through an external schema as
Redshift reads them. pyiceberg (a tool no one here wrote) creates and changes the tables
in moto's Glue and S3 — appends, a partitioned table, deletes (v2 position deletes, and
equality deletes written as Iceberg's spec lays them out), a schema change — and Slicehouse
answers from the current snapshot on the next query; DuckDB's iceberg extension, reading
the same metadata, is the oracle where it can be loaded.
"""
import datetime
import decimal
import io

import pytest

from server_support import CI, Server, connect, need, run
from s3_support import KEY_ID, SECRET, Moto

psycopg2 = pytest.importorskip("psycopg2") if not CI else __import__("psycopg2")

BUCKET = "warehouse"
ROLE = "arn:aws:iam::123456789012:role/spectrum"


def iceberg_modules():
    try:
        import pyarrow  # noqa: F401
        import pyiceberg.catalog.glue  # noqa: F401
    except ImportError:
        if CI:
            raise
        pytest.skip('pyiceberg is not installed (pip install "pyiceberg[glue,pyarrow]"; scripts/setup-system.sh does)')


@pytest.fixture(scope="module")
def moto():
    iceberg_modules()
    m = Moto()
    m.client().create_bucket(Bucket=BUCKET)
    yield m
    m.stop()


@pytest.fixture(scope="module")
def catalog(moto):
    from pyiceberg.catalog.glue import GlueCatalog
    props = {"glue.endpoint": moto.url, "glue.region": "us-east-1", "glue.access-key-id": KEY_ID,
             "glue.secret-access-key": SECRET, "s3.endpoint": moto.url, "s3.access-key-id": KEY_ID,
             "s3.secret-access-key": SECRET, "s3.region": "us-east-1", "warehouse": f"s3://{BUCKET}/",
             "py-io-impl": "iceberg_moto_io.MotoFileIO"}
    cat = GlueCatalog("glue", **props)
    cat.create_namespace("lake", {"location": f"s3://{BUCKET}/lake"})
    return cat


@pytest.fixture(scope="module")
def server(moto, tmp_path_factory):
    data = tmp_path_factory.mktemp("data")
    (data / "iam_roles.json").write_text(
        f'{{"{ROLE}": {{"access_key_id": "{KEY_ID}", "secret_access_key": "{SECRET}", "users": ["*"]}}}}')
    # The endpoints as an operator gives them on the command line (no AWS_ENDPOINT_URL).
    s = Server(data, args=("--s3-endpoint", moto.url, "--glue-endpoint", moto.url), env_extra={"AWS_REGION": "us-east-1"})
    yield s
    s.stop()


@pytest.fixture(scope="module")
def conn(server, catalog):
    c = connect(server)
    run(c, f"create external schema ice from data catalog database 'lake' iam_role '{ROLE}'")
    yield c
    c.close()


def orders_arrow(first, n):
    import pyarrow as pa
    return pa.table({
        "id": pa.array(range(first, first + n), pa.int64()),
        "customer": pa.array([f"c{i % 13}" for i in range(first, first + n)], pa.string()),
        "amount": pa.array([decimal.Decimal(i * 7 % 1000) / 100 for i in range(first, first + n)], pa.decimal128(10, 2)),
        "day": pa.array([datetime.date(2024, 1, 1) + datetime.timedelta(days=i % 90) for i in range(first, first + n)],
                        pa.date32()),
        "qty": pa.array([i % 5 for i in range(first, first + n)], pa.int32()),
    })


@pytest.fixture(scope="module")
def orders(catalog):
    """A partitioned v2 table (days of `day`), written by two appends."""
    from pyiceberg.partitioning import PartitionField, PartitionSpec
    from pyiceberg.transforms import MonthTransform
    data = orders_arrow(1, 600)
    t = catalog.create_table("lake.orders", schema=data.schema,
                             properties={"format-version": "2", "write.parquet.row-group-limit": "100"})
    with t.update_spec() as spec:
        spec.add_field("day", MonthTransform(), "day_month")
    t = catalog.load_table("lake.orders")
    t.append(data)
    t.append(orders_arrow(601, 300))
    return catalog.load_table("lake.orders")


def arrow_rows(table, columns, where=None):
    """The table's rows as pyiceberg reads them (its own scan), sorted."""
    scan = table.scan(row_filter=where) if where else table.scan()
    t = scan.to_arrow().select(columns)
    return sorted(tuple(r[c] for c in columns) for r in t.to_pylist())


def test_pyiceberg_table_reads_like_pyiceberg(conn, orders):
    got = run(conn, "select id, customer, amount, day, qty from ice.orders order by id")
    want = arrow_rows(orders, ["id", "customer", "amount", "day", "qty"])
    assert [tuple(r) for r in got] == want
    assert len(got) == 900
    # The columns come from the table's Iceberg schema, in Redshift's types.
    cols = run(conn, "select columnname, external_type from svv_external_columns where tablename = 'orders' order by columnnum")
    assert [c[0] for c in cols] == ["id", "customer", "amount", "day", "qty"]


def test_month_partitions_and_statistics_prune_files(conn, orders):
    got = run(conn, "select count(*), sum(amount) from ice.orders where day between '2024-02-01' and '2024-02-29'")
    want = [r for r in arrow_rows(orders, ["id", "amount", "day"])
            if datetime.date(2024, 2, 1) <= r[2] <= datetime.date(2024, 2, 29)]
    assert got == [(len(want), sum(r[1] for r in want))]
    # Of the files the appends wrote (one per month each), only February's were read.
    files = len(orders.inspect.files())
    summary = run(conn, "select files, s3_scanned_rows from svl_s3query_summary where external_table_name = 'ice.orders' "
                        "order by query desc limit 1")
    assert summary[0][0] < files and summary[0][1] == len(want), (summary, files)
    # A filter on a data column prunes by the files' bounds too.
    assert run(conn, "select count(*) from ice.orders where id > 100000") == [(0,)]
    assert run(conn, "select files from svl_s3query_summary where external_table_name = 'ice.orders' "
                     "order by query desc limit 1") == [(0,)]


def test_a_new_snapshot_is_seen_on_the_next_query(conn, catalog, orders):
    before = run(conn, "select count(*) from ice.orders")[0][0]
    t = catalog.load_table("lake.orders")
    t.append(orders_arrow(5001, 40))
    assert run(conn, "select count(*) from ice.orders") == [(before + 40,)]


def test_position_deletes_take_rows_out(conn, catalog):
    import pyarrow as pa
    from pyiceberg.expressions import EqualTo, LessThan
    data = orders_arrow(1, 300)
    t = catalog.create_table("lake.deletes", schema=data.schema,
                             properties={"format-version": "2", "write.delete.mode": "merge-on-read"})
    t.append(data)
    t = catalog.load_table("lake.deletes")
    t.delete(LessThan("qty", 1))     # every fifth row
    t = catalog.load_table("lake.deletes")
    t.delete(EqualTo("customer", "c3"))
    t = catalog.load_table("lake.deletes")
    want = arrow_rows(t, ["id", "customer", "qty"])
    got = run(conn, "select id, customer, qty from ice.deletes order by id")
    assert [tuple(r) for r in got] == want
    assert all(r[2] != 0 and r[1] != "c3" for r in got) and len(got) < 300
    assert run(conn, "select count(*) from ice.deletes where qty = 0") == [(0,)]


def test_schema_change_by_field_id(conn, catalog):
    import pyarrow as pa
    from pyiceberg.types import StringType
    data = orders_arrow(1, 50)
    t = catalog.create_table("lake.evolving", schema=data.schema, properties={"format-version": "2"})
    t.append(data)
    t = catalog.load_table("lake.evolving")
    with t.update_schema() as u:
        u.rename_column("customer", "client")
        u.add_column("note", StringType())
        u.delete_column("qty")
    t = catalog.load_table("lake.evolving")
    t.append(pa.table({"id": pa.array([1001, 1002], pa.int64()), "client": ["new1", "new2"],
                       "amount": pa.array([decimal.Decimal("1.50"), None], pa.decimal128(10, 2)),
                       "day": pa.array([datetime.date(2024, 5, 1)] * 2, pa.date32()),
                       "note": ["added", None]}))
    got = run(conn, "select id, client, note from ice.evolving where id in (1, 2, 1001, 1002) order by id")
    # Old files' `customer` is the renamed `client` (same field id); `note` did not exist.
    assert [tuple(r) for r in got] == [(1, "c1", None), (2, "c2", None), (1001, "new1", "added"), (1002, "new2", None)]
    with pytest.raises(psycopg2.Error, match="qty"):
        run(conn, "select qty from ice.evolving")


def _duckdb_iceberg(moto):
    """DuckDB with httpfs, avro and iceberg loaded, reading moto's S3 (None when the
    extensions are not installed and CI is not set)."""
    duckdb = need("duckdb")
    try:
        import duckdb_extension_avro
        import duckdb_extension_httpfs
        import duckdb_extension_iceberg
    except ImportError:
        if CI:
            raise
        return None
    import os
    con = duckdb.connect()
    for mod, name in ((duckdb_extension_httpfs, "httpfs"), (duckdb_extension_avro, "avro"), (duckdb_extension_iceberg, "iceberg")):
        con.execute(f"LOAD '{os.path.join(os.path.dirname(mod.__file__), 'extensions', 'v' + duckdb.__version__, name + '.duckdb_extension')}'")
    host = moto.url.removeprefix("http://")
    con.execute(f"CREATE SECRET (TYPE s3, KEY_ID '{KEY_ID}', SECRET '{SECRET}', ENDPOINT '{host}', URL_STYLE 'path', "
                f"USE_SSL false, REGION 'us-east-1')")
    return con


def test_iceberg_agrees_with_duckdb(conn, moto, orders):
    con = _duckdb_iceberg(moto)
    if con is None:
        pytest.skip("duckdb-extension-iceberg, -avro or -httpfs is not installed")
    location = orders.metadata_location
    want = con.execute(f"select customer, count(*), sum(amount) from iceberg_scan('{location}') "
                       f"group by customer order by customer").fetchall()
    got = run(conn, f"select customer, count(*), sum(amount) from ice.orders where id < 5000 "
                    f"group by customer order by customer")
    assert [tuple(r) for r in got] == [tuple(r) for r in want]


def test_bad_metadata_names_the_file(conn, catalog, moto):
    import boto3
    data = orders_arrow(1, 10)
    t = catalog.create_table("lake.broken", schema=data.schema, properties={"format-version": "2"})
    t.append(data)
    t = catalog.load_table("lake.broken")
    manifest_list = t.current_snapshot().manifest_list
    key = manifest_list.removeprefix(f"s3://{BUCKET}/")
    moto.client().put_object(Bucket=BUCKET, Key=key, Body=b"Obj\x01 this is not avro")
    with pytest.raises(psycopg2.Error, match="snap-.*avro"):
        run(conn, "select count(*) from ice.broken")
    # The session goes on.
    assert run(conn, "select 1") == [(1,)]


# --- v2 delete files ---------------------------------------------------------------------
# pyiceberg's own deletes rewrite data files (copy-on-write). Merge-on-read delete files —
# what Spark, Flink and Trino write — are made here as Iceberg's spec lays them out: a
# Parquet file of (file_path, pos) or of the equality columns' values with their field
# ids, a delete manifest (pyiceberg's manifest writer, content = deletes), a manifest list
# and a snapshot committed through pyiceberg's catalog.

def _commit_delete_files(catalog, name, files):
    import uuid
    from pyiceberg.manifest import ManifestContent, ManifestEntry, ManifestEntryStatus, ManifestWriterV2, write_manifest_list
    from pyiceberg.table.snapshots import Operation, Snapshot, Summary
    from pyiceberg.table.refs import SnapshotRefType
    from pyiceberg.table.update import AddSnapshotUpdate, AssertRefSnapshotId, SetSnapshotRefUpdate

    class DeleteManifestWriter(ManifestWriterV2):
        def content(self):
            return ManifestContent.DELETES

        @property
        def _meta(self):
            return {**super()._meta, "content": "deletes"}

    t = catalog.load_table(name)
    parent = t.current_snapshot()
    snapshot_id = uuid.uuid4().int & ((1 << 62) - 1)
    sequence = t.metadata.last_sequence_number + 1
    manifest_path = f"{t.location()}/metadata/{uuid.uuid4()}-deletes-m0.avro"
    writer = DeleteManifestWriter(t.spec(), t.schema(), t.io.new_output(manifest_path), snapshot_id, "deflate")
    with writer:
        for f in files:
            writer.add(ManifestEntry.from_args(status=ManifestEntryStatus.ADDED, snapshot_id=snapshot_id,
                                               sequence_number=None, data_file=f))
    manifest = writer.to_manifest_file()
    list_path = f"{t.location()}/metadata/snap-{snapshot_id}-deletes.avro"
    with write_manifest_list(2, t.io.new_output(list_path), snapshot_id, parent.snapshot_id, sequence, "deflate") as lw:
        lw.add_manifests(parent.manifests(t.io) + [manifest])
    snapshot = Snapshot(snapshot_id=snapshot_id, parent_snapshot_id=parent.snapshot_id, sequence_number=sequence,
                        manifest_list=list_path, summary=Summary(Operation.DELETE), schema_id=t.schema().schema_id)
    catalog.commit_table(t, (AssertRefSnapshotId(ref="main", snapshot_id=parent.snapshot_id),),
                         (AddSnapshotUpdate(snapshot=snapshot),
                          SetSnapshotRefUpdate(ref_name="main", type=SnapshotRefType.BRANCH, snapshot_id=snapshot_id)))


def _delete_file(moto, table, arrow, content, equality_ids=None):
    import uuid
    import pyarrow.parquet as pq
    from pyiceberg.manifest import DataFile, DataFileContent, FileFormat
    from pyiceberg.typedef import Record
    buf = io.BytesIO()
    pq.write_table(arrow, buf)
    path = f"{table.location()}/data/{uuid.uuid4()}-deletes.parquet"
    moto.client().put_object(Bucket=BUCKET, Key=path.removeprefix(f"s3://{BUCKET}/"), Body=buf.getvalue())
    return DataFile.from_args(content=content, file_path=path, file_format=FileFormat.PARQUET, partition=Record(),
                              record_count=arrow.num_rows, file_size_in_bytes=len(buf.getvalue()),
                              equality_ids=equality_ids)


def _field(name, type_, field_id):
    import pyarrow as pa
    return pa.field(name, type_, nullable=False, metadata={b"PARQUET:field_id": str(field_id).encode()})


def test_v2_position_and_equality_delete_files(conn, catalog, moto):
    import pyarrow as pa
    from pyiceberg.manifest import DataFileContent
    t = catalog.create_table("lake.mor", schema=orders_arrow(1, 1).schema, properties={"format-version": "2"})
    t.append(orders_arrow(1, 200))          # sequence 1
    t = catalog.load_table("lake.mor")
    t.append(orders_arrow(201, 100))        # sequence 2
    t = catalog.load_table("lake.mor")
    data = sorted(t.inspect.files().to_pylist(), key=lambda f: f["record_count"], reverse=True)
    first, second = data[0]["file_path"], data[1]["file_path"]   # 200 rows (ids 1-200), 100 rows (ids 201-300)

    # Position deletes (sequence 3): rows 0, 10, 20, … of the first file and row 5 of the second.
    positions = [(first, p) for p in range(0, 200, 10)] + [(second, 5)]
    arrow = pa.Table.from_pylist([{"file_path": f, "pos": p} for f, p in positions],
                                 schema=pa.schema([_field("file_path", pa.string(), 2147483546), _field("pos", pa.int64(), 2147483545)]))
    _commit_delete_files(catalog, "lake.mor", [_delete_file(moto, t, arrow, DataFileContent.POSITION_DELETES)])

    # Equality deletes on `customer` (field 2; sequence 4): every row of c4 written before it.
    t = catalog.load_table("lake.mor")
    arrow = pa.Table.from_pylist([{"customer": "c4"}], schema=pa.schema([_field("customer", pa.string(), 2)]))
    _commit_delete_files(catalog, "lake.mor", [_delete_file(moto, t, arrow, DataFileContent.EQUALITY_DELETES, [2])])

    # A later append (sequence 5) keeps its c4 rows: the equality delete is older than they are.
    t = catalog.load_table("lake.mor")
    t.append(orders_arrow(1000, 13))

    deleted_ids = {p + 1 for f, p in positions if f == first} | {201 + 5}
    want = [i for i in range(1, 301) if i not in deleted_ids and f"c{i % 13}" != "c4"] + list(range(1000, 1013))
    got = run(conn, "select id from ice.mor order by id")
    assert [r[0] for r in got] == sorted(want)
    assert run(conn, "select count(*) from ice.mor where customer = 'c4'") == [(1,)]   # id 1004, appended after
    assert run(conn, "select count(*) from ice.mor where id in (1, 11, 206)") == [(0,)]

    # DuckDB's iceberg extension reads the same delete files to the same rows.
    con = _duckdb_iceberg(moto)
    if con is not None:
        location = catalog.load_table("lake.mor").metadata_location
        assert [r[0] for r in con.execute(f"select id from iceberg_scan('{location}') order by id").fetchall()] == sorted(want)


def test_parquet_slicehouse_writes_is_added_to_an_iceberg_table(conn, catalog, moto):
    """The other direction: Parquet written by CREATE EXTERNAL TABLE AS and INSERT INTO is
    registered in an Iceberg table by pyiceberg (`add_files`), which reads it row for row,
    and Slicehouse reads that Iceberg table to the same rows."""
    run(conn, "create table local_src (id bigint, name varchar(20), price decimal(10,2), day date)")
    run(conn, "insert into local_src values " + ", ".join(
        f"({n}, 'n{n}', {n * 1.25:.2f}, '2024-03-01'::date + {n % 40})" for n in range(1, 251)))
    run(conn, f"create external table ice.written stored as parquet location 's3://{BUCKET}/written/' "
              f"as select id, name, price, day from local_src where id <= 200")
    run(conn, "insert into ice.written select id, name, price, day from local_src where id > 200")
    keys = [o["Key"] for o in moto.client().list_objects_v2(Bucket=BUCKET, Prefix="written/")["Contents"]]
    assert keys and all(k.endswith(".parquet") for k in keys)

    import pyarrow.parquet as pq
    first = catalog.load_table("lake.orders").io.new_input(f"s3://{BUCKET}/{keys[0]}")
    with first.open() as f:
        arrow_schema = pq.read_schema(f)
    t = catalog.create_table("lake.adopted", schema=arrow_schema, properties={"format-version": "2"})
    t.add_files([f"s3://{BUCKET}/{k}" for k in keys])
    t = catalog.load_table("lake.adopted")
    want = arrow_rows(t, ["id", "name", "price", "day"])
    assert len(want) == 250
    local = run(conn, "select id, name, price, day from local_src order by id")
    assert [tuple(r) for r in local] == want
    got = run(conn, "select id, name, price, day from ice.adopted order by id")
    assert [tuple(r) for r in got] == want


def _spoiled_table(catalog, name, rows=50):
    data = orders_arrow(1, rows)
    t = catalog.create_table(f"lake.{name}", schema=data.schema, properties={"format-version": "2"})
    t.append(data)
    t = catalog.load_table(f"lake.{name}")
    return t, t.inspect.files().to_pylist()[0]["file_path"]


def _error(conn, sql):
    with pytest.raises(psycopg2.Error) as e:
        run(conn, sql)
    assert run(conn, "select 1") == [(1,)]    # the session goes on
    return str(e.value)


def test_manifests_that_lie_are_clear_errors(conn, catalog, moto):
    s3 = moto.client()
    key = lambda address: address.removeprefix(f"s3://{BUCKET}/")   # noqa: E731

    # A data file the manifest names is gone.
    t, path = _spoiled_table(catalog, "gone")
    s3.delete_object(Bucket=BUCKET, Key=key(path))
    message = _error(conn, "select count(*) from ice.gone")
    assert "Spectrum Scan Error" in message or "S3" in message
    assert path in message, message

    # The data file is not the size the manifest says (replaced by a smaller valid file):
    # an error naming it, never rows read from the wrong place.
    import pyarrow.parquet as pq
    t, path = _spoiled_table(catalog, "resized")
    small = io.BytesIO()
    pq.write_table(orders_arrow(1, 3), small)
    s3.put_object(Bucket=BUCKET, Key=key(path), Body=small.getvalue())
    message = _error(conn, "select count(*), sum(id) from ice.resized")
    assert path in message, message

    # A data file whose columns are not the table's types (id is text).
    import pyarrow as pa
    t, path = _spoiled_table(catalog, "retyped")
    size = s3.head_object(Bucket=BUCKET, Key=key(path))["ContentLength"]
    schema = pa.schema([pa.field("id", pa.string(), metadata={b"PARQUET:field_id": b"1"})])
    body = None
    for pad in range(0, 4 * size):     # the manifest's size kept: one value padded to fit
        wrong = io.BytesIO()
        pq.write_table(pa.table({"id": pa.array(["x" * pad] + ["x"] * 49)}, schema=schema), wrong,
                       compression="NONE", use_dictionary=False, write_statistics=False)
        if len(wrong.getvalue()) == size:
            body = wrong.getvalue()
            break
    assert body is not None
    s3.put_object(Bucket=BUCKET, Key=key(path), Body=body)
    message = _error(conn, "select sum(id) from ice.retyped")
    assert path in message and "incompatible" in message.lower(), message

    # A manifest the manifest list names is gone.
    t, _ = _spoiled_table(catalog, "nomanifest")
    manifest = t.current_snapshot().manifests(t.io)[0].manifest_path
    s3.delete_object(Bucket=BUCKET, Key=key(manifest))
    message = _error(conn, "select count(*) from ice.nomanifest")
    assert manifest in message and "does not exist" in message, message

    # The metadata file the catalog points at is not JSON.
    t, _ = _spoiled_table(catalog, "badmeta")
    s3.put_object(Bucket=BUCKET, Key=key(t.metadata_location), Body=b"{not json")
    message = _error(conn, "select count(*) from ice.badmeta")
    assert t.metadata_location in message, message
