// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes

/// Which of the server's files a statement may read (COPY, its manifest and JSONPaths
/// file) or write (UNLOAD). Redshift's COPY and UNLOAD reach S3 under IAM authorization
/// and never the leader's disk; a local path is the stand-in for a bucket, so it is
/// authorized the same way: a user reaches only the directories the operator opened for
/// it (`serve --copy-dir`), a superuser (or a holder of `pg_read_server_files` /
/// `pg_write_server_files`) anywhere — and nobody the data directory, whose blocks, logs
/// and catalog would otherwise give away every user's rows, statements and passwords.
///
/// Every path is resolved before it is judged: made absolute, symbolic links followed for
/// the part that exists, `.` and `..` removed (`LocalFileAccess.resolve`), so neither a
/// link nor `dir/../elsewhere` leads out of an opened directory. The resolved path is what
/// the loader opens and the unloader writes.
public struct LocalFileAccess: Sendable, Equatable {
    /// Where a kind of access reaches.
    public enum Scope: Sendable, Equatable {
        /// Every path the server's OS user can reach (but `forbidden`).
        case anywhere
        /// Only paths inside these resolved directories (none: no server file at all).
        case within([String])
    }

    public var read: Scope
    public var write: Scope
    /// Resolved directories nobody reaches (the data directory, the spill space).
    public var forbidden: [String]

    /// Everything readable and writable: for library callers and tests that load their
    /// own files. The engine always builds its policy from the session's user.
    public static let unrestricted = LocalFileAccess(read: .anywhere, write: .anywhere, forbidden: [])

    public init(read: Scope, write: Scope, forbidden: [String]) {
        self.read = read; self.write = write
        self.forbidden = forbidden.map { Self.resolve($0) }
    }

    /// `path` resolved as the operating system would reach it: absolute (against the
    /// process's working directory), every symbolic link of the part that exists followed,
    /// `.` and `..` applied; the components past the deepest existing directory are
    /// applied by name (`..` there climbs, as mkdir -p then open would).
    public static func resolve(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var resolved = "/"
        var existing = true
        func join(_ base: String, _ name: String) -> String { base == "/" ? "/" + name : base + "/" + name }
        func parent(_ p: String) -> String {
            guard let slash = p.lastIndex(of: "/"), p != "/" else { return "/" }
            return slash == p.startIndex ? "/" : String(p[..<slash])
        }
        for component in absolute.split(separator: "/", omittingEmptySubsequences: true) {
            if component == "." { continue }
            if component == ".." { resolved = parent(resolved); continue }
            let candidate = join(resolved, String(component))
            if existing {
                var st = stat()
                if lstat(candidate, &st) == 0 {
                    if let real = realpath(candidate, nil) {
                        resolved = String(cString: real)
                        free(real)
                    } else {
                        // A dangling link: where it would lead is unknown, so it stands as named.
                        resolved = candidate
                        existing = false
                    }
                    continue
                }
                existing = false
            }
            resolved = candidate
        }
        return resolved
    }

    /// Whether resolved `path` is `directory` or inside it.
    public static func contains(_ directory: String, _ path: String) -> Bool {
        if directory == "/" { return true }
        return path == directory || path.hasPrefix(directory + "/")
    }

    /// Check a file COPY is about to open; returns its resolved path.
    public func authorizeRead(_ path: String, what: String = "COPY") throws -> String {
        try authorize(path, scope: read, write: false, what: what)
    }

    /// Check the directory or prefix a COPY lists before anything under it is matched:
    /// refused where no file it could match is readable (so a refusal says nothing of
    /// what exists there). Returns the resolved prefix.
    public func authorizeReadPrefix(_ prefix: String) throws -> String {
        let resolved = Self.resolveKeepingName(prefix)
        if let f = forbidden.first(where: { Self.contains($0, resolved) }) {
            throw Self.dataDirectoryError(prefix, f, write: false)
        }
        if case .within(let roots) = read,
           !roots.contains(where: { Self.contains($0, resolved) || ($0 + "/").hasPrefix(resolved) }) {
            throw Self.outsideError(prefix, roots, write: false, what: "COPY")
        }
        return resolved
    }

    /// Check an UNLOAD destination prefix (its files are `prefix` + a name); returns the
    /// resolved prefix, keeping a trailing `/` and a final partial name as given.
    public func authorizeWritePrefix(_ prefix: String) throws -> String {
        let resolved = Self.resolveKeepingName(prefix)
        // The directory the files go into must be inside: a prefix `/share/run_` writes
        // `/share/run_0000_part_00`, and `/share` itself must be opened.
        let directory = resolved.hasSuffix("/") ? String(resolved.dropLast()) : Self.directoryOf(resolved)
        if let f = forbidden.first(where: { Self.contains($0, directory) || Self.contains($0, resolved) }) {
            throw Self.dataDirectoryError(prefix, f, write: true)
        }
        if case .within(let roots) = write, !roots.contains(where: { Self.contains($0, directory) }) {
            throw Self.outsideError(prefix, roots, write: true, what: "UNLOAD")
        }
        return resolved
    }

    private func authorize(_ path: String, scope: Scope, write: Bool, what: String) throws -> String {
        let resolved = Self.resolve(path)
        if let f = forbidden.first(where: { Self.contains($0, resolved) }) {
            throw Self.dataDirectoryError(path, f, write: write)
        }
        if case .within(let roots) = scope, !roots.contains(where: { Self.contains($0, resolved) }) {
            throw Self.outsideError(path, roots, write: write, what: what)
        }
        return resolved
    }

    /// A prefix resolved with its last component kept as a name prefix: `/a/b/../c/run_`
    /// is `resolve(/a/c)` + `/run_`; `/a/c/` keeps its slash.
    static func resolveKeepingName(_ prefix: String) -> String {
        if prefix.hasSuffix("/") {
            let r = resolve(prefix)
            return r == "/" ? r : r + "/"
        }
        let absolute = prefix.hasPrefix("/") ? prefix : FileManager.default.currentDirectoryPath + "/" + prefix
        let name = String(absolute[absolute.index(after: absolute.lastIndex(of: "/") ?? absolute.startIndex)...])
        if name == "." || name == ".." { return resolve(absolute) + "/" }
        let dir = resolve(directoryOf(absolute))
        return (dir == "/" ? "" : dir) + "/" + name
    }

    static func directoryOf(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    static func dataDirectoryError(_ path: String, _ directory: String, write: Bool) -> SQLError {
        SQLError(.insufficientPrivilege,
                 "permission denied: \(write ? "UNLOAD to" : "COPY from") '\(path)': the database's own directory"
                    + " is never read or written by COPY or UNLOAD")
    }

    static func outsideError(_ path: String, _ roots: [String], write: Bool, what: String) -> SQLError {
        let role = write ? "pg_write_server_files" : "pg_read_server_files"
        let verb = write ? "\(what) to" : "\(what) from"
        let hint = roots.isEmpty
            ? "no directory is open to users on this server (slicehouse serve --copy-dir DIR opens one)"
            : "the directories open to users are " + roots.map { "'\($0)'" }.joined(separator: ", ")
        return SQLError(.insufficientPrivilege,
                        "permission denied: \(verb) server file '\(path)': only superusers and members of \(role) may"
                            + " use server files outside the directories opened for users",
                        detail: nil, hint: hint)
    }
}
