#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Where a TPC-H query's time grows between two scale factors, step by step: the query's
# EXPLAIN ANALYZE over a smaller and a larger loaded data directory (a fresh shell process
# each), each plan step's time at both and its growth. Steps that grew more than `WORK`
# times (default 10, the work's growth from SF 1 to SF 10) and took over 10 ms are marked.
# One run at each size: on a noisy host run it twice before trusting a step's growth.
#   benchmarks/step_growth.sh BIN QUERY DB_SMALL DB_LARGE [WORK]
# DB_*: directories loaded by `slicehouse bench tpch --sf N --from-disk --db DB`.
set -euo pipefail
bin="$1"; q="$2"; small="$3"; large="$4"; work="${5:-10}"
here="$(cd "$(dirname "$0")/.." && pwd)"
query=$(find "$here/datasets/tpch/queries" -maxdepth 1 -iname "$(printf 'q%02d.sql' "$q")" | head -1)
[ -n "$query" ] || { echo "no query $q under datasets/tpch/queries" >&2; exit 2; }
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
{ echo "set enable_result_cache_for_session to off;"; echo "explain analyze"; cat "$query"; } > "$dir/q.sql"
"$bin" shell -D "$small" -f "$dir/q.sql" > "$dir/small.txt" 2>&1
"$bin" shell -D "$large" -f "$dir/q.sql" > "$dir/large.txt" 2>&1
python3 - "$dir/small.txt" "$dir/large.txt" "$work" <<'PY'
import re, sys
def steps(path):
    out, label = [], None
    for line in open(path):
        m = re.match(r'(\s*)(->\s+)?(XN [^(]+)\(', line)
        if m:
            label = (len(m.group(1)) + (len(m.group(2)) if m.group(2) else 0), m.group(3).strip())
            continue
        m = re.search(r'Actual: rows=(\d+) time=([\d.]+) ms', line)
        if m and label:
            out.append((label, int(m.group(1)), float(m.group(2))))
            label = None
        m = re.search(r'Execution: .* in ([\d.]+) ms', line)
        if m:
            out.append(((0, 'Execution'), 0, float(m.group(1))))
    return out
a, b, work = steps(sys.argv[1]), steps(sys.argv[2]), float(sys.argv[3])
if not a or len(a) != len(b) or [x[0][1] for x in a] != [x[0][1] for x in b]:
    sys.exit("the two plans differ (or a run failed): compare the EXPLAIN ANALYZE outputs by hand")
print(f"{'step':64s} {'small ms':>9s} {'large ms':>9s} {'growth':>7s}  rows")
for (label, ra, ta), (_, rb, tb) in zip(a, b):
    g = tb / ta if ta > 0 else float('inf')
    mark = ' *' if g > work and tb > 10 else ''
    print(f"{' ' * (label[0] // 3)}{label[1][:64 - label[0] // 3]:{64 - label[0] // 3}s} {ta:9.2f} {tb:9.2f} {g:7.1f}  {ra} -> {rb}{mark}")
PY
