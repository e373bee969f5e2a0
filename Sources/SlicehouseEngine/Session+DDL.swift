// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehouseRuntime
import SlicehouseSQL
import SlicehouseCatalog
import SlicehouseStorage
import SlicehousePlanner

extension Session {
    static let maxColumns = 1600
    static let maxIdentifierBytes = 127

    func checkIdentifier(_ name: String) throws {
        if name.utf8.count > Session.maxIdentifierBytes {
            throw SQLError(.invalidParameter, "identifier \"\(name)\" is longer than \(Session.maxIdentifierBytes) bytes")
        }
    }

    func createTable(_ c: CreateTable, _ context: QueryContext) throws -> StatementResult {
        let qualified = try creationName(c.name, temporary: c.temporary, in: transaction.catalog)
        let name = qualified.name
        try checkIdentifier(name)
        if SystemTables.names.contains(name) {
            throw SQLError(.duplicateTable, "relation \"\(name)\" already exists")
        }
        if transaction.catalog.hasRelation(qualified) {
            if c.ifNotExists {
                return StatementResult(tag: "CREATE TABLE", notices: ["relation \"\(name)\" already exists, skipping"])
            }
            throw SQLError(.duplicateTable, "relation \"\(name)\" already exists")
        }
        var columns: [ColumnDef] = []
        var distKey: Int? = nil
        var sortKey: [Int] = []
        var primaryKey: [Int] = []
        var uniqueKeys: [[Int]] = []
        var ctasRows: ([ResultColumn], [Chunk])? = nil
        var inheritedDist: DistStyle? = nil
        var inheritedSortKind: SortKeyKind = .compound
        var materialized: MaterializedViewDef? = nil
        var queryContext: StatementContext? = nil

        func index(_ col: String) throws -> Int {
            guard let i = columns.firstIndex(where: { $0.name == col.lowercased() }) else {
                throw SQLError(.undefinedColumn, "column \"\(col)\" named in key does not exist")
            }
            return i
        }

        switch c.source {
        case .elements(let defs, let constraints):
            guard !defs.isEmpty else { throw SQLError(.syntax, "a table needs at least one column") }
            guard defs.count <= Session.maxColumns else {
                throw SQLError(.invalidParameter, "tables can have at most \(Session.maxColumns) columns")
            }
            for var d in defs {
                d.name = d.name.lowercased()
                try checkIdentifier(d.name)
                if columns.contains(where: { $0.name == d.name }) {
                    throw SQLError(.duplicateColumn, "column \"\(d.name)\" specified more than once",
                                   line: d.location.line, column: d.location.column)
                }
                var col = ColumnDef(name: d.name, type: d.type, notNull: d.notNull || d.primaryKey,
                                    encoding: d.encoding, isPrimaryKey: d.primaryKey, isUnique: d.unique,
                                    references: d.references.map { $0.table.name })
                if let id = d.identity {
                    guard d.type == .integer || d.type == .bigint || d.type == .smallint else {
                        throw SQLError(.datatypeMismatch, "IDENTITY column \"\(d.name)\" must be SMALLINT, INTEGER or BIGINT")
                    }
                    guard d.defaultValue == nil else {
                        throw SQLError(.syntax, "column \"\(d.name)\" cannot have both IDENTITY and DEFAULT")
                    }
                    guard id.step != 0 else { throw SQLError(.invalidParameter, "IDENTITY step cannot be 0") }
                    col.identity = (id.seed, id.step)
                }
                if let dv = d.defaultValue {
                    let text = dv.description
                    _ = try bindStandalone(text, type: d.type, context: context)   // must bind and cast now
                    col.defaultSQL = text
                }
                if let enc = d.encoding { try checkEncoding(enc, d.type) }
                columns.append(col)
                if d.distKey {
                    if distKey != nil { throw SQLError(.syntax, "only one column can be the DISTKEY") }
                    distKey = columns.count - 1
                }
                if d.sortKey { sortKey.append(columns.count - 1) }
                if d.primaryKey { primaryKey = [columns.count - 1] }
                if d.unique { uniqueKeys.append([columns.count - 1]) }
            }
            for con in constraints {
                switch con.kind {
                case .primaryKey(let cols):
                    guard primaryKey.isEmpty else { throw SQLError(.syntax, "multiple primary keys for table \"\(name)\" are not allowed") }
                    primaryKey = try cols.map(index)
                    for i in primaryKey { columns[i].notNull = true; columns[i].isPrimaryKey = true }
                case .unique(let cols):
                    uniqueKeys.append(try cols.map(index))
                case .foreignKey(let cols, _):
                    _ = try cols.map(index)
                }
            }
        case .like(let like):
            guard let parent = try resolveTable(like.parent) else {
                throw SQLError(.undefinedTable, "relation \"\(like.parent.description)\" does not exist")
            }
            columns = parent.columns.map { col in
                var c = col
                if !like.includingDefaults { c.defaultSQL = nil }
                return c
            }
            distKey = parent.distKey
            sortKey = parent.sortKey
            inheritedDist = parent.distStyle
            inheritedSortKind = parent.sortKeyKind
        case .query(let names, let q):
            let ctx = StatementContext(database: database, session: self)
            let (cols, chunks) = try QueryRunner(self, ctx, context).run(q)
            queryContext = ctx
            if let options = c.materialized { materialized = try materializedViewDef(options, c, context: ctx) }
            guard names.isEmpty || names.count == cols.count else {
                throw SQLError(.syntax, "CREATE TABLE AS specifies \(names.count) column names, but the query returns \(cols.count)")
            }
            for (i, rc) in cols.enumerated() {
                let n = (names.isEmpty ? rc.name : names[i]).lowercased()
                if columns.contains(where: { $0.name == n }) {
                    throw SQLError(.duplicateColumn, "column \"\(n)\" specified more than once")
                }
                columns.append(ColumnDef(name: n, type: rc.type == .unknown ? .text : rc.type))
            }
            ctasRows = (cols, chunks)
        }

        // Table attributes.
        let attrs = c.attributes
        if let dk = attrs.distKey {
            if let distKey, columns[distKey].name != dk {
                throw SQLError(.syntax, "a table can have only one DISTKEY")
            }
            distKey = try index(dk)
        }
        var style: DistStyle = inheritedDist ?? .auto
        if let ds = attrs.distStyle {
            style = DistStyle(rawValue: ds.rawValue) ?? .auto
            if style != .key && distKey != nil {
                throw SQLError(.syntax, "DISTSTYLE \(style.rawValue) cannot be used with a DISTKEY")
            }
            if style == .key && distKey == nil {
                throw SQLError(.syntax, "DISTSTYLE KEY requires a DISTKEY column")
            }
        } else if distKey != nil {
            style = .key
        }
        var sortKind = inheritedSortKind
        if let sk = attrs.sortKey {
            if !sortKey.isEmpty && inheritedDist == nil {
                throw SQLError(.syntax, "SORTKEY cannot be given both as a column attribute and a table attribute")
            }
            switch sk {
            case .auto: sortKey = []
            case .compound(let cols): sortKey = try cols.map(index); sortKind = .compound
            case .interleaved(let cols): sortKey = try cols.map(index); sortKind = .interleaved
            }
        }
        if sortKind == .interleaved && sortKey.count > 8 {
            throw SQLError(.invalidParameter, "an INTERLEAVED SORTKEY can have at most 8 columns")
        }
        if sortKey.count > 400 { throw SQLError(.invalidParameter, "a COMPOUND SORTKEY can have at most 400 columns") }
        if Set(sortKey).count != sortKey.count { throw SQLError(.syntax, "a column appears twice in the SORTKEY") }

        let def = TableDef(id: 0, schema: qualified.schema, name: name, columns: columns, distStyle: style, distKey: distKey, sortKey: sortKey,
                           sortKeyKind: sortKind, isTemporary: c.temporary, primaryKey: primaryKey, uniqueKeys: uniqueKeys,
                           materializedView: materialized)
        if !def.isTemporary { try requireCreate(inSchema: def.schema) }   // TEMP: every user may
        let created = try transaction.createTable(def)
        let owner = user, schema = def.schema
        try transaction.changeSecurity(SecurityChange { $0.created(.table(created.id), schema: schema, owner: owner) })
        if let (_, chunks) = ctasRows {
            let full = try completeRows(created, targets: Array(0..<columns.count), provided: chunks, context: context)
            try append(full, to: created, context: context)
            let n = chunks.reduce(0) { $0 + $1.count }
            if materialized != nil, let ctx = queryContext, var snap = transaction.peek(created.id) {
                // Where the base tables stood: the first REFRESH folds in what is appended after.
                snap.refreshState = refreshState(ctx, excluding: created.id,
                                                 meaning: materialized.flatMap { materializedViewMeaning($0) })
                transaction.stage(created.id, snap)
                return StatementResult(tag: "CREATE MATERIALIZED VIEW")
            }
            return StatementResult(tag: "SELECT \(n)")
        }
        return StatementResult(tag: "CREATE TABLE")
    }

