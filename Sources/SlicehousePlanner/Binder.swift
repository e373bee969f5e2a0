// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan
import SlicehouseCatalog
import SlicehouseSQL
import SlicehouseFunctions

/// Aggregation state while binding one SELECT: group expressions and the
/// aggregates found in the select list, HAVING and ORDER BY.
final class AggregationContext {
    var groupExprs: [BoundExpr] = []
    var groupOutputs: [PlanColumn] = []
    var aggregates: [LogicalAggregate] = []
    /// GROUPING SETS / ROLLUP / CUBE: each set lists indices into `groupExprs`
    /// (nil for a plain GROUP BY, which is the single set of all group expressions).
    var groupingSets: [[Int]]? = nil
    /// GROUPING(args) calls: argument indices into `groupExprs`, and the output column.
    var groupingCalls: [(args: [Int], output: PlanColumn)] = []
    /// Subqueries inside aggregate arguments: joined into the input before grouping.
    var inputSubqueries: [PendingSubquery] = []
}

/// Resolves names and types in a parsed query and produces its logical plan.
///
/// - Names: `column "x" does not exist`, ambiguous references, unknown tables,
///   with the location of the offending token.
/// - Types: implicit casts are made explicit (`TypeRules`), untyped string
///   literals take the type of the other operand (`'1998-12-01'` next to a DATE).
/// - Aggregation: GROUP BY items may be expressions, output positions or
///   aliases; select-list expressions must be grouped or aggregated.
public final class Binder {
    let catalog: BinderCatalog
    var nextID = 0
    /// The WITH lists of the queries being bound, outermost first.
    var cteStack: [CTEFrame] = []
    /// Scopes of the queries enclosing the one being bound (innermost last).
    var outerScopes: [Scope] = []
    var viewDepth = 0
    /// The most views expanded inside one another.
    static let maxViewDepth = 64
    /// SQL functions being expanded inside each other (a function that calls itself stops).
    var userFunctionDepth = 0
    /// The views being expanded, innermost last (a table inside one is read with its owner's rights).
    var viewStack: [ViewDef] = []
    /// Every table and view the statement names, for privilege checks.
    public private(set) var accesses: [RelationAccess] = []
    /// Every SQL function the statement calls, for the EXECUTE check.
    public internal(set) var functionCalls: [FunctionAccess] = []
    /// Plan column ids that expressions of the statement reference.
    var referencedColumnIDs = Set<Int>()
    /// False once the statement calls a function whose value is not fixed by its
    /// arguments (RANDOM; GETDATE, SYSDATE and CURRENT_DATE, folded to the statement's
    /// instant): its result may not be reused (the result cache).
    public internal(set) var isDeterministic = true
    /// Inside a view's query: the schemas its unqualified names are looked up in.
    public var viewSearchPath: [String]?
    /// CREATE VIEW ... WITH NO SCHEMA BINDING: every table or view the query names (other
    /// than its CTEs) must name its schema, as Redshift requires; views it reads are not
    /// held to it.
    public var requireQualifiedNames = false
    /// Set to note where the statement's own text names relations and columns
    /// (`nameUses()`), before binding.
    public var recordsNameUses: Bool {
        get { nameUseRecorder != nil }
        set { nameUseRecorder = newValue ? (nameUseRecorder ?? NameUseRecorder()) : nil }
    }
    var nameUseRecorder: NameUseRecorder?
    /// Select-list aliases that WHERE and later select items may name (Redshift's lateral
    /// column aliases), while those are bound.
    var lateralAliases: [String: Expr] = [:]
    /// Collects window calls while a select list, QUALIFY or ORDER BY is bound.
    var windowCollector: WindowCollector?
    /// Outer column ids referenced by the subquery being bound.
    var correlatedIDs: Set<Int> = []
    /// Scalar subqueries of the clause being bound, joined in before the clause's operator.
    var pendingSubqueries: [PendingSubquery] = []
    /// Types of the outer columns subqueries reference, by id.
    var columnTypes: [Int: DataType] = [:]
    /// Set when a subquery with outer references is bound (the ON clause's check).
    var boundCorrelatedSubquery = false
    /// `outerScopes.count` where the ON condition being bound stands.
    var onClauseDepth = -2
    /// While QUALIFY is bound: the select list's bound expressions by output name.
    var qualifyAliases: [String: BoundExpr] = [:]
    /// Output columns of scalar subqueries (allowed in aggregating select lists).
    var scalarOutputIDs: Set<Int> = []
    /// The row id column (`slice << 40 | row`) of the SELECT being bound, when its
    /// expressions call SLICE_NUM(): the slice of each row of its first table.
    var sliceNumberColumn: PlanColumn?
    /// Evaluates constant expressions (injected by the engine; used for LIMIT and literals).
    let evaluateConstant: (BoundExpr) throws -> Value

    /// The values of the statement's `$n`, or nil when it has none (`$n` is then an error).
    public var parameters: [ParameterValue]?

    public init(catalog: BinderCatalog, evaluateConstant: @escaping (BoundExpr) throws -> Value) {
        self.catalog = catalog
        self.evaluateConstant = evaluateConstant
        parameters = catalog.statementParameters()
    }

    func newColumn(_ type: DataType, _ name: String) -> PlanColumn {
        nextID += 1
        return PlanColumn(id: nextID, type: type, name: name)
    }

    // MARK: - Queries

    public func bind(query: Query) throws -> LogicalPlan {
        if let with = query.with {
            var frame = CTEFrame(recursive: with.recursive)
            for (position, cte) in with.ctes.enumerated() {
                let name = cte.name
                guard frame.entries[name] == nil else {
                    throw SQLError(.duplicateAlias, "WITH query name \"\(name)\" specified more than once",
                                   line: cte.location.line, column: cte.location.column)
                }
                frame.entries[name] = (position, cte)
            }
            cteStack.append(frame)
        }
        defer { if query.with != nil { cteStack.removeLast() } }

        var plan: LogicalPlan
        if case .select(let select) = query.body {
            plan = try bindSelect(select, orderBy: query.orderBy)
        } else {
            plan = try bindBody(query.body)
            if !query.orderBy.isEmpty {
                let outs = plan.outputs
                var keys: [LogicalSortKey] = []
                for item in query.orderBy {
                    let col = try resolveOutputReference(item.expr, outputs: outs)
                    guard let col else {
                        throw SQLError(.undefinedColumn, "invalid ORDER BY expression for a set operation: use an output column name or position",
                                       line: item.expr.location.line, column: item.expr.location.column)
                    }
                    keys.append(sortKey(.column(col.id, col.type), item))
                }
                plan = .sort(plan, keys)
            }
        }
        let limit = try query.limit.map { try constantInt($0, "LIMIT") }
        let offset = try query.offset.map { try constantInt($0, "OFFSET") } ?? 0
        if limit != nil || offset != 0 { plan = .limit(plan, limit: limit, offset: offset) }
        return plan
    }

    func sortKey(_ e: BoundExpr, _ item: OrderItem) -> LogicalSortKey {
        LogicalSortKey(expr: e, ascending: !item.descending, nullsFirst: item.nullsFirst ?? item.descending)
    }

    func constantInt(_ e: Expr, _ what: String) throws -> Int {
        let b = try bindExpr(e, Scope(), agg: nil)
        let v = try evaluateConstant(b)
        guard let i = v.asInt64, i >= 0, b.type.isInteger || b.type.isDecimal && b.type.scale == 0 else {
            throw SQLError(.invalidParameter, "\(what) must be a non-negative integer",
                           line: e.location.line, column: e.location.column)
        }
        return Int(i)
    }

    /// `ORDER BY 2` or `ORDER BY alias` against a list of output columns.
    func resolveOutputReference(_ e: Expr, outputs: [PlanColumn]) throws -> PlanColumn? {
        switch e.kind {
        case .literal(.integer(let text)):
            guard let k = Int(text), k >= 1, k <= outputs.count else {
                throw SQLError(.invalidParameter, "ORDER BY position \(text) is not in select list",
                               line: e.location.line, column: e.location.column)
            }
            return outputs[k - 1]
        case .column(let ref) where ref.parts.count == 1:
            return outputs.first { $0.name == ref.name }
        default:
            return nil
        }
    }

    func bindBody(_ body: QueryBody) throws -> LogicalPlan {
        switch body {
        case .select(let s): return try bindSelect(s, orderBy: [])
        case .nested(let q): return try bind(query: q)
        case .values(let rows): return try bindValues(rows)
        case .setOperation(let op):
            let l = try bindBody(op.left), r = try bindBody(op.right)
            let lo = l.outputs, ro = r.outputs
            guard lo.count == ro.count else {
                throw SQLError(.syntax, "each \(op.op.rawValue) query must have the same number of columns",
                               line: op.location.line, column: op.location.column)
            }
            var outs: [PlanColumn] = []
            for (a, b) in zip(lo, ro) {
                guard let t = TypeRules.commonType(a.type, b.type) else {
                    throw SQLError(.datatypeMismatch, "\(op.op.rawValue) types \(a.type.sqlName) and \(b.type.sqlName) cannot be matched",
                                   line: op.location.line, column: op.location.column)
                }
                outs.append(newColumn(t, a.name))
            }
            let kind: SetOperationKind = op.op == .union ? .union : (op.op == .intersect ? .intersect : .except)
            return .setOperation(kind, all: op.all, l, r, outputs: outs)
        }
    }

