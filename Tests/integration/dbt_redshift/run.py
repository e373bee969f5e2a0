# SPDX-License-Identifier: Apache-2.0
"""Run dbt-redshift's own functional test suite (vendored in tests/functional/, from the
adapter's v1.9.0 tag) against a fresh `slicehouse serve`, and report each test's outcome.

    SLICEHOUSE_BIN=.build/.../slicehouse python3 Tests/integration/dbt_redshift/run.py [-k EXPR] [--output] [--workers N]

The suite is copied to a scratch folder (it writes target/ and logs/ beside itself) and
run by pytest with dbt-tests-adapter's `project` fixture, which makes a schema per test
class. The profile comes from REDSHIFT_TEST_* as upstream's CI sets them, over TLS (the
server's self-signed certificate, trusted through SSL_CERT_FILE); the users the
grant tests hand privileges to (DBT_TEST_USER_1..3) are created first. Tests that need
AWS (IAM authentication) are deselected here and counted as such.

Returns {test id: "passed" | "failed" | "skipped"}, the id being `file::Class::test`.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from server_support import PASSWORD, USER, Server, connect  # noqa: E402

TEST_USERS = ["dbt_test_user_1", "dbt_test_user_2", "dbt_test_user_3"]
LEFTOVER_DATABASE = "db_for_test__do_delete_if_you_see_this"

# Tests that need an AWS account: IAM users and roles get their database credentials
# from Redshift's GetClusterCredentials API, which a local server cannot answer.
NEEDS_AWS = [
    "tests/functional/test_auth_method.py::TestIAMUserMethodProfile",
    "tests/functional/test_auth_method.py::TestIAMUserMethodExplicit",
    "tests/functional/test_auth_method.py::TestIAMRoleAuthProfile",
]

PYTEST_INI = """[pytest]
filterwarnings =
    ignore::DeprecationWarning
testpaths = tests/functional
markers =
    flaky: marks tests as flaky
"""


def _deselect_args():
    return [a for t in NEEDS_AWS for a in ("--deselect", t)]


def run_suite(workdir, select=None, timeout=1800, workers=1):
    """Run the suite (or the tests matching the pytest -k expression `select`) and
    return each test's outcome; also the pytest output, for a failure message."""
    suite = os.path.join(str(workdir), "suite")
    shutil.copytree(HERE, suite, ignore=shutil.ignore_patterns("__pycache__", "run.py", "README.md"))
    with open(os.path.join(suite, "pytest.ini"), "w") as f:
        f.write(PYTEST_INI)
    server = Server(os.path.join(str(workdir), "data"))
    try:
        conn = connect(server)
        cur = conn.cursor()
        for u in TEST_USERS:
            cur.execute(f"create user {u} password disable")
        # test_autocommit.py's CREATE DATABASE of this name is expected to fail for a reason
        # other than a transaction block: on upstream's cluster the database is there from
        # an earlier run (its name asks whoever sees it to delete it), so it already exists.
        cur.execute(f"create database {LEFTOVER_DATABASE}")
        conn.close()
        env = dict(os.environ,
                   REDSHIFT_TEST_HOST=server.host, REDSHIFT_TEST_PORT=str(server.port),
                   REDSHIFT_TEST_DBNAME="dev", REDSHIFT_TEST_USER=USER, REDSHIFT_TEST_PASS=PASSWORD,
                   REDSHIFT_TEST_REGION="us-east-1",
                   # dbt-redshift asks redshift_connector for verify-ca, which trusts the
                   # certificates Python's ssl module trusts by default: here the server's
                   # own self-signed one (serve made it in the data directory).
                   SSL_CERT_FILE=os.path.join(str(workdir), "data", "server.crt"),
                   DBT_SEND_ANONYMOUS_USAGE_STATS="false", DO_NOT_TRACK="1")
        for i, u in enumerate(TEST_USERS, 1):
            env[f"DBT_TEST_USER_{i}"] = u
        junit = os.path.join(str(workdir), "junit.xml")
        argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                f"--junitxml={junit}", "-o", "junit_family=xunit2"] + _deselect_args()
        # Workers (pytest-xdist), each test class on one, as upstream's CI runs it. CI runs
        # the suite in one process: with two, a snapshot test has met a serializable
        # isolation error (1023) beside another class's statements (not yet understood).
        if workers > 1:
            argv += ["-n", str(workers), "--dist=loadscope"]
        if select:
            argv += ["-k", select]
        r = subprocess.run(argv, cwd=suite, env=env, capture_output=True, text=True, timeout=timeout)
        output = r.stdout + r.stderr
        if not os.path.exists(junit):
            raise RuntimeError("the suite did not run:\n" + output[-5000:])
        return parse_junit(junit), output
    finally:
        server.stop()


def parse_junit(path):
    outcomes = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        classname = case.get("classname", "")   # functional.adapter.test_basic.TestSimpleMaterializationsRedshift
        parts = classname.split(".")
        # the module path ends at the first part that names a class (upper-case initial)
        i = next((k for k, p in enumerate(parts) if p[:1].isupper()), len(parts))
        test_id = "/".join(parts[:i]) + ".py" + "".join("::" + p for p in parts[i:]) + "::" + case.get("name", "")
        if case.find("failure") is not None or case.find("error") is not None:
            outcome = "failed"
        elif case.find("skipped") is not None:
            outcome = "skipped"
        else:
            outcome = "passed"
        # an error in teardown after a pass is a second testcase entry: the worse one wins
        if outcomes.get(test_id) != "failed":
            outcomes[test_id] = outcome
    return outcomes


def main(argv):
    select = None
    if "-k" in argv:
        select = argv[argv.index("-k") + 1]
    workers = int(argv[argv.index("--workers") + 1]) if "--workers" in argv else 1
    with tempfile.TemporaryDirectory() as tmp:
        outcomes, output = run_suite(tmp, select, workers=workers)
    if "--output" in argv:
        print(output)
    for test_id, outcome in sorted(outcomes.items()):
        print(f"{outcome:8} {test_id}")
    counts = {o: sum(1 for v in outcomes.values() if v == o) for o in ("passed", "failed", "skipped")}
    print(f"{counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped; "
          f"{len(NEEDS_AWS)} classes need AWS and were not run")


if __name__ == "__main__":
    main(sys.argv[1:])
