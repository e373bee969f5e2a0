// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// Type coercion and operator typing rules (Redshift's, which follow PostgreSQL
/// with the DECIMAL precision/scale formulas of the Redshift guide's
/// "Computations with numeric values").
///
/// The binder calls these to decide which casts to insert; the kernels then see
/// operands of exactly the types returned here and derive scaling from them.
public enum TypeRules {

    // MARK: - Common type

    /// The type two values are converted to when they meet in a comparison, CASE,
    /// COALESCE, UNION or IN list. nil when they cannot meet.
    ///
    /// - integers widen (smallint < integer < bigint);
    /// - integer with decimal → a decimal wide enough for both;
    /// - decimal with decimal → decimal(max integer digits + max scale, max scale), at most 38;
    /// - any exact numeric with a float → double; real with real → real;
    /// - char with char → char(max), other string mixes → varchar(max);
    /// - date with timestamp → timestamp;
    /// - `.unknown` (an untyped NULL) joins anything;
    /// - a string with a number, date, timestamp or catalog array → the non-string type (Redshift converts
    ///   the string implicitly; see also `leftIsUntypedLiteral`);
    /// - an untyped string literal (`leftIsUntypedLiteral` / `rightIsUntypedLiteral`)
    ///   takes the other side's type whatever it is (PostgreSQL's unknown-literal rule),
    ///   including BOOLEAN.
    public static func commonType(_ a: DataType, _ b: DataType,
                                  leftIsUntypedLiteral: Bool = false,
                                  rightIsUntypedLiteral: Bool = false) -> DataType? {
        if a == .unknown { return b }
        if b == .unknown { return a }
        if leftIsUntypedLiteral && rightIsUntypedLiteral { return stringCommon(a, b) }
        if leftIsUntypedLiteral && a.isString { return literalBeside(b, literal: a) }
        if rightIsUntypedLiteral && b.isString { return literalBeside(a, literal: b) }
        if a == b { return a }
        switch (a, b) {
        case _ where a.isString && b.isString:
            return stringCommon(a, b)
        case _ where a.isNumeric && b.isNumeric:
            return numericCommon(a, b)
        case (.date, .timestamp), (.timestamp, .date):
            return .timestamp
        case (.timestamptz, .date), (.timestamptz, .timestamp), (.date, .timestamptz), (.timestamp, .timestamptz):
            return .timestamptz
        case (.time, .timetz), (.timetz, .time):
            return .timetz
        case (.varbyte(let x), .varbyte(let y)):
            return .varbyte(max(x, y))
        case _ where a.isString && (b.isNumeric || b.isTemporal || b.isTextInput || b.isArray):
            return b
        case _ where b.isString && (a.isNumeric || a.isTemporal || a.isTextInput || a.isArray):
            return a
        // SUPER meets a scalar type as that type (PartiQL's dynamic typing: a SUPER value
        // of another kind becomes NULL).
        // Numbers compare as DOUBLE PRECISION (51.5 > 40 whatever the other side's type).
        case (.superType, _) where b.isSuperScalarTarget:
            return b.isNumeric ? .double : b
        case (_, .superType) where a.isSuperScalarTarget:
            return a.isNumeric ? .double : a
        default:
            return nil
        }
    }

    /// The type an untyped string literal takes beside `type`: `type` itself, except that a
    /// CHAR(n) or VARCHAR(n) shorter than the literal becomes VARCHAR of the literal's
    /// length — the literal is never cut to the other side's length (`nullif(char1, 'AIR')`
    /// is the CHAR(1) value, not NULL; `greatest(char1, 'AIR')` is 'AIR';
    /// `coalesce(varchar1, '_null_')` is '_null_', as dbt's surrogate keys write it).
    static func literalBeside(_ type: DataType, literal: DataType) -> DataType {
        if case .char(let n) = type, case .varchar(let m) = literal, m > n { return .varchar(m) }
        if case .varchar(let n) = type, case .varchar(let m) = literal, m > n { return .varchar(m) }
        return type
    }

