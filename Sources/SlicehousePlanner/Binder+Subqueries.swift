// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan
import SlicehouseFunctions
import SlicehouseCatalog
import SlicehouseSQL

/// Subqueries are decorrelated into joins; none runs once per outer row.
///
/// | written                                   | plan                                                            |
/// |-------------------------------------------|-----------------------------------------------------------------|
/// | `EXISTS (q)` / `x IN (q)` as a WHERE conjunct | semi / anti join; q's correlated predicates join the two sides |
/// | `x NOT IN (q)` uncorrelated, as a conjunct | null-aware anti join                                            |
/// | `EXISTS (q)` anywhere else                | left join against q's distinct correlation keys and a TRUE marker; EXISTS is `marker IS NOT NULL` |
/// | `x IN (q)` anywhere else, `x = ANY (q)`   | EXISTS (q where v = x), plus COUNT(*) and COUNT(v) of q for SQL's NULL answers |
/// | `x < ANY (q)`, `x >= ALL (q)`, ...        | MIN, MAX, COUNT(*), COUNT(v) of q per outer row                  |
/// | scalar `(q)`                              | left join against q's single row, or q grouped by its correlation keys |
///
/// Per shape of correlation:
/// - none: the subquery's result is one row (or a set) joined in as it is;
/// - equalities `inner = outer` that can be lifted out of q (through filters, projections
///   and inner joins): q is grouped by the inner sides and left-joined on them (*keyed*);
/// - anything else (non-equality predicates, outer columns in the select list, under an
///   aggregate, a LIMIT, a UNION, an outer join): a *dependent join*
///   (`Binder+Decorrelation.swift`) pushes the distinct outer values into q.
///
/// As Redshift, a subquery may reference only the query block directly around it
/// (no skip-level correlation), a correlated subquery may not hold a window function, and
/// a correlated subquery may not stand in an outer join's ON clause: those are Redshift's
/// `This type of correlated subquery pattern is not supported yet`.
extension Binder {
    static let unsupportedCorrelation = "This type of correlated subquery pattern is not supported yet"

    /// Bind a subquery with `scope` visible as its outer scope. Returns the plan and
    /// the outer column ids it references.
    func bindSubquery(_ q: Query, outer scope: Scope) throws -> (LogicalPlan, Set<Int>) {
        outerScopes.append(scope)
        let savedCorrelated = correlatedIDs
        correlatedIDs = []
        defer { outerScopes.removeLast() }
        let plan = try bind(query: q)
        let used = correlatedIDs
        correlatedIDs = savedCorrelated
        if !used.isEmpty && outerScopes.count == onClauseDepth + 1 { boundCorrelatedSubquery = true }
        if !used.isEmpty && containsWindow(plan) {
            throw SQLError(.featureNotSupported, Binder.unsupportedCorrelation,
                           line: q.location.line, column: q.location.column)
        }
        return (plan, used)
    }

    func containsWindow(_ plan: LogicalPlan) -> Bool {
        switch plan {
        case .window: return true
        case .scan, .values: return false
        case .filter(let p, _), .project(let p, _, _), .aggregate(let p, _, _, _), .sort(let p, _),
             .limit(let p, _, _), .distinct(let p), .unnest(let p, _, _, _):
            return containsWindow(p)
        case .join(_, let l, let r, _), .setOperation(_, _, let l, let r, _):
            return containsWindow(l) || containsWindow(r)
        }
    }

    // MARK: - Expressions

    /// A scalar subquery `(q)`: its value becomes a column joined into the current clause.
    func bindScalarSubquery(_ q: Query, _ e: Expr, _ scope: Scope, agg: AggregationContext?) throws -> BoundExpr {
        let (plan, correlated) = try bindSubquery(q, outer: scope)
        guard plan.outputs.count == 1 else {
            throw err(.syntax, "subquery must return only one column", e)
        }
        return try joinScalar(plan, correlated: correlated, e, agg: agg)[0]
    }

