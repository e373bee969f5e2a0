// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes

/// The outcome of checking one query's answer.
public struct AnswerCheck: Codable, Sendable, Equatable {
    public enum Status: String, Codable, Sendable {
        case pass, fail, unchecked, error
        /// The query was cancelled by its statement timeout (`bench tpcds --timeout`).
        case timeout
    }
    public var status: Status
    /// What the answer was compared with: "answers sf0.1" or "DuckDB 1.5.6".
    public var reference: String?
    /// Why it failed (first difference) or the query's error message.
    public var detail: String?

    public init(status: Status, reference: String? = nil, detail: String? = nil) {
        self.status = status; self.reference = reference; self.detail = detail
    }

    public static let unchecked = AnswerCheck(status: .unchecked)
    public static func pass(_ reference: String) -> AnswerCheck { AnswerCheck(status: .pass, reference: reference) }
    public static func fail(_ reference: String, _ detail: String) -> AnswerCheck {
        AnswerCheck(status: .fail, reference: reference, detail: detail)
    }
    public static func error(_ message: String) -> AnswerCheck { AnswerCheck(status: .error, detail: message) }

    /// "pass", "FAIL", "unchecked", "ERROR", "TIMEOUT" for the table.
    public var label: String {
        switch status {
        case .pass: return "pass"
        case .fail: return "FAIL"
        case .unchecked: return "unchecked"
        case .error: return "ERROR"
        case .timeout: return "TIMEOUT"
        }
    }
}

/// A query result as text: column names, optional column types (of the result being
/// checked) and rows (NULL as nil).
public struct ResultText: Sendable, Equatable {
    public var columns: [String]
    public var types: [DataType]?
    public var rows: [[String?]]

    public init(columns: [String], types: [DataType]? = nil, rows: [[String?]]) {
        self.columns = columns; self.types = types; self.rows = rows
    }

    /// A reference answer file: a header line of names, then rows, fields separated by `|`,
    /// NULL written as `NULL`.
    public static func parseAnswer(_ text: String) throws -> ResultText {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        guard !lines.isEmpty else { throw BenchError.io("reference answer is empty") }
        let header = lines.removeFirst().split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        let rows = lines.map { line in
            line.split(separator: "|", omittingEmptySubsequences: false).map { $0 == "NULL" ? nil : String($0) }
        }
        return ResultText(columns: header, rows: rows)
    }
}

/// Compares answers as TPC-H validation does: a DECIMAL with k places within 10^-k (a
/// whole unit for k = 0), floating point within a relative 1e-6, integers within 1
/// (DuckDB's AVG is a double where ours can be an integer), text exactly apart from
/// CHAR's trailing blanks; rows in order (every TPC-H query has an ORDER BY). Column
/// names must match, except that DuckDB names `sum(x)` after the whole expression where
/// Redshift names it `sum`.
public enum AnswerChecker {
    /// `got` carries the types of its columns (nil: compare text, numbers numerically).
    public static func compare(_ got: ResultText, with want: ResultText, reference: String) -> AnswerCheck {
        guard got.columns.count == want.columns.count else {
            return .fail(reference, "\(got.columns.count) columns, want \(want.columns.count)")
        }
        for (g, w) in zip(got.columns, want.columns) {
            let gl = g.lowercased(), wl = w.lowercased()
            if gl != wl && !wl.hasPrefix(gl + "(") {
                return .fail(reference, "column \(g) should be named \(w)")
            }
        }
        guard got.rows.count == want.rows.count else {
            return .fail(reference, "\(got.rows.count) rows, want \(want.rows.count)")
        }
        for (r, (gotRow, wantRow)) in zip(got.rows, want.rows).enumerated() {
            guard gotRow.count == wantRow.count else {
                return .fail(reference, "row \(r + 1) has \(gotRow.count) fields, want \(wantRow.count)")
            }
            for (c, (g, w)) in zip(gotRow, wantRow).enumerated() {
                let type = got.types.flatMap { c < $0.count ? $0[c] : nil }
                if !matches(g, w, type) {
                    return .fail(reference, "row \(r + 1) column \(want.columns[c]): got \(g ?? "NULL"), want \(w ?? "NULL")")
                }
            }
        }
        return .pass(reference)
    }

    /// One field. `type` is the checked result's column type; nil compares numbers
    /// within the reference's last decimal place or a relative 1e-6, text exactly.
    public static func matches(_ got: String?, _ want: String?, _ type: DataType?) -> Bool {
        guard let got, let want else { return got == nil && want == nil }
        if got == want { return true }
        switch type {
        case .decimal(_, let scale)?:
            return decimalsMatch(got, want, scale: scale)
        case .real?, .double?:
            return floatsMatch(got, want)
        case .bigint?, .integer?, .smallint?:
            guard let g = Double(got), let w = Double(want) else { return false }
            return abs(g - w) < 1
        case .char?, .varchar?:
            return trimmingTrailingBlanks(got) == trimmingTrailingBlanks(want)
        case nil:
            if trimmingTrailingBlanks(got) == trimmingTrailingBlanks(want) { return true }
            guard Double(got) != nil, Double(want) != nil else { return false }
            return decimalsMatch(got, want, scale: decimalPlaces(want)) || floatsMatch(got, want)
        default:
            return false
        }
    }

    /// |got - want| < 10^-scale (1 for scale 0), in decimal arithmetic (38 digits), so that
    /// large sums at big scale factors compare exactly.
    static func decimalsMatch(_ got: String, _ want: String, scale: Int) -> Bool {
        guard let g = Decimal(string: got, locale: Locale(identifier: "en_US_POSIX")),
              let w = Decimal(string: want, locale: Locale(identifier: "en_US_POSIX")) else { return false }
        var difference = g - w
        if difference < 0 { difference = -difference }
        let tolerance = scale > 0 ? Decimal(sign: .plus, exponent: -scale, significand: 1) : Decimal(1)
        return difference < tolerance * Decimal(sign: .plus, exponent: -6, significand: 1_000_001)
    }

    static func floatsMatch(_ got: String, _ want: String) -> Bool {
        guard let g = Double(got), let w = Double(want) else { return false }
        if g.isNaN || w.isNaN { return g.isNaN && w.isNaN }
        return abs(g - w) <= max(abs(w), 1e-300) * 1e-6
    }

    static func decimalPlaces(_ text: String) -> Int {
        guard !text.contains("e"), !text.contains("E"), let dot = text.firstIndex(of: ".") else { return 0 }
        return text.distance(from: text.index(after: dot), to: text.endIndex)
    }

    static func trimmingTrailingBlanks(_ s: String) -> Substring {
        var end = s.endIndex
        while end > s.startIndex {
            let before = s.index(before: end)
            guard s[before] == " " else { break }
            end = before
        }
        return s[s.startIndex..<end]
    }
}
