// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan

/// `= <> < <= > >=` for every physical type, producing BOOLEAN vectors with NULL
/// propagation, and selection kernels for `column op constant` filters.
///
/// Ordering: integers/decimals/dates/timestamps numerically (operands have the
/// same type, so the same scale); doubles with PostgreSQL's NaN rule (NaN equals
/// NaN and sorts above every other value; -0 equals 0); booleans false < true;
/// strings by unsigned bytes (CHAR values are stored without trailing blanks).
package enum ComparisonKernels {

    /// `a op b` over `n` rows.
    package static func compare(_ op: BinaryOp, _ a: Vector, _ b: Vector, n: Int) throws -> Vector {
        if Kern.isConstNull(a) || Kern.isConstNull(b) { return Kern.constNull(.boolean) }
        var (a, b) = try harmonize(a, b)
        if a.type == .superType && b.type == .superType {
            // Equal SUPER values may be spelled differently (attribute order, `1.0`).
            a = SuperJSON.equalityForms(a)
            b = SuperJSON.equalityForms(b)
        }
        let len = Kern.length(a, b, n: n)
        let constant = a.isConstant && b.isConstant
        let validity = constant ? nil : Kern.combinedValidity(a, b)
        let ac = a.isConstant, bc = b.isConstant
        let out: [Bool]
        switch (a.data, b.data) {
        case (.int64(let x), .int64(let y)):
            out = ordered(NaturalOrder<Int64>.self, op, x, ac, y, bc, len)
        case (.int128(let x), .int128(let y)):
            out = ordered(NaturalOrder<Int128>.self, op, x, ac, y, bc, len)
        case (.double(let x), .double(let y)):
            out = ordered(DoubleOrder.self, op, x, ac, y, bc, len)
        case (.bool(let x), .bool(let y)):
            out = ordered(BoolOrder.self, op, x, ac, y, bc, len)
        case (.string(let x), .string(let y)):
            out = strings(op, x, ac, y, bc, len)
        default:
            throw SQLError(.undefinedFunction,
                           "operator does not exist: \(a.type.sqlName) \(op.rawValue) \(b.type.sqlName)")
        }
        return Kern.boolResult(out, validity: validity, constant: constant)
    }

    /// Bring two operands to one representation when the binder left them different
    /// (different decimal scales, integer vs decimal, date vs timestamp, ...).
    package static func harmonize(_ a: Vector, _ b: Vector) throws -> (Vector, Vector) {
        if a.type == b.type || (a.type.isString && b.type.isString) { return (a, b) }
        if sameRepresentation(a.type, b.type) { return (a, b) }
        guard let t = TypeRules.commonType(a.type, b.type) else {
            throw SQLError(.undefinedFunction, "operator does not exist: \(a.type.sqlName) = \(b.type.sqlName)")
        }
        return (try CastKernels.cast(a, to: t), try CastKernels.cast(b, to: t))
    }

    @inline(__always) package static func doubleLess(_ a: Double, _ b: Double) -> Bool {
        a < b || (b.isNaN && !a.isNaN)
    }
    @inline(__always) package static func doubleEqual(_ a: Double, _ b: Double) -> Bool {
        a == b || (a.isNaN && b.isNaN)
    }

    /// The comparison of two typed inputs under order `O`.
    package static func ordered<O: SQLOrder>(_ o: O.Type, _ op: BinaryOp, _ x: [O.T], _ ac: Bool, _ y: [O.T], _ bc: Bool,
                                     _ len: Int) -> [Bool] {
        switch op {
        case .equal: return compareLoop(O.self, EqK.self, x, ac, y, bc, len)
        case .notEqual: return compareLoop(O.self, NeK.self, x, ac, y, bc, len)
        case .less: return compareLoop(O.self, LtK.self, x, ac, y, bc, len)
        case .lessEqual: return compareLoop(O.self, LeK.self, x, ac, y, bc, len)
        case .greater: return compareLoop(O.self, GtK.self, x, ac, y, bc, len)
        case .greaterEqual: return compareLoop(O.self, GeK.self, x, ac, y, bc, len)
        default: return [Bool](filled: false, count: len)
        }
    }

    @inline(__always)
    package static func compareLoop<O: SQLOrder, K: CompareKind>(_: O.Type, _: K.Type, _ x: [O.T], _ ac: Bool, _ y: [O.T], _ bc: Bool,
                                                         _ n: Int) -> [Bool] {
        if n <= 0 || x.isEmpty || y.isEmpty { return [] }
        return x.withUnsafeBufferPointer { pa in
            y.withUnsafeBufferPointer { pb in
                [Bool].building(capacity: n, placeholder: false) { out, count in
                    if ac && bc {
                        let r = K.holds(O.self, pa[0], pb[0])
                        for i in 0..<n { out[i] = r }
                    } else if ac {
                        let c = pa[0]
                        for i in 0..<n { out[i] = K.holds(O.self, c, pb[i]) }
                    } else if bc {
                        let c = pb[0]
                        for i in 0..<n { out[i] = K.holds(O.self, pa[i], c) }
                    } else {
                        for i in 0..<n { out[i] = K.holds(O.self, pa[i], pb[i]) }
                    }
                    count = n
                }
            }
        }
    }

    /// Whether a three-way comparison result satisfies `op`.
    @inline(__always) package static func holds(_ op: BinaryOp, _ c: Int) -> Bool {
        switch op {
        case .equal: return c == 0
        case .notEqual: return c != 0
        case .less: return c < 0
        case .lessEqual: return c <= 0
        case .greater: return c > 0
        case .greaterEqual: return c >= 0
        default: return false
        }
    }

    package static func strings(_ op: BinaryOp, _ x: StringArray, _ ac: Bool, _ y: StringArray, _ bc: Bool, _ len: Int) -> [Bool] {
        if len == 0 { return [] }
        if (op == .equal || op == .notEqual) && ac != bc,
           let out = equalsShortConstant(ac ? y : x, constant: ac ? x : y, negated: op == .notEqual, len) {
            return out
        }
        return x.bytes.withUnsafeBufferPointer { xb in
            y.bytes.withUnsafeBufferPointer { yb in
                x.offsets.withUnsafeBufferPointer { xo in
                    y.offsets.withUnsafeBufferPointer { yo in
                        [Bool].building(capacity: len, placeholder: false) { out, count in
                            let eqOnly = op == .equal || op == .notEqual
                            for i in 0..<len {
                                let ia = ac ? 0 : i, ib = bc ? 0 : i
                                let s1 = Int(xo[ia]), l1 = Int(xo[ia + 1]) - s1
                                let s2 = Int(yo[ib]), l2 = Int(yo[ib + 1]) - s2
                                if eqOnly {
                                    var equal = l1 == l2
                                    if equal && l1 > 0, let xa = xb.baseAddress, let ya = yb.baseAddress {
                                        equal = equalBytes(xa + s1, ya + s2, l1)
                                    }
                                    out[i] = equal != (op == .notEqual)
                                    continue
                                }
                                let c = compareBytes(xb.baseAddress.map { $0 + s1 }, l1, yb.baseAddress.map { $0 + s2 }, l2)
                                out[i] = holds(op, c)
                            }
                            count = len
                        }
                    }
                }
            }
        }
    }

    /// `column = constant` (or `<>`) for a constant of at most 8 bytes: per row a length
    /// test and one masked 8-byte load compared with the constant's word, no branch on the
    /// outcome (TPC-DS q59's seven `CASE WHEN d_day_name = 'Sunday' ...` over every sale).
    /// 9 to 16 bytes go to `equalsTwoWordConstant`; nil when the constant is longer.
    package static func equalsShortConstant(_ column: StringArray, constant: StringArray, negated: Bool, _ len: Int) -> [Bool]? {
        guard constant.offsets.count >= 2, column.offsets.count > len else { return nil }
        let cs = Int(constant.offsets[0]), ce = Int(constant.offsets[1])
        let clen = ce - cs
        if clen > 8 && clen <= 16 { return equalsTwoWordConstant(column, constant: constant, negated: negated, len) }
        guard clen >= 0, clen <= 8 else { return nil }
        var cword: UInt64 = 0
        for b in 0..<clen { cword |= UInt64(constant.bytes[cs + b]) &<< UInt64(8 * b) }
        let want = UInt64(clen)
        return eachValue(column, len, empty: (clen == 0) != negated) { base, total, s, l in
            var word: UInt64 = 0
            if s &+ 8 <= total {
                word = UInt64(littleEndian: UnsafeRawPointer(base + s).loadUnaligned(as: UInt64.self))
                word &= l >= 8 ? UInt64.max : (UInt64(1) &<< UInt64(truncatingIfNeeded: 8 &* l)) &- 1
            } else {
                // The last bytes of the buffer: no 8-byte load past its end.
                var b = 0
                while b < min(l, 8) { word |= UInt64(base[s &+ b]) &<< UInt64(8 &* b); b &+= 1 }
            }
            let equal = (UInt64(truncatingIfNeeded: l) == want) && (word == cword)
            return equal != negated
        }
    }

    /// `equalsShortConstant` for a constant of 9 to 16 bytes ('Wednesday', 'Advanced
    /// Degree'): its first and last 8 bytes (overlapping) compared with two loads at the
    /// same places in each row of the constant's length. A row whose bytes would run past
    /// the buffer's end is not of that length, so it is unequal without a load.
    package static func equalsTwoWordConstant(_ column: StringArray, constant: StringArray, negated: Bool, _ len: Int) -> [Bool]? {
        let cs = Int(constant.offsets[0]), clen = Int(constant.offsets[1]) - cs
        guard clen > 8, clen <= 16, constant.bytes.count >= cs + clen else { return nil }
        let (head, tail) = constant.bytes.withUnsafeBufferPointer { cb -> (UInt64, UInt64) in
            guard let base = cb.baseAddress else { return (0, 0) }
            let p = UnsafeRawPointer(base + cs)
            return (p.loadUnaligned(as: UInt64.self), p.loadUnaligned(fromByteOffset: clen - 8, as: UInt64.self))
        }
        return eachValue(column, len, empty: negated) { base, total, s, l in
            var equal = false
            if l == clen, s &+ clen <= total {
                let p = UnsafeRawPointer(base + s)
                equal = (p.loadUnaligned(as: UInt64.self) == head)
                    && (p.loadUnaligned(fromByteOffset: clen - 8, as: UInt64.self) == tail)
            }
            return equal != negated
        }
    }

    /// `test(base, total, start, length)` for each of the first `len` values of `column`
    /// (its bytes at `base`, `total` of them): the row loop of the constant-equality
    /// kernels above. Without a byte buffer (every value empty) each row is `empty`.
    @inline(__always)
    package static func eachValue(_ column: StringArray, _ len: Int, empty: Bool,
                          _ test: (UnsafePointer<UInt8>, Int, Int, Int) -> Bool) -> [Bool] {
        column.bytes.withUnsafeBufferPointer { xb in
            column.offsets.withUnsafeBufferPointer { xo in
                [Bool].building(capacity: len, placeholder: false) { out, count in
                    let total = xb.count
                    if let base = xb.baseAddress {
                        for i in 0..<len {
                            let s = Int(xo[i])
                            out[i] = test(base, total, s, Int(xo[i + 1]) &- s)
                        }
                    } else {
                        for i in 0..<len { out[i] = empty }
                    }
                    count = len
                }
            }
        }
    }

    // MARK: - Selection fast paths

    /// Whether `column op constant` can use `select(_:column:constant:...)` directly
    /// (same representation on both sides).
    package static func canSelectDirectly(_ column: DataType, _ constant: DataType) -> Bool {
        if column.isString && constant.isString { return true }
        return column == constant || (sameRepresentation(column, constant) && column.physical != .bool)
    }

    /// Whether values of two types compare correctly as stored: same physical form and
    /// scale; dates and timestamps only with their own type (days vs microseconds).
    package static func sameRepresentation(_ a: DataType, _ b: DataType) -> Bool {
        if a == b { return a != .unknown }
        if a.isTemporal || b.isTemporal || a == .unknown || b == .unknown { return false }
        return a.physical == b.physical && a.scale == b.scale && a.isFloat == b.isFloat
    }

    /// Physical row indices among `selection` (or `0..<count`) where `column op constant`
    /// is TRUE. `column` is a chunk column (flat over the physical rows, or constant).
    package static func select(_ op: BinaryOp, column: Vector, constant: Vector, selection: [Int32]?, count: Int) throws -> [Int32] {
        if Kern.isConstNull(constant) || count == 0 { return [] }
        if column.isConstant {
            let r = try compare(op, column, constant, n: 1)
            let vals = try Kern.bools(r)
            let pass = !r.isNull(0) && vals.first == true
            return pass ? (selection ?? Kern.allRows(count)) : []
        }
        let validity = column.validity
        switch (column.data, constant.data) {
        case (.int64(let x), .int64(let y)):
            return selectOrdered(NaturalOrder<Int64>.self, op, x, y[0], validity, selection, count)
        case (.int128(let x), .int128(let y)):
            return selectOrdered(NaturalOrder<Int128>.self, op, x, y[0], validity, selection, count)
        case (.double(let x), .double(let y)):
            return selectOrdered(DoubleOrder.self, op, x, y[0], validity, selection, count)
        case (.string(let x), .string(let y)):
            let c = y.withBytes(0) { Array($0) }
            if op == .equal { return selectStrings(x, validity, selection, count, BytesEqual(value: c, negated: false)) }
            if op == .notEqual { return selectStrings(x, validity, selection, count, BytesEqual(value: c, negated: true)) }
            return selectStrings(x, validity, selection, count, BytesCompare(value: c, op: op))
        default:
            // `r` has one value per physical row: with a selection, compare only the
            // selected rows so that r[j] belongs to selection[j].
            let input = selection.map { column.gather($0) } ?? column
            let r = try compare(op, input, constant, n: input.count)
            return try indices(where: r, selection: selection, count: count)
        }
    }

    package static func selectOrdered<O: SQLOrder>(_ o: O.Type, _ op: BinaryOp, _ x: [O.T], _ c: O.T, _ validity: Validity?,
                                           _ selection: [Int32]?, _ count: Int) -> [Int32] {
        switch op {
        case .equal: return selectCompare(O.self, EqK.self, x, c, validity, selection, count)
        case .notEqual: return selectCompare(O.self, NeK.self, x, c, validity, selection, count)
        case .less: return selectCompare(O.self, LtK.self, x, c, validity, selection, count)
        case .lessEqual: return selectCompare(O.self, LeK.self, x, c, validity, selection, count)
        case .greater: return selectCompare(O.self, GtK.self, x, c, validity, selection, count)
        case .greaterEqual: return selectCompare(O.self, GeK.self, x, c, validity, selection, count)
        default: return []
        }
    }

    /// Indices (among `selection`, or `0..<count`) of the non-NULL values v with `v K c`.
    /// Branch-free: every candidate index is written, the cursor advances on a match.
    @inline(__always)
    package static func selectCompare<O: SQLOrder, K: CompareKind>(_: O.Type, _: K.Type, _ x: [O.T], _ c: O.T, _ validity: Validity?,
                                                           _ selection: [Int32]?, _ count: Int) -> [Int32] {
        if count == 0 { return [] }
        return x.withUnsafeBufferPointer { buf in
            [Int32].building(capacity: count, placeholder: 0) { out, k in
                var m = 0
                if let selection {
                    selection.withUnsafeBufferPointer { s in
                        if let validity {
                            for j in 0..<count {
                                let i = Int(s[j])
                                out[m] = s[j]
                                m &+= (K.holds(O.self, buf[i], c) && validity.isValid(i)) ? 1 : 0
                            }
                        } else {
                            for j in 0..<count {
                                out[m] = s[j]
                                m &+= K.holds(O.self, buf[Int(s[j])], c) ? 1 : 0
                            }
                        }
                    }
                } else if let validity {
                    for i in 0..<count {
                        out[m] = Int32(truncatingIfNeeded: i)
                        m &+= (K.holds(O.self, buf[i], c) && validity.isValid(i)) ? 1 : 0
                    }
                } else {
                    for i in 0..<count {
                        out[m] = Int32(truncatingIfNeeded: i)
                        m &+= K.holds(O.self, buf[i], c) ? 1 : 0
                    }
                }
                k = m
            }
        }
    }

    /// Indices (among `selection`, or `0..<count`) of the non-NULL values satisfying `pred`.
    @inline(__always)
    package static func selectValues<P: ValuePredicate>(_ x: [P.T], _ validity: Validity?, _ selection: [Int32]?, _ count: Int,
                                                _ pred: P) -> [Int32] {
        if count == 0 { return [] }
        return x.withUnsafeBufferPointer { buf in
            [Int32].building(capacity: count, placeholder: 0) { out, k in
                var m = 0
                for j in 0..<count {
                    let i = selection.map { Int($0[j]) } ?? j
                    out[m] = Int32(truncatingIfNeeded: i)
                    m &+= (pred.test(buf[i]) && Kern.valid(validity, i)) ? 1 : 0
                }
                k = m
            }
        }
    }

    /// Indices of the non-NULL strings satisfying `pred` (given the bytes of the value).
    @inline(__always)
    package static func selectStrings<P: BytesPredicate>(_ x: StringArray, _ validity: Validity?, _ selection: [Int32]?, _ count: Int,
                                                 _ pred: P) -> [Int32] {
        if count == 0 { return [] }
        return x.bytes.withUnsafeBufferPointer { bytes in
            x.offsets.withUnsafeBufferPointer { offs in
                [Int32].building(capacity: count, placeholder: 0) { out, k in
                    var m = 0
                    for j in 0..<count {
                        let i = selection.map { Int($0[j]) } ?? j
                        if let validity, !validity.isValid(i) { continue }
                        let s = Int(offs[i]), e = Int(offs[i + 1])
                        if pred.test(UnsafeBufferPointer(rebasing: bytes[s..<e])) {
                            out[m] = Int32(truncatingIfNeeded: i)
                            m += 1
                        }
                    }
                    k = m
                }
            }
        }
    }

    /// Physical indices (among `selection`) whose logical row is TRUE in the dense
    /// boolean vector `r` (one row per logical row, or constant).
    package static func indices(where r: Vector, selection: [Int32]?, count: Int) throws -> [Int32] {
        let vals = try Kern.bools(r)
        if r.isConstant {
            return (!r.isNull(0) && vals.first == true) ? (selection ?? Kern.allRows(count)) : []
        }
        guard vals.count >= count else { throw SQLError.internalError("predicate result shorter than its chunk") }
        let validity = r.validity
        if count == 0 { return [] }
        return vals.withUnsafeBufferPointer { v in
            [Int32].building(capacity: count, placeholder: 0) { out, k in
                var m = 0
                if let selection {
                    for j in 0..<count {
                        out[m] = selection[j]
                        m += (v[j] && Kern.valid(validity, j)) ? 1 : 0
                    }
                } else {
                    for j in 0..<count {
                        out[m] = Int32(truncatingIfNeeded: j)
                        m += (v[j] && Kern.valid(validity, j)) ? 1 : 0
                    }
                }
                k = m
            }
        }
    }
}

