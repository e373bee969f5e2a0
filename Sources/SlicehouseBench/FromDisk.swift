// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseEngine
import SlicehouseTypes

/// `bench tpch --from-disk`: every run of a query is a process of its own that opens the
/// loaded data directory, runs the query once and exits, so nothing of the load or of an
/// earlier query (decoded blocks, freed pages, statistics) helps it. The child is
/// `slicehouse bench tpch-query`, which prints one `FreshProcessRun` as a JSON line.
public struct FreshProcessRun: Codable, Sendable, Equatable {
    /// Time of `Session.execute` in the child (opening the database is not counted).
    public var seconds: Double
    /// CPU time of the whole process (user + system, every thread) during
    /// `Session.execute` — with `seconds`, how busy the cores were (nil: not measured).
    public var cpuSeconds: Double?
    /// Time the child took to open the data directory and connect, before the query (nil:
    /// not measured).
    public var openSeconds: Double?
    public var rows: Int
    /// The child's peak resident set size since it started (VmHWM: getrusage would
    /// count the parent's, whose memory the child shares until it execs).
    public var peakRSSBytes: Int64
    public var spilledBytes: Int64
    public var columns: [String]
    /// What the answer check needs of each column's type (`CheckType`).
    public var checkTypes: [String]
    public var result: [[String?]]
    /// The query's error; the other fields are then empty.
    public var error: String?

    public init(seconds: Double, rows: Int, peakRSSBytes: Int64, spilledBytes: Int64,
                columns: [String], checkTypes: [String], result: [[String?]], error: String? = nil) {
        self.seconds = seconds; self.rows = rows; self.peakRSSBytes = peakRSSBytes
        self.spilledBytes = spilledBytes; self.columns = columns; self.checkTypes = checkTypes; self.result = result
        self.error = error
    }

    public static func failed(_ message: String) -> FreshProcessRun {
        FreshProcessRun(seconds: 0, rows: 0, peakRSSBytes: 0, spilledBytes: 0, columns: [],
                        checkTypes: [], result: [], error: message)
    }

    /// The answer with the column types the checker compares by.
    public var resultText: ResultText {
        ResultText(columns: columns, types: checkTypes.map(CheckType.type(of:)), rows: result)
    }

    /// One line of JSON (what the child prints).
    public func jsonLine() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self), let text = String(data: data, encoding: .utf8) else {
            return #"{"error":"could not encode the run"}"#
        }
        return text
    }

    /// Run query `number` once in this process over the data directory `directory`
    /// (what `slicehouse bench tpch-query` does). Errors come back in `error`.
    public static func run(query number: Int, directory: String, memoryBytes: Int?, cacheBytes: Int?) -> FreshProcessRun {
        do { _ = try BenchResources.require() } catch { return .failed("\(error)") }
        guard let sql = TPCHText.query(number) else { return .failed("query \(number) does not exist") }
        let db: Database
        let opening = ContinuousClock.now
        do {
            db = try Database(directory: directory, cacheBytes: cacheBytes, memoryBytes: memoryBytes)
        } catch {
            return .failed("could not open \(directory): \(TPCHBenchmark.message(error))")
        }
        let session = db.connect()
        let openSeconds = TPCHDataCache.elapsedSeconds(since: opening)
        let cpuBefore = processCPUSeconds()
        let start = ContinuousClock.now
        let last: StatementResult?
        do {
            last = try session.execute(sql).last
        } catch {
            return .failed(TPCHBenchmark.message(error))
        }
        let seconds = TPCHDataCache.elapsedSeconds(since: start)
        let cpu = processCPUSeconds() - cpuBefore
        guard let last else { return .failed("the query returned no result") }
        var run = FreshProcessRun(seconds: seconds, rows: last.rowCount,
                                  peakRSSBytes: MemoryProbe.peakBytes(),
                                  spilledBytes: Int64(session.lastSpilledBytes), columns: last.columns.map(\.name),
                                  checkTypes: last.columns.map { CheckType.code(of: $0.type) }, result: last.textRows())
        run.cpuSeconds = cpu
        run.openSeconds = openSeconds
        return run
    }

    /// User and system CPU seconds of this process so far (every thread).
    static func processCPUSeconds() -> Double {
        var usage = rusage()
        guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return 0 }
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}

