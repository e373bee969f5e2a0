// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehouseSQL
import SlicehouseCatalog
import SlicehouseStorage
import SlicehousePlan
import SlicehousePlanner

/// The distribution and sort key advisor (beyond Redshift; docs/ARCHITECTURE.md, "The
/// key advisor"): what to change, and why, measured on the user's own workload.
///
/// It replays the SELECTs of the query log (STL_QUERY, STL_QUERYTEXT) through the
/// optimizer and physical planner under candidate layouts:
/// - **Distribution**: for each table, EVEN, KEY on each column it is equi-joined on,
///   and ALL for a table of at most 1% of the largest one's rows. The planner's own
///   plans price a layout: the bytes its exchanges move (a redistribution moves its
///   input once, a broadcast once per slice). Tables are settled one at a time, largest
///   first, twice over; a change is kept when it saves at least 5% of what the
///   workload moves (an ALL one, which stores a copy per node, 10%).
/// - **Sort key**: for each table the workload reads at least 5% of its blocks from, the
///   column whose filters keep the fewest rows, weighted by the blocks those scans read:
///   sorted on it, zone maps skip all but that share of the blocks (the planner's
///   selectivity estimates). It is recommended when it cuts the table's blocks read by a
///   fifth.
/// Each query gets its predicted effect: bytes moved and blocks read, now and after.
public struct KeyAdvice: Sendable {
    public struct TableChange: Sendable {
        public var table: String
        public var tableID: Int
        public var current: String
        public var recommended: String
        /// The ALTER TABLE statements that apply it.
        public var ddl: [String]
        public var reason: String
    }

    public struct QueryEffect: Sendable {
        /// The latest query id of the text in the log, how many times it ran.
        public var query: Int
        public var runs: Int
        public var text: String
        public var movedBefore: Double
        public var movedAfter: Double
        public var blocksBefore: Double
        public var blocksAfter: Double
        /// What its latest run recorded: bytes its exchanges moved (the steps behind
        /// SVL_QUERY_REPORT labelled dist and bcast) and blocks its scans read (STL_SCAN).
        public var measuredMoved: Double?
        public var measuredBlocks: Double?
    }

    public var changes: [TableChange]
    public var queries: [QueryEffect]
    /// Queries of the log that were replayed (distinct texts), and those left out.
    public var replayed: Int
    public var skipped: Int

    /// The advice as text: the changes with their DDL, then each query's effect.
    public var report: String {
        var out = "Key advisor: \(replayed) distinct queries replayed from the query log"
        if skipped > 0 { out += " (\(skipped) left out: not SELECTs of user tables, or they no longer bind)" }
        out += "\n"
        if changes.isEmpty {
            out += "\nNo change recommended: the tables' keys suit this workload.\n"
        } else {
            out += "\nRecommended changes:\n"
            for c in changes {
                out += "  \(c.table): \(c.current) -> \(c.recommended)\n    why: \(c.reason)\n"
                for d in c.ddl { out += "    \(d);\n" }
            }
        }
        if !queries.isEmpty {
            func mb(_ b: Double) -> String { String(format: "%.1f", b / 1_048_576) }
            out += "\nPredicted effect per query (MB moved between slices, blocks read; measured: its latest run):\n"
            out += "  query     runs  moved measured  now -> after    blocks measured  now -> after   text\n"
            for q in queries {
                let measuredMoved = q.measuredMoved.map { mb($0) } ?? "-"
                let measuredBlocks = q.measuredBlocks.map { String(format: "%.0f", $0) } ?? "-"
                let line = String(format: "  %-9d %4d  %14@ %6@ -> %-7@ %15@ %5.0f -> %-6.0f  %@", q.query, q.runs,
                                  measuredMoved as NSString, mb(q.movedBefore) as NSString, mb(q.movedAfter) as NSString,
                                  measuredBlocks as NSString, q.blocksBefore, q.blocksAfter,
                                  String(q.text.prefix(60)) as NSString)
                out += line + "\n"
            }
            let mBefore = queries.reduce(0) { $0 + $1.movedBefore * Double($1.runs) }
            let mAfter = queries.reduce(0) { $0 + $1.movedAfter * Double($1.runs) }
            let bBefore = queries.reduce(0) { $0 + $1.blocksBefore * Double($1.runs) }
            let bAfter = queries.reduce(0) { $0 + $1.blocksAfter * Double($1.runs) }
            out += String(format: "  workload: %@ MB -> %@ MB moved, %.0f -> %.0f blocks read\n",
                          mb(mBefore) as NSString, mb(mAfter) as NSString, bBefore, bAfter)
        }
        return out
    }
}

