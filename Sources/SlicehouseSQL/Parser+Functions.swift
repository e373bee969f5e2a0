// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

// Function calls: arguments, DISTINCT, count(*), WITHIN GROUP, IGNORE NULLS, OVER
// windows; and the special syntaxes EXTRACT, POSITION, SUBSTRING, TRIM.

extension Parser {
    /// `(args) [WITHIN GROUP (ORDER BY ...)] [IGNORE|RESPECT NULLS] [OVER (...)]`
    /// after the function name.
    mutating func parseFunctionCall(name: String, schema: String?) throws -> FunctionCall {
        var call = FunctionCall(name: name, schema: schema)
        try expectSymbol("(")
        if acceptSymbol("*") {
            call.star = true
        } else if !isSymbol(")") {
            if acceptWord("distinct") {
                call.distinct = true
            } else {
                _ = acceptWord("all")
            }
            call.args = try parseExprList()
            call.nullTreatment = parseNullTreatment()
        }
        try expectSymbol(")")
        if isWord("within") && isWord("group", at: 1) {
            advance()
            advance()
            try expectSymbol("(")
            try expectWord("order")
            try expectWord("by")
            call.withinGroup = try parseOrderItems()
            try expectSymbol(")")
        }
        if let treatment = parseNullTreatment() { call.nullTreatment = treatment }
        if isWord("over") && isSymbol("(", at: 1) {
            advance()
            call.over = try parseWindowSpec()
        }
        return call
    }

    private mutating func parseNullTreatment() -> NullTreatment? {
        if acceptWords("ignore", "nulls") { return .ignoreNulls }
        if acceptWords("respect", "nulls") { return .respectNulls }
        return nil
    }

    // MARK: - Windows

    /// `([PARTITION BY ...] [ORDER BY ...] [ROWS|RANGE frame])`.
    private mutating func parseWindowSpec() throws -> WindowSpec {
        try expectSymbol("(")
        var spec = WindowSpec()
        if acceptWords("partition", "by") { spec.partitionBy = try parseExprList() }
        if acceptWords("order", "by") { spec.orderBy = try parseOrderItems() }
        let unit: FrameUnit?
        if acceptWord("rows") {
            unit = .rows
        } else if acceptWord("range") {
            unit = .range
        } else {
            unit = nil
        }
        if let unit {
            if acceptWord("between") {
                let start = try parseFrameBound()
                try expectWord("and")
                let end = try parseFrameBound()
                spec.frame = WindowFrame(unit: unit, start: start, end: end)
            } else {
                spec.frame = WindowFrame(unit: unit, start: try parseFrameBound(), end: .currentRow)
            }
        }
        try expectSymbol(")")
        return spec
    }

    /// `UNBOUNDED PRECEDING|FOLLOWING`, `CURRENT ROW`, `n PRECEDING|FOLLOWING`.
    private mutating func parseFrameBound() throws -> FrameBound {
        if acceptWord("unbounded") {
            if acceptWord("preceding") { return .unboundedPreceding }
            if acceptWord("following") { return .unboundedFollowing }
            throw syntaxError(at: current)
        }
        if acceptWords("current", "row") { return .currentRow }
        let offset = try parseExpr()
        if acceptWord("preceding") { return .preceding(offset) }
        if acceptWord("following") { return .following(offset) }
        throw syntaxError(at: current)
    }

    // MARK: - Special syntaxes

    /// `EXTRACT(field FROM e)` → `date_part('field', e)`.
    mutating func parseExtract() throws -> Expr {
        let start = advance()  // EXTRACT
        try expectSymbol("(")
        let fieldToken = current
        let field: String
        switch current.kind {
        case .word(let w): field = w
        case .string(let s): field = s.lowercased()
        default: throw syntaxError(at: current)
        }
        advance()
        try expectWord("from")
        let source = try parseExpr()
        try expectSymbol(")")
        let fieldExpr = Expr(.literal(.string(field)), at: fieldToken.location)
        return Expr(.function(FunctionCall(name: "date_part", args: [fieldExpr, source], syntax: .extract)),
                    at: start.location)
    }

    /// `POSITION(sub IN s)` → `position(s, sub)`.
    mutating func parsePosition() throws -> Expr {
        let start = advance()  // POSITION
        try expectSymbol("(")
        // The operands are below IN in precedence, so `a IN b` is not read as an IN predicate.
        let substring = try parseOtherOperators()
        try expectWord("in")
        let string = try parseOtherOperators()
        try expectSymbol(")")
        return Expr(.function(FunctionCall(name: "position", args: [string, substring], syntax: .position)),
                    at: start.location)
    }

    /// `SUBSTRING(s FROM a [FOR b])`, `SUBSTRING(s FOR b)`, or the plain call `SUBSTRING(s, a[, b])`.
    mutating func parseSubstring() throws -> Expr {
        let start = advance()  // SUBSTRING
        try expectSymbol("(")
        let string = try parseExpr()
        var args = [string]
        let syntax: FunctionSyntax
        if acceptWord("from") {
            syntax = .substring
            args.append(try parseExpr())
            if acceptWord("for") { args.append(try parseExpr()) }
        } else if acceptWord("for") {
            syntax = .substring
            args.append(Expr(.literal(.integer("1")), at: start.location))
            args.append(try parseExpr())
        } else {
            syntax = .call
            while acceptSymbol(",") { args.append(try parseExpr()) }
        }
        try expectSymbol(")")
        return Expr(.function(FunctionCall(name: "substring", args: args, syntax: syntax)), at: start.location)
    }

    /// `TRIM([BOTH|LEADING|TRAILING] [chars] FROM s)`, `TRIM([side] s[, chars])`
    /// → `btrim|ltrim|rtrim(s[, chars])`.
    mutating func parseTrim() throws -> Expr {
        let start = advance()  // TRIM
        try expectSymbol("(")
        var name = "btrim"
        if acceptWord("leading") {
            name = "ltrim"
        } else if acceptWord("trailing") {
            name = "rtrim"
        } else {
            _ = acceptWord("both")
        }
        var args: [Expr]
        if acceptWord("from") {
            args = [try parseExpr()]
        } else {
            let first = try parseExpr()
            if acceptWord("from") {
                args = [try parseExpr(), first]
            } else {
                args = [first]
                while acceptSymbol(",") { args.append(try parseExpr()) }
            }
        }
        try expectSymbol(")")
        return Expr(.function(FunctionCall(name: name, args: args, syntax: .trim)), at: start.location)
    }
}
