// SPDX-License-Identifier: Apache-2.0
import CEdit
import Foundation
import SlicehouseShell

/// The interactive read–eval–print loop: libedit line editing, history in
/// `~/.slicehouse_history`, psql's prompts.
enum InteractiveLoop {
    static let historySize: Int32 = 1000

    static func run(driver: ShellDriver, banner: String) {
        driver.interactive = true
        driver.output.write(banner + "\nType \"help\" for help.\n\n")
        driver.output.flush()

        let home = ProcessInfo.processInfo.environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        let historyPath = home + "/.slicehouse_history"
        using_history()
        stifle_history(historySize)
        _ = read_history(historyPath)
        driver.historyHandler = { entry in
            _ = add_history(entry)
            _ = write_history(historyPath)
        }

        completionDriver = driver
        slicehouse_set_completion_function(complete)
        defer { completionDriver = nil }

        while !driver.isFinished {
            guard let raw = readline(driver.prompt) else {
                // Ctrl-D: psql echoes \q and leaves.
                driver.output.write("\\q\n")
                break
            }
            let line = UnsafeBufferPointer(start: UnsafeRawPointer(raw).assumingMemoryBound(to: UInt8.self), count: strlen(raw))
            driver.feed(lineBytes: Array(line))
            free(raw)
        }
        driver.output.flush()
    }
}

// MARK: - Tab completion

/// The driver Tab completes for, and the candidates of the word being completed (libedit
/// calls back through C function pointers, which capture nothing; the shell has one
/// interactive loop, on one thread).
nonisolated(unsafe) private var completionDriver: ShellDriver?
nonisolated(unsafe) private var completionMatches: [String] = []

/// libedit's completion hook: the word before the cursor, the statement so far in front of
/// it, and the names the database shows now (`Completion.candidates`). Never falls back
/// to file names.
private func complete(_ text: UnsafePointer<CChar>?, _ start: Int32, _ end: Int32)
    -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
    slicehouse_set_completion_over(1)
    guard let driver = completionDriver, let text else { return nil }
    let word = String(cString: text)
    var prefix = ""
    if let line = slicehouse_line_buffer() {
        let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(line).assumingMemoryBound(to: UInt8.self), count: strlen(line))
        prefix = String(decoding: bytes.prefix(max(0, Int(start))), as: UTF8.self)
    }
    let before = driver.pendingStatement.isEmpty ? prefix : driver.pendingStatement + "\n" + prefix
    completionMatches = Completion.candidates(word: word, before: before, names: driver.backend.completionNames())
    if completionMatches.isEmpty { return nil }
    return rl_completion_matches(text) { _, state in
        let i = Int(state)
        guard i >= 0, i < completionMatches.count else { return nil }
        return strdup(completionMatches[i])
    }
}
