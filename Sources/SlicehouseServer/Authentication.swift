// SPDX-License-Identifier: Apache-2.0
import Crypto
import Foundation
import NIOCore
import SlicehouseCatalog
import SlicehouseEngine

/// The server side of one SCRAM-SHA-256 exchange.
struct ScramExchange {
    let user: String
    let verifier: ScramVerifier
    private(set) var clientFirstBare = ""
    private(set) var serverFirst = ""
    private(set) var nonce = ""

    init(user: String, verifier: ScramVerifier) {
        self.user = user
        self.verifier = verifier
    }

    /// Read the SASLInitialResponse; returns the server-first-message.
    mutating func start(_ body: ByteBuffer) throws -> String {
        var b = body
        let mechanism = try b.readCString()
        guard mechanism == "SCRAM-SHA-256" else {
            throw AuthenticationFailure(code: "28000", message: "client selected an invalid SASL authentication mechanism")
        }
        let length = try b.readInt32()
        guard length >= 0, let text = b.readString(length: Int(length)) else { throw Self.malformed }
        // gs2-header: "n,," or "y,," (no channel binding); "p=..." asks for binding we do not offer.
        guard text.hasPrefix("n,") || text.hasPrefix("y,") else {
            throw AuthenticationFailure(code: "08P01", message: "channel binding is not supported")
        }
        let parts = text.split(separator: ",", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw Self.malformed }
        clientFirstBare = String(parts[2])
        guard let clientNonce = Self.attribute("r", in: clientFirstBare), !clientNonce.isEmpty else { throw Self.malformed }
        let serverNonce = Data((0..<18).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        nonce = clientNonce + serverNonce
        serverFirst = "r=\(nonce),s=\(Data(verifier.salt).base64EncodedString()),i=\(verifier.iterations)"
        return serverFirst
    }

    /// Check the client-final-message; returns the server-final-message.
    func finish(_ body: ByteBuffer) throws -> String {
        var b = body
        guard let text = b.readString(length: b.readableBytes) else { throw Self.malformed }
        guard let proofRange = text.range(of: ",p=") else { throw Self.malformed }
        let withoutProof = String(text[..<proofRange.lowerBound])
        let proofText = String(text[proofRange.upperBound...])
        guard Self.attribute("r", in: withoutProof) == nonce,
              let proof = Data(base64Encoded: proofText), proof.count == 32 else { throw Self.failed(user) }
        let authMessage = clientFirstBare + "," + serverFirst + "," + withoutProof
        let signature = Scram.hmac(verifier.storedKey, authMessage)
        let clientKey = zip(proof, signature).map { $0 ^ $1 }
        guard Array(SHA256.hash(data: clientKey)) == verifier.storedKey else { throw Self.failed(user) }
        let serverSignature = Scram.hmac(verifier.serverKey, authMessage)
        return "v=" + Data(serverSignature).base64EncodedString()
    }

    static func attribute(_ name: Character, in message: String) -> String? {
        for part in message.split(separator: ",") where part.first == name && part.dropFirst().first == "=" {
            return String(part.dropFirst(2))
        }
        return nil
    }

    static let malformed = AuthenticationFailure(code: "08P01", message: "malformed SCRAM message")
    static func failed(_ user: String) -> AuthenticationFailure { .password(user) }
}

/// A refused login: sent as a FATAL ErrorResponse, then the connection closes.
struct AuthenticationFailure: Error, Equatable {
    var code: String
    var message: String

    static func password(_ user: String) -> AuthenticationFailure {
        AuthenticationFailure(code: "28P01", message: "password authentication failed for user \"\(user)\"")
    }
}

/// Whether an md5 response (`md5` + hex(md5(hex-hash-without-prefix + salt))) matches.
func md5ResponseMatches(_ response: String, stored: String, salt: [UInt8]) -> Bool {
    guard stored.hasPrefix("md5"), stored.count == 35 else { return false }
    let inner = Array(stored.dropFirst(3).utf8) + salt
    let expected = "md5" + PasswordCredential.hex(Insecure.MD5.hash(data: inner))
    return constantTimeEqual(Array(response.utf8), Array(expected.utf8))
}

func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    var d: UInt8 = 0
    for i in 0..<a.count { d |= a[i] ^ b[i] }
    return d == 0
}

