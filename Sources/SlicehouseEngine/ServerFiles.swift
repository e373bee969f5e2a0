// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseCatalog
import SlicehouseLoad

/// Who may reach which of the server's files through COPY and UNLOAD (see
/// `LocalFileAccess`): the operator opens directories for every user
/// (`slicehouse serve --copy-dir DIR`, `Database.serverFileDirectories`); superusers and
/// holders of `pg_read_server_files` / `pg_write_server_files` reach any path; the data
/// directory and the spill space stay out of everyone's reach.
public struct ServerFiles: Sendable {
    /// The directories every user may COPY from and UNLOAD to, resolved.
    public let userDirectories: [String]
    /// Directories nobody reaches (the data directory, the spill space).
    let forbidden: [String]

    init(userDirectories: [String], forbidden: [String]) {
        self.userDirectories = userDirectories.map { LocalFileAccess.resolve($0) }
        self.forbidden = forbidden
    }

    /// What `user` may do, as `security` (the statement's catalog) says.
    func access(for user: String, in security: Security) -> LocalFileAccess {
        let read: LocalFileAccess.Scope = security.isSuperuserOrHolds(user, role: "pg_read_server_files")
            ? .anywhere : .within(userDirectories)
        let write: LocalFileAccess.Scope = security.isSuperuserOrHolds(user, role: "pg_write_server_files")
            ? .anywhere : .within(userDirectories)
        return LocalFileAccess(read: read, write: write, forbidden: forbidden)
    }
}
