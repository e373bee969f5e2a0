// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

// Expressions by precedence climbing (a Pratt loop) over PostgreSQL's levels,
// lowest first:
//
//   1 OR   2 AND   3 NOT (prefix)   4 IS / ISNULL / NOTNULL (postfix)
//   5 = <> != < > <= >= (non-associative)   6 [NOT] BETWEEN / IN / LIKE / ILIKE / SIMILAR
//   8 other operators (|| ~ ~* !~ & | # << >> ~~ ...)   9 + -   10 * / %   11 ^
//   12 AT TIME ZONE   14 unary - + ~ (prefix)   18 :: (postfix cast)
//
// As in PostgreSQL's grammar, a postfix test can be the left operand of a tighter
// operator (`a IS NULL = false` is `(a IS NULL) = false`), and comparisons do not
// chain (`a < b < c` is a syntax error). Primary expressions (literals, names,
// calls, CASE, subqueries ...) are in Parser+Primary.swift.

/// Precedence levels, shared with the printer's parenthesisation.
enum PrecedenceLevel {
    static let or = 1, and = 2, not = 3, isTest = 4, comparison = 5, predicate = 6, escape = 7
    static let other = 8, additive = 9, multiplicative = 10, exponent = 11, atTimeZone = 12
    static let unary = 14, cast = 18
}

extension Parser {
    /// A full expression.
    mutating func parseExpr() throws -> Expr {
        try parseExpr(atLeast: PrecedenceLevel.or)
    }

    /// An expression made only of operators binding at least as tightly as `minimum`.
    ///
    /// Runs of AND, of OR and of `||` become balanced trees (`a OR b OR c OR d` is
    /// `(a OR b) OR (c OR d)`): the operators are associative, so the answer is the same,
    /// and generated SQL with thousands of them stays a tree of logarithmic height that
    /// every recursive pass after the parser can walk. Other left-associative chains
    /// (`1 + 1 + ...`) grow the tree one level per operator; each level counts against
    /// `Parser.maxHeight`, so an absurdly long one is an error, never a stack overflow.
    mutating func parseExpr(atLeast minimum: Int) throws -> Expr {
        try enterNesting()
        let heightOnEntry = height
        defer {
            height = heightOnEntry
            leaveNesting()
        }
        var left = try parsePrefix()
        var lastNonAssociative: Int?
        while let level = infixLevel(), level >= minimum {
            if level == lastNonAssociative { throw syntaxError(at: current) }
            if let op = associativeOperator(level: level) {
                left = try parseAssociativeRun(left, op: op, level: level)
                lastNonAssociative = nil
                continue
            }
            try growHeight()
            left = try parseInfix(left, level: level)
            lastNonAssociative = (level == PrecedenceLevel.comparison || level == PrecedenceLevel.predicate)
                ? level : nil
        }
        return left
    }

    /// AND, OR or `||` when the current token is that operator at `level`.
    private func associativeOperator(level: Int) -> BinaryOperator? {
        guard infixLevel() == level else { return nil }
        switch level {
        case PrecedenceLevel.or: return .or
        case PrecedenceLevel.and: return .and
        case PrecedenceLevel.other: return isSymbol("||") ? .concat : nil
        default: return nil
        }
    }

    /// Concatenation runs shorter than this keep their left-deep shape (EXPLAIN output of
    /// everyday queries is unchanged); AND and OR are flattened by the binder anyway, so
    /// their runs are always balanced.
    static let concatBalanceThreshold = 16

    /// `first op e2 op e3 ...` for one associative operator, as a balanced tree.
    private mutating func parseAssociativeRun(_ first: Expr, op: BinaryOperator, level: Int) throws -> Expr {
        var operands = [first]
        var locations: [SourceLocation] = []
        while associativeOperator(level: level) == op {
            locations.append(advance().location)
            operands.append(try parseExpr(atLeast: level + 1))
        }
        if op == .concat && operands.count <= Parser.concatBalanceThreshold {
            var tree = operands[0]
            for i in 1..<operands.count { tree = Expr(.binary(op, tree, operands[i]), at: locations[i - 1]) }
            return tree
        }
        return Parser.balanced(operands, locations, op)
    }

