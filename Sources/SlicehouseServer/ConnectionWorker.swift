// SPDX-License-Identifier: Apache-2.0
import Foundation
import NIOCore
import SlicehouseTypes
import SlicehouseRuntime
import SlicehouseSQL
import SlicehouseEngine

/// Runs one connection's statements, in order: the simple query protocol, and the
/// extended one (Parse / Bind / Describe / Execute / Sync, named and unnamed statements
/// and portals, row limits with PortalSuspended).
///
/// The connection has no thread of its own. The event loop puts each message in the
/// inbox (`enqueue`); when the connection is not already working, it submits one job to
/// `StatementThreads` that handles the inbox's messages in order and ends when the inbox
/// is empty (at most one job per connection runs at a time, so the session is used by
/// one thread at a time and its messages keep their order). An idle connection costs no
/// thread and no timer beyond the idle-session timeout, which is a task on the channel's
/// event loop, cancelled when a message comes.
///
/// Rows are encoded into DataRow messages as the query produces them and written
/// in batches; when the client reads slower than the query runs, the channel stops
/// being writable and the statement waits (backpressure) — so a result is never held
/// whole — until the channel's writability event, the client going away or a
/// CancelRequest wakes it. Between statements the connection handles no message while
/// the channel is not writable: its job ends, and the writability event starts the next.
final class ConnectionWorker: @unchecked Sendable {
    let channel: Channel
    let session: Session
    private let server: Server
    private let threads: StatementThreads
    /// Guards the inbox and the connection's state below; a writer waiting for the client
    /// waits on it.
    private let condition = NSCondition()
    private var inbox: [FrontendMessage] = []
    /// The client went away, sent Terminate, was terminated or idled out: no message is
    /// handled any more, and the job that sees it ends the session.
    private var closed = false
    /// A job for this connection is submitted or running.
    private var working = false
    /// A CancelRequest came while a job handled this connection's messages but no
    /// statement ran (a Parse or Bind planning a text, a statement about to start): the
    /// next message that would do work fails with it. It lapses when the job ends, as a
    /// cancel for an idle PostgreSQL backend does.
    private var cancelPending = false
    /// The session has been ended (`finish`).
    private var finished = false
    private let idleTimeoutSeconds: Int
    /// The idle-session timeout's task (event loop only).
    private var idleTimer: Scheduled<Void>?

    private var out: BackendWriter
    /// After an error in the extended protocol, messages are skipped until Sync.
    private var skipUntilSync = false
    private var statements: [String: Prepared] = [:]
    private var portals: [String: Portal] = [:]

    /// Write what has been encoded once it is this large.
    static let batchBytes = 64 << 10

    /// A writer waiting for the client is woken by the channel's writability event, the
    /// client going away and a CancelRequest. A cancellation raised inside the engine
    /// (`pg_cancel_backend`, `pg_terminate_backend`, `statement_timeout`, a WLM rule)
    /// signals nobody, so the waiting writer also looks at the statement this often.
    static let cancellationCheckSeconds = 0.5

    /// Times a statement waited for the client to read, times it woke from such a wait,
    /// and whether one waits now (tests read them through `writer`).
    private var writerWaits = 0
    private var writerWakeups = 0
    private var writerWaiting = false

    /// How this connection's statements have waited for the client to read.
    var writer: (waits: Int, wakeups: Int, waiting: Bool) {
        condition.lock()
        defer { condition.unlock() }
        return (writerWaits, writerWakeups, writerWaiting)
    }

    struct Prepared {
        var query: String
        /// nil for an empty query.
        var statement: ParsedStatement?
        var parameterTypes: [Int32]
        /// The statement's result columns, found when it was parsed (nil: it returns no rows).
        var columns: [ResultColumn]?
    }

    /// A bound statement and where its Execute stands; a reference, so Describe and Execute
    /// update it in place instead of copying it out of the table and back.
    final class Portal {
        var statement: ParsedStatement?
        /// The text it was parsed from (an error's position points into it).
        var query: String? = nil
        var resultFormats: [Int16]
        var columns: [ResultColumn]?
        /// Rows kept for an Execute with a row limit: the rest of the result, and its tag.
        var pending: [Chunk]?
        var pendingOffset = 0
        var tag = ""
        var done = false

