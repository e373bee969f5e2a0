// SPDX-License-Identifier: Apache-2.0
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import SlicehouseTypes

/// One object of a listing.
public struct S3Object: Sendable, Equatable {
    public var key: String
    public var size: Int
    /// The listing's ETag: it changes when the object is written again.
    public var etag: String?
    public init(key: String, size: Int, etag: String? = nil) { self.key = key; self.size = size; self.etag = etag }
}

/// The S3 API calls COPY and UNLOAD make, signed with Signature Version 4 and sent through
/// async-http-client's shared client (TLS, keep-alive, a connection pool). The calls block
/// the calling thread — a statement's — until the answer is in, never an event loop's.
///
/// A request that fails in a way another try may cure — a 500, a 503 `SlowDown`, a dropped
/// or refused connection, a stall past `requestTimeout` — is tried again after a backoff
/// (0.1 s, doubling, with jitter) up to `attempts` times in all. Any other answer is final.
/// S3's errors become Redshift's text (`S3ServiceException:Access Denied,Status 403,Error
/// AccessDenied,...`), naming the object; the keys never appear in one.
public final class S3Client: Sendable {
    public let endpoint: S3Endpoint
    let signer: SigV4Signer
    let client: HTTPClient
    public let attempts: Int
    public let requestTimeout: TimeAmount
    /// Asked every 50 ms while a request is under way or a retry waits: an error (the
    /// statement was cancelled, or ran past its timeout) abandons the request and is thrown.
    public let stop: @Sendable () -> Error?
    /// Where every try of every request is recorded (STL_S3CLIENT, STL_S3CLIENT_ERROR).
    public let log: S3RequestLog?

    public init(endpoint: S3Endpoint, credentials: AWSCredentials, attempts: Int = 4,
                requestTimeout: TimeAmount = .seconds(120), client: HTTPClient = .shared,
                log: S3RequestLog? = nil, stop: @escaping @Sendable () -> Error? = { nil }) {
        self.endpoint = endpoint
        self.signer = SigV4Signer(credentials: credentials, region: endpoint.region, service: "s3")
        self.client = client
        self.attempts = max(1, attempts)
        self.requestTimeout = requestTimeout
        self.log = log
        self.stop = stop
    }

    /// Who the client is to S3 — the endpoint and the access key — so that what one
    /// identity read is never handed to another (`ExternalFileCache`).
    public var identity: String { "\(endpoint.scheme)://\(endpoint.host):\(endpoint.port ?? 0)|\(signer.credentials.accessKeyID)" }

    /// The same client without `stop`: for clean-up that must run after the statement was
    /// cancelled (aborting its uploads, deleting what it wrote).
    public var unstoppable: S3Client {
        S3Client(endpoint: endpoint, signer: signer, attempts: attempts, requestTimeout: requestTimeout, client: client, log: log)
    }

    private init(endpoint: S3Endpoint, signer: SigV4Signer, attempts: Int, requestTimeout: TimeAmount, client: HTTPClient,
                 log: S3RequestLog?) {
        self.endpoint = endpoint; self.signer = signer; self.client = client
        self.attempts = attempts; self.requestTimeout = requestTimeout; self.log = log; self.stop = { nil }
    }

    // MARK: - Calls

    /// Every object whose key starts with `location.key`, in key order (ListObjectsV2,
    /// page after page).
    public func list(_ location: S3Location, pageSize: Int? = nil) throws -> [S3Object] {
        var out: [S3Object] = []
        var token: String? = nil
        repeat {
            var query = [("list-type", "2"), ("prefix", location.key)]
            if let pageSize { query.append(("max-keys", String(pageSize))) }
            if let token { query.append(("continuation-token", token)) }
            let r = try send("GET", location.sibling(""), query: query, what: "list \(location)")
            let xml = XMLFields(r.body)
            for contents in xml.elements("Contents") {
                let fields = XMLFields(contents)
                guard let key = fields.first("Key") else { continue }
                out.append(S3Object(key: key, size: Int(fields.first("Size") ?? "") ?? 0, etag: fields.first("ETag")))
            }
            token = xml.first("IsTruncated") == "true" ? xml.first("NextContinuationToken") : nil
        } while token != nil
        return out
    }