    func bindValues(_ rows: [[Expr]]) throws -> LogicalPlan {
        guard let first = rows.first else { throw SQLError.syntax("VALUES needs at least one row") }
        var bound = try rows.map { row -> [BoundExpr] in
            guard row.count == first.count else { throw SQLError.syntax("VALUES lists must all be the same length") }
            return try row.map { try bindExpr($0, Scope(), agg: nil) }
        }
        var types: [DataType] = []
        for c in 0..<first.count {
            var t = bound[0][c].type
            for r in bound.dropFirst() {
                guard let u = TypeRules.commonType(t, r[c].type) else {
                    throw SQLError(.datatypeMismatch, "VALUES types \(t.sqlName) and \(r[c].type.sqlName) cannot be matched")
                }
                t = u
            }
            types.append(t == .unknown ? .text : t)
        }
        for r in 0..<bound.count {
            for c in 0..<types.count where bound[r][c].type != types[c] {
                bound[r][c] = try coerce(bound[r][c], to: types[c])
            }
        }
        let outs = types.enumerated().map { newColumn($0.element, "column\($0.offset + 1)") }
        return .values(bound, outputs: outs)
    }

    // MARK: - SELECT

    func bindSelect(_ s: Select, orderBy: [OrderItem]) throws -> LogicalPlan {
        var s = s
        let savedPending = pendingSubqueries
        pendingSubqueries = []
        let savedCollector = windowCollector
        windowCollector = nil   // no window functions in FROM, WHERE, GROUP BY
        defer {
            pendingSubqueries = savedPending
            windowCollector = savedCollector
        }
        var (plan, scope) = try bindFrom(s.from)
        let savedSliceNumber = sliceNumberColumn
        sliceNumberColumn = nil
        defer { sliceNumberColumn = savedSliceNumber }
        if !s.from.isEmpty, Binder.callsSliceNum(s, orderBy) {
            guard let (withRowIDs, column) = addRowIDColumn(plan) else {
                throw SQLError(.featureNotSupported, "SLICE_NUM() gives the slice of a table's rows: name the table in FROM",
                               line: s.location.line, column: s.location.column)
            }
            plan = withRowIDs
            sliceNumberColumn = column
        }
        let savedAliases = lateralAliases
        lateralAliases = [:]
        defer { lateralAliases = savedAliases }
        if let w = s.whereClause {
            lateralAliases = Binder.selectAliases(s.items)
            defer { lateralAliases = [:] }
            var preds: [BoundExpr] = []
            for c in astConjuncts(w) {
                switch try bindSubqueryConjunct(c, plan, scope, nil) {
                case .joined(let joined): plan = joined; continue
                case .predicate(let p): preds.append(p); continue
                case nil: break
                }
                preds.append(try condition(try bindExpr(c, scope, agg: nil), "WHERE", c.location))
            }
            plan = try applyPendingScalars(plan)
            if !preds.isEmpty { plan = .filter(plan, preds.count == 1 ? preds[0] : .and(preds)) }
        }
        if !s.from.isEmpty { (plan, scope) = try bindSeriesItems(&s, plan, scope) }

        // Aggregation?
        let usesAggregates = s.items.contains { if case .expr(let e, _) = $0 { return containsAggregate(e) }; return false }
            || (s.having.map(containsAggregate) ?? false)
            || orderBy.contains { containsAggregate($0.expr) }
        var agg: AggregationContext? = nil
        var groupBy = s.groupBy
        if groupBy == [.all] {
            // GROUP BY ALL: the select list's expressions that hold no aggregate or window function.
            groupBy = []
            for item in s.items {
                switch item {
                case .wildcard(let w):
                    throw SQLError(.syntax, "GROUP BY ALL cannot group by *: list the columns", line: w.location.line, column: w.location.column)
                case .expr(let e, _):
                    if !containsAggregate(e) && !containsWindow(e) { groupBy.append(.expr(e)) }
                }
            }
        }
        if !groupBy.isEmpty || usesAggregates || s.having != nil {
            let ctx = AggregationContext()
            let positions = starPositions(s.items, scope)
            func index(_ ge: Expr) throws -> Int {
                // A position that names a column of a `*` (`SELECT *, count(*) ... GROUP BY 1, 2`).
                if let positions, case .literal(.integer(let text)) = ge.kind, let k = Int(text),
                   k >= 1, k <= positions.count, case .right(let column) = positions[k - 1] {
                    let b = BoundExpr.column(column.column.id, column.column.type)
                    if let i = ctx.groupExprs.firstIndex(of: b) { return i }
                    ctx.groupExprs.append(b)
                    ctx.groupOutputs.append(newColumn(b.type, column.name))
                    return ctx.groupExprs.count - 1
                }
                let target = try groupTarget(ge, positions.map { ps in ps.map { p -> SelectItem in
                    switch p {
                    case .left(let item): return item
                    case .right: return .expr(Expr(.literal(.null)), alias: nil)
                    }
                } } ?? s.items, scope)
                // A subquery as a grouping key (often through a select-list alias) is a
                // pattern Redshift refuses too.
                if target.containsSubquery {
                    throw SQLError(.featureNotSupported, Binder.unsupportedCorrelation,
                                   line: ge.location.line, column: ge.location.column)
                }
                let b = try bindExpr(target, scope, agg: nil)
                if let i = ctx.groupExprs.firstIndex(of: b) { return i }
                ctx.groupExprs.append(b)
                ctx.groupOutputs.append(newColumn(b.type, defaultName(target)))
                return ctx.groupExprs.count - 1
            }
            // Each GROUP BY element contributes a list of alternative sets; the query's
            // grouping sets are their cross product.
            var sets: [[Int]] = [[]]
            var hasSets = false
            for g in groupBy {
                var alternatives: [[Int]]
                switch g {
                case .expr(let ge): alternatives = [[try index(ge)]]
                case .all: throw SQLError(.syntax, "GROUP BY ALL cannot be combined with other grouping elements")
                case .rollup(let items):
                    hasSets = true
                    let idx = try items.map { try $0.map(index) }
                    alternatives = (0...idx.count).reversed().map { Array(idx.prefix($0).joined()) }
                case .cube(let items):
                    hasSets = true
                    let idx = try items.map { try $0.map(index) }
                    guard idx.count <= 12 else { throw SQLError(.invalidParameter, "CUBE is limited to 12 elements") }
                    alternatives = (0..<(1 << idx.count)).reversed().map { mask in
                        idx.enumerated().filter { mask & (1 << (idx.count - 1 - $0.offset)) != 0 }.flatMap { $0.element }
                    }
                case .groupingSets(let list):
                    hasSets = true
                    alternatives = try list.map { try $0.map(index) }
                }
                sets = sets.flatMap { s in alternatives.map { s + $0 } }
            }
            if hasSets {
                guard sets.count <= 4096 else { throw SQLError(.invalidParameter, "too many grouping sets") }
                ctx.groupingSets = sets.map { Array(Set($0)).sorted() }
            }
            agg = ctx
        }

        // Select list.
        let windows = WindowCollector()
        windowCollector = windows
        var exprs: [BoundExpr] = []
        var names: [String] = []
        for item in s.items {
            switch item {
            case .wildcard(let w):
                let rels = w.qualifier.isEmpty ? scope.relations : scope.relations.filter { $0.alias == w.qualifier.last }
                let columns = w.qualifier.isEmpty ? scope.starColumns : rels.flatMap { $0.starColumns }
                if rels.isEmpty {
                    if w.qualifier.isEmpty {
                        throw SQLError(.syntax, "SELECT * with no tables specified is not valid", line: w.location.line, column: w.location.column)
                    }
                    throw SQLError(.undefinedTable, "missing FROM-clause entry for table \"\(w.qualifier.joined(separator: "."))\"",
                                   line: w.location.line, column: w.location.column)
                }
                for c in columns {
                    referencedColumnIDs.insert(c.column.id)
                    exprs.append(try finishAggregate(.column(c.column.id, c.column.type), agg, w.location))
                    names.append(c.name)
                }
            case .expr(let e, let alias):
                noteSelectItem(e, alias: alias)
                let b = try bindExpr(e, scope, agg: agg)
                exprs.append(try finishAggregate(b, agg, e.location))
                names.append(alias ?? defaultName(e))
                // Later items may name this one's alias (Redshift's lateral column alias).
                if let alias, lateralAliases[alias] == nil { lateralAliases[alias] = e }
            }
        }
        lateralAliases = [:]

        var having: BoundExpr? = nil
        if let h = s.having {
            windowCollector = nil
            defer { windowCollector = windows }
            let b = try bindExpr(h, scope, agg: agg)
            try requireBoolean(b, "HAVING", h.location)
            having = try finishAggregate(b, agg, h.location)
        }

        var qualify: BoundExpr? = nil
        if let q = s.qualify {
            // QUALIFY may name the select list's aliases (`QUALIFY rk <= 2`), as Redshift allows.
            var aliases: [String: BoundExpr] = [:]
            for (e, n) in zip(exprs, names) where aliases[n] == nil { aliases[n] = e }
            qualifyAliases = aliases
            defer { qualifyAliases = [:] }
            let b = try bindExpr(q, scope, agg: agg)
            try requireBoolean(b, "QUALIFY", q.location)
            qualify = try finishAggregate(b, agg, q.location)
        }

        // ORDER BY: output positions and aliases, else expressions over the input (hidden columns).
        var outputs = zip(exprs, names).map { newColumn($0.type, $1) }
        var sortKeys: [LogicalSortKey] = []
        var hidden: [BoundExpr] = []
        for item in orderBy {
            if let col = try resolveOutputReference(item.expr, outputs: outputs),
               !(isInputColumn(item.expr, scope) && outputs.filter({ $0.name == col.name }).count > 1) {
                sortKeys.append(sortKey(.column(col.id, col.type), item))
                continue
            }
            let b = try finishAggregate(try bindExpr(item.expr, scope, agg: agg), agg, item.expr.location)
            if let i = exprs.firstIndex(of: b) {
                sortKeys.append(sortKey(.column(outputs[i].id, outputs[i].type), item))
                continue
            }
            if s.distinct {
                throw SQLError(.syntax, "for SELECT DISTINCT, ORDER BY expressions must appear in select list",
                               line: item.expr.location.line, column: item.expr.location.column)
            }
            let col = newColumn(b.type, "?order?")
            hidden.append(b)
            outputs.append(col)
            sortKeys.append(sortKey(.column(col.id, col.type), item))
        }

        if let agg {
            if !agg.inputSubqueries.isEmpty {
                let saved = pendingSubqueries
                pendingSubqueries = agg.inputSubqueries
                plan = try applyPendingScalars(plan)
                pendingSubqueries = saved
            }
            plan = groupingPlan(plan, agg)
        }
        plan = try applyPendingScalars(plan)
        if let having { plan = .filter(plan, having) }
        plan = applyPartitionAggregates(plan, windows)
        if !windows.windows.isEmpty { plan = .window(plan, windows.windows) }
        if let qualify { plan = .filter(plan, qualify) }
        plan = .project(plan, exprs + hidden, outputs: outputs)
        if s.distinct { plan = .distinct(plan) }
        if !sortKeys.isEmpty { plan = .sort(plan, sortKeys) }
        if let top = s.top {
            plan = .limit(plan, limit: try constantInt(top, "TOP"), offset: 0)
        }
        if !hidden.isEmpty {
            let visible = Array(outputs.prefix(exprs.count))
            plan = .project(plan, visible.map { .column($0.id, $0.type) }, outputs: visible.map { newColumn($0.type, $0.name) })
        }
        if !s.exclude.isEmpty {
            // EXCLUDE: the named output columns are left out (after ORDER BY, which may use them).
            let excluded = Set(s.exclude)
            let outs = plan.outputs
            for name in excluded where !outs.contains(where: { $0.name == name }) {
                throw SQLError(.undefinedColumn, "column \"\(name)\" named in EXCLUDE does not exist")
            }
            let kept = outs.filter { !excluded.contains($0.name) }
            guard !kept.isEmpty else { throw SQLError(.syntax, "EXCLUDE leaves no columns") }
            plan = .project(plan, kept.map { .column($0.id, $0.type) }, outputs: kept.map { newColumn($0.type, $0.name) })
        }
        return plan
    }

