// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseEngine
import SlicehouseTypes
import Crypto

/// One failed record.
public struct SQLLogicTestFailure: Sendable, Equatable, CustomStringConvertible {
    public var file: String
    /// Line of the record's `statement`/`query` line (0 when the file itself failed).
    public var line: Int
    /// One-line explanation.
    public var message: String
    public var sql: String?
    /// Expected result lines (or expected error), when relevant.
    public var expected: [String]?
    /// Actual result lines (rows with TAB-separated values), or the actual error.
    public var actual: [String]?

    public init(file: String, line: Int, message: String, sql: String? = nil,
                expected: [String]? = nil, actual: [String]? = nil) {
        self.file = file
        self.line = line
        self.message = message
        self.sql = sql
        self.expected = expected
        self.actual = actual
    }

    /// `file:line: message` on one line.
    public var description: String {
        "\(file):\(line): \(message.replacingOccurrences(of: "\n", with: "\\n"))"
    }

    /// The one-line description followed by the SQL and the expected/actual output.
    public var detailedDescription: String {
        var s = description + "\n"
        if let sql { s += "  SQL:\n" + indent(sql) }
        if let expected { s += "  expected:\n" + indent(expected.joined(separator: "\n")) }
        if let actual { s += "  actual:\n" + indent(actual.joined(separator: "\n")) }
        return s
    }

    private func indent(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { "    " + $0 }.joined(separator: "\n") + "\n"
    }
}

/// Counts of a run. `passed`/`failed` count statement and query records
/// (plus parse errors and unreadable files as failures); skipped records are
/// counted apart.
public struct SQLLogicTestSummary: Sendable, Equatable {
    public var passed = 0
    public var failed = 0
    public var skipped = 0
    public var files = 0
    public var failures: [SQLLogicTestFailure] = []

    public init() {}

    public var succeeded: Bool { failed == 0 }

    /// `N passed, N failed`.
    public var summaryLine: String { "\(passed) passed, \(failed) failed" }

    public mutating func add(_ other: SQLLogicTestSummary) {
        passed += other.passed
        failed += other.failed
        skipped += other.skipped
        files += other.files
        failures += other.failures
    }

    mutating func fail(_ failure: SQLLogicTestFailure) {
        failed += 1
        failures.append(failure)
    }
}

/// Runs sqllogictest scripts, each against a fresh database. The accepted
/// syntax and the exact comparison rules are documented on `SQLLogicTest`.
public struct SQLLogicTestRunner {
    /// Engine names Slicehouse answers to in `skipif`/`onlyif`.
    public static let defaultEngineNames: Set<String> = ["postgresql", "slicehouse", "redshift"]

    public var engineNames: Set<String> = SQLLogicTestRunner.defaultEngineNames
    /// Records not run (counted as skipped), by file name and line: the exceptions a
    /// foreign corpus needs, each with its reason (`SQLLogicTestSkipList`).
    public var skipList = SQLLogicTestSkipList()
    /// Creates the connection one file runs against.
    public var makeExecutor: () throws -> any SQLExecutor
    public var parser = SQLLogicTestParser()

    /// Each file gets a new in-memory database laid out as `cluster`.
    public init(cluster: ClusterConfig = ClusterConfig()) {
        self.makeExecutor = { try Database(directory: nil, cluster: cluster).connect() }
    }

    /// Each file gets whatever `makeExecutor` returns (tests use fakes).
    public init(makeExecutor: @escaping () throws -> any SQLExecutor) {
        self.makeExecutor = makeExecutor
    }

    // MARK: - Files

