// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseEngine
import SlicehouseTypes

/// The shell's behaviour, independent of where lines come from: it collects
/// statements, runs meta-commands, executes SQL and prints results, errors,
/// notices and timings like psql.
///
/// The `slicehouse` executable feeds it lines from libedit (interactive), from
/// standard input, from `-f` files and `-c` strings.
public final class ShellDriver {
    /// Where statements run: this process's `Session`, or a server through `RemoteBackend`.
    public let backend: any ShellBackend
    public let output: any ShellOutput
    public var options: ShellOptions
    /// psql variables set with `\set` / `-v` (ON_ERROR_STOP, QUIET, ECHO are honoured).
    public private(set) var variables: [String: String] = [:]
    /// Interactive sessions get no `file:line:` error prefixes and accept `help`/`quit`.
    public var interactive = false
    /// Name used in error prefixes (`slicehouse:file.sql:3: ERROR: ...`).
    public var programName = "slicehouse"
    /// What `\conninfo` prints.
    public var connectionDescription = "You are connected to an in-memory Slicehouse database."
    /// Called with each complete history entry (a statement or a meta-command line).
    public var historyHandler: ((String) -> Void)?
    /// Where a long COPY's progress line goes (`COPY t: 1.2 GB/3.4 GB read, 5,000 rows`,
    /// rewritten in place a few times a second, erased when the statement ends). Set it
    /// only when standard error is a terminal; nil (the default) shows no progress.
    public var progressOutput: (@Sendable (String) -> Void)?
    /// Milliseconds on a monotonic clock (tests substitute a fake).
    public var clock: () -> Double = {
        Double(DispatchTime.now().uptimeNanoseconds) / 1_000_000
    }

    /// Process exit status so far: 1 after `ON_ERROR_STOP` fired or when the
    /// last `-c`/`-f` action failed; 0 otherwise.
    public private(set) var exitCode: Int32 = 0
    /// True after `\q`, or after an error with `ON_ERROR_STOP`.
    public private(set) var isFinished = false

    /// An input being read: standard input, a `-f` file, an `\i` file, a `-c` string.
    private struct Source {
        /// Shown in error prefixes; nil for interactive input and `-c`.
        var name: String?
        /// Directory for `\ir`.
        var directory: String?
        var splitter = StatementSplitter()
        /// Set when a line of the statement being gathered was not valid UTF-8: the error
        /// that statement gets instead of running (cleared when the statement ends).
        var invalidInput: String?
    }
    private var sources: [Source] = []
    private var historyLines: [String] = []
    private var lastQuery: String?
    private static let maxIncludeDepth = 32

    public init(backend: any ShellBackend, options: ShellOptions = ShellOptions(),
                output: any ShellOutput = StandardShellOutput()) {
        self.backend = backend
        self.options = options
        self.output = output
        sources = [Source(name: nil, directory: nil)]
        if options.onErrorStop { variables["ON_ERROR_STOP"] = "on" }
    }

    /// Set a variable as `-v NAME=VALUE` / `\set NAME VALUE` does.
    public func setVariable(_ name: String, _ value: String) {
        variables[name] = value
        applyVariable(name)
    }

    // MARK: - Line input (interactive and standard input)

    /// Name shown in error prefixes for line input: `<stdin>` for piped input, nil when interactive.
    public var inputName: String? {
        get { sources[0].name }
        set { sources[0].name = newValue }
    }

    /// The statement typed so far on earlier lines (empty at the main prompt): what Tab
    /// completion reads for context.
    public var pendingStatement: String { sources[sources.count - 1].splitter.pendingText }

    /// The prompt for the next line: `slicehouse=> ` or, inside a statement, `slicehouse-> `
    /// (`'`, `"`, `*`, `$` or `(` replace `-` inside quotes, comments and parentheses).
    public var prompt: String {
        let splitter = sources[sources.count - 1].splitter
        return splitter.isEmpty ? "slicehouse=> " : "slicehouse\(splitter.continuationMarker)> "
    }

    /// Process one line of input given as bytes (without its newline): the statement
    /// it belongs to fails with the encoding error when they are not valid UTF-8.
    public func feed<Bytes: Collection>(lineBytes: Bytes) where Bytes.Element == UInt8 {
        let (text, invalid) = UTF8Input.decode(lineBytes)
        if let invalid { sources[0].invalidInput = invalid }
        feed(line: text)
    }

