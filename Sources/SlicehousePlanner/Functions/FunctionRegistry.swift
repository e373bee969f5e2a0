// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// Resolves a scalar function call by name and argument types: which built-in
/// runs, which type each argument must be cast to, and the result type.
public enum FunctionRegistry {

    /// The SQL names the registry knows (lower case), for completion and docs.
    public static let knownNames: [String] = [
        "coalesce", "nvl", "nullif", "nvl2", "greatest", "least",
        "abs", "round", "trunc", "ceil", "ceiling", "floor", "sign", "mod", "power", "pow",
        "sqrt", "cbrt", "exp", "ln", "log", "pi", "random",
        "upper", "lower", "initcap", "length", "len", "textlen", "char_length", "character_length",
        "octet_length", "substring", "substr", "position", "strpos", "charindex",
        "trim", "btrim", "ltrim", "rtrim", "left", "right", "lpad", "rpad", "replace",
        "translate", "repeat", "replicate", "reverse", "split_part", "concat", "ascii", "chr",
        "quote_ident", "quote_literal", "strtol",
        "extract", "date_part", "datepart", "pgdate_part", "date_trunc", "dateadd", "date_add",
        "datediff", "date_diff", "add_months", "months_between", "last_day", "current_date", "getdate", "sysdate",
        "assignment_cast",
        "next_day", "convert_timezone", "date_cmp", "date_cmp_timestamp", "timestamp_cmp", "timestamp_cmp_date",
        "to_char", "to_date", "to_timestamp", "to_number", "decode",
        "md5", "sha2", "fnv_hash", "regexp_substr", "regexp_replace", "regexp_count", "regexp_instr", "similar_to",
        "json_parse", "can_json_parse", "json_serialize", "is_valid_json", "is_valid_json_array",
        "json_extract_path_text", "json_extract_array_element_text", "json_array_length", "json_typeof",
        "is_array", "is_object", "is_scalar", "is_boolean", "is_number", "is_integer", "is_smallint", "is_bigint",
        "is_decimal", "is_float", "is_fp", "is_varchar", "is_char", "get_array_length", "array", "object",
        "to_varbyte", "from_varbyte", "hll_cardinality",
    ]

