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

/// The wire protocol without sockets: message framing, the authentication exchanges,
/// host rules, binary values, and a login through NIO's embedded channel.
final class ProtocolTests: XCTestCase {
    /// Decode everything `bytes` holds.
    func decode(_ bytes: [UInt8], startup: Bool = false) throws -> [FrontendMessage] {
        let channel = EmbeddedChannel()
        let decoder = FrontendDecoder()
        decoder.expectingStartup = startup
        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(decoder))
        try channel.writeInbound(ByteBuffer(bytes: bytes))
        var out: [FrontendMessage] = []
        while let m = try channel.readInbound(as: FrontendMessage.self) { out.append(m) }
        _ = try? channel.finish()
        return out
    }

    func testStartupSSLAndCancelPackets() throws {
        let m = try decode(startupPacket([("user", "bob"), ("database", "dev"), ("client_protocol_version", "2")]), startup: true)
        XCTAssertEqual(m, [.startup(protocolVersion: 196608,
                                    parameters: ["user": "bob", "database": "dev", "client_protocol_version": "2"])])
        XCTAssertEqual(try decode([0, 0, 0, 8, 4, 210, 22, 47], startup: true), [.sslRequest])
        XCTAssertEqual(try decode([0, 0, 0, 16, 4, 210, 22, 46, 0, 0, 0, 7, 255, 255, 255, 255], startup: true),
                       [.cancel(process: 7, secret: -1)])
        XCTAssertThrowsError(try decode(startupPacket([("user", "x")], code: 2 << 16), startup: true)) { e in
            XCTAssertTrue((e as? ProtocolError)?.message.contains("unsupported frontend protocol") ?? false, "\(e)")
        }
        XCTAssertThrowsError(try decode([0, 0, 0, 3, 0, 0, 0, 0], startup: true))
        XCTAssertThrowsError(try decode([0, 0x7F, 0, 0, 0, 3, 0, 0], startup: true))
    }

    func testMessagesAndTheirErrors() throws {
        var parse = Array("s1\0select $1\0".utf8)
        parse += [0, 1, 0, 0, 0, 23]
        var bind = Array("p1\0s1\0".utf8)
        bind += [0, 1, 0, 0,  0, 2,  0, 0, 0, 2] + Array("42".utf8) + [255, 255, 255, 255] + [0, 1, 0, 1]
        let all = message("Q", Array("select 1\0".utf8)) + message("P", parse) + message("B", bind)
            + message("D", Array("Pp1\0".utf8)) + message("E", Array("p1\0".utf8) + [0, 0, 0, 5]) + message("S", [])
            + message("H", []) + message("C", Array("Ss1\0".utf8)) + message("X", [])
        let m = try decode(all)
        XCTAssertEqual(m.count, 9)
        XCTAssertEqual(m[0], .query("select 1"))
        XCTAssertEqual(m[1], .parse(name: "s1", query: "select $1", parameterTypes: [23]))
        XCTAssertEqual(m[2], .bind(portal: "p1", statement: "s1", parameterFormats: [0], parameters: [ByteBuffer(string: "42"), nil],
                                   resultFormats: [1]))
        XCTAssertEqual(m[3], .describe(kind: UInt8(ascii: "P"), name: "p1"))
        XCTAssertEqual(m[4], .execute(portal: "p1", maxRows: 5))
        XCTAssertEqual(Array(m[5...]), [.sync, .flush, .close(kind: UInt8(ascii: "S"), name: "s1"), .terminate])
        // A split message waits for the rest.
        let q = message("Q", Array("select 2\0".utf8))
        XCTAssertEqual(try decode(Array(q.prefix(6))), [])
        // Bad type, bad length, unterminated string, a count past the end.
        XCTAssertThrowsError(try decode(message("z", [])))
        XCTAssertThrowsError(try decode([UInt8(ascii: "Q"), 0, 0, 0, 2]))
        XCTAssertThrowsError(try decode(message("Q", Array("no end".utf8))))
        XCTAssertThrowsError(try decode(message("P", Array("\0select 1\0".utf8) + [0x7F, 0x7F])))
        XCTAssertThrowsError(try decode(message("B", Array("\0\0".utf8) + [0, 0, 0, 1, 0x7F, 0, 0, 0])))
    }

    func testScramExchangeAcceptsTheRightPasswordOnly() throws {
        let verifier = ScramVerifier(password: "pencil", salt: Array("0123456789abcdef".utf8), iterations: 4096)
        for (password, accepted) in [("pencil", true), ("pen", false)] {
            var exchange = ScramExchange(user: "u", verifier: verifier)
            let clientFirstBare = "n=u,r=rOprNGfwEbeRWgbNEkqO"
            var first = ByteBuffer()
            first.writeCString("SCRAM-SHA-256")
            first.writeInteger(Int32(clientFirstBare.utf8.count + 3))
            first.writeString("n,," + clientFirstBare)
            let serverFirst = try exchange.start(first)
            let nonce = try XCTUnwrap(ScramExchange.attribute("r", in: serverFirst))
            XCTAssertTrue(nonce.hasPrefix("rOprNGfwEbeRWgbNEkqO"))
            // The client's side, from RFC 5802.
            let salted = Scram.hi(Array(password.utf8), salt: verifier.salt, iterations: 4096)
            let clientKey = Scram.hmac(salted, "Client Key")
            let storedKey = Array(SHA256.hash(data: clientKey))
            let withoutProof = "c=biws,r=\(nonce)"
            let authMessage = clientFirstBare + "," + serverFirst + "," + withoutProof
            let proof = zip(clientKey, Scram.hmac(storedKey, authMessage)).map { $0 ^ $1 }
            let final = ByteBuffer(string: withoutProof + ",p=" + Data(proof).base64EncodedString())
            if accepted {
                let serverFinal = try exchange.finish(final)
                let expected = Scram.hmac(Scram.hmac(salted, "Server Key"), authMessage)
                XCTAssertEqual(serverFinal, "v=" + Data(expected).base64EncodedString())
            } else {
                XCTAssertThrowsError(try exchange.finish(final)) { e in
                    XCTAssertEqual((e as? AuthenticationFailure)?.code, "28P01")
                }
            }
        }
        // Channel binding is refused.
        var exchange = ScramExchange(user: "u", verifier: verifier)
        var first = ByteBuffer()
        first.writeCString("SCRAM-SHA-256")
        first.writeInteger(Int32(20))
        first.writeString("p=tls-server-end-poi")
        XCTAssertThrowsError(try exchange.start(first))
    }

    func testMD5() {
        let stored = PasswordCredential.md5Hash(password: "secret", user: "bob")
        XCTAssertEqual(stored, "md5" + PasswordCredential.hex(Insecure.MD5.hash(data: Array("secretbob".utf8))))
        let salt: [UInt8] = [1, 2, 3, 4]
        let response = "md5" + PasswordCredential.hex(Insecure.MD5.hash(data: Array(stored.dropFirst(3).utf8) + salt))
        XCTAssertTrue(md5ResponseMatches(response, stored: stored, salt: salt))
        XCTAssertFalse(md5ResponseMatches(response, stored: stored, salt: [1, 2, 3, 5]))
        XCTAssertFalse(md5ResponseMatches("md5", stored: stored, salt: salt))
    }

    func testHostRules() throws {
        let rules = try HostRules(text: """
            # comment
            host 10.1.0.0/16 bob scram-sha-256
            host loopback all trust
            host 127.0.0.1/32 all trust
            host all all md5
            """, file: "hba")
        func address(_ ip: String) throws -> SocketAddress { try SocketAddress(ipAddress: ip, port: 5439) }
        XCTAssertEqual(rules.method(user: "bob", address: try address("10.1.2.3")), .scram)
        XCTAssertEqual(rules.method(user: "eve", address: try address("10.1.2.3")), .md5)
        XCTAssertEqual(rules.method(user: "eve", address: try address("127.0.0.1")), .trust)
        XCTAssertEqual(rules.method(user: "eve", address: try address("::1")), .trust)
        XCTAssertThrowsError(try HostRules(text: "host all all trust", file: "hba")) { e in
            XCTAssertTrue("\(e)".contains("trust is allowed only for loopback"), "\(e)")
        }
        XCTAssertThrowsError(try HostRules(text: "host 10.0.0.0/8 all trust", file: "hba"))
        XCTAssertThrowsError(try HostRules(text: "host 300.1.1.1 all md5", file: "hba"))
        XCTAssertThrowsError(try HostRules(text: "host all all kerberos", file: "hba"))
        XCTAssertNil(try HostRules(text: "host 10.0.0.0/8 all md5", file: "hba").method(user: "x", address: try address("11.0.0.1")))
    }

    func testNumericBinaryRoundTrip() throws {
        let cases: [(Int128, Int)] = [(0, 0), (5, 1), (-1, 4), (123_456_789, 3), (100_000, 0), (-12345, 3),
                                      (Int128(10).power(37) + 1, 10), (1, 9), (99_990_000, 4)]
        for (unscaled, scale) in cases {
            let type = DataType.decimal(precision: 38, scale: scale)
            let v = Vector(type: type, data: .int128([unscaled]))
            var out = ByteBuffer()
            RowEncoder(types: [type], formats: [1]).encode(Chunk(columns: [v], count: 1), from: 0, to: 1, into: &out)
            out.moveReaderIndex(forwardBy: 1 + 4 + 2 + 4)   // 'D', length, column count, value length
            let text = try WireType.decodeNumeric(&out)
            XCTAssertEqual(text, DecimalFormat.format(unscaled, scale: scale), "\(unscaled) scale \(scale)")
        }
    }

    func testLoginThroughAnEmbeddedChannel() throws {
        let database = try Database()
        var configuration = ServerConfiguration()
        configuration.superuserPassword = "pw"
        configuration.rules = HostRules(rules: [HostRules.Rule(address: "all", user: "all", method: .md5)])
        let server = try Server(database: database, configuration: configuration)
        server.startsWorkers = false
        defer { server.shutdown() }

        // SSL is answered N (no certificate configured), then the md5 exchange.
        let channel = try connect(server)
        try channel.writeInbound(ByteBuffer(bytes: [0, 0, 0, 8, 4, 210, 22, 47]))
        XCTAssertEqual(try outbound(channel), [UInt8(ascii: "N")])
        try channel.writeInbound(ByteBuffer(bytes: startupPacket([("user", "awsuser"), ("database", "dev")])))
        let request = try outbound(channel)
        XCTAssertEqual(Array(request.prefix(9)), [UInt8(ascii: "R"), 0, 0, 0, 12, 0, 0, 0, 5])
        let salt = Array(request[9..<13])
        let stored = PasswordCredential.md5Hash(password: "pw", user: "awsuser")
        let response = "md5" + PasswordCredential.hex(Insecure.MD5.hash(data: Array(stored.dropFirst(3).utf8) + salt))
        try channel.writeInbound(ByteBuffer(bytes: message("p", Array(response.utf8) + [0])))
        let welcome = try outbound(channel)
        XCTAssertEqual(Array(welcome.prefix(9)), [UInt8(ascii: "R"), 0, 0, 0, 8, 0, 0, 0, 0])
        let text = String(decoding: welcome, as: UTF8.self)
        XCTAssertTrue(text.contains("server_version\u{0}8.0.2\u{0}"))
        XCTAssertTrue(text.contains("session_authorization\u{0}awsuser\u{0}"))
        XCTAssertEqual(welcome.suffix(6), [UInt8(ascii: "Z"), 0, 0, 0, 5, UInt8(ascii: "I")])
        XCTAssertEqual(server.openConnections, 1)
        _ = try? channel.finish()

        // A wrong password, an unknown user and an unknown database are refused with FATAL.
        for (user, database, password, code) in [("awsuser", "dev", "nope", "28P01"), ("mallory", "dev", "pw", "28P01"),
                                                 ("awsuser", "other", "pw", "3D000")] {
            let c = try connect(server)
            try c.writeInbound(ByteBuffer(bytes: startupPacket([("user", user), ("database", database)])))
            var reply = try outbound(c)
            if reply.first == UInt8(ascii: "R") {
                let salt = Array(reply[9..<13])
                let s = PasswordCredential.md5Hash(password: password, user: user)
                let r = "md5" + PasswordCredential.hex(Insecure.MD5.hash(data: Array(s.dropFirst(3).utf8) + salt))
                try c.writeInbound(ByteBuffer(bytes: message("p", Array(r.utf8) + [0])))
                reply = try outbound(c)
            }
            XCTAssertEqual(reply.first, UInt8(ascii: "E"), "\(user)/\(database)")
            let body = String(decoding: reply, as: UTF8.self)
            XCTAssertTrue(body.contains("SFATAL") && body.contains("C\(code)"), body)
            _ = try? c.finish()
        }
        XCTAssertEqual(server.openConnections, 0)
    }
}

private extension Int128 {
    func power(_ n: Int) -> Int128 { (0..<n).reduce(1) { r, _ in r * self } }
}
