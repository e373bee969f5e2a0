// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehouseRuntime
import SlicehouseSQL
import SlicehouseCatalog
import SlicehouseStorage
import SlicehouseExecution
import SlicehousePlanner

/// DELETE and UPDATE. Both run a query over the target table that returns each
/// affected row's id (the hidden `__rowid` column: `slice << 40 | row`), mark those
/// rows deleted in the next snapshot, and — for UPDATE — append the new versions
/// of the rows (delete plus append, as Redshift does). The deleted rows stay in their
/// blocks until VACUUM; readers that started earlier still see them.
extension Session {
    func delete(_ d: Delete, _ context: QueryContext) throws -> StatementResult {
        let (table, base) = try transaction.beginWrite(try lockedTable(d.table).qualifiedName, reads: true)
        try requirePrivilege(.delete, on: table)
        let ctx = StatementContext(database: database, session: self)
        ctx.rowIDTable = table.id
        let (_, chunks) = try QueryRunner(self, ctx, context).run(deletionQuery(d, table: table))
        var (next, marked) = markDeleted(chunks.map { $0.columns[0] }, counts: chunks.map { $0.count }, in: base)
        if marked == 0 { return StatementResult(tag: "DELETE 0") }
        try writeDeleteFiles(&next, from: base, table: table)
        transaction.stage(table.id, next)
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

    func update(_ u: Update, _ context: QueryContext, multipleMatches: SQLError? = nil) throws -> StatementResult {
        let (table, base) = try transaction.beginWrite(try lockedTable(u.table).qualifiedName, reads: true)
        let (query, assigned) = try updateQuery(u, table: table)
        // UPDATE on the table, or on every assigned column; reading columns (WHERE, SET
        // values) needs SELECT on them, checked when the query below is bound.
        try requirePrivilege(.update, on: table, columns: assigned.map { table.columns[$0].name })
        let ctx = StatementContext(database: database, session: self)
        ctx.rowIDTable = table.id
        let (rcols, chunks) = try QueryRunner(self, ctx, context).run(query)
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
        let full = try completeRows(table, targets: Array(0..<table.columns.count), provided: newRows, context: context)
        try writeDeleteFiles(&next, from: base, table: table)
        next = try placeRows(full, onto: next, of: table, sink: transaction.newSink(), context: context)
        transaction.stage(table.id, next)
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
        let layout = database.layout
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
            next.slices[s].deleteFile = try transaction.writeDeletes(next.slices[s].deleted, table: table.id, slice: s)
        }
    }
}