    /// The aggregation step: one aggregate, or for grouping sets one aggregate over the
    /// input read once (`expandedGroupingSets`), plus the empty set's aggregate when
    /// there is one.
    func groupingPlan(_ input: LogicalPlan, _ agg: AggregationContext) -> LogicalPlan {
        let outputs = agg.groupOutputs + agg.aggregates.map { $0.output } + agg.groupingCalls.map { $0.output }
        if let sets = agg.groupingSets, sets.filter({ !$0.isEmpty }).count >= 2 {
            return expandedGroupingSets(input, agg, sets, outputs)
        }
        guard let sets = agg.groupingSets else {
            let a = LogicalPlan.aggregate(input, groups: agg.groupExprs, groupOutputs: agg.groupOutputs, aggregates: agg.aggregates)
            if agg.groupingCalls.isEmpty { return a }
            let pass = (agg.groupOutputs + agg.aggregates.map { $0.output }).map { BoundExpr.column($0.id, $0.type) }
            return .project(a, pass + agg.groupingCalls.map { _ in .constant(.int(0), .integer) }, outputs: outputs)
        }
        var branches: [LogicalPlan] = []
        for set in sets {
            let gouts = set.map { newColumn(agg.groupOutputs[$0].type, agg.groupOutputs[$0].name) }
            let aggs = agg.aggregates.map { a -> LogicalAggregate in
                var c = a
                c.output = newColumn(a.output.type, a.output.name)
                return c
            }
            let node = LogicalPlan.aggregate(input, groups: set.map { agg.groupExprs[$0] }, groupOutputs: gouts, aggregates: aggs)
            var exprs: [BoundExpr] = []
            for (i, g) in agg.groupOutputs.enumerated() {
                if let k = set.firstIndex(of: i) { exprs.append(.column(gouts[k].id, gouts[k].type)) }
                else { exprs.append(.constant(.null, g.type)) }
            }
            exprs += aggs.map { .column($0.output.id, $0.output.type) }
            exprs += agg.groupingCalls.map { .constant(.int(Self.groupingMask($0.args, set)), .integer) }
            branches.append(.project(node, exprs, outputs: outputs.map { newColumn($0.type, $0.name) }))
        }
        var plan = branches[0]
        for b in branches.dropFirst() {
            plan = .setOperation(.union, all: true, plan, b, outputs: outputs.map { newColumn($0.type, $0.name) })
        }
        // The query above refers to the context's output ids.
        return .project(plan, plan.outputs.map { .column($0.id, $0.type) }, outputs: outputs)
    }

