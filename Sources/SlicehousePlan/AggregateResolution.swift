// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// Type resolution of the built-in aggregates, following Amazon Redshift's return types.
///
/// | call                         | argument types accepted           | result                |
/// |------------------------------|-----------------------------------|-----------------------|
/// | `COUNT(*)`                   | —                                 | BIGINT                |
/// | `COUNT([DISTINCT] x)`        | any                               | BIGINT                |
/// | `SUM([DISTINCT] x)`          | SMALLINT, INTEGER, BIGINT         | BIGINT                |
/// |                              | DECIMAL(p,s)                      | DECIMAL(38,s)         |
/// |                              | REAL, DOUBLE PRECISION            | DOUBLE PRECISION      |
/// | `AVG([DISTINCT] x)`          | SMALLINT, INTEGER, BIGINT         | BIGINT (truncated)    |
/// |                              | DECIMAL(p,s)                      | DECIMAL(38,s) (rounded half away from zero) |
/// |                              | REAL, DOUBLE PRECISION            | DOUBLE PRECISION      |
/// | `MIN(x)`, `MAX(x)`           | any (numbers, strings, dates, timestamps, booleans) | the argument's type |
/// | `MEDIAN(x)`, `PERCENTILE_CONT(p) WITHIN GROUP (ORDER BY x)` | SMALLINT, INTEGER, BIGINT | DECIMAL(p+1,1) (p = 5, 10, 19) |
/// |                              | DECIMAL(p,s)                      | DECIMAL(p+1,s+1); DECIMAL(38,s) stays |
/// |                              | REAL, DOUBLE PRECISION            | DOUBLE PRECISION      |
/// |                              | DATE, TIMESTAMP                   | the argument's type   |
/// | `PERCENTILE_DISC(p) WITHIN GROUP (ORDER BY x)` | numbers, DATE, TIMESTAMP | the argument's type |
/// | `LISTAGG([DISTINCT] x [, delimiter])` | any (non-strings are cast to VARCHAR) | VARCHAR(65535) |
/// | `APPROXIMATE COUNT(DISTINCT x)`, `HLL(x)` | any                 | BIGINT                |
/// | `HLL_CREATE_SKETCH(x)`       | any                               | HLLSKETCH             |
/// | `HLL_COMBINE(sketch)`        | HLLSKETCH                         | HLLSKETCH             |
///
/// Redshift documents MEDIAN and PERCENTILE_CONT of integers and decimals as "DECIMAL"
/// without a precision; one more digit of scale keeps a median (the mean of two middle
/// values) exact, and Redshift's own examples print integer medians with one decimal
/// (`17.5`, `10.0`). Interpolated percentiles are rounded half away from zero to that scale.
///
/// The argument is never cast (`argTarget` is the argument's own type), except that
/// an untyped NULL (`.unknown`) given to MIN/MAX is read as VARCHAR, as PostgreSQL
/// reads unknown literals as text. SUM/AVG of an untyped NULL is ambiguous, as in
/// PostgreSQL.
extension AggregateFunction {

    /// The SQL names of the aggregates `resolve` knows (lower case).
    public static let aggregateNames: Set<String> = ["count", "sum", "avg", "min", "max", "hll", "hll_create_sketch", "hll_combine",
                                                     "bit_and", "bit_or"]

    /// The ordered-set aggregates and LISTAGG (lower case); the binder resolves them
    /// with `percentileResultType` and `listaggResultType`.
    public static let orderedSetNames: Set<String> = ["median", "percentile_cont", "percentile_disc", "listagg"]

    /// Whether `name` (any case) is an aggregate function, so that the binder
    /// treats `name(...)` as an aggregate call rather than a scalar function.
    public static func isAggregateName(_ name: String) -> Bool {
        let lname = name.lowercased()
        return aggregateNames.contains(lname) || orderedSetNames.contains(lname)
    }

