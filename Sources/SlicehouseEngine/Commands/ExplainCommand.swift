// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehouseRuntime
import SlicehouseSQL
import SlicehouseStorage
import SlicehousePlan
import SlicehousePlanner
import SlicehouseExecution
import SlicehousePlatform

/// EXPLAIN: the plan a statement's query would run, as Redshift prints it.
///
/// EXPLAIN ANALYZE (Redshift has none; its users read SVL_QUERY_REPORT): the query runs
/// (its rows are counted, not returned), then EXPLAIN's tree is printed with what each
/// step did under it, from the same step records SVL_QUERY_REPORT shows:
///
///     ->  XN Hash Join DS_DIST_NONE  (cost=... rows=... width=...)
///           Hash Cond: ("outer".l_orderkey = "inner".o_orderkey)
///           Actual: rows=30519 time=4.211 ms memory=2.3 MB
///           Slices: rows min=7480 max=7803 skew=1.020 by slice [7480,7803,7650,7586]
///
/// `rows` is the step's output summed over the slices, `time` its own time (its inputs'
/// excluded) on the slowest slice, `memory` what it held at most (summed over slices).
/// `Slices` gives the least and most rows a slice produced, the skew (most ÷ mean) and
/// each slice's rows (up to 32 slices; the shell's `\bars` draws them); a scan adds the
/// rows it read before its filter and how many of its blocks zone maps let it skip;
/// a join adds the rows each exchange below it moved (the ones its DS_ label stands for).
/// The run is logged like any query (STL_QUERY's id is pg_last_query_id()).
struct ExplainCommand {
    let session: Session
    let context: QueryContext

    /// `EXPLAIN [VERBOSE] statement` and EXPLAIN ANALYZE (of a query).
    func run(_ e: Explain) throws -> StatementResult {
        if e.analyze, case .query = e.statement {} else if e.analyze {
            // It would run the statement: its changes would have to be rolled back.
            throw SQLError.unsupported("EXPLAIN ANALYZE of a statement other than a query")
        }
        let ctx = StatementContext(database: session.database, session: session)
        let q: Query
        switch e.statement {
        case .query(let query): q = query
        case .insert(let ins):
            guard case .query(let query) = ins.source else { throw SQLError.unsupported("EXPLAIN of INSERT ... VALUES") }
            q = query
        case .createTable(let c):
            // CREATE TABLE AS and SELECT ... INTO: the plan of the query that fills the table.
            guard case .query(_, let query) = c.source else { throw SQLError.unsupported("EXPLAIN of CREATE TABLE without AS") }
            q = query
        case .delete(let d):
            // The plan that finds the rows to delete (Redshift shows the same).
            guard let table = try session.resolveTable(d.table) else {
                throw SQLError(.undefinedTable, "relation \"\(d.table.description)\" does not exist")
            }
            ctx.rowIDTable = table.id
            q = DMLCommand(session: session, context: context).deletionQuery(d, table: table)
        case .update(let u):
            guard let table = try session.resolveTable(u.table) else {
                throw SQLError(.undefinedTable, "relation \"\(u.table.description)\" does not exist")
            }
            ctx.rowIDTable = table.id
            q = try DMLCommand(session: session, context: context).updateQuery(u, table: table).0
        default:
            throw SQLError.unsupported("EXPLAIN of this statement")
        }
        var runner = QueryRunner(session, ctx, context)
        var (physical, outputs) = try runner.plan(q)
        if case .query = e.statement, let r = MaterializedViews(session).rewriteWithMaterializedView(q, outputs: outputs) {
            // The plan the query runs: over the materialized view that answers it.
            runner = QueryRunner(session, r.context, context)
            (physical, outputs) = (try runner.plan(r.logical, r.query), r.logical.outputs)
        }
        let lines = e.analyze ? try explainAnalyze(physical, runner, verbose: e.verbose)
            : ExplainPrinter.render(physical, verbose: e.verbose)
        var v = Vector(type: .text, capacity: lines.count)
        for l in lines { v.append(.string(l)) }
        return StatementResult(tag: "EXPLAIN", columns: [ResultColumn(name: "QUERY PLAN", type: .text)],
                               chunks: [Chunk(columns: [v], count: lines.count)])
    }


