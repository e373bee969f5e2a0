// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan

/// The TO_CHAR family; the format is the last argument, ideally a constant.
public struct FormattingFamily: FunctionFamily {
    /// TO_CHAR(date|timestamp|number, format) → VARCHAR.
    public let toChar = ScalarFunction("to_char", arguments: 2...2, resolve: { c in
        let fmt = try c.string(c[1])
        let src: DataType
        if c[0] == .date || c[0] == .timestamp || c[0].isNumeric {
            src = c[0]
        } else if c[0] == .unknown || c[0].isString {
            src = .timestamp
        } else {
            throw c.noSuch()
        }
        return FunctionResolution([src, fmt], .varchar(DataType.maxVarcharLength))
    }, kernel: { a, t, n in try FormatFunctions.toChar(a, resultType: t, n: n) })
    /// TO_DATE(text, format [, is_strict]) → DATE.
    public let toDate = ScalarFunction("to_date", arguments: 2...3, resolve: { c in
        var targets = [try c.string(c[0]), try c.string(c[1])]
        if c.count == 3 {
            guard c[2] == .boolean || c[2] == .unknown || c[2].isString else { throw c.noSuch() }
            targets.append(.boolean)
        }
        return FunctionResolution(targets, .date)
    }, kernel: { a, t, n in try FormatFunctions.toDateTime(a, date: true, resultType: t, n: n) })
    /// TO_TIMESTAMP(text, format) → TIMESTAMPTZ (the binder places the result in the session time zone).
    public let toTimestamp = ScalarFunction("to_timestamp", arguments: 2...2, resolve: { c in
        FunctionResolution([try c.string(c[0]), try c.string(c[1])], .timestamp)
    }, kernel: { a, t, n in try FormatFunctions.toDateTime(a, date: false, resultType: t, n: n) })
    /// TO_NUMBER(text, format) → DECIMAL(p, s) derived from the (constant) format.
    public let toNumber = ScalarFunction("to_number", arguments: 2...2, resolve: { c in
        var result = DataType.decimal(precision: DataType.maxDecimalPrecision, scale: 0)
        if let v = c.constant(1), case .string(let fmt) = v {
            let (p, s) = FunctionRegistry.numberFormatPrecision(fmt)
            result = .decimal(precision: p, scale: s)
        }
        return FunctionResolution([try c.string(c[0]), try c.string(c[1])], result)
    }, kernel: { a, t, n in try FormatFunctions.toNumber(a, resultType: t, n: n) })
}

/// MD5, SHA2 and FNV_HASH.
public struct HashFamily: FunctionFamily {
    public let md5 = ScalarFunction("md5", arguments: 1...1, resolve: { c in
        FunctionResolution([try c.string(c[0])], .varchar(32))
    }, kernel: { a, t, n in try HashFunctions.md5(a[0], resultType: t, n: n) })
    /// SHA2(text, bits) with bits 0 (= 256), 224, 256, 384, 512; other bit counts give NULL.
    public let sha2 = ScalarFunction("sha2", arguments: 2...2, resolve: { c in
        FunctionResolution([try c.string(c[0]), try c.integer(c[1])], .varchar(128))
    }, kernel: { a, t, n in try HashFunctions.sha2(a, resultType: t, n: n) })
    /// CHECKSUM(x) → INTEGER, of a VARCHAR, an integer or a DECIMAL (HashFunctions.checksum).
    public let checksum = ScalarFunction("checksum", arguments: 1...1, resolve: { c in
        let t = c[0] == .unknown ? DataType.text : c[0]
        guard t.isString || t.isInteger || t.isDecimal else { throw c.noSuch() }
        return FunctionResolution([t], .integer)
    }, kernel: { a, t, n in try HashFunctions.checksum(a[0], resultType: t, n: n) })
    /// FNV_HASH(value [, seed]) → BIGINT (64-bit FNV-1a over the value's text form).
    public let fnvHash = ScalarFunction("fnv_hash", arguments: 1...2, resolve: { c in
        guard c[0] != .boolean else { throw c.noSuch() }
        let t = c[0] == .unknown ? DataType.text : c[0]
        if c.count == 2 { _ = try c.integer(c[1]) }
        return FunctionResolution(c.count == 1 ? [t] : [t, .bigint], .bigint)
    }, kernel: { a, t, n in try HashFunctions.fnv(a, resultType: t, n: n) })
}

/// Regular expressions (ICU syntax through NSRegularExpression; Kernels/RegexFunctions.swift).
public struct RegexFamily: FunctionFamily {
    public let regexpSubstr = ScalarFunction("regexp_substr", arguments: 2...5, resolve: { c in
        let t = try c.string(c[0])
        var targets = [t, try c.string(c[1])]
        if c.count >= 3 { targets.append(try c.integer(c[2])) }
        if c.count >= 4 { targets.append(try c.integer(c[3])) }
        if c.count >= 5 { targets.append(try c.string(c[4])) }
        return FunctionResolution(targets, c.varchar(c.stringLength(t)))
    }, kernel: { a, t, n in try RegexFunctions.evaluate(.regexpSubstr, a, resultType: t, n: n) })
    public let regexpReplace = ScalarFunction("regexp_replace", arguments: 2...5, resolve: { c in
        var targets = [try c.string(c[0]), try c.string(c[1])]
        if c.count >= 3 { targets.append(try c.string(c[2])) }
        if c.count >= 4 { targets.append(try c.integer(c[3])) }
        if c.count >= 5 { targets.append(try c.string(c[4])) }
        return FunctionResolution(targets, c.varchar(DataType.maxVarcharLength))
    }, kernel: { a, t, n in try RegexFunctions.evaluate(.regexpReplace, a, resultType: t, n: n) })
    public let regexpCount = ScalarFunction("regexp_count", arguments: 2...4, resolve: { c in
        var targets = [try c.string(c[0]), try c.string(c[1])]
        if c.count >= 3 { targets.append(try c.integer(c[2])) }
        if c.count >= 4 { targets.append(try c.string(c[3])) }
        return FunctionResolution(targets, .integer)
    }, kernel: { a, t, n in try RegexFunctions.evaluate(.regexpCount, a, resultType: t, n: n) })
    public let regexpInstr = ScalarFunction("regexp_instr", arguments: 2...6, resolve: { c in
        var targets = [try c.string(c[0]), try c.string(c[1])]
        if c.count >= 3 { targets.append(try c.integer(c[2])) }
        if c.count >= 4 { targets.append(try c.integer(c[3])) }
        if c.count >= 5 { targets.append(try c.integer(c[4])) }
        if c.count >= 6 { targets.append(try c.string(c[5])) }
        return FunctionResolution(targets, .integer)
    }, kernel: { a, t, n in try RegexFunctions.evaluate(.regexpInstr, a, resultType: t, n: n) })
    /// `s SIMILAR TO pattern` as a function: similar_to(s, pattern [, escape]) → BOOLEAN.
    public let similarTo = ScalarFunction("similar_to", arguments: 2...3, resolve: { c in
        var targets = [try c.string(c[0]), try c.string(c[1])]
        if c.count == 3 { targets.append(try c.string(c[2])) }
        return FunctionResolution(targets, .boolean)
    }, kernel: { a, t, n in try RegexFunctions.evaluate(.similarTo, a, resultType: t, n: n) })
}
