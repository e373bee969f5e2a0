// SPDX-License-Identifier: Apache-2.0
/// One `-c` or `-f` given on the command line.
public enum ShellAction: Sendable, Equatable {
    case command(String)
    case file(String)
    /// A `-c` argument whose bytes are not valid UTF-8: it fails with this message.
    case invalidCommand(String)

    /// The `-c`/`-f` actions in command-line order (psql runs them as given).
    ///
    /// An argument parser keeps each option's values in order but not how the
    /// two options interleave, so the order is recovered from the raw
    /// `arguments`; when that does not reproduce exactly the parsed `commands`
    /// and `files`, all commands run before all files.
    public static func ordered(arguments: [String], commands: [String], files: [String]) -> [ShellAction] {
        var actions: [ShellAction] = []
        let valueOptions: Set<String> = ["-F", "--field-separator", "-v", "--set", "--variable", "-D", "--data",
                                         "--nodes", "--slices-per-node", "-h", "--host", "-p", "--port",
                                         "-U", "--username", "-d", "--dbname"]
        var i = 0
        while i < arguments.count {
            let arg = arguments[i]
            let next: String? = i + 1 < arguments.count ? arguments[i + 1] : nil
            if arg == "--" { break }
            if arg == "-c" || arg == "--command", let next {
                actions.append(.command(next))
                i += 2
            } else if arg == "-f" || arg == "--file", let next {
                actions.append(.file(next))
                i += 2
            } else if arg.hasPrefix("--command=") {
                actions.append(.command(String(arg.dropFirst("--command=".count))))
                i += 1
            } else if arg.hasPrefix("--file=") {
                actions.append(.file(String(arg.dropFirst("--file=".count))))
                i += 1
            } else if valueOptions.contains(arg) {
                i += 2
            } else if arg.hasPrefix("-") && !arg.hasPrefix("--") && arg.count > 2, let last = arg.last,
                      last == "c" || last == "f", let next {
                // Combined short flags such as -Atc "select 1".
                actions.append(last == "c" ? .command(next) : .file(next))
                i += 2
            } else {
                i += 1
            }
        }
        let parsedCommands = actions.compactMap { action -> String? in
            if case .command(let s) = action { return s }
            return nil
        }
        let parsedFiles = actions.compactMap { action -> String? in
            if case .file(let s) = action { return s }
            return nil
        }
        if parsedCommands == commands && parsedFiles == files { return actions }
        return commands.map(ShellAction.command) + files.map(ShellAction.file)
    }

    /// `actions` with each `-c` whose raw argument bytes were not valid UTF-8 (given as
    /// `invalid`: the argument as decoded, with U+FFFD, to its error) made `.invalidCommand`.
    public static func markingInvalid(_ actions: [ShellAction], invalid: [String: String]) -> [ShellAction] {
        guard !invalid.isEmpty else { return actions }
        return actions.map { action in
            if case .command(let text) = action, let message = invalid[text] { return .invalidCommand(message) }
            return action
        }
    }
}

extension ShellDriver {
    /// Run `-c`/`-f` actions in order, stopping after `\q` or an ON_ERROR_STOP error.
    /// The exit status is then in `exitCode` (that of the last action, as psql).
    public func run(_ actions: [ShellAction]) {
        for action in actions {
            switch action {
            case .command(let text): runCommandString(text)
            case .file(let path): runFile(path)
            case .invalidCommand(let message): runInvalidCommandString(message)
            }
            if isFinished { break }
        }
        output.flush()
    }
}
