import SlicehouseTypes

/// A database: a catalog plus the data of every table, spread over a simulated
/// cluster of compute nodes and slices. One per data directory.
public final class Database: @unchecked Sendable {
    public let cluster: ClusterConfig
    public let directory: String?

    /// Open (or create) a database. `directory` nil means a purely in-memory database.
    /// `cluster` is used when the database is created; an existing one keeps its own layout.
    public init(directory: String? = nil, cluster: ClusterConfig = ClusterConfig()) throws {
        self.directory = directory
        self.cluster = cluster
    }

    /// A new session (one per connection / shell).
    public func connect() -> Session { Session(database: self) }
}

/// A session runs statements one after another.
public final class Session: @unchecked Sendable {
    public let database: Database

    init(database: Database) { self.database = database }

    /// Parse and run every statement in `sql`, in order. Throws at the first
    /// failing statement (statements before it have run and are committed).
    public func execute(_ sql: String) throws -> [StatementResult] {
        throw SQLError.unsupported("execute (engine under construction)")
    }

    /// `\dt`: the list of tables (Schema, Name, Type, Owner).
    public func listTables() throws -> StatementResult {
        throw SQLError.unsupported("listTables (engine under construction)")
    }

    /// `\d name`: the columns of one table (Column, Type, Encoding, DistKey, SortKey, Nullable, Default).
    public func describeTable(_ name: String) throws -> StatementResult {
        throw SQLError.unsupported("describeTable (engine under construction)")
    }
}
