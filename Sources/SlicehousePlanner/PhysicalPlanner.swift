// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan
import SlicehouseCatalog

/// Turns a logical plan into a distributed physical plan.
///
/// Every physical node knows how its output is distributed (`Distribution`).
/// Exchanges are inserted only where a parent needs another distribution:
/// joins pick Redshift's strategies (DS_DIST_NONE when both sides are already
/// hashed on the join key, DS_DIST_ALL_NONE against an ALL table, otherwise
/// redistribute one or both sides or broadcast a small inner side);
/// aggregates run in two phases (per slice, then final after redistribution);
/// sorts run per slice and merge on the leader.
public struct PhysicalPlanner {
    let context: PlannerContext
    var nextSyntheticID = -1
    /// The optimizer's estimates (row counts, groups, key joins), one instance so that its
    /// memo serves the whole plan.
    let estimator: Optimizer

    public init(context: PlannerContext) {
        self.context = context
        estimator = Optimizer(context: context, evaluateConstant: { _ in .null })
    }

    /// Plan `plan` so its rows end on the leader, columns in `plan.outputs` order.
    public mutating func planQuery(_ plan: LogicalPlan) throws -> PhysicalNode {
        var node = try self.plan(plan, replicateAll: false)
        if node.distribution != .single { node = exchange(node, .gather) }
        let root = SharedSubplans.share(try reorder(node, to: plan.outputs))
        // The passes over the finished plan each return a new plan; none changes one.
        return OutputUse.assign(RuntimeFilters.assign(root))
    }

    // MARK: - Helpers

    mutating func syntheticID() -> Int {
        nextSyntheticID -= 1
        return nextSyntheticID
    }

    func positions(_ node: PhysicalNode) -> [Int: Int] {
        var m: [Int: Int] = [:]
        for (i, id) in node.columnIDs.enumerated() where m[id] == nil { m[id] = i }
        return m
    }

    /// Rewrite a logical expression (column ids) to positions in `node`'s output.
    func bind(_ e: BoundExpr, to node: PhysicalNode) throws -> BoundExpr {
        let pos = positions(node)
        var missing: Int?
        let r = e.remapColumns { id in
            if let p = pos[id] { return p }
            missing = id
            return 0
        }
        if let missing { throw SQLError.internalError("column #\(missing) not available to the plan") }
        return r
    }

    func exchange(_ node: PhysicalNode, _ kind: ExchangeKind) -> PhysicalNode {
        let dist: Distribution
        switch kind {
        case .gather: dist = .single
        case .broadcast: dist = .replicated
        case .redistribute(let keys): dist = .hashed(keys)
        case .materialize: dist = node.distribution
        }
        return PhysicalNode(.exchange(kind), children: [node], types: node.types, names: node.names,
                            distribution: dist, rows: node.rows, columnIDs: node.columnIDs)
    }

    /// A projection producing exactly `outputs` (by id), in order, when needed.
    func reorder(_ node: PhysicalNode, to outputs: [PlanColumn]) throws -> PhysicalNode {
        if node.columnIDs == outputs.map({ $0.id }) { return node }
        let exprs = try outputs.map { try bind(.column($0.id, $0.type), to: node) }
        return project(node, exprs, ids: outputs.map { $0.id }, names: outputs.map { $0.name })
    }

    func project(_ node: PhysicalNode, _ exprs: [BoundExpr], ids: [Int], names: [String]) -> PhysicalNode {
        // A hashed distribution survives when its columns are passed through.
        var dist = node.distribution
        if case .hashed(let cols) = node.distribution {
            var mapped: [Int] = []
            for c in cols {
                if let i = exprs.firstIndex(where: { if case .column(c, _) = $0 { return true }; return false }) {
                    mapped.append(i)
                }
            }
            dist = mapped.count == cols.count ? .hashed(mapped) : .random
        }
        return PhysicalNode(.project(exprs), children: [node], types: exprs.map { $0.type }, names: names,
                            distribution: dist, rows: node.rows, columnIDs: ids)
    }

    /// Ensure `exprs` are available as columns of `node`: plain column references map to
    /// their positions; other expressions are appended by a projection.
    mutating func materialize(_ exprs: [BoundExpr], on node: PhysicalNode) throws -> (PhysicalNode, [Int]) {
        var bound = try exprs.map { try bind($0, to: node) }
        // Integer widening casts keep the physical value: use the column itself.
        bound = bound.map { e in
            if case .cast(let inner, let t) = e, case .column = inner, t.isInteger, inner.type.isInteger { return inner }
            return e
        }
        var result: [Int] = []
        var extra: [BoundExpr] = []
        for e in bound {
            if case .column(let p, _) = e { result.append(p); continue }
            result.append(node.types.count + extra.count)
            extra.append(e)
        }
        if extra.isEmpty { return (node, result) }
        let passthrough = node.types.enumerated().map { BoundExpr.column($0.offset, $0.element) }
        var ids = node.columnIDs
        for _ in extra { ids.append(syntheticID()) }
        let p = project(node, passthrough + extra, ids: ids, names: node.names + extra.map { _ in "?column?" })
        return (p, result)
    }

    // MARK: - Planning

    /// True when `plan` only reads one ALL table through filters and projections,
    /// so it can be read replicated (each slice its node's copy).
    func isReplicable(_ plan: LogicalPlan) -> Bool {
        switch plan {
        case .scan(let t, _, _, _, _): return context.statistics(t).placement == .all
        case .filter(let p, _), .project(let p, _, _): return isReplicable(p)
        default: return false
        }
    }

    mutating func plan(_ plan: LogicalPlan, replicateAll: Bool) throws -> PhysicalNode {
        switch plan {
        case .scan(let table, _, let columns, let outputs, let filters):
            let stats = context.statistics(table)
            let ids = outputs.map { $0.id }
            let types = outputs.map { $0.type }
            let posOf = Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($1, $0) })
            let filter: BoundExpr? = filters.isEmpty ? nil
                : (filters.count == 1 ? filters[0] : .and(filters)).remapColumns { posOf[$0] ?? 0 }
            let mode: ScanMode
            let dist: Distribution
            switch stats.placement {
            case .all:
                mode = replicateAll ? .replicated : .oneCopy
                dist = replicateAll ? .replicated : .random
            case .even:
                mode = .perSlice; dist = .random
            case .key(let col):
                mode = .perSlice
                if let p = columns.firstIndex(of: col) { dist = .hashed([p]) } else { dist = .random }
            }
            let rows = Double(stats.rows) * Selectivity.of(filters, stats.byOutput(columns: columns, ids: ids))
            return PhysicalNode(.scan(table: table, columns: columns, filter: filter, mode: mode), children: [],
                                types: types, names: outputs.map { $0.name }, distribution: dist,
                                rows: max(1, rows), columnIDs: ids)

        case .filter(let input, let pred):
            let child: PhysicalNode
            if case .window(let windowInput, let windows) = input {
                child = try planWindow(windowInput, windows, rankLimits: Self.rankLimits(pred, of: windows))
            } else {
                child = try self.plan(input, replicateAll: replicateAll)
            }
            let p = try bind(pred, to: child)
            // A condition on an aggregate's results (HAVING) is estimated from their ranges.
            let results = estimator.aggregateStatistics(input)
            let kept = results.isEmpty ? Selectivity.of([pred]) : Selectivity.of([pred], results)
            return PhysicalNode(.filter(p), children: [child], types: child.types, names: child.names,
                                distribution: child.distribution, rows: max(1, child.rows * kept),
                                columnIDs: child.columnIDs)

