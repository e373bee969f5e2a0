// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan

/// Runtime filters (join-derived filters): a hash join whose unmatched probe rows
/// produce nothing hands the keys of its build side to the scans below its probe side
/// that read the probe key's column, in the same pipeline. When the build side is
/// complete (in a pull pipeline, before the probe side reads anything) the scan gets
/// their range, which skips blocks by zone maps, and a bitmap that drops rows before
/// the other columns are decoded (`RuntimeKeyFilter`).
///
/// This pass, run on the finished physical plan, only marks the places: each eligible
/// join gets a `RuntimeFilterSpec` per key whose column reaches a scan, each such scan
/// a `RuntimeFilterTarget`. The executor connects them per partition through slots;
/// whatever it cannot connect reads unfiltered, so a mark is never needed for a right
/// answer.
///
/// A key's column is followed down through filters, plain column projections, the
/// grouping keys of aggregates and partition keys of windows (a row dropped there
/// removes only groups or partitions whose key cannot match), the probe side of joins
/// that treat each probe row on its own (inner, left, semi, anti) and the build side of
/// joins whose output never keeps an unmatched probe row's key (inner, right, right
/// semi and anti), and into the branches of a UNION ALL. It stops at an exchange: the
/// rows below it are computed in an earlier stage, before any build side above exists.
/// Keys must be 64-bit integers on both sides (integer, date and timestamp columns).
public enum RuntimeFilters {
    /// `root` with its joins' runtime filters and the scans they reach marked.
    public static func assign(_ root: PhysicalNode) -> PhysicalNode {
        var nextID = 0
        var seen = Set<ObjectIdentifier>()
        var specs: [ObjectIdentifier: [RuntimeFilterSpec]] = [:]
        var targets: [ObjectIdentifier: [RuntimeFilterTarget]] = [:]
        func visit(_ node: PhysicalNode) {
            guard seen.insert(ObjectIdentifier(node)).inserted else { return }
            for c in node.children { visit(c) }
            guard case .hashJoin(let kind, let probeKeys, let buildKeys, _, _, _) = node.kind,
                  filtersProbe(kind), node.children.count == 2 else { return }
            let probe = node.children[0], build = node.children[1]
            for (pk, bk) in zip(probeKeys, buildKeys) {
                guard pk < probe.types.count, bk < build.types.count,
                      comparable(probe.types[pk], build.types[bk]) else { continue }
                let scanTargets = scans(reading: pk, of: probe)
                if scanTargets.isEmpty { continue }
                let id = nextID
                nextID += 1
                specs[ObjectIdentifier(node), default: []].append(RuntimeFilterSpec(id: id, buildKey: bk))
                for (scan, column) in scanTargets {
                    targets[ObjectIdentifier(scan), default: []].append(RuntimeFilterTarget(id: id, column: column))
                }
            }
        }
        visit(root)
        if specs.isEmpty { return root }
        return root.annotated { node in
            let s = specs[ObjectIdentifier(node)], t = targets[ObjectIdentifier(node)]
            guard s != nil || t != nil else { return nil }
            var a = node.annotations
            a.runtimeFilters += s ?? []
            a.runtimeFilterTargets += t ?? []
            return a
        }
    }

    /// Joins whose probe rows without a match produce no output.
    static func filtersProbe(_ kind: PhysicalJoinKind) -> Bool {
        switch kind {
        case .inner, .semi, .right, .rightSemi, .rightAnti: return true
        case .left, .full, .anti: return false
        }
    }

    static func comparable(_ a: DataType, _ b: DataType) -> Bool {
        guard a.physical == .int64, b.physical == .int64 else { return false }
        if a.isInteger && b.isInteger { return true }
        return a == b && !a.isDecimal
    }

    /// The scans (and their output column) whose values reach output column `column` of
    /// `node` unchanged, within `node`'s pipeline.
    static func scans(reading column: Int, of node: PhysicalNode) -> [(PhysicalNode, Int)] {
        guard column >= 0, column < node.types.count else { return [] }
        switch node.kind {
        case .scan(_, let columns, _, _):
            return column < columns.count ? [(node, column)] : []
        case .filter:
            return scans(reading: column, of: node.children[0])
        case .project(let exprs):
            guard case .column(let i, _) = exprs[column] else { return [] }
            return scans(reading: i, of: node.children[0])
        case .aggregate(let groups, _, let phase):
            guard phase != .final, column < groups.count else { return [] }
            return scans(reading: groups[column], of: node.children[0])
        case .window(let partition, _, _):
            guard partition.contains(column) else { return [] }
            return scans(reading: column, of: node.children[0])
        case .hashJoin(let kind, _, _, _, _, _):
            let probeWidth = node.children[0].types.count
            if kind.keepsBuildOnly {
                return kind == .rightSemi || kind == .rightAnti ? scans(reading: column, of: node.children[1]) : []
            }
            if column < probeWidth {
                switch kind {
                case .inner, .left, .semi, .anti: return scans(reading: column, of: node.children[0])
                default: return []
                }
            }
            if kind.keepsProbeOnly { return [] }
            switch kind {
            case .inner, .right: return scans(reading: column - probeWidth, of: node.children[1])
            default: return []
            }
        case .unionAll:
            return node.children.flatMap { scans(reading: column, of: $0) }
        case .unnest:
            // The input's columns pass through; the element and position are new.
            return column < node.children[0].types.count ? scans(reading: column, of: node.children[0]) : []
        case .nestedLoopJoin, .sort, .limit, .exchange, .setOperation, .values:
            return []
        }
    }
}
