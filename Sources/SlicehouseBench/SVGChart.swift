// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A grouped bar chart of per-query times (one bar per engine), as a standalone SVG
/// document written by hand: no external libraries.
public enum SVGChart {
    public enum Scale: String, Sendable {
        case linear, log
        /// Log when the slowest bar is more than 30 times the fastest, else linear.
        case auto
    }

    public struct Series: Sendable {
        public var name: String
        public var color: String
        /// Milliseconds per query number; a missing query draws no bar.
        public var values: [Int: Double]
        public init(name: String, color: String, values: [Int: Double]) {
            self.name = name; self.color = color; self.values = values
        }
    }

    static let palette = ["#3b6fb6", "#e3a21a", "#5a9e4b", "#b5485d"]

    /// The chart of a report: median time per query for Slicehouse and, if it ran, DuckDB.
    public static func render(_ report: TPCHBenchReport, scale: Scale = .auto) -> String {
        func values(_ e: EngineFigures) -> [Int: Double] {
            var out: [Int: Double] = [:]
            for q in e.queries { if let m = q.medianSeconds { out[q.number] = m * 1000 } }
            return out
        }
        var series = [Series(name: report.slicehouse.name, color: palette[0], values: values(report.slicehouse))]
        if let d = report.duckdb { series.append(Series(name: d.name, color: palette[1], values: values(d))) }
        var title = "\(report.benchmarkName) SF \(TPCHBenchOptions.scaleName(report.scaleFactor)): median of \(report.runs) run\(report.runs == 1 ? "" : "s") per query, "
            + "\(report.slices) slices, \(report.slicehouse.threads) threads"
        if let total = report.ratios?.total { title += String(format: "; total ratio %.2f×", total) }
        return render(title: title, queries: report.queries, series: series, scale: scale)
    }