        init(statement: ParsedStatement?, query: String?, resultFormats: [Int16], columns: [ResultColumn]?) {
            self.statement = statement
            self.query = query
            self.resultFormats = resultFormats
            self.columns = columns
        }
    }

    init(channel: Channel, session: Session, server: Server, idleTimeoutSeconds: Int,
         threads: StatementThreads = .shared) {
        self.channel = channel
        self.session = session
        self.server = server
        self.idleTimeoutSeconds = idleTimeoutSeconds
        self.threads = threads
        out = BackendWriter(allocator: channel.allocator, capacity: 4096)
    }

    /// The session is open and ReadyForQuery sent: from now on the connection is idle
    /// until its first message. Called on the event loop.
    func start() {
        armIdleTimer()
    }

    // MARK: Event loop side

    /// Messages waiting at most before the connection stops reading its socket, and at
    /// most when it starts again: a client that sends without reading the replies is held
    /// back by TCP instead of growing the server.
    static let pauseReadingAt = 32
    static let resumeReadingAt = 8
    private var readingPaused = false

    /// A message from the client (on the event loop), handled at once.
    func enqueue(_ message: FrontendMessage) {
        receive(message)
        readComplete()
    }

    /// A message from the client (on the event loop), put in the inbox; the job that
    /// handles it starts at `readComplete`, so the messages of one read (a prepared
    /// statement's Bind, Describe, Execute and Sync) are handled by one job, not a job
    /// (and a thread woken) each.
    func receive(_ message: FrontendMessage) {
        idleTimer?.cancel()
        idleTimer = nil
        condition.lock()
        if closed {
            condition.unlock()
            return
        }
        inbox.append(message)
        let pause = !readingPaused && inbox.count >= Self.pauseReadingAt
        if pause { readingPaused = true }
        condition.unlock()
        if pause { _ = channel.setOption(ChannelOptions.autoRead, value: false) }
    }

    /// The client's bytes read so far are decoded (on the event loop): start the job for
    /// the inbox unless one runs.
    func readComplete() {
        condition.lock()
        let start = takeWork()
        condition.unlock()
        if start { startJob() }
    }

    /// Start the job for the inbox (the connection is marked working): on the event loop
    /// itself while its messages are short (`handleInbox(onEventLoop:)`), the rest on a
    /// statement thread.
    private func startJob() {
        if channel.eventLoop.inEventLoop, handleInbox(onEventLoop: true) { return }
        threads.submit { self.work() }
    }

    /// Whether a job should be started for the inbox now: there are messages, none is
    /// running, and the channel can take their replies. Marks the connection working
    /// when so. Called with the condition's lock held.
    private func takeWork() -> Bool {
        guard !working, !closed, !inbox.isEmpty, channel.isWritable else { return false }
        working = true
        return true
    }

    /// The client went away: stop the running statement and end the session (the open
    /// transaction rolls back when it ends). On the event loop.
    func clientClosed() {
        idleTimer?.cancel()
        idleTimer = nil
        condition.lock()
        closed = true
        let submit = !working
        working = true
        condition.broadcast()
        condition.unlock()
        session.cancel(SQLError(.queryCanceled, "canceling statement because the client closed the connection"))
        if submit { threads.submit { self.work() } }
    }

    /// The channel became writable or stopped being so (on the event loop): wake a
    /// statement waiting for the client, or start the job that waited for it.
    func writabilityChanged() {
        condition.lock()
        condition.broadcast()
        let start = takeWork()
        condition.unlock()
        if start { startJob() }
    }

    /// A CancelRequest for this connection's statement came (any thread): a statement
    /// waiting for the client looks at its cancellation now.
    func cancelRequested() {
        condition.lock()
        let busy = working
        if busy && !session.isRunning { cancelPending = true }
        condition.broadcast()
        condition.unlock()
        // A statement that started since the server's `Session.cancel` found none.
        if busy { session.cancel() }
    }

