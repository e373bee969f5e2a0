// swift-tools-version:6.1
// SPDX-License-Identifier: Apache-2.0
import PackageDescription

// One target per stage of a query's life, in layers; a target depends only on lower layers
// (docs/ARCHITECTURE.md's layer table is the map; scripts/check_architecture.py checks this
// file, the sources' imports and that table against each other):
//   0  Platform (threads, locks, the clock), Datagen; the C module maps CZstd, CSnappy,
//      CZlib, CBzip2, CEdit, CPrefetch, CAvro
//   1  Types
//   2  Runtime (worker pool, contexts, memory), SQL, Catalog, Parquet, AWS (SigV4, S3 addresses, credentials),
//      Iceberg (table metadata, Avro manifests, scan planning)
//   3  Workload (WLM), Storage, Plan (the planner's contract with the executor), Lake (external catalogs), TestSupport (the tests' moto server)
//   4  Functions (built-in scalar functions and kernels), Load
//   5  Planner, Execution (they meet only in Plan)
//   6  Engine
//   7  Server, Shell, SQLLogicTest, Bench (the shell reaches a server through PostgresNIO)
//   8  Fuzz
//   9  slicehouse (the CLI), slicehouse-libfuzzer
let package = Package(
    name: "Slicehouse",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "slicehouse", targets: ["slicehouse"]),
        .library(name: "SlicehouseEngine", targets: ["SlicehouseEngine"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // The self-signed certificate `serve` makes when given none.
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
        // S3 (and the Glue catalog) over HTTP: TLS, keep-alive, a connection pool.
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    ],
    targets: [
        // System libraries through module maps.
        .systemLibrary(name: "CZstd", path: "Sources/CZstd",
                       providers: [.apt(["libzstd-dev"])]),
        .systemLibrary(name: "CSnappy", path: "Sources/CSnappy",
                       providers: [.apt(["libsnappy-dev"])]),
        .systemLibrary(name: "CEdit", path: "Sources/CEdit",
                       providers: [.apt(["libedit-dev"])]),
        .systemLibrary(name: "CZlib", path: "Sources/CZlib",
                       providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CBzip2", path: "Sources/CBzip2",
                       providers: [.apt(["libbz2-dev"])]),
        // Header only: the cache-line prefetch hint of the hash join's probes, the group index's
        // direct arrays and the runtime filters' wide bitmaps.
        .systemLibrary(name: "CPrefetch", path: "Sources/CPrefetch"),
        // Apache Avro's C library: Iceberg's manifest lists and manifests.
        .systemLibrary(name: "CAvro", path: "Sources/CAvro",
                       providers: [.apt(["libavro-dev"])]),

        // The platform: threads (large-stack and pool threads), locks, the clock.
        .target(name: "SlicehousePlatform"),
        // Stage 1: types, values, vectors, chunks, errors.
        .target(name: "SlicehouseTypes", dependencies: ["SlicehousePlatform"]),
        // Stage 1b: the runtime — one scheduler for every slice task, cancellation tokens,
        // memory reservations and spill files, per-step metrics.
        .target(name: "SlicehouseRuntime", dependencies: ["SlicehousePlatform", "SlicehouseTypes"]),
        // Workload management: WLM queues, slots and memory, query monitoring rules, short
        // query acceleration — policy over the runtime's contexts.
        .target(name: "SlicehouseWorkload", dependencies: ["SlicehousePlatform", "SlicehouseTypes", "SlicehouseRuntime"]),
        // Stage 2: lexer, AST, parser.
        .target(name: "SlicehouseSQL", dependencies: ["SlicehouseTypes"]),
        // Stage 2: AWS — Signature Version 4, s3:// addresses and endpoints, how a statement's
        // credentials and IAM roles become keys (COPY and UNLOAD over S3, the Glue catalog).
        .target(name: "SlicehouseAWS", dependencies: ["SlicehouseTypes", .product(name: "Crypto", package: "swift-crypto"),
                                                     .product(name: "AsyncHTTPClient", package: "async-http-client"),
                                                     .product(name: "NIOCore", package: "swift-nio"),
                                                     .product(name: "NIOHTTP1", package: "swift-nio")]),
        // The lake (Redshift Spectrum): external catalogs — the Glue Data Catalog, or one kept in
        // the data directory — behind one seam.
        // Apache Iceberg tables: metadata files, Avro manifests, snapshots planned into data and delete files.
        .target(name: "SlicehouseIceberg", dependencies: ["SlicehouseTypes", "CAvro"]),
        .target(name: "SlicehouseLake", dependencies: ["SlicehousePlatform", "SlicehouseTypes", "SlicehouseAWS"]),
        // Stage 3: catalog (tables, columns, distribution, sort keys).
        .target(name: "SlicehouseCatalog", dependencies: ["SlicehouseTypes"]),
        // Stage 4: storage interface + in-memory column segments per slice; codecs.
        .target(name: "SlicehouseStorage",
                dependencies: ["SlicehousePlatform", "SlicehouseTypes", "SlicehouseRuntime", "SlicehouseCatalog", "CZstd", "CSnappy", "CPrefetch"]),
        // Stage 5: leader planner (binder, logical plan, optimizer, physical plan, EXPLAIN).
        // The plan contract: what the planner hands the executor — bound expressions, the
        // physical plan, aggregate and window descriptors, scalar function declarations, the
        // type rules both sides share. Execution sees this, never the binder or optimizer.
        .target(name: "SlicehousePlan", dependencies: ["SlicehouseTypes", "SlicehouseCatalog"]),
        // Built-in scalar functions, each declared once (names, resolution, kernel), and the
        // vector kernels they and the expression evaluator run.
        .target(name: "SlicehouseFunctions",
                dependencies: ["SlicehouseTypes", "SlicehouseSQL", "SlicehousePlan",
                               .product(name: "Crypto", package: "swift-crypto")]),
        .target(name: "SlicehousePlanner",
                dependencies: ["SlicehousePlatform", "SlicehouseTypes", "SlicehouseSQL", "SlicehouseCatalog", "SlicehousePlan", "SlicehouseFunctions"]),
        // Stage 6: vectorized execution on slices (kernels, operators, exchanges).
        .target(name: "SlicehouseExecution",
                dependencies: ["SlicehousePlatform", "SlicehouseTypes", "SlicehouseRuntime", "SlicehouseCatalog", "SlicehouseStorage",
                               "SlicehousePlan", "SlicehouseFunctions", "CPrefetch"]),
        // Stage 7: COPY: local files and S3 objects parsed straight into vectors.
        .target(name: "SlicehouseLoad",
                dependencies: ["SlicehousePlatform", "SlicehouseTypes", "SlicehouseRuntime", "SlicehouseCatalog", "SlicehouseStorage", "SlicehouseParquet",
                               "SlicehouseAWS", "CZlib", "CBzip2"]),
        .target(name: "SlicehouseParquet", dependencies: ["SlicehouseTypes", "CZlib", "CZstd", "CSnappy"]),
        // Stage 8: database, sessions, statement dispatch, system tables.
        .target(name: "SlicehouseEngine",
                dependencies: ["SlicehousePlatform", "SlicehouseTypes", "SlicehouseRuntime", "SlicehouseWorkload", "SlicehouseSQL", "SlicehouseCatalog",
                               "SlicehouseStorage", "SlicehousePlan", "SlicehouseFunctions", "SlicehousePlanner", "SlicehouseExecution", "SlicehouseLoad", "SlicehouseParquet",
                               "SlicehouseAWS", "SlicehouseLake", "SlicehouseIceberg", .product(name: "Crypto", package: "swift-crypto")]),
        // Stage 9: the server — PostgreSQL's wire protocol (v3) on swift-nio, TLS, authentication,
        // one Session per connection.
        .target(name: "SlicehouseServer",
                dependencies: ["SlicehousePlatform", "SlicehouseTypes", "SlicehouseRuntime", "SlicehouseSQL", "SlicehouseCatalog", "SlicehouseEngine",
                               .product(name: "NIOCore", package: "swift-nio"),
                               .product(name: "NIOPosix", package: "swift-nio"),
                               .product(name: "NIOSSL", package: "swift-nio-ssl"),
                               .product(name: "Crypto", package: "swift-crypto"),
                               .product(name: "X509", package: "swift-certificates"),
                               .product(name: "SwiftASN1", package: "swift-asn1")]),
        // sqllogictest runner (used by the CLI and the test suite).
        .target(name: "SlicehouseSQLLogicTest",
                dependencies: ["SlicehouseTypes", "SlicehouseEngine", .product(name: "Crypto", package: "swift-crypto")]),
        // The shell: psql's splitting, meta-commands and printing over a ShellBackend — the
        // in-process Session, or a running server through PostgresNIO (`slicehouse -h HOST`).
        .target(name: "SlicehouseShell",
                dependencies: ["SlicehousePlatform", "SlicehouseTypes", "SlicehouseSQL", "SlicehouseEngine",
                               .product(name: "PostgresNIO", package: "postgres-nio"),
                               .product(name: "NIOCore", package: "swift-nio"),
                               .product(name: "NIOPosix", package: "swift-nio")]),
        // TPC-H data generator (dbgen byte for byte; `slicehouse datagen tpch`).
        .target(name: "SlicehouseDatagen"),
        // TPC-H benchmark runner (`slicehouse bench tpch`; DuckDB side by side).
        .target(name: "SlicehouseBench", dependencies: ["SlicehouseTypes", "SlicehouseEngine", "SlicehouseRuntime", "SlicehouseDatagen",
                                                       "SlicehouseAWS"],
                // The schemas, queries, reference answers and DuckDB scripts, read at run time
                // (`BenchResources`): copied beside the binary as Slicehouse_SlicehouseBench.resources.
                resources: [.copy("Resources")]),
        // Fuzz targets (`slicehouse fuzz`, and libFuzzer through slicehouse-libfuzzer).
        .target(name: "SlicehouseFuzz",
                dependencies: ["SlicehousePlatform", "SlicehouseTypes", "SlicehouseRuntime", "SlicehouseSQL", "SlicehouseCatalog", "SlicehouseStorage",
                               "SlicehouseLoad", "SlicehouseParquet", "SlicehouseEngine", "SlicehouseBench"]),
        // libFuzzer entry points; scripts/fuzz.sh builds it with -sanitize=fuzzer.
        .executableTarget(name: "slicehouse-libfuzzer", dependencies: ["SlicehouseFuzz"]),
        // Stage 10: the command-line tool (shell, -c/-f, serve, sqllogictest subcommand).
        .executableTarget(name: "slicehouse",
                          dependencies: ["SlicehouseEngine", "SlicehouseRuntime", "SlicehouseShell", "SlicehouseSQLLogicTest", "SlicehouseDatagen", "SlicehouseBench", "CEdit",
                                         "SlicehouseFuzz", "SlicehouseServer", "SlicehouseAWS",
                                         .product(name: "ArgumentParser", package: "swift-argument-parser")]),

        .testTarget(name: "SlicehouseTypesTests", dependencies: ["SlicehouseTypes"]),
        .testTarget(name: "SlicehouseRuntimeTests", dependencies: ["SlicehousePlatform", "SlicehouseTypes", "SlicehouseRuntime"]),
        .testTarget(name: "SlicehouseWorkloadTests", dependencies: ["SlicehousePlatform", "SlicehouseTypes", "SlicehouseRuntime", "SlicehouseWorkload"]),
        .testTarget(name: "SlicehouseDatagenTests", dependencies: ["SlicehouseDatagen"]),
        .testTarget(name: "SlicehouseBenchTests", dependencies: ["SlicehouseTypes", "SlicehouseEngine", "SlicehouseBench"]),
        .testTarget(name: "SlicehouseExecutionTests",
                    dependencies: ["SlicehouseTypes", "SlicehousePlan", "SlicehouseFunctions", "SlicehousePlanner", "SlicehouseExecution"]),
        .testTarget(name: "SlicehouseOperatorTests",
                    dependencies: ["SlicehouseTypes", "SlicehouseRuntime", "SlicehouseStorage", "SlicehousePlan", "SlicehouseFunctions",
                                   "SlicehousePlanner", "SlicehouseExecution"]),
        .testTarget(name: "SlicehouseWindowTests",
                    dependencies: ["SlicehouseTypes", "SlicehouseRuntime", "SlicehousePlan", "SlicehousePlanner", "SlicehouseExecution"]),
        .testTarget(name: "SlicehouseSQLTests", dependencies: ["SlicehouseTypes", "SlicehouseSQL"]),
        // Test helpers several test targets share (moto's S3 server for the S3 tests).
        .target(name: "SlicehouseTestSupport", dependencies: ["SlicehouseAWS"], path: "Tests/SlicehouseTestSupport"),
        .testTarget(name: "SlicehouseAWSTests", dependencies: ["SlicehouseAWS", "SlicehouseTestSupport"]),
        .testTarget(name: "SlicehouseIcebergTests", dependencies: ["SlicehouseIceberg", "SlicehouseTypes"], exclude: ["fixtures"]),
        .testTarget(name: "SlicehouseLakeTests", dependencies: ["SlicehouseLake", "SlicehouseAWS", "SlicehouseTypes", "SlicehouseTestSupport"]),
        .testTarget(name: "SlicehousePlannerTests", dependencies: ["SlicehousePlan", "SlicehousePlanner", "SlicehouseCatalog", "SlicehouseTypes"]),
        .testTarget(name: "SlicehouseStorageTests", dependencies: ["SlicehouseTypes", "SlicehouseRuntime", "SlicehouseCatalog", "SlicehouseStorage"]),
        .testTarget(name: "SlicehouseLoadTests",
                    dependencies: ["SlicehouseTypes", "SlicehouseRuntime", "SlicehouseCatalog", "SlicehouseStorage",
                                   "SlicehouseLoad", "SlicehouseParquet", "SlicehouseAWS", "SlicehouseTestSupport"],
                    exclude: ["Fixtures"]),
        .testTarget(name: "SlicehouseParquetTests", dependencies: ["SlicehouseTypes", "SlicehouseParquet"]),
        .testTarget(name: "SlicehouseFuzzTests", dependencies: ["SlicehouseFuzz"]),
        .testTarget(name: "SlicehouseServerTests",
                    dependencies: ["SlicehouseTypes", "SlicehouseServer", "SlicehouseEngine", "SlicehouseCatalog",
                                   .product(name: "Crypto", package: "swift-crypto"),
                                   .product(name: "NIOCore", package: "swift-nio"),
                                   .product(name: "NIOEmbedded", package: "swift-nio")]),
        .testTarget(name: "SlicehouseEngineTests",
                    dependencies: ["SlicehouseTypes", "SlicehouseRuntime", "SlicehouseSQL", "SlicehouseStorage",
                                   "SlicehouseEngine", "SlicehousePlan", "SlicehouseExecution", "SlicehouseShell",
                                   "SlicehouseSQLLogicTest", "SlicehouseDatagen",
                                   "SlicehouseParquet", .product(name: "NIOCore", package: "swift-nio")],
                    exclude: ["sql", "sqlite", "catalog"]),
    ]
)

// The vector kernels are written for the loop vectorizer; on x86-64 it targets Haswell's
// instruction set (x86-64-v3: AVX2, BMI2, FMA; Intel 2013 and AMD 2015 on, every EPYC),
// whose 256-bit lanes and 64-bit compares the decimal, comparison and hash kernels use.
// `SLICEHOUSE_PORTABLE=1 swift build ...` builds for any x86-64 (SSE2) instead.
#if arch(x86_64)
if Context.environment["SLICEHOUSE_PORTABLE"] == nil {
    for target in package.targets where target.type != .system {
        target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-target-cpu", "haswell"])]
    }
}
#endif
