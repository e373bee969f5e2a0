// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseEngine
import SlicehouseTypes

/// A result set ready for printing: headers, alignment and cell text.
public struct ResultTable: Sendable, Equatable {
    /// Printed above the table (`List of relations`), not in CSV or tuples-only output.
    public var title: String?
    public var headers: [String]
    /// Per column: right-align (numbers) or left-align (everything else).
    public var rightAligned: [Bool]
    /// Cell text; nil is NULL (shown as `ShellOptions.nullDisplay`).
    public var rows: [[String?]]
    /// Footer lines; nil means psql's default `(N rows)` footer.
    public var footers: [String]?

    public init(title: String? = nil, headers: [String], rightAligned: [Bool]? = nil,
                rows: [[String?]], footers: [String]? = nil) {
        self.title = title
        self.headers = headers
        self.rightAligned = rightAligned ?? Array(repeating: false, count: headers.count)
        self.rows = rows
        self.footers = footers
    }

    /// The rows of a statement result; numeric columns are right-aligned as psql does.
    public init(_ result: StatementResult, title: String? = nil, footers: [String]? = nil) {
        let columns = result.columns
        var rows: [[String?]] = []
        rows.reserveCapacity(result.rowCount)
        for chunk in result.chunks {
            for r in 0..<chunk.count {
                rows.append((0..<columns.count).map { c in
                    // A chunk with fewer vectors than result columns shows NULLs rather than trapping.
                    c < chunk.columns.count ? chunk.value(row: r, column: c).formatted(as: columns[c].type, zone: result.timeZone) : nil
                })
            }
        }
        self.init(title: title,
                  headers: columns.map(\.name),
                  rightAligned: columns.map { $0.type.isNumeric },
                  rows: rows,
                  footers: footers)
    }
}

/// Formats results exactly as psql prints them: aligned tables, expanded
/// (`\x`) records, unaligned (`-A`) and CSV (`--csv`) output.
public struct ResultPrinter: Sendable {
    public var options: ShellOptions

    public init(options: ShellOptions = ShellOptions()) {
        self.options = options
    }

    /// Everything psql writes to standard output for one statement result:
    /// the table for a query, the command tag (`CREATE TABLE`, `INSERT 0 5`) otherwise.
    public func render(_ result: StatementResult) -> String {
        if result.returnsRows {
            var table = ResultTable(result)
            if options.explainBars && table.headers == ["QUERY PLAN"] {
                table.rows = table.rows.map { $0.map { $0.map(ExplainBars.line) } }
            }
            return render(table)
        }
        if options.quiet || result.tag.isEmpty { return "" }
        return result.tag + "\n"
    }

    /// Notices of a result as psql writes them to standard error (`INFO:  text`).
    public static func notices(_ result: StatementResult) -> String {
        var s = ""
        for notice in result.notices {
            let hasSeverity = ["INFO:", "NOTICE:", "WARNING:", "DEBUG:", "LOG:"].contains { notice.hasPrefix($0) }
            s += (hasSeverity ? notice : "INFO:  " + notice) + "\n"
        }
        return s
    }

    /// psql's `\timing` line: `Time: 1.234 ms`, with `(mm:ss.fff)` etc. from one second on.
    public static func timing(milliseconds ms: Double) -> String {
        let base = "Time: " + fixed(ms, 3) + " ms"
        if ms < 1000 || !ms.isFinite || ms > 1e15 { return base + "\n" }
        var seconds = ms / 1000
        var minutes = (seconds / 60).rounded(.down)
        seconds -= 60 * minutes
        if minutes < 60 {
            return base + " (" + pad2(Int(minutes)) + ":" + seconds6(seconds) + ")\n"
        }
        var hours = (minutes / 60).rounded(.down)
        minutes -= 60 * hours
        if hours < 24 {
            return base + " (" + pad2(Int(hours)) + ":" + pad2(Int(minutes)) + ":" + seconds6(seconds) + ")\n"
        }
        let days = (hours / 24).rounded(.down)
        hours -= 24 * days
        return base + " (" + fixed(days, 0) + " d " + pad2(Int(hours)) + ":" + pad2(Int(minutes)) + ":"
            + seconds6(seconds) + ")\n"
    }

