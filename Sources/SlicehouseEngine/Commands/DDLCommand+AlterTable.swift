// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehouseRuntime
import SlicehouseSQL
import SlicehouseCatalog
import SlicehouseStorage
import SlicehouseExecution
import SlicehousePlan
import SlicehousePlanner

/// ALTER TABLE's column and layout actions, as Redshift documents them: ADD / DROP COLUMN,
/// ALTER COLUMN TYPE (a VARCHAR's size) and ENCODE, ALTER DISTKEY / DISTSTYLE, ALTER
/// [COMPOUND] SORTKEY / AUTO / NONE, ALTER ENCODE AUTO, ADD / DROP CONSTRAINT and APPEND
/// FROM. (RENAME, SET SCHEMA and OWNER TO are in `alterTable`.)
///
/// A change of definition alone (a wider VARCHAR, a constraint, ENCODE AUTO, SORTKEY NONE)
/// redefines the table in place. A change of its rows' layout rebuilds the table under
/// the same id, so that its name, owner and grants stay (`rebuildTable`): every live row is
/// read, its columns mapped to the new definition, and the rows are placed, sorted and
/// encoded as a load into the new definition would be — redistributed on a new DISTKEY or
/// DISTSTYLE, sorted on a new SORTKEY, re-encoded under new ENCODE settings, with a new
/// column's DEFAULT. Like any write it is one transaction: a failure leaves the table as
/// it was.
extension DDLCommand {
    /// The actions of one ALTER TABLE on table `t`; notices to show.
    func alterTableLayout(_ t: TableDef, _ action: AlterTable.Action) throws -> [String] {
        var actions: [AlterTable.Action]
        if case .several(let list) = action { actions = list } else { actions = [action] }
        if actions.count > 1 {
            let combinable = actions.allSatisfy {
                switch $0 {
                case .alterDistribution, .alterSortKey, .alterColumnEncode: return true
                default: return false
                }
            }
            guard combinable else {
                throw SQLError(.featureNotSupported,
                               "ALTER TABLE combines only ALTER SORTKEY with ALTER DISTKEY or ALTER DISTSTYLE, and several ALTER COLUMN ... ENCODE")
            }
        }
        if case .appendFrom(let source, let ignoreExtra, let fillTarget) = action {
            return try appendFrom(source, into: t, ignoreExtra: ignoreExtra, fillTarget: fillTarget)
        }
        var next = t
        // For each column of `next`: the column of `t` it takes its values from (nil: new).
        var kept: [Int?] = t.columns.indices.map { $0 }
        var rebuild = false
        var notices: [String] = []
        var encoded = Set<String>()

        func column(_ name: String) throws -> Int {
            guard let i = next.columnIndex(name) else {
                throw SQLError(.undefinedColumn, "column \"\(name)\" of relation \"\(t.name)\" does not exist")
            }
            return i
        }

        for a in actions {
            switch a {
            case .addColumn(let d):
                let name = d.name
                try session.checkIdentifier(name)
                if next.columnIndex(name) != nil {
                    throw SQLError(.duplicateColumn, "column \"\(name)\" of relation \"\(t.name)\" already exists")
                }
                guard next.columns.count < Session.maxColumns else {
                    throw SQLError(.invalidParameter, "tables can have at most \(Session.maxColumns) columns")
                }
                if d.distKey || d.sortKey {
                    throw SQLError(.featureNotSupported, "ALTER TABLE ADD COLUMN cannot add a DISTKEY or SORTKEY column")
                }
                if d.identity != nil {
                    throw SQLError(.featureNotSupported, "ALTER TABLE ADD COLUMN does not support columns with type IDENTITY")
                }
                if d.primaryKey || d.unique || d.references != nil {
                    throw SQLError(.featureNotSupported,
                                   "ALTER TABLE ADD COLUMN cannot add a PRIMARY KEY, UNIQUE or REFERENCES constraint")
                }
                var col = ColumnDef(name: name, type: d.type, notNull: d.notNull, encoding: d.encoding)
                if let dv = d.defaultValue {
                    let text = dv.description
                    let bound = try session.bindStandalone(text, type: d.type)
                    if d.notNull, case .null = try evaluateConstant(bound) {
                        throw SQLError(.notNullViolation,
                                       "ALTER TABLE ADD COLUMN defined as NOT NULL must have a non-null default expression")
                    }
                    col.defaultSQL = text
                } else if d.notNull {
                    throw SQLError(.notNullViolation,
                                   "ALTER TABLE ADD COLUMN defined as NOT NULL must have a non-null default expression")
                }
                if let enc = d.encoding { try checkEncoding(enc, d.type) }
                next.columns.append(col)
                kept.append(nil)
                rebuild = true

            case .dropColumn(let name, let cascade):
                let i = try column(name)
                let n = next.columns[i].name
                guard next.columns.count > 1 else {
                    throw SQLError(.featureNotSupported, "cannot drop column \"\(n)\": a table must have at least one column")
                }
                if next.distKey == i { throw SQLError(.featureNotSupported, "cannot drop distkey column \"\(n)\"") }
                if next.sortKey.contains(i) { throw SQLError(.featureNotSupported, "cannot drop sortkey column \"\(n)\"") }
                if let old = kept[i] {
                    let views = try dependentViews(table: t.id, columns: [old])
                    if !views.isEmpty && !cascade {
                        throw SQLError(.dependentObjectsStillExist,
                                       "cannot drop column \(n) of table \(t.name) because other objects depend on it",
                                       hint: "Use DROP ... CASCADE to drop the dependent objects too.")
                    }
                    notices += try cascadeToViews(views)
                }
                // A key of several columns is a dependent object too; one of this column alone goes with it.
                let multipart = ([next.primaryKey] + next.uniqueKeys).contains { $0.count > 1 && $0.contains(i) }
                if multipart && !cascade {
                    throw SQLError(.dependentObjectsStillExist,
                                   "cannot drop column \(n) of table \(t.name) because a key of several columns depends on it",
                                   hint: "Use DROP ... CASCADE to drop the dependent objects too.")
                }
                if next.primaryKey.contains(i) { next.primaryKey = [] }
                next.uniqueKeys.removeAll { $0.contains(i) }
                func shift(_ c: Int) -> Int { c > i ? c - 1 : c }
                next.columns.remove(at: i)
                kept.remove(at: i)
                next.distKey = next.distKey.map(shift)
                next.sortKey = next.sortKey.map(shift)
                next.primaryKey = next.primaryKey.map(shift)
                next.uniqueKeys = next.uniqueKeys.map { $0.map(shift) }
                rebuild = true

            case .alterColumnType(let name, let type):
                if session.inTransactionBlock {
                    throw SQLError(.activeTransaction, "ALTER TABLE ALTER COLUMN cannot run inside a transaction block")
                }
                let i = try column(name)
                let col = next.columns[i]
                guard case .varchar = col.type, case .varchar(let size) = type else {
                    throw SQLError(.featureNotSupported,
                                   "ALTER TABLE ALTER COLUMN TYPE only changes the size of a VARCHAR column (\"\(col.name)\" is \(col.type.sqlName))")
                }
                if col.defaultSQL != nil {
                    throw SQLError(.featureNotSupported, "cannot alter the type of column \"\(col.name)\": it has a DEFAULT")
                }
                if next.primaryKey.contains(i) || next.uniqueKeys.contains(where: { $0.contains(i) }) || col.references != nil {
                    throw SQLError(.featureNotSupported,
                                   "cannot alter the type of column \"\(col.name)\": it is part of a UNIQUE, PRIMARY KEY or FOREIGN KEY constraint")
                }
                if let enc = col.encoding?.lowercased(), ["bytedict", "runlength", "text255", "text32k"].contains(enc) {
                    throw SQLError(.featureNotSupported,
                                   "cannot alter the type of column \"\(col.name)\" with encoding \(enc.uppercased())")
                }
                if let old = kept[i], try longestValue(of: t, column: old) > size {
                    throw SQLError(.invalidParameter, "target column size should be greater or equal to current maximum column size")
                }
                next.columns[i].type = type

            case .alterColumnEncode(let name, let enc):
                let i = try column(name)
                let col = next.columns[i]
                guard encoded.insert(col.name).inserted else {
                    throw SQLError(.syntax, "column \"\(col.name)\" is given an encoding more than once")
                }
                if next.sortKeyKind == .interleaved && !next.sortKey.isEmpty {
                    throw SQLError(.featureNotSupported, "cannot alter the encoding of a column of a table with an INTERLEAVED sort key")
                }
                try checkEncoding(enc, col.type)
                if (col.encoding?.lowercased() ?? "auto") == enc.lowercased() {
                    throw SQLError(.invalidParameter, "column \"\(col.name)\" is already encoded as \(enc.uppercased())")
                }
                next.columns[i].encoding = enc.lowercased() == "auto" ? nil : enc.lowercased()
                rebuild = true

            case .alterDistribution(let style, let key):
                if next.sortKeyKind == .interleaved && !next.sortKey.isEmpty {
                    throw SQLError(.featureNotSupported, "ALTER DISTSTYLE and ALTER DISTKEY are not supported for tables with INTERLEAVED sort keys")
                }
                if next.isTemporary && (style == .all || style == .even) {
                    throw SQLError(.featureNotSupported, "ALTER DISTSTYLE \(style.rawValue) is not supported for temporary tables")
                }
                switch style {
                case .key:
                    guard let key else { throw SQLError(.syntax, "DISTSTYLE KEY requires a DISTKEY column") }
                    next.distStyle = .key
                    next.distKey = try column(key)
                case .all: next.distStyle = .all; next.distKey = nil
                case .even: next.distStyle = .even; next.distKey = nil
                case .auto: next.distStyle = .auto; next.distKey = nil
                }
                rebuild = true

            case .alterSortKey(let clause):
                switch clause {
                case nil:
                    next.sortKey = []
                    next.sortKeyKind = .compound
                case .auto?:
                    break   // Redshift keeps the sort key it has
                case .compound(let cols)?:
                    let key = try cols.map(column)
                    if Set(key).count != key.count { throw SQLError(.syntax, "a column appears twice in the SORTKEY") }
                    if key.count > 400 { throw SQLError(.invalidParameter, "a COMPOUND SORTKEY can have at most 400 columns") }
                    next.sortKey = key
                    next.sortKeyKind = .compound
                    rebuild = true
                case .interleaved?:
                    throw SQLError(.featureNotSupported, "ALTER SORTKEY cannot make an INTERLEAVED sort key")
                }

            case .encodeAuto:
                for i in next.columns.indices { next.columns[i].encoding = nil }

            case .addConstraint(let c):
                switch c.kind {
                case .primaryKey(let cols):
                    guard next.primaryKey.isEmpty else {
                        throw SQLError(.invalidParameter, "multiple primary keys for table \"\(t.name)\" are not allowed")
                    }
                    let key = try cols.map(column)
                    for i in key where !next.columns[i].notNull {
                        throw SQLError(.featureNotSupported,
                                       "column \"\(next.columns[i].name)\" is nullable: a PRIMARY KEY can be added only on NOT NULL columns")
                    }
                    next.primaryKey = key
                    for i in key { next.columns[i].isPrimaryKey = true }
                case .unique(let cols):
                    next.uniqueKeys.append(try cols.map(column))
                case .foreignKey(let cols, let target):
                    let key = try cols.map(column)
                    guard try session.resolveTable(target.table) != nil else {
                        throw SQLError(.undefinedTable, "relation \"\(target.table.description)\" does not exist")
                    }
                    if key.count == 1 { next.columns[key[0]].references = Self.referenceText(target) }
                }

            case .dropConstraint(let name, _):
                let n = name
                if n == "\(t.name)_pkey", !next.primaryKey.isEmpty {
                    for i in next.primaryKey { next.columns[i].isPrimaryKey = false }
                    next.primaryKey = []
                } else if let k = next.uniqueKeys.firstIndex(where: { key in
                    "\(t.name)_\(key.map { next.columns[$0].name }.joined(separator: "_"))_key" == n
                }) {
                    for i in next.uniqueKeys[k] where next.uniqueKeys[k].count == 1 { next.columns[i].isUnique = false }
                    next.uniqueKeys.remove(at: k)
                } else if let i = next.columns.firstIndex(where: { "\(t.name)_\($0.name)_fkey" == n && $0.references != nil }) {
                    next.columns[i].references = nil
                } else {
                    throw SQLError(.undefinedObject, "constraint \"\(n)\" of relation \"\(t.name)\" does not exist")
                }

            case .rename, .renameColumn, .setSchema, .owner, .appendFrom, .several, .autoRefresh:
                throw SQLError(.syntax, "this ALTER TABLE action cannot be combined with others")
            case .addPartitions, .dropPartition, .setLocation, .setTableProperties, .setFileFormat:
                throw SQLError(.wrongObjectType, "\"\(t.name)\" is not an external table",
                               hint: "Partitions, locations, table properties and file formats belong to external tables.")
            }
        }
        if rebuild {
            try rebuildTable(t, as: next, kept: kept)
        } else if next != t {
            try session.transaction.redefineTable(t.qualifiedName, as: next)
        }
        if kept != t.columns.indices.map({ $0 }) {
            // COMMENT ON COLUMN texts follow their columns to their new positions.
            let comments = session.transaction.catalog.comments
            for k in t.columns.indices where comments[CommentKey.column(t.id, k)] != nil {
                try session.transaction.setComment(CommentKey.column(t.id, k), nil)
            }
            for (i, k) in kept.enumerated() {
                if let k, let c = comments[CommentKey.column(t.id, k)] { try session.transaction.setComment(CommentKey.column(t.id, i), c) }
            }
        }
        return notices
    }