    /// The common type of a list (CASE arms, COALESCE arguments, IN lists, UNION columns).
    /// `untypedLiterals[i]` marks an untyped string literal (may be empty).
    public static func commonType(_ types: [DataType], untypedLiterals: [Bool] = []) -> DataType? {
        guard var acc = types.first else { return nil }
        var accIsLiteral = untypedLiterals.first ?? false
        for i in types.indices.dropFirst() {
            let lit = i < untypedLiterals.count ? untypedLiterals[i] : false
            guard let t = commonType(acc, types[i], leftIsUntypedLiteral: accIsLiteral, rightIsUntypedLiteral: lit) else {
                return nil
            }
            // The accumulated type stays "untyped literal" only while every member was one.
            accIsLiteral = accIsLiteral && lit
            acc = t
        }
        return acc
    }

    static func stringCommon(_ a: DataType, _ b: DataType) -> DataType {
        switch (a, b) {
        case (.char(let x), .char(let y)): return .char(max(x, y))
        default: return .varchar(min(max(stringLength(a), stringLength(b)), DataType.maxVarcharLength))
        }
    }

    static func numericCommon(_ a: DataType, _ b: DataType) -> DataType {
        if a.isFloat || b.isFloat {
            return (a == .real && b == .real) ? .real : .double
        }
        if a.isInteger && b.isInteger {
            return integerRank(a) >= integerRank(b) ? a : b
        }
        // At least one decimal: integers act as decimal(precision, 0).
        let sa = a.scale, sb = b.scale
        let ia = a.precision - sa, ib = b.precision - sb
        let s = max(sa, sb)
        return cappedDecimal(intDigits: max(ia, ib), scale: s)
    }

    static func integerRank(_ t: DataType) -> Int {
        switch t {
        case .smallint: return 1
        case .integer: return 2
        case .bigint: return 3
        default: return 0
        }
    }

    /// A decimal with `intDigits` integer digits and `scale`, capped at precision 38
    /// (the scale shrinks first, down to `minScale`).
    static func cappedDecimal(intDigits: Int, scale: Int, minScale: Int = 0) -> DataType {
        var s = max(0, min(scale, DataType.maxDecimalPrecision))
        let i = max(1, intDigits)
        if i + s > DataType.maxDecimalPrecision {
            s = max(min(s, minScale), DataType.maxDecimalPrecision - i)
            s = max(0, min(s, DataType.maxDecimalPrecision))
        }
        let p = min(DataType.maxDecimalPrecision, max(1, i + s))
        return .decimal(precision: p, scale: min(s, p))
    }

    /// Byte length of a string type, or the widest text form of another type
    /// (used to size `||` results and casts to VARCHAR).
    public static func stringLength(_ t: DataType) -> Int {
        switch t {
        case .char(let n), .varchar(let n): return n
        case .smallint: return 6
        case .integer: return 11
        case .bigint: return 20
        case .decimal(let p, let s): return p + (s > 0 ? 2 : 1) + 1
        case .real: return 15
        case .double: return 24
        case .boolean: return 5
        case .date: return 13
        case .timestamp: return 29
        case .timestamptz: return 35
        case .time: return 15
        case .timetz: return 21
        case .interval: return 48
        case .superType, .hllsketch, .array: return DataType.maxVarcharLength
        case .varbyte(let n): return min(2 * n, DataType.maxVarcharLength)
        case .unknown: return 256
        }
    }

    // MARK: - Casts

