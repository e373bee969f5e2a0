// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import SlicehouseDatagen
import SlicehouseBench
import SlicehouseEngine

/// `slicehouse datagen`: benchmark data generators.
struct DatagenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "datagen",
        abstract: "Generate benchmark data sets.",
        subcommands: [DatagenTPCHCommand.self],
        helpNames: [.short, .long])
}

/// `slicehouse datagen tpch --sf N --output DIR [--parts K] [--format tbl|csv|parquet] [--tables a,b]`
struct DatagenTPCHCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tpch",
        abstract: "Generate TPC-H tables, byte for byte as TPC's dbgen writes them.",
        discussion: """
            Writes region, nation, supplier, customer, part, partsupp, orders and lineitem as \
            <table>.tbl (dbgen's pipe-delimited text), <table>.csv (header line, RFC 4180 quoting) or \
            <table>.parquet (the .tbl rows in dbgen's order, loaded with COPY and written by UNLOAD's \
            Parquet writer: Snappy, DECIMAL/DATE logical types). \
            With --parts K, each table except region and nation is split like dbgen's -C K -S i \
            into <table>.tbl.1 ... <table>.tbl.K. SF 1 is about 1 GB of .tbl text.
            """)

    @Option(name: .customLong("sf"), help: ArgumentHelp("Scale factor (0.0001 to 100000).", valueName: "N"))
    var scaleFactor: Double = 1

    @Option(name: [.customShort("o"), .customLong("output")],
            help: ArgumentHelp("Output directory (created if missing).", valueName: "dir"))
    var output: String

    @Option(name: .customLong("parts"), help: ArgumentHelp("Files per table.", valueName: "K"))
    var parts: Int = 1

    @Option(name: .customLong("format"), help: ArgumentHelp("tbl, csv or parquet.", valueName: "format"))
    var format: String = "tbl"

    @Option(name: .customLong("tables"),
            help: ArgumentHelp("Comma-separated tables, or dbgen letters (r n s c P S O L); default all.",
                               valueName: "a,b"))
    var tables: String?

    @Option(name: .customLong("threads"), help: ArgumentHelp("Worker threads (default: all cores).", valueName: "N"))
    var threads: Int?

    func validate() throws {
        do {
            try TPCHGenerator(scaleFactor: scaleFactor).validate()
        } catch let error as DatagenError {
            throw ValidationError(error.description)
        }
        if parts < 1 || parts > 100_000 { throw ValidationError("--parts must be between 1 and 100000") }
        if let threads, threads < 1 || threads > 1024 { throw ValidationError("--threads must be between 1 and 1024") }
        _ = try selectedFormat()
        _ = try selectedTables()
    }

    func run() throws {
        let format = try selectedFormat()
        let tables = try selectedTables()
        var generator = TPCHGenerator(scaleFactor: scaleFactor)
        if let threads { generator.threadCount = threads }

        let progress = DatagenProgressLine(enabled: isatty(STDERR_FILENO) == 1)
        let started = ContinuousClock.now
        progress.message("building the text pool")
        TPCHGenerator.prepareTextPool()
        let textPoolSeconds = DatagenTPCHCommand.seconds(since: started)
        var summaries: [DatagenTableSummary]
        // Parquet: the .tbl text goes to a staging folder first, then through COPY and UNLOAD.
        let staging = (output as NSString).appendingPathComponent(".tbl-staging")
        do {
            let text: DatagenFormat
            if case .text(let f) = format { text = f } else { text = .tbl }
            summaries = try generator.writeTables(tables, to: format == .parquet ? staging : output,
                                                  format: text, parts: parts) { update in
                progress.show(update)
            }
        } catch let error as DatagenError {
            progress.clear()
            printError("slicehouse datagen: \(error.description)")
            throw ExitCode.failure
        }
        if format == .parquet {
            defer { try? FileManager.default.removeItem(atPath: staging) }
            do {
                try DatagenTPCHCommand.writeParquet(tables, from: staging, to: output) { progress.message($0) }
            } catch {
                progress.clear()
                printError("slicehouse datagen: \(error)")
                throw ExitCode.failure
            }
            for i in summaries.indices {
                let path = (output as NSString).appendingPathComponent("\(summaries[i].table.rawValue).parquet")
                let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
                summaries[i].bytes = Int64(size ?? 0)
                summaries[i].files = [path]
            }
        }
        progress.clear()
        print(DatagenTPCHCommand.summary(summaries, textPoolSeconds: textPoolSeconds,
                                         seconds: DatagenTPCHCommand.seconds(since: started),
                                         scaleFactor: scaleFactor, output: output))
    }

    /// Load each table's .tbl into an in-memory one-slice database (no sort or
    /// distribution keys, so rows keep dbgen's order) and UNLOAD it as one Parquet file.
    static func writeParquet(_ tables: [TPCHTable], from staging: String, to output: String,
                             message: (String) -> Void) throws {
        _ = try BenchResources.require()
        let schema = TPCHText.schemaSQL
            .split(separator: "\n").filter { !$0.hasPrefix("--") }.joined(separator: "\n")
            .replacingOccurrences(of: #"\s+(DISTSTYLE ALL|DISTKEY\(\w+\)|SORTKEY\(\w+\))"#, with: "",
                                  options: .regularExpression)
        for table in tables {
            message("writing \(table.rawValue).parquet")
            let session = try Database(cluster: ClusterConfig(nodes: 1, slicesPerNode: 1)).connect()
            _ = try session.execute(schema)
            let source = (staging as NSString).appendingPathComponent("\(table.rawValue).tbl")
            _ = try session.execute("COPY \(table.rawValue) FROM '\(source)'")
            let prefix = (output as NSString).appendingPathComponent("\(table.rawValue)_")
            _ = try session.execute("UNLOAD ('select * from \(table.rawValue)') TO '\(prefix)' FORMAT AS PARQUET PARALLEL OFF ALLOWOVERWRITE")
            let written = prefix + "000.parquet"
            let target = (output as NSString).appendingPathComponent("\(table.rawValue).parquet")
            try? FileManager.default.removeItem(atPath: target)
            try FileManager.default.moveItem(atPath: written, toPath: target)
        }
    }

    static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// What `--format` asks for: one of the generator's text formats, or Parquet (the
    /// generator's `.tbl` text converted with COPY and UNLOAD).
    enum OutputFormat: Equatable {
        case text(DatagenFormat)
        case parquet
    }

    private func selectedFormat() throws -> OutputFormat {
        let name = format.lowercased()
        if name == "parquet" {
            if parts > 1 { throw ValidationError("--format parquet writes one file per table: --parts must be 1") }
            return .parquet
        }
        guard let text = DatagenFormat(rawValue: name) else {
            throw ValidationError("unknown --format '\(format)': use tbl, csv or parquet")
        }
        return .text(text)
    }

    private func selectedTables() throws -> [TPCHTable] {
        guard let tables else { return TPCHTable.allCases }
        var selected: [TPCHTable] = []
        for name in tables.split(separator: ",", omittingEmptySubsequences: true) {
            guard let table = TPCHTable(name: String(name)) else {
                throw ValidationError("unknown table '\(name)' in --tables: use region, nation, supplier, customer, "
                                      + "part, partsupp, orders, lineitem")
            }
            if !selected.contains(table) { selected.append(table) }
        }
        if selected.isEmpty { throw ValidationError("--tables names no table") }
        // dbgen's order, whatever order they were given in.
        return TPCHTable.allCases.filter(selected.contains)
    }

    /// The closing table: rows, bytes and seconds per table, then totals.
    static func summary(_ summaries: [DatagenTableSummary], textPoolSeconds: Double, seconds: Double,
                        scaleFactor: Double, output: String) -> String {
        func pad(_ text: String, _ width: Int, left: Bool = false) -> String {
            let padding = String(repeating: " ", count: max(0, width - text.count))
            return left ? text + padding : padding + text
        }
        func fixed(_ value: Double) -> String {
            let hundredths = Int((value * 100).rounded())
            let fraction = hundredths % 100
            return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
        }
        var lines = ["TPC-H SF \(scaleFactor) in \(output)",
                     pad("table", 10, left: true) + pad("rows", 12) + pad("bytes", 15) + pad("files", 7) + pad("seconds", 9)]
        lines.append(pad("text pool", 10, left: true) + pad("", 12) + pad("", 15) + pad("", 7)
                     + pad(fixed(textPoolSeconds), 9))
        for summary in summaries {
            lines.append(pad(summary.table.rawValue, 10, left: true) + pad("\(summary.rows)", 12)
                         + pad("\(summary.bytes)", 15) + pad("\(summary.files.count)", 7) + pad(fixed(summary.seconds), 9))
        }
        let rows = summaries.reduce(Int64(0)) { $0 + $1.rows }
        let bytes = summaries.reduce(Int64(0)) { $0 + $1.bytes }
        let files = summaries.reduce(0) { $0 + $1.files.count }
        lines.append(pad("total", 10, left: true) + pad("\(rows)", 12) + pad("\(bytes)", 15) + pad("\(files)", 7)
                     + pad(fixed(seconds), 9))
        return lines.joined(separator: "\n")
    }
}

