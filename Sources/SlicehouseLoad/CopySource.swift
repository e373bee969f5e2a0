// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehouseAWS
import SlicehousePlatform

/// One input of a COPY: a local file or an S3 object, and its size (from the listing).
public struct CopyObject: Sendable, Equatable {
    public enum Place: Sendable, Equatable {
        case local(String)
        case s3(S3Location)
    }
    public var place: Place
    public var size: Int
    /// The object's version as its listing gave it (S3's ETag), when known.
    public var version: String?

    public init(_ place: Place, size: Int, version: String? = nil) { self.place = place; self.size = size; self.version = version }

    /// How STL_LOAD_COMMITS, STL_LOAD_ERRORS and error messages name it: the path, or `s3://bucket/key`.
    public var name: String {
        switch place {
        case .local(let path): return path
        case .s3(let location): return location.description
        }
    }
}

/// What a COPY may read: local files as `access` allows, and S3 objects through the client
/// `s3` makes from the statement's credentials (made when an `s3://` address is first met,
/// so a local COPY never needs credentials; nil refuses `s3://`).
public struct CopyInputs: Sendable {
    public var access: LocalFileAccess
    public var s3: S3Connection?
    /// Objects per page of an S3 listing (nil: S3's 1,000; tests make it small).
    public var listPageSize: Int?
    /// Where Parquet byte ranges read from S3 are kept between statements (external tables).
    public var fileCache: ExternalFileCache?

    public init(access: LocalFileAccess = .unrestricted, s3: S3Connection? = nil, listPageSize: Int? = nil,
                fileCache: ExternalFileCache? = nil) {
        self.access = access; self.s3 = s3; self.listPageSize = listPageSize; self.fileCache = fileCache
    }

    /// The S3 client, for `what` (an `s3://` address, named in the refusal).
    func s3Client(for what: String) throws -> S3Client {
        guard let s3 else {
            throw SQLError.unsupported("reading Amazon S3 ('\(what)') here: no S3 access was set up for this statement")
        }
        return try s3.client()
    }

    /// The bytes of a small file a COPY reads whole — a manifest, a JSONPaths file — local
    /// (as `access` allows) or on S3; nil when it does not exist.
    public func smallFile(_ source: String) throws -> [UInt8]? {
        if source.lowercased().hasPrefix("s3://") {
            guard let location = S3Location(source) else { throw S3Location.invalid(source) }
            do {
                return try s3Client(for: source).get(location)
            } catch let e as S3Error {
                if e.isMissing { return nil }
                throw e.sqlError
            }
        }
        let path = try CopySource.localPath(source)
        if access != .unrestricted { _ = try access.authorizeRead(path) }
        return FileManager.default.contents(atPath: path).map { [UInt8]($0) }
    }
}

/// The S3 client of one statement, made once, when first needed.
public final class S3Connection: @unchecked Sendable {
    private let make: @Sendable () throws -> S3Client
    private let lock = Lock()
    private var made: S3Client?

    public init(_ make: @escaping @Sendable () throws -> S3Client) { self.make = make }

    public func client() throws -> S3Client {
        try lock.withLock {
            if let made { return made }
            let c = try make()
            made = c
            return c
        }
    }
}

/// Turns a COPY `FROM '...'` source into the list of inputs to load.
///
/// An `s3://bucket/prefix` source is a *key prefix*, as in Redshift: every object whose
/// key starts with it is loaded, in key order (keys ending in `/`, the folders consoles
/// make, are left out). A local source is a *path prefix* in the same way:
/// every regular file whose full path starts with it is loaded (`/data/lineitem.tbl`
/// also matches `/data/lineitem.tbl.1`; `/data/part` matches `part.tbl` and
/// `partsupp.tbl`; a matching directory contributes every file below it), sorted by path.
/// `file://` URLs are accepted. With MANIFEST the source is the manifest, local or on S3,
/// and its entries may be either.
public enum CopySource {
    /// The inputs named by `source` (a prefix, or a manifest when `manifest` is set), each
    /// local one checked against `inputs.access` (the prefix is judged before anything under
    /// it is listed, and every file it matches, or the manifest names, after its links are
    /// followed: one refused file refuses the COPY).
    public static func resolve(_ source: String, manifest: Bool = false,
                               inputs: CopyInputs) throws -> [CopyObject] {
        if manifest {
            guard let bytes = try inputs.smallFile(source) else {
                throw SQLError(.loadError, "Manifest file '\(source)' does not exist or cannot be read")
            }
            return try ManifestReader.objects(bytes, source: source, inputs: inputs)
        }
        if source.lowercased().hasPrefix("s3://") {
            guard let location = S3Location(source) else { throw S3Location.invalid(source) }
            let listed = try listS3(location, source: source, inputs: inputs)
            let objects = listed.filter { !$0.key.hasSuffix("/") }
                .map { CopyObject(.s3(location.sibling($0.key)), size: $0.size) }
            guard !objects.isEmpty else {
                throw SQLError(.loadError, "The specified S3 prefix '\(location.key)' does not exist")
            }
            return objects
        }
        return try resolve(source, access: inputs.access).map { CopyObject(.local($0), size: fileSize($0)) }
    }

