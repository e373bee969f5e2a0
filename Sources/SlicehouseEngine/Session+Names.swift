// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehousePlatform
import SlicehouseTypes
import SlicehouseSQL
import SlicehouseCatalog

/// How a session finds the object a name stands for: a schema-qualified name in its
/// schema (`pg_temp` is the session's own temporary schema; `pg_catalog` and
/// `information_schema` hold the system views), an unqualified one in the session's
/// temporary schema, then the system views (pg_catalog, searched first as in
/// Redshift), then each existing schema of `search_path` in order, all in the database
/// the session uses (Session+Databases.swift). A database part must name that database,
/// except where a query reads a table (`acrossDatabases`).
extension Session {
    /// What a name stands for.
    enum NamedObject {
        case table(TableDef)
        case view(ViewDef)
        /// A system table or view, by `SystemTables` name.
        case system(String)
    }

    /// The session's temporary schema, where its temporary tables live.
    var temporarySchema: String { "pg_temp_\(process)" }

    /// search_path's entries as written (quotes removed; `$user` kept): an unquoted entry
    /// in lower case, a double-quoted one as written (SET keeps the quotes only while
    /// enable_case_sensitive_identifier is on).
    var searchPathEntries: [String] { SearchPathEntries.parse(settings["search_path"] ?? "$user, public") }
}

/// search_path texts parsed into their entries, kept per text (every statement that names
/// a table reads them, and `trimmingCharacters` is not cheap).
enum SearchPathEntries {
    private static let lock = Lock()
    nonisolated(unsafe) private static var memo: [String: [String]] = [:]

    static func parse(_ text: String) -> [String] {
        if let known = lock.withLock({ memo[text] }) { return known }
        let entries = split(text)
        lock.withLock {
            if memo.count >= 256 { memo.removeAll() }
            memo[text] = entries
        }
        return entries
    }

    private static func split(_ text: String) -> [String] {
        text.split(separator: ",").compactMap { part -> String? in
            var p = part.trimmingCharacters(in: .whitespaces)
            if p.count >= 2, p.first == "\"", p.last == "\"" {
                p = String(p.dropFirst().dropLast()).replacingOccurrences(of: "\"\"", with: "\"")
                return p.isEmpty ? nil : p
            }
            if p.count >= 2, p.first == "'", p.last == "'" { p = String(p.dropFirst().dropLast()) }
            return p.isEmpty ? nil : p.lowercased()
        }
    }
}

extension Session {

    /// The schemas of search_path that exist, in order (`$user` is the session's user).
    func searchPathSchemas(_ catalog: Catalog) -> [String] {
        var out: [String] = []
        for e in searchPathEntries {
            let s = e == "$user" ? user.lowercased() : e
            if catalog.schema(s) != nil, !out.contains(s) { out.append(s) }
        }
        return out
    }

    /// A name's database part must be the database in use, for anything but reading a
    /// table (`lookup(_:in:path:acrossDatabases:)`).
    func checkDatabase(_ name: ObjectName) throws {
        if let d = name.database, d != databaseName {
            throw SQLError(.featureNotSupported, "cross-database reference to database \"\(d)\" is not supported",
                           detail: "Only a query may read a table of another database; connect to \(d) (or USE \(d)) to change it.")
        }
    }

    /// The schema a qualified name's schema part means (`pg_temp`: the session's own).
    func schemaNamed(_ s: String) -> String {
        s == "pg_temp" ? temporarySchema : s
    }

    /// The table, view or system view `name` stands for, or nil. `path`: the schemas to
    /// search for an unqualified name (a view's own); nil: the session's search_path.
    ///
    /// `acrossDatabases`: a name may name a table of another database (a query's reads).
    func lookup(_ name: ObjectName, in catalog: Catalog, path: [String]? = nil, acrossDatabases: Bool = false) throws -> NamedObject? {
        if acrossDatabases, let d = name.database, d != databaseName { return try lookup(name, inDatabase: d, catalog) }
        try checkDatabase(name)
        let n = name.name
        func find(_ q: QualifiedName) -> NamedObject? {
            if let t = catalog.table(q) { return .table(t) }
            if let v = catalog.view(q) { return .view(v) }
            return nil
        }
        if let s = name.schema {
            switch s {
            case "pg_catalog": return SystemTables.nameSet.contains(n) ? .system(n) : nil
            case "information_schema":
                return SystemTables.informationSchemaNames.contains(n) ? .system("information_schema." + n) : nil
            default: return find(QualifiedName(schema: schemaNamed(s), name: n))
            }
        }
        if let f = find(QualifiedName(schema: temporarySchema, name: n)) { return f }
        if SystemTables.nameSet.contains(n) { return .system(n) }
        for s in path ?? searchPathSchemas(catalog) {
            if let f = find(QualifiedName(schema: s, name: n)) { return f }
        }
        return nil
    }

    /// The table `name` stands for in the running statement's transaction, or nil.
    func resolveTable(_ name: ObjectName) throws -> TableDef? {
        if case .table(let t) = try lookup(name, in: transaction.catalog) { return t }
        return nil
    }

    /// The view `name` stands for in the running statement's transaction, or nil.
    func resolveView(_ name: ObjectName) throws -> ViewDef? {
        if case .view(let v) = try lookup(name, in: transaction.catalog) { return v }
        return nil
    }

