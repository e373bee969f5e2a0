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