        case .project(let input, let exprs, let outputs):
            let child = try self.plan(input, replicateAll: replicateAll)
            let bound = try Self.passHashedColumns(exprs, of: child).map { try bind($0, to: child) }
            return project(child, bound, ids: outputs.map { $0.id }, names: outputs.map { $0.name })

        case .join(let kind, let left, let right, let condition):
            return try planJoin(kind, left, right, condition)

        case .aggregate(let input, let groups, let groupOutputs, let aggregates):
            return try planAggregate(input, groups, groupOutputs, aggregates)

        case .sort(let input, let keys):
            return try planSort(input, keys, limit: nil, offset: 0)

        case .limit(let input, let limit, let offset):
            if case .sort(let sInput, let keys) = input {
                return try planSort(sInput, keys, limit: limit, offset: offset)
            }
            // The projection that drops ORDER BY's hidden columns (`ORDER BY a - b` not in
            // the select list) sits between LIMIT and its sort. A projection maps row to
            // row, so the limit moves below it onto the sort: each slice then keeps only
            // its best rows (Top-N) instead of sorting them all for the leader to merge.
            if case .project(let pInput, let exprs, let outputs) = input, case .sort = pInput {
                return try self.plan(.project(.limit(pInput, limit: limit, offset: offset), exprs, outputs: outputs),
                                     replicateAll: false)
            }
            var child = try self.plan(input, replicateAll: false)
            if child.distribution != .single {
                if let limit {
                    let perSlice = Self.rowsThrough(limit, offset)
                    child = PhysicalNode(.limit(perSlice, offset: 0), children: [child], types: child.types,
                                         names: child.names, distribution: child.distribution,
                                         rows: min(child.rows, Double(perSlice)), columnIDs: child.columnIDs)
                }
                child = exchange(child, .gather)
            }
            return PhysicalNode(.limit(limit, offset: offset), children: [child], types: child.types, names: child.names,
                                distribution: .single, rows: min(child.rows, Double(limit ?? Int(child.rows))),
                                columnIDs: child.columnIDs)

        case .window(let input, let windows):
            return try planWindow(input, windows)

        case .distinct(let input):
            let outs = input.outputs
            let fresh = outs.map { PlanColumn(id: $0.id, type: $0.type, name: $0.name) }
            return try planAggregate(input, outs.map { .column($0.id, $0.type) }, fresh, [], keepIDs: true)

        case .setOperation(let kind, let all, let l, let r, let outputs):
            return try planSetOperation(kind, all, l, r, outputs)

        case .unnest(let input, let array, let element, let position):
            // Row by row on whatever slice holds the row: the input's columns keep their
            // places (and so its distribution); the element and position follow them.
            let child = try self.plan(input, replicateAll: replicateAll)
            let bound = try bind(array, to: child)
            let added = [element] + (position.map { [$0] } ?? [])
            return PhysicalNode(.unnest(array: bound, withPosition: position != nil), children: [child],
                                types: child.types + added.map { $0.type }, names: child.names + added.map { $0.name },
                                distribution: child.distribution, rows: max(1, child.rows * 4),
                                columnIDs: child.columnIDs + added.map { $0.id })

