// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// Reading a nested column (or a flat one loaded into SUPER) of one row group into one
/// JSON value per row:
///
/// 1. Each leaf's column chunk is decoded by `ColumnDecoder.decodeNested` into its
///    repetition and definition levels (one entry per value, NULL, or empty/NULL
///    ancestor) and its values, converted to a natural type and rendered as JSON text.
/// 2. `NestedAssembler` walks the schema tree once per row (Dremel record assembly): at
///    each node the definition level of its first leaf's current entry says whether the
///    node is NULL (a JSON `null`, one entry consumed from every leaf below), an empty
///    list or map (`[]`/`{}`), or present; a list goes on while the next entry's
///    repetition level is the list's own. A NULL top-level field is SQL NULL.
///
/// Every level and length comes from the file, so every step is checked: a forged file
/// is a "corrupt file" error, never a crash, and the recursion is bounded by the schema
/// depth (`maxNestingDepth`).
extension ParquetFile {
    func readNestedColumn(_ column: ParquetColumn, group: RowGroup, as type: DataType,
                          options: ParquetReadOptions, scratch: DecodeScratch) throws -> Vector {
        guard let nested = column.nested else {
            if let problem = column.nestedProblem { throw ParquetError(problem, code: .featureNotSupported) }
            throw ParquetError.nested
        }
        let limit: Int
        switch type {
        case .superType: limit = DataType.maxSuperBytes
        case .varchar(let n), .char(let n): limit = n
        default:
            throw ParquetError("cannot load the nested Parquet column into a column of type \(type.sqlName)",
                               code: .datatypeMismatch)
        }
        let rows = Int(group.numRows)
        if rows == 0 { return Vector(type: type) }

        var streams: [LeafStream] = []
        streams.reserveCapacity(nested.leaves.count)
        for leaf in nested.leaves {
            streams.append(try readLeaf(leaf, group: group, options: options, scratch: scratch))
        }
        let assembler = NestedAssembler(streams)
        return try assembler.assemble(nested.root, rows: rows, type: type, limit: limit)
    }

    private func readLeaf(_ leaf: NestedLeaf, group: RowGroup, options: ParquetReadOptions,
                          scratch: DecodeScratch) throws -> LeafStream {
        let c = leaf.column
        guard c.leafIndex >= 0, c.leafIndex < group.columns.count else {
            throw ParquetError.corrupt("row group has no column chunk for \"\(c.name)\"")
        }
        let chunk = group.columns[c.leafIndex]
        if chunk.encrypted { throw ParquetError.unsupported("encrypted Parquet columns") }
        if let p = chunk.filePath, !p.isEmpty { throw ParquetError.unsupported("column data in another file ('\(p)')") }
        guard let meta = chunk.metaData else { throw ParquetError.corrupt("column chunk without metadata") }
        if meta.type != c.physicalTypeRaw {
            throw ParquetError.corrupt("column chunk type #\(meta.type) differs from the schema")
        }
        guard meta.numValues >= 0, meta.numValues <= Int64(Int32.max) else {
            throw ParquetError.corrupt("column chunk claims \(meta.numValues) values")
        }
        let entries = Int(meta.numValues)
        let valueType = try NestedLeaf.jsonValueType(c)
        let plan = try ConversionPlan(column: c, target: valueType, options: options)
        var repetition: [UInt8] = []
        var definition: [UInt8] = []
        if entries == 0 { return LeafStream(repetition: [], definition: [], json: LeafJSON()) }
        let region = try chunkRegion(meta)
        let decoder = ColumnDecoder(column: c, plan: plan, expectedRows: entries, scratch: scratch)
        do {
            let values = try decoder.decodeNested(chunk: region, codec: meta.codec,
                                                  maxRepetitionLevel: leaf.maxRepetitionLevel,
                                                  repetition: &repetition, definition: &definition)
            return LeafStream(repetition: repetition, definition: definition, json: LeafJSON(values))
        } catch var e as ParquetError {
            // The decoder locates a bad value by its entry; the caller wants its row.
            if let entry = e.row, entry < repetition.count {
                var row = -1
                for i in 0...entry where repetition[i] == 0 { row += 1 }
                e.row = max(row, 0)
            } else {
                e.row = nil
            }
            if e.isValueError { e.message = "in \"\(c.name)\": " + e.message }
            throw e
        }
    }
}

