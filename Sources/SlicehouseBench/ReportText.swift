// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The terminal tables of a report: load, then one line per query, then totals.
public enum ReportText {
    public static func render(_ report: TPCHBenchReport) -> String {
        var out: [String] = []
        let sh = report.slicehouse
        let duck = report.duckdb
        let layout = "\(report.slices) slice\(report.slices == 1 ? "" : "s"): \(report.nodes) node\(report.nodes == 1 ? "" : "s") × \(report.slicesPerNode) slice\(report.slicesPerNode == 1 ? "" : "s") per node"
        var title = "\(report.benchmarkName) SF \(TPCHBenchOptions.scaleName(report.scaleFactor)): Slicehouse (\(layout))"
        if let duck { title += " vs \(duck.name)" }
        title += ", \(sh.threads) thread\(sh.threads == 1 ? "" : "s")" + (duck == nil ? "" : " each")
        out.append(title)
        out.append("\(report.runs) timed run\(report.runs == 1 ? "" : "s") per query after one warm-up"
                   + (report.fromDisk == true ? ", each run a fresh Slicehouse process reading the data directory" : "")
                   + (report.external.map { ", every table an external table of Parquet under \($0) (both engines)" } ?? "")
                   + "; times in ms; \(report.environment.build) build")
        out.append("data: \(report.dataDirectory) (" + (report.generation.cached ? "cached" : "generated in \(seconds(report.generation.seconds))") + ")")
        out.append("")

        // Load.
        var loadColumns = [TextColumn(width: 14, left: true), TextColumn(width: 12)]
        if duck != nil { loadColumns += [TextColumn(width: 12), TextColumn(width: 8)] }
        var loadCells: [[String]] = [["load (COPY)", "Slicehouse"] + (duck == nil ? [] : ["DuckDB", "ratio"])]
        var loadRows = sh.load.tables.map(\.table)
        for t in duck?.load.tables.map(\.table) ?? [] where !loadRows.contains(t) { loadRows.append(t) }
        for t in loadRows {
            let s = sh.load.seconds(t), d = duck?.load.seconds(t)
            loadCells.append([t, s.map(ms) ?? "-"] + (duck == nil ? [] : [d.map(ms) ?? "-", ratioText(s, d)]))
        }
        loadCells.append(["total", ms(sh.load.totalSeconds)]
                         + (duck.map { [ms($0.load.totalSeconds), ratioText(report.ratios?.load)] } ?? []))
        loadCells.append(["on disk", megabytes(sh.sizeBytes)]
                         + (duck.map { [megabytes($0.sizeBytes), ratioText(report.ratios?.size)] } ?? []))
        loadCells.append(["peak RSS", megabytes(sh.load.peakRSSBytes)]
                         + (duck.map { [megabytes($0.load.peakRSSBytes), ""] } ?? []))
        out += table(loadColumns, loadCells).lines
        out.append("")

        // Queries.
        var queryColumns = [TextColumn(width: 6, left: true), TextColumn(width: 10), TextColumn(width: 10), TextColumn(width: 9),
                            TextColumn(width: 10), TextColumn(width: 9, left: true, gap: 2)]
        if duck != nil {
            queryColumns += [TextColumn(width: 10, gap: 2), TextColumn(width: 10), TextColumn(width: 9), TextColumn(width: 8)]
        }
        var queryCells: [[String]] = [["query", "median", "min", "rows", "memory", "check"]
                                      + (duck == nil ? [] : ["median", "min", "memory", "ratio"])]
        for n in report.queries {
            guard let q = sh.query(n) else { continue }
            var cells = [String(format: "Q%02d", n), q.medianSeconds.map(ms) ?? "-", q.minSeconds.map(ms) ?? "-",
                         q.check.status == .error || q.check.status == .timeout ? "-" : String(q.rows),
                         megabytes(q.peakRSSBytes), q.check.label]
            if let duck {
                let d = duck.query(n)
                cells += [d?.medianSeconds.map(ms) ?? "-", d?.minSeconds.map(ms) ?? "-",
                          d.map { megabytes($0.peakRSSBytes) } ?? "-", ratioText(report.ratios?.query(n))]
            }
            queryCells.append(cells)
        }
        var sum = ["total", ms(sh.totalMedianSeconds), ms(sh.totalMinSeconds),
                   String(sh.queries.reduce(0) { $0 + ($1.check.status == .error ? 0 : $1.rows) }),
                   megabytes(sh.peakRSSBytes), ""]
        if let duck {
            sum += [ms(duck.totalMedianSeconds), ms(duck.totalMinSeconds), megabytes(duck.peakRSSBytes),
                    ratioText(report.ratios?.total)]
        }
        queryCells.append(sum)
        let queries = table(queryColumns, queryCells)
        // Group headers over each engine's columns.
        let w = queries.widths
        var groups = pad("", w[0], left: true) + centered(" Slicehouse ", w[1...4].reduce(0, +) + 2 + w[5])
        if duck != nil { groups += "  " + centered(" DuckDB ", w[6...9].reduce(0, +)) }
        out.append(groups)
        out += queries.lines
        out.append("")

        if let scaling = report.scaling {
            out += scalingTable(scaling)
            out.append("")
        }

        // Answers.
        out.append(answerSummary(sh, reference: report.answerReference, duckdb: duck))
        let allowed = Set(report.allowedFailures ?? [])
        for q in sh.queries where q.check.status == .fail || q.check.status == .error || q.check.status == .timeout {
            out.append(String(format: "  Q%02d ", q.number) + q.check.label + (allowed.contains(q.number) ? " (allowed)" : "")
                       + ": " + (q.check.detail ?? ""))
        }
        if report.allowedFailures != nil {
            let unexpected = report.unexpectedFailures
            out.append(unexpected.isEmpty ? "no unexpected failures"
                       : "unexpected failures: " + unexpected.map { String(format: "Q%02d", $0) }.joined(separator: ", "))
            let passes = report.unexpectedPasses
            if !passes.isEmpty {
                out.append("passing now (drop from --allow-fail): " + passes.map(String.init).joined(separator: ","))
            }
        }
        if let duck {
            for q in duck.queries where q.check.status == .fail || q.check.status == .error {
                out.append(String(format: "  DuckDB Q%02d ", q.number) + q.check.label + ": " + (q.check.detail ?? ""))
            }
        }
        out.append("memory: \(sh.memoryKind); total line: peak over the run")
        for note in report.notes { out.append("note: \(note)") }
        if duck != nil {
            out.append("ratio = Slicehouse ÷ DuckDB (median over median; total: sum of medians); below 1 is faster")
        }
        return out.map { String(trimmingTrailingBlanks($0)) }.joined(separator: "\n")
    }

