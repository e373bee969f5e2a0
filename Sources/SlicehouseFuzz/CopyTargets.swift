// SPDX-License-Identifier: Apache-2.0
import SlicehouseCatalog
import SlicehouseLoad
import SlicehouseRuntime
import SlicehouseTypes

/// `copy-text`, `copy-csv`, `copy-json`, `copy-compressed`: the input as the data
/// file of a COPY into a fixed table of twelve columns of every loadable type,
/// through `CopyLoader.load` (range planning, record scanning, field conversion,
/// MAXERROR bookkeeping). Each input is written once to a scratch file and loaded
/// with several option sets typical of its format (MAXERROR high, so rejected rows are
/// an ordinary outcome), some with tiny ranges so that the file is cut into many
/// pieces parsed by two workers.
///
/// Besides "no crash", the first option set of each format checks one property:
/// cutting the file into ranges must not change what is loaded (the rows, and how
/// many were rejected). A difference stops the process like a crash would, with both
/// results in the message.
enum CopyFuzzTargets {
    /// The fuzz table: one column of each type COPY loads into.
    static let columns: [ColumnDef] = [
        ColumnDef(name: "id", type: .integer),
        ColumnDef(name: "name", type: .varchar(12)),
        ColumnDef(name: "amount", type: .decimal(precision: 12, scale: 3)),
        ColumnDef(name: "day", type: .date),
        ColumnDef(name: "ts", type: .timestamp),
        ColumnDef(name: "flag", type: .boolean),
        ColumnDef(name: "ratio", type: .double),
        ColumnDef(name: "code", type: .char(4)),
        ColumnDef(name: "big", type: .bigint),
        ColumnDef(name: "small", type: .smallint),
        ColumnDef(name: "wide", type: .decimal(precision: 30, scale: 8)),
        ColumnDef(name: "r", type: .real),
    ]

    static let maxLength = 64 << 10
    static let maxError = ("MAXERROR", Optional("100000"))

    /// One way of loading an input: COPY options and how the file is cut.
    struct Variant: Sendable {
        var options: CopyOptions
        var tuning: CopyTuning
        /// Also load with the file cut into tiny ranges and compare (see the type's doc).
        var compareRanges: Bool
        /// Compare only inputs that load without rejections. JSON needs this: after a
        /// syntax error the parser cannot tell where the next record starts and skips
        /// the rest of its range, so how many rows malformed JSON rejects depends on
        /// where the file was cut (a known difference, not checked).
        var compareCleanOnly = false
        /// The COPY column list (nil: every column in table order).
        var columnList: [String]? = nil
    }

    /// Every column, last first: a row is rejected at its first bad field, so in table
    /// order the parsers of the last columns would rarely see anything but valid rows.
    static let reversedColumns: [String] = columns.reversed().map(\.name)

    /// COPY options as the SQL parser hands them over; a mistake here is a harness bug.
    static func options(_ pairs: [(String, String?)]) -> CopyOptions {
        do {
            return try CopyOptions(options: pairs.map { (name: $0.0, value: $0.1) })
        } catch {
            fatalError("copy fuzz targets: bad option set \(pairs): \(error)")
        }
    }

    /// Whole file in one range, one worker.
    static let whole = CopyTuning(workers: 1)
    /// Ranges of a few bytes, two workers.
    static let tiny = CopyTuning(chunkRows: 3, rangeBytes: 5, workers: 2)

    static let fixedWidthSpec = "id:4,name:8,amount:8,day:10,ts:19,flag:1,ratio:6,code:4,big:6,small:3,wide:8,r:4"

    static let textVariants: [Variant] = [
        Variant(options: options([maxError]), tuning: whole, compareRanges: true),
        Variant(options: options([maxError]), tuning: whole, compareRanges: false, columnList: reversedColumns),
        Variant(options: options([("ESCAPE", nil), ("FILLRECORD", nil), ("IGNOREBLANKLINES", nil), ("EMPTYASNULL", nil),
                                  ("TRIMBLANKS", nil), ("TRUNCATECOLUMNS", nil), ("ACCEPTINVCHARS", nil),
                                  ("DATEFORMAT", "auto"), ("TIMEFORMAT", "auto"), maxError]),
                tuning: tiny, compareRanges: false),
        Variant(options: options([("DELIMITER", ","), ("REMOVEQUOTES", nil), ("ACCEPTANYDATE", nil), ("ROUNDEC", nil),
                                  ("BLANKSASNULL", nil), ("NULL", "NULL"), ("DATEFORMAT", "DD/MM/YYYY"),
                                  ("TIMEFORMAT", "epochsecs"), ("IGNOREHEADER", "1"), maxError]),
                tuning: CopyTuning(chunkRows: 2, rangeBytes: 40, workers: 1), compareRanges: false),
        Variant(options: options([("FIXEDWIDTH", fixedWidthSpec), ("TRUNCATECOLUMNS", nil), maxError]),
                tuning: CopyTuning(rangeBytes: 30, workers: 2), compareRanges: false),
        Variant(options: options([("DELIMITER", "\t"), ("ESCAPE", nil), ("REMOVEQUOTES", nil), ("NULL", ""),
                                  ("DATEFORMAT", "YYYYMMDD"), ("TIMEFORMAT", "epochmillisecs"), ("ACCEPTINVCHARS", "^"),
                                  maxError]),
                tuning: CopyTuning(chunkRows: 1, rangeBytes: 9, workers: 2), compareRanges: false),
    ]

