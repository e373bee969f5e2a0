// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes

/// How a COPY or UNLOAD says who it acts as on AWS: keys given in the statement, or an IAM
/// role (an ARN, or `default`, the role the cluster was given by default).
///
/// - `CREDENTIALS 'aws_access_key_id=…;aws_secret_access_key=…[;token=…]'`,
///   `CREDENTIALS 'aws_iam_role=arn:…'`;
/// - `ACCESS_KEY_ID '…' SECRET_ACCESS_KEY '…' [SESSION_TOKEN '…']`;
/// - `IAM_ROLE 'arn:…'` / `IAM_ROLE default`.
public enum AWSAuthorization: Sendable, Equatable {
    case keys(AWSCredentials)
    case role(String)

    /// The authorization COPY/UNLOAD parameters give (names upper-case, as the parser hands
    /// them over), nil when they give none. Two ways at once, or keys without their secret,
    /// are refused as Redshift refuses them.
    public static func from(_ parameters: [(name: String, value: String?)]) throws -> AWSAuthorization? {
        var found: [AWSAuthorization] = []
        var keyID: String?, secret: String?, token: String?
        for (name, value) in parameters {
            switch name.uppercased() {
            case "IAM_ROLE":
                guard let v = value, !v.isEmpty else { throw invalid("IAM_ROLE needs a role ARN or DEFAULT") }
                found.append(.role(v.lowercased() == "default" ? "default" : v))
            case "CREDENTIALS", "WITH CREDENTIALS":
                guard let v = value else { throw invalid("CREDENTIALS needs a credentials string") }
                found.append(try credentialsString(v))
            case "ACCESS_KEY_ID": keyID = value
            case "SECRET_ACCESS_KEY": secret = value
            case "SESSION_TOKEN": token = value
            default: break
            }
        }
        if keyID != nil || secret != nil || token != nil {
            guard let keyID, let secret, !keyID.isEmpty, !secret.isEmpty else {
                throw invalid("ACCESS_KEY_ID and SECRET_ACCESS_KEY must be given together")
            }
            found.append(.keys(AWSCredentials(accessKeyID: keyID, secretAccessKey: secret, sessionToken: token)))
        }
        guard found.count <= 1 else {
            throw invalid("conflicting credentials: give one of IAM_ROLE, CREDENTIALS and ACCESS_KEY_ID/SECRET_ACCESS_KEY")
        }
        return found.first
    }

    /// `aws_access_key_id=…;aws_secret_access_key=…[;token=…]` or `aws_iam_role=arn:…`
    /// (names in any case, `;` between them). The error never repeats the text: it holds secrets.
    public static func credentialsString(_ text: String) throws -> AWSAuthorization {
        var fields: [String: String] = [:]
        for part in text.split(separator: ";", omittingEmptySubsequences: true) {
            guard let eq = part.firstIndex(of: "=") else { throw invalid("the CREDENTIALS string is not name=value pairs separated by ';'") }
            let name = part[..<eq].trimmingCharacters(in: .whitespaces).lowercased()
            fields[name] = part[part.index(after: eq)...].trimmingCharacters(in: .whitespaces)
        }
        if let role = fields["aws_iam_role"] {
            guard fields.count == 1 else { throw invalid("aws_iam_role cannot be combined with access keys in CREDENTIALS") }
            return .role(role)
        }
        guard let id = fields["aws_access_key_id"], let secret = fields["aws_secret_access_key"], !id.isEmpty, !secret.isEmpty else {
            throw invalid("the CREDENTIALS string needs aws_access_key_id and aws_secret_access_key (or aws_iam_role)")
        }
        let unknown = Set(fields.keys).subtracting(["aws_access_key_id", "aws_secret_access_key", "token"])
        guard unknown.isEmpty else { throw invalid("unknown CREDENTIALS field \(unknown.sorted().joined(separator: ", "))") }
        return .keys(AWSCredentials(accessKeyID: id, secretAccessKey: secret, sessionToken: fields["token"]))
    }

    static func invalid(_ why: String) -> SQLError { SQLError(.invalidParameter, "Invalid credentials: \(why)") }
}

/// Turns an IAM role into keys, since nothing here can assume one. In order:
///
/// 1. the role map `iam_roles.json` in the data directory, which the operator writes:
///    `{"arn:aws:iam::123456789012:role/load": {"profile": "loader"},
///      "default": {"access_key_id": "…", "secret_access_key": "…"}}` — a role is
///    given keys, or a profile of the shared credentials file, and `default` answers
///    `IAM_ROLE default`;
/// 2. the server's environment: `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
///    `AWS_SESSION_TOKEN`;
/// 3. the shared credentials file (`AWS_SHARED_CREDENTIALS_FILE`, else
///    `~/.aws/credentials`), profile `AWS_PROFILE` or `default`.
///
/// A role the map does not name takes the keys of 2 or 3: on a laptop every role is the
/// developer's own keys, as a local endpoint accepts any. Statements' own keys
/// (`CREDENTIALS`, `ACCESS_KEY_ID`) are used as given.
///
/// Who may use a role (`credentials(for:user:superuser:)`): a superuser any; another user
/// only a role whose map entry lists them in `"users"` (`["*"]`: everyone). The server's
/// own keys (2 and 3) are a superuser's alone.
public struct AWSCredentialResolver: Sendable {
    public var roleMapPath: String?
    public var environment: [String: String]