    /// Fail the message about to be handled when a cancel is pending (`cancelPending`).
    private func checkPendingCancel() throws {
        condition.lock()
        let pending = cancelPending
        cancelPending = false
        condition.unlock()
        if pending { throw Cancellation.userRequest }
    }

    /// Close the connection when it has been idle outside a transaction for
    /// `idleTimeoutSeconds` (on the event loop; a message cancels it).
    private func armIdleTimer() {
        idleTimer?.cancel()
        idleTimer = nil
        guard idleTimeoutSeconds > 0 else { return }
        idleTimer = channel.eventLoop.scheduleTask(in: .seconds(Int64(idleTimeoutSeconds))) { [self] in
            idleTimer = nil
            condition.lock()
            // Still idle: no message since, no job running, not in a transaction block
            // (no job runs, so the session is not in use).
            guard !working, !closed, inbox.isEmpty, session.transactionStatus == .idle else {
                condition.unlock()
                return
            }
            closed = true
            idledOut = true
            working = true
            condition.unlock()
            threads.submit { self.work() }
        }
    }

    // MARK: The job

    /// Handle the inbox's messages in order until it is empty (then the thread goes back
    /// to the pool), the channel is not writable (the writability event starts the next
    /// job), or the connection closes (the session ends). Runs on a `StatementThreads`
    /// thread; one per connection at a time.
    private func work() {
        _ = handleInbox(onEventLoop: false)
    }

    /// The job's loop. On a statement thread it handles every message. On the event loop
    /// (`onEventLoop`) it handles only short messages (`shortHandling`): a short statement —
    /// one `ShortStatements` finds, such as a repeated `select 1` — and the protocol's
    /// messages around it that do no work of their own (Bind, Describe, Sync, ...); at the
    /// first that is not short, or when the connection closes, it returns false with the
    /// job still the connection's, and the caller hands the rest to a statement thread.
    /// A short statement answered here costs no thread wake-up either way.
    private func handleInbox(onEventLoop: Bool) -> Bool {
        while true {
            // Replies kept for a Sync that has not come count against the channel's bound too.
            if out.buffer.readableBytes >= Self.batchBytes { send(flush: true) }
            condition.lock()
            if closed {
                condition.unlock()
                if onEventLoop { return false }
                finish()
                return true
            }
            guard !inbox.isEmpty, channel.isWritable else {
                // Nothing to do, or replies the client has not read are over the channel's
                // bound: handle nothing more until it reads (what is written is flushed, so
                // it can). The event loop starts the next job.
                let waiting = !inbox.isEmpty
                // Read while this job still owns the session.
                let idle = !waiting && idleTimeoutSeconds > 0 && session.transactionStatus == .idle
                working = false
                cancelPending = false
                condition.unlock()
                if waiting {
                    channel.flush()
                } else if idle {
                    if onEventLoop { idleAfterWork() } else { channel.eventLoop.execute { self.idleAfterWork() } }
                }
                return true
            }
            var short: ShortMessage?
            if onEventLoop {
                // The inbox changes only on the event loop, which is here: the first message
                // stays the first while it is looked at.
                condition.unlock()
                short = shortHandling(inbox[0])
                guard short != nil else { return false }
                condition.lock()
            }
            let message = inbox.removeFirst()
            if readingPaused && inbox.count <= Self.resumeReadingAt {
                readingPaused = false
                _ = channel.setOption(ChannelOptions.autoRead, value: true)
            }
            condition.unlock()
            if let short {
                shortStatement = short.statement
                runningOnEventLoop = true
                handle(message)
                runningOnEventLoop = false
                shortStatement = nil
            } else {
                handle(message)
            }
            if session.isTerminated {
                send(flush: true)
                condition.lock()
                closed = true
                condition.unlock()
            }
        }
    }

    /// How the event loop may handle a message itself.
    private struct ShortMessage {
        /// The short statement it runs (a Query's, an Execute's), or nil for a message that
        /// runs none.
        var statement: ShortStatements.Found?
    }