    /// A table in the configured format.
    public func render(_ table: ResultTable) -> String {
        let expanded: Bool
        switch options.expanded {
        case .on: expanded = true
        case .off: expanded = false
        case .auto:
            if options.format == .aligned, let columns = options.terminalColumns, table.headers.count > 1 {
                expanded = alignedWidth(table) > columns
            } else {
                expanded = false
            }
        }
        switch (options.format, expanded) {
        case (.aligned, false): return aligned(table)
        case (.aligned, true): return alignedExpanded(table)
        case (.unaligned, false): return unaligned(table)
        case (.unaligned, true): return unalignedExpanded(table)
        case (.csv, false): return csv(table)
        case (.csv, true): return csvExpanded(table)
        }
    }

    // MARK: - Aligned

    private func footerLines(_ table: ResultTable) -> [String] {
        if let footers = table.footers { return footers }
        guard options.showFooter else { return [] }
        return [table.rows.count == 1 ? "(1 row)" : "(\(table.rows.count) rows)"]
    }

    private func cellText(_ cell: String?) -> String { cell ?? options.nullDisplay }

    private static func lines(_ text: String) -> [Substring] {
        text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
    }

    private func columnWidths(_ table: ResultTable) -> [Int] {
        var widths = table.headers.map { h in ResultPrinter.lines(h).map { DisplayWidth.of($0) }.max() ?? 0 }
        for row in table.rows {
            for (c, cell) in row.enumerated() where c < widths.count {
                for line in ResultPrinter.lines(cellText(cell)) {
                    widths[c] = max(widths[c], DisplayWidth.of(line))
                }
            }
        }
        return widths
    }

    private func alignedWidth(_ table: ResultTable) -> Int {
        let widths = columnWidths(table)
        return widths.reduce(0, +) + widths.count * 3 - (widths.isEmpty ? 0 : 1)
    }

    private func aligned(_ table: ResultTable) -> String {
        let widths = columnWidths(table)
        let n = widths.count
        var out = ""

        if let title = table.title, !options.tuplesOnly {
            let total = widths.reduce(0, +) + n * 3 - (n > 0 ? 1 : 0)
            let w = DisplayWidth.of(title)
            out += (w >= total ? "" : spaces((total - w) / 2)) + title + "\n"
        }

        if !options.tuplesOnly {
            let headerLines = table.headers.map(ResultPrinter.lines)
            let height = headerLines.map(\.count).max() ?? 0
            for l in 0..<height {
                for c in 0..<n {
                    out += " "
                    let lines = headerLines[c]
                    if l < lines.count {
                        let space = widths[c] - DisplayWidth.of(lines[l])
                        out += spaces(space / 2) + lines[l] + spaces((space + 1) / 2)
                        out += l + 1 < lines.count ? "+" : " "
                    } else {
                        out += spaces(widths[c]) + " "
                    }
                    if c < n - 1 { out += "|" }
                }
                out += "\n"
            }
            out += widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "+") + "\n"
        }

        for row in table.rows {
            let cells = (0..<n).map { c in ResultPrinter.lines(cellText(c < row.count ? row[c] : nil)) }
            let height = max(1, cells.map(\.count).max() ?? 1)
            for l in 0..<height {
                for c in 0..<n {
                    let last = c == n - 1
                    let lines = cells[c]
                    let more = l + 1 < lines.count
                    out += " "
                    if l < lines.count {
                        let text = lines[l]
                        let pad = widths[c] - DisplayWidth.of(text)
                        if table.rightAligned[safe: c] ?? false {
                            out += spaces(pad) + text
                        } else {
                            out += text
                            if !last || more { out += spaces(pad) }
                        }
                    } else if !last {
                        out += spaces(widths[c])
                    }
                    if more { out += "+" } else if !last { out += " " }
                    if !last { out += "|" }
                }
                out += "\n"
            }
        }