/// A one-line progress display on standard error (only when it is a terminal),
/// redrawn at most ten times a second.
final class DatagenProgressLine {
    private let enabled: Bool
    private var lastDraw = ContinuousClock.now - .seconds(1)
    private var visible = false

    init(enabled: Bool) { self.enabled = enabled }

    func show(_ update: DatagenProgress) {
        guard enabled else { return }
        let now = ContinuousClock.now
        let finished = update.unitsDone >= update.unitsTotal
        guard finished || now - lastDraw >= .milliseconds(100) else { return }
        lastDraw = now
        let percent = update.unitsTotal > 0 ? Int(update.unitsDone * 100 / update.unitsTotal) : 100
        let part = update.parts > 1 ? " part \(update.part)/\(update.parts)" : ""
        let megabytes = update.bytesWritten / 1_000_000
        let line = "\(update.table.rawValue)\(part): \(percent)%  \(update.rowsWritten) rows  \(megabytes) MB"
        FileHandle.standardError.write(Data(("\r\u{1B}[K" + line).utf8))
        visible = true
    }

    func message(_ text: String) {
        guard enabled else { return }
        FileHandle.standardError.write(Data(("\r\u{1B}[K" + text).utf8))
        visible = true
    }

    func clear() {
        guard enabled && visible else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
        visible = false
    }
}