    /// The message as the event loop may handle it, or nil when it must go to a statement
    /// thread: it parses or binds a text (Parse; a Bind whose values are put into the text;
    /// a Describe of a portal whose columns are not known yet), runs a statement that is not
    /// short, serves a portal's kept rows, or ends the session (Terminate).
    private func shortHandling(_ message: FrontendMessage) -> ShortMessage? {
        if skipUntilSync {
            switch message {
            case .sync, .terminate: break
            default: return ShortMessage()   // skipped
            }
        }
        switch message {
        case .query(let sql):
            return ShortStatements(session).statement(sql).map { ShortMessage(statement: $0) }
        case .bind(_, let name, _, _, _):
            guard let p = statements[name], let st = p.statement else { return ShortMessage() }
            return st.statement.bindsParameterValues ? ShortMessage() : nil
        case .describe(let kind, let name):
            guard kind == UInt8(ascii: "P"), let portal = portals[name], portal.statement != nil else { return ShortMessage() }
            return portal.columns != nil ? ShortMessage() : nil
        case .execute(let name, _):
            guard let portal = portals[name], let st = portal.statement, !portal.done else { return ShortMessage() }
            // Rows kept for an Execute with a row limit are served on a statement thread: the
            // client chose how many, and the writer may have to wait for it to read them.
            guard portal.pending == nil else { return nil }
            return ShortStatements(session).find(st).map { ShortMessage(statement: $0) }
        case .close, .sync, .flush:
            return ShortMessage()
        case .parse, .terminate, .copyMessage, .functionCall, .password, .startup, .sslRequest, .gssEncRequest, .cancel:
            return nil
        }
    }

    /// The message being handled is a short one, on the event loop: its statement runs on
    /// this thread (`ShortStatements.run`) and its rows are never waited for.
    private var runningOnEventLoop = false
    /// The short statement the message being handled on the event loop runs.
    private var shortStatement: ShortStatements.Found?

    /// Run a client's statement: on this thread when it was found short, else on a large
    /// stack (`Session.run`).
    private func run(_ statement: ParsedStatement, sink: RowSink) throws -> StatementResult {
        if runningOnEventLoop, let short = shortStatement {
            server.noteShortStatement()
            return try ShortStatements(session).run(short, sink: sink)
        }
        return try session.run(statement, sink: sink)
    }

    /// A job ended with the inbox empty and the session idle (on the event loop): start
    /// the idle-session timeout unless a message came meanwhile. (Should a later job have
    /// left a transaction block open, the timeout finds it so and does nothing.)
    private func idleAfterWork() {
        condition.lock()
        let idle = !working && !closed && inbox.isEmpty
        condition.unlock()
        if idle { armIdleTimer() }
    }

    /// The connection was closed for sitting idle past `idleTimeoutSeconds`.
    private var idledOut = false

    /// End the session and close the channel (once, on the connection's job).
    private func finish() {
        condition.lock()
        let first = !finished
        finished = true
        let idled = idledOut
        condition.unlock()
        guard first else { return }
        if idled {
            out.report(UInt8(ascii: "E"), severity: "FATAL", code: "57P05",
                       message: "terminating connection due to idle-session timeout")
            send(flush: true)
        }
        server.unregister(Int32(truncatingIfNeeded: session.process))
        session.cancel()
        statements = [:]
        portals = [:]
        session.close()
        channel.close(promise: nil)
        let loop = channel.eventLoop
        loop.execute {
            self.idleTimer?.cancel()
            self.idleTimer = nil
        }
    }