    /// GROUPING SETS / ROLLUP / CUBE with the input computed once. When every aggregate
    /// can be rolled up from partial results (COUNT, SUM, MIN, MAX, AVG without
    /// DISTINCT), the input is first aggregated by all the keys (`RollupPartials`) and
    /// the sets are computed from that, usually far fewer rows; otherwise from the input.
    /// Each source row is paired with the number of every non-empty set (a cross join
    /// with a VALUES list), the keys a set does not group by are NULL for its copy, and
    /// one aggregate groups by the keys and the set number. The empty set `()` (a grand
    /// total, one row even over no rows) is a plain aggregate of its own, joined by UNION
    /// ALL; over the pre-aggregate it reads a copy of the same subtree, which physical
    /// planning computes once (`SharedSubplans`). GROUPING() bitmasks come from the set
    /// number.
    func expandedGroupingSets(_ input: LogicalPlan, _ agg: AggregationContext, _ sets: [[Int]],
                              _ outputs: [PlanColumn]) -> LogicalPlan {
        let keyed = sets.filter { !$0.isEmpty }
        let hasEmpty = keyed.count < sets.count
        let partials = RollupPartials(agg.aggregates, newColumn: newColumn)
        if let partials, Self.cascadedSets.contains(keyed.count) {
            return cascadedGroupingSets(input, agg, sets, outputs, partials)
        }
        // The rows the sets aggregate, the keys over them, and per set the aggregates and
        // the expressions giving the query's aggregate values.
        let source: LogicalPlan
        let keys: [BoundExpr]
        if let partials {
            let preKeys = agg.groupOutputs.map { newColumn($0.type, $0.name) }
            source = .aggregate(input, groups: agg.groupExprs, groupOutputs: preKeys, aggregates: partials.partials)
            keys = preKeys.map { .column($0.id, $0.type) }
        } else {
            source = input
            keys = agg.groupExprs
        }
        func finals(over plan: LogicalPlan) -> (plan: LogicalPlan, aggregates: [LogicalAggregate], values: [BoundExpr]) {
            if let partials {
                let (copy, map) = renumbered(plan)
                let (aggs, values) = partials.merges(map, newColumn: newColumn)
                return (copy, aggs, values)
            }
            let aggs = agg.aggregates.map { a -> LogicalAggregate in
                var c = a
                c.output = newColumn(a.output.type, a.output.name)
                return c
            }
            return (plan, aggs, aggs.map { .column($0.output.id, $0.output.type) })
        }
        let setColumn = newColumn(.integer, "?grouping_set?")
        let numbers = LogicalPlan.values(keyed.indices.map { [.constant(.int(Int64($0)), .integer)] }, outputs: [setColumn])
        let (setSource, aggs, values) = finals(over: source)
        let keyMap = partials == nil ? nil : renumberedKeys(source, setSource)
        let crossed = LogicalPlan.join(.cross, setSource, numbers, condition: nil)
        let setRef = BoundExpr.column(setColumn.id, .integer)
        var groups: [BoundExpr] = []
        for (i, g0) in keys.enumerated() {
            let g = keyMap.map { m in g0.transform { e in
                if case .column(let id, let t) = e, let n = m[id] { return .column(n, t) }
                return e
            } } ?? g0
            let inSets = keyed.indices.filter { keyed[$0].contains(i) }
            if inSets.count == keyed.count { groups.append(g); continue }
            let member = BoundExpr.inList(setRef, inSets.map { .constant(.int(Int64($0)), .integer) }, negated: false)
            groups.append(inSets.isEmpty ? .constant(.null, g.type)
                          : .caseWhen([WhenClause(condition: member, result: g)], elseResult: .constant(.null, g.type), g.type))
        }
        let setOut = newColumn(.integer, "?grouping_set?")
        let gouts = agg.groupOutputs.map { newColumn($0.type, $0.name) }
        let grouped = LogicalPlan.aggregate(crossed, groups: groups + [setRef], groupOutputs: gouts + [setOut], aggregates: aggs)
        let setOutRef = BoundExpr.column(setOut.id, .integer)
        var exprs: [BoundExpr] = gouts.map { .column($0.id, $0.type) } + values
        for call in agg.groupingCalls {
            exprs.append(.caseWhen(keyed.indices.map { k in
                WhenClause(condition: .binary(.equal, setOutRef, .constant(.int(Int64(k)), .integer), .boolean),
                           result: .constant(.int(Self.groupingMask(call.args, keyed[k])), .integer))
            }, elseResult: nil, .integer))
        }
        var plan = LogicalPlan.project(grouped, exprs, outputs: outputs.map { newColumn($0.type, $0.name) })
        if hasEmpty {
            let (totalSource, totals, totalValues) = finals(over: source)
            let total = LogicalPlan.aggregate(totalSource, groups: [], groupOutputs: [], aggregates: totals)
            let totalExprs: [BoundExpr] = agg.groupOutputs.map { .constant(.null, $0.type) }
                + totalValues
                + agg.groupingCalls.map { .constant(.int(Self.groupingMask($0.args, [])), .integer) }
            let totalRow = LogicalPlan.project(total, totalExprs, outputs: outputs.map { newColumn($0.type, $0.name) })
            plan = .setOperation(.union, all: true, plan, totalRow, outputs: outputs.map { newColumn($0.type, $0.name) })
        }
        // The query above refers to the context's output ids.
        return .project(plan, plan.outputs.map { .column($0.id, $0.type) }, outputs: outputs)
    }

    /// GROUPING SETS / ROLLUP / CUBE whose aggregates roll up from partial results: the
    /// input is aggregated once by every key (the pre-aggregate), and each set merges the
    /// partial rows of the smallest set already computed that holds all its keys — for
    /// ROLLUP (a, b, c) the set (a, b) merges (a, b, c)'s rows and (a) merges (a, b)'s, so
    /// each level reads the one before it, usually far fewer rows than the pre-aggregate
    /// (TPC-DS q67 rolls up eight keys over 2.5 M pre-aggregated rows: one aggregate over
    /// the pre-aggregate crossed with eight set numbers read 20 M). A set of every key is
    /// the pre-aggregate itself. The sets' rows are joined by UNION ALL, each with NULL for
    /// the keys it does not group by and its GROUPING() bitmasks as constants; a subtree
    /// read by two sets is a copy, which physical planning computes once (`SharedSubplans`).
    ///
    /// Every set's subtree repeats the input, which the optimizer then plans once per copy
    /// (TPC-DS q18's six-table join: 9 ms of planning became 26 ms for its four sets; a
    /// CUBE of five keys, 31 sets, over a six-table join: 6 ms became 97), so only a count
    /// of sets in `cascadedSets` takes this plan; others keep the single aggregate over the
    /// pre-aggregate crossed with the set numbers (`expandedGroupingSets`).
    func cascadedGroupingSets(_ input: LogicalPlan, _ agg: AggregationContext, _ sets: [[Int]],
                              _ outputs: [PlanColumn], _ partials: RollupPartials) -> LogicalPlan {
        let n = agg.groupOutputs.count
        let preKeys = agg.groupOutputs.map { newColumn($0.type, $0.name) }
        let pre = LogicalPlan.aggregate(input, groups: agg.groupExprs, groupOutputs: preKeys, aggregates: partials.partials)
        /// A computed set: its plan, its key columns by key index, its partial columns.
        struct Level {
            var plan: LogicalPlan
            var keys: [Int: PlanColumn]
            var partials: [PlanColumn]
        }
        var levels = [Level(plan: pre, keys: Dictionary(uniqueKeysWithValues: preKeys.enumerated().map { ($0.offset, $0.element) }),
                            partials: partials.partials.map { $0.output })]
        /// The set's rows from `parent`'s: a copy of its plan grouped by the set's keys, the
        /// partials merged.
        func merged(_ parent: Level, _ set: [Int]) -> (level: Level, values: [BoundExpr]) {
            let (copy, map) = renumbered(parent.plan)
            var partialMap: [Int: PlanColumn] = [:]
            for (k, p) in partials.partials.enumerated() {
                let c = parent.partials[k]
                partialMap[p.output.id] = map[c.id] ?? c
            }
            let (aggs, values) = partials.merges(partialMap, newColumn: newColumn)
            var keys: [Int: PlanColumn] = [:]
            var groups: [BoundExpr] = []
            var gouts: [PlanColumn] = []
            for i in set {
                guard let c = parent.keys[i] else { continue }
                let src = map[c.id] ?? c
                groups.append(.column(src.id, src.type))
                let out = newColumn(c.type, c.name)
                gouts.append(out)
                keys[i] = out
            }
            let plan = LogicalPlan.aggregate(copy, groups: groups, groupOutputs: gouts, aggregates: aggs)
            return (Level(plan: plan, keys: keys, partials: aggs.map { $0.output }), values)
        }
        /// The smallest computed set holding every key of `set`.
        func parent(of set: [Int]) -> Level {
            var best = levels[0]
            for l in levels.dropFirst() where set.allSatisfy({ l.keys[$0] != nil }) && l.keys.count <= best.keys.count {
                best = l
            }
            return best
        }
        // Larger sets first, so each smaller one finds its parent computed; the branches
        // keep the query's order of sets.
        var branches: [(index: Int, plan: LogicalPlan)] = []
        let order = sets.indices.filter { !sets[$0].isEmpty }.sorted { sets[$0].count > sets[$1].count }
        for si in order {
            let set = sets[si]
            let level: Level
            let values: [BoundExpr]
            if set.count == n {
                level = levels[0]
                values = partials.values(levels[0].partials)
            } else {
                (level, values) = merged(parent(of: set), set)
                levels.append(level)
            }
            var exprs: [BoundExpr] = []
            for (i, g) in agg.groupOutputs.enumerated() {
                if set.contains(i), let c = level.keys[i] { exprs.append(.column(c.id, c.type)) }
                else { exprs.append(.constant(.null, g.type)) }
            }
            exprs += values
            exprs += agg.groupingCalls.map { .constant(.int(Self.groupingMask($0.args, set)), .integer) }
            // The first use of the pre-aggregate is the plan itself; every other is a copy.
            var plan = level.plan
            if set.count == n && branches.contains(where: { sets[$0.index].count == n }) {
                let (copy, map) = renumbered(level.plan)
                plan = copy
                exprs = exprs.map { e in e.transform { x in
                    if case .column(let id, let t) = x, let c = map[id] { return .column(c.id, t) }
                    return x
                } }
            }
            branches.append((si, .project(plan, exprs, outputs: outputs.map { newColumn($0.type, $0.name) })))
        }
        if sets.contains(where: { $0.isEmpty }) {
            // The grand total (one row even over no rows), from the smallest computed set.
            let from = parent(of: [])
            for si in sets.indices where sets[si].isEmpty {
                let (total, values) = merged(from, [])
                let exprs: [BoundExpr] = agg.groupOutputs.map { .constant(.null, $0.type) } + values
                    + agg.groupingCalls.map { .constant(.int(Self.groupingMask($0.args, [])), .integer) }
                branches.append((si, .project(total.plan, exprs, outputs: outputs.map { newColumn($0.type, $0.name) })))
            }
        }
        branches.sort { $0.index < $1.index }
        var plan = branches[0].plan
        for b in branches.dropFirst() {
            plan = .setOperation(.union, all: true, plan, b.plan, outputs: outputs.map { newColumn($0.type, $0.name) })
        }
        // The query above refers to the context's output ids.
        return .project(plan, plan.outputs.map { .column($0.id, $0.type) }, outputs: outputs)
    }

