#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Time the TPC-H queries with the shell's \timing (a quick check; `slicehouse bench tpch` is the full runner).
#   benchmarks/tpch-shell.sh DIR [RUNS] [QUERIES...]
# DIR holds the eight .tbl files: `slicehouse datagen tpch --sf 1 --output DIR`.
# Prints the COPY time per table, then the best of RUNS (default 3) per query and the total.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="$(cd "$1" && pwd)"; runs="${2:-3}"; shift; shift || true
queries=("$@"); [ ${#queries[@]} -gt 0 ] || queries=(01 02 03 04 05 06 07 08 09 10 11 12 13 14 15 16 17 18 19 20 21 22)
bin="${SLICEHOUSE_BIN:-$root/.build/release/slicehouse}"
[ -n "${SLICEHOUSE_BIN:-}" ] || (cd "$root" && swift build -c release --product slicehouse >&2)
sql="$(mktemp)"; out="$(mktemp)"
trap 'rm -f "$sql" "$out"' EXIT
# The "keyed" schema of Tests/SlicehouseEngineTests/TPCHSupport.swift.
{
  echo "CREATE TABLE region (r_regionkey INTEGER NOT NULL, r_name CHAR(25) NOT NULL, r_comment VARCHAR(152)) DISTSTYLE ALL;"
  echo "CREATE TABLE nation (n_nationkey INTEGER NOT NULL, n_name CHAR(25) NOT NULL, n_regionkey INTEGER NOT NULL, n_comment VARCHAR(152)) DISTSTYLE ALL;"
  echo "CREATE TABLE supplier (s_suppkey INTEGER NOT NULL, s_name CHAR(25) NOT NULL, s_address VARCHAR(40) NOT NULL, s_nationkey INTEGER NOT NULL, s_phone CHAR(15) NOT NULL, s_acctbal DECIMAL(15,2) NOT NULL, s_comment VARCHAR(101) NOT NULL) DISTSTYLE ALL;"
  echo "CREATE TABLE customer (c_custkey INTEGER NOT NULL, c_name VARCHAR(25) NOT NULL, c_address VARCHAR(40) NOT NULL, c_nationkey INTEGER NOT NULL, c_phone CHAR(15) NOT NULL, c_acctbal DECIMAL(15,2) NOT NULL, c_mktsegment CHAR(10) NOT NULL, c_comment VARCHAR(117) NOT NULL) DISTKEY(c_custkey);"
  echo "CREATE TABLE part (p_partkey INTEGER NOT NULL, p_name VARCHAR(55) NOT NULL, p_mfgr CHAR(25) NOT NULL, p_brand CHAR(10) NOT NULL, p_type VARCHAR(25) NOT NULL, p_size INTEGER NOT NULL, p_container CHAR(10) NOT NULL, p_retailprice DECIMAL(15,2) NOT NULL, p_comment VARCHAR(23) NOT NULL) DISTKEY(p_partkey);"
  echo "CREATE TABLE partsupp (ps_partkey INTEGER NOT NULL, ps_suppkey INTEGER NOT NULL, ps_availqty INTEGER NOT NULL, ps_supplycost DECIMAL(15,2) NOT NULL, ps_comment VARCHAR(199) NOT NULL) DISTKEY(ps_partkey);"
  echo "CREATE TABLE orders (o_orderkey INTEGER NOT NULL, o_custkey INTEGER NOT NULL, o_orderstatus CHAR(1) NOT NULL, o_totalprice DECIMAL(15,2) NOT NULL, o_orderdate DATE NOT NULL, o_orderpriority CHAR(15) NOT NULL, o_clerk CHAR(15) NOT NULL, o_shippriority INTEGER NOT NULL, o_comment VARCHAR(79) NOT NULL) DISTKEY(o_orderkey) SORTKEY(o_orderdate);"
  echo "CREATE TABLE lineitem (l_orderkey INTEGER NOT NULL, l_partkey INTEGER NOT NULL, l_suppkey INTEGER NOT NULL, l_linenumber INTEGER NOT NULL, l_quantity DECIMAL(15,2) NOT NULL, l_extendedprice DECIMAL(15,2) NOT NULL, l_discount DECIMAL(15,2) NOT NULL, l_tax DECIMAL(15,2) NOT NULL, l_returnflag CHAR(1) NOT NULL, l_linestatus CHAR(1) NOT NULL, l_shipdate DATE NOT NULL, l_commitdate DATE NOT NULL, l_receiptdate DATE NOT NULL, l_shipinstruct CHAR(25) NOT NULL, l_shipmode CHAR(10) NOT NULL, l_comment VARCHAR(44) NOT NULL) DISTKEY(l_orderkey) SORTKEY(l_shipdate);"
  # Every run executes (a repeated query would otherwise be answered from the result cache).
  echo 'SET enable_result_cache_for_session TO off;'
  echo '\timing'
  for t in region nation supplier customer part partsupp orders lineitem; do echo "\\echo COPY $t"; echo "COPY $t FROM '$dir/$t.tbl';"; done
  for r in $(seq "$runs"); do for q in "${queries[@]}"; do echo "\\echo Q$q"; cat "$root/datasets/tpch/queries/q$q.sql"; done; done
} > "$sql"
"$bin" --in-memory -f "$sql" > "$out" 2>/dev/null
grep -a -E '^(COPY [a-z]+|Q[0-9]+)$|^Time:' "$out" | paste - - | awk '{print $1 ($1=="COPY" ? " " $2 : ""), ($1=="COPY" ? $4 : $3)}' \
  | awk '{name=$1; if ($1=="COPY") {name=$1" "$2; t=$3} else t=$2; if (!(name in best) || t < best[name]) best[name]=t; if (!(name in seen)) {order[++n]=name; seen[name]=1}}
         END {for (i=1;i<=n;i++) {printf "%-14s %10.1f ms\n", order[i], best[order[i]]; if (order[i] ~ /^Q/) qt+=best[order[i]]; else lt+=best[order[i]]}
              printf "%-14s %10.1f ms\n%-14s %10.1f ms\n", "load total", lt, "queries total", qt}'
