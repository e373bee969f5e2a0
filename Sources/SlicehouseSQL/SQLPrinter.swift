// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

// Printing AST nodes back as SQL text. The output is readable (keywords upper
// case, minimal parentheses from operator precedence) and parses back to an equal
// tree, so `Expr.description` can be stored (column defaults) and shown (EXPLAIN).

extension Expr: CustomStringConvertible {
    public var description: String { SQLPrinter.expr(self) }
}

extension Query: CustomStringConvertible {
    public var description: String { SQLPrinter.query(self) }
}

extension TableRef: CustomStringConvertible {
    public var description: String { SQLPrinter.tableRef(self) }
}

extension OrderItem: CustomStringConvertible {
    public var description: String { SQLPrinter.orderItem(self) }
}

extension WindowSpec: CustomStringConvertible {
    public var description: String { SQLPrinter.window(self) }
}

/// A type name as SQL that `parseDataType` reads back: `integer`, `numeric(15,2)`,
/// `varchar(25)`, `double precision`, `timestamp`.
public func sqlTypeName(_ type: DataType) -> String {
    switch type {
    case .decimal(let p, let s): return "numeric(\(p),\(s))"
    case .char(let n): return "char(\(n))"
    case .varchar(let n): return type == .unsizedVarchar ? "varchar" : "varchar(\(n))"
    case .timestamp: return "timestamp"
    default: return type.sqlName
    }
}

/// A string constant as SQL: `'it''s'`, and a backslash doubled (`'a\\b'`), since the
/// lexer reads backslash escapes in every literal.
public func quoteStringLiteral(_ s: String) -> String {
    var s = s
    if s.contains("\\") { s = s.replacingOccurrences(of: "\\", with: "\\\\") }
    return "'" + s.replacingOccurrences(of: "'", with: "''") + "'"
}

enum SQLPrinter {
    // MARK: - Precedence

    /// Binding strengths follow the parser's levels (`PrecedenceLevel`); an operand
    /// is parenthesised when its strength is below what its position needs.
    private typealias Level = PrecedenceLevel
    private static let primaryLevel = 20

    private static func level(of op: BinaryOperator) -> Int {
        switch op {
        case .or: return Level.or
        case .and: return Level.and
        case .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual: return Level.comparison
        case .add, .subtract: return Level.additive
        case .multiply, .divide, .modulo: return Level.multiplicative
        case .exponent: return Level.exponent
        case .concat, .bitwiseAnd, .bitwiseOr, .bitwiseXor, .shiftLeft, .shiftRight,
             .regexMatch, .regexMatchInsensitive, .regexNotMatch, .regexNotMatchInsensitive:
            return Level.other
        }
    }

    private static func level(of expr: Expr) -> Int {
        switch expr.kind {
        case .binary(let op, _, _): return level(of: op)
        case .unary(.not, _): return Level.not
        case .unary: return Level.unary
        case .isNull, .isBoolean, .isDistinctFrom: return Level.isTest
        case .quantified, .quantifiedArray: return Level.comparison
        case .between, .inList, .inSubquery, .like: return Level.predicate
        case .cast(_, _, .doubleColon): return Level.cast
        case .literal(let literal):
            if case .integer(let s) = literal, s.hasPrefix("-") { return Level.unary }
            if case .decimal(let s) = literal, s.hasPrefix("-") { return Level.unary }
            if case .float(let s) = literal, s.hasPrefix("-") { return Level.unary }
            return primaryLevel
        case .function(let call) where call.syntax == .atTimeZone && call.args.count == 2:
            return Level.atTimeZone
        default: return primaryLevel
        }
    }

    /// Print `expr`, in parentheses if it binds less tightly than `minimum`.
    private static func expr(_ expr: Expr, atLeast minimum: Int) -> String {
        let text = self.expr(expr)
        return level(of: expr) < minimum ? "(" + text + ")" : text
    }

    // MARK: - Expressions

