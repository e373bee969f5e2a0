// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Parses sqllogictest scripts: the classic SQLite corpus format and the
/// DuckDB dialect (the accepted syntax is documented on `SQLLogicTest`).
///
/// Parsing never fails as a whole: a malformed record becomes a
/// `.parseError` record (reported as a failure by the runner) and parsing
/// resumes at the next record.
public struct SQLLogicTestParser: Sendable {
    /// Upper bound on records produced by expanding `loop`/`foreach` blocks.
    public var maxExpandedRecords = 1_000_000

    public init() {}

    /// Parse the file at `path`.
    public func parseFile(_ path: String) throws -> SQLLogicTestScript {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let text = String(decoding: data, as: UTF8.self)
        return parse(text, path: path)
    }

    /// Parse script text; `path` is only used in the result.
    public func parse(_ text: String, path: String = "<string>") -> SQLLogicTestScript {
        var lines: [Line] = []
        var number = 0
        // "\r\n" is a single Character, so split on it explicitly.
        for raw in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            number += 1
            var s = String(raw)
            if s.hasSuffix("\r") { s.removeLast() }
            lines.append(Line(number: number, text: s))
        }
        // A trailing newline produces one empty pseudo-line; harmless.
        var budget = maxExpandedRecords
        let records = parseLines(lines[...], budget: &budget)
        return SQLLogicTestScript(path: path, records: records)
    }

    // MARK: - Implementation

    struct Line: Sendable {
        var number: Int
        var text: String
        var trimmed: String { text.trimmingCharacters(in: .whitespaces) }
        var isBlank: Bool { text.allSatisfy { $0 == " " || $0 == "\t" } }
    }

    private static let ignoredDirectives: Set<String> = [
        "load", "restart", "reconnect", "sleep", "set", "unzip", "control", "echo",
        "test-env", "tags", "continue", "mode-output",
    ]

    private func parseLines(_ lines: ArraySlice<Line>, budget: inout Int) -> [SQLLogicTestRecord] {
        var records: [SQLLogicTestRecord] = []
        var conditions: [SQLLogicTestRecord.Condition] = []
        var i = lines.startIndex

        func emit(_ record: SQLLogicTestRecord) {
            guard budget > 0 else { return }
            budget -= 1
            records.append(record)
        }
        /// Index of the first blank line at or after `j` (or the end).
        func endOfRecord(from j: Int) -> Int {
            var k = j
            while k < lines.endIndex && !lines[k].isBlank { k += 1 }
            return k
        }

        while i < lines.endIndex {
            let line = lines[i]
            let trimmed = line.trimmed
            if trimmed.isEmpty || trimmed.hasPrefix("#") {
                i += 1
                continue
            }
            let tokens = SQLLogicTestParser.tokens(trimmed)
            let keyword = tokens[0]
            switch keyword {
            case "skipif", "onlyif":
                if tokens.count < 2 {
                    emit(SQLLogicTestRecord(line: line.number, kind: .parseError("\(keyword) needs an engine name")))
                } else {
                    conditions.append(keyword == "skipif" ? .skipIf(tokens[1]) : .onlyIf(tokens[1]))
                }
                i += 1

            case "statement":
                let (record, next) = parseStatement(lines, at: i, tokens: tokens, conditions: conditions)
                emit(record)
                conditions = []
                i = next

            case "query":
                let (record, next) = parseQuery(lines, at: i, tokens: tokens, conditions: conditions)
                emit(record)
                conditions = []
                i = next

            case "hash-threshold":
                if tokens.count >= 2, let n = Int(tokens[1]), n >= 0 {
                    emit(SQLLogicTestRecord(line: line.number, conditions: conditions, kind: .hashThreshold(n)))
                } else {
                    emit(SQLLogicTestRecord(line: line.number, kind: .parseError("hash-threshold needs a number")))
                }
                conditions = []
                i += 1

            case "halt":
                emit(SQLLogicTestRecord(line: line.number, conditions: conditions, kind: .halt))
                conditions = []
                i += 1

            case "mode":
                if tokens.count >= 2 && (tokens[1] == "skip" || tokens[1] == "unskip") {
                    emit(SQLLogicTestRecord(line: line.number, conditions: conditions,
                                            kind: .skipMode(tokens[1] == "skip")))
                }
                // Other modes (output_hash, output_result, debug...) do not affect verification.
                conditions = []
                i += 1

            case "connection":
                if tokens.count == 2 {
                    emit(SQLLogicTestRecord(line: line.number, conditions: conditions, kind: .connection(tokens[1])))
                } else {
                    emit(SQLLogicTestRecord(line: line.number, kind: .parseError("connection needs one name")))
                }
                conditions = []
                i += 1

            case "require":
                emit(SQLLogicTestRecord(line: line.number, conditions: conditions,
                                        kind: .require(tokens.dropFirst().joined(separator: " "))))
                conditions = []
                i += 1

            case "loop", "concurrentloop", "foreach", "concurrentforeach":
                let (bodyEnd, closeIndex) = findEndLoop(lines, from: i + 1)
                guard let closeIndex else {
                    emit(SQLLogicTestRecord(line: line.number, kind: .parseError("\(keyword) without endloop")))
                    i = lines.endIndex
                    continue
                }
                let body = lines[(i + 1)..<bodyEnd]
                switch loopValues(tokens) {
                case .failure(let message):
                    emit(SQLLogicTestRecord(line: line.number, kind: .parseError(message)))
                case .success(let (variable, values)):
                    for value in values {
                        guard budget > 0 else { break }
                        let expanded = body.map { l in
                            Line(number: l.number, text: l.text.replacingOccurrences(of: "${\(variable)}", with: value))
                        }
                        records.append(contentsOf: parseLines(expanded[...], budget: &budget))
                    }
                }
                conditions = []
                i = closeIndex + 1

            case "endloop":
                emit(SQLLogicTestRecord(line: line.number, kind: .parseError("endloop without loop")))
                i += 1

            default:
                if SQLLogicTestParser.ignoredDirectives.contains(keyword) {
                    // Directives without meaning here: skip the line (and, for
                    // multi-line ones such as `load`, nothing else follows).
                    i += 1
                } else {
                    emit(SQLLogicTestRecord(line: line.number,
                                            kind: .parseError("unknown record type \"\(keyword)\"")))
                    i = endOfRecord(from: i)
                }
                conditions = []
            }
        }
        return records
    }

    /// Whitespace-separated tokens of a header line, with a trailing `# comment` removed.
    static func tokens(_ line: String) -> [String] {
        var out: [String] = []
        for token in line.split(whereSeparator: { $0 == " " || $0 == "\t" }) {
            if token.hasPrefix("#") { break }
            out.append(String(token))
        }
        return out.isEmpty ? [""] : out
    }

    /// Collects the SQL lines starting at `j`: up to a blank line or `----`.
    /// Returns the SQL and the index of the terminating line.
    private func readSQL(_ lines: ArraySlice<Line>, from j: Int) -> (String, Int) {
        var sql: [String] = []
        var k = j
        while k < lines.endIndex {
            let l = lines[k]
            if l.isBlank || l.trimmed == "----" { break }
            if !l.text.hasPrefix("#") { sql.append(l.text) }
            k += 1
        }
        return (sql.joined(separator: "\n"), k)
    }

    /// Collects lines from `j` up to (not including) the next blank line.
    private func readBlock(_ lines: ArraySlice<Line>, from j: Int) -> ([String], Int) {
        var out: [String] = []
        var k = j
        while k < lines.endIndex && !lines[k].isBlank {
            out.append(lines[k].text)
            k += 1
        }
        return (out, k)
    }

    private func expectedError(_ text: String) -> SQLLogicTestRecord.ExpectedError {
        let t = text.trimmingCharacters(in: .whitespaces)
        if t.isEmpty { return .any }
        if t.hasPrefix("<REGEX>:") { return .regex(String(t.dropFirst("<REGEX>:".count))) }
        if t.hasPrefix("<!REGEX>:") { return .notRegex(String(t.dropFirst("<!REGEX>:".count))) }
        return .contains(t)
    }

    private func parseStatement(_ lines: ArraySlice<Line>, at i: Int, tokens: [String],
                                conditions: [SQLLogicTestRecord.Condition]) -> (SQLLogicTestRecord, Int) {
        let header = lines[i]
        let mode = tokens.count > 1 ? tokens[1] : ""
        // Inline text after `statement error` (cockroach style) is an expected message.
        let inline = tokens.count > 2 ? tokens.dropFirst(2).joined(separator: " ") : ""
        let (sql, stop) = readSQL(lines, from: i + 1)
        var next = stop
        var message: String? = nil
        if stop < lines.endIndex && lines[stop].trimmed == "----" {
            let (block, end) = readBlock(lines, from: stop + 1)
            message = block.joined(separator: "\n")
            next = end
        }
        func record(_ kind: SQLLogicTestRecord.Kind) -> (SQLLogicTestRecord, Int) {
            (SQLLogicTestRecord(line: header.number, conditions: conditions, kind: kind), next)
        }
        if sql.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            return record(.parseError("statement without SQL"))
        }
        switch mode {
        case "ok":
            return record(.statement(.init(sql: sql, expectation: .ok)))
        case "error":
            return record(.statement(.init(sql: sql, expectation: .error(expectedError(message ?? inline)))))
        case "maybe":
            return record(.statement(.init(sql: sql, expectation: .maybe(expectedError(message ?? inline)))))
        case "count":
            guard tokens.count > 2, let n = Int(tokens[2]) else {
                return record(.parseError("statement count needs a number"))
            }
            return record(.statement(.init(sql: sql, expectation: .count(n))))
        default:
            return record(.parseError("statement must be followed by ok, error, count or maybe (got \"\(mode)\")"))
        }
    }

    /// Recognises `<N> values hashing to <32 hex digits>`.
    static func hashPattern(_ line: String) -> (Int, String)? {
        let parts = line.trimmingCharacters(in: .whitespaces).split(separator: " ")
        guard parts.count == 5, parts[1] == "values", parts[2] == "hashing", parts[3] == "to",
              let n = Int(parts[0]), parts[4].count == 32,
              parts[4].allSatisfy({ $0.isHexDigit }) else { return nil }
        return (n, parts[4].lowercased())
    }

    private func parseQuery(_ lines: ArraySlice<Line>, at i: Int, tokens: [String],
                            conditions: [SQLLogicTestRecord.Condition]) -> (SQLLogicTestRecord, Int) {
        let header = lines[i]
        let (sql, stop) = readSQL(lines, from: i + 1)
        var next = stop
        var block: [String]? = nil
        if stop < lines.endIndex && lines[stop].trimmed == "----" {
            let (b, end) = readBlock(lines, from: stop + 1)
            block = b
            next = end
        }
        func record(_ kind: SQLLogicTestRecord.Kind) -> (SQLLogicTestRecord, Int) {
            (SQLLogicTestRecord(line: header.number, conditions: conditions, kind: kind), next)
        }
        guard tokens.count >= 2 else { return record(.parseError("query needs a type string (e.g. query II)")) }
        if sql.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            return record(.parseError("query without SQL"))
        }
        // `query error [message]` (sqllogictest-rs style) is a failing statement.
        if tokens[1] == "error" {
            let inline = tokens.dropFirst(2).joined(separator: " ")
            let message = block?.joined(separator: "\n") ?? inline
            return record(.statement(.init(sql: sql, expectation: .error(expectedError(message)))))
        }
        let typeString = tokens[1]
        guard typeString.allSatisfy({ $0.isLetter }) else {
            return record(.parseError("invalid query type string \"\(typeString)\""))
        }
        let types = typeString.map(SQLLogicTestRecord.ColumnType.init(letter:))
        var sortMode = SQLLogicTestRecord.SortMode.noSort
        var label: String? = nil
        var rest = tokens.dropFirst(2)
        if let first = rest.first, let mode = SQLLogicTestRecord.SortMode(rawValue: first) {
            sortMode = mode
            rest = rest.dropFirst()
        }
        if let l = rest.first { label = l }

        var expected: SQLLogicTestRecord.ExpectedResult? = nil
        if let block {
            if block.count == 1, let hash = SQLLogicTestParser.hashPattern(block[0]) {
                expected = .hash(count: hash.0, md5: hash.1)
            } else {
                expected = .values(block)
            }
        }
        return record(.query(.init(sql: sql, columnTypes: types, sortMode: sortMode, label: label, expected: expected)))
    }

    /// Finds the `endloop` matching a loop whose body starts at `j`.
    /// Returns the end of the body and the index of the `endloop` line.
    private func findEndLoop(_ lines: ArraySlice<Line>, from j: Int) -> (Int, Int?) {
        var depth = 0
        var k = j
        while k < lines.endIndex {
            let keyword = SQLLogicTestParser.tokens(lines[k].trimmed)[0]
            if ["loop", "concurrentloop", "foreach", "concurrentforeach"].contains(keyword) {
                depth += 1
            } else if keyword == "endloop" {
                if depth == 0 { return (k, k) }
                depth -= 1
            }
            k += 1
        }
        return (k, nil)
    }

    private enum LoopParse { case success((String, [String])), failure(String) }

    /// `loop var start end` (end exclusive) or `foreach var v1 v2 ...`.
    private func loopValues(_ tokens: [String]) -> LoopParse {
        let keyword = tokens[0]
        if keyword.hasSuffix("loop") {
            guard tokens.count >= 4, let start = Int(tokens[2]), let end = Int(tokens[3]) else {
                return .failure("\(keyword) needs: \(keyword) <var> <start> <end>")
            }
            guard end >= start else { return .success((tokens[1], [])) }
            let (span, overflow) = end.subtractingReportingOverflow(start)
            guard !overflow, span <= maxExpandedRecords else { return .failure("\(keyword) range too large") }
            return .success((tokens[1], (start..<end).map(String.init)))
        }
        guard tokens.count >= 3 else { return .failure("\(keyword) needs: \(keyword) <var> <values...>") }
        return .success((tokens[1], Array(tokens.dropFirst(2))))
    }
}