    /// Rebuild `old`'s live rows under the definition `new`, with the same id: column `i`
    /// of `new` takes the values of column `kept[i]` of `old`, or its DEFAULT (or NULL)
    /// when that is nil. The rows are placed, sorted and encoded as a load into `new`.
    func rebuildTable(_ old: TableDef, as new: TableDef, kept: [Int?]) throws {
        let writer = TableWriter(session: session, context: context)
        let (def, snap) = try session.transaction.beginWrite(old.qualifiedName, reads: true)
        let rows = try TableWriter.readRows(def, snap, cache: session.database.cache)
        try session.transaction.redefineTable(def.qualifiedName, as: new)
        let targets = kept.indices.filter { kept[$0] != nil }
        let provided = rows.map { c in Chunk(columns: targets.compactMap { kept[$0].map { c.columns[$0] } }, count: c.count) }
        let full = try writer.completeRows(new, targets: targets, provided: provided)
        var fresh = TableSnapshot.empty(layout: session.database.layout, columnCount: new.columns.count,
                                        distStyle: new.distStyle, distKey: new.distKey)
        fresh.modifications = snap.modifications
        fresh.reorganizations = snap.reorganizations + 1
        if let analyzed = snap.analyzed {
            // Statistics stay with the columns that stay.
            var columns: [Int: ColumnStatistics] = [:]
            for (i, k) in kept.enumerated() { if let k, let s = analyzed.columns[k] { columns[i] = s } }
            fresh.analyzed = AnalyzedTable(rows: analyzed.rows, modifications: analyzed.modifications,
                                           time: analyzed.time, columns: columns)
        }
        let sink = session.transaction.newSink()
        session.transaction.stage(new.id, try writer.placeRows(full, onto: fresh, of: new, sink: sink))
    }