    /// Process one line of input (without its newline).
    public func feed(line: String) {
        guard !isFinished else { return }
        abortScripts = false
        var splitter = sources[0].splitter
        if interactive && splitter.isEmpty {
            switch line.trimmingCharacters(in: .whitespaces).lowercased() {
            case "help":
                output.write(ShellHelp.intro)
                output.flush()
                historyHandler?(line)
                return
            case "quit", "exit", "\\q":
                isFinished = true
                return
            default:
                break
            }
        }
        if !(splitter.isEmpty && line.allSatisfy { $0 == " " || $0 == "\t" }) { historyLines.append(line) }
        let events = splitter.feed(line: line)
        sources[0].splitter = splitter
        _ = handle(events, sourceIndex: 0)
        if sources[0].splitter.isEmpty { sources[0].invalidInput = nil }
        if sources[0].splitter.isEmpty && !historyLines.isEmpty {
            historyHandler?(historyLines.joined(separator: "\n"))
            historyLines.removeAll()
        }
        output.flush()
    }

    /// End of line input: runs an unterminated last statement (non-interactive only, as psql).
    public func endOfInput() {
        guard !isFinished else { return }
        if !interactive {
            let events = sources[0].splitter.finish()
            _ = handle(events, sourceIndex: 0)
        }
        sources[0].splitter.reset()
        output.flush()
    }

    // MARK: - Actions (-c, -f)

    /// `-c` given bytes that are not valid UTF-8: the error `message`, exit status 1.
    @discardableResult
    public func runInvalidCommandString(_ message: String) -> Bool {
        guard !isFinished else { return false }
        report(error: "ERROR:  " + message, sourceIndex: 0, line: nil)
        output.flush()
        if !isFinished { exitCode = 1 }
        return false
    }

    /// `-c`: a backslash command line, or SQL sent as one string. Returns false on error.
    @discardableResult
    public func runCommandString(_ text: String) -> Bool {
        guard !isFinished else { return false }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let ok: Bool
        if trimmed.hasPrefix("\\") {
            ok = runMetaCommands(String(trimmed.dropFirst()), sourceIndex: 0, line: nil)
        } else if trimmed.isEmpty {
            ok = true
        } else {
            ok = executeSQL(text, sourceIndex: 0, line: nil)
        }
        output.flush()
        if !isFinished { exitCode = ok ? 0 : 1 }
        return ok
    }

    /// `-f`: run a script file (`-` is standard input). Returns false when the
    /// file cannot be read or ON_ERROR_STOP stopped it.
    @discardableResult
    public func runFile(_ path: String) -> Bool {
        guard !isFinished else { return false }
        let ok = include(path, sourceIndex: 0, line: nil, relative: false)
        output.flush()
        if !isFinished { exitCode = ok ? 0 : 1 }
        return ok
    }

    /// Run script text as a file named `name` (psql's `-f` semantics: errors are
    /// reported with `name:line:` and do not stop the script unless ON_ERROR_STOP).
    @discardableResult
    public func runScript(_ text: String, name: String, directory: String? = nil) -> Bool {
        runScript(lines: text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
                    .map { (String($0), nil) },
                  name: name, directory: directory)
    }

    /// Run a script given as bytes; a statement with a line that is not valid UTF-8
    /// fails with the encoding error (the others run).
    @discardableResult
    public func runScript(bytes: [UInt8], name: String, directory: String? = nil) -> Bool {
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { UTF8Input.decode($0) }
        return runScript(lines: lines, name: name, directory: directory)
    }

    private func runScript(lines: [(text: String, invalid: String?)], name: String, directory: String?) -> Bool {
        guard sources.count <= ShellDriver.maxIncludeDepth else {
            report(error: "\\i: too many nested includes", sourceIndex: sources.count - 1, line: nil)
            return false
        }
        sources.append(Source(name: name, directory: directory))
        let index = sources.count - 1
        defer { sources.removeLast() }
        var lines = lines
        if lines.last?.text == "" && lines.last?.invalid == nil { lines.removeLast() }
        for (text, invalid) in lines {
            if isFinished || abortScripts { break }
            var line = text
            if line.hasSuffix("\r") { line.removeLast() }
            if let invalid { sources[index].invalidInput = invalid }
            let events = sources[index].splitter.feed(line: line)
            _ = handle(events, sourceIndex: index)
            if sources[index].splitter.isEmpty { sources[index].invalidInput = nil }
        }
        if !isFinished && !abortScripts {
            _ = handle(sources[index].splitter.finish(), sourceIndex: index)
        }
        return !stoppedByError && !abortScripts
    }

