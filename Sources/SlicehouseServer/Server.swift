// SPDX-License-Identifier: Apache-2.0
import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import SlicehouseCatalog
import SlicehouseTypes
import SlicehouseEngine
import SlicehousePlatform
import Synchronization

/// A user who may log in, as the server sees them at authentication.
public struct Login: Sendable, Equatable {
    public var name: String
    /// nil: the user has no password (PASSWORD DISABLE, or a superuser started without
    /// one) and can log in only where the rules say trust.
    public var credential: PasswordCredential?
    public var isSuperuser: Bool
    /// CONNECTION LIMIT (nil: unlimited).
    public var connectionLimit: Int?
    /// A stand-in for a user who cannot log in (unknown, PASSWORD DISABLE, expired): it is
    /// challenged like a real one, with credentials nobody knows, and refused after the answer.
    public var isDecoy = false
    public init(name: String, credential: PasswordCredential?, isSuperuser: Bool, connectionLimit: Int? = nil) {
        self.name = name; self.credential = credential; self.isSuperuser = isSuperuser
        self.connectionLimit = connectionLimit
    }

    /// The decoy login for `name`: a random md5 hash and SCRAM verifier that match no answer.
    static func decoy(_ name: String) -> Login {
        func random(_ n: Int) -> [UInt8] { (0..<n).map { _ in UInt8.random(in: 0...255) } }
        let credential = PasswordCredential(md5: "md5" + PasswordCredential.hex(random(16)),
                                            scram: ScramVerifier(salt: random(16), iterations: 4096,
                                                                 storedKey: random(32), serverKey: random(32)))
        var login = Login(name: name, credential: credential, isSuperuser: false)
        login.isDecoy = true
        return login
    }
}

/// What `slicehouse serve` was started with.
public struct ServerConfiguration: Sendable {
    public var host = "127.0.0.1"
    public var port = 5439
    /// The superuser created with the database.
    public var superuser = "awsuser"
    /// The superuser's password; nil allows only trusted (loopback) logins.
    public var superuserPassword: String?
    public var rules = HostRules.defaults(trustLoopback: false)
    /// PEM files of the certificate chain and key; both set: TLS is offered.
    public var tlsCertificate: String?
    public var tlsKey: String?
    /// Redshift's limit of 500 client connections.
    public var maxConnections = 500
    /// A connection that has sent nothing for this long while idle outside a transaction
    /// is closed (0: never). Half-open connections are found by TCP keepalive.
    public var idleTimeoutSeconds = 0
    /// A connection must finish startup and authentication within this many seconds
    /// (psql asks for a password on a second connection, so the first needs none of it).
    public var authenticationTimeoutSeconds = 10
    /// Connections still authenticating at most; past it the one waiting longest is closed,
    /// so sockets that never log in cannot keep anyone else out.
    public var maxPendingAuthentications = 64
    /// Of `maxConnections`, how many only superusers may take (PostgreSQL's
    /// superuser_reserved_connections): at most a quarter of them.
    public var superuserReservedConnections = 3
    public var eventLoopThreads = 1

    public init() {}
}

/// A PostgreSQL-protocol server over one open database: every connection gets a
/// `Session` of its own (its own transaction state) and a `ConnectionWorker` whose
/// statements run on the shared `StatementThreads` while it has messages to handle; the
/// event loop only frames messages, authenticates, moves bytes and keeps the timers.
public final class Server: @unchecked Sendable {
    public let database: Database
    public let configuration: ServerConfiguration
    let group: MultiThreadedEventLoopGroup
    let sslContext: NIOSSLContext?
    private var channel: Channel?
    private let lock = Lock()
    private var connections: [Int32: (secret: Int32, session: Session, worker: ConnectionWorker?)] = [:]
    private var connectionCount = 0
    /// Connections still authenticating, in the order they came.
    private var pending: [ObjectIdentifier: (order: Int, channel: Channel)] = [:]
    private var pendingOrder = 0
    let superuserLogin: Login
    /// Tests of the login on an embedded channel (which one thread must drive) turn off
    /// the connection workers (no statement runs).
    var startsWorkers = true

    public init(database: Database, configuration: ServerConfiguration) throws {
        self.database = database
        self.configuration = configuration
        if let cert = configuration.tlsCertificate, let key = configuration.tlsKey {
            do {
                let chain = try NIOSSLCertificate.fromPEMFile(cert).map { NIOSSLCertificateSource.certificate($0) }
                let tls = TLSConfiguration.makeServerConfiguration(certificateChain: chain,
                                                                   privateKey: .privateKey(try NIOSSLPrivateKey(file: key, format: .pem)))
                sslContext = try NIOSSLContext(configuration: tls)
            } catch {
                throw ServerConfigError("cannot use the TLS certificate \(cert) and key \(key): \(error)")
            }
        } else {
            sslContext = nil
        }
        superuserLogin = Login(name: configuration.superuser.lowercased(),
                               credential: configuration.superuserPassword.map {
                                   PasswordCredential(password: $0, user: configuration.superuser.lowercased())
                               },
                               isSuperuser: true)
        group = MultiThreadedEventLoopGroup(numberOfThreads: max(1, configuration.eventLoopThreads))
        // The password the server starts with is the superuser's from then on (ALTER USER
        // changes it until the next start); logins check the catalog only.
        try database.ensureSuperuser(configuration.superuser, password: superuserLogin.credential)
    }