    /// Where a new table or view called `name` goes: its schema when it names one (which
    /// must exist), the session's temporary schema for a temporary table, else the first
    /// existing schema of search_path.
    func creationName(_ name: ObjectName, temporary: Bool = false, in catalog: Catalog) throws -> QualifiedName {
        try checkDatabase(name)
        let n = name.name
        if let s = name.schema {
            let schema = schemaNamed(s)
            if temporary && schema != temporarySchema {
                throw SQLError(.invalidParameter, "cannot create temporary relation in non-temporary schema")
            }
            if Catalog.systemSchemas.contains(schema) {
                throw SQLError(.insufficientPrivilege, "permission denied to create \"\(schema).\(n)\"")
            }
            if schema != temporarySchema && catalog.schema(schema) == nil {
                throw SQLError(.invalidSchemaName, "schema \"\(s)\" does not exist")
            }
            if schema == temporarySchema { madeTemporaryTables = true }
            return QualifiedName(schema: schema, name: n)
        }
        if temporary {
            madeTemporaryTables = true
            return QualifiedName(schema: temporarySchema, name: n)
        }
        guard let first = searchPathSchemas(catalog).first else {
            throw SQLError(.invalidSchemaName, "no schema has been selected to create in")
        }
        return QualifiedName(schema: first, name: n)
    }

    /// `current_schema()`: the first existing schema of search_path (NULL when none).
    var currentSchema: String? { searchPathSchemas(transaction.catalog).first }

    /// `current_schemas(implicit)`: search_path's existing schemas, with pg_catalog first
    /// when `implicit`, as a PostgreSQL array literal.
    func currentSchemas(implicit: Bool) -> String {
        var s = searchPathSchemas(transaction.catalog)
        if implicit && !s.contains("pg_catalog") { s.insert("pg_catalog", at: 0) }
        return "{" + s.joined(separator: ",") + "}"
    }
}

extension Session {
    /// `pg_get_viewdef(oid | 'name')`: the view's query text, or nil (NULL) when there is none.
    func viewDefinition(_ arg: Value) throws -> String? {
        let catalog = transaction.catalog
        switch arg {
        case .null: return nil
        case .int(let oid):
            let i = Int(oid) - SystemTables.viewOIDBase
            let views = catalog.allViews
            return i >= 0 && i < views.count ? views[i].queryText + ";" : nil
        case .string(let s):
            let parts = s.split(separator: ".").map(String.init)
            let name = parts.count == 2 ? ObjectName(schema: parts[0], name: parts[1]) : ObjectName(name: s)
            guard case .view(let v) = try lookup(name, in: catalog) else {
                throw SQLError(.undefinedTable, "relation \"\(s)\" does not exist")
            }
            return v.queryText + ";"
        default:
            return nil
        }
    }
}

extension Session {
    /// The session ends: its temporary tables go (as in Redshift), in a transaction of
    /// their own. Nothing happens when it has none.
    func dropTemporaryTables() {
        let schema = temporarySchema
        let mine = database.store.current.catalog.tablesOfEveryDatabase.filter { $0.schema == schema }
        if mine.isEmpty { return }
        let t = database.store.begin(process: process, cancellation: .none)   // the session is ending
        do {
            for def in mine {
                t.use(database: def.database ?? Catalog.defaultDatabase)
                try t.dropTable(def.qualifiedName)
            }
            try t.commit()
        } catch {
            t.rollback()
        }
    }
}

extension Session {
    /// The pg_class oids of the relations an unqualified name finds (`pg_table_is_visible`):
    /// the temporary schema's, then each search_path schema's not hidden by an earlier one.
    func visibleRelationOIDs() -> [Int] {
        let catalog = transaction.catalog
        let viewOIDs = Dictionary(uniqueKeysWithValues: catalog.allViews.enumerated().map {
            ($0.element.qualifiedName, SystemTables.viewOIDBase + $0.offset)
        })
        var seen = Set<String>()
        var out: [Int] = []
        for schema in [temporarySchema] + searchPathSchemas(catalog) {
            let (tables, views) = catalog.objects(inSchema: schema)
            for t in tables where seen.insert(t.name).inserted { out.append(t.id) }
            for v in views where seen.insert(v.name).inserted { if let oid = viewOIDs[v.qualifiedName] { out.append(oid) } }
        }
        return out
    }
}

extension Session {
    /// TIMEOFDAY()'s text: `Tue Nov 24 06:50:00.123456 2026 UTC` (the clock, in UTC).
    static func timeOfDay(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .weekday, .nanosecond], from: date)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ v: Int?) -> String { let x = v ?? 0; return x < 10 ? "0\(x)" : "\(x)" }
        let micros = (c.nanosecond ?? 0) / 1000
        let frac = String(micros + 1_000_000).dropFirst()
        let day = days[((c.weekday ?? 1) - 1) % 7], month = months[((c.month ?? 1) - 1) % 12]
        return "\(day) \(month) \(two(c.day)) \(two(c.hour)):\(two(c.minute)):\(two(c.second)).\(frac) \(c.year ?? 1970) UTC"
    }
}

extension Session {
    static let maxColumns = 1600
    static let maxIdentifierBytes = 127

    func checkIdentifier(_ name: String) throws {
        if name.utf8.count > Session.maxIdentifierBytes {
            throw SQLError(.invalidParameter, "identifier \"\(name)\" is longer than \(Session.maxIdentifierBytes) bytes")
        }
    }
}
