// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan

/// Common subplans computed once.
///
/// A common table expression referenced twice, the same subquery written in two places,
/// the grand total of a ROLLUP read from the same pre-aggregate as its other sets: the
/// binder and optimizer give each occurrence its own logical subtree, and when those
/// come out of physical planning identical (same operators, expressions, positions and
/// distribution; column ids do not matter at this level) there is no reason to compute
/// them twice. This pass finds such subtrees and turns the plan tree into a DAG: every
/// occurrence becomes the one shared node, an exchange (a materialization point). When
/// the shared subtree does not already end in an exchange it gets a `.materialize`
/// exchange, which keeps its partitions as they are. The executor materializes an
/// exchange once however many parents it has (`QueryExecutor.materializeExchanges`).
///
/// Subtrees that call RANDOM() are never shared, nor one that lies between a hash join
/// and a scan its runtime filter would skip blocks of by zone maps (the probe key read
/// from the table's leading sort-key column): the materialization would stop the filter,
/// and the scan would read every block once instead of a few per occurrence (TPC-DS
/// q75's sales joined with Books items, shared by the 2001 and 2002 branches, read all
/// 2.9 M store_sales rows; each year's date join skips four blocks in five alone).
/// Only subtrees that compute something (a join, aggregate, window or set operation)
/// are shared: a bare scan is cheaper to read again than to hold in memory. A filter
/// pushed into one occurrence and not the other makes them differ, so each keeps its own
/// cheaper plan.
public enum SharedSubplans {
    public static func share(_ root: PhysicalNode) -> PhysicalNode {
        var pass = Pass()
        _ = pass.canonical(root)
        pass.refuseAcrossSortKeyFilters(root)
        pass.chooseShared(root)
        return pass.rebuild(root)
    }

    struct Pass {
        /// Canonical number of each node (by identity), equal for identical subtrees.
        var canon: [ObjectIdentifier: Int] = [:]
        var occurrences: [Int: Int] = [:]
        var computes: [Int: Bool] = [:]
        var shared: [Int: PhysicalNode] = [:]
        /// The subtrees computed once.
        var chosen: Set<Int> = []
        /// Subtrees a runtime filter on a sort key passes through (never shared).
        var refused: Set<Int> = []

        /// Mark the subtrees between each eligible hash join and the scans its runtime
        /// filters reach on a table's leading sort-key column (`RuntimeFilters`' rules).
        mutating func refuseAcrossSortKeyFilters(_ root: PhysicalNode) {
            var seen = Set<ObjectIdentifier>()
            func visit(_ node: PhysicalNode) {
                guard seen.insert(ObjectIdentifier(node)).inserted else { return }
                for c in node.children { visit(c) }
                guard case .hashJoin(let kind, let probeKeys, let buildKeys, _, _, _) = node.kind,
                      RuntimeFilters.filtersProbe(kind), node.children.count == 2 else { return }
                let probe = node.children[0], build = node.children[1]
                for (pk, bk) in zip(probeKeys, buildKeys) {
                    guard pk < probe.types.count, bk < build.types.count,
                          RuntimeFilters.comparable(probe.types[pk], build.types[bk]) else { continue }
                    for (scan, column) in RuntimeFilters.scans(reading: pk, of: probe) {
                        guard case .scan(let table, let columns, _, _) = scan.kind, column < columns.count,
                              table.sortKey.first == columns[column] else { continue }
                        var path: [PhysicalNode] = []
                        _ = refusePath(to: scan, from: probe, &path)
                    }
                }
            }
            visit(root)
        }

        /// Refuse every node on the way from `node` down to `target` within one pipeline.
        mutating func refusePath(to target: PhysicalNode, from node: PhysicalNode, _ path: inout [PhysicalNode]) -> Bool {
            path.append(node)
            defer { path.removeLast() }
            if node === target {
                for n in path { if let c = canon[ObjectIdentifier(n)] { refused.insert(c) } }
                return true
            }
            if case .exchange = node.kind { return false }
            for c in node.children where refusePath(to: target, from: c, &path) { return true }
            return false
        }

        /// A subtree repeated only because it lies inside a repeated subtree is not
        /// shared on its own: occurrences are counted reading each shared subtree once,
        /// until the choice stops changing (a nested repeat drops out on the second round).
        mutating func chooseShared(_ root: PhysicalNode) {
            var counts = occurrences
            for _ in 0..<8 {
                let next = Set(counts.filter { $0.value >= 2 && computes[$0.key] == true && !refused.contains($0.key) }.keys)
                if next == chosen { return }
                chosen = next
                counts = [:]
                var seen: Set<Int> = []
                count(root, &counts, &seen)
            }
        }

        func count(_ node: PhysicalNode, _ counts: inout [Int: Int], _ seen: inout Set<Int>) {
            guard let n = canon[ObjectIdentifier(node)] else { return }
            counts[n, default: 0] += 1
            if chosen.contains(n) {
                if seen.contains(n) { return }
                seen.insert(n)
            }
            for c in node.children { count(c, &counts, &seen) }
        }

        /// Per cheap signature (operator, children, shape), the subtrees seen with it,
        /// compared in full (`same`) only when a second node has the same signature.
        var candidates: [String: [(node: PhysicalNode, number: Int)]] = [:]
        var numbered = 0

