// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan
import SlicehouseFunctions
import SlicehouseCatalog
import SlicehouseSQL
import SlicehousePlatform

extension Binder {
    /// Bind an aggregate's argument over the aggregate's input. Subqueries in it are joined
    /// into that input (before the rows are grouped), not into the clause's.
    func bindAggregateArgument(_ a: Expr, _ scope: Scope, _ agg: AggregationContext) throws -> BoundExpr {
        let before = pendingSubqueries.count
        let b = try bindExpr(a, scope, agg: nil)
        if pendingSubqueries.count > before {
            agg.inputSubqueries += pendingSubqueries[before...]
            pendingSubqueries.removeSubrange(before...)
        }
        return b
    }

    /// Split an AND tree of the AST into its conjuncts.
    func astConjuncts(_ e: Expr) -> [Expr] {
        if case .binary(.and, let a, let b) = e.kind { return astConjuncts(a) + astConjuncts(b) }
        return [e]
    }

    /// True when `e` contains an aggregate call (not inside a subquery).
    func containsAggregate(_ e: Expr) -> Bool {
        switch e.kind {
        case .function(let f):
            if f.over == nil && (AggregateFunction.isAggregateName(f.name) || Binder.derivedAggregates.contains(f.name)) { return true }
            return f.args.contains(where: containsAggregate)
        case .unary(_, let a), .isNull(let a, _), .isBoolean(let a, _, _), .cast(let a, _, _): return containsAggregate(a)
        case .binary(_, let a, let b), .isDistinctFrom(let a, let b, _): return containsAggregate(a) || containsAggregate(b)
        case .between(let a, let l, let h, _): return containsAggregate(a) || containsAggregate(l) || containsAggregate(h)
        case .inList(let a, let l, _): return containsAggregate(a) || l.contains(where: containsAggregate)
        case .row(let items): return items.contains(where: containsAggregate)
        case .like(_, let a, let p, _, _): return containsAggregate(a) || containsAggregate(p)
        case .caseWhen(let c):
            return (c.operand.map(containsAggregate) ?? false)
                || c.whens.contains { containsAggregate($0.condition) || containsAggregate($0.result) }
                || (c.elseResult.map(containsAggregate) ?? false)
        default: return false
        }
    }

    /// PostgreSQL's default output column name for an unaliased expression.
    func defaultName(_ e: Expr) -> String {
        switch e.kind {
        // Folded or not as the session's enable_case_sensitive_identifier says (the parser).
        case .column(let ref): return ref.name
        case .function(let f):
            if f.syntax == .extract { return "date_part" }
            if let fn = FunctionRegistry.function(named: f.name), let name = fn.columnName { return name }
            if f.name == "super_index", let base = f.args.first { return defaultName(base) }
            if f.name == "super_field", f.args.count == 2, case .literal(.string(let name)) = f.args[1].kind { return name }
            return f.name
        case .cast(let inner, let t, _):
            if case .column = inner.kind { return defaultName(inner) }
            if case .function = inner.kind { return defaultName(inner) }
            switch t {
            case .integer: return "int4"
            case .bigint: return "int8"
            case .smallint: return "int2"
            case .date: return "date"
            case .decimal: return "numeric"
            case .varchar: return "varchar"
            case .char: return "bpchar"
            case .double: return "float8"
            case .real: return "float4"
            case .boolean: return "bool"
            case .timestamp: return "timestamp"
            case .timestamptz: return "timestamptz"
            case .time: return "time"
            case .timetz: return "timetz"
            default: return "?column?"
            }
        case .caseWhen: return "case"
        case .interval: return "interval"
        case .typedLiteral(let t, _):
            return t.internalName
        default: return "?column?"
        }
    }

    func err(_ code: SQLError.Code, _ message: String, _ e: Expr) -> SQLError {
        SQLError(code, message, line: e.location.line == 0 ? nil : e.location.line,
                 column: e.location.line == 0 ? nil : e.location.column)
    }

    /// Bind an expression that references no columns (DEFAULT values, INSERT VALUES items).
    public func bindScalar(_ e: Expr) throws -> BoundExpr { try bindExpr(e, Scope(), agg: nil) }

    /// Cast `e` to `t` when its type differs. Untyped (string literal / NULL) constants are
    /// converted at bind time.
    public func coerce(_ e: BoundExpr, to t: DataType) throws -> BoundExpr {
        if e.type == t { return e }
        if case .constant(.null, _) = e { return .constant(.null, t) }
        if case .constant = e {
            let v = try evaluateConstant(castExpr(e, t))
            return .constant(v, t)
        }
        guard TypeRules.canCast(e.type, t) else {
            throw SQLError(.datatypeMismatch, "cannot cast type \(TypeRules.displayName(e.type)) to \(TypeRules.displayName(t))")
        }
        return castExpr(e, t)
    }

    /// `CAST(e AS t)`; in the session's time zone when the cast reads or shows local time
    /// of a TIMESTAMPTZ (`cast_in_zone`).
    func castExpr(_ e: BoundExpr, _ t: DataType) -> BoundExpr {
        let s = e.type
        let zoned = (t == .timestamptz && (s.isString || s == .timestamp || s == .date || s == .superType))
            || (s == .timestamptz && (t == .timestamp || t == .date || t == .time || t.isString))
        if s.isString && (t == .date || t == .timestamp || t == .timestamptz) && catalog.sessionDayFirst() {
            // DATESTYLE DMY: `01-02-2008` is the first of February.
            return .function(Builtins.intervals.castDayFirst, [e, .constant(.string(catalog.sessionTimeZone() ?? "UTC"), .text)], t)
        }
        if zoned, let zone = catalog.sessionTimeZone() {
            return .function(Builtins.intervals.castInZone, [e, .constant(.string(zone), .text)], t)
        }
        return .cast(e, t)
    }

    /// CHAR type for a string literal compared with a CHAR column: as long as the literal.
    func charLiteralType(_ e: BoundExpr) -> DataType {
        if case .constant(.string(let s), _) = e { return .char(max(1, min(s.utf8.count, DataType.maxCharLength))) }
        return .char(DataType.maxCharLength)
    }