    /// Per query: the medians at both scale factors and how much they grew, beside the
    /// growth of the work (the ratio of the scale factors); `*` marks growth beyond it.
    static func scalingTable(_ scaling: ScalingFigures) -> [String] {
        let from = "SF " + TPCHBenchOptions.scaleName(scaling.fromScaleFactor)
        let to = "SF " + TPCHBenchOptions.scaleName(scaling.toScaleFactor)
        let duck = scaling.queries.contains { $0.duckdbGrowth != nil }
        let pairs = scaling.queries.contains { $0.lowestPairGrowth != nil }
        let cpu = scaling.queries.contains { $0.cpuGrowth != nil }
        var columns = [TextColumn(width: 6, left: true), TextColumn(width: 10), TextColumn(width: 10), TextColumn(width: 8)]
        if pairs { columns.append(TextColumn(width: 13, gap: 2)) }
        if cpu { columns.append(TextColumn(width: 10, gap: 2)) }
        if duck { columns.append(TextColumn(width: 8, gap: 2)) }
        var cells: [[String]] = [["query", from, to, "growth"] + (pairs ? ["run pairs"] : []) + (cpu ? ["CPU growth"] : [])
                                 + (duck ? ["DuckDB"] : [])]
        func growth(_ g: Double?) -> String {
            guard let g else { return "-" }
            return ratioText(g) + (g > scaling.workGrowth ? "*" : "")
        }
        func spread(_ q: ScalingFigures.Query) -> String {
            guard let lo = q.lowestPairGrowth, let hi = q.highestPairGrowth else { return "-" }
            return ratioText(lo) + "–" + ratioText(hi)
        }
        for q in scaling.queries {
            cells.append([String(format: "Q%02d", q.number), ms(q.fromSeconds), ms(q.toSeconds), growth(q.growth)]
                         + (pairs ? [spread(q)] : []) + (cpu ? [q.cpuGrowth.map(ratioText) ?? "-"] : [])
                         + (duck ? [q.duckdbGrowth.map(ratioText) ?? "-"] : []))
        }
        cells.append(["total", ms(scaling.queries.reduce(0) { $0 + $1.fromSeconds }),
                      ms(scaling.queries.reduce(0) { $0 + $1.toSeconds }), growth(scaling.totalGrowth)]
                     + (pairs ? [""] : []) + (cpu ? [""] : []) + (duck ? [scaling.duckdbTotalGrowth.map(ratioText) ?? "-"] : []))
        var lines = ["scaling \(from) → \(to) (the work grows \(ratioText(scaling.workGrowth))×; medians in ms, "
                     + "\(from) from: \(scaling.fromCommand))"]
        lines += table(columns, cells).lines
        let over = scaling.superlinear
        lines.append(over.isEmpty ? "no query grew more than the work"
                     : "* grew more than the work: " + over.map { String(format: "Q%02d", $0) }.joined(separator: ", "))
        if pairs {
            lines.append("growth = median over median; run pairs: the lowest and highest growth of run i at \(to) "
                         + "over run i at \(from), each pair run one after the other")
        }
        if cpu {
            lines.append("CPU growth = the medians of the runs' CPU seconds (user + system, all threads); "
                         + "time growing more than CPU means idle cores at \(to), not more work")
        }
        return lines
    }