    /// `EXISTS (q)` as a value: TRUE or FALSE, never NULL.
    func bindExistsValue(_ q: Query, _ e: Expr, _ scope: Scope, agg: AggregationContext?) throws -> BoundExpr {
        let (plan, correlated) = try bindSubquery(q, outer: scope)
        return try existsMark(plan, correlated: correlated, e, agg: agg)
    }

    /// `x [NOT] IN (q)` as a value, with SQL's NULLs: TRUE when some row equals x; else
    /// NULL when q has rows and x or some row's value is NULL; else FALSE.
    func bindInValue(_ x: Expr, _ q: Query, negated: Bool, _ e: Expr, _ scope: Scope, agg: AggregationContext?) throws -> BoundExpr {
        if let row = rowElements(x) {
            let xs = try row.map { try finishAggregate(try bindExpr($0, scope, agg: agg), agg, $0.location) }
            let (plan, correlated) = try bindSubquery(q, outer: scope)
            _ = try rowSubqueryEqualities(xs, plan, e)
            let v = try rowInValue(xs, plan, correlated: correlated, e, agg: agg)
            return negated ? .unary(.not, v, .boolean) : v
        }
        let bx = try finishAggregate(try bindExpr(x, scope, agg: agg), agg, x.location)
        let (plan, correlated) = try bindSubquery(q, outer: scope)
        guard plan.outputs.count == 1 else { throw err(.syntax, "subquery has too many columns", e) }
        let v = try inValue(bx, plan, correlated: correlated, e, agg: agg)
        return negated ? .unary(.not, v, .boolean) : v
    }

    func inValue(_ bx: BoundExpr, _ plan: LogicalPlan, correlated: Set<Int>, _ e: Expr, agg: AggregationContext?) throws -> BoundExpr {
        let v = plan.outputs[0]
        bx.visit { if case .column(let id, let t) = $0 { columnTypes[id] = t } }
        let eq = try comparison(.equal, bx, .column(v.id, v.type))
        // x's columns are outer columns of the match test.
        let match = try existsMark(.filter(plan, eq), correlated: correlated.union(bx.referencedColumns), e, agg: agg)
        let counts = try aggregateValues(plan, [(.countStar, nil, .bigint), (.count, .column(v.id, v.type), .bigint)],
                                         correlated: correlated, e, agg: agg)
        let cnt = counts[0], nn = counts[1]
        let zero = BoundExpr.constant(.int(0), .bigint)
        return .caseWhen([WhenClause(condition: match, result: .constant(.bool(true), .boolean)),
                          WhenClause(condition: .binary(.equal, cnt, zero, .boolean), result: .constant(.bool(false), .boolean)),
                          WhenClause(condition: .or([.isNull(bx, negated: false), .binary(.less, nn, cnt, .boolean)]),
                                     result: .constant(.null, .boolean))],
                         elseResult: .constant(.bool(false), .boolean), .boolean)
    }