/// Table statistics with some tables placed otherwise: the planner asked about a layout
/// the tables do not have.
struct HypotheticalLayout: PlannerContext {
    let base: StatementContext
    let placements: [Int: TablePlacement]
    var sliceCount: Int { base.sliceCount }
    func statistics(_ table: TableDef) -> TableStatistics {
        var s = base.statistics(table)
        if let p = placements[table.id] { s.placement = p }
        return s
    }
}

extension Session {
    /// The SELECTs of the query log, newest last, by text: (latest query id, runs, query).
    func loggedSelects(limit: Int) -> [(query: Int, runs: Int, text: String, parsed: Query)] {
        var pieces: [Int64: [(Int64, String)]] = [:]
        for r in database.logRows(.queryText) {
            guard let q = r[3].asInt64, let seq = r[4].asInt64, let t = r[5].asString else { continue }
            pieces[q, default: []].append((seq, t))
        }
        var byText: [String: (query: Int, runs: Int)] = [:]
        var order: [String] = []
        let queries = database.logRows(.query).filter { $0[9].asInt64 == 0 }.suffix(limit)
        for q in queries {
            guard let id = q[1].asInt64 else { continue }
            let text: String
            if let p = pieces[id] {
                text = p.sorted { $0.0 < $1.0 }.map(\.1).joined().replacingOccurrences(of: "\\n", with: "\n")
            } else {
                text = q[6].asString ?? ""
            }
            if let seen = byText[text] {
                byText[text] = (Int(id), seen.runs + 1)
            } else {
                byText[text] = (Int(id), 1)
                order.append(text)
            }
        }
        return order.compactMap { text in
            guard let seen = byText[text], let parsed = try? MaterializedViews.parseStoredQuery(text, options: parseOptions) else { return nil }
            return (seen.query, seen.runs, text, parsed)
        }
    }

