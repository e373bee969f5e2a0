// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// Formats errors the way psql reports them on standard error:
///
/// ```
/// ERROR:  syntax error at or near "fromm"
/// LINE 1: select * fromm t;
///                  ^
/// ```
public enum ErrorReport {
    /// psql's limit on the width of the echoed statement line.
    static let displaySize = 60
    /// psql keeps at least this many columns after the caret when it cuts the line.
    static let minRightCut = 10

    /// The complete report for `error`, raised by running `statement`.
    /// `location` is a prefix such as `slicehouse:script.sql:12: ` (psql's form
    /// for errors in scripts); line/column of an `SQLError` refer into `statement`.
    public static func format(_ error: any Error, statement: String?, location: String? = nil) -> String {
        if let lost = error as? ShellConnectionLost {
            return (location ?? "") + lost.description + "\n"
        }
        guard let sqlError = error as? SQLError else {
            return (location ?? "") + "ERROR:  \(error)\n"
        }
        var s = sqlError.notices.map { (location ?? "") + $0 + "\n" }.joined()
        s += (location ?? "") + "ERROR:  " + sqlError.message + "\n"
        if let statement, let line = sqlError.line, let column = sqlError.column {
            for l in positionLines(statement: statement, line: line, column: column) { s += l + "\n" }
        }
        if let detail = sqlError.detail, !detail.isEmpty {
            s += "DETAIL:  " + detail + "\n"
        }
        if let hint = sqlError.hint, !hint.isEmpty {
            s += "HINT:  " + hint + "\n"
        }
        return s
    }

    /// The primary message of an error (an `SQLError`'s text without `ERROR:`).
    public static func message(of error: any Error) -> String {
        if let sqlError = error as? SQLError { return sqlError.message }
        return "\(error)"
    }

    /// The `LINE n: ...` line and the caret line under `column` (1-based,
    /// counted in Unicode scalars) of line `line` of `statement`. Long lines are
    /// cut to about 60 columns around the caret with `...`, as psql does.
    /// Empty when the position is outside the statement.
    public static func positionLines(statement: String, line: Int, column: Int) -> [String] {
        var lines: [Substring] = statement.split(omittingEmptySubsequences: false,
                                                 whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
        guard line >= 1 && line <= lines.count else { return [] }
        if lines.isEmpty { lines = [""] }
        let scalars: [Unicode.Scalar] = lines[line - 1].unicodeScalars.map { $0 == "\t" ? " " : $0 }
        let loc = column - 1
        guard loc >= 0 && loc <= scalars.count else { return [] }

        // screen[i]: display column where scalar i starts (screen[count] = total width).
        var screen = [0]
        screen.reserveCapacity(scalars.count + 1)
        for s in scalars { screen.append((screen.last ?? 0) + max(1, DisplayWidth.of(s))) }

        var begin = 0, end = scalars.count
        var cutBegin = false, cutEnd = false
        if screen[end] - screen[begin] > displaySize {
            if screen[begin] + displaySize >= screen[loc] + minRightCut {
                while screen[end] - screen[begin] > displaySize { end -= 1 }
                cutEnd = true
            } else {
                while screen[loc] + minRightCut < screen[end] {
                    end -= 1
                    cutEnd = true
                }
                while screen[end] - screen[begin] > displaySize {
                    begin += 1
                    cutBegin = true
                }
            }
        }
        let prefix = "LINE \(line): " + (cutBegin ? "..." : "")
        var text = String(String.UnicodeScalarView(scalars[begin..<end]))
        if cutEnd { text += "..." }
        let caretColumn = DisplayWidth.of(prefix) + screen[loc] - screen[begin]
        return [prefix + text, String(repeating: " ", count: caretColumn) + "^"]
    }
}