    private func handle(_ message: FrontendMessage) {
        if skipUntilSync {
            switch message {
            case .sync: break
            case .terminate: break
            default: return
            }
        }
        switch message {
        case .query(let sql):
            simpleQuery(sql)
        case .parse(let name, let query, let types):
            extended(query: query) { try parse(name: name, query: query, types: types) }
        case .bind(let portal, let statement, let formats, let values, let resultFormats):
            extended(query: statements[statement]?.query) {
                try bind(portal: portal, statement: statement, formats: formats, values: values, resultFormats: resultFormats)
            }
        case .describe(let kind, let name):
            extended(query: kind == UInt8(ascii: "S") ? statements[name]?.query : portals[name]?.query) {
                try describe(kind: kind, name: name)
            }
        case .execute(let portal, let maxRows):
            extended(query: portals[portal]?.query) { try execute(portal: portal, maxRows: Int(maxRows)) }
        case .close(let kind, let name):
            if kind == UInt8(ascii: "S") { statements[name] = nil } else { portals[name] = nil }
            out.empty("3")
        case .sync:
            skipUntilSync = false
            readyForQuery()
            send(flush: true)
        case .flush:
            send(flush: true)
        case .terminate:
            condition.lock(); closed = true; condition.unlock()
        case .copyMessage:
            break
        case .functionCall:
            report(SQLError(.featureNotSupported, "function call messages are not supported"), query: nil)
            readyForQuery()
            send(flush: true)
        case .password, .startup, .sslRequest, .gssEncRequest, .cancel:
            report(SQLError(.protocolViolation, "unexpected message during a session"), query: nil)
            readyForQuery()
            send(flush: true)
        }
    }

    // MARK: Simple query

    private func simpleQuery(_ sql: String) {
        if let short = shortStatement {
            do {
                try checkPendingCancel()
                let result = try run(short.statement, sink: WireSink(worker: self, formats: [], describe: true))
                complete(result)
                if session.isTerminated { throw Cancellation.terminated }
            } catch {
                report(error, query: sql)
            }
            readyForQuery()
            send(flush: true)
            return
        }
        do {
            try checkPendingCancel()
            var script = try session.script(sql)
            if script.count == 0 { out.empty("I") }
            let runAll = {
                while let st = try script.next(self.session) {
                    try self.checkPendingCancel()
                    let sink = WireSink(worker: self, formats: [], describe: true)
                    let result = try self.session.run(st, sink: sink)
                    self.complete(result)
                    if self.session.isTerminated { throw Cancellation.terminated }
                }
            }
            // Several statements in one Query are one implicit transaction (PostgreSQL, Redshift).
            if script.count > 1 { try session.implicitTransaction(runAll) } else { try runAll() }
        } catch {
            report(error, query: sql)
        }
        readyForQuery()
        send(flush: true)
    }

    private func complete(_ result: StatementResult) {
        notices(result.notices)
        out.commandComplete(result.tag)
        if out.buffer.readableBytes >= Self.batchBytes { send(flush: true) }
    }

    // MARK: Extended protocol

    /// Run one extended-protocol message; an error (with its position in `query`, the
    /// statement's text, as PostgreSQL reports it) skips the rest until Sync.
    private func extended(query: @autoclosure () -> String?, _ body: () throws -> Void) {
        do {
            try checkPendingCancel()
            try body()
        } catch {
            report(error, query: query())
            skipUntilSync = true
        }
    }

    private func parse(name: String, query: String, types: [Int32]) throws {
        if !name.isEmpty, statements[name] != nil {
            throw SQLError(.duplicatePreparedStatement, "prepared statement \"\(name)\" already exists")
        }
        let parsed = try session.parse(query)
        guard parsed.count <= 1 else {
            throw SQLError(.syntax, "cannot insert multiple commands into a prepared statement")
        }
        let count = max(types.count, try parameterCount(query))
        guard count <= Int(Int16.max) else { throw SQLError(.protocolViolation, "too many parameters") }
        let oids = types + [Int32](filled: 0, count: count - types.count)
        // A query is bound now, as PostgreSQL analyses it at Parse: an unknown table or
        // column fails the Parse, and no statement of that name is left behind. (It is
        // planned at its first Execute; a repeat finds that plan in the plan cache.)
        var columns: [ResultColumn]?
        if var statement = parsed.first {
            let nulls = oids.map { ParameterValue(text: nil, type: WireType.parameterType($0)) }
            if statement.statement.bindsParameterValues {
                statement.parameters = nulls
                columns = try session.describe(statement)
            } else if let bound = try session.parse(query, parameters: nulls).first {
                columns = try session.describe(bound)
            }
        }
        // Binding a text can take a while (a large generate_series): a cancel that came
        // meanwhile fails the Parse, as PostgreSQL's would, and leaves no statement behind.
        try checkPendingCancel()
        statements[name] = Prepared(query: query, statement: parsed.first, parameterTypes: oids, columns: columns)
        out.empty("1")
    }