    /// Advice on the keys of the tables the logged workload reads (the latest `limit`
    /// queries of the log).
    public func adviseKeys(limit: Int = 1000) throws -> KeyAdvice {
        guard !advising else { throw SQLError(.featureNotSupported, "the key advisor cannot advise on itself") }
        advising = true
        defer { advising = false }
        let logged = loggedSelects(limit: limit)
        struct Replay {
            var query: Int, runs: Int, text: String
            var logical: LogicalPlan
            var context: StatementContext
        }
        var replays: [Replay] = []
        var skipped = 0
        for l in logged {
            let ctx = StatementContext(database: database, session: self)
            guard let (_, bound) = try? QueryRunner.bind(l.parsed, session: self, scope: ctx), !ctx.readsSessionState,
                  ctx.snapshots.keys.contains(where: { $0 >= 0 }), !ctx.snapshots.keys.contains(where: { $0 < 0 }) else {
                skipped += 1
                continue
            }
            let optimized = Optimizer(context: ctx, evaluateConstant: evaluateConstant).optimize(bound)
            replays.append(Replay(query: l.query, runs: l.runs, text: l.text, logical: optimized, context: ctx))
        }
        let catalog = transaction.catalog
        // The tables the workload reads, and the columns each is equi-joined on.
        var tables: [Int: TableDef] = [:]
        var joinColumns: [Int: Set<Int>] = [:]
        for r in replays {
            let (sources, joins) = Self.joinKeys(r.logical)
            for (_, src) in sources { if let t = catalog.table(id: src.table) { tables[t.id] = t } }
            for (a, b) in joins {
                for id in [a, b] { if let s = sources[id] { joinColumns[s.table, default: []].insert(s.column) } }
            }
        }
        guard !replays.isEmpty else { return KeyAdvice(changes: [], queries: [], replayed: 0, skipped: skipped) }
        var rows: [Int: Int] = [:]
        var current: [Int: TablePlacement] = [:]
        for id in tables.keys {
            guard let snap = transaction.peek(id) else { continue }
            rows[id] = snap.rowCount
            switch snap.distribution {
            case .all: current[id] = .all
            case .even: current[id] = .even
            case .key(let c): current[id] = .key(column: c)
            }
        }
        let largest = rows.values.max() ?? 0

        func moved(_ placements: [Int: TablePlacement], _ r: Replay) -> Double {
            var planner = PhysicalPlanner(context: HypotheticalLayout(base: r.context, placements: placements))
            guard let plan = try? planner.planQuery(r.logical) else { return 0 }
            var bytes = 0.0
            let slices = Double(max(1, database.layout.sliceCount))
            plan.visit { node in
                guard case .exchange(let kind) = node.kind, let child = node.children.first else { return }
                let b = child.rows * Double(max(1, child.width))
                switch kind {
                case .redistribute: bytes += b
                case .broadcast: bytes += b * slices
                case .gather, .materialize: break
                }
            }
            return bytes
        }
        func total(_ placements: [Int: TablePlacement]) -> Double {
            replays.reduce(0) { $0 + moved(placements, $1) * Double($1.runs) }
        }

        // Distribution: each table in turn, largest first, twice over.
        var best = current
        var bestCost = total(best)
        let order = tables.keys.sorted { (rows[$0] ?? 0, $1) > (rows[$1] ?? 0, $0) }
        for _ in 0..<2 {
            for id in order {
                var candidates: [TablePlacement] = [.even]
                for c in (joinColumns[id] ?? []).sorted() { candidates.append(.key(column: c)) }
                // ALL keeps a copy per node and repeats the table's work on every slice: only
                // for small tables.
                if (rows[id] ?? 0) * 100 <= largest { candidates.append(.all) }
                for candidate in candidates where candidate != best[id] {
                    var trial = best
                    trial[id] = candidate
                    let cost = total(trial)
                    let needed = candidate == .all ? 0.10 : 0.05
                    if cost < bestCost - needed * max(bestCost, 1) {
                        best = trial
                        bestCost = cost
                    }
                }
            }
        }

        // Sort keys: per table, the column whose filters would leave the fewest blocks to read.
        var sortChoice: [Int: Int] = [:]
        let allScans = replays.map { r in (r, Self.scans(r.logical, r.context)) }
        var nowBlocks: [Int: Double] = [:]
        var filtered: [Int: Set<Int>] = [:]
        for (r, scans) in allScans {
            for scan in scans {
                nowBlocks[scan.table, default: 0] += scan.blocks * scan.fraction(sortedOn: tables[scan.table]?.sortKey.first)
                    * Double(r.runs)
                filtered[scan.table, default: []].formUnion(scan.selectivity.keys)
            }
        }
        let workloadBlocks = nowBlocks.values.reduce(0, +)
        for (table, columns) in filtered.sorted(by: { $0.key < $1.key }) {
            // A table the workload reads little of is not worth sorting again.
            guard let def = tables[table], (nowBlocks[table] ?? 0) >= workloadBlocks * 0.05 else { continue }
            let now = nowBlocks[table] ?? 0
            var bestColumn: Int?
            var bestBlocks = now
            for c in columns.sorted() {
                var blocks = 0.0
                for (r, scans) in allScans {
                    for scan in scans where scan.table == table { blocks += scan.blocks * scan.fraction(sortedOn: c) * Double(r.runs) }
                }
                if blocks < bestBlocks {
                    bestBlocks = blocks
                    bestColumn = c
                }
            }
            if let c = bestColumn, c != def.sortKey.first, bestBlocks < now * 0.8 { sortChoice[table] = c }
        }

        // What changes, and why.
        var changes: [KeyAdvice.TableChange] = []
        for id in order {
            guard let def = tables[id] else { continue }
            let name = def.schema == Catalog.publicSchema ? def.name : "\(def.schema).\(def.name)"
            var ddl: [String] = []
            var now: [String] = [], next: [String] = [], why: [String] = []
            if let p = best[id], p != current[id] {
                now.append(Self.describe(current[id] ?? .even, def))
                next.append(Self.describe(p, def))
                switch p {
                case .key(let c):
                    ddl.append("ALTER TABLE \(name) ALTER DISTKEY \(def.columns[c].name)")
                    why.append("joins on \(def.columns[c].name) run on the slices that hold the rows")
                case .all:
                    ddl.append("ALTER TABLE \(name) ALTER DISTSTYLE ALL")
                    why.append("a copy on every node: joins with it move nothing")
                case .even:
                    ddl.append("ALTER TABLE \(name) ALTER DISTSTYLE EVEN")
                    why.append("no join gains from its key")
                }
            }
            if let c = sortChoice[id] {
                now.append(def.sortKey.isEmpty ? "no SORTKEY" : "SORTKEY(\(def.sortKey.map { def.columns[$0].name }.joined(separator: ", ")))")
                next.append("SORTKEY(\(def.columns[c].name))")
                ddl.append("ALTER TABLE \(name) ALTER SORTKEY (\(def.columns[c].name))")
                why.append("filters on \(def.columns[c].name) let zone maps skip most blocks")
            }
            if ddl.isEmpty { continue }
            changes.append(KeyAdvice.TableChange(table: name, tableID: id, current: now.joined(separator: ", "),
                                                 recommended: next.joined(separator: ", "), ddl: ddl,
                                                 reason: why.joined(separator: "; ")))
        }
        // Each query's predicted effect, beside what its latest run recorded.
        var measuredMoved: [Int64: Double] = [:], measuredBlocks: [Int64: Double] = [:]
        for s in database.logRows(.steps) {
            guard let q = s[0].asInt64, let label = s[6].asString, label == "dist" || label == "bcast" else { continue }
            measuredMoved[q, default: 0] += Double(s[9].asInt64 ?? 0)
        }
        for s in database.logRows(.scan) {
            guard let q = s[0].asInt64 else { continue }
            measuredBlocks[q, default: 0] += Double(s[4].asInt64 ?? 0)
        }
        var effects: [KeyAdvice.QueryEffect] = []
        for (r, scans) in allScans {
            var before = 0.0, after = 0.0
            for scan in scans {
                before += scan.blocks * scan.fraction(sortedOn: tables[scan.table]?.sortKey.first)
                after += scan.blocks * scan.fraction(sortedOn: sortChoice[scan.table] ?? tables[scan.table]?.sortKey.first)
            }
            effects.append(KeyAdvice.QueryEffect(query: r.query, runs: r.runs,
                                                 text: r.text.replacingOccurrences(of: "\n", with: " "),
                                                 movedBefore: moved(current, r), movedAfter: moved(best, r),
                                                 blocksBefore: before, blocksAfter: after,
                                                 measuredMoved: measuredMoved[Int64(r.query)] ?? (measuredBlocks[Int64(r.query)] != nil ? 0 : nil),
                                                 measuredBlocks: measuredBlocks[Int64(r.query)]))
        }
        return KeyAdvice(changes: changes, queries: effects, replayed: replays.count, skipped: skipped)
    }