    private var stoppedByError = false
    /// Set by an error under ON_ERROR_STOP in interactive mode: unwinds `\i` scripts.
    private var abortScripts = false

    // MARK: - Dispatch

    /// Handle splitter events; false if any failed.
    private func handle(_ events: [StatementSplitter.Event], sourceIndex: Int) -> Bool {
        var ok = true
        for event in events {
            if isFinished || (abortScripts && sourceIndex > 0) { break }
            switch event {
            case .statement(let sql, let line):
                lastQuery = sql
                if let invalid = sources[sourceIndex].invalidInput, sql.contains("\u{FFFD}") {
                    // The bytes of this statement were not UTF-8: refuse it, as the server would.
                    report(error: "ERROR:  " + invalid, sourceIndex: sourceIndex, line: line)
                    ok = false
                } else if !executeSQL(sql, sourceIndex: sourceIndex, line: line) {
                    ok = false
                }
            case .metaCommand(let text, let line):
                if !runMetaCommands(text, sourceIndex: sourceIndex, line: line) { ok = false }
            }
            output.flush()
        }
        return ok
    }

    private func locationPrefix(sourceIndex: Int, line: Int?) -> String? {
        guard sourceIndex < sources.count, let name = sources[sourceIndex].name, let line else { return nil }
        return "\(programName):\(name):\(line): "
    }

    /// An error happened. With ON_ERROR_STOP, a non-interactive shell stops
    /// (exit status 1); an interactive one abandons running `\i` scripts and
    /// returns to the prompt, as psql does.
    private func errorOccurred() {
        guard options.onErrorStop else { return }
        if interactive {
            abortScripts = true
        } else {
            stoppedByError = true
            isFinished = true
            exitCode = 1
        }
    }

    private func report(error message: String, sourceIndex: Int, line: Int?) {
        output.writeError((locationPrefix(sourceIndex: sourceIndex, line: line) ?? "") + message + "\n")
        errorOccurred()
    }

    /// Run SQL text (one or more statements) and print its results.
    @discardableResult
    private func executeSQL(_ sql: String, sourceIndex: Int, line: Int?) -> Bool {
        if options.echoQueries { output.write(sql + "\n") }
        let start = clock()
        let results: [StatementResult]
        do {
            results = try withProgressLine { try backend.execute(sql) }
        } catch {
            let elapsed = clock() - start
            output.writeError(ErrorReport.format(error, statement: sql,
                                                 location: locationPrefix(sourceIndex: sourceIndex, line: line)))
            if options.timing { output.write(ResultPrinter.timing(milliseconds: elapsed)) }
            if error is ShellConnectionLost && !interactive {
                // As psql: a script cannot go on without its connection (exit status 2).
                isFinished = true
                exitCode = 2
                return false
            }
            errorOccurred()
            return false
        }
        let elapsed = clock() - start
        let printer = ResultPrinter(options: options)
        let prefix = locationPrefix(sourceIndex: sourceIndex, line: line) ?? ""
        for result in results {
            let notices = ResultPrinter.notices(result)
            if !notices.isEmpty {
                let text = notices.split(separator: "\n").map { prefix + $0 + "\n" }.joined()
                output.writeError(text)
            }
            output.write(printer.render(result))
        }
        if options.timing { output.write(ResultPrinter.timing(milliseconds: elapsed)) }
        return true
    }

    /// Run `body` showing COPY progress on `progressOutput` (when set), erased at the end.
    private func withProgressLine<R>(_ body: () throws -> R) rethrows -> R {
        guard let write = progressOutput else { return try body() }
        output.flush()
        let line = ProgressLineState(write: write)
        backend.copyProgress = { p in line.show(p) }
        defer {
            backend.copyProgress = nil
            line.erase()
        }
        return try body()
    }

    // MARK: - Meta-commands

    private func runMetaCommands(_ text: String, sourceIndex: Int, line: Int?) -> Bool {
        var ok = true
        for command in MetaCommand.parse(text) {
            if isFinished { break }
            if !run(command, sourceIndex: sourceIndex, line: line) { ok = false }
        }
        return ok
    }

