// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// Building blocks shared by the kernels.
///
/// Conventions every kernel follows:
/// - an input vector is either *constant* (one stored value for every row) or *flat*
///   with exactly `n` stored values (the evaluator checks this);
/// - when every input is constant the kernel computes one value and returns a
///   constant vector, otherwise a flat vector of `n` rows;
/// - a constant NULL input of a strict operation gives a constant NULL result
///   without touching the other inputs;
/// - the result's validity is the AND of the inputs' validity (strict operations);
///   values stored under NULL slots are garbage and never raise errors: loops run
///   branch-free and collect an "something went wrong" flag, and only when it is
///   set does a slow pass look for a failing row that is not NULL.
package enum Kern {

    // MARK: - Typed access

    @inline(__always) package static func int64s(_ v: Vector) throws -> [Int64] {
        if case .int64(let a) = v.data { return a }
        throw mismatch(v, "int64")
    }
    @inline(__always) package static func int128s(_ v: Vector) throws -> [Int128] {
        if case .int128(let a) = v.data { return a }
        throw mismatch(v, "int128")
    }
    @inline(__always) package static func doubles(_ v: Vector) throws -> [Double] {
        if case .double(let a) = v.data { return a }
        throw mismatch(v, "double")
    }
    @inline(__always) package static func bools(_ v: Vector) throws -> [Bool] {
        if case .bool(let a) = v.data { return a }
        throw mismatch(v, "bool")
    }
    @inline(__always) package static func strings(_ v: Vector) throws -> StringArray {
        if case .string(let a) = v.data { return a }
        throw mismatch(v, "string")
    }
    /// An exact-numeric vector widened to Int128 (decimal/integer arithmetic on mixed widths).
    package static func wideInts(_ v: Vector) throws -> [Int128] {
        switch v.data {
        case .int128(let a): return a
        case .int64(let a): return a.map { Int128($0) }
        default: throw mismatch(v, "int64/int128")
        }
    }

    package static func mismatch(_ v: Vector, _ expected: String) -> SQLError {
        SQLError.internalError("kernel expected \(expected) data for a value of type \(v.type.sqlName)")
    }

    // MARK: - Validity and shapes

    /// True when `v` is a constant NULL.
    @inline(__always) package static func isConstNull(_ v: Vector) -> Bool { v.isConstant && v.isNull(0) }

    /// The bitmap that applies row by row (nil for constants and vectors without NULLs).
    @inline(__always) package static func rowValidity(_ v: Vector) -> Validity? { v.isConstant ? nil : v.validity }

    /// AND of the row validity of several inputs.
    package static func combinedValidity(_ vs: [Vector]) -> Validity? {
        var r: Validity? = nil
        for v in vs { r = Validity.and(r, rowValidity(v)) }
        return r
    }
    package static func combinedValidity(_ a: Vector, _ b: Vector) -> Validity? {
        Validity.and(rowValidity(a), rowValidity(b))
    }

    /// A bound on the magnitudes of `values`: every |v| ≤ 2^b for the returned b (0...63).
    /// It ORs `v ^ (v >> 63)` (v, or ¬v = |v| - 1 for a negative v) and takes the bit
    /// length: one vectorized pass of compare, xor and or, where a running maximum of
    /// |v| would need 64-bit compares and blends on every element.
    package static func magnitudeBits(_ values: UnsafeBufferPointer<Int64>) -> Int {
        var bits: Int64 = 0
        for v in values { bits |= v ^ (v &>> 63) }
        return Int64.bitWidth - bits.leadingZeroBitCount
    }

    /// `magnitudeBits` of the first `n` values.
    package static func magnitudeBits(_ values: [Int64], count n: Int) -> Int {
        values.withUnsafeBufferPointer { magnitudeBits(UnsafeBufferPointer(rebasing: $0.prefix(n))) }
    }

    /// The number of values to compute: 1 when every input is constant, else `n`.
    @inline(__always) package static func length(_ vs: Vector..., n: Int) -> Int {
        for v in vs where !v.isConstant { return n }
        return 1
    }

    /// A result vector; `constant` results carry no bitmap unless NULL.
    package static func result(_ type: DataType, _ data: VectorData, validity: Validity?, constant: Bool) -> Vector {
        Vector(type: type, data: data, validity: validity, isConstant: constant)
    }

    /// A constant NULL of `type`.
    package static func constNull(_ type: DataType) -> Vector {
        Vector(type: type, data: placeholder(type.physical), validity: Validity(allNull: 1), isConstant: true)
    }

    /// One zero/empty stored value of a physical type.
    package static func placeholder(_ p: PhysicalType) -> VectorData {
        switch p {
        case .int64: return .int64([0])
        case .int128: return .int128([0])
        case .double: return .double([0])
        case .bool: return .bool([false])
        case .string:
            var s = StringArray()
            s.appendEmpty()
            return .string(s)
        }
    }

    /// Whether row `i` of a bitmap (nil = all valid) is valid.
    @inline(__always) package static func valid(_ v: Validity?, _ i: Int) -> Bool {
        guard let v else { return true }
        return v.isValid(i)
    }

    /// True when some row `i < n` that is valid in `validity` satisfies `failing`
    /// (the slow pass after a kernel flagged a possible error).
    package static func anyValidRow(_ validity: Validity?, _ n: Int, _ failing: (Int) -> Bool) -> Bool {
        for i in 0..<n where valid(validity, i) && failing(i) { return true }
        return false
    }

    // MARK: - Loops over row operations (hot paths)
    //
    // Hot kernels pass a small struct conforming to `RowOp1`/`RowOp2` rather than a
    // closure: the loop is specialised for the concrete struct, so the per-row call
    // is direct and inlined (a closure would be an indirect call per row).

    /// 1 for true, 0 for false, without a branch.
    @inline(__always) package static func bit(_ b: Bool) -> UInt8 { unsafeBitCast(b, to: UInt8.self) }

    /// `op` over every row of two inputs (each constant or flat); returns whether any row failed.
    @inline(__always)
    package static func run2<Op: RowOp2>(_ op: Op, _ a: [Op.A], _ ac: Bool, _ b: [Op.B], _ bc: Bool, _ n: Int) -> ([Op.R], Bool) {
        if n <= 0 || a.isEmpty || b.isEmpty { return ([], false) }
        var bad = false
        let out = a.withUnsafeBufferPointer { pa in
            b.withUnsafeBufferPointer { pb in
                [Op.R](unsafeUninitializedCapacity: n) { out, count in
                    // The flags are OR-ed as bytes: `flag || o` would be a branch per row,
                    // which keeps the loop from vectorizing.
                    var flag: UInt8 = 0
                    if ac && bc {
                        let (r, o) = op.apply(pa[0], pb[0])
                        flag = bit(o)
                        for i in 0..<n { out[i] = r }
                    } else if ac {
                        let x = pa[0]
                        for i in 0..<n { let (r, o) = op.apply(x, pb[i]); out[i] = r; flag |= bit(o) }
                    } else if bc {
                        let y = pb[0]
                        for i in 0..<n { let (r, o) = op.apply(pa[i], y); out[i] = r; flag |= bit(o) }
                    } else {
                        for i in 0..<n { let (r, o) = op.apply(pa[i], pb[i]); out[i] = r; flag |= bit(o) }
                    }
                    bad = flag != 0
                    count = n
                }
            }
        }
        return (out, bad)
    }

    /// `op` over every stored value; returns whether any value failed.
    @inline(__always)
    package static func run1<Op: RowOp1>(_ op: Op, _ a: [Op.A]) -> ([Op.R], Bool) {
        let n = a.count
        if n == 0 { return ([], false) }
        var bad = false
        let out = a.withUnsafeBufferPointer { pa in
            [Op.R](unsafeUninitializedCapacity: n) { out, count in
                var flag: UInt8 = 0
                for i in 0..<n { let (r, o) = op.apply(pa[i]); out[i] = r; flag |= bit(o) }
                bad = flag != 0
                count = n
            }
        }
        return (out, bad)
    }

    /// `op` over every stored value, ignoring failure flags.
    @inline(__always)
    package static func map<Op: RowOp1>(_ op: Op, _ a: [Op.A]) -> [Op.R] { run1(op, a).0 }

    /// Run `op` over two inputs; when a row failed, throw `error(a, b)` for the first
    /// failing row that is not NULL (failures under NULLs are ignored).
    @inline(__always)
    package static func checked2<Op: RowOp2>(_ op: Op, _ a: [Op.A], _ ac: Bool, _ b: [Op.B], _ bc: Bool, _ len: Int,
                                     _ validity: Validity?, _ error: (Op.A, Op.B) -> SQLError) throws -> [Op.R] {
        let (out, bad) = run2(op, a, ac, b, bc, len)
        if bad {
            for i in 0..<len where valid(validity, i) {
                let p = a[ac ? 0 : i], q = b[bc ? 0 : i]
                if op.apply(p, q).1 { throw error(p, q) }
            }
        }
        return out
    }

    /// Run `op` over one input's stored values, throwing `error` for a failing non-NULL value.
    @inline(__always)
    package static func checked1<Op: RowOp1>(_ op: Op, _ a: [Op.A], _ validity: Validity?, _ error: (Op.A) -> SQLError) throws -> [Op.R] {
        let (out, bad) = run1(op, a)
        if bad {
            for i in 0..<a.count where valid(validity, i) && op.apply(a[i]).1 { throw error(a[i]) }
        }
        return out
    }

    // MARK: - Loops over closures (cold paths)

    /// `f` applied to every row of two inputs (each constant or flat).
    @inline(__always)
    package static func map2<A, B, R>(_ a: [A], _ ac: Bool, _ b: [B], _ bc: Bool, _ n: Int, _ f: (A, B) -> R) -> [R] {
        if n <= 0 || a.isEmpty || b.isEmpty { return [] }
        return a.withUnsafeBufferPointer { pa in
            b.withUnsafeBufferPointer { pb in
                [R](unsafeUninitializedCapacity: n) { out, count in
                    if ac && bc {
                        let r = f(pa[0], pb[0])
                        for i in 0..<n { out[i] = r }
                    } else if ac {
                        let x = pa[0]
                        for i in 0..<n { out[i] = f(x, pb[i]) }
                    } else if bc {
                        let y = pb[0]
                        for i in 0..<n { out[i] = f(pa[i], y) }
                    } else {
                        for i in 0..<n { out[i] = f(pa[i], pb[i]) }
                    }
                    count = n
                }
            }
        }
    }

    /// Like `map2`, with `f` also reporting a per-row failure; returns whether any row failed.
    @inline(__always)
    package static func map2Checked<A, B, R>(_ a: [A], _ ac: Bool, _ b: [B], _ bc: Bool, _ n: Int,
                                     _ f: (A, B) -> (R, Bool)) -> ([R], Bool) {
        if n <= 0 || a.isEmpty || b.isEmpty { return ([], false) }
        var bad = false
        let out = a.withUnsafeBufferPointer { pa in
            b.withUnsafeBufferPointer { pb in
                [R](unsafeUninitializedCapacity: n) { out, count in
                    var flag = false
                    if ac && bc {
                        let (r, o) = f(pa[0], pb[0])
                        flag = o
                        for i in 0..<n { out[i] = r }
                    } else if ac {
                        let x = pa[0]
                        for i in 0..<n { let (r, o) = f(x, pb[i]); out[i] = r; flag = flag || o }
                    } else if bc {
                        let y = pb[0]
                        for i in 0..<n { let (r, o) = f(pa[i], y); out[i] = r; flag = flag || o }
                    } else {
                        for i in 0..<n { let (r, o) = f(pa[i], pb[i]); out[i] = r; flag = flag || o }
                    }
                    bad = flag
                    count = n
                }
            }
        }
        return (out, bad)
    }

    /// `f` applied to every stored value.
    @inline(__always)
    package static func map1<A, R>(_ a: [A], _ f: (A) -> R) -> [R] {
        let n = a.count
        if n == 0 { return [] }
        return a.withUnsafeBufferPointer { pa in
            [R](unsafeUninitializedCapacity: n) { out, count in
                for i in 0..<n { out[i] = f(pa[i]) }
                count = n
            }
        }
    }

    /// `f` applied to every stored value, with a failure flag.
    @inline(__always)
    package static func map1Checked<A, R>(_ a: [A], _ f: (A) -> (R, Bool)) -> ([R], Bool) {
        let n = a.count
        if n == 0 { return ([], false) }
        var bad = false
        let out = a.withUnsafeBufferPointer { pa in
            [R](unsafeUninitializedCapacity: n) { out, count in
                var flag = false
                for i in 0..<n { let (r, o) = f(pa[i]); out[i] = r; flag = flag || o }
                bad = flag
                count = n
            }
        }
        return (out, bad)
    }

    // MARK: - Three-valued booleans

    /// Tri-state codes used by AND/OR/CASE: 0 FALSE, 1 TRUE, 2 NULL.
    package static let triFalse: UInt8 = 0, triTrue: UInt8 = 1, triNull: UInt8 = 2

    /// A boolean vector as `n` tri-state codes.
    package static func tri(_ v: Vector, n: Int) throws -> [UInt8] {
        let a = try bools(v)
        if v.isConstant {
            let c: UInt8 = v.isNull(0) ? triNull : (a.first == true ? triTrue : triFalse)
            return [UInt8](filled: c, count: n)
        }
        guard a.count >= n else { throw SQLError.internalError("boolean vector shorter than its chunk") }
        var out = [UInt8](filled: triFalse, count: n)
        a.withUnsafeBufferPointer { p in
            out.withUnsafeMutableBufferPointer { o in
                for i in 0..<n { o[i] = p[i] ? triTrue : triFalse }
            }
        }
        if let val = v.validity {
            for i in 0..<n where !val.isValid(i) { out[i] = triNull }
        }
        return out
    }

    /// Tri-state codes as a boolean vector.
    package static func boolVector(_ t: [UInt8]) -> Vector {
        let n = t.count
        var vals = [Bool](filled: false, count: n)
        var anyNull = false
        t.withUnsafeBufferPointer { p in
            vals.withUnsafeMutableBufferPointer { o in
                for i in 0..<n { o[i] = p[i] == triTrue; anyNull = anyNull || p[i] == triNull }
            }
        }
        var validity: Validity? = nil
        if anyNull {
            var v = Validity(allValid: n)
            for i in 0..<n where t[i] == triNull { v.setInvalid(i) }
            validity = v
        }
        return Vector(type: .boolean, data: .bool(vals), validity: validity)
    }

    /// A flat or constant boolean vector from values and validity.
    package static func boolResult(_ vals: [Bool], validity: Validity?, constant: Bool) -> Vector {
        Vector(type: .boolean, data: .bool(vals), validity: validity, isConstant: constant)
    }

    // MARK: - Scatter (CASE, COALESCE, lazily evaluated branches)

    /// Assemble an `n`-row vector of `type` from parts: each part is a vector
    /// (constant, or dense with one row per listed position) and the ascending
    /// output positions it fills. Positions no part covers are NULL.
    package static func scatter(_ type: DataType, n: Int, _ parts: [(vector: Vector, rows: [Int32])]) throws -> Vector {
        // One part covering everything: return it as is.
        if parts.count == 1, parts[0].rows.count == n {
            var v = parts[0].vector
            if !v.isConstant && v.count != n { throw SQLError.internalError("scatter part has the wrong length") }
            v.type = type
            return v
        }
        var validity = Validity(allNull: n)
        var anyNull = false
        var covered = 0
        for (v, rows) in parts {
            covered += rows.count
            if !v.isConstant && v.count != rows.count { throw SQLError.internalError("scatter part has the wrong length") }
            if v.isConstant {
                if !v.isNull(0) { for r in rows { validity.setValid(Int(r)) } } else { anyNull = true }
            } else {
                for (k, r) in rows.enumerated() {
                    if v.isNull(k) { anyNull = true } else { validity.setValid(Int(r)) }
                }
            }
        }
        if covered < n { anyNull = true }

        @inline(__always) func fill<T>(_ zero: T, _ get: (Vector) throws -> [T]) throws -> [T] {
            var out = [T](filled: zero, count: n)
            for (v, rows) in parts where !rows.isEmpty {
                let src = try get(v)
                if v.isConstant {
                    let c = src[0]
                    for r in rows { out[Int(r)] = c }
                } else {
                    for (k, r) in rows.enumerated() { out[Int(r)] = src[k] }
                }
            }
            return out
        }
        let data: VectorData
        switch type.physical {
        case .int64: data = .int64(try fill(0, int64s))
        case .int128: data = .int128(try fill(0, int128s))
        case .double: data = .double(try fill(0, doubles))
        case .bool: data = .bool(try fill(false, bools))
        case .string:
            // Which part and which row of it fills each output row.
            var part = [Int32](filled: -1, count: n)
            var at = [Int32](filled: 0, count: n)
            var arrays: [StringArray] = []
            var consts: [Bool] = []
            for (p, (v, rows)) in parts.enumerated() {
                arrays.append(try strings(v))
                consts.append(v.isConstant)
                for (k, r) in rows.enumerated() { part[Int(r)] = Int32(p); at[Int(r)] = v.isConstant ? 0 : Int32(k) }
            }
            var out = StringArray(reservingCount: n, bytes: 0)
            for i in 0..<n {
                let p = Int(part[i])
                if p < 0 { out.appendEmpty() } else { out.append(from: arrays[p], Int(at[i])) }
            }
            data = .string(out)
        }
        return Vector(type: type, data: data, validity: anyNull ? validity : nil)
    }

    /// An `n`-row vector taking row i from `sources[branch[i]]` (each constant or flat
    /// with n rows); a negative branch gives NULL.
    package static func pick(_ type: DataType, n: Int, sources: [Vector], branch: [Int8]) throws -> Vector {
        for v in sources where !v.isConstant && v.count != n {
            throw SQLError.internalError("CASE branch has the wrong length")
        }
        guard branch.count >= n else { throw SQLError.internalError("CASE branch list too short") }
        // Validity a word at a time, without a branch per row: row i is valid when its
        // source (branch[i] >= 0) is valid there.
        var words = [UInt64](filled: 0, count: (n + 63) >> 6)
        words.withUnsafeMutableBufferPointer { w in
            branch.withUnsafeBufferPointer { b in
                for (k, v) in sources.enumerated() {
                    let kk = Int8(truncatingIfNeeded: k)
                    if v.isConstant && v.isNull(0) { continue }
                    if !v.isConstant, let sv = v.validity {
                        sv.words.withUnsafeBufferPointer { s in
                            for i in 0..<min(n, s.count << 6) {
                                w[i >> 6] |= (UInt64(b[i] == kk ? 1 : 0) << UInt64(i & 63)) & s[i >> 6]
                            }
                        }
                    } else {
                        for i in 0..<n { w[i >> 6] |= UInt64(b[i] == kk ? 1 : 0) << UInt64(i & 63) }
                    }
                }
            }
        }
        let anyNull = words.reduce(0) { $0 + $1.nonzeroBitCount } != n
        let validity = Validity(words: words)
        @inline(__always) func fill<T>(_ zero: T, _ get: (Vector) throws -> [T]) throws -> [T] {
            var out = [T](filled: zero, count: n)
            try out.withUnsafeMutableBufferPointer { o in
                try branch.withUnsafeBufferPointer { b in
                    for (k, v) in sources.enumerated() {
                        let src = try get(v)
                        let kk = Int8(truncatingIfNeeded: k)
                        if v.isConstant {
                            let c = src[0]
                            for i in 0..<n { o[i] = b[i] == kk ? c : o[i] }
                        } else {
                            try src.withUnsafeBufferPointer { p in
                                guard p.count >= n else { throw SQLError.internalError("CASE branch too short") }
                                for i in 0..<n { o[i] = b[i] == kk ? p[i] : o[i] }
                            }
                        }
                    }
                }
            }
            return out
        }
        let data: VectorData
        switch type.physical {
        case .int64: data = .int64(try fill(0, int64s))
        case .int128: data = .int128(try fill(0, int128s))
        case .double: data = .double(try fill(0, doubles))
        case .bool: data = .bool(try fill(false, bools))
        case .string:
            let arrays = try sources.map { try strings($0) }
            var out = StringArray(reservingCount: n, bytes: 0)
            for i in 0..<n {
                let k = Int(branch[i])
                if k < 0 || k >= arrays.count { out.appendEmpty() } else { out.append(from: arrays[k], sources[k].isConstant ? 0 : i) }
            }
            data = .string(out)
        }
        return Vector(type: type, data: data, validity: anyNull ? validity : nil)
    }

    // MARK: - Gather

    /// The rows of a flat vector at `indices` (each < `v.count`; the caller checks),
    /// in that order; constants are returned unchanged.
    package static func gather(_ v: Vector, _ indices: [Int32]) -> Vector {
        if v.isConstant { return v }
        let n = indices.count
        @inline(__always) func take<T>(_ a: [T]) -> [T] {
            if n == 0 { return [] }
            return a.withUnsafeBufferPointer { p in
                indices.withUnsafeBufferPointer { ix in
                    [T](unsafeUninitializedCapacity: n) { out, count in
                        for k in 0..<n { out[k] = p[Int(ix[k])] }
                        count = n
                    }
                }
            }
        }
        let data: VectorData
        switch v.data {
        case .int64(let a): data = .int64(take(a))
        case .int128(let a): data = .int128(take(a))
        case .double(let a): data = .double(take(a))
        case .bool(let a): data = .bool(take(a))
        case .string(let a):
            var offsets = [Int32](filled: 0, count: n + 1)
            var total = 0
            a.offsets.withUnsafeBufferPointer { o in
                for k in 0..<n {
                    let i = Int(indices[k])
                    total += Int(o[i + 1] - o[i])
                    offsets[k + 1] = Int32(truncatingIfNeeded: total)
                }
            }
            var bytes = [UInt8](filled: 0, count: total)
            a.bytes.withUnsafeBufferPointer { src in
                bytes.withUnsafeMutableBufferPointer { dst in
                    a.offsets.withUnsafeBufferPointer { o in
                        for k in 0..<n {
                            let i = Int(indices[k])
                            let st = Int(o[i]), len = Int(o[i + 1]) - st
                            if len > 0, let d = dst.baseAddress, let s = src.baseAddress {
                                (d + Int(offsets[k])).update(from: s + st, count: len)
                            }
                        }
                    }
                }
            }
            data = .string(StringArray(rawBytes: bytes, rawOffsets: offsets))
        }
        var validity: Validity? = nil
        if let old = v.validity {
            var nv = Validity(allValid: n)
            var anyNull = false
            for k in 0..<n where !old.isValid(Int(indices[k])) { nv.setInvalid(k); anyNull = true }
            validity = anyNull ? nv : nil
        }
        return Vector(type: v.type, data: data, validity: validity)
    }

    /// Logical rows `0..<n` as Int32.
    package static func allRows(_ n: Int) -> [Int32] { (0..<n).map { Int32(truncatingIfNeeded: $0) } }
}

