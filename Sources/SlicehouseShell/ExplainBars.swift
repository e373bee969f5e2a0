// SPDX-License-Identifier: Apache-2.0
/// `\bars`: EXPLAIN ANALYZE's figures drawn as compact text bars, one character a slice
/// for the rows each slice produced (the tallest is the busiest slice, so skew shows at
/// a glance), and a ten-character bar for the share of a scan's blocks that zone maps
/// skipped:
///
///     Slices: rows min=702 max=936 skew=1.127 by slice [702,936,840,843]
///     Slices: ▆█▇▇ rows min=702 max=936 skew=1.127
///
///     Scanned: 338428 rows read, 16 of 84 blocks skipped by zone maps
///     Scanned: 338428 rows read; blocks skipped ██░░░░░░░░ 16 of 84
///
/// Other lines are left as they are.
public enum ExplainBars {
    static let levels: [Character] = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]

    public static func line(_ text: String) -> String {
        let indent = String(text.prefix { $0 == " " })
        let body = text.dropFirst(indent.count)
        if body.hasPrefix("Slices: "), body.hasSuffix("]"), let open = body.lastIndex(of: "["),
           let by = body.range(of: " by slice [") {
            let values = body[body.index(after: open)..<body.index(before: body.endIndex)].split(separator: ",").compactMap { Int($0) }
            guard !values.isEmpty, let hi = values.max() else { return text }
            let bars = String(values.map { v -> Character in
                hi == 0 ? levels[0] : levels[min(levels.count - 1, Int((Double(v) / Double(hi) * Double(levels.count - 1)).rounded()))]
            })
            return indent + "Slices: " + bars + " " + body[body.index(body.startIndex, offsetBy: "Slices: ".count)..<by.lowerBound]
        }
        if body.hasPrefix("Scanned: "), let comma = body.range(of: ", "), let of = body.range(of: " of "),
           let end = body.range(of: " blocks skipped by zone maps") {
            let skipped = Int(body[comma.upperBound..<of.lowerBound]) ?? 0
            let total = Int(body[of.upperBound..<end.lowerBound]) ?? 0
            guard total > 0 else { return text }
            let filled = min(10, Int((Double(skipped) / Double(total) * 10).rounded()))
            return indent + body[..<comma.lowerBound] + "; blocks skipped "
                + String(repeating: "█", count: filled) + String(repeating: "░", count: 10 - filled) + " \(skipped) of \(total)"
        }
        return text
    }
}
