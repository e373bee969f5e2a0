// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Signals turned into calls on a thread of their own (Ctrl-C cancelling the shell's
/// statement, SIGTERM stopping the server). The C handler only writes the signal's
/// number to a pipe — all it may safely do — and a watcher thread reads it and calls
/// the handler. (A dispatch signal source needs the signal ignored, and on Linux an
/// ignored signal is discarded before anything sees it.)
enum SignalWatcher {
    nonisolated(unsafe) private static var writeEnd: Int32 = -1
    nonisolated(unsafe) private static var handler: (@Sendable (Int32) -> Void)?

    static func install(_ signals: [Int32], _ body: @escaping @Sendable (Int32) -> Void) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return }
        let readEnd = fds[0]
        writeEnd = fds[1]
        handler = body
        for s in signals {
            signal(s) { sig in
                var byte = UInt8(truncatingIfNeeded: sig)
                _ = write(SignalWatcher.writeEnd, &byte, 1)
            }
        }
        let thread = Thread {
            var byte: UInt8 = 0
            while true {
                let n = read(readEnd, &byte, 1)
                if n == 1 { SignalWatcher.handler?(Int32(byte)) } else if n < 0 && errno == EINTR { continue } else { break }
            }
        }
        thread.name = "slicehouse-signals"
        thread.start()
    }
}