    /// ENCODE as written: a known encoding that Redshift allows for the column's type.
    func checkEncoding(_ enc: String, _ type: DataType) throws {
        if enc.lowercased() == "auto" { return }
        guard let e = ColumnEncoding(sqlName: enc) else {
            throw SQLError(.invalidParameter, "invalid encoding type \"\(enc)\"")
        }
        if !BlockEncoder.isAllowed(e, for: type) {
            throw SQLError(.invalidParameter, "invalid encoding type \"\(enc)\" for column type \(type.sqlName)")
        }
    }

    func dropTables(_ d: DropStatement) throws -> StatementResult {
        var notices: [String] = []
        for n in d.names {
            guard let def = try resolveTable(n) else {
                if d.ifExists {
                    notices.append("NOTICE:  table \"\(n.name.lowercased())\" does not exist, skipping")
                    continue
                }
                if try resolveView(n) != nil {
                    throw SQLError(.invalidParameter, "\"\(n.name.lowercased())\" is not a table",
                                   hint: "Use DROP VIEW to remove a view.")
                }
                throw SQLError(.undefinedTable, "table \"\(n.name.lowercased())\" does not exist")
            }
            if d.materialized != (def.materializedView != nil) {
                throw SQLError(.wrongObjectType, d.materialized ? "\"\(def.name)\" is not a materialized view"
                               : "\"\(def.name)\" is a materialized view",
                               hint: d.materialized ? "Use DROP TABLE to remove a table." : "Use DROP MATERIALIZED VIEW to remove it.")
            }
            try requireOwner(of: def, or: .drop)
            // Views that read the table hold it back (RESTRICT) or go with it (CASCADE).
            let views = try dependentViews(table: def.id)
            if !views.isEmpty && !d.cascade {
                throw SQLError(.dependentObjectsStillExist, "cannot drop table \(def.name) because other objects depend on it",
                               hint: "Use DROP ... CASCADE to drop the dependent objects too.")
            }
            notices += try cascadeToViews(views)
            try transaction.dropTable(def.qualifiedName)
        }
        return StatementResult(tag: d.materialized ? "DROP MATERIALIZED VIEW" : "DROP TABLE", notices: notices)
    }