    /// `x op ANY|ALL (q)`.
    func bindQuantified(_ op: BinaryOperator, _ x: Expr, _ quantifier: Quantifier, _ q: Query, _ e: Expr,
                        _ scope: Scope, agg: AggregationContext?) throws -> BoundExpr {
        guard let bop = BinaryOp(rawValue: op.rawValue == "!=" ? "<>" : op.rawValue), bop.isComparison else {
            throw err(.syntax, "ANY/ALL needs a comparison operator", e)
        }
        let bx = try finishAggregate(try bindExpr(x, scope, agg: agg), agg, x.location)
        let (plan, correlated) = try bindSubquery(q, outer: scope)
        guard plan.outputs.count == 1 else { throw err(.syntax, "subquery has too many columns", e) }
        // x op ALL (q)  ==  NOT (x (not op) ANY (q))
        let anyOp: BinaryOp
        if quantifier == .any { anyOp = bop } else {
            switch bop {
            case .equal: anyOp = .notEqual
            case .notEqual: anyOp = .equal
            case .less: anyOp = .greaterEqual
            case .lessEqual: anyOp = .greater
            case .greater: anyOp = .lessEqual
            default: anyOp = .less
            }
        }
        let result: BoundExpr
        if anyOp == .equal {
            result = try inValue(bx, plan, correlated: correlated, e, agg: agg)
        } else {
            let v = plan.outputs[0]
            let vc = BoundExpr.column(v.id, v.type)
            let vals = try aggregateValues(plan, [(.countStar, nil, .bigint), (.count, vc, .bigint),
                                                  (.min, vc, v.type), (.max, vc, v.type)],
                                           correlated: correlated, e, agg: agg)
            let cnt = vals[0], nn = vals[1], mn = vals[2], mx = vals[3]
            let hit: BoundExpr
            switch anyOp {
            case .less, .lessEqual: hit = try comparison(anyOp, bx, mx)
            case .greater, .greaterEqual: hit = try comparison(anyOp, bx, mn)
            default: hit = .or([try comparison(.notEqual, bx, mn), try comparison(.notEqual, bx, mx)])
            }
            let zero = BoundExpr.constant(.int(0), .bigint)
            result = .caseWhen([WhenClause(condition: .binary(.equal, cnt, zero, .boolean), result: .constant(.bool(false), .boolean)),
                                WhenClause(condition: hit, result: .constant(.bool(true), .boolean)),
                                WhenClause(condition: .or([.isNull(bx, negated: false), .binary(.less, nn, cnt, .boolean)]),
                                           result: .constant(.null, .boolean))],
                               elseResult: .constant(.bool(false), .boolean), .boolean)
        }
        return quantifier == .any ? result : .unary(.not, result, .boolean)
    }

    // MARK: - Building blocks

    /// TRUE when `plan` has a row for the current outer row, else FALSE.
    func existsMark(_ plan: LogicalPlan, correlated: Set<Int>, _ e: Expr, agg: AggregationContext?) throws -> BoundExpr {
        let marker = newColumn(.boolean, "?exists?")
        scalarOutputIDs.insert(marker.id)
        let mark = BoundExpr.isNull(.column(marker.id, .boolean), negated: true)
        let trueValue = BoundExpr.constant(.bool(true), .boolean)
        if correlated.isEmpty {
            pendingSubqueries.append(PendingSubquery(
                plan: .limit(.project(plan, [trueValue], outputs: [marker]), limit: 1, offset: 0), join: .single))
            return mark
        }
        if let (stripped, keys) = keyedCorrelation(plan, correlated) {
            let inner = keys.map { newColumn($0.inner.type, "?key?") }
            let m = LogicalPlan.distinct(.project(stripped, keys.map { $0.inner } + [trueValue], outputs: inner + [marker]))
            let outer = try keys.map { try finishAggregate($0.outer, agg, e.location) }
            pendingSubqueries.append(PendingSubquery(plan: m, join: .keyed(Array(zip(outer, inner)))))
            return mark
        }
        pendingSubqueries.append(PendingSubquery(
            plan: .project(plan, [trueValue], outputs: [marker]),
            join: .dependent(try correlationColumns(correlated, e, agg: agg), post: .distinct)))
        return mark
    }

    /// Aggregates over the rows of `plan` for the current outer row (COUNT is 0 over none).
    func aggregateValues(_ plan: LogicalPlan, _ specs: [(AggregateFunction, BoundExpr?, DataType)],
                         correlated: Set<Int>, _ e: Expr, agg: AggregationContext?) throws -> [BoundExpr] {
        let aggs = specs.map { LogicalAggregate(function: $0.0, argument: $0.1, distinct: false, output: newColumn($0.2, "?agg?")) }
        let outs = aggs.map { newColumn($0.output.type, "?value?") }
        let p = LogicalPlan.project(.aggregate(plan, groups: [], groupOutputs: [], aggregates: aggs),
                                    aggs.map { .column($0.output.id, $0.output.type) }, outputs: outs)
        return try joinScalar(p, correlated: correlated, e, agg: agg)
    }