    /// The longest value, in bytes, of a VARCHAR column.
    func longestValue(of table: TableDef, column: Int) throws -> Int {
        let (def, snap) = try session.transaction.beginWrite(table.qualifiedName, reads: true)
        var longest = 0
        for chunk in try TableWriter.readRows(def, snap, cache: session.database.cache) {
            let v = chunk.columns[column].flattened(count: chunk.count)
            for r in 0..<chunk.count {
                if case .string(let s) = v.value(at: r) { longest = max(longest, s.utf8.count) }
            }
        }
        return longest
    }

    /// `ALTER TABLE target APPEND FROM source [IGNOREEXTRA | FILLTARGET]`: the source's rows
    /// move to the target and the source is left empty. Columns match by name and type;
    /// IGNOREEXTRA drops source columns the target lacks, FILLTARGET gives target columns
    /// the source lacks their DEFAULT (or NULL).
    func appendFrom(_ sourceName: ObjectName, into target: TableDef, ignoreExtra: Bool, fillTarget: Bool) throws -> [String] {
        let writer = TableWriter(session: session, context: context)
        if session.inTransactionBlock {
            throw SQLError(.activeTransaction, "ALTER TABLE APPEND cannot run inside a transaction block")
        }
        guard let source = try session.resolveTable(sourceName) else {
            throw SQLError(.undefinedTable, "relation \"\(sourceName.description)\" does not exist")
        }
        if source.id == target.id { throw SQLError(.invalidParameter, "cannot append a table to itself") }
        try session.access.requireOwner(of: source, or: .delete)
        try session.access.requirePrivilege(.insert, on: target)
        var targets: [Int] = [], from: [Int] = []
        for (i, c) in target.columns.enumerated() {
            guard let s = source.columnIndex(c.name) else {
                if fillTarget { continue }
                throw SQLError(.datatypeMismatch,
                               "target column \"\(c.name)\" is not in the source table (FILLTARGET fills it with its default)")
            }
            guard source.columns[s].type == c.type else {
                throw SQLError(.datatypeMismatch,
                               "column \"\(c.name)\" is \(source.columns[s].type.sqlName) in the source and \(c.type.sqlName) in the target")
            }
            targets.append(i)
            from.append(s)
        }
        if !ignoreExtra, let extra = source.columns.first(where: { target.columnIndex($0.name) == nil }) {
            throw SQLError(.datatypeMismatch,
                           "source column \"\(extra.name)\" is not in the target table (IGNOREEXTRA leaves it out)")
        }
        let (sdef, ssnap) = try session.transaction.beginWrite(source.qualifiedName, reads: true)
        let rows = try TableWriter.readRows(sdef, ssnap, cache: session.database.cache)
        let provided = rows.map { c in Chunk(columns: from.map { c.columns[$0] }, count: c.count) }
        try writer.append(try writer.completeRows(target, targets: targets, provided: provided), to: target)
        var empty = TableSnapshot.empty(layout: session.database.layout, columnCount: sdef.columns.count,
                                        distStyle: sdef.distStyle, distKey: sdef.distKey)
        empty.modifications = ssnap.modifications + ssnap.rowCount
        empty.reorganizations = ssnap.reorganizations + 1
        session.transaction.stage(sdef.id, empty)
        return []
    }