extension StringArray {
    /// A string array from raw parts (kernels build bytes and offsets directly).
    package init(rawBytes: [UInt8], rawOffsets: [Int32]) {
        self.init()
        self.bytes = rawBytes
        self.offsets = rawOffsets
    }
}

/// Appends strings into one byte buffer + offsets, for kernels that build string results.
package struct StringBuilder {
    package var bytes: [UInt8] = []
    package var offsets: [Int32] = [0]

    package init(rows: Int, bytes capacity: Int) {
        bytes.reserveCapacity(capacity)
        offsets.reserveCapacity(rows + 1)
    }

    @inline(__always) package mutating func append(_ b: UInt8) { bytes.append(b) }
    @inline(__always) package mutating func append(_ p: UnsafeBufferPointer<UInt8>) { bytes.append(contentsOf: p) }
    @inline(__always) package mutating func append(_ p: Slice<UnsafeBufferPointer<UInt8>>) { bytes.append(contentsOf: p) }
    @inline(__always) package mutating func append<S: Sequence>(contentsOf s: S) where S.Element == UInt8 { bytes.append(contentsOf: s) }
    /// Close the current row.
    @inline(__always) package mutating func finishRow() { offsets.append(Int32(truncatingIfNeeded: bytes.count)) }
    /// Bytes written to the current (unfinished) row.
    package var currentRowLength: Int { bytes.count - Int(offsets[offsets.count - 1]) }

    package var array: StringArray { StringArray(rawBytes: bytes, rawOffsets: offsets) }
}