    func explainAnalyze(_ physical: PhysicalNode, _ runner: QueryRunner, verbose: Bool) throws -> [String] {
        let start = Clock.nowMicros()
        let execution = try runner.execute(physical, .collect, returnsRows: false)
        let executor = execution.executor
        let returned = execution.rows
        let elapsed = Clock.nowMicros() - start

        let positions = QueryExecutor.stepPositions(physical)
        var byStep: [Int: [StepRecord]] = [:]
        for r in executor.steps.steps { byStep[r.stage << 32 | r.step, default: []].append(r) }
        func records(_ n: PhysicalNode) -> [StepRecord] {
            positions[ObjectIdentifier(n)].flatMap { byStep[$0.stage << 32 | $0.step] } ?? []
        }
        var lines = ExplainPrinter.render(physical, verbose: verbose) { node, hidden in
            var out = Self.describe(records(node))
            for h in hidden {
                let moved = records(h)
                guard !moved.isEmpty else { continue }
                let what: String
                if case .exchange(.broadcast) = h.kind { what = "broadcast to every slice" } else { what = "redistributed" }
                out.append("Moved: \(moved.reduce(0) { $0 + $1.metrics.rows }) rows \(what) (\(Self.milliseconds(moved)) ms)")
            }
            return out
        }
        lines.append("Execution: \(returned) row\(returned == 1 ? "" : "s") returned in \(Self.format(Double(elapsed) / 1000)) ms")
        return lines
    }

    /// The `Actual:` and `Slices:` lines of one step's records.
    static func describe(_ records: [StepRecord]) -> [String] {
        guard !records.isEmpty else { return [] }
        let rows = records.reduce(0) { $0 + $1.metrics.rows }
        let memory = records.reduce(0) { $0 + $1.metrics.peakMemory }
        var actual = "Actual: rows=\(rows) time=\(milliseconds(records)) ms"
        if memory > 0 { actual += " memory=\(format(Double(memory) / 1_048_576)) MB" }
        let spilled = records.reduce(0) { $0 + $1.metrics.spilledBytes }
        if spilled > 0 { actual += " spilled=\(format(Double(spilled) / 1_048_576)) MB" }
        var out = [actual]
        let slices = records.filter { $0.slice >= 0 }
        if slices.count > 1 {
            let perSlice = slices.map { $0.metrics.rows }
            let lo = perSlice.min() ?? 0, hi = perSlice.max() ?? 0
            let mean = Double(perSlice.reduce(0, +)) / Double(perSlice.count)
            var line = "Slices: rows min=\(lo) max=\(hi) skew=\(mean > 0 ? format(Double(hi) / mean) : "-")"
            if perSlice.count <= maxListedSlices { line += " by slice [" + perSlice.map(String.init).joined(separator: ",") + "]" }
            out.append(line)
        }
        let read = records.reduce(0) { $0 + $1.metrics.rowsPreFilter }
        let skipped = records.reduce(0) { $0 + $1.metrics.blocksSkipped }
        let blocks = skipped + records.reduce(0) { $0 + $1.metrics.blocksRead }
        if records.first?.label.hasPrefix("scan") ?? false {
            out.append("Scanned: \(read) rows read, \(skipped) of \(blocks) blocks skipped by zone maps")
        }
        return out
    }

    /// Steps on at most this many slices list each slice's rows.
    static let maxListedSlices = 32

    /// The step's own time on its slowest slice, in milliseconds.
    static func milliseconds(_ records: [StepRecord]) -> String {
        format(Double(records.map { $0.metrics.nanos }.max() ?? 0) / 1_000_000)
    }

    static func format(_ x: Double) -> String { String(format: "%.3f", x) }
}
