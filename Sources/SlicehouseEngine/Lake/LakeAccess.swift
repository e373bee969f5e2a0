// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseAWS
import SlicehouseCatalog
import SlicehouseLake
import SlicehouseLoad
import SlicehouseRuntime
import SlicehouseTypes

/// How one statement reaches the lake: an external schema's catalog (the Glue Data Catalog,
/// or the data directory's own) and the files of its tables.
///
/// Who may use what, as Redshift has it:
/// - an external schema's IAM role is judged once, when the schema is made, against its
///   maker (a superuser, or a user `iam_roles.json` lets use the role); from then on the
///   role reads the schema's catalog and S3 objects for whoever has USAGE on the schema;
/// - local files (`file://` locations) are read with the querying user's own reach, as
///   COPY reads them (`ServerFiles`): an external table never opens a path its reader could
///   not COPY from.
struct LakeAccess {
    let session: Session
    let context: QueryContext
    /// The statement's S3 requests (STL_S3CLIENT).
    let s3: S3Access

    init(session: Session, context: QueryContext, s3: S3Access? = nil) {
        self.session = session
        self.context = context
        self.s3 = s3 ?? S3Access(session: session, context: context)
    }

    /// The environment with the server's configured endpoints in it.
    private var environment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        if let glue = session.database.glueEndpoint { env["AWS_ENDPOINT_URL_GLUE"] = glue }
        return env
    }

    /// Which catalog a new external schema uses: the Glue Data Catalog when an endpoint for
    /// it is configured (`serve --glue-endpoint`, `AWS_ENDPOINT_URL_GLUE`, `AWS_ENDPOINT_URL`),
    /// else the data directory's own.
    var defaultCatalog: ExternalSchemaDef.Catalog {
        let env = environment
        let configured = [env["AWS_ENDPOINT_URL_GLUE"], env["AWS_ENDPOINT_URL"]].contains { !($0 ?? "").isEmpty }
        return configured ? .glue : .directory
    }

    private var roleMap: String? {
        session.database.directory.map { ($0 as NSString).appendingPathComponent(AWSCredentialResolver.roleMapFile) }
    }

    private static func authorization(_ schema: ExternalSchemaDef) -> AWSAuthorization? {
        schema.iamRole.map { .role($0) }
    }

    /// Refuse a role the session's user may not use (CREATE EXTERNAL SCHEMA judges it so).
    /// A schema in the data directory's catalog may be made before its role has keys (its
    /// tables may hold local files only): only a refusal counts there.
    func checkRole(_ schema: ExternalSchemaDef) throws {
        let resolver = AWSCredentialResolver(roleMapPath: roleMap, environment: environment)
        do {
            _ = try resolver.credentials(for: Self.authorization(schema), user: session.user, superuser: session.isSuperuser)
        } catch let e as SQLError where schema.catalog == .directory && e.code != .insufficientPrivilege {
            return
        }
    }

    /// The schema's catalog.
    func catalog(_ schema: ExternalSchemaDef) throws -> any ExternalCatalog {
        switch schema.catalog {
        case .directory:
            return DirectoryCatalog(root: session.database.lakeDirectory)
        case .glue:
            let env = environment
            let resolver = AWSCredentialResolver(roleMapPath: roleMap, environment: env)
            // The role was judged when the schema was made (see the type's notes).
            let credentials = try resolver.credentials(for: Self.authorization(schema), user: session.user, superuser: true)
            let cancellation = context.cancellation
            return GlueCatalog(client: try GlueClient.resolve(region: schema.region, credentials: credentials, environment: env,
                                                              stop: { cancellation.error }))
        }
    }

    /// What the schema's tables' files are read with.
    func inputs(_ schema: ExternalSchemaDef) -> CopyInputs {
        CopyInputs(access: session.database.serverFiles.access(for: session.user, in: session.security),
                   s3: s3.connection(authorization: Self.authorization(schema), region: schema.region, delegated: true),
                   fileCache: ExternalFileCache.shared)
    }

    /// A whole small object of the lake (an Iceberg metadata file, manifest list or
    /// manifest) by its address, read with `inputs`.
    static func object(_ address: String, inputs: CopyInputs) throws -> [UInt8] {
        guard let bytes = try inputs.smallFile(normalizedAddress(address)) else {
            throw SQLError(.loadError, "Spectrum Scan Error: '\(address)' does not exist")
        }
        return bytes
    }

    /// Spark's and Hadoop's names for S3 (`s3a://`, `s3n://`) as `s3://`.
    static func normalizedAddress(_ address: String) -> String {
        let lower = address.lowercased()
        for scheme in ["s3a://", "s3n://"] where lower.hasPrefix(scheme) {
            return "s3://" + address.dropFirst(scheme.count)
        }
        return address
    }

    /// A catalog error in SQL's words.
    static func sqlError(_ error: Error) -> Error {
        if let e = error as? ExternalCatalogError { return e.sqlError }
        if let e = error as? GlueError { return e.sqlError }
        return error
    }

    /// `body`, its catalog errors in SQL's words.
    static func mapped<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch { throw sqlError(error) }
    }
}
