// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes

/// What a query's outermost ORDER BY and LIMIT say about the order of its result rows,
/// read from the SQL text: the ORDER BY keys that are output columns (by name, by
/// position, or as `t.name`), the LIMIT, and whether every key is an output column.
public struct ResultOrder: Sendable, Equatable {
    /// The query has an outermost ORDER BY.
    public var ordered: Bool
    /// The leading ORDER BY keys that are output columns, as column indices: the rows are
    /// in order of these, and in no particular order among rows where they tie.
    public var keys: [Int]
    /// The outermost LIMIT, if any.
    public var limit: Int?
    /// Per key: DESC.
    public var descending: [Bool]
    /// Per key: NULLs first (Redshift's default: last ascending, first descending).
    public var nullsFirst: [Bool]

    public init(ordered: Bool, keys: [Int], limit: Int?, descending: [Bool]? = nil, nullsFirst: [Bool]? = nil) {
        self.ordered = ordered; self.keys = keys; self.limit = limit
        self.descending = descending ?? keys.map { _ in false }
        self.nullsFirst = nullsFirst ?? self.descending
    }

    public static let unordered = ResultOrder(ordered: false, keys: [], limit: nil)

    /// Reads the outermost ORDER BY and LIMIT of `sql` (comments and string literals
    /// skipped; clauses inside parentheses, such as a window's ORDER BY, ignored) and
    /// maps the keys to `columns` (the result's names, case-insensitive). The keys stop
    /// at the first one that is not an output column.
    public static func parse(_ sql: String, columns: [String]) -> ResultOrder {
        let tokens = topLevelTokens(sql)
        var orderAt: Int?
        var limitAt: Int?
        var i = 0
        while i < tokens.count {
            let t = tokens[i]
            if t.depth == 0, t.text.lowercased() == "order", i + 1 < tokens.count, tokens[i + 1].text.lowercased() == "by" {
                orderAt = i + 2
                limitAt = nil
            } else if t.depth == 0, t.text.lowercased() == "limit" {
                limitAt = i
            } else if t.depth == 0, ["union", "intersect", "except"].contains(t.text.lowercased()) {
                orderAt = nil  // an ORDER BY before a set operation belongs to a branch
                limitAt = nil
            }
            i += 1
        }
        var limit: Int?
        if let limitAt, limitAt + 1 < tokens.count { limit = Int(tokens[limitAt + 1].text) }
        guard let start = orderAt else { return ResultOrder(ordered: false, keys: [], limit: limit) }
        let end = limitAt ?? tokens.count
        // Split the list at top-level commas.
        var items: [[String]] = [[]]
        for t in tokens[start..<max(start, end)] {
            if t.depth == 0 && t.text == "," { items.append([]) } else { items[items.count - 1].append(t.text) }
        }
        let names = columns.map { $0.lowercased() }
        var keys: [Int] = []
        var descending: [Bool] = []
        var nullsFirst: [Bool] = []
        for var item in items {
            // Drop ASC / DESC / NULLS FIRST / NULLS LAST, noting them.
            var desc = false
            var nulls: Bool?
            while let last = item.last?.lowercased(), ["asc", "desc", "first", "last", "nulls"].contains(last) {
                if last == "desc" { desc = true }
                if last == "first" { nulls = true }
                if last == "last" { nulls = false }
                item.removeLast()
            }
            var text = item.joined().lowercased()
            if text.hasPrefix("\"") && text.hasSuffix("\"") && text.count >= 2 {
                text = String(text.dropFirst().dropLast())
            } else if let dot = text.lastIndex(of: "."), !text.contains("("),
                      text[..<dot].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) {
                text = String(text[text.index(after: dot)...])
            }
            if let position = Int(text), position >= 1, position <= columns.count {
                keys.append(position - 1)
            } else if let index = names.firstIndex(of: text) {
                keys.append(index)
            } else {
                break
            }
            descending.append(desc)
            nullsFirst.append(nulls ?? desc)
        }
        return ResultOrder(ordered: true, keys: keys, limit: limit, descending: descending, nullsFirst: nullsFirst)
    }

    struct Token { var text: String; var depth: Int }

    /// Words, numbers, quoted identifiers, and single punctuation characters, with their
    /// parenthesis depth; comments and string literals dropped (a literal becomes `''`).
    static func topLevelTokens(_ sql: String) -> [Token] {
        let chars = Array(sql)
        var tokens: [Token] = []
        var depth = 0
        var i = 0
        while i < chars.count {
            let c = chars[i]
            if c == "-" && i + 1 < chars.count && chars[i + 1] == "-" {
                while i < chars.count && chars[i] != "\n" { i += 1 }
            } else if c == "/" && i + 1 < chars.count && chars[i + 1] == "*" {
                i += 2
                while i + 1 < chars.count && !(chars[i] == "*" && chars[i + 1] == "/") { i += 1 }
                i += 2
            } else if c == "'" {
                i += 1
                while i < chars.count {
                    if chars[i] == "'" {
                        if i + 1 < chars.count && chars[i + 1] == "'" { i += 2; continue }
                        break
                    }
                    i += 1
                }
                i += 1
                tokens.append(Token(text: "''", depth: depth))
            } else if c == "\"" {
                var j = i + 1
                while j < chars.count && chars[j] != "\"" { j += 1 }
                tokens.append(Token(text: String(chars[i..<min(j + 1, chars.count)]), depth: depth))
                i = j + 1
            } else if c.isLetter || c.isNumber || c == "_" {
                var j = i
                while j < chars.count && (chars[j].isLetter || chars[j].isNumber || chars[j] == "_" || chars[j] == "$") { j += 1 }
                tokens.append(Token(text: String(chars[i..<j]), depth: depth))
                i = j
            } else if c.isWhitespace {
                i += 1
            } else {
                if c == ")" { depth -= 1 }
                tokens.append(Token(text: String(c), depth: c == "(" ? depth : depth))
                if c == "(" { depth += 1 }
                i += 1
            }
        }
        return tokens
    }
}

