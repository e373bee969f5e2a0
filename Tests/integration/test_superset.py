# SPDX-License-Identifier: Apache-2.0
"""Apache Superset 6.1.0 against `slicehouse serve`, end to end (superset/superset_flow.py).

Superset is a common BI front end for Redshift, and it reaches Slicehouse through
sqlalchemy-redshift over TLS: what it sends (catalog queries for reflection, SQL Lab's
statements and cancel, pandas' CREATE TABLE and INSERT for a CSV upload, the chart
queries with DATE_TRUNC and TO_DATE) is what a Redshift user's Superset sends. The flow
registers the database, lists schemas and tables, creates datasets on a table, a view and
a query, runs SQL Lab (rows, an error, Stop on a running query), uploads a CSV, builds a
bar chart and checks the values of its data, then has Superset render the chart in
headless Chromium and checks the PNG. Every check compares real values; the flow prints
each one, and the statements Slicehouse rejected.

It runs in Superset's own venv ($SLICEHOUSE_SUPERSET_VENV, by default
~/.cache/slicehouse/superset-venv) with Debian's chromium and chromium-driver, all
installed by scripts/setup-system.sh. About 35 s on two cores (Superset's migrations take
half of it). Skipped when they are missing, unless CI=true, where that is a failure.
"""
import os
import subprocess
import sys

import pytest

from server_support import BIN, CI

HERE = os.path.dirname(os.path.abspath(__file__))
FLOW = os.path.join(HERE, "superset", "superset_flow.py")
VENV = os.environ.get("SLICEHOUSE_SUPERSET_VENV", os.path.expanduser("~/.cache/slicehouse/superset-venv"))
SUPERSET_VERSION = "6.1.0"
TIMEOUT = 300
CHECKS = 28   # every check the flow makes, so that none goes missing unnoticed


def missing_requirement():
    """What is missing to run the flow, or None."""
    python = os.path.join(VENV, "bin", "python")
    if not os.access(python, os.X_OK):
        return f"Superset's venv {VENV} does not exist"
    r = subprocess.run([python, "-c", "import importlib.metadata as m; print(m.version('apache-superset'))"],
                       capture_output=True, text=True)
    if r.returncode != 0 or r.stdout.strip() != SUPERSET_VERSION:
        return f"the venv {VENV} does not hold apache-superset {SUPERSET_VERSION} ({(r.stdout or r.stderr).strip()[-200:]})"
    for path in ("/usr/bin/chromium", "/usr/bin/chromedriver"):
        if not os.access(path, os.X_OK):
            return f"{path} is not installed (Debian packages chromium and chromium-driver)"
    return None


def test_superset_flow(tmp_path):
    problem = missing_requirement()
    if problem:
        message = f"{problem}; scripts/setup-system.sh installs Superset and Chromium"
        if CI:
            pytest.fail(message)
        pytest.skip(message)
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLICEHOUSE_")}
    proc = subprocess.Popen([os.path.join(VENV, "bin", "python"), FLOW, os.path.abspath(BIN), str(tmp_path / "work")],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        output, _ = proc.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        proc.terminate()   # the flow stops its servers and browser on SIGTERM
        try:
            output, _ = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            output, _ = proc.communicate()
        pytest.fail(f"the Superset flow did not finish within {TIMEOUT}s\n{output[-6000:]}")
    sys.stdout.write(output[-1500:])   # the summary, shown with -s or on failure
    assert proc.returncode == 0, f"the Superset flow failed (exit {proc.returncode}):\n{output[-6000:]}"
    assert f"checks: {CHECKS} passed, 0 failed" in output, output[-3000:]
