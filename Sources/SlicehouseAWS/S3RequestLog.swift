// SPDX-License-Identifier: Apache-2.0
import Foundation

/// One request an `S3Client` made (each try of it, when it was tried again): what
/// STL_S3CLIENT shows for a request that succeeded and STL_S3CLIENT_ERROR for one that
/// failed. Times are microseconds since the Unix epoch.
public struct S3RequestRecord: Sendable, Equatable {
    public var method: String
    public var bucket: String
    public var key: String
    /// Body bytes received (GET) or sent (PUT, POST).
    public var transferSize: Int
    public var startMicros: Int64
    public var endMicros: Int64
    /// Tries before this one (for a success: the failed tries it took).
    public var retries: Int
    public var requestID: String
    public var extendedRequestID: String
    /// A ranged GET: the object is read in pieces, this one from `startOffset`.
    public var isPartial: Bool
    public var startOffset: Int
    /// Why the try failed (nil: it succeeded). S3's error text, never the keys.
    public var error: String?
}

/// The requests of one statement's S3 client, kept for the statement's system-log rows
/// (the client appends from any thread). At most `limit` are kept; `dropped` counts the rest.
public final class S3RequestLog: @unchecked Sendable {
    public static let limit = 100_000
    private let lock = NSLock()
    private var kept: [S3RequestRecord] = []
    private var droppedCount = 0

    public init() {}

    public func append(_ record: S3RequestRecord) {
        lock.withLock {
            if kept.count < Self.limit { kept.append(record) } else { droppedCount += 1 }
        }
    }

    public var records: [S3RequestRecord] { lock.withLock { kept } }
    public var dropped: Int { lock.withLock { droppedCount } }
}
