#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Install the system packages Slicehouse builds against, when they are missing
# (Debian/Ubuntu). Safe to run repeatedly: it does nothing when all are present.
# Runs apt-get directly as root, through sudo otherwise.
set -euo pipefail

# python3-venv, chromium and chromium-driver: Apache Superset's venv and the browser that
# renders its chart screenshots (Tests/integration/test_superset.py).
# libavro-dev: Apache Avro's C library, which reads Iceberg's manifests (SlicehouseIceberg).
# default-jre-headless: the Java runtime of Apache Spark's local mode (test_lake_spark.py).
packages=(libzstd-dev libsnappy-dev libedit-dev libbz2-dev zlib1g-dev libavro-dev python3 python3-venv
          postgresql-client postgresql-15 libpostgresql-jdbc-java openssl chromium chromium-driver
          default-jre-headless)

if ! command -v swift >/dev/null 2>&1; then
    echo "setup-system: the Swift toolchain (6.1 or later) is not on PATH; see https://www.swift.org/install/" >&2
    exit 1
fi

# pyarrow and DuckDB (1.5.x) for the Parquet interop tests (they skip with a message
# when a module is missing, and fail under CI=true). Called after the apt step, which may
# have just installed python3.
python_modules() {
    command -v python3 >/dev/null 2>&1 || return 0
    if ! python3 -c "import pyarrow" >/dev/null 2>&1; then
        python3 -m pip install --quiet pyarrow >&2 \
            || echo "setup-system: could not install pyarrow; Parquet interop tests will be skipped" >&2
    fi
    # pytest and pexpect drive the shell through a pseudo-terminal (Tests/integration).
    if ! python3 -c "import pytest, pexpect" >/dev/null 2>&1; then
        python3 -m pip install --quiet pytest pexpect >&2 \
            || echo "setup-system: could not install pytest and pexpect; the shell's terminal tests cannot run" >&2
    fi
    # The server's real clients (Tests/integration/test_server_*.py). SQLAlchemy 2.0:
    # sqlalchemy-redshift 1.0's column reflection calls PGDialect._reflect_type as 2.0
    # has it (2.1 changed its arguments).
    if ! python3 -c "import psycopg2, psycopg, pg8000, redshift_connector, sqlalchemy, sqlalchemy_redshift, sys; sys.exit(0 if sqlalchemy.__version__.startswith('2.0.') else 1)" >/dev/null 2>&1; then
        python3 -m pip install --quiet psycopg2-binary 'psycopg[binary]' pg8000 redshift_connector \
            'sqlalchemy>=2,<2.1' sqlalchemy-redshift >&2 \
            || echo "setup-system: could not install the Python PostgreSQL clients; the server's client tests cannot run" >&2
    fi
    # pandas' read_sql and to_sql through sqlalchemy-redshift (test_sqlalchemy_inspector.py).
    if ! python3 -c "import pandas" >/dev/null 2>&1; then
        python3 -m pip install --quiet 'pandas>=2.2,<4' >&2 \
            || echo "setup-system: could not install pandas; its round trips cannot run" >&2
    fi
    # dbt (Tests/integration/test_dbt.py): 1.10 is the last dbt-core whose install
    # fetches nothing outside the package registry.
    if ! python3 -c "import dbt.adapters.redshift, dbt.version, sys; sys.exit(0 if dbt.version.__version__.startswith('1.10.') else 1)" >/dev/null 2>&1; then
        python3 -m pip install --quiet 'dbt-core==1.10.*' 'dbt-redshift==1.9.*' >&2 \
            || echo "setup-system: could not install dbt-core 1.10 and dbt-redshift 1.9; the dbt test will be skipped" >&2
    fi
    # dbt-redshift's own functional tests (Tests/integration/dbt_redshift) run on
    # dbt-tests-adapter's fixtures: 1.11.0 is the release of the adapter's 1.9 line. Its
    # requirements are dbt's, installed above; --no-deps keeps pip from moving dbt-core.
    if ! python3 -c "import dbt.tests.fixtures.project, freezegun" >/dev/null 2>&1; then
        python3 -m pip install --quiet --no-deps 'dbt-tests-adapter==1.11.0' 'freezegun>=1.5,<2' >&2 \
            || echo "setup-system: could not install dbt-tests-adapter; dbt-redshift's functional tests cannot run" >&2
    fi
    # dbt-redshift's install may pull scramp back to 1.4, which pg8000 refuses; every client
    # here works with 1.5.
    if ! python3 -c "import scramp, sys; from importlib.metadata import version; v = version('scramp').split('.'); sys.exit(0 if (int(v[0]), int(v[1])) >= (1, 5) else 1)" >/dev/null 2>&1; then
        python3 -m pip install --quiet 'scramp>=1.5,<1.6' >&2 \
            || echo "setup-system: could not install scramp 1.5; the pg8000 test may fail" >&2
    fi
    # A local S3-compatible server for the S3 tests (moto's), and the clients that put and
    # read objects beside COPY and UNLOAD: boto3 and the AWS CLI.
    if ! python3 -c "import moto.server, boto3" >/dev/null 2>&1; then
        python3 -m pip install --quiet 'moto[server]>=5.0,<6' boto3 >&2 \
            || echo "setup-system: could not install moto[server]; the S3 tests cannot run" >&2
    fi
    if ! command -v aws >/dev/null 2>&1; then
        python3 -m pip install --quiet awscli >&2 \
            || echo "setup-system: could not install the AWS CLI; its S3 test will be skipped" >&2
    fi
    if ! python3 -c "import duckdb, sys; sys.exit(0 if duckdb.__version__.startswith('1.5.') else 1)" >/dev/null 2>&1; then
        python3 -m pip install --quiet 'duckdb>=1.5,<1.6' >&2 \
            || echo "setup-system: could not install duckdb 1.5; Parquet interop tests will be skipped" >&2
    fi
    # DuckDB's tpcds extension (`bench tpcds` generates its data and answers with it): the
    # package's version must be DuckDB's, so it is pinned to the installed duckdb's (pip
    # would otherwise move duckdb to the extension's version).
    if ! python3 -c "import duckdb, duckdb_extension_tpcds, os, sys; sys.exit(0 if os.path.exists(os.path.join(os.path.dirname(duckdb_extension_tpcds.__file__), 'extensions', 'v' + duckdb.__version__, 'tpcds.duckdb_extension')) else 1)" >/dev/null 2>&1; then
        duckdb_version="$(python3 -c "import duckdb, sys; sys.stdout.write(duckdb.__version__)" 2>/dev/null || true)"
        if [ -n "$duckdb_version" ]; then
            # The extension is published a little after DuckDB (1.5.6 had none when this was
            # written): without one for the installed duckdb, take the newest 1.5 extension,
            # which brings its own duckdb version along.
            python3 -m pip install --quiet "duckdb-extension-tpcds==$duckdb_version" "duckdb==$duckdb_version" >&2 2>/dev/null \
                || python3 -m pip install --quiet 'duckdb-extension-tpcds>=1.5,<1.6' >&2 \
                || echo "setup-system: could not install duckdb-extension-tpcds; bench tpcds will not run" >&2
        fi
    fi
    # DuckDB's httpfs extension: DuckDB reads the Parquet UNLOAD writes to the local S3
    # server (Tests/integration/test_s3_unload.py), pinned to the installed duckdb as above.
    if ! python3 -c "import duckdb, duckdb_extension_httpfs, os, sys; sys.exit(0 if os.path.exists(os.path.join(os.path.dirname(duckdb_extension_httpfs.__file__), 'extensions', 'v' + duckdb.__version__, 'httpfs.duckdb_extension')) else 1)" >/dev/null 2>&1; then
        duckdb_version="$(python3 -c "import duckdb, sys; sys.stdout.write(duckdb.__version__)" 2>/dev/null || true)"
        if [ -n "$duckdb_version" ]; then
            python3 -m pip install --quiet "duckdb-extension-httpfs==$duckdb_version" >&2 \
                || echo "setup-system: could not install duckdb-extension-httpfs; DuckDB will not read UNLOAD's S3 files" >&2
        fi
    fi
    # Apache Iceberg tables in moto's Glue (Tests/integration/test_lake_iceberg.py): pyiceberg
    # writes them (pyiceberg-core for its partition transforms); DuckDB's iceberg extension,
    # with the avro extension it loads manifests with, is the oracle. Pinned to the installed
    # duckdb as above.
    if ! python3 -c "import pyiceberg.catalog.glue, pyiceberg_core, sys; from importlib.metadata import version; sys.exit(0 if version('pyiceberg').startswith('0.12.') else 1)" >/dev/null 2>&1; then
        python3 -m pip install --quiet 'pyiceberg[glue,pyarrow,pyiceberg-core]==0.12.*' >&2 \
            || echo "setup-system: could not install pyiceberg; the Iceberg tests cannot run" >&2
    fi
    for extension in iceberg avro; do
        if ! python3 -c "import duckdb, duckdb_extension_$extension, os, sys; sys.exit(0 if os.path.exists(os.path.join(os.path.dirname(duckdb_extension_$extension.__file__), 'extensions', 'v' + duckdb.__version__, '$extension.duckdb_extension')) else 1)" >/dev/null 2>&1; then
            duckdb_version="$(python3 -c "import duckdb, sys; sys.stdout.write(duckdb.__version__)" 2>/dev/null || true)"
            if [ -n "$duckdb_version" ]; then
                python3 -m pip install --quiet "duckdb-extension-$extension==$duckdb_version" >&2 \
                    || echo "setup-system: could not install duckdb-extension-$extension; DuckDB will not check the Iceberg answers" >&2
            fi
        fi
    done
    # Apache Spark in local mode (Tests/integration/test_lake_spark.py) on the Java runtime above.
    if ! python3 -c "import pyspark, sys; sys.exit(0 if pyspark.__version__.startswith('4.') else 1)" >/dev/null 2>&1; then
        python3 -m pip install --quiet 'pyspark>=4,<5' >&2 \
            || echo "setup-system: could not install pyspark; the Spark test cannot run" >&2
    fi
    # dlt 1.31 with its Redshift destination and S3 staging (Tests/integration/test_s3_dlt.py)
    # in a venv of its own: it moves botocore, sqlglot and setuptools to versions of its own.
    dlt_venv="${SLICEHOUSE_DLT_VENV:-$HOME/.cache/slicehouse/dlt-venv}"
    if ! "$dlt_venv/bin/python" -c "import dlt, s3fs, psycopg2, pyarrow, sys; sys.exit(0 if dlt.__version__ == '1.31.0' else 1)" >/dev/null 2>&1; then
        { python3 -m venv "$dlt_venv" \
            && "$dlt_venv/bin/python" -m pip install --quiet 'dlt[redshift,s3]==1.31.0' psycopg2-binary pyarrow >&2; } \
            || echo "setup-system: could not install dlt in $dlt_venv; the dlt test cannot run" >&2
    fi
    # Apache Superset 6.1.0 (Tests/integration/test_superset.py) in a venv of its own: it
    # requires SQLAlchemy 1.4 and the clients above 2.0. Its PyPI package has three packaging
    # bugs, hence the last three: rich and cachetools are imported but not declared (every
    # `superset` command prints a traceback without rich; without cachetools the Redshift
    # engine spec does not load), and flask-caching is declared >=2.1,<3 but 2.4 and later
    # pass Superset's metadata cache an argument it does not take (TypeError at app start).
    superset_venv="${SLICEHOUSE_SUPERSET_VENV:-$HOME/.cache/slicehouse/superset-venv}"
    if ! "$superset_venv/bin/python" -c "import sqlalchemy_redshift, psycopg2, cachetools, rich, sys; from importlib.metadata import version; sys.exit(0 if version('apache-superset') == '6.1.0' and version('flask-caching') == '2.3.1' else 1)" >/dev/null 2>&1; then
        { python3 -m venv "$superset_venv" \
            && "$superset_venv/bin/python" -m pip install --quiet --upgrade pip \
            && "$superset_venv/bin/python" -m pip install --quiet 'apache-superset==6.1.0' sqlalchemy-redshift \
                psycopg2-binary rich cachetools 'flask-caching==2.3.1'; } >&2 \
            || echo "setup-system: could not install Apache Superset 6.1.0 in $superset_venv; the Superset test cannot run" >&2
    fi
}

if ! command -v dpkg >/dev/null 2>&1; then
    echo "setup-system: no dpkg here; make sure these are installed: ${packages[*]}" >&2
    python_modules
    exit 0
fi

missing=()
for package in "${packages[@]}"; do
    if ! dpkg -s "$package" 2>/dev/null | grep -q '^Status: install ok installed'; then
        missing+=("$package")
    fi
done
if [ ${#missing[@]} -eq 0 ]; then
    python_modules
    exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
    run=()
elif command -v sudo >/dev/null 2>&1; then
    run=(sudo)
else
    echo "setup-system: missing packages ${missing[*]}, and neither root nor sudo is available to install them" >&2
    exit 1
fi

echo "setup-system: installing ${missing[*]}" >&2
${run[@]+"${run[@]}"} apt-get update >&2
${run[@]+"${run[@]}"} env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" >&2
python_modules
