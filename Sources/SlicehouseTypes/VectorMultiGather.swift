// SPDX-License-Identifier: Apache-2.0
extension Vector {
    /// Rows picked from several flat vectors of one physical type: output row i is
    /// `parts[chunk[i]]` at row `row[i]`. One pass, output allocated once at its final
    /// size (strings: bytes counted first). Storage builds a slice's column in its final
    /// (distributed, sorted) order with it, straight from the loaded chunks.
    ///
    /// The inner loops go through a table of base pointers, one per part, so a row
    /// costs a load and a store (strings: one memcpy), without reference counting.
    public static func gather(from parts: [Vector], type: DataType, chunk: [Int32], row: [Int32]) -> Vector {
        let n = chunk.count
        precondition(row.count == n, "gather: chunk and row lists differ in length")
        let anyNulls = parts.contains { $0.validity != nil }
        var validity: Validity? = nil
        if anyNulls {
            // Each part's words through a table of base pointers (nil: no NULLs), so a row
            // costs a load and a test, without reference counting.
            var v = Validity(allValid: n)
            var sawNull = false
            let wordArrays = parts.map { $0.validity?.words ?? [] }
            withExtendedLifetime(wordArrays) {
                let (bases, counts) = basePointers(wordArrays)
                v.words.withUnsafeMutableBufferPointer { out in
                    chunk.withUnsafeBufferPointer { c in
                        row.withUnsafeBufferPointer { r in
                            for i in 0..<n {
                                let ci = Int(c[i]), ri = Int(r[i])
                                guard ci >= 0, ci < bases.count, let b = bases[ci], ri >= 0, ri >> 6 < counts[ci] else { continue }
                                if (b[ri >> 6] >> UInt64(ri & 63)) & 1 == 0 {
                                    out[i >> 6] &= ~(1 << UInt64(i & 63))
                                    sawNull = true
                                }
                            }
                        }
                    }
                }
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

    /// Base pointer and element count of each array. The pointers stay valid while
    /// the caller keeps `arrays` alive and unmodified (`withExtendedLifetime`).
    static func basePointers<T>(_ arrays: [[T]]) -> (bases: [UnsafePointer<T>?], counts: [Int]) {
        (arrays.map { $0.withUnsafeBufferPointer { $0.baseAddress } }, arrays.map { $0.count })
    }

    private static func gatherFixed<T>(_ arrays: [[T]], _ chunk: [Int32], _ row: [Int32], zero: T) -> [T] {
        let n = chunk.count
        return withExtendedLifetime(arrays) {
            let (bases, counts) = basePointers(arrays)
            return bases.withUnsafeBufferPointer { b in
                counts.withUnsafeBufferPointer { cnt in
                    chunk.withUnsafeBufferPointer { c in
                        row.withUnsafeBufferPointer { r in
                            [T](unsafeUninitializedCapacity: n) { out, done in
                                guard let o = out.baseAddress else { done = 0; return }
                                for i in 0..<n {
                                    let ci = Int(c[i]), ri = Int(r[i])
                                    if ri < cnt[ci], let p = b[ci] {
                                        (o + i).initialize(to: p[ri])
                                    } else {
                                        (o + i).initialize(to: zero)
                                    }
                                }
                                done = n
                            }
                        }
                    }
                }
            }
        }
    }

    private static func gatherStrings(_ arrays: [StringArray], _ chunk: [Int32], _ row: [Int32]) -> StringArray {
        let n = chunk.count
        if n == 0 { return StringArray() }
        let byteArrays = arrays.map { $0.bytes }
        let offsetArrays = arrays.map { $0.offsets }
        return withExtendedLifetime((byteArrays, offsetArrays)) {
            let (bytes, _) = basePointers(byteArrays)
            let (offs, rowsPlusOne) = basePointers(offsetArrays)
            return bytes.withUnsafeBufferPointer { bp in
                offs.withUnsafeBufferPointer { op in
                    rowsPlusOne.withUnsafeBufferPointer { cnt in
                        chunk.withUnsafeBufferPointer { c in
                            row.withUnsafeBufferPointer { r in
                                // Offsets first (a missing row counts as empty), remembering where
                                // each value starts in its part, so the copy pass touches each
                                // source row's offsets once and its bytes once.
                                var from = [UnsafePointer<UInt8>?](repeating: nil, count: n)
                                let outOffsets = [Int32].building(capacity: n + 1, placeholder: 0) { o, done in
                                    from.withUnsafeMutableBufferPointer { f in
                                        o[0] = 0
                                        var pos: Int32 = 0
                                        for i in 0..<n {
                                            let ci = Int(c[i]), ri = Int(r[i])
                                            if ri + 1 < cnt[ci], let p = op[ci], let b = bp[ci] {
                                                let s = p[ri]
                                                pos &+= p[ri + 1] &- s
                                                f[i] = b + Int(s)
                                            }
                                            o[i + 1] = pos
                                        }
                                    }
                                    done = n + 1
                                }
                                let total = Int(outOffsets[n])
                                let outBytes = [UInt8].building(capacity: total, placeholder: 0) { dst, done in
                                    outOffsets.withUnsafeBufferPointer { o in
                                        from.withUnsafeBufferPointer { f in
                                            guard let d = dst.baseAddress else { return }
                                            for i in 0..<n {
                                                let len = Int(o[i + 1] &- o[i])
                                                guard len > 0, let src = f[i] else { continue }
                                                copyShortBytes(d + Int(o[i]), src, len)
                                            }
                                        }
                                    }
                                    done = total
                                }
                                return StringArray(bytes: outBytes, offsets: outOffsets)
                            }
                        }
                    }
                }
            }
        }
    }
}