        case .values(let rows, let outputs):
            var values: [[Value]] = []
            for row in rows {
                var vs: [Value] = []
                for e in row {
                    guard case .constant(let v, _) = e else {
                        throw SQLError.unsupported("non-constant expression in VALUES")
                    }
                    vs.append(v)
                }
                values.append(vs)
            }
            return PhysicalNode(.values(values), children: [], types: outputs.map { $0.type }, names: outputs.map { $0.name },
                                distribution: .single, rows: Double(rows.count), columnIDs: outputs.map { $0.id })
        }
    }

    // MARK: Joins

    mutating func planJoin(_ kind: LogicalJoinKind, _ left: LogicalPlan, _ right: LogicalPlan,
                           _ condition: BoundExpr?) throws -> PhysicalNode {
        // Split the condition into equi-key pairs and a residual.
        let leftIDs = left.outputIDs, rightIDs = right.outputIDs
        var leftKeys: [BoundExpr] = [], rightKeys: [BoundExpr] = []
        var residual: [BoundExpr] = []
        for c in conjuncts(condition) {
            if let (l, r) = equiKey(c, leftIDs, rightIDs) { leftKeys.append(l); rightKeys.append(r) } else { residual.append(c) }
        }

        // Which logical side probes and which builds.
        var probeSide = left, buildSide = right
        var probeKeyExprs = leftKeys, buildKeyExprs = rightKeys
        var pkind: PhysicalJoinKind
        switch kind {
        case .inner, .cross: pkind = .inner
        case .left: pkind = .left
        case .right: pkind = .left; swap(&probeSide, &buildSide); swap(&probeKeyExprs, &buildKeyExprs)
        case .full: pkind = .full
        case .semi: pkind = .semi
        case .anti, .antiNullAware: pkind = .anti
        case .leftSingle: pkind = .left
        }
        let nullAware = kind == .antiNullAware
        let singleRow = kind == .leftSingle

        var probe = try self.plan(probeSide, replicateAll: false)
        // An ALL table is read on every node only when the other side is spread over the
        // slices; against rows on the leader (VALUES, generate_series) one copy is read and
        // gathered — every node's copy gathered would repeat each row once per node.
        let buildReplicable = isReplicable(buildSide) && pkind != .full && probe.distribution != .single
        var build = try self.plan(buildSide, replicateAll: buildReplicable)
        // Inner joins build on the smaller side (unless the larger one is an ALL table read replicated).
        if pkind == .inner && !buildReplicable && build.rows > probe.rows {
            swap(&probeSide, &buildSide); swap(&probeKeyExprs, &buildKeyExprs)
            probe = try self.plan(probeSide, replicateAll: false)
            build = try self.plan(buildSide, replicateAll: isReplicable(buildSide) && probe.distribution != .single)
        }
        // An inner join against an ALL table four times the other side's rows or more (the
        // whole date dimension against 170 filtered web sales, TPC-DS q76) builds on the
        // small side, each slice on its own rows, and reads the ALL table's copy past them:
        // the build side's keys then filter that scan (zone maps, then a bitmap before the
        // other columns are decoded), where otherwise a hash table of the whole ALL table
        // is built. Only when such a runtime filter reaches the scan: without one, every
        // slice would probe every row of the ALL table.
        if pkind == .inner && buildReplicable && probe.rows * 4 <= build.rows
            && probe.distribution != .replicated && probe.distribution != .single
            && runtimeFilterReaches(build, buildKeyExprs, from: probe, probeKeyExprs) {
            swap(&probeSide, &buildSide); swap(&probeKeyExprs, &buildKeyExprs)
            swap(&probe, &build)
        }
        // A semi/anti or left join whose preserved side is the smaller one builds on it and
        // streams the other side past it (right semi / right anti / right join), instead of
        // building a hash table over the large side.
        if (pkind == .semi || pkind == .anti || pkind == .left) && !nullAware && !singleRow && !probeKeyExprs.isEmpty
            && probe.rows * 2 <= build.rows && probe.distribution != .replicated {
            swap(&probeSide, &buildSide); swap(&probeKeyExprs, &buildKeyExprs)
            pkind = pkind == .semi ? .rightSemi : (pkind == .anti ? .rightAnti : .right)
            let preserved = probe
            probe = try self.plan(probeSide, replicateAll: false)
            build = preserved
        }

        let residualExpr: BoundExpr? = residual.isEmpty ? nil : (residual.count == 1 ? residual[0] : .and(residual))
        var rows = estimateJoinRows(pkind, probe, build, hasKeys: !probeKeyExprs.isEmpty)
        if pkind == .inner && !probeKeyExprs.isEmpty {
            // A join on a key of one side's table (its distinct count, from ANALYZE, is about
            // the table's rows) keeps at most the other side's share of the key's values: a
            // fact table joined to a dozen filtered items keeps a dozen items' rows, not the
            // fact table's, so the joins above build on the small side (TPC-DS q82, q37: not
            // on store_sales). Other joins (on a week number, say) keep the larger side's
            // count: their distinct counts after filters and joins are not known.
            let optimizer = estimator
            if optimizer.joinsOnAKey(left, right, condition) {
                rows = max(1, min(rows, optimizer.estimate(.join(.inner, left, right, condition: condition))))
            }
        } else if pkind == .semi && !probeKeyExprs.isEmpty {
            // An IN or EXISTS keeps at most the share of its table the inner side keeps
            // (`o_orderkey IN (SELECT l_orderkey ... HAVING sum(l_quantity) > 300)`: a few
            // orders, not half of them), as the join order took it.
            rows = max(1, min(rows, estimator.estimate(.join(.semi, left, right, condition: condition))))
        }

        if probeKeyExprs.isEmpty {
            // No equality keys: nested loop against a broadcast (or leader-local) inner side.
            var label = JoinDistributionLabel.broadcastInner
            if probe.distribution == .single {
                if build.distribution != .single { build = exchange(build, .gather) }
            } else if build.distribution == .replicated {
                label = .allNone
            } else if pkind == .full || pkind == .right {
                probe = exchange(probe, .gather); build = exchange(build, .gather)
            } else {
                build = exchange(build, .broadcast)
            }
            let combined = PhysicalNode(.nestedLoopJoin(pkind, condition: nil, label: label, singleRow: singleRow), children: [probe, build],
                                        types: [], names: [], distribution: .random, rows: 0, columnIDs: probe.columnIDs + build.columnIDs)
            let cond = try residualExpr.map { try bind($0, to: combined) }
            let outIDs = (pkind == .semi || pkind == .anti) ? probe.columnIDs : probe.columnIDs + build.columnIDs
            let types = (pkind == .semi || pkind == .anti) ? probe.types : probe.types + build.types
            let names = (pkind == .semi || pkind == .anti) ? probe.names : probe.names + build.names
            let dist: Distribution = probe.distribution == .single ? .single
                : (pkind == .full ? .single : (pkind == .inner || pkind == .left || pkind == .semi || pkind == .anti ? probe.distribution : .random))
            return PhysicalNode(.nestedLoopJoin(pkind, condition: cond, label: label, singleRow: singleRow), children: [probe, build],
                                types: types, names: names, distribution: dist == .replicated ? .random : dist,
                                rows: rows, columnIDs: outIDs)
        }

        var probeKeys: [Int], buildKeys: [Int]
        (probe, probeKeys) = try materialize(probeKeyExprs, on: probe)
        (build, buildKeys) = try materialize(buildKeyExprs, on: build)

        // Choose the data movement (Redshift's DS_* strategies).
        let sliceCount = Double(context.sliceCount)
        var label: JoinDistributionLabel
        func hashedKeyIndex(_ node: PhysicalNode, _ keys: [Int]) -> Int? {
            guard case .hashed(let cols) = node.distribution, cols.count == 1 else { return nil }
            if let i = keys.firstIndex(of: cols[0]) { return i }
            // A key equal in every row to the column the rows are hashed on (the other key
            // of an inner join below) places them as that column does.
            return keys.firstIndex { Self.sameValues(node, cols[0], $0) }
        }
        let pk = hashedKeyIndex(probe, probeKeys), bk = hashedKeyIndex(build, buildKeys)
        // Bytes moved, not rows: broadcasting a wide table costs more than moving a narrow one.
        let probeWidth = Double(max(1, probe.width)), buildWidth = Double(max(1, build.width))
        if probe.distribution == .single {
            if build.distribution != .single { build = exchange(build, .gather) }
            label = .broadcastInner
        } else if nullAware && build.distribution != .replicated {
            // NOT IN must see every inner NULL on every slice.
            build = exchange(build, .broadcast)
            label = .broadcastInner
        } else if build.distribution == .replicated && !pkind.preservesBuild {
            label = .allNone
        } else if probe.distribution == .replicated && pkind == .inner {
            // An ALL table's copy read past each slice's own build rows (see above).
            label = .allNone
        } else if let pk, let bk, pk == bk {
            label = .none
        } else if let pk {
            build = exchange(build, .redistribute([buildKeys[pk]]))
            label = .distInner
        } else if let bk, pkind.preservesBuild || probe.rows * probeWidth <= build.rows * buildWidth * sliceCount {
            // Moving the outer side once is cheaper than copying the inner side to every slice.
            probe = exchange(probe, .redistribute([probeKeys[bk]]))
            label = .distOuter
        } else if !pkind.preservesBuild && build.rows * buildWidth * sliceCount <= probe.rows * probeWidth + build.rows * buildWidth {
            build = exchange(build, .broadcast)
            label = .broadcastInner
        } else {
            probe = exchange(probe, .redistribute([probeKeys[0]]))
            build = exchange(build, .redistribute([buildKeys[0]]))
            label = .distBoth
        }

        let semiLike = pkind.keepsProbeOnly
        let allIDs = probe.columnIDs + build.columnIDs
        let shell = PhysicalNode(.filter(.constant(.null, .boolean)), children: [], types: probe.types + build.types,
                                 names: [], distribution: .random, rows: 0, columnIDs: allIDs)
        let residualBound = try residualExpr.map { try bind($0, to: shell) }
        var dist = probe.distribution
        if pkind == .inner && label == .distOuter, case .hashed(let cols) = build.distribution {
            // The probe side moved to the build side's partitioning: describe the output by
            // the build side's key (equal to the probe's in every output row), which the
            // operators above are likelier to group or join on.
            dist = .hashed(cols.map { probe.types.count + $0 })
        }
        // A full join of rows on the leader (both sides gathered, above) runs once there: on
        // every slice each would add its own copy of the unmatched rows.
        if pkind == .full { dist = probe.distribution == .single ? .single : .random }
        if pkind == .inner && probe.distribution == .replicated {
            // Each output row carries a build row of its own slice.
            if case .hashed(let cols) = build.distribution { dist = .hashed(cols.map { probe.types.count + $0 }) } else { dist = .random }
        }
        if pkind.preservesBuild && pkind != .full {
            // Every output row carries a build row of its own partition.
            switch build.distribution {
            case .hashed(let cols): dist = .hashed(pkind.keepsBuildOnly ? cols : cols.map { probe.types.count + $0 })
            case .single: dist = .single
            default: dist = .random
            }
        }
        if dist == .replicated { dist = .random }
        let types = semiLike ? probe.types : (pkind.keepsBuildOnly ? build.types : probe.types + build.types)
        let names = semiLike ? probe.names : (pkind.keepsBuildOnly ? build.names : probe.names + build.names)
        let ids = semiLike ? probe.columnIDs : (pkind.keepsBuildOnly ? build.columnIDs : allIDs)
        return PhysicalNode(.hashJoin(pkind, probeKeys: probeKeys, buildKeys: buildKeys, residual: residualBound,
                                      label: label, nullAware: nullAware),
                            children: [probe, build],
                            types: types, names: names, distribution: dist, rows: rows, columnIDs: ids)
    }

    /// Whether the keys of `small` would filter a scan below `all` at run time (see
    /// `RuntimeFilters`): some key pair is a plain column on each side, of types a runtime
    /// filter compares, and `all`'s column reaches a scan in its pipeline.
    func runtimeFilterReaches(_ all: PhysicalNode, _ allKeys: [BoundExpr], from small: PhysicalNode,
                              _ smallKeys: [BoundExpr]) -> Bool {
        let ap = positions(all), sp = positions(small)
        for (a, s) in zip(allKeys, smallKeys) {
            guard case .column(let aid, _) = a, case .column(let sid, _) = s, let i = ap[aid], let j = sp[sid],
                  i < all.types.count, j < small.types.count,
                  RuntimeFilters.comparable(all.types[i], small.types[j]) else { continue }
            if !RuntimeFilters.scans(reading: i, of: all).isEmpty { return true }
        }
        return false
    }

    /// True when output columns `a` and `b` of `node` hold the same value in every row (or
    /// are both NULL), so rows hashed on one are hashed on the other: an inner join with
    /// keys `x = y` below makes x and y equal, and joins, filters, projections, exchanges,
    /// sorts, limits, windows and aggregates above keep them so. Other operators (unions,
    /// VALUES) end the search. Both columns must have one type and one position each.
    static func sameValues(_ node: PhysicalNode, _ a: Int, _ b: Int) -> Bool {
        let ids = node.columnIDs
        guard a >= 0, b >= 0, a < ids.count, b < ids.count, a < node.types.count, b < node.types.count,
              node.types[a] == node.types[b] else { return false }
        let x = ids[a], y = ids[b]
        if x == y { return false }
        guard ids.lazy.filter({ $0 == x }).count == 1, ids.lazy.filter({ $0 == y }).count == 1 else { return false }
        // Equal pairs of column ids from the inner joins below, then the class of x.
        var edges: [Int: [Int]] = [:]
        var stack = [node]
        while let n = stack.popLast() {
            switch n.kind {
            case .hashJoin(let kind, let probeKeys, let buildKeys, _, _, _):
                if kind == .inner, n.children.count == 2 {
                    let p = n.children[0], q = n.children[1]
                    for (i, j) in zip(probeKeys, buildKeys) where i >= 0 && i < p.columnIDs.count && j >= 0
                        && j < q.columnIDs.count && i < p.types.count && j < q.types.count && p.types[i] == q.types[j] {
                        edges[p.columnIDs[i], default: []].append(q.columnIDs[j])
                        edges[q.columnIDs[j], default: []].append(p.columnIDs[i])
                    }
                }
                stack.append(contentsOf: n.children)
            case .filter, .project, .exchange, .sort, .limit, .window, .aggregate, .nestedLoopJoin:
                stack.append(contentsOf: n.children)
            case .scan, .unionAll, .setOperation, .values, .unnest:
                break
            }
        }
        var seen: Set<Int> = [x]
        var queue = [x]
        while let c = queue.popLast() {
            for d in edges[c] ?? [] where !seen.contains(d) {
                if d == y { return true }
                seen.insert(d)
                queue.append(d)
            }
        }
        return false
    }

    func estimateJoinRows(_ kind: PhysicalJoinKind, _ probe: PhysicalNode, _ build: PhysicalNode, hasKeys: Bool) -> Double {
        if !hasKeys { return max(1, probe.rows * build.rows * 0.25) }
        switch kind {
        case .semi, .anti: return max(1, probe.rows * 0.5)
        case .rightSemi, .rightAnti: return max(1, build.rows * 0.5)
        case .right: return max(build.rows, 1)
        case .left: return max(probe.rows, 1)
        case .full: return probe.rows + build.rows
        default: return max(1, max(probe.rows, build.rows))
        }
    }

    // MARK: Aggregation

    mutating func planAggregate(_ input: LogicalPlan, _ groups: [BoundExpr], _ groupOutputs: [PlanColumn],
                                _ aggregates: [LogicalAggregate], keepIDs: Bool = false) throws -> PhysicalNode {
        var child = try self.plan(input, replicateAll: false)
        // Lay out the input as (group keys..., aggregate arguments...), each key that
        // equals a column the input is hashed on read as that column (below).
        let keys = Self.passHashedColumns(groups, of: child)
        var exprs = try keys.map { try bind($0, to: child) }
        var boundAggs: [BoundAggregate] = []
        for a in aggregates {
            var argIndex: Int? = nil
            var argType: DataType? = nil
            var filterIndex: Int? = nil
            if let (condition, value) = Self.filteredArgument(a) {
                // SUM(CASE WHEN c THEN x END): SUM(x) over the rows where c holds.
                argIndex = exprs.count
                argType = value.type
                exprs.append(try bind(value, to: child))
                filterIndex = exprs.count
                exprs.append(try bind(condition, to: child))
            } else if let arg = a.argument {
                argIndex = exprs.count
                argType = arg.type
                exprs.append(try bind(arg, to: child))
            }
            var orderKeys: [AggregateOrderKey] = []
            for k in a.orderBy {
                orderKeys.append(AggregateOrderKey(column: exprs.count, type: k.expr.type, ascending: k.ascending,
                                                   nullsFirst: k.nullsFirst))
                exprs.append(try bind(k.expr, to: child))
            }
            boundAggs.append(BoundAggregate(function: a.function, argument: argIndex, argumentType: argType,
                                            distinct: a.distinct, resultType: a.output.type,
                                            parameters: a.parameters, orderBy: orderKeys, filter: filterIndex))
        }
        let g = groups.count
        let inputIDs = exprs.indices.map { _ in syntheticID() }
        child = project(child, exprs, ids: inputIDs, names: exprs.map { _ in "?column?" })
        let groupPositions = Array(0..<g)
        let outIDs = groupOutputs.map { $0.id } + aggregates.map { $0.output.id }
        let outTypes = groupOutputs.map { $0.type } + aggregates.map { $0.output.type }
        let outNames = groupOutputs.map { $0.name } + aggregates.map { $0.output.name }
        // A tenth of the input, or fewer when ANALYZE's distinct counts of the group columns
        // say so (`Optimizer.groupsAtMost`).
        let groupBound = g == 0 ? 1 : estimator.groupsAtMost(groups, of: input)
        let groupRows = g == 0 ? 1 : max(1, min(child.rows, child.rows * 0.1 + 1, groupBound))

        func finalNode(_ c: PhysicalNode, _ phase: AggregatePhase, _ dist: Distribution) -> PhysicalNode {
            PhysicalNode(.aggregate(groups: groupPositions, aggregates: boundAggs, phase: phase), children: [c],
                         types: outTypes, names: outNames, distribution: dist, rows: groupRows, columnIDs: outIDs)
        }

        if child.distribution == .single {
            return finalNode(child, .single, .single)
        }
        if case .hashed(let cols) = child.distribution, g > 0, cols.allSatisfy({ $0 < g }) {
            return finalNode(child, .single, .hashed(cols))
        }
        // DISTINCT and ordered-set aggregates (MEDIAN, PERCENTILE_*, LISTAGG) have no
        // mergeable partial state: bring each group's rows together, aggregate once.
        // APPROXIMATE COUNT(DISTINCT) runs in two phases: per-slice sketches merge.
        if boundAggs.contains(where: { $0.needsSinglePhase }) || child.distribution == .replicated {
            if g > 0 && child.distribution != .replicated {
                return finalNode(exchange(child, .redistribute(groupPositions)), .single, .hashed(groupPositions))
            }
            return finalNode(exchange(child, .gather), .single, .single)
        }
        // Two phases: partial per slice, exchange, final.
        var partialTypes = groupOutputs.map { $0.type }
        for a in boundAggs { partialTypes.append(contentsOf: HashAggregateLayout.partialStateTypes(a)) }
        let partialIDs = partialTypes.indices.map { _ in syntheticID() }
        let partial = PhysicalNode(.aggregate(groups: groupPositions, aggregates: boundAggs, phase: .partial),
                                   children: [child], types: partialTypes,
                                   names: partialTypes.map { _ in "?column?" }, distribution: child.distribution,
                                   rows: groupRows * Double(context.sliceCount), columnIDs: partialIDs)
        if g > 0 {
            return finalNode(exchange(partial, .redistribute(groupPositions)), .final, .hashed(groupPositions))
        }
        return finalNode(exchange(partial, .gather), .final, .single)
    }

    /// `(c, x)` when `a` is COUNT, SUM, AVG, MIN or MAX (not DISTINCT) of `CASE WHEN c THEN
    /// x END` (or `ELSE NULL`), x of the CASE's type: the rows where c is not TRUE give the
    /// aggregate a NULL, which it ignores, so it is the aggregate of x over the rows where
    /// c holds. TPC-DS q59's seven `SUM(CASE WHEN d_day_name = 'Sunday' THEN ss_sales_price
    /// ELSE NULL END)` computed seven CASEs a row; filtered, each sum folds a seventh of
    /// the rows and no CASE is computed.
    static func filteredArgument(_ a: LogicalAggregate) -> (condition: BoundExpr, value: BoundExpr)? {
        switch a.function {
        case .count, .sum, .avg, .min, .max: break
        default: return nil
        }
        guard !a.distinct, a.orderBy.isEmpty,
              case .caseWhen(let whens, let otherwise, let type)? = a.argument, whens.count == 1,
              whens[0].result.type == type, whens[0].condition.type == .boolean else { return nil }
        switch otherwise {
        case nil: break
        case .constant(.null, _)?: break
        default: return nil
        }
        return (whens[0].condition, whens[0].result)
    }

    /// `exprs` (a projection's, or a GROUP BY's keys, over `child`) with each plain column
    /// that holds the same value in every row as a column `child` is hashed on
    /// (`sameValues`: the two keys of an inner join below), of a type whose equal values
    /// are the same value, read as that column: the values are the same, and when every
    /// hashed column is read so the hashing survives. A GROUP BY over it then aggregates in
    /// one phase without an exchange (`GROUP BY i_item_sk` over `inventory JOIN item ON
    /// inv_item_sk = i_item_sk`, inventory hashed on inv_item_sk). `exprs` unchanged
    /// otherwise.
    static func passHashedColumns(_ exprs: [BoundExpr], of child: PhysicalNode) -> [BoundExpr] {
        guard case .hashed(let cols) = child.distribution, !exprs.isEmpty, !cols.isEmpty else { return exprs }
        var out = exprs
        for col in cols {
            guard col < child.columnIDs.count, col < child.types.count else { return exprs }
            let id = child.columnIDs[col], type = child.types[col]
            if out.contains(where: { if case .column(id, _) = $0 { return true }; return false }) { continue }
            guard equalMeansSame(type), let k = out.indices.first(where: {
                guard case .column(let other, let t) = out[$0], t == type,
                      let at = child.columnIDs.firstIndex(of: other) else { return false }
                return sameValues(child, col, at)
            }) else { return exprs }
            out[k] = .column(id, type)
        }
        return out
    }

    /// Types whose equal values are the same value (not strings: CHAR compares equal
    /// whatever its trailing blanks; not floating point: 0.0 = -0.0).
    static func equalMeansSame(_ t: DataType) -> Bool {
        switch t {
        case .smallint, .integer, .bigint, .decimal, .boolean, .date, .timestamp, .timestamptz, .time: return true
        default: return false
        }
    }

    // MARK: Window functions

    /// One window operator per distinct (PARTITION BY, ORDER BY); each slice gets whole
    /// partitions (redistributed by the partition keys, or everything on the leader).
    ///
    /// `rankLimits`: window outputs (by id) that a filter above keeps only up to a bound
    /// (`rk <= 100`, `rownum < 11`). A group of ranking functions only (ROW_NUMBER, RANK,
    /// DENSE_RANK) with such a bound is ranked first within each slice, before its rows
    /// move, and a row ranked past the bound there is dropped: its rank over all slices can
    /// only be higher (the rows ahead of it on its slice are ahead of it everywhere), and
    /// every row it could displace is ahead of it, so the rows that pass the filter and
    /// their ranks are the same (`localRankFilter`). TPC-DS q67 sent 505 K rows to the
    /// leader to keep 100 per category.
    mutating func planWindow(_ input: LogicalPlan, _ windows: [LogicalWindow],
                             rankLimits: [Int: Int64] = [:]) throws -> PhysicalNode {
        var node = try self.plan(input, replicateAll: false)
        var groups: [(partition: [BoundExpr], order: [LogicalSortKey], members: [LogicalWindow])] = []
        for w in windows {
            if let i = groups.firstIndex(where: { $0.partition == w.partitionBy && $0.order == w.orderBy }) {
                groups[i].members.append(w)
            } else {
                groups.append((w.partitionBy, w.orderBy, [w]))
            }
        }
        for (index, g) in groups.enumerated() {
            var args: [BoundExpr] = []
            for w in g.members { if let a = w.argument { args.append(a) } }
            let keys = g.partition + g.order.map { $0.expr } + args
            var positions: [Int]
            (node, positions) = try materialize(keys, on: node)
            let partCols = Array(positions[0..<g.partition.count])
            let orderCols = Array(positions[g.partition.count..<(g.partition.count + g.order.count)])
            var argCols = Array(positions[(g.partition.count + g.order.count)...])
            let order = zip(g.order, orderCols).map { PhysicalSortKey(column: $1, ascending: $0.ascending, nullsFirst: $0.nullsFirst) }
            // Only the last group's rows may be cut: a group computed after it would read
            // fewer rows (a SUM over the partition).
            let limit = index == groups.count - 1 ? Self.rankLimit(of: g.members, rankLimits) : nil
            if partCols.isEmpty {
                if node.distribution != .single {
                    node = localRankFilter(node, partition: partCols, order: order, limit)
                    node = exchange(node, .gather)
                }
            } else if node.distribution == .replicated {
                node = exchange(node, .gather)
            } else if node.distribution != .single {
                var colocated = false
                if case .hashed(let cols) = node.distribution, cols.allSatisfy({ partCols.contains($0) }) { colocated = true }
                if !colocated {
                    node = localRankFilter(node, partition: partCols, order: order, limit)
                    node = exchange(node, .redistribute(partCols))
                }
            }
            var functions: [BoundWindowFunction] = []
            for w in g.members {
                var arg: Int? = nil
                if w.argument != nil { arg = argCols.removeFirst() }
                functions.append(BoundWindowFunction(kind: w.kind, argument: arg, argumentType: w.argument?.type,
                                                     parameter: w.parameter, defaultValue: w.defaultValue,
                                                     ignoreNulls: w.ignoreNulls, frame: w.frame, resultType: w.output.type))
            }
            node = PhysicalNode(.window(partition: partCols, order: order, functions: functions), children: [node],
                                types: node.types + g.members.map { $0.output.type },
                                names: node.names + g.members.map { $0.output.name },
                                distribution: node.distribution, rows: node.rows,
                                columnIDs: node.columnIDs + g.members.map { $0.output.id })
        }
        // Only the input's columns and the window results go on.
        let outs = input.outputs + windows.map { $0.output }
        return try reorder(node, to: outs)
    }

    /// The bound a filter puts on a group of window functions' ranks: the group must be
    /// ranking functions only (any other function, PERCENT_RANK or a running SUM, reads
    /// the rows a local filter would drop) with an ORDER BY, and at least one of them bounded.
    static func rankLimit(of members: [LogicalWindow], _ limits: [Int: Int64]) -> (LogicalWindow, Int64)? {
        guard !members.isEmpty, !members[0].orderBy.isEmpty,
              members.allSatisfy({ [.rowNumber, .rank, .denseRank].contains($0.kind) }) else { return nil }
        return members.compactMap { m in limits[m.output.id].map { (m, $0) } }.min { $0.1 < $1.1 }
    }

    /// Upper bounds `pred`'s conjuncts put on window outputs: `w <= k`, `w < k`, `k >= w`,
    /// `k > w` with an integer constant k, by the output's id.
    static func rankLimits(_ pred: BoundExpr, of windows: [LogicalWindow]) -> [Int: Int64] {
        let ranked = Set(windows.filter { [.rowNumber, .rank, .denseRank].contains($0.kind) }.map { $0.output.id })
        guard !ranked.isEmpty else { return [:] }
        var conjuncts = [pred]
        if case .and(let parts) = pred { conjuncts = parts }
        func column(_ e: BoundExpr) -> Int? {
            switch e {
            case .column(let id, _) where ranked.contains(id): return id
            case .cast(.column(let id, let t), let wide) where ranked.contains(id) && t.isInteger && wide.isInteger: return id
            default: return nil
            }
        }
        var limits: [Int: Int64] = [:]
        for c in conjuncts {
            guard case .binary(let op, let l, let r, _) = c else { continue }
            var (op2, x, k) = (op, l, r)
            if column(x) == nil { (op2, x, k) = (op.flipped, r, l) }
            guard let id = column(x), case .constant(.int(let v), let kt) = k, kt.isInteger else { continue }
            let bound: Int64
            switch op2 {
            case .lessEqual: bound = v
            case .less: bound = v == .min ? v : v - 1
            default: continue
            }
            limits[id] = min(limits[id] ?? .max, bound)
        }
        return limits
    }

    /// The rows of `node` a slice keeps when only ranks up to `bound`'s are wanted: ranked
    /// by the bounded function within the slice, by the window's partition and order (RANK
    /// and DENSE_RANK are never lower over all slices; a row past a ROW_NUMBER bound there
    /// has `limit` rows ahead of it or tied with it, enough to fill the bound, and which of
    /// tied rows get the last numbers is not defined), those past the bound dropped, the
    /// rank column projected away. Unchanged without a limit, or when the slices hold too
    /// few rows for the filter to pay for its sort (`parallelRowsMin`).
    mutating func localRankFilter(_ node: PhysicalNode, partition: [Int], order: [PhysicalSortKey],
                                  _ bound: (LogicalWindow, Int64)?) -> PhysicalNode {
        guard let (ranking, limit) = bound, limit >= 1, limit <= Self.localRankMaxLimit,
              node.rows >= max(Double(limit) * 4, Self.parallelRowsMin) else { return node }
        let rank = BoundWindowFunction(kind: ranking.kind, argument: nil, argumentType: nil,
                                       frame: ranking.frame, resultType: .bigint)
        let width = node.types.count
        let ranked = PhysicalNode(.window(partition: partition, order: order, functions: [rank]), children: [node],
                                  types: node.types + [.bigint], names: node.names + ["?column?"],
                                  distribution: node.distribution, rows: node.rows,
                                  columnIDs: node.columnIDs + [syntheticID()])
        let keep = BoundExpr.binary(.lessEqual, .column(width, .bigint), .constant(.int(limit), .bigint), .boolean)
        let filtered = PhysicalNode(.filter(keep), children: [ranked], types: ranked.types, names: ranked.names,
                                    distribution: ranked.distribution, rows: max(1, min(node.rows, Double(limit) * 64)),
                                    columnIDs: ranked.columnIDs)
        let columns = node.types.enumerated().map { BoundExpr.column($0.offset, $0.element) }
        return project(filtered, columns, ids: node.columnIDs, names: node.names)
    }

    /// The largest bound ranked within slices first: past it, the sort per slice holds as
    /// many rows as the window's own would.
    static let localRankMaxLimit: Int64 = 10_000
    /// Rows (estimated) below which the leader handles a union's or a window's rows as
    /// fast as the slices would after another step and exchange: TPC-DS q44's 12.6 K rows
    /// ranked within slices first and q86's 55 spread to the slices both ran slower.
    static let parallelRowsMin: Double = 32_768

    // MARK: Sort

    /// Rows a slice must keep to serve LIMIT `limit` OFFSET `offset`: their sum, or every row
    /// when the sum passes Int.max (`LIMIT 2 OFFSET 9223372036854775807` is legal, not a trap).
    static func rowsThrough(_ limit: Int, _ offset: Int) -> Int {
        let (sum, overflow) = limit.addingReportingOverflow(offset)
        return overflow ? Int.max : sum
    }

    mutating func planSort(_ input: LogicalPlan, _ keys: [LogicalSortKey], limit: Int?, offset: Int) throws -> PhysicalNode {
        var child = try self.plan(input, replicateAll: false)
        let originalIDs = child.columnIDs
        let positionsList: [Int]
        (child, positionsList) = try materialize(keys.map { $0.expr }, on: child)
        let sortKeys = zip(keys, positionsList).map { PhysicalSortKey(column: $1, ascending: $0.ascending, nullsFirst: $0.nullsFirst) }
        let topN = limit.map { Self.rowsThrough($0, offset) }
        if child.distribution != .single {
            let local = PhysicalNode(.sort(sortKeys, limit: topN, offset: 0), children: [child], types: child.types,
                                     names: child.names, distribution: child.distribution,
                                     rows: topN.map { min(child.rows, Double($0)) } ?? child.rows, columnIDs: child.columnIDs)
            child = exchange(local, .gather)
        }
        let sorted = PhysicalNode(.sort(sortKeys, limit: limit, offset: offset), children: [child], types: child.types,
                                  names: child.names, distribution: .single,
                                  rows: limit.map { min(child.rows, Double($0)) } ?? child.rows, columnIDs: child.columnIDs)
        if sorted.columnIDs.count == originalIDs.count { return sorted }
        // Drop the computed sort-key columns again.
        let keep = originalIDs.indices.map { BoundExpr.column($0, sorted.types[$0]) }
        return project(sorted, keep, ids: originalIDs, names: Array(sorted.names.prefix(originalIDs.count)))
    }

    // MARK: Set operations

    mutating func planSetOperation(_ kind: SetOperationKind, _ all: Bool, _ l: LogicalPlan, _ r: LogicalPlan,
                                   _ outputs: [PlanColumn]) throws -> PhysicalNode {
        var left = try self.plan(l, replicateAll: false)
        var right = try self.plan(r, replicateAll: false)
        left = try reorderPositional(left, l.outputs, outputs)
        right = try reorderPositional(right, r.outputs, outputs)
        let ids = outputs.map { $0.id }, types = outputs.map { $0.type }, names = outputs.map { $0.name }
        switch kind {
        case .union:
            // A small leader-side branch (a ROLLUP's grand total) goes out to the slices
            // rather than the slices' many rows to the leader: what is above the union (a
            // window per category, TPC-DS q67) then runs on every slice. Not for a few rows,
            // which the leader serves faster than another exchange moves them (q86).
            if left.distribution == .single, right.distribution.isPartitioned, left.rows * 16 <= right.rows,
               right.rows >= Self.parallelRowsMin {
                left = exchange(left, .redistribute([0]))
            } else if right.distribution == .single, left.distribution.isPartitioned, right.rows * 16 <= left.rows,
                      left.rows >= Self.parallelRowsMin {
                right = exchange(right, .redistribute([0]))
            }
            if left.distribution == .single || right.distribution == .single {
                if left.distribution != .single { left = exchange(left, .gather) }
                if right.distribution != .single { right = exchange(right, .gather) }
            }
            let dist: Distribution = left.distribution == .single ? .single : .random
            let u = PhysicalNode(.unionAll, children: [left, right], types: types, names: names,
                                 distribution: dist, rows: left.rows + right.rows, columnIDs: ids)
            if all { return u }
            return try planDistinctNode(u)
        case .intersect, .except:
            let keys = Array(0..<types.count)
            if !all {
                // Duplicates do not matter to INTERSECT / EXCEPT: each slice drops its own
                // before the rows move (TPC-DS q14's three channels of 1–3 million rows
                // each reduce to their few thousand distinct brand/class/category triples).
                left = partialDistinct(left)
                right = partialDistinct(right)
            }
            if left.distribution == .single || right.distribution == .single {
                if left.distribution != .single { left = exchange(left, .gather) }
                if right.distribution != .single { right = exchange(right, .gather) }
            } else {
                left = exchange(left, .redistribute(keys))
                right = exchange(right, .redistribute(keys))
            }
            return PhysicalNode(.setOperation(kind, all: all), children: [left, right], types: types, names: names,
                                distribution: left.distribution, rows: left.rows, columnIDs: ids)
        }
    }

    /// Project `node` (whose logical outputs are `from`) positionally onto the ids of `to`.
    func reorderPositional(_ node: PhysicalNode, _ from: [PlanColumn], _ to: [PlanColumn]) throws -> PhysicalNode {
        let pos = positions(node)
        var exprs: [BoundExpr] = []
        for (f, t) in zip(from, to) {
            guard let p = pos[f.id] else { throw SQLError.internalError("set operation column missing") }
            var e = BoundExpr.column(p, node.types[p])
            if node.types[p] != t.type { e = .cast(e, t.type) }
            exprs.append(e)
        }
        return project(node, exprs, ids: to.map { $0.id }, names: to.map { $0.name })
    }

    /// A per-partition DISTINCT over all columns (the first phase of `planDistinctNode`),
    /// for a partitioned node; a node on the leader is left as it is.
    func partialDistinct(_ node: PhysicalNode) -> PhysicalNode {
        if node.distribution == .single { return node }
        if case .aggregate(_, let aggs, _) = node.kind, aggs.isEmpty { return node }
        return PhysicalNode(.aggregate(groups: Array(0..<node.types.count), aggregates: [], phase: .partial), children: [node],
                            types: node.types, names: node.names, distribution: node.distribution, rows: node.rows,
                            columnIDs: node.columnIDs)
    }

    /// DISTINCT over all columns of a physical node.
    mutating func planDistinctNode(_ node: PhysicalNode) throws -> PhysicalNode {
        let g = Array(0..<node.types.count)
        if node.distribution == .single {
            return PhysicalNode(.aggregate(groups: g, aggregates: [], phase: .single), children: [node], types: node.types,
                                names: node.names, distribution: .single, rows: node.rows, columnIDs: node.columnIDs)
        }
        let partial = PhysicalNode(.aggregate(groups: g, aggregates: [], phase: .partial), children: [node], types: node.types,
                                   names: node.names, distribution: node.distribution, rows: node.rows, columnIDs: node.columnIDs)
        return PhysicalNode(.aggregate(groups: g, aggregates: [], phase: .final), children: [exchange(partial, .redistribute(g))],
                            types: node.types, names: node.names, distribution: .hashed(g), rows: node.rows,
                            columnIDs: node.columnIDs)
    }
}

