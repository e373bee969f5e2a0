import SlicehouseTypes

/// The catalog: table and view definitions by name, as one value.
///
/// A transaction works on its own copy (the catalog of its snapshot with its own
/// changes applied); a commit replays the transaction's `CatalogChange`s onto the
/// latest committed catalog. Names are stored lower-case (unquoted identifiers fold
/// to lower case, as in Redshift). Only the `public` schema exists for now.
public struct Catalog: Sendable {
    private var tables: [String: TableDef] = [:]
    private var views: [String: ViewDef] = [:]
    /// At least one more than every table id in use (the data store hands ids out).
    public private(set) var nextTableID = 100_000
    /// Users, groups, roles, owners and privileges.
    public private(set) var security = Security.initial()

    public init() {}

    /// A persisted catalog (tables keep their ids). A directory written before users
    /// existed has no security part: its tables and views are the superuser's.
    public init(tables ts: [TableDef], views vs: [ViewDef], nextTableID n: Int, security sec: Security? = nil) {
        for t in ts { tables[t.name.lowercased()] = t }
        for v in vs { views[v.name.lowercased()] = v }
        nextTableID = max(n, (ts.map { $0.id }.max() ?? 0) + 1, nextTableID)
        if let sec {
            security = sec
            // TEMP tables' owners and grants outlive them in the saved copy: forget them.
            let ids = Set(ts.map { $0.id }), viewNames = Set(vs.map { $0.name.lowercased() })
            security.prune { object in
                switch object {
                case .table(let id): return ids.contains(id)
                case .view(_, let name): return viewNames.contains(name)
                case .schema: return true
                }
            }
        } else {
            for t in ts { security.setOwner(.table(t.id), Security.bootstrapSuperuser) }
            for v in vs { security.setOwner(.view(schema: "public", name: v.name.lowercased()), Security.bootstrapSuperuser) }
        }
    }

    /// The secured object a table or view name stands for.
    public func securedObject(_ name: String) -> SecuredObject? {
        if let t = table(name) { return .table(t.id) }
        if let v = view(name) { return .view(schema: "public", name: v.name.lowercased()) }
        return nil
    }

    /// The name of a secured object, as error messages and system views show it.
    public func objectName(_ o: SecuredObject) -> String {
        switch o {
        case .table(let id): return "relation \(table(id: id)?.name ?? String(id))"
        case .view(_, let name): return "relation \(name)"
        case .schema(let name): return "schema \(name)"
        }
    }

    public func table(_ name: String) -> TableDef? { tables[name.lowercased()] }

    public func table(id: Int) -> TableDef? { tables.values.first { $0.id == id } }

    public var allTables: [TableDef] { tables.values.sorted { $0.name < $1.name } }

    public func view(_ name: String) -> ViewDef? { views[name.lowercased()] }

    public var allViews: [ViewDef] { views.values.sorted { $0.name < $1.name } }

    /// Register a new table under the id it already has.
    public mutating func create(_ def: TableDef) throws {
        let key = def.name.lowercased()
        if tables[key] != nil || views[key] != nil { throw SQLError(.duplicateTable, "relation \"\(def.name)\" already exists") }
        tables[key] = def
        nextTableID = max(nextTableID, def.id + 1)
    }

    public mutating func drop(_ name: String) throws {
        guard tables.removeValue(forKey: name.lowercased()) != nil else {
            throw SQLError(.undefinedTable, "table \"\(name)\" does not exist")
        }
    }

    /// Register a view (`orReplace` replaces an existing one).
    public mutating func createView(_ v: ViewDef, orReplace: Bool) throws {
        let key = v.name.lowercased()
        if tables[key] != nil { throw SQLError(.duplicateTable, "relation \"\(v.name)\" already exists") }
        if views[key] != nil && !orReplace { throw SQLError(.duplicateTable, "relation \"\(v.name)\" already exists") }
        views[key] = v
    }

    public mutating func dropView(_ name: String) throws {
        guard views.removeValue(forKey: name.lowercased()) != nil else {
            throw SQLError(.undefinedTable, "view \"\(name)\" does not exist")
        }
    }

    /// Replace a table's definition (same id and name).
    public mutating func replace(_ def: TableDef) { tables[def.name.lowercased()] = def }

    /// Apply one change made by a transaction.
    public mutating func apply(_ change: CatalogChange) throws {
        switch change {
        case .createTable(let def): try create(def)
        case .dropTable(let def):
            guard let t = table(def.name), t.id == def.id else {
                throw SQLError(.undefinedTable, "table \"\(def.name)\" does not exist")
            }
            try drop(def.name)
            security.forget(.table(def.id))
        case .createView(let v, let orReplace): try createView(v, orReplace: orReplace)
        case .dropView(let name):
            let object = securedObject(name)
            try dropView(name)
            if let object { security.forget(object) }
        case .security(let change): try change.apply(&security)
        }
    }
}

/// One change a transaction makes to the catalog, replayed at commit onto the latest
/// committed catalog (which may hold other transactions' changes made meanwhile).
public enum CatalogChange: Sendable {
    case createTable(TableDef)
    case dropTable(TableDef)
    case createView(ViewDef, orReplace: Bool)
    case dropView(String)
    /// Users, groups, roles, owners, grants.
    case security(SecurityChange)
}