    static func expr(_ e: Expr) -> String {
        switch e.kind {
        case .literal(let literal):
            return self.literal(literal)
        case .typedLiteral(let type, let value):
            let name = sqlTypeName(type)
            if name.allSatisfy({ $0.isLetter }) { return name.uppercased() + " " + quoteStringLiteral(value) }
            return "CAST(" + quoteStringLiteral(value) + " AS " + name + ")"
        case .interval(let interval):
            var s = "INTERVAL " + quoteStringLiteral(interval.value)
            if let q = interval.qualifier { s += " " + q.uppercased() }
            return s
        case .column(let ref):
            return ref.parts.map(quoteIdentifierIfNeeded).joined(separator: ".")
        case .parameter(let n):
            return "$\(n)"
        case .unary(let op, let operand):
            switch op {
            case .not:
                return "NOT " + expr(operand, atLeast: Level.not)
            case .minus, .plus, .bitwiseNot:
                var inner = expr(operand, atLeast: Level.unary)
                // Never print `--` (a comment) or `++`.
                if inner.hasPrefix("-") || inner.hasPrefix("+") { inner = "(" + inner + ")" }
                return op.rawValue + inner
            }
        case .binary(let op, let left, let right):
            let p = level(of: op)
            let leftMin = op.isComparison ? p + 1 : p
            // AND, OR and || are associative: the parser balances long runs of one of
            // them, and `a OR (b OR c)` prints as the run it came from.
            if op == .and || op == .or || op == .concat, case .binary(op, _, _) = right.kind {
                return expr(left, atLeast: leftMin) + " " + op.symbol + " " + expr(right, atLeast: p)
            }
            return expr(left, atLeast: leftMin) + " " + op.symbol + " " + expr(right, atLeast: p + 1)
        case .isNull(let operand, let negated):
            return expr(operand, atLeast: Level.comparison) + (negated ? " IS NOT NULL" : " IS NULL")
        case .isBoolean(let operand, let value, let negated):
            return expr(operand, atLeast: Level.comparison) + " IS " + (negated ? "NOT " : "")
                + (value ? "TRUE" : "FALSE")
        case .isDistinctFrom(let left, let right, let negated):
            return expr(left, atLeast: Level.comparison) + " IS " + (negated ? "NOT " : "") + "DISTINCT FROM "
                + expr(right, atLeast: Level.comparison)
        case .between(let operand, let low, let high, let negated):
            return expr(operand, atLeast: Level.other) + (negated ? " NOT" : "") + " BETWEEN "
                + expr(low, atLeast: Level.other) + " AND " + expr(high, atLeast: Level.other)
        case .inList(let operand, let list, let negated):
            return expr(operand, atLeast: Level.other) + (negated ? " NOT" : "") + " IN ("
                + list.map(expr).joined(separator: ", ") + ")"
        case .inSubquery(let operand, let q, let negated):
            return expr(operand, atLeast: Level.other) + (negated ? " NOT" : "") + " IN (" + query(q) + ")"
        case .like(let op, let operand, let pattern, let escape, let negated):
            var s = expr(operand, atLeast: Level.other) + (negated ? " NOT " : " ") + op.rawValue + " "
                + expr(pattern, atLeast: Level.other)
            if let escape { s += " ESCAPE " + expr(escape, atLeast: Level.other) }
            return s
        case .exists(let q):
            return "EXISTS (" + query(q) + ")"
        case .subquery(let q):
            return "(" + query(q) + ")"
        case .quantified(let op, let left, let quantifier, let q):
            return expr(left, atLeast: Level.predicate) + " " + op.symbol + " " + quantifier.rawValue
                + " (" + query(q) + ")"
        case .quantifiedArray(let op, let left, let quantifier, let array):
            return expr(left, atLeast: Level.predicate) + " " + op.symbol + " " + quantifier.rawValue
                + " (" + expr(array) + ")"
        case .caseWhen(let c):
            var s = "CASE"
            if let operand = c.operand { s += " " + expr(operand) }
            for when in c.whens { s += " WHEN " + expr(when.condition) + " THEN " + expr(when.result) }
            if let elseResult = c.elseResult { s += " ELSE " + expr(elseResult) }
            return s + " END"
        case .cast(let operand, let type, let syntax):
            switch syntax {
            case .cast: return "CAST(" + expr(operand) + " AS " + sqlTypeName(type) + ")"
            case .convert: return "CONVERT(" + sqlTypeName(type) + ", " + expr(operand) + ")"
            case .doubleColon: return expr(operand, atLeast: Level.cast) + "::" + sqlTypeName(type)
            }
        case .function(let call):
            return function(call)
        case .defaultValue:
            return "DEFAULT"
        case .row(let items):
            return "(" + items.map { expr($0) }.joined(separator: ", ") + ")"
        }
    }

    static func literal(_ literal: Literal) -> String {
        switch literal {
        case .integer(let s), .decimal(let s), .float(let s): return s
        case .string(let s): return quoteStringLiteral(s)
        case .boolean(let b): return b ? "TRUE" : "FALSE"
        case .null: return "NULL"
        }
    }

