// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehouseRuntime
import SlicehouseSQL
import SlicehouseCatalog
import SlicehouseStorage
import SlicehouseExecution
import Foundation

/// ANALYZE and ANALYZE COMPRESSION: a table's statistics (the planner's), or the
/// encoding each column would compress best with. Receives the session (privileges, the
/// transaction) and the statement's runtime context (the slices are read as its work).
struct AnalyzeCommand {
    let session: Session
    let context: QueryContext

    /// Redshift's `analyze_threshold_percent` default: ANALYZE skips a table with fewer rows
    /// changed since its last ANALYZE (SET analyze_threshold_percent to change it).
    static let thresholdPercent = 10.0

    /// `ANALYZE [VERBOSE] [t [(cols)]] [PREDICATE COLUMNS | ALL COLUMNS]`: per column a
    /// distinct-value sketch, the NULL fraction and the range, over every live row, stored
    /// with the table (committed like a change, without counting as one for conflicts).
    /// PREDICATE COLUMNS analyzes every column: Slicehouse does not record which columns
    /// queries filtered on, and Redshift analyzes all columns when none is marked.
    private func statistics(_ a: Analyze, tables: [TableDef]) throws -> StatementResult {
        let transaction = session.transaction
        let threshold = session.settings["analyze_threshold_percent"].flatMap { Double($0) } ?? Self.thresholdPercent
        var notices: [String] = []
        for t in tables where !SystemTables.names.contains(t.name.lowercased()) {
            let wanted = try columns(of: t, named: a)
            let label = "\"\(t.schema).\(t.name)\""
            if let snap = transaction.peek(t.id), snap.analyzed != nil, snap.statsOff < threshold,
               wanted.allSatisfy({ snap.analyzed?.columns[$0] != nil }) {
                if a.verbose {
                    notices.append("INFO:  Skipping analyze on table \(label): "
                        + String(format: "%.2f%% of rows changed (analyze_threshold_percent %.2f)", snap.statsOff, threshold))
                }
                continue
            }
            if a.verbose { notices.append("INFO:  Analyzing \(label)") }
            try session.database.analyzer.analyze(t.qualifiedName, columns: wanted, transaction: transaction,
                                                  context: context)
        }
        return StatementResult(tag: "ANALYZE", notices: notices)
    }

    /// The columns of `t` an ANALYZE names (every column when it names none, or no table).
    private func columns(of t: TableDef, named a: Analyze) throws -> [Int] {
        guard a.table != nil && !a.columns.isEmpty else { return Array(t.columns.indices) }
        return try a.columns.map { c in
            guard let i = t.columnIndex(c) else {
                throw SQLError(.undefinedColumn, "column \"\(c)\" of relation \"\(t.name)\" does not exist")
            }
            return i
        }
    }

    func run(_ a: Analyze) throws -> StatementResult {
        let database = session.database, transaction = session.transaction, user = session.user
        var tables: [TableDef]
        if let name = a.table {
            guard let t = try session.resolveTable(name) else {
                throw SQLError(.undefinedTable, "relation \"\(name.description)\" does not exist")
            }
            try session.access.requireOwner(of: t)
            tables = [t]
        } else {
            let sec = session.security
            tables = transaction.catalog.allTables.filter { !$0.isTemporary || $0.schema == session.temporarySchema }
                .filter { sec.isSuperuser(user) || sec.owner(.table($0.id)) == user }
        }
        guard a.compression else { return try statistics(a, tables: tables) }
        if let n = a.compRows, n < 1000 || n > 1_000_000_000 {
            throw SQLError(.invalidParameter, "COMPROWS must be between 1000 and 1000000000")
        }
        tables = tables.filter { !$0.isTemporary }
        // Redshift samples COMPROWS rows (default 100,000 per slice) of the table.
        let perSlice = a.compRows.map { max(1, $0 / database.layout.sliceCount) } ?? 100_000
        var names = Vector(type: .varchar(128)), cols = Vector(type: .varchar(128))
        var encs = Vector(type: .varchar(32)), pcts = Vector(type: .decimal(precision: 5, scale: 2))
        for t in tables {
            let wanted = try columns(of: t, named: a)
            let snap = try transaction.snapshot(of: t)
            let parts = snap.distribution == .all ? [(slice: 0, data: snap.slices[0])]
                : snap.slices.enumerated().map { (slice: $0.offset, data: $0.element) }
            var sample = wanted.map { Vector(type: t.columns[$0].type) }
            var sampled = 0
            for part in parts {
                let scanner = SliceScanner(parts: [part], columns: wanted, types: wanted.map { t.columns[$0].type },
                                           predicates: [], cache: database.cache)
                var taken = 0
                while taken < perSlice, let chunk = try scanner.next() {
                    let c = chunk.compacted()
                    let n = min(c.count, perSlice - taken)
                    for k in 0..<wanted.count { sample[k].append(c.columns[k].slice(0, n), rows: n) }
                    taken += n
                }
                sampled += taken
            }
            for (k, i) in wanted.enumerated() {
                let col = t.columns[i]
                let current = snap.encodings?[i]
                    ?? col.encoding.flatMap { ColumnEncoding(sqlName: $0) }
                    ?? BlockEncoder.defaultEncoding(for: col.type, isSortKeyColumn: t.sortKey.first == i)
                let (best, pct) = sampled == 0 ? (current, 0.0)
                    : BlockEncoder.analyze(sample: sample[k], type: col.type, current: current)
                names.append(.string(t.name))
                cols.append(.string(col.name))
                encs.append(.string(best.sqlName))
                pcts.append(.int(Int64((pct * 100).rounded())))
            }
        }
        let n = names.count
        return StatementResult(tag: "ANALYZE COMPRESSION",
                               columns: [ResultColumn(name: "Table", type: .varchar(128)), ResultColumn(name: "Column", type: .varchar(128)),
                                         ResultColumn(name: "Encoding", type: .varchar(32)),
                                         ResultColumn(name: "Est_reduction_pct", type: .decimal(precision: 5, scale: 2))],
                               chunks: n == 0 ? [] : [Chunk(columns: [names, cols, encs, pcts], count: n)])
    }
}