    /// The type an untyped string literal takes next to `other`: `other`, except that next
    /// to a DECIMAL a literal such as `'1'` or `'12345.678'` keeps its own digits
    /// (`DECIMAL(1,0)`, `DECIMAL(8,3)`), as PostgreSQL reads it as an unconstrained
    /// NUMERIC; forced into `0.2`'s DECIMAL(1,1), `'1' + 0.2` overflowed.
    func decimalLiteralType(_ e: BoundExpr, _ other: DataType) -> DataType {
        guard case .decimal = other, case .constant(.string(let text), _) = e else { return other }
        let bytes = Array(text.utf8)
        var lo = 0, hi = bytes.count
        while lo < hi, bytes[lo] == 32 || bytes[lo] == 9 { lo += 1 }
        while hi > lo, bytes[hi - 1] == 32 || bytes[hi - 1] == 9 { hi -= 1 }
        var whole = 0, fraction = 0, inFraction = false, leading = true
        for i in lo..<hi {
            switch bytes[i] {
            case UInt8(ascii: "+") where i == lo, UInt8(ascii: "-") where i == lo: continue
            case UInt8(ascii: ".") where !inFraction: inFraction = true; leading = false
            case UInt8(ascii: "0") where leading && !inFraction: continue
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                leading = false
                if inFraction { fraction += 1 } else { whole += 1 }
            default: return other   // not a plain number: the cast to `other` reports it
            }
        }
        guard whole + fraction <= 38, !(whole == 0 && fraction == 0 && leading) else { return other }
        return .decimal(precision: max(whole + fraction, 1), scale: fraction)
    }

    func isStringLiteral(_ e: Expr) -> Bool {
        if case .literal(.string) = e.kind { return true }
        return false
    }

    /// Bind a comparison, making both sides the same type.
    func comparison(_ op: BinaryOp, _ a: BoundExpr, _ b: BoundExpr, untypedA: Bool = false, untypedB: Bool = false) throws -> BoundExpr {
        var a = a, b = b
        // An untyped literal takes the other side's type; next to CHAR it becomes CHAR,
        // so trailing blanks stop mattering (`c = 'ab   '`).
        func literalTarget(_ other: DataType) -> DataType? {
            if case .char = other { return other }
            return !other.isString && other != .unknown ? other : nil
        }
        if untypedA, let t = literalTarget(b.type) { a = try coerce(a, to: t.isString ? charLiteralType(a) : decimalLiteralType(a, t)) }
        else if untypedB, let t = literalTarget(a.type) { b = try coerce(b, to: t.isString ? charLiteralType(b) : decimalLiteralType(b, t)) }
        if a.type == .unknown && b.type == .unknown { return .constant(.null, .boolean) }
        // Strings compare byte-wise whatever their declared lengths (CHAR is stored
        // without trailing blanks): no per-row cast.
        if a.type.isString && b.type.isString { return .binary(op, a, b, .boolean) }
        // BOOLEAN beside an integer: the integer as a boolean (0 false, else true), as Redshift compares them.
        if a.type == .boolean && b.type.isInteger { b = try coerce(b, to: .boolean) }
        if b.type == .boolean && a.type.isInteger { a = try coerce(a, to: .boolean) }
        let (lt, rt, _) = try TypeRules.binaryOperator(op, a.type, b.type)
        if lt == .interval {
            // Intervals compare by length (a month is 30 days, a day 24 hours), as in PostgreSQL.
            func length(_ x: BoundExpr) throws -> BoundExpr { .function(Builtins.intervals.intervalLength, [try coerce(x, to: .interval)], .bigint) }
            return .binary(op, try length(a), try length(b), .boolean)
        }
        return .binary(op, try coerce(a, to: lt), try coerce(b, to: rt), .boolean)
    }

    // MARK: - Expressions

