// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// A scalar function: everything about it in one declaration — its names, how a call is
/// resolved (arity, the type each argument is cast to, the result type), its kernel, and
/// whether it may be folded or cached.
///
/// The built-ins are declared in SlicehouseFunctions/Builtins, one stored property of a
/// family (`StringFunctions`, `DateFunctionFamily`, …) each; `FunctionRegistry` finds them
/// by name. The binder resolves a call once (`resolve`), so the kernel runs on arguments
/// that already have the declared types and never looks a name or a type rule up again.
///
/// Equality is by canonical name: two declarations of one name are one function.
public final class ScalarFunction: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// Whether a call may be folded to a constant or its result reused.
    public enum Volatility: Sendable, Equatable {
        /// The same arguments always give the same value.
        case immutable
        /// Depends on the clock (GETDATE, SYSDATE, CURRENT_DATE): folded once per statement,
        /// never reused by the result cache.
        case statementTime
        /// Another value at every call (RANDOM): never folded.
        case volatile
    }

    /// A kernel: the evaluated arguments (already of the resolved types; a constant vector
    /// stands for every row), the call's result type and the number of rows.
    public typealias Kernel = @Sendable (_ args: [Vector], _ result: DataType, _ rows: Int) throws -> Vector

    /// How a call is evaluated.
    public enum Evaluation: Sendable {
        /// Every argument is evaluated for every row, then the kernel runs.
        case kernel(Kernel)
        /// Arguments are evaluated only for the rows that need them, as CASE evaluates its
        /// arms: control flow the expression evaluator itself runs (COALESCE, NVL2).
        case shortCircuit(ShortCircuit)
    }
    public enum ShortCircuit: Sendable, Equatable {
        /// The first argument that is not NULL.
        case coalesce
        /// NVL2(e, a, b): a where e is not NULL, else b.
        case nvl2
    }

    /// Resolves a call; nil for functions only the binder builds (never called by name).
    public typealias Resolver = @Sendable (_ call: ScalarCall) throws -> FunctionResolution

    /// The canonical name: what EXPLAIN prints and error messages say.
    public let name: String
    /// The lower-case names SQL calls it by (empty: the binder builds it, SQL cannot call it).
    public let sqlNames: [String]
    /// How many arguments a call takes (checked before `resolver` runs and before the kernel).
    public let arguments: ClosedRange<Int>
    public let volatility: Volatility
    /// The output column name of an unaliased call when it is not the name as written.
    public let columnName: String?
    public let resolver: Resolver?
    public let evaluation: Evaluation

    /// - Parameters:
    ///   - name: the canonical name.
    ///   - aliases: further names SQL calls it by; `name` itself is callable unless `internal`.
    ///   - internal: built by the binder only (not callable from SQL).
    ///   - arguments: how many arguments a call takes.
    public init(_ name: String, aliases: [String] = [], internal isInternal: Bool = false, arguments: ClosedRange<Int>,
                volatility: Volatility = .immutable, columnName: String? = nil, resolve: Resolver? = nil,
                evaluation: Evaluation) {
        self.name = name
        self.arguments = arguments
        self.sqlNames = isInternal ? [] : [name] + aliases
        self.volatility = volatility
        self.columnName = columnName
        self.resolver = resolve
        self.evaluation = evaluation
    }

    /// A function whose arguments are all evaluated before its kernel runs.
    public convenience init(_ name: String, aliases: [String] = [], internal isInternal: Bool = false, arguments: ClosedRange<Int>,
                            volatility: Volatility = .immutable, columnName: String? = nil,
                            resolve: Resolver? = nil, kernel: @escaping Kernel) {
        self.init(name, aliases: aliases, internal: isInternal, arguments: arguments, volatility: volatility,
                  columnName: columnName, resolve: resolve, evaluation: .kernel(kernel))
    }

    /// Volatile functions are never constant-folded.
    public var isVolatile: Bool { volatility == .volatile }
    /// Functions whose value depends on the clock: the binder may fold them once per
    /// statement, but a result cache must not reuse their results.
    public var dependsOnTime: Bool { volatility == .statementTime }
    /// The name printed in EXPLAIN and error messages.
    public var sqlName: String { name }
    public var description: String { name }

    public static func == (a: ScalarFunction, b: ScalarFunction) -> Bool { a === b || a.name == b.name }
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }
}

/// What a resolver decides: the type each argument is cast to (one per argument), the
/// result type, and, when the call is another function's (`EXTRACT` of an INTERVAL is
/// `interval_part`), which.
public struct FunctionResolution: Sendable {
    public var function: ScalarFunction?
    public var argTypes: [DataType]
    public var result: DataType
    /// Constant arguments the resolver rewrote to their canonical form (a date part's
    /// abbreviation to its full name), so the kernel needs no lookup.
    public var constants: [Int: Value]

    public init(_ argTypes: [DataType], _ result: DataType, function: ScalarFunction? = nil, constants: [Int: Value] = [:]) {
        self.argTypes = argTypes; self.result = result; self.function = function; self.constants = constants
    }
}

/// A call as the binder sees it, with the checks and coercions resolvers share.
public struct ScalarCall: Sendable {
    /// The name as written, lower case.
    public let name: String
    /// The argument types as bound (`.unknown` for an untyped NULL).
    public let argTypes: [DataType]
    /// The values of arguments that are constants (nil for the others; may be shorter than
    /// `argTypes`). Redshift's result type sometimes depends on one (`ROUND(x, 1)`).
    public let constants: [Value?]
    /// Which arguments are untyped string literals.
    public let untypedLiterals: [Bool]

    public init(name: String, argTypes: [DataType], constants: [Value?] = [], untypedLiterals: [Bool] = []) {
        self.name = name.lowercased(); self.argTypes = argTypes; self.constants = constants
        self.untypedLiterals = untypedLiterals
    }