// MARK: - Orders and comparison kinds

/// An SQL ordering of one physical type (specialised statically in the loops).
package protocol SQLOrder {
    associatedtype T
    static func less(_ a: T, _ b: T) -> Bool
    static func equal(_ a: T, _ b: T) -> Bool
}
package enum NaturalOrder<T: Comparable>: SQLOrder {
    @inline(__always) package static func less(_ a: T, _ b: T) -> Bool { a < b }
    @inline(__always) package static func equal(_ a: T, _ b: T) -> Bool { a == b }
}
/// PostgreSQL's float order: NaN equals NaN and sorts above everything; -0 equals 0.
package enum DoubleOrder: SQLOrder {
    @inline(__always) package static func less(_ a: Double, _ b: Double) -> Bool { ComparisonKernels.doubleLess(a, b) }
    @inline(__always) package static func equal(_ a: Double, _ b: Double) -> Bool { ComparisonKernels.doubleEqual(a, b) }
}
package enum BoolOrder: SQLOrder {
    @inline(__always) package static func less(_ a: Bool, _ b: Bool) -> Bool { !a && b }
    @inline(__always) package static func equal(_ a: Bool, _ b: Bool) -> Bool { a == b }
}

/// One of `= <> < <= > >=` as a type, so loops specialise per operator.
package protocol CompareKind {
    static func holds<O: SQLOrder>(_ o: O.Type, _ a: O.T, _ b: O.T) -> Bool
}
package enum EqK: CompareKind { @inline(__always) package static func holds<O: SQLOrder>(_ o: O.Type, _ a: O.T, _ b: O.T) -> Bool { O.equal(a, b) } }
package enum NeK: CompareKind { @inline(__always) package static func holds<O: SQLOrder>(_ o: O.Type, _ a: O.T, _ b: O.T) -> Bool { !O.equal(a, b) } }
package enum LtK: CompareKind { @inline(__always) package static func holds<O: SQLOrder>(_ o: O.Type, _ a: O.T, _ b: O.T) -> Bool { O.less(a, b) } }
package enum LeK: CompareKind { @inline(__always) package static func holds<O: SQLOrder>(_ o: O.Type, _ a: O.T, _ b: O.T) -> Bool { !O.less(b, a) } }
package enum GtK: CompareKind { @inline(__always) package static func holds<O: SQLOrder>(_ o: O.Type, _ a: O.T, _ b: O.T) -> Bool { O.less(b, a) } }
package enum GeK: CompareKind { @inline(__always) package static func holds<O: SQLOrder>(_ o: O.Type, _ a: O.T, _ b: O.T) -> Bool { !O.less(a, b) } }

