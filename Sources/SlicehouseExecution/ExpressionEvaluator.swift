// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan
import SlicehouseFunctions

/// Evaluates bound expressions a whole chunk at a time.
///
/// The tree is walked once per chunk (never per row); every node runs a kernel
/// over whole vectors (see Kernels/). Short-circuit constructs — AND, OR, CASE,
/// COALESCE, NVL2 — evaluate a branch only on the rows that reach it, by
/// evaluating it over a chunk whose selection is narrowed to those rows and
/// scattering the results back, so `x <> 0 AND 10 / x > 1` never divides by zero.
public enum ExpressionEvaluator {
    /// Evaluate `expr` over the logical rows of `chunk`. The result has
    /// `chunk.count` rows (dense over the selection), or is a constant vector.
    public static func evaluate(_ expr: BoundExpr, _ chunk: Chunk) throws -> Vector {
        var ctx = EvalContext(chunk)
        return try ctx.eval(expr)
    }

    /// Evaluate `expr` for a consumer that reads a wide DECIMAL held in 64 bits as well as
    /// one held in 128 (`narrowing`; today a SUM or AVG argument, see
    /// `HashAggregateOperator.narrowableArguments`): where every value of a wide + - *
    /// provably fits 64 bits, it is computed and returned in 64 (`Vector.isNarrowed`).
    /// Operands inside the tree are narrowed only for the arithmetic that reads them.
    public static func evaluate(_ expr: BoundExpr, _ chunk: Chunk, narrowing: Bool) throws -> Vector {
        var ctx = EvalContext(chunk)
        return try ctx.eval(expr, narrowing: narrowing)
    }

    /// Evaluate several expressions over the same chunk (a projection list): columns
    /// are gathered through the selection once for all of them, and a subexpression
    /// that occurs more than once (`l_extendedprice * (1 - l_discount)` in Q1's
    /// `sum_disc_price` and `sum_charge`) is computed once. Volatile functions are
    /// never shared.
    public static func evaluate(_ exprs: [BoundExpr], _ chunk: Chunk) throws -> [Vector] {
        var ctx = EvalContext(chunk)
        ctx.memoize = true
        return try exprs.map { try ctx.eval($0) }
    }

    /// The subexpressions that occur more than once in `exprs` (in one expression or
    /// across them) and are worth computing once per chunk: computed from some column
    /// (not a column itself, nor made of constants only, which evaluates to a constant
    /// at once) and free of volatile functions. Lists of more than `sharingLimit` nodes
    /// are not searched (none is shared then).
    public static func sharedSubexpressions(_ exprs: [BoundExpr]) -> [BoundExpr] {
        var nodes: [BoundExpr] = []
        for e in exprs { e.visit { nodes.append($0) } }
        guard nodes.count <= sharingLimit else { return [] }
        func readsColumn(_ e: BoundExpr) -> Bool {
            var found = false
            e.visit { if case .column = $0 { found = true } }
            return found
        }
        var seen: [BoundExpr] = [], shared: [BoundExpr] = []
        for node in nodes where EvalContext.isShareable(node) && readsColumn(node) {
            if seen.contains(node) {
                if !shared.contains(node) { shared.append(node) }
            } else {
                seen.append(node)
            }
        }
        return shared
    }

    /// The most nodes `sharedSubexpressions` compares (pairwise, once per operator).
    static let sharingLimit = 1_000