    /// Whether `CAST(x AS to)` is allowed for a value of type `from`.
    public static func canCast(_ from: DataType, _ to: DataType) -> Bool {
        if from == to || from == .unknown { return true }
        switch (from, to) {
        case _ where from.isNumeric && to.isNumeric: return true
        case _ where from.isString || to.isString: return true
        case (.boolean, _) where to.isInteger: return true
        case (_, .boolean) where from.isInteger: return true
        case (.date, .timestamp), (.timestamp, .date): return true
        case _ where from.isDateTimeFamily && to.isDateTimeFamily: return timeCast(from, to)
        case (.interval, .time), (.time, .interval): return true
        case (.varbyte, .varbyte): return true
        case (.array, .array): return true
        case (.superType, _): return to != .hllsketch && !to.isVarbyte && to != .interval && !to.isArray
        case (_, .superType): return from.isNumeric || from == .boolean || from.isString
        case (.hllsketch, _), (_, .hllsketch): return false
        default: return false
        }
    }

    /// The casts among DATE, TIMESTAMP, TIMESTAMPTZ, TIME and TIMETZ that PostgreSQL has.
    static func timeCast(_ from: DataType, _ to: DataType) -> Bool {
        switch (from, to) {
        case (.date, .timestamp), (.date, .timestamptz), (.timestamp, .date), (.timestamptz, .date),
             (.timestamp, .timestamptz), (.timestamptz, .timestamp), (.timestamp, .time), (.timestamptz, .time),
             (.timestamptz, .timetz), (.time, .timetz), (.timetz, .time):
            return true
        default:
            return false
        }
    }

    /// Whether the binder may insert the cast without being asked (function arguments,
    /// assignments, operands): numeric widening and narrowing within numbers (Redshift
    /// converts between numeric types implicitly), string to string, string to number/
    /// date/timestamp, anything to string, date to timestamp and back.
    public static func canImplicitlyCast(_ from: DataType, _ to: DataType) -> Bool {
        if from == to || from == .unknown { return true }
        switch (from, to) {
        case _ where from.isNumeric && to.isNumeric: return true
        case _ where from.isString && to.isString: return true
        case _ where from.isString && (to.isNumeric || to.isTemporal): return true
        case _ where to.isString && from != .boolean: return true
        case (.date, .timestamp), (.timestamp, .date): return true
        case _ where from.isString && to.isTextInput: return true
        case (.date, .timestamptz), (.timestamp, .timestamptz), (.timestamptz, .timestamp), (.time, .timetz), (.timetz, .time):
            return true
        case (.varbyte, .varbyte): return true
        case _ where from.isString && to.isArray: return true
        case (.superType, _): return to.isSuperScalarTarget
        case (_, .superType): return from.isNumeric || from == .boolean || from.isString
        default: return false
        }
    }

    // MARK: - Operators

