#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The concurrency test's bank, run longer: 8 writer sessions move money between 16
# accounts in transactions (retrying on 1023 and deadlocks) while 8 reader sessions sum
# every balance; every sum must equal the total, in memory and in a data directory.
#
#     benchmarks/bank_transfers.sh [SECONDS]     (default 60 per run)
#
# Prints the transfers committed, conflicts, deadlocks and reads of each run (a debug
# build, as the test suite runs: the figures count work done, not top speed).
set -e
cd "$(dirname "$0")/.."
SLICEHOUSE_BANK_SECONDS="${1:-60}" swift test \
    --filter 'ConcurrencyTests.testBankTransfers' 2>&1 | grep -E "^bank:|passed|failed|error"