    func bindExpr(_ e: Expr, _ scope: Scope, agg: AggregationContext?) throws -> BoundExpr {
        switch e.kind {
        case .literal(let lit):
            return try bindLiteral(lit, e)
        case .typedLiteral(let t, let text):
            let v = try evaluateConstant(castExpr(.constant(.string(text), .text), t))
            return .constant(v, t)
        case .interval(let iv):
            guard let packed = try intervalValue(iv, e).packed else { throw err(.datetimeOverflow, "interval out of range", e) }
            return .constant(.int128(packed), .interval)
        case .column(let ref):
            do {
                let c = try scope.resolve(ref, at: e.location)
                // References the engine writes itself (UPDATE's unchanged columns) have no
                // place in the text and do not count as the user reading the column.
                if e.location.line > 0 { referencedColumnIDs.insert(c.id) }
                noteColumnUse(e, planColumn: c.id, in: scope)
                return .column(c.id, c.type)
            } catch let error as SQLError where error.code == .undefinedColumn || error.code == .undefinedTable {
                if ref.parts.count == 1, let aliased = qualifyAliases[ref.parts[0]] { return aliased }
                if let aliased = try bindLateralAlias(ref, scope, agg) { return aliased }
                // A correlated reference to an enclosing query's column.
                for (level, outer) in outerScopes.reversed().enumerated() {
                    if let c = try? outer.resolve(ref, at: e.location) {
                        // Redshift decorrelates references to the query block just around a subquery only.
                        if level > 0 { throw err(.featureNotSupported, Binder.unsupportedCorrelation, e) }
                        correlatedIDs.insert(c.id)
                        columnTypes[c.id] = c.type
                        referencedColumnIDs.insert(c.id)
                        noteColumnUse(e, planColumn: c.id, in: outer)
                        return .column(c.id, c.type)
                    }
                }
                // PartiQL navigation: a SUPER column followed by attribute names (`c.address.city`).
                if ref.parts.count >= 2, let path = try bindSuperPath(ref, e, scope, agg) { return path }
                throw error
            }
        case .parameter(let n):
            // A bound value stands where its `$n` is, as the literal it is.
            guard let parameters, n >= 1, n <= parameters.count else {
                throw err(.undefinedParameter, "there is no parameter $\(n)", e)
            }
            return try bindExpr(parameters[n - 1].expression(at: e.location), scope, agg: agg)
        case .unary(let op, let a):
            switch op {
            case .plus: return try bindExpr(a, scope, agg: agg)
            case .minus:
                if case .literal(.integer(let t)) = a.kind { return try bindLiteral(.integer("-" + t), e) }
                if case .literal(.decimal(let t)) = a.kind { return try bindLiteral(.decimal("-" + t), e) }
                let b = try bindExpr(a, scope, agg: agg)
                if b.type == .interval { return .function(Builtins.intervals.intervalMultiply, [b, .constant(.double(-1), .double)], .interval) }
                guard b.type.isNumeric else {
                    throw err(.undefinedFunction, "operator does not exist: - \(b.type.sqlName)", e)
                }
                return .unary(.negate, b, b.type)
            case .not:
                let b = try coerce(try bindExpr(a, scope, agg: agg), to: .boolean)
                return .unary(.not, b, .boolean)
            case .bitwiseNot:
                throw err(.featureNotSupported, "operator ~ is not supported", e)
            }
        case .binary(let op, let l, let r):
            if let (a, b) = Binder.objectIdentifierOperands(op, l, r) { return try bindBinary(op, a, b, e, scope, agg) }
            return try bindBinary(op, l, r, e, scope, agg)
        case .isNull(let a, let neg):
            return .isNull(try bindExpr(a, scope, agg: agg), negated: neg)
        case .isBoolean(let a, let value, let neg):
            // x IS TRUE  ==  coalesce(x = true, false)
            let b = try coerce(try bindExpr(a, scope, agg: agg), to: .boolean)
            let test: BoundExpr = value ? b : .unary(.not, b, .boolean)
            let isTrue = BoundExpr.and([.isNull(b, negated: true), test])
            return neg ? .unary(.not, isTrue, .boolean) : isTrue
        case .isDistinctFrom(let a, let b, let neg):
            let ba = try bindExpr(a, scope, agg: agg), bb = try bindExpr(b, scope, agg: agg)
            let eq = try comparison(.equal, ba, bb, untypedA: isStringLiteral(a), untypedB: isStringLiteral(b))
            // NOT DISTINCT: both null, or both non-null and equal.
            let same = BoundExpr.or([.and([.isNull(ba, negated: false), .isNull(bb, negated: false)]),
                                     .and([.isNull(ba, negated: true), .isNull(bb, negated: true), eq])])
            return neg ? same : .unary(.not, same, .boolean)
        case .between(let a, let lo, let hi, let neg):
            let ba = try bindExpr(a, scope, agg: agg)
            let blo = try bindExpr(lo, scope, agg: agg), bhi = try bindExpr(hi, scope, agg: agg)
            let ge = try comparison(.greaterEqual, ba, blo, untypedB: isStringLiteral(lo))
            let le = try comparison(.lessEqual, ba, bhi, untypedB: isStringLiteral(hi))
            let both = BoundExpr.and([ge, le])
            return neg ? .unary(.not, both, .boolean) : both
        case .inList(let a, let list, let neg):
            if let row = rowElements(a) { return try bindExpr(try rowInList(row, list, negated: neg, e), scope, agg: agg) }
            let ba = try bindExpr(a, scope, agg: agg)
            var items = try list.map { try bindExpr($0, scope, agg: agg) }
            var t = ba.type
            for (i, item) in items.enumerated() where !(isStringLiteral(list[i]) && !t.isString) {
                guard let u = TypeRules.commonType(t, item.type) else {
                    throw err(.datatypeMismatch, "IN types \(t.sqlName) and \(item.type.sqlName) cannot be matched", e)
                }
                t = u
            }
            if ba.type.isString && t.isString {
                // Byte-wise string comparison: no casts; literals next to CHAR lose trailing blanks.
                if case .char = ba.type {
                    items = try items.enumerated().map { i, item in
                        isStringLiteral(list[i]) ? try coerce(item, to: charLiteralType(item)) : item
                    }
                }
                return .inList(ba, items, negated: neg)
            }
            items = try items.map { try coerce($0, to: t) }
            return .inList(try coerce(ba, to: t), items, negated: neg)
        case .subquery(let q):
            return try bindScalarSubquery(q, e, scope, agg: agg)
        case .exists(let q):
            return try bindExistsValue(q, e, scope, agg: agg)
        case .inSubquery(let x, let q, let negated):
            return try bindInValue(x, q, negated: negated, e, scope, agg: agg)
        case .quantified(let op, let x, let quantifier, let q):
            return try bindQuantified(op, x, quantifier, q, e, scope, agg: agg)
        case .quantifiedArray(let op, let x, let quantifier, let array):
            // `x = ANY(a)` and `x <> ALL(a)` over an array's text form (the catalog's arrays).
            guard (op == .equal && quantifier == .any) || (op == .notEqual && quantifier == .all) else {
                throw err(.featureNotSupported, "\(op.symbol) \(quantifier.rawValue) over an array is not supported: use = ANY or <> ALL", e)
            }
            let value = try bindExpr(x, scope, agg: agg)
            let text = try coerce(value, to: value.type.isString ? value.type : .varchar(TypeRules.stringLength(value.type)))
            let arrayText = try bindExpr(array, scope, agg: agg)
            guard arrayText.type.isString || arrayText.type.isArray || arrayText.type == .unknown else {
                throw err(.datatypeMismatch, "op ANY/ALL (array) requires an array on the right, not \(TypeRules.displayName(arrayText.type))", e)
            }
            let contains = BoundExpr.function(Builtins.internals.arrayTextContains,
                                              [text, try coerce(arrayText, to: .text)], .boolean)
            return quantifier == .any ? contains : .unary(.not, contains, .boolean)
        case .like(let op, let a, let p, let esc, let neg):
            if op == .similarTo {
                var args = [try bindExpr(a, scope, agg: agg), try bindExpr(p, scope, agg: agg)]
                if let esc { args.append(try bindExpr(esc, scope, agg: agg)) }
                let (fn, r): (ScalarFunction, FunctionResolution)
                do { (fn, r) = try FunctionRegistry.resolve(name: "similar_to", argTypes: args.map { $0.type }) }
                catch let error as SQLError where error.line == nil { throw err(error.code, error.message, e) }
                for i in 0..<min(args.count, r.argTypes.count) { args[i] = try coerce(args[i], to: r.argTypes[i]) }
                let call = BoundExpr.function(fn, args, r.result)
                return neg ? .unary(.not, call, .boolean) : call
            }
            var ba = try bindExpr(a, scope, agg: agg)
            var bp = try bindExpr(p, scope, agg: agg)
            if !ba.type.isString { ba = try coerce(ba, to: .varchar(DataType.maxVarcharLength)) }
            if !bp.type.isString { bp = try coerce(bp, to: .varchar(DataType.maxVarcharLength)) }
            var escape: UInt8? = 92  // backslash, as PostgreSQL
            if let esc {
                guard case .literal(.string(let s)) = esc.kind, s.utf8.count <= 1 else {
                    throw err(.invalidParameter, "invalid escape string", esc)
                }
                escape = s.utf8.first ?? 0   // ESCAPE '' turns escaping off
            }
            return .like(ba, pattern: bp, caseInsensitive: op == .ilike, negated: neg, escape: escape)
        case .caseWhen(let c):
            return try bindCase(c, e, scope, agg)
        case .cast(let a, var t, _):
            let b = try bindExpr(a, scope, agg: agg)
            if t == .unsizedVarchar {
                // VARCHAR / TEXT without a length in an expression: as long as the operand.
                switch b.type {
                case .varchar(let n), .char(let n): t = .varchar(min(n, DataType.maxVarcharLength))
                case .unknown: t = .text
                default: t = .varchar(min(TypeRules.stringLength(b.type), DataType.maxVarcharLength))
                }
            }
            if b.type == t { return b }
            guard TypeRules.canCast(b.type, t) || b.type == .unknown else {
                throw err(.datatypeMismatch, "cannot cast type \(TypeRules.displayName(b.type)) to \(TypeRules.displayName(t))", e)
            }
            if b.type == .unknown { return .constant(.null, t) }
            return castExpr(b, t)
        case .function(let f):
            if f.name == "super_field", f.schema == nil, f.args.count == 2, case .literal(.string(let name)) = f.args[1].kind {
                let base = try bindExpr(f.args[0], scope, agg: agg)
                if base.type == .superType { return superField(base, name) }
            }
            return try bindFunction(f, e, scope, agg)
        case .defaultValue:
            throw err(.syntax, "DEFAULT is not allowed in this context", e)
        case .row:
            throw err(.featureNotSupported, Binder.rowValueRefusal, e)
        }
    }

