// SPDX-License-Identifier: Apache-2.0
import SlicehouseEngine
import SlicehouseTypes

/// Where the shell's statements run: the seam between `ShellDriver` (splitting, meta-commands,
/// printing) and a database.
///
/// Two implementations: `Session` (the database opened in this process, `slicehouse -D DIR`)
/// and `RemoteBackend` (a running `slicehouse serve` — or any PostgreSQL-protocol server —
/// over the wire, `slicehouse -h HOST`). Both hand back the same `StatementResult`s, so the
/// printer formats their rows, command tags and notices identically; errors are
/// `SQLError`s (SQLSTATE, message, detail, hint, line and column into the statement), so
/// `ErrorReport` prints `LINE n:` and the caret for both.
public protocol ShellBackend: AnyObject {
    /// Run every statement in `sql`, in order; throws at the first failing one.
    func execute(_ sql: String) throws -> [StatementResult]
    /// `\d`, `\dt`: the relations (Schema, Name, Type, Owner).
    func listTables() throws -> StatementResult
    /// `\d name`: the columns of one table (Column, Type, Encoding, DistKey, SortKey,
    /// Nullable, Default); `SQLError(.undefinedTable)` when there is none.
    func describeTable(_ name: String) throws -> StatementResult
    /// Told how far a running COPY has got (the progress line); backends that cannot
    /// tell ignore it.
    var copyProgress: (@Sendable (CopyProgress) -> Void)? { get set }
    /// Cancel the statement running now (called from another thread, on Ctrl-C).
    /// Returns false when no statement is running.
    func cancelRunning() -> Bool
}

extension ShellBackend {
    public func cancelRunning() -> Bool { false }
}

extension Session: ShellBackend {
    public func cancelRunning() -> Bool {
        guard isRunning else { return false }
        cancel()
        return true
    }
}

/// The server connection is gone (the server stopped, or ended the session). psql's words;
/// `ErrorReport` prints it without `ERROR:`, and a non-interactive shell stops with exit
/// status 2, as psql does.
public enum ShellConnectionLost: Error, CustomStringConvertible {
    /// The connection closed under a statement.
    case closed
    /// A statement after that.
    case noConnection

    public var description: String {
        switch self {
        case .closed:
            return "server closed the connection unexpectedly\n"
                + "\tThis probably means the server terminated abnormally\n"
                + "\tbefore or while processing the request.\n"
                + "The connection to the server was lost."
        case .noConnection:
            return "You are currently not connected to a database."
        }
    }
}