    /// Physical indices (ascending) of the logical rows of `chunk` where
    /// `predicate` is TRUE (NULL and FALSE rows are dropped).
    ///
    /// Fast paths work on the chunk's columns and selection directly, without
    /// gathering: `column op constant` (either side), `column [NOT] [I]LIKE constant`,
    /// `column [NOT] IN (constants)`, `column IS [NOT] NULL`; AND narrows the
    /// selection conjunct by conjunct, OR unions the conjuncts' selections.
    public static func select(_ predicate: BoundExpr, _ chunk: Chunk) throws -> [Int32] {
        let count = chunk.count
        if count == 0 { return [] }
        switch predicate {
        case .and(let es):
            var c = chunk
            for e in es {
                let sel = try select(e, c)
                if sel.isEmpty { return [] }
                c.selection = sel
            }
            return c.selection ?? Kern.allRows(chunk.physicalCount)

        case .or(let es):
            var remaining = chunk.selection ?? Kern.allRows(chunk.physicalCount)
            var result: [Int32] = []
            for e in es {
                if remaining.isEmpty { break }
                let matched = try select(e, Chunk(columns: chunk.columns, count: chunk.physicalCount, selection: remaining))
                if matched.isEmpty { continue }
                result = SortedRows.union(result, matched)
                remaining = SortedRows.subtract(remaining, matched)
            }
            return result

        case .constant(let v, _):
            if case .bool(true) = v { return chunk.selection ?? Kern.allRows(chunk.physicalCount) }
            if case .string = v { break }
            return []

        case .binary(let op, let l, let r, _) where op.isComparison:
            if case .column(let i, let t) = l, r.isConstant,
               let sel = try selectColumnConstant(op, column: i, type: t, constant: r, chunk) {
                return sel
            }
            if case .column(let i, let t) = r, l.isConstant,
               let sel = try selectColumnConstant(op.flipped, column: i, type: t, constant: l, chunk) {
                return sel
            }

        case .like(.column(let i, let t), let pattern, let ci, let negated, let escape) where pattern.isConstant && t.isString:
            let col = try rawColumn(i, chunk)
            if !col.isConstant, col.type.physical == .string {
                var ctx = EvalContext(chunk)
                let p = try ctx.eval(pattern)
                if p.isConstant {
                    return try LikeKernels.select(column: col, pattern: p, caseInsensitive: ci, negated: negated,
                                                  escape: escape, selection: chunk.selection, count: count)
                }
            }

        case .inList(.column(let i, let t), let items, let negated) where items.allSatisfy({ $0.isConstant }):
            let col = try rawColumn(i, chunk)
            if !col.isConstant && col.type.physical == t.physical {
                var ctx = EvalContext(chunk)
                let values = try items.map { try ctx.eval($0) }
                if values.allSatisfy({ $0.isConstant }),
                   let sel = try ConditionalKernels.selectIn(column: col.retyped(t), items: values, negated: negated,
                                                            selection: chunk.selection, count: count) {
                    return sel
                }
            }

        case .isNull(.column(let i, _), let negated):
            let col = try rawColumn(i, chunk)
            if !col.isConstant {
                let rows = chunk.selection ?? Kern.allRows(chunk.physicalCount)
                guard let validity = col.validity else { return negated ? rows : [] }
                return rows.filter { validity.isValid(Int($0)) == negated }
            }

        default:
            break
        }
        var ctx = EvalContext(chunk)
        let v = try ctx.eval(predicate)
        return try ComparisonKernels.indices(where: v, selection: chunk.selection, count: count)
    }

    /// A chunk column checked against the chunk's shape (for the direct selection paths).
    static func rawColumn(_ i: Int, _ chunk: Chunk) throws -> Vector {
        guard i >= 0 && i < chunk.columns.count else {
            throw SQLError.internalError("column \(i) out of range (chunk has \(chunk.columns.count))")
        }
        let v = chunk.columns[i]
        if !v.isConstant {
            let needed = chunk.selection.map { ($0.last.map { Int($0) + 1 }) ?? 0 } ?? chunk.physicalCount
            guard v.count >= needed else { throw SQLError.internalError("column \(i) is shorter than its chunk") }
        }
        return v
    }

    /// `column op constant` straight on the chunk column; nil when the fast path does not apply.
    static func selectColumnConstant(_ op: BinaryOp, column i: Int, type: DataType, constant: BoundExpr,
                                     _ chunk: Chunk) throws -> [Int32]? {
        let col = try rawColumn(i, chunk)
        var ctx = EvalContext(chunk)
        let c = try ctx.eval(constant)
        guard c.isConstant, !col.isConstant, col.type.physical == type.physical,
              ComparisonKernels.canSelectDirectly(type, c.type) else { return nil }
        return try ComparisonKernels.select(op, column: col.retyped(type), constant: c,
                                            selection: chunk.selection, count: chunk.count)
    }
}

/// Set operations on ascending row lists.
enum SortedRows {
    static func union(_ a: [Int32], _ b: [Int32]) -> [Int32] {
        if a.isEmpty { return b }
        if b.isEmpty { return a }
        var out: [Int32] = []
        out.reserveCapacity(a.count + b.count)
        var i = 0, j = 0
        while i < a.count && j < b.count {
            if a[i] < b[j] { out.append(a[i]); i += 1 } else if b[j] < a[i] { out.append(b[j]); j += 1 } else { out.append(a[i]); i += 1; j += 1 }
        }
        out.append(contentsOf: a[i...])
        out.append(contentsOf: b[j...])
        return out
    }
    static func subtract(_ a: [Int32], _ b: [Int32]) -> [Int32] {
        var out: [Int32] = []
        out.reserveCapacity(a.count)
        var j = 0
        for x in a {
            while j < b.count && b[j] < x { j += 1 }
            if j < b.count && b[j] == x { continue }
            out.append(x)
        }
        return out
    }
}