    /// The object's bytes, or those of `range` (a ranged GET).
    public func get(_ location: S3Location, range: Range<Int>? = nil) throws -> [UInt8] {
        var headers: [(String, String)] = []
        if let range {
            guard !range.isEmpty else { return [] }
            headers.append(("range", "bytes=\(range.lowerBound)-\(range.upperBound - 1)"))
        }
        return try send("GET", location, headers: headers, what: "read \(location)").body
    }

    /// Bytes `range` of the object written straight into `destination` (at least
    /// `range.count` bytes) as they arrive, with no copy of the body on the way: how COPY
    /// reads the parts of a large object. Returns the bytes written, which a short answer
    /// makes fewer than asked for. After a stop or a failure nothing more is written.
    public func get(_ location: S3Location, range: Range<Int>, into destination: UnsafeMutableRawBufferPointer) throws -> Int {
        guard !range.isEmpty else { return 0 }
        let headers = [("range", "bytes=\(range.lowerBound)-\(range.upperBound - 1)")]
        return try send("GET", location, headers: headers, sink: destination, what: "read \(location)").written
    }

    /// The object's size (HEAD).
    public func size(_ location: S3Location) throws -> Int {
        let r = try send("HEAD", location, what: "read \(location)")
        return Int(r.headers.first(name: "content-length") ?? "") ?? 0
    }

    /// Store `body` as the object (one PUT).
    public func put(_ location: S3Location, body: [UInt8], contentType: String? = nil) throws {
        let headers = contentType.map { [("content-type", $0)] } ?? []
        _ = try send("PUT", location, headers: headers, body: body, what: "write \(location)")
    }

    /// Make a bucket (tests and tools; COPY and UNLOAD never do). `region` other than
    /// us-east-1 goes in the body, as S3 wants it.
    public func createBucket(_ bucket: String) throws {
        let body = endpoint.region == "us-east-1" ? nil : Array(
            "<CreateBucketConfiguration><LocationConstraint>\(endpoint.region)</LocationConstraint></CreateBucketConfiguration>".utf8)
        _ = try send("PUT", S3Location(bucket: bucket, key: ""), body: body, what: "create bucket \(bucket)")
    }

    public func delete(_ location: S3Location) throws {
        _ = try send("DELETE", location, what: "delete \(location)")
    }

    /// Multipart upload: start one, upload its parts (each but the last at least 5 MB),
    /// complete it with the parts' ETags, or abort it (its parts are dropped).
    public func startMultipartUpload(_ location: S3Location) throws -> String {
        let r = try send("POST", location, query: [("uploads", "")], what: "write \(location)")
        guard let id = XMLFields(r.body).first("UploadId") else {
            throw S3Error.unreadable("CreateMultipartUpload of \(location) answered without an UploadId")
        }
        return id
    }

    public func uploadPart(_ location: S3Location, uploadID: String, number: Int, body: [UInt8]) throws -> String {
        let r = try send("PUT", location, query: [("partNumber", String(number)), ("uploadId", uploadID)], body: body,
                         what: "write \(location)")
        guard let etag = r.headers.first(name: "etag") else {
            throw S3Error.unreadable("UploadPart of \(location) answered without an ETag")
        }
        return etag
    }

    public func completeMultipartUpload(_ location: S3Location, uploadID: String, etags: [String]) throws {
        var xml = "<CompleteMultipartUpload>"
        for (i, etag) in etags.enumerated() {
            xml += "<Part><PartNumber>\(i + 1)</PartNumber><ETag>\(XMLFields.escape(etag))</ETag></Part>"
        }
        xml += "</CompleteMultipartUpload>"
        let r = try send("POST", location, query: [("uploadId", uploadID)], body: Array(xml.utf8), what: "write \(location)")
        // S3 may answer 200 with an error in the body.
        let answer = XMLFields(r.body)
        if let code = answer.first("Code") {
            throw S3Error.service(status: 200, code: code, message: answer.first("Message") ?? code, object: location.description)
        }
    }

    public func abortMultipartUpload(_ location: S3Location, uploadID: String) throws {
        _ = try send("DELETE", location, query: [("uploadId", uploadID)], what: "write \(location)")
    }

