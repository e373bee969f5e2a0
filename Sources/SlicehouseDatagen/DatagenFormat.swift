// SPDX-License-Identifier: Apache-2.0
/// Output formats of the generator.
public enum DatagenFormat: String, CaseIterable, Sendable {
    /// dbgen's pipe-delimited `.tbl` text: a `|` after every field, `\n` line ends.
    case tbl
    /// Comma-separated values with a header line and RFC 4180 quoting.
    case csv
    /// Apache Parquet: the generator itself throws `unsupportedFormat`; the CLI writes
    /// `.tbl` to a staging folder and converts it with COPY and UNLOAD (`--format parquet`).
    case parquet

    /// The file extension (`tbl`, `csv`, `parquet`).
    public var fileExtension: String { rawValue }

    /// The row layout, or an error for formats that are not text.
    func layout() throws -> RowLayout {
        switch self {
        case .tbl: return .tbl
        case .csv: return .csv
        case .parquet: throw DatagenError.unsupportedFormat(rawValue)
        }
    }
}
