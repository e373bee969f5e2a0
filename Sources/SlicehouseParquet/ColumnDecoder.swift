// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// Decodes one column chunk (one flat column of one row group) straight into one
/// Slicehouse vector of the requested type.
///
/// Per data page:
/// 1. **Definition levels** say which rows hold a value: for a flat nullable column a
///    level of 1 is a value and 0 is NULL (v1 pages: 4-byte length + RLE hybrid, or the
///    deprecated MSB-first BIT_PACKED; v2 pages: RLE hybrid in their own section). They
///    become the vector's validity bitmap. Required columns have no levels.
/// 2. **Values** exist only for non-NULL rows. They are decoded (see `ValueDecoding`) or,
///    for dictionary-encoded pages, looked up by index in the chunk's dictionary, which
///    was converted to the target type once when its page was read.
/// 3. The values are converted into the output buffer densely at the page's first row,
///    then spread backwards over the NULL rows (each value only moves right, so this
///    works in place).
final class ColumnDecoder {
    let column: ParquetColumn
    let plan: ConversionPlan
    let expectedRows: Int
    private let scratch: DecodeScratch

    private var rows = 0
    private var int64s: [Int64] = []
    private var int128s: [Int128] = []
    private var doubles: [Double] = []
    private var bools: [Bool] = []
    private var stringBytes: [UInt8] = []
    /// Bytes of `stringBytes` in use (the array itself is grown ahead).
    private var stringUsed = 0
    private var stringEnds: [Int32] = [0]
    private var validityWords: [UInt64] = []
    private var nullCount = 0
    private var dictionary: ConvertedDictionary?

    init(column: ParquetColumn, plan: ConversionPlan, expectedRows: Int, scratch: DecodeScratch) {
        self.column = column
        self.plan = plan
        self.expectedRows = expectedRows
        self.scratch = scratch
        // Reserve for the expected rows, but do not trust a forged count with memory:
        // beyond this the buffers grow page by page.
        let reserve = min(expectedRows, 1 << 20)
        switch plan.targetPhysical {
        case .int64: int64s.reserveCapacity(reserve)
        case .int128: int128s.reserveCapacity(reserve)
        case .double: doubles.reserveCapacity(reserve)
        case .bool: bools.reserveCapacity(reserve)
        case .string: stringEnds.reserveCapacity(reserve + 1)
        }
    }

    /// Decode every page of `chunk` (compressed with `codec`) into a vector.
    func decode(chunk: UnsafeRawBufferPointer, codec: Int32) throws -> Vector {
        var pages = try PageReader(chunk: chunk, codec: codec, scratch: scratch)
        while rows < expectedRows, let page = try pages.next() {
            switch page.kind {
            case .dictionary(let header):
                guard dictionary == nil else { throw ParquetError.corrupt("second dictionary page in a column chunk") }
                dictionary = try ConvertedDictionary(page.body, header: header, column: column, plan: plan, scratch: scratch)
            case .dataV1(let header):
                var cursor = ByteCursor(page.body)
                let n = Int(header.numValues)
                let levels = try definitionLevelsV1(&cursor, count: n, encoding: header.definitionLevelEncoding)
                try decodeValues(cursor.rest, rows: n, levels: levels, encoding: header.encoding)
            case .dataV2(let header):
                let n = Int(header.numValues)
                var levels: (UnsafePointer<UInt32>, Int)? = nil
                if column.maxDefinitionLevel > 0 {
                    levels = try definitionLevels(page.definitionLevels, count: n)
                }
                try decodeValues(page.body, rows: n, levels: levels, encoding: header.encoding)
            }
        }
        guard rows == expectedRows else {
            throw ParquetError.corrupt("column chunk holds \(rows) values, its row group has \(expectedRows) rows")
        }
        return finish()
    }

    // MARK: - Levels