    func bindLiteral(_ lit: Literal, _ e: Expr) throws -> BoundExpr {
        switch lit {
        case .null: return .constant(.null, .unknown)
        case .boolean(let b): return .constant(.bool(b), .boolean)
        case .string(let s): return .constant(.string(s), .varchar(max(1, min(s.utf8.count, DataType.maxVarcharLength))))
        case .integer(let text):
            if let v = Int64(text) {
                return .constant(.int(v), (Int64(Int32.min)...Int64(Int32.max)).contains(v) ? .integer : .bigint)
            }
            return try bindLiteral(.decimal(text), e)
        case .decimal(let text):
            let neg = text.hasPrefix("-")
            let body = neg ? String(text.dropFirst()) : text
            let parts = body.split(separator: ".", omittingEmptySubsequences: false)
            let intDigits = String(parts.first ?? "").drop(while: { $0 == "0" }).count
            let scale = parts.count > 1 ? parts[1].count : 0
            let precision = max(1, intDigits + scale)
            guard precision <= 38 else {
                guard let d = Double(text), !Double.isOutOfRange(d, text: text.utf8) else {
                    throw err(.numericOutOfRange, "\"\(text)\" is out of range for type double precision", e)
                }
                return .constant(.double(d), .double)
            }
            guard case .ok(let v) = DecimalMath.parse(text, scale: scale, precision: 38) else {
                throw err(.invalidText, "invalid input syntax for type numeric: \"\(text)\"", e)
            }
            let t = DataType.decimal(precision: max(precision, scale), scale: scale)
            return .constant(t.physical == .int128 ? .int128(v) : .int(Int64(v)), t)
        case .float(let text):
            guard let d = Double(text) else { throw err(.invalidText, "invalid input syntax for type double precision: \"\(text)\"", e) }
            if Double.isOutOfRange(d, text: text.utf8) {
                throw err(.numericOutOfRange, "\"\(text)\" is out of range for type double precision", e)
            }
            return .constant(.double(d), .double)
        }
    }

    func bindBinary(_ op: BinaryOperator, _ l: Expr, _ r: Expr, _ e: Expr, _ scope: Scope, _ agg: AggregationContext?) throws -> BoundExpr {
        if rowElements(l) != nil || rowElements(r) != nil {
            return try bindExpr(try rowComparison(op, l, r, e), scope, agg: agg)
        }
        if let regex = try bindRegexOperator(op, l, r, e, scope, agg) { return regex }
        switch op {
        case .and, .or:
            let a = try coerce(try condition(try bindExpr(l, scope, agg: agg), op == .and ? "AND" : "OR", l.location), to: .boolean)
            let b = try coerce(try condition(try bindExpr(r, scope, agg: agg), op == .and ? "AND" : "OR", r.location), to: .boolean)
            func parts(_ x: BoundExpr) -> [BoundExpr] {
                if op == .and, case .and(let p) = x { return p }
                if op == .or, case .or(let p) = x { return p }
                return [x]
            }
            return op == .and ? .and(parts(a) + parts(b)) : .or(parts(a) + parts(b))
        default: break
        }
        // date/timestamp ± INTERVAL literal: constant months and microseconds (folded
        // when the date is a constant too).
        if op == .add || op == .subtract, case .interval(let iv) = r.kind {
            let a = try bindExpr(l, scope, agg: agg)
            if Self.takesConstantInterval(a) { return try addInterval(a, iv, subtract: op == .subtract, e) }
        }
        if op == .add, case .interval(let iv) = l.kind {
            let b = try bindExpr(r, scope, agg: agg)
            if Self.takesConstantInterval(b) { return try addInterval(b, iv, subtract: false, e) }
        }
        var bop: BinaryOp
        switch op {
        case .add: bop = .add
        case .subtract: bop = .subtract
        case .multiply: bop = .multiply
        case .divide: bop = .divide
        case .modulo: bop = .modulo
        case .concat: bop = .concat
        case .exponent:
            // `a ^ b`: POWER(a, b), as in Redshift.
            let call = Expr(.function(FunctionCall(name: "power", args: [l, r])), at: e.location)
            return try bindExpr(call, scope, agg: agg)
        case .equal: bop = .equal
        case .notEqual: bop = .notEqual
        case .less: bop = .less
        case .lessOrEqual: bop = .lessEqual
        case .greater: bop = .greater
        case .greaterOrEqual: bop = .greaterEqual
        default:
            throw err(.featureNotSupported, "operator \(op.symbol) is not supported", e)
        }
        var a = try bindExpr(l, scope, agg: agg)
        var b = try bindExpr(r, scope, agg: agg)
        if bop.isComparison {
            do {
                return try comparison(bop, a, b, untypedA: isStringLiteral(l), untypedB: isStringLiteral(r))
            } catch let error as SQLError where error.line == nil {
                throw err(error.code, error.message, e)
            }
        }
        // Redshift's `+` concatenates two strings (`first_name + ' ' + last_name`).
        if bop == .add, a.type.isString || isStringLiteral(l), b.type.isString || isStringLiteral(r) { bop = .concat }
        if a.type == .unknown { a = .constant(.null, b.type == .unknown ? .integer : b.type) }
        if b.type == .unknown { b = .constant(.null, a.type) }
        // `ts - '1 day'`: a string with a unit or a time that reads as an interval (and
        // not as a timestamp) is one; a bare number is not.
        if bop == .add || bop == .subtract, a.type.isDateTimeFamily, case .literal(.string(let text)) = r.kind,
           text.contains(where: { $0.isLetter || $0 == ":" }),
           DateTime.parseTimestamp(text) == nil, DateTime.parseInterval(text) != nil {
            if a.type == .date || a.type == .timestamp {
                return try addInterval(a, IntervalLiteral(value: text), subtract: bop == .subtract, e)
            }
            if let timed = try timeArithmetic(bop, a, try coerce(b, to: .interval), e) { return timed }
        }
        // `interval '1 day' * '2'` and friends: the literal next to an interval is a number.
        if a.type == .interval, isStringLiteral(r), bop == .multiply || bop == .divide { b = try coerce(b, to: .double) }
        if isStringLiteral(l) && !b.type.isString && bop != .concat { a = try coerce(a, to: decimalLiteralType(a, b.type)) }
        if isStringLiteral(r) && !a.type.isString && bop != .concat { b = try coerce(b, to: decimalLiteralType(b, a.type)) }
        if let timed = try timeArithmetic(bop, a, b, e) { return timed }
        do {
            let (lt, rt, result) = try TypeRules.binaryOperator(bop, a.type, b.type)
            return .binary(bop, try coerce(a, to: lt), try coerce(b, to: rt), result)
        } catch let error as SQLError where error.line == nil {
            throw err(error.code, error.message, e)
        }
    }

