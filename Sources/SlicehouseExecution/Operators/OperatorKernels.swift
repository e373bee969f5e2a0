// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan
import SlicehouseFunctions

/// Typed row-movement kernels shared by the operators: gathering rows into new
/// vectors, appending rows to growing column stores, comparing rows of two
/// vectors for equality and building validity bitmaps.
///
/// Every kernel switches on the physical type once per call and then runs a
/// tight loop over unsafe buffers; nothing here boxes a value or allocates per row.
/// Row indices are `Int32`, like selection vectors.
enum OperatorKernels {

    // MARK: - Validity helpers

    /// Bit `i` of a validity bitmap.
    @inline(__always)
    static func bit(_ words: UnsafeBufferPointer<UInt64>, _ i: Int) -> Bool {
        (words[i &>> 6] &>> UInt64(i & 63)) & 1 == 1
    }

    /// A bitmap with bit k set when `valid[k]`; nil when every flag is set.
    static func validity(from valid: UnsafeBufferPointer<Bool>) -> Validity? {
        let n = valid.count
        var words = [UInt64](filled: 0, count: (n + 63) >> 6)
        var allValid = true
        words.withUnsafeMutableBufferPointer { w in
            for k in 0..<n {
                let v = valid[k]
                allValid = allValid && v
                w[k &>> 6] |= UInt64(v ? 1 : 0) &<< UInt64(k & 63)
            }
        }
        return allValid ? nil : Validity(words: words)
    }

    static func validity(from valid: [Bool]) -> Validity? {
        valid.withUnsafeBufferPointer { validity(from: $0) }
    }

    /// The flags `valid[range]` as a bitmap (nil when all set).
    static func validity(from valid: [Bool], _ range: Range<Int>) -> Validity? {
        valid.withUnsafeBufferPointer { validity(from: UnsafeBufferPointer(rebasing: $0[range])) }
    }

    /// Whether any of the listed physical rows (all `0..<count` when nil) of `v` is NULL.
    static func anyNull(_ v: Vector, rows: UnsafeBufferPointer<Int32>?, count n: Int) -> Bool {
        guard let validity = v.validity, n > 0 else { return false }
        if v.isConstant { return !validity.isValid(0) }
        return validity.words.withUnsafeBufferPointer { w in
            if let rows {
                for k in 0..<n where !bit(w, Int(rows[k])) { return true }
                return false
            }
            let full = n &>> 6
            for i in 0..<full where w[i] != ~0 { return true }
            let rem = n & 63
            if rem > 0 {
                let mask: UInt64 = (1 &<< UInt64(rem)) &- 1
                return w[full] & mask != mask
            }
            return false
        }
    }

    // MARK: - Making vectors

    /// `v` as a flat vector of `physicalCount` rows (constants are expanded).
    @inline(__always)
    static func flat(_ v: Vector, physicalCount: Int) -> Vector {
        v.isConstant ? v.flattened(count: physicalCount) : v
    }

    /// A grouping or set-operation key column: flat, and SUPER values in the form where
    /// equal values have equal bytes (`SuperJSON.equalityForms`), so `{"a":1,"b":2}` and
    /// `{"b":2,"a":1}` are one group. Other types are `flat`'s.
    static func key(_ v: Vector, physicalCount: Int) -> Vector {
        hashForm(flat(v, physicalCount: physicalCount))
    }

    /// `v` as it is hashed and matched as a key: SUPER values in their equality form
    /// (also where rows are sent to slices or spill partitions by a key's hash, so that
    /// equal values meet), other types as they are.
    static func hashForm(_ v: Vector) -> Vector {
        v.type == .superType ? SuperJSON.equalityForms(v) : v
    }

    // MARK: - Gather

    /// The rows `rows[k]` (physical indices) of `v`, in order, as a new flat vector.
    /// A negative index yields a NULL row (outer-join padding). Constants are expanded.
    static func gather(_ v: Vector, _ rows: [Int32]) -> Vector {
        rows.withUnsafeBufferPointer { gather(v, $0) }
    }