    /// Join a subquery whose output columns are values per outer row (at most one row per
    /// outer row; more is an error) and return an expression per output column.
    func joinScalar(_ plan: LogicalPlan, correlated: Set<Int>, _ e: Expr, agg: AggregationContext?) throws -> [BoundExpr] {
        let outs = plan.outputs
        func columns(_ cs: [PlanColumn]) -> [BoundExpr] {
            for c in cs { scalarOutputIDs.insert(c.id) }
            return cs.map { .column($0.id, $0.type) }
        }
        if correlated.isEmpty {
            pendingSubqueries.append(PendingSubquery(plan: plan, join: .single))
            return columns(outs)
        }
        // An aggregate without GROUP BY over equality correlations: grouped by the inner keys.
        if case .project(let aggPlan, let exprs, _) = plan,
           case .aggregate(let input, let groups, let groupOutputs, let aggs) = aggPlan, groups.isEmpty,
           let (stripped, keys) = keyedCorrelation(input, correlated) {
            let inner = keys.map { newColumn($0.inner.type, "?corr?") }
            let grouped = LogicalPlan.aggregate(stripped, groups: groups + keys.map { $0.inner },
                                                groupOutputs: groupOutputs + inner, aggregates: aggs)
            let pass = inner.map { BoundExpr.column($0.id, $0.type) }
            // No group for this row's keys: the value over no rows (COUNT is 0).
            let noRows = exprs.map { valueOverNoRows($0, aggs) }
            let outer = try keys.map { try finishAggregate($0.outer, agg, e.location) }
            if noRows.allSatisfy({ $0 == nil }) {
                pendingSubqueries.append(PendingSubquery(plan: .project(grouped, exprs + pass, outputs: outs + inner),
                                                         join: .keyed(Array(zip(outer, inner)))))
                return columns(outs)
            }
            let matched = newColumn(.boolean, "?matched?")
            pendingSubqueries.append(PendingSubquery(
                plan: .project(grouped, exprs + pass + [.constant(.bool(true), .boolean)], outputs: outs + inner + [matched]),
                join: .keyed(Array(zip(outer, inner)))))
            let values = columns(outs)
            scalarOutputIDs.insert(matched.id)
            let missing = BoundExpr.isNull(.column(matched.id, .boolean), negated: false)
            return zip(values, noRows).map { value, none in
                guard let none else { return value }
                return .caseWhen([WhenClause(condition: missing, result: none)], elseResult: value, value.type)
            }
        }
        let isAggregate: Bool
        if case .project(.aggregate(_, let groups, _, _), _, _) = plan, groups.isEmpty { isAggregate = true } else { isAggregate = false }
        if isAggregate {
            // One row per outer row whatever the correlation: the dependent join groups by it.
            pendingSubqueries.append(PendingSubquery(plan: plan, join: .dependent(try correlationColumns(correlated, e, agg: agg), post: .none)))
            return columns(outs)
        }
        // Any other subquery may yield several rows for one outer row: group by the
        // correlation, count the rows and keep the value, and fail on a count above one.
        guard outs.count == 1 else { throw err(.syntax, "subquery must return only one column", e) }
        let value = outs[0]
        let single = SingleValue(value: value, count: newColumn(.bigint, "?count?"), output: newColumn(value.type, value.name))
        if let (stripped, keys) = keyedCorrelation(plan, correlated) {
            let inner = keys.map { newColumn($0.inner.type, "?corr?") }
            let grouped = singleValuePlan(stripped, groups: keys.map { $0.inner }, groupOutputs: inner, single)
            let outer = try keys.map { try finishAggregate($0.outer, agg, e.location) }
            pendingSubqueries.append(PendingSubquery(plan: grouped, join: .keyed(Array(zip(outer, inner)))))
        } else {
            pendingSubqueries.append(PendingSubquery(plan: plan, join: .dependent(try correlationColumns(correlated, e, agg: agg),
                                                                                      post: .single(single))))
        }
        return columns([single.output])
    }