    func dropViews(_ d: DropStatement) throws -> StatementResult {
        var notices: [String] = []
        for n in d.names {
            guard let v = try resolveView(n) else {
                if d.ifExists {
                    notices.append("NOTICE:  view \"\(n.name.lowercased())\" does not exist, skipping")
                    continue
                }
                if try resolveTable(n) != nil {
                    throw SQLError(.invalidParameter, "\"\(n.name.lowercased())\" is not a view",
                                   hint: "Use DROP TABLE to remove a table.")
                }
                throw SQLError(.undefinedTable, "view \"\(n.name.lowercased())\" does not exist")
            }
            let object = SecuredObject.view(schema: v.schema, name: v.name.lowercased())
            if !isSuperuser, security.owner(object) != user, !security.granted(to: user, on: object).table.contains(.drop) {
                throw SQLError(.insufficientPrivilege, "must be owner of relation \(v.name)")
            }
            let views = try dependentViews(view: v.qualifiedName)
            if !views.isEmpty && !d.cascade {
                throw SQLError(.dependentObjectsStillExist, "cannot drop view \(v.name) because other objects depend on it",
                               hint: "Use DROP ... CASCADE to drop the dependent objects too.")
            }
            notices += try cascadeToViews(views)
            if transaction.catalog.view(v.qualifiedName) != nil { try transaction.dropView(v.qualifiedName) }
        }
        return StatementResult(tag: "DROP VIEW", notices: notices)
    }