    static func gather(_ v: Vector, _ rows: UnsafeBufferPointer<Int32>) -> Vector {
        let n = rows.count
        // A constant reads row 0 for every non-negative index.
        let stride = v.isConstant ? 0 : 1
        let data: VectorData
        switch v.data {
        case .int64(let a): data = .int64(gatherValues(a, rows, stride: stride, zero: 0))
        case .int128(let a): data = .int128(gatherValues(a, rows, stride: stride, zero: 0))
        case .double(let a): data = .double(gatherValues(a, rows, stride: stride, zero: 0))
        case .bool(let a): data = .bool(gatherValues(a, rows, stride: stride, zero: false))
        case .string(let s): data = .string(gatherStrings(s, rows, stride: stride))
        }
        // Validity: NULL for negative indices and for NULL source rows.
        var words = [UInt64](filled: 0, count: (n + 63) >> 6)
        var anyNull = false
        words.withUnsafeMutableBufferPointer { w in
            if let sv = v.validity {
                sv.words.withUnsafeBufferPointer { sw in
                    for k in 0..<n {
                        let r = Int(rows[k])
                        let valid = r >= 0 && bit(sw, r &* stride)
                        anyNull = anyNull || !valid
                        w[k &>> 6] |= UInt64(valid ? 1 : 0) &<< UInt64(k & 63)
                    }
                }
            } else {
                for k in 0..<n {
                    let valid = rows[k] >= 0
                    anyNull = anyNull || !valid
                    w[k &>> 6] |= UInt64(valid ? 1 : 0) &<< UInt64(k & 63)
                }
            }
        }
        return Vector(type: v.type, data: data, validity: anyNull ? Validity(words: words) : nil)
    }

    /// Rows `range` of `v` as a new flat vector.
    static func slice(_ v: Vector, _ range: Range<Int>) -> Vector {
        if !v.isConstant && range.lowerBound == 0 && range.count == v.count { return v }
        let rows = (range.lowerBound..<range.upperBound).map { Int32(truncatingIfNeeded: $0) }
        return gather(v, rows)
    }

    @inline(__always)
    static func gatherValues<T: BitwiseCopyable>(_ src: [T], _ rows: UnsafeBufferPointer<Int32>, stride: Int, zero: T) -> [T] {
        let n = rows.count
        return src.withUnsafeBufferPointer { s in
            var values = [T].unset(count: n, placeholder: zero)
            values.withUnsafeMutableBufferPointer { out in
                for k in 0..<n {
                    let r = Int(rows[k])
                    out[k] = r >= 0 ? s[r &* stride] : zero
                }
            }
            return values
        }
    }

    static func gatherStrings(_ s: StringArray, _ rows: UnsafeBufferPointer<Int32>, stride: Int) -> StringArray {
        let n = rows.count
        var out = StringArray()
        s.offsets.withUnsafeBufferPointer { off in
            var total = 0
            for k in 0..<n {
                let r = Int(rows[k]) &* stride
                if r >= 0 { total += Int(off[r + 1] &- off[r]) }
            }
            var offsets = [Int32](filled: 0, count: n + 1)
            let bytes = s.bytes.withUnsafeBufferPointer { src in
                [UInt8].building(capacity: total, placeholder: 0) { dst, initialized in
                    offsets.withUnsafeMutableBufferPointer { o in
                        var pos = 0
                        for k in 0..<n {
                            let r = Int(rows[k]) &* stride
                            if r >= 0 {
                                let st = Int(off[r]), len = Int(off[r + 1] &- off[r])
                                if len > 0, let sb = src.baseAddress, let db = dst.baseAddress {
                                    copyShortBytes(db + pos, sb + st, len)
                                }
                                pos += len
                            }
                            o[k + 1] = Int32(truncatingIfNeeded: pos)
                        }
                    }
                    initialized = total
                }
            }
            out.bytes = bytes
            out.offsets = offsets
        }
        return out
    }

