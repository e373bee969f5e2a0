import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif
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
            The database lives in -D DIR, $SLICEHOUSE_DATA, or ~/.slicehouse/default; with -h HOST [-p PORT] [-U USER] [-d DB] the shell connects to a running server instead (slicehouse serve).
            'slicehouse help shell' lists the shell's options.
            """,
        subcommands: [ShellCommand.self, ServeCommand.self, SQLLogicTestCommand.self, DatagenCommand.self, BenchCommand.self, FuzzCommand.self,
                      AdviseCommand.self],
        defaultSubcommand: ShellCommand.self,
        // -h is the shell's server host (psql's); help is --help or -?.
        helpNames: [.long, .customShort("?")])

    static func main() {
        tuneAllocator()
        main(nil)
    }
}

/// glibc's malloc serves blocks above 128 KB to 32 MB with fresh mmap()s and unmaps
/// them on free, so every chunk of a COPY or a query's large buffers is zeroed page by
/// page by the kernel (a third of a load's system time). Keep large blocks in the heap
/// for reuse, and give memory back only when much of it is free.
/// (`mallopt` is looked up at run time: Swift's Glibc module does not import malloc.h.)
private func tuneAllocator() {
    #if canImport(Glibc)
    typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
    guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, "mallopt") else { return }
    let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
    let trimThreshold: Int32 = -1, mmapThreshold: Int32 = -3  // M_TRIM_THRESHOLD, M_MMAP_THRESHOLD
    _ = mallopt(mmapThreshold, 1 << 30)
    _ = mallopt(trimThreshold, 512 << 20)
    #endif
}

/// Write a line to standard error.
func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