/// Compares a result with the oracle's (DuckDB's) as TPC-DS needs: numbers within a
/// small tolerance (decimals against doubles, AVG of integers truncated by Redshift but
/// not by DuckDB; see `AnswerChecker.matches`, plus a relative 1e-6 between any two
/// numbers), NULLs equal only to NULLs, and rows compared
///
/// - as multisets when the query has no outermost ORDER BY;
/// - in order of the ORDER BY's output-column keys otherwise: both results are cut into
///   runs of rows that tie on those keys, the runs must agree in order and keys, and
///   each run's rows must agree as a multiset (the order among ties is not determined);
/// - except for the last run of a result cut by LIMIT (the result has exactly LIMIT
///   rows): there only the keys must agree, since which of the tied rows make the cut is
///   not determined either.
public enum OrderedAnswerChecker {
    public static func compare(_ got: ResultText, with want: ResultText, order: ResultOrder,
                               reference: String) -> AnswerCheck {
        guard got.columns.count == want.columns.count else {
            return .fail(reference, "\(got.columns.count) columns, want \(want.columns.count) (\(want.columns.joined(separator: ", ")))")
        }
        for (g, w) in zip(got.columns, want.columns) where !namesMatch(g, w) {
            return .fail(reference, "column \(g) should be named \(w)")
        }
        for (r, row) in got.rows.enumerated() where row.count != got.columns.count {
            return .fail(reference, "row \(r + 1) has \(row.count) fields, want \(got.columns.count)")
        }
        guard got.rows.count == want.rows.count else {
            return .fail(reference, "\(got.rows.count) rows, want \(want.rows.count)"
                         + firstMissing(got, want))
        }
        let types = got.types
        let keys = order.keys.filter { $0 < want.columns.count }
        guard order.ordered, !keys.isEmpty else {
            return multisetCompare(got.rows, want.rows, types: types, columns: want.columns, firstRow: 0, reference: reference)
        }
        let cut = order.limit.map { want.rows.count == $0 } ?? false
        let want = redshiftIntegerAverages(want, types: types, order: order)
        var start = 0
        while start < want.rows.count {
            var end = start + 1
            while end < want.rows.count && keysMatch(want.rows[end], want.rows[start], keys, nil) { end += 1 }
            for r in start..<end where !keysMatch(got.rows[r], want.rows[r], keys, types) {
                return .fail(reference, "row \(r + 1) out of order: got \(describe(got.rows[r])), want \(describe(want.rows[r]))")
            }
            if !(cut && end == want.rows.count) {
                let check = multisetCompare(Array(got.rows[start..<end]), Array(want.rows[start..<end]), types: types,
                                            columns: want.columns, firstRow: start, reference: reference)
                if check.status != .pass { return check }
            }
            start = end
        }
        return .pass(reference)
    }

    /// Redshift's AVG of integers is an integer (truncated toward zero) where DuckDB's is
    /// a double, and an ORDER BY on it then breaks the ties of the truncated values with
    /// its next keys. Where the checked result's column is an integer and DuckDB's value
    /// has a fraction, the value is truncated; when that changed an ORDER BY key, DuckDB's
    /// rows are sorted again by the keys (stable, so ties keep DuckDB's order).
    static func redshiftIntegerAverages(_ want: ResultText, types: [DataType]?, order: ResultOrder) -> ResultText {
        guard let types else { return want }
        let integerColumns = types.indices.filter { c in
            switch types[c] {
            case .smallint, .integer, .bigint: return c < want.columns.count
            default: return false
            }
        }
        guard !integerColumns.isEmpty else { return want }
        var out = want
        var keyChanged = false
        for r in out.rows.indices {
            for c in integerColumns where c < out.rows[r].count {
                guard let text = out.rows[r][c], let v = Double(text), v.isFinite, v != v.rounded(.towardZero),
                      abs(v) < 9e15 else { continue }
                out.rows[r][c] = String(Int64(v.rounded(.towardZero)))
                if order.keys.contains(c) { keyChanged = true }
            }
        }
        guard keyChanged else { return out }
        let indexed = Array(out.rows.enumerated())
        out.rows = indexed.sorted { a, b in
            for (k, c) in order.keys.enumerated() where c < a.element.count && c < b.element.count {
                let x = a.element[c], y = b.element[c]
                if fieldMatches(x, y, types[c]) { continue }
                let nullsFirst = k < order.nullsFirst.count ? order.nullsFirst[k] : false
                let desc = k < order.descending.count ? order.descending[k] : false
                if x == nil { return nullsFirst }
                if y == nil { return !nullsFirst }
                let less = sortKey(x) < sortKey(y)
                return desc ? !less : less
            }
            return a.offset < b.offset
        }.map(\.element)
        return out
    }

