import ArgumentParser
import Foundation
import SlicehouseEngine
import SlicehouseSQLLogicTest

/// `slicehouse`: a psql-like shell (the default subcommand) and a sqllogictest runner.
@main
struct SlicehouseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "slicehouse",
        abstract: "Slicehouse: Amazon Redshift's SQL and behaviour in one process.",
        discussion: """
            Without a subcommand, starts the SQL shell (psql's habits: -c, -f, --csv, -A, -t, \\d, \\x, \\timing).
            The database lives in -D DIR, $SLICEHOUSE_DATA, or ~/.slicehouse/default.
            'slicehouse help shell' lists the shell's options.
            """,
        subcommands: [ShellCommand.self, SQLLogicTestCommand.self, DatagenCommand.self, BenchCommand.self],
        defaultSubcommand: ShellCommand.self)
}

/// Write a line to standard error.
func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
