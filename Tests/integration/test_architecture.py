# SPDX-License-Identifier: Apache-2.0
"""The map cannot drift: Package.swift, the sources' imports and docs/ARCHITECTURE.md's
layer table agree (scripts/check_architecture.py), and the checker itself catches what it
is there to catch."""
import os
import re
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHECK = os.path.join(ROOT, "scripts", "check_architecture.py")


def run(root):
    return subprocess.run([sys.executable, os.path.join(root, "scripts", "check_architecture.py")],
                          capture_output=True, text=True)


def test_the_tree_agrees_with_its_map():
    r = run(ROOT)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "dependencies one way" in r.stdout


@pytest.fixture
def copy(tmp_path):
    """A copy of the parts of the tree the checker reads (no .build)."""
    dst = tmp_path / "tree"
    dst.mkdir()
    for name in ("Package.swift", "Package.resolved"):
        if os.path.exists(os.path.join(ROOT, name)):
            shutil.copy(os.path.join(ROOT, name), dst / name)
    for name in ("Sources", "Tests", "docs", "scripts", "benchmarks"):
        shutil.copytree(os.path.join(ROOT, name), dst / name,
                        ignore=shutil.ignore_patterns(".build", "FuzzCorpus", "sqlite", "*.parquet"))
    return dst


def test_an_undeclared_import_fails(copy):
    path = copy / "Sources" / "SlicehouseExecution" / "QueryExecutor.swift"
    path.write_text(path.read_text().replace("import SlicehouseTypes\n", "import SlicehouseTypes\nimport SlicehouseEngine\n", 1))
    r = run(str(copy))
    assert r.returncode == 1
    assert "SlicehouseExecution imports SlicehouseEngine" in r.stdout


def test_a_dependency_pointing_up_fails(copy):
    pkg = copy / "Package.swift"
    text = pkg.read_text()
    text = text.replace('.target(name: "SlicehouseCatalog", dependencies: ["SlicehouseTypes"])',
                        '.target(name: "SlicehouseCatalog", dependencies: ["SlicehouseTypes", "SlicehouseStorage"])')
    pkg.write_text(text)
    r = run(str(copy))
    assert r.returncode == 1
    assert re.search(r"SlicehouseCatalog \(layer \d\) depends on SlicehouseStorage \(layer \d\)", r.stdout), r.stdout


def test_execution_may_not_see_the_planner(copy):
    """The executor consumes plans through SlicehousePlan; the binder and optimizer stay out of reach."""
    pkg = copy / "Package.swift"
    pkg.write_text(pkg.read_text().replace('"SlicehousePlan", "SlicehouseFunctions", "CPrefetch"]',
                                           '"SlicehousePlan", "SlicehouseFunctions", "SlicehousePlanner", "CPrefetch"]', 1))
    path = copy / "Sources" / "SlicehouseExecution" / "QueryExecutor.swift"
    path.write_text(path.read_text().replace("import SlicehouseTypes\n", "import SlicehouseTypes\nimport SlicehousePlanner\n", 1))
    r = run(str(copy))
    assert r.returncode == 1
    assert re.search(r"SlicehouseExecution \(layer (\d)\) depends on SlicehousePlanner \(layer \1\)", r.stdout), r.stdout


def test_a_target_missing_from_the_map_fails(copy):
    doc = copy / "docs" / "ARCHITECTURE.md"
    doc.write_text(re.sub(r"\| (\d) \| `SlicehouseFuzz` \|", r"| \1 | |", doc.read_text()))
    r = run(str(copy))
    assert r.returncode == 1
    assert "SlicehouseFuzz: a target of Package.swift without a row" in r.stdout


def test_a_file_without_its_license_line_fails(copy):
    path = copy / "Sources" / "SlicehouseTypes" / "Vector.swift"
    path.write_text("\n".join(path.read_text().split("\n")[1:]))
    r = run(str(copy))
    assert r.returncode == 1
    assert "Sources/SlicehouseTypes/Vector.swift: no SPDX-License-Identifier line" in r.stdout