    // MARK: - Function calls

    static func function(_ call: FunctionCall) -> String {
        let args = call.args
        switch call.syntax {
        case .keyword where args.isEmpty:
            return call.name.uppercased()
        case .extract where args.count == 2:
            if case .literal(.string(let field)) = args[0].kind {
                return "EXTRACT(" + field + " FROM " + expr(args[1]) + ")"
            }
        case .position where args.count == 2:
            return "POSITION(" + expr(args[1], atLeast: Level.other) + " IN " + expr(args[0], atLeast: Level.other) + ")"
        case .substring where args.count == 2 || args.count == 3:
            var s = "SUBSTRING(" + expr(args[0]) + " FROM " + expr(args[1])
            if args.count == 3 { s += " FOR " + expr(args[2]) }
            return s + ")"
        case .trim where args.count == 1 || args.count == 2:
            let side = call.name == "ltrim" ? "LEADING" : call.name == "rtrim" ? "TRAILING" : "BOTH"
            let chars = args.count == 2 ? expr(args[1]) + " " : ""
            return "TRIM(" + side + " " + chars + "FROM " + expr(args[0]) + ")"
        case .atTimeZone where args.count == 2:
            return expr(args[1], atLeast: Level.atTimeZone) + " AT TIME ZONE " + expr(args[0], atLeast: Level.unary)
        default:
            break
        }
        var s = call.approximate ? "APPROXIMATE " : ""
        if let schema = call.schema { s += quoteIdentifierIfNeeded(schema) + "." }
        s += quoteIdentifierIfNeeded(call.name) + "("
        if call.star {
            s += "*"
        } else {
            if call.distinct { s += "DISTINCT " }
            s += args.map(expr).joined(separator: ", ")
        }
        s += ")"
        if !call.withinGroup.isEmpty {
            s += " WITHIN GROUP (ORDER BY " + call.withinGroup.map(orderItem).joined(separator: ", ") + ")"
        }
        if let treatment = call.nullTreatment { s += " " + treatment.rawValue }
        if let over = call.over { s += " OVER " + window(over) }
        return s
    }

    static func window(_ spec: WindowSpec) -> String {
        var parts: [String] = []
        if !spec.partitionBy.isEmpty { parts.append("PARTITION BY " + spec.partitionBy.map(expr).joined(separator: ", ")) }
        if !spec.orderBy.isEmpty { parts.append("ORDER BY " + spec.orderBy.map(orderItem).joined(separator: ", ")) }
        if let frame = spec.frame {
            parts.append(frame.unit.rawValue + " BETWEEN " + frameBound(frame.start) + " AND " + frameBound(frame.end))
        }
        return "(" + parts.joined(separator: " ") + ")"
    }

    private static func frameBound(_ bound: FrameBound) -> String {
        switch bound {
        case .unboundedPreceding: return "UNBOUNDED PRECEDING"
        case .preceding(let e): return expr(e) + " PRECEDING"
        case .currentRow: return "CURRENT ROW"
        case .following(let e): return expr(e) + " FOLLOWING"
        case .unboundedFollowing: return "UNBOUNDED FOLLOWING"
        }
    }

    static func orderItem(_ item: OrderItem) -> String {
        var s = expr(item.expr)
        if item.descending { s += " DESC" }
        if let nullsFirst = item.nullsFirst { s += nullsFirst ? " NULLS FIRST" : " NULLS LAST" }
        return s
    }

    // MARK: - Queries

    static func query(_ q: Query) -> String {
        var s = ""
        if let with = q.with {
            s += "WITH " + (with.recursive ? "RECURSIVE " : "")
            s += with.ctes.map { cte in
                quoteIdentifierIfNeeded(cte.name) + columnList(cte.columns) + " AS (" + query(cte.query) + ")"
            }.joined(separator: ", ")
            s += " "
        }
        s += body(q.body)
        if !q.orderBy.isEmpty { s += " ORDER BY " + q.orderBy.map(orderItem).joined(separator: ", ") }
        if let limit = q.limit { s += " LIMIT " + expr(limit) }
        if let offset = q.offset { s += " OFFSET " + expr(offset) }
        return s
    }

    private static func columnList(_ names: [String]) -> String {
        names.isEmpty ? "" : " (" + names.map(quoteIdentifierIfNeeded).joined(separator: ", ") + ")"
    }

