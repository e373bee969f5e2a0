// SPDX-License-Identifier: Apache-2.0
/// Errors of the TPC-H generator; each message says what to change.
public enum DatagenError: Error, Equatable, CustomStringConvertible, Sendable {
    case invalidScaleFactor(Double)
    case invalidPartCount(Int)
    case invalidPart(part: Int, parts: Int)
    case invalidUnitRange(table: TPCHTable, lower: Int64, upper: Int64, available: Int64)
    case unsupportedFormat(String)
    case unknownTable(String)
    case io(path: String, operation: String, code: Int32, message: String)

    public var description: String {
        switch self {
        case .invalidScaleFactor(let value):
            return "invalid scale factor \(value): it must be a number from \(TPCHGenerator.minimumScaleFactor) "
                + "to \(Int(TPCHGenerator.maximumScaleFactor))"
        case .invalidPartCount(let parts):
            return "invalid part count \(parts): it must be at least 1"
        case .invalidPart(let part, let parts):
            return "invalid part \(part): it must be from 1 to \(parts)"
        case .invalidUnitRange(let table, let lower, let upper, let available):
            return "invalid range \(lower)..<\(upper) for \(table): the table has \(available) generation units"
        case .unsupportedFormat(let format):
            return "unknown format '\(format)': use tbl or csv"
        case .unknownTable(let name):
            return "unknown table '\(name)': use region, nation, supplier, customer, part, partsupp, orders, lineitem"
        case .io(let path, let operation, _, let message):
            return "cannot \(operation) \(path): \(message)"
        }
    }
}