    // MARK: - Requests

    typealias Answer = AWSTransport.Answer

    /// The transport this client's requests go through.
    var transport: AWSTransport {
        AWSTransport(client: client, attempts: attempts, requestTimeout: requestTimeout, stop: stop)
    }

    /// Sign and send one request, trying again as the type's comment says. With a `sink`,
    /// a successful answer's body is written there instead of being returned.
    func send(_ method: String, _ location: S3Location, query: [(String, String)] = [], headers: [(String, String)] = [],
              body: [UInt8]? = nil, sink: UnsafeMutableRawBufferPointer? = nil, what: String) throws -> Answer {
        let range = headers.first { $0.0 == "range" }.flatMap { Self.rangeStart($0.1) }
        let log = self.log
        return try transport.retrying(
            what: what,
            once: { try sendOnce(method, location, query: query, headers: headers, body: body, sink: sink) },
            judge: { answer in
                if (200..<300).contains(answer.status) || answer.status == 304 { return nil }
                let e = S3Error.from(status: answer.status, body: answer.body, object: location.description)
                return (e, e.isTransient)
            },
            connectionError: { S3Error.connection($0) },
            record: { attempt, began, answer, failure in
                guard let log else { return }
                let size = answer.map { sink != nil && (200..<300).contains($0.status) ? $0.written : $0.body.count } ?? 0
                log.append(S3RequestRecord(
                    method: method, bucket: location.bucket, key: location.key,
                    transferSize: method == "GET" || method == "HEAD" ? size : (body?.count ?? 0),
                    startMicros: began, endMicros: AWSTransport.nowMicros(), retries: attempt - 1,
                    requestID: answer?.headers.first(name: "x-amz-request-id") ?? "",
                    extendedRequestID: answer?.headers.first(name: "x-amz-id-2") ?? "",
                    isPartial: range != nil, startOffset: range ?? 0, error: failure))
            })
    }

    func sendOnce(_ method: String, _ location: S3Location, query: [(String, String)], headers: [(String, String)],
                  body: [UInt8]?, sink: UnsafeMutableRawBufferPointer? = nil) throws -> Answer {
        let host = endpoint.hostHeader(bucket: location.bucket)
        let path = endpoint.path(bucket: location.bucket, key: location.key)
        let payload = body ?? []
        let request = SigV4Signer.Request(method: method, host: host, path: path, query: query, headers: headers,
                                          payloadHash: Self.payloadHash(payload, scheme: endpoint.scheme))
        let signed = signer.sign(request, amzDate: Self.amzDate(Date()))
        let queryText = request.canonicalQuery
        let url = "\(endpoint.scheme)://\(host)\(path)\(queryText.isEmpty ? "" : "?" + queryText)"
        var h = HTTPHeaders()
        for (name, value) in headers + signed where name != "host" { h.add(name: name, value: value) }
        var r = try HTTPClient.Request(url: url, method: HTTPMethod(rawValue: method), headers: h,
                                       body: body.map { .bytes($0) })
        if body == nil && (method == "PUT" || method == "POST") { r.body = .bytes([UInt8]()) }
        return try transport.exchange(r, sink: sink)
    }

    /// The body's SHA-256 for the signature — except a large body sent over TLS, which is
    /// signed as `UNSIGNED-PAYLOAD` (S3 accepts it; TLS keeps the body whole, and an
    /// UNLOAD's parts are not hashed twice over on the way out), as the AWS SDKs do.
    static func payloadHash(_ payload: [UInt8], scheme: String) -> String {
        if scheme == "https" && payload.count >= 1 << 20 { return SigV4Signer.unsignedPayload }
        return SigV4Signer.payloadHash(payload)
    }

    /// The first byte of a `bytes=a-b` range.
    static func rangeStart(_ spec: String) -> Int? {
        guard spec.hasPrefix("bytes=") else { return nil }
        return Int(spec.dropFirst(6).prefix { $0 != "-" })
    }

    static func amzDate(_ date: Date) -> String {
        var t = time_t(date.timeIntervalSince1970)
        var parts = tm()
        gmtime_r(&t, &parts)
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))T\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))Z"
    }

}