    public init(roleMapPath: String?, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.roleMapPath = roleMapPath; self.environment = environment
    }

    public static let roleMapFile = "iam_roles.json"

    public func credentials(for authorization: AWSAuthorization?) throws -> AWSCredentials {
        try credentials(for: authorization, user: nil, superuser: true)
    }

    /// The keys for `user`'s statement, refused when the user may not use them (see the
    /// type's comment).
    public func credentials(for authorization: AWSAuthorization?, user: String?, superuser: Bool) throws -> AWSCredentials {
        switch authorization {
        case .keys(let c): return c
        case .role(let arn):
            if let entry = try mapEntry(arn) {
                let users = entry["users"] as? [String] ?? []
                guard superuser || users.contains("*") || users.contains(where: { $0 == user }) else {
                    throw Self.refused(user, "may not assume IAM role \(arn): the role map does not list the user")
                }
                return try mappedRole(arn, entry)
            }
            guard superuser else {
                throw Self.refused(user, "may not assume IAM role \(arn): only a superuser may use a role the role map does not name")
            }
            return try ambient(because: "IAM role \(arn)")
        case nil:
            guard superuser else {
                throw Self.refused(user, "must give IAM_ROLE or CREDENTIALS: only a superuser may use the server's own AWS credentials")
            }
            return try ambient(because: "a statement without IAM_ROLE or CREDENTIALS")
        }
    }

    static func refused(_ user: String?, _ why: String) -> SQLError {
        SQLError(.insufficientPrivilege, "permission denied: user \"\(user ?? "")\" \(why) (\(roleMapFile) in the data directory)")
    }

    func mapEntry(_ arn: String) throws -> [String: Any]? {
        guard let path = roleMapPath, FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path),
              let map = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw SQLError(.invalidParameter, "the IAM role map \(Self.roleMapFile) is not a JSON object")
        }
        return map[arn] as? [String: Any]
    }

    func mappedRole(_ arn: String, _ entry: [String: Any]) throws -> AWSCredentials {
        if let profile = entry["profile"] as? String {
            guard let c = try sharedProfile(profile) else {
                throw SQLError(.invalidParameter, "IAM role \(arn) maps to profile \(profile), which the shared credentials file does not have")
            }
            return c
        }
        guard let id = entry["access_key_id"] as? String, let secret = entry["secret_access_key"] as? String else {
            throw SQLError(.invalidParameter, "IAM role \(arn) in \(Self.roleMapFile) needs access_key_id and secret_access_key, or a profile")
        }
        return AWSCredentials(accessKeyID: id, secretAccessKey: secret, sessionToken: entry["session_token"] as? String)
    }

    func ambient(because what: String) throws -> AWSCredentials {
        if let id = environment["AWS_ACCESS_KEY_ID"], let secret = environment["AWS_SECRET_ACCESS_KEY"], !id.isEmpty, !secret.isEmpty {
            return AWSCredentials(accessKeyID: id, secretAccessKey: secret, sessionToken: environment["AWS_SESSION_TOKEN"])
        }
        if let c = try sharedProfile(environment["AWS_PROFILE"] ?? "default") { return c }
        throw SQLError(.invalidParameter,
                       "no AWS credentials for \(what): map the role in \(Self.roleMapFile) in the data directory, "
                       + "or give the server AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or a profile in ~/.aws/credentials")
    }

    /// A profile of the shared credentials file (INI: `[name]` then `key = value` lines).
    func sharedProfile(_ name: String) throws -> AWSCredentials? {
        let path = environment["AWS_SHARED_CREDENTIALS_FILE"]
            ?? (environment["HOME"].map { $0 + "/.aws/credentials" } ?? NSHomeDirectory() + "/.aws/credentials")
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        var section: String? = nil
        var fields: [String: String] = [:]
        for raw in String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") && line.hasSuffix("]") {
                section = String(line.dropFirst().dropLast()).trimmingCharacters(in: .whitespaces)
                continue
            }
            guard section == name, let eq = line.firstIndex(of: "=") else { continue }
            fields[line[..<eq].trimmingCharacters(in: .whitespaces).lowercased()] =
                line[line.index(after: eq)...].trimmingCharacters(in: .whitespaces)
        }
        guard let id = fields["aws_access_key_id"], let secret = fields["aws_secret_access_key"] else { return nil }
        return AWSCredentials(accessKeyID: id, secretAccessKey: secret, sessionToken: fields["aws_session_token"])
    }
}
