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

    /// The statement's S3 connection, made when an `s3://` address is first met.
    func connection(authorization: AWSAuthorization?, region: String?) -> S3Connection {
        let user = session.user
        let superuser = session.isSuperuser
        let roleMap = session.database.directory.map {
            ($0 as NSString).appendingPathComponent(AWSCredentialResolver.roleMapFile)
        }
        let context = self.context
        let configured = session.database.s3Endpoint
        return S3Connection {
            var environment = ProcessInfo.processInfo.environment
            if let configured { environment["AWS_ENDPOINT_URL_S3"] = configured }
            let resolver = AWSCredentialResolver(roleMapPath: roleMap, environment: environment)
            let credentials = try resolver.credentials(for: authorization, user: user, superuser: superuser)
            let endpoint = try S3Endpoint.resolve(region: region, environment: environment)
            let cancellation = context.cancellation
            return S3Client(endpoint: endpoint, credentials: credentials, stop: { cancellation.error })
        }
    }
}
