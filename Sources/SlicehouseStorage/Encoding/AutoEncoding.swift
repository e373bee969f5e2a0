import SlicehouseTypes

extension BlockEncoder {
    /// Rows of a sample that ENCODE AUTO and ANALYZE COMPRESSION look at (a prefix,
    /// so runs and deltas are seen as the data is stored).
    public static let autoSampleRows = 65_536

    /// Order in which equal sizes are broken: cheapest decoding first.
    static let preferenceOrder: [ColumnEncoding] = [
        .runlength, .az64, .bytedict, .delta, .delta32k, .mostly8, .mostly16, .mostly32,
        .raw, .text255, .text32k, .lzo, .zstd,
    ]

    /// Encoded size of the sample with each encoding Redshift allows for `type`.
    static func candidateSizes(_ sample: Vector, type: DataType) -> (rows: Int, sizes: [ColumnEncoding: Int]) {
        let (rows, encodings) = candidates(sample, type: type)
        var sizes: [ColumnEncoding: Int] = [:]
        for e in encodings {
            if let s = encodedSize(sample, start: 0, count: rows, encoding: e) { sizes[e] = s }
        }
        return (rows, sizes)
    }

    /// The rows of `sample` that are encoded and the encodings tried (those Redshift
    /// allows for `type`); none when the sample's physical type does not match.
    static func candidates(_ sample: Vector, type: DataType) -> (rows: Int, encodings: [ColumnEncoding]) {
        let rows = sample.isConstant ? min(1, autoSampleRows) : min(sample.count, autoSampleRows)
        let kind = sample.data.physicalKind
        guard kind == type.physical else { return (0, []) }
        return (rows, preferenceOrder.filter { isAllowed($0, for: type) && canEncode($0, physical: kind) })
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
    /// - CHAR/VARCHAR: the smallest is at least 5% smaller than LZO (our LZO is a
    ///   fast zstd level; BYTEDICT and ZSTD are what Redshift's ANALYZE COMPRESSION
    ///   usually recommends for strings);
    /// - every other type: the smallest is at most half the size of AZ64 / RAW (those
    ///   decode fastest, so only a large gain justifies leaving them);
    /// and in both cases at least 1/16 byte per row is saved (so a constant INTEGER
    /// column keeps AZ64, already a few bytes per block, while a constant BOOLEAN goes
    /// to RUNLENGTH and a 7-value VARCHAR to BYTEDICT). Equal sizes prefer the cheaper
    /// decoding (`preferenceOrder`).
    public static func chooseAuto(sample: Vector, type: DataType, isSortKeyColumn: Bool) -> ColumnEncoding {
        let (rows, sizes) = candidateSizes(sample, type: type)
        return chooseAuto(rows: rows, sizes: sizes, type: type, isSortKeyColumn: isSortKeyColumn)
    }

    /// `chooseAuto` from the sample's encoded sizes (`candidateSizes`), which a caller
    /// may compute in parallel.
    static func chooseAuto(rows: Int, sizes: [ColumnEncoding: Int], type: DataType, isSortKeyColumn: Bool) -> ColumnEncoding {
        let def = defaultEncoding(for: type, isSortKeyColumn: isSortKeyColumn)
        guard rows > 0, let defSize = sizes[def], let best = smallest(sizes), let bestSize = sizes[best] else {
            return def
        }
        let saved = defSize - bestSize
        guard saved * 16 >= rows else { return def }
        let large = type.isString ? bestSize * 20 <= defSize * 19 : bestSize * 2 <= defSize
        return large ? best : def
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
