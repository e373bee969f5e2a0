# SPDX-License-Identifier: Apache-2.0
"""EXPLAIN ANALYZE in the interactive shell, through a real pseudo-terminal: what each
step did, and with `\\bars` the rows per slice and the blocks zone maps skipped drawn as
text bars.

Run: SLICEHOUSE_BIN=/path/to/slicehouse python3 -m pytest Tests/integration -q
"""
import re

from conftest import strip_ansi


def test_explain_analyze_and_its_bars(spawn_shell):
    sh = spawn_shell()
    sh.prompt()
    sh.run("create table ev (a int, b int) distkey(a) sortkey(b);")
    sh.run("insert into ev select x, x from generate_series(1, 1000000) g(x);")

    out = strip_ansi(sh.run("explain analyze select count(*) from ev where b <= 1000;"))
    assert re.search(r"Actual: rows=1000 time=\d+\.\d{3} ms", out), sh.tail()
    assert re.search(r"Slices: rows min=\d+ max=\d+ skew=\d+\.\d{3} by slice \[\d+,\d+,\d+,\d+\]", out), sh.tail()
    assert re.search(r"Scanned: \d+ rows read, \d+ of \d+ blocks skipped by zone maps", out), sh.tail()
    assert re.search(r"Execution: 1 row returned in \d+\.\d{3} ms", out), sh.tail()

    out = strip_ansi(sh.run("\\bars on"))
    assert "EXPLAIN ANALYZE bars are on." in out, sh.tail()
    out = strip_ansi(sh.run("explain analyze select count(*) from ev where b <= 1000;"))
    assert re.search(r"Slices: [▁▂▃▄▅▆▇█]{4} rows min=\d+ max=\d+ skew=\d+\.\d{3}\s*\r\n", out), sh.tail()
    assert re.search(r"Scanned: \d+ rows read; blocks skipped [█░]{10} \d+ of \d+", out), sh.tail()
    # Sorted by b, each slice's 250,000 rows are two blocks: zone maps skip the second.
    m = re.search(r"blocks skipped ([█░]{10}) (\d+) of (\d+)", out)
    assert m and int(m.group(2)) > 0, sh.tail()
    sh.child.sendline("\\q")
    sh.expect_exit()
