// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import SlicehouseAWS
import SlicehouseEngine
import SlicehouseServer

/// `slicehouse serve`: the PostgreSQL wire-protocol server on one database.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve a database over PostgreSQL's wire protocol (psql, JDBC, psycopg, redshift_connector, dbt).",
        discussion: """
            The superuser (--user, default awsuser) logs in with the password in --password-file or
            $SLICEHOUSE_PASSWORD. Without one, only loopback connections are accepted, without a password;
            a non-loopback --host needs a password. --hba-file gives per-host rules, one per line:
              host ADDRESS[/BITS]|all|loopback USER|all trust|password|md5|scram-sha-256|reject
            """,
        helpNames: [.short, .long])

    @Option(name: [.customShort("D"), .customLong("data")],
            help: ArgumentHelp("Database directory (default: $SLICEHOUSE_DATA, else ~/.slicehouse/default).", valueName: "dir"))
    var dataDirectory: String?

    @Flag(name: .customLong("in-memory"), help: "Serve a temporary in-memory database.")
    var inMemory = false

    @Option(name: .customLong("host"), help: "Address to listen on.")
    var host = "127.0.0.1"

    @Option(name: [.customShort("p"), .customLong("port")], help: "Port to listen on (Redshift's 5439; 0 picks a free one).")
    var port = 5439

    @Option(name: [.customShort("U"), .customLong("user")], help: "The superuser's name.")
    var user = Database.superuser

    @Option(name: .customLong("password-file"), help: ArgumentHelp("File holding the superuser's password (first line).", valueName: "file"))
    var passwordFile: String?

    @Option(name: .customLong("hba-file"), help: ArgumentHelp("Per-host authentication rules.", valueName: "file"))
    var hbaFile: String?

    @Option(name: .customLong("tls-cert"), help: ArgumentHelp("PEM certificate chain for TLS (default: server.crt in the data directory, a self-signed certificate made on the first start).", valueName: "file"))
    var tlsCert: String?

    @Option(name: .customLong("tls-key"), help: ArgumentHelp("PEM private key for TLS (default: server.key in the data directory).", valueName: "file"))
    var tlsKey: String?

    @Flag(name: .customLong("no-tls"), help: "Offer no TLS (clients must use sslmode=disable or prefer).")
    var noTLS = false

    @Option(name: .customLong("max-connections"), help: "Most client connections at once (Redshift's 500).")
    var maxConnections = 500

    @Option(name: .customLong("idle-timeout"), help: "Close a connection idle this many seconds outside a transaction (0: never).")
    var idleTimeout = 0

    @Option(name: .customLong("nodes"), help: "Compute nodes of a newly created database.")
    var nodes = 2

    @Option(name: .customLong("slices-per-node"), help: "Slices per compute node of a newly created database.")
    var slicesPerNode = 2

    @Option(name: .customLong("wlm"),
            help: ArgumentHelp("Workload management configuration (a wlm_json_configuration document; default: wlm.json in the data directory). Re-read when the file changes.", valueName: "file"))
    var wlmFile: String?

    @Option(name: .customLong("memory"),
            help: ArgumentHelp("Memory for all queries at once, e.g. 4GB (default: WLM divides 60% of RAM).", valueName: "size"))
    var memory: String?

    @Option(name: .customLong("copy-dir"),
            help: ArgumentHelp("A directory every user may COPY from and UNLOAD to (repeatable). Without one only superusers and holders of pg_read_server_files / pg_write_server_files use server files; nobody reaches the data directory.", valueName: "dir"))
    var copyDirectories: [String] = []

    @Option(name: .customLong("s3-endpoint"),
            help: ArgumentHelp("The S3-compatible endpoint COPY and UNLOAD use for s3:// addresses, e.g. http://127.0.0.1:9000 (default: AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, else AWS's regional endpoint).", valueName: "url"))
    var s3Endpoint: String?

    @Option(name: .customLong("glue-endpoint"),
            help: ArgumentHelp("The AWS Glue Data Catalog endpoint external schemas use, e.g. http://127.0.0.1:5000 (default: AWS_ENDPOINT_URL_GLUE, AWS_ENDPOINT_URL; without any, external schemas keep their catalog in the data directory).", valueName: "url"))
    var glueEndpoint: String?

    func validate() throws {
        for (option, value) in [("--s3-endpoint", s3Endpoint), ("--glue-endpoint", glueEndpoint)] {
            guard let value else { continue }
            do { _ = try S3Endpoint.parse(value, region: "us-east-1") } catch {
                throw ValidationError("invalid \(option) \"\(value)\" (expected http://host[:port] or https://host[:port])")
            }
        }
        if let memory, Database.parseMemorySize(memory) == nil {
            throw ValidationError("invalid --memory \"\(memory)\" (expected a size such as 4GB, 512MB or a number of bytes)")
        }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        guard maxConnections >= 1 else { throw ValidationError("--max-connections must be at least 1") }
        guard (tlsCert == nil) == (tlsKey == nil) else { throw ValidationError("--tls-cert and --tls-key go together") }
        guard !noTLS || tlsCert == nil else { throw ValidationError("--no-tls and --tls-cert contradict each other") }
        guard nodes >= 1 && nodes <= 128, slicesPerNode >= 1 && slicesPerNode <= 64 else {
            throw ValidationError("--nodes must be 1 to 128 and --slices-per-node 1 to 64")
        }
    }

    func run() throws {
        let environment = ProcessInfo.processInfo.environment
        var password: String?
        if let passwordFile {
            guard let text = try? String(contentsOfFile: passwordFile, encoding: .utf8) else {
                printError("slicehouse serve: cannot read the password file \"\(passwordFile)\"")
                throw ExitCode(2)
            }
            password = text.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init)
        } else if let p = environment["SLICEHOUSE_PASSWORD"], !p.isEmpty {
            password = p
        }
        if let p = password, p.isEmpty { password = nil }
        let loopbackOnly = host == "127.0.0.1" || host == "::1" || host == "localhost"
        if password == nil && !loopbackOnly {
            printError("slicehouse serve: listening on \(host) needs a superuser password (--password-file or $SLICEHOUSE_PASSWORD)")
            throw ExitCode(2)
        }
        var configuration = ServerConfiguration()
        configuration.host = host
        configuration.port = port
        configuration.superuser = user
        configuration.superuserPassword = password
        configuration.maxConnections = maxConnections
        configuration.idleTimeoutSeconds = idleTimeout
        configuration.eventLoopThreads = 2
        if let hbaFile {
            do {
                let text = try String(contentsOfFile: hbaFile, encoding: .utf8)
                configuration.rules = try HostRules(text: text, file: hbaFile)
            } catch {
                printError("slicehouse serve: \(error)")
                throw ExitCode(2)
            }
        } else {
            configuration.rules = HostRules.defaults(trustLoopback: password == nil)
        }

        let directory = ShellCommand.directory(dataDirectory, inMemory: inMemory)
        let database: Database
        do {
            if let directory { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
            database = try Database(directory: directory, cluster: ClusterConfig(nodes: nodes, slicesPerNode: slicesPerNode),
                                    memoryBytes: memory.flatMap(Database.parseMemorySize))
        } catch {
            printError("slicehouse serve: cannot open database \(directory.map { "in \"\($0)\"" } ?? "in memory"): \(error)")
            throw ExitCode(2)
        }
        database.serverFileDirectories = copyDirectories
        database.s3Endpoint = s3Endpoint
        database.glueEndpoint = glueEndpoint
        // TLS: the operator's certificate, else the data directory's self-signed one (made
        // now on the first start); none in memory or with --no-tls.
        var tls: (certificate: String, key: String)? = tlsCert.flatMap { c in tlsKey.map { (c, $0) } }
        var selfSigned = false
        if tls == nil, !noTLS, let directory {
            do {
                tls = try SelfSignedCertificate.ensure(inDirectory: directory, host: host)
                selfSigned = true
            } catch {
                printError("slicehouse serve: \(error)")
                throw ExitCode(2)
            }
        }
        configuration.tlsCertificate = tls?.certificate
        configuration.tlsKey = tls?.key
        if let wlmFile {
            do {
                try database.useWLMConfigurationFile(wlmFile)
            } catch {
                printError("slicehouse serve: \(error)")
                throw ExitCode(2)
            }
        }
        let server: Server
        let address: String
        do {
            server = try Server(database: database, configuration: configuration)
            let bound = try server.start()
            address = "\(bound.ipAddress ?? host):\(bound.port ?? port)"
        } catch {
            printError("slicehouse serve: \(error)")
            throw ExitCode(2)
        }
        // The first line says where the server listens (tests read the port from it).
        let banner = "slicehouse: listening on \(address), database \"\(Database.defaultDatabase)\" in \(directory ?? "memory")"
            + (password == nil ? " (loopback logins without a password)" : "")
            + (tls.map { selfSigned ? ", TLS with the self-signed certificate \($0.certificate)" : ", TLS available" } ?? "")
        FileHandle.standardOutput.write(Data((banner + "\n").utf8))
        signal(SIGPIPE, SIG_IGN)
        // SIGHUP re-reads the WLM configuration (as PostgreSQL reloads its settings); it is
        // also re-read by itself when the file changes.
        SignalWatcher.install([SIGINT, SIGTERM, SIGHUP]) { sig in
            if sig == SIGHUP { database.reloadWLMConfiguration() } else { server.shutdown() }
        }
        try server.wait()
    }
}
