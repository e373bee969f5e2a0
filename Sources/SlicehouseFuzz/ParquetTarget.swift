// SPDX-License-Identifier: Apache-2.0
import SlicehouseParquet
import SlicehouseTypes

/// `parquet`: the input as a Parquet file, opened from memory (`ParquetFile(bytes:)`:
/// magic, footer, Thrift metadata, schema) and every column read in full
/// (`readAll`: pages, compression, levels, encodings, statistics-free value
/// conversion; nested columns assembled into JSON) as its natural type, and as a few other types the reader agrees to
/// convert it to, with and without TRUNCATECOLUMNS/ACCEPTINVCHARS.
enum ParquetFuzzTarget {
    static let maxLength = 256 << 10

    static let target = FuzzTarget(
        name: "parquet", summary: "Parquet reader: footer, schema, pages, encodings, conversions",
        maxLength: maxLength,
        dictionary: ["PAR1"],
        binaryDictionary: [
            // Thrift compact field headers and types, page types, codecs, encodings.
            [0x15, 0x00], [0x15, 0x02], [0x15, 0x04], [0x15, 0x06], [0x15, 0x08], [0x15, 0x0C], [0x16, 0x00],
            [0x18, 0x00], [0x19, 0x1C], [0x19, 0x2C], [0x19, 0x3C], [0x1C], [0x00], [0x26], [0x36],
        ],
        seeds: { seeds() },
        body: { run($0) })

    /// Types tried besides a column's natural type (each only when the reader says it
    /// can convert the column to it).
    static let otherTypes: [DataType] = [
        .varchar(5), .char(3), .bigint, .smallint, .double, .real, .decimal(precision: 38, scale: 4),
        .decimal(precision: 4, scale: 2), .timestamp, .date, .boolean,
        // Record assembly into JSON (nested columns; flat ones as JSON scalars).
        .superType, .varchar(65535),
    ]

    static func run(_ bytes: UnsafeRawBufferPointer) -> String {
        guard bytes.count <= maxLength else { return "skipped: too long" }
        let file: ParquetFile
        do {
            file = try ParquetFile(bytes: Array(bytes), name: "fuzz.parquet")
        } catch {
            return "open " + Outcome.of(error)
        }
        var outcomes: [String] = ["\(file.columns.count) columns \(min(file.rowGroupCount, 4)) groups"]
        let plain = ParquetReadOptions()
        let lenient = ParquetReadOptions(truncateColumns: true, invalidCharacterReplacement: UInt8(ascii: "?"))
        for (i, column) in file.columns.enumerated() {
            var attempts: [(DataType, ParquetReadOptions)] = []
            if let natural = column.naturalType { attempts.append((natural, plain)) }
            for type in otherTypes where column.conversionProblem(to: type) == nil {
                attempts.append((type, type.isString ? lenient : plain))
            }
            if attempts.isEmpty { outcomes.append("no type") }
            for (type, options) in attempts {
                do {
                    let vectors = try file.readAll(columns: [i], as: [type], options: options)
                    outcomes.append(Outcome.ok(rows: vectors.first?.count ?? 0))
                } catch {
                    outcomes.append(Outcome.of(error))
                }
            }
        }
        return Outcome.combine(outcomes)
    }

    /// Files written by `ParquetWriter` with every column type, NULLs, repeated
    /// strings (dictionary pages) and each compression, one of them in several row groups.
    static func seeds() -> [[UInt8]] {
        let columns = FuzzSampleData.columns
        let chunk = FuzzSampleData.chunk()
        var out: [[UInt8]] = []
        let settings: [(ParquetCompression, Int)] = [(.snappy, 32 << 20), (.none, 200), (.zstd, 32 << 20), (.gzip, 32 << 20)]
        for (k, (compression, groupBytes)) in settings.enumerated() {
            let path = FuzzScratch.path("seed-\(k).parquet")
            do {
                let writer = try ParquetWriter(path: path, columns: columns, compression: compression, rowGroupBytes: groupBytes)
                try writer.append(chunk)
                try writer.close()
                if let data = FuzzScratch.read(path) { out.append(data) }
            } catch {
                fatalError("parquet fuzz target: cannot write a seed file: \(error)")
            }
        }
        return out
    }
}