    /// Definition levels at the start of a v1 page body; nil for required columns.
    /// Returns the levels and the number of non-NULL rows.
    private func definitionLevelsV1(_ cursor: inout ByteCursor, count n: Int, encoding: Int32) throws -> (UnsafePointer<UInt32>, Int)? {
        guard column.maxDefinitionLevel > 0 else { return nil }
        guard n >= 0 else { throw ParquetError.corrupt("negative value count in a page header") }
        switch ParquetEncoding(rawValue: encoding) {
        case .rle:
            let length = Int(try cursor.readUInt32LE())
            return try definitionLevels(try cursor.take(length), count: n)
        case .bitPacked:
            // Deprecated: values packed from the most significant bit of each byte.
            let width = BitPacking.bitWidth(of: UInt64(column.maxDefinitionLevel))
            let bytes = try cursor.take((n * width + 7) / 8)
            let levels = scratch.levels.reserve(max(n, 1), of: UInt32.self)
            var nonNull = 0
            for i in 0..<n {
                var v: UInt32 = 0
                for b in 0..<width {
                    let bit = i * width + b
                    v = v << 1 | UInt32((bytes[bit >> 3] >> UInt8(7 - bit & 7)) & 1)
                }
                guard v <= UInt32(column.maxDefinitionLevel) else { throw ParquetError.corrupt("definition level \(v) above the maximum") }
                levels[i] = v
                if v == UInt32(column.maxDefinitionLevel) { nonNull += 1 }
            }
            return (UnsafePointer(levels), nonNull)
        default:
            throw ParquetError.unsupported("definition levels encoded as \(ParquetEncoding.name(encoding))")
        }
    }

    /// RLE-hybrid definition levels (no length prefix).
    private func definitionLevels(_ data: UnsafeRawBufferPointer, count n: Int) throws -> (UnsafePointer<UInt32>, Int) {
        guard n >= 0 else { throw ParquetError.corrupt("negative value count in a page header") }
        let maxLevel = UInt32(column.maxDefinitionLevel)
        let levels = scratch.levels.reserve(max(n, 1), of: UInt32.self)
        var rle = try RLEHybridDecoder(data, bitWidth: BitPacking.bitWidth(of: UInt64(maxLevel)))
        try rle.decode(into: levels, count: n)
        var nonNull = 0
        for i in 0..<n {
            let v = levels[i]
            if v == maxLevel { nonNull += 1 } else if v > maxLevel {
                throw ParquetError.corrupt("definition level \(v) above the maximum \(maxLevel)")
            }
        }
        return (UnsafePointer(levels), nonNull)
    }

    // MARK: - Values

    /// Decode one page's values for `n` rows (`levels` nil: no NULLs).
    private func decodeValues(_ data: UnsafeRawBufferPointer, rows n: Int, levels: (UnsafePointer<UInt32>, Int)?,
                              encoding: Int32) throws {
        guard n >= 0, n <= expectedRows - rows else {
            throw ParquetError.corrupt("pages hold more values than the row group's \(expectedRows) rows")
        }
        let nonNull = levels?.1 ?? n
        if let (lv, _) = levels { setValidity(lv, n) }

        if nonNull == 0 {
            // Only NULLs: no values to decode (writers may even omit the value section).
            try appendNulls(n)
            rows += n
            return
        }
        let isDictionary = encoding == ParquetEncoding.plainDictionary.rawValue || encoding == ParquetEncoding.rleDictionary.rawValue
        if isDictionary {
            guard let dictionary else { throw ParquetError.corrupt("dictionary-encoded page without a dictionary page") }
            let indices = scratch.indices.reserve(max(nonNull, 1), of: UInt32.self)
            if nonNull > 0 {
                var c = ByteCursor(data)
                let width = Int(try c.readByte())
                var rle = try RLEHybridDecoder(c.rest, bitWidth: width)
                try rle.decode(into: indices, count: nonNull)
            }
            try appendGathered(dictionary, UnsafePointer(indices), nonNull, rows: n, levels: levels?.0)
        } else {
            guard let physical = column.physicalType else { throw ParquetError.unsupported("column type") }
            let values = try ValueDecoding.decode(data, encoding: encoding, physical: physical, typeLength: column.typeLength,
                                                  count: nonNull, scratch: scratch)
            try appendConverted(values, rows: n, levels: levels?.0)
        }
        rows += n
    }