    private func prepared(_ name: String) throws -> Prepared {
        guard let p = statements[name] else {
            throw SQLError(.invalidStatementName, "prepared statement \"\(name)\" does not exist")
        }
        return p
    }

    private func bind(portal: String, statement: String, formats: [Int16], values: [ByteBuffer?],
                      resultFormats: [Int16]) throws {
        let p = try prepared(statement)
        guard values.count == p.parameterTypes.count else {
            throw SQLError(.protocolViolation, "bind message supplies \(values.count) parameters, but prepared statement "
                           + "\"\(statement)\" requires \(p.parameterTypes.count)")
        }
        guard formats.count <= 1 || formats.count == values.count else {
            throw SQLError(.protocolViolation, "bind message has \(formats.count) parameter formats but \(values.count) parameters")
        }
        var parameters: [ParameterValue] = []
        for (i, v) in values.enumerated() {
            let oid = p.parameterTypes[i]
            let format = formats.isEmpty ? 0 : (formats.count == 1 ? formats[0] : formats[i])
            guard var v else { parameters.append(ParameterValue(text: nil, type: WireType.parameterType(oid))); continue }
            let text: String
            if format == 1 {
                do { text = try WireType.decodeBinary(v, oid: oid) } catch let e as ProtocolError {
                    throw SQLError(.invalidText, e.message)
                }
            } else {
                guard let s = v.readString(length: v.readableBytes) else {
                    throw SQLError(.invalidText, "invalid byte sequence for encoding \"UTF8\"")
                }
                text = s
            }
            parameters.append(ParameterValue(text: text, type: Self.parameterType(oid, text)))
        }
        var bound: ParsedStatement?
        var columns: [ResultColumn]?
        if var statement = p.statement {
            if statement.statement.bindsParameterValues {
                // The tree Parse made, with the values beside it: the binder reads each
                // `$n` as its typed value; the text is not parsed again.
                statement.parameters = parameters
                bound = statement
                // Parse found the columns with the same parameter types: Describe need not
                // bind again (a NUMERIC value's own precision may change a column's type).
                if parameters.indices.allSatisfy({ parameters[$0].type == WireType.parameterType(p.parameterTypes[$0]) }) {
                    columns = p.columns
                }
            } else {
                bound = try session.parse(p.query, parameters: parameters).first
            }
        }
        try checkPendingCancel()
        portals[portal] = Portal(statement: bound, query: p.query, resultFormats: resultFormats, columns: columns)
        out.empty("2")
    }


    /// A parameter's type: its OID's, with a NUMERIC given the precision and scale its
    /// text needs (so no digit is rounded away).
    static func parameterType(_ oid: Int32, _ text: String) -> DataType? {
        guard oid == WireType.numeric else { return WireType.parameterType(oid) }
        let digits = text.filter { $0.isNumber }
        let scale = text.firstIndex(of: ".").map { text[text.index(after: $0)...].filter { $0.isNumber }.count } ?? 0
        guard !digits.isEmpty, digits.count <= DataType.maxDecimalPrecision, !text.contains(where: { $0 == "e" || $0 == "E" }) else {
            return nil   // NaN, exponents, over 38 digits: left to the context to convert
        }
        return .decimal(precision: max(digits.count, scale, 1), scale: scale)
    }

