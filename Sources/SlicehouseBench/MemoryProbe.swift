// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The process's resident memory. On Linux the peak (VmHWM) can be reset through
/// /proc/self/clear_refs, which gives a true per-query peak; elsewhere only the
/// process's peak so far (getrusage) is available.
public enum MemoryProbe {
    /// Reset the peak resident set size; false when the system does not allow it.
    @discardableResult
    public static func resetPeak() -> Bool {
        #if os(Linux)
        let fd = open("/proc/self/clear_refs", O_WRONLY)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let written = "5".utf8CString.withUnsafeBufferPointer { write(fd, $0.baseAddress, 1) }
        return written == 1
        #else
        return false
        #endif
    }

    /// Peak resident set size in bytes: since the last successful `resetPeak()` on
    /// Linux, else since the process started.
    public static func peakBytes() -> Int64 {
        #if os(Linux)
        if let hwm = statusField("VmHWM:") { return hwm }
        #endif
        return processPeakBytes()
    }

    /// The process's peak resident set size since it started (getrusage).
    public static func processPeakBytes() -> Int64 {
        var usage = rusage()
        #if os(Linux)
        guard getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage) == 0 else { return 0 }
        return Int64(usage.ru_maxrss) * 1024
        #else
        guard getrusage(RUSAGE_SELF, &usage) == 0 else { return 0 }
        return Int64(usage.ru_maxrss)
        #endif
    }

    /// Current resident set size in bytes (0 when unknown).
    public static func currentBytes() -> Int64 {
        #if os(Linux)
        return statusField("VmRSS:") ?? 0
        #else
        return 0
        #endif
    }

    /// A "Vm...: N kB" line of /proc/self/status, in bytes.
    static func statusField(_ name: String) -> Int64? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(name) {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            if fields.count >= 2, let kb = Int64(fields[1]) { return kb * 1024 }
        }
        return nil
    }

    /// What `peakBytes()` after `resetPeak()` measures here, for reports.
    public static func kind(resetWorks: Bool) -> String {
        resetWorks ? "per-query peak RSS (VmHWM, reset before each query)"
                   : "process peak RSS so far (getrusage; no per-query reset on this system)"
    }
}