    /// Set validity bits for the page's rows from their definition levels.
    private func setValidity(_ levels: UnsafePointer<UInt32>, _ n: Int) {
        let needed = (rows + n + 63) >> 6
        if validityWords.count < needed {
            validityWords.append(contentsOf: repeatElement(0, count: needed - validityWords.count))
        }
        let maxLevel = UInt32(column.maxDefinitionLevel)
        let start = rows
        var nulls = 0
        validityWords.withUnsafeMutableBufferPointer { w in
            for i in 0..<n {
                if levels[i] == maxLevel {
                    let r = start + i
                    w[r >> 6] |= 1 << UInt64(r & 63)
                } else {
                    nulls += 1
                }
            }
        }
        nullCount += nulls
    }

    /// Append `n` NULL rows (their validity bits are already clear).
    private func appendNulls(_ n: Int) throws {
        switch plan.targetPhysical {
        case .int64: int64s.append(contentsOf: repeatElement(0, count: n))
        case .int128: int128s.append(contentsOf: repeatElement(0, count: n))
        case .double: doubles.append(contentsOf: repeatElement(0, count: n))
        case .bool: bools.append(contentsOf: repeatElement(false, count: n))
        case .string: stringEnds.append(contentsOf: repeatElement(Int32(truncatingIfNeeded: stringUsed), count: n))
        }
    }

    /// Convert decoded values into the output (dense), then spread over NULL rows.
    private func appendConverted(_ values: PhysicalValues, rows n: Int, levels: UnsafePointer<UInt32>?) throws {
        do {
            try appendConvertedValues(values, rows: n, levels: levels)
        } catch let e as ParquetError where e.isValueError {
            // Slow path: find the value (and so the row) that failed.
            guard let (k, found) = plan.firstFailure(values) else { throw e }
            var located = found
            located.row = rows + row(ofValue: k, levels: levels, rows: n)
            throw located
        }
    }

    /// Row (within the page) of the `k`th non-NULL value.
    private func row(ofValue k: Int, levels: UnsafePointer<UInt32>?, rows n: Int) -> Int {
        guard let levels else { return k }
        let maxLevel = UInt32(column.maxDefinitionLevel)
        var seen = 0
        for r in 0..<n where levels[r] == maxLevel {
            if seen == k { return r }
            seen += 1
        }
        return k
    }

    private func appendConvertedValues(_ values: PhysicalValues, rows n: Int, levels: UnsafePointer<UInt32>?) throws {
        let nonNull = values.count
        switch plan.targetPhysical {
        case .int64:
            try appendFixed(&int64s, n, nonNull, levels, zero: 0) { try plan.convert(values, into: $0) }
        case .int128:
            try appendFixed(&int128s, n, nonNull, levels, zero: 0) { try plan.convert(values, into: $0) }
        case .double:
            try appendFixed(&doubles, n, nonNull, levels, zero: 0) { try plan.convert(values, into: $0) }
        case .bool:
            try appendFixed(&bools, n, nonNull, levels, zero: false) { try plan.convert(values, into: $0) }
        case .string:
            let bound = plan.stringBytes(values)
            try appendStrings(n, nonNull, levels, bound: bound) { bytes, used, ends in
                try plan.convertStrings(values, bytes: bytes, byteCount: used, ends: ends)
            }
        }
    }

