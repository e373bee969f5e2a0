// SPDX-License-Identifier: Apache-2.0
/// The physical payload of a vector: one typed contiguous buffer.
public enum VectorData: Sendable, Equatable {
    case int64([Int64])
    case int128([Int128])
    case double([Double])
    case bool([Bool])
    case string(StringArray)

    public var count: Int {
        switch self {
        case .int64(let a): return a.count
        case .int128(let a): return a.count
        case .double(let a): return a.count
        case .bool(let a): return a.count
        case .string(let a): return a.count
        }
    }

    public static func empty(_ p: PhysicalType, capacity: Int = 0) -> VectorData {
        switch p {
        case .int64: var a = [Int64](); a.reserveCapacity(capacity); return .int64(a)
        case .int128: var a = [Int128](); a.reserveCapacity(capacity); return .int128(a)
        case .double: var a = [Double](); a.reserveCapacity(capacity); return .double(a)
        case .bool: var a = [Bool](); a.reserveCapacity(capacity); return .bool(a)
        case .string: return .string(StringArray(reservingCount: capacity, bytes: capacity * 8))
        }
    }
}

/// A column of values of one type: a typed buffer, an optional validity bitmap
/// (nil = no NULLs) and a constant flag (one stored value that stands for every row).
///
/// Vectors are values (copy-on-write arrays inside); kernels read the buffers
/// through `withUnsafeBufferPointer` and write fresh output buffers.
public struct Vector: Sendable {
    public var type: DataType
    public var data: VectorData
    public var validity: Validity?
    /// One stored value broadcast over any number of rows.
    public var isConstant: Bool

    public init(type: DataType, data: VectorData, validity: Validity? = nil, isConstant: Bool = false) {
        self.type = type
        self.data = data
        self.validity = validity
        self.isConstant = isConstant
    }

    /// An empty vector to append to.
    public init(type: DataType, capacity: Int = 0) {
        self.type = type
        self.data = .empty(type.physical, capacity: capacity)
        self.validity = nil
        self.isConstant = false
    }

    /// Number of stored values (1 for a constant vector).
    @inlinable public var count: Int { data.count }

    @inlinable public var hasNulls: Bool { validity != nil }

    @inlinable public func isNull(_ i: Int) -> Bool {
        guard let validity else { return false }
        return !validity.isValid(isConstant ? 0 : i)
    }

    /// A constant vector holding `value` for every row.
    public static func constant(_ value: Value, type: DataType) -> Vector {
        var v = Vector(type: type, capacity: 1)
        v.append(value)
        v.isConstant = true
        return v
    }

    /// `count` NULLs of `type`, built whole (zeroed values under an all-NULL bitmap).
    public static func nulls(_ type: DataType, count n: Int) -> Vector {
        let data: VectorData
        switch type.physical {
        case .int64: data = .int64([Int64](filled: 0, count: n))
        case .int128: data = .int128([Int128](filled: 0, count: n))
        case .double: data = .double([Double](filled: 0, count: n))
        case .bool: data = .bool([Bool](filled: false, count: n))
        case .string: data = .string(StringArray(bytes: [], offsets: [Int32](filled: 0, count: n + 1)))
        }
        return Vector(type: type, data: data, validity: n > 0 ? Validity(allNull: n) : nil)
    }

    // MARK: - Slow-path element access (leader, results, tests)

    public func value(at i: Int) -> Value {
        let i = isConstant ? 0 : i
        if isNull(i) { return .null }
        switch data {
        case .int64(let a): return .int(a[i])
        case .int128(let a): return .int128(a[i])
        case .double(let a): return .double(a[i])
        case .bool(let a): return .bool(a[i])
        case .string(let a): return .string(a[i])
        }
    }

    // MARK: - Appending

    public mutating func appendNull() {
        let n = count
        // Take the bitmap out so it stays uniquely referenced while it grows.
        var bits = validity ?? Validity(allValid: n)
        validity = nil
        bits.reserve(n + 1)
        bits.setInvalid(n)
        switch data {
        case .int64(var a): data = .int64([]); a.append(0); data = .int64(a)
        case .int128(var a): data = .int128([]); a.append(0); data = .int128(a)
        case .double(var a): data = .double([]); a.append(0); data = .double(a)
        case .bool(var a): data = .bool([]); a.append(false); data = .bool(a)
        case .string(var a): data = .string(StringArray()); a.appendEmpty(); data = .string(a)
        }
        validity = bits
    }

