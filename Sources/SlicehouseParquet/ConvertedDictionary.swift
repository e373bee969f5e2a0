// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// A column chunk's dictionary, already converted to the target type.
///
/// Dictionary encoding stores each distinct value once, in a PLAIN-encoded dictionary
/// page at the start of the chunk; data pages then hold indices into it. Converting the
/// dictionary once (strings checked for length and UTF-8, decimals rescaled, ...) makes
/// every data page a plain gather.
///
/// An entry that does not convert is not an error by itself — a row only fails when it
/// refers to that entry — so failures are remembered per entry.
struct ConvertedDictionary {
    enum Values {
        case int64([Int64])
        case int128([Int128])
        case double([Double])
        case bool([Bool])
        /// Entry `i` is `bytes[ends[i] ..< ends[i + 1]]` (`ends[0] == 0`).
        case strings(bytes: [UInt8], ends: [Int32])
    }

    let values: Values
    let count: Int
    /// Entries that do not fit the target type, with the reason.
    let failures: [Int: ParquetError]

    init(_ body: UnsafeRawBufferPointer, header: DictionaryPageHeader, column: ParquetColumn,
         plan: ConversionPlan, scratch: DecodeScratch) throws {
        let encoding = header.encoding
        guard encoding == ParquetEncoding.plain.rawValue || encoding == ParquetEncoding.plainDictionary.rawValue else {
            throw ParquetError.unsupported("dictionary pages encoded as \(ParquetEncoding.name(encoding))")
        }
        let n = Int(header.numValues)
        guard n >= 0 else { throw ParquetError.corrupt("negative dictionary size") }
        guard let physical = column.physicalType else { throw ParquetError.unsupported("column type") }
        let src = try ValueDecoding.plain(body, physical: physical, typeLength: column.typeLength, count: n, scratch: scratch)
        count = n
        var failures: [Int: ParquetError] = [:]
        switch plan.targetPhysical {
        case .int64:
            values = .int64(Self.convertFixed(src, zero: Int64(0), &failures) { try plan.convert($0, into: $1) })
        case .int128:
            values = .int128(Self.convertFixed(src, zero: Int128(0), &failures) { try plan.convert($0, into: $1) })
        case .double:
            values = .double(Self.convertFixed(src, zero: 0.0, &failures) { try plan.convert($0, into: $1) })
        case .bool:
            values = .bool(Self.convertFixed(src, zero: false, &failures) { try plan.convert($0, into: $1) })
        case .string:
            let bound = plan.stringBytes(src)
            var bytes = [UInt8](filled: 0, count: max(bound, 1))
            var ends = [Int32](filled: 0, count: n + 1)
            var used = 0
            bytes.withUnsafeMutableBufferPointer { b in
                ends.withUnsafeMutableBufferPointer { e in
                    guard let bp = b.baseAddress, let ep = e.baseAddress else { return }
                    do {
                        used = try plan.convertStrings(src, bytes: bp, byteCount: 0, ends: ep + 1)
                    } catch {
                        // Convert entry by entry; a failing entry becomes empty.
                        used = 0
                        for i in 0..<n {
                            do {
                                used = try plan.convertStrings(src.slice(i, 1), bytes: bp, byteCount: used, ends: ep + 1 + i)
                            } catch {
                                failures[i] = Self.parquetError(error)
                                ep[1 + i] = Int32(truncatingIfNeeded: used)
                            }
                        }
                    }
                }
            }
            bytes.removeSubrange(used...)
            values = .strings(bytes: bytes, ends: ends)
        }
        self.failures = failures
    }

    /// Check that every index is inside the dictionary and refers to an entry that converted.
    func check(_ indices: UnsafePointer<UInt32>, _ n: Int) throws {
        let limit = UInt32(truncatingIfNeeded: count)
        for k in 0..<n where indices[k] >= limit {
            throw ParquetError.corrupt("dictionary index \(indices[k]) outside a dictionary of \(count) entries")
        }
        if !failures.isEmpty {
            for k in 0..<n {
                if let e = failures[Int(indices[k])] { throw e }
            }
        }
    }

    /// The first of `n` indices that refers to an entry that did not convert, and why.
    func firstFailure(_ indices: UnsafePointer<UInt32>, _ n: Int) -> (index: Int, error: ParquetError)? {
        guard !failures.isEmpty else { return nil }
        for k in 0..<n {
            if let e = failures[Int(indices[k])] { return (k, e) }
        }
        return nil
    }

    private static func convertFixed<T>(_ src: PhysicalValues, zero: T, _ failures: inout [Int: ParquetError],
                                        _ convert: (PhysicalValues, UnsafeMutablePointer<T>) throws -> Void) -> [T] {
        var out = [T](filled: zero, count: src.count)
        var found: [Int: ParquetError] = [:]
        out.withUnsafeMutableBufferPointer { buf in
            guard let base = buf.baseAddress else { return }
            do {
                try convert(src, base)
            } catch {
                for i in 0..<src.count {
                    do {
                        try convert(src.slice(i, 1), base + i)
                    } catch {
                        found[i] = parquetError(error)
                        base[i] = zero
                    }
                }
            }
        }
        failures.merge(found) { a, _ in a }
        return out
    }

    private static func parquetError(_ error: Error) -> ParquetError {
        (error as? ParquetError) ?? ParquetError("\(error)")
    }
}