    /// Date parts accepted by DATE_PART/EXTRACT/DATE_TRUNC/DATEADD/DATEDIFF, with
    /// Redshift's abbreviations, mapped to a canonical name.
    public static func canonicalDatePart(_ raw: String) -> String? {
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

    /// Resolve `name(args)`.
    ///
    /// - Parameters:
    ///   - name: the function name as written (case-insensitive).
    ///   - argTypes: the argument types as bound (`.unknown` for an untyped NULL).
    ///   - constantArgs: optional, the values of arguments that are constants (nil for
    ///     the others; may be shorter than `argTypes`). Used where Redshift's result type
    ///     depends on a constant, e.g. `ROUND(x, 1)` has scale 1, and to reject unknown
    ///     date parts at bind time.
    ///   - untypedLiterals: optional, which arguments are untyped string literals.
    /// - Returns: the function, the type to cast each argument to (same count as
    ///   `argTypes`), and the result type.
    /// - Throws: `function name(types) does not exist` (42883) for unknown names or
    ///   argument types that fit no signature; 22023 for a bad date part.
    public static func resolve(name: String, argTypes: [DataType], constantArgs: [Value?] = [],
                               untypedLiterals: [Bool] = []) throws
        -> (ScalarFunction, argTypes: [DataType], result: DataType) {
        let lname = name.lowercased()
        let n = argTypes.count
        func noSuch() -> SQLError {
            // PostgreSQL's spelling: type names without modifiers, `unknown` for a string literal.
            let shown = argTypes.enumerated().map { i, t -> String in
                if i < untypedLiterals.count && untypedLiterals[i] { return "unknown" }
                return TypeRules.displayName(t)
            }
            return SQLError(.undefinedFunction, "function \(lname)(\(shown.joined(separator: ", "))) does not exist", detail: nil)
        }
        func constant(_ i: Int) -> Value? { i < constantArgs.count ? constantArgs[i] : nil }
        func constInt(_ i: Int) -> Int? {
            guard let v = constant(i) else { return nil }
            if case .int(let x) = v, x >= -1000, x <= 100_000 { return Int(x) }
            return nil
        }
        func arity(_ allowed: ClosedRange<Int>) throws { guard allowed.contains(n) else { throw noSuch() } }
        /// A numeric argument type (strings and NULL become double / numeric).
        func numeric(_ t: DataType) throws -> DataType {
            if t.isNumeric { return t }
            if t == .unknown || t.isString { return .double }
            throw noSuch()
        }
        func string(_ t: DataType) throws -> DataType {
            if t.isString { return t }
            if t == .unknown { return .text }
            if t == .boolean { throw noSuch() }
            return .varchar(TypeRules.stringLength(t))
        }
        func integerArg(_ t: DataType) throws -> DataType {
            if t.isInteger { return t == .bigint ? .bigint : .integer }
            if t == .unknown || t.isString || t.isDecimal || t.isFloat { return .integer }
            throw noSuch()
        }
        func timestampArg(_ t: DataType) throws -> DataType {
            if t == .timestamp || t == .date || t == .unknown || t.isString || t == .timestamptz || t == .superType { return .timestamp }
            throw noSuch()
        }
        func superArg(_ t: DataType) throws -> DataType {
            if t == .superType || t == .unknown { return .superType }
            if t.isNumeric || t.isString || t == .boolean { return .superType }
            throw noSuch()
        }
        func boolArg(_ t: DataType) throws -> DataType {
            if t == .boolean || t == .unknown || t.isString { return .boolean }
            throw noSuch()
        }
        func dateArg(_ t: DataType) throws -> DataType {
            if t == .date || t == .unknown || t.isString { return .date }
            if t == .timestamp { return .timestamp }
            throw noSuch()
        }
        func checkPart(_ i: Int) throws {
            if let v = constant(i), case .string(let s) = v, canonicalDatePart(s) == nil {
                throw SQLError(.invalidParameter, "date part \"\(s)\" is not supported")
            }
        }
        func strLen(_ t: DataType) -> Int { TypeRules.stringLength(t) }
        func varchar(_ len: Int) -> DataType { .varchar(max(1, min(len, DataType.maxVarcharLength))) }
        /// Common type of all arguments (for COALESCE and friends).
        func common(_ types: [DataType], _ lits: [Bool]) throws -> DataType {
            guard var t = TypeRules.commonType(types, untypedLiterals: lits) else { throw noSuch() }
            if t == .unknown { t = .text }
            return t
        }

        switch lname {
        // MARK: Conditional
        case "coalesce", "nvl":
            // Redshift's NVL is COALESCE under another name (two or more arguments).
            guard n >= (lname == "nvl" ? 2 : 1) else { throw noSuch() }
            let t = try common(argTypes, untypedLiterals)
            return (.coalesce, Array(repeating: t, count: n), t)
        case "nullif":
            try arity(2...2)
            let t = try common(argTypes, untypedLiterals)
            return (.nullif, [t, t], t)
        case "nvl2":
            try arity(3...3)
            let lits = untypedLiterals.count >= 3 ? Array(untypedLiterals[1...2]) : []
            let t = try common([argTypes[1], argTypes[2]], lits)
            return (.nvl2, [argTypes[0] == .unknown ? .text : argTypes[0], t, t], t)
        case "greatest", "least":
            guard n >= 1 else { throw noSuch() }
            let t = try common(argTypes, untypedLiterals)
            return (lname == "greatest" ? .greatest : .least, Array(repeating: t, count: n), t)

        // MARK: Math
        case "abs":
            try arity(1...1)
            let t = try numeric(argTypes[0])
            return (.abs, [t], t)
        case "sign":
            try arity(1...1)
            let t = try numeric(argTypes[0])
            // Redshift: the input's type, except that a DECIMAL gives DECIMAL(1,0).
            return (.sign, [t], t.isDecimal ? .decimal(precision: 1, scale: 0) : t)
        case "round", "trunc":
            try arity(1...2)
            let fn: ScalarFunction = lname == "round" ? .round : .trunc
            if n == 1, argTypes[0] == .timestamp || argTypes[0] == .date, fn == .trunc {
                // TRUNC(timestamp) → DATE in Redshift.
                return (.trunc, [.timestamp], .date)
            }
            let t = try numeric(argTypes[0])
            // REAL stays REAL: ROUND and TRUNC return their argument's type (Redshift).
            var result = t
            if case .decimal(let p, let s) = t {
                if n == 1 {
                    result = .decimal(precision: min(DataType.maxDecimalPrecision, max(1, p - s + 1)), scale: 0)
                } else if let d = constInt(1) {
                    let ns = max(0, min(d, s))
                    result = .decimal(precision: min(DataType.maxDecimalPrecision, max(1, p - s + ns + 1)), scale: ns)
                }
            }
            return (fn, n == 1 ? [t] : [t, .integer], result)
        case "ceil", "ceiling", "floor":
            try arity(1...1)
            let t = try numeric(argTypes[0])
            // REAL stays REAL, like ROUND.
            var result = t
            if case .decimal(let p, let s) = t {
                result = .decimal(precision: min(DataType.maxDecimalPrecision, max(1, p - s + 1)), scale: 0)
            }
            return (lname == "floor" ? .floor : .ceil, [t], result)
        case "mod":
            // Integers and DECIMALs only (Redshift); text takes the other argument's type.
            try arity(2...2)
            func exact(_ t: DataType, _ other: DataType) throws -> DataType {
                if t.isInteger || t.isDecimal { return t }
                if t == .unknown || t.isString { return other.isInteger || other.isDecimal ? other : .bigint }
                throw noSuch()
            }
            let a = try exact(argTypes[0], argTypes[1]), b = try exact(argTypes[1], argTypes[0])
            let (l, r, res) = try TypeRules.binaryOperator(.modulo, a, b)
            return (.mod, [l, r], res)
        case "power", "pow":
            try arity(2...2)
            _ = try numeric(argTypes[0]); _ = try numeric(argTypes[1])
            return (.power, [.double, .double], .double)
        case "sqrt", "cbrt", "exp", "ln", "log", "dexp", "dlog1", "dlog10":
            try arity(1...1)
            _ = try numeric(argTypes[0])
            let fn: ScalarFunction
            switch lname {
            case "sqrt": fn = .sqrt
            case "cbrt": fn = .cbrt
            case "exp", "dexp": fn = .exp
            case "ln", "dlog1": fn = .ln
            default: fn = .log
            }
            return (fn, [.double], .double)
        case "pi":
            try arity(0...0)
            return (.pi, [], .double)
        case "random":
            try arity(0...0)
            return (.random, [], .double)

        // MARK: Strings
        case "upper", "lower", "initcap", "reverse":
            try arity(1...1)
            let t = try string(argTypes[0])
            let fn: ScalarFunction = lname == "upper" ? .upper : lname == "lower" ? .lower
                : lname == "initcap" ? .initcap : .reverse
            return (fn, [t], varchar(strLen(t)))
        case "length", "char_length", "character_length", "len", "textlen", "octet_length":
            try arity(1...1)
            let t = try string(argTypes[0])
            let fn: ScalarFunction = lname == "len" || lname == "textlen" ? .len : lname == "octet_length" ? .octetLength : .length
            return (fn, [t], .integer)
        case "substring", "substr":
            try arity(2...3)
            let t = try string(argTypes[0])
            return (.substring, n == 2 ? [t, try integerArg(argTypes[1])] : [t, try integerArg(argTypes[1]), try integerArg(argTypes[2])],
                    varchar(strLen(t)))
        case "position", "strpos":
            try arity(2...2)
            return (.position, [try string(argTypes[0]), try string(argTypes[1])], .integer)
        case "charindex":
            try arity(2...2)
            return (.charindex, [try string(argTypes[0]), try string(argTypes[1])], .integer)
        case "trim", "btrim", "ltrim", "rtrim":
            try arity(1...2)
            let t = try string(argTypes[0])
            let fn: ScalarFunction = lname == "ltrim" ? .ltrim : lname == "rtrim" ? .rtrim : .btrim
            return (fn, n == 1 ? [t] : [t, try string(argTypes[1])], varchar(strLen(t)))
        case "left", "right":
            try arity(2...2)
            let t = try string(argTypes[0])
            return (lname == "left" ? .left : .right, [t, try integerArg(argTypes[1])], varchar(strLen(t)))
        case "lpad", "rpad":
            try arity(2...3)
            let t = try string(argTypes[0])
            let len = constInt(1).map { max(1, $0 * 4) } ?? DataType.maxVarcharLength
            var targets = [t, try integerArg(argTypes[1])]
            if n == 3 { targets.append(try string(argTypes[2])) }
            return (lname == "lpad" ? .lpad : .rpad, targets, varchar(len))
        case "replace":
            try arity(3...3)
            let t = try string(argTypes[0])
            return (.replace, [t, try string(argTypes[1]), try string(argTypes[2])], varchar(DataType.maxVarcharLength))
        case "translate":
            try arity(3...3)
            let t = try string(argTypes[0])
            return (.translate, [t, try string(argTypes[1]), try string(argTypes[2])], varchar(strLen(t)))
        case "repeat", "replicate":
            try arity(2...2)
            let t = try string(argTypes[0])
            let len = constInt(1).map { strLen(t) * max(1, $0) } ?? DataType.maxVarcharLength
            return (.repeatString, [t, try integerArg(argTypes[1])], varchar(len))
        case "split_part":
            try arity(3...3)
            let t = try string(argTypes[0])
            return (.splitPart, [t, try string(argTypes[1]), try integerArg(argTypes[2])], varchar(strLen(t)))
        case "concat":
            try arity(2...2)
            let a = try string(argTypes[0]), b = try string(argTypes[1])
            return (.concat, [a, b], varchar(strLen(a) + strLen(b)))
        case "ascii":
            try arity(1...1)
            return (.ascii, [try string(argTypes[0])], .integer)
        case "chr":
            try arity(1...1)
            return (.chr, [try integerArg(argTypes[0])], .varchar(4))
        case "quote_ident":
            try arity(1...1)
            let t = try string(argTypes[0])
            return (.quoteIdent, [t], varchar(min(DataType.maxVarcharLength, 2 * strLen(t) + 2)))
        case "quote_literal":
            try arity(1...1)
            let t = try string(argTypes[0])
            return (.quoteLiteral, [t], varchar(min(DataType.maxVarcharLength, 2 * strLen(t) + 2)))
        case "strtol":
            try arity(2...2)
            return (.strtol, [try string(argTypes[0]), try integerArg(argTypes[1])], .bigint)

        // MARK: Dates
        case "extract", "date_part", "datepart", "pgdate_part":
            try arity(2...2)
            try checkPart(0)
            let isEpoch: Bool = {
                if let v = constant(0), case .string(let s) = v { return canonicalDatePart(s) == "epoch" }
                return false
            }()
            // An INTERVAL's fields; a TIME is read as the interval since midnight.
            if [.interval, .time, .timetz].contains(argTypes[1]) {
                return (.intervalPart, [.text, .interval], lname == "extract" ? (isEpoch ? .bigint : .integer) : .double)
            }
            // Dates are read as dates (midnight) without a cast.
            let src: DataType = argTypes[1] == .date ? .date : try timestampArg(argTypes[1])
            if lname == "extract" {
                return (.extract, [.text, src], isEpoch ? .bigint : .integer)
            }
            return (.datePart, [.text, src], .double)
        case "date_trunc":
            try arity(2...2)
            try checkPart(0)
            return (.dateTrunc, [.text, argTypes[1] == .date ? .date : try timestampArg(argTypes[1])], .timestamp)
        case "dateadd", "date_add":
            try arity(3...3)
            try checkPart(0)
            return (.dateAdd, [.text, .bigint, try timestampArg(argTypes[2])], .timestamp)
        case "datediff", "date_diff":
            try arity(3...3)
            try checkPart(0)
            return (.dateDiff, [.text, try timestampArg(argTypes[1]), try timestampArg(argTypes[2])], .bigint)
        case "add_months":
            try arity(2...2)
            return (.addMonths, [try timestampArg(argTypes[0]), .integer], .timestamp)
        case "months_between":
            try arity(2...2)
            return (.monthsBetween, [try dateArg(argTypes[0]), try dateArg(argTypes[1])], .double)
        case "last_day":
            try arity(1...1)
            return (.lastDay, [try dateArg(argTypes[0])], .date)
        case "current_date":
            try arity(0...0)
            return (.currentDate, [], .date)
        case "getdate", "sysdate", "now", "current_timestamp":
            try arity(0...0)
            return (lname == "getdate" || lname == "now" || lname == "current_timestamp" ? .getdate : .sysdate, [], .timestamp)

        // MARK: More dates
        case "convert_timezone":
            try arity(2...3)
            var targets: [DataType] = []
            for i in 0..<(n - 1) {
                targets.append(try string(argTypes[i]))
                // Constant zone names are resolved (and cached) now, at bind time.
                if let v = constant(i), case .string(let z) = v, TimeZoneRules.rule(named: z) == nil {
                    throw SQLError(.invalidParameter, "time zone \"\(z)\" not recognized")
                }
            }
            targets.append(try timestampArg(argTypes[n - 1]))
            return (.convertTimezone, targets, .timestamp)
        case "next_day":
            try arity(2...2)
            let d: DataType = argTypes[0] == .timestamp ? .timestamp : try dateArg(argTypes[0])
            return (.nextDay, [d, try string(argTypes[1])], .date)
        case "date_cmp", "date_cmp_timestamp", "timestamp_cmp", "timestamp_cmp_date":
            try arity(2...2)
            if argTypes[0] == .timestamp || argTypes[1] == .timestamp || lname != "date_cmp" {
                return (.dateCmp, [try timestampArg(argTypes[0]), try timestampArg(argTypes[1])], .integer)
            }
            return (.dateCmp, [try dateArg(argTypes[0]), try dateArg(argTypes[1])], .integer)

        // MARK: Formatting
        case "to_char":
            try arity(2...2)
            let fmt = try string(argTypes[1])
            let src: DataType
            if argTypes[0] == .date || argTypes[0] == .timestamp {
                src = argTypes[0]
            } else if argTypes[0].isNumeric {
                src = argTypes[0]
            } else if argTypes[0] == .unknown || argTypes[0].isString {
                src = .timestamp
            } else {
                throw noSuch()
            }
            return (.toChar, [src, fmt], .varchar(DataType.maxVarcharLength))
        case "to_date":
            try arity(2...3)
            var targets = [try string(argTypes[0]), try string(argTypes[1])]
            if n == 3 {
                guard argTypes[2] == .boolean || argTypes[2] == .unknown || argTypes[2].isString else { throw noSuch() }
                targets.append(.boolean)
            }
            return (.toDate, targets, .date)
        case "to_timestamp":
            try arity(2...2)
            return (.toTimestamp, [try string(argTypes[0]), try string(argTypes[1])], .timestamp)
        case "to_number":
            try arity(2...2)
            let t = try string(argTypes[0]), f = try string(argTypes[1])
            var result = DataType.decimal(precision: DataType.maxDecimalPrecision, scale: 0)
            if let v = constant(1), case .string(let fmt) = v {
                let (p, s) = numberFormatPrecision(fmt)
                result = .decimal(precision: p, scale: s)
            }
            return (.toNumber, [t, f], result)
        case "decode":
            guard n >= 3 else { throw noSuch() }
            let pairs = (n - 1) / 2
            var keyIdx = [0], resIdx: [Int] = []
            for k in 0..<pairs { keyIdx.append(1 + 2 * k); resIdx.append(2 + 2 * k) }
            if n % 2 == 0 { resIdx.append(n - 1) }
            func lits(_ idx: [Int]) -> [Bool] { idx.map { $0 < untypedLiterals.count ? untypedLiterals[$0] : false } }
            let kt = try common(keyIdx.map { argTypes[$0] }, lits(keyIdx))
            let rt = try common(resIdx.map { argTypes[$0] }, lits(resIdx))
            var targets = argTypes
            for i in keyIdx { targets[i] = kt }
            for i in resIdx { targets[i] = rt }
            return (.decode, targets, rt)

        // MARK: Hashes
        case "md5":
            try arity(1...1)
            return (.md5, [try string(argTypes[0])], .varchar(32))
        case "sha2":
            try arity(2...2)
            return (.sha2, [try string(argTypes[0]), try integerArg(argTypes[1])], .varchar(128))
        case "fnv_hash":
            try arity(1...2)
            guard argTypes[0] != .boolean else { throw noSuch() }
            let t = argTypes[0] == .unknown ? DataType.text : argTypes[0]
            if n == 2 { _ = try integerArg(argTypes[1]) }
            return (.fnvHash, n == 1 ? [t] : [t, .bigint], .bigint)

        // MARK: Regular expressions
        case "regexp_substr":
            try arity(2...5)
            let t = try string(argTypes[0])
            var targets = [t, try string(argTypes[1])]
            if n >= 3 { targets.append(try integerArg(argTypes[2])) }
            if n >= 4 { targets.append(try integerArg(argTypes[3])) }
            if n >= 5 { targets.append(try string(argTypes[4])) }
            return (.regexpSubstr, targets, varchar(strLen(t)))
        case "regexp_replace":
            try arity(2...5)
            let t = try string(argTypes[0])
            var targets = [t, try string(argTypes[1])]
            if n >= 3 { targets.append(try string(argTypes[2])) }
            if n >= 4 { targets.append(try integerArg(argTypes[3])) }
            if n >= 5 { targets.append(try string(argTypes[4])) }
            return (.regexpReplace, targets, varchar(DataType.maxVarcharLength))
        case "regexp_count":
            try arity(2...4)
            var targets = [try string(argTypes[0]), try string(argTypes[1])]
            if n >= 3 { targets.append(try integerArg(argTypes[2])) }
            if n >= 4 { targets.append(try string(argTypes[3])) }
            return (.regexpCount, targets, .integer)
        case "regexp_instr":
            try arity(2...6)
            var targets = [try string(argTypes[0]), try string(argTypes[1])]
            if n >= 3 { targets.append(try integerArg(argTypes[2])) }
            if n >= 4 { targets.append(try integerArg(argTypes[3])) }
            if n >= 5 { targets.append(try integerArg(argTypes[4])) }
            if n >= 6 { targets.append(try string(argTypes[5])) }
            return (.regexpInstr, targets, .integer)
        case "similar_to":
            try arity(2...3)
            var targets = [try string(argTypes[0]), try string(argTypes[1])]
            if n == 3 { targets.append(try string(argTypes[2])) }
            return (.similarTo, targets, .boolean)
        case "assignment_cast":
            throw SQLError.internalError("assignment_cast is built by the binder, not called by name")

        // MARK: SUPER and JSON
        case "json_parse":
            try arity(1...1)
            return (.jsonParse, [try string(argTypes[0])], .superType)
        case "can_json_parse", "is_valid_json", "is_valid_json_array":
            try arity(1...1)
            let fn: ScalarFunction = lname == "can_json_parse" ? .canJsonParse : lname == "is_valid_json" ? .isValidJson : .isValidJsonArray
            return (fn, [try string(argTypes[0])], .boolean)
        case "json_serialize":
            try arity(1...1)
            return (.jsonSerialize, [try superArg(argTypes[0])], .varchar(DataType.maxVarcharLength))
        case "json_extract_path_text":
            // The last argument is null_if_invalid when it is a BOOLEAN.
            guard n >= 2 else { throw noSuch() }
            var targets = argTypes.map { $0 == .boolean ? DataType.boolean : DataType.text }
            targets[0] = try string(argTypes[0])
            for i in 1..<n where argTypes[i] == .boolean && i != n - 1 { throw noSuch() }
            for i in 1..<n where argTypes[i] != .boolean { targets[i] = try string(argTypes[i]) }
            return (.jsonExtractPathText, targets, varchar(strLen(targets[0])))
        case "json_extract_array_element_text":
            try arity(2...3)
            var targets = [try string(argTypes[0]), try integerArg(argTypes[1])]
            if n == 3 { targets.append(try boolArg(argTypes[2])) }
            return (.jsonExtractArrayElementText, targets, varchar(strLen(targets[0])))
        case "json_array_length":
            try arity(1...2)
            var targets = [try string(argTypes[0])]
            if n == 2 { targets.append(try boolArg(argTypes[1])) }
            return (.jsonArrayLength, targets, .integer)
        case "json_typeof":
            try arity(1...1)
            return (.jsonTypeof, [try superArg(argTypes[0])], .varchar(7))
        case "is_array", "is_object", "is_scalar", "is_boolean", "is_number", "is_integer", "is_smallint", "is_bigint",
             "is_decimal", "is_float", "is_fp", "is_varchar", "is_char":
            try arity(1...1)
            guard let fn = ScalarFunction(rawValue: lname) else { throw noSuch() }
            return (fn, [try superArg(argTypes[0])], .boolean)
        case "get_array_length":
            try arity(1...1)
            return (.getArrayLength, [try superArg(argTypes[0])], .bigint)
        case "array":
            return (.arrayMake, try argTypes.map { try superArg($0) }, .superType)
        case "object":
            guard n % 2 == 0 else { throw noSuch() }
            var targets: [DataType] = []
            for i in 0..<n { targets.append(i % 2 == 0 ? try string(argTypes[i]) : try superArg(argTypes[i])) }
            return (.objectMake, targets, .superType)
        case "super_field":
            try arity(2...2)
            guard argTypes[0] == .superType || argTypes[0] == .unknown else { throw noSuch() }
            return (.superField, [.superType, .text], .superType)
        case "super_index":
            try arity(2...2)
            guard argTypes[0] == .superType || argTypes[0] == .unknown else { throw noSuch() }
            return (.superIndex, [.superType, try integerArg(argTypes[1]) == .bigint ? .bigint : .integer], .superType)

        // MARK: VARBYTE and HLLSKETCH
        case "to_varbyte":
            try arity(2...2)
            return (.toVarbyte, [try string(argTypes[0]), try string(argTypes[1])], .varbyte(DataType.defaultVarbyteLength))
        case "from_varbyte":
            try arity(2...2)
            guard argTypes[0].isVarbyte || argTypes[0] == .unknown else { throw noSuch() }
            return (.fromVarbyte, [argTypes[0] == .unknown ? .varbyte(DataType.defaultVarbyteLength) : argTypes[0], try string(argTypes[1])],
                    .varchar(DataType.maxVarcharLength))
        case "hll_cardinality":
            try arity(1...1)
            guard argTypes[0] == .hllsketch || argTypes[0] == .unknown || argTypes[0].isString else { throw noSuch() }
            return (.hllCardinality, [.hllsketch], .bigint)
        default:
            throw noSuch()
        }
    }
}

extension FunctionRegistry {
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

    /// `s` without leading and trailing blanks (ASCII space and tab).
    static func trimBlanks(_ str: String) -> String {
        var s = Substring(str)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return String(s)
    }
}
