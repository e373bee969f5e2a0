// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehouseRuntime
import SlicehouseSQL
import SlicehouseCatalog
import SlicehouseStorage
import SlicehouseExecution
import SlicehousePlan
import SlicehousePlanner

/// The commands that change a table's rows: INSERT, UPDATE, DELETE and MERGE. Each finds
/// its rows with a query (`QueryRunner`), writes them with `TableWriter`, and stages the
/// table's next snapshot in the statement's transaction, as the statement's work
/// (`context`). It receives the session (name resolution, locks, privileges) and the
/// statement's runtime context.
struct DMLCommand {
    let session: Session
    let context: QueryContext

    // MARK: - Locks before the snapshot

    /// The table whose rows a statement changes (INSERT, UPDATE, DELETE, MERGE, COPY).
    static func target(of statement: Statement) -> ObjectName? {
        switch statement {
        case .insert(let i): return i.table
        case .update(let u): return u.table
        case .delete(let d): return d.table
        case .merge(let m): return m.target
        case .copy(let c): return c.table
        default: return nil
        }
    }

    /// Locks first, snapshot after: a statement outside a transaction block that changes a
    /// table's rows takes that table's lock before its transaction's snapshot, so a writer
    /// it waited for has committed before it reads. Redshift serializes such statements
    /// with the lock; were the snapshot older than the lock, an autocommit DELETE or UPDATE
    /// that waited would fail with 1023 for a conflict the wait had already resolved.
    /// A name that is not a table here (a view, a system or external table, a missing one)
    /// takes no lock: the statement reports it as it would.
    func lockTargetBeforeSnapshot(_ statement: Statement) throws {
        guard !session.transaction.hasSnapshot, let name = Self.target(of: statement),
              case .table(let table)? = try? session.lookup(name, in: session.transaction.catalogBeforeSnapshot),
              table.materializedView == nil else { return }
        try session.transaction.lockTable(table.qualifiedName, autocommit: !session.inTransactionBlock)
    }

    // MARK: - INSERT