    /// Look dictionary entries up by index into the output (dense), then spread.
    private func appendGathered(_ d: ConvertedDictionary, _ indices: UnsafePointer<UInt32>, _ nonNull: Int,
                                rows n: Int, levels: UnsafePointer<UInt32>?) throws {
        do {
            try d.check(indices, nonNull)
        } catch let e as ParquetError where e.isValueError {
            guard let (k, found) = d.firstFailure(indices, nonNull) else { throw e }
            var located = found
            located.row = rows + row(ofValue: k, levels: levels, rows: n)
            throw located
        }
        switch (plan.targetPhysical, d.values) {
        case (.int64, .int64(let dict)):
            try appendFixed(&int64s, n, nonNull, levels, zero: 0) { dst in gather(dict, indices, nonNull, dst) }
        case (.int128, .int128(let dict)):
            try appendFixed(&int128s, n, nonNull, levels, zero: 0) { dst in gather(dict, indices, nonNull, dst) }
        case (.double, .double(let dict)):
            try appendFixed(&doubles, n, nonNull, levels, zero: 0) { dst in gather(dict, indices, nonNull, dst) }
        case (.bool, .bool(let dict)):
            try appendFixed(&bools, n, nonNull, levels, zero: false) { dst in gather(dict, indices, nonNull, dst) }
        case (.string, .strings(let dictBytes, let dictEnds)):
            var bound = 0
            dictEnds.withUnsafeBufferPointer { e in
                for k in 0..<nonNull {
                    let i = Int(indices[k])
                    bound += Int(e[i + 1] - e[i])
                }
            }
            try appendStrings(n, nonNull, levels, bound: bound) { bytes, used, ends in
                var at = used
                dictBytes.withUnsafeBufferPointer { b in
                    dictEnds.withUnsafeBufferPointer { e in
                        for k in 0..<nonNull {
                            let i = Int(indices[k])
                            let s = Int(e[i]), len = Int(e[i + 1]) - s
                            if len > 0, let src = b.baseAddress { (bytes + at).update(from: src + s, count: len) }
                            at += len
                            ends[k] = Int32(truncatingIfNeeded: at)
                        }
                    }
                }
                guard at <= Int(Int32.max) else {
                    throw ParquetError.unsupported("more than 2 GB of string data in one column of one row group")
                }
                return at
            }
        default:
            throw ParquetError.internalMismatch
        }
    }

    /// Grow a fixed-width output by `n` rows, let `fill` write the `nonNull` values at the
    /// start of the new slots, and spread them over the NULL rows.
    private func appendFixed<T>(_ array: inout [T], _ n: Int, _ nonNull: Int, _ levels: UnsafePointer<UInt32>?,
                                zero: T, _ fill: (UnsafeMutablePointer<T>) throws -> Void) throws {
        let start = array.count
        array.append(contentsOf: repeatElement(zero, count: n))
        let maxLevel = UInt32(column.maxDefinitionLevel)
        try array.withUnsafeMutableBufferPointer { buf in
            guard let base = buf.baseAddress else { return }
            let dst = base + start
            try fill(dst)
            guard nonNull < n, let levels else { return }
            var d = nonNull - 1
            var r = n - 1
            while r > d {
                if levels[r] == maxLevel {
                    dst[r] = dst[d]
                    d -= 1
                } else {
                    dst[r] = zero
                }
                r -= 1
            }
        }
    }

    /// Append `n` string rows: `fill` writes the `nonNull` values into the byte buffer
    /// (from the used count, with room for `bound` bytes) and their end offsets, and
    /// returns the new used count; the offsets are then spread over the NULL rows.
    private func appendStrings(_ n: Int, _ nonNull: Int, _ levels: UnsafePointer<UInt32>?, bound: Int,
                               _ fill: (UnsafeMutablePointer<UInt8>, Int, UnsafeMutablePointer<Int32>) throws -> Int) throws {
        let needed = stringUsed + bound
        if needed > stringBytes.count {
            stringBytes.append(contentsOf: repeatElement(0, count: max(needed - stringBytes.count, stringBytes.count)))
        }
        let base = stringEnds.count - 1  // index of the page's first row's start offset
        stringEnds.append(contentsOf: repeatElement(0, count: n))
        let maxLevel = UInt32(column.maxDefinitionLevel)
        var used = stringUsed
        try stringBytes.withUnsafeMutableBufferPointer { bytes in
            try stringEnds.withUnsafeMutableBufferPointer { ends in
                guard let b = bytes.baseAddress, let e = ends.baseAddress else { return }
                used = try fill(b, stringUsed, e + base + 1)
                guard nonNull < n, let levels else { return }
                // ends[base + r + 1] = end of the last value at or before row r.
                var d = nonNull
                var r = n - 1
                while r >= 0 {
                    e[base + r + 1] = e[base + d]
                    if levels[r] == maxLevel { d -= 1 }
                    r -= 1
                }
            }
        }
        stringUsed = used
    }