    /// Counts of grouping sets (not counting the empty one) that are computed one from
    /// another (`cascadedGroupingSets`) rather than by one aggregate over all of them:
    /// enough sets for the pre-aggregate's rows read once per set to cost more than the
    /// input planned once per set, and not so many that the planning dominates (a ROLLUP
    /// of eight to twelve keys). The binder has no estimate of the pre-aggregate's rows:
    /// over a six-table join filtered to a few thousand rows, a ROLLUP of six keys took
    /// 65 → 96 ms at TPC-DS SF 1 and a CUBE of three 58 → 66 ms, while a ROLLUP of eight
    /// took 228 → 122 ms (and 17 → 37 ms at SF 0.01, the planning).
    static let cascadedSets = 8...12

    /// GROUPING(args)'s value for the rows of `set`: a bit per argument, the first the
    /// highest, set when the set does not group by it.
    static func groupingMask(_ args: [Int], _ set: [Int]) -> Int64 {
        var m: Int64 = 0
        for a in args { m = (m << 1) | (set.contains(a) ? 0 : 1) }
        return m
    }

    /// Column id of each of `original`'s outputs in its renumbered copy.
    func renumberedKeys(_ original: LogicalPlan, _ copy: LogicalPlan) -> [Int: Int] {
        var m: [Int: Int] = [:]
        for (a, b) in zip(original.outputs, copy.outputs) { m[a.id] = b.id }
        return m
    }

    func isInputColumn(_ e: Expr, _ scope: Scope) -> Bool {
        if case .column(let ref) = e.kind { return scope.lookup(ref) != nil }
        return false
    }

    /// The select list by output position when it holds a `*`: each item, or a column a
    /// `*` stands for; nil without a `*`.
    func starPositions(_ items: [SelectItem], _ scope: Scope) -> [Either<SelectItem, StarColumn>]? {
        guard items.contains(where: { if case .wildcard = $0 { return true }; return false }) else { return nil }
        var out: [Either<SelectItem, StarColumn>] = []
        for item in items {
            guard case .wildcard(let w) = item else { out.append(.left(item)); continue }
            let columns = w.qualifier.isEmpty ? scope.starColumns
                : scope.relations.filter { $0.alias == w.qualifier.last }.flatMap { $0.starColumns }
            out += columns.map { .right(StarColumn(column: $0.column, name: $0.name)) }
        }
        return out
    }

    /// GROUP BY item: an output position or alias names a select-list expression.
    func groupTarget(_ e: Expr, _ items: [SelectItem], _ scope: Scope) throws -> Expr {
        switch e.kind {
        case .literal(.integer(let text)):
            guard let k = Int(text), k >= 1, k <= items.count, case .expr(let target, _) = items[k - 1] else {
                throw SQLError(.invalidParameter, "GROUP BY position \(text) is not in select list",
                               line: e.location.line, column: e.location.column)
            }
            return target
        case .column(let ref) where ref.parts.count == 1 && scope.lookup(ref) == nil:
            for item in items {
                if case .expr(let target, let alias) = item, alias == ref.name { return target }
            }
            return e
        default:
            return e
        }
    }

    /// A condition: a boolean, or — as Redshift takes one — an integer, true when it is not
    /// 0 (`WHERE 1 AND ...`, `WHEN regexp_instr(...) THEN`).
    func condition(_ e: BoundExpr, _ clause: String, _ loc: SourceLocation) throws -> BoundExpr {
        if e.type.isInteger { return .binary(.notEqual, e, .constant(.int(0), e.type), .boolean) }
        try requireBoolean(e, clause, loc)
        return e
    }

    func requireBoolean(_ e: BoundExpr, _ clause: String, _ loc: SourceLocation) throws {
        if e.type != .boolean && e.type != .unknown {
            throw SQLError(.datatypeMismatch, "argument of \(clause) must be type boolean, not type \(e.type.sqlName)",
                           line: loc.line, column: loc.column)
        }
    }

    /// In an aggregating query, replace grouped expressions by the group outputs and
    /// reject any remaining reference to an ungrouped input column.
    func finishAggregate(_ e: BoundExpr, _ agg: AggregationContext?, _ loc: SourceLocation) throws -> BoundExpr {
        guard let agg else { return e }
        let aggIDs = Set(agg.aggregates.map { $0.output.id } + agg.groupOutputs.map { $0.id }
                         + agg.groupingCalls.map { $0.output.id }).union(scalarOutputIDs)
        let r = e.rewriteTopDown { sub in
            if let i = agg.groupExprs.firstIndex(of: sub) {
                return .column(agg.groupOutputs[i].id, agg.groupOutputs[i].type)
            }
            return nil
        }
        for id in r.referencedColumns where !aggIDs.contains(id) {
            let name = columnNames[id] ?? "?"
            throw SQLError(.groupingError, "column \"\(name)\" must appear in the GROUP BY clause or be used in an aggregate function",
                           line: loc.line, column: loc.column)
        }
        return r
    }

    /// Names of input columns by id (for error messages).
    var columnNames: [Int: String] = [:]

    // MARK: - FROM

    func bindFrom(_ items: [TableRef]) throws -> (LogicalPlan, Scope) {
        if items.isEmpty { return (.values([[]], outputs: []), Scope()) }
        var (plan, scope) = try bindTableRef(items[0])
        for item in items.dropFirst() {
            if let (unnested, relation) = try bindUnnest(item, plan, scope) {
                try checkDuplicateAliases(scope, Scope(relations: [relation]), item.location)
                plan = unnested
                scope.relations.append(relation)
                continue
            }
            let (p, s) = try bindTableRef(item)
            try checkDuplicateAliases(scope, s, item.location)
            plan = .join(.cross, plan, p, condition: nil)
            scope.append(s)
        }
        return (plan, scope)
    }

    /// PartiQL unnesting: a FROM item `c.orders [AS o] [AT i]` whose name starts with an
    /// earlier item's alias and reads a SUPER value iterates over that array for each row
    /// so far (`o` is the element, `i` its position); `UNPIVOT c.obj AS v AT k` over an
    /// object's attributes (`k` the attribute's name). nil for an ordinary table name.
    func bindUnnest(_ item: TableRef, _ plan: LogicalPlan, _ scope: Scope) throws -> (LogicalPlan, ScopeRelation)? {
        guard case .table(let name, let alias) = item.kind else { return nil }
        let parts = name.parts
        guard let head = parts.first, let relation = scope.relations.first(where: { $0.alias == head }) else {
            return nil
        }
        // `FROM ..., c.orders o, o.items it` and also `..., c.grid g, g x`: a bare name that
        // is an unnested element (itself an array) unnests further.
        let isElement = relation.columns.first.map { $0.name == head && $0.column.type == .superType } ?? false
        guard parts.count >= 2 || isElement else { return nil }
        let path = Expr(.column(ColumnRef(parts)), at: item.location)
        let unpivot = alias?.unpivot ?? false
        guard let array = try? bindExpr(path, scope, agg: nil), array.type == .superType else {
            if unpivot {
                throw SQLError(.datatypeMismatch, "UNPIVOT needs a SUPER value: \(name.description) is not one",
                               line: item.location.line, column: item.location.column)
            }
            return nil
        }
        let elementName = alias?.name ?? name.name
        let element = newColumn(.superType, elementName)
        columnNames[element.id] = elementName
        var columns: [(name: String, column: PlanColumn)] = [(elementName, element)]
        var position: PlanColumn? = nil
        // An array's positions are integers; an object's attribute names (UNPIVOT) text,
        // kept even without AT (the operator tells the two apart by this column's type).
        if let at = alias?.position ?? (unpivot ? "?attribute?" : nil) {
            let p = newColumn(unpivot ? .varchar(DataType.maxVarcharLength) : .integer, at)
            columnNames[p.id] = at
            position = p
            if alias?.position != nil { columns.append((at, p)) }
        }
        return (.unnest(plan, array: array, element: element, position: position),
                ScopeRelation(alias: elementName, columns: columns))
    }

    func checkDuplicateAliases(_ a: Scope, _ b: Scope, _ loc: SourceLocation) throws {
        for r in b.relations where a.relations.contains(where: { $0.alias == r.alias }) {
            throw SQLError(.duplicateTable, "table name \"\(r.alias)\" specified more than once", line: loc.line, column: loc.column)
        }
    }

