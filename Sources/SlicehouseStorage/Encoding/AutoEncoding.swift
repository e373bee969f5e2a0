// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

extension BlockEncoder {
    /// Rows of a sample that ENCODE AUTO and ANALYZE COMPRESSION look at (a prefix,
    /// so runs and deltas are seen as the data is stored).
    public static let autoSampleRows = 65_536
    /// For strings, the sample also stops at about one block of value bytes (at least
    /// `autoSampleMinRows` rows): the string candidates (LZO, ZSTD, TEXT255/32K) cost
    /// time per byte, and a block is the unit every one of them encodes.
    public static let autoSampleStringBytes = 1 << 20
    static let autoSampleMinRows = 4096

    /// Order in which equal sizes are broken: cheapest decoding first.
    static let preferenceOrder: [ColumnEncoding] = [
        .runlength, .az64, .bytedict, .delta, .delta32k, .mostly8, .mostly16, .mostly32,
        .raw, .text255, .text32k, .lzo, .zstd,
    ]

    /// Encoded size of the sample with each encoding Redshift allows for `type`.
    static func candidateSizes(_ sample: Vector, type: DataType) -> (rows: Int, sizes: [ColumnEncoding: Int]) {
        let (rows, encodings) = candidates(sample, type: type)
        var sizes: [ColumnEncoding: Int] = [:]
        for group in trialGroups(encodings) {
            sizes.merge(trialSizes(sample, count: rows, encodings: group)) { a, _ in a }
        }
        return (rows, sizes)
    }

    /// The candidates as trials that can run in parallel: TEXT255 and TEXT32K share
    /// one trial (both split the values into the same words), every other encoding
    /// is a trial of its own.
    static func trialGroups(_ encodings: [ColumnEncoding]) -> [[ColumnEncoding]] {
        let text: [ColumnEncoding] = [.text255, .text32k]
        guard text.allSatisfy(encodings.contains) else { return encodings.map { [$0] } }
        return [text] + encodings.filter { !text.contains($0) }.map { [$0] }
    }

    /// Encoded sizes of the first `count` rows of `sample` with each of `encodings`
    /// (a group from `trialGroups`); encodings that do not apply are left out.
    static func trialSizes(_ sample: Vector, count: Int, encodings: [ColumnEncoding]) -> [ColumnEncoding: Int] {
        if encodings == [.text255, .text32k], let both = encodedTextSizes(sample, count: count) {
            return [.text255: both.small, .text32k: both.large]
        }
        var sizes: [ColumnEncoding: Int] = [:]
        for e in encodings {
            if let s = encodedSize(sample, start: 0, count: count, encoding: e) { sizes[e] = s }
        }
        return sizes
    }

    /// What `encodedSize` gives for TEXT255 and for TEXT32K, from one split into
    /// words and without writing either block; nil when the sample is not a plain
    /// string vector of at least `count` rows.
    static func encodedTextSizes(_ v: Vector, count: Int) -> (small: Int, large: Int)? {
        guard !v.isConstant, case .string = v.data, count >= 0, count <= v.count, count <= maxRowsPerBlock else { return nil }
        var nulls = 0
        if let val = v.validity, count > 0 { nulls = count - countValid(val, 0, count) }
        var size = headerSize
        if count == 0 || nulls == count { return (size, size) }
        if nulls > 0 { size += (count + 7) >> 3 }
        func payloads(_ input: Input) -> (Int, Int)? {
            guard case .string(let s) = input else { return nil }
            let words = TextCodec.Words(s)
            return (words.payloadSize(large: false, totalBytes: s.totalBytes),
                    words.payloadSize(large: true, totalBytes: s.totalBytes))
        }
        let payload: (Int, Int)?
        if nulls > 0, let val = v.validity {
            payload = withDense(v.denseValues(validity: val, start: 0, count: count), payloads)
        } else {
            payload = withSlice(v, 0, count, payloads)
        }
        guard let payload else { return nil }
        return (size + payload.0, size + payload.1)
    }

    /// The rows of `sample` that are encoded and the encodings tried (those Redshift
    /// allows for `type`); none when the sample's physical type does not match.
    static func candidates(_ sample: Vector, type: DataType) -> (rows: Int, encodings: [ColumnEncoding]) {
        var rows = sample.isConstant ? min(1, autoSampleRows) : min(sample.count, autoSampleRows)
        let kind = sample.data.physicalKind
        guard kind == type.physical else { return (0, []) }
        if case .string(let a) = sample.data, !sample.isConstant {
            rows = stringSampleRows(a, upTo: rows)
        }
        return (rows, preferenceOrder.filter { isAllowed($0, for: type) && canEncode($0, physical: kind) })
    }