    /// Set operations: INTERSECT (2) binds tighter than UNION/EXCEPT (1); operands are 3.
    private static func level(of body: QueryBody) -> Int {
        guard case .setOperation(let op) = body else { return 3 }
        return op.op == .intersect ? 2 : 1
    }

    private static func body(_ body: QueryBody, atLeast minimum: Int) -> String {
        let text = self.body(body)
        return level(of: body) < minimum ? "(" + text + ")" : text
    }

    static func body(_ body: QueryBody) -> String {
        switch body {
        case .select(let select):
            return self.select(select)
        case .values(let rows):
            return "VALUES " + rows.map { "(" + $0.map(expr).joined(separator: ", ") + ")" }.joined(separator: ", ")
        case .setOperation(let op):
            let p = level(of: body)
            // A balanced run of one UNION [ALL] or INTERSECT [ALL] prints flat.
            var rightMin = p + 1
            if op.op != .except, case .setOperation(let r) = op.right, r.op == op.op, r.all == op.all { rightMin = p }
            return self.body(op.left, atLeast: p) + " " + op.op.rawValue + (op.all ? " ALL " : " ")
                + self.body(op.right, atLeast: rightMin)
        case .nested(let q):
            return "(" + query(q) + ")"
        }
    }

    static func select(_ select: Select) -> String {
        var s = "SELECT "
        if select.distinct { s += "DISTINCT " }
        if let top = select.top { s += "TOP " + expr(top) + " " }
        s += select.items.map(selectItem).joined(separator: ", ")
        if !select.exclude.isEmpty { s += " EXCLUDE " + select.exclude.map(quoteIdentifierIfNeeded).joined(separator: ", ") }
        if !select.from.isEmpty { s += " FROM " + select.from.map(tableRef).joined(separator: ", ") }
        if let w = select.whereClause { s += " WHERE " + expr(w) }
        if !select.groupBy.isEmpty { s += " GROUP BY " + select.groupBy.map(groupingElement).joined(separator: ", ") }
        if let h = select.having { s += " HAVING " + expr(h) }
        if let q = select.qualify { s += " QUALIFY " + expr(q) }
        return s
    }

    private static func selectItem(_ item: SelectItem) -> String {
        switch item {
        case .wildcard(let w):
            return (w.qualifier.map(quoteIdentifierIfNeeded) + ["*"]).joined(separator: ".")
        case .expr(let e, let alias):
            return expr(e) + (alias.map { " AS " + quoteIdentifierIfNeeded($0) } ?? "")
        }
    }

    private static func groupingElement(_ element: GroupingElement) -> String {
        func items(_ lists: [[Expr]]) -> String {
            "(" + lists.map { list in
                list.count == 1 ? expr(list[0]) : "(" + list.map(expr).joined(separator: ", ") + ")"
            }.joined(separator: ", ") + ")"
        }
        switch element {
        case .expr(let e): return expr(e)
        case .all: return "ALL"
        case .rollup(let lists): return "ROLLUP " + items(lists)
        case .cube(let lists): return "CUBE " + items(lists)
        case .groupingSets(let lists):
            if lists == [[]] { return "()" }
            return "GROUPING SETS (" + lists.map { "(" + $0.map(expr).joined(separator: ", ") + ")" }
                .joined(separator: ", ") + ")"
        }
    }

    // MARK: - FROM items

    static func tableRef(_ ref: TableRef) -> String {
        switch ref.kind {
        case .table(let name, let alias):
            return name.description + self.alias(alias)
        case .subquery(let q, let alias):
            return "(" + query(q) + ")" + self.alias(alias)
        case .function(let call, let alias):
            return expr(Expr(.function(call))) + self.alias(alias)
        case .join(let join):
            var right = tableRef(join.right)
            if case .join = join.right.kind { right = "(" + right + ")" }
            let keyword: String
            switch join.kind {
            case .inner: keyword = "JOIN"
            case .cross: keyword = "CROSS JOIN"
            default: keyword = join.kind.rawValue + " JOIN"
            }
            var s = tableRef(join.left) + " "
            if join.condition == .natural { s += "NATURAL " }
            s += keyword + " " + right
            switch join.condition {
            case .none, .natural: break
            case .on(let e): s += " ON " + expr(e)
            case .using(let names): s += " USING (" + names.map(quoteIdentifierIfNeeded).joined(separator: ", ") + ")"
            }
            return s
        }
    }

    private static func alias(_ alias: TableAlias?) -> String {
        guard let alias else { return "" }
        return " AS " + quoteIdentifierIfNeeded(alias.name) + columnList(alias.columns)
    }
}