/// Row access to a string input (constant or flat) without copying.
package struct StringInput {
    package let array: StringArray
    package let constant: Bool
    package init(_ v: Vector) throws {
        array = try Kern.strings(v)
        constant = v.isConstant
    }
    @inline(__always) package func range(_ i: Int) -> Range<Int> {
        let r = constant ? 0 : i
        return Int(array.offsets[r])..<Int(array.offsets[r + 1])
    }
}

/// Row access to an Int64 input (constant or flat).
package struct IntInput {
    package let values: [Int64]
    package let constant: Bool
    package init(_ v: Vector) throws {
        values = try Kern.int64s(v)
        constant = v.isConstant
    }
    @inline(__always) package subscript(i: Int) -> Int64 { values[constant ? 0 : i] }
}

/// A per-row binary operation for `Kern.run2`: the result and whether the row failed
/// (overflow, division by zero, ...).
package protocol RowOp2 {
    associatedtype A
    associatedtype B
    associatedtype R
    func apply(_ a: A, _ b: B) -> (R, Bool)
}

/// A per-value unary operation for `Kern.run1`.
package protocol RowOp1 {
    associatedtype A
    associatedtype R
    func apply(_ a: A) -> (R, Bool)
}

/// Int128 → Int64 (values already range-checked).
package struct NarrowInt128: RowOp1 {
    @inline(__always) package func apply(_ a: Int128) -> (Int64, Bool) { (Int64(truncatingIfNeeded: a), false) }
}
/// Boolean negation.
package struct NotOp: RowOp1 {
    @inline(__always) package func apply(_ a: Bool) -> (Bool, Bool) { (!a, false) }
}
