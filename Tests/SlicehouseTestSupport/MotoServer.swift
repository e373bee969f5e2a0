// SPDX-License-Identifier: Apache-2.0
import Foundation
import XCTest
import SlicehouseAWS

/// moto's S3 server (`Tests/integration/moto_s3_server.py`: moto, which scripts/setup-system.sh
/// installs, with ranged GETs that read only their range),
/// started on a random loopback port for a test class and stopped after it. Where it is
/// missing, tests skip — except under CI (`CI=true`), where that is a failure.
public final class MotoServer: @unchecked Sendable {
    public let port: Int
    private let process: Process

    private init(port: Int, process: Process) { self.port = port; self.process = process }

    /// A server, or nil when none would start.
    public static func start() -> MotoServer? {
        for candidate in 0..<5 {
            let port = 20_000 + Int.random(in: 0..<20_000) + candidate
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            p.arguments = ["python3", launcher, "-H", "127.0.0.1", "-p", String(port)]
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            do { try p.run() } catch { return nil }
            // Up when it answers on the port (moto takes a second or two to import).
            for _ in 0..<100 {
                if accepts(port) { return MotoServer(port: port, process: p) }
                if !p.isRunning { break }
                Thread.sleep(forTimeInterval: 0.1)
            }
            p.terminate()
        }
        return nil
    }

    public func stop() {
        process.terminate()
        process.waitUntilExit()
    }

    /// Tests/integration/moto_s3_server.py, found from this file's place in the checkout.
    static var launcher: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("integration/moto_s3_server.py").path
    }

    /// `http://127.0.0.1:port`.
    public var url: String { "http://127.0.0.1:\(port)" }

    /// `server`, or a skip (a failure under CI) when there is none.
    public static func require(_ server: MotoServer?) throws -> MotoServer {
        guard let server else {
            if ProcessInfo.processInfo.environment["CI"] == "true" { XCTFail("moto's server did not start (pip install 'moto[server]')") }
            throw XCTSkip("moto's server is not installed")
        }
        return server
    }

    /// A Glue Data Catalog client of `server` (moto serves Glue beside S3).
    public static func glue(_ server: MotoServer?, region: String = "us-east-1") throws -> GlueClient {
        try GlueClient.resolve(region: region, credentials: AWSCredentials(accessKeyID: "testing", secretAccessKey: "testing"),
                               environment: ["AWS_ENDPOINT_URL_GLUE": try require(server).url])
    }

    /// An S3 client of `server`, or a skip (a failure under CI) when there is none.
    public static func client(_ server: MotoServer?, region: String = "us-east-1") throws -> S3Client {
        let server = try require(server)
        let endpoint = try S3Endpoint.resolve(region: region, environment: ["AWS_ENDPOINT_URL_S3": server.url])
        return S3Client(endpoint: endpoint, credentials: AWSCredentials(accessKeyID: "testing", secretAccessKey: "testing"),
                        attempts: 2, requestTimeout: .seconds(30))
    }

    static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_port = in_port_t(UInt16(port).bigEndian)
        a.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &a) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}

/// A test class run against one moto server, started before its first test and stopped
/// after its last.
open class MotoTestCase: XCTestCase {
    public nonisolated(unsafe) static var server: MotoServer?

    override open class func setUp() {
        super.setUp()
        server = MotoServer.start()
    }

    override open class func tearDown() {
        server?.stop()
        server = nil
        super.tearDown()
    }
}
