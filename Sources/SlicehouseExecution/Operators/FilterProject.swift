// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan
import SlicehouseFunctions

/// WHERE / HAVING: keeps the rows for which `predicate` is TRUE (NULL and FALSE drop).
///
/// No data is copied: the surviving rows become the chunk's selection vector
/// (`ExpressionEvaluator.select` returns physical indices). Chunks with no surviving
/// row are skipped.
public final class FilterOperator: Operator {
    private let input: Operator
    private let predicate: BoundExpr

    public init(input: Operator, predicate: BoundExpr) {
        self.input = input
        self.predicate = predicate
    }

    public func next() throws -> Chunk? {
        while let chunk = try input.next() {
            if chunk.count == 0 { continue }
            // Constant predicates (`WHERE true`, `WHERE 1 = 0`) need no evaluation per chunk.
            if case .constant(let v, _) = predicate {
                if v == .bool(true) { return chunk }
                return nil
            }
            let selected = try ExpressionEvaluator.select(predicate, chunk)
            if selected.isEmpty { continue }
            if selected.count == chunk.count { return chunk }
            var out = chunk
            out.selection = selected
            return out
        }
        return nil
    }
}

/// SELECT list / computed columns: one output column per expression, evaluated over
/// the logical rows of each input chunk. The output chunk has no selection.
///
/// A bare column reference is not evaluated: the column is passed through as is when
/// the input has no selection, or gathered when it has one.
public final class ProjectOperator: Operator {
    private let input: Operator
    private let expressions: [BoundExpr]

    /// Subexpressions that occur more than once in the list, computed once per chunk
    /// (`l_extendedprice * (1 - l_discount)` in TPC-H Q1's `sum_disc_price` and
    /// `sum_charge`); empty when none does.
    let shared: [BoundExpr]

    /// Output columns whose consumer reads a wide DECIMAL held in 64 bits
    /// (`ExpressionEvaluator.evaluate(_:_:narrowing:)`): Q1's `sum_charge` products are
    /// computed in 64 bits when they fit.
    let narrowed: Set<Int>

    /// Output columns that carry a group key's code (`GroupKeyCoding`): their `.column`
    /// expression passes the input column on as it is, whatever its declared type.
    let passThrough: Set<Int>

    /// - Parameters:
    ///   - shared: `ExpressionEvaluator.sharedSubexpressions(expressions)`, when the
    ///     caller has it (it is the same for every partition of a plan node); found here
    ///     when nil.
    ///   - narrowed: the output columns that may come out narrowed (`Vector.isNarrowed`);
    ///     only for a consumer that reads both widths
    ///     (`HashAggregateOperator.narrowableArguments`).
    ///   - passThrough: output columns that carry a group key's code.
    public init(input: Operator, expressions: [BoundExpr], shared: [BoundExpr]? = nil, narrowed: Set<Int> = [],
                passThrough: Set<Int> = []) {
        self.input = input
        self.passThrough = passThrough
        self.expressions = expressions
        self.shared = shared ?? ExpressionEvaluator.sharedSubexpressions(expressions)
        self.narrowed = narrowed
    }

    public func next() throws -> Chunk? {
        while let chunk = try input.next() {
            let n = chunk.count
            if n == 0 { continue }
            var columns: [Vector] = []
            columns.reserveCapacity(expressions.count)
            // One evaluation context for the whole list when something is shared in it.
            var context = shared.isEmpty ? nil : EvalContext(chunk, sharing: shared)
            for (k, e) in expressions.enumerated() {
                let narrowing = narrowed.contains(k)
                if case .column(let i, let t) = e, i >= 0, i < chunk.columns.count,
                   chunk.columns[i].type.physical == t.physical || passThrough.contains(k) {
                    let c = chunk.columns[i]
                    let v = chunk.selection.map { OperatorKernels.gather(c, $0) } ?? c
                    columns.append(v.type == t || passThrough.contains(k) ? v : v.retyped(t))
                } else if let v = try context?.eval(e, narrowing: narrowing) {
                    columns.append(v)
                } else {
                    columns.append(try ExpressionEvaluator.evaluate(e, chunk, narrowing: narrowing))
                }
            }
            return Chunk(columns: columns, count: n)
        }
        return nil
    }
}