/// How a connection proves who it is, from the host rules.
public enum AuthMethod: String, Sendable, Equatable {
    case trust, password, md5
    case scram = "scram-sha-256"
    case reject
}

/// Per-host authentication rules, PostgreSQL's pg_hba.conf in small: each line is
/// `host ADDRESS[/BITS]|all|loopback USER|all METHOD`; `#` starts a comment. The first
/// rule whose address and user match decides. `trust` is accepted only for loopback
/// addresses (a rule giving it to others is refused when the file is read).
public struct HostRules: Sendable, Equatable {
    public struct Rule: Sendable, Equatable {
        public var address: String   // "all", "loopback", or an address with optional /bits
        public var user: String      // "all" or a name
        public var method: AuthMethod
    }

    public var rules: [Rule]

    /// Without a file: md5 passwords from everywhere, as Redshift asks for them (Amazon's
    /// redshift_connector cannot read a SCRAM offer; a rule file can ask for SCRAM);
    /// `trustLoopback` lets loopback connections in without a password.
    public static func defaults(trustLoopback: Bool) -> HostRules {
        var rules: [Rule] = []
        if trustLoopback { rules.append(Rule(address: "loopback", user: "all", method: .trust)) }
        rules.append(Rule(address: "all", user: "all", method: .md5))
        return HostRules(rules: rules)
    }

    public init(rules: [Rule]) { self.rules = rules }

    public init(text: String, file: String) throws {
        var rules: [Rule] = []
        for (n, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            if words.isEmpty { continue }
            func bad(_ why: String) -> Error {
                ServerConfigError("\(file), line \(n + 1): \(why)")
            }
            guard words.count == 4, words[0] == "host" else { throw bad("expected \"host ADDRESS USER METHOD\"") }
            guard let method = AuthMethod(rawValue: words[3].lowercased()) else {
                throw bad("unknown authentication method \"\(words[3])\" (trust, password, md5, scram-sha-256, reject)")
            }
            let address = words[1].lowercased()
            if address != "all" && address != "loopback" && IPRange(address) == nil {
                throw bad("invalid address \"\(words[1])\"")
            }
            if method == .trust && address != "loopback" && !(IPRange(address)?.isLoopbackOnly ?? false) {
                throw bad("trust is allowed only for loopback addresses")
            }
            // User names fold to lower case, as logins do.
            rules.append(Rule(address: address, user: words[2].lowercased(), method: method))
        }
        self.rules = rules
    }

    /// The method for `user` connecting from `address` (nil: no rule matches — refused).
    public func method(user: String, address: SocketAddress?) -> AuthMethod? {
        let ip = address?.ipAddress
        let loopback = ip.map { $0 == "127.0.0.1" || $0 == "::1" || $0.hasPrefix("127.") || $0 == "::ffff:127.0.0.1" }
            ?? true   // a Unix socket
        let user = user.lowercased()
        for r in rules {
            guard r.user == "all" || r.user == user else { continue }
            switch r.address {
            case "all": return r.method
            case "loopback": if loopback { return r.method }
            default:
                if let ip, let range = IPRange(r.address), range.contains(ip) { return r.method }
            }
        }
        return nil
    }
}

/// An IPv4 address range `a.b.c.d[/bits]`.
struct IPRange: Equatable {
    var base: UInt32
    var bits: Int

    init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1)
        guard let first = parts.first, let a = IPRange.parse(String(first)) else { return nil }
        var b = 32
        if parts.count == 2 {
            guard let n = Int(parts[1]), n >= 0, n <= 32 else { return nil }
            b = n
        }
        bits = b
        base = a & IPRange.mask(b)
    }

    static func mask(_ bits: Int) -> UInt32 { bits == 0 ? 0 : ~UInt32(0) << UInt32(32 - bits) }

    static func parse(_ s: String) -> UInt32? {
        let octets = s.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4 else { return nil }
        var v: UInt32 = 0
        for o in octets {
            guard let n = UInt8(o) else { return nil }
            v = v << 8 | UInt32(n)
        }
        return v
    }

    func contains(_ ip: String) -> Bool {
        let plain = ip.hasPrefix("::ffff:") ? String(ip.dropFirst(7)) : ip
        guard let v = IPRange.parse(plain) else { return false }
        return v & IPRange.mask(bits) == base
    }

    var isLoopbackOnly: Bool { bits >= 8 && base >> 24 == 127 }
}

public struct ServerConfigError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