    /// The `.test` files under `paths`: files are taken as given, directories
    /// are searched recursively; the result is sorted within each directory.
    /// Paths that do not exist are returned in `missing`.
    public static func testFiles(in paths: [String]) -> (files: [String], missing: [String]) {
        var files: [String] = []
        var missing: [String] = []
        let fm = FileManager.default
        for path in paths {
            var isDirectory: ObjCBool = false
            guard fm.fileExists(atPath: path, isDirectory: &isDirectory) else {
                missing.append(path)
                continue
            }
            if !isDirectory.boolValue {
                files.append(path)
                continue
            }
            var found: [String] = []
            if let enumerator = fm.enumerator(atPath: path) {
                while let relative = enumerator.nextObject() as? String {
                    if relative.hasSuffix(".test") {
                        let full = path.hasSuffix("/") ? path + relative : path + "/" + relative
                        var sub: ObjCBool = false
                        if fm.fileExists(atPath: full, isDirectory: &sub), !sub.boolValue { found.append(full) }
                    }
                }
            }
            files += found.sorted()
        }
        return (files, missing)
    }

    /// Run every `.test` file under `paths`. `onFile` is called after each file.
    public func runFiles(_ paths: [String],
                         onFile: ((String, SQLLogicTestSummary) -> Void)? = nil) -> SQLLogicTestSummary {
        var total = SQLLogicTestSummary()
        let (files, missing) = SQLLogicTestRunner.testFiles(in: paths)
        for path in missing {
            total.fail(SQLLogicTestFailure(file: path, line: 0, message: "no such file or directory"))
        }
        for file in files {
            let summary = runFile(file)
            onFile?(file, summary)
            total.add(summary)
        }
        return total
    }

    /// Parse and run one file.
    public func runFile(_ path: String) -> SQLLogicTestSummary {
        let script: SQLLogicTestScript
        do {
            script = try parser.parseFile(path)
        } catch {
            var summary = SQLLogicTestSummary()
            summary.files = 1
            summary.fail(SQLLogicTestFailure(file: path, line: 0, message: "cannot read file: \(error)"))
            return summary
        }
        return run(script)
    }

    /// Run a parsed script against a fresh connection from `makeExecutor`.
    public func run(_ script: SQLLogicTestScript) -> SQLLogicTestSummary {
        do {
            return run(script, executor: try makeExecutor())
        } catch {
            var summary = SQLLogicTestSummary()
            summary.files = 1
            summary.fail(SQLLogicTestFailure(file: script.path, line: 0,
                                             message: "cannot create database: \(SQLLogicTestRunner.errorText(error))"))
            return summary
        }
    }

    /// What a script writes for its own scratch directory.
    public static let testDirectoryMarker = "__TEST_DIR__"

    /// Run a parsed script against `executor`.
    public func run(_ script: SQLLogicTestScript, executor first: any SQLExecutor) -> SQLLogicTestSummary {
        var summary = SQLLogicTestSummary()
        var executor = first
        var connections: [String: any SQLExecutor] = ["default": first]
        summary.files = 1
        var skipping = false
        var labels: [String: (hash: String, line: Int)] = [:]
        let file = script.path
        // `__TEST_DIR__` in SQL: a directory of the file's own, made when first named and
        // removed when the file is done (DuckDB's convention).
        var testDirectory: String?
        defer { if let testDirectory { try? FileManager.default.removeItem(atPath: testDirectory) } }
        func substituted(_ sql: String) -> String {
            guard sql.contains(Self.testDirectoryMarker) else { return sql }
            if testDirectory == nil {
                let dir = (NSTemporaryDirectory() as NSString).appendingPathComponent("slicehouse-slt-\(UUID().uuidString)")
                try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
                testDirectory = dir
            }
            return sql.replacingOccurrences(of: Self.testDirectoryMarker, with: testDirectory ?? "")
        }

        records: for record in script.records {
            let excluded = record.isExcluded(forEngines: engineNames)
            switch record.kind {
            case .skipMode(let on):
                if !excluded { skipping = on }
                continue records
            case .halt:
                if !excluded && !skipping { break records }
                continue records
            case .hashThreshold, .require:
                continue records
            case .connection(let name):
                if excluded || skipping { continue records }
                if let c = connections[name] {
                    executor = c
                } else {
                    do {
                        executor = try first.newConnection()
                        connections[name] = executor
                    } catch {
                        summary.fail(SQLLogicTestFailure(file: file, line: record.line,
                                                         message: "cannot open connection \(name): \(SQLLogicTestRunner.errorText(error))"))
                        break records
                    }
                }
                continue records
            case .parseError(let message):
                summary.fail(SQLLogicTestFailure(file: file, line: record.line, message: "parse error: \(message)"))
                continue records
            case .statement, .query:
                break
            }
            if skipping || excluded || skipList.skips(file: file, line: record.line) {
                summary.skipped += 1
                continue
            }
            let failure: SQLLogicTestFailure?
            switch record.kind {
            case .statement(var statement):
                statement.sql = substituted(statement.sql)
                failure = runStatement(statement, line: record.line, file: file, executor: executor)
            case .query(var query):
                query.sql = substituted(query.sql)
                failure = runQuery(query, line: record.line, file: file, executor: executor, labels: &labels)
            default:
                failure = nil
            }
            if let failure { summary.fail(failure) } else { summary.passed += 1 }
        }
        return summary
    }

