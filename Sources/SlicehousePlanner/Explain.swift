// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan
import SlicehouseFunctions

/// Renders a physical plan the way Redshift's EXPLAIN does:
/// `XN <operator>  (cost=a..b rows=n width=w)` lines with `->` children and
/// indented detail lines (join labels, hash conditions, filters, sort keys).
/// Exchanges below a join are implied by its DS_* label, as in Redshift.
public enum ExplainPrinter {
    /// `verbose` (EXPLAIN VERBOSE): each step also lists the columns it outputs.
    /// `annotate` (EXPLAIN ANALYZE): lines shown under each step after its details, given
    /// the step and the exchanges below it that its label stands for.
    public static func render(_ root: PhysicalNode, verbose: Bool = false,
                              annotate: ((PhysicalNode, [PhysicalNode]) -> [String])? = nil) -> [String] {
        var lines: [String] = []
        var shared = SharedNumbers(root)
        shared.verbose = verbose
        shared.annotate = annotate
        shared.resultNames = root.names
        emit(root, depth: 0, into: &lines, &shared)
        return lines
    }

    /// Numbers for the nodes with several parents (`SharedSubplans`): the first place
    /// prints the subtree, later places refer to it by number.
    struct SharedNumbers {
        var parents: [ObjectIdentifier: Int] = [:]
        var numbers: [ObjectIdentifier: Int] = [:]
        /// EXPLAIN VERBOSE: print each step's output columns.
        var verbose = false
        /// EXPLAIN ANALYZE: what each step did.
        var annotate: ((PhysicalNode, [PhysicalNode]) -> [String])?
        /// The statement's column names, which the first step printed outputs (the
        /// projections and the final send to the leader above it are not printed).
        var resultNames: [String] = []
        init(_ root: PhysicalNode) { count(root) }
        mutating func count(_ node: PhysicalNode) {
            for c in node.children {
                let id = ObjectIdentifier(c)
                parents[id, default: 0] += 1
                if parents[id] == 1 { count(c) }
            }
        }
        func isShared(_ node: PhysicalNode) -> Bool { (parents[ObjectIdentifier(node)] ?? 0) > 1 }
    }

    static func cost(_ node: PhysicalNode) -> Double {
        // Projections are folded into their input (not shown), so they add nothing.
        let own: Double
        if case .project = node.kind { own = 0 } else { own = node.rows * 0.01 }
        return node.children.reduce(own) { $0 + cost($1) }
    }

    static func fixed2(_ d: Double) -> String {
        let v = Int64((d * 100).rounded())
        let frac = v % 100
        return "\(v / 100)." + (frac < 10 ? "0" : "") + "\(frac)"
    }

    static func header(_ title: String, _ node: PhysicalNode) -> String {
        let total = cost(node)
        let start = node.children.reduce(0.0) { $0 + cost($1) }
        // Redshift prices a sort whose rows go to the leader at 10^12, and every step above
        // it; other steps, leader or not, cost what they cost.
        let leaderBase: Double = containsSort(node) ? 1_000_000_000_000 : 0
        return "\(title)  (cost=\(fixed2(leaderBase + start))..\(fixed2(leaderBase + total)) rows=\(Int64(node.rows.rounded())) width=\(node.width))"
    }

    static func containsSort(_ node: PhysicalNode) -> Bool {
        if case .sort = node.kind { return true }
        return node.children.contains { containsSort($0) }
    }

    /// Skip exchanges whose data movement is shown by the parent's label.
    static func shown(_ child: PhysicalNode, _ shared: SharedNumbers) -> PhysicalNode {
        if shared.isShared(child) { return child }
        if case .exchange(let k) = child.kind, k != .gather, k != .materialize, let c = child.children.first { return c }
        return child
    }