    /// The longest prefix of `a`'s first `rows` values with at most
    /// `autoSampleStringBytes` value bytes, but never fewer than `autoSampleMinRows` rows.
    static func stringSampleRows(_ a: StringArray, upTo rows: Int) -> Int {
        let floor = min(rows, autoSampleMinRows)
        guard rows > floor, Int(a.offsets[rows]) - Int(a.offsets[0]) > autoSampleStringBytes else { return rows }
        // Offsets only grow: binary search for the last row ending within the budget.
        let limit = Int(a.offsets[0]) + autoSampleStringBytes
        var lo = floor, hi = rows  // answer in lo...hi
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if Int(a.offsets[mid]) <= limit { lo = mid } else { hi = mid - 1 }
        }
        return lo
    }

    static func smallest(_ sizes: [ColumnEncoding: Int], preferring first: ColumnEncoding? = nil) -> ColumnEncoding? {
        var best: ColumnEncoding? = nil
        var bestSize = Int.max
        let order = (first.map { [$0] } ?? []) + preferenceOrder
        for e in order {
            if let s = sizes[e], s < bestSize { best = e; bestSize = s }
        }
        return best
    }

    /// ENCODE AUTO: the encoding for a column, from a sample of its data.
    ///
    /// Rule: start from Redshift's default (`defaultEncoding`: RAW for sort keys,
    /// BOOLEAN, REAL and DOUBLE PRECISION; AZ64 for integers, decimals, dates and
    /// timestamps; LZO for CHAR/VARCHAR). Sort-key columns start from RAW like in
    /// Redshift but, unlike Redshift's static default, move to a much smaller encoding
    /// by the same rule (a sorted DATE column is hundreds of times smaller in AZ64, and
    /// zone maps work the same on any encoding). Then encode the sample (up to `autoSampleRows` rows) with every encoding
    /// Redshift allows for the type and switch to the smallest only when the gain is
    /// large:
    /// - CHAR/VARCHAR: at least 5% smaller than LZO (our LZO is a fast zstd level;
    ///   BYTEDICT and ZSTD are what Redshift's ANALYZE COMPRESSION usually recommends
    ///   for strings), and ZSTD at least 10% smaller: it is the slower zstd level (on
    ///   TPC-H's l_comment in 1 MB blocks, 135 MB/s against 217 MB/s on the 2-core
    ///   machine), which a few percent of size does not repay at load;
    /// - every other type: the smallest is at most half the size of AZ64 / RAW (those
    ///   decode fastest, so only a large gain justifies leaving them);
    /// and in both cases at least 1/16 byte per row is saved (so a constant INTEGER
    /// column keeps AZ64, already a few bytes per block, while a constant BOOLEAN goes
    /// to RUNLENGTH and a 7-value VARCHAR to BYTEDICT). Equal sizes prefer the cheaper
    /// decoding (`preferenceOrder`). The smallest encoding that meets its rule wins.
    public static func chooseAuto(sample: Vector, type: DataType, isSortKeyColumn: Bool) -> ColumnEncoding {
        let (rows, sizes) = candidateSizes(sample, type: type)
        return chooseAuto(rows: rows, sizes: sizes, type: type, isSortKeyColumn: isSortKeyColumn)
    }

    /// `chooseAuto` from the sample's encoded sizes (`candidateSizes`), which a caller
    /// may compute in parallel.
    static func chooseAuto(rows: Int, sizes: [ColumnEncoding: Int], type: DataType, isSortKeyColumn: Bool) -> ColumnEncoding {
        let def = defaultEncoding(for: type, isSortKeyColumn: isSortKeyColumn)
        guard rows > 0, let defSize = sizes[def] else { return def }
        var best = def, bestSize = defSize
        for e in preferenceOrder where e != def {
            guard let size = sizes[e], size < bestSize, (defSize - size) * 16 >= rows else { continue }
            let large: Bool
            if !type.isString {
                large = size * 2 <= defSize
            } else if e == .zstd {
                large = size * 10 <= defSize * 9
            } else {
                large = size * 20 <= defSize * 19
            }
            if large { best = e; bestSize = size }
        }
        return best
    }

    /// ANALYZE COMPRESSION: the encoding that stores the sample smallest (among those
    /// Redshift allows for the type; ties keep `current`, then the cheaper decoding)
    /// and the estimated reduction in percent versus `current`
    /// (100 × (size(current) − size(best)) / size(current), 0 when current is best).
    public static func analyze(sample: Vector, type: DataType, current: ColumnEncoding) -> (best: ColumnEncoding, reductionPct: Double) {
        let (rows, sizes) = candidateSizes(sample, type: type)
        guard rows > 0, let best = smallest(sizes, preferring: current), let bestSize = sizes[best] else {
            return (current, 0)
        }
        let currentSize = sizes[current]
            ?? encodedSize(sample, start: 0, count: rows, encoding: current)
            ?? sizes[.raw] ?? bestSize
        guard currentSize > 0, currentSize > bestSize else { return (best, 0) }
        return (best, 100 * Double(currentSize - bestSize) / Double(currentSize))
    }
}