    private func describe(kind: UInt8, name: String) throws {
        if kind == UInt8(ascii: "S") {
            let p = try prepared(name)
            out.parameterDescription(p.parameterTypes.map { $0 == 0 ? WireType.text : $0 })
            guard let columns = p.columns else { out.empty("n"); return }
            rowDescription(columns, formats: [], into: &out)
        } else if kind == UInt8(ascii: "P") {
            guard let portal = portals[name] else {
                throw SQLError(.invalidCursorName, "portal \"\(name)\" does not exist")
            }
            guard let st = portal.statement, let columns = try portal.columns ?? session.describe(st) else {
                out.empty("n"); return
            }
            portal.columns = columns
            rowDescription(columns, formats: portal.resultFormats, into: &out)
        } else {
            throw SQLError(.protocolViolation, "invalid DESCRIBE message subtype \(kind)")
        }
    }

    private func execute(portal name: String, maxRows: Int) throws {
        guard let portal = portals[name] else {
            throw SQLError(.invalidCursorName, "portal \"\(name)\" does not exist")
        }
        guard let st = portal.statement else { out.empty("I"); return }
        if portal.done {
            // Executed to the end already: PostgreSQL answers with an empty completion.
            out.commandComplete(portal.tag.hasPrefix("SELECT") ? "SELECT 0" : portal.tag)
            return
        }
        if portal.pending == nil {
            if maxRows <= 0 {
                let sink = WireSink(worker: self, formats: portal.resultFormats, describe: false)
                let result = try run(st, sink: sink)
                portal.done = true
                portal.tag = result.tag
                complete(result)
                return
            }
            let collector = CollectingSink()
            let result = try run(st, sink: collector)
            notices(result.notices)
            portal.pending = collector.chunks
            portal.columns = collector.columns
            portal.tag = result.tag
        }
        // Serve up to maxRows of the kept rows.
        var sent = 0
        let limit = maxRows <= 0 ? Int.max : maxRows
        let encoder = RowEncoder(types: portal.columns?.map(\.type) ?? [], formats: portal.resultFormats,
                                 zone: session.displayTimeZone)
        while sent < limit, var chunks = portal.pending, !chunks.isEmpty {
            let c = chunks[0]
            let take = min(c.count - portal.pendingOffset, limit - sent)
            encoder.encode(c, from: portal.pendingOffset, to: portal.pendingOffset + take, into: &out.buffer)
            sent += take
            portal.pendingOffset += take
            if portal.pendingOffset == c.count {
                chunks.removeFirst()
                portal.pending = chunks
                portal.pendingOffset = 0
            }
            if out.buffer.readableBytes >= Self.batchBytes { try flushRows() }
        }
        if let chunks = portal.pending, !chunks.isEmpty {
            out.empty("s")   // PortalSuspended
        } else {
            portal.done = true
            out.commandComplete(portal.tag)
        }
    }

    // MARK: Output

    private func readyForQuery() {
        switch session.transactionStatus {
        case .idle: out.readyForQuery(UInt8(ascii: "I"))
        case .inBlock: out.readyForQuery(UInt8(ascii: "T"))
        case .failed: out.readyForQuery(UInt8(ascii: "E"))
        }
    }

    private func notices(_ lines: [String]) {
        for line in lines {
            // A notice without a severity is INFO, as Redshift sends COPY's `Load into table`
            // message and as the shell prints it.
            var severity = "INFO"
            var text = line
            if let r = line.range(of: ":  ") {
                let prefix = String(line[..<r.lowerBound])
                if ["INFO", "NOTICE", "WARNING", "DEBUG", "LOG"].contains(prefix) {
                    severity = prefix
                    text = String(line[r.upperBound...])
                }
            }
            out.report(UInt8(ascii: "N"), severity: severity, code: severity == "WARNING" ? "01000" : "00000", message: text)
        }
    }

    private func report(_ error: Error, query: String?) {
        let e = error as? SQLError ?? SQLError(.internalError, String(describing: error))
        notices(e.notices)
        let fatal = e.code == .adminShutdown
        out.report(UInt8(ascii: "E"), severity: fatal ? "FATAL" : "ERROR", code: e.code.rawValue, message: e.message,
                   detail: e.detail, hint: e.hint, position: query.flatMap { Self.position(in: $0, line: e.line, column: e.column) })
    }