    private func info(_ message: String) {
        if !options.quiet { output.write(message + "\n") }
    }

    private func onOff(_ b: Bool) -> String { b ? "on" : "off" }

    /// Run one meta-command; false on error.
    public func run(_ command: MetaCommand) -> Bool {
        let ok = run(command, sourceIndex: sources.count - 1, line: nil)
        output.flush()
        return ok
    }

    private func run(_ command: MetaCommand, sourceIndex: Int, line: Int?) -> Bool {
        switch command {
        case .quit:
            isFinished = true
        case .help:
            output.write(ShellHelp.backslashCommands)
        case .timing(let value):
            options.timing = value ?? !options.timing
            info("Timing is \(onOff(options.timing)).")
        case .bars(let value):
            options.explainBars = value ?? !options.explainBars
            info("EXPLAIN ANALYZE bars are \(onOff(options.explainBars)).")
        case .expanded(let value):
            setExpanded(value ?? (options.expanded == .off ? .on : .off))
        case .listTables(let pattern, _):
            return listTables(pattern: pattern, sourceIndex: sourceIndex, line: line)
        case .describe(let pattern):
            return describe(pattern: pattern, sourceIndex: sourceIndex, line: line)
        case .include(let path, let relative):
            return include(path, sourceIndex: sourceIndex, line: line, relative: relative)
        case .echo(let text):
            output.write(text + "\n")
        case .pset(let name, let value):
            return pset(name, value, sourceIndex: sourceIndex, line: line)
        case .set(let name, let value):
            guard let name else {
                for key in variables.keys.sorted() { output.write("\(key) = '\(variables[key] ?? "")'\n") }
                return true
            }
            setVariable(name, value ?? "")
        case .unset(let name):
            variables[name] = nil
            applyVariable(name)
        case .toggleAligned:
            options.format = options.format == .aligned ? .unaligned : .aligned
            info("Output format is \(options.format.rawValue).")
        case .tuplesOnly(let value):
            options.tuplesOnly = value ?? !options.tuplesOnly
            info("Tuples only is \(onOff(options.tuplesOnly)).")
        case .fieldSeparator(let value):
            if let value { options.fieldSeparator = value }
            info("Field separator is \"\(options.fieldSeparator)\".")
        case .go:
            let pending = sources[sourceIndex].splitter.takePending()
            guard let sql = pending ?? lastQuery else { return true }
            lastQuery = sql
            return executeSQL(sql, sourceIndex: sourceIndex, line: line)
        case .resetBuffer:
            sources[sourceIndex].splitter.reset()
            info("Query buffer reset (cleared).")
        case .printBuffer:
            let pending = sources[sourceIndex].splitter.pendingText
            output.write(pending.isEmpty ? "Query buffer is empty.\n" : pending + "\n")
        case .connectionInfo:
            output.write(connectionDescription + "\n")
        case .invalid(let message):
            var text = message
            if message.hasPrefix("invalid command") { text += "\nTry \\? for help." }
            report(error: text, sourceIndex: sourceIndex, line: line)
            return false
        }
        return true
    }

    private func setExpanded(_ value: ShellOptions.Expanded) {
        options.expanded = value
        switch value {
        case .on: info("Expanded display is on.")
        case .off: info("Expanded display is off.")
        case .auto: info("Expanded display is used automatically.")
        }
    }

    private func applyVariable(_ name: String) {
        let value = variables[name]
        switch name {
        case "ON_ERROR_STOP":
            options.onErrorStop = value.map { $0.isEmpty ? true : (MetaCommand.parseBoolean($0) ?? false) } ?? false
        case "QUIET":
            options.quiet = value.map { $0.isEmpty ? true : (MetaCommand.parseBoolean($0) ?? false) } ?? false
        case "ECHO":
            options.echoQueries = value.map { ["queries", "all"].contains($0.lowercased()) } ?? false
        default:
            break
        }
    }

