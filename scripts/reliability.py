#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Reliability battery for a slicehouse binary, run by hand.

    python3 scripts/reliability.py --bin PATH [--rounds N] [--seed S] [--quick]
                                   [--timeout SEC] [--show N] [--keep-failures DIR]

Three categories, repeated for --rounds rounds (default 5; --quick: 1 round with
fewer trials):

1. kill    SIGKILL `slicehouse -D DIR -c STATEMENT` (COPY, DELETE, UPDATE, CREATE
           TABLE AS, INSERT ... SELECT) after a random delay spread over the
           statement's measured duration; the reopened table must be exactly the
           before- or the after-state, opening must succeed, and no file under
           slice*/ may be left that the manifest does not name (nor a named one
           missing).
2. damage  Flip a bit, flip a byte, truncate to a random length, truncate to zero
           or delete manifest.json, cluster.json, a block file (.blk), a
           deleted-row file (.dbm, or .del before checksums) or LOCK of a pristine two-table directory; then
           query both tables. Each query must return exactly the right answer or
           fail with a clear error (non-zero exit, an `ERROR:` / `slicehouse:
           error:` line) -- no crash, no hang, no silently wrong answer -- and
           opening must not delete any file that was there.
3. misc    Lock held by another process, stale lock after kill -9, read-only data
           directory, file-size limit (EFBIG) during COPY, stray files, a data
           "directory" that is a file, a missing cluster.json on a non-default
           layout, ...

