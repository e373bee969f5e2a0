// SPDX-License-Identifier: Apache-2.0
import Foundation
import NIOCore
import NIOSSL
import SlicehouseTypes
import SlicehouseEngine
import SlicehouseCatalog

/// The event-loop side of one client connection: TLS negotiation, startup and
/// authentication, then every message handed to the connection's `ConnectionWorker`
/// (which runs statements on the `StatementThreads` pool, so the loop never blocks).
final class ConnectionHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = FrontendMessage
    typealias OutboundOut = ByteBuffer

    private enum State {
        case startup
        case cleartext(Login)
        case md5(Login, salt: [UInt8])
        case scramStart(Login)
        case scramFinish(Login, ScramExchange)
        case ready
        case closed
    }

    private let server: Server
    private var state = State.startup
    private var worker: ConnectionWorker?
    private var admitted = false
    private var parameters: [String: String] = [:]
    private var authenticationTimer: Scheduled<Void>?
    /// How the client is asked to authenticate (STL_CONNECTION_LOG.authmethod).
    private var authMethod = ""
    /// The client's address and port (STL_CONNECTION_LOG.remotehost, remoteport).
    private var remote = (host: "local", port: "")
    /// The connection's id in STL_CONNECTION_LOG (`sessionid`): its events share it.
    private let sessionID = UUID().uuidString.lowercased()
    /// The session begun, for STL_CONNECTION_LOG's `disconnecting session`: its process,
    /// user and start (microseconds since 1970).
    private var begun: (process: Int, user: String, start: Int64)?

    init(server: Server) { self.server = server }

    func channelActive(context: ChannelHandlerContext) {
        server.authenticationStarted(self, channel: context.channel)
        let seconds = server.configuration.authenticationTimeoutSeconds
        if seconds > 0 {
            let ctx = context
            authenticationTimer = context.eventLoop.scheduleTask(in: .seconds(Int64(seconds))) { [weak self] in
                guard let self else { return }
                if case .ready = self.state { return }
                if case .closed = self.state { return }
                self.fatal(ctx, code: "08006", message: "authentication timeout")
            }
        }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let message = unwrapInboundIn(data)
        switch state {
        case .closed:
            return
        case .ready:
            worker?.receive(message)
        case .startup:
            startup(context, message)
        case .cleartext(let login):
            guard case .password(var body) = message, let text = try? body.readCString() else {
                return fatal(context, code: "08P01", message: "expected password response")
            }
            if let c = login.credential, constantTimeEqual(Array(PasswordCredential.md5Hash(password: text, user: login.name).utf8),
                                                           Array(c.md5.utf8)) {
                return authenticated(context, login)
            }
            logConnection("authentication failure", user: login.name, process: 0)
            fatal(context, code: "28P01", message: AuthenticationFailure.password(login.name).message)
        case .md5(let login, let salt):
            guard case .password(var body) = message, let text = try? body.readCString() else {
                return fatal(context, code: "08P01", message: "expected password response")
            }
            if let c = login.credential, md5ResponseMatches(text, stored: c.md5, salt: salt) {
                return authenticated(context, login)
            }
            logConnection("authentication failure", user: login.name, process: 0)
            fatal(context, code: "28P01", message: AuthenticationFailure.password(login.name).message)
        case .scramStart(let login):
            guard case .password(let body) = message, let verifier = login.credential?.scram else {
                return fatal(context, code: "08P01", message: "expected SASL response")
            }
            var exchange = ScramExchange(user: login.name, verifier: verifier)
            do {
                let first = try exchange.start(body)
                state = .scramFinish(login, exchange)
                var w = BackendWriter(allocator: context.channel.allocator)
                w.authentication(11, Array(first.utf8))
                context.writeAndFlush(wrapOutboundOut(w.buffer), promise: nil)
            } catch let f as AuthenticationFailure {
                fatal(context, code: f.code, message: f.message)
            } catch {
                fatal(context, code: "08P01", message: "malformed SCRAM message")
            }
        case .scramFinish(let login, let exchange):
            guard case .password(let body) = message else {
                return fatal(context, code: "08P01", message: "expected SASL response")
            }
            do {
                let final = try exchange.finish(body)
                var w = BackendWriter(allocator: context.channel.allocator)
                w.authentication(12, Array(final.utf8))
                context.write(wrapOutboundOut(w.buffer), promise: nil)
                authenticated(context, login)
            } catch let f as AuthenticationFailure {
                fatal(context, code: f.code, message: f.message)
            } catch {
                fatal(context, code: "28P01", message: AuthenticationFailure.password(login.name).message)
            }
        }
    }

    private func startup(_ context: ChannelHandlerContext, _ message: FrontendMessage) {
        switch message {
        case .sslRequest:
            var reply = context.channel.allocator.buffer(capacity: 1)
            if let ssl = server.sslContext {
                reply.writeInteger(UInt8(ascii: "S"))
                context.writeAndFlush(wrapOutboundOut(reply), promise: nil)
                do {
                    try context.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: ssl), position: .first)
                } catch {
                    context.close(promise: nil)
                }
            } else {
                reply.writeInteger(UInt8(ascii: "N"))
                context.writeAndFlush(wrapOutboundOut(reply), promise: nil)
            }
        case .gssEncRequest:
            var reply = context.channel.allocator.buffer(capacity: 1)
            reply.writeInteger(UInt8(ascii: "N"))
            context.writeAndFlush(wrapOutboundOut(reply), promise: nil)
        case .cancel(let process, let secret):
            server.cancel(process: process, secret: secret)
            state = .closed
            context.close(promise: nil)
        case .startup(_, let params):
            parameters = params
            guard let given = params["user"], !given.isEmpty else {
                return fatal(context, code: "28000", message: "no PostgreSQL user name specified in startup packet")
            }
            // User names are case-insensitive, as Redshift folds them: folded once, here,
            // before the host rules, the catalog and the superuser's bootstrap see it.
            let user = given.lowercased()
            // Whether it exists is told only after authentication (`authenticated`), as in PostgreSQL.
            let database = params["database"].flatMap { $0.isEmpty ? nil : $0 } ?? user
            let method = server.configuration.rules.method(user: user, address: context.channel.remoteAddress)
            authMethod = method?.rawValue ?? AuthMethod.reject.rawValue
            let address = context.channel.remoteAddress
            remote = (address?.ipAddress ?? "local", address?.port.map { String($0) } ?? "")
            // An unknown user, or one who cannot log in with a password (PASSWORD DISABLE,
            // VALID UNTIL passed), is challenged like everyone else and refused only after
            // answering, with the same message: a login attempt tells nothing of which users
            // exist.
            let login = server.login(user)
            let challenged = login.flatMap { $0.credential == nil ? nil : $0 } ?? Login.decoy(user)
            var w = BackendWriter(allocator: context.channel.allocator)
            switch method {
            case .trust?:
                guard let login else {
                    return fatal(context, code: "28P01", message: AuthenticationFailure.password(user).message)
                }
                return authenticated(context, login)
            case .reject?, nil:
                let host = context.channel.remoteAddress?.ipAddress ?? "local"
                return fatal(context, code: "28000",
                             message: "no host rule for host \"\(host)\", user \"\(user)\", database \"\(database)\"")
            case .password?:
                state = .cleartext(challenged)
                w.authentication(3)
            case .md5?:
                let salt = (0..<4).map { _ in UInt8.random(in: 0...255) }
                state = .md5(challenged, salt: salt)
                w.authentication(5, salt)
            case .scram?:
                if challenged.credential?.scram != nil {
                    state = .scramStart(challenged)
                    w.authentication(10, Array("SCRAM-SHA-256".utf8) + [0, 0])
                } else {
                    // Stored as an md5 hash only (CREATE USER ... PASSWORD 'md5...'): md5 it is.
                    let salt = (0..<4).map { _ in UInt8.random(in: 0...255) }
                    state = .md5(challenged, salt: salt)
                    w.authentication(5, salt)
                }
            }
            context.writeAndFlush(wrapOutboundOut(w.buffer), promise: nil)
        default:
            fatal(context, code: "08P01", message: "expected startup message")
        }
    }

    private func authenticated(_ context: ChannelHandlerContext, _ login: Login) {
        authenticationTimer?.cancel()
        if login.isDecoy {
            return fatal(context, code: "28P01", message: AuthenticationFailure.password(login.name).message)
        }
        server.authenticationEnded(self)
        // Only an authenticated connection takes one of the server's connection slots; the
        // last few are kept for superusers (PostgreSQL's superuser_reserved_connections).
        guard server.admit(superuser: login.isSuperuser) else {
            let limit = server.configuration.maxConnections
            return fatal(context, code: "53300", message: login.isSuperuser || server.reservedConnections == 0
                ? "connection limit \"\(limit)\" exceeded"
                : "remaining connection slots are reserved for superusers")
        }
        admitted = true
        if let limit = login.connectionLimit, server.database.sessionCount(user: login.name) >= limit {
            return fatal(context, code: "53300", message: "too many connections for role \"\(login.name)\"")
        }
        let session: Session
        do {
            session = try server.database.connect(to: parameters["database"].flatMap { $0.isEmpty ? nil : $0 } ?? login.name)
        } catch let e as SQLError {
            return fatal(context, code: e.code.rawValue, message: e.message)
        } catch {
            return fatal(context, code: "XX000", message: "\(error)")
        }
        session.authenticate(as: login.name)
        logConnection("authenticated", user: login.name, process: session.process)
        logConnection("initiating session", user: login.name, process: session.process)
        begun = (session.process, login.name, Self.nowMicros())
        let secret = Int32.random(in: Int32.min...Int32.max)
        let worker = server.startsWorkers
            ? ConnectionWorker(channel: context.channel, session: session, server: server,
                               idleTimeoutSeconds: server.configuration.idleTimeoutSeconds)
            : nil
        server.register(session, secret: secret, worker: worker)
        var w = BackendWriter(allocator: context.channel.allocator)
        w.authentication(0)
        let status: [(String, String)] = [
            ("application_name", parameters["application_name"] ?? ""),
            ("client_encoding", "UTF8"),
            ("DateStyle", "ISO, MDY"),
            ("integer_datetimes", "on"),
            ("IntervalStyle", "postgres"),
            ("is_superuser", login.isSuperuser ? "on" : "off"),
            ("server_encoding", "UNICODE"),
            ("server_version", "8.0.2"),
            ("session_authorization", login.name),
            ("standard_conforming_strings", "off"),  // literals read backslash escapes
            ("TimeZone", "UTC"),
        ]
        for (k, v) in status { w.parameterStatus(k, v) }
        w.backendKeyData(process: Int32(truncatingIfNeeded: session.process), secret: secret)
        w.readyForQuery(UInt8(ascii: "I"))
        context.writeAndFlush(wrapOutboundOut(w.buffer), promise: nil)
        state = .ready
        self.worker = worker
        worker?.start()
    }

    /// A FATAL ErrorResponse, then close.
    private func fatal(_ context: ChannelHandlerContext, code: String, message: String) {
        if case .closed = state { return }
        state = .closed
        authenticationTimer?.cancel()
        server.authenticationEnded(self)
        var w = BackendWriter(allocator: context.channel.allocator)
        w.report(UInt8(ascii: "E"), severity: "FATAL", code: code, message: message)
        context.writeAndFlush(wrapOutboundOut(w.buffer)).whenComplete { _ in context.close(promise: nil) }
    }

    /// Record a connection event in STL_CONNECTION_LOG.
    private func logConnection(_ event: String, user: String, process: Int, duration: Int64 = 0) {
        server.database.logConnection(event: event, remoteHost: remote.host, remotePort: remote.port, process: process, user: user,
                                      authMethod: authMethod, sessionID: sessionID, duration: duration,
                                      applicationName: parameters["application_name"] ?? "",
                                      database: parameters["database"].flatMap { $0.isEmpty ? nil : $0 } ?? user)
    }

    private static func nowMicros() -> Int64 { Int64((Date().timeIntervalSince1970 * 1_000_000).rounded()) }

    /// The messages of one read are in the inbox: one job handles them.
    func channelReadComplete(context: ChannelHandlerContext) {
        if case .ready = state { worker?.readComplete() }
        context.fireChannelReadComplete()
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let b = begun {
            begun = nil
            logConnection("disconnecting session", user: b.user, process: b.process, duration: Self.nowMicros() - b.start)
        }
        state = .closed
        authenticationTimer?.cancel()
        server.authenticationEnded(self)
        worker?.clientClosed()
        worker = nil
        if admitted { admitted = false; server.release() }
        context.fireChannelInactive()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        worker?.writabilityChanged()
        context.fireChannelWritabilityChanged()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        if let p = error as? ProtocolError {
            fatal(context, code: "08P01", message: p.message)
        } else if error is NIOSSLError || error is BoringSSLError {
            state = .closed
            context.close(promise: nil)
        } else {
            fatal(context, code: "08P01", message: "invalid message: \(error)")
        }
    }
}