    private func pset(_ name: String?, _ value: String?, sourceIndex: Int, line: Int?) -> Bool {
        guard let name else {
            output.write("""
                csv_fieldsep             '\(options.csvFieldSeparator)'
                expanded                 \(options.expanded.rawValue)
                fieldsep                 '\(options.fieldSeparator)'
                footer                   \(onOff(options.showFooter))
                format                   \(options.format.rawValue)
                null                     '\(options.nullDisplay)'
                tuples_only              \(onOff(options.tuplesOnly))

                """)
            return true
        }
        func boolean(_ current: Bool) -> Bool? {
            guard let value else { return !current }
            return MetaCommand.parseBoolean(value)
        }
        switch name {
        case "format":
            if let value {
                let candidates = ShellOptions.Format.allCases.filter { $0.rawValue.hasPrefix(value.lowercased()) }
                guard candidates.count == 1, let format = candidates.first else {
                    report(error: "\\pset: allowed formats are aligned, csv, unaligned", sourceIndex: sourceIndex, line: line)
                    return false
                }
                options.format = format
            }
            info("Output format is \(options.format.rawValue).")
        case "tuples_only", "t":
            guard let b = boolean(options.tuplesOnly) else { return invalidBoolean(name, sourceIndex, line) }
            options.tuplesOnly = b
            info("Tuples only is \(onOff(b)).")
        case "footer":
            guard let b = boolean(options.showFooter) else { return invalidBoolean(name, sourceIndex, line) }
            options.showFooter = b
            info("Default footer is \(onOff(b)).")
        case "expanded", "x":
            if let value, value.lowercased() == "auto" {
                setExpanded(.auto)
            } else {
                guard let b = boolean(options.expanded != .off) else { return invalidBoolean(name, sourceIndex, line) }
                setExpanded(b ? .on : .off)
            }
        case "fieldsep":
            if let value { options.fieldSeparator = value }
            info("Field separator is \"\(options.fieldSeparator)\".")
        case "csv_fieldsep":
            if let value {
                guard value.count == 1, let c = value.first, c != "\"", c != "\n", c != "\r" else {
                    report(error: "\\pset: csv_fieldsep must be a single one-byte character",
                           sourceIndex: sourceIndex, line: line)
                    return false
                }
                options.csvFieldSeparator = c
            }
            info("Field separator for CSV is \"\(options.csvFieldSeparator)\".")
        case "recordsep":
            if let value { options.recordSeparator = value }
            info(options.recordSeparator == "\n" ? "Record separator is <newline>."
                 : "Record separator is \"\(options.recordSeparator)\".")
        case "null":
            if let value { options.nullDisplay = value }
            info("Null display is \"\(options.nullDisplay)\".")
        case "pager":
            info("Pager usage is off.")
        case "border":
            info("Border style is 1.")
        default:
            report(error: "\\pset: unknown option: \(name)", sourceIndex: sourceIndex, line: line)
            return false
        }
        return true
    }

    private func invalidBoolean(_ name: String, _ sourceIndex: Int, _ line: Int?) -> Bool {
        report(error: "\\pset: \(name): Boolean expected", sourceIndex: sourceIndex, line: line)
        return false
    }

    // MARK: - \d

    /// psql-style pattern match: `*` any run, `?` one character; unquoted
    /// patterns are case-insensitive, `"quoted"` parts are exact.
    public static func matches(pattern: String, name: String) -> Bool {
        var p: [Character] = []
        var exact = false
        for c in pattern {
            if c == "\"" { exact.toggle(); continue }
            p.append(exact ? c : Character(c.lowercased()))
        }
        let n = Array(pattern.contains("\"") ? name : name.lowercased())
        // Classic glob matching with backtracking on the last `*`.
        var pi = 0, ni = 0, star = -1, mark = 0
        while ni < n.count {
            if pi < p.count && (p[pi] == "?" || p[pi] == n[ni]) {
                pi += 1
                ni += 1
            } else if pi < p.count && p[pi] == "*" {
                star = pi
                mark = ni
                pi += 1
            } else if star >= 0 {
                pi = star + 1
                mark += 1
                ni = mark
            } else {
                return false
            }
        }
        while pi < p.count && p[pi] == "*" { pi += 1 }
        return pi == p.count
    }

    /// The table-name part of a `schema.table` pattern.
    private static func namePart(_ pattern: String) -> String {
        var inQuotes = false
        var lastDot: String.Index? = nil
        for i in pattern.indices {
            if pattern[i] == "\"" { inQuotes.toggle() } else if pattern[i] == "." && !inQuotes { lastDot = i }
        }
        guard let lastDot else { return pattern }
        return String(pattern[pattern.index(after: lastDot)...])
    }

    private func nameColumn(_ result: StatementResult) -> Int? {
        result.columns.firstIndex { $0.name.lowercased() == "name" }
    }