    /// `input` grouped by `groups` with the row count and the value, filtered by a check
    /// that fails the statement where a group has more than one row.
    func singleValuePlan(_ input: LogicalPlan, groups: [BoundExpr], groupOutputs: [PlanColumn], _ s: SingleValue) -> LogicalPlan {
        // MAX keeps the one value (BOOLEAN through an integer).
        let isBool = s.value.type == .boolean
        let arg: BoundExpr = isBool ? .cast(.column(s.value.id, s.value.type), .integer) : .column(s.value.id, s.value.type)
        let kept = newColumn(arg.type, "?value?")
        let aggs = [LogicalAggregate(function: .countStar, argument: nil, distinct: false, output: s.count),
                    LogicalAggregate(function: .max, argument: arg, distinct: false, output: kept)]
        let grouped = LogicalPlan.aggregate(input, groups: groups, groupOutputs: groupOutputs, aggregates: aggs)
        let checked = LogicalPlan.filter(grouped, .function(Builtins.internals.singleRowCheck, [.column(s.count.id, .bigint)], .boolean))
        let keptValue: BoundExpr = isBool ? .cast(.column(kept.id, kept.type), .boolean) : .column(kept.id, kept.type)
        return .project(checked, groupOutputs.map { .column($0.id, $0.type) } + [keptValue], outputs: groupOutputs + [s.output])
    }

    /// The outer columns a dependent subquery references, each with the expression that
    /// reads it where the subquery is joined (a group output in an aggregating query).
    func correlationColumns(_ correlated: Set<Int>, _ e: Expr, agg: AggregationContext?) throws -> [CorrelatedColumn] {
        try correlated.sorted().map { id in
            let type = columnTypes[id] ?? .unknown
            return CorrelatedColumn(id: id, type: type, outer: try finishAggregate(.column(id, type), agg, e.location))
        }
    }

    /// `plan`'s correlated predicates when all are equalities `inner = outer` that can be
    /// lifted out (see `extractCorrelated`): the plan without them and the key pairs.
    func keyedCorrelation(_ plan: LogicalPlan, _ outerIDs: Set<Int>) -> (LogicalPlan, [(outer: BoundExpr, inner: BoundExpr)])? {
        let (stripped, preds) = extractCorrelated(plan, outerIDs: outerIDs)
        var keys: [(outer: BoundExpr, inner: BoundExpr)] = []
        for p in preds {
            guard case .binary(.equal, let a, let b, _) = p else { return nil }
            let aOuter = !a.referencedColumns.isDisjoint(with: outerIDs), bOuter = !b.referencedColumns.isDisjoint(with: outerIDs)
            let aInner = !a.referencedColumns.subtracting(outerIDs).isEmpty, bInner = !b.referencedColumns.subtracting(outerIDs).isEmpty
            if aOuter && !aInner && bInner && !bOuter { keys.append((a, b)) }
            else if bOuter && !bInner && aInner && !aOuter { keys.append((b, a)) }
            else { return nil }
        }
        if keys.isEmpty || referencesAny(stripped, outerIDs) { return nil }
        return (stripped, keys)
    }

    /// The value of `expr` (over the aggregate outputs of `aggs`) when the aggregate
    /// saw no rows: COUNT is 0, every other aggregate NULL. nil when that value is NULL
    /// (what the left join gives anyway) or not a constant.
    func valueOverNoRows(_ expr: BoundExpr, _ aggs: [LogicalAggregate]) -> BoundExpr? {
        var empty: [Int: BoundExpr] = [:]
        for a in aggs {
            switch a.function {
            case .countStar, .count, .approximateCountDistinct: empty[a.output.id] = .constant(.int(0), a.output.type)
            default: empty[a.output.id] = .constant(.null, a.output.type)
            }
        }
        let substituted = expr.transform { e in
            if case .column(let id, _) = e, let c = empty[id] { return c }
            return e
        }
        guard substituted.isConstant, let v = try? evaluateConstant(substituted), !v.isNull else { return nil }
        return .constant(v, expr.type)
    }

    // MARK: - Joining the clause's subqueries in

