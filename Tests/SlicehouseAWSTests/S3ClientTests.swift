// SPDX-License-Identifier: Apache-2.0
import XCTest
import Foundation
@testable import SlicehouseAWS
import SlicehouseTestSupport

/// The S3 client against a real S3-compatible server: moto's (`moto_server`, which
/// scripts/setup-system.sh installs), started on a loopback port for these tests. Objects
/// written, read whole and by range, listed across pages, uploaded in parts (and a part
/// upload aborted), deleted; S3's errors in Redshift's words.
final class S3ClientTests: MotoTestCase {

    func client(region: String = "us-east-1") throws -> S3Client {
        try MotoServer.client(Self.server, region: region)
    }

    func testObjectsListingsAndRanges() throws {
        let s3 = try client()
        try s3.createBucket("objects")
        let bucket = S3Location(bucket: "objects", key: "")
        let text = Array("a|b|c\n1|2|3\n".utf8)
        try s3.put(bucket.sibling("tickit/sales_1.txt"), body: text)
        XCTAssertEqual(try s3.get(bucket.sibling("tickit/sales_1.txt")), text)
        XCTAssertEqual(try s3.get(bucket.sibling("tickit/sales_1.txt"), range: 2..<5), Array("b|c".utf8))
        XCTAssertEqual(try s3.size(bucket.sibling("tickit/sales_1.txt")), text.count)
        // A key that needs encoding.
        try s3.put(bucket.sibling("tickit/a b+c=d.txt"), body: [1, 2, 3])
        XCTAssertEqual(try s3.get(bucket.sibling("tickit/a b+c=d.txt")), [1, 2, 3])
        // Listing pages of 7: 25 objects under the prefix, in key order, and nothing else.
        for i in 0..<23 { try s3.put(bucket.sibling(String(format: "tickit/part_%03d", i)), body: Array(repeating: UInt8(i), count: i)) }
        try s3.put(bucket.sibling("other/x"), body: [0])
        let listed = try s3.list(bucket.sibling("tickit/"), pageSize: 7)
        XCTAssertEqual(listed.count, 25)
        XCTAssertEqual(listed.map(\.key), listed.map(\.key).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        XCTAssertEqual(listed.first { $0.key == "tickit/part_022" }?.size, 22)
        XCTAssertEqual(try s3.list(bucket.sibling("tickit/part_01")).count, 10)
        XCTAssertEqual(try s3.list(bucket.sibling("nothing/")), [])
        try s3.delete(bucket.sibling("other/x"))
        XCTAssertEqual(try s3.list(bucket.sibling("other/")), [])
    }

    func testMultipartUploadAndAbort() throws {
        let s3 = try client(region: "eu-west-1")
        try s3.createBucket("parts")
        let target = S3Location(bucket: "parts", key: "unload/lineitem_000.parquet")
        let first = [UInt8](repeating: 7, count: 5 * 1024 * 1024), last = Array("tail".utf8)
        let id = try s3.startMultipartUpload(target)
        let etags = [try s3.uploadPart(target, uploadID: id, number: 1, body: first),
                     try s3.uploadPart(target, uploadID: id, number: 2, body: last)]
        try s3.completeMultipartUpload(target, uploadID: id, etags: etags)
        XCTAssertEqual(try s3.size(target), first.count + last.count)
        XCTAssertEqual(try s3.get(target, range: first.count - 2..<first.count + 4), [7, 7] + Array("tail".utf8))
        // An aborted upload leaves no object.
        let other = target.sibling("unload/aborted")
        let aborted = try s3.startMultipartUpload(other)
        _ = try s3.uploadPart(other, uploadID: aborted, number: 1, body: last)
        try s3.abortMultipartUpload(other, uploadID: aborted)
        XCTAssertEqual(try s3.list(other), [])
    }

    func testErrorsInRedshiftsWords() throws {
        let s3 = try client()
        XCTAssertThrowsError(try s3.get(S3Location(bucket: "no-such-bucket", key: "x"))) { e in
            XCTAssertTrue("\(e)".contains("The specified bucket does not exist"), "\(e)")
            XCTAssertTrue("\(e)".contains("Status 404"), "\(e)")
            XCTAssertTrue("\(e)".contains("s3://no-such-bucket/x"), "\(e)")
            XCTAssertFalse("\(e)".contains("testing"), "no key in an error: \(e)")
        }
        try s3.createBucket("errors")
        XCTAssertThrowsError(try s3.get(S3Location(bucket: "errors", key: "missing.csv"))) { e in
            XCTAssertTrue("\(e)".contains("NoSuchKey"), "\(e)")
        }
        // Nothing listens: the connection fails after its tries, naming what it was for.
        let dead = S3Client(endpoint: S3Endpoint(scheme: "http", host: "127.0.0.1", port: 9, pathStyle: true, region: "us-east-1"),
                            credentials: AWSCredentials(accessKeyID: "k", secretAccessKey: "s"), attempts: 2, requestTimeout: .seconds(5))
        XCTAssertThrowsError(try dead.get(S3Location(bucket: "errors", key: "x"))) { e in
            XCTAssertTrue("\(e)".contains("read s3://errors/x"), "\(e)")
        }
    }

    /// Large bodies over TLS go as UNSIGNED-PAYLOAD; small ones, and any over plain HTTP,
    /// carry their SHA-256.
    func testPayloadHashes() {
        let big = [UInt8](repeating: 7, count: 1 << 20), small = Array("abc".utf8)
        XCTAssertEqual(S3Client.payloadHash(big, scheme: "https"), "UNSIGNED-PAYLOAD")
        XCTAssertEqual(S3Client.payloadHash(big, scheme: "http"), SigV4Signer.payloadHash(big))
        XCTAssertEqual(S3Client.payloadHash(small, scheme: "https"),
                       "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    /// Every try of every request is in the client's log: a ranged GET with its offset, a
    /// missing object as an error naming the key.
    func testRequestsAreLogged() throws {
        let base = try MotoServer.client(Self.server)
        let log = S3RequestLog()
        let c = S3Client(endpoint: base.endpoint, credentials: AWSCredentials(accessKeyID: "testing", secretAccessKey: "testing"),
                         attempts: 2, log: log)
        try? c.createBucket("logged")
        let o = S3Location(bucket: "logged", key: "dir/o.bin")
        try c.put(o, body: [UInt8](repeating: 1, count: 1000))
        var buf = [UInt8](repeating: 0, count: 100)
        let n = try buf.withUnsafeMutableBytes { try c.get(o, range: 200..<300, into: $0) }
        XCTAssertEqual(n, 100)
        XCTAssertThrowsError(try c.get(S3Location(bucket: "logged", key: "missing")))
        let r = log.records.filter { $0.bucket == "logged" && !$0.key.isEmpty }
        XCTAssertEqual(r.map(\.method), ["PUT", "GET", "GET"])
        XCTAssertEqual(r[0].transferSize, 1000)
        XCTAssertEqual([r[1].isPartial, r[2].isPartial], [true, false])
        XCTAssertEqual(r[1].startOffset, 200)
        XCTAssertEqual(r[1].transferSize, 100)
        XCTAssertNil(r[1].error)
        XCTAssertTrue(r[2].error?.contains("NoSuchKey") ?? false, "\(r[2])")
        XCTAssertTrue(r.allSatisfy { $0.endMicros >= $0.startMicros && $0.retries == 0 })
    }

    func testAmzDate() {
        XCTAssertEqual(S3Client.amzDate(Date(timeIntervalSince1970: 1_369_353_600)), "20130524T000000Z")
    }
}