    // MARK: - Statements

    /// Error text as matched by `statement error`: `ERROR:  message` plus any DETAIL line.
    public static func errorText(_ error: any Error) -> String {
        if let e = error as? SQLError {
            var s = "ERROR:  \(e.message)"
            if let detail = e.detail { s += "\nDETAIL:  \(detail)" }
            if let hint = e.hint { s += "\nHINT:  \(hint)" }
            return s
        }
        return "ERROR:  \(error)"
    }

    static func matches(_ expected: SQLLogicTestRecord.ExpectedError, errorText: String) -> Bool {
        switch expected {
        case .any:
            return true
        case .contains(let text):
            return errorText.contains(text)
        case .regex(let pattern):
            guard let regex = try? Regex(pattern) else { return false }
            return errorText.contains(regex)
        case .notRegex(let pattern):
            guard let regex = try? Regex(pattern) else { return false }
            return !errorText.contains(regex)
        }
    }

    private static func describe(_ expected: SQLLogicTestRecord.ExpectedError) -> String {
        switch expected {
        case .any: return "an error"
        case .contains(let text): return "an error containing \"\(text)\""
        case .regex(let p): return "an error matching /\(p)/"
        case .notRegex(let p): return "an error not matching /\(p)/"
        }
    }

    /// The row count of a command tag ("INSERT 0 5" → 5), or the rows returned.
    static func affectedRows(_ result: StatementResult) -> Int? {
        if result.returnsRows { return result.rowCount }
        return result.tag.split(separator: " ").last.flatMap { Int($0) }
    }

    func runStatement(_ statement: SQLLogicTestRecord.Statement, line: Int, file: String,
                      executor: any SQLExecutor) -> SQLLogicTestFailure? {
        let sql = statement.sql
        func failure(_ message: String, expected: [String]? = nil, actual: [String]? = nil) -> SQLLogicTestFailure {
            SQLLogicTestFailure(file: file, line: line, message: message, sql: sql, expected: expected, actual: actual)
        }
        let results: [StatementResult]
        do {
            results = try executor.execute(sql)
        } catch {
            let text = SQLLogicTestRunner.errorText(error)
            switch statement.expectation {
            case .ok, .count:
                return failure("statement failed: \(text)", actual: [text])
            case .error(let expected), .maybe(let expected):
                if SQLLogicTestRunner.matches(expected, errorText: text) { return nil }
                return failure("expected \(SQLLogicTestRunner.describe(expected)), got: \(text)",
                               expected: [SQLLogicTestRunner.describe(expected)], actual: [text])
            }
        }
        switch statement.expectation {
        case .ok, .maybe:
            return nil
        case .error(let expected):
            return failure("statement succeeded but \(SQLLogicTestRunner.describe(expected)) was expected",
                           expected: [SQLLogicTestRunner.describe(expected)], actual: results.map(\.tag))
        case .count(let n):
            let actual = results.last.flatMap(SQLLogicTestRunner.affectedRows)
            if actual == n { return nil }
            return failure("expected \(n) affected rows, got \(actual.map(String.init) ?? "none")",
                           expected: [String(n)], actual: [actual.map(String.init) ?? "none"])
        }
    }

