// SPDX-License-Identifier: Apache-2.0
/// The smallest and the largest of a run of 64-bit values, four lanes at a time (a
/// compare and a blend per lane on AVX2, against a dependent compare-and-branch per
/// value in the generic scalar loop). AZ64 finds every 128-value group's range with it.
enum MinMax {
    /// (min, max) of `x[0..<k]`; nil when `k` is 0.
    @inline(__always)
    static func of(_ x: UnsafePointer<Int64>, _ k: Int) -> (min: Int64, max: Int64)? {
        guard k > 0 else { return nil }
        var i = 0
        var lo = x[0], hi = x[0]
        if k >= 8 {
            let raw = UnsafeRawPointer(x)
            var lo4 = raw.loadUnaligned(as: SIMD4<Int64>.self), hi4 = lo4
            var lo4b = raw.loadUnaligned(fromByteOffset: 32, as: SIMD4<Int64>.self), hi4b = lo4b
            i = 8
            while i + 8 <= k {
                let a = raw.loadUnaligned(fromByteOffset: i &* 8, as: SIMD4<Int64>.self)
                let b = raw.loadUnaligned(fromByteOffset: i &* 8 &+ 32, as: SIMD4<Int64>.self)
                lo4 = pointwiseMin(lo4, a)
                hi4 = pointwiseMax(hi4, a)
                lo4b = pointwiseMin(lo4b, b)
                hi4b = pointwiseMax(hi4b, b)
                i &+= 8
            }
            lo4 = pointwiseMin(lo4, lo4b)
            hi4 = pointwiseMax(hi4, hi4b)
            lo = lo4.min()
            hi = hi4.max()
        }
        while i < k {
            let v = x[i]
            lo = Swift.min(lo, v)
            hi = Swift.max(hi, v)
            i &+= 1
        }
        return (lo, hi)
    }
}
