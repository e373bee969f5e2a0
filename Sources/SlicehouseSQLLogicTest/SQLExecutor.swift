// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehouseEngine

/// What the shell and the sqllogictest runner need from a connection.
///
/// `SlicehouseEngine.Session` conforms; tests substitute a fake so that the
/// printing, splitting and comparison logic can be checked without the engine.
public protocol SQLExecutor: AnyObject {
    /// Run every statement in `sql`, in order; throws at the first failing one.
    func execute(_ sql: String) throws -> [StatementResult]
    /// `\dt`: the list of tables.
    func listTables() throws -> StatementResult
    /// `\d name`: the columns of one table.
    func describeTable(_ name: String) throws -> StatementResult
    /// Told how far a running COPY has got (the shell's progress line); nil for none.
    var copyProgress: (@Sendable (CopyProgress) -> Void)? { get set }
    /// Another connection to the same database (sqllogictest's `connection NAME`).
    func newConnection() throws -> any SQLExecutor
}

extension SQLExecutor {
    public func newConnection() throws -> any SQLExecutor {
        throw SQLError(.featureNotSupported, "this executor has one connection only")
    }
}

extension Session: SQLExecutor {
    public func newConnection() throws -> any SQLExecutor { database.connect() }
}
