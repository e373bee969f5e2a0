// SPDX-License-Identifier: Apache-2.0
import Crypto
import Foundation
import SlicehouseCatalog
import SlicehouseTypes

/// Password hashing (swift-crypto): the md5 form Redshift stores and a SCRAM-SHA-256
/// verifier. The server checks logins against these; the clear text is never kept.
extension PasswordCredential {
    /// The credential of `password` for `user` (a fresh random salt for SCRAM).
    public init(password: String, user: String) {
        self.init(md5: PasswordCredential.md5Hash(password: password, user: user), scram: ScramVerifier(password: password))
    }

    /// "md5" + hex(md5(password + user)).
    public static func md5Hash(password: String, user: String) -> String {
        "md5" + hex(Insecure.MD5.hash(data: Array((password + user).utf8)))
    }

    public static func hex<S: Sequence>(_ bytes: S) -> String where S.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for b in bytes { out.append(digits[Int(b >> 4)]); out.append(digits[Int(b & 15)]) }
        return String(decoding: out, as: UTF8.self)
    }
}

extension ScramVerifier {
    public init(password: String, salt: [UInt8]? = nil, iterations: Int = 4096) {
        let salt = salt ?? (0..<16).map { _ in UInt8.random(in: 0...255) }
        let salted = Scram.hi(Array(password.utf8), salt: salt, iterations: iterations)
        let clientKey = Scram.hmac(salted, "Client Key")
        self.init(salt: salt, iterations: iterations, storedKey: Array(SHA256.hash(data: clientKey)),
                  serverKey: Scram.hmac(salted, "Server Key"))
    }
}

/// SCRAM-SHA-256's building blocks (RFC 5802).
public enum Scram {
    public static func hmac(_ key: [UInt8], _ message: String) -> [UInt8] { hmac(key, Array(message.utf8)) }

    public static func hmac(_ key: [UInt8], _ message: [UInt8]) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key)))
    }

    /// Hi(): PBKDF2 with HMAC-SHA-256 and one output block.
    public static func hi(_ password: [UInt8], salt: [UInt8], iterations: Int) -> [UInt8] {
        let key = SymmetricKey(data: password)
        var u = Array(HMAC<SHA256>.authenticationCode(for: salt + [0, 0, 0, 1], using: key))
        var result = u
        if iterations > 1 {
            for _ in 1..<iterations {
                u = Array(HMAC<SHA256>.authenticationCode(for: u, using: key))
                for i in 0..<result.count { result[i] ^= u[i] }
            }
        }
        return result
    }
}

enum PasswordRules {
    /// The credential a CREATE/ALTER USER password gives: an `md5` + 32 hex digits hash is
    /// kept as it is (SCRAM logins then are not possible); clear text must follow
    /// Redshift's rules: 8 to 64 characters of ASCII 33–126 except ' " \ / @, with an
    /// upper-case letter, a lower-case letter and a digit.
    static func credential(_ text: String, user: String) throws -> PasswordCredential {
        let lower = text.lowercased()
        if lower.hasPrefix("md5"), text.count == 35, lower.dropFirst(3).allSatisfy({ $0.isHexDigit }) {
            return PasswordCredential(md5: lower, scram: nil)
        }
        if lower.hasPrefix("sha256|") {
            throw SQLError(.featureNotSupported, "SHA-256 password hashes are not supported; give the password as clear text or an md5 hash")
        }
        func refuse(_ why: String) -> SQLError { SQLError(.invalidParameter, "Invalid password: \(why)") }
        let scalars = text.unicodeScalars
        guard scalars.count >= 8 else { throw refuse("it must be at least 8 characters long") }
        guard scalars.count <= 64 else { throw refuse("it must be at most 64 characters long") }
        for s in scalars where s.value < 33 || s.value > 126 || "'\"\\/@".unicodeScalars.contains(s) {
            throw refuse("it may use ASCII characters 33 to 126 except ' \" \\ / and @")
        }
        guard scalars.contains(where: { ("A"..."Z").contains($0) }) else { throw refuse("it must contain an uppercase letter") }
        guard scalars.contains(where: { ("a"..."z").contains($0) }) else { throw refuse("it must contain a lowercase letter") }
        guard scalars.contains(where: { ("0"..."9").contains($0) }) else { throw refuse("it must contain a number") }
        return PasswordCredential(password: text, user: user)
    }
}