    // MARK: - Queries

    /// One result value: the text compared, and the value it came from.
    struct Cell {
        var text: String
        var value: Value
        var type: DataType
        var column: SQLLogicTestRecord.ColumnType
    }

    func runQuery(_ query: SQLLogicTestRecord.Query, line: Int, file: String, executor: any SQLExecutor,
                  labels: inout [String: (hash: String, line: Int)]) -> SQLLogicTestFailure? {
        func failure(_ message: String, expected: [String]? = nil, actual: [String]? = nil) -> SQLLogicTestFailure {
            SQLLogicTestFailure(file: file, line: line, message: message, sql: query.sql, expected: expected, actual: actual)
        }
        let results: [StatementResult]
        do {
            results = try executor.execute(query.sql)
        } catch {
            let text = SQLLogicTestRunner.errorText(error)
            return failure("query failed: \(text)", actual: [text])
        }
        guard let result = results.last(where: { $0.returnsRows }) ?? results.last else {
            return failure("query produced no result")
        }
        let expectedColumns = query.columnTypes.count
        if result.columns.count != expectedColumns {
            return failure("wrong number of columns: expected \(expectedColumns) (\(String(query.columnTypes.map(\.letter)))), got \(result.columns.count)")
        }
        let columnCount = max(expectedColumns, 1)
        let standard = SQLLogicTestRunner.cells(of: result, types: query.columnTypes, style: .standard,
                                                sortMode: query.sortMode)

        var resultFailure: SQLLogicTestFailure? = nil
        if let expected = query.expected {
            switch expected {
            case .hash(let count, let md5):
                let hashes = [standard, SQLLogicTestRunner.cells(of: result, types: query.columnTypes, style: .classic,
                                                                 sortMode: query.sortMode)]
                    .map { cells in (cells.count, SQLLogicTestRunner.hash(cells.map(\.text))) }
                if !hashes.contains(where: { $0.0 == count && $0.1 == md5 }) {
                    let got = "\(hashes[0].0) values hashing to \(hashes[0].1)"
                    let want = "\(count) values hashing to \(md5)"
                    resultFailure = failure("wrong result hash: expected \"\(want)\", got \"\(got)\"",
                                            expected: [want], actual: SQLLogicTestRunner.rowLines(standard, columns: columnCount))
                }
            case .values(let lines):
                let values = SQLLogicTestRunner.expectedValues(lines, columns: expectedColumns, actualCount: standard.count)
                let sortedExpected = SQLLogicTestRunner.sort(values, columns: columnCount, mode: query.sortMode)
                let first = SQLLogicTestRunner.compare(expected: sortedExpected, actual: standard, columns: columnCount)
                if let message = first {
                    let classic = SQLLogicTestRunner.cells(of: result, types: query.columnTypes, style: .classic,
                                                           sortMode: query.sortMode)
                    if SQLLogicTestRunner.compare(expected: sortedExpected, actual: classic, columns: columnCount) != nil {
                        resultFailure = failure(message, expected: lines,
                                                actual: SQLLogicTestRunner.rowLines(standard, columns: columnCount))
                    }
                }
            }
        }
        if let resultFailure { return resultFailure }

        if let label = query.label {
            let hash = SQLLogicTestRunner.hash(standard.map(\.text))
            if let previous = labels[label] {
                if previous.hash != hash {
                    return failure("result differs from the query labelled \"\(label)\" at line \(previous.line)",
                                   actual: SQLLogicTestRunner.rowLines(standard, columns: columnCount))
                }
            } else {
                labels[label] = (hash, line)
            }
        }
        return nil
    }

