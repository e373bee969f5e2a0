// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import SlicehouseEngine
import SlicehouseSQLLogicTest

/// `slicehouse sqllogictest PATH...`
struct SQLLogicTestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sqllogictest",
        abstract: "Run sqllogictest files (DuckDB style and the SQLite corpus format).",
        discussion: """
            Each file runs against a fresh in-memory database. Prints one line per failure \
            (file:line: message) and finally "N passed, N failed"; exits with status 1 if anything failed.
            """,
        helpNames: [.short, .long])

    @Argument(help: ArgumentHelp("Test files, or directories searched recursively for *.test.", valueName: "path"))
    var paths: [String]

    @Option(name: .customLong("nodes"), help: "Compute nodes of each test database.")
    var nodes: Int?

    @Option(name: .customLong("slices-per-node"), help: "Slices per node of each test database.")
    var slicesPerNode: Int?

    @Option(name: .customLong("slices"),
            help: "Total slices, as a shorthand: 1 → 1 node × 1 slice; even N → N/2 nodes × 2; odd N → N nodes × 1.")
    var slices: Int?

    @Option(name: .customLong("skip-list"),
            help: ArgumentHelp("Records not to run: lines `FILE:LINE[-LINE] reason` (see Tests/SlicehouseEngineTests/sqlite/skip.txt).",
                               valueName: "file"))
    var skipList: String?

    @Flag(name: [.customShort("v"), .customLong("verbose")],
          help: "Print each file's counts, and the SQL with expected and actual results of each failure.")
    var verbose = false

    func validate() throws {
        if let nodes, nodes < 1 || nodes > 128 { throw ValidationError("--nodes must be between 1 and 128") }
        if let slicesPerNode, slicesPerNode < 1 || slicesPerNode > 64 {
            throw ValidationError("--slices-per-node must be between 1 and 64")
        }
        if let slices, slices < 1 || slices > 1024 { throw ValidationError("--slices must be between 1 and 1024") }
    }

    /// The cluster layout from --slices, --nodes and --slices-per-node (the latter two win).
    var cluster: ClusterConfig {
        var config = ClusterConfig()
        if let slices {
            if slices == 1 {
                config = ClusterConfig(nodes: 1, slicesPerNode: 1)
            } else if slices % 2 == 0 {
                config = ClusterConfig(nodes: slices / 2, slicesPerNode: 2)
            } else {
                config = ClusterConfig(nodes: slices, slicesPerNode: 1)
            }
        }
        if let nodes { config.nodes = nodes }
        if let slicesPerNode { config.slicesPerNode = slicesPerNode }
        return config
    }

    func run() throws {
        var runner = SQLLogicTestRunner(cluster: cluster)
        if let skipList {
            do { runner.skipList = try SQLLogicTestSkipList(contentsOf: skipList) }
            catch { throw ValidationError("--skip-list \(skipList): \(error)") }
        }
        var total = SQLLogicTestSummary()
        let (files, missing) = SQLLogicTestRunner.testFiles(in: paths)
        for path in missing {
            print("\(path):0: no such file or directory")
            total.failed += 1
        }
        for file in files {
            let summary = runner.runFile(file)
            for failure in summary.failures {
                print(verbose ? failure.detailedDescription : failure.description)
            }
            if verbose {
                print("\(file): \(summary.summaryLine)" + (summary.skipped > 0 ? ", \(summary.skipped) skipped" : ""))
            }
            total.add(summary)
        }
        print(total.summaryLine + (total.skipped > 0 ? ", \(total.skipped) skipped" : ""))
        if total.failed > 0 { throw ExitCode(1) }
    }
}
