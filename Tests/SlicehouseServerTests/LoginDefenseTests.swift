// SPDX-License-Identifier: Apache-2.0
import Crypto
import Foundation
import NIOCore
import NIOEmbedded
import XCTest
@testable import SlicehouseServer
import SlicehouseEngine
import SlicehouseCatalog
import SlicehouseTypes

/// Logins against a hostile client (issue 74), through NIO's embedded channel: user names
/// fold before the host rules; unknown and disabled users are challenged like everyone;
/// connections that never authenticate take no slot and are closed past a bound; the last
/// slots are kept for superusers.
final class LoginDefenseTests: XCTestCase {
    func makeServer(_ configure: (inout ServerConfiguration) -> Void = { _ in }) throws -> (Server, Database) {
        let database = try Database()
        var configuration = ServerConfiguration()
        configuration.superuserPassword = "Sup3r-pass"
        configuration.rules = HostRules(rules: [HostRules.Rule(address: "all", user: "bob", method: .reject),
                                                HostRules.Rule(address: "all", user: "all", method: .md5)])
        configure(&configuration)
        let server = try Server(database: database, configuration: configuration)
        server.startsWorkers = false
        let s = database.connect()
        _ = try s.execute("create user alice password 'Al1ce-pass'; create user bob password 'B0b-passw'; "
                          + "create user mallory password disable")
        return (server, database)
    }

    /// Start a login as `user`; the server's first reply.
    func start(_ channel: EmbeddedChannel, _ user: String) throws -> [UInt8] {
        try channel.writeInbound(ByteBuffer(bytes: startupPacket([("user", user), ("database", "dev")])))
        return try outbound(channel)
    }

    /// Answer an md5 challenge for `user` with `password`; the reply.
    func answer(_ channel: EmbeddedChannel, _ challenge: [UInt8], user: String, password: String) throws -> [UInt8] {
        let salt = Array(challenge[9..<13])
        let stored = PasswordCredential.md5Hash(password: password, user: user)
        let response = "md5" + PasswordCredential.hex(Insecure.MD5.hash(data: Array(stored.dropFirst(3).utf8) + salt))
        try channel.writeInbound(ByteBuffer(bytes: message("p", Array(response.utf8) + [0])))
        return try outbound(channel)
    }

    func testUnknownAndDisabledUsersAreChallengedThenRefusedAlike() throws {
        let (server, _) = try makeServer()
        defer { server.shutdown() }
        let md5Request: [UInt8] = [UInt8(ascii: "R"), 0, 0, 0, 12, 0, 0, 0, 5]
        var refusals: [String] = []
        for (user, password) in [("alice", "wrong-Pass1"), ("nobody", "Any-pass1"), ("mallory", "Any-pass1")] {
            let c = try connect(server)
            let challenge = try start(c, user)
            XCTAssertEqual(Array(challenge.prefix(9)), md5Request, user)
            let reply = try answer(c, challenge, user: user, password: password)
            let text = String(decoding: reply, as: UTF8.self)
            XCTAssertTrue(text.contains("C28P01"), text)
            // The message less its length (the names differ in length).
            refusals.append(String(decoding: reply.dropFirst(5), as: UTF8.self).replacingOccurrences(of: user, with: "USER"))
            _ = try? c.finish()
        }
        XCTAssertEqual(Set(refusals).count, 1, "the refusals differ: \(refusals)")
        XCTAssertEqual(server.openConnections, 0)
    }

    func testUserNamesFoldBeforeTheHostRules() throws {
        let (server, _) = try makeServer()
        defer { server.shutdown() }
        for name in ["bob", "BOB", "Bob"] {
            let c = try connect(server)
            let reply = String(decoding: try start(c, name), as: UTF8.self)
            XCTAssertTrue(reply.contains("C28000") && reply.contains("no host rule"), "\(name): \(reply)")
            _ = try? c.finish()
        }
        // The name the catalog folded is the one logged in.
        let c = try connect(server)
        let challenge = try start(c, "alice")
        let welcome = String(decoding: try answer(c, challenge, user: "alice", password: "Al1ce-pass"), as: UTF8.self)
        XCTAssertTrue(welcome.contains("session_authorization\u{0}alice\u{0}"), welcome)
        _ = try? c.finish()
    }

    func testPendingLoginsTakeNoSlotAndTheLongestWaitingIsClosed() throws {
        let (server, _) = try makeServer { $0.maxPendingAuthentications = 3; $0.maxConnections = 4 }
        defer { server.shutdown() }
        var waiting: [EmbeddedChannel] = []
        for _ in 0..<3 {
            let c = try connect(server)
            _ = try start(c, "alice")
            waiting.append(c)
        }
        XCTAssertEqual(server.pendingAuthentications, 3)
        XCTAssertEqual(server.openConnections, 0)
        // A fourth: the first is closed to make room.
        let fourth = try connect(server)
        XCTAssertFalse(waiting[0].isActive)
        XCTAssertTrue(waiting[1].isActive && waiting[2].isActive)
        XCTAssertEqual(server.pendingAuthentications, 3)
        // Authenticating ends the wait and takes a slot.
        let challenge = try start(fourth, "alice")
        let welcome = try answer(fourth, challenge, user: "alice", password: "Al1ce-pass")
        XCTAssertEqual(Array(welcome.prefix(9)), [UInt8(ascii: "R"), 0, 0, 0, 8, 0, 0, 0, 0])
        XCTAssertEqual(server.pendingAuthentications, 2)
        XCTAssertEqual(server.openConnections, 1)
        for c in waiting + [fourth] { _ = try? c.finish() }
    }

    func testTheLastSlotsAreKeptForSuperusers() throws {
        let (server, _) = try makeServer { $0.maxConnections = 4; $0.superuserReservedConnections = 1 }
        defer { server.shutdown() }
        XCTAssertEqual(server.reservedConnections, 1)
        var open: [EmbeddedChannel] = []
        for _ in 0..<3 {
            let c = try connect(server)
            let challenge = try start(c, "alice")
            let welcome = try answer(c, challenge, user: "alice", password: "Al1ce-pass")
            XCTAssertEqual(welcome.first, UInt8(ascii: "R"))
            open.append(c)
        }
        let refused = try connect(server)
        let reply = String(decoding: try answer(refused, try start(refused, "alice"), user: "alice", password: "Al1ce-pass"),
                           as: UTF8.self)
        XCTAssertTrue(reply.contains("C53300") && reply.contains("reserved for superusers"), reply)
        let admin = try connect(server)
        let welcome = try answer(admin, try start(admin, "awsuser"), user: "awsuser", password: "Sup3r-pass")
        XCTAssertEqual(Array(welcome.prefix(9)), [UInt8(ascii: "R"), 0, 0, 0, 8, 0, 0, 0, 0])
        XCTAssertEqual(server.openConnections, 4)
        for c in open + [refused, admin] { _ = try? c.finish() }
    }
}