/// A conjunct `a = b` whose sides read one join input each: (the left input's side, the
/// right input's side); nil for any other conjunct (a residual).
func equiKey(_ c: BoundExpr, _ leftIDs: Set<Int>, _ rightIDs: Set<Int>) -> (BoundExpr, BoundExpr)? {
    guard case .binary(.equal, let a, let b, _) = c else { return nil }
    let ra = a.referencedColumns, rb = b.referencedColumns
    guard !ra.isEmpty, !rb.isEmpty else { return nil }
    if ra.isSubset(of: leftIDs) && rb.isSubset(of: rightIDs) { return (a, b) }
    if ra.isSubset(of: rightIDs) && rb.isSubset(of: leftIDs) { return (b, a) }
    return nil
}

/// Split an AND tree into its conjuncts.
public func conjuncts(_ e: BoundExpr?) -> [BoundExpr] {
    guard let e else { return [] }
    if case .and(let parts) = e { return parts.flatMap { conjuncts($0) } }
    return [e]
}

/// Selectivity estimates for row counts: from ANALYZE's column statistics where a
/// predicate compares an analyzed column with a constant (equality: 1 / distinct values;
/// ranges: the share of [min, max] kept; IS NULL: the NULL fraction), fixed guesses
/// otherwise.
public enum Selectivity {
    public static func of(_ filters: [BoundExpr], _ stats: [Int: ColumnStatistics] = [:]) -> Double {
        let filters = filters.map(\.withoutSignificanceCalls)
        if stats.isEmpty { return filters.reduce(1.0) { $0 * of($1, stats) } }
        // A lower and an upper bound on one analyzed column are one range
        // (`d_month_seq BETWEEN 1200 AND 1211` keeps 12 of 2,400 months, not a quarter of
        // the rows as two independent half-ranges would).
        let parts = filters.flatMap { conjuncts($0) }
        var bounds: [Int: (lo: Double?, hi: Double?, used: [Int])] = [:]
        for (i, p) in parts.enumerated() {
            guard let (id, op, v) = rangeBound(p, stats) else { continue }
            var b = bounds[id] ?? (nil, nil, [])
            switch op {
            case .greater, .greaterEqual: b.lo = max(b.lo ?? v, v)
            default: b.hi = min(b.hi ?? v, v)
            }
            b.used.append(i)
            bounds[id] = b
        }
        var skip = Set<Int>()
        var selectivity = 1.0
        for (id, b) in bounds {
            guard let lo = b.lo, let hi = b.hi, let s = stats[id], let mn = s.min, let mx = s.max, mx > mn else { continue }
            let share = min(1, max(0, (min(hi, mx) - max(lo, mn)) / (mx - mn)))
            // At least one value's share when the range is not empty.
            let oneValue = hi >= lo ? 1 / max(1, s.distinct) : 0
            selectivity *= max(1e-6, (1 - s.nullFraction) * max(share, oneValue))
            skip.formUnion(b.used)
        }
        for (i, p) in parts.enumerated() where !skip.contains(i) { selectivity *= of(p, stats) }
        return selectivity
    }

