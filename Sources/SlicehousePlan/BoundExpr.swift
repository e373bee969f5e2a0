// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// Arithmetic, comparison and string binary operators.
public enum BinaryOp: String, Sendable, Equatable {
    case add = "+", subtract = "-", multiply = "*", divide = "/", modulo = "%"
    case equal = "=", notEqual = "<>", less = "<", lessEqual = "<=", greater = ">", greaterEqual = ">="
    case concat = "||"

    public var isComparison: Bool {
        switch self {
        case .equal, .notEqual, .less, .lessEqual, .greater, .greaterEqual: return true
        default: return false
        }
    }
    /// `a op b` == `b op.flipped a`
    public var flipped: BinaryOp {
        switch self {
        case .less: return .greater
        case .lessEqual: return .greaterEqual
        case .greater: return .less
        case .greaterEqual: return .lessEqual
        default: return self
        }
    }
}

public enum UnaryOp: String, Sendable, Equatable {
    case negate = "-", not = "NOT"
}

/// One `WHEN cond THEN result` arm of a searched CASE.
public struct WhenClause: Sendable, Equatable {
    public var condition: BoundExpr
    public var result: BoundExpr
    public init(condition: BoundExpr, result: BoundExpr) { self.condition = condition; self.result = result }
}

/// A resolved, typed expression over the columns of an input chunk.
///
/// The binder produces it with every implicit cast made explicit, so kernels
/// never coerce: the operands of a comparison have the same type; the operands
/// of arithmetic have the types the type rules chose (`TypeRules`), and the
/// kernel derives scaling from operand and result types.
/// Evaluated a whole vector at a time (`ExpressionEvaluator` in SlicehouseExecution).
public indirect enum BoundExpr: Sendable, Equatable {
    /// Column `index` of the input chunk.
    case column(Int, DataType)
    /// A constant (physical value, see `DataType`).
    case constant(Value, DataType)
    case cast(BoundExpr, DataType)
    case unary(UnaryOp, BoundExpr, DataType)
    case binary(BinaryOp, BoundExpr, BoundExpr, DataType)
    /// N-ary AND / OR with SQL three-valued logic.
    case and([BoundExpr])
    case or([BoundExpr])
    case isNull(BoundExpr, negated: Bool)
    /// `e [NOT] IN (list)`; list items have e's type.
    case inList(BoundExpr, [BoundExpr], negated: Bool)
    /// Searched CASE; a simple CASE is rewritten to this by the binder.
    case caseWhen([WhenClause], elseResult: BoundExpr?, DataType)
    /// `e [NOT] LIKE|ILIKE pattern [ESCAPE c]`.
    case like(BoundExpr, pattern: BoundExpr, caseInsensitive: Bool, negated: Bool, escape: UInt8?)
    /// A scalar function call; arguments already cast to the signature's types.
    case function(ScalarFunction, [BoundExpr], DataType)

    public var type: DataType {
        switch self {
        case .column(_, let t), .constant(_, let t), .cast(_, let t), .unary(_, _, let t),
             .binary(_, _, _, let t), .caseWhen(_, _, let t), .function(_, _, let t):
            return t
        case .and, .or, .isNull, .inList, .like:
            return .boolean
        }
    }

    /// The AND of `parts`: nil for none, the part itself for one.
    public static func conjunction(_ parts: [BoundExpr]) -> BoundExpr? {
        parts.isEmpty ? nil : (parts.count == 1 ? parts[0] : .and(parts))
    }

    /// Column indices this expression reads.
    public var referencedColumns: Set<Int> {
        var s = Set<Int>()
        visit { if case .column(let i, _) = $0 { s.insert(i) } }
        return s
    }

    /// Pre-order visit of every node.
    public func visit(_ f: (BoundExpr) -> Void) {
        f(self)
        switch self {
        case .column, .constant: break
        case .cast(let e, _), .unary(_, let e, _), .isNull(let e, _): e.visit(f)
        case .binary(_, let a, let b, _): a.visit(f); b.visit(f)
        case .and(let es), .or(let es): es.forEach { $0.visit(f) }
        case .inList(let e, let l, _): e.visit(f); l.forEach { $0.visit(f) }
        case .caseWhen(let ws, let e, _):
            for w in ws { w.condition.visit(f); w.result.visit(f) }
            e?.visit(f)
        case .like(let e, let p, _, _, _): e.visit(f); p.visit(f)
        case .function(_, let args, _): args.forEach { $0.visit(f) }
        }
    }

    /// Rebuild bottom-up with `f` applied to every node (children first).
    public func transform(_ f: (BoundExpr) throws -> BoundExpr) rethrows -> BoundExpr {
        let rebuilt: BoundExpr
        switch self {
        case .column, .constant: rebuilt = self
        case .cast(let e, let t): rebuilt = .cast(try e.transform(f), t)
        case .unary(let op, let e, let t): rebuilt = .unary(op, try e.transform(f), t)
        case .isNull(let e, let n): rebuilt = .isNull(try e.transform(f), negated: n)
        case .binary(let op, let a, let b, let t): rebuilt = .binary(op, try a.transform(f), try b.transform(f), t)
        case .and(let es): rebuilt = .and(try es.map { try $0.transform(f) })
        case .or(let es): rebuilt = .or(try es.map { try $0.transform(f) })
        case .inList(let e, let l, let n): rebuilt = .inList(try e.transform(f), try l.map { try $0.transform(f) }, negated: n)
        case .caseWhen(let ws, let e, let t):
            rebuilt = .caseWhen(try ws.map { WhenClause(condition: try $0.condition.transform(f), result: try $0.result.transform(f)) },
                                elseResult: try e?.transform(f), t)
        case .like(let e, let p, let ci, let n, let esc):
            rebuilt = .like(try e.transform(f), pattern: try p.transform(f), caseInsensitive: ci, negated: n, escape: esc)
        case .function(let fn, let args, let t): rebuilt = .function(fn, try args.map { try $0.transform(f) }, t)
        }
        return try f(rebuilt)
    }

    /// Rebuild top-down: `f` sees a node first; when it returns a replacement the
    /// children of that node are not visited.
    public func rewriteTopDown(_ f: (BoundExpr) -> BoundExpr?) -> BoundExpr {
        if let r = f(self) { return r }
        switch self {
        case .column, .constant: return self
        case .cast(let e, let t): return .cast(e.rewriteTopDown(f), t)
        case .unary(let op, let e, let t): return .unary(op, e.rewriteTopDown(f), t)
        case .isNull(let e, let n): return .isNull(e.rewriteTopDown(f), negated: n)
        case .binary(let op, let a, let b, let t): return .binary(op, a.rewriteTopDown(f), b.rewriteTopDown(f), t)
        case .and(let es): return .and(es.map { $0.rewriteTopDown(f) })
        case .or(let es): return .or(es.map { $0.rewriteTopDown(f) })
        case .inList(let e, let l, let n): return .inList(e.rewriteTopDown(f), l.map { $0.rewriteTopDown(f) }, negated: n)
        case .caseWhen(let ws, let e, let t):
            return .caseWhen(ws.map { WhenClause(condition: $0.condition.rewriteTopDown(f), result: $0.result.rewriteTopDown(f)) },
                             elseResult: e?.rewriteTopDown(f), t)
        case .like(let e, let p, let ci, let n, let esc):
            return .like(e.rewriteTopDown(f), pattern: p.rewriteTopDown(f), caseInsensitive: ci, negated: n, escape: esc)
        case .function(let fn, let args, let t): return .function(fn, args.map { $0.rewriteTopDown(f) }, t)
        }
    }

    /// Renumber column references through `map` (old index -> new index).
    public func remapColumns(_ map: (Int) -> Int) -> BoundExpr {
        transform { e in
            if case .column(let i, let t) = e { return .column(map(i), t) }
            return e
        }
    }

    public var isConstant: Bool {
        var c = true
        visit { e in
            switch e {
            case .column: c = false
            case .function(let fn, _, _) where fn.isVolatile: c = false
            default: break
            }
        }
        return c
    }
}
