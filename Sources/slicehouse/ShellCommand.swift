// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import SlicehouseEngine
import SlicehouseShell

/// The SQL shell.
struct ShellCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shell",
        abstract: "Interactive SQL shell; also runs -c commands and -f scripts (the default subcommand).",
        discussion: """
            Without -h the shell opens the database directory itself (-D DIR, $SLICEHOUSE_DATA, or \
            ~/.slicehouse/default). With -h it connects to a running server instead (slicehouse serve, \
            or any server speaking PostgreSQL's protocol), as psql does; the password comes from \
            $PGPASSWORD or $SLICEHOUSE_PASSWORD, else it is asked for on the terminal.
            """,
        // -h is the server's host, as in psql; help is --help or -?.
        helpNames: [.long, .customShort("?")])

    @Option(name: [.customShort("c"), .customLong("command")], parsing: .unconditionalSingleValue,
            help: ArgumentHelp("Run one command (SQL, or backslash commands) and exit; repeatable.", valueName: "command"))
    var commands: [String] = []

    @Option(name: [.customShort("f"), .customLong("file")], parsing: .unconditionalSingleValue,
            help: ArgumentHelp("Run the commands in a file (- for standard input) and exit; repeatable.", valueName: "file"))
    var files: [String] = []

    @Flag(name: .customLong("csv"), help: "CSV output (RFC 4180 quoting, header line).")
    var csv = false

    @Flag(name: [.customShort("A"), .customLong("no-align")], help: "Unaligned output (fields separated by -F, default |).")
    var unaligned = false

    @Flag(name: [.customShort("t"), .customLong("tuples-only")], help: "Print rows only: no header, no row count footer.")
    var tuplesOnly = false

    @Flag(name: [.customShort("x"), .customLong("expanded")], help: "Expanded output (one line per column).")
    var expanded = false

    @Option(name: [.customShort("F"), .customLong("field-separator")], parsing: .unconditional,
            help: ArgumentHelp("Field separator for unaligned output.", valueName: "separator"))
    var fieldSeparator: String?

    @Option(name: [.customShort("v"), .customLong("set"), .customLong("variable")], parsing: .unconditionalSingleValue,
            help: ArgumentHelp("Set a variable, e.g. -v ON_ERROR_STOP=1 (stop at the first error, exit status 1); -v NAME unsets.",
                               valueName: "name=value"))
    var variables: [String] = []

    @Flag(name: [.customShort("q"), .customLong("quiet")], help: "Do not print command tags and informational messages.")
    var quiet = false

    @Flag(name: [.customShort("e"), .customLong("echo-queries")], help: "Print each statement before running it.")
    var echoQueries = false

    @Flag(name: [.customShort("X"), .customLong("no-psqlrc")], help: "Accepted for psql compatibility (there is no startup file).")
    var noStartupFile = false

    @Option(name: [.customShort("h"), .customLong("host")],
            help: ArgumentHelp("Connect to the server on this host instead of opening a directory.", valueName: "host"))
    var host: String?

    @Option(name: [.customShort("p"), .customLong("port")], help: ArgumentHelp("The server's port (default 5439).", valueName: "port"))
    var port: Int?

    @Option(name: [.customShort("U"), .customLong("username")], help: ArgumentHelp("User name on the server (default awsuser).", valueName: "user"))
    var user: String?

    @Option(name: [.customShort("d"), .customLong("dbname")], help: ArgumentHelp("The database to connect to (default dev).", valueName: "name"))
    var databaseName: String?

    @Option(name: [.customShort("D"), .customLong("data")],
            help: ArgumentHelp("Database directory (default: $SLICEHOUSE_DATA, else ~/.slicehouse/default).",
                               valueName: "dir"))
    var dataDirectory: String?

    @Flag(name: .customLong("in-memory"), help: "Use a temporary in-memory database.")
    var inMemory = false

    @Option(name: .customLong("nodes"), help: "Compute nodes of a newly created database.")
    var nodes = 2

    @Option(name: .customLong("slices-per-node"), help: "Slices per compute node of a newly created database.")
    var slicesPerNode = 2

    @Option(name: .customLong("memory"),
            help: ArgumentHelp("Memory for all queries at once, e.g. 4GB (default: WLM divides 60% of RAM).", valueName: "size"))
    var memory: String?

    func validate() throws {
        if let memory, Database.parseMemorySize(memory) == nil {
            throw ValidationError("invalid --memory \"\(memory)\" (expected a size such as 4GB, 512MB or a number of bytes)")
        }
        guard nodes >= 1 && nodes <= 128 else { throw ValidationError("--nodes must be between 1 and 128") }
        guard slicesPerNode >= 1 && slicesPerNode <= 64 else {
            throw ValidationError("--slices-per-node must be between 1 and 64")
        }
        if let port, !(1...65535).contains(port) {
            throw ValidationError("invalid port \"\(port)\" (expected 1 to 65535)")
        }
        for v in variables where v.isEmpty || v.hasPrefix("=") {
            throw ValidationError("invalid variable assignment \"\(v)\" (expected NAME=VALUE)")
        }
    }

    /// The database directory: -D, $SLICEHOUSE_DATA, or ~/.slicehouse/default.
    func resolvedDirectory() -> String? { ShellCommand.directory(dataDirectory, inMemory: inMemory) }

    /// `explicit` (-D), else $SLICEHOUSE_DATA, else ~/.slicehouse/default; nil in memory.
    /// (`serve` resolves its directory the same way.)
    static func directory(_ explicit: String?, inMemory: Bool) -> String? {
        if inMemory { return nil }
        let environment = ProcessInfo.processInfo.environment
        if let dir = explicit { return dir }
        if let dir = environment["SLICEHOUSE_DATA"], !dir.isEmpty { return dir }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.slicehouse/default"
    }

    func shellOptions() -> ShellOptions {
        var options = ShellOptions()
        if csv { options.format = .csv } else if unaligned { options.format = .unaligned }
        options.tuplesOnly = tuplesOnly
        options.expanded = expanded ? .on : .off
        if let fieldSeparator { options.fieldSeparator = fieldSeparator }
        options.quiet = quiet
        options.echoQueries = echoQueries
        if let columns = ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init), columns > 0 {
            options.terminalColumns = columns
        }
        return options
    }

    func run() throws {
        let interactive = actionsGiven() == false && isatty(STDIN_FILENO) != 0
        let backend: any ShellBackend
        let cancel: @Sendable () -> Bool
        let banner: String
        let description: String
        var remote: RemoteBackend? = nil
        if let host {
            guard dataDirectory == nil && !inMemory else {
                printError("slicehouse: error: -h connects to a server, which has its own database: "
                           + "it cannot be combined with -D or --in-memory")
                throw ExitCode(2)
            }
            let target = RemoteBackend.Target(host: host, port: port ?? 5439, user: user ?? "awsuser",
                                              database: databaseName ?? "dev")
            let connection = try Self.connect(target)
            remote = connection
            backend = connection
            cancel = { connection.cancelRunning() }
            banner = "slicehouse (Slicehouse, server \(target.host):\(target.port), database \(target.database))"
            description = connection.connectionDescription
        } else {
            if port != nil || user != nil {
                printError("slicehouse: error: -p and -U name a server: give its host with -h")
                throw ExitCode(2)
            }
            let directory = resolvedDirectory()
            let cluster = ClusterConfig(nodes: nodes, slicesPerNode: slicesPerNode)
            let database: Database
            do {
                if let directory {
                    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                }
                database = try Database(directory: directory, cluster: cluster, memoryBytes: memory.flatMap(Database.parseMemorySize))
            } catch {
                let reason = ErrorReport.message(of: error)
                printError("slicehouse: error: cannot open database \(directory.map { "in \"\($0)\"" } ?? "in memory"): \(reason)")
                throw ExitCode(2)
            }
            let local: Session
            do {
                local = try database.connect(to: databaseName ?? Database.defaultDatabase)
            } catch {
                printError("slicehouse: error: \(ErrorReport.message(of: error))")
                throw ExitCode(2)
            }
            backend = local
            cancel = { [weak local] in local?.cancelRunning() ?? false }
            let layout = "\(database.cluster.nodes) node\(database.cluster.nodes == 1 ? "" : "s") × "
                + "\(database.cluster.slicesPerNode) slice\(database.cluster.slicesPerNode == 1 ? "" : "s") per node"
            banner = "slicehouse (Slicehouse, \(layout))"
            let named = local.connectedDatabase == Database.defaultDatabase ? "" : " \"\(local.connectedDatabase)\""
            description = directory.map {
                "You are connected to the Slicehouse database\(named) in \"\($0)\" (\(layout))."
            } ?? "You are connected to an in-memory Slicehouse database\(named) (\(layout))."
        }
        defer { remote?.close() }

        let driver = ShellDriver(backend: backend, options: shellOptions())
        // Ctrl-C cancels the running statement, as in psql (through a CancelRequest when
        // connected to a server); the shell goes on. At the prompt it is ignored; between
        // statements of -c / -f it ends the shell.
        SignalWatcher.install([SIGINT]) { _ in
            if !cancel() && !interactive {
                Foundation.exit(130)
            }
        }
        if isatty(STDERR_FILENO) != 0 && remote == nil {
            // Long COPYs show a progress line on the terminal (never in redirected output).
            driver.progressOutput = { text in FileHandle.standardError.write(Data(text.utf8)) }
        }
        driver.connectionDescription = description
        // As psql: -v NAME=VALUE sets, -v NAME= sets to empty, -v NAME unsets.
        for assignment in variables {
            if let equals = assignment.firstIndex(of: "=") {
                driver.setVariable(String(assignment[..<equals]), String(assignment[assignment.index(after: equals)...]))
            } else {
                _ = driver.run(.unset(assignment))
            }
        }

        let actions = ShellAction.markingInvalid(
            ShellAction.ordered(arguments: Array(CommandLine.arguments.dropFirst()), commands: commands, files: files),
            invalid: Self.invalidArguments())
        if !actions.isEmpty {
            driver.run(actions)
            if driver.exitCode != 0 { throw ExitCode(driver.exitCode) }
            return
        }

        if isatty(STDIN_FILENO) != 0 {
            InteractiveLoop.run(driver: driver, banner: banner)
        } else {
            driver.inputName = "<stdin>"
            var input = LineReader(fd: STDIN_FILENO)
            while !driver.isFinished, var line = input.next() {
                if line.last == UInt8(ascii: "\r") { line.removeLast() }
                driver.feed(lineBytes: line)
            }
            driver.endOfInput()
        }
        driver.output.flush()
        if driver.exitCode != 0 { throw ExitCode(driver.exitCode) }
    }

    /// Connect to a server: the password from $PGPASSWORD or $SLICEHOUSE_PASSWORD, else (when
    /// the server asks for one) typed at the terminal. A failure is psql's message and exit status 2.
    static func connect(_ target: RemoteBackend.Target) throws -> RemoteBackend {
        let environment = ProcessInfo.processInfo.environment
        let password = environment["PGPASSWORD"] ?? environment["SLICEHOUSE_PASSWORD"]
        do {
            return try RemoteBackend.connect(target, password: password)
        } catch let failure as RemoteBackend.ConnectionFailure {
            if failure.passwordRequired && password == nil,
               let typed = PasswordPrompt.ask("Password for user \(target.user): ") {
                do {
                    return try RemoteBackend.connect(target, password: typed)
                } catch let again as RemoteBackend.ConnectionFailure {
                    printError("slicehouse: error: " + again.description)
                    throw ExitCode(2)
                }
            }
            printError("slicehouse: error: " + failure.description)
            throw ExitCode(2)
        }
    }

    /// Whether -c or -f commands were given (the shell runs them and exits).
    func actionsGiven() -> Bool { !commands.isEmpty || !files.isEmpty }

    /// The command-line arguments whose bytes are not valid UTF-8, as decoded (with
    /// U+FFFD) to their error: a `-c` among them fails instead of running altered text.
    static func invalidArguments() -> [String: String] {
        var out: [String: String] = [:]
        for i in 1..<Int(CommandLine.argc) {
            guard let raw = CommandLine.unsafeArgv[i] else { continue }
            let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(raw).assumingMemoryBound(to: UInt8.self), count: strlen(raw))
            let (text, invalid) = UTF8Input.decode(bytes)
            guard let invalid else { continue }
            out[text] = invalid
            if text.hasPrefix("--command=") { out[String(text.dropFirst("--command=".count))] = invalid }
        }
        return out
    }
}

/// Lines of a file descriptor as bytes (without the newline), read in large blocks.
struct LineReader {
    let fd: Int32
    private var buffer: [UInt8] = []
    private var start = 0
    private var atEnd = false

    init(fd: Int32) { self.fd = fd }

    mutating func next() -> [UInt8]? {
        while true {
            if let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(buffer[start..<newline])
                start = newline + 1
                return line
            }
            if atEnd {
                guard start < buffer.count else { return nil }
                let line = Array(buffer[start...])
                start = buffer.count
                return line
            }
            buffer.removeFirst(start)
            start = 0
            var block = [UInt8](filled: 0, count: 1 << 16)
            let n = block.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { atEnd = true } else { buffer.append(contentsOf: block[0..<n]) }
        }
    }
}