    static func trimmingTrailingBlanks(_ s: String) -> Substring {
        AnswerChecker.trimmingTrailingBlanks(s)
    }

    static func answerSummary(_ sh: EngineFigures, reference: String, duckdb: EngineFigures?) -> String {
        func count(_ e: EngineFigures, _ s: AnswerCheck.Status) -> Int { e.queries.filter { $0.check.status == s }.count }
        let n = sh.queries.count
        var text: String
        if reference == "none" {
            text = "answers: unchecked (no reference answers at this scale factor; --compare duckdb checks them against DuckDB)"
        } else {
            text = "answers: \(count(sh, .pass)) of \(n) passed against \(reference)"
            let failed = count(sh, .fail), errors = count(sh, .error), timeouts = count(sh, .timeout)
            if failed > 0 { text += ", \(failed) FAILED" }
            if errors > 0 { text += ", \(errors) ERROR" }
            if timeouts > 0 { text += ", \(timeouts) TIMEOUT" }
        }
        if let duckdb {
            let checked = duckdb.queries.filter { $0.check.status != .unchecked }.count
            if checked > 0 {
                text += "; DuckDB: \(count(duckdb, .pass)) of \(duckdb.queries.count) passed"
            }
            let errors = count(duckdb, .error)
            if errors > 0 { text += "; DuckDB errors: \(errors)" }
        }
        return text
    }

    // MARK: Formatting

    /// A column of a text table: its narrowest width, alignment and the blanks before it.
    struct TextColumn {
        var width: Int
        var left = false
        var gap = 0
    }

    /// Rows of cells laid out in columns wide enough for every cell (at least each
    /// column's `width`, and one blank more than its longest cell, so that neighbours
    /// never run together); returns the lines and the widths used.
    static func table(_ columns: [TextColumn], _ rows: [[String]]) -> (lines: [String], widths: [Int]) {
        var widths = columns.map(\.width)
        for row in rows {
            for (c, cell) in row.enumerated() where c < widths.count {
                widths[c] = max(widths[c], cell.count + 1)
            }
        }
        let lines = rows.map { row in
            row.enumerated().map { c, cell in
                guard c < columns.count else { return " " + cell }
                return String(repeating: " ", count: columns[c].gap) + pad(cell, widths[c], left: columns[c].left)
            }.joined()
        }
        return (lines, widths)
    }

    static func ms(_ seconds: Double) -> String {
        let v = seconds * 1000
        return v >= 100_000 ? String(format: "%.0f", v) : String(format: "%.1f", v)
    }

    static func seconds(_ s: Double) -> String { String(format: "%.1f s", s) }

    static func megabytes(_ bytes: Int64) -> String {
        bytes <= 0 ? "-" : String(format: "%.1f MB", Double(bytes) / 1e6)
    }

    static func ratioText(_ a: Double?, _ b: Double?) -> String {
        guard let a, let b else { return "-" }
        return ratioText(Stats.ratio(a, b))
    }

    static func ratioText(_ r: Double?) -> String {
        guard let r else { return "-" }
        return r >= 100 ? String(format: "%.0f", r) : String(format: "%.2f", r)
    }

    static func pad(_ text: String, _ width: Int, left: Bool = false) -> String {
        let padding = String(repeating: " ", count: max(0, width - text.count))
        return left ? text + padding : padding + text
    }

    static func centered(_ text: String, _ width: Int) -> String {
        let dashes = max(0, width - text.count)
        return String(repeating: "-", count: dashes / 2) + text + String(repeating: "-", count: dashes - dashes / 2)
    }
}
