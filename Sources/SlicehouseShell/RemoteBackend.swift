// SPDX-License-Identifier: Apache-2.0
import Foundation
import NIOCore
import NIOPosix
import PostgresNIO
import SlicehouseEngine
import SlicehouseSQL
import SlicehouseTypes
import SlicehousePlatform

/// The shell's statements run by a server over PostgreSQL's protocol (`slicehouse -h HOST`),
/// through PostgresNIO: it logs in (md5, cleartext or SCRAM-SHA-256), sends each statement
/// and decodes the rows. What PostgresNIO does not hand out — notices, the command tag, the
/// columns of an empty result, the BackendKeyData a CancelRequest needs — a
/// `ProtocolObserver` in front of its handlers reads off the wire.
///
/// Results become the same `StatementResult`s the local `Session` returns (values decoded
/// into Slicehouse's types, `WireValues`), so the shell prints them identically; server
/// errors become `SQLError`s with the position turned back into line and column.
///
/// Used from one thread (the shell's), except `cancelRunning()`, which Ctrl-C calls from the
/// signal thread.
public final class RemoteBackend: ShellBackend, @unchecked Sendable {
    /// Where to connect and as whom.
    public struct Target: Sendable, Equatable {
        public var host: String
        public var port: Int
        public var user: String
        public var database: String

        public init(host: String, port: Int = 5439, user: String = "awsuser", database: String = "dev") {
            self.host = host
            self.port = port
            self.user = user
            self.database = database
        }
    }

    /// A connection that could not be made; `description` is psql's wording
    /// (`connection to server at "127.0.0.1", port 5439 failed: Connection refused ...`).
    public struct ConnectionFailure: Error, CustomStringConvertible {
        public var description: String
        /// The server asked for a password and none was given (the shell may prompt and retry).
        public var passwordRequired = false
    }

    public let target: Target
    private let connection: PostgresConnection
    private let observer: ProtocolObserver
    private let address: SocketAddress
    private let logger: Logger
    private let lock = Lock()
    private var running = false
    private var lost = false
    /// Ignored: the server shows no progress line to its clients.
    public var copyProgress: (@Sendable (CopyProgress) -> Void)?

    private init(target: Target, connection: PostgresConnection, observer: ProtocolObserver, address: SocketAddress,
                 logger: Logger) {
        self.target = target
        self.connection = connection
        self.observer = observer
        self.address = address
        self.logger = logger
    }

    private static var quietLogger: Logger {
        var logger = Logger(label: "slicehouse.shell")
        logger.logLevel = .critical
        return logger
    }

    /// psql's prefix for a failed connection: `connection to server at "HOST" (ADDRESS), port N failed: `.
    private static func failurePrefix(_ target: Target, _ address: SocketAddress?) -> String {
        var s = "connection to server at \"\(target.host)\""
        if let ip = address?.ipAddress, ip != target.host { s += " (\(ip))" }
        return s + ", port \(target.port) failed: "
    }