    /// Join the pending subqueries into `plan`, the input of the clause that uses them.
    func applyPendingScalars(_ plan: LogicalPlan) throws -> LogicalPlan {
        var p = plan
        let pending = pendingSubqueries
        pendingSubqueries = []
        for s in pending {
            switch s.join {
            case .single:
                p = .join(.leftSingle, p, s.plan, condition: nil)
            case .keyed(let keys):
                let conds = keys.map { BoundExpr.binary(.equal, $0.outer, .column($0.inner.id, $0.inner.type), .boolean) }
                p = .join(.left, p, s.plan, condition: conds.count == 1 ? conds[0] : .and(conds))
            case .dependent(let correlated, let post):
                // The distinct outer values come from the clause's input as it was before
                // any of its subqueries were joined in.
                let dj = DependentJoin(binder: self, outer: plan, correlated: correlated)
                var (q, dcols) = try dj.push(s.plan)
                switch post {
                case .none: break
                case .distinct: q = .distinct(q)
                case .single(let single):
                    let groups = correlated.compactMap { dcols[$0.id] }
                    let outs = groups.map { newColumn($0.type, $0.name) }
                    q = singleValuePlan(q, groups: groups.map { .column($0.id, $0.type) }, groupOutputs: outs, single)
                    dcols = Dictionary(uniqueKeysWithValues: zip(correlated.map { $0.id }, outs))
                }
                var conds: [BoundExpr] = []
                for c in correlated {
                    guard let d = dcols[c.id] else { throw SQLError.internalError("lost correlation column") }
                    conds += nullSafeEquality(c.outer, .column(d.id, d.type))
                }
                p = .join(.left, p, q, condition: conds.count == 1 ? conds[0] : .and(conds))
            }
        }
        return p
    }

    /// A join whose ON condition holds subqueries. Under an inner join they are joined
    /// into the product of both sides before the condition filters it; under an outer
    /// join they must be uncorrelated (Redshift's rule) and are joined into the side whose
    /// columns they compare with.
    func joinWithSubqueries(_ kind: LogicalJoinKind, _ l: LogicalPlan, _ r: LogicalPlan, _ cond: BoundExpr,
                            correlated: Bool, _ e: Expr) throws -> LogicalPlan {
        if kind == .inner || kind == .cross {
            return .filter(try applyPendingScalars(.join(.cross, l, r, condition: nil)), cond)
        }
        if correlated { throw err(.featureNotSupported, Binder.unsupportedCorrelation, e) }
        let all = pendingSubqueries
        var left: [PendingSubquery] = [], right: [PendingSubquery] = []
        let rightIDs = r.outputIDs
        for s in all {
            var reads = Set<Int>()
            if case .keyed(let keys) = s.join { for k in keys { reads.formUnion(k.outer.referencedColumns) } }
            if !reads.isEmpty && reads.isSubset(of: rightIDs) { right.append(s) } else { left.append(s) }
        }
        pendingSubqueries = left
        let l2 = try applyPendingScalars(l)
        pendingSubqueries = right
        let r2 = try applyPendingScalars(r)
        return .join(kind, l2, r2, condition: cond)
    }

    /// `a IS NOT DISTINCT FROM b` as conjuncts a hash join can key on: whether each is
    /// NULL, and the values with NULL replaced by a fixed value of the type.
    func nullSafeEquality(_ a: BoundExpr, _ b: BoundExpr) -> [BoundExpr] {
        let filler: Value
        switch a.type.physical {
        case .int64: filler = .int(0)
        case .int128: filler = .int128(0)
        case .double: filler = .double(0)
        case .bool: filler = .bool(false)
        case .string: filler = .string("")
        }
        func filled(_ x: BoundExpr) -> BoundExpr {
            .caseWhen([WhenClause(condition: .isNull(x, negated: false), result: .constant(filler, x.type))], elseResult: x, x.type)
        }
        return [.binary(.equal, .isNull(a, negated: false), .isNull(b, negated: false), .boolean),
                .binary(.equal, filled(a), filled(b), .boolean)]
    }

    // MARK: - WHERE conjuncts

    /// A WHERE conjunct that is an EXISTS / IN subquery.
    enum SubqueryConjunct {
        /// Joined into the plan as a semi or anti join.
        case joined(LogicalPlan)
        /// A predicate over subquery values pending for the clause.
        case predicate(BoundExpr)
    }