// MARK: - String predicates

/// A test on the bytes of one string (specialised in `selectStrings`).
package protocol BytesPredicate {
    func test(_ p: UnsafeBufferPointer<UInt8>) -> Bool
}

/// Byte equality with a constant (or inequality when `negated`).
package struct BytesEqual: BytesPredicate {
    package let value: [UInt8]
    package let negated: Bool
    @inline(__always) package func test(_ p: UnsafeBufferPointer<UInt8>) -> Bool {
        if p.count != value.count { return negated }
        guard p.count > 0, let b = p.baseAddress else { return !negated }
        let eq = value.withUnsafeBufferPointer { v in v.baseAddress.map { equalBytes($0, b, p.count) } ?? false }
        return eq != negated
    }
}

/// Ordering against a constant.
package struct BytesCompare: BytesPredicate {
    package let value: [UInt8]
    package let op: BinaryOp
    @inline(__always) package func test(_ p: UnsafeBufferPointer<UInt8>) -> Bool {
        let c = value.withUnsafeBufferPointer { compareBytes(p.baseAddress, p.count, $0.baseAddress, $0.count) }
        return ComparisonKernels.holds(op, c)
    }
}

/// A test on one value (specialised in `selectValues`).
package protocol ValuePredicate {
    associatedtype T
    func test(_ v: T) -> Bool
}
