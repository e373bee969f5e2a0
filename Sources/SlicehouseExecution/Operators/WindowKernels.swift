// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan
import SlicehouseFunctions

/// Typed helpers of `WindowOperator`: boundary detection over sorted rows, gathering
/// with a fill value, slicing result vectors and prefix counts of non-NULL values.
///
/// Every kernel switches on the physical type once and then loops over unsafe buffers;
/// nothing boxes a value per row. "Positions" are indices into the sorted order
/// (`order[p]` is the input row at position p).
enum WindowKernels {

    // MARK: - Boundaries

    /// Sets `changed[k]` when the value of `v` at input row `order[k]` differs from the one
    /// at `order[k - 1]` (k ≥ 1). Two NULLs are equal, NULL differs from every value,
    /// doubles compare with `==` except that NaN equals NaN (so -0 equals 0), as the sort
    /// orders them. Entries already set are not re-examined.
    static func markChanges(_ v: Vector, order: UnsafeBufferPointer<Int32>, changed: UnsafeMutableBufferPointer<Bool>) {
        let n = order.count
        if n < 2 || v.isConstant { return }
        let words = v.validity?.words ?? []
        let hasValidity = v.validity != nil
        words.withUnsafeBufferPointer { w in
            let validity: UnsafeBufferPointer<UInt64>? = hasValidity ? w : nil
            switch v.data {
            case .int64(let a):
                a.withUnsafeBufferPointer { p in markFixed(p, validity, order, changed) { $0 == $1 } }
            case .int128(let a):
                a.withUnsafeBufferPointer { p in markFixed(p, validity, order, changed) { $0 == $1 } }
            case .double(let a):
                a.withUnsafeBufferPointer { p in
                    markFixed(p, validity, order, changed) { x, y in x == y || (x.isNaN && y.isNaN) }
                }
            case .bool(let a):
                a.withUnsafeBufferPointer { p in markFixed(p, validity, order, changed) { $0 == $1 } }
            case .string(let s):
                s.bytes.withUnsafeBufferPointer { b in
                    s.offsets.withUnsafeBufferPointer { o in
                        for k in 1..<n where !changed[k] {
                            let x = Int(order[k - 1]), y = Int(order[k])
                            if let validity {
                                let vx = OperatorKernels.bit(validity, x), vy = OperatorKernels.bit(validity, y)
                                if vx != vy { changed[k] = true; continue }
                                if !vx { continue }
                            }
                            let xs = Int(o[x]), xl = Int(o[x + 1]) - xs
                            let ys = Int(o[y]), yl = Int(o[y + 1]) - ys
                            if xl != yl { changed[k] = true; continue }
                            if xl == 0 { continue }
                            guard let base = b.baseAddress else { continue }
                            if !equalBytes(base + xs, base + ys, xl) { changed[k] = true }
                        }
                    }
                }
            }
        }
    }

    @inline(__always)
    private static func markFixed<T>(_ p: UnsafeBufferPointer<T>, _ validity: UnsafeBufferPointer<UInt64>?,
                                     _ order: UnsafeBufferPointer<Int32>, _ changed: UnsafeMutableBufferPointer<Bool>,
                                     _ equal: (T, T) -> Bool) {
        let n = order.count
        if let validity {
            for k in 1..<n where !changed[k] {
                let x = Int(order[k - 1]), y = Int(order[k])
                let vx = OperatorKernels.bit(validity, x), vy = OperatorKernels.bit(validity, y)
                if vx != vy || (vx && !equal(p[x], p[y])) { changed[k] = true }
            }
        } else {
            for k in 1..<n where !changed[k] {
                if !equal(p[Int(order[k - 1])], p[Int(order[k])]) { changed[k] = true }
            }
        }
    }

    /// The positions k with `changed[k]`, followed by `changed.count` (position 0 is
    /// always a boundary when there is at least one row).
    static func bounds(_ changed: UnsafeBufferPointer<Bool>) -> [Int] {
        var out: [Int] = []
        let n = changed.count
        for k in 0..<n where k == 0 || changed[k] { out.append(k) }
        out.append(n)
        return out
    }

    // MARK: - Non-NULL bookkeeping over sorted positions

    /// `counts[p]` = number of non-NULL values at positions `0..<p` (n + 1 entries), or nil
    /// when `v` has no NULLs (then the count of a range is its length).
    static func nonNullPrefix(_ v: Vector, order: [Int32]) -> [Int]? {
        guard let validity = v.validity else { return nil }
        let n = order.count
        let constantNull = v.isConstant && !validity.isValid(0)
        if v.isConstant { return constantNull ? [Int](filled: 0, count: n + 1) : nil }
        return validity.words.withUnsafeBufferPointer { w in
            order.withUnsafeBufferPointer { ord in
                [Int].building(capacity: n + 1, placeholder: 0) { out, initialized in
                    var c = 0
                    out.initializeElement(at: 0, to: 0)
                    for p in 0..<n {
                        if OperatorKernels.bit(w, Int(ord[p])) { c &+= 1 }
                        out.initializeElement(at: p + 1, to: c)
                    }
                    initialized = n + 1
                }
            }
        }
    }

