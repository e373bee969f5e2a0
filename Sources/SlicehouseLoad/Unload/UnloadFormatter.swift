// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// Turns result chunks into the bytes of text, CSV or JSON unload files.
/// Works a column at a time per chunk; values are appended straight into a byte buffer.
public struct UnloadFormatter {
    public let names: [String]
    public let types: [DataType]
    public let options: UnloadOptions

    public init(names: [String], types: [DataType], options: UnloadOptions) throws {
        self.names = names; self.types = types; self.options = options
        if !options.fixedWidth.isEmpty && options.fixedWidth.count != names.count {
            throw SQLError(.invalidParameter, "FIXEDWIDTH must give a width for each of the \(names.count) columns")
        }
    }

    /// The header line (HEADER option), with its newline.
    public func header() -> [UInt8] {
        var out: [UInt8] = []
        for (i, n) in names.enumerated() {
            if i > 0 { out.append(options.delimiter) }
            appendField(Array(n.utf8), isString: true, into: &out)
        }
        out.append(10)
        return out
    }

    /// Append the rows of `chunk` (compacted) to `out`; returns the number of rows.
    @discardableResult
    public func append(_ chunk: Chunk, into out: inout [UInt8]) -> Int {
        let c = chunk.compacted()
        let n = c.count
        // Format every column of the chunk once, then interleave.
        let cells: [[[UInt8]?]] = c.columns.enumerated().map { idx, v in (0..<n).map { text(v, $0, types[idx]) } }
        for r in 0..<n {
            if options.format == .json {
                out.append(UInt8(ascii: "{"))
                var first = true
                for (ci, col) in cells.enumerated() {
                    guard let cell = col[r] else { continue }   // NULL: the key is left out
                    if !first { out.append(UInt8(ascii: ",")) }
                    first = false
                    appendJSONString(Array(names[ci].utf8), into: &out)
                    out.append(UInt8(ascii: ":"))
                    switch types[ci] {
                    case .smallint, .integer, .bigint, .decimal, .real, .double:
                        if cell.first == UInt8(ascii: "N") || cell.first == UInt8(ascii: "I") || cell.last == UInt8(ascii: "y") {
                            appendJSONString(cell, into: &out)   // NaN / Infinity are not JSON numbers
                        } else { out.append(contentsOf: cell) }
                    case .boolean: out.append(contentsOf: cell == [UInt8(ascii: "t")] ? Array("true".utf8) : Array("false".utf8))
                    default: appendJSONString(cell, into: &out)
                    }
                }
                out.append(UInt8(ascii: "}"))
                out.append(10)
                continue
            }
            for ci in 0..<cells.count {
                if !options.fixedWidth.isEmpty {
                    let w = options.fixedWidth[ci].width
                    var cell = cells[ci][r] ?? options.nullString
                    if cell.count > w { cell = Array(cell.prefix(w)) }
                    out.append(contentsOf: cell)
                    out.append(contentsOf: repeatElement(32, count: w - cell.count))
                    continue
                }
                if ci > 0 { out.append(options.delimiter) }
                if let cell = cells[ci][r] {
                    appendField(cell, isString: types[ci].isString || types[ci].isTemporal, into: &out)
                } else {
                    out.append(contentsOf: options.nullString)
                }
            }
            out.append(10)
        }
        return n
    }

    /// The text of one value (nil for NULL), as Redshift unloads it (CHAR padded).
    func text(_ v: Vector, _ i: Int, _ t: DataType) -> [UInt8]? {
        if v.isNull(i) { return nil }
        let row = v.isConstant ? 0 : i
        switch v.data {
        case .string(let s):
            var bytes = s.withBytes(row) { Array($0) }
            if case .char(let n) = t, options.format != .json, bytes.count < n { bytes.append(contentsOf: repeatElement(32, count: n - bytes.count)) }
            return bytes
        case .int64(let a) where t.isInteger:
            return Array(String(a[row]).utf8)
        default:
            return v.value(at: row).formatted(as: t).map { Array($0.utf8) }
        }
    }

    func appendField(_ cell: [UInt8], isString: Bool, into out: inout [UInt8]) {
        switch options.format {
        case .csv:
            let needsQuotes = cell.contains { $0 == options.delimiter || $0 == 34 || $0 == 10 || $0 == 13 } || cell.isEmpty && isString
            if needsQuotes {
                out.append(34)
                for b in cell { if b == 34 { out.append(34) }; out.append(b) }
                out.append(34)
            } else { out.append(contentsOf: cell) }
        default:
            if options.addQuotes { out.append(34) }
            if options.escape {
                for b in cell {
                    if b == 10 || b == 13 || b == options.delimiter || b == 92 || (options.addQuotes && (b == 34 || b == 39)) { out.append(92) }
                    out.append(b)
                }
            } else { out.append(contentsOf: cell) }
            if options.addQuotes { out.append(34) }
        }
    }

    func appendJSONString(_ s: [UInt8], into out: inout [UInt8]) {
        out.append(34)
        for b in s {
            switch b {
            case 34: out.append(92); out.append(34)
            case 92: out.append(92); out.append(92)
            case 10: out.append(92); out.append(UInt8(ascii: "n"))
            case 13: out.append(92); out.append(UInt8(ascii: "r"))
            case 9: out.append(92); out.append(UInt8(ascii: "t"))
            case 0..<32:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: Array("\\u00".utf8))
                out.append(hex[Int(b >> 4)]); out.append(hex[Int(b & 15)])
            default: out.append(b)
            }
        }
        out.append(34)
    }

    /// Compress a finished file's bytes as the options ask.
    public func compress(_ bytes: [UInt8]) throws -> [UInt8] {
        switch options.compression {
        case .none: return bytes
        case .gzip:
            do { return try GzipCodec.compress(bytes) } catch { throw SQLError(.ioError, "gzip compression failed") }
        case .bzip2:
            do { return try Bzip2Codec.compress(bytes) } catch { throw SQLError(.ioError, "bzip2 compression failed") }
        case .zstd:
            return try ZstdCodec.compress(bytes)
        }
    }
}

import SlicehouseStorage
