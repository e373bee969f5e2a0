#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Load the eight TPC-H tables into a fresh data directory and report the COPYs' time and
# the process's peak memory:
#   benchmarks/copy_memory.sh BIN DATA_DIR [LABEL]
# BIN: a slicehouse binary (release build); DATA_DIR: the .tbl files
# (`slicehouse datagen tpch --sf N --output DATA_DIR`). The schema is
# datasets/tpch/schema.sql (orders and lineitem sorted by date), 2 nodes x 2 slices.
# Prints the sum of the COPYs' \timing, lineitem's, the process's wall clock and peak
# RSS (/usr/bin/time -v) and the directory's size. The files are read once first so that
# every run loads from the page cache.
set -euo pipefail
bin="$1"; data="$(cd "$2" && pwd)"; label="${3:-$(basename "$bin")}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/copy-memory-XXXXXX")"
trap 'rm -rf "$work"' EXIT
script="$work/load.sql"
grep -v '^\s*--' "$root/datasets/tpch/schema.sql" > "$script"
echo '\timing' >> "$script"
for t in region nation supplier customer part partsupp orders lineitem; do
  cat "$data/$t.tbl" > /dev/null
  echo "COPY $t FROM '$data/$t.tbl' DELIMITER '|';" >> "$script"
done
/usr/bin/time -v "$bin" -D "$work/db" -v ON_ERROR_STOP=1 -f "$script" > "$work/out.txt" 2> "$work/time.txt"
copy_ms=$(grep -a -o 'Time: [0-9.]* ms' "$work/out.txt" | awk '{s += $2} END {printf "%.0f", s}')
lineitem_ms=$(grep -a -o 'Time: [0-9.]* ms' "$work/out.txt" | tail -1 | awk '{printf "%.0f", $2}')
rss_kb=$(awk '/Maximum resident/ {print $6}' "$work/time.txt")
wall=$(awk '/Elapsed \(wall/ {print $8}' "$work/time.txt")
size=$(du -sb "$work/db" | awk '{print $1}')
printf '%s: COPYs %.2f s (lineitem %.2f s), wall %s, peak RSS %.2f GB, on disk %.1f MB\n' \
  "$label" "$(echo "$copy_ms / 1000" | bc -l)" "$(echo "$lineitem_ms / 1000" | bc -l)" "$wall" \
  "$(echo "$rss_kb / 1048576" | bc -l)" "$(echo "$size / 1048576" | bc -l)"