/// One leaf's entries: levels and the JSON text of each value.
struct LeafStream {
    var repetition: [UInt8]
    var definition: [UInt8]
    var json: LeafJSON
}

/// The JSON text of every entry of a decoded leaf (empty for entries without a value).
struct LeafJSON {
    var bytes: [UInt8] = []
    /// Entry `i` is `bytes[ends[i] ..< ends[i + 1]]`.
    var ends: [Int] = [0]

    init() {}

    init(_ v: Vector) {
        let n = v.count
        ends.reserveCapacity(n + 1)
        bytes.reserveCapacity(n * 4)
        switch v.data {
        case .string(let s):
            for i in 0..<n {
                if !v.isNull(i) { s.withBytes(i) { SuperJSON.appendQuoted($0, to: &bytes) } }
                ends.append(bytes.count)
            }
        case .int64(let a):
            for i in 0..<n {
                if !v.isNull(i) {
                    switch v.type {
                    case .date: quoted(DateTime.formatDate(a[i]))
                    case .timestamp, .timestamptz: quoted(DateTime.formatTimestamp(a[i]))
                    case .decimal(_, let scale): bytes.append(contentsOf: DecimalFormat.format(Int128(a[i]), scale: scale).utf8)
                    default: bytes.append(contentsOf: String(a[i]).utf8)
                    }
                }
                ends.append(bytes.count)
            }
        case .int128(let a):
            let scale = v.type.scale
            for i in 0..<n {
                if !v.isNull(i) { bytes.append(contentsOf: DecimalFormat.format(a[i], scale: scale).utf8) }
                ends.append(bytes.count)
            }
        case .double(let a):
            let real = v.type == .real
            for i in 0..<n {
                if !v.isNull(i) {
                    let d = a[i]
                    // JSON has no NaN or infinity.
                    bytes.append(contentsOf: (d.isFinite ? FloatFormat.format(d, real: real) : "null").utf8)
                }
                ends.append(bytes.count)
            }
        case .bool(let a):
            for i in 0..<n {
                if !v.isNull(i) { bytes.append(contentsOf: (a[i] ? "true" : "false").utf8) }
                ends.append(bytes.count)
            }
        }
    }

    private mutating func quoted(_ s: String) {
        bytes.append(JSONGrammar.quote)
        bytes.append(contentsOf: s.utf8)
        bytes.append(JSONGrammar.quote)
    }
}

/// Record assembly of one row group's nested column (see `readNestedColumn`).
final class NestedAssembler {
    private var streams: [LeafStream]
    private var position: [Int]
    private var out: [UInt8] = []

    private static let null: [UInt8] = Array("null".utf8)

    init(_ streams: [LeafStream]) {
        self.streams = streams
        position = Array(repeating: 0, count: streams.count)
    }

    /// One JSON value per row into a vector of `type` (SUPER, VARCHAR or CHAR); values
    /// longer than `limit` bytes fail.
    func assemble(_ root: NestedNode, rows: Int, type: DataType, limit: Int) throws -> Vector {
        var strings = StringArray()
        strings.offsets.reserveCapacity(rows + 1)
        var validity = [UInt64](filled: 0, count: (rows + 63) >> 6)
        var nulls = 0
        for row in 0..<rows {
            do {
                for k in streams.indices {
                    let p = try entry(k)
                    guard streams[k].repetition[p] == 0 else {
                        throw ParquetError.corrupt("repetition levels do not start a new row where one is expected")
                    }
                }
                let start = out.count
                let lead = root.firstLeaf
                if Int(streams[lead].definition[try entry(lead)]) < root.definitionLevel {
                    try skip(root)
                } else {
                    try write(root)
                }
                let length = out.count - start
                if length == 0 || (length == 4 && out[start...].elementsEqual(Self.null)) {
                    // A NULL field, or a value that is JSON null: SQL NULL.
                    out.removeSubrange(start...)
                    nulls += 1
                } else {
                    if length > limit {
                        let shown = out[start..<min(out.count, start + 1024)]
                        let what = type == .superType ? "SUPER value of \(length) bytes exceeds the limit of \(limit) bytes"
                            : "JSON text of \(length) bytes exceeds DDL length of type \(type.sqlName)"
                        var e = ParquetError(what, code: .stringTooLong, value: String(decoding: shown, as: UTF8.self))
                        e.row = row
                        throw e
                    }
                    validity[row >> 6] |= 1 << UInt64(row & 63)
                }
                guard out.count <= Int(Int32.max) else {
                    throw ParquetError.unsupported("more than 2 GB of JSON text in one column of one row group")
                }
                strings.offsets.append(Int32(truncatingIfNeeded: out.count))
            } catch var e as ParquetError {
                if e.row == nil && !e.isValueError { e.message += " (row \(row) of the row group)" }
                throw e
            }
        }
        for k in streams.indices where position[k] != streams[k].definition.count {
            throw ParquetError.corrupt("a leaf column chunk holds more values than its row group's \(rows) rows")
        }
        strings.bytes = out
        return Vector(type: type, data: .string(strings), validity: nulls > 0 ? Validity(words: validity) : nil)
    }

