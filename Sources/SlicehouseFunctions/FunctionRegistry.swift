// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan

/// A family of built-in scalar functions: a struct whose stored `ScalarFunction`
/// properties are its functions, each declared once (Builtins/). Adding a function is
/// adding a property to its family; the registry finds it.
public protocol FunctionFamily: Sendable {}

/// The built-in families, in the order `pg_proc` lists their functions.
public enum Builtins {
    public static let conditional = ConditionalFamily()
    public static let math = MathFamily()
    public static let strings = StringFamily()
    public static let dates = DateTimeFamily()
    public static let formatting = FormattingFamily()
    public static let hashes = HashFamily()
    public static let regex = RegexFamily()
    public static let semiStructured = SemiStructuredFamily()
    public static let intervals = IntervalFamily()
    public static let internals = InternalFamily()

    static let families: [any FunctionFamily] = [
        conditional, math, strings, dates, formatting, hashes, regex, semiStructured, intervals, internals,
    ]
}

/// Finds a scalar function by name and resolves a call of it.
public enum FunctionRegistry {
    /// Every built-in, in declaration order.
    public static let all: [ScalarFunction] = Builtins.families.flatMap { family in
        Mirror(reflecting: family).children.compactMap { $0.value as? ScalarFunction }
    }

    /// SQL name → function.
    private static let byName: [String: ScalarFunction] = {
        var map: [String: ScalarFunction] = [:]
        for f in all { for n in f.sqlNames where map[n] == nil { map[n] = f } }
        return map
    }()

    /// The SQL names the registry knows (lower case), for completion, `pg_proc` and CREATE
    /// FUNCTION's check that a name is free.
    public static let knownNames: [String] = all.flatMap(\.sqlNames)

    /// Names declared by more than one function (a test keeps this empty).
    public static var duplicateNames: [String] {
        var seen: Set<String> = [], dup: [String] = []
        for n in knownNames { if !seen.insert(n).inserted { dup.append(n) } }
        return dup
    }

    /// The function SQL calls `name` (case-insensitive), if any.
    public static func function(named name: String) -> ScalarFunction? { byName[name.lowercased()] }

    /// Resolve `name(args)`: which function runs, the type each argument is cast to (one
    /// per argument), the result type, and constant arguments rewritten to canonical form.
    ///
    /// - Throws: `function name(types) does not exist` (42883) for unknown names or
    ///   argument types that fit no signature; 22023 for a bad date part.
    public static func resolve(_ call: ScalarCall) throws -> (ScalarFunction, FunctionResolution) {
        guard let f = byName[call.name], let resolver = f.resolver, f.arguments.contains(call.count) else {
            throw call.noSuch()
        }
        let r = try resolver(call)
        guard r.argTypes.count == call.count else {
            throw SQLError.internalError("\(f.name) resolved \(call.count) arguments to \(r.argTypes.count) types")
        }
        return (r.function ?? f, r)
    }

    /// Resolve `name(args)` without literal flags (the binder's own calls, tests).
    public static func resolve(name: String, argTypes: [DataType], constantArgs: [Value?] = []) throws
        -> (ScalarFunction, FunctionResolution) {
        try resolve(ScalarCall(name: name, argTypes: argTypes, constants: constantArgs))
    }

    /// DECIMAL precision and scale of TO_NUMBER's result for a numeric format: digit
    /// positions (`9`, `0`) before and after the decimal point (`.` or `D`).
    public static func numberFormatPrecision(_ format: String) -> (precision: Int, scale: Int) {
        var intDigits = 0, fracDigits = 0, afterPoint = false
        for c in format.uppercased() {
            switch c {
            case "9", "0": if afterPoint { fracDigits += 1 } else { intDigits += 1 }
            case ".", "D": afterPoint = true
            default: break
            }
        }
        let s = min(fracDigits, DataType.maxDecimalPrecision)
        let p = max(1, min(DataType.maxDecimalPrecision, intDigits + fracDigits))
        return (max(p, s), s)
    }
}