    /// `operands` joined by `op` into a tree of height ⌈log2 n⌉, in order; the node joining
    /// `operands[..<m]` with `operands[m...]` takes the location of the operator between them.
    static func balanced(_ operands: [Expr], _ locations: [SourceLocation], _ op: BinaryOperator) -> Expr {
        func build(_ lo: Int, _ hi: Int) -> Expr {
            if hi - lo == 1 { return operands[lo] }
            let mid = lo + (hi - lo + 1) / 2
            return Expr(.binary(op, build(lo, mid), build(mid, hi)), at: locations[mid - 1])
        }
        return build(0, operands.count)
    }

    /// An operand of a generic operator: everything binding tighter than IN/LIKE/BETWEEN.
    mutating func parseOtherOperators() throws -> Expr {
        try parseExpr(atLeast: PrecedenceLevel.other)
    }

    // MARK: - Prefix operators

    /// `NOT e`, `-e`, `+e`, `~e`, or a primary expression. A minus directly before a
    /// number is folded into the literal (`-2147483648` stays one constant), as
    /// PostgreSQL does.
    private mutating func parsePrefix() throws -> Expr {
        let token = current
        if isWord("not") {
            advance()
            let operand = try parseExpr(atLeast: PrecedenceLevel.not)
            return Expr(.unary(.not, operand), at: token.location)
        }
        let op: UnaryOperator
        if isSymbol("-") {
            op = .minus
        } else if isSymbol("+") {
            op = .plus
        } else if isSymbol("~") {
            op = .bitwiseNot
        } else {
            return try parsePrimary()
        }
        advance()
        let operand = try parseExpr(atLeast: PrecedenceLevel.unary)
        if op == .minus, case .literal(let literal) = operand.kind, let negated = literal.negated {
            return Expr(.literal(negated), at: token.location)
        }
        return Expr(.unary(op, operand), at: token.location)
    }

    // MARK: - Infix and postfix operators

    /// The precedence level of the operator at the current token, or nil if the
    /// current token does not continue an expression.
    private func infixLevel() -> Int? {
        switch current.kind {
        case .symbol(let s):
            switch s {
            case "=", "<>", "!=", "<", "<=", ">", ">=": return PrecedenceLevel.comparison
            case "+", "-": return PrecedenceLevel.additive
            case "*", "/", "%": return PrecedenceLevel.multiplicative
            case "^": return PrecedenceLevel.exponent
            case "::": return PrecedenceLevel.cast
            default: return Parser.otherOperators[s] != nil || Parser.likeOperators[s] != nil ? PrecedenceLevel.other : nil
            }
        case .word(let w):
            switch w {
            case "or": return PrecedenceLevel.or
            case "and": return PrecedenceLevel.and
            case "is", "isnull", "notnull": return PrecedenceLevel.isTest
            case "between", "in", "like", "ilike": return PrecedenceLevel.predicate
            case "similar": return isWord("to", at: 1) ? PrecedenceLevel.predicate : nil
            case "not":
                return isAnyWord(at: 1, ["between", "in", "like", "ilike", "similar"]) ? PrecedenceLevel.predicate : nil
            case "at":
                return isWord("time", at: 1) && isWord("zone", at: 2) ? PrecedenceLevel.atTimeZone : nil
            default: return nil
            }
        default:
            return nil
        }
    }

    /// Apply the operator at the current token (of precedence `level`) to `left`.
    private mutating func parseInfix(_ left: Expr, level: Int) throws -> Expr {
        let op = current
        switch level {
        case PrecedenceLevel.or, PrecedenceLevel.and:
            advance()
            let right = try parseExpr(atLeast: level + 1)
            return Expr(.binary(level == PrecedenceLevel.or ? .or : .and, left, right), at: op.location)
        case PrecedenceLevel.isTest:
            return try parseIsTest(left)
        case PrecedenceLevel.comparison:
            return try parseComparison(left)
        case PrecedenceLevel.predicate:
            return try parsePredicate(left)
        case PrecedenceLevel.atTimeZone:
            advance()
            advance()
            advance()
            let zone = try parseExpr(atLeast: level + 1)
            return Expr(.function(FunctionCall(name: "timezone", args: [zone, left], syntax: .atTimeZone)),
                        at: op.location)
        case PrecedenceLevel.cast:
            advance()
            return try parseCastTarget(left, syntax: .doubleColon, at: op)
        default:
            return try parseArithmetic(left, level: level)
        }
    }