    static func describe(_ p: TablePlacement, _ def: TableDef) -> String {
        switch p {
        case .even: return "DISTSTYLE EVEN"
        case .all: return "DISTSTYLE ALL"
        case .key(let c): return "DISTKEY(\(c < def.columns.count ? def.columns[c].name : "?"))"
        }
    }

    /// The base table column each scan output id reads, and the pairs of ids equi-joined.
    static func joinKeys(_ plan: LogicalPlan) -> (sources: [Int: (table: Int, column: Int)], joins: [(Int, Int)]) {
        var sources: [Int: (table: Int, column: Int)] = [:]
        var joins: [(Int, Int)] = []
        func walk(_ p: LogicalPlan) {
            switch p {
            case .scan(let t, _, let columns, let outputs, _):
                for (c, o) in zip(columns, outputs) where t.id >= 0 { sources[o.id] = (t.id, c) }
            case .join(_, _, _, let condition):
                for c in conjuncts(condition) {
                    if case .binary(.equal, .column(let a, _), .column(let b, _), _) = c { joins.append((a, b)) }
                }
            default:
                break
            }
            _ = p.mapChildren { c in walk(c); return c }
        }
        walk(plan)
        return (sources, joins)
    }

    /// A scan of the workload: the blocks its columns have, and its filters by column.
    struct ScanShape {
        var table: Int
        var blocks: Double
        /// Selectivity of the filters on each single column (by table column).
        var selectivity: [Int: Double]
        var filteredColumns: [Int] { selectivity.keys.sorted() }
        /// Share of the blocks read when the table is sorted on `column` (zone maps skip
        /// what its filters exclude); all of them otherwise.
        func fraction(sortedOn column: Int?) -> Double {
            guard let column, let s = selectivity[column] else { return 1 }
            return max(0.001, min(1, s))
        }
    }

    static func scans(_ plan: LogicalPlan, _ ctx: StatementContext) -> [ScanShape] {
        var out: [ScanShape] = []
        func walk(_ p: LogicalPlan) {
            if case .scan(let t, _, let columns, let outputs, let filters) = p, t.id >= 0, let snap = ctx.snapshots[t.id] {
                var blocks = 0
                for s in snap.slices { for c in columns where c < s.columns.count { blocks += s.columns[c].count } }
                var byID: [Int: Int] = [:]
                for (c, o) in zip(columns, outputs) { byID[o.id] = c }
                let stats = ctx.statistics(t)
                var statsByID: [Int: ColumnStatistics] = [:]
                for (id, c) in byID { if let s = stats.columns[c] { statsByID[id] = s } }
                var perColumn: [Int: [BoundExpr]] = [:]
                for f in filters.flatMap({ conjuncts($0) }) {
                    let refs = f.referencedColumns
                    guard refs.count == 1, let id = refs.first, let c = byID[id] else { continue }
                    perColumn[c, default: []].append(f)
                }
                var selectivity: [Int: Double] = [:]
                for (c, fs) in perColumn { selectivity[c] = Selectivity.of(fs, statsByID) }
                out.append(ScanShape(table: t.id, blocks: Double(blocks), selectivity: selectivity))
            }
            _ = p.mapChildren { c in walk(c); return c }
        }
        walk(plan)
        return out
    }
}
