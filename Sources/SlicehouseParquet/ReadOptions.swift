// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// Options a COPY passes to the reader.
public struct ParquetReadOptions: Sendable {
    /// Cut strings longer than their VARCHAR/CHAR column at a character boundary (COPY
    /// TRUNCATECOLUMNS) instead of failing.
    public var truncateColumns: Bool
    /// Replace every byte of invalid UTF-8 in strings with this ASCII character (COPY
    /// ACCEPTINVCHARS) instead of failing.
    public var invalidCharacterReplacement: UInt8?

    public init(truncateColumns: Bool = false, invalidCharacterReplacement: UInt8? = nil) {
        self.truncateColumns = truncateColumns
        self.invalidCharacterReplacement = invalidCharacterReplacement
    }
}