    func insert(_ ins: Insert) throws -> StatementResult {
        if let external = try ExternalCommand(session: session, context: context).insertIfExternal(ins) { return external }
        let writer = TableWriter(session: session, context: context)
        if try session.resolveTable(ins.table) == nil, case .system = try session.lookup(ins.table, in: session.transaction.catalog) {
            throw SQLError(.featureNotSupported, "cannot insert into system table \"\(ins.table.name)\"")
        }
        let table = try session.lockedTable(ins.table, location: ins.location)
        try session.access.requirePrivilege(.insert, on: table)
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
            let ctx = StatementContext(database: session.database, session: session)
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
                            value = .int(session.transaction.reserveIdentity(table: table, column: targets[k], count: 1).first)
                        } else if let d = col.defaultSQL {
                            value = try evaluateConstant(try session.bindStandalone(d, type: col.type))
                        } else { value = .null }
                    } else {
                        let b = try binder.bindScalar(e)
                        guard b.type == .unknown || TypeRules.canCast(b.type, col.type) else {
                            throw SQLError(.datatypeMismatch, "column \"\(col.name)\" is of type \(col.type.sqlName) but expression is of type \(b.type.sqlName)",
                                           line: e.location.line, column: e.location.column)
                        }
                        value = try evaluateConstant(b.type == col.type ? b
                                                     : (b.type == .unknown ? .constant(.null, col.type) : .cast(b, TableWriter.assignmentType(col.type))))
                    }
                    cols[k].append(value)
                }
            }
            try session.access.authorizeReads(binder)   // subqueries among the values read tables too
            chunks = [Chunk(columns: cols, count: rows.count)]
        case .query(let q):
            let ctx = StatementContext(database: session.database, session: session)
            let (rcols, result) = try QueryRunner(session, ctx, context).run(q)
            guard rcols.count <= targets.count else { throw SQLError(.syntax, "INSERT has more expressions than target columns") }
            guard rcols.count == targets.count else { throw SQLError(.syntax, "INSERT has more target columns than expressions") }
            for (k, rc) in rcols.enumerated() where rc.type != .unknown && !TypeRules.canCast(rc.type, table.columns[targets[k]].type) {
                throw SQLError(.datatypeMismatch, "column \"\(table.columns[targets[k]].name)\" is of type \(table.columns[targets[k]].type.sqlName) but expression is of type \(rc.type.sqlName)")
            }
            chunks = result
        }
        let full = try writer.completeRows(table, targets: targets, provided: chunks)
        let before = session.transaction.peek(table.id)
        try writer.append(full, to: table)
        let n = full.reduce(0) { $0 + $1.count }
        session.database.logInserts(query: session.statementQueryID, userID: session.currentUserID, table: table.id, before: before,
                                    after: session.transaction.peek(table.id), start: session.runningStatement?.start)
        return StatementResult(tag: "INSERT 0 \(n)")
    }

    // MARK: - DELETE and UPDATE

    /// DELETE and UPDATE. Both run a query over the target table that returns each
    /// affected row's id (the hidden `__rowid` column: `slice << 40 | row`), mark those
    /// rows deleted in the next snapshot, and — for UPDATE — append the new versions
    /// of the rows (delete plus append, as Redshift does). The deleted rows stay in their
    /// blocks until VACUUM; readers that started earlier still see them.

    func delete(_ d: Delete) throws -> StatementResult {
        let (table, base) = try session.transaction.beginWrite(try session.lockedTable(d.table).qualifiedName, reads: true)
        try session.access.requirePrivilege(.delete, on: table)
        let ctx = StatementContext(database: session.database, session: session)
        ctx.rowIDTable = table.id
        let (_, chunks) = try QueryRunner(session, ctx, context).run(deletionQuery(d, table: table))
        var (next, marked) = markDeleted(chunks.map { $0.columns[0] }, counts: chunks.map { $0.count }, in: base)
        if marked == 0 { return StatementResult(tag: "DELETE 0") }
        try writeDeleteFiles(&next, from: base, table: table)
        session.transaction.stage(table.id, next)
        session.database.logDeletes(query: session.statementQueryID, userID: session.currentUserID, table: table.id,
                                    before: base, after: next, start: session.runningStatement?.start)
        return StatementResult(tag: "DELETE \(marked)")
    }

    /// `multipleMatches`: the error for a target row that several FROM rows match (MERGE);
    /// nil: such a row is updated once, from its first match (UPDATE ... FROM).
    /// The query a DELETE runs to find its rows: each one's row id (`__rowid`), read
    /// with `rowIDTable` set to the target (also what EXPLAIN DELETE shows).
    func deletionQuery(_ d: Delete, table: TableDef) -> Query {
        let alias = d.alias ?? table.name
        let select = Select(items: [.expr(Expr(.column(ColumnRef(table: alias, rowIDColumnName))), alias: nil)],
                            from: [target(d.table, alias: d.alias)] + d.using, whereClause: d.whereClause,
                            location: d.location)
        return Query(body: .select(select))
    }

    /// The query an UPDATE runs: each matched row's id and its new values (every column,
    /// assigned or kept), with the assigned column numbers.
    func updateQuery(_ u: Update, table: TableDef) throws -> (Query, assigned: [Int]) {
        var assigned: [Int: Expr] = [:]
        for a in u.assignments {
            guard let i = table.columnIndex(a.column) else {
                throw SQLError(.undefinedColumn, "column \"\(a.column)\" of relation \"\(table.name)\" does not exist",
                               line: a.location.line, column: a.location.column)
            }
            if assigned[i] != nil { throw SQLError(.syntax, "multiple assignments to same column \"\(a.column)\"") }
            if table.columns[i].identity != nil {
                throw SQLError(.featureNotSupported, "cannot update identity column \"\(a.column)\"")
            }
            var value = a.value
            if case .defaultValue = value.kind {
                if let sql = table.columns[i].defaultSQL {
                    guard case .query(let q)? = try parseStatements("SELECT " + sql).first, case .select(let s) = q.body,
                          case .expr(let e, _)? = s.items.first else {
                        throw SQLError(.syntax, "invalid DEFAULT expression: \(sql)")
                    }
                    value = e
                } else {
                    value = Expr(.literal(.null))
                }
            }
            assigned[i] = value
        }
        let alias = u.alias ?? table.name
        var items: [SelectItem] = [.expr(Expr(.column(ColumnRef(table: alias, rowIDColumnName))), alias: nil)]
        for (i, c) in table.columns.enumerated() {
            items.append(.expr(assigned[i] ?? Expr(.column(ColumnRef(table: alias, c.name))), alias: nil))
        }
        let select = Select(items: items, from: [target(u.table, alias: u.alias)] + u.from,
                            whereClause: u.whereClause, location: u.location)
        return (Query(body: .select(select)), assigned.keys.sorted())
    }

    func update(_ u: Update, multipleMatches: SQLError? = nil) throws -> StatementResult {
        let writer = TableWriter(session: session, context: context)
        let (table, base) = try session.transaction.beginWrite(try session.lockedTable(u.table).qualifiedName, reads: true)
        let (query, assigned) = try updateQuery(u, table: table)
        // UPDATE on the table, or on every assigned column; reading columns (WHERE, SET
        // values) needs SELECT on them, checked when the query below is bound.
        try session.access.requirePrivilege(.update, on: table, columns: assigned.map { table.columns[$0].name })
        let ctx = StatementContext(database: session.database, session: session)
        ctx.rowIDTable = table.id
        let (rcols, chunks) = try QueryRunner(session, ctx, context).run(query)
        for (k, rc) in rcols.enumerated().dropFirst() where rc.type != .unknown
            && !TypeRules.canCast(rc.type, table.columns[k - 1].type) {
            throw SQLError(.datatypeMismatch, "column \"\(table.columns[k - 1].name)\" is of type \(table.columns[k - 1].type.sqlName) but expression is of type \(rc.type.sqlName)")
        }
        // A row that several FROM rows match is updated once (the first match).
        var seen = Set<Int64>()
        var newRows: [Chunk] = []
        for chunk in chunks {
            let c = chunk.compacted()
            guard case .int64(let ids) = c.columns[0].flattened(count: c.count).data else { continue }
            var keep: [Int32] = []
            for r in 0..<c.count {
                if seen.insert(ids[r]).inserted { keep.append(Int32(r)) } else if let multipleMatches { throw multipleMatches }
            }
            if keep.isEmpty { continue }
            let values = Array(c.columns.dropFirst()).map { $0.flattened(count: c.count).gather(keep) }
            newRows.append(Chunk(columns: values, count: keep.count))
        }
        var (next, marked) = markDeleted(chunks.map { $0.columns[0] }, counts: chunks.map { $0.count }, in: base)
        if marked == 0 { return StatementResult(tag: "UPDATE 0") }
        let full = try writer.completeRows(table, targets: Array(0..<table.columns.count), provided: newRows)
        try writeDeleteFiles(&next, from: base, table: table)
        let deleted = next
        next = try writer.placeRows(full, onto: next, of: table, sink: session.transaction.newSink())
        session.transaction.stage(table.id, next)
        // An UPDATE deletes the old versions and inserts the new (STL_DELETE and STL_INSERT).
        let start = session.runningStatement?.start
        session.database.logDeletes(query: session.statementQueryID, userID: session.currentUserID, table: table.id,
                                    before: base, after: deleted, start: start)
        session.database.logInserts(query: session.statementQueryID, userID: session.currentUserID, table: table.id,
                                    before: deleted, after: next, start: start)
        return StatementResult(tag: "UPDATE \(marked)")
    }

    private func target(_ name: ObjectName, alias: String?) -> TableRef {
        TableRef(.table(name, alias: alias.map { TableAlias(name: $0) }))
    }

    /// Mark the rows named by `ids` deleted; returns the next snapshot and how many
    /// rows became deleted (an ALL table's copies count once).
    private func markDeleted(_ ids: [Vector], counts: [Int], in base: TableSnapshot) -> (TableSnapshot, Int) {
        var next = base
        var marked = 0
        let layout = session.database.layout
        for (v, n) in zip(ids, counts) {
            guard case .int64(let a) = v.flattened(count: n).data else { continue }
            for id in a.prefix(n) {
                let slice = Int(id >> 40), row = Int(id & ((1 << 40) - 1))
                guard slice >= 0, slice < next.slices.count, row < next.slices[slice].rowCount else { continue }
                if next.slices[slice].deleted.contains(row) { continue }
                if next.distribution == .all {
                    for node in 0..<layout.nodes { next.slices[layout.firstSlice(ofNode: node)].deleted.insert(row) }
                } else {
                    next.slices[slice].deleted.insert(row)
                }
                marked += 1
            }
        }
        next.modifications += marked
        return (next, marked)
    }

    /// Persist the deleted-row bitmaps of the slices whose marks changed.
    private func writeDeleteFiles(_ next: inout TableSnapshot, from base: TableSnapshot, table: TableDef) throws {
        for s in 0..<next.slices.count where next.slices[s].deleted != base.slices[s].deleted {
            next.slices[s].deleteFile = try session.transaction.writeDeletes(next.slices[s].deleted, table: table.id, slice: s)
        }
    }

    // MARK: - MERGE

    /// MERGE, as Redshift has it, in one transaction on the statements that already exist:
    ///
    /// - `WHEN MATCHED THEN UPDATE SET ... | DELETE` and `WHEN NOT MATCHED THEN INSERT ...`:
    ///   first the rows to insert are computed — the VALUES of every source row no target row
    ///   matches, against the target as it is before the MERGE — then the matched target rows
    ///   are updated (`UPDATE target SET ... FROM source WHERE condition`, failing when several
    ///   source rows match one target row) or deleted (`DELETE FROM target USING source WHERE
    ///   condition`), and the new rows are appended.
    /// - `REMOVE DUPLICATES` (simplified mode; source and target have the same columns):
    ///   the target rows that match a source row are deleted, and every source row is
    ///   inserted, so a target row matched several times is left once.
    ///
    /// The command tag counts the rows updated or deleted plus the rows inserted.

    func merge(_ m: Merge) throws -> StatementResult {
        let writer = TableWriter(session: session, context: context)
        let table = try session.lockedTable(m.target, location: m.location)
        let target = TableRef(.table(m.target, alias: m.targetAlias.map { TableAlias(name: $0) }))
        let ctx = StatementContext(database: session.database, session: session)

        if m.removeDuplicates {
            let removed = try count(delete(Delete(table: m.target, alias: m.targetAlias, using: [m.source],
                                                  whereClause: m.condition, location: m.location)))
            let all = Query(body: .select(Select(items: [.wildcard(Wildcard())], from: [m.source])))
            let inserted = try count(insert(Insert(table: m.target, source: .query(all), location: m.location)))
            return StatementResult(tag: "MERGE \(removed + inserted)")
        }

        // The rows WHEN NOT MATCHED inserts, computed before the matched rows change.
        try session.access.requirePrivilege(.insert, on: table)
        var columns: [Int] = []
        let names = m.insertColumns.isEmpty ? table.columns.map { $0.name } : m.insertColumns
        guard names.count == m.insertValues.count else {
            throw SQLError(.syntax, m.insertValues.count > names.count ? "INSERT has more expressions than target columns"
                                                                       : "INSERT has more target columns than expressions")
        }
        var items: [SelectItem] = []
        for (name, value) in zip(names, m.insertValues) {
            guard let i = table.columnIndex(name) else {
                throw SQLError(.undefinedColumn, "column \"\(name)\" of relation \"\(table.name)\" does not exist")
            }
            if columns.contains(i) { throw SQLError(.duplicateColumn, "column \"\(name)\" specified more than once") }
            if case .defaultValue = value.kind { continue }   // left to the column's DEFAULT
            columns.append(i)
            items.append(.expr(value, alias: nil))
        }
        let unmatched = Expr(.unary(.not, Expr(.exists(Query(body: .select(Select(
            items: [.expr(Expr(.literal(.integer("1"))), alias: nil)], from: [target], whereClause: m.condition)))))))
        var newRows: [Chunk] = []
        if !items.isEmpty {
            let unmatchedRows = Query(body: .select(Select(items: items, from: [m.source], whereClause: unmatched)))
            let (rcols, chunks) = try QueryRunner(session, ctx, context).run(unmatchedRows)
            for (k, rc) in rcols.enumerated() where rc.type != .unknown && !TypeRules.canCast(rc.type, table.columns[columns[k]].type) {
                let col = table.columns[columns[k]]
                throw SQLError(.datatypeMismatch, "column \"\(col.name)\" is of type \(col.type.sqlName) but expression is of type \(rc.type.sqlName)")
            }
            newRows = chunks
        } else {
            // Every value is DEFAULT: one row per unmatched source row.
            let query = Query(body: .select(Select(items: [.expr(Expr(.literal(.integer("1"))), alias: nil)],
                                                   from: [m.source], whereClause: unmatched)))
            let (_, chunks) = try QueryRunner(session, ctx, context).run(query)
            newRows = chunks.map { Chunk(columns: [], count: $0.count) }
        }

        var changed = 0
        switch m.matched {
        case .update(let assignments)?:
            let multiple = SQLError(.cardinality, "Found multiple matches to update the same tuple.")
            changed = try count(update(Update(table: m.target, alias: m.targetAlias, assignments: assignments, from: [m.source],
                                              whereClause: m.condition, location: m.location),
                                              multipleMatches: multiple))
        case .delete?:
            changed = try count(delete(Delete(table: m.target, alias: m.targetAlias, using: [m.source],
                                              whereClause: m.condition, location: m.location)))
        case nil:
            break
        }
        let full = try writer.completeRows(table, targets: columns, provided: newRows)
        let inserted = full.reduce(0) { $0 + $1.count }
        if inserted > 0 { try writer.append(full, to: table) }
        return StatementResult(tag: "MERGE \(changed + inserted)")
    }

    /// The row count of a DML command tag (`UPDATE 3`, `INSERT 0 3`, `DELETE 3`).
    private func count(_ r: StatementResult) -> Int {
        r.tag.split(separator: " ").last.flatMap { Int($0) } ?? 0
    }
}