        mutating func canonical(_ node: PhysicalNode) -> Int {
            let children = node.children.map { canonical($0) }
            var signature = Self.tag(node) + "|\(node.types.count)|\(node.rows)|" + children.map(String.init).joined(separator: ",")
            // Two calls of a volatile function (RANDOM) are two values: never the same subtree.
            if Self.isVolatile(node) { signature += "|\(ObjectIdentifier(node))" }
            var number: Int? = nil
            if var seen = candidates[signature] {
                for k in seen.indices where Self.same(node, seen[k].node) {
                    number = seen[k].number
                    break
                }
                if number == nil {
                    number = newNumber(node, children)
                    seen.append((node, number ?? 0))
                }
                candidates[signature] = seen
            } else {
                number = newNumber(node, children)
                candidates[signature] = [(node, number ?? 0)]
            }
            let n = number ?? 0
            canon[ObjectIdentifier(node)] = n
            occurrences[n, default: 0] += 1
            return n
        }

        mutating func newNumber(_ node: PhysicalNode, _ children: [Int]) -> Int {
            let n = numbered
            numbered += 1
            computes[n] = Self.isComputation(node) || children.contains { computes[$0] == true }
            return n
        }

        /// The operator's name, cheaply (no reflection).
        static func tag(_ node: PhysicalNode) -> String {
            switch node.kind {
            case .scan(let table, let columns, _, _): return "scan \(table.id) \(columns)"
            case .filter: return "filter"
            case .project(let es): return "project \(es.count)"
            case .hashJoin(let k, let pk, let bk, _, _, _): return "hash \(k.rawValue) \(pk) \(bk)"
            case .nestedLoopJoin(let k, _, _, _): return "loop \(k.rawValue)"
            case .aggregate(let g, let a, let phase): return "aggregate \(g) \(a.count) \(phase.rawValue)"
            case .window(let p, _, let f): return "window \(p) \(f.count)"
            case .sort(_, let limit, let offset): return "sort \(limit ?? -1) \(offset)"
            case .limit(let limit, let offset): return "limit \(limit ?? -1) \(offset)"
            case .exchange: return "exchange"
            case .unionAll: return "union"
            case .setOperation(let k, let all): return "setop \(k.rawValue) \(all)"
            case .values(let rows): return "values \(rows.count)"
            case .unnest(let a, let p): return "unnest \(a) \(p)"
            }
        }

        static func isVolatile(_ node: PhysicalNode) -> Bool {
            var exprs: [BoundExpr] = []
            switch node.kind {
            case .scan(_, _, let filter, _): exprs = filter.map { [$0] } ?? []
            case .filter(let e): exprs = [e]
            case .project(let es): exprs = es
            case .hashJoin(_, _, _, let residual, _, _): exprs = residual.map { [$0] } ?? []
            case .nestedLoopJoin(_, let condition, _, _): exprs = condition.map { [$0] } ?? []
            default: return false
            }
            var volatile = false
            for e in exprs {
                _ = e.transform { x in
                    if case .function(let f, _, _) = x, f.isVolatile { volatile = true }
                    return x
                }
            }
            return volatile
        }

        static func isComputation(_ node: PhysicalNode) -> Bool {
            switch node.kind {
            case .hashJoin, .nestedLoopJoin, .aggregate, .window, .setOperation: return true
            case .scan(_, _, let filter?, _):
                // A scan whose filter matches string patterns (LIKE) over every row costs
                // more than holding the few rows it keeps: TPC-H Q9 reads its green parts
                // twice, for the part join and for the IN that restricts partsupp. Not one
                // a runtime filter reaches: the shared rows would be read without it.
                guard node.runtimeFilterTargets.isEmpty else { return false }
                var matches = false
                filter.visit { if case .like = $0 { matches = true } }
                return matches
            default: return false
            }
        }

        /// Whether two nodes whose children are the same subtrees compute the same thing:
        /// the same operator with the same expressions, output types and distribution.
        static func same(_ a: PhysicalNode, _ b: PhysicalNode) -> Bool {
            a.kind == b.kind && a.types == b.types && a.distribution == b.distribution
        }

        /// The tree with every repeated computing subtree replaced by one shared node.
        /// The topmost repeated subtree is shared; what lies under it is rebuilt once.
        mutating func rebuild(_ node: PhysicalNode) -> PhysicalNode {
            guard let number = canon[ObjectIdentifier(node)] else { return node }
            if chosen.contains(number) {
                if let s = shared[number] { return s }
                let children = node.children.map { rebuild($0) }
                let copy = PhysicalNode(node.kind, children: children, types: node.types, names: node.names,
                                        distribution: node.distribution, rows: node.rows, columnIDs: node.columnIDs)
                let s: PhysicalNode
                if case .exchange = node.kind {
                    s = copy
                } else {
                    s = PhysicalNode(.exchange(.materialize), children: [copy], types: node.types, names: node.names,
                                     distribution: node.distribution, rows: node.rows, columnIDs: node.columnIDs)
                }
                shared[number] = s
                return s
            }
            let children = node.children.map { rebuild($0) }
            if zip(children, node.children).allSatisfy({ $0 === $1 }) { return node }
            return PhysicalNode(node.kind, children: children, types: node.types, names: node.names,
                                distribution: node.distribution, rows: node.rows, columnIDs: node.columnIDs)
        }
    }
}