        if !options.tuplesOnly {
            for footer in footerLines(table) { out += footer + "\n" }
        }
        out += "\n"
        return out
    }

    /// psql's record header line, e.g. `-[ RECORD 1 ]-+------` (border 1).
    public static func recordLine(record: Int, headerWidth: Int, dataWidth: Int) -> String {
        var s = "-"
        var reclen = 0
        if record > 0 {
            let label = "[ RECORD \(record) ]"
            s += label
            reclen = label.count
        }
        reclen += 1
        if reclen < headerWidth { s += String(repeating: "-", count: headerWidth - reclen) }
        reclen -= headerWidth
        if reclen <= 0 { s += "-" }
        reclen -= 1
        if reclen <= 0 { s += "+" }
        reclen -= 1
        if reclen <= 0 { s += "-" }
        reclen -= 1
        if reclen < 0 { reclen = 0 }
        if reclen < dataWidth { s += String(repeating: "-", count: dataWidth - reclen) }
        return s + "\n"
    }

    private func alignedExpanded(_ table: ResultTable) -> String {
        var out = ""
        if table.rows.isEmpty {
            if !options.tuplesOnly {
                for footer in footerLines(table) { out += footer + "\n" }
            }
            return out + "\n"
        }
        let headerLines = table.headers.map(ResultPrinter.lines)
        var headerWidth = 0
        for lines in headerLines { for l in lines { headerWidth = max(headerWidth, DisplayWidth.of(l)) } }
        var dataWidth = 0
        var dataMultiline = false
        for row in table.rows {
            for cell in row {
                let lines = ResultPrinter.lines(cellText(cell))
                if lines.count > 1 { dataMultiline = true }
                for l in lines { dataWidth = max(dataWidth, DisplayWidth.of(l)) }
            }
        }
        let separatorWidth = 3 + (dataMultiline ? 1 : 0)
        var recordWidth = 0
        if !options.tuplesOnly {
            recordWidth = String(table.rows.count).count + 12
        }
        let total = max(headerWidth + separatorWidth + dataWidth, recordWidth)
        dataWidth = total - headerWidth - separatorWidth

        if let title = table.title, !options.tuplesOnly { out += title + "\n" }

        for (r, row) in table.rows.enumerated() {
            if !options.tuplesOnly {
                out += ResultPrinter.recordLine(record: r + 1, headerWidth: headerWidth, dataWidth: dataWidth)
            } else if r != 0 {
                out += ResultPrinter.recordLine(record: 0, headerWidth: headerWidth, dataWidth: dataWidth)
            }
            for (c, hLines) in headerLines.enumerated() {
                let dLines = ResultPrinter.lines(cellText(c < row.count ? row[c] : nil))
                var h = 0, d = 0
                var hDone = false, dDone = false
                while !hDone || !dDone {
                    if !hDone {
                        let text = hLines[h]
                        out += text + spaces(headerWidth - DisplayWidth.of(text))
                        if h + 1 < hLines.count {
                            out += "+"
                            h += 1
                        } else {
                            out += " "
                            hDone = true
                        }
                    } else {
                        out += spaces(headerWidth + 1)
                    }
                    out += "|"
                    if !dDone {
                        let text = dLines[d]
                        out += " " + text
                        if d + 1 < dLines.count {
                            if dataMultiline { out += spaces(dataWidth - DisplayWidth.of(text)) + "+" }
                            d += 1
                        } else {
                            dDone = true
                        }
                    }
                    out += "\n"
                }
            }
        }
        if !options.tuplesOnly, let footers = table.footers, !footers.isEmpty {
            out += "\n"
            for footer in footers { out += footer + "\n" }
        }
        out += "\n"
        return out
    }

    // MARK: - Unaligned

    private func unaligned(_ table: ResultTable) -> String {
        let fs = options.fieldSeparator, rs = options.recordSeparator
        var out = ""
        var needRecordSeparator = false
        if !options.tuplesOnly {
            if let title = table.title { out += title + rs }
            out += table.headers.joined(separator: fs)
            needRecordSeparator = true
        }
        for row in table.rows {
            if needRecordSeparator { out += rs }
            out += row.map(cellText).joined(separator: fs)
            needRecordSeparator = true
        }
        if !options.tuplesOnly {
            for footer in footerLines(table) {
                if needRecordSeparator { out += rs }
                out += footer
                needRecordSeparator = true
            }
        }
        if needRecordSeparator { out += "\n" }
        return out
    }

    private func unalignedExpanded(_ table: ResultTable) -> String {
        let fs = options.fieldSeparator, rs = options.recordSeparator
        var out = ""
        var needRecordSeparator = false
        if !options.tuplesOnly, let title = table.title {
            out += title
            needRecordSeparator = true
        }
        for row in table.rows {
            if needRecordSeparator {
                out += rs + rs
                needRecordSeparator = false
            }
            for (c, header) in table.headers.enumerated() {
                out += header + fs + cellText(c < row.count ? row[c] : nil)
                if c < table.headers.count - 1 { out += rs } else { needRecordSeparator = true }
            }
        }
        if !options.tuplesOnly, let footers = table.footers, !footers.isEmpty {
            out += rs
            for footer in footers { out += rs + footer }
        }
        if needRecordSeparator { out += "\n" }
        return out
    }

    // MARK: - CSV

    /// One CSV field, quoted as psql does (RFC 4180): when it contains the
    /// separator, a quote, CR or LF, or is exactly `\.`.
    public static func csvField(_ text: String, separator: Character = ",") -> String {
        let separatorScalars = Array(String(separator).unicodeScalars)
        let needsQuotes = text.unicodeScalars.contains { $0 == "\n" || $0 == "\r" || $0 == "\"" }
            || (separatorScalars.count == 1 ? text.unicodeScalars.contains(separatorScalars[0]) : text.contains(separator))
            || text == "\\." || separator == "\\" || separator == "."
        guard needsQuotes else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    private func csv(_ table: ResultTable) -> String {
        let sep = options.csvFieldSeparator
        var out = ""
        if !options.tuplesOnly {
            out += table.headers.map { ResultPrinter.csvField($0, separator: sep) }.joined(separator: String(sep)) + "\n"
        }
        for row in table.rows {
            out += row.map { ResultPrinter.csvField(cellText($0), separator: sep) }.joined(separator: String(sep)) + "\n"
        }
        return out
    }

    private func csvExpanded(_ table: ResultTable) -> String {
        let sep = options.csvFieldSeparator
        var out = ""
        for row in table.rows {
            for (c, header) in table.headers.enumerated() {
                out += ResultPrinter.csvField(header, separator: sep) + String(sep)
                    + ResultPrinter.csvField(cellText(c < row.count ? row[c] : nil), separator: sep) + "\n"
            }
        }
        return out
    }

    // MARK: - Helpers

    private func spaces(_ n: Int) -> String { n > 0 ? String(repeating: " ", count: n) : "" }

    /// `value` with `digits` decimals, rounded as printf does.
    static func fixed(_ value: Double, _ digits: Int) -> String {
        String(format: "%.\(digits)f", value)
    }

    private static func pad2(_ n: Int) -> String { n < 10 ? "0\(n)" : String(n) }

    /// `%06.3f`
    private static func seconds6(_ s: Double) -> String {
        let text = fixed(s, 3)
        return text.count < 6 ? String(repeating: "0", count: 6 - text.count) + text : text
    }
}

extension Array {
    subscript(safe index: Int) -> Element? {
        index >= 0 && index < count ? self[index] : nil
    }
}