    /// Connect and log in; throws `ConnectionFailure` (never crashes or hangs: the TCP
    /// connection and the login each give up after 10 seconds).
    public static func connect(_ target: Target, password: String?) throws -> RemoteBackend {
        let address: SocketAddress
        do {
            address = try SocketAddress.makeAddressResolvingHost(target.host, port: target.port)
        } catch {
            throw ConnectionFailure(description: "could not translate host name \"\(target.host)\" to address: "
                                    + "Name or service not known")
        }
        let prefix = failurePrefix(target, address)
        let observer = ProtocolObserver()
        let group = MultiThreadedEventLoopGroup.singleton
        let channel: any Channel
        do {
            channel = try ClientBootstrap(group: group)
                .connectTimeout(.seconds(10))
                .channelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(observer)
                    }
                }
                .connect(to: address).wait()
        } catch {
            throw ConnectionFailure(description: prefix + describeSocketError(error))
        }
        let configuration = PostgresConnection.Configuration(establishedChannel: channel, username: target.user,
                                                              password: password, database: target.database)
        let logger = quietLogger
        let connection: PostgresConnection
        do {
            let login = PostgresConnection.connect(on: channel.eventLoop, configuration: configuration, id: 1, logger: logger)
            // A server that accepts the connection but never answers must not hang the shell.
            let timeout = channel.eventLoop.scheduleTask(in: .seconds(10)) { channel.close(promise: nil) }
            defer { timeout.cancel() }
            connection = try login.wait()
        } catch let error as PSQLError {
            channel.close(promise: nil)
            if error.code == .authMechanismRequiresPassword {
                throw ConnectionFailure(description: prefix + "fe_sendauth: no password supplied", passwordRequired: true)
            }
            if let info = error.serverInfo, let message = info[.message] {
                let severity = info[.severity] ?? "FATAL"
                throw ConnectionFailure(description: prefix + severity + ":  " + message)
            }
            if error.code == .unsupportedAuthMechanism {
                throw ConnectionFailure(description: prefix + "authentication method requested by the server is not supported")
            }
            throw ConnectionFailure(description: prefix + "server closed the connection unexpectedly\n"
                                    + "\tThis probably means the server terminated abnormally\n"
                                    + "\tbefore or while processing the request.")
        } catch {
            channel.close(promise: nil)
            throw ConnectionFailure(description: prefix + "\(error)")
        }
        _ = observer.take()
        return RemoteBackend(target: target, connection: connection, observer: observer, address: address, logger: logger)
    }

    /// An error from connecting a socket in psql's words (`Connection refused` and its hint).
    private static func describeSocketError(_ error: any Error) -> String {
        var code: Int32? = nil
        if let io = error as? IOError { code = io.errnoCode }
        if let many = error as? NIOConnectionError {
            code = many.connectionErrors.compactMap { ($0.error as? IOError)?.errnoCode }.first
        }
        if let channelError = error as? ChannelError, case .connectTimeout = channelError {
            return "timeout expired"
        }
        guard let code else { return "\(error)" }
        let text = String(cString: strerror(code))
        if code == ECONNREFUSED {
            return text + "\n\tIs the server running on that host and accepting TCP/IP connections?"
        }
        return text
    }

    /// `\conninfo`.
    public var connectionDescription: String {
        "You are connected to database \"\(target.database)\" as user \"\(target.user)\" on host \"\(target.host)\""
            + (address.ipAddress.map { $0 != target.host ? " (address \"\($0)\")" : "" } ?? "")
            + " at port \"\(target.port)\"."
    }

    /// Send Terminate and close the connection.
    public func close() {
        try? connection.close().wait()
    }

    // MARK: - Statements

    public func execute(_ sql: String) throws -> [StatementResult] {
        // The extended protocol PostgresNIO speaks takes one statement per message: send
        // them one at a time, as the local session runs them, stopping at the first error.
        var results: [StatementResult] = []
        var searchFrom = sql.startIndex
        for statement in splitStatements(sql) {
            let range = sql.range(of: statement, range: searchFrom..<sql.endIndex)
            if let range { searchFrom = range.upperBound }
            do {
                results.append(try run(statement))
            } catch var error as SQLError {
                // The server's position counts characters into this statement; the shell
                // shows it against the whole text.
                if let line = error.line, let column = error.column {
                    let offset = range.map { sql.distance(from: sql.startIndex, to: $0.lowerBound) } ?? 0
                    let position = Self.position(in: statement, line: line, column: column).map { $0 + offset }
                    let lineAndColumn = position.flatMap { Self.lineAndColumn(in: sql, position: $0) }
                    error.line = lineAndColumn?.0
                    error.column = lineAndColumn?.1
                }
                throw error
            }
        }
        return results
    }

    private var isRunning: Bool {
        get { lock.withLock { running } }
        set { lock.withLock { running = newValue } }
    }

    /// Run one statement and collect its result.
    func run(_ statement: String) throws -> StatementResult {
        if lock.withLock({ lost }) { throw ShellConnectionLost.noConnection }
        _ = observer.take()
        isRunning = true
        defer { isRunning = false }
        let result: PostgresQueryResult
        do {
            result = try connection.query(PostgresQuery(unsafeSQL: statement), logger: logger).wait()
        } catch let error as PSQLError {
            _ = observer.take()
            throw convert(error, statement: statement)
        } catch {
            lock.withLock { lost = true }
            throw ShellConnectionLost.closed
        }
        let seen = observer.take()
        let tag = seen.tag ?? Self.tag(result.metadata)
        guard let described = seen.columns ?? result.rows.first.map({ row in
            row.map { ProtocolObserver.Column(name: $0.columnName, typeOID: $0.dataType.rawValue, typeModifier: -1) }
        }) else {
            return StatementResult(tag: tag, notices: seen.notices)
        }
        return try Self.result(tag: tag, columns: described, rows: result.rows, notices: seen.notices)
    }

    /// The rows as typed vectors.
    static func result(tag: String, columns described: [ProtocolObserver.Column], rows: [PostgresRow],
                       notices: [String]) throws -> StatementResult {
        var types = described.map { WireValues.type(oid: $0.typeOID, modifier: $0.typeModifier) }
        for (i, column) in described.enumerated() where column.typeOID == 1700 && column.typeModifier < 4 {
            // NUMERIC without a modifier: the scale of its values.
            let first = rows.lazy.compactMap { row -> ByteBuffer? in
                var cells = row.makeIterator()
                for _ in 0..<i { _ = cells.next() }
                return cells.next()?.bytes
            }.first
            let scale = first.flatMap { WireValues.numericScale($0) } ?? 0
            types[i] = .decimal(precision: 38, scale: scale)
        }
        var chunks: [Chunk] = []
        var vectors = types.map { Vector(type: $0, capacity: min(rows.count, Chunk.capacity)) }
        var count = 0
        for row in rows {
            var c = 0
            for cell in row where c < types.count {
                let value: Value
                if cell.format == .binary {
                    value = try WireValues.value(binary: cell.bytes, oid: described[c].typeOID, type: types[c])
                } else if var bytes = cell.bytes {
                    // Text form (not asked for by PostgresNIO): shown as the server wrote it.
                    value = .string(bytes.readString(length: bytes.readableBytes) ?? "")
                    if types[c].physical != .string {
                        throw SQLError(.protocolViolation, "unexpected text value in column \"\(described[c].name)\"")
                    }
                } else {
                    value = .null
                }
                vectors[c].append(value)
                c += 1
            }
            while c < types.count {
                vectors[c].appendNull()
                c += 1
            }
            count += 1
            if count == Chunk.capacity {
                chunks.append(Chunk(columns: vectors, count: count))
                vectors = types.map { Vector(type: $0, capacity: Chunk.capacity) }
                count = 0
            }
        }
        if count > 0 { chunks.append(Chunk(columns: vectors, count: count)) }
        return StatementResult(tag: tag,
                               columns: zip(described, types).map { ResultColumn(name: $0.name, type: $1) },
                               chunks: chunks, notices: notices)
    }

    /// A command tag rebuilt from PostgresNIO's parse of it (used only if the observer missed it).
    static func tag(_ metadata: PostgresQueryMetadata) -> String {
        switch metadata.command {
        case "INSERT": return "INSERT \(metadata.oid ?? 0) \(metadata.rows ?? 0)"
        case "SELECT", "DELETE", "UPDATE", "MOVE", "FETCH", "COPY":
            return metadata.rows.map { "\(metadata.command) \($0)" } ?? metadata.command
        default: return metadata.command
        }
    }

    /// A server's error as the shell reports it: a `SQLError` with SQLSTATE, message, detail,
    /// hint and the position as line/column into `statement`; a lost connection as
    /// `ShellConnectionLost`.
    private func convert(_ error: PSQLError, statement: String) -> any Error {
        guard let info = error.serverInfo, let message = info[.message] else {
            lock.withLock { lost = true }
            return ShellConnectionLost.closed
        }
        let code = info[.sqlState].flatMap(SQLError.Code.init(rawValue:)) ?? .internalError
        var out = SQLError(code, message, detail: info[.detail], hint: info[.hint])
        if let p = info[.position].flatMap({ Int($0) }), let lineAndColumn = Self.lineAndColumn(in: statement, position: p) {
            out.line = lineAndColumn.0
            out.column = lineAndColumn.1
        }
        if info[.severity] == "FATAL" || info[.severity] == "PANIC" { lock.withLock { lost = true } }
        return out
    }

    /// PostgreSQL's error position (1-based, in characters) as the line and column
    /// `ErrorReport` shows; the inverse of the server's `position(in:line:column:)`.
    static func lineAndColumn(in text: String, position: Int) -> (Int, Int)? {
        guard position >= 1 else { return nil }
        var line = 1
        var lineStart = 0   // characters before the current line
        var offset = 0
        for ch in text {
            if offset >= position - 1 { break }
            offset += 1
            if ch == "\n" {
                line += 1
                lineStart = offset
            }
        }
        return (line, position - lineStart)
    }

    /// The character position of `line`/`column` in `text` (as the server computes it).
    static func position(in text: String, line: Int, column: Int) -> Int? {
        guard line >= 1, column >= 1 else { return nil }
        var l = 1
        var offset = 0
        for ch in text {
            if l == line { break }
            offset += 1
            if ch == "\n" { l += 1 }
        }
        guard l == line else { return nil }
        return offset + column
    }

    // MARK: - Cancel

    /// Ctrl-C: a CancelRequest (process id and secret from BackendKeyData) on a new
    /// connection, as psql sends; the server stops the statement, which then fails with
    /// `canceling statement due to user request`, and the session goes on.
    public func cancelRunning() -> Bool {
        guard isRunning, let key = observer.backendKey else { return false }
        do {
            let channel = try ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.seconds(5))
                .connect(to: address).wait()
            var buffer = channel.allocator.buffer(capacity: 16)
            buffer.writeInteger(Int32(16))
            buffer.writeInteger(Int32(80_877_102))
            buffer.writeInteger(key.processID)
            buffer.writeInteger(key.secret)
            try channel.writeAndFlush(buffer).wait()
            channel.close(promise: nil)
            return true
        } catch {
            return false
        }
    }

    // MARK: - Catalog (\d)

    /// Rows of a catalog query as text.
    private func textRows(_ sql: String) throws -> [[String?]] {
        try run(sql).textRows()
    }

    private static func literal(_ s: String) -> String { quoteStringLiteral(s) }

    /// `\d`: the tables PG_TABLE_DEF knows (one row per column, grouped).
    public func listTables() throws -> StatementResult {
        let rows = try textRows("select schemaname, tablename from pg_table_def group by schemaname, tablename "
                                + "order by tablename, schemaname")
        var cols = (0..<4).map { _ in Vector(type: .text) }
        for row in rows {
            cols[0].append(row.first.flatMap { $0 }.map(Value.string) ?? .null)
            cols[1].append(row.count > 1 ? row[1].map(Value.string) ?? .null : .null)
            cols[2].append(.string("table"))
            cols[3].append(.string(target.user))
        }
        return StatementResult(tag: "SELECT \(rows.count)",
                               columns: ["Schema", "Name", "Type", "Owner"].map { ResultColumn(name: $0, type: .text) },
                               chunks: rows.isEmpty ? [] : [Chunk(columns: cols, count: rows.count)])
    }

    /// `\d name`: the table's columns from PG_TABLE_DEF, in the local shell's layout.
    public func describeTable(_ name: String) throws -> StatementResult {
        var schema: String? = nil
        var table = name
        if let dot = name.lastIndex(of: ".") {
            schema = String(name[..<dot])
            table = String(name[name.index(after: dot)...])
        }
        var sql = "select \"column\", \"type\", \"encoding\", \"distkey\", \"sortkey\", \"notnull\" from pg_table_def "
            + "where tablename = "
            + Self.literal(table)
        if let schema { sql += " and schemaname = " + Self.literal(schema) }
        let rows = try textRows(sql)
        guard !rows.isEmpty else {
            throw SQLError(.undefinedTable, "Did not find any relation named \"\(name)\".")
        }
        let names = ["Column", "Type", "Encoding", "DistKey", "SortKey", "Nullable", "Default"]
        var cols = names.map { _ in Vector(type: .text) }
        for row in rows {
            func cell(_ i: Int) -> String { i < row.count ? row[i] ?? "" : "" }
            let encoding = cell(2) == "none" ? "raw" : cell(2)
            let values: [Value] = [.string(cell(0)), .string(cell(1)), .string(encoding), .string(cell(3)),
                                   .string(cell(4)), .string(cell(5) == "t" ? "not null" : ""), .null]
            for (k, v) in values.enumerated() { cols[k].append(v) }
        }
        return StatementResult(tag: "SELECT \(rows.count)", columns: names.map { ResultColumn(name: $0, type: .text) },
                               chunks: [Chunk(columns: cols, count: rows.count)])
    }
}