    // MARK: - Dependencies

    /// The views that read table `table` (any of `columns`, any column when nil), directly
    /// or through other views, as the catalog is now. A late-binding view is bound at each
    /// use and holds nothing back (Redshift); a view that no longer binds is left out.
    func dependentViews(table: Int, columns: Set<Int>? = nil) throws -> [ViewDef] {
        session.transaction.catalog.allViews.filter { view in
            guard !view.lateBinding, let reads = boundAccesses(view) else { return false }
            return reads.contains { access, cols in
                guard case .table(let t) = access.object, t.id == table else { return false }
                return columns.map { !$0.isDisjoint(with: cols) } ?? true
            }
        }
    }

    /// The views that read view `name`, directly or through other views.
    func dependentViews(view name: QualifiedName) throws -> [ViewDef] {
        session.transaction.catalog.allViews.filter { view in
            guard !view.lateBinding, view.qualifiedName != name, let reads = boundAccesses(view) else { return false }
            return reads.contains { access, _ in
                guard case .view(let v) = access.object else { return false }
                return v.qualifiedName == name
            }
        }
    }

    /// The tables and views `view` reads, with the columns of each (nil when it does not bind).
    private func boundAccesses(_ view: ViewDef) -> [(access: RelationAccess, columns: [Int])]? {
        guard let q = try? view.parsedQuery() else { return nil }
        let ctx = StatementContext(database: session.database, session: session)
        let binder = Binder(catalog: ctx, evaluateConstant: evaluateConstant)
        binder.viewSearchPath = view.searchPath
        guard (try? binder.bind(query: q)) != nil else { return nil }
        return binder.relationAccesses()
    }

    /// Drop the views a CASCADE reaches, and say so.
    func cascadeToViews(_ views: [ViewDef]) throws -> [String] {
        for v in views where session.transaction.catalog.view(v.qualifiedName) != nil { try session.transaction.dropView(v.qualifiedName) }
        return views.map { "NOTICE:  drop cascades to view \($0.name)" }
    }
}