    /// Result values in comparison order (sorted as `sortMode` asks), row-major.
    static func cells(of result: StatementResult, types: [SQLLogicTestRecord.ColumnType],
                      style: SQLLogicTestValueFormatter.Style,
                      sortMode: SQLLogicTestRecord.SortMode) -> [Cell] {
        let columns = result.columns
        var rows: [[Cell]] = []
        rows.reserveCapacity(result.rowCount)
        for chunk in result.chunks {
            for r in 0..<chunk.count {
                var row: [Cell] = []
                row.reserveCapacity(columns.count)
                for c in 0..<min(columns.count, chunk.columns.count) {
                    var value = chunk.value(row: r, column: c)
                    var type = columns[c].type
                    if type == .timestamptz, let zone = result.timeZone, !value.isNull {
                        // Shown in the session's time zone (SET timezone).
                        value = .string(value.formatted(as: type, zone: zone) ?? "")
                        type = .text
                    }
                    let column = c < types.count ? types[c] : .text
                    row.append(Cell(text: SQLLogicTestValueFormatter.render(value, type: type, as: column, style: style),
                                    value: value, type: type, column: column))
                }
                rows.append(row)
            }
        }
        switch sortMode {
        case .noSort:
            return rows.flatMap { $0 }
        case .rowSort:
            return rows.sorted { a, b in
                for (x, y) in zip(a, b) where x.text != y.text { return byteLess(x.text, y.text) }
                return a.count < b.count
            }.flatMap { $0 }
        case .valueSort:
            return rows.flatMap { $0 }.sorted { byteLess($0.text, $1.text) }
        }
    }

    /// Expected lines → expected values: rows of TAB-separated values when every
    /// line has `columns` of them; else rows of whitespace-separated values when
    /// every line has `columns` tokens; else one value per line (classic layout).
    /// A classic file's values may hold blanks (`table t29 row 6` in a four-column
    /// result): when `actualCount` values came back and there are that many lines but not
    /// that many blank-separated tokens, the lines are the values.
    static func expectedValues(_ lines: [String], columns: Int, actualCount: Int? = nil) -> [String] {
        guard columns > 1 else { return lines }
        let byTab = lines.map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        if byTab.allSatisfy({ $0.count == columns }) { return byTab.flatMap { $0 } }
        let byBlank = lines.map { $0.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init) }
        if byBlank.allSatisfy({ $0.count == columns }) {
            if let actualCount, lines.count == actualCount, lines.count * columns != actualCount { return lines }
            return byBlank.flatMap { $0 }
        }
        return lines
    }

    /// Sort expected values the way actual values are sorted (sorting both
    /// sides makes the comparison independent of how the file was sorted).
    static func sort(_ values: [String], columns: Int, mode: SQLLogicTestRecord.SortMode) -> [String] {
        switch mode {
        case .noSort:
            return values
        case .valueSort:
            return values.sorted(by: byteLess)
        case .rowSort:
            guard columns > 0, values.count % columns == 0 else { return values }
            let rows = stride(from: 0, to: values.count, by: columns).map { Array(values[$0..<($0 + columns)]) }
            return rows.sorted { a, b in
                for (x, y) in zip(a, b) where x != y { return byteLess(x, y) }
                return false
            }.flatMap { $0 }
        }
    }

    /// Nil when equal, else a one-line description of the first difference.
    static func compare(expected: [String], actual: [Cell], columns: Int) -> String? {
        if expected.count != actual.count {
            let er = expected.count / columns, ar = actual.count / columns
            return "wrong result: expected \(er) row\(er == 1 ? "" : "s") (\(expected.count) values), got \(ar) row\(ar == 1 ? "" : "s") (\(actual.count) values)"
        }
        for (k, (e, cell)) in zip(expected, actual).enumerated() where !matches(expected: e, cell: cell) {
            let row = k / columns
            let start = row * columns
            let end = min(start + columns, expected.count)
            let wantRow = expected[start..<end].joined(separator: "\t")
            let gotRow = actual[start..<end].map(\.text).joined(separator: "\t")
            return "wrong result in row \(row + 1): expected \"\(wantRow)\", got \"\(gotRow)\""
        }
        return nil
    }

    static func matches(expected: String, cell: Cell) -> Bool {
        if expected == cell.text { return true }
        let candidates = SQLLogicTestValueFormatter.acceptedRenderings(cell.value, type: cell.type, as: cell.column)
        if candidates.contains(expected) { return true }
        // Tolerate trailing blanks (CHAR(n) padding, editors stripping whitespace).
        let e = trimTrailingBlanks(expected)
        return candidates.contains { trimTrailingBlanks($0) == e }
    }

    static func trimTrailingBlanks(_ s: String) -> Substring {
        var sub = Substring(s)
        while let last = sub.last, last == " " || last == "\t" { sub.removeLast() }
        return sub
    }

    /// sqllogictest's hash: MD5 of every value followed by "\n".
    public static func hash(_ values: [String]) -> String {
        var md5 = Insecure.MD5()
        let newline: [UInt8] = [UInt8(ascii: "\n")]
        for v in values {
            md5.update(data: Array(v.utf8))
            md5.update(data: newline)
        }
        return md5.finalize().map { String(format: "%02x", $0) }.joined()
    }

    static func rowLines(_ cells: [Cell], columns: Int) -> [String] {
        guard columns > 0 else { return [] }
        return stride(from: 0, to: cells.count, by: columns).map { start in
            cells[start..<min(start + columns, cells.count)].map(\.text).joined(separator: "\t")
        }
    }

    /// Byte-wise (strcmp) ordering, as sqllogictest sorts.
    static func byteLess(_ a: String, _ b: String) -> Bool {
        a.utf8.lexicographicallyPrecedes(b.utf8)
    }
}