    // MARK: - Append (materialization)

    /// Append rows of `src` to `dst` (same physical type): the physical rows
    /// `rows[0..<n]`, or rows `0..<n` when `rows` is nil. A constant `src` is repeated.
    ///
    /// - Throws: an internal error on a physical type mismatch; `featureNotSupported`
    ///   when a string column would exceed 2 GB (32-bit offsets).
    static func append(_ dst: inout Vector, _ src: Vector, rows: UnsafeBufferPointer<Int32>?, count n: Int) throws {
        if n == 0 { return }
        let base = dst.count
        let stride = src.isConstant ? 0 : 1
        // The destination buffer is taken out of `dst` before appending so that it is
        // uniquely referenced (appending in place, not copying the whole column).
        func mismatch() -> SQLError {
            SQLError.internalError("column of type \(src.type) appended to a column of type \(dst.type)")
        }
        switch src.data {
        case .int64(let s):
            guard case .int64(var d) = takeData(&dst) else { throw mismatch() }
            appendValues(&d, s, rows: rows, n: n, stride: stride)
            dst.data = .int64(d)
        case .int128(let s):
            guard case .int128(var d) = takeData(&dst) else { throw mismatch() }
            appendValues(&d, s, rows: rows, n: n, stride: stride)
            dst.data = .int128(d)
        case .double(let s):
            guard case .double(var d) = takeData(&dst) else { throw mismatch() }
            appendValues(&d, s, rows: rows, n: n, stride: stride)
            dst.data = .double(d)
        case .bool(let s):
            guard case .bool(var d) = takeData(&dst) else { throw mismatch() }
            appendValues(&d, s, rows: rows, n: n, stride: stride)
            dst.data = .bool(d)
        case .string(let s):
            guard case .string(var d) = takeData(&dst) else { throw mismatch() }
            let ok = appendStrings(&d, s, rows: rows, n: n, stride: stride)
            dst.data = .string(d)
            guard ok else {
                throw SQLError(.featureNotSupported, "a string column of more than 2 GB in one operator is not supported")
            }
        }
        // Validity: only kept when some row is NULL.
        let srcHasNull = anyNull(src, rows: src.isConstant ? nil : rows, count: src.isConstant ? 1 : n)
        if !srcHasNull && dst.validity == nil { return }
        var v = dst.validity ?? Validity(allValid: base)
        let needed = (base + n + 63) >> 6
        if v.words.count < needed { v.words.append(contentsOf: repeatElement(0, count: needed - v.words.count)) }
        v.words.withUnsafeMutableBufferPointer { w in
            @inline(__always) func put(_ i: Int, _ valid: Bool) {
                let m: UInt64 = 1 &<< UInt64(i & 63)
                if valid { w[i &>> 6] |= m } else { w[i &>> 6] &= ~m }
            }
            if let sv = src.validity {
                sv.words.withUnsafeBufferPointer { sw in
                    for k in 0..<n {
                        let r = rows.map { Int($0[k]) } ?? k
                        put(base + k, bit(sw, r &* stride))
                    }
                }
            } else {
                for k in 0..<n { put(base + k, true) }
            }
        }
        dst.validity = v
    }

    static func append(_ dst: inout Vector, _ src: Vector, rows: [Int32]?, count n: Int) throws {
        if let rows {
            try rows.withUnsafeBufferPointer { try append(&dst, src, rows: $0, count: n) }
        } else {
            try append(&dst, src, rows: UnsafeBufferPointer<Int32>?.none, count: n)
        }
    }

