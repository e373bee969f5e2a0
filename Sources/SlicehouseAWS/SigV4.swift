// SPDX-License-Identifier: Apache-2.0
import Crypto

/// AWS credentials: an access key, its secret and, for temporary ones, a session token.
/// `description` never shows the secret or the token (they must not reach a log).
public struct AWSCredentials: Sendable, Equatable, CustomStringConvertible {
    public var accessKeyID: String
    public var secretAccessKey: String
    public var sessionToken: String?

    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID; self.secretAccessKey = secretAccessKey; self.sessionToken = sessionToken
    }

    public var description: String { "AWSCredentials(\(accessKeyID), secret: ***\(sessionToken == nil ? "" : ", token: ***"))" }
}

/// AWS Signature Version 4 (the Authorization header), as the AWS General Reference's
/// "Signature Version 4 signing process" and S3's "Authenticating Requests" describe it:
/// a canonical request (method, URI path, sorted query, sorted lower-case headers, the
/// payload's SHA-256), a string to sign over its hash and the credential scope, and an
/// HMAC-SHA256 chain from the secret through date, region, service and `aws4_request`.
/// S3 signs the path as sent (no normalisation, no second encoding) and wants the payload
/// hash in `x-amz-content-sha256`.
public struct SigV4Signer: Sendable {
    public var credentials: AWSCredentials
    public var region: String
    public var service: String

    public init(credentials: AWSCredentials, region: String, service: String) {
        self.credentials = credentials; self.region = region; self.service = service
    }

    /// The hash S3 accepts in place of the payload's when it is not known in advance.
    public static let unsignedPayload = "UNSIGNED-PAYLOAD"
    /// SHA-256 of nothing, the payload hash of a request without a body.
    public static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    /// A request to sign: `path` is the URI path as sent, already encoded
    /// (`SigV4Signer.encodePath`), `query` the raw (decoded) parameters.
    public struct Request: Sendable {
        public var method: String
        public var host: String
        public var path: String
        public var query: [(String, String)]
        public var headers: [(String, String)]
        public var payloadHash: String

        public init(method: String, host: String, path: String, query: [(String, String)] = [],
                    headers: [(String, String)] = [], payloadHash: String = SigV4Signer.emptyPayloadHash) {
            self.method = method; self.host = host; self.path = path; self.query = query
            self.headers = headers; self.payloadHash = payloadHash
        }

        /// The query string as sent and as signed: parameters sorted by name, then value,
        /// each encoded (`/` too).
        public var canonicalQuery: String {
            query.map { (SigV4Signer.encode($0.0, slash: true), SigV4Signer.encode($0.1, slash: true)) }
                .sorted { $0.0 == $1.0 ? $0.1 < $1.1 : $0.0 < $1.0 }
                .map { "\($0.0)=\($0.1)" }.joined(separator: "&")
        }
    }

    /// The headers to send besides `request.headers`: host, x-amz-date,
    /// x-amz-content-sha256, x-amz-security-token (temporary credentials) and
    /// Authorization. `amzDate` is `yyyyMMdd'T'HHmmss'Z'` in UTC.
    public func sign(_ request: Request, amzDate: String) -> [(String, String)] {
        var added: [(String, String)] = [("host", request.host), ("x-amz-date", amzDate),
                                         ("x-amz-content-sha256", request.payloadHash)]
        if let token = credentials.sessionToken { added.append(("x-amz-security-token", token)) }
        var headers: [String: String] = [:]
        for (name, value) in request.headers + added {
            let key = name.lowercased()
            let trimmed = Self.trimHeaderValue(value)
            headers[key] = headers[key].map { $0 + "," + trimmed } ?? trimmed
        }
        let names = headers.keys.sorted()
        let signedHeaders = names.joined(separator: ";")
        let canonicalHeaders = names.map { "\($0):\(headers[$0] ?? "")\n" }.joined()
        let canonicalRequest = [request.method, request.path.isEmpty ? "/" : request.path, request.canonicalQuery,
                                canonicalHeaders, signedHeaders, request.payloadHash].joined(separator: "\n")
        let day = String(amzDate.prefix(8))
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope, Self.hex(SHA256.hash(data: Array(canonicalRequest.utf8)))]
            .joined(separator: "\n")
        let signature = Self.hex(HMAC<SHA256>.authenticationCode(for: Array(stringToSign.utf8), using: signingKey(day: day)))
        let authorization = "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope), "
            + "SignedHeaders=\(signedHeaders), Signature=\(signature)"
        return added + [("authorization", authorization)]
    }

    /// kSigning = HMAC(HMAC(HMAC(HMAC("AWS4" + secret, day), region), service), "aws4_request").
    func signingKey(day: String) -> SymmetricKey {
        var key = SymmetricKey(data: Array(("AWS4" + credentials.secretAccessKey).utf8))
        for part in [day, region, service, "aws4_request"] {
            key = SymmetricKey(data: Array(HMAC<SHA256>.authenticationCode(for: Array(part.utf8), using: key)))
        }
        return key
    }

    /// The hex SHA-256 of `bytes` (a payload hash).
    public static func payloadHash(_ bytes: some Sequence<UInt8>) -> String {
        hex(SHA256.hash(data: Array(bytes)))
    }

    static func hex<D: Sequence>(_ digest: D) -> String where D.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for b in digest { out.append(digits[Int(b >> 4)]); out.append(digits[Int(b & 15)]) }
        return String(decoding: out, as: UTF8.self)
    }

    /// AWS's URI encoding: every byte but `A-Z a-z 0-9 - _ . ~` as `%XX` (upper-case hex);
    /// `/` kept unless `slash` (query parameters encode it, paths do not).
    public static func encode(_ s: String, slash: Bool) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
                out.append(b)
            case UInt8(ascii: "/") where !slash:
                out.append(b)
            default:
                out.append(UInt8(ascii: "%")); out.append(digits[Int(b >> 4)]); out.append(digits[Int(b & 15)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// An object key's path as sent and signed: `/` then the key encoded, slashes kept.
    public static func encodePath(_ path: String) -> String {
        let p = encode(path, slash: false)
        return p.hasPrefix("/") ? p : "/" + p
    }

    /// A header value with leading and trailing blanks removed and inner runs of blanks
    /// made one, as the canonical headers want.
    static func trimHeaderValue(_ v: String) -> String {
        var out = ""
        var blank = false
        for c in v {
            if c == " " || c == "\t" { blank = true; continue }
            if blank && !out.isEmpty { out.append(" ") }
            blank = false
            out.append(c)
        }
        return out
    }
}
