// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import SlicehouseEngine

/// `slicehouse advise [-D DIR] [--queries N] [--apply]`: the distribution and sort key
/// advisor over a data directory's query log (`Session.adviseKeys`). Prints the
/// recommended changes, their ALTER TABLE statements and each query's predicted effect;
/// --apply runs the statements (then ANALYZE).
struct AdviseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "advise",
        abstract: "Recommend DISTKEY / DISTSTYLE / SORTKEY changes from the recent query log, with their predicted effect.",
        discussion: """
            Replays the SELECTs of the data directory's query log (STL_QUERY) through the planner \
            under candidate layouts of the tables they read, and prints the changes that cut the \
            bytes moved between slices and the blocks read, with the ALTER TABLE statements that \
            apply them and each query's effect. In SQL: SELECT slicehouse_advise(), or \
            SVV_ALTER_TABLE_RECOMMENDATIONS.
            """)

    @Option(name: [.customShort("D"), .customLong("data")],
            help: ArgumentHelp("Database directory (default: $SLICEHOUSE_DATA, else ~/.slicehouse/default).",
                               valueName: "dir"))
    var dataDirectory: String?

    @Option(name: .customLong("queries"), help: ArgumentHelp("How many of the latest logged queries to replay.", valueName: "N"))
    var queries = 1000

    @Flag(name: .customLong("apply"), help: "Run the recommended ALTER TABLE statements, then ANALYZE.")
    var apply = false

    func run() throws {
        guard queries > 0 else { throw ValidationError("--queries must be at least 1") }
        let directory = ShellCommand.directory(dataDirectory, inMemory: false)
        do {
            let database = try Database(directory: directory)
            let session = database.connect()
            let advice = try session.adviseKeys(limit: queries)
            print(advice.report, terminator: "")
            guard apply, !advice.changes.isEmpty else { return }
            print("\nApplying:")
            for change in advice.changes {
                for ddl in change.ddl {
                    print("  \(ddl);")
                    _ = try session.execute(ddl)
                }
            }
            _ = try session.execute("ANALYZE")
            print("Done.")
        } catch {
            printError("slicehouse advise: \(error)")
            throw ExitCode.failure
        }
    }
}