    static let csvVariants: [Variant] = [
        Variant(options: options([("CSV", nil), maxError]), tuning: whole, compareRanges: true),
        Variant(options: options([("CSV", nil), maxError]), tuning: whole, compareRanges: false, columnList: reversedColumns),
        Variant(options: options([("CSV", nil), ("IGNOREHEADER", "1"), ("FILLRECORD", nil), ("EMPTYASNULL", nil),
                                  ("TRUNCATECOLUMNS", nil), ("ACCEPTINVCHARS", "?"), ("NULL", "NULL"),
                                  ("DATEFORMAT", "auto"), ("TIMEFORMAT", "auto"), maxError]),
                tuning: tiny, compareRanges: false),
        Variant(options: options([("CSV", nil), ("QUOTE", "'"), ("DELIMITER", ";"), ("IGNOREBLANKLINES", nil),
                                  ("BLANKSASNULL", nil), ("ROUNDEC", nil), ("TIMEFORMAT", "YYYY-MM-DD HH:MI:SS"), maxError]),
                tuning: CopyTuning(chunkRows: 2, rangeBytes: 24, workers: 2), compareRanges: false),
    ]

    /// The JSONPaths file of the third JSON option set (written once per process).
    static let jsonPathsFile: String = {
        let path = FuzzScratch.path("fuzz.jsonpaths")
        let paths = """
            {"jsonpaths": ["$.id", "$['name']", "$.amount", "$.day", "$.ts", "$.flag", "$.nested.ratio",
             "$.code[0]", "$[\\"big\\"]", "$.small", "$.wide", "$.r"]}
            """
        do { try FuzzScratch.write(Array(paths.utf8), to: path) } catch {
            fatalError("copy-json fuzz target: cannot write the JSONPaths file: \(error)")
        }
        return path
    }()

    static let jsonVariants: [Variant] = [
        Variant(options: options([("JSON", "auto"), maxError]), tuning: whole, compareRanges: true, compareCleanOnly: true),
        Variant(options: options([("JSON", "auto"), maxError]), tuning: whole, compareRanges: false,
                columnList: reversedColumns),
        Variant(options: options([("JSON", "auto ignorecase"), ("ACCEPTANYDATE", nil), ("TRUNCATECOLUMNS", nil),
                                  ("DATEFORMAT", "auto"), ("TIMEFORMAT", "auto"), ("ROUNDEC", nil), maxError]),
                tuning: tiny, compareRanges: false),
        Variant(options: options([("JSON", jsonPathsFile), ("ACCEPTINVCHARS", nil), maxError]),
                tuning: CopyTuning(chunkRows: 2, rangeBytes: 32, workers: 2), compareRanges: false),
    ]

    static let text = FuzzTarget(
        name: "copy-text", summary: "COPY delimited text (pipe, ESCAPE, REMOVEQUOTES, FIXEDWIDTH)",
        maxLength: maxLength, dictionary: ["|", "\\N", "\\", "\\|", "\\\n", "\n", "\r\n", "\"", ",", " ", "\t",
                                           "2024-02-29", "2024-02-29 12:34:56.789012", "1999-12-31T23:59:59",
                                           "t", "false", "NULL", "1.5e10", "-0.001", "\u{00e9}", "\u{FFFD}", "\u{0}"],
        body: { run($0, variants: textVariants, file: "input.txt") })

    static let csv = FuzzTarget(
        name: "copy-csv", summary: "COPY CSV (quotes, IGNOREHEADER, FILLRECORD, other quote and delimiter)",
        maxLength: maxLength, dictionary: [",", "\"", "\"\"", "\"\n", "'", ";", "\n", "\r\n", "\r", "NULL", "\\N",
                                           "2024-02-29", "2024-02-29 12:34:56", "true", "1.5", "-0", " ", "\u{FEFF}"],
        body: { run($0, variants: csvVariants, file: "input.csv") })