    static func emit(_ node: PhysicalNode, depth: Int, into lines: inout [String], _ shared: inout SharedNumbers) {
        let prefix = depth == 0 ? "" : String(repeating: " ", count: 6 * (depth - 1) + 2) + "->  "
        let detailIndent = String(repeating: " ", count: depth == 0 ? 2 : 6 * depth + 2)
        // The final send of the rows to the leader is not a step of Redshift's plans; it
        // shows only under a Merge, where it is one (`XN Network  Send to leader`).
        if depth == 0, case .exchange(.gather) = node.kind, !shared.isShared(node), let c = node.children.first {
            emit(c, depth: 0, into: &lines, &shared)
            return
        }
        var details: [String] = []
        var children = node.children
        let title: String
        func names(_ i: Int) -> [String] { node.children[i].names }
        if shared.isShared(node) {
            if let n = shared.numbers[ObjectIdentifier(node)] {
                lines.append(prefix + header("XN Shared Subplan \(n)", node))
                return
            }
            let n = shared.numbers.count + 1
            shared.numbers[ObjectIdentifier(node)] = n
            details.append("Shared Subplan \(n): computed once, read by \(shared.parents[ObjectIdentifier(node)] ?? 0) parents")
        }
        // An external table's scan (and a partial aggregate right above it) is the
        // Spectrum layer's: Redshift's S3 plan shape.
        if details.isEmpty, let (scan, aggregate) = externalScan(node) {
            emitExternal(scan, aggregate: aggregate, depth: depth, into: &lines, shared)
            return
        }
        switch node.kind {
        case .scan(let table, _, let filter, let mode):
            title = "XN Seq Scan on \(table.name)"
            if let filter { details.append("Filter: \(describe(filter, node.names))") }
            if !node.runtimeFilterTargets.isEmpty {
                var keys: [String] = []
                for t in node.runtimeFilterTargets where t.column < node.names.count && !keys.contains(node.names[t.column]) {
                    keys.append(node.names[t.column])
                }
                details.append("Runtime Filter: \(keys.joined(separator: ", ")) (from hash join build keys)")
            }
            if mode == .replicated { details.append("Distribution: ALL (node copy)") }
        case .filter(let p):
            title = "XN Filter"
            details.append("Filter: \(describe(p, names(0)))")
        case .project:
            // Projections are folded into their input, as in Redshift's plans.
            if let c = node.children.first { emit(c, depth: depth, into: &lines, &shared) }
            return
        case .hashJoin(let kind, let pk, let bk, let residual, let label, _):
            let kindText: String
            switch kind {
            case .inner: kindText = "Hash Join"
            case .left: kindText = "Hash Left Join"
            case .right: kindText = "Hash Right Join"
            case .full: kindText = "Hash Full Join"
            case .semi: kindText = "Hash IN Join"
            case .anti: kindText = "Hash NOT IN Join"
            case .rightSemi: kindText = "Hash Right Semi Join"
            case .rightAnti: kindText = "Hash Right Anti Join"
            }
            title = "XN \(kindText) \(label.rawValue)"
            let pn = names(0), bn = names(1)
            let conds = zip(pk, bk).map { "(\"outer\".\(pn[$0]) = \"inner\".\(bn[$1]))" }
            details.append("Hash Cond: " + (conds.count == 1 ? conds[0] : "(" + conds.joined(separator: " AND ") + ")"))
            if let residual { details.append("Join Filter: \(describe(residual, pn + bn))") }
            children = [shown(node.children[0], shared), node.children[1]]
        case .nestedLoopJoin(let kind, let cond, let label, _):
            title = "XN Nested Loop \(label.rawValue)" + (kind == .inner ? "" : " (\(kind.rawValue))")
            if let cond { details.append("Join Filter: \(describe(cond, names(0) + names(1)))") }
            children = [shown(node.children[0], shared), shown(node.children[1], shared)]
        case .aggregate(let groups, _, let phase):
            title = groups.isEmpty ? "XN Aggregate" : "XN HashAggregate"
            if phase != .single { details.append("Phase: \(phase.rawValue)") }
            if let coding = GroupKeyCoding.plan(node) {
                // Text keys grouped by the codes their joins give them.
                let coded = coding.sources.compactMap { source -> String? in
                    guard case .coded(let j, _, let c) = source, j < coding.joins.count,
                          c < coding.joins[j].names.count else { return nil }
                    return coding.joins[j].names[c]
                }
                details.append("Coded Keys: " + coded.joined(separator: ", "))
            }
        case .window(let partition, let order, let functions):
            title = "XN Window"
            let n = names(0)
            if !partition.isEmpty { details.append("Partition: " + partition.map { $0 < n.count ? n[$0] : "#\($0)" }.joined(separator: ", ")) }
            if !order.isEmpty {
                details.append("Order: " + order.map { ($0.column < n.count ? n[$0.column] : "#\($0.column)") + ($0.ascending ? "" : " DESC") }.joined(separator: ", "))
            }
            details.append("Functions: " + functions.map { $0.kind.rawValue }.joined(separator: ", "))
        case .sort(let keys, let limit, _):
            let keyText = keys.map { k in
                let n = k.column < node.names.count ? node.names[k.column] : "#\(k.column)"
                return n + (k.ascending ? "" : " DESC")
            }.joined(separator: ", ")
            if node.distribution == .single, case .exchange(.gather) = node.children[0].kind {
                title = limit != nil ? "XN Limit" : "XN Merge"
                details.append("Merge Key: \(keyText)")
            } else {
                title = limit != nil ? "XN Top-N Sort" : "XN Sort"
                details.append("Sort Key: \(keyText)")
            }
        case .limit:
            title = "XN Limit"
        case .exchange(let k):
            title = k == .materialize ? "XN Materialize" : "XN Network"
            switch k {
            case .gather: details.append("Send to leader")
            case .broadcast: details.append("Broadcast")
            case .redistribute(let cols):
                details.append("Distribute by: " + cols.map { $0 < node.names.count ? node.names[$0] : "#\($0)" }.joined(separator: ", "))
            case .materialize:
                break
            }
        case .unionAll:
            title = "XN Append"
        case .setOperation(let k, let all):
            title = "XN SetOp \(k.rawValue.capitalized)" + (all ? " All" : "")
        case .values:
            title = "XN Result"
        case .unnest(let array, _):
            title = "XN Unnest"
            details.append("Array: \(describe(array, names(0)))")
        }
        lines.append(prefix + header(title, node))
        if shared.verbose {
            // A hash join lists the columns it produces: the ones the plan above reads.
            let names = depth == 0 && shared.resultNames.count == node.names.count ? shared.resultNames : node.names
            let outputs = names.enumerated()
                .filter { node.readOutputs.count != names.count || node.readOutputs[$0.offset] }
                .map { $0.element.isEmpty || $0.element == "?column?" ? "#\($0.offset)" : $0.element }
            details.insert("Output: " + outputs.joined(separator: ", "), at: 0)
        }
        for d in details { lines.append(detailIndent + d) }
        if let annotate = shared.annotate {
            // A join's label stands for the exchanges below it, which are not printed.
            var hidden: [PhysicalNode] = []
            switch node.kind {
            case .hashJoin, .nestedLoopJoin:
                hidden = node.children.filter { shown($0, shared) !== $0 }
            default:
                break
            }
            for a in annotate(node, hidden) { lines.append(detailIndent + a) }
        }
        if case .hashJoin = node.kind {
            emit(children[0], depth: depth + 1, into: &lines, &shared)
            // The build side is shown under an XN Hash node, as in Redshift.
            let build = shown(children[1], shared)
            let hashPrefix = String(repeating: " ", count: 6 * depth + 2) + "->  "
            lines.append(hashPrefix + header("XN Hash", build))
            emit(build, depth: depth + 2, into: &lines, &shared)
            return
        }
        for c in children { emit(c, depth: depth + 1, into: &lines, &shared) }
    }

