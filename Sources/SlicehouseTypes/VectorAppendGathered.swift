// SPDX-License-Identifier: Apache-2.0
extension Vector {
    /// Append the rows of `other` at `indices`, in that order, in one pass (no vector in
    /// between): how a partitioning operator adds each partition's rows of a chunk to the
    /// partition's open chunk. `other` has this vector's physical type; a constant
    /// `other` repeats its one value.
    public mutating func append(gathering indices: UnsafeBufferPointer<Int32>, from other: Vector) {
        let m = indices.count
        if m == 0 { return }
        let n = count
        let constant = other.isConstant
        // The buffer is taken out of the vector so it stays uniquely referenced (as in
        // `append(_:rows:)`).
        var taken = data
        data = .bool([])
        var appended = true
        switch other.data {
        case .int64(let b):
            if case .int64(var a) = taken { taken = .bool([]); Self.gathered(&a, b, indices, constant); taken = .int64(a) } else { appended = false }
        case .int128(let b):
            if case .int128(var a) = taken { taken = .bool([]); Self.gathered(&a, b, indices, constant); taken = .int128(a) } else { appended = false }
        case .double(let b):
            if case .double(var a) = taken { taken = .bool([]); Self.gathered(&a, b, indices, constant); taken = .double(a) } else { appended = false }
        case .bool(let b):
            if case .bool(var a) = taken { taken = .bool([]); Self.gathered(&a, b, indices, constant); taken = .bool(a) } else { appended = false }
        case .string(let b):
            if case .string(var a) = taken {
                taken = .bool([])
                for i in indices { a.append(from: b, constant ? 0 : Int(i)) }
                taken = .string(a)
            } else {
                appended = false
            }
        }
        data = taken
        if !appended {
            for i in indices { append(other.value(at: constant ? 0 : Int(i))) }
            return
        }
        appendValidity(after: n, count: m, from: other.validity) { constant ? 0 : Int(indices[$0]) }
    }

    @inline(__always)
    private static func gathered<T>(_ a: inout [T], _ b: [T], _ indices: UnsafeBufferPointer<Int32>, _ constant: Bool) {
        let m = indices.count
        // Grow geometrically: an exact reserve on every call would copy each time.
        if a.capacity < a.count + m { a.reserveCapacity(max(a.count + m, 2 * a.capacity)) }
        b.withUnsafeBufferPointer { bp in
            if constant {
                a.append(contentsOf: repeatElement(bp[0], count: m))
            } else {
                for i in indices { a.append(bp[Int(i)]) }
            }
        }
    }
}