/// Run every `.test` file under `paths` (files or directories), each against a
/// fresh in-memory database laid out as `cluster`. Same as `SQLLogicTest.runFiles`.
public func runFiles(_ paths: [String], cluster: ClusterConfig) -> SQLLogicTestSummary {
    SQLLogicTest.runFiles(paths, cluster: cluster)
}


/// Records of foreign test files that test behaviour Slicehouse deliberately does not
/// have (SQLite's CREATE INDEX, say). A skip-list file has one entry per line,
/// `FILE:LINE[-LINE] reason`, where FILE is a test file's name and LINE the line of a
/// record's first line (a range covers every record starting in it); `#` starts a
/// comment. Every entry must give a reason.
public struct SQLLogicTestSkipList: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var file: String
        public var lines: ClosedRange<Int>
        public var reason: String
    }
    public var entries: [Entry] = []

    public init() {}

    public init(parsing text: String) throws {
        for (n, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let parts = line.split(separator: " ", maxSplits: 1)
            let location = parts[0].split(separator: ":")
            guard parts.count == 2, location.count == 2,
                  let range = Self.range(String(location[1])) else {
                throw SQLLogicTestSkipListError(message: "skip list line \(n + 1): expected `FILE:LINE[-LINE] reason`, got `\(line)`")
            }
            entries.append(Entry(file: String(location[0]), lines: range,
                                 reason: parts[1].trimmingCharacters(in: .whitespaces)))
        }
    }

    public init(contentsOf path: String) throws {
        try self.init(parsing: try String(contentsOfFile: path, encoding: .utf8))
    }

    static func range(_ s: String) -> ClosedRange<Int>? {
        let ends = s.split(separator: "-")
        guard let a = ends.first.flatMap({ Int($0) }) else { return nil }
        if ends.count == 1 { return a...a }
        guard ends.count == 2, let b = Int(ends[1]), b >= a else { return nil }
        return a...b
    }

    public func skips(file: String, line: Int) -> Bool {
        if entries.isEmpty { return false }
        let name = file.split(separator: "/").last.map(String.init) ?? file
        return entries.contains { $0.file == name && $0.lines.contains(line) }
    }
}

public struct SQLLogicTestSkipListError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