    /// `node` as the Spectrum layer's work: an external table's scan, or a partial
    /// aggregate whose input is one (through projections).
    static func externalScan(_ node: PhysicalNode) -> (scan: PhysicalNode, aggregate: PhysicalNode?)? {
        func scanBelow(_ n: PhysicalNode) -> PhysicalNode? {
            switch n.kind {
            case .scan(let t, _, _, _): return t.external == nil ? nil : n
            case .project: return n.children.first.flatMap(scanBelow)
            default: return nil
            }
        }
        switch node.kind {
        case .scan(let t, _, _, _) where t.external != nil:
            return (node, nil)
        case .aggregate(_, _, let phase) where phase == .partial:
            return node.children.first.flatMap(scanBelow).map { ($0, node) }
        default:
            return nil
        }
    }

    /// `XN S3 Query Scan t` over `S3 [Hash]Aggregate` (when pushed down) over
    /// `S3 Seq Scan schema.t location:"…" format:…` with its filter; a partitioned table's
    /// under `XN Partition Loop`, beside the scan of its partitions' values
    /// (`XN Seq Scan PartitionInfo of schema.t`) with the filter's partition conjuncts.
    static func emitExternal(_ scan: PhysicalNode, aggregate: PhysicalNode?, depth: Int, into lines: inout [String],
                             _ shared: SharedNumbers) {
        guard case .scan(let table, let columns, let filter, _) = scan.kind, let external = table.external else { return }
        func prefix(_ d: Int) -> String { d == 0 ? "" : String(repeating: " ", count: 6 * (d - 1) + 2) + "->  " }
        func indent(_ d: Int) -> String { String(repeating: " ", count: d == 0 ? 2 : 6 * d + 2) }
        let top = aggregate ?? scan
        var d = depth
        let dataColumns = table.columns.count - external.pseudoColumns - external.partitionColumns
        let partitionPositions = Set(columns.indices.filter {
            columns[$0] >= dataColumns && columns[$0] < dataColumns + external.partitionColumns
        })
        let parts = conjuncts(filter)
        let onPartitions = parts.filter { !$0.referencedColumns.isEmpty && $0.referencedColumns.isSubset(of: partitionPositions) }
        if external.partitionColumns > 0 {
            lines.append(prefix(d) + header("XN Partition Loop", top))
            lines.append(prefix(d + 1) + "XN Seq Scan PartitionInfo of \(table.schema).\(table.name)  (cost=0.00..0.01 rows=1 width=4)")
            if let f = BoundExpr.conjunction(onPartitions) {
                lines.append(indent(d + 1) + "Filter: \(describe(f, scan.names))")
            }
            d += 1
        }
        lines.append(prefix(d) + header("XN S3 Query Scan \(table.name)", top))
        d += 1
        if let aggregate, case .aggregate(let groups, _, _) = aggregate.kind {
            lines.append(prefix(d) + header(groups.isEmpty ? "S3 Aggregate" : "S3 HashAggregate", aggregate))
            for a in shared.annotate?(aggregate, []) ?? [] { lines.append(indent(d) + a) }
            d += 1
        }
        lines.append(prefix(d) + header("S3 Seq Scan \(table.schema).\(table.name) location:\"\(external.location)\" format:\(external.formatName)", scan))
        let rest = parts.filter { c in !onPartitions.contains(c) }
        if let f = BoundExpr.conjunction(rest) { lines.append(indent(d) + "Filter: \(describe(f, scan.names))") }
        if !scan.runtimeFilterTargets.isEmpty {
            var keys: [String] = []
            for t in scan.runtimeFilterTargets where t.column < scan.names.count && !keys.contains(scan.names[t.column]) {
                keys.append(scan.names[t.column])
            }
            lines.append(indent(d) + "Runtime Filter: \(keys.joined(separator: ", ")) (from hash join build keys)")
        }
        for a in shared.annotate?(scan, []) ?? [] { lines.append(indent(d) + a) }
    }