    // MARK: - INSERT

    func insert(_ ins: Insert, _ context: QueryContext) throws -> StatementResult {
        if try resolveTable(ins.table) == nil, case .system = try lookup(ins.table, in: transaction.catalog) {
            throw SQLError(.featureNotSupported, "cannot insert into system table \"\(ins.table.name)\"")
        }
        let table = try lockedTable(ins.table, location: ins.location)
        try requirePrivilege(.insert, on: table)
        var targets: [Int] = []
        if ins.columns.isEmpty {
            targets = Array(0..<table.columns.count)
        } else {
            for c in ins.columns {
                guard let i = table.columnIndex(c) else {
                    throw SQLError(.undefinedColumn, "column \"\(c)\" of relation \"\(table.name)\" does not exist")
                }
                if targets.contains(i) { throw SQLError(.duplicateColumn, "column \"\(c)\" specified more than once") }
                targets.append(i)
            }
        }
        var chunks: [Chunk] = []
        switch ins.source {
        case .defaultValues:
            chunks = [Chunk(columns: [], count: 1)]
            targets = []
        case .values(let rows):
            let ctx = StatementContext(database: database, session: self)
            let binder = Binder(catalog: ctx, evaluateConstant: evaluateConstant)
            var cols = targets.map { Vector(type: table.columns[$0].type, capacity: rows.count) }
            for row in rows {
                guard row.count <= targets.count else { throw SQLError(.syntax, "INSERT has more expressions than target columns") }
                guard row.count == targets.count else { throw SQLError(.syntax, "INSERT has more target columns than expressions") }
                for (k, e) in row.enumerated() {
                    let col = table.columns[targets[k]]
                    let value: Value
                    if case .defaultValue = e.kind {
                        if col.identity != nil {
                            value = .int(transaction.reserveIdentity(table: table, column: targets[k], count: 1).first)
                        } else if let d = col.defaultSQL {
                            value = try evaluateConstant(try bindStandalone(d, type: col.type, context: context))
                        } else { value = .null }
                    } else {
                        let b = try binder.bindScalar(e)
                        guard b.type == .unknown || TypeRules.canCast(b.type, col.type) else {
                            throw SQLError(.datatypeMismatch, "column \"\(col.name)\" is of type \(col.type.sqlName) but expression is of type \(b.type.sqlName)",
                                           line: e.location.line, column: e.location.column)
                        }
                        value = try evaluateConstant(b.type == col.type ? b
                                                     : (b.type == .unknown ? .constant(.null, col.type) : .cast(b, assignmentType(col.type))))
                    }
                    cols[k].append(value)
                }
            }
            try authorizeReads(binder)   // subqueries among the values read tables too
            chunks = [Chunk(columns: cols, count: rows.count)]
        case .query(let q):
            let ctx = StatementContext(database: database, session: self)
            let (rcols, result) = try QueryRunner(self, ctx, context).run(q)
            guard rcols.count <= targets.count else { throw SQLError(.syntax, "INSERT has more expressions than target columns") }
            guard rcols.count == targets.count else { throw SQLError(.syntax, "INSERT has more target columns than expressions") }
            for (k, rc) in rcols.enumerated() where rc.type != .unknown && !TypeRules.canCast(rc.type, table.columns[targets[k]].type) {
                throw SQLError(.datatypeMismatch, "column \"\(table.columns[targets[k]].name)\" is of type \(table.columns[targets[k]].type.sqlName) but expression is of type \(rc.type.sqlName)")
            }
            chunks = result
        }
        let full = try completeRows(table, targets: targets, provided: chunks, context: context)
        try append(full, to: table, context: context)
        let n = full.reduce(0) { $0 + $1.count }
        return StatementResult(tag: "INSERT 0 \(n)")
    }
}

