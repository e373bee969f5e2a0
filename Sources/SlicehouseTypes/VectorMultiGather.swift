extension Vector {
    /// Rows picked from several flat vectors of one physical type: output row i is
    /// `parts[chunk[i]]` at row `row[i]`. One pass, output allocated once at its final
    /// size (strings: bytes counted first). Storage builds a slice's column in its final
    /// (distributed, sorted) order with it, straight from the loaded chunks.
    public static func gather(from parts: [Vector], type: DataType, chunk: [Int32], row: [Int32]) -> Vector {
        let n = chunk.count
        precondition(row.count == n, "gather: chunk and row lists differ in length")
        let anyNulls = parts.contains { $0.validity != nil }
        var validity: Validity? = nil
        if anyNulls {
            var v = Validity(allValid: n)
            var sawNull = false
            for i in 0..<n {
                let p = parts[Int(chunk[i])]
                if let pv = p.validity, !pv.isValid(Int(row[i])) { v.setInvalid(i); sawNull = true }
            }
            if sawNull { validity = v }
        }
        let data: VectorData
        switch type.physical {
        case .int64:
            let arrays = parts.map { p -> [Int64] in if case .int64(let a) = p.data { return a }; return [] }
            data = .int64(gatherFixed(arrays, chunk, row, zero: 0))
        case .int128:
            let arrays = parts.map { p -> [Int128] in if case .int128(let a) = p.data { return a }; return [] }
            data = .int128(gatherFixed(arrays, chunk, row, zero: 0))
        case .double:
            let arrays = parts.map { p -> [Double] in if case .double(let a) = p.data { return a }; return [] }
            data = .double(gatherFixed(arrays, chunk, row, zero: 0))
        case .bool:
            let arrays = parts.map { p -> [Bool] in if case .bool(let a) = p.data { return a }; return [] }
            data = .bool(gatherFixed(arrays, chunk, row, zero: false))
        case .string:
            let arrays = parts.map { p -> StringArray in if case .string(let a) = p.data { return a }; return StringArray() }
            data = .string(gatherStrings(arrays, chunk, row))
        }
        return Vector(type: type, data: data, validity: validity)
    }

    private static func gatherFixed<T>(_ arrays: [[T]], _ chunk: [Int32], _ row: [Int32], zero: T) -> [T] {
        let n = chunk.count
        return arrays.withUnsafeBufferPointer { parts in
            chunk.withUnsafeBufferPointer { c in
                row.withUnsafeBufferPointer { r in
                    var out = [T]()
                    out.reserveCapacity(n)
                    for i in 0..<n {
                        let part = parts[Int(c[i])]
                        let ri = Int(r[i])
                        out.append(ri < part.count ? part[ri] : zero)
                    }
                    return out
                }
            }
        }
    }

    private static func gatherStrings(_ arrays: [StringArray], _ chunk: [Int32], _ row: [Int32]) -> StringArray {
        let n = chunk.count
        var total = 0
        for i in 0..<n {
            let a = arrays[Int(chunk[i])]
            let r = Int(row[i])
            total += Int(a.offsets[r + 1] - a.offsets[r])
        }
        var out = StringArray(reservingCount: n, bytes: total)
        for i in 0..<n { out.append(from: arrays[Int(chunk[i])], Int(row[i])) }
        return out
    }
}