/// The state of one evaluation over one chunk: the chunk, its logical row count,
/// and the columns already gathered through the selection.
struct EvalContext {
    let chunk: Chunk
    let n: Int
    private var gathered: [Int: Vector] = [:]
    /// Reuse results of equal subexpressions (multi-expression evaluation).
    var memoize = false
    /// With `memoize`: when not empty, only these subexpressions are remembered (the
    /// ones known to recur, `ExpressionEvaluator.sharedSubexpressions`).
    var sharedOnly: [BoundExpr] = []
    private var memo: [(expr: BoundExpr, value: Vector)] = []

    init(_ chunk: Chunk) {
        self.chunk = chunk
        self.n = chunk.count
    }

    /// A context that remembers the subexpressions `shared` (`memoize`, `sharedOnly`).
    init(_ chunk: Chunk, sharing shared: [BoundExpr]) {
        self.init(chunk)
        memoize = true
        sharedOnly = shared
    }

    // MARK: - Entry

    /// Evaluate `e`: a constant vector or a flat one of `n` rows, of type `e.type`.
    mutating func eval(_ e: BoundExpr) throws -> Vector {
        try eval(e, narrowing: false)
    }

    /// Evaluate `e`; with `narrowing`, a wide DECIMAL result of + - * may come back
    /// narrowed (`Vector.isNarrowed`), for a consumer that reads both widths.
    mutating func eval(_ e: BoundExpr, narrowing: Bool) throws -> Vector {
        let shareable = memoize && (sharedOnly.isEmpty ? Self.isShareable(e) : sharedOnly.contains(e))
        if shareable, let hit = memo.first(where: { $0.expr == e }) {
            // Remembered narrowed for one consumer, read here by one that needs the width.
            return narrowing ? hit.value : hit.value.widened()
        }
        var v = try evalNode(e, narrowing: narrowing)
        if !v.isConstant && v.count != n {
            throw SQLError.internalError("expression produced \(v.count) rows for a chunk of \(n)")
        }
        let t = e.type
        if v.type != t {
            if v.type.physical == t.physical || v.type == .unknown && Kern.isConstNull(v) {
                if v.type.physical != t.physical { return Kern.constNull(t) }
                v.type = t
            } else {
                v = try CastKernels.cast(v, to: t)
            }
        }
        if shareable { memo.append((e, v)) }
        return v
    }

    /// Whether a node is worth remembering: computed (not a column or constant) and
    /// free of volatile functions.
    static func isShareable(_ e: BoundExpr) -> Bool {
        switch e {
        case .column, .constant: return false
        default: break
        }
        var volatile = false
        e.visit { node in
            if case .function(let f, _, _) = node, f.isVolatile { volatile = true }
        }
        return !volatile
    }

    /// Evaluate `e` on the logical rows `rows` (ascending) only: a dense result with
    /// one row per listed row, or a constant.
    mutating func eval(_ e: BoundExpr, rows: [Int32]) throws -> Vector {
        if rows.count == n { return try eval(e) }
        let physical: [Int32]
        if let sel = chunk.selection { physical = rows.map { sel[Int($0)] } } else { physical = rows }
        var sub = EvalContext(Chunk(columns: chunk.columns, count: chunk.physicalCount, selection: physical))
        return try sub.eval(e)
    }

    // MARK: - Nodes

    /// Whether `a op b` typed `t` is decimal + - * with a wide result: its kernel reads
    /// narrowed operands and may return a narrowed result.
    static func narrowsDecimal(_ op: BinaryOp, _ t: DataType) -> Bool {
        (op == .add || op == .subtract || op == .multiply) && t.isDecimal && t.physical == .int128
    }

