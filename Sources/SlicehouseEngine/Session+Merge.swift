// SPDX-License-Identifier: Apache-2.0
import SlicehouseCatalog
import SlicehousePlanner
import SlicehouseSQL
import SlicehouseTypes
import SlicehouseRuntime

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
extension Session {
    func merge(_ m: Merge, _ context: QueryContext) throws -> StatementResult {
        let table = try lockedTable(m.target, location: m.location)
        let target = TableRef(.table(m.target, alias: m.targetAlias.map { TableAlias(name: $0) }))
        let ctx = StatementContext(database: database, session: self)

        if m.removeDuplicates {
            let removed = try count(delete(Delete(table: m.target, alias: m.targetAlias, using: [m.source],
                                                  whereClause: m.condition, location: m.location), context))
            let all = Query(body: .select(Select(items: [.wildcard(Wildcard())], from: [m.source])))
            let inserted = try count(insert(Insert(table: m.target, source: .query(all), location: m.location), context))
            return StatementResult(tag: "MERGE \(removed + inserted)")
        }

        // The rows WHEN NOT MATCHED inserts, computed before the matched rows change.
        try requirePrivilege(.insert, on: table)
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
            let (rcols, chunks) = try QueryRunner(self, ctx, context).run(unmatchedRows)
            for (k, rc) in rcols.enumerated() where rc.type != .unknown && !TypeRules.canCast(rc.type, table.columns[columns[k]].type) {
                let col = table.columns[columns[k]]
                throw SQLError(.datatypeMismatch, "column \"\(col.name)\" is of type \(col.type.sqlName) but expression is of type \(rc.type.sqlName)")
            }
            newRows = chunks
        } else {
            // Every value is DEFAULT: one row per unmatched source row.
            let query = Query(body: .select(Select(items: [.expr(Expr(.literal(.integer("1"))), alias: nil)],
                                                   from: [m.source], whereClause: unmatched)))
            let (_, chunks) = try QueryRunner(self, ctx, context).run(query)
            newRows = chunks.map { Chunk(columns: [], count: $0.count) }
        }

        var changed = 0
        switch m.matched {
        case .update(let assignments)?:
            let multiple = SQLError(.cardinality, "Found multiple matches to update the same tuple.")
            changed = try count(update(Update(table: m.target, alias: m.targetAlias, assignments: assignments, from: [m.source],
                                              whereClause: m.condition, location: m.location), context,
                                              multipleMatches: multiple))
        case .delete?:
            changed = try count(delete(Delete(table: m.target, alias: m.targetAlias, using: [m.source],
                                              whereClause: m.condition, location: m.location), context))
        case nil:
            break
        }
        let full = try completeRows(table, targets: columns, provided: newRows, context: context)
        let inserted = full.reduce(0) { $0 + $1.count }
        if inserted > 0 { try append(full, to: table, context: context) }
        return StatementResult(tag: "MERGE \(changed + inserted)")
    }

    /// The row count of a DML command tag (`UPDATE 3`, `INSERT 0 3`, `DELETE 3`).
    private func count(_ r: StatementResult) -> Int {
        r.tag.split(separator: " ").last.flatMap { Int($0) } ?? 0
    }
}
