// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes

/// The process's scratch directory for fuzz targets that need files (COPY reads a
/// path; the manifest targets open database directories). Created on first use
/// under the temporary directory, one per process, and removed by `removeAll()`
/// (the mutation fuzzer calls it when it finishes; a libFuzzer process leaves it).
public enum FuzzScratch {
    /// `$TMPDIR/slicehouse-fuzz-<pid>`.
    public static let directory: String = {
        let path = (NSTemporaryDirectory() as NSString).appendingPathComponent("slicehouse-fuzz-\(getpid())")
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    /// A path inside the scratch directory.
    static func path(_ name: String) -> String {
        (directory as NSString).appendingPathComponent(name)
    }

    /// Write `bytes` to `path`, replacing it. Throws `SQLError(.ioError)` when that fails
    /// (a full disk: the harness's problem, not the target's; the target reports it as
    /// its outcome).
    static func write(_ bytes: UnsafeRawBufferPointer, to path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw SQLError(.ioError, "fuzz scratch: cannot create \(path)") }
        defer { close(fd) }
        var done = 0
        while done < bytes.count {
            guard let base = bytes.baseAddress else { break }
            let n = Foundation.write(fd, base + done, bytes.count - done)
            if n < 0 {
                if errno == EINTR { continue }
                throw SQLError(.ioError, "fuzz scratch: cannot write \(path)")
            }
            done += n
        }
    }

    /// Write `bytes` to `path`, replacing it.
    static func write(_ bytes: [UInt8], to path: String) throws {
        try bytes.withUnsafeBytes { try write($0, to: path) }
    }

    /// Remove the scratch directory and everything in it.
    public static func removeAll() {
        try? FileManager.default.removeItem(atPath: directory)
    }
}

extension FuzzScratch {
    /// The contents of the file at `path`, or nil when it cannot be read.
    static func read(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { Array($0) }
    }
}
