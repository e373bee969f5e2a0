// SPDX-License-Identifier: Apache-2.0
/// Output formats of the generator: text. (Parquet is the command line's: `slicehouse
/// datagen --format parquet` writes `.tbl` text with this generator and converts it with
/// COPY and UNLOAD, which this target cannot reach.)
public enum DatagenFormat: String, CaseIterable, Sendable {
    /// dbgen's pipe-delimited `.tbl` text: a `|` after every field, `\n` line ends.
    case tbl
    /// Comma-separated values with a header line and RFC 4180 quoting.
    case csv

    /// The file extension (`tbl`, `csv`).
    public var fileExtension: String { rawValue }

    /// The row layout.
    func layout() throws -> RowLayout {
        switch self {
        case .tbl: return .tbl
        case .csv: return .csv
        }
    }
}
