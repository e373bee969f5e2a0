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
        out.append("\(report.runs) timed run\(report.runs == 1 ? "" : "s") per query after one warm-up; times in ms; "
                   + "\(report.environment.build) build")
        out.append("data: \(report.dataDirectory) (" + (report.generation.cached ? "cached" : "generated in \(seconds(report.generation.seconds))") + ")")
        out.append("")

        // Load.
        var header = pad("load (COPY)", 14, left: true) + pad("Slicehouse", 12)
        if duck != nil { header += pad("DuckDB", 12) + pad("ratio", 8) }
        out.append(header)
        var loadRows = sh.load.tables.map(\.table)
        for t in duck?.load.tables.map(\.table) ?? [] where !loadRows.contains(t) { loadRows.append(t) }
        for t in loadRows {
            let s = sh.load.seconds(t), d = duck?.load.seconds(t)
            var line = pad(t, 14, left: true) + pad(s.map(ms) ?? "-", 12)
            if duck != nil {
                line += pad(d.map(ms) ?? "-", 12) + pad(ratioText(s, d), 8)
            }
            out.append(line)
        }
        var total = pad("total", 14, left: true) + pad(ms(sh.load.totalSeconds), 12)
        if let duck { total += pad(ms(duck.load.totalSeconds), 12) + pad(ratioText(report.ratios?.load), 8) }
        out.append(total)
        var disk = pad("on disk", 14, left: true) + pad(megabytes(sh.sizeBytes), 12)
        if let duck { disk += pad(megabytes(duck.sizeBytes), 12) + pad(ratioText(report.ratios?.size), 8) }
        out.append(disk)
        var peak = pad("peak RSS", 14, left: true) + pad(megabytes(sh.load.peakRSSBytes), 12)
        if let duck { peak += pad(megabytes(duck.load.peakRSSBytes), 12) }
        out.append(peak)
        out.append("")

        // Queries.
        let shWidth = 6 + 10 + 10 + 9 + 10 + 11
        var groups = pad("", 6, left: true) + centered(" Slicehouse ", shWidth - 6)
        var columns = pad("query", 6, left: true) + pad("median", 10) + pad("min", 10) + pad("rows", 9)
            + pad("memory", 10) + "  " + pad("check", 9, left: true)
        if duck != nil {
            groups += "  " + centered(" DuckDB ", 10 + 10 + 9 + 8 + 2)
            columns += "  " + pad("median", 10) + pad("min", 10) + pad("memory", 9) + pad("ratio", 8)
        }
        out.append(groups)
        out.append(columns)
        for n in report.queries {
            guard let q = sh.query(n) else { continue }
            var line = pad(String(format: "Q%02d", n), 6, left: true) + pad(q.medianSeconds.map(ms) ?? "-", 10)
                + pad(q.minSeconds.map(ms) ?? "-", 10) + pad(q.check.status == .error || q.check.status == .timeout ? "-" : String(q.rows), 9)
                + pad(megabytes(q.peakRSSBytes), 10) + "  " + pad(q.check.label, 9, left: true)
            if let duck {
                let d = duck.query(n)
                line += "  " + pad(d?.medianSeconds.map(ms) ?? "-", 10) + pad(d?.minSeconds.map(ms) ?? "-", 10)
                    + pad(d.map { megabytes($0.peakRSSBytes) } ?? "-", 9) + pad(ratioText(report.ratios?.query(n)), 8)
            }
            out.append(line)
        }
        var sum = pad("total", 6, left: true) + pad(ms(sh.totalMedianSeconds), 10) + pad(ms(sh.totalMinSeconds), 10)
            + pad(String(sh.queries.reduce(0) { $0 + ($1.check.status == .error ? 0 : $1.rows) }), 9)
            + pad(megabytes(sh.peakRSSBytes), 10) + "  " + pad("", 9, left: true)
        if let duck {
            sum += "  " + pad(ms(duck.totalMedianSeconds), 10) + pad(ms(duck.totalMinSeconds), 10)
                + pad(megabytes(duck.peakRSSBytes), 9) + pad(ratioText(report.ratios?.total), 8)
        }
        out.append(sum)
        out.append("")

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