    /// Operand and result types of `l op r`: the binder casts the left operand to
    /// `left`, the right one to `right`, and the expression has type `result`.
    ///
    /// Throws `operator does not exist: <l> <op> <r>` (SQLSTATE 42883) when no rule applies.
    public static func binaryOperator(_ op: BinaryOp, _ l: DataType, _ r: DataType) throws
        -> (left: DataType, right: DataType, result: DataType) {
        func fail() -> SQLError {
            SQLError(.undefinedFunction, "operator does not exist: \(displayName(l)) \(op.rawValue) \(displayName(r))")
        }
        // An untyped NULL takes the other side's type (both NULL: text for ||, else integer).
        if l == .unknown && r == .unknown {
            if op == .concat { return (.text, .text, .text) }
            if op.isComparison { return (.text, .text, .boolean) }
            return (.integer, .integer, .integer)
        }
        if l == .unknown { return try binaryOperator(op, op == .concat && !r.isString ? .text : r, r) }
        if r == .unknown { return try binaryOperator(op, l, op == .concat && !l.isString ? .text : l) }

        if op.isComparison {
            guard let t = commonType(l, r) else { throw fail() }
            return (t, t, .boolean)
        }
        if op == .concat {
            guard l != .boolean || r.isString, r != .boolean || l.isString else { throw fail() }
            let lt: DataType = l.isString ? l : .varchar(stringLength(l))
            let rt: DataType = r.isString ? r : .varchar(stringLength(r))
            let len = min(stringLength(lt) + stringLength(rt), DataType.maxVarcharLength)
            return (lt, rt, .varchar(max(1, len)))
        }
        // Date arithmetic.
        switch (op, l, r) {
        case (.add, .date, _) where r.isInteger: return (.date, .integer, .date)
        case (.add, _, .date) where l.isInteger: return (.integer, .date, .date)
        case (.subtract, .date, _) where r.isInteger: return (.date, .integer, .date)
        case (.subtract, .date, .date): return (.date, .date, .integer)
        default: break
        }
        guard l.isNumeric || l.isString, r.isNumeric || r.isString, l.isNumeric || r.isNumeric else { throw fail() }
        // A string operand (Redshift converts implicitly) takes the other side's type.
        let lt = l.isString ? r : l
        let rt = r.isString ? l : r
        if lt.isFloat || rt.isFloat {
            // No floating-point modulo in Redshift (MOD and % take integers and DECIMALs).
            if op == .modulo { throw fail() }
            let t: DataType = (lt == .real && rt == .real) ? .real : .double
            return (t, t, t)
        }
        if lt.isInteger && rt.isInteger {
            let t = integerRank(lt) >= integerRank(rt) ? lt : rt
            return (t, t, t)
        }
        // Decimal arithmetic; an integer acts as decimal(its precision, 0).
        let ld = asDecimal(lt), rd = asDecimal(rt)
        let (p1, s1) = (ld.precision, ld.scale), (p2, s2) = (rd.precision, rd.scale)
        let result: DataType
        switch op {
        case .add, .subtract:
            let s = max(s1, s2)
            result = cappedDecimal(intDigits: max(p1 - s1, p2 - s2) + 1, scale: s, minScale: min(s, 6))
        case .multiply:
            result = cappedDecimal(intDigits: (p1 - s1) + (p2 - s2) + 1, scale: s1 + s2, minScale: min(s1 + s2, 6))
        case .divide:
            let s = max(4, s1 + p2 - s2 + 1)
            result = cappedDecimal(intDigits: p1 - s1 + s2, scale: s, minScale: min(s, 6))
        case .modulo:
            let s = max(s1, s2)
            result = cappedDecimal(intDigits: min(p1 - s1, p2 - s2), scale: s)
        default:
            throw fail()
        }
        return (ld, rd, result)
    }

    /// Operand and result type of a unary operator.
    public static func unaryOperator(_ op: UnaryOp, _ t: DataType) throws -> (operand: DataType, result: DataType) {
        switch op {
        case .not:
            guard t == .boolean || t == .unknown || t.isString else {
                throw SQLError(.datatypeMismatch, "argument of NOT must be type boolean, not type \(t.sqlName)")
            }
            return (.boolean, .boolean)
        case .negate:
            if t == .unknown { return (.integer, .integer) }
            if t.isString { return (.double, .double) }
            guard t.isNumeric else {
                throw SQLError(.undefinedFunction, "operator does not exist: - \(t.sqlName)")
            }
            return (t, t)
        }
    }

    /// A type's name as PostgreSQL prints it in "does not exist" errors: without
    /// modifiers (`character varying`, `numeric`).
    public static func displayName(_ t: DataType) -> String {
        switch t {
        case .char: return "character"
        case .varchar: return "character varying"
        case .decimal: return "numeric"
        default: return t.sqlName
        }
    }

    /// An exact numeric seen as a decimal (integers are decimal(precision, 0)).
    public static func asDecimal(_ t: DataType) -> DataType {
        switch t {
        case .decimal: return t
        case .smallint: return .decimal(precision: 5, scale: 0)
        case .integer: return .decimal(precision: 10, scale: 0)
        case .bigint: return .decimal(precision: 19, scale: 0)
        default: return .decimal(precision: 18, scale: 0)
        }
    }
}
