# SPDX-License-Identifier: Apache-2.0
"""moto's S3 server on a free loopback port, for the tests of COPY and UNLOAD over S3,
and the environment that points slicehouse, boto3 and the AWS CLI at it."""
import os
import socket
import subprocess
import sys
import time

import pytest

from server_support import CI

KEY_ID = "AKIDSLICEHOUSETEST"
SECRET = "s3cr3t-Key-n0t-for-logs"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Moto:
    def __init__(self):
        try:
            import moto.server  # noqa: F401
        except ImportError:
            if CI:
                raise
            pytest.skip("moto[server] is not installed (scripts/setup-system.sh installs it)")
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        # moto's server with ranged GETs that read only their range (see moto_s3_server.py).
        server = os.path.join(os.path.dirname(os.path.abspath(__file__)), "moto_s3_server.py")
        self.proc = subprocess.Popen([sys.executable, server, "-H", "127.0.0.1", "-p", str(self.port)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        end = time.time() + 30
        while time.time() < end:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError("moto's server did not start")

    def env(self):
        """What the server (and the AWS CLI) are given: the endpoint and the ambient keys."""
        return {"AWS_ENDPOINT_URL": self.url, "AWS_ACCESS_KEY_ID": KEY_ID, "AWS_SECRET_ACCESS_KEY": SECRET,
                "AWS_REGION": "us-east-1"}

    def client(self):
        import boto3
        return boto3.client("s3", endpoint_url=self.url, aws_access_key_id=KEY_ID,
                            aws_secret_access_key=SECRET, region_name="us-east-1")

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def duckdb_on(moto):
    """A DuckDB connection that reads moto's S3 through httpfs (the oracle for answers
    on the same objects)."""
    from server_support import need
    duckdb = need("duckdb")
    try:
        import duckdb_extension_httpfs
    except ImportError:
        if CI:
            raise
        pytest.skip("duckdb-extension-httpfs is not installed")
    ext = os.path.join(os.path.dirname(duckdb_extension_httpfs.__file__), "extensions", "v" + duckdb.__version__,
                       "httpfs.duckdb_extension")
    con = duckdb.connect()
    con.execute(f"LOAD '{ext}'")
    con.execute(f"CREATE SECRET (TYPE s3, KEY_ID '{KEY_ID}', SECRET '{SECRET}', REGION 'us-east-1', "
                f"ENDPOINT '127.0.0.1:{moto.port}', URL_STYLE 'path', USE_SSL false)")
    return con