    /// A numeric constant's value in its stored form (a DECIMAL's scaled integer, a
    /// DATE's days), for comparison with column statistics.
    static func constantNumber(_ x: BoundExpr) -> Double? {
        switch x {
        case .constant(.int(let v), _): return Double(v)
        case .constant(.int128(let v), _): return Double(v)
        case .constant(.double(let v), _): return v
        default: return nil
        }
    }

    /// `column op constant` (either order) for a range comparison of an analyzed column
    /// with a constant of its own type: the column id, the operator as if the column is on
    /// the left, and the constant.
    static func rangeBound(_ e: BoundExpr, _ stats: [Int: ColumnStatistics]) -> (Int, BinaryOp, Double)? {
        guard case .binary(let op, let l, let r, _) = e,
              [.less, .lessEqual, .greater, .greaterEqual].contains(op) else { return nil }
        if case .column(let id, let t) = l, case .constant(_, let u) = r, t == u, stats[id] != nil, let v = constantNumber(r) {
            return (id, op, v)
        }
        if case .column(let id, let t) = r, case .constant(_, let u) = l, t == u, stats[id] != nil, let v = constantNumber(l) {
            return (id, op.flipped, v)
        }
        return nil
    }

    static func of(_ e: BoundExpr, _ stats: [Int: ColumnStatistics] = [:]) -> Double {
        if !stats.isEmpty, let s = analyzed(e, stats) { return s }
        switch e {
        case .and(let parts): return of(parts, stats)
        case .or(let parts): return min(1, parts.reduce(0) { $0 + of($1, stats) })
        case .binary(let op, _, _, _):
            switch op {
            case .equal: return 0.1
            case .notEqual: return 0.9
            case .less, .lessEqual, .greater, .greaterEqual: return 0.4
            default: return 0.5
            }
        case .inList(_, let list, let neg): return neg ? 0.9 : min(0.5, 0.1 * Double(list.count))
        case .like(_, _, _, let neg, _): return neg ? 0.9 : 0.2
        case .isNull(_, let neg): return neg ? 0.95 : 0.05
        default: return 0.5
        }
    }

