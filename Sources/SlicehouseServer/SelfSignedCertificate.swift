// SPDX-License-Identifier: Apache-2.0
import Foundation
import Crypto
import SwiftASN1
import X509

/// TLS without ceremony: the certificate `slicehouse serve` uses when it is given none —
/// `server.crt` and `server.key` in the data directory, made on the first start and kept.
///
/// The certificate is self-signed (it is its own CA, so a client trusts it by naming it:
/// psql's and libpq's `sslrootcert`, Python's `SSL_CERT_FILE`, JDBC's `sslrootcert`), valid
/// for ten years, for `localhost`, `127.0.0.1`, `::1` and the host the server listens on.
/// The key is an ECDSA P-256 key, written readable by its owner alone. An operator who
/// has a certificate of their own passes `--tls-cert` and `--tls-key` instead.
public enum SelfSignedCertificate {
    public static let certificateFile = "server.crt"
    public static let keyFile = "server.key"

    /// The paths of the data directory's certificate and key, made now if either is missing.
    public static func ensure(inDirectory directory: String, host: String) throws -> (certificate: String, key: String) {
        let dir = URL(fileURLWithPath: directory)
        let certPath = dir.appendingPathComponent(certificateFile).path
        let keyPath = dir.appendingPathComponent(keyFile).path
        let fm = FileManager.default
        if fm.fileExists(atPath: certPath) && fm.fileExists(atPath: keyPath) { return (certPath, keyPath) }
        let (certificatePEM, keyPEM) = try make(host: host)
        // The key first, created with mode 0600 (never world-readable, not even briefly);
        // each file written whole under a temporary name and renamed into place.
        try write(keyPEM, to: keyPath, mode: 0o600)
        try write(certificatePEM, to: certPath, mode: 0o644)
        return (certPath, keyPath)
    }

    /// A new self-signed certificate and its key, both PEM.
    public static func make(host: String, now: Date = Date()) throws -> (certificate: String, key: String) {
        let signingKey = P256.Signing.PrivateKey()
        let key = Certificate.PrivateKey(signingKey)
        let name = try DistinguishedName {
            OrganizationName("Slicehouse")
            CommonName("Slicehouse server (self-signed)")
        }
        var names: [GeneralName] = [.dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])),
                                    .ipAddress(ASN1OctetString(contentBytes: ArraySlice([UInt8](repeating: 0, count: 15) + [1])))]
        if let bytes = ipAddressBytes(host) {
            if !names.contains(.ipAddress(ASN1OctetString(contentBytes: ArraySlice(bytes)))) {
                names.append(.ipAddress(ASN1OctetString(contentBytes: ArraySlice(bytes))))
            }
        } else if !host.isEmpty, host != "localhost" {
            names.append(.dnsName(host))
        }
        let extensions = try Certificate.Extensions {
            Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
            Critical(KeyUsage(digitalSignature: true, keyCertSign: true))
            try ExtendedKeyUsage([.serverAuth])
            SubjectAlternativeNames(names)
        }
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: key.publicKey,
            notValidBefore: now.addingTimeInterval(-300), notValidAfter: now.addingTimeInterval(10 * 365 * 24 * 3600),
            issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions,
            issuerPrivateKey: key)
        return (try certificate.serializeAsPEM().pemString + "\n", signingKey.pemRepresentation + "\n")
    }

    /// The bytes of an IPv4 or IPv6 address written as text; nil for a host name.
    static func ipAddressBytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }

    private static func write(_ text: String, to path: String, mode: mode_t) throws {
        let temporary = path + ".tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard fd >= 0 else { throw ServerConfigError("cannot create \(temporary): \(String(cString: strerror(errno)))") }
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
            if n <= 0 {
                let reason = String(cString: strerror(errno))
                close(fd)
                unlink(temporary)
                throw ServerConfigError("cannot write \(temporary): \(reason)")
            }
            written += n
        }
        fsync(fd)
        close(fd)
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw ServerConfigError("cannot write \(path): \(reason)")
        }
    }
}