    /// `+ - * / % ^` and the generic operators, all left-associative.
    private mutating func parseArithmetic(_ left: Expr, level: Int) throws -> Expr {
        let op = advance()
        guard case .symbol(let s) = op.kind else { throw syntaxError(at: op) }
        let right = try parseExpr(atLeast: level + 1)
        if let like = Parser.likeOperators[s] {
            // `~~` is LIKE, `!~~` NOT LIKE, `~~*` ILIKE, `!~~*` NOT ILIKE.
            return Expr(.like(like, left, pattern: right, escape: nil, negated: s.hasPrefix("!")), at: op.location)
        }
        guard let binary = Parser.arithmeticOperators[s] ?? Parser.otherOperators[s] else {
            throw syntaxError(at: op)
        }
        return Expr(.binary(binary, left, right), at: op.location)
    }

    private static let arithmeticOperators: [String: BinaryOperator] = [
        "+": .add, "-": .subtract, "*": .multiply, "/": .divide, "%": .modulo, "^": .exponent,
    ]

    private static let otherOperators: [String: BinaryOperator] = [
        "||": .concat, "~": .regexMatch, "~*": .regexMatchInsensitive, "!~": .regexNotMatch,
        "!~*": .regexNotMatchInsensitive, "&": .bitwiseAnd, "|": .bitwiseOr, "#": .bitwiseXor,
        "<<": .shiftLeft, ">>": .shiftRight,
    ]

    private static let likeOperators: [String: LikeOperator] = [
        "~~": .like, "!~~": .like, "~~*": .ilike, "!~~*": .ilike,
    ]

    /// `e IS [NOT] NULL|TRUE|FALSE|UNKNOWN|DISTINCT FROM e`, `e ISNULL`, `e NOTNULL`.
    private mutating func parseIsTest(_ left: Expr) throws -> Expr {
        let token = advance()
        if token.kind == .word("isnull") { return Expr(.isNull(left, negated: false), at: token.location) }
        if token.kind == .word("notnull") { return Expr(.isNull(left, negated: true), at: token.location) }
        let negated = acceptWord("not")
        if acceptWord("null") || acceptWord("unknown") {
            return Expr(.isNull(left, negated: negated), at: token.location)
        }
        if acceptWord("true") { return Expr(.isBoolean(left, value: true, negated: negated), at: token.location) }
        if acceptWord("false") { return Expr(.isBoolean(left, value: false, negated: negated), at: token.location) }
        if acceptWords("distinct", "from") {
            let right = try parseExpr(atLeast: PrecedenceLevel.isTest + 1)
            return Expr(.isDistinctFrom(left, right, negated: negated), at: token.location)
        }
        throw syntaxError(at: current)
    }

    /// `a op b` or `a op ANY|SOME|ALL (subquery)`.
    private mutating func parseComparison(_ left: Expr) throws -> Expr {
        let opToken = advance()
        let op: BinaryOperator
        switch opToken.kind {
        case .symbol("="): op = .equal
        case .symbol("<>"), .symbol("!="): op = .notEqual
        case .symbol("<"): op = .less
        case .symbol("<="): op = .lessOrEqual
        case .symbol(">"): op = .greater
        case .symbol(">="): op = .greaterOrEqual
        default: throw syntaxError(at: opToken)
        }
        if isAnyWord(["any", "some", "all"]) && isSymbol("(", at: 1) {
            let quantifier: Quantifier = isWord("all") ? .all : .any
            advance()
            advance()  // (
            if !isAnyWord(["select", "with", "values"]) && !isSymbol("(") {
                // `x = ANY (array)`: an array value, not a subquery.
                let array = try parseExpr()
                try expectSymbol(")")
                return Expr(.quantifiedArray(op, left, quantifier, array), at: opToken.location)
            }
            let query = try parseQuery()
            try expectSymbol(")")
            return Expr(.quantified(op, left, quantifier, query), at: opToken.location)
        }
        let right = try parseExpr(atLeast: PrecedenceLevel.comparison + 1)
        return Expr(.binary(op, left, right), at: opToken.location)
    }