    private mutating func evalNode(_ e: BoundExpr, narrowing: Bool) throws -> Vector {
        switch e {
        case .column(let i, let t):
            return try column(i, t)
        case .constant(let value, let t):
            return try constant(value, t)
        case .cast(let x, let t):
            return try CastKernels.cast(eval(x), to: t)
        case .unary(let op, let x, let t):
            let v = try eval(x)
            switch op {
            case .negate: return try ArithmeticKernels.negate(v, resultType: t)
            case .not: return try LogicKernels.not(v, n: n)
            }
        case .binary(let op, let a, let b, let t):
            if Self.narrowsDecimal(op, t) {
                let x = try eval(a, narrowing: true), y = try eval(b, narrowing: true)
                return try ArithmeticKernels.binary(op, x, y, resultType: t, n: n, narrowing: narrowing)
            }
            let x = try eval(a), y = try eval(b)
            if op.isComparison { return try ComparisonKernels.compare(op, x, y, n: n) }
            return try ArithmeticKernels.binary(op, x, y, resultType: t, n: n)
        case .and(let es):
            return try logic(es, isAnd: true)
        case .or(let es):
            return try logic(es, isAnd: false)
        case .isNull(let x, let negated):
            return LogicKernels.isNull(try eval(x), negated: negated, n: n)
        case .inList(let x, let items, let negated):
            return try inList(x, items, negated: negated)
        case .caseWhen(let whens, let elseResult, let t):
            return try caseWhen(whens, elseResult, t)
        case .like(let x, let pattern, let ci, let negated, let escape):
            return try LikeKernels.like(eval(x), pattern: eval(pattern), caseInsensitive: ci, negated: negated,
                                        escape: escape, n: n)
        case .function(let fn, let args, let t):
            return try function(fn, args, t)
        }
    }

    /// Column `i`, gathered through the selection (once per evaluation).
    private mutating func column(_ i: Int, _ t: DataType) throws -> Vector {
        if let v = gathered[i] { return v }
        var v = try ExpressionEvaluator.rawColumn(i, chunk)
        if !v.isConstant {
            if let sel = chunk.selection {
                v = Kern.gather(v, sel)
            } else if v.count != n {
                v = v.slice(0, n)
            }
        }
        if v.type != t {
            guard v.type.physical == t.physical else {
                throw SQLError.internalError("column \(i) holds \(v.type.sqlName), expected \(t.sqlName)")
            }
            v.type = t
        }
        gathered[i] = v
        return v
    }

    /// A constant vector; text stored for a non-text type is converted like a cast.
    private func constant(_ value: Value, _ t: DataType) throws -> Vector {
        if case .string(let s) = value, t.physical != .string, t != .unknown {
            return try CastKernels.cast(Vector.constant(.string(s), type: .text), to: t)
        }
        if case .null = value { return Kern.constNull(t) }
        return Vector.constant(value, type: t)
    }

    // MARK: - Logic

    /// N-ary AND / OR with three-valued logic; each operand after the first is
    /// evaluated only on rows whose outcome is still open.
    private mutating func logic(_ es: [BoundExpr], isAnd: Bool) throws -> Vector {
        guard let first = es.first else { return Vector.constant(.bool(isAnd), type: .boolean) }
        let v0 = try eval(first)
        if es.count == 1 { return v0 }
        var acc = try Kern.tri(v0, n: n)
        let decisive = isAnd ? Kern.triFalse : Kern.triTrue
        for e in es.dropFirst() {
            var open: [Int32] = []
            open.reserveCapacity(n)
            for i in 0..<n where acc[i] != decisive { open.append(Int32(truncatingIfNeeded: i)) }
            if open.isEmpty { break }
            let t = try Kern.tri(eval(e, rows: open), n: open.count)
            for (k, r) in open.enumerated() {
                let a = acc[Int(r)], b = t[k]
                if isAnd {
                    acc[Int(r)] = b == Kern.triFalse ? Kern.triFalse : (a == Kern.triTrue && b == Kern.triTrue ? Kern.triTrue : Kern.triNull)
                } else {
                    acc[Int(r)] = b == Kern.triTrue ? Kern.triTrue : (a == Kern.triFalse && b == Kern.triFalse ? Kern.triFalse : Kern.triNull)
                }
            }
        }
        return Kern.boolVector(acc)
    }

    // MARK: - IN

    private mutating func inList(_ x: BoundExpr, _ items: [BoundExpr], negated: Bool) throws -> Vector {
        let v = try eval(x)
        var values: [Vector] = []
        values.reserveCapacity(items.count)
        for item in items { values.append(try eval(item)) }
        if values.allSatisfy({ $0.isConstant }) {
            return try ConditionalKernels.inList(v, items: values, negated: negated, n: n)
        }
        // Non-constant items: OR of equalities.
        var acc = [UInt8](filled: Kern.triFalse, count: n)
        for item in values {
            let t = try Kern.tri(ComparisonKernels.compare(.equal, v, item, n: n), n: n)
            for i in 0..<n where acc[i] != Kern.triTrue {
                acc[i] = t[i] == Kern.triTrue ? Kern.triTrue : (t[i] == Kern.triNull || acc[i] == Kern.triNull ? Kern.triNull : Kern.triFalse)
            }
        }
        if negated {
            for i in 0..<n where acc[i] != Kern.triNull { acc[i] = acc[i] == Kern.triTrue ? Kern.triFalse : Kern.triTrue }
        }
        return Kern.boolVector(acc)
    }