    public static func render(title: String, queries: [Int], series: [Series], scale: Scale = .auto) -> String {
        let all = series.flatMap { s in queries.compactMap { s.values[$0] } }.filter { $0.isFinite && $0 > 0 }
        let maxValue = all.max() ?? 1
        let minValue = all.min() ?? 1
        let useLog: Bool
        switch scale {
        case .linear: useLog = false
        case .log: useLog = true
        case .auto: useLog = maxValue / minValue > 30
        }

        let left = 78.0, right = 20.0, top = 64.0, bottom = 44.0, plotHeight = 320.0
        let barWidth = 14.0, barGap = 2.0, groupGap = 12.0
        let groupWidth = Double(max(1, series.count)) * (barWidth + barGap) - barGap + groupGap
        let plotWidth = max(240.0, Double(max(1, queries.count)) * groupWidth)
        let width = left + plotWidth + right, height = top + plotHeight + bottom

        // Axis: value → y.
        let ticks: [Double]
        let y: (Double) -> Double
        if useLog {
            let lo = floor(log10(minValue)), hi0 = ceil(log10(maxValue))
            let hi = hi0 <= lo ? lo + 1 : hi0
            ticks = stride(from: lo, through: hi, by: 1).map { pow(10, $0) }
            y = { v in
                let l = log10(max(v, pow(10, lo)))
                return top + plotHeight - (l - lo) / (hi - lo) * plotHeight
            }
        } else {
            let step = niceStep(maxValue / 5)
            let top0 = max(step, ceil(maxValue / step) * step)
            ticks = stride(from: 0, through: top0 + step / 2, by: step).map { $0 }
            y = { v in top + plotHeight - max(0, v) / top0 * plotHeight }
        }

        var svg: [String] = []
        svg.append(##"<?xml version="1.0" encoding="UTF-8"?>"##)
        svg.append(##"<svg xmlns="http://www.w3.org/2000/svg" width="\##(f(width))" height="\##(f(height))" viewBox="0 0 \##(f(width)) \##(f(height))" font-family="Helvetica, Arial, sans-serif" font-size="11">"##)
        svg.append(##"<rect width="100%" height="100%" fill="white"/>"##)
        svg.append(##"<text x="\##(f(left))" y="20" font-size="14" font-weight="bold">\##(escape(title))</text>"##)
        // Legend.
        var lx = left
        for s in series {
            svg.append(##"<rect x="\##(f(lx))" y="32" width="12" height="12" fill="\##(escape(s.color))"/>"##)
            svg.append(##"<text x="\##(f(lx + 16))" y="42">\##(escape(s.name))</text>"##)
            lx += 24 + Double(s.name.count) * 6.5
        }
        var scaleNote = useLog ? "log scale" : "linear scale"
        if series.count == 2 { scaleNote += "; under each query: \(series[0].name) ÷ \(series[1].name)" }
        svg.append(##"<text x="\##(f(lx + 8))" y="42" fill="#666">\##(escape(scaleNote))</text>"##)
        // Grid and y labels.
        for t in ticks {
            let ty = y(t)
            svg.append(##"<line x1="\##(f(left))" y1="\##(f(ty))" x2="\##(f(left + plotWidth))" y2="\##(f(ty))" stroke="#ddd"/>"##)
            svg.append(##"<text x="\##(f(left - 6))" y="\##(f(ty + 4))" text-anchor="end">\##(escape(timeLabel(t)))</text>"##)
        }
        svg.append(##"<line x1="\##(f(left))" y1="\##(f(top))" x2="\##(f(left))" y2="\##(f(top + plotHeight))" stroke="#333"/>"##)
        svg.append(##"<line x1="\##(f(left))" y1="\##(f(top + plotHeight))" x2="\##(f(left + plotWidth))" y2="\##(f(top + plotHeight))" stroke="#333"/>"##)
        svg.append(##"<text transform="translate(16 \##(f(top + plotHeight / 2))) rotate(-90)" text-anchor="middle">time per query</text>"##)
        // Bars.
        let base = top + plotHeight
        for (i, q) in queries.enumerated() {
            let gx = left + groupGap / 2 + Double(i) * groupWidth
            for (k, s) in series.enumerated() {
                guard let v = s.values[q], v.isFinite, v > 0 else { continue }
                let bx = gx + Double(k) * (barWidth + barGap)
                let by = min(base, y(v))
                svg.append(##"<rect x="\##(f(bx))" y="\##(f(by))" width="\##(f(barWidth))" height="\##(f(base - by))" fill="\##(escape(s.color))"><title>\##(escape("Q\(q) \(s.name): \(timeLabel(v, precise: true))"))</title></rect>"##)
            }
            let cx = gx + (groupWidth - groupGap) / 2
            svg.append(##"<text x="\##(f(cx))" y="\##(f(base + 16))" text-anchor="middle">Q\##(q)</text>"##)
            if series.count == 2, let a = series[0].values[q], let b = series[1].values[q], let r = Stats.ratio(a, b) {
                svg.append(##"<text x="\##(f(cx))" y="\##(f(base + 30))" text-anchor="middle" font-size="9" fill="#666">\##(r >= 9.95 ? String(format: "%.0f×", r) : String(format: "%.1f×", r))</text>"##)
            }
        }
        svg.append("</svg>")
        return svg.joined(separator: "\n") + "\n"
    }

    /// 1, 2 or 5 times a power of ten, at least `raw`.
    static func niceStep(_ raw: Double) -> Double {
        guard raw > 0, raw.isFinite else { return 1 }
        let magnitude = pow(10, floor(log10(raw)))
        for m in [1.0, 2.0, 5.0, 10.0] where m * magnitude >= raw { return m * magnitude }
        return 10 * magnitude
    }

    /// "0.5 ms", "20 ms", "1.5 s".
    static func timeLabel(_ ms: Double, precise: Bool = false) -> String {
        if ms >= 1000 {
            let s = ms / 1000
            return (s == s.rounded() && !precise) ? String(format: "%.0f s", s) : String(format: "%.2f s", s)
        }
        if precise { return String(format: "%.1f ms", ms) }
        if ms == ms.rounded() { return String(format: "%.0f ms", ms) }
        return ms >= 1 ? String(format: "%.1f ms", ms) : String(format: "%g ms", ms)
    }

    static func f(_ v: Double) -> String {
        v == v.rounded() ? String(format: "%.0f", v) : String(format: "%.1f", v)
    }

    static func escape(_ s: String) -> String {
        var out = ""
        for c in s {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(c)
            }
        }
        return out
    }
}
