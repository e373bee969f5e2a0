#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The map cannot drift: checks the targets, their dependencies and their imports
against the layers docs/ARCHITECTURE.md documents.

    python3 scripts/check_architecture.py        # prints every violation; exit 1 if any

Reads three things and makes them agree:
  1. docs/ARCHITECTURE.md's layer table (between the `layers:begin` and `layers:end`
     markers): each target of Sources/ with its layer number;
  2. Package.swift, through `swift package dump-package`: each target's declared
     dependencies;
  3. the sources: each target's `import` lines (every .swift file under its directory).

Rules:
  - every target of Package.swift has a row in the table, and every row is a target;
  - a target depends only on targets of a lower layer (so dependencies point one way);
  - a target imports exactly the project modules it declares: nothing it does not
    declare (a transitive import works in SwiftPM, and hides a dependency), and it
    declares nothing it never imports (test targets may declare what their tests
    reach through @testable helpers, but must import what they declare somewhere);
  - Package.swift's header repeats the table's order (its comment names each layer);
  - every source file carries the SPDX line of the project's license.
"""
import json, os, re, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def layer_table():
    text = open(os.path.join(ROOT, "docs", "ARCHITECTURE.md"), encoding="utf-8").read()
    m = re.search(r"<!-- layers:begin -->(.*?)<!-- layers:end -->", text, re.S)
    if not m:
        raise SystemExit("docs/ARCHITECTURE.md has no layer table (<!-- layers:begin --> ... <!-- layers:end -->)")
    layers = {}
    for line in m.group(1).splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 2 or not cells[0].isdigit():
            continue
        for name in re.findall(r"`([^`]+)`", cells[1]):
            layers[name] = int(cells[0])
    return layers


def package():
    out = subprocess.run(["swift", "package", "dump-package"], cwd=ROOT, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def dependency_names(target):
    names = []
    for d in target.get("dependencies", []):
        for kind in ("byName", "target"):
            if kind in d:
                names.append(d[kind][0])
        if "product" in d:
            names.append(d["product"][0])
    return names


def imports(directory):
    found = {}
    for base, _, files in os.walk(directory):
        for f in files:
            if not f.endswith(".swift"):
                continue
            path = os.path.join(base, f)
            for line in open(path, encoding="utf-8"):
                m = re.match(r"\s*(?:@testable\s+|@_implementationOnly\s+|internal\s+|public\s+)?import\s+(?:struct\s+|class\s+|enum\s+|func\s+)?([A-Za-z_][A-Za-z0-9_]*)", line)
                if m:
                    found.setdefault(m.group(1), path)
    return found


def main():
    problems = []
    layers = layer_table()
    pkg = package()
    targets = {t["name"]: t for t in pkg["targets"]}
    ours = set(targets)
    products = {"Crypto", "NIOCore", "NIOPosix", "NIOSSL", "NIOEmbedded", "PostgresNIO", "ArgumentParser"}

    for name, t in targets.items():
        if t["type"] == "test":
            continue
        if name not in layers:
            problems.append(f"{name}: a target of Package.swift without a row in docs/ARCHITECTURE.md's layer table")
    for name in layers:
        if name not in targets:
            problems.append(f"{name}: in docs/ARCHITECTURE.md's layer table but not a target of Package.swift")

    for name, t in sorted(targets.items()):
        declared = dependency_names(t)
        is_test = t["type"] == "test"
        if not is_test and name in layers:
            for d in declared:
                if d in layers and layers[d] >= layers[name]:
                    problems.append(f"{name} (layer {layers[name]}) depends on {d} (layer {layers[d]}): "
                                    "dependencies must point to a lower layer")
        if t["type"] == "system":
            continue
        directory = os.path.join(ROOT, t.get("path") or os.path.join("Tests" if is_test else "Sources", name))
        used = imports(directory)
        project_used = {m: p for m, p in used.items() if m in ours or m in products}
        for m, path in sorted(project_used.items()):
            if m not in declared:
                problems.append(f"{name} imports {m} ({os.path.relpath(path, ROOT)}) without declaring it in Package.swift")
        for d in declared:
            if d not in used:
                problems.append(f"{name} declares {d} in Package.swift and never imports it")

    header = open(os.path.join(ROOT, "Package.swift"), encoding="utf-8").read().split("let package", 1)[0]
    for name in layers:
        short = name.replace("Slicehouse", "") if name.startswith("Slicehouse") else name
        if not re.search(r"\b" + re.escape(short) + r"\b", header):
            problems.append(f"Package.swift's header does not name {name} (layer {layers[name]})")

    for base in ("Sources", "Tests", "scripts", "benchmarks"):
        for b, _, files in os.walk(os.path.join(ROOT, base)):
            # dbt-redshift's own tests, vendored unchanged (Apache-2.0, its LICENSE.md beside them).
            if "/.build" in b or "FuzzCorpus" in b or "/Fixtures" in b or "/dbt_redshift/tests" in b:
                continue
            for f in files:
                if os.path.splitext(f)[1] in (".swift", ".py", ".sh", ".h"):
                    path = os.path.join(b, f)
                    with open(path, encoding="utf-8", errors="replace") as fh:
                        head = fh.read(400)
                    if "SPDX-License-Identifier: Apache-2.0" not in head:
                        problems.append(f"{os.path.relpath(path, ROOT)}: no SPDX-License-Identifier line at its top")

    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} problem(s): fix the code, Package.swift or docs/ARCHITECTURE.md's layer table")
        return 1
    print(f"architecture: {len(layers)} targets in {len(set(layers.values()))} layers, dependencies one way, "
          "imports declared, every file licensed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
