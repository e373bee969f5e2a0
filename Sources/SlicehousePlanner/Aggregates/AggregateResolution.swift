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
///
/// The argument is never cast (`argTarget` is the argument's own type), except that
/// an untyped NULL (`.unknown`) given to MIN/MAX is read as VARCHAR, as PostgreSQL
/// reads unknown literals as text. SUM/AVG of an untyped NULL is ambiguous, as in
/// PostgreSQL.
extension AggregateFunction {

    /// The SQL names of the aggregates `resolve` knows (lower case).
    public static let aggregateNames: Set<String> = ["count", "sum", "avg", "min", "max"]

    /// Whether `name` (any case) is an aggregate function, so that the binder
    /// treats `name(...)` as an aggregate call rather than a scalar function.
    public static func isAggregateName(_ name: String) -> Bool {
        aggregateNames.contains(name.lowercased())
    }

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
        case "min", "max":
            let fn: AggregateFunction = lname == "min" ? .min : .max
            let arg = t == .unknown ? DataType.text : t
            return (fn, arg, arg)
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