    public var count: Int { argTypes.count }
    public subscript(_ i: Int) -> DataType { argTypes[i] }

    /// `function name(types) does not exist` (42883), PostgreSQL's spelling: type names
    /// without modifiers, `unknown` for a string literal.
    public func noSuch() -> SQLError {
        let shown = argTypes.enumerated().map { i, t -> String in
            if i < untypedLiterals.count && untypedLiterals[i] { return "unknown" }
            return TypeRules.displayName(t)
        }
        return SQLError(.undefinedFunction, "function \(name)(\(shown.joined(separator: ", "))) does not exist", detail: nil)
    }
    public func constant(_ i: Int) -> Value? { i < constants.count ? constants[i] : nil }
    /// A small integer constant argument.
    public func constInt(_ i: Int) -> Int? {
        guard let v = constant(i) else { return nil }
        if case .int(let x) = v, x >= -1000, x <= 100_000 { return Int(x) }
        return nil
    }
    public func arity(_ allowed: ClosedRange<Int>) throws { guard allowed.contains(count) else { throw noSuch() } }
    public func isUntypedLiteral(_ i: Int) -> Bool { i < untypedLiterals.count && untypedLiterals[i] }

    /// A numeric argument type (strings and NULL become DOUBLE PRECISION).
    public func numeric(_ t: DataType) throws -> DataType {
        if t.isNumeric { return t }
        if t == .unknown || t.isString { return .double }
        throw noSuch()
    }
    public func string(_ t: DataType) throws -> DataType {
        if t.isString { return t }
        if t == .unknown { return .text }
        if t == .boolean { throw noSuch() }
        return .varchar(TypeRules.stringLength(t))
    }
    public func integer(_ t: DataType) throws -> DataType {
        if t.isInteger { return t == .bigint ? .bigint : .integer }
        if t == .unknown || t.isString || t.isDecimal || t.isFloat { return .integer }
        throw noSuch()
    }
    public func timestamp(_ t: DataType) throws -> DataType {
        if t == .timestamp || t == .date || t == .unknown || t.isString || t == .timestamptz || t == .superType { return .timestamp }
        throw noSuch()
    }
    public func superValue(_ t: DataType) throws -> DataType {
        if t == .superType || t == .unknown { return .superType }
        if t.isNumeric || t.isString || t == .boolean { return .superType }
        throw noSuch()
    }
    public func boolean(_ t: DataType) throws -> DataType {
        if t == .boolean || t == .unknown || t.isString { return .boolean }
        throw noSuch()
    }
    public func date(_ t: DataType) throws -> DataType {
        if t == .date || t == .unknown || t.isString { return .date }
        if t == .timestamp { return .timestamp }
        throw noSuch()
    }
    public func stringLength(_ t: DataType) -> Int { TypeRules.stringLength(t) }
    public func varchar(_ length: Int) -> DataType { .varchar(max(1, min(length, DataType.maxVarcharLength))) }
    /// The common type of `types` (COALESCE and friends); a string literal alone is TEXT.
    public func common(_ types: [DataType], _ literals: [Bool]) throws -> DataType {
        guard var t = TypeRules.commonType(types, untypedLiterals: literals) else { throw noSuch() }
        if t == .unknown { t = .text }
        return t
    }
    /// The common type of every argument.
    public func commonOfAll() throws -> DataType { try common(argTypes, untypedLiterals) }

    /// Argument `i`, a date part: a constant must name one (22023 otherwise), and is
    /// returned in canonical form for the resolution's `constants`.
    public func datePart(_ i: Int) throws -> [Int: Value] {
        guard let v = constant(i), case .string(let s) = v else { return [:] }
        guard let c = DateParts.canonical(s) else { throw SQLError(.invalidParameter, "date part \"\(s)\" is not supported") }
        return [i: .string(c)]
    }
}

/// Date part names: DATE_PART, EXTRACT, DATE_TRUNC, DATEADD and DATEDIFF accept Redshift's
/// abbreviations; the binder rewrites a constant part to its canonical name.
public enum DateParts {
    public static func canonical(_ raw: String) -> String? {
        switch trimBlanks(raw.lowercased()) {
        case "millennium", "millennia", "mil", "mils": return "millennium"
        case "century", "centuries", "c", "cent", "cents": return "century"
        case "decade", "decades", "dec", "decs": return "decade"
        case "year", "years", "y", "yr", "yrs", "yy", "yyy", "yyyy": return "year"
        case "quarter", "quarters", "qtr", "qtrs", "q": return "quarter"
        case "month", "months", "mon", "mons", "mm": return "month"
        case "week", "weeks", "w", "wk", "wks": return "week"
        case "day", "days", "d", "dd": return "day"
        case "dayofweek", "dow", "dw", "weekday": return "dow"
        case "dayofyear", "doy", "dy", "yearday": return "doy"
        case "hour", "hours", "h", "hr", "hrs": return "hour"
        case "minute", "minutes", "m", "min", "mins": return "minute"
        case "second", "seconds", "s", "sec", "secs": return "second"
        case "millisecond", "milliseconds", "ms", "msec", "msecs", "msecond", "mseconds", "millisec",
             "millisecs", "millisecon": return "millisecond"
        case "microsecond", "microseconds", "microsec", "microsecs", "us", "usec", "usecs",
             "usecond", "useconds": return "microsecond"
        case "epoch": return "epoch"
        case "isodow": return "isodow"
        case "isoyear": return "isoyear"
        default: return nil
        }
    }

    /// `s` without leading and trailing blanks (ASCII space and tab).
    static func trimBlanks(_ str: String) -> String {
        var s = Substring(str)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return String(s)
    }
}