    /// PostgreSQL's error position: a 1-based character offset into the query.
    static func position(in query: String, line: Int?, column: Int?) -> Int? {
        guard let line, let column, line >= 1, column >= 1 else { return nil }
        var l = 1
        var offset = 0
        for ch in query {
            if l == line { break }
            offset += 1
            if ch == "\n" { l += 1 }
        }
        guard l == line else { return nil }
        return offset + column
    }

    /// Hand what has been encoded to the channel.
    func send(flush: Bool) {
        guard out.buffer.readableBytes > 0 else { return }
        let buffer = out.buffer
        out = BackendWriter(allocator: channel.allocator, capacity: 4096)
        guard flush else { channel.write(buffer, promise: nil); return }
        guard runningOnEventLoop else { channel.writeAndFlush(buffer, promise: nil); return }
        // On the event loop the flush waits for the end of the loop's turn, after the other
        // connections' reads of the same turn: their replies go out together.
        channel.write(buffer, promise: nil)
        if !flushScheduled {
            flushScheduled = true
            channel.eventLoop.execute {
                self.flushScheduled = false
                self.channel.flush()
            }
        }
    }

    /// A flush is due at the end of the event loop's turn (event loop only).
    private var flushScheduled = false

    /// Write the encoded rows and wait while the client is behind (the channel not
    /// writable); stop when the statement is cancelled or the client is gone. The wait
    /// ends on the channel's writability event (or the client going away, or a
    /// CancelRequest), not by polling the channel.
    fileprivate func flushRows() throws {
        send(flush: true)
        // On the event loop nothing may wait for the channel (its writability event comes
        // from this very loop): a short statement's few rows are written as they are.
        if runningOnEventLoop { return }
        condition.lock()
        defer { condition.unlock() }
        defer { writerWaiting = false }
        while !closed && !channel.isWritable {
            if let e = session.runningStatementError { throw e }
            if !writerWaiting {
                writerWaiting = true
                writerWaits += 1
            }
            _ = condition.wait(until: Date(timeIntervalSinceNow: Self.cancellationCheckSeconds))
            writerWakeups += 1
        }
        if closed { throw SQLError(.queryCanceled, "canceling statement because the client closed the connection") }
    }

    fileprivate func describeRows(_ columns: [ResultColumn], formats: [Int16]) {
        rowDescription(columns, formats: formats, into: &out)
    }

    fileprivate func encodeRows(_ chunk: Chunk, encoder: RowEncoder) throws {
        var start = 0
        // Large chunks are written in pieces so a batch stays near `batchBytes`.
        while start < chunk.count {
            let end = min(chunk.count, start + 1024)
            encoder.encode(chunk, from: start, to: end, into: &out.buffer)
            start = end
            if out.buffer.readableBytes >= Self.batchBytes { try flushRows() }
        }
    }
}

/// Streams a statement's rows to the client as DataRow messages.
private final class WireSink: RowSink {
    let worker: ConnectionWorker
    let formats: [Int16]
    let describe: Bool
    var encoder: RowEncoder?

    init(worker: ConnectionWorker, formats: [Int16], describe: Bool) {
        self.worker = worker; self.formats = formats; self.describe = describe
    }

    func start(_ columns: [ResultColumn]) throws {
        if describe { worker.describeRows(columns, formats: formats) }
        encoder = RowEncoder(types: columns.map(\.type), formats: formats, zone: worker.session.displayTimeZone)
    }

    func rows(_ chunk: Chunk) throws {
        guard let encoder else { return }
        try worker.encodeRows(chunk, encoder: encoder)
    }
}

/// Keeps a statement's rows (an Execute with a row limit serves them in pieces).
private final class CollectingSink: RowSink {
    var columns: [ResultColumn] = []
    var chunks: [Chunk] = []
    func start(_ columns: [ResultColumn]) throws { self.columns = columns }
    func rows(_ chunk: Chunk) throws { chunks.append(chunk) }
}