    /// The objects under the key prefix `location` (`source` names it in errors).
    static func listS3(_ location: S3Location, source: String, inputs: CopyInputs) throws -> [S3Object] {
        do {
            return try inputs.s3Client(for: source).list(location, pageSize: inputs.listPageSize)
        } catch let e as S3Error {
            throw e.sqlError
        }
    }

    /// The local files matching `source`, each one `access` lets the statement read.
    public static func resolve(_ source: String, access: LocalFileAccess = .unrestricted) throws -> [String] {
        let path = try localPath(source)
        let checked = access != .unrestricted
        if checked { _ = try access.authorizeReadPrefix(path) }
        let files = try matchPrefix(path)
        guard !files.isEmpty else {
            throw SQLError(.loadError, "The specified local path prefix '\(source)' does not match any file")
        }
        if checked {
            for f in files { _ = try access.authorizeRead(f) }
        }
        return files
    }

    static func fileSize(_ path: String) -> Int {
        var st = stat()
        return stat(path, &st) == 0 ? Int(st.st_size) : 0
    }

    /// Strip a `file://` scheme; reject remote schemes with a clear message. A COPY's
    /// `file://` URL is percent-decoded; a `literal` one (an external table's location, as
    /// Hive, Glue and Spark keep them: `region=n%2Fa` is the folder's real name) is not.
    static func localPath(_ source: String, literal: Bool = false) throws -> String {
        let lower = source.lowercased()
        if lower.hasPrefix("file://") {
            var rest = String(source.dropFirst(7))
            if rest.lowercased().hasPrefix("localhost/") { rest = String(rest.dropFirst(9)) }
            guard rest.hasPrefix("/") else {
                throw SQLError(.invalidParameter, "file:// URL must name an absolute path: '\(source)'")
            }
            return literal ? rest : (rest.removingPercentEncoding ?? rest)
        }
        if lower.hasPrefix("s3://") {
            throw SQLError.internalError("'\(source)' is an S3 address, not a local path")
        }
        if let colon = lower.range(of: "://") {
            let scheme = lower[..<colon.lowerBound]
            throw SQLError.unsupported("COPY from \(scheme):// sources")
        }
        guard !source.isEmpty else { throw SQLError(.invalidParameter, "COPY source path is empty") }
        return source
    }

    /// Every regular file whose path starts with `prefix`, sorted by path.
    static func matchPrefix(_ prefix: String) throws -> [String] {
        let fm = FileManager.default
        let dirPart: String, namePrefix: String
        if let slash = prefix.lastIndex(of: "/") {
            dirPart = String(prefix[...slash])
            namePrefix = String(prefix[prefix.index(after: slash)...])
        } else {
            dirPart = ""
            namePrefix = prefix
        }
        let listDir = dirPart.isEmpty ? "." : dirPart
        guard let entries = try? fm.contentsOfDirectory(atPath: listDir) else { return [] }
        var out: [String] = []
        for name in entries where name.hasPrefix(namePrefix) {
            let full = dirPart + name
            var isDir: ObjCBool = false
            guard fm.fileExists(atPath: full, isDirectory: &isDir) else { continue }
            if isDir.boolValue {
                out.append(contentsOf: filesBelow(full))
            } else {
                out.append(full)
            }
        }
        return out.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// Regular files under a directory, recursively (symbolic links followed).
    static func filesBelow(_ dir: String) -> [String] {
        let fm = FileManager.default
        guard let names = try? fm.subpathsOfDirectory(atPath: dir) else { return [] }
        var out: [String] = []
        for name in names {
            let full = dir + "/" + name
            var isDir: ObjCBool = false
            if fm.fileExists(atPath: full, isDirectory: &isDir), !isDir.boolValue { out.append(full) }
        }
        return out
    }
}
