#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fuzz Slicehouse's parsers and readers with libFuzzer, longer than CI does.
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]
#
# Builds slicehouse-libfuzzer (release, -sanitize=fuzzer; set FUZZ_SANITIZERS=fuzzer,address
# to add AddressSanitizer, which also catches out-of-bounds reads through unsafe pointers)
# in .build-libfuzzer, then runs each target (default: every folder of Tests/FuzzCorpus)
# for SECONDS_PER_TARGET seconds (default 300), starting from Tests/FuzzCorpus/<target>.
#
# FUZZ_KEEP_GOING=1 keeps fuzzing a target after a finding (see below).
#
# Output goes under $FUZZ_OUT (default .build-libfuzzer/fuzz-out, ignored by git):
#   <target>/corpus/     inputs libFuzzer found interesting (kept between runs)
#   <target>/crashes/    crash-*, timeout-*, oom-* inputs: the findings
#   <target>/log         libFuzzer's output
# Replay a finding with the ordinary build: swift run slicehouse fuzz TARGET --input FILE
# (or SLICEHOUSE_FUZZ_TARGET=TARGET .build-libfuzzer/release/slicehouse-libfuzzer FILE).
#
# Exits 1 when any target found something. The mutation fuzzer that needs no special
# build is `slicehouse fuzz` (what CI runs); this script adds coverage feedback.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

seconds="${1:-300}"
[[ $# -gt 0 ]] && shift
if [[ $# -gt 0 ]]; then
    targets=("$@")
else
    targets=()
    for dir in Tests/FuzzCorpus/*/; do targets+=("$(basename "$dir")"); done
fi
sanitizers="${FUZZ_SANITIZERS:-fuzzer}"
# FUZZ_KEEP_GOING=1: go on after a crash, timeout or out-of-memory (libFuzzer's fork mode),
# collecting every finding of the time given instead of stopping at the first.
keep_going=()
if [[ "${FUZZ_KEEP_GOING:-0}" == 1 ]]; then
    keep_going=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
fi
scratch="$root/.build-libfuzzer"
out="${FUZZ_OUT:-$scratch/fuzz-out}"

# -DSLICEHOUSE_LIBFUZZER drops the replay main() of an ordinary build: libFuzzer has its own.
build=(swift build --scratch-path "$scratch" -c release --product slicehouse-libfuzzer
       -Xswiftc "-sanitize=$sanitizers" -Xswiftc -parse-as-library -Xswiftc -DSLICEHOUSE_LIBFUZZER)
echo "building: ${build[*]}"
"${build[@]}"
binary="$("${build[@]}" --show-bin-path)/slicehouse-libfuzzer"

found=()
for target in "${targets[@]}"; do
    work="$out/$target"
    mkdir -p "$work/corpus" "$work/crashes"
    echo "== $target: ${seconds}s, findings in $work/crashes/"
    status=0
    # SWIFT_BACKTRACE: the Swift runtime's crash handler would take the signal before
    # libFuzzer's, and libFuzzer would not save the input. detect_leaks: the Swift
    # runtime keeps caches for the life of the process, which LeakSanitizer reports.
    SLICEHOUSE_FUZZ_TARGET="$target" SWIFT_BACKTRACE=enable=no ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}" \
        "$binary" -max_total_time="$seconds" -timeout=60 -rss_limit_mb=4096 -print_final_stats=1 ${keep_going[@]+"${keep_going[@]}"} \
        -artifact_prefix="$work/crashes/" "$work/corpus" "Tests/FuzzCorpus/$target" \
        >"$work/log" 2>&1 || status=$?
    grep -E '^(stat::number_of_executed_units|stat::new_units_added|SUMMARY|==[0-9]+== ERROR)' "$work/log" || true
    if [[ $status -ne 0 ]] || compgen -G "$work/crashes/*" >/dev/null; then
        echo "!! $target: exit status $status; see $work/log and $work/crashes/"
        found+=("$target")
    fi
done

if [[ ${#found[@]} -gt 0 ]]; then
    echo "findings in: ${found[*]}"
    exit 1
fi
echo "no findings"