    /// Try to bind a WHERE conjunct that is an EXISTS / IN subquery as a semi or anti
    /// join of `plan` (when its correlation lifts out); otherwise as a predicate over a
    /// pending subquery. nil when the conjunct is something else.
    func bindSubqueryConjunct(_ c: Expr, _ plan: LogicalPlan, _ scope: Scope, _ agg: AggregationContext?) throws -> SubqueryConjunct? {
        var negated = false
        var e = c
        if case .unary(.not, let inner) = c.kind { negated = true; e = inner }
        switch e.kind {
        case .exists(let q):
            let (sub, correlated) = try bindSubquery(q, outer: scope)
            let (stripped, preds) = extractCorrelated(sub, outerIDs: correlated)
            if !referencesAny(stripped, correlated) {
                let cond: BoundExpr? = preds.isEmpty ? nil : (preds.count == 1 ? preds[0] : .and(preds))
                return .joined(.join(negated ? .anti : .semi, plan, stripped, condition: cond))
            }
            let mark = try existsMark(sub, correlated: correlated, c, agg: agg)
            return .predicate(negated ? .unary(.not, mark, .boolean) : mark)
        case .inSubquery(let x, let q, let notIn):
            let neg = negated != notIn
            if let row = rowElements(x) {
                let xs = try row.map { try finishAggregate(try bindExpr($0, scope, agg: agg), agg, $0.location) }
                let (sub, correlated) = try bindSubquery(q, outer: scope)
                let (stripped, preds) = extractCorrelated(sub, outerIDs: correlated)
                if !neg && !referencesAny(stripped, correlated) {
                    let eqs = try rowSubqueryEqualities(xs, sub, e)
                    return .joined(.join(.semi, plan, stripped, condition: .and(eqs + preds)))
                }
                _ = try rowSubqueryEqualities(xs, sub, e)
                let value = try rowInValue(xs, sub, correlated: correlated, c, agg: agg)
                return .predicate(neg ? .unary(.not, value, .boolean) : value)
            }
            let bx = try finishAggregate(try bindExpr(x, scope, agg: agg), agg, x.location)
            let (sub, correlated) = try bindSubquery(q, outer: scope)
            guard sub.outputs.count == 1 else { throw err(.syntax, "subquery has too many columns", e) }
            let (stripped, preds) = extractCorrelated(sub, outerIDs: correlated)
            if !referencesAny(stripped, correlated) && (!neg || preds.isEmpty) {
                let v = sub.outputs[0]
                let eq = try comparison(.equal, bx, .column(v.id, v.type))
                let conds = [eq] + preds
                return .joined(.join(neg ? .antiNullAware : .semi, plan, stripped, condition: conds.count == 1 ? conds[0] : .and(conds)))
            }
            let value = try inValue(bx, sub, correlated: correlated, c, agg: agg)
            return .predicate(neg ? .unary(.not, value, .boolean) : value)
        default:
            return nil
        }
    }