    /// The current entry of leaf `k` (it must have one).
    @inline(__always)
    private func entry(_ k: Int) throws -> Int {
        let p = position[k]
        guard p < streams[k].definition.count else {
            throw ParquetError.corrupt("the levels of a nested column end before its rows do")
        }
        return p
    }

    /// A NULL or empty node: one entry of every leaf below it.
    private func skip(_ node: NestedNode) throws {
        for k in node.firstLeaf..<(node.firstLeaf + node.leafCount) {
            _ = try entry(k)
            position[k] += 1
        }
    }

    /// Whether leaf `k`'s next entry continues the list or map repeating at `level`.
    @inline(__always)
    private func continues(_ k: Int, at level: Int) -> Bool {
        let p = position[k]
        return p < streams[k].repetition.count && Int(streams[k].repetition[p]) == level
    }

    private func write(_ node: NestedNode) throws {
        let lead = node.firstLeaf
        let d = Int(streams[lead].definition[try entry(lead)])
        if d < node.definitionLevel {
            out.append(contentsOf: Self.null)
            try skip(node)
            return
        }
        switch node.shape {
        case .leaf(let k):
            let p = try entry(k)
            let s = streams[k].json.ends[p], e = streams[k].json.ends[p + 1]
            if s == e {
                out.append(contentsOf: Self.null)
            } else {
                out.append(contentsOf: streams[k].json.bytes[s..<e])
            }
            position[k] += 1
        case .structure(let names, let fields):
            out.append(JSONGrammar.openBrace)
            for (i, field) in fields.enumerated() {
                if i > 0 { out.append(JSONGrammar.comma) }
                out.append(contentsOf: names[i])
                out.append(JSONGrammar.colon)
                try write(field)
            }
            out.append(JSONGrammar.closeBrace)
        case .list(let element):
            if d < node.elementDefinitionLevel {
                out.append(JSONGrammar.openBracket)
                out.append(JSONGrammar.closeBracket)
                try skip(node)
                return
            }
            out.append(JSONGrammar.openBracket)
            while true {
                try write(element)
                guard continues(lead, at: node.elementRepetitionLevel) else { break }
                out.append(JSONGrammar.comma)
            }
            out.append(JSONGrammar.closeBracket)
        case .map(let key, let value):
            if d < node.elementDefinitionLevel {
                out.append(JSONGrammar.openBrace)
                out.append(JSONGrammar.closeBrace)
                try skip(node)
                return
            }
            out.append(JSONGrammar.openBrace)
            while true {
                // Keys are object member names: a string key as it is, any other its text.
                let start = out.count
                try write(key)
                if out.count > start && out[start] != JSONGrammar.quote {
                    let text = Array(out[start...])
                    out.removeSubrange(start...)
                    text.withUnsafeBufferPointer { SuperJSON.appendQuoted($0, to: &out) }
                }
                out.append(JSONGrammar.colon)
                if let value {
                    try write(value)
                } else {
                    out.append(contentsOf: Self.null)
                }
                guard continues(lead, at: node.elementRepetitionLevel) else { break }
                out.append(JSONGrammar.comma)
            }
            out.append(JSONGrammar.closeBrace)
        }
    }
}