/// The part of a column's type that `AnswerChecker.matches` compares by, as text that
/// crosses a process boundary: "decimal:S", "float", "integer", "text" or "other".
enum CheckType {
    static func code(of type: DataType) -> String {
        switch type {
        case .decimal(_, let scale): return "decimal:\(scale)"
        case .real, .double: return "float"
        case .smallint, .integer, .bigint: return "integer"
        case .char, .varchar: return "text"
        default: return "other"
        }
    }

    /// A type that compares as `code` says ("other": exact text only).
    static func type(of code: String) -> DataType {
        if code.hasPrefix("decimal:"), let scale = Int(code.dropFirst("decimal:".count)), (0...38).contains(scale) {
            return .decimal(precision: 38, scale: scale)
        }
        switch code {
        case "float": return .double
        case "integer": return .bigint
        case "text": return .varchar(DataType.maxVarcharLength)
        default: return .date
        }
    }
}

/// A `--db` directory the bench loaded, with what the load measured: a `--from-disk`
/// run may reuse it instead of loading again (`bench-tpch.json` beside the slices).
struct LoadedDatabaseMarker: Codable {
    static let fileName = "bench-tpch.json"
    var scaleFactor: Double
    var nodes: Int
    var slicesPerNode: Int
    var load: LoadFigures
    var sizeBytes: Int64

    static func path(in directory: String) -> String {
        (directory as NSString).appendingPathComponent(fileName)
    }

    /// The marker of `directory` when it was loaded at `scaleFactor`.
    static func read(directory: String, scaleFactor: Double) -> LoadedDatabaseMarker? {
        guard let marker = read(directory: directory), marker.scaleFactor == scaleFactor else { return nil }
        return marker
    }

    /// The marker of `directory`, whatever scale factor it was loaded at.
    static func read(directory: String) -> LoadedDatabaseMarker? {
        guard let data = FileManager.default.contents(atPath: path(in: directory)) else { return nil }
        return try? JSONDecoder().decode(LoadedDatabaseMarker.self, from: data)
    }

    func write(directory: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let file = Self.path(in: directory)
        do {
            try encoder.encode(self).write(to: URL(fileURLWithPath: file), options: .atomic)
        } catch {
            throw BenchError.io("could not write \(file): \(error.localizedDescription)")
        }
    }
}

/// Starts `slicehouse bench tpch-query` and reads its one line of JSON.
struct FreshProcessLauncher {
    var executable: String
    var directory: String
    var memoryBytes: Int?
    var cacheBytes: Int?

    func run(query number: Int) -> FreshProcessRun {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        var arguments = ["bench", "tpch-query", "--db", directory, "--query", String(number)]
        if let memoryBytes { arguments += ["--memory", String(memoryBytes)] }
        if let cacheBytes { arguments += ["--cache", String(cacheBytes)] }
        process.arguments = arguments
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        do {
            try process.run()
        } catch {
            return .failed("could not start \(executable): \(error.localizedDescription)")
        }
        // Read both pipes to their ends before waiting, so that a full pipe never stalls the child.
        let errorData = ReadAll(errors.fileHandleForReading)
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let stderrText = errorData.finish()
        process.waitUntilExit()
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
        if let line = lines.last(where: { $0.hasPrefix("{") }),
           let run = try? JSONDecoder().decode(FreshProcessRun.self, from: Data(line.utf8)) {
            return run
        }
        let reason = process.terminationReason == .uncaughtSignal
            ? "killed by signal \(process.terminationStatus)" : "exit status \(process.terminationStatus)"
        let detail = stderrText.trimmingCharacters(in: .whitespacesAndNewlines)
        return .failed("the query's process ended without an answer (\(reason))" + (detail.isEmpty ? "" : ": \(detail.suffix(500))"))
    }

    /// Reads a pipe to its end on another thread.
    final class ReadAll: @unchecked Sendable {
        private var data = Data()
        private let done = DispatchSemaphore(value: 0)
        init(_ handle: FileHandle) {
            Thread.detachNewThread { [self] in
                data = handle.readDataToEndOfFile()
                done.signal()
            }
        }
        func finish() -> String {
            done.wait()
            return String(decoding: data, as: UTF8.self)
        }
    }
}
