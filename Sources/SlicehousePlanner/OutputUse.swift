// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan

/// Which output columns of each hash join the plan above it reads.
///
/// A join's output is its probe child's columns then its build child's, and the logical
/// plan prunes columns only at the children: the keys a join matched on, and every
/// column the joins below it carried, travel up to the plan's top. A build side then
/// holds, and every match gathers, columns nothing reads: in TPC-H Q9 the orders join
/// built 14 columns of which 5 are read above it.
///
/// This pass, run on the finished physical plan, marks each hash join's
/// `readOutputs`; the executor's join then stores only the build columns it needs (the
/// ones read above, its keys and its residual's), gathers only the read ones and puts
/// a one-row constant NULL placeholder in the others' places. Positions do not change,
/// so no expression above is rewritten.
///
/// Demands go from the root (which reads everything) down, a node's parents before the
/// node (the plan is a DAG once `SharedSubplans` shares a subtree: a shared node reads
/// what all its parents read). Every operator's own expressions, keys and grouping
/// columns count as reads. Nodes whose column use is not spelled out here (nested loop
/// joins, windows, set operations, unnesting, final aggregates) read all their input.
public enum OutputUse {
    /// `root` with each hash join's `readOutputs` marked.
    public static func assign(_ root: PhysicalNode) -> PhysicalNode {
        // Reverse post-order: every node after all of its parents.
        var order: [PhysicalNode] = []
        var seen = Set<ObjectIdentifier>()
        func post(_ node: PhysicalNode) {
            guard seen.insert(ObjectIdentifier(node)).inserted else { return }
            for c in node.children { post(c) }
            order.append(node)
        }
        post(root)
        var demand: [ObjectIdentifier: Set<Int>] = [ObjectIdentifier(root): Set(0..<root.types.count)]
        var marks: [ObjectIdentifier: [Bool]] = [:]
        for node in order.reversed() {
            let read = demand[ObjectIdentifier(node)] ?? Set(0..<node.types.count)
            if case .hashJoin = node.kind, read.count != node.types.count {
                marks[ObjectIdentifier(node)] = (0..<node.types.count).map { read.contains($0) }
            }
            for (i, need) in childDemands(node, read).enumerated() where i < node.children.count {
                demand[ObjectIdentifier(node.children[i]), default: []].formUnion(need)
            }
        }
        if marks.isEmpty { return root }
        return root.annotated { node in
            guard let mark = marks[ObjectIdentifier(node)] else { return nil }
            var a = node.annotations
            a.readOutputs = mark
            return a
        }
    }

    /// The columns of each child that `node` reads when the plan above reads `read` of
    /// its outputs.
    static func childDemands(_ node: PhysicalNode, _ read: Set<Int>) -> [Set<Int>] {
        let widths = node.children.map { $0.types.count }
        func all(_ i: Int) -> Set<Int> { Set(0..<widths[i]) }
        switch node.kind {
        case .scan, .values:
            return []
        case .filter(let predicate):
            return [read.union(predicate.referencedColumns)]
        case .project(let exprs):
            return [exprs.reduce(into: Set<Int>()) { $0.formUnion($1.referencedColumns) }]
        case .hashJoin(let kind, let probeKeys, let buildKeys, let residual, _, _):
            guard widths.count == 2 else { return widths.indices.map(all) }
            let pw = widths[0]
            var probe = Set(probeKeys), build = Set(buildKeys)
            for c in residual?.referencedColumns ?? [] {
                if c < pw { probe.insert(c) } else { build.insert(c - pw) }
            }
            if kind.keepsProbeOnly {
                probe.formUnion(read)
            } else if kind.keepsBuildOnly {
                build.formUnion(read)
            } else {
                for c in read {
                    if c < pw { probe.insert(c) } else { build.insert(c - pw) }
                }
            }
            return [probe, build]
        case .aggregate(let groups, let aggregates, let phase):
            guard phase != .final, widths.count == 1 else { return widths.indices.map(all) }
            var need = Set(groups)
            for a in aggregates {
                if let c = a.argument { need.insert(c) }
                if let c = a.filter { need.insert(c) }
                for k in a.orderBy { need.insert(k.column) }
            }
            return [need]
        case .sort(let keys, _, _):
            return [read.union(keys.map { $0.column })]
        case .limit:
            return [read]
        case .exchange(let kind):
            if case .redistribute(let keys) = kind { return [read.union(keys)] }
            return [read]
        case .unionAll:
            return widths.map { _ in read }
        case .nestedLoopJoin, .window, .setOperation, .unnest:
            return widths.indices.map(all)
        }
    }
}
