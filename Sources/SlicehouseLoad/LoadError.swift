// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// Redshift's load error codes (`STL_LOAD_ERRORS.err_code`, dg:r_Load_Error_Reference).
public enum LoadErrorCode: Int, Sendable, Equatable {
    /// Extra field(s) beyond the table's (or column list's) columns.
    case extraColumns = 1202
    /// Fewer fields than columns (without FILLRECORD).
    case missingColumns = 1203
    /// Value outside its type's range: integer overflow, decimal precision,
    /// float overflow, string longer than CHAR(n)/VARCHAR(n).
    case valueOutOfRange = 1204
    case invalidDate = 1205
    case invalidTimestamp = 1206
    /// A character that cannot be part of a number (integers, decimals, floats).
    case invalidDigit = 1207
    case invalidBoolean = 1210
    /// A NOT NULL column got NULL (or no data).
    case notNullViolation = 1213
    /// CSV / REMOVEQUOTES: no delimiter after a closing quote.
    case delimiterNotFound = 1214
    /// A line that cannot be split into fields (e.g. an unterminated quoted field).
    case invalidLine = 1216
    /// Invalid UTF-8 in a string field, or a multibyte character in a CHAR column.
    case invalidUTF8 = 1220
    /// Malformed JSON input (`FORMAT JSON`).
    case invalidJSON = 1224
    /// A columnar (Parquet) file that cannot be read: not Parquet, truncated, corrupt,
    /// or using a feature the reader lacks (Slicehouse's code for Redshift's
    /// "Spectrum Scan Error").
    case unreadableColumnarFile = 15001
    /// A columnar file whose schema does not fit the table: a different number of
    /// columns, a column type that cannot be converted, a nested column (Redshift's
    /// "Spectrum Scan Error code 15007 ... has an incompatible Parquet schema").
    case incompatibleColumnarSchema = 15007
}

/// One rejected input row: everything `STL_LOAD_ERRORS` records about it.
///
/// A COPY that fails throws the `LoadError` of the row that made it fail; the rows
/// MAXERROR allowed before it are in `earlierRejections` (in file order), so the engine
/// can record all of them. A COPY that succeeds returns its skipped rows in
/// `CopyResult.rejected`.
public struct LoadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Target table name, as given to `CopyLoader.load`.
    public var table: String
    /// Input file path (as resolved from the COPY source).
    public var file: String
    /// 1-based physical line in `file` where the rejected record starts (for malformed
    /// JSON, 1224: the line of the offending character).
    public var line: Int
    /// Column the error is about; empty for whole-line errors (extra columns, bad quoting).
    public var column: String
    /// Column type as `DataType.sqlName` (`STL_LOAD_ERRORS.type`); empty with `column`.
    public var columnType: String
    /// Declared length of CHAR/VARCHAR columns (`col_length`), else 0.
    public var columnLength: Int
    /// 0-based index of the offending field within the record (the loaded column's
    /// index for FIXEDWIDTH and JSON; 0 for whole-record JSON syntax errors).
    public var position: Int
    /// The record's text, at most 1024 bytes (invalid UTF-8 shown as U+FFFD).
    public var rawLine: String
    /// The offending field's text (unquoted/unescaped), at most 1024 bytes.
    public var rawFieldValue: String
    public var code: LoadErrorCode
    /// Redshift-style reason (`err_reason`).
    public var reason: String
    /// On a thrown error: the rows rejected before it under MAXERROR, in file order.
    public var earlierRejections: [LoadError]
    /// The input is a columnar (Parquet) file: `line` is the 1-based row within the file
    /// (0 when the error is about the file or a whole column), and there is no raw line.
    public var isColumnar = false

    public init(table: String, file: String, line: Int, column: String, columnType: String = "",
                columnLength: Int = 0, position: Int, rawLine: String, rawFieldValue: String,
                code: LoadErrorCode, reason: String, earlierRejections: [LoadError] = []) {
        self.table = table; self.file = file; self.line = line; self.column = column
        self.columnType = columnType; self.columnLength = columnLength; self.position = position
        self.rawLine = rawLine; self.rawFieldValue = rawFieldValue; self.code = code; self.reason = reason
        self.earlierRejections = earlierRejections
    }

    /// The user-facing error: Redshift's message, with the location and reason as DETAIL.
    public func asSQLError() -> SQLError {
        SQLError(.loadError,
                 "Load into table '\(table)' failed. Check 'stl_load_errors' system table for details.",
                 detail: detailText)
    }

    /// `file '…', line N, column c (position p): reason [code] — raw field value '…'`
    /// (columnar files: `row N`, left out for errors about the file or a whole column).
    public var detailText: String {
        if isColumnar {
            var s = "file '\(file)'"
            if line > 0 { s += ", row \(line)" }
            if !column.isEmpty { s += ", column \(column) (position \(position))" }
            s += ": \(reason) [\(code.rawValue)]"
            if line > 0 && !column.isEmpty { s += " — raw field value '\(rawFieldValue)'" }
            return s
        }
        var s = "file '\(file)', line \(line)"
        if !column.isEmpty { s += ", column \(column)" }
        s += " (position \(position)): \(reason) [\(code.rawValue)]"
        if column.isEmpty {
            s += " — raw line '\(rawLine)'"
        } else {
            s += " — raw field value '\(rawFieldValue)'"
        }
        return s
    }

    public var description: String { "LoadError(\(detailText))" }
}
