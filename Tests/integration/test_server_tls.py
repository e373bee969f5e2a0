# SPDX-License-Identifier: Apache-2.0
"""TLS without ceremony (issue 77): `serve -D DIR` makes a self-signed certificate in the
data directory on its first start, keeps it, and clients that verify certificates connect
by trusting it — psycopg2 and psql with verify-full, redshift_connector with its default
verify-ca through SSL_CERT_FILE. `--no-tls` offers none.
"""
import os
import shutil
import stat
import subprocess

import pytest

from server_support import CI, PASSWORD, USER, Server, need


def test_self_signed_certificate_is_made_kept_and_verified(tmp_path, monkeypatch):
    psycopg2 = need("psycopg2")
    data = tmp_path / "data"
    s = Server(data)
    try:
        cert, key = data / "server.crt", data / "server.key"
        assert cert.exists() and key.exists()
        assert stat.S_IMODE(key.stat().st_mode) == 0o600, "the key is readable by its owner alone"
        assert "PRIVATE KEY" not in cert.read_text()
        first = cert.read_bytes()
        # Verified for its name and its address, not merely encrypted.
        for host in ("localhost", "127.0.0.1"):
            conn = psycopg2.connect(host=host, port=s.port, user=USER, password=PASSWORD, dbname="dev",
                                    sslmode="verify-full", sslrootcert=str(cert))
            assert conn.info.ssl_in_use
            cur = conn.cursor()
            cur.execute("select 7")
            assert cur.fetchone()[0] == 7
            conn.close()
        # A client that does not trust it is refused, not silently downgraded.
        with pytest.raises(psycopg2.OperationalError):
            psycopg2.connect(host="localhost", port=s.port, user=USER, password=PASSWORD, dbname="dev",
                             sslmode="verify-full", sslrootcert=os.devnull)
        # redshift_connector verifies (verify-ca) by default: SSL_CERT_FILE makes it trust the server.
        rc = need("redshift_connector")
        monkeypatch.setenv("SSL_CERT_FILE", str(cert))
        conn = rc.connect(host=s.host, port=s.port, user=USER, password=PASSWORD, database="dev")
        cur = conn.cursor()
        cur.execute("select 8")
        assert cur.fetchone()[0] == 8
        conn.close()
        if shutil.which("psql"):
            r = subprocess.run(["psql", "-X", "-A", "-t", "-c", "select 9",
                                f"host=localhost port={s.port} user={USER} dbname=dev sslmode=verify-full "
                                f"sslrootcert={cert}"],
                               capture_output=True, text=True, env=dict(os.environ, PGPASSWORD=PASSWORD), timeout=60)
            assert r.returncode == 0 and r.stdout.strip() == "9", r.stdout + r.stderr
        elif CI:
            raise AssertionError("psql is missing")
    finally:
        s.stop()
    # The next start keeps the certificate clients were told to trust.
    s = Server(data)
    try:
        assert (data / "server.crt").read_bytes() == first
        conn = psycopg2.connect(host="localhost", port=s.port, user=USER, password=PASSWORD, dbname="dev",
                                sslmode="verify-full", sslrootcert=str(data / "server.crt"))
        conn.close()
    finally:
        s.stop()


def test_no_tls(tmp_path):
    psycopg2 = need("psycopg2")
    s = Server(tmp_path / "data", args=["--no-tls"])
    try:
        assert not (tmp_path / "data" / "server.crt").exists()
        with pytest.raises(psycopg2.OperationalError):
            psycopg2.connect(host=s.host, port=s.port, user=USER, password=PASSWORD, dbname="dev", sslmode="require")
        conn = psycopg2.connect(host=s.host, port=s.port, user=USER, password=PASSWORD, dbname="dev", sslmode="prefer")
        assert not conn.info.ssl_in_use
        conn.close()
    finally:
        s.stop()