/// An S3 failure, as Redshift words it.
public enum S3Error: Error, CustomStringConvertible, Sendable {
    case service(status: Int, code: String, message: String, object: String)
    case connection(String)
    case unreadable(String)

    static func from(status: Int, body: [UInt8], object: String) -> S3Error {
        let xml = XMLFields(body)
        let code = xml.first("Code") ?? (status == 404 ? "NoSuchKey" : status == 403 ? "AccessDenied" : "Status\(status)")
        let message = xml.first("Message") ?? HTTPResponseStatus(statusCode: status).reasonPhrase
        return .service(status: status, code: code, message: message, object: object)
    }

    /// Worth another try: S3's 500 and 503 (`SlowDown`, `InternalError`), and throttling.
    var isTransient: Bool {
        guard case .service(let status, let code, _, _) = self else { return true }
        return status >= 500 || code == "SlowDown" || code == "RequestTimeout" || status == 429
    }

    /// The object (or bucket) does not exist.
    public var isMissing: Bool {
        guard case .service(let status, let code, _, _) = self else { return false }
        return status == 404 || code == "NoSuchKey"
    }

    public var description: String {
        switch self {
        case .service(let status, let code, let message, let object):
            return "S3ServiceException:\(message),Status \(status),Error \(code) (\(object))"
        case .connection(let what): return "S3 request failed: \(what)"
        case .unreadable(let what): return "S3 answer not understood: \(what)"
        }
    }

    /// The error as a statement's.
    public var sqlError: SQLError { SQLError(.loadError, description) }
}

/// The text of named elements of an S3 XML answer, which is flat enough for this: no
/// attributes are needed, and the entities are XML's five and numeric references.
struct XMLFields {
    /// The document's UTF-8 bytes (searched byte by byte: a listing of 1,000 objects is
    /// scanned many times, and Foundation's string search is slow at it).
    let bytes: [UInt8]
    init(_ bytes: [UInt8]) { self.bytes = bytes }
    init(_ text: String) { self.bytes = Array(text.utf8) }

    var text: String { String(decoding: bytes, as: UTF8.self) }

    /// The inner text of each `<name>...</name>`, in order (not unescaped: nested XML).
    func elements(_ name: String) -> [String] {
        var out: [String] = []
        let open = Array("<\(name)>".utf8), close = Array("</\(name)>".utf8)
        bytes.withUnsafeBufferPointer { p in
            var i = 0
            while let a = Self.find(open, in: p, from: i), let b = Self.find(close, in: p, from: a + open.count) {
                out.append(String(decoding: UnsafeBufferPointer(rebasing: p[(a + open.count)..<b]), as: UTF8.self))
                i = b + close.count
            }
        }
        return out
    }

    /// Where `needle` next starts in `p` at or after `start`.
    private static func find(_ needle: [UInt8], in p: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard let first = needle.first, needle.count <= p.count else { return nil }
        var i = start
        let last = p.count - needle.count
        while i <= last {
            if p[i] == first {
                var k = 1
                while k < needle.count && p[i + k] == needle[k] { k += 1 }
                if k == needle.count { return i }
            }
            i += 1
        }
        return nil
    }

    /// The unescaped text of the first `<name>`.
    func first(_ name: String) -> String? { elements(name).first.map(Self.unescape) }

    static func unescape(_ s: String) -> String {
        guard s.contains("&") else { return s }
        var out = ""
        var rest = s[...]
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            guard let semi = rest[amp...].firstIndex(of: ";") else { break }
            let entity = rest[rest.index(after: amp)..<semi]
            switch entity {
            case "amp": out += "&"
            case "lt": out += "<"
            case "gt": out += ">"
            case "quot": out += "\""
            case "apos": out += "'"
            default:
                let scalar: UInt32?
                if entity.hasPrefix("#x") { scalar = UInt32(entity.dropFirst(2), radix: 16) }
                else if entity.hasPrefix("#") { scalar = UInt32(entity.dropFirst()) }
                else { scalar = nil }
                if let scalar, let u = Unicode.Scalar(scalar) { out.unicodeScalars.append(u) } else { out += "&\(entity);" }
            }
            rest = rest[rest.index(after: semi)...]
        }
        return out + rest
    }

    static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