    /// `a.b.c` read as a SUPER column `a.b` (or `a`) and the attributes after it; nil when
    /// no prefix of the name is a SUPER column.
    func bindSuperPath(_ ref: ColumnRef, _ e: Expr, _ scope: Scope, _ agg: AggregationContext?) throws -> BoundExpr? {
        for k in stride(from: ref.parts.count - 1, through: 1, by: -1) {
            let prefix = Expr(.column(ColumnRef(Array(ref.parts[0..<k]))), at: e.location)
            guard let base = try? bindExpr(prefix, scope, agg: agg), base.type == .superType else { continue }
            var path = base
            for name in ref.parts[k...] { path = superField(path, name) }
            return path
        }
        return nil
    }

    /// `base.name`: with enable_case_sensitive_super_attribute off (Redshift's default), a
    /// name the parser folded (every name, unless enable_case_sensitive_identifier is on
    /// and it was quoted with an upper-case letter) matches attributes ignoring case.
    func superField(_ base: BoundExpr, _ name: String) -> BoundExpr {
        let ignoringCase = !catalog.sessionCaseSensitiveSuperAttributes()
            && (!catalog.sessionParseOptions().caseSensitiveIdentifiers || name == name.lowercased())
        var args: [BoundExpr] = [base, .constant(.string(name), .text)]
        if ignoringCase { args.append(.constant(.bool(true), .boolean)) }
        return .function(Builtins.semiStructured.superField, args, .superType)
    }

    /// Whether `x ± INTERVAL '...'` can take the constant-interval path (`interval_add`).
    static func takesConstantInterval(_ x: BoundExpr) -> Bool {
        if x.type == .date || x.type == .timestamp { return true }
        if case .constant(_, let t) = x, t.isString || t == .unknown { return true }
        return false
    }

    /// Arithmetic on INTERVAL, TIME and TIMESTAMPTZ values and `timestamp - timestamp`
    /// (an INTERVAL; `date - date` stays an integer number of days); nil when neither
    /// operand is one of those.
    func timeArithmetic(_ op: BinaryOp, _ a: BoundExpr, _ b: BoundExpr, _ e: Expr) throws -> BoundExpr? {
        let (lt, rt) = (a.type, b.type)
        func isMoment(_ t: DataType) -> Bool { t == .date || t == .timestamp || t == .timestamptz }
        func fail() -> SQLError {
            err(.undefinedFunction, "operator does not exist: \(TypeRules.displayName(lt)) \(op.rawValue) \(TypeRules.displayName(rt))", e)
        }
        let sign = BoundExpr.constant(.int(op == .subtract ? -1 : 1), .bigint)
        // moment - moment
        if op == .subtract, isMoment(lt), isMoment(rt), lt != .date || rt != .date {
            let t: DataType = lt == .timestamptz || rt == .timestamptz ? .timestamptz : .timestamp
            let diff = BoundExpr.function(Builtins.intervals.timestampDiff, [try coerce(a, to: t), try coerce(b, to: t)], .bigint)
            return .function(Builtins.intervals.intervalFromMicros, [diff], .interval)
        }
        if op == .subtract, lt == .time || lt == .timetz, rt == .time || rt == .timetz {
            let diff = BoundExpr.function(Builtins.intervals.timestampDiff, [try coerce(a, to: .time), try coerce(b, to: .time)], .bigint)
            return .function(Builtins.intervals.intervalFromMicros, [diff], .interval)
        }
        guard lt == .interval || rt == .interval || ((lt == .date && rt == .time) || (lt == .time && rt == .date)) else {
            return nil
        }
        switch op {
        case .add, .subtract:
            if lt == .interval && rt == .interval {
                return .function(Builtins.intervals.intervalPlus, [a, b, sign], .interval)
            }
            if op == .add, lt == .date, rt == .time {
                return .function(Builtins.intervals.timestampPlusInterval, [try coerce(a, to: .timestamp), .cast(b, .interval),
                                                         .constant(.int(1), .bigint)], .timestamp)
            }
            if op == .add, lt == .time, rt == .date { return try timeArithmetic(op, b, a, e) }
            // moment ± interval, interval + moment
            let (m, iv) = rt == .interval ? (a, b) : (b, a)
            if rt != .interval && op == .subtract { throw fail() }
            var mt = m.type
            var moment = m
            if case .constant(_, let t) = m, t.isString || t == .unknown { moment = try coerce(m, to: .timestamp); mt = .timestamp }
            switch mt {
            case .date, .timestamp:
                return .function(Builtins.intervals.timestampPlusInterval, [try coerce(moment, to: .timestamp), iv, sign], .timestamp)
            case .timestamptz:
                return .function(Builtins.intervals.timestampPlusInterval, [moment, iv, sign], .timestamptz)
            case .time:
                return .function(Builtins.intervals.timePlusInterval, [moment, iv, sign], .time)
            case .timetz:
                return .function(Builtins.intervals.timePlusInterval, [moment, iv, sign], .timetz)
            default:
                throw fail()
            }
        case .multiply:
            if lt == .interval, rt.isNumeric || rt.isString || rt == .unknown {
                return .function(Builtins.intervals.intervalMultiply, [a, try coerce(b, to: .double)], .interval)
            }
            if rt == .interval, lt.isNumeric || lt.isString || lt == .unknown {
                return .function(Builtins.intervals.intervalMultiply, [b, try coerce(a, to: .double)], .interval)
            }
            throw fail()
        case .divide:
            guard lt == .interval, rt.isNumeric || rt.isString || rt == .unknown else { throw fail() }
            return .function(Builtins.intervals.intervalDivide, [a, try coerce(b, to: .double)], .interval)
        default:
            throw fail()
        }
    }

