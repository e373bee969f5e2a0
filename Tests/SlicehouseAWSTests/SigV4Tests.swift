// SPDX-License-Identifier: Apache-2.0
import XCTest
import Foundation
@testable import SlicehouseAWS

/// Signature Version 4 against the AWS documentation's example (S3 "Authenticating
/// Requests: Using the Authorization Header", GET Object with a range) and against
/// signatures botocore (the AWS SDK for Python) computed for the same requests: a path
/// that needs encoding, a query with `/`, `+` and `=` in values, a session token, a port.
final class SigV4Tests: XCTestCase {
    let keys = AWSCredentials(accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")

    func authorization(_ headers: [(String, String)]) -> String {
        headers.first { $0.0 == "authorization" }?.1 ?? ""
    }

    func testDocumentationExampleGetObjectWithRange() {
        let signer = SigV4Signer(credentials: keys, region: "us-east-1", service: "s3")
        let r = SigV4Signer.Request(method: "GET", host: "examplebucket.s3.amazonaws.com", path: "/test.txt",
                                    headers: [("Range", "bytes=0-9")])
        XCTAssertEqual(authorization(signer.sign(r, amzDate: "20130524T000000Z")),
                       "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
                       + "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
                       + "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
    }

    func testBotocoreSignatures() {
        let date = "20261130T064121Z"
        let east = SigV4Signer(credentials: keys, region: "us-east-1", service: "s3")
        XCTAssertTrue(authorization(east.sign(.init(method: "GET", host: "examplebucket.s3.amazonaws.com", path: "/test.txt",
                                                    headers: [("Range", "bytes=0-9")]), amzDate: date))
            .hasSuffix("Signature=f85b11ecec99d87ccf08d8603299a8644fbf7902786b6f21380a41f1c256bef3"))
        XCTAssertTrue(authorization(east.sign(.init(method: "GET", host: "examplebucket.s3.amazonaws.com", path: "/",
                                                    query: [("prefix", "J"), ("max-keys", "2")]), amzDate: date))
            .hasSuffix("Signature=208fad2243cab27ee8c218448ce868cc137a66501284b0588e9e9e4197617e82"))
        // Path style on a local endpoint with a port; a key with a blank and a '+'; a
        // multipart upload's query; temporary credentials; a payload.
        var temporary = keys
        temporary.sessionToken = "TOKEN123"
        let west = SigV4Signer(credentials: temporary, region: "eu-west-1", service: "s3")
        let put = SigV4Signer.Request(method: "PUT", host: "127.0.0.1:9000", path: SigV4Signer.encodePath("/my-bucket/dir/a b+c.csv"),
                                      query: [("uploadId", "abc/def"), ("partNumber", "2")],
                                      headers: [("Content-Type", "text/csv")],
                                      payloadHash: SigV4Signer.payloadHash(Array("hello".utf8)))
        XCTAssertEqual(put.path, "/my-bucket/dir/a%20b%2Bc.csv")
        XCTAssertEqual(put.canonicalQuery, "partNumber=2&uploadId=abc%2Fdef")
        let signed = west.sign(put, amzDate: date)
        XCTAssertTrue(signed.contains { $0 == ("x-amz-security-token", "TOKEN123") })
        XCTAssertEqual(authorization(signed),
                       "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20261130/eu-west-1/s3/aws4_request, "
                       + "SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date;x-amz-security-token, "
                       + "Signature=ac283be72cac0312a7937942e8c4ae78858d7a163e644c17b790c59f7d7bd654")
        let list = SigV4Signer.Request(method: "GET", host: "127.0.0.1:9000", path: "/my-bucket",
                                       query: [("list-type", "2"), ("prefix", "tickit/sales_"), ("continuation-token", "a+b=")])
        XCTAssertTrue(authorization(east.sign(list, amzDate: date))
            .hasSuffix("Signature=3a1c6eb1fac37b1414f98ce33e84a1bd1f53ca8f2b2a2e99919bfbcb492fe3ae"))
    }

    func testCredentialsNeverPrintTheirSecrets() {
        let c = AWSCredentials(accessKeyID: "AKID", secretAccessKey: "s3cr3t", sessionToken: "t0k3n")
        XCTAssertFalse("\(c)".contains("s3cr3t"))
        XCTAssertFalse("\(c)".contains("t0k3n"))
    }
}

/// s3:// addresses, endpoints and the ways a statement names its credentials.
final class S3AddressingTests: XCTestCase {
    func testLocations() {
        XCTAssertEqual(S3Location("s3://bucket-1/tickit/sales_"), S3Location(bucket: "bucket-1", key: "tickit/sales_"))
        XCTAssertEqual(S3Location("S3://my.bucket"), S3Location(bucket: "my.bucket", key: ""))
        XCTAssertNil(S3Location("s3://Bucket/x"))
        XCTAssertNil(S3Location("s3://ab/x"))
        XCTAssertNil(S3Location("/local/path"))
        XCTAssertEqual(S3Location("s3://b12/a/b")?.description, "s3://b12/a/b")
    }

    func testEndpoints() throws {
        let aws = try S3Endpoint.resolve(region: nil, environment: ["AWS_REGION": "eu-west-1"])
        XCTAssertEqual(aws.hostHeader(bucket: "data"), "data.s3.eu-west-1.amazonaws.com")
        XCTAssertEqual(aws.path(bucket: "data", key: "a b/c"), "/a%20b/c")
        let local = try S3Endpoint.resolve(region: "us-west-2", environment: ["AWS_ENDPOINT_URL": "http://127.0.0.1:5000",
                                                                                "AWS_ENDPOINT_URL_S3": "http://localhost:9000/"])
        XCTAssertEqual(local, S3Endpoint(scheme: "http", host: "localhost", port: 9000, pathStyle: true, region: "us-west-2"))
        XCTAssertEqual(local.hostHeader(bucket: "data"), "localhost:9000")
        XCTAssertEqual(local.path(bucket: "data", key: "x/y.csv"), "/data/x/y.csv")
        XCTAssertThrowsError(try S3Endpoint.parse("ftp://x", region: "us-east-1"))
        XCTAssertThrowsError(try S3Endpoint.parse("http://host:99999", region: "us-east-1"))
    }

    func testStatementCredentials() throws {
        XCTAssertEqual(try AWSAuthorization.from([("IAM_ROLE", "arn:aws:iam::123:role/load")]), .role("arn:aws:iam::123:role/load"))
        XCTAssertEqual(try AWSAuthorization.from([("IAM_ROLE", "DEFAULT")]), .role("default"))
        XCTAssertEqual(try AWSAuthorization.from([("CREDENTIALS", "aws_access_key_id=AK; aws_secret_access_key=SK;token=T")]),
                       .keys(AWSCredentials(accessKeyID: "AK", secretAccessKey: "SK", sessionToken: "T")))
        XCTAssertEqual(try AWSAuthorization.from([("CREDENTIALS", "aws_iam_role=arn:aws:iam::1:role/r")]), .role("arn:aws:iam::1:role/r"))
        XCTAssertEqual(try AWSAuthorization.from([("ACCESS_KEY_ID", "AK"), ("SECRET_ACCESS_KEY", "SK")]),
                       .keys(AWSCredentials(accessKeyID: "AK", secretAccessKey: "SK")))
        XCTAssertNil(try AWSAuthorization.from([("DELIMITER", "|")]))
        XCTAssertThrowsError(try AWSAuthorization.from([("ACCESS_KEY_ID", "AK")]))
        XCTAssertThrowsError(try AWSAuthorization.from([("IAM_ROLE", "arn:x"), ("ACCESS_KEY_ID", "AK"), ("SECRET_ACCESS_KEY", "SK")]))
        // The error about a bad credentials string does not repeat it.
        XCTAssertThrowsError(try AWSAuthorization.from([("CREDENTIALS", "aws_access_key_id=AK;secret=HIDDEN")])) { e in
            XCTAssertFalse("\(e)".contains("HIDDEN"))
        }
    }

    func testRolesResolveThroughTheMapTheEnvironmentAndProfiles() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("slicehouse-aws-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let shared = dir + "/credentials"
        try "[default]\naws_access_key_id = DEFAULTKEY\naws_secret_access_key = defaultsecret\n\n[loader]\naws_access_key_id=LOADKEY\naws_secret_access_key=loadsecret\naws_session_token=tok\n"
            .write(toFile: shared, atomically: true, encoding: .utf8)
        let map = dir + "/" + AWSCredentialResolver.roleMapFile
        try #"{"arn:aws:iam::1:role/load": {"profile": "loader"}, "default": {"access_key_id": "MAPKEY", "secret_access_key": "mapsecret"}}"#
            .write(toFile: map, atomically: true, encoding: .utf8)
        let r = AWSCredentialResolver(roleMapPath: map, environment: ["AWS_SHARED_CREDENTIALS_FILE": shared])
        XCTAssertEqual(try r.credentials(for: .role("arn:aws:iam::1:role/load")),
                       AWSCredentials(accessKeyID: "LOADKEY", secretAccessKey: "loadsecret", sessionToken: "tok"))
        XCTAssertEqual(try r.credentials(for: .role("default")).accessKeyID, "MAPKEY")
        XCTAssertEqual(try r.credentials(for: .role("arn:aws:iam::1:role/other")).accessKeyID, "DEFAULTKEY")
        let env = AWSCredentialResolver(roleMapPath: nil, environment: ["AWS_ACCESS_KEY_ID": "ENVKEY", "AWS_SECRET_ACCESS_KEY": "s",
                                                                        "AWS_SHARED_CREDENTIALS_FILE": shared])
        XCTAssertEqual(try env.credentials(for: nil).accessKeyID, "ENVKEY")
        let none = AWSCredentialResolver(roleMapPath: nil, environment: ["AWS_SHARED_CREDENTIALS_FILE": dir + "/missing"])
        XCTAssertThrowsError(try none.credentials(for: .role("default")))
    }
}
