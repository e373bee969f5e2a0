// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import SlicehouseEngine
import SlicehouseRuntime
import SlicehouseSQLLogicTest

/// `slicehouse`: a psql-like shell (the default subcommand) and a sqllogictest runner.
@main
struct SlicehouseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "slicehouse",
        abstract: "Slicehouse: Amazon Redshift's SQL and behaviour in one process.",
        discussion: """
            Without a subcommand, starts the SQL shell (psql's habits: -c, -f, --csv, -A, -t, \\d, \\x, \\timing).
            The database lives in -D DIR, $SLICEHOUSE_DATA, or ~/.slicehouse/default; with -h HOST [-p PORT] [-U USER] [-d DB] the shell connects to a running server instead (slicehouse serve).
            'slicehouse help shell' lists the shell's options.
            """,
        subcommands: [ShellCommand.self, ServeCommand.self, SQLLogicTestCommand.self, DatagenCommand.self, BenchCommand.self, FuzzCommand.self,
                      AdviseCommand.self],
        defaultSubcommand: ShellCommand.self,
        // -h is the shell's server host (psql's); help is --help or -?.
        helpNames: [.long, .customShort("?")])

    static func main() {
        SystemMemory.tuneAllocator()   // before anything allocates much
        main(nil)
    }
}

/// Write a line to standard error.
func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