    private func gather<T>(_ dict: [T], _ indices: UnsafePointer<UInt32>, _ n: Int, _ dst: UnsafeMutablePointer<T>) {
        dict.withUnsafeBufferPointer { d in
            for k in 0..<n { dst[k] = d[Int(indices[k])] }
        }
    }

    // MARK: - Result

    private func finish() -> Vector {
        let data: VectorData
        switch plan.targetPhysical {
        case .int64: data = .int64(int64s)
        case .int128: data = .int128(int128s)
        case .double: data = .double(doubles)
        case .bool: data = .bool(bools)
        case .string:
            var s = StringArray()
            stringBytes.removeSubrange(stringUsed...)
            s.bytes = stringBytes
            s.offsets = stringEnds
            data = .string(s)
        }
        let validity = nullCount > 0 ? Validity(words: validityWords) : nil
        return Vector(type: plan.target, data: data, validity: validity)
    }
}

extension ParquetError {
    /// A dictionary whose physical form does not match the plan (cannot happen for
    /// dictionaries this decoder built; reported rather than trusted).
    static let internalMismatch = ParquetError("dictionary does not match the column type", code: .internalError)
}

// MARK: - Leaves of nested columns

extension ColumnDecoder {
    /// Decode a leaf of a nested column: `expectedRows` is then the chunk's number of
    /// level entries (values, NULLs and empty or NULL ancestors), and every entry's
    /// repetition and definition levels are appended to `repetition` and `definition`.
    /// The vector has one slot per entry (valid where the definition level is the
    /// maximum). A separate path from `decode`, which flat columns keep to themselves.
    func decodeNested(chunk: UnsafeRawBufferPointer, codec: Int32, maxRepetitionLevel: Int,
                      repetition: inout [UInt8], definition: inout [UInt8]) throws -> Vector {
        guard maxRepetitionLevel >= 0, maxRepetitionLevel <= maxNestingDepth,
              column.maxDefinitionLevel >= 0, column.maxDefinitionLevel <= maxNestingDepth else {
            throw ParquetError.corrupt("nesting levels out of range")
        }
        let reserve = min(expectedRows, 1 << 20)
        repetition.reserveCapacity(reserve)
        definition.reserveCapacity(reserve)
        var pages = try PageReader(chunk: chunk, codec: codec, scratch: scratch)
        while rows < expectedRows, let page = try pages.next() {
            switch page.kind {
            case .dictionary(let header):
                guard dictionary == nil else { throw ParquetError.corrupt("second dictionary page in a column chunk") }
                dictionary = try ConvertedDictionary(page.body, header: header, column: column, plan: plan, scratch: scratch)
            case .dataV1(let header):
                let n = Int(header.numValues)
                guard n >= 0, n <= expectedRows - rows else {
                    throw ParquetError.corrupt("pages hold more values than the column chunk's \(expectedRows)")
                }
                var cursor = ByteCursor(page.body)
                if maxRepetitionLevel > 0 {
                    let levels = try repetitionLevelsV1(&cursor, count: n, maxLevel: maxRepetitionLevel,
                                                        encoding: header.repetitionLevelEncoding)
                    repetition.append(contentsOf: UnsafeBufferPointer(start: levels, count: n))
                } else {
                    repetition.append(contentsOf: repeatElement(0, count: n))
                }
                let levels = try definitionLevelsV1(&cursor, count: n, encoding: header.definitionLevelEncoding)
                appendDefinitions(levels?.0, n, to: &definition)
                try decodeValues(cursor.rest, rows: n, levels: levels, encoding: header.encoding)
            case .dataV2(let header):
                let n = Int(header.numValues)
                guard n >= 0, n <= expectedRows - rows else {
                    throw ParquetError.corrupt("pages hold more values than the column chunk's \(expectedRows)")
                }
                if maxRepetitionLevel > 0 {
                    let levels = try rleLevels(page.repetitionLevels, count: n, maxLevel: maxRepetitionLevel)
                    repetition.append(contentsOf: UnsafeBufferPointer(start: levels, count: n))
                } else {
                    repetition.append(contentsOf: repeatElement(0, count: n))
                }
                var levels: (UnsafePointer<UInt32>, Int)? = nil
                if column.maxDefinitionLevel > 0 {
                    levels = try definitionLevels(page.definitionLevels, count: n)
                }
                appendDefinitions(levels?.0, n, to: &definition)
                try decodeValues(page.body, rows: n, levels: levels, encoding: header.encoding)
            }
        }
        guard rows == expectedRows, repetition.count == rows, definition.count == rows else {
            throw ParquetError.corrupt("column chunk holds \(rows) values where its metadata says \(expectedRows)")
        }
        return finish()
    }