    /// The selectivity of `e` from column statistics, when it is a comparison of an
    /// analyzed column with a constant.
    static func analyzed(_ e: BoundExpr, _ stats: [Int: ColumnStatistics]) -> Double? {
        func column(_ x: BoundExpr) -> ColumnStatistics? {
            if case .column(let id, _) = x { return stats[id] }
            return nil
        }
        // A range is compared in the column's stored form: only against a constant of the
        // column's own type (a DECIMAL's scale, a DATE's days).
        func sameType(_ a: BoundExpr, _ b: BoundExpr) -> Bool {
            guard case .column(_, let t) = a, case .constant(_, let u) = b else { return false }
            return t == u
        }
        func isConstant(_ x: BoundExpr) -> Bool { if case .constant = x { return true }; return false }
        let floor = 1e-6
        switch e {
        case .binary(.equal, .column, .column, _):
            // Two columns: each value of the one with more distinct values meets at most
            // one of the other's. A column without statistics (a scalar subquery's single
            // value joined in: TPC-DS q06's `d_month_seq = (SELECT ...)`) is one value.
            if case .binary(_, let l, let r, _) = e {
                let a = column(l), b = column(r)
                guard a != nil || b != nil else { return nil }
                let d = max(a?.distinct ?? 1, b?.distinct ?? 1, 1)
                let nonNull = (1 - (a?.nullFraction ?? 0)) * (1 - (b?.nullFraction ?? 0))
                return max(floor, nonNull / d)
            }
            return nil
        case .binary(let op, let l, let r, _):
            var (c, col, k, op) = (column(l), l, r, op)
            if c == nil, let cr = column(r) { (c, col, k, op) = (cr, r, l, op.flipped) }
            guard let s = c, isConstant(k) else { return nil }
            let nonNull = 1 - s.nullFraction
            switch op {
            case .equal: return max(floor, nonNull / max(1, s.distinct))
            case .notEqual: return max(floor, nonNull * (1 - 1 / max(1, s.distinct)))
            case .less, .lessEqual, .greater, .greaterEqual:
                guard sameType(col, k), let v = constantNumber(k), let lo = s.min, let hi = s.max else { return nil }
                if hi <= lo { return max(floor, nonNull * ((op == .less || op == .greater) ? 0 : 1)) }
                let below = min(1, max(0, (v - lo) / (hi - lo)))
                let share = (op == .less || op == .lessEqual) ? below : 1 - below
                return max(floor, nonNull * share)
            default: return nil
            }
        case .isNull(let x, let negated):
            guard let s = column(x) else { return nil }
            return max(floor, negated ? 1 - s.nullFraction : s.nullFraction)
        case .inList(let x, let list, let negated):
            guard let s = column(x), list.allSatisfy(isConstant) else { return nil }
            let hit = min(1, Double(list.count) / max(1, s.distinct)) * (1 - s.nullFraction)
            return max(floor, negated ? (1 - s.nullFraction) - hit : hit)
        default:
            return nil
        }
    }
}
