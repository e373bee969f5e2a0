// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// An `s3://bucket/key` address: a bucket and a key (or key prefix).
public struct S3Location: Sendable, Equatable, CustomStringConvertible {
    public var bucket: String
    public var key: String

    public init(bucket: String, key: String) { self.bucket = bucket; self.key = key }

    /// `s3://bucket[/key]` (the scheme in any case); nil when `text` is not an s3:// URL.
    /// A bucket name is 3 to 63 lower-case letters, digits, dots and hyphens (S3's rule).
    public init?(_ text: String) {
        guard text.lowercased().hasPrefix("s3://") else { return nil }
        let rest = text.dropFirst(5)
        let bucket: Substring, key: Substring
        if let slash = rest.firstIndex(of: "/") {
            bucket = rest[..<slash]
            key = rest[rest.index(after: slash)...]
        } else {
            bucket = rest
            key = ""
        }
        guard Self.isBucketName(bucket) else { return nil }
        self.bucket = String(bucket)
        self.key = String(key)
    }

    static func isBucketName(_ s: Substring) -> Bool {
        guard (3...63).contains(s.count) else { return false }
        return s.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E || $0 == 0x2D }
    }

    /// The error for a source that starts with s3:// but is not a valid address.
    public static func invalid(_ text: String) -> SQLError {
        SQLError(.invalidParameter, "S3 path \"\(text)\" is not valid: it must be s3://bucket/key, with a bucket name of 3 to 63 lower-case letters, digits, dots and hyphens")
    }

    public var description: String { key.isEmpty ? "s3://\(bucket)" : "s3://\(bucket)/\(key)" }

    /// The location of `key` in the same bucket.
    public func sibling(_ key: String) -> S3Location { S3Location(bucket: bucket, key: key) }
}

/// Where S3 requests go: AWS's regional endpoint, or an S3-compatible one named by
/// `AWS_ENDPOINT_URL_S3` / `AWS_ENDPOINT_URL` (the AWS SDKs' variables) or a server option.
/// Buckets are addressed in the URL's host (virtual-hosted style) on AWS and in its path
/// on another endpoint (path style: a local server has no wildcard DNS), unless
/// `SLICEHOUSE_S3_ADDRESSING_STYLE` says `path` or `virtual`.
public struct S3Endpoint: Sendable, Equatable {
    public var scheme: String
    public var host: String
    public var port: Int?
    public var pathStyle: Bool
    public var region: String

    public init(scheme: String, host: String, port: Int?, pathStyle: Bool, region: String) {
        self.scheme = scheme; self.host = host; self.port = port; self.pathStyle = pathStyle; self.region = region
    }

    /// The endpoint for `region` as the environment names it.
    public static func resolve(region explicit: String?, environment: [String: String]) throws -> S3Endpoint {
        let region = explicit ?? environment["AWS_REGION"] ?? environment["AWS_DEFAULT_REGION"] ?? "us-east-1"
        let style = environment["SLICEHOUSE_S3_ADDRESSING_STYLE"]?.lowercased()
        if let url = environment["AWS_ENDPOINT_URL_S3"] ?? environment["AWS_ENDPOINT_URL"], !url.isEmpty {
            var e = try parse(url, region: region)
            if let style { e.pathStyle = style != "virtual" }
            return e
        }
        return S3Endpoint(scheme: "https", host: "s3.\(region).amazonaws.com", port: nil, pathStyle: style == "path",
                          region: region)
    }

    /// `http[s]://host[:port][/]`.
    public static func parse(_ url: String, region: String) throws -> S3Endpoint {
        let bad = SQLError(.invalidParameter, "S3 endpoint \"\(url)\" is not an http:// or https:// URL")
        guard let sep = url.range(of: "://") else { throw bad }
        let scheme = url[..<sep.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" else { throw bad }
        var rest = url[sep.upperBound...]
        if let slash = rest.firstIndex(of: "/") { rest = rest[..<slash] }
        var host = String(rest), port: Int? = nil
        if let colon = rest.lastIndex(of: ":"), !rest.hasSuffix("]") {
            guard let p = Int(rest[rest.index(after: colon)...]), (1...65535).contains(p) else { throw bad }
            host = String(rest[..<colon]); port = p
        }
        guard !host.isEmpty else { throw bad }
        return S3Endpoint(scheme: scheme, host: host, port: port, pathStyle: true, region: region)
    }

    /// The Host header for a request on `bucket`.
    public func hostHeader(bucket: String) -> String {
        let h = pathStyle ? host : "\(bucket).\(host)"
        guard let port, !((scheme == "http" && port == 80) || (scheme == "https" && port == 443)) else { return h }
        return "\(h):\(port)"
    }

    /// The request path (encoded, as sent and signed) of `key` in `bucket`.
    public func path(bucket: String, key: String) -> String {
        pathStyle ? SigV4Signer.encodePath("/\(bucket)/\(key)") : SigV4Signer.encodePath("/\(key)")
    }
}
