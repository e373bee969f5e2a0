import SlicehouseTypes

/// The leader's catalog: table definitions by name. Thread-safe.
///
/// Names are stored lower-case (unquoted identifiers fold to lower case, as in
/// Redshift). Only the `public` schema exists for now.
public final class Catalog: @unchecked Sendable {
    private var tables: [String: TableDef] = [:]
    private var views: [String: ViewDef] = [:]
    private var nextID = 100_000
    private let lock = Lock()

    public init() {}

    public func table(_ name: String) -> TableDef? {
        lock.withLock { tables[name.lowercased()] }
    }

    public var allTables: [TableDef] {
        lock.withLock { tables.values.sorted { $0.name < $1.name } }
    }

    /// Register a new table; assigns its id.
    @discardableResult
    public func create(_ def: TableDef) throws -> TableDef {
        try lock.withLock {
            let key = def.name.lowercased()
            if tables[key] != nil || views[key] != nil { throw SQLError(.duplicateTable, "relation \"\(def.name)\" already exists") }
            var d = def
            d.id = nextID
            nextID += 1
            tables[key] = d
            return d
        }
    }

    public func drop(_ name: String) throws {
        try lock.withLock {
            guard tables.removeValue(forKey: name.lowercased()) != nil else {
                throw SQLError(.undefinedTable, "table \"\(name)\" does not exist")
            }
        }
    }

    public func view(_ name: String) -> ViewDef? {
        lock.withLock { views[name.lowercased()] }
    }

    public var allViews: [ViewDef] { lock.withLock { views.values.sorted { $0.name < $1.name } } }

    /// Register a view (`orReplace` replaces an existing one).
    public func createView(_ v: ViewDef, orReplace: Bool) throws {
        try lock.withLock {
            let key = v.name.lowercased()
            if tables[key] != nil { throw SQLError(.duplicateTable, "relation \"\(v.name)\" already exists") }
            if views[key] != nil && !orReplace { throw SQLError(.duplicateTable, "relation \"\(v.name)\" already exists") }
            views[key] = v
        }
    }

    public func dropView(_ name: String) throws {
        try lock.withLock {
            guard views.removeValue(forKey: name.lowercased()) != nil else {
                throw SQLError(.undefinedTable, "view \"\(name)\" does not exist")
            }
        }
    }

    /// The id the next created table gets (persisted with the catalog).
    public var nextTableID: Int { lock.withLock { nextID } }

    /// Load a persisted catalog (tables keep their ids).
    public func restore(tables ts: [TableDef], views vs: [ViewDef], nextID n: Int) {
        lock.withLock {
            for t in ts { tables[t.name.lowercased()] = t }
            for v in vs { views[v.name.lowercased()] = v }
            nextID = max(n, (ts.map { $0.id }.max() ?? 0) + 1, nextID)
        }
    }

    public func replace(_ def: TableDef) {
        lock.withLock { tables[def.name.lowercased()] = def }
    }
}