    /// Remove the filter conjuncts that reference outer columns from `plan` (through
    /// projections, filters and inner joins), making the inner columns they use visible
    /// at the top. Returns the stripped plan and the removed predicates.
    func extractCorrelated(_ plan: LogicalPlan, outerIDs: Set<Int>) -> (LogicalPlan, [BoundExpr]) {
        switch plan {
        case .filter(let input, let pred):
            let (inner, found) = extractCorrelated(input, outerIDs: outerIDs)
            var keep: [BoundExpr] = [], take: [BoundExpr] = found
            for c in conjuncts(pred) {
                if c.referencedColumns.isDisjoint(with: outerIDs) { keep.append(c) } else { take.append(c) }
            }
            if keep.isEmpty { return (inner, take) }
            return (.filter(inner, keep.count == 1 ? keep[0] : .and(keep)), take)
        case .project(let input, let exprs, let outs):
            // A select list that reads outer columns stays where it is.
            if exprs.contains(where: { !$0.referencedColumns.isDisjoint(with: outerIDs) }) { return (plan, []) }
            let (inner, found) = extractCorrelated(input, outerIDs: outerIDs)
            // Pass through the inner columns the extracted predicates need.
            var needed = Set<Int>()
            for p in found { needed.formUnion(p.referencedColumns.subtracting(outerIDs)) }
            let have = Set(outs.map { $0.id })
            var e2 = exprs, o2 = outs
            for c in inner.outputs where needed.contains(c.id) && !have.contains(c.id) {
                e2.append(.column(c.id, c.type)); o2.append(c)
            }
            return (.project(inner, e2, outputs: o2), found)
        case .join(let k, let l, let r, let cond) where k == .inner || k == .cross:
            let (l2, f1) = extractCorrelated(l, outerIDs: outerIDs)
            let (r2, f2) = extractCorrelated(r, outerIDs: outerIDs)
            var keep: [BoundExpr] = [], take = f1 + f2
            for c in conjuncts(cond) {
                if c.referencedColumns.isDisjoint(with: outerIDs) { keep.append(c) } else { take.append(c) }
            }
            return (.join(keep.isEmpty ? .cross : .inner, l2, r2, condition: keep.isEmpty ? nil : (keep.count == 1 ? keep[0] : .and(keep))), take)
        case .distinct(let input):
            // Callers test existence (or NULLs and emptiness), which duplicates do not change.
            return extractCorrelated(input, outerIDs: outerIDs)
        default:
            return (plan, [])
        }
    }

    /// Whether any expression of `plan` reads one of `ids`.
    func referencesAny(_ plan: LogicalPlan, _ ids: Set<Int>) -> Bool {
        if ids.isEmpty { return false }
        var found = false
        visitExpressions(plan) { if !found && !$0.referencedColumns.isDisjoint(with: ids) { found = true } }
        return found
    }

    func visitExpressions(_ plan: LogicalPlan, _ f: (BoundExpr) -> Void) {
        switch plan {
        case .scan(_, _, _, _, let filters): filters.forEach(f)
        case .filter(let p, let e): f(e); visitExpressions(p, f)
        case .project(let p, let es, _): es.forEach(f); visitExpressions(p, f)
        case .join(_, let l, let r, let c): c.map(f); visitExpressions(l, f); visitExpressions(r, f)
        case .aggregate(let p, let g, _, let aggs):
            g.forEach(f); aggs.forEach { $0.expressions.forEach(f) }; visitExpressions(p, f)
        case .sort(let p, let keys): keys.forEach { f($0.expr) }; visitExpressions(p, f)
        case .limit(let p, _, _), .distinct(let p): visitExpressions(p, f)
        case .window(let p, let ws):
            for w in ws { w.argument.map(f); w.partitionBy.forEach(f); w.orderBy.forEach { f($0.expr) } }
            visitExpressions(p, f)
        case .setOperation(_, _, let l, let r, _): visitExpressions(l, f); visitExpressions(r, f)
        case .values(let rows, _): rows.forEach { $0.forEach(f) }
        case .unnest(let p, let array, _, _): f(array); visitExpressions(p, f)
        }
    }
}

/// An outer column a dependent subquery reads.
struct CorrelatedColumn {
    var id: Int
    var type: DataType
    /// The expression reading it in the clause's input.
    var outer: BoundExpr
}

/// The value of a subquery that must have at most one row per outer row.
struct SingleValue {
    var value: PlanColumn
    var count: PlanColumn
    var output: PlanColumn
}

/// A subquery of the clause being bound, joined into the clause's input (a left join
/// that keeps every input row once) before the clause is evaluated.
struct PendingSubquery {
    enum Join {
        /// Uncorrelated: a left join against at most one row (more is an error).
        case single
        /// On `outer = inner` equalities; the plan has one row per inner key at most.
        case keyed([(outer: BoundExpr, inner: PlanColumn)])
        /// The plan still reads the outer columns; it becomes a dependent join when applied.
        case dependent([CorrelatedColumn], post: DependentPost)
    }
    enum DependentPost {
        case none
        /// Existence: one row per outer value.
        case distinct
        /// A value that must be single per outer value.
        case single(SingleValue)
    }
    var plan: LogicalPlan
    var join: Join
}