    /// The value of an INTERVAL literal; 22007 for text that is not an interval.
    func intervalValue(_ iv: IntervalLiteral, _ e: Expr) throws -> IntervalValue {
        guard let v = DateTime.parseInterval(iv.value, qualifier: iv.qualifier) else {
            throw err(.invalidDatetime, "invalid input syntax for type interval: \"\(iv.value)\"", e)
        }
        return v
    }

    /// `d ± INTERVAL '...'` for a date or timestamp `d` (a date becomes a timestamp, as in
    /// PostgreSQL and Redshift): `interval_add(d, months, micros)`, run as a vector
    /// kernel; folded now when `d` is a constant.
    func addInterval(_ a: BoundExpr, _ iv: IntervalLiteral, subtract: Bool, _ e: Expr) throws -> BoundExpr {
        var v = try intervalValue(iv, e)
        if subtract { v = v.negated }
        var base = a
        if case .constant(let c, let t) = a, t.isString || t == .unknown {
            if case .null = c { return .constant(.null, .timestamp) }
            base = try coerce(a, to: .timestamp)
        }
        guard base.type == .date || base.type == .timestamp else {
            throw err(.undefinedFunction, "operator does not exist: \(TypeRules.displayName(a.type)) \(subtract ? "-" : "+") interval", e)
        }
        base = try coerce(base, to: .timestamp)
        let (dayMicros, o1) = v.days.multipliedReportingOverflow(by: DateTime.microsPerDay)
        let (delta, o2) = dayMicros.addingReportingOverflow(v.micros)
        if o1 || o2 { throw err(.datetimeOverflow, "interval out of range", e) }
        let call = BoundExpr.function(Builtins.intervals.intervalAdd, [base, .constant(.int(v.months), .bigint), .constant(.int(delta), .bigint)],
                                      .timestamp)
        if case .constant = base {
            do { return .constant(try evaluateConstant(call), .timestamp) }
            catch let error as SQLError where error.line == nil { throw err(error.code, error.message, e) }
        }
        return call
    }

    func bindCase(_ c: CaseExpr, _ e: Expr, _ scope: Scope, _ agg: AggregationContext?) throws -> BoundExpr {
        var conds: [BoundExpr] = []
        let operand = try c.operand.map { try bindExpr($0, scope, agg: agg) }
        for w in c.whens {
            let v = try bindExpr(w.condition, scope, agg: agg)
            if let operand {
                conds.append(try comparison(.equal, operand, v, untypedB: isStringLiteral(w.condition)))
            } else {
                // An untyped NULL becomes a BOOLEAN NULL.
                conds.append(try coerce(try condition(v, "CASE/WHEN", w.condition.location), to: .boolean))
            }
        }
        var results = try c.whens.map { try bindExpr($0.result, scope, agg: agg) }
        var elseR = try c.elseResult.map { try bindExpr($0, scope, agg: agg) }
        var t = DataType.unknown
        for r in results + (elseR.map { [$0] } ?? []) {
            guard let u = TypeRules.commonType(t, r.type) else {
                throw err(.datatypeMismatch, "CASE types \(t.sqlName) and \(r.type.sqlName) cannot be matched", e)
            }
            t = u
        }
        if t == .unknown { t = .text }
        results = try results.map { try coerce($0, to: t) }
        elseR = try elseR.map { try coerce($0, to: t) }
        return .caseWhen(zip(conds, results).map { WhenClause(condition: $0, result: $1) }, elseResult: elseR, t)
    }

    /// Redshift functions that are other SQL written shorter: DATE_PART_YEAR(d) is
    /// `DATE_PART(year, d)` as an INTEGER; BPCHARCMP(a, b) is -1, 0 or 1 as `a` sorts
    /// before, with or after `b` (as CHAR: trailing blanks do not count). Nil otherwise.
    func scalarMacro(_ f: FunctionCall, _ e: Expr) -> Expr? {
        guard f.schema == nil || f.schema == "pg_catalog", !f.distinct, !f.star else { return nil }
        let loc = e.location
        func lit(_ s: String) -> Expr { Expr(.literal(.string(s)), at: loc) }
        func int(_ s: String) -> Expr { Expr(.literal(.integer(s)), at: loc) }
        switch f.name {
        case "date_part_year" where f.args.count == 1:
            let part = Expr(.function(FunctionCall(name: "date_part", args: [lit("year"), f.args[0]])), at: loc)
            return Expr(.cast(part, .integer, .cast), at: loc)
        case "bpcharcmp" where f.args.count == 2:
            func trimmed(_ x: Expr) -> Expr {
                Expr(.function(FunctionCall(name: "rtrim", args: [Expr(.cast(x, .varchar(DataType.maxVarcharLength), .cast), at: loc)])), at: loc)
            }
            let a = trimmed(f.args[0]), b = trimmed(f.args[1])
            return Expr(.caseWhen(CaseExpr(whens: [
                SlicehouseSQL.WhenClause(condition: Expr(.binary(.less, a, b), at: loc), result: int("-1")),
                SlicehouseSQL.WhenClause(condition: Expr(.binary(.greater, a, b), at: loc), result: int("1")),
                SlicehouseSQL.WhenClause(condition: Expr(.binary(.equal, a, b), at: loc), result: int("0")),
            ], elseResult: nil)), at: loc)
        default:
            return nil
        }
    }

