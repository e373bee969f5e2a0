# SPDX-License-Identifier: Apache-2.0
"""A compressed COPY stays within its memory whatever the compression (issue 74, item 13).

The same 600 MB of rows are loaded by the shell under --memory 256MB once as a plain
file and once gzipped (to a few MB): the gzipped load must not hold more than the plain
one. (It once held the whole inflated file: the mapping of the temporary file it inflates
into became resident whole while its ranges were planned.)"""
import gzip
import os
import subprocess

from server_support import BIN

LINE = b"1|customer|2024-01-01|1.00|comment\n"
LINES = 16_600_000          # 36 bytes a line: 598 MB
BLOCK = 100_000


def make_inputs(plain, packed):
    block = LINE * BLOCK
    with open(plain, "wb") as p, gzip.open(packed, "wb", compresslevel=1) as g:
        for _ in range(LINES // BLOCK):
            p.write(block)
            g.write(block)


def peak_kb(tmp_path, name, source, options=""):
    """Load `source` into a new database; the process's peak resident size in kB."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLICEHOUSE_")}
    sql = ("create table big (id int, name varchar(40), d date, amt decimal(10,2), c varchar(80)); "
           f"copy big from '{source}' {options}; select count(*) from big")
    proc = subprocess.Popen([BIN, "-D", str(tmp_path / name), "--memory", "256MB", "-At", "-c", sql], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = proc.stdout.read().decode()
    proc.stdout.close()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    assert proc.returncode == 0, out
    assert out.strip().splitlines()[-1] == str(LINES), out
    return usage.ru_maxrss


def test_a_gzipped_copy_holds_no_more_than_a_plain_one(tmp_path):
    plain, packed = tmp_path / "plain.tbl", tmp_path / "packed.tbl.gz"
    make_inputs(plain, packed)
    assert packed.stat().st_size < 50 << 20
    plain_peak = peak_kb(tmp_path, "plain", plain)
    packed_peak = peak_kb(tmp_path, "packed", packed, "gzip")
    # Before: 851 MB against 613 MB. Then about the same (545 against 613 in the run that
    # fixed it), both later 700-870 MB: the repeated line encodes to almost nothing, so
    # the appender carried a million rows per slice and column toward full blocks. Now
    # the carried rows are written when the budget refuses them: 177-209 MB plain against
    # 194-198 MB gzipped. The margin is for the allocator's noise.
    assert packed_peak < plain_peak * 1.15 + 30_000, (packed_peak, plain_peak)
