// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseAWS
import SlicehouseLoad
import SlicehouseTypes
import SlicehouseRuntime

/// How a COPY or UNLOAD reaches S3: the endpoint `serve --s3-endpoint` or the environment
/// names, and keys for the statement's authorization — as long as the session's user may use them.
///
/// Who may use which keys (Redshift governs roles with `GRANT ASSUMEROLE`; here the
/// operator's role map does, see docs/DIFFERENCES.md):
/// - keys written in the statement (`CREDENTIALS 'aws_access_key_id=…'`,
///   `ACCESS_KEY_ID`): anyone — they are the user's own;
/// - an IAM role the role map (`iam_roles.json` in the data directory) names: a superuser,
///   or a user the entry's `"users"` list names (`"*"`: every user);
/// - a role the map does not name, or a statement without credentials: the server's own
///   keys (its environment, `~/.aws/credentials`), for superusers only.
struct S3Access {
    let session: Session
    /// The statement's: its cancellation and timeout stop the requests under way.
    let context: QueryContext
    /// The statement's requests, for STL_S3CLIENT and STL_S3CLIENT_ERROR (`logRequests`).
    let requests = S3RequestLog()

    init(session: Session, context: QueryContext) {
        self.session = session
        self.context = context
    }

    /// The statement's S3 connection, made when an `s3://` address is first met.
    /// `delegated`: the authorization was judged when it was set up, by whoever set it up
    /// (an external schema's IAM role, judged at CREATE EXTERNAL SCHEMA), and is used now
    /// for anyone the schema's USAGE lets in — as Redshift uses a schema's role.
    func connection(authorization: AWSAuthorization?, region: String?, delegated: Bool = false) -> S3Connection {
        let user = session.user
        let superuser = delegated || session.isSuperuser
        let roleMap = session.database.directory.map {
            ($0 as NSString).appendingPathComponent(AWSCredentialResolver.roleMapFile)
        }
        let context = self.context
        let requests = self.requests
        let configured = session.database.s3Endpoint
        return S3Connection {
            var environment = ProcessInfo.processInfo.environment
            if let configured { environment["AWS_ENDPOINT_URL_S3"] = configured }
            let resolver = AWSCredentialResolver(roleMapPath: roleMap, environment: environment)
            let credentials = try resolver.credentials(for: authorization, user: user, superuser: superuser)
            let endpoint = try S3Endpoint.resolve(region: region, environment: environment)
            let cancellation = context.cancellation
            return S3Client(endpoint: endpoint, credentials: credentials, log: requests, stop: { cancellation.error })
        }
    }

    /// The statement's S3 requests into STL_S3CLIENT (those that succeeded) and
    /// STL_S3CLIENT_ERROR (each failed try), as query `query` — whether the statement
    /// succeeded or not. Requests are not given to slices here: every row has slice 0.
    func logRequests(query: Int) {
        let records = requests.records
        guard !records.isEmpty else { return }
        let userID = Int64(session.currentUserID), process = Int64(session.process)
        let now = Int64(Date().timeIntervalSince1970 * 1_000_000)
        // STL_S3CLIENT's times count from 2000-01-01, Redshift's epoch.
        let epoch2000: Int64 = 946_684_800_000_000
        var ok: [[Value]] = [], failed: [[Value]] = []
        for r in records {
            if let error = r.error {
                failed.append([.int(userID), .int(Int64(query)), .int(0), .int(r.endMicros), .int(process),
                               .string(r.method), .string(r.bucket), .string(String(r.key.prefix(256))),
                               .string(String(error.prefix(1024))), .int(r.isPartial ? 1 : 0), .int(Int64(r.startOffset))])
            } else {
                ok.append([.int(userID), .int(Int64(query)), .int(0), .int(now), .int(process),
                           .string(r.method), .string(r.bucket), .string(String(r.key.prefix(256))),
                           .int(Int64(r.transferSize)), .int(Int64(r.transferSize)),
                           .int(r.startMicros - epoch2000), .int(r.endMicros - epoch2000), .int(r.endMicros - r.startMicros),
                           .int(0), .int(0), .int(0), .int(Int64(r.retries)),
                           .string(String(r.requestID.prefix(32))), .string(String(r.extendedRequestID.prefix(128))),
                           .string(""), .int(r.isPartial ? 1 : 0), .int(Int64(r.startOffset))])
            }
        }
        if !ok.isEmpty { session.database.log(.s3Client, ok) }
        if !failed.isEmpty { session.database.log(.s3ClientError, failed) }
    }
}
