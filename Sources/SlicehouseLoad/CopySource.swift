// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes

/// Turns a COPY `FROM '...'` source into the list of local files to load.
///
/// Like an S3 key prefix, a local source is a *path prefix*: every regular file whose
/// full path starts with it is loaded (`/data/lineitem.tbl` also matches
/// `/data/lineitem.tbl.1`; `/data/part` matches `part.tbl` and `partsupp.tbl`; a
/// matching directory contributes every file below it), sorted by path.
/// `file://` URLs are accepted; `s3://` and other remote schemes are not (yet).
public enum CopySource {
    /// The files named by `source` (a prefix, or a manifest when `manifest` is set), each
    /// one `access` lets the statement read (the prefix is judged before anything under it
    /// is listed, and every file it matches, or the manifest names, after its links are
    /// followed: one refused file refuses the COPY).
    public static func resolve(_ source: String, manifest: Bool = false,
                               access: LocalFileAccess = .unrestricted) throws -> [String] {
        let path = try localPath(source)
        let checked = access != .unrestricted
        let files: [String]
        if manifest {
            if checked { _ = try access.authorizeRead(path) }
            files = try ManifestReader.files(manifestPath: path, source: source)
        } else {
            if checked { _ = try access.authorizeReadPrefix(path) }
            files = try matchPrefix(path)
            guard !files.isEmpty else {
                throw SQLError(.loadError,
                               "The specified local path prefix '\(source)' does not match any file")
            }
        }
        if checked {
            for f in files { _ = try access.authorizeRead(f) }
        }
        return files
    }

    /// Strip a `file://` scheme; reject remote schemes with a clear message.
    static func localPath(_ source: String) throws -> String {
        let lower = source.lowercased()
        if lower.hasPrefix("file://") {
            var rest = String(source.dropFirst(7))
            if rest.lowercased().hasPrefix("localhost/") { rest = String(rest.dropFirst(9)) }
            guard rest.hasPrefix("/") else {
                throw SQLError(.invalidParameter, "file:// URL must name an absolute path: '\(source)'")
            }
            return rest.removingPercentEncoding ?? rest
        }
        if lower.hasPrefix("s3://") {
            throw SQLError.unsupported("COPY from Amazon S3 ('\(source)') — Slicehouse loads local paths and file:// URLs for now")
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
