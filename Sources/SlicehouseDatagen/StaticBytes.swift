// SPDX-License-Identifier: Apache-2.0
/// A run of bytes that lives as long as the process (word lists, fixed texts, dates).
///
/// Generators copy these bytes straight into output buffers, so they are kept
/// as raw pointers rather than `String`s: no bridging, no per-field allocation.
struct StaticBytes: @unchecked Sendable {
    let base: UnsafePointer<UInt8>
    let count: Int

    /// Copies `text`'s UTF-8 into storage that is never freed. Only for tables
    /// built once per process.
    init(_ text: String) {
        let utf8 = Array(text.utf8)
        let storage = UnsafeMutablePointer<UInt8>.allocate(capacity: max(utf8.count, 1))
        utf8.withUnsafeBufferPointer { source in
            if let address = source.baseAddress { storage.initialize(from: address, count: utf8.count) }
        }
        base = UnsafePointer(storage)
        count = utf8.count
    }
}