extension Session {
    /// `CREATE [OR REPLACE] VIEW v [(cols)] AS query`: the query must bind now; its text is
    /// stored and bound again wherever the view is used.
    func createView(_ v: CreateView) throws -> StatementResult {
        let qualified = try creationName(v.name, in: transaction.catalog)
        let name = qualified.name
        try checkIdentifier(name)
        if SystemTables.names.contains(name) { throw SQLError(.duplicateTable, "relation \"\(name)\" already exists") }
        let path = searchPathSchemas(transaction.catalog)
        let ctx = StatementContext(database: database, session: self)
        let binder = Binder(catalog: ctx, evaluateConstant: evaluateConstant)
        binder.viewSearchPath = path
        let outs: [PlanColumn]
        do {
            outs = try binder.bind(query: v.query).outputs
        } catch let e as SQLError where v.withNoSchemaBinding && (e.code == .undefinedTable || e.code == .undefinedColumn) {
            // A late-binding view is bound when it is used: the relations it reads may
            // not exist yet (Redshift).
            try registerView(ViewDef(schema: qualified.schema, name: name, columns: v.columns.map { $0.lowercased() },
                                     queryText: v.queryText, searchPath: path, lateBinding: true),
                             orReplace: v.orReplace)
            return StatementResult(tag: "CREATE VIEW")
        }
        if !v.columns.isEmpty && v.columns.count != outs.count {
            throw SQLError(.syntax, "CREATE VIEW specifies \(v.columns.count) column names, but the query returns \(outs.count)")
        }
        var seen = Set<String>()
        for n in (v.columns.isEmpty ? outs.map { $0.name } : v.columns) where !seen.insert(n.lowercased()).inserted {
            throw SQLError(.duplicateColumn, "column \"\(n)\" specified more than once")
        }
        try registerView(ViewDef(schema: qualified.schema, name: name, columns: v.columns.map { $0.lowercased() },
                                 queryText: v.queryText, searchPath: path, lateBinding: v.withNoSchemaBinding),
                         orReplace: v.orReplace)
        return StatementResult(tag: "CREATE VIEW")
    }

    /// Create (or replace) a view the current user will own: CREATE on its schema; only
    /// its owner (or a superuser) may replace it.
    private func registerView(_ view: ViewDef, orReplace: Bool) throws {
        try requireCreate(inSchema: view.schema)
        let object = SecuredObject.view(schema: view.schema, name: view.name.lowercased())
        let replacing = transaction.catalog.view(view.qualifiedName) != nil
        if orReplace, replacing, !isSuperuser, security.owner(object) != user {
            throw SQLError(.insufficientPrivilege, "must be owner of relation \(view.name)")
        }
        try transaction.createView(view, orReplace: orReplace)
        if !replacing {
            let owner = user, schema = view.schema
            try transaction.changeSecurity(SecurityChange { $0.created(object, schema: schema, owner: owner) })
        }
    }
}
