// SPDX-License-Identifier: Apache-2.0
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file written with plain POSIX calls: large chunks go straight to
/// `write(2)`, with no extra buffering or copying.
final class OutputFile {
    let path: String
    private var descriptor: Int32
    private(set) var bytesWritten: Int64 = 0

    init(path: String) throws {
        self.path = path
        descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        if descriptor < 0 { throw OutputFile.error(path, "create") }
    }

    deinit {
        if descriptor >= 0 { _ = close(descriptor) }
    }

    func append(_ chunk: OutputChunk) throws {
        try append(UnsafeRawPointer(chunk.base), count: chunk.count)
    }

    func append(_ bytes: UnsafeRawPointer, count: Int) throws {
        var offset = 0
        while offset < count {
            let written = write(descriptor, bytes + offset, count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw OutputFile.error(path, "write")
            }
            offset += written
        }
        bytesWritten += Int64(count)
    }

    func finish() throws {
        guard descriptor >= 0 else { return }
        let result = close(descriptor)
        descriptor = -1
        if result != 0 { throw OutputFile.error(path, "close") }
    }

    /// Creates `path` and any missing parents (like `mkdir -p`).
    static func makeDirectory(_ path: String) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            if isDirectory.boolValue { return }
            throw DatagenError.io(path: path, operation: "create directory", code: EEXIST,
                                  message: "a file with that name exists")
        }
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty && parent != path { try makeDirectory(parent) }
        if mkdir(path, 0o755) != 0 && errno != EEXIST { throw error(path, "create directory") }
    }

    static func error(_ path: String, _ operation: String) -> DatagenError {
        let code = errno
        return .io(path: path, operation: operation, code: code, message: String(cString: strerror(code)))
    }
}
