#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Run dbt-utils' and dbt-audit-helper's integration_tests projects against Slicehouse.

    python3 Tests/integration/dbt_packages/run.py --bin .build/release/slicehouse [--project dbt-utils]

For each project: starts `slicehouse serve` on a fresh data directory (with
`ALTER USER awsuser SET enable_case_sensitive_identifier TO true`, as upstream's Redshift
cluster has the parameter on), copies the
vendored package (and, for audit-helper, the vendored dbt-utils it depends on) to a
scratch folder, writes a Redshift profile (target `redshift`, as upstream's own
profiles.yml names it), and runs what upstream's CI runs for Redshift:

    dbt deps
    dbt debug --target redshift                           (the connection check of their tox.ini)
    dbt seed --full-refresh
    dbt run  [--exclude tag:skip+ tag:temporary_skip+]    (audit-helper's excludes)
    dbt test [--exclude tag:skip+ tag:temporary_skip+]

(dbt-utils' run_test.sh runs `dbt build --full-refresh` instead of the three; `--build`
does that. It passes exactly when the three pass, but a failing node there skips
everything downstream of it, so the three steps say more about each node.)

It then prints one line a node (seeds, models, data tests and unit tests), PASS, FAIL or
ERROR with dbt's message, from target/run_results.json of each step, and the counts.
test_dbt_packages.py drives the same functions. No network: dbt's version check and
anonymous statistics are off, and every package is `local:`.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # Tests/integration: server_support

EXCLUDE_SKIPS = ["--exclude", "tag:skip+", "tag:temporary_skip+"]


@dataclass
class Project:
    name: str            # what --project takes
    root: str            # the vendored package root, under this folder
    schema: str          # upstream's Redshift schema name
    exclude: list        # upstream CI's --exclude for Redshift (dbt run / dbt test)
    threads: int         # dbt threads: what upstream's profiles.yml gives its redshift target
    needs: list = field(default_factory=list)   # other vendored packages, as local: packages


PROJECTS = {
    "dbt-utils": Project("dbt-utils", "dbt-utils", "dbt_utils_integration_tests_redshift", [], 5),
    "audit-helper": Project("audit-helper", "dbt-audit-helper", "audit_helper_integration_tests_redshift",
                            EXCLUDE_SKIPS, 8, needs=["dbt-utils"]),
}

PASSING = {"success", "pass"}   # dbt's statuses of a node that did what it should
KINDS = ("seed", "model", "test", "unit_test")


@dataclass
class NodeResult:
    unique_id: str
    kind: str          # seed, model, test, unit_test
    name: str
    status: str        # dbt's: success, pass, fail, warn, error, skipped
    message: str = ""
    step: str = ""     # the dbt command that ran it
    failures: int = 0  # rows a failing test found
    compiled: str = ""  # path of the compiled SQL, relative to the project

    @property
    def ok(self):
        return self.status in PASSING

    @property
    def key(self):
        """`kind.name`: how EXPECTED_PASS names a node."""
        return f"{self.kind}.{self.name}"


@dataclass
class StepResult:
    argv: list
    returncode: int
    seconds: float
    output: str
    nodes_reported: bool = False   # whether its run_results.json named any node


@dataclass
class ProjectRun:
    project: Project
    workdir: str
    project_dir: str = ""
    steps: list = field(default_factory=list)
    nodes: dict = field(default_factory=dict)     # key -> NodeResult, in run order
    rerun: dict = field(default_factory=dict)     # the same for the second pass (--rerun), if any
    server_alive: bool = True
    seconds: float = 0.0

    def passed(self, kind=None):
        return [n for n in self.nodes.values() if n.ok and (kind is None or n.kind == kind)]

    def failed(self, kind=None):
        return [n for n in self.nodes.values() if not n.ok and (kind is None or n.kind == kind)]

    def step_failures(self):
        """Steps that failed without a node to blame (dbt deps, a parse or compile error)."""
        return [s for s in self.steps if s.returncode != 0 and not s.nodes_reported]


# --------------------------------------------------------------------------------------
# A scratch copy of a project
# --------------------------------------------------------------------------------------
def profile_yaml(project, port, user, password, threads):
    return (
        "integration_tests:\n"
        "  target: redshift\n"
        "  outputs:\n"
        "    redshift:\n"
        "      type: redshift\n"
        "      host: 127.0.0.1\n"
        f"      port: {port}\n"
        f"      user: {json.dumps(user)}\n"
        f"      password: {json.dumps(password)}\n"
        "      dbname: dev\n"
        f"      schema: {project.schema}\n"
        f"      threads: {threads}\n"
        "      sslmode: disable\n"
        "      connect_timeout: 10\n"
        "      retries: 0\n")


def prepare(project, workdir):
    """Copies the package roots to workdir; returns the integration_tests folder there.
    A package that another one needs from dbt hub (audit-helper's dbt_utils) is pointed at
    the vendored copy by rewriting packages.yml in the copy."""
    ignore = shutil.ignore_patterns("target", "logs", "dbt_packages", "dbt_internal_packages")
    for root in [project.root] + [PROJECTS[n].root for n in project.needs]:
        dest = os.path.join(workdir, root)
        if not os.path.exists(dest):
            shutil.copytree(os.path.join(HERE, root), dest, ignore=ignore)
    if project.needs:
        with open(os.path.join(workdir, project.root, "packages.yml"), "w") as f:
            f.write("packages:\n")
            for n in project.needs:
                f.write(f"  - local: {os.path.join(workdir, PROJECTS[n].root)}\n")
    project_dir = os.path.join(workdir, project.root, "integration_tests")
    lock = os.path.join(project_dir, "package-lock.yml")
    if os.path.exists(lock):
        os.remove(lock)
    return project_dir


# --------------------------------------------------------------------------------------
# Running dbt
# --------------------------------------------------------------------------------------
def dbt_env():
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DBT_", "SLICEHOUSE_"))}
    env.update(DBT_SEND_ANONYMOUS_USAGE_STATS="false", DO_NOT_TRACK="1", DBT_VERSION_CHECK="false",
               DBT_USE_COLORS="false", DBT_PARTIAL_PARSE="false")
    return env


def run_dbt(dbt, project_dir, args, timeout=900):
    argv = [dbt, "--no-use-colors", *args, "--profiles-dir", project_dir, "--project-dir", project_dir]
    t0 = time.time()
    try:
        r = subprocess.run(argv, cwd=project_dir, env=dbt_env(), capture_output=True, text=True, timeout=timeout)
        rc, out = r.returncode, r.stdout + r.stderr
    except subprocess.TimeoutExpired as exc:
        rc, out = -1, f"timed out after {timeout}s\n{exc.stdout or ''}"
    return StepResult(args, rc, time.time() - t0, out)


def read_run_results(project_dir, step_name):
    path = os.path.join(project_dir, "target", "run_results.json")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        data = json.load(f)
    out = []
    for r in data.get("results", []):
        uid = r["unique_id"]
        kind = uid.split(".", 1)[0]
        name = uid.split(".")[2] if kind != "unit_test" else ".".join(uid.split(".")[2:])
        message = (r.get("message") or "").strip()
        out.append(NodeResult(uid, kind, name, r["status"], message, step_name, r.get("failures") or 0))
    os.rename(path, path.replace("run_results.json", f"run_results_{step_name}.json"))
    return out


def compiled_paths(project_dir):
    """unique_id -> the compiled SQL's path relative to the project (target/compiled/...),
    from the manifest the last dbt command wrote."""
    path = os.path.join(project_dir, "target", "manifest.json")
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        manifest = json.load(f)
    out = {}
    for uid, node in list(manifest.get("nodes", {}).items()) + list(manifest.get("unit_tests", {}).items()):
        if node.get("compiled_path"):
            out[uid] = node["compiled_path"]
        elif node.get("original_file_path") and node.get("resource_type") in ("model", "seed"):
            out[uid] = os.path.join("target", "compiled", node.get("package_name", ""), node["original_file_path"])
    return out


def steps_for(project, build=False):
    """(name, dbt arguments) of the steps after `dbt deps` and `dbt debug`."""
    if build:
        return [("build", ["build", "--full-refresh", *project.exclude])]
    return [("seed", ["seed", "--full-refresh"]),
            ("run", ["run", *project.exclude]),
            ("test", ["test", *project.exclude])]


def run_project(name, bin_path=None, workdir=None, dbt=None, build=False, threads=None, log=None, rerun=False):
    """One project against a fresh server: returns its ProjectRun. With rerun, the steps
    run a second time on the same database, as they do when a schema is kept between CI
    runs (audit-helper's profiles.yml names a fixed schema) or a user runs dbt again."""
    import server_support
    if bin_path:
        server_support.BIN = bin_path
    project = PROJECTS[name]
    dbt = dbt or shutil.which("dbt")
    t0 = time.time()
    run = ProjectRun(project, workdir)
    run.project_dir = prepare(project, workdir)
    server = server_support.Server(os.path.join(workdir, f"data-{name}"))
    try:
        # Upstream's Redshift CI cluster runs with enable_case_sensitive_identifier on in
        # its parameter group (dbt-utils PR #792); a user's own default stands in for it.
        conn = server_support.connect(server)
        server_support.run(conn, f"alter user {server_support.USER} set enable_case_sensitive_identifier to true")
        conn.close()
        with open(os.path.join(run.project_dir, "profiles.yml"), "w") as f:
            f.write(profile_yaml(project, server.port, server_support.USER, server_support.PASSWORD,
                                 threads or project.threads))
        for step_name, args in [("deps", ["deps"]), ("debug", ["debug", "--target", "redshift"])]:
            step = run_dbt(dbt, run.project_dir, args)
            run.steps.append(step)
            if log:
                log(f"[{name}] dbt {' '.join(args)}: exit {step.returncode} ({step.seconds:.1f}s)")
            if step.returncode != 0 and step_name == "deps":
                return run
        for results in [run.nodes, run.rerun][:2 if rerun else 1]:
            for step_name, args in steps_for(project, build):
                step = run_dbt(dbt, run.project_dir, args)
                run.steps.append(step)
                nodes = read_run_results(run.project_dir, step_name + ("_rerun" if results is run.rerun else ""))
                step.nodes_reported = bool(nodes)
                paths = compiled_paths(run.project_dir)
                for n in nodes:
                    n.compiled = paths.get(n.unique_id, "")
                    results[n.key] = n
                if log:
                    log(f"[{name}] dbt {' '.join(args)}: exit {step.returncode} ({step.seconds:.1f}s, {len(nodes)} nodes)")
    finally:
        run.server_alive = server.alive()
        server.stop()
        run.seconds = time.time() - t0
    return run


def run_projects(names, bin_path=None, workdir=None, dbt=None, build=False, threads=None, log=None, rerun=False):
    """Several projects, one after the other, each against its own server, each in its own
    folder under workdir. (Both at once took as long on two cores: dbt's Python is the most
    of the time.) Returns {name: ProjectRun}."""
    runs = {}
    for name in names:
        d = os.path.join(workdir, name)
        os.makedirs(d, exist_ok=True)
        runs[name] = run_project(name, bin_path, d, dbt, build, threads, log, rerun)
    return runs


def one_line(text, limit=400):
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + " ..."


def report_nodes(nodes, out, messages=True):
    for n in nodes.values():
        word = "PASS" if n.ok else {"fail": "FAIL", "error": "ERROR", "skipped": "SKIP", "warn": "WARN"}.get(
            n.status, n.status.upper())
        line = f"{word} {n.key}"
        if not n.ok and messages:
            line += f": {one_line(n.message)}" + (f"\n     ({n.compiled})" if n.compiled else "")
        out(line)


def counts_line(nodes):
    parts = []
    for k in KINDS:
        of_kind = [n for n in nodes.values() if n.kind == k]
        if of_kind:
            parts.append(f"{k}s {sum(1 for n in of_kind if n.ok)}/{len(of_kind)}")
    return ", ".join(parts) + f"; {sum(1 for n in nodes.values() if n.ok)} of {len(nodes)} nodes pass"


def report(run, out=print, messages=True):
    out(f"== {run.project.name}")
    for s in run.step_failures():
        out(f"STEP FAILED: dbt {' '.join(s.argv)} (exit {s.returncode})\n{s.output[-3000:]}")
    report_nodes(run.nodes, out, messages)
    if not run.server_alive:
        out("SERVER DIED")
    out(f"{run.project.name}: {counts_line(run.nodes)} ({run.seconds:.0f}s)")
    if run.rerun:
        out(f"== {run.project.name}, second pass on the same database")
        report_nodes({k: n for k, n in run.rerun.items() if not n.ok}, out, messages)
        out(f"{run.project.name}, second pass: {counts_line(run.rerun)}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default=os.environ.get("SLICEHOUSE_BIN", "/tmp/shbin/slicehouse"),
                    help="the slicehouse binary (default $SLICEHOUSE_BIN)")
    ap.add_argument("--project", action="append", choices=sorted(PROJECTS),
                    help="run only this project (repeatable; default both)")
    ap.add_argument("--keep", metavar="DIR",
                    help="work in DIR and keep it (the projects' copies with target/ and logs/, the data directories)")
    ap.add_argument("--build", action="store_true",
                    help="run `dbt build --full-refresh` (dbt-utils' run_test.sh) instead of seed, run, test")
    ap.add_argument("--threads", type=int, help="dbt threads (default upstream's: 5 for dbt-utils, 8 for audit-helper)")
    ap.add_argument("--rerun", action="store_true",
                    help="then run the steps a second time on the same database (prints that pass's failures)")
    ap.add_argument("--json", metavar="FILE", help="write every node's result to FILE")
    args = ap.parse_args(argv)
    dbt = shutil.which("dbt")
    if dbt is None:
        print("dbt is not installed (scripts/setup-system.sh installs dbt-core 1.10 and dbt-redshift 1.9)")
        return 2
    workdir = args.keep or tempfile.mkdtemp(prefix="dbtpkgs-")
    os.makedirs(workdir, exist_ok=True)
    try:
        results = run_projects(args.project or list(PROJECTS), args.bin, workdir, dbt, args.build, args.threads,
                               log=lambda s: print(s, file=sys.stderr, flush=True), rerun=args.rerun)
        for run in results.values():
            report(run)
        if args.json:
            with open(args.json, "w") as f:
                json.dump({name: {"nodes": [vars(n) for n in run.nodes.values()],
                                  "rerun": [vars(n) for n in run.rerun.values()]}
                           for name, run in results.items()}, f, indent=1)
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