Prints a table of passed/failed per category, figures (how often an error names
the damaged file, how often the undamaged table stays queryable, ...), the
failures with everything needed to reproduce them, and a last line
`N passed, N failed`. Exit status 1 if anything failed. Deterministic for a given
--seed (except for what timing decides: where exactly a kill lands).
Needs only Python 3.8+ (standard library) and Linux.
"""
import argparse
import collections
import json
import os
import random
import re
import resource
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

CLEAR_ERROR = re.compile(r"^(ERROR:\s|FATAL:\s|slicehouse: error:\s)", re.M)
BLK = re.compile(r"^slice\d+/t(\d+)_g\d+\.blk$")
DEL = re.compile(r"^slice\d+/t(\d+)_g\d+\.(del|dbm)$")  # .dbm: checksummed; .del: before checksums


# --------------------------------------------------------------------------------
# running the binary


class Result:
    def __init__(self, cmd, rc, out, err, elapsed, timed_out=False):
        self.cmd, self.rc, self.out, self.err = cmd, rc, out, err
        self.elapsed, self.timed_out = elapsed, timed_out

    @property
    def crashed(self):
        return self.rc is not None and (self.rc < 0 or self.rc >= 128)

    @property
    def clear_error(self):
        return self.rc not in (None, 0) and not self.crashed and bool(CLEAR_ERROR.search(self.err))

    def status(self):
        if self.timed_out:
            return "hang (timeout)"
        if self.rc is not None and self.rc < 0:
            return "signal %s" % signal.Signals(-self.rc).name if -self.rc in signal.valid_signals() else "signal %d" % -self.rc
        return "exit %s" % self.rc

    def excerpt(self, n=400):
        parts = []
        if self.out:
            o = self.out if len(self.out) <= n else self.out[:n] + "...[%d chars]" % len(self.out)
            parts.append("stdout: " + o.rstrip().replace("\n", "\n        "))
        if self.err:
            e = self.err if len(self.err) <= n else "..." + self.err[-n:]
            parts.append("stderr: " + e.rstrip().replace("\n", "\n        "))
        return "\n".join(parts) or "(no output)"


class Runner:
    def __init__(self, binary, home, timeout):
        self.binary = binary
        self.timeout = timeout
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("SLICEHOUSE_")}
        self.env["HOME"] = home
        self.env.pop("PGOPTIONS", None)

    def argv(self, data_dir, *args):
        return [self.binary, "-D", data_dir] + list(args)

    def run(self, argv, timeout=None, preexec=None, stdin_data=None):
        timeout = timeout or self.timeout
        t0 = time.monotonic()
        try:
            p = subprocess.Popen(argv, stdin=subprocess.PIPE if stdin_data is not None else subprocess.DEVNULL,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=self.env,
                                 start_new_session=True, preexec_fn=preexec)
        except OSError as e:
            return Result(argv, None, "", "could not start: %s" % e, 0.0)
        try:
            out, err = p.communicate(stdin_data, timeout=timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            kill_group(p)
            out, err = p.communicate()
            timed_out = True
        return Result(argv, p.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"),
                      time.monotonic() - t0, timed_out)

    def sql(self, data_dir, *statements, csv=True, **kw):
        args = ["--csv"] if csv else []
        for s in statements:
            args += ["-c", s]
        return self.run(self.argv(data_dir, *args), **kw)

    def popen(self, argv, **kw):
        return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=self.env,
                                start_new_session=True, **kw)


def kill_group(p):
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def cmdline(argv):
    return " ".join(shlex.quote(a) for a in argv)


# --------------------------------------------------------------------------------
# the data directory


def load_manifest(data_dir):
    """The manifest as a dict; accepts the plain shape and {"crc32c": ..., "manifest": {...}}."""
    with open(os.path.join(data_dir, "manifest.json"), "rb") as f:
        doc = json.loads(f.read().decode("utf-8"))
    if isinstance(doc, dict) and "tables" not in doc and "manifest" in doc:
        inner = doc["manifest"]
        doc = json.loads(inner) if isinstance(inner, str) else inner
    return doc


def manifest_files(manifest):
    """{relative path: max byte end referenced (0 for whole files)} of every file named."""
    named = {}
    for table in manifest.get("tables", []) or []:
        for sl in table.get("slices", []) or []:
            for column in sl.get("columns", []) or []:
                for block in column or []:
                    f = block.get("f")
                    if f:
                        end = int(block.get("o", 0) or 0) + int(block.get("l", 0) or 0)
                        named[f] = max(named.get(f, 0), end)
            d = sl.get("deletes")
            if isinstance(d, str) and d:
                named.setdefault(d, 0)
            elif isinstance(d, dict) and d.get("f"):
                named.setdefault(d["f"], 0)
    return named


def table_ids(manifest):
    return {t.get("name"): t.get("id") for t in manifest.get("tables", []) or []}


def slice_files(data_dir):
    """Relative paths of every file under slice*/."""
    out = []
    for name in sorted(os.listdir(data_dir)):
        p = os.path.join(data_dir, name)
        if name.startswith("slice") and os.path.isdir(p):
            for f in sorted(os.listdir(p)):
                out.append(name + "/" + f)
    return out


def all_files(data_dir):
    """{relative path: size} of every file in the directory."""
    out = {}
    for root, _dirs, files in os.walk(data_dir):
        for f in files:
            p = os.path.join(root, f)
            try:
                out[os.path.relpath(p, data_dir)] = os.path.getsize(p)
            except OSError:
                pass
    return out


def check_consistent(data_dir):
    """Problems with a directory after an open: files not named by the manifest, named
    files missing or too short, a stray manifest.json.tmp."""
    problems = []
    try:
        named = manifest_files(load_manifest(data_dir))
    except Exception as e:  # noqa: BLE001
        return ["manifest.json unreadable after reopen: %s" % e]
    present = set(slice_files(data_dir))
    extra = sorted(present - set(named))
    if extra:
        problems.append("files not named by the manifest left behind: %s" % ", ".join(extra[:8]))
    missing = sorted(set(named) - present)
    if missing:
        problems.append("files named by the manifest missing: %s" % ", ".join(missing[:8]))
    for f, end in sorted(named.items()):
        if f in present and end and os.path.getsize(os.path.join(data_dir, f)) < end:
            problems.append("%s shorter (%d bytes) than the manifest's blocks need (%d)" %
                            (f, os.path.getsize(os.path.join(data_dir, f)), end))
    if os.path.exists(os.path.join(data_dir, "manifest.json.tmp")):
        problems.append("manifest.json.tmp left behind")
    return problems


def restore(pristine, target):
    if os.path.lexists(target):
        make_writable(target)
        shutil.rmtree(target)
    shutil.copytree(pristine, target)


def make_writable(path):
    if os.path.isdir(path):
        for root, dirs, files in os.walk(path):
            os.chmod(root, 0o755)
            for f in files:
                try:
                    os.chmod(os.path.join(root, f), 0o644)
                except OSError:
                    pass


def write_csv(path, rows, start, rng):
    with open(path, "w") as f:
        f.writelines("%d,v%08d,%d\n" % (i, rng.randrange(10 ** 8), rng.randrange(1000))
                     for i in range(start, start + rows))


# --------------------------------------------------------------------------------
# bookkeeping


class Battery:
    def __init__(self):
        self.counts = collections.OrderedDict()   # category -> [passed, failed]
        self.failures = []                        # dicts
        self.figures = collections.OrderedDict()  # name -> [hits, total]
        self.notes = []

    def record(self, category, ok, **details):
        c = self.counts.setdefault(category, [0, 0])
        c[0 if ok else 1] += 1
        if not ok:
            details["category"] = category
            self.failures.append(details)
        return ok

    def figure(self, name, hit):
        f = self.figures.setdefault(name, [0, 0])
        f[1] += 1
        if hit:
            f[0] += 1


# --------------------------------------------------------------------------------
# 1. kills at random moments

STATE_SQL = "select count(*), sum(a), sum(c), sum(length(b)), min(b), max(b) from %s"


def table_state(runner, data_dir, table):
    """('ok', csv) / ('missing', None) / ('error', Result)."""
    r = runner.sql(data_dir, STATE_SQL % table)
    if r.rc == 0:
        return ("ok", r.out), r
    if r.clear_error and re.search(r'relation "%s" does not exist' % table, r.err):
        return ("missing", None), r
    return ("error", None), r


def kill_category(args, runner, work, bat, rounds, per_round):
    rng0 = random.Random("%s:kill:data" % args.seed)
    base_rows = 30_000 if args.quick else 60_000
    csv1, csv2 = os.path.join(work, "kill_base.csv"), os.path.join(work, "kill_more.csv")
    write_csv(csv1, base_rows, 0, rng0)
    write_csv(csv2, base_rows, 10_000_000, rng0)
    base = os.path.join(work, "kill_base")
    setup = ["create table t (a int, b varchar(20), c int) diststyle key distkey(a) sortkey(a);",
             "copy t from '%s' csv;" % csv1]
    r = runner.run(runner.argv(base, "-v", "ON_ERROR_STOP=1", *sum([["-c", s] for s in setup], [])))
    if r.rc != 0:
        bat.record("kill: setup", False, what="building the base directory failed", command=cmdline(r.cmd),
                   status=r.status(), excerpt=r.excerpt())
        return
    bat.notes.append("kill: base directory built with: %s" % cmdline(r.cmd))

    ops = [
        ("copy", "copy t from '%s' csv;" % csv2, ["t"]),
        ("delete", "delete from t where a % 3 = 0;", ["t"]),
        ("update", "update t set c = c + 1, b = 'u' || b where a % 2 = 0;", ["t"]),
        ("ctas", "create table t2 as select * from t;", ["t", "t2"]),
        ("insert-select", "insert into t select a + 1000000, b, c from t where a % 2 = 1;", ["t"]),
    ]
    trial_dir = os.path.join(work, "kill_trial")
    for name, stmt, tables in ops:
        category = "kill: %s" % name
        # Expected states and the statement's duration, measured up front.
        restore(base, trial_dir)
        before = {t: table_state(runner, trial_dir, t)[0] for t in tables}
        durations = []
        for _ in range(3):
            restore(base, trial_dir)
            r = runner.run(runner.argv(trial_dir, "-c", stmt))
            durations.append(r.elapsed)
            if r.rc != 0:
                break
        if r.rc != 0:
            bat.record(category, False, what="the statement fails without a kill", command=cmdline(r.cmd),
                       status=r.status(), excerpt=r.excerpt())
            continue
        after = {t: table_state(runner, trial_dir, t)[0] for t in tables}
        duration = sorted(durations)[1]
        bat.notes.append("kill: %-13s runs in %.0f ms (median of 3, process start included)" % (name, duration * 1000))
        if before == after:
            bat.record(category, False, what="before- and after-state are identical (bad test data)", command=stmt)
            continue
        outcomes = collections.Counter()
        for rnd in range(rounds):
            rng = random.Random("%s:kill:%s:%d" % (args.seed, name, rnd))
            for i in range(per_round):
                # Stratified: even trials spread over the whole duration, odd ones over its
                # second half and a little past the end, where the commit happens.
                half = per_round // 2 or 1
                if i % 2 == 0:
                    delay = duration * ((i // 2) + rng.random()) / half
                else:
                    delay = duration * (0.5 + 0.55 * ((i // 2) + rng.random()) / half)
                restore(base, trial_dir)
                argv = runner.argv(trial_dir, "-c", stmt)
                p = runner.popen(argv)
                time.sleep(delay)
                try:
                    os.kill(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                out, err = p.communicate()
                rc = p.returncode
                killed = rc == -signal.SIGKILL
                try:
                    orphans_before_open = sorted(set(slice_files(trial_dir)) -
                                                 set(manifest_files(load_manifest(trial_dir))))
                except (OSError, ValueError, AttributeError, TypeError):
                    orphans_before_open = ["(manifest.json missing or unreadable after the kill)"]
                bat.figure("kill: left files for the next open to clean up", bool(orphans_before_open))
                repro = ("seed %s round %d trial %d: restore the base directory, run `%s` and send SIGKILL after "
                         "%.1f ms (statement takes ~%.0f ms)" % (args.seed, rnd, i, cmdline(argv), delay * 1000,
                                                                  duration * 1000))
                problems = []
                if not killed and rc != 0:
                    problems.append("the statement itself ended with %s: %s" % (
                        "exit %s" % rc if rc >= 0 else "signal %d" % -rc,
                        err.decode("utf-8", "replace").strip()[-300:]))
                states = {}
                excerpts = []
                for t in tables:
                    st, rr = table_state(runner, trial_dir, t)
                    states[t] = st
                    if st[0] == "error":
                        problems.append("reopening/querying %s failed (%s)" % (t, rr.status()))
                        excerpts.append(rr.excerpt())
                    elif rr.crashed or rr.timed_out:
                        problems.append("query on %s: %s" % (t, rr.status()))
                if not problems:
                    if states == after:
                        outcome = "after"
                    elif states == before:
                        outcome = "before"
                        if not killed:
                            problems.append("the statement finished (exit 0) but the table is in the before-state")
                    else:
                        outcome = "neither"
                        problems.append("table is neither the before- nor the after-state: got %r, before %r, after %r"
                                        % (states, before, after))
                    outcomes[("killed, " if killed else "finished, ") + outcome + "-state"] += 1
                problems += check_consistent(trial_dir)
                ok = not problems
                bat.record(category, ok, what="; ".join(problems), repro=repro,
                           status="killed" if killed else "finished before the kill (exit %s)" % rc,
                           excerpt="\n".join(excerpts), orphans_before_open=orphans_before_open[:5])
                if not ok:
                    keep_failure(args, trial_dir, "kill-%s-r%d-t%d" % (name, rnd, i))
        bat.notes.append("kill: %-13s outcomes: %s" % (name, ", ".join("%s %d" % kv for kv in sorted(outcomes.items()))))


# --------------------------------------------------------------------------------
# 2. damage

MUTATIONS = [  # (name, trials per round)
    ("bit-flip", 3),
    ("byte-flip", 3),
    ("truncate-random", 2),
    ("truncate-zero", 1),
    ("delete", 1),
]
KINDS = ["manifest.json", "cluster.json", "block (.blk)", "deleted rows (.dbm)", "LOCK"]


def apply_mutation(path, mutation, rng):
    """Damage `path`; returns (description, shell command reproducing it)."""
    q = shlex.quote(path)
    size = os.path.getsize(path)
    if mutation == "delete":
        os.remove(path)
        return "deleted", "rm %s" % q
    if mutation == "truncate-zero":
        os.truncate(path, 0)
        return "truncated to 0 (was %d)" % size, "truncate -s 0 %s" % q
    if mutation == "truncate-random":
        n = rng.randrange(1, size) if size > 1 else 0
        os.truncate(path, n)
        return "truncated to %d of %d bytes" % (n, size), "truncate -s %d %s" % (n, q)
    if size == 0:
        return "empty file, nothing to flip", "true"
    off = rng.randrange(size)
    with open(path, "r+b") as f:
        f.seek(off)
        old = f.read(1)[0]
        if mutation == "bit-flip":
            bit = rng.randrange(8)
            new = old ^ (1 << bit)
            what = "bit %d of byte %d flipped (0x%02x -> 0x%02x)" % (bit, off, old, new)
        else:
            new = old ^ rng.randrange(1, 256)
            what = "byte %d changed 0x%02x -> 0x%02x" % (off, old, new)
        f.seek(off)
        f.write(bytes([new]))
    cmd = "printf '\\x%02x' | dd of=%s bs=1 seek=%d conv=notrunc status=none" % (new, q, off)
    return what, cmd


def damage_category(args, runner, work, bat, rounds):
    rng0 = random.Random("%s:damage:data" % args.seed)
    rows = 20_000 if args.quick else 40_000
    csv_t, csv_u = os.path.join(work, "damage_t.csv"), os.path.join(work, "damage_u.csv")
    write_csv(csv_t, rows, 0, rng0)
    write_csv(csv_u, rows, 0, rng0)
    pristine = os.path.join(work, "damage_pristine")
    setup = ["create table t (a int, b varchar(20), c int) diststyle key distkey(a) sortkey(a);",
             "create table u (a int, b varchar(20), c int) diststyle even sortkey(a);",
             "copy t from '%s' csv;" % csv_t,
             "copy u from '%s' csv;" % csv_u,
             "delete from t where a % 7 = 3;"]
    argv = runner.argv(pristine, "-v", "ON_ERROR_STOP=1", *sum([["-c", s] for s in setup], []))
    r = runner.run(argv)
    if r.rc != 0:
        bat.record("damage: setup", False, what="building the pristine directory failed", command=cmdline(argv),
                   status=r.status(), excerpt=r.excerpt())
        return
    bat.notes.append("damage: pristine directory built with: %s" % cmdline(argv))
    ids = table_ids(load_manifest(pristine))
    t_id = str(ids.get("t"))
    files = sorted(all_files(pristine))
    targets = {
        "manifest.json": ["manifest.json"],
        "cluster.json": ["cluster.json"],
        "block (.blk)": [f for f in files if BLK.match(f) and BLK.match(f).group(1) == t_id],
        "deleted rows (.dbm)": [f for f in files if DEL.match(f) and DEL.match(f).group(1) == t_id],
        "LOCK": ["LOCK"],
    }
    for kind, fs in targets.items():
        if not fs:
            bat.record("damage: %s" % kind, False, what="the pristine directory has no such file", command=cmdline(argv))

    queries = [
        ("t", "select a, b, c from t order by a, b, c"),
        ("t", "select count(*), sum(c), min(b), max(b) from t where a between 1000 and 1999"),
        ("u", "select a, b, c from u order by a, b, c"),
        ("u", "select count(*), sum(c), min(b), max(b) from u where a between 1000 and 1999"),
    ]
    trial = os.path.join(work, "damage_trial")
    expected = []
    for _table, q in queries:
        restore(pristine, trial)
        r = runner.sql(trial, q)
        if r.rc != 0:
            bat.record("damage: setup", False, what="query fails on the pristine directory", command=cmdline(r.cmd),
                       status=r.status(), excerpt=r.excerpt())
            return
        expected.append(r.out)

    for rnd in range(rounds):
        for kind in KINDS:
            if not targets[kind]:
                continue
            category = "damage: %s" % kind
            for mutation, n in MUTATIONS:
                for i in range(n):
                    rel, what, shell = make_damaged(pristine, trial, targets[kind], args.seed, rnd, kind,
                                                    mutation, i)
                    shell = shell.replace(shlex.quote(trial) + "/", "$DIR/").replace(trial + "/", "$DIR/")
                    files_before = all_files(trial)
                    problems, errors, excerpts = [], [], []
                    answers = {"t": True, "u": True}
                    for (table, q), exp in zip(queries, expected):
                        r = runner.sql(trial, q)
                        right = r.rc == 0 and r.out == exp
                        answers[table] = answers[table] and right
                        if r.timed_out:
                            problems.append("hang (no answer in %ds): %s" % (args.timeout, q))
                        elif r.crashed:
                            problems.append("crash (%s): %s" % (r.status(), q))
                        elif r.rc == 0 and not right:
                            problems.append("wrong answer, exit 0: %s" % q)
                        elif r.rc not in (0,) and not r.clear_error:
                            problems.append("failed (%s) without an ERROR: line: %s" % (r.status(), q))
                        if r.rc != 0:
                            errors.append(r.err)
                        if r.rc == 0 and not right:
                            excerpts.append("$ %s\n%s; %s" % (cmdline(r.cmd), r.status(), describe_diff(exp, r.out)))
                        elif r.rc != 0:
                            excerpts.append("$ %s\n%s\n%s" % (cmdline(r.cmd), r.status(), r.excerpt(300)))
                    files_after = all_files(trial)
                    vanished = sorted(f for f in set(files_before) - set(files_after) if f != "LOCK")
                    if vanished:
                        problems.append("opening deleted %d file(s) that were there: %s" % (
                            len(vanished), ", ".join(vanished[:6]) + (" ..." if len(vanished) > 6 else "")))
                    if errors and kind != "LOCK":
                        base = os.path.basename(rel)
                        bat.figure("damage: an error names the damaged file (%s)" % kind,
                                   any(base in e for e in errors))
                    if kind in ("block (.blk)", "deleted rows (.dbm)"):
                        bat.figure("damage: table u still answers correctly when t's %s file is damaged" %
                                   kind.split()[-1], answers["u"])
                    if kind in ("manifest.json",) and mutation in ("truncate-zero", "delete", "truncate-random"):
                        bat.figure("damage: manifest %s -> every query fails cleanly and nothing is deleted"
                                   % mutation, not problems and not answers["t"] and not answers["u"])
                    ok = not problems
                    bat.record(category, ok, what="; ".join(problems),
                               repro="seed %s round %d: %s %s of %s (%s)\n    damage: %s"
                                     % (args.seed, rnd, mutation, "trial %d" % i, rel, what, shell),
                               excerpt="\n".join(excerpts[:3]), mutation=mutation, file=rel)
                    if not ok:
                        kept = keep_failure(args, None, None)
                        if kept is not None:
                            dst = os.path.join(kept, "damage-r%d-%s-%s-%d" % (
                                rnd, re.sub(r"\W+", "_", kind).strip("_"), mutation, i))
                            make_damaged(pristine, dst, targets[kind], args.seed, rnd, kind, mutation, i)


def describe_diff(expected, got):
    """A one-line account of how `got` differs from `expected` (CSV outputs)."""
    e, g = expected.splitlines(), got.splitlines()
    where = next((k for k, (x, y) in enumerate(zip(e, g)) if x != y), min(len(e), len(g)))
    return "expected %d lines, got %d; first difference at line %d: expected %r, got %r" % (
        len(e), len(g), where + 1, e[where] if where < len(e) else "(end)", g[where] if where < len(g) else "(end)")


def make_damaged(pristine, target, candidates, seed, rnd, kind, mutation, i):
    """Copy the pristine directory to `target` and apply trial (rnd, kind, mutation, i)
    to it, deterministically. Returns (relative path, description, shell command)."""
    rng = random.Random("%s:damage:%d:%s:%s:%d" % (seed, rnd, kind, mutation, i))
    rel = rng.choice(candidates)
    restore(pristine, target)
    what, shell = apply_mutation(os.path.join(target, rel), mutation, rng)
    return rel, what, shell


# --------------------------------------------------------------------------------
# 3. disk, permissions and other misc


def misc_category(args, runner, work, bat):
    rng0 = random.Random("%s:misc:data" % args.seed)
    csv = os.path.join(work, "misc.csv")
    rows = 20_000
    write_csv(csv, rows, 0, rng0)
    base = os.path.join(work, "misc_base")
    setup = ["create table t (a int, b varchar(20), c int) diststyle key distkey(a) sortkey(a);",
             "copy t from '%s' csv;" % csv]
    argv = runner.argv(base, "-v", "ON_ERROR_STOP=1", *sum([["-c", s] for s in setup], []))
    r = runner.run(argv)
    if r.rc != 0:
        bat.record("misc", False, what="setup failed", command=cmdline(argv), status=r.status(), excerpt=r.excerpt())
        return
    bat.notes.append("misc: base directory built with: %s" % cmdline(argv))
    q = STATE_SQL % "t"
    good = runner.sql(base, q).out
    d = os.path.join(work, "misc_trial")

    def check(name, ok, **details):
        bat.record("misc", ok, what=name if ok else name + ": " + details.pop("why", ""), **details)

    def answer_or_clean(r):
        return (r.rc == 0 and r.out == good) or r.clear_error

    # Lock held by a running shell.
    restore(base, d)
    holder_argv = runner.argv(d, "-At")
    holder = subprocess.Popen(holder_argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              env=runner.env, start_new_session=True)
    try:
        holder.stdin.write(b"select 424242;\n")
        holder.stdin.flush()
        line = read_line_with_timeout(holder, 20)
        if line.strip() != "424242":
            check("lock: holder answers", False, why="the holding shell did not answer (%r)" % line,
                  command=cmdline(holder_argv))
        r = runner.sql(d, "select 1")
        ok = r.rc not in (0, None) and not r.crashed and "in use by another process" in r.err
        check("lock: a second process is refused while the directory is held", ok,
              why="expected a clear 'in use by another process' refusal", command=cmdline(r.cmd),
              status=r.status(), excerpt=r.excerpt())
        holder.stdin.write(b"select count(*) from t;\n")
        holder.stdin.flush()
        line = read_line_with_timeout(holder, 20)
        check("lock: the holder keeps working after the refusal", line.strip() == str(rows),
              why="holder answered %r" % line, command=cmdline(holder_argv))
        holder.stdin.close()
        try:
            rc = holder.wait(20)
        except subprocess.TimeoutExpired:
            kill_group(holder)
            rc = "hang"
        check("lock: the holder exits 0 at end of input", rc == 0, why="holder ended with %s" % rc,
              command=cmdline(holder_argv), excerpt=holder.stderr.read().decode("utf-8", "replace")[-300:])
        r = runner.sql(d, q)
        check("lock: the directory opens again once released", r.rc == 0 and r.out == good, why="after release",
              command=cmdline(r.cmd), status=r.status(), excerpt=r.excerpt())
    finally:
        if holder.poll() is None:
            kill_group(holder)
            holder.wait()

    # Stale lock: holder killed with SIGKILL.
    holder = subprocess.Popen(holder_argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              env=runner.env, start_new_session=True)
    holder.stdin.write(b"select 1;\n")
    holder.stdin.flush()
    read_line_with_timeout(holder, 20)
    kill_group(holder)
    holder.wait()
    r = runner.sql(d, q)
    check("lock: a stale LOCK (holder killed with SIGKILL) does not block opening", r.rc == 0 and r.out == good,
          why="open after kill -9 of the holder", command=cmdline(r.cmd), status=r.status(), excerpt=r.excerpt())

    # Read-only data directory (as nobody when running as root: root ignores modes).
    restore(base, d)
    before = all_files(d)
    drop = None
    who = "owner with read-only modes"
    if os.geteuid() == 0:
        drop = drop_to_nobody
        who = "user nobody (uid 65534) on a root-owned 0555/0444 directory"
        for p in (work,):
            os.chmod(p, 0o755)
    for root, dirs, files in os.walk(d):
        os.chmod(root, 0o555)
        for f in files:
            os.chmod(os.path.join(root, f), 0o444)
    r = runner.run(runner.argv(d, "--csv", "-c", q), preexec=drop)
    if r.rc is None:
        bat.notes.append("misc: read-only checks skipped: %s" % r.err)
    else:
        check("read-only dir: select answers or fails cleanly (%s)" % who, answer_or_clean(r),
              why="neither the right answer nor a clean error", command=cmdline(r.cmd), status=r.status(),
              excerpt=r.excerpt())
        bat.notes.append("misc: read-only dir select -> %s%s" % (r.status(), (": " + r.err.strip()[:200]) if r.rc else ""))
        r = runner.run(runner.argv(d, "-c", "insert into t values (1, 'x', 1);"), preexec=drop)
        check("read-only dir: insert fails cleanly", r.clear_error, why="expected a clean error",
              command=cmdline(r.cmd), status=r.status(), excerpt=r.excerpt())
        check("read-only dir: nothing changed", all_files(d) == before, why="files changed: %s" % (
            sorted(set(before) ^ set(all_files(d)))[:6]), command=cmdline(r.cmd))
    make_writable(d)
    r = runner.sql(d, q)
    check("read-only dir: data intact afterwards (writable again)", r.rc == 0 and r.out == good, why="after",
          command=cmdline(r.cmd), status=r.status(), excerpt=r.excerpt())

    # A file-size limit (writes fail with EFBIG) during COPY: all or nothing, no orphans.
    more = os.path.join(work, "misc_more.csv")
    write_csv(more, rows, 5_000_000, rng0)
    restore(base, d)
    stmt = "copy t from '%s' csv;" % more
    runner.run(runner.argv(d, "-c", stmt))
    after = runner.sql(d, q).out
    for limit in (4096, 16384, 65536, 262144, 1 << 20):
        restore(base, d)
        r = runner.run(runner.argv(d, "-c", stmt), preexec=lambda limit=limit: fsize_limit(limit))
        st = runner.sql(d, q)
        problems = []
        if r.crashed or r.timed_out:
            problems.append("COPY %s" % r.status())
        elif r.rc == 0 and st.out != after:
            problems.append("COPY reported success but the table is not the after-state")
        elif r.rc != 0 and not r.clear_error:
            problems.append("COPY failed (%s) without a clear error" % r.status())
        elif r.rc != 0 and st.out != good:
            problems.append("COPY failed but the table is not the before-state")
        if st.rc != 0:
            problems.append("reopen failed: %s" % st.err.strip()[-200:])
        problems += check_consistent(d)
        check("file-size limit %d bytes during COPY: all or nothing, no orphans" % limit, not problems,
              why="; ".join(problems), command="(ulimit -f %d; %s)" % (max(1, limit // 1024), cmdline(r.cmd)),
              status=r.status(), excerpt=r.excerpt())

    # The same with a tiny COPY under a limit just below the next manifest's size: the
    # block files fit, manifest.json.tmp does not (the commit itself fails).
    tiny = os.path.join(work, "misc_tiny.csv")
    write_csv(tiny, 10, 9_000_000, rng0)
    restore(base, d)
    tiny_stmt = "copy t from '%s' csv;" % tiny
    runner.run(runner.argv(d, "-c", tiny_stmt))
    tiny_after = runner.sql(d, q).out
    restore(base, d)
    limit = os.path.getsize(os.path.join(d, "manifest.json"))
    r = runner.run(runner.argv(d, "-c", tiny_stmt), preexec=lambda: fsize_limit(limit))
    st = runner.sql(d, q)
    problems = []
    if r.crashed or r.timed_out:
        problems.append("COPY %s" % r.status())
    elif r.rc == 0 and st.out != tiny_after:
        problems.append("COPY reported success but the table is not the after-state")
    elif r.rc != 0 and not r.clear_error:
        problems.append("COPY failed (%s) without a clear error" % r.status())
    elif r.rc != 0 and st.out != good:
        problems.append("COPY failed but the table is not the before-state")
    if st.rc != 0:
        problems.append("reopen failed: %s" % st.err.strip()[-200:])
    problems += check_consistent(d)
    check("file-size limit %d bytes (the manifest's size) during a 10-row COPY: all or nothing" % limit,
          not problems, why="; ".join(problems),
          command="(ulimit -f %d; %s)" % (max(1, limit // 1024), cmdline(r.cmd)), status=r.status(),
          excerpt=r.excerpt())
    bat.notes.append("misc: 10-row COPY with file size limited to %d bytes -> %s%s" % (
        limit, r.status(), (": " + r.err.strip()[:160]) if r.rc else ""))

    # Stray files from a crash: a garbage manifest.json.tmp and an unnamed block file.
    restore(base, d)
    with open(os.path.join(d, "manifest.json.tmp"), "wb") as f:
        f.write(b'{"formatVersion": 1, "tables": [')
    stray = os.path.join(d, "slice0", "t100000_g999.blk")
    with open(stray, "wb") as f:
        f.write(os.urandom(1000))
    r = runner.sql(d, q)
    problems = [] if r.rc == 0 and r.out == good else ["query: %s" % r.status()]
    problems += check_consistent(d)
    check("stray manifest.json.tmp and unnamed block file: removed at open, data intact", not problems,
          why="; ".join(problems), command=cmdline(r.cmd), status=r.status(), excerpt=r.excerpt())

    # The data "directory" is a regular file.
    f = os.path.join(work, "not_a_dir")
    with open(f, "w") as fh:
        fh.write("hello\n")
    r = runner.sql(f, "select 1")
    with open(f) as fh:
        intact = fh.read() == "hello\n"
    check("-D names a regular file: clean error, file untouched", r.clear_error and intact,
          why="expected a clean error", command=cmdline(r.cmd), status=r.status(), excerpt=r.excerpt())

    # A nested path that does not exist yet.
    nested = os.path.join(work, "nested", "a", "b")
    r = runner.sql(nested, "select 1")
    check("-D names a missing nested path: created or clean error", (r.rc == 0 and r.out.strip().endswith("1"))
          or r.clear_error, why="neither", command=cmdline(r.cmd), status=r.status(), excerpt=r.excerpt())

    # A directory that cannot be created (parent not writable for nobody).
    if os.geteuid() == 0:
        parent = os.path.join(work, "rootonly")
        os.makedirs(parent, exist_ok=True)
        os.chmod(parent, 0o755)
        r = runner.run(runner.argv(os.path.join(parent, "db"), "-c", "select 1"), preexec=drop_to_nobody)
        if r.rc is not None:
            check("-D cannot be created (permission): clean error", r.clear_error, why="expected a clean error",
                  command=cmdline(r.cmd), status=r.status(), excerpt=r.excerpt())

    # cluster.json missing on a database with a non-default layout (1 node x 3 slices).
    odd = os.path.join(work, "misc_odd")
    argv = runner.argv(odd, "--nodes", "1", "--slices-per-node", "3", "-v", "ON_ERROR_STOP=1",
                       *sum([["-c", s] for s in setup], []))
    r = runner.run(argv)
    if r.rc == 0:
        odd_good = runner.sql(odd, q).out
        files_before = all_files(odd)
        os.remove(os.path.join(odd, "cluster.json"))
        r = runner.sql(odd, q)
        vanished = sorted(set(files_before) - set(all_files(odd)) - {"LOCK", "cluster.json"})
        ok = ((r.rc == 0 and r.out == odd_good) or r.clear_error) and not vanished and not r.crashed
        check("cluster.json missing on a 1x3 database: right answer or clean error, nothing deleted", ok,
              why="%s%s" % ("wrong answer; " if r.rc == 0 and r.out != odd_good else "",
                            "files deleted: %s" % vanished if vanished else ""),
              command="%s; rm %s; %s" % (cmdline(argv), shlex.quote(os.path.join(odd, "cluster.json")),
                                        cmdline(r.cmd)), status=r.status(), excerpt=r.excerpt())
        recreated = os.path.exists(os.path.join(odd, "cluster.json"))
        bat.notes.append("misc: 1x3 database without cluster.json -> %s%s%s" % (
            r.status(), (": " + r.err.strip().replace(odd, "DIR")[:200]) if r.rc else "",
            "; cluster.json was written again by that open: %s" % open(os.path.join(odd, "cluster.json")).read().strip()
            if recreated else ""))
    else:
        check("1x3 database setup", False, why="failed", command=cmdline(argv), status=r.status(), excerpt=r.excerpt())

    # A slice directory replaced by a file.
    restore(base, d)
    shutil.rmtree(os.path.join(d, "slice1"))
    with open(os.path.join(d, "slice1"), "w") as fh:
        fh.write("x")
    before = all_files(d)
    r = runner.sql(d, q)
    vanished = sorted(set(before) - set(all_files(d)) - {"LOCK"})
    check("slice1/ replaced by a file: clean error, nothing deleted", r.clear_error and not vanished,
          why="%s%s" % ("" if r.clear_error else "no clean error; ", "deleted %s" % vanished if vanished else ""),
          command="rm -r DIR/slice1; echo x > DIR/slice1; " + cmdline(r.cmd), status=r.status(), excerpt=r.excerpt())


def read_line_with_timeout(p, timeout):
    import select
    deadline = time.monotonic() + timeout
    buf = b""
    fd = p.stdout.fileno()
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            break
        chunk = os.read(fd, 1)
        if not chunk:
            break
        buf += chunk
        if chunk == b"\n":
            break
    return buf.decode("utf-8", "replace")


def drop_to_nobody():
    os.setgroups([])
    os.setgid(65534)
    os.setuid(65534)


def fsize_limit(limit):
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)   # writes then fail with EFBIG
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


# --------------------------------------------------------------------------------

_kept = [0]


def keep_failure(args, src, name):
    """With --keep-failures DIR: copy `src` there as `name` (at most 30); with src None
    returns the directory to fill (or None)."""
    if not args.keep_failures or _kept[0] >= 30:
        return None
    _kept[0] += 1
    os.makedirs(args.keep_failures, exist_ok=True)
    if src is None:
        return args.keep_failures
    dst = os.path.join(args.keep_failures, name)
    if os.path.exists(dst):
        shutil.rmtree(dst)
    shutil.copytree(src, dst)
    return dst


def report(bat, args, elapsed):
    print()
    print("%-40s %7s %7s" % ("category", "passed", "failed"))
    print("-" * 56)
    for cat, (p, f) in bat.counts.items():
        print("%-40s %7d %7d" % (cat, p, f))
    if bat.figures:
        print()
        print("figures (not pass/fail):")
        for name, (hit, total) in bat.figures.items():
            print("  %-96s %4d/%d" % (name, hit, total))
    if bat.notes:
        print()
        print("notes:")
        for n in bat.notes:
            print("  " + n)
    if bat.failures:
        print()
        groups = collections.Counter()
        for f in bat.failures:
            reason = re.sub(r"\d+", "N", (f.get("what") or "?").split(";")[0])[:110]
            groups[(f["category"], reason)] += 1
        print("failures by category and first reason:")
        for (cat, reason), n in sorted(groups.items(), key=lambda x: (-x[1], x[0])):
            print("  %4d  %-28s %s" % (n, cat, reason))
        shown = bat.failures if args.show == 0 else bat.failures[:args.show]
        print()
        print("failures (%d%s):" % (len(bat.failures), "" if len(shown) == len(bat.failures)
                                    else ", first %d; --show 0 for all" % len(shown)))
        for i, f in enumerate(shown, 1):
            print("[%d] %s: %s" % (i, f["category"], f.get("what", "")))
            for key in ("repro", "command", "status"):
                if f.get(key):
                    print("    %s: %s" % (key, f[key]))
            if f.get("orphans_before_open"):
                print("    files not in the manifest before reopening: %s" % ", ".join(f["orphans_before_open"]))
            if f.get("excerpt"):
                print("    " + f["excerpt"].rstrip().replace("\n", "\n    "))
    passed = sum(p for p, _ in bat.counts.values())
    failed = sum(f for _, f in bat.counts.values())
    print()
    print("binary %s, seed %s, rounds %d%s, %.0f s" % (args.bin, args.seed, args.rounds, ", quick" if args.quick
                                                         else "", elapsed))
    print("%d passed, %d failed" % (passed, failed))
    return failed


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True, help="the slicehouse binary")
    ap.add_argument("--rounds", type=int, default=None, help="rounds of every battery (default 5; --quick: 1)")
    ap.add_argument("--seed", default="1", help="random seed (default 1)")
    ap.add_argument("--quick", action="store_true", help="one round, fewer trials (under a minute)")
    ap.add_argument("--timeout", type=int, default=60, help="seconds before a process counts as hung (default 60)")
    ap.add_argument("--only", choices=["kill", "damage", "misc"], action="append",
                    help="run only this category (repeatable)")
    ap.add_argument("--show", type=int, default=40, help="failures printed in detail (0: all; default 40)")
    ap.add_argument("--keep-failures", metavar="DIR", help="copy the directories of failed trials here (at most 30)")
    ap.add_argument("--keep-temp", action="store_true", help="do not delete the temporary work directory")
    args = ap.parse_args()
    args.bin = os.path.abspath(args.bin)
    if not os.access(args.bin, os.X_OK):
        ap.error("%s is not an executable" % args.bin)
    if args.rounds is None:
        args.rounds = 1 if args.quick else 5
    only = set(args.only or ["kill", "damage", "misc"])

    t0 = time.monotonic()
    work = tempfile.mkdtemp(prefix="slicehouse-reliability-")
    os.chmod(work, 0o755)
    home = os.path.join(work, "home")
    os.makedirs(home)
    runner = Runner(args.bin, home, args.timeout)
    bat = Battery()
    try:
        if "kill" in only:
            print("kill: ...", flush=True)
            kill_category(args, runner, work, bat, args.rounds, 4 if args.quick else 8)
        if "damage" in only:
            print("damage: ...", flush=True)
            damage_category(args, runner, work, bat, args.rounds)
        if "misc" in only:
            print("misc: ...", flush=True)
            misc_category(args, runner, work, bat)
    finally:
        if args.keep_temp:
            print("work directory kept: %s" % work)
        else:
            make_writable(work)
            shutil.rmtree(work, ignore_errors=True)
    failed = report(bat, args, time.monotonic() - t0)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
