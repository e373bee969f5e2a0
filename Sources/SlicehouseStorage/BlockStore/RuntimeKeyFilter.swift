import SlicehouseTypes

/// The build keys of a hash join, handed to a scan on the join's probe side before the
/// scan reads its first block (a runtime filter, also called a join-derived or
/// semi-join filter): probe rows whose key is not among them cannot produce output.
///
/// The range `low...high` skips blocks by their zone maps (on a table sorted by the key
/// it skips nearly every block); `bits`, when the range is small enough, holds one bit
/// per key in the range and drops the other rows before the scan decodes any other
/// column. Keys are the 64-bit integer form of integer, date and timestamp columns.
public struct RuntimeKeyFilter: Sendable {
    /// Smallest and largest key; `low > high` when the build side has no key (nothing matches).
    public var low: Int64
    public var high: Int64
    /// Bit `k - low` is set when key `k` is present; nil when the range was too wide.
    public var bits: [UInt64]?

    /// At most 8 Mbit (1 MB) of bitmap; a wider range keeps the range check only.
    public static let maximumBitmapSpan: Int64 = 1 << 23

    public init(low: Int64, high: Int64, bits: [UInt64]?) {
        self.low = low; self.high = high; self.bits = bits
    }

    /// The filter of `keys` (rows where `valid` is false are left out; nil: all valid).
    public static func of(_ keys: UnsafeBufferPointer<Int64>, valid: UnsafeBufferPointer<Bool>?) -> RuntimeKeyFilter {
        var lo = Int64.max, hi = Int64.min
        for r in 0..<keys.count where valid?[r] ?? true { lo = min(lo, keys[r]); hi = max(hi, keys[r]) }
        if lo > hi { return RuntimeKeyFilter(low: 1, high: 0, bits: nil) }
        let (span, overflow) = hi.subtractingReportingOverflow(lo)
        guard !overflow, span < maximumBitmapSpan else { return RuntimeKeyFilter(low: lo, high: hi, bits: nil) }
        var bits = [UInt64](repeating: 0, count: Int(span) / 64 + 1)
        bits.withUnsafeMutableBufferPointer { bw in
            for r in 0..<keys.count where valid?[r] ?? true {
                let d = Int(keys[r] &- lo)
                bw[d >> 6] |= 1 << UInt64(d & 63)
            }
        }
        return RuntimeKeyFilter(low: lo, high: hi, bits: bits)
    }

    /// No key at all: no probe row can match.
    public var isEmpty: Bool { low > high }

    /// The zone-map form of the range, on table column `column`.
    public func zonePredicate(column: Int) -> ZonePredicate {
        ZonePredicate(column: column, ops: [(.ge, .int(low)), (.le, .int(high))])
    }
}

/// Where a hash join leaves its runtime filter for the scans of the same pipeline
/// (one per filter and partition). The join fills it when its build side is complete,
/// which in a pull pipeline is before the probe side reads anything; a scan that starts
/// with the slot still empty reads without it.
public final class RuntimeFilterSlot: @unchecked Sendable {
    public var filter: RuntimeKeyFilter?
    public init() {}
}

/// Rows checked and kept by a scan's runtime filters (for the query summary).
public struct RuntimeFilterCounters: Sendable {
    public var rowsChecked = 0
    public var rowsKept = 0
    public init() {}
}