    /// Start listening; returns the bound address (the port is chosen when 0 was asked).
    @discardableResult
    public func start() throws -> SocketAddress {
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 256)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.socketOption(.so_keepalive), value: 1)
            // A peer that vanished (half-open connection) is found within about two minutes
            // of silence, and unacknowledged result data gives up after two minutes.
            .childChannelOption(ChannelOptions.Types.SocketOption(level: .tcp, name: .init(rawValue: TCP_KEEPIDLE)), value: 60)
            .childChannelOption(ChannelOptions.Types.SocketOption(level: .tcp, name: .init(rawValue: TCP_KEEPINTVL)), value: 10)
            .childChannelOption(ChannelOptions.Types.SocketOption(level: .tcp, name: .init(rawValue: TCP_KEEPCNT)), value: 6)
            .childChannelOption(ChannelOptions.Types.SocketOption(level: .tcp, name: .init(rawValue: TCP_USER_TIMEOUT)),
                                value: 120_000)
            .childChannelOption(ChannelOptions.tcpOption(.tcp_nodelay), value: 1)
            .childChannelOption(ChannelOptions.writeBufferWaterMark, value: .init(low: 256 << 10, high: 1 << 20))
            .childChannelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(FrontendDecoder()), name: "decoder")
                    try channel.pipeline.syncOperations.addHandler(ConnectionHandler(server: self), name: "connection")
                }
            }
        let ch = try bootstrap.bind(host: configuration.host, port: configuration.port).wait()
        lock.withLock { channel = ch }
        guard let address = ch.localAddress else { throw ServerConfigError("the server socket has no address") }
        return address
    }

    /// Wait until the server is shut down.
    public func wait() throws {
        try lock.withLock { channel }?.closeFuture.wait()
    }

    /// Stop listening and close every connection.
    public func shutdown() {
        if let ch = lock.withLock({ channel }) { try? ch.close().wait() }
        try? group.syncShutdownGracefully()
    }

    // MARK: Connections

    /// The login for `user`, or nil when there is no such user. The superuser's password
    /// is the one the server was started with; other users' come from CREATE/ALTER USER.
    /// A user whose VALID UNTIL has passed has no usable password.
    func login(_ user: String) -> Login? {
        guard let u = database.user(named: user) else { return nil }
        var credential = u.password
        if let until = u.validUntil, until < Int64(Date().timeIntervalSince1970 * 1_000_000) { credential = nil }
        return Login(name: u.name, credential: credential, isSuperuser: u.superuser, connectionLimit: u.connectionLimit)
    }

    /// The connection slots kept for superusers.
    var reservedConnections: Int {
        min(max(0, configuration.superuserReservedConnections), configuration.maxConnections / 4)
    }

    /// Count an authenticated connection in; false when the limit is reached (for other
    /// users, when only the slots kept for superusers are left).
    func admit(superuser: Bool) -> Bool {
        let limit = configuration.maxConnections - (superuser ? 0 : reservedConnections)
        return lock.withLock {
            if connectionCount >= limit { return false }
            connectionCount += 1
            return true
        }
    }

    /// A connection began authenticating. Past `maxPendingAuthentications` the one waiting
    /// longest is closed.
    func authenticationStarted(_ handler: AnyObject, channel: Channel) {
        let evicted: Channel? = lock.withLock {
            pendingOrder += 1
            pending[ObjectIdentifier(handler)] = (pendingOrder, channel)
            guard pending.count > max(1, configuration.maxPendingAuthentications),
                  let oldest = pending.min(by: { $0.value.order < $1.value.order }) else { return nil }
            pending[oldest.key] = nil
            return oldest.value.channel
        }
        evicted?.close(promise: nil)
    }

    /// A connection finished authenticating, failed or went away.
    func authenticationEnded(_ handler: AnyObject) {
        lock.withLock { _ = pending.removeValue(forKey: ObjectIdentifier(handler)) }
    }

    /// Connections still authenticating (tests).
    var pendingAuthentications: Int { lock.withLock { pending.count } }

    func release() { lock.withLock { connectionCount -= 1 } }

    public var openConnections: Int { lock.withLock { connectionCount } }

    /// Statements the event loops answered themselves (`ShortStatements`), since the start.
    private let shortStatements = Atomic<Int>(0)
    var shortStatementsAnswered: Int { shortStatements.load(ordering: .relaxed) }
    func noteShortStatement() { shortStatements.wrappingAdd(1, ordering: .relaxed) }

    func register(_ session: Session, secret: Int32, worker: ConnectionWorker?) {
        lock.withLock { connections[Int32(truncatingIfNeeded: session.process)] = (secret, session, worker) }
    }

    /// The worker of the connection whose session has process id `process` (tests).
    func worker(process: Int32) -> ConnectionWorker? { lock.withLock { connections[process]?.worker } }

    func unregister(_ process: Int32) { lock.withLock { connections[process] = nil } }

    /// A CancelRequest: cancel the statement of the session with this process id and
    /// secret key (anything else is ignored, as PostgreSQL does).
    func cancel(process: Int32, secret: Int32) {
        let target = lock.withLock { connections[process] }
        if let target, target.secret == secret {
            target.session.cancel()
            // A statement waiting for its client to read looks at the cancellation now.
            target.worker?.cancelRequested()
        }
    }
}
