// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// Column-chunk statistics written to the footer: NULL count and min/max.
///
/// Min and max are PLAIN-encoded single values (byte arrays without their length) in the
/// column's sort order: signed for numbers, dates and timestamps (including decimals in
/// INT32/INT64 and, compared as numbers, in FIXED_LEN_BYTE_ARRAY), unsigned bytewise for
/// strings. Float min/max leave NaN out and report zeros as -0.0 / +0.0, as the format
/// asks. The deprecated `min`/`max` fields are also written where their signed order is
/// right, for old readers.
extension ColumnChunkWriter {
    /// Statistics of the buffered rows.
    func statistics() -> StatisticsFields {
        var s = StatisticsFields()
        s.nullCount = Int64(nullCount)
        var minBytes: [UInt8]? = nil, maxBytes: [UInt8]? = nil
        var legacy = true
        switch layout.storage {
        case .int32:
            if let lo = int32s.min(), let hi = int32s.max() { minBytes = littleEndianBytes(lo); maxBytes = littleEndianBytes(hi) }
        case .int64:
            if let lo = int64s.min(), let hi = int64s.max() { minBytes = littleEndianBytes(lo); maxBytes = littleEndianBytes(hi) }
        case .wideDecimal(let n):
            legacy = false
            if let lo = wides.min(), let hi = wides.max() {
                var a: [UInt8] = [], b: [UInt8] = []
                appendBigEndian(lo, bytes: n, to: &a)
                appendBigEndian(hi, bytes: n, to: &b)
                minBytes = a; maxBytes = b
            }
        case .float:
            var lo = Float.infinity, hi = -Float.infinity, any = false
            for f in floats where !f.isNaN { lo = Swift.min(lo, f); hi = Swift.max(hi, f); any = true }
            if any {
                if lo == 0 { lo = -0.0 }
                if hi == 0 { hi = 0.0 }
                minBytes = littleEndianBytes(lo.bitPattern); maxBytes = littleEndianBytes(hi.bitPattern)
            }
        case .double:
            var lo = Double.infinity, hi = -Double.infinity, any = false
            for d in doubles where !d.isNaN { lo = Swift.min(lo, d); hi = Swift.max(hi, d); any = true }
            if any {
                if lo == 0 { lo = -0.0 }
                if hi == 0 { hi = 0.0 }
                minBytes = littleEndianBytes(lo.bitPattern); maxBytes = littleEndianBytes(hi.bitPattern)
            }
        case .boolean:
            if !bools.isEmpty {
                minBytes = [bools.contains(false) ? 0 : 1]
                maxBytes = [bools.contains(true) ? 1 : 0]
            }
        case .string:
            legacy = false
            (minBytes, maxBytes) = stringMinMax()
        }
        s.minValue = minBytes
        s.maxValue = maxBytes
        if legacy {
            s.legacyMin = minBytes
            s.legacyMax = maxBytes
        }
        return s
    }

    /// Bytewise unsigned min and max of the strings (over the dictionary when there is one).
    private func stringMinMax() -> ([UInt8]?, [UInt8]?) {
        let bytes = dictionary?.bytes ?? stringBytes
        let ends = dictionary?.ends ?? stringEnds
        let n = ends.count - 1
        guard n > 0 else { return (nil, nil) }
        var lo = 0, hi = 0
        bytes.withUnsafeBufferPointer { b in
            let base = b.baseAddress
            func cmp(_ i: Int, _ j: Int) -> Int {
                compareBytes(base.map { $0 + ends[i] }, ends[i + 1] - ends[i], base.map { $0 + ends[j] }, ends[j + 1] - ends[j])
            }
            for i in 1..<n {
                if cmp(i, lo) < 0 { lo = i }
                if cmp(i, hi) > 0 { hi = i }
            }
        }
        guard ends[lo + 1] - ends[lo] <= Self.maxStatisticsLength, ends[hi + 1] - ends[hi] <= Self.maxStatisticsLength else {
            return (nil, nil)
        }
        return (Array(bytes[ends[lo]..<ends[lo + 1]]), Array(bytes[ends[hi]..<ends[hi + 1]]))
    }
}