    /// `e [NOT] BETWEEN a AND b`, `e [NOT] IN (...)`, `e [NOT] LIKE|ILIKE|SIMILAR TO p [ESCAPE c]`.
    private mutating func parsePredicate(_ left: Expr) throws -> Expr {
        let start = current
        let negated = acceptWord("not")
        let operandLevel = PrecedenceLevel.predicate + 1
        if acceptWord("between") {
            _ = acceptWord("symmetric") || acceptWord("asymmetric")
            let low = try parseExpr(atLeast: operandLevel)
            try expectWord("and")
            let high = try parseExpr(atLeast: operandLevel)
            return Expr(.between(left, low: low, high: high, negated: negated), at: start.location)
        }
        if acceptWord("in") {
            return try parseInRest(left, negated: negated, at: start)
        }
        let like: LikeOperator
        if acceptWord("like") {
            like = .like
        } else if acceptWord("ilike") {
            like = .ilike
        } else if acceptWords("similar", "to") {
            like = .similarTo
        } else {
            throw syntaxError(at: current)
        }
        let pattern = try parseExpr(atLeast: PrecedenceLevel.escape + 1)
        let escape = acceptWord("escape") ? try parseExpr(atLeast: PrecedenceLevel.escape + 1) : nil
        return Expr(.like(like, left, pattern: pattern, escape: escape, negated: negated), at: start.location)
    }

    private func isAnyWord(at offset: Int, _ words: Set<String>) -> Bool {
        if case .word(let w) = peek(offset).kind { return words.contains(w) }
        return false
    }

    /// After `IN`: `(subquery)` or `(e, e, ...)`.
    private mutating func parseInRest(_ left: Expr, negated: Bool, at start: Token) throws -> Expr {
        guard isSymbol("(") else { throw syntaxError(at: current) }
        if startsParenthesizedQuery(), let query = try parseParenthesizedQueryIfPossible() {
            return Expr(.inSubquery(left, query, negated: negated), at: start.location)
        }
        try expectSymbol("(")
        let list = try parseExprList()
        try expectSymbol(")")
        return Expr(.inList(left, list, negated: negated), at: start.location)
    }

    /// At `(`: parse `(query)` if that is what follows. When the query starts with
    /// further parentheses (`((SELECT 1) + 1)` is an expression) this backtracks and
    /// returns nil; otherwise errors inside the query are reported.
    mutating func parseParenthesizedQueryIfPossible() throws -> Query? {
        let saved = index
        let ambiguous = isSymbol("(", at: 1)
        do {
            return try parseParenthesizedQuery()
        } catch where ambiguous {
            index = saved
            return nil
        }
    }

    /// The object identifier types a cast to becomes a call of the type's function.
    static let objectIdentifierTypes: Set<String> = ["regclass", "regproc", "regprocedure", "regtype", "regnamespace"]

    /// The type after `::` or `AS` in a cast. `'1 day'::interval` becomes an interval literal.
    mutating func parseCastTarget(_ operand: Expr, syntax: CastSyntax, at token: Token) throws -> Expr {
        if isWord("pg_catalog") && isSymbol(".", at: 1) {
            // `x::pg_catalog.regtype`: the built-in types are pg_catalog's.
            _ = advance(); _ = advance()
        }
        if isWord("interval") {
            let typeToken = advance()
            let qualifier = try parseIntervalQualifier()
            guard case .literal(.string(let text)) = operand.kind else {
                // Any other value casts to the INTERVAL type (text is read as an interval).
                return Expr(.cast(operand, .interval, syntax), at: syntax == .doubleColon ? operand.location : typeToken.location)
            }
            return Expr(.interval(IntervalLiteral(value: text, qualifier: qualifier)), at: operand.location)
        }
        if case .word(let w) = current.kind, Parser.objectIdentifierTypes.contains(w) {
            // `x::regclass`, `x::regproc`, `x::regprocedure`: PostgreSQL's object identifier
            // types, as the function-style cast `regclass(x)` the binder answers (a name in,
            // its oid out; an oid in, its name out).
            let typeToken = advance()
            return Expr(.function(FunctionCall(name: w, args: [operand])),
                        at: syntax == .doubleColon ? operand.location : typeToken.location)
        }
        if case .word("aclitem") = current.kind {
            // `x::aclitem` / `x::aclitem[]`: PostgreSQL's ACL item and its array, kept as
            // their text; the binder's `aclitem` / `_aclitem` check a constant's syntax.
            let typeToken = advance()
            var name = "aclitem"
            if isSymbol("["), isSymbol("]", at: 1) {
                _ = advance(); _ = advance()
                name = "_aclitem"
            }
            return Expr(.function(FunctionCall(name: name, args: [operand])),
                        at: syntax == .doubleColon ? operand.location : typeToken.location)
        }
        let type = try parseCastType()
        // A `::` cast is located at its operand, a CAST(...) at its keyword.
        return Expr(.cast(operand, type, syntax), at: syntax == .doubleColon ? operand.location : token.location)
    }
}