    /// The result type of MEDIAN / PERCENTILE_CONT (`continuous`) or PERCENTILE_DISC of
    /// an argument of type `t` (see the table above).
    /// - Throws: `function name(type) does not exist` (42883) for any other type.
    public static func percentileResultType(name: String, argType t: DataType, continuous: Bool) throws -> DataType {
        switch t {
        case .smallint, .integer, .bigint:
            return continuous ? .decimal(precision: t.precision + 1, scale: 1) : t
        case .decimal(let p, let s):
            guard continuous, p < DataType.maxDecimalPrecision else { return t }
            return .decimal(precision: p + 1, scale: s + 1)
        case .real, .double:
            return continuous ? .double : t
        case .date, .timestamp:
            return t
        default:
            throw SQLError(.undefinedFunction, "function \(name.lowercased())(\(signatureName(t))) does not exist")
        }
    }

    /// LISTAGG's result: VARCHAR(MAX), i.e. VARCHAR(65535).
    public static let listaggResultType = DataType.varchar(DataType.maxVarcharLength)

    /// The longest LISTAGG result, in bytes; longer is an error, as in Redshift.
    public static let listaggLimit = DataType.maxVarcharLength

    /// Resolve an aggregate call.
    ///
    /// - Parameters:
    ///   - name: the function name as written (case-insensitive).
    ///   - argTypes: the bound argument types (empty for `COUNT(*)`).
    ///   - distinct: `f(DISTINCT x)`.
    ///   - star: `f(*)`; only COUNT accepts it.
    /// - Returns: the function; the type the argument must have when it reaches the
    ///   aggregate operator (nil for `COUNT(*)`); the result type.
    /// - Throws: `function name(types) does not exist` (42883) for an unknown name,
    ///   a wrong argument count or an argument type without a signature;
    ///   `function name(unknown) is not unique` (42725 in PostgreSQL, reported as
    ///   42883 here) for SUM/AVG of an untyped NULL; a syntax error for `COUNT(DISTINCT *)`.
    public static func resolve(name: String, argTypes: [DataType], distinct: Bool, star: Bool) throws
        -> (AggregateFunction, argTarget: DataType?, result: DataType) {
        let lname = name.lowercased()
        func noSuch() -> SQLError {
            let args = star ? "" : argTypes.map(Self.signatureName).joined(separator: ", ")
            return SQLError(.undefinedFunction, "function \(lname)(\(args)) does not exist")
        }
        guard aggregateNames.contains(lname) else { throw noSuch() }
        if star {
            guard lname == "count", argTypes.isEmpty else { throw noSuch() }
            if distinct { throw SQLError.syntax("syntax error at or near \"*\"") }
            return (.countStar, nil, .bigint)
        }
        guard argTypes.count == 1 else { throw noSuch() }
        let t = argTypes[0]

        switch lname {
        case "count":
            return (.count, t, .bigint)
        case "hll":
            return (.approximateCountDistinct, t == .unknown ? .text : t, .bigint)
        case "hll_create_sketch":
            guard t != .hllsketch else { throw noSuch() }
            return (.hllCreateSketch, t == .unknown ? .text : t, .hllsketch)
        case "hll_combine":
            guard t == .hllsketch || t == .unknown || t.isString else { throw noSuch() }
            return (.hllCombine, .hllsketch, .hllsketch)
        case "min", "max":
            let fn: AggregateFunction = lname == "min" ? .min : .max
            let arg = t == .unknown ? DataType.text : t
            return (fn, arg, arg)
        case "bit_and", "bit_or":
            // INT, INT2 or INT8 in, the same type out.
            let arg = t == .unknown ? DataType.integer : t
            guard arg.isInteger else { throw noSuch() }
            return (lname == "bit_and" ? .bitAnd : .bitOr, arg, arg)
        case "sum", "avg":
            let isSum = lname == "sum"
            let fn: AggregateFunction = isSum ? .sum : .avg
            if t == .unknown {
                throw SQLError(.undefinedFunction, "function \(lname)(unknown) is not unique")
            }
            if t.isInteger { return (fn, t, .bigint) }
            if case .decimal(_, let s) = t {
                return (fn, t, .decimal(precision: DataType.maxDecimalPrecision, scale: s))
            }
            if t.isFloat { return (fn, t, .double) }
            throw noSuch()
        default:
            throw noSuch()
        }
    }

    /// Type names as PostgreSQL prints them in function signatures (no modifiers).
    static func signatureName(_ t: DataType) -> String {
        switch t {
        case .decimal: return "numeric"
        case .char: return "character"
        case .varchar: return "character varying"
        default: return t.sqlName
        }
    }
}