    /// Append every logical row of `chunk` to `columns` (one store per chunk column).
    static func append(_ columns: inout [Vector], _ chunk: Chunk) throws {
        guard chunk.columns.count == columns.count else {
            throw SQLError.internalError("chunk has \(chunk.columns.count) columns, expected \(columns.count)")
        }
        for c in 0..<columns.count {
            try append(&columns[c], chunk.columns[c], rows: chunk.selection, count: chunk.count)
        }
    }

    /// Moves the payload out of `v` (leaving an empty buffer of the same kind behind),
    /// so the returned array or string buffer is uniquely referenced.
    @inline(__always)
    static func takeData(_ v: inout Vector) -> VectorData {
        let data = v.data
        switch data {
        case .int64: v.data = .int64([])
        case .int128: v.data = .int128([])
        case .double: v.data = .double([])
        case .bool: v.data = .bool([])
        case .string: v.data = .string(StringArray())
        }
        return data
    }

    @inline(__always)
    static func appendValues<T>(_ d: inout [T], _ s: [T], rows: UnsafeBufferPointer<Int32>?, n: Int, stride: Int) {
        s.withUnsafeBufferPointer { sp in
            if stride == 0 {
                d.append(contentsOf: repeatElement(sp[0], count: n))
            } else if let rows {
                let start = d.count
                d.append(contentsOf: repeatElement(sp[0], count: n))
                d.withUnsafeMutableBufferPointer { dp in
                    for k in 0..<n { dp[start + k] = sp[Int(rows[k])] }
                }
            } else {
                d.append(contentsOf: UnsafeBufferPointer(rebasing: sp[0..<n]))
            }
        }
    }

    /// Returns false when the byte buffer would outgrow 32-bit offsets.
    static func appendStrings(_ d: inout StringArray, _ s: StringArray, rows: UnsafeBufferPointer<Int32>?,
                              n: Int, stride: Int) -> Bool {
        s.offsets.withUnsafeBufferPointer { off in
            var total = 0
            for k in 0..<n {
                let r = (rows.map { Int($0[k]) } ?? k) &* stride
                total += Int(off[r + 1] &- off[r])
            }
            if d.bytes.count + total > Int(Int32.max) { return false }
            s.bytes.withUnsafeBufferPointer { src in
                if rows == nil && stride == 1 {
                    let st = Int(off[0]), en = Int(off[n])
                    d.bytes.append(contentsOf: UnsafeBufferPointer(rebasing: src[st..<en]))
                } else if total > 0, let sb = src.baseAddress {
                    // Grown once, then filled in place: no append (and uniqueness check) per value.
                    var pos = d.bytes.count
                    d.bytes.append(contentsOf: repeatElement(0, count: total))
                    d.bytes.withUnsafeMutableBufferPointer { dst in
                        guard let db = dst.baseAddress else { return }
                        for k in 0..<n {
                            let r = (rows.map { Int($0[k]) } ?? k) &* stride
                            let st = Int(off[r]), len = Int(off[r + 1] &- off[r])
                            copyShortBytes(db + pos, sb + st, len)
                            pos &+= len
                        }
                    }
                }
            }
            var pos = Int(d.offsets[d.offsets.count - 1])
            let start = d.offsets.count
            d.offsets.append(contentsOf: repeatElement(0, count: n))
            d.offsets.withUnsafeMutableBufferPointer { o in
                for k in 0..<n {
                    let r = (rows.map { Int($0[k]) } ?? k) &* stride
                    pos += Int(off[r + 1] &- off[r])
                    o[start + k] = Int32(truncatingIfNeeded: pos)
                }
            }
            return true
        }
    }

    // MARK: - Row equality