    /// The CTE `name` refers to here, with where it sits in `cteStack`. A CTE sees the CTEs
    /// before it in its own WITH list and those of enclosing queries, never itself or later
    /// siblings (PostgreSQL's rule without RECURSIVE): `WITH r AS (SELECT * FROM r)` reads
    /// a table `r`, not itself.
    func lookupCTE(_ name: String, location: SourceLocation) throws -> (cte: CommonTableExpr, frame: Int, position: Int)? {
        for f in cteStack.indices.reversed() {
            guard let (position, cte) = cteStack[f].entries[name] else { continue }
            if position < cteStack[f].visible { return (cte, f, position) }
            if position == cteStack[f].visible && cteStack[f].recursive {
                throw SQLError(.featureNotSupported, "recursive reference to query \"\(name)\" is not supported",
                               line: location.line, column: location.column)
            }
        }
        return nil
    }

    func bindTableRef(_ ref: TableRef) throws -> (LogicalPlan, Scope) {
        switch ref.kind {
        case .function(let call, let alias) where call.name == "unnest":
            return try unnestFunction(call, alias: alias, ref)
        case .function(let call, let alias):
            let plan = try generateSeries(call, ref)
            let name = alias?.name ?? "generate_series"
            let column = alias?.columns.first ?? name
            return relation(plan, alias: name, columnAliases: [column])
        case .table(let name, let alias):
            if alias?.position != nil || alias?.unpivot == true {
                throw SQLError(.syntax, "AT and UNPIVOT apply to a SUPER value of an earlier FROM item (`c.orders AS o AT i`), not to \(name.description)",
                               line: ref.location.line, column: ref.location.column)
            }
            if name.schema == nil, let (cte, f, position) = try lookupCTE(name.name, location: ref.location) {
                // Bind the CTE's query where it is referenced, seeing only what it may see:
                // the enclosing WITH lists and the siblings before it.
                let saved = cteStack
                cteStack.removeSubrange((f + 1)...)
                cteStack[f].visible = position
                defer { cteStack = saved }
                let plan = try bind(query: cte.query)
                let aliasColumns = alias?.columns ?? []
                return relation(plan, alias: alias?.name ?? cte.name,
                                columnAliases: aliasColumns.isEmpty ? cte.columns : aliasColumns)
            }
            if requireQualifiedNames && name.schema == nil && viewStack.isEmpty {
                throw SQLError(.invalidObjectDefinition, "All the relation names inside should be qualified",
                               line: ref.location.line, column: ref.location.column)
            }
            let found = try catalog.relation(name, searchPath: viewSearchPath)
            if case .view(let view) = found {
                // A view met again inside its own expansion is a cycle (late-binding views
                // can make one); a long chain of distinct views is only deep.
                if viewStack.contains(where: { $0.schema == view.schema && $0.name == view.name }) {
                    throw SQLError(.invalidObjectDefinition, "infinite recursion detected: view \"\(view.name)\" refers to itself")
                }
                guard viewDepth < Self.maxViewDepth else {
                    throw SQLError(.programLimitExceeded,
                                   "views nested too deeply: \"\(view.name)\" is reached through more than \(Self.maxViewDepth) views",
                                   hint: "Slicehouse expands at most \(Self.maxViewDepth) views inside one another.")
                }
                let query: Query
                do {
                    // A late-binding view is read as the querying session reads SQL
                    // (Redshift); a schema-binding one as when it was made.
                    guard let q = try view.parsedQuery(options: view.lateBinding ? catalog.sessionParseOptions() : nil) else {
                        throw SQLError.internalError("view \(view.name) does not hold a query")
                    }
                    query = q
                }
                noteRelationUse(ref, .view(view.qualifiedName), hasAlias: alias != nil)
                accesses.append(RelationAccess(object: .view(view), enclosingView: viewStack.last, columnIDs: []))
                viewDepth += 1
                viewStack.append(view)
                defer { viewDepth -= 1; viewStack.removeLast() }
                let saved = cteStack
                cteStack = []   // a view sees no CTEs of the query that uses it
                let savedPath = viewSearchPath
                viewSearchPath = view.searchPath  // and finds names as its creator did
                defer { cteStack = saved; viewSearchPath = savedPath }
                let plan = try bind(query: query)
                let aliasColumns = alias?.columns ?? []
                return relation(plan, alias: alias?.name ?? view.name,
                                columnAliases: aliasColumns.isEmpty ? view.columns : aliasColumns)
            }
            guard case .table(let table) = found else {
                throw SQLError(.undefinedTable, "relation \"\(name.messageName)\" does not exist",
                               line: ref.location.line, column: ref.location.column)
            }
            let relAlias = alias?.name ?? table.name
            var cols: [(String, PlanColumn)] = []
            for (i, c) in table.columns.enumerated() {
                let aliasColumns = alias?.columns ?? []
                let n = aliasColumns.count > i ? aliasColumns[i] : c.name
                let pc = newColumn(c.type, n)
                columnNames[pc.id] = n
                cols.append((n, pc))
            }
            noteRelationUse(ref, .table(table.id), hasAlias: alias != nil)
            accesses.append(RelationAccess(object: .table(table), enclosingView: viewStack.last, columnIDs: cols.map { $0.1.id }))
            let plan = LogicalPlan.scan(table: table, alias: relAlias, columns: Array(0..<table.columns.count),
                                        outputs: cols.map { $0.1 }, filters: [])
            // An external table's pseudo-columns are named, never listed by `*`.
            let pseudo = table.external.map { table.columns.count - $0.pseudoColumns..<table.columns.count } ?? 0..<0
            return (plan, Scope(relations: [ScopeRelation(alias: relAlias, columns: cols,
                                                          hidden: Set(pseudo.map { cols[$0].1.id }))]))
        case .subquery(let q, let alias):
            let plan = try bind(query: q)
            // Redshift accepts a derived table without an alias (redshift_connector's
            // get_columns sends one); its columns are then reached unqualified.
            guard let alias else { return relation(plan, alias: "?subquery?", columnAliases: []) }
            return relation(plan, alias: alias.name, columnAliases: alias.columns)
        case .join(let j):
            let (lp, ls) = try bindTableRef(j.left)
            let (rp, rs) = try bindTableRef(j.right)
            try checkDuplicateAliases(ls, rs, ref.location)
            var scope = ls
            scope.append(rs)
            let kind: LogicalJoinKind
            switch j.kind {
            case .inner: kind = .inner
            case .left: kind = .left
            case .right: kind = .right
            case .full: kind = .full
            case .cross: kind = .cross
            }
            var condition: BoundExpr? = nil
            switch j.condition {
            case .none: break
            case .on(let e):
                let savedPending = pendingSubqueries, savedCorrelated = boundCorrelatedSubquery, savedDepth = onClauseDepth
                pendingSubqueries = []
                boundCorrelatedSubquery = false
                onClauseDepth = outerScopes.count
                defer { pendingSubqueries = savedPending; boundCorrelatedSubquery = savedCorrelated; onClauseDepth = savedDepth }
                let b = try bindExpr(e, scope, agg: nil)
                try requireBoolean(b, "JOIN/ON", e.location)
                if !pendingSubqueries.isEmpty {
                    return (try joinWithSubqueries(kind, lp, rp, b, correlated: boundCorrelatedSubquery, e), scope)
                }
                condition = b
            case .using, .natural:
                var using: [String]
                if case .using(let n) = j.condition { using = n } else {
                    let rnames = Set(rs.visibleNames)
                    using = ls.visibleNames.filter { rnames.contains($0) }
                }
                var conds: [BoundExpr] = []
                var merged: [(name: String, column: PlanColumn)] = []
                var coalesced: [(column: PlanColumn, expr: BoundExpr)] = []
                for n in using where !merged.contains(where: { $0.name == n }) {
                    let ref1 = ColumnRef([n])
                    let a = try ls.resolve(ref1, at: ref.location), b = try rs.resolve(ref1, at: ref.location)
                    referencedColumnIDs.insert(a.id)
                    referencedColumnIDs.insert(b.id)
                    conds.append(try comparison(.equal, .column(a.id, a.type), .column(b.id, b.type)))
                    // One column of the name stands for both sides' (PostgreSQL's rule): the
                    // side every row has a value from, or for a full join their COALESCE.
                    switch kind {
                    case .right:
                        merged.append((n, b))
                    case .full:
                        let type = TypeRules.commonType(a.type, b.type) ?? a.type
                        let column = newColumn(type, n)
                        columnNames[column.id] = n
                        let expr = BoundExpr.function(Builtins.conditional.coalesce,
                                                      [try coerce(.column(a.id, a.type), to: type),
                                                       try coerce(.column(b.id, b.type), to: type)], type)
                        coalesced.append((column, expr))
                        merged.append((n, column))
                    default:
                        merged.append((n, a))
                    }
                    scope.mergedAway.insert(a.id)
                    scope.mergedAway.insert(b.id)
                }
                // A side's own merged column of the name is merged again here.
                scope.merged = merged + scope.merged.filter { m in !merged.contains { $0.name == m.name } }
                condition = conds.isEmpty ? nil : (conds.count == 1 ? conds[0] : .and(conds))
                if !coalesced.isEmpty {
                    let joined = LogicalPlan.join(kind, lp, rp, condition: condition)
                    let outputs = joined.outputs
                    let plan = LogicalPlan.project(joined, outputs.map { .column($0.id, $0.type) } + coalesced.map { $0.expr },
                                                   outputs: outputs + coalesced.map { $0.column })
                    return (plan, scope)
                }
            }
            return (.join(condition == nil && kind == .inner ? .cross : kind, lp, rp, condition: condition), scope)
        }
    }

