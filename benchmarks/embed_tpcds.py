#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Regenerate the texts `slicehouse bench tpcds` carries in its binary, so that it needs
no checkout at run time:

    python3 benchmarks/embed_tpcds.py

writes Sources/SlicehouseBench/Embedded/{TPCDSSchemaAndQueries,DuckDBTPCDSScript}.swift
from benchmarks/tpcds/schema.sql, benchmarks/tpcds/queries/qNN.sql (written by
benchmarks/tpcds/extract_queries.py) and benchmarks/duckdb_tpcds.py. A test
(EmbeddedTextTests) fails when an embedded copy differs from its file.
"""
import os

from embed_tpch import HEADER, OUT, ROOT, literal, read, write


def main():
    queries = "".join(
        f"        case {n}: return {literal(read('benchmarks', 'tpcds', 'queries', f'q{n:02d}.sql'))}\n"
        for n in range(1, 100))
    write("TPCDSSchemaAndQueries.swift", HEADER.format(src="benchmarks/tpcds/schema.sql and queries/") +
          "extension TPCDSText {\n"
          "    /// benchmarks/tpcds/schema.sql.\n"
          f"    public static let schemaSQL = {literal(read('benchmarks', 'tpcds', 'schema.sql'))}\n\n"
          "    /// benchmarks/tpcds/queries/qNN.sql (1...99), nil for another number.\n"
          "    public static func query(_ number: Int) -> String? {\n"
          "        switch number {\n" + queries +
          "        default: return nil\n        }\n    }\n}\n")
    write("DuckDBTPCDSScript.swift", HEADER.format(src="benchmarks/duckdb_tpcds.py") +
          "extension TPCDSText {\n"
          "    /// benchmarks/duckdb_tpcds.py, written to a temporary file and run with python3.\n"
          f"    public static let duckDBScript = {literal(read('benchmarks', 'duckdb_tpcds.py'))}\n"
          "}\n")


if __name__ == "__main__":
    main()