    func bindFunction(_ f: FunctionCall, _ e: Expr, _ scope: Scope, _ agg: AggregationContext?) throws -> BoundExpr {
        if f.over != nil { return try bindWindowCall(f, e, scope, agg) }
        if let bound = try bindCatalogFunction(f, e, scope, agg) { return bound }
        if let rewritten = scalarMacro(f, e) { return try bindExpr(rewritten, scope, agg: agg) }
        // `name[i]` on a PostgreSQL array shown as text (`{a,b}`, catalog columns): its
        // i-th element (1-based); on an oidvector / int2vector shown as text (`23 1043`,
        // pg_proc.proargtypes) the i-th from 0, as PostgreSQL subscripts those; NULL past
        // either end. On SUPER it is PartiQL's 0-based navigation.
        if f.name == "super_index", f.args.count == 2, f.schema == nil {
            let base = try bindExpr(f.args[0], scope, agg: agg)
            if case .array(let element) = base.type {
                // An integer array's element, as that integer type (1-based; NULL past either end).
                let index = try coerce(try bindExpr(f.args[1], scope, agg: agg), to: .bigint)
                let long = DataType.varchar(DataType.maxVarcharLength)
                let text = BoundExpr.function(Builtins.internals.arrayTextElement, [.cast(base, long), index], long)
                return .cast(text, element.type)
            }
            if base.type.isString {
                let loc = e.location
                func call(_ name: String, _ args: [Expr]) -> Expr { Expr(.function(FunctionCall(name: name, args: args)), at: loc) }
                func lit(_ s: String) -> Expr { Expr(.literal(.string(s)), at: loc) }
                func int(_ k: Int) -> Expr { Expr(.literal(.integer(String(k))), at: loc) }
                func bin(_ op: BinaryOperator, _ a: Expr, _ b: Expr) -> Expr { Expr(.binary(op, a, b), at: loc) }
                let text = f.args[0], index = f.args[1]
                let arrayElement = call("?array_text_element?", [text, index])
                let vectorElement = call("nullif", [call("split_part", [call("btrim", [text]), lit(" "), bin(.add, index, int(1))]), lit("")])
                let expr = Expr(.caseWhen(CaseExpr(whens: [
                    SlicehouseSQL.WhenClause(condition: bin(.equal, call("left", [text, int(1)]), lit("{")),
                                             result: Expr(.caseWhen(CaseExpr(whens: [SlicehouseSQL.WhenClause(
                                                condition: bin(.greaterOrEqual, index, int(1)), result: arrayElement)])), at: loc)),
                    SlicehouseSQL.WhenClause(condition: bin(.greaterOrEqual, index, int(0)), result: vectorElement),
                ])), at: loc)
                return try coerce(try bindExpr(expr, scope, agg: agg), to: base.type)
            }
        }
        if f.args.isEmpty, !f.star, let (v, t) = catalog.sessionFunction(f.name) {
            return .constant(v, t)
        }
        if sessionCallNames.contains(f.name), !f.star {
            var values: [Value] = []
            for a in f.args {
                let b = try bindExpr(a, scope, agg: nil)
                guard case .constant = b else {
                    // Over a column (`SELECT pg_cancel_backend(procpid) FROM
                    // pg_stat_activity WHERE ...`, as BI tools stop a query): each row's
                    // process is signalled when the statement runs.
                    guard f.args.count == 1, b.type.isInteger || b.type == .unknown,
                          let kernel = catalog.sessionSignal(f.name) else {
                        throw err(.featureNotSupported, "\(f.name)() takes constant arguments", a)
                    }
                    let signal = ScalarFunction(f.name, internal: true, arguments: 1...1, volatility: .volatile, kernel: kernel)
                    return .function(signal, [try coerce(b, to: .bigint)], .integer)
                }
                values.append(try evaluateConstant(b))
            }
            if let (v, t) = try catalog.sessionCall(f.name, values) { return .constant(v, t) }
        }
        if f.name == "grouping" && f.over == nil {
            guard let agg else { throw err(.groupingError, "GROUPING is allowed only with GROUP BY", e) }
            var idx: [Int] = []
            for a in f.args {
                let b = try bindExpr(a, scope, agg: nil)
                guard let i = agg.groupExprs.firstIndex(of: b) else {
                    throw err(.groupingError, "arguments to GROUPING must be grouping expressions of the associated query level", a)
                }
                idx.append(i)
            }
            guard !idx.isEmpty, idx.count <= 31 else { throw err(.syntax, "GROUPING needs 1 to 31 arguments", e) }
            let out = newColumn(.integer, "grouping")
            agg.groupingCalls.append((idx, out))
            return .column(out.id, .integer)
        }
        if let bound = try bindOrderedSetAggregate(f, e, scope, agg) { return bound }
        // A call qualified with a user schema is that schema's SQL function, even when a
        // built-in has the name; an unqualified one is a SQL function only when none has.
        let userSchema = f.schema.map { !Binder.builtinSchemas.contains($0.lowercased()) } ?? false
        if userSchema || (FunctionRegistry.function(named: f.name) == nil && !AggregateFunction.isAggregateName(f.name)),
           let bound = try bindUserFunction(f, e, scope, agg) {
            return bound
        }
        if f.over == nil, Binder.derivedAggregates.contains(f.name) {
            // The variance family is exact over integers and DECIMALs: the argument's type decides.
            let savedPending = pendingSubqueries
            let argType = f.args.count == 1 && !f.star ? (try? bindExpr(f.args[0], scope, agg: nil))?.type : nil
            pendingSubqueries = savedPending
            return try bindExpr(try derivedAggregate(f, e, argumentType: argType), scope, agg: agg)
        }
        if AggregateFunction.isAggregateName(f.name) {
            guard let agg else {
                throw err(.groupingError, "aggregate functions are not allowed in this context", e)
            }
            let args = try f.args.map { a -> BoundExpr in
                if containsAggregate(a) { throw err(.groupingError, "aggregate function calls cannot be nested", a) }
                return try bindAggregateArgument(a, scope, agg)
            }
            let argTypes = args.map { $0.type == .unknown ? DataType.text : $0.type }
            let (fn, target, result) = try AggregateFunction.resolve(name: f.name, argTypes: argTypes, distinct: f.distinct, star: f.star)
            var arg = args.first
            if let a = arg, let target { arg = try coerce(a, to: target) }
            let la = LogicalAggregate(function: fn, argument: fn == .countStar ? nil : arg, distinct: f.distinct,
                                      output: newColumn(result, f.name))
            if let existing = agg.aggregates.first(where: { $0.function == la.function && $0.argument == la.argument && $0.distinct == la.distinct }) {
                return .column(existing.output.id, existing.output.type)
            }
            agg.aggregates.append(la)
            return .column(la.output.id, result)
        }
        // DATEADD(day, ...), DATEDIFF(week, ...), DATE_TRUNC(month, ...): a bare date part is a
        // string (by any of the function's names: DATE_ADD, DATE_DIFF too).
        let datePartFunctions: Set<String> = ["dateadd", "datediff", "date_part", "datepart", "date_trunc", "extract"]
        let declaredName = FunctionRegistry.function(named: f.name)?.name ?? f.name
        var args = try f.args.enumerated().map { i, a -> BoundExpr in
            if i == 0, datePartFunctions.contains(f.name) || datePartFunctions.contains(declaredName),
               case .column(let ref) = a.kind, ref.parts.count == 1,
               DateParts.canonical(ref.name) != nil {
                return .constant(.string(ref.name), .varchar(max(1, ref.name.utf8.count)))
            }
            return try bindExpr(a, scope, agg: agg)
        }
        // EXTRACT(part FROM x) is an integer in Redshift; DATE_PART(...) a double.
        let functionName = f.syntax == .extract ? "extract" : f.name
        let constants: [Value?] = args.map { a -> Value? in
            if case .constant(let v, _) = a { return v }
            return nil
        }
        let literalFlags: [Bool] = f.args.map { isStringLiteral($0) }
        let (fn, resolution): (ScalarFunction, FunctionResolution)
        do {
            (fn, resolution) = try FunctionRegistry.resolve(ScalarCall(name: functionName, argTypes: args.map { $0.type },
                                                                         constants: constants, untypedLiterals: literalFlags))
        } catch let error as SQLError where error.line == nil {
            throw err(error.code, error.message, e)
        }
        let targets = resolution.argTypes, result = resolution.result
        // Constants the resolver made canonical (a date part's full name), so kernels look nothing up.
        for (i, v) in resolution.constants where i < args.count {
            if case .string(let text) = v { args[i] = .constant(v, .varchar(max(1, text.utf8.count))) }
        }
        if fn.isVolatile || fn.dependsOnTime { isDeterministic = false }
        // GETDATE, SYSDATE, CURRENT_DATE: one instant for the whole statement, as in Redshift
        // (every call site of a statement sees the same value).
        if fn.dependsOnTime, args.isEmpty {
            var now = StatementClock.shared.now(for: self)
            // In the session's time zone (SET timezone), as Redshift's GETDATE and SYSDATE are.
            if let zone = catalog.sessionTimeZone(), let rule = TimeZoneRules.rule(named: zone) { now = rule.fromUTC(now) }
            if fn == Builtins.dates.currentDate {
                return .constant(.int(StatementClock.floorDiv(now, DateTime.microsPerDay)), result)
            }
            if fn == Builtins.dates.getdate {
                return .constant(.int(StatementClock.floorDiv(now, DateTime.microsPerSecond) * DateTime.microsPerSecond), result)
            }
            return .constant(.int(now), result)
        }
        let firstType = args.first?.type
        for i in 0..<min(args.count, targets.count) { args[i] = try coerce(args[i], to: targets[i]) }
        // NULLIF compares in the common type but returns its first argument's type.
        if fn == Builtins.conditional.nullif, let firstType, firstType != .unknown, firstType != result,
           !(firstType.isString && result.isString) {
            return .cast(.function(fn, args, result), firstType)
        }
        // DECODE is a CASE: each result is computed only for the rows that choose it
        // (`decode(n, 0, 0, x / n)` divides no row by zero); NULL matches NULL.
        if fn == Builtins.conditional.decode, args.count >= 3 {
            let key = args[0]
            var whens: [SlicehousePlan.WhenClause] = []
            var k = 1
            while k + 1 < args.count {
                let search = args[k]
                let matches = BoundExpr.or([.binary(.equal, key, search, .boolean),
                                            .and([.isNull(key, negated: false), .isNull(search, negated: false)])])
                whens.append(SlicehousePlan.WhenClause(condition: matches, result: args[k + 1]))
                k += 2
            }
            return .caseWhen(whens, elseResult: k < args.count ? args[k] : nil, result)
        }
        // TO_TIMESTAMP reads local time and returns TIMESTAMPTZ, as Redshift's does: the
        // kernel's TIMESTAMP is placed in the session's time zone.
        if fn == Builtins.formatting.toTimestamp {
            return castExpr(.function(fn, args, result), .timestamptz)
        }
        return .function(fn, args, result)
    }
}