    /// Append one value (its physical form must match this vector's type).
    public mutating func append(_ value: Value) {
        if case .null = value { appendNull(); return }
        let n = count
        // Take the buffer out of the vector so it is uniquely referenced while it grows
        // (switching on `(data, value)` would keep a second reference and copy every time).
        let taken = data
        data = .bool([])
        var ok = true
        switch consume taken {
        case .int64(var a):
            switch value {
            case .int(let v): a.append(v)
            case .int128(let v): a.append(Int64(truncatingIfNeeded: v))
            default: ok = false; a.append(0)
            }
            data = .int64(a)
        case .int128(var a):
            switch value {
            case .int128(let v): a.append(v)
            case .int(let v): a.append(Int128(v))
            default: ok = false; a.append(0)
            }
            data = .int128(a)
        case .double(var a):
            switch value {
            case .double(let v): a.append(v)
            case .int(let v): a.append(Double(v))
            default: ok = false; a.append(0)
            }
            data = .double(a)
        case .bool(var a):
            if case .bool(let v) = value { a.append(v) } else { ok = false; a.append(false) }
            data = .bool(a)
        case .string(var a):
            if case .string(let v) = value { a.append(v) } else { ok = false; a.appendEmpty() }
            data = .string(a)
        }
        if !ok {
            // A physical mismatch is a planner bug; store NULL rather than crash.
            var bits = validity ?? Validity(allValid: n)
            validity = nil
            bits.reserve(n + 1)
            bits.setInvalid(n)
            validity = bits
            return
        }
        if var bits = validity {
            validity = nil
            bits.reserve(n + 1)
            bits.setValid(n)
            validity = bits
        }
    }

    /// Append all rows of `other` (same physical type). Constants are expanded to `rows`.
    public mutating func append(_ other: Vector, rows: Int? = nil) {
        let other = other.isConstant ? other.flattened(count: rows ?? 1) : other
        let n = count, m = other.count
        if m == 0 { return }
        // The buffer is taken out of the vector before it grows, so it is uniquely
        // referenced and grows in place (amortized): switching on `(data, other.data)`
        // kept a second reference, and every append copied all the rows held so far.
        var taken = data
        data = .bool([])
        var appended = true
        switch other.data {
        case .int64(let b):
            if case .int64(var a) = taken { taken = .bool([]); a.append(contentsOf: b); taken = .int64(a) } else { appended = false }
        case .int128(let b):
            if case .int128(var a) = taken { taken = .bool([]); a.append(contentsOf: b); taken = .int128(a) } else { appended = false }
        case .double(let b):
            if case .double(var a) = taken { taken = .bool([]); a.append(contentsOf: b); taken = .double(a) } else { appended = false }
        case .bool(let b):
            if case .bool(var a) = taken { taken = .bool([]); a.append(contentsOf: b); taken = .bool(a) } else { appended = false }
        case .string(let b):
            if case .string(var a) = taken { taken = .bool([]); a.append(contentsOf: b); taken = .string(a) } else { appended = false }
        }
        data = taken
        if !appended {
            for i in 0..<m { append(other.value(at: i)) }
            return
        }
        appendValidity(after: n, count: m, from: other.validity) { $0 }
    }

    /// The validity of `m` rows appended after the first `n`: row `n + k` is NULL when
    /// row `source(k)` of `from` is (none are without a bitmap). Nothing is kept when
    /// neither side has NULLs.
    @inline(__always)
    mutating func appendValidity(after n: Int, count m: Int, from: Validity?, _ source: (Int) -> Int) {
        guard validity != nil || from != nil else { return }
        var v = validity ?? Validity(allValid: n)
        validity = nil
        v.reserve(n + m)
        // The bits past the old end in its last word may be clear (a decoded block's
        // bitmap, say): the appended rows are valid unless `from` says otherwise.
        if n & 63 != 0 { v.words[n >> 6] |= ~UInt64(0) << UInt64(n & 63) }
        if let from {
            for k in 0..<m where !from.isValid(source(k)) { v.setInvalid(n + k) }
        }
        validity = v
    }

    // MARK: - Reshaping