    private func appendDefinitions(_ levels: UnsafePointer<UInt32>?, _ n: Int, to out: inout [UInt8]) {
        guard let levels else {
            out.append(contentsOf: repeatElement(0, count: n))
            return
        }
        // Checked against the maximum (at most `maxNestingDepth`) when decoded.
        for i in 0..<n { out.append(UInt8(truncatingIfNeeded: levels[i])) }
    }

    /// Repetition levels at the start of a v1 page body (RLE with a length, or the
    /// deprecated BIT_PACKED), as UInt8s in scratch space.
    private func repetitionLevelsV1(_ cursor: inout ByteCursor, count n: Int, maxLevel: Int,
                                    encoding: Int32) throws -> UnsafePointer<UInt8> {
        switch ParquetEncoding(rawValue: encoding) {
        case .rle:
            let length = Int(try cursor.readUInt32LE())
            return try rleLevels(try cursor.take(length), count: n, maxLevel: maxLevel)
        case .bitPacked:
            let width = BitPacking.bitWidth(of: UInt64(maxLevel))
            let bytes = try cursor.take((n * width + 7) / 8)
            let out = scratch.indices.reserve(max(n, 1), of: UInt8.self)
            for i in 0..<n {
                var v = 0
                for b in 0..<width {
                    let bit = i * width + b
                    v = v << 1 | Int((bytes[bit >> 3] >> UInt8(7 - bit & 7)) & 1)
                }
                guard v <= maxLevel else { throw ParquetError.corrupt("repetition level \(v) above the maximum \(maxLevel)") }
                out[i] = UInt8(v)
            }
            return UnsafePointer(out)
        default:
            throw ParquetError.unsupported("repetition levels encoded as \(ParquetEncoding.name(encoding))")
        }
    }

    /// RLE-hybrid repetition levels (no length prefix), checked and narrowed to UInt8s.
    private func rleLevels(_ data: UnsafeRawBufferPointer, count n: Int, maxLevel: Int) throws -> UnsafePointer<UInt8> {
        // 4 bytes per level for the decoded values, then 1 for the narrowed ones.
        let raw = scratch.indices.reserve(max(n, 1) * 5)
        let wide = raw.bindMemory(to: UInt32.self, capacity: max(n, 1))
        var rle = try RLEHybridDecoder(data, bitWidth: BitPacking.bitWidth(of: UInt64(maxLevel)))
        try rle.decode(into: wide, count: n)
        let narrow = (raw + 4 * max(n, 1)).bindMemory(to: UInt8.self, capacity: max(n, 1))
        for i in 0..<n {
            let v = wide[i]
            guard v <= UInt32(maxLevel) else { throw ParquetError.corrupt("repetition level \(v) above the maximum \(maxLevel)") }
            narrow[i] = UInt8(v)
        }
        return UnsafePointer(narrow)
    }
}