    /// The positions whose value is not NULL, ascending (`prefix` from `nonNullPrefix`).
    static func nonNullPositions(_ prefix: [Int]) -> [Int] {
        var out: [Int] = []
        out.reserveCapacity(prefix.last ?? 0)
        prefix.withUnsafeBufferPointer { c in
            for p in 0..<(c.count - 1) where c[p + 1] != c[p] { out.append(p) }
        }
        return out
    }

    // MARK: - Gather with a fill value

    /// The rows `rows[k]` of `v` (constants expanded); a negative index yields `fill`
    /// (NULL when `fill` is `.null`). Used by LAG/LEAD for their default.
    ///
    /// - Throws: an internal error when `fill` does not have `v`'s physical form.
    static func gather(_ v: Vector, _ rows: [Int32], fill: Value) throws -> Vector {
        let plain = OperatorKernels.gather(v, rows)
        if fill.isNull { return plain }
        // Positions to patch are the negative indices; the gathered buffers are unique.
        let n = rows.count
        var out = plain
        func mismatch() -> SQLError {
            SQLError.internalError("LAG/LEAD default \(fill) does not match the argument type \(v.type)")
        }
        switch OperatorKernels.takeData(&out) {
        case .int64(var a):
            let x: Int64
            switch fill {
            case .int(let i): x = i
            case .int128(let i):
                guard let i64 = Int64(exactly: i) else { throw mismatch() }
                x = i64
            default: throw mismatch()
            }
            patch(&a, rows, x)
            out.data = .int64(a)
        case .int128(var a):
            guard let x = fill.asInt128 else { throw mismatch() }
            patch(&a, rows, x)
            out.data = .int128(a)
        case .double(var a):
            let x: Double
            switch fill {
            case .double(let d): x = d
            case .int(let i): x = Double(i)
            default: throw mismatch()
            }
            patch(&a, rows, x)
            out.data = .double(a)
        case .bool(var a):
            guard let x = fill.asBool else { throw mismatch() }
            patch(&a, rows, x)
            out.data = .bool(a)
        case .string:
            guard case .string(let text) = fill, case .string(let src) = v.data else { throw mismatch() }
            let fillBytes = Array(text.utf8)
            let stride = v.isConstant ? 0 : 1
            var s = StringArray(reservingCount: n, bytes: 0)
            fillBytes.withUnsafeBufferPointer { f in
                for r in rows {
                    if r < 0 { s.append(bytes: f) } else { s.append(from: src, Int(r) &* stride) }
                }
            }
            if s.bytes.count > Int(Int32.max) {
                throw SQLError(.featureNotSupported, "a string column of more than 2 GB in one operator is not supported")
            }
            out.data = .string(s)
        }
        // The filled rows are valid now.
        if var validity = out.validity {
            rows.withUnsafeBufferPointer { r in
                for k in 0..<n where r[k] < 0 { validity.setValid(k) }
            }
            out.validity = validity.nullCount(n) == 0 ? nil : validity
        }
        return out
    }

    @inline(__always)
    private static func patch<T>(_ a: inout [T], _ rows: [Int32], _ x: T) {
        a.withUnsafeMutableBufferPointer { p in
            rows.withUnsafeBufferPointer { r in
                for k in 0..<r.count where r[k] < 0 { p[k] = x }
            }
        }
    }

    // MARK: - Slicing

    /// Rows `range` of the flat vector `v` as a new vector (buffers copied by range).
    static func slice(_ v: Vector, _ range: Range<Int>) -> Vector {
        if v.isConstant { return v }
        if range.lowerBound == 0 && range.count == v.count { return v }
        let data: VectorData
        switch v.data {
        case .int64(let a): data = .int64(Array(a[range]))
        case .int128(let a): data = .int128(Array(a[range]))
        case .double(let a): data = .double(Array(a[range]))
        case .bool(let a): data = .bool(Array(a[range]))
        case .string(let s):
            var out = StringArray()
            let lo = Int(s.offsets[range.lowerBound]), hi = Int(s.offsets[range.upperBound])
            out.bytes = Array(s.bytes[lo..<hi])
            let base = Int32(truncatingIfNeeded: lo)
            out.offsets = s.offsets[range.lowerBound...range.upperBound].map { $0 &- base }
            data = .string(out)
        }
        var validity: Validity? = nil
        if let src = v.validity {
            let m = range.count
            var words = [UInt64](filled: 0, count: (m + 63) >> 6)
            var anyNull = false
            src.words.withUnsafeBufferPointer { sw in
                words.withUnsafeMutableBufferPointer { w in
                    for k in 0..<m {
                        let valid = OperatorKernels.bit(sw, range.lowerBound + k)
                        anyNull = anyNull || !valid
                        w[k &>> 6] |= UInt64(valid ? 1 : 0) &<< UInt64(k & 63)
                    }
                }
            }
            validity = anyNull ? Validity(words: words) : nil
        }
        return Vector(type: v.type, data: data, validity: validity)
    }

    /// A BIGINT (or other int64-physical) vector over `values`.
    static func int64Vector(_ type: DataType, _ values: [Int64], valid: [Bool]? = nil) -> Vector {
        Vector(type: type, data: .int64(values), validity: valid.flatMap { OperatorKernels.validity(from: $0) })
    }
}
