// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Where the shell writes: standard output for results, standard error for
/// errors and notices (as psql does).
public protocol ShellOutput: AnyObject {
    func write(_ text: String)
    func writeError(_ text: String)
    /// Push buffered standard output to its destination.
    func flush()
}

/// The process's standard output and error. Standard output is buffered and
/// flushed before anything goes to standard error, so the two stay in order.
public final class StandardShellOutput: ShellOutput {
    private var buffer: [UInt8] = []
    private let limit = 1 << 16

    public init() {}

    deinit { flush() }

    public func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= limit { flush() }
    }

    public func writeError(_ text: String) {
        flush()
        try? FileHandle.standardError.write(contentsOf: Data(text.utf8))
    }

    public func flush() {
        guard !buffer.isEmpty else { return }
        try? FileHandle.standardOutput.write(contentsOf: Data(buffer))
        buffer.removeAll(keepingCapacity: true)
    }
}

/// Collects output in memory (tests).
public final class CapturedShellOutput: ShellOutput {
    public private(set) var standardOutput = ""
    public private(set) var standardError = ""
    /// Both streams interleaved in the order written.
    public private(set) var combined = ""

    public init() {}

    public func write(_ text: String) {
        standardOutput += text
        combined += text
    }

    public func writeError(_ text: String) {
        standardError += text
        combined += text
    }

    public func flush() {}
}