    func relation(_ plan: LogicalPlan, alias: String, columnAliases: [String]) -> (LogicalPlan, Scope) {
        let outs = plan.outputs
        var cols: [(String, PlanColumn)] = []
        for (i, c) in outs.enumerated() {
            let n = i < columnAliases.count ? columnAliases[i] : c.name
            columnNames[c.id] = n
            cols.append((n, c))
        }
        return (plan, Scope(relations: [ScopeRelation(alias: alias, columns: cols)]))
    }
}

/// One WITH list in scope: its CTEs by lower-cased name with their positions. While a CTE's
/// own query is bound, `visible` is its position, so only earlier siblings resolve.
struct CTEFrame {
    var entries: [String: (position: Int, cte: CommonTableExpr)] = [:]
    var recursive: Bool
    var visible = Int.max
}

/// A table or view a statement names, for privilege checks: which columns of a table
/// it references, and the view it was named in (read with the view owner's rights).
public struct RelationAccess: Sendable {
    public enum Object: Sendable { case table(TableDef), view(ViewDef) }
    public var object: Object
    public var enclosingView: ViewDef?
    /// A table's columns' plan column ids (index = column number).
    var columnIDs: [Int]
}

extension Binder {
    /// The tables and views the bound statement names, each with the column numbers its
    /// expressions reference (`SELECT *` references every column; `count(*)` none).
    public func relationAccesses() -> [(access: RelationAccess, columns: [Int])] {
        accesses.map { a in (a, a.columnIDs.indices.filter { referencedColumnIDs.contains(a.columnIDs[$0]) }) }
    }
}

extension Binder {
    /// `SELECT generate_series(1, c) AS i, ... FROM ...` (a set-returning function in the
    /// select list): each row of the FROM clause (after WHERE) once per value of its own
    /// series, as PostgreSQL runs it. Redshift runs this on the leader only, over catalog
    /// tables: a FROM clause that reads a user table is refused with Redshift's error.
    /// The series is an array per row, unnested; the select item becomes its element.
    func bindSeriesItems(_ s: inout Select, _ plan: LogicalPlan, _ scope: Scope) throws -> (LogicalPlan, Scope) {
        var plan = plan, scope = scope
        for (k, item) in s.items.enumerated() {
            guard case .expr(let e, let alias) = item, case .function(let call) = e.kind, call.name == "generate_series",
                  call.schema == nil || call.schema == "pg_catalog", call.over == nil, !call.star, !call.distinct else { continue }
            guard call.args.count == 2 || call.args.count == 3 else {
                throw err(.undefinedFunction, "function generate_series with \(call.args.count) arguments does not exist", e)
            }
            if Binder.readsUserTable(plan) {
                throw SQLError(.featureNotSupported,
                               "Specified types or functions (one per INFO message) not supported on Redshift tables.",
                               line: e.location.line, column: e.location.column,
                               detail: "generate_series runs on the leader node only: over catalog tables, or in FROM with constant arguments")
            }
            var args: [BoundExpr] = []
            var type = DataType.integer
            for a in call.args {
                let b = try bindExpr(a, scope, agg: nil)
                switch b.type {
                case .smallint, .integer, .unknown: break
                case .bigint: type = .bigint
                default:
                    throw err(.undefinedFunction, "function generate_series(\(TypeRules.displayName(b.type))) does not exist: its arguments are integers", a)
                }
                args.append(try coerce(b, to: .bigint))
            }
            let array = BoundExpr.function(Builtins.internals.seriesArray, args, .superType)
            let name = "?series\(k)?"
            let element = newColumn(.superType, "generate_series")
            columnNames[element.id] = "generate_series"
            plan = .unnest(plan, array: array, element: element, position: nil)
            scope.relations.append(ScopeRelation(alias: name, columns: [("generate_series", element)]))
            let value = Expr(.cast(Expr(.column(ColumnRef(table: name, "generate_series")), at: e.location), type, .cast), at: e.location)
            s.items[k] = .expr(value, alias: alias ?? "generate_series")
        }
        // information_schema._pg_expandarray(a), PostgreSQL's set-returning function of
        // pgjdbc's key metadata (getPrimaryKeys over pg_index.indkey): a row per element
        // with its value `x` and position `n`, here a SUPER object {"x": .., "n": ..}
        // (so `(_pg_expandarray(a)).n` navigates it). Calls with the same argument run in
        // lockstep, one row per element for them all, as PostgreSQL runs equal-length
        // set-returning functions; on the leader only, as generate_series.
        var expansions: [Expr: (name: String, element: PlanColumn)] = [:]
        func expand(_ e: Expr) throws -> Expr {
            guard case .function(var call) = e.kind, call.over == nil else { return e }
            guard call.name == "_pg_expandarray", call.schema == nil || call.schema == "information_schema" else {
                call.args = try call.args.map(expand)
                return Expr(.function(call), at: e.location)
            }
            guard call.args.count == 1, !call.star, !call.distinct else {
                throw err(.undefinedFunction, "function _pg_expandarray with \(call.args.count) arguments does not exist", e)
            }
            let argument = call.args[0]
            if let known = expansions[argument] {
                return Expr(.column(ColumnRef(table: known.name, "_pg_expandarray")), at: e.location)
            }
            if Binder.readsUserTable(plan) {
                throw SQLError(.featureNotSupported,
                               "Specified types or functions (one per INFO message) not supported on Redshift tables.",
                               line: e.location.line, column: e.location.column,
                               detail: "_pg_expandarray runs on the leader node only, over catalog tables")
            }
            let bound = try bindExpr(argument, scope, agg: nil)
            guard bound.type.isString || bound.type == .unknown else {
                throw err(.undefinedFunction, "function _pg_expandarray(\(TypeRules.displayName(bound.type))) does not exist", e)
            }
            let array = BoundExpr.function(Builtins.internals.expandArray,
                                           [try coerce(bound, to: .varchar(DataType.maxVarcharLength))], .superType)
            let name = "?expand\(expansions.count)?"
            let element = newColumn(.superType, "_pg_expandarray")
            columnNames[element.id] = "_pg_expandarray"
            plan = .unnest(plan, array: array, element: element, position: nil)
            scope.relations.append(ScopeRelation(alias: name, columns: [("_pg_expandarray", element)]))
            expansions[argument] = (name, element)
            return Expr(.column(ColumnRef(table: name, "_pg_expandarray")), at: e.location)
        }
        for (k, item) in s.items.enumerated() {
            guard case .expr(let e, let alias) = item else { continue }
            let rewritten = try expand(e)
            if rewritten != e {
                s.items[k] = .expr(rewritten, alias: alias)
            }
        }
        return (plan, scope)
    }

    /// The hidden column a scan yields each row's id in (`slice << 40 | row`; the scan
    /// operator knows it by this name, SlicehouseStorage's `rowIDColumnName`).
    static let rowIDColumnName = "__rowid"

    /// Whether a SELECT's expressions call SLICE_NUM().
    static func callsSliceNum(_ s: Select, _ orderBy: [OrderItem]) -> Bool {
        func calls(_ e: Expr) -> Bool {
            switch e.kind {
            case .function(let f): return (f.name == "slice_num" && f.args.isEmpty) || f.args.contains(where: calls)
            case .unary(_, let a), .isNull(let a, _), .isBoolean(let a, _, _), .cast(let a, _, _): return calls(a)
            case .binary(_, let a, let b), .isDistinctFrom(let a, let b, _): return calls(a) || calls(b)
            case .between(let a, let l, let h, _): return calls(a) || calls(l) || calls(h)
            case .inList(let a, let l, _): return calls(a) || l.contains(where: calls)
            case .like(_, let a, let p, _, _): return calls(a) || calls(p)
            case .caseWhen(let c):
                return (c.operand.map(calls) ?? false) || c.whens.contains { calls($0.condition) || calls($0.result) }
                    || (c.elseResult.map(calls) ?? false)
            default: return false
            }
        }
        let items = s.items.contains { if case .expr(let e, _) = $0 { return calls(e) }; return false }
        return items || (s.whereClause.map(calls) ?? false) || (s.having.map(calls) ?? false) || orderBy.contains { calls($0.expr) }
    }