    // MARK: - CASE / COALESCE / NVL2

    /// Whether evaluating `e` on rows that do not need it is harmless and cheap
    /// (a column or a constant): CASE then computes such results whole and picks.
    private static func isPlainValue(_ e: BoundExpr) -> Bool {
        switch e {
        case .column, .constant: return true
        default: return false
        }
    }

    private mutating func caseWhen(_ whens: [WhenClause], _ elseResult: BoundExpr?, _ t: DataType) throws -> Vector {
        if n > 1, whens.count < 127, whens.allSatisfy({ Self.isPlainValue($0.result) }),
           elseResult.map(Self.isPlainValue) ?? true {
            return try casePick(whens, elseResult, t)
        }
        var remaining = Kern.allRows(n)
        var parts: [(vector: Vector, rows: [Int32])] = []
        for w in whens {
            if remaining.isEmpty { break }
            let cond = try Kern.tri(eval(w.condition, rows: remaining), n: remaining.count)
            var matched: [Int32] = [], rest: [Int32] = []
            for (k, r) in remaining.enumerated() {
                if cond[k] == Kern.triTrue { matched.append(r) } else { rest.append(r) }
            }
            if !matched.isEmpty {
                parts.append((try ConditionalKernels.align(eval(w.result, rows: matched), t), matched))
            }
            remaining = rest
        }
        if let elseResult, !remaining.isEmpty {
            parts.append((try ConditionalKernels.align(eval(elseResult, rows: remaining), t), remaining))
        }
        if n == 1, parts.count == 1, parts[0].vector.isConstant { return parts[0].vector }
        return try Kern.scatter(t, n: n, parts)
    }

    /// CASE whose results are columns or constants: conditions are still evaluated
    /// lazily (a condition can fail), each row records its branch, and the output picks
    /// from the whole result vectors.
    private mutating func casePick(_ whens: [WhenClause], _ elseResult: BoundExpr?, _ t: DataType) throws -> Vector {
        if let picked = try caseOfTwoConstants(whens, elseResult, t) { return picked }
        // Rows no WHEN takes keep the ELSE branch (or -1: NULL).
        let otherwise = elseResult == nil ? Int8(-1) : Int8(truncatingIfNeeded: whens.count)
        var branch = [Int8](filled: otherwise, count: n)
        var remaining: [Int32]? = nil      // nil = every row
        for (k, w) in whens.enumerated() {
            if let r = remaining, r.isEmpty { break }
            let rows = remaining ?? Kern.allRows(n)
            let cond = try Kern.tri(eval(w.condition, rows: rows), n: rows.count)
            let kk = Int8(truncatingIfNeeded: k)
            if k == whens.count - 1 {
                // The last WHEN: the rows it does not take need no list.
                cond.withUnsafeBufferPointer { c in
                    rows.withUnsafeBufferPointer { rs in
                        branch.withUnsafeMutableBufferPointer { b in
                            for j in 0..<min(c.count, rs.count) {
                                let r = Int(rs[j])
                                b[r] = c[j] == Kern.triTrue ? kk : b[r]
                            }
                        }
                    }
                }
                break
            }
            var rest: [Int32] = []
            rest.reserveCapacity(rows.count)
            for (j, r) in rows.enumerated() {
                if cond[j] == Kern.triTrue { branch[Int(r)] = kk } else { rest.append(r) }
            }
            remaining = rest
        }
        var sources: [Vector] = []
        for w in whens { sources.append(try ConditionalKernels.align(eval(w.result), t)) }
        if let elseResult { sources.append(try ConditionalKernels.align(eval(elseResult), t)) }
        return try Kern.pick(t, n: n, sources: sources, branch: branch)
    }