    /// SQL-like text of an expression over columns named `names`.
    public static func describe(_ e: BoundExpr, _ names: [String]) -> String {
        func d(_ e: BoundExpr) -> String { describe(e, names) }
        switch e {
        case .column(let i, _): return i < names.count ? names[i] : "#\(i)"
        case .constant(let v, let t):
            guard let text = v.asString ?? v.formatted(as: t) else { return "NULL" }
            switch t {
            case .char, .varchar: return "'\(text)'::\(t.isString && t != .text ? (t.sqlName.hasPrefix("char") ? "bpchar" : "character varying") : "text")"
            case .date: return "'\(text)'::date"
            case .timestamp: return "'\(text)'::timestamp without time zone"
            case .boolean: return text == "t" ? "true" : "false"
            default: return text
            }
        case .cast(let x, let t): return "(\(d(x)))::\(t.sqlName)"
        case .unary(let op, let x, _): return op == .not ? "(NOT \(d(x)))" : "(-\(d(x)))"
        case .binary(let op, let a, let b, _): return "(\(d(a)) \(op.rawValue) \(d(b)))"
        case .and(let ps): return "(" + ps.map(d).joined(separator: " AND ") + ")"
        case .or(let ps): return "(" + ps.map(d).joined(separator: " OR ") + ")"
        case .isNull(let x, let n): return "(\(d(x)) IS \(n ? "NOT " : "")NULL)"
        case .inList(let x, let l, let n): return "(\(d(x)) \(n ? "NOT " : "")IN (" + l.map(d).joined(separator: ", ") + "))"
        case .caseWhen(let ws, let el, _):
            var s = "CASE"
            for w in ws { s += " WHEN \(d(w.condition)) THEN \(d(w.result))" }
            if let el { s += " ELSE \(d(el))" }
            return s + " END"
        case .like(let x, let p, let ci, let n, _):
            return "(\(d(x)) \(n ? "!" : "")\(ci ? "~~*" : "~~") \(d(p)))"
        case .function(let f, let args, _):
            // Redshift compares VARCHAR values without trailing blanks and shows no call for it.
            if f === Builtins.internals.withoutTrailingBlanks, args.count == 1 { return d(args[0]) }
            return "\(f.name)(" + args.map(d).joined(separator: ", ") + ")"
        }
    }
}