    static let json = FuzzTarget(
        name: "copy-json", summary: "COPY JSON ('auto', 'auto ignorecase', a JSONPaths file)",
        maxLength: maxLength, dictionary: ["{", "}", "[", "]", ":", ",", "\"", "\\\"", "\\u0000", "\\ud800", "\\n",
                                           "null", "true", "false", "1e400", "-0", "\"id\"", "\"name\"", "\"amount\"",
                                           "\"day\"", "\"ts\"", "\"flag\"", "\"nested\"", "\"ratio\"", "\"code\"",
                                           "\"big\"", "\"small\"", "\"wide\"", "\"r\"", "\n", " ", "\u{FEFF}"],
        body: { run($0, variants: jsonVariants, file: "input.json") })

    /// Magic numbers of the compressed formats (to pick the COPY option).
    static let compressedMagic: [(magic: [UInt8], option: String)] = [
        ([0x1F, 0x8B], "GZIP"), ([0x42, 0x5A, 0x68], "BZIP2"), ([0x28, 0xB5, 0x2F, 0xFD], "ZSTD"),
    ]

    static let compressed = FuzzTarget(
        name: "copy-compressed",
        summary: "COPY of GZIP, BZIP2 and ZSTD files (chosen by the magic number; unknown data tries all three)",
        maxLength: maxLength, binaryDictionary: compressedMagic.map(\.magic) + [[0x31, 0x41, 0x59, 0x26, 0x53, 0x59],
                                                                              [0x17, 0x72, 0x45, 0x38, 0x50, 0x90]],
        body: { bytes in
            let chosen = compressedMagic.filter { bytes.starts(with: $0.magic) }.map(\.option)
            let variants = (chosen.isEmpty ? compressedMagic.map(\.option) : chosen).map {
                Variant(options: options([($0, nil), maxError]), tuning: CopyTuning(rangeBytes: 64, workers: 2),
                        compareRanges: false)
            }
            return run(bytes, variants: variants, file: "input.compressed")
        })

    /// Write the input to the scratch file `file` and load it with every variant.
    static func run(_ bytes: UnsafeRawBufferPointer, variants: [Variant], file: String) -> String {
        guard bytes.count <= maxLength else { return "skipped: too long" }
        let path = FuzzScratch.path(file)
        do { try FuzzScratch.write(bytes, to: path) } catch { return Outcome.of(error) }
        var outcomes: [String] = []
        for variant in variants {
            let first = load(path, variant.options, variant.tuning, variant.columnList)
            outcomes.append(first.outcome)
            guard variant.compareRanges, let expected = first.summary,
                  !variant.compareCleanOnly || first.rejected == 0 else { continue }
            let cut = load(path, variant.options, tiny, variant.columnList)
            if cut.summary != expected {
                fatalError("""
                    COPY loaded different data when the file was cut into ranges \
                    (options \(variant.options.format.rawValue), \(bytes.count) bytes):
                    whole file: \(expected)
                    in ranges:  \(cut.summary ?? cut.outcome)
                    """)
            }
        }
        return Outcome.combine(outcomes)
    }

    /// One load: its outcome signature and, when it succeeded, its rows as text and
    /// the number of rejected rows.
    static func load(_ path: String, _ options: CopyOptions, _ tuning: CopyTuning, _ columnList: [String]?)
        -> (outcome: String, summary: String?, rejected: Int) {
        do {
            let result = try CopyLoader.load(table: "fuzz", columns: columns, columnList: columnList, source: path,
                                             options: options, tuning: tuning, context: QueryContext())
            var text = "\(result.rowCount) rows, \(result.rejectedCount) rejected:"
            for chunk in result.chunks {
                for row in 0..<chunk.count {
                    text += "\n"
                    for c in chunk.columns.indices {
                        let type = columns[result.columnIndices[c]].type
                        text += (c > 0 ? "|" : "") + (chunk.value(row: row, column: c).formatted(as: type) ?? "NULL")
                    }
                }
            }
            // The kinds of rejection tell paths through the field parsers apart.
            let reasons = Set(result.rejected.map { "\($0.code)" }).sorted()
            return (Outcome.ok(rows: result.rowCount, reasons.joined(separator: ",")), text, result.rejectedCount)
        } catch {
            return (Outcome.of(error), nil, 0)
        }
    }
}
