// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// A Parquet file that is not on this machine's disk (an S3 object): its size, and its
/// bytes read by range. `ParquetFile(source:)` reads the footer and then, for each row
/// group it decodes, that group's column chunks, so a file is never fetched whole.
/// `read` may be called from several threads at once (one per row group being decoded).
public protocol ParquetByteSource: Sendable {
    /// The name errors give (`s3://bucket/key`).
    var name: String { get }
    var size: Int { get }
    /// Fill `buffer` with the bytes at `offset ..< offset + buffer.count`.
    func read(offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws
}
