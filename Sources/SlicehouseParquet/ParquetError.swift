// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// A problem found while decoding or encoding Parquet data, before the file and column
/// it concerns are known. `ParquetFile` and `ParquetWriter` turn it into an `SQLError`
/// that names the file (and the column, when there is one).
struct ParquetError: Error, Sendable {
    var code: SQLError.Code
    var message: String
    /// For a value that does not convert: the value as text (what COPY records as the raw
    /// field value), when known.
    var value: String?
    /// For a value that does not convert: its row within the row group, once the decoder
    /// has located it.
    var row: Int?

    init(_ message: String, code: SQLError.Code = .loadError, value: String? = nil) {
        self.code = code
        self.message = message
        self.value = value
    }

    /// True for a value that does not fit its column (as opposed to a file that cannot be
    /// read or a column that cannot be converted at all).
    var isValueError: Bool {
        code == .numericOutOfRange || code == .stringTooLong || code == .invalidText
    }

    /// The file's bytes do not follow the format (corrupt, truncated, or a bug in the writer).
    static func corrupt(_ what: String) -> ParquetError {
        ParquetError("corrupt file: \(what)")
    }

    /// A valid file using something this package does not implement.
    static func unsupported(_ what: String) -> ParquetError {
        ParquetError("not supported: \(what)", code: .featureNotSupported)
    }

    /// Lists, maps and structs: Slicehouse tables are flat.
    static let nested = ParquetError("nested Parquet columns are not supported (the column is a list, map or struct)",
                                     code: .featureNotSupported)

    /// A value that does not fit the target column.
    static func outOfRange(_ what: String, value: String? = nil) -> ParquetError {
        ParquetError(what, code: .numericOutOfRange, value: value)
    }
}

extension SQLError {
    /// The public error for a Parquet problem in `file` (and `column`, when known).
    static func parquet(_ error: Error, file: String, column: String? = nil) -> SQLError {
        let where_ = column.map { "Parquet file '\(file)', column \"\($0)\"" } ?? "Parquet file '\(file)'"
        if let e = error as? ParquetError {
            return SQLError(e.code, "\(where_): \(e.message)")
        }
        if let e = error as? SQLError {
            return SQLError(e.code, "\(where_): \(e.message)", detail: e.detail)
        }
        return SQLError(.loadError, "\(where_): \(error)")
    }
}
