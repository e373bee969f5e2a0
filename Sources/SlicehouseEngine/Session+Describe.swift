// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehouseCatalog
import SlicehouseSQL

extension Session {
    /// `\dt`: the list of tables (Schema, Name, Type, Owner).
    public func listTables() throws -> StatementResult {
        let tables = toolCatalog.allTables.filter { !$0.isTemporary || $0.schema == temporarySchema }
        var cols = [Vector(type: .text), Vector(type: .text), Vector(type: .text), Vector(type: .text)]
        for t in tables {
            cols[0].append(.string(t.schema))
            cols[1].append(.string(t.name))
            cols[2].append(.string("table"))
            cols[3].append(.string(Database.superuser))
        }
        let views = toolCatalog.allViews
        for v in views {
            cols[0].append(.string(v.schema))
            cols[1].append(.string(v.name))
            cols[2].append(.string("view"))
            cols[3].append(.string(Database.superuser))
        }
        return StatementResult(tag: "SELECT \(tables.count + views.count)",
                               columns: ["Schema", "Name", "Type", "Owner"].map { ResultColumn(name: $0, type: .text) },
                               chunks: [Chunk(columns: cols, count: tables.count + views.count)])
    }

    /// `\d name`: the columns of one table with Redshift's attributes
    /// (Column, Type, Encoding, DistKey, SortKey, Nullable, Default).
    public func describeTable(_ name: String) throws -> StatementResult {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let object = parts.count == 1 ? ObjectName(name: parts[0])
            : parts.count == 2 ? ObjectName(schema: parts[0], name: parts[1])
            : ObjectName(database: parts[0], schema: parts[1], name: parts.dropFirst(2).joined(separator: "."))
        guard case .table(let t) = try lookup(object, in: toolCatalog) else {
            throw SQLError(.undefinedTable, "Did not find any relation named \"\(name)\".")
        }
        let names = ["Column", "Type", "Encoding", "DistKey", "SortKey", "Nullable", "Default"]
        var cols = names.map { _ in Vector(type: .text) }
        for (i, c) in t.columns.enumerated() {
            let enc = c.encoding ?? (t.sortKey.first == i || c.type == .boolean || c.type.isFloat ? "raw"
                                     : (c.type.isString ? "lzo" : "az64"))
            let sortPos = t.sortKey.firstIndex(of: i).map { t.sortKeyKind == .interleaved ? -($0 + 1) : $0 + 1 } ?? 0
            var dflt: String? = c.defaultSQL
            if let id = c.identity { dflt = "identity(\(id.seed), \(id.step))" }
            let row: [Value] = [.string(c.name), .string(c.type.sqlName), .string(enc), .string(t.distKey == i ? "t" : "f"),
                                .string(String(sortPos)), .string(c.notNull ? "not null" : ""), dflt.map { .string($0) } ?? .null]
            for (k, v) in row.enumerated() { cols[k].append(v) }
        }
        var notices: [String] = []
        let dist = t.distStyle == .key ? "KEY(\(t.distKey.map { t.columns[$0].name } ?? "?"))" : t.distStyle.rawValue
        notices.append("Table \"\(t.schema).\(t.name)\"  DISTSTYLE \(dist)"
                       + (t.sortKey.isEmpty ? "" : "  \(t.sortKeyKind.rawValue) SORTKEY(" + t.sortKey.map { t.columns[$0].name }.joined(separator: ", ") + ")"))
        return StatementResult(tag: "SELECT \(t.columns.count)", columns: names.map { ResultColumn(name: $0, type: .text) },
                               chunks: [Chunk(columns: cols, count: t.columns.count)], notices: notices)
    }
}