    private func listTables(pattern: String?, sourceIndex: Int, line: Int?) -> Bool {
        let result: StatementResult
        do {
            result = try backend.listTables()
        } catch {
            output.writeError(ErrorReport.format(error, statement: nil,
                                                 location: locationPrefix(sourceIndex: sourceIndex, line: line)))
            errorOccurred()
            return false
        }
        var table = ResultTable(result, title: "List of relations")
        if let pattern, let column = nameColumn(result) {
            let namePattern = ShellDriver.namePart(pattern)
            table.rows = table.rows.filter { row in
                column < row.count && ShellDriver.matches(pattern: namePattern, name: row[column] ?? "")
            }
        }
        if table.rows.isEmpty {
            if !options.quiet {
                let message = pattern.map { "Did not find any relation named \"\($0)\"." } ?? "Did not find any relations."
                output.writeError((locationPrefix(sourceIndex: sourceIndex, line: line) ?? "") + message + "\n")
            }
            return true
        }
        output.write(ResultPrinter(options: options).render(table))
        return true
    }

    private func describe(pattern: String, sourceIndex: Int, line: Int?) -> Bool {
        var names: [String]
        if pattern.contains("*") || pattern.contains("?") {
            do {
                let list = try backend.listTables()
                let namePattern = ShellDriver.namePart(pattern)
                let rows = list.textRows()
                names = nameColumn(list).map { column in
                    rows.compactMap { row in column < row.count ? row[column] : nil }
                        .filter { ShellDriver.matches(pattern: namePattern, name: $0) }
                } ?? []
            } catch {
                output.writeError(ErrorReport.format(error, statement: nil,
                                                     location: locationPrefix(sourceIndex: sourceIndex, line: line)))
                errorOccurred()
                return false
            }
        } else if pattern.hasPrefix("\"") && pattern.hasSuffix("\"") && pattern.count >= 2 {
            names = [String(pattern.dropFirst().dropLast())]
        } else {
            names = [pattern.contains("\"") ? pattern.replacingOccurrences(of: "\"", with: "") : pattern.lowercased()]
        }
        if names.isEmpty {
            output.writeError((locationPrefix(sourceIndex: sourceIndex, line: line) ?? "")
                              + "Did not find any relation named \"\(pattern)\".\n")
            return true
        }
        var ok = true
        for name in names {
            do {
                let result = try backend.describeTable(name)
                let qualified = name.contains(".") ? name : "public.\(name)"
                let table = ResultTable(result, title: "Table \"\(qualified)\"", footers: [])
                output.write(ResultPrinter(options: options).render(table))
            } catch let error as SQLError where error.code == .undefinedTable {
                output.writeError((locationPrefix(sourceIndex: sourceIndex, line: line) ?? "")
                                  + "Did not find any relation named \"\(pattern)\".\n")
                errorOccurred()
                ok = false
            } catch {
                output.writeError(ErrorReport.format(error, statement: nil,
                                                     location: locationPrefix(sourceIndex: sourceIndex, line: line)))
                errorOccurred()
                ok = false
            }
        }
        return ok
    }

    // MARK: - \i

    private func include(_ path: String, sourceIndex: Int, line: Int?, relative: Bool) -> Bool {
        var resolved = path
        if path == "-" {
            return runScript(bytes: Array(FileHandle.standardInput.readDataToEndOfFile()), name: "<stdin>")
        }
        if path.hasPrefix("~/"), let home = ProcessInfo.processInfo.environment["HOME"] {
            resolved = home + String(path.dropFirst())
        } else if relative, !path.hasPrefix("/"), let directory = sources[sourceIndex].directory {
            resolved = directory + "/" + path
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: resolved, isDirectory: &isDirectory), !isDirectory.boolValue,
              let data = FileManager.default.contents(atPath: resolved) else {
            let reason = FileManager.default.fileExists(atPath: resolved) ? "Is a directory or not readable"
                : "No such file or directory"
            let prefix = locationPrefix(sourceIndex: sourceIndex, line: line) ?? "\(programName): "
            output.writeError(prefix + "error: \(path): \(reason)\n")
            errorOccurred()
            return false
        }
        let directory = (resolved as NSString).deletingLastPathComponent
        return runScript(bytes: Array(data), name: path, directory: directory.isEmpty ? "." : directory)
    }
}
