// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan
import SlicehouseSQL

/// Row values `(a, b, ...)`, where Redshift takes them:
///
/// | written                              | bound as                                               |
/// |--------------------------------------|--------------------------------------------------------|
/// | `(a, b) = (c, d)`                    | `a = c AND b = d`                                      |
/// | `(a, b) <> (c, d)`                   | `a <> c OR b <> d`                                     |
/// | `(a, b) [NOT] IN ((1, 2), (3, 4))`   | `[NOT] ((a = 1 AND b = 2) OR (a = 3 AND b = 4))`       |
/// | `(a, b) IN (SELECT x, y ...)`, a WHERE conjunct | a semi join on `a = x AND b = y`            |
/// | `(a, b) [NOT] IN (SELECT x, y ...)` elsewhere | TRUE when a row equals; NULL when none does but one might (no pair unequal, a pair NULL); else FALSE |
///
/// SQL's NULLs come out as for the element comparisons (`(1, NULL) = (1, 2)` is NULL,
/// `(1, NULL) <> (2, 2)` is TRUE). Anywhere else a row value is refused.
extension Binder {
    static let rowValueRefusal = "a row value is supported only in = or <> against another row value and in IN"

    /// The elements of a row value, or nil when `e` is not one.
    func rowElements(_ e: Expr) -> [Expr]? {
        if case .row(let items) = e.kind { return items }
        return nil
    }

    /// `(a, b) op (c, d)` as element comparisons joined by AND (`=`) or OR (`<>`).
    func rowComparison(_ op: BinaryOperator, _ l: Expr, _ r: Expr, _ e: Expr) throws -> Expr {
        guard let ls = rowElements(l), let rs = rowElements(r) else {
            throw err(.featureNotSupported, Binder.rowValueRefusal, e)
        }
        guard ls.count == rs.count else { throw err(.syntax, "unequal number of entries in row expressions", e) }
        let join: BinaryOperator
        switch op {
        case .equal: join = .and
        case .notEqual: join = .or
        default: throw err(.featureNotSupported, "operator \(op.symbol) is not supported for row values: use = or <>", e)
        }
        var out: Expr? = nil
        for (a, b) in zip(ls, rs) {
            let c = Expr(.binary(op, a, b), at: e.location)
            out = out.map { Expr(.binary(join, $0, c), at: e.location) } ?? c
        }
        guard let out else { throw err(.syntax, "a row value needs two or more entries", e) }
        return out
    }

    /// `(a, b) [NOT] IN ((1, 2), (3, 4))` as an OR of element equalities.
    func rowInList(_ ls: [Expr], _ list: [Expr], negated: Bool, _ e: Expr) throws -> Expr {
        var out: Expr? = nil
        for item in list {
            guard rowElements(item) != nil else {
                throw err(.syntax, "the IN list of a row value must hold row values of \(ls.count) entries", item)
            }
            let eq = try rowComparison(.equal, Expr(.row(ls), at: e.location), item, item)
            out = out.map { Expr(.binary(.or, $0, eq), at: e.location) } ?? eq
        }
        guard let out else { throw err(.syntax, "syntax error at or near \")\"", e) }
        return negated ? Expr(.unary(.not, out), at: e.location) : out
    }

    /// `(a, b) [NOT] IN (q)` as a value (anywhere but a WHERE conjunct).
    func rowInValue(_ xs: [BoundExpr], _ plan: LogicalPlan, correlated: Set<Int>, _ e: Expr,
                    agg: AggregationContext?) throws -> BoundExpr {
        let vs = plan.outputs
        var outerIDs = correlated
        for x in xs {
            x.visit { if case .column(let id, let t) = $0 { columnTypes[id] = t } }
            outerIDs.formUnion(x.referencedColumns)
        }
        let eqs = try zip(xs, vs).map { x, v in try comparison(.equal, x, .column(v.id, v.type)) }
        let match = try existsMark(.filter(plan, .and(eqs)), correlated: outerIDs, e, agg: agg)
        // A row that may equal: no pair unequal, some pair NULL.
        let maybe = BoundExpr.and(eqs.map { .or([$0, .isNull($0, negated: false)]) })
        let possible = try existsMark(.filter(plan, maybe), correlated: outerIDs, e, agg: agg)
        return .caseWhen([WhenClause(condition: match, result: .constant(.bool(true), .boolean)),
                          WhenClause(condition: possible, result: .constant(.null, .boolean))],
                         elseResult: .constant(.bool(false), .boolean), .boolean)
    }

    /// The element equalities of `(a, b) IN (q)` against q's outputs, checking arity.
    func rowSubqueryEqualities(_ xs: [BoundExpr], _ plan: LogicalPlan, _ e: Expr) throws -> [BoundExpr] {
        guard plan.outputs.count == xs.count else {
            throw err(.syntax, plan.outputs.count > xs.count ? "subquery has too many columns" : "subquery has too few columns", e)
        }
        return try zip(xs, plan.outputs).map { x, v in try comparison(.equal, x, .column(v.id, v.type)) }
    }
}