    /// One field: `AnswerChecker.matches` for a typed column, or two numbers within a
    /// relative 1e-6. Without a type (DuckDB's rows against each other, when ties are
    /// found) only equal text or numbers within that relative bound match: the TPC-H
    /// checker's untyped rule would let integers one apart match (its tolerance for a
    /// scale-0 value is about one unit).
    public static func fieldMatches(_ got: String?, _ want: String?, _ type: DataType?) -> Bool {
        guard let got, let want else { return got == nil && want == nil }
        if type != nil && AnswerChecker.matches(got, want, type) { return true }
        if type == nil && AnswerChecker.trimmingTrailingBlanks(got) == AnswerChecker.trimmingTrailingBlanks(want) { return true }
        guard let g = Double(got), let w = Double(want), g.isFinite, w.isFinite else { return false }
        return abs(g - w) <= max(abs(g), abs(w)) * 1e-6
    }

    /// DuckDB names an unaliased expression after its text (`sum(x)`, `CASE ... END`)
    /// where Redshift names it `sum`, `case` or `?column?`: only plain names are compared.
    static func namesMatch(_ got: String, _ want: String) -> Bool {
        let g = got.lowercased(), w = want.lowercased()
        if g == w { return true }
        let plain = !w.isEmpty && w.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
        return !plain || g == "?column?"
    }

    static func keysMatch(_ a: [String?], _ b: [String?], _ keys: [Int], _ types: [DataType]?) -> Bool {
        keys.allSatisfy { k in
            k < a.count && k < b.count && fieldMatches(a[k], b[k], types.flatMap { k < $0.count ? $0[k] : nil })
        }
    }

    static func rowsMatch(_ a: [String?], _ b: [String?], _ types: [DataType]?) -> Bool {
        a.count == b.count && a.indices.allSatisfy { c in
            fieldMatches(a[c], b[c], types.flatMap { c < $0.count ? $0[c] : nil })
        }
    }

    /// Both sorted the same way (NULL first, numbers by value, text by its characters
    /// without trailing blanks), then row by row.
    static func multisetCompare(_ got: [[String?]], _ want: [[String?]], types: [DataType]?,
                                columns: [String], firstRow: Int, reference: String) -> AnswerCheck {
        let g = got.sorted(by: rowLess), w = want.sorted(by: rowLess)
        for (i, (a, b)) in zip(g, w).enumerated() where !rowsMatch(a, b, types) {
            var detail = got.count == 1 ? "row \(firstRow + 1)" : "rows \(firstRow + 1)-\(firstRow + got.count) (sorted, #\(i + 1))"
            if let c = a.indices.first(where: { c in !fieldMatches(a[c], b[c], types.flatMap { c < $0.count ? $0[c] : nil }) }),
               c < columns.count {
                detail += " column \(columns[c]): got \(a[c] ?? "NULL"), want \(b[c] ?? "NULL")"
            }
            return .fail(reference, detail + "; got \(describe(a)), want \(describe(b))")
        }
        return .pass(reference)
    }

    enum SortKey: Comparable {
        case null
        case number(Double)
        case text(String)
    }

    static func sortKey(_ v: String?) -> SortKey {
        guard let v else { return .null }
        if let d = Double(v), d.isFinite { return .number(d) }
        return .text(String(AnswerChecker.trimmingTrailingBlanks(v)))
    }

    static func rowLess(_ a: [String?], _ b: [String?]) -> Bool {
        for (x, y) in zip(a, b) {
            let kx = sortKey(x), ky = sortKey(y)
            if kx != ky { return kx < ky }
        }
        return a.count < b.count
    }

    /// A row for a message: fields joined by `|`, NULL as NULL, at most 160 characters.
    static func describe(_ row: [String?]) -> String {
        let text = row.map { $0 ?? "NULL" }.joined(separator: "|")
        return text.count > 160 ? String(text.prefix(157)) + "..." : text
    }

    /// The first wanted row the result lacks (or the first extra row), for a row-count difference.
    static func firstMissing(_ got: ResultText, _ want: ResultText) -> String {
        guard got.rows.count <= 5000 && want.rows.count <= 5000 else { return "" }
        let types = got.types
        var unmatched = got.rows
        for w in want.rows {
            if let i = unmatched.firstIndex(where: { rowsMatch($0, w, types) }) {
                unmatched.remove(at: i)
            } else {
                return "; missing e.g. \(describe(w))"
            }
        }
        return unmatched.first.map { "; extra e.g. \(describe($0))" } ?? ""
    }
}
