#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Two builds over one loaded TPC-H data directory, query by query, each run a fresh
# process (`slicehouse bench tpch-query`, as `bench tpch --from-disk` runs them), the two
# builds taking turns within every round; prints each query's median time for both and
# their ratio (B / A):
#   benchmarks/query_ab.sh BIN_A BIN_B DB [RUNS] [QUERIES]
# DB: a directory loaded by `slicehouse bench tpch --sf N --from-disk --db DB`;
# RUNS: rounds per query (default 5); QUERIES: numbers, e.g. "3 4 21" (default 1-22).
set -euo pipefail
a="$1"; b="$2"; db="$3"; runs="${4:-5}"; queries="${5:-$(seq 1 22)}"
# The run's output goes to a file, read once the run is over: a reader started beside the
# query (a pipe) takes a core from it while the interpreter starts.
out=$(mktemp); trap 'rm -f "$out"' EXIT
seconds() { "$1" bench tpch-query --db "$db" --query "$2" > "$out"; python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["seconds"])' "$out"; }
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
printf '%-5s %10s %10s %7s\n' query "A (ms)" "B (ms)" "B / A"
total_a=0; total_b=0
for q in $queries; do
  ta=""; tb=""
  for _ in $(seq "$runs"); do
    ta="$ta $(seconds "$a" "$q")"
    tb="$tb $(seconds "$b" "$q")"
  done
  ma=$(echo "$ta" | median); mb=$(echo "$tb" | median)
  total_a=$(echo "$total_a + $ma" | bc -l); total_b=$(echo "$total_b + $mb" | bc -l)
  printf 'Q%02d   %10.1f %10.1f %7.2f\n' "$q" "$(echo "$ma * 1000" | bc -l)" "$(echo "$mb * 1000" | bc -l)" "$(echo "$mb / $ma" | bc -l)"
done
printf '%-5s %10.1f %10.1f %7.2f\n' total "$(echo "$total_a * 1000" | bc -l)" "$(echo "$total_b * 1000" | bc -l)" \
  "$(echo "$total_b / $total_a" | bc -l)"
