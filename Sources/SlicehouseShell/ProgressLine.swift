// SPDX-License-Identifier: Apache-2.0
import SlicehouseEngine
import SlicehouseTypes
import SlicehousePlatform

/// The line the shell keeps rewriting on standard error while a long COPY runs (only
/// when standard error is a terminal): `COPY lineitem: 3.1 GB/7.6 GB read, 2,345,000 rows`.
public enum ProgressLine {
    /// The text of the line for `p` (no control characters).
    public static func format(_ p: CopyProgress) -> String {
        var s = "COPY \(p.table): \(byteSize(p.bytesRead))"
        if p.totalBytes > 0 { s += "/\(byteSize(p.totalBytes))" }
        s += " read, \(grouped(p.rows)) row\(p.rows == 1 ? "" : "s")"
        return s
    }

    /// Bytes as `512 bytes`, `4.0 kB`, `3.1 GB` (units of 1024, like pg_size_pretty;
    /// one decimal below 100, none above).
    public static func byteSize(_ n: Int64) -> String {
        let units = ["kB", "MB", "GB", "TB", "PB", "EB"]
        if n < 1024 { return "\(max(n, 0)) bytes" }
        var value = Double(n) / 1024
        var unit = 0
        while value >= 1023.5 && unit < units.count - 1 {  // what would print as 1024 goes up a unit
            value /= 1024
            unit += 1
        }
        if value >= 99.95 { return "\(Int((value).rounded())) \(units[unit])" }
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10) \(units[unit])"
    }

    /// `2345000` as `2,345,000`.
    public static func grouped(_ n: Int) -> String {
        let digits = Array(String(n.magnitude))
        var out = n < 0 ? "-" : ""
        for (i, d) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(d)
        }
        return out
    }

    /// What rewrites the terminal line with `text`: carriage return, the text, clear to
    /// the end of the line.
    public static func overwrite(_ text: String) -> String { "\r" + text + "\u{1B}[K" }

    /// What erases the line.
    public static let erase = "\r\u{1B}[K"
}

/// One statement's progress line: shows the latest text, erases it at the end.
final class ProgressLineState: @unchecked Sendable {
    private let lock = Lock()
    private let write: @Sendable (String) -> Void
    private var shown = false

    init(write: @escaping @Sendable (String) -> Void) { self.write = write }

    func show(_ p: CopyProgress) {
        let text = ProgressLine.overwrite(ProgressLine.format(p))
        lock.withLock {
            write(text)
            shown = true
        }
    }

    func erase() {
        lock.withLock {
            if shown { write(ProgressLine.erase) }
            shown = false
        }
    }
}