    /// A flat vector of `count` rows (a constant is repeated).
    public func flattened(count n: Int) -> Vector {
        guard isConstant else { return self }
        let null = isNull(0)
        var out: VectorData
        switch data {
        case .int64(let a): out = .int64([Int64](filled: a[0], count: n))
        case .int128(let a): out = .int128([Int128](filled: a[0], count: n))
        case .double(let a): out = .double([Double](filled: a[0], count: n))
        case .bool(let a): out = .bool([Bool](filled: a[0], count: n))
        case .string(let a):
            var s = StringArray(reservingCount: n, bytes: a.bytes.count * n)
            for _ in 0..<n { s.append(from: a, 0) }
            out = .string(s)
        }
        return Vector(type: type, data: out, validity: null ? Validity(allNull: n) : nil)
    }

    /// The rows at `indices`, in that order.
    public func gather(_ indices: [Int32]) -> Vector {
        if isConstant { return self }
        let n = indices.count
        var out: VectorData
        switch data {
        case .int64(let a):
            out = .int64(a.withUnsafeBufferPointer { p in indices.map { p[Int($0)] } })
        case .int128(let a):
            out = .int128(a.withUnsafeBufferPointer { p in indices.map { p[Int($0)] } })
        case .double(let a):
            out = .double(a.withUnsafeBufferPointer { p in indices.map { p[Int($0)] } })
        case .bool(let a):
            out = .bool(a.withUnsafeBufferPointer { p in indices.map { p[Int($0)] } })
        case .string(let a):
            out = .string(a.gather(indices))
        }
        var v: Validity? = nil
        if let validity {
            var nv = Validity(allValid: n)
            var anyNull = false
            for (k, i) in indices.enumerated() where !validity.isValid(Int(i)) {
                nv.setInvalid(k); anyNull = true
            }
            v = anyNull ? nv : nil
        }
        return Vector(type: type, data: out, validity: v)
    }

    /// Rows `start..<start+length` (a contiguous copy).
    public func slice(_ start: Int, _ length: Int) -> Vector {
        if isConstant { return self }
        if start == 0 && length == count { return self }
        let end = start + length
        var out: VectorData
        switch data {
        case .int64(let a): out = .int64(Array(a[start..<end]))
        case .int128(let a): out = .int128(Array(a[start..<end]))
        case .double(let a): out = .double(Array(a[start..<end]))
        case .bool(let a): out = .bool(Array(a[start..<end]))
        case .string(let a):
            var s = StringArray(reservingCount: length, bytes: 0)
            let base = a.offsets[start]
            s.bytes = Array(a.bytes[Int(base)..<Int(a.offsets[end])])
            s.offsets = a.offsets[start...end].map { $0 &- base }
            out = .string(s)
        }
        var v: Validity? = nil
        if let validity {
            var nv = Validity(allValid: length)
            var anyNull = false
            for i in 0..<length where !validity.isValid(start + i) { nv.setInvalid(i); anyNull = true }
            v = anyNull ? nv : nil
        }
        return Vector(type: type, data: out, validity: v)
    }

    /// Same data, different logical type (used after casts that keep the representation).
    public func retyped(_ t: DataType) -> Vector {
        var v = self
        v.type = t
        return v
    }

    // MARK: - Wide decimals held in 64 bits

    /// Whether this vector's type is 128 bits wide (a DECIMAL of more than 18 digits) but
    /// its values are held as `Int64`. Only the decimal arithmetic kernels make such a
    /// vector, and only for a consumer that reads both widths (a SUM or AVG argument; see
    /// `ExpressionEvaluator.evaluate(_:_:narrowing:)`): every other consumer reads a type's
    /// own width.
    @inlinable public var isNarrowed: Bool {
        if case .int64 = data { return type.physical == .int128 }
        return false
    }

    /// This vector with its type's own width: a narrowed vector's values widened to
    /// `Int128`; any other vector as it is.
    public func widened() -> Vector {
        guard isNarrowed, case .int64(let a) = data else { return self }
        var v = self
        v.data = .int128(a.map { Int128($0) })
        return v
    }
}

extension Vector {
    /// Convenience constructors (tests and the leader).
    public static func ints(_ values: [Int64?], type: DataType = .bigint) -> Vector {
        var v = Vector(type: type, capacity: values.count)
        for x in values { v.append(x.map { .int($0) } ?? .null) }
        return v
    }
    public static func strings(_ values: [String?], type: DataType = .text) -> Vector {
        var v = Vector(type: type, capacity: values.count)
        for x in values { v.append(x.map { .string($0) } ?? .null) }
        return v
    }
}