/// The instant of each statement being bound (one per `Binder`), so that every GETDATE,
/// SYSDATE and CURRENT_DATE of a statement agrees. Entries die with their binder.
final class StatementClock: @unchecked Sendable {
    static let shared = StatementClock()
    private struct Entry {
        weak var binder: Binder?
        let now: Int64
    }
    private let lock = Lock()
    private var entries: [ObjectIdentifier: Entry] = [:]

    func now(for binder: Binder) -> Int64 {
        lock.withLock {
            let key = ObjectIdentifier(binder)
            if let e = entries[key], e.binder === binder { return e.now }
            entries = entries.filter { $0.value.binder != nil }
            let now = Clock.nowMicros()
            entries[key] = Entry(binder: binder, now: now)
            return now
        }
    }

    /// Floor division (instants before 1970 round down to their day or second).
    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }
}

extension Binder {
    /// `c.oid::regclass = 't'::regclass` (and regproc, regprocedure): PostgreSQL compares
    /// the two as oids. Here an oid cast to one of these types gives its name and a name
    /// its oid, so the oid's side is compared bare: `c.oid = 't'::regclass`. Nil for any
    /// other comparison.
    static func objectIdentifierOperands(_ op: BinaryOperator, _ l: Expr, _ r: Expr) -> (Expr, Expr)? {
        guard [.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual].contains(op) else { return nil }
        func cast(_ e: Expr) -> (kind: String, argument: Expr)? {
            guard case .function(let f) = e.kind, f.schema == nil, f.over == nil, f.args.count == 1,
                  ["regclass", "regproc", "regprocedure", "regtype", "regnamespace"].contains(f.name) else { return nil }
            return (f.name, f.args[0])
        }
        func isName(_ e: Expr) -> Bool {
            if case .literal(.string) = e.kind { return true }
            return false
        }
        guard let a = cast(l), let b = cast(r), a.kind == b.kind else { return nil }
        if isName(b.argument) && !isName(a.argument) { return (a.argument, r) }
        if isName(a.argument) && !isName(b.argument) { return (l, b.argument) }
        return nil
    }
}