    /// `CASE WHEN c THEN x ELSE y END` with x and y non-NULL integer constants (TPC-DS
    /// q62's and q99's `SUM(CASE WHEN days <= 30 THEN 1 ELSE 0 END)`): one select per row
    /// from the condition's values, without a branch list. Nil for any other CASE.
    private mutating func caseOfTwoConstants(_ whens: [WhenClause], _ elseResult: BoundExpr?, _ t: DataType) throws -> Vector? {
        guard whens.count == 1, t.physical == .int64, let elseResult,
              case .constant(let tv, _) = whens[0].result, case .constant(let ev, _) = elseResult,
              tv != .null, ev != .null else { return nil }
        let a = try ConditionalKernels.align(eval(whens[0].result), t)
        let b = try ConditionalKernels.align(eval(elseResult), t)
        guard a.isConstant, b.isConstant, !a.isNull(0), !b.isNull(0),
              let x = try Kern.int64s(a).first, let y = try Kern.int64s(b).first else { return nil }
        let c = try eval(whens[0].condition)
        let flags = try Kern.bools(c)
        if c.isConstant {
            let take = !c.isNull(0) && flags.first == true
            return take ? a : b
        }
        guard flags.count >= n else { throw SQLError.internalError("boolean vector shorter than its chunk") }
        var out = [Int64](filled: y, count: n)
        let validity = c.validity
        flags.withUnsafeBufferPointer { f in
            out.withUnsafeMutableBufferPointer { o in
                if let validity {
                    for i in 0..<n { o[i] = f[i] && validity.isValid(i) ? x : y }
                } else {
                    for i in 0..<n { o[i] = f[i] ? x : y }
                }
            }
        }
        return Vector(type: t, data: .int64(out))
    }

    /// COALESCE: each argument evaluated only on the rows still NULL.
    private mutating func coalesce(_ args: [BoundExpr], _ t: DataType) throws -> Vector {
        var remaining = Kern.allRows(n)
        var parts: [(vector: Vector, rows: [Int32])] = []
        for arg in args {
            if remaining.isEmpty { break }
            let v = try ConditionalKernels.align(eval(arg, rows: remaining), t)
            if v.isConstant {
                if !v.isNull(0) { parts.append((v, remaining)); remaining = [] }
                continue
            }
            guard let validity = v.validity else { parts.append((v, remaining)); remaining = []; continue }
            var keep: [Int32] = [], keepRows: [Int32] = [], rest: [Int32] = []
            for (k, r) in remaining.enumerated() {
                if validity.isValid(k) { keep.append(Int32(truncatingIfNeeded: k)); keepRows.append(r) } else { rest.append(r) }
            }
            if !keep.isEmpty { parts.append((Kern.gather(v, keep), keepRows)) }
            remaining = rest
        }
        if parts.isEmpty { return Kern.constNull(t) }
        if remaining.isEmpty, parts.count == 1, parts[0].vector.isConstant { return parts[0].vector }
        return try Kern.scatter(t, n: n, parts)
    }

    /// NVL2(e, a, b): a where e is not NULL, else b.
    private mutating func nvl2(_ args: [BoundExpr], _ t: DataType) throws -> Vector {
        guard args.count == 3 else { throw SQLError.internalError("nvl2 takes 3 arguments") }
        let e = try eval(args[0])
        var notNull: [Int32] = [], null: [Int32] = []
        for i in 0..<n { if e.isNull(i) { null.append(Int32(truncatingIfNeeded: i)) } else { notNull.append(Int32(truncatingIfNeeded: i)) } }
        var parts: [(vector: Vector, rows: [Int32])] = []
        if !notNull.isEmpty { parts.append((try ConditionalKernels.align(eval(args[1], rows: notNull), t), notNull)) }
        if !null.isEmpty { parts.append((try ConditionalKernels.align(eval(args[2], rows: null), t), null)) }
        if n == 0 { return Vector.nulls(t, count: 0) }
        return try Kern.scatter(t, n: n, parts)
    }

    // MARK: - Functions

    private mutating func function(_ fn: ScalarFunction, _ argExprs: [BoundExpr], _ t: DataType) throws -> Vector {
        guard fn.arguments.contains(argExprs.count) else {
            throw SQLError.internalError("\(fn.sqlName) called with \(argExprs.count) arguments")
        }
        switch fn.evaluation {
        case .shortCircuit(.coalesce): return try coalesce(argExprs, t)
        case .shortCircuit(.nvl2): return try nvl2(argExprs, t)
        case .kernel(let kernel):
            var args: [Vector] = []
            args.reserveCapacity(argExprs.count)
            for a in argExprs { args.append(try eval(a)) }
            return try kernel(args, t, n)
        }
    }
}