    /// `eq[j] = eq[j] && (a[aRows[j]] == b[bRows[j]])` for every j, where two NULLs
    /// are equal (grouping semantics) and NULL never equals a value. Doubles compare
    /// with `==` except that NaN equals NaN. `a` and `b` must be flat.
    static func andEqual(_ a: Vector, _ aRows: UnsafeBufferPointer<Int32>,
                         _ b: Vector, _ bRows: UnsafeBufferPointer<Int32>,
                         _ eq: UnsafeMutableBufferPointer<Bool>) throws {
        let n = eq.count
        switch (a.data, b.data) {
        case (.int64(let x), .int64(let y)): andEqualValues(x, aRows, y, bRows, eq)
        case (.int128(let x), .int128(let y)): andEqualValues(x, aRows, y, bRows, eq)
        case (.bool(let x), .bool(let y)): andEqualValues(x, aRows, y, bRows, eq)
        case (.double(let x), .double(let y)):
            x.withUnsafeBufferPointer { xp in
                y.withUnsafeBufferPointer { yp in
                    for j in 0..<n {
                        let u = xp[Int(aRows[j])], v = yp[Int(bRows[j])]
                        eq[j] = eq[j] && (u == v || (u.isNaN && v.isNaN))
                    }
                }
            }
        case (.string(let x), .string(let y)):
            x.offsets.withUnsafeBufferPointer { xo in
                y.offsets.withUnsafeBufferPointer { yo in
                    x.bytes.withUnsafeBufferPointer { xb in
                        y.bytes.withUnsafeBufferPointer { yb in
                            for j in 0..<n where eq[j] {
                                let r = Int(aRows[j]), s = Int(bRows[j])
                                let xs = Int(xo[r]), xl = Int(xo[r + 1]) - xs
                                let ys = Int(yo[s]), yl = Int(yo[s + 1]) - ys
                                if xl != yl { eq[j] = false; continue }
                                if xl == 0 { continue }
                                guard let xa = xb.baseAddress, let ya = yb.baseAddress else { continue }
                                eq[j] = equalBytes(xa + xs, ya + ys, xl)
                            }
                        }
                    }
                }
            }
        default:
            throw SQLError.internalError("key columns of types \(a.type) and \(b.type) compared")
        }
        // NULL handling: equal iff both NULL or both valid (and values equal).
        if a.validity == nil && b.validity == nil { return }
        let empty: [UInt64] = []
        (a.validity?.words ?? empty).withUnsafeBufferPointer { aw in
            (b.validity?.words ?? empty).withUnsafeBufferPointer { bw in
                let aHas = a.validity != nil, bHas = b.validity != nil
                for j in 0..<n {
                    let av = !aHas || bit(aw, Int(aRows[j]))
                    let bv = !bHas || bit(bw, Int(bRows[j]))
                    if !av || !bv { eq[j] = av == bv }
                }
            }
        }
    }

    @inline(__always)
    static func andEqualValues<T: Equatable>(_ x: [T], _ aRows: UnsafeBufferPointer<Int32>,
                                             _ y: [T], _ bRows: UnsafeBufferPointer<Int32>,
                                             _ eq: UnsafeMutableBufferPointer<Bool>) {
        x.withUnsafeBufferPointer { xp in
            y.withUnsafeBufferPointer { yp in
                for j in 0..<eq.count {
                    eq[j] = eq[j] && xp[Int(aRows[j])] == yp[Int(bRows[j])]
                }
            }
        }
    }

    // MARK: - Misc

    /// `[0, 1, ..., n-1]`, kept in `cache`. A cache of another length is trimmed or extended
    /// in place (its storage kept), not made again: the batches of a split aggregate's
    /// partitions vary in size from one to the next.
    static func identity(_ n: Int, cache: inout [Int32]) -> [Int32] {
        let have = cache.count
        if have > n {
            cache.removeLast(have - n)
        } else if have < n {
            cache.reserveCapacity(n)
            for i in have..<n { cache.append(Int32(truncatingIfNeeded: i)) }
        }
        return cache
    }

    /// The physical row of every logical row of `chunk`.
    static func physicalRows(_ chunk: Chunk, cache: inout [Int32]) -> [Int32] {
        chunk.selection ?? identity(chunk.physicalCount, cache: &cache)
    }
}