    /// `plan` with its first user table's scan also yielding row ids, and that column; nil
    /// when the FROM clause reads no table directly (only derived tables, or none).
    func addRowIDColumn(_ plan: LogicalPlan) -> (LogicalPlan, PlanColumn)? {
        switch plan {
        case .scan(let table, let alias, let columns, let outputs, let filters) where table.id >= 0:
            var t = table
            if let i = t.columns.firstIndex(where: { $0.name == Binder.rowIDColumnName }),
               let k = columns.firstIndex(of: i) {
                return (plan, outputs[k])
            }
            t.columns.append(ColumnDef(name: Binder.rowIDColumnName, type: .bigint))
            let column = newColumn(.bigint, Binder.rowIDColumnName)
            return (.scan(table: t, alias: alias, columns: columns + [t.columns.count - 1], outputs: outputs + [column],
                          filters: filters), column)
        case .filter(let p, let e):
            return addRowIDColumn(p).map { (.filter($0.0, e), $0.1) }
        case .join(let kind, let l, let r, let c):
            if let (l2, column) = addRowIDColumn(l) { return (.join(kind, l2, r, condition: c), column) }
            guard !kind.keepsLeftOnly, let (r2, column) = addRowIDColumn(r) else { return nil }
            return (.join(kind, l, r2, condition: c), column)
        case .unnest(let p, let a, let e, let i):
            return addRowIDColumn(p).map { (.unnest($0.0, array: a, element: e, position: i), $0.1) }
        default:
            return nil
        }
    }

    /// Whether the plan reads a user table (system tables have negative ids).
    static func readsUserTable(_ plan: LogicalPlan) -> Bool {
        var found = false
        func visit(_ p: LogicalPlan) -> LogicalPlan {
            if case .scan(let table, _, _, _, _) = p, table.id >= 0 { found = true }
            return p.mapChildren(visit)
        }
        _ = visit(plan)
        return found
    }

    /// The most rows `generate_series` makes (it runs on the leader, as in Redshift).
    static let seriesMaxRows = 1_000_000

    /// `unnest(array) [AS] x [(c)]` in FROM: a row per element of an array — in
    /// PostgreSQL's text form (the catalog's arrays: pg_class.reloptions, ACLs), each
    /// element a VARCHAR, or a SUPER array, each element a SUPER. The argument may read
    /// the enclosing query's columns (psql's `array(select ... from unnest(tc.reloptions) x)`):
    /// the decorrelation unnests each outer row's own array.
    func unnestFunction(_ call: FunctionCall, alias: TableAlias?, _ ref: TableRef) throws -> (LogicalPlan, Scope) {
        guard call.args.count == 1, !call.star, !call.distinct, call.schema == nil || call.schema == "pg_catalog" else {
            throw SQLError(.undefinedFunction, "function unnest with \(call.args.count) arguments does not exist",
                           line: ref.location.line, column: ref.location.column)
        }
        let argument = try bindExpr(call.args[0], Scope(relations: []), agg: nil)
        let name = alias?.name ?? "unnest"
        let columnName = alias?.columns.first ?? name
        let element = newColumn(.superType, columnName)
        if argument.type == .superType {
            let plan = LogicalPlan.unnest(.values([[]], outputs: []), array: argument, element: element, position: nil)
            return relation(plan, alias: name, columnAliases: [columnName])
        }
        guard argument.type.isString || argument.type == .unknown else {
            throw SQLError(.undefinedFunction, "function unnest(\(TypeRules.displayName(argument.type))) does not exist: it takes an array",
                           line: call.args[0].location.line, column: call.args[0].location.column)
        }
        let long = DataType.varchar(DataType.maxVarcharLength)
        let array = BoundExpr.function(Builtins.internals.arrayTextToSuper, [try coerce(argument, to: long)], .superType)
        let unnested = LogicalPlan.unnest(.values([[]], outputs: []), array: array, element: element, position: nil)
        let text = newColumn(long, columnName)
        let plan = LogicalPlan.project(unnested, [try coerce(.column(element.id, .superType), to: long)], outputs: [text])
        return relation(plan, alias: name, columnAliases: [columnName])
    }

    /// `generate_series(start, stop [, step])` over integers: the values from `start` to
    /// `stop` by `step` (default 1; a negative step counts down), as rows of one column
    /// of the arguments' type. The arguments must be constants.
    func generateSeries(_ call: FunctionCall, _ ref: TableRef) throws -> LogicalPlan {
        guard call.name == "generate_series", call.args.count == 2 || call.args.count == 3, !call.star, !call.distinct else {
            throw SQLError(.undefinedFunction, "function \(call.name) with \(call.args.count) arguments does not exist in FROM",
                           line: ref.location.line, column: ref.location.column)
        }
        let bound = try call.args.map { try bindExpr($0, Scope(relations: []), agg: nil) }
        // generate_series(start timestamp, stop timestamp, step interval).
        if bound.count == 3, bound[0].type.isTemporal || bound[1].type.isTemporal || bound[2].type == .interval {
            return try timestampSeries(call, bound)
        }
        var values: [Int64] = []
        var type = DataType.integer
        for (a, b) in zip(call.args, bound) {
            switch b.type {
            case .smallint, .integer, .unknown: break
            case .bigint: type = .bigint
            default:
                throw SQLError(.undefinedFunction, "function generate_series(\(TypeRules.displayName(b.type))) does not exist: its arguments are integers",
                               line: a.location.line, column: a.location.column)
            }
            guard case .constant = b, case .int(let v) = try evaluateConstant(b) else {
                throw SQLError(.featureNotSupported, "generate_series takes constant integer arguments",
                               line: a.location.line, column: a.location.column)
            }
            values.append(v)
        }
        let start = values[0], stop = values[1], step = values.count == 3 ? values[2] : 1
        guard step != 0 else { throw SQLError(.invalidParameter, "step size cannot equal zero") }
        var rows: [[BoundExpr]] = []
        var v = start
        while step > 0 ? v <= stop : v >= stop {
            guard rows.count < Binder.seriesMaxRows else {
                throw SQLError(.invalidParameter, "generate_series makes at most \(Binder.seriesMaxRows) rows")
            }
            rows.append([.constant(.int(v), type)])
            let (next, overflow) = v.addingReportingOverflow(step)
            if overflow { break }
            v = next
        }
        return .values(rows, outputs: [newColumn(type, "generate_series")])
    }

    /// generate_series(start, stop, interval) over TIMESTAMP (or TIMESTAMPTZ) constants.
    func timestampSeries(_ call: FunctionCall, _ bound: [BoundExpr]) throws -> LogicalPlan {
        let type: DataType = bound[0].type == .timestamptz || bound[1].type == .timestamptz ? .timestamptz : .timestamp
        func constant(_ i: Int, _ t: DataType) throws -> Value {
            let b = bound[i]
            guard b.referencedColumns.isEmpty else {
                throw SQLError(.featureNotSupported, "generate_series takes constant arguments",
                               line: call.args[i].location.line, column: call.args[i].location.column)
            }
            return try evaluateConstant(try coerce(b, to: t))
        }
        guard case .int(let start) = try constant(0, type), case .int(let stop) = try constant(1, type),
              case .int128(let packed) = try constant(2, .interval) else {
            return .values([], outputs: [newColumn(type, "generate_series")])
        }
        let step = IntervalValue(packed: packed)
        guard let length = step.comparableMicros, length != 0 else {
            throw SQLError(.invalidParameter, "step size cannot equal zero")
        }
        let (dayMicros, o1) = step.days.multipliedReportingOverflow(by: DateTime.microsPerDay)
        let (delta, o2) = dayMicros.addingReportingOverflow(step.micros)
        if o1 || o2 { throw SQLError(.datetimeOverflow, "interval out of range") }
        var rows: [[BoundExpr]] = []
        var k: Int64 = 0
        while true {
            // start + k * step, computed from the start so month steps do not drift (Jan 31 + 1 mon, + 2 mons).
            let (v, overflow) = DateTime.addInterval(start, months: step.months &* k, deltaMicros: delta &* k)
            if overflow || (length > 0 ? v > stop : v < stop) { break }
            guard rows.count < Binder.seriesMaxRows else {
                throw SQLError(.invalidParameter, "generate_series makes at most \(Binder.seriesMaxRows) rows")
            }
            rows.append([.constant(.int(v), type)])
            k += 1
        }
        return .values(rows, outputs: [newColumn(type, "generate_series")])
    }
}

/// One of two kinds of value.
enum Either<L, R> {
    case left(L)
    case right(R)
}

/// An input column a select list's `*` stands for, with its output name.
struct StarColumn {
    var column: PlanColumn
    var name: String
}
