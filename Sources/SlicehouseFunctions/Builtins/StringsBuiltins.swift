// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan

/// Character string functions. Lengths are in characters unless a name says bytes; a
/// result is VARCHAR as long as the input can make it.
public struct StringFamily: FunctionFamily {
    public let upper = ScalarFunction("upper", arguments: 1...1, resolve: sameLength,
                                      kernel: { a, t, n in try StringKernels.mapCase(a[0], .upper, resultType: t, n: n) })
    public let lower = ScalarFunction("lower", arguments: 1...1, resolve: sameLength,
                                      kernel: { a, t, n in try StringKernels.mapCase(a[0], .lower, resultType: t, n: n) })
    public let initcap = ScalarFunction("initcap", arguments: 1...1, resolve: sameLength,
                                        kernel: { a, t, n in try StringKernels.mapCase(a[0], .initcap, resultType: t, n: n) })
    public let reverse = ScalarFunction("reverse", arguments: 1...1, resolve: sameLength,
                                        kernel: { a, t, n in try StringKernels.reverse(a[0], resultType: t, n: n) })

    /// Characters; trailing blanks count in a VARCHAR, not in a CHAR.
    public let length = ScalarFunction("length", aliases: ["char_length", "character_length"], arguments: 1...1,
                                       resolve: integerOfString,
                                       kernel: { a, t, n in try StringKernels.length(a[0], .length, resultType: t, n: n) })
    /// Redshift LEN, the same as LENGTH (kept apart for EXPLAIN).
    public let len = ScalarFunction("len", aliases: ["textlen"], arguments: 1...1, resolve: integerOfString,
                                    kernel: { a, t, n in try StringKernels.length(a[0], .len, resultType: t, n: n) })
    public let octetLength = ScalarFunction("octet_length", arguments: 1...1, resolve: integerOfString,
                                            kernel: { a, t, n in try StringKernels.length(a[0], .octetLength, resultType: t, n: n) })

    public let substring = ScalarFunction("substring", aliases: ["substr"], arguments: 2...3, resolve: { c in
        let t = try c.string(c[0])
        var targets = [t, try c.integer(c[1])]
        if c.count == 3 { targets.append(try c.integer(c[2])) }
        return FunctionResolution(targets, c.varchar(c.stringLength(t)))
    }, kernel: { a, t, n in try StringKernels.substring(a, resultType: t, n: n) })

    /// POSITION(sub IN s) / STRPOS(s, sub): arguments (s, sub).
    public let position = ScalarFunction("position", aliases: ["strpos"], arguments: 2...2, resolve: twoStringsToInteger,
                                         kernel: { a, t, n in try StringKernels.position(a, haystackFirst: true, resultType: t, n: n) })
    /// CHARINDEX(sub, s): arguments (sub, s).
    public let charindex = ScalarFunction("charindex", arguments: 2...2, resolve: twoStringsToInteger,
                                          kernel: { a, t, n in try StringKernels.position(a, haystackFirst: false, resultType: t, n: n) })

    public let btrim = ScalarFunction("btrim", aliases: ["trim"], arguments: 1...2, resolve: trimResolve,
                                      kernel: { a, t, n in try StringKernels.trim(a, fn: .btrim, resultType: t, n: n) })
    public let ltrim = ScalarFunction("ltrim", arguments: 1...2, resolve: trimResolve,
                                      kernel: { a, t, n in try StringKernels.trim(a, fn: .ltrim, resultType: t, n: n) })
    public let rtrim = ScalarFunction("rtrim", arguments: 1...2, resolve: trimResolve,
                                      kernel: { a, t, n in try StringKernels.trim(a, fn: .rtrim, resultType: t, n: n) })

    public let left = ScalarFunction("left", arguments: 2...2, resolve: leftRightResolve,
                                     kernel: { a, t, n in try StringKernels.leftRight(a, left: true, resultType: t, n: n) })
    public let right = ScalarFunction("right", arguments: 2...2, resolve: leftRightResolve,
                                      kernel: { a, t, n in try StringKernels.leftRight(a, left: false, resultType: t, n: n) })

    /// LPAD/RPAD(s, length [, fill]).
    public let lpad = ScalarFunction("lpad", arguments: 2...3, resolve: padResolve,
                                     kernel: { a, t, n in try StringKernels.pad(a, left: true, resultType: t, n: n) })
    public let rpad = ScalarFunction("rpad", arguments: 2...3, resolve: padResolve,
                                     kernel: { a, t, n in try StringKernels.pad(a, left: false, resultType: t, n: n) })

    public let replace = ScalarFunction("replace", arguments: 3...3, resolve: { c in
        FunctionResolution([try c.string(c[0]), try c.string(c[1]), try c.string(c[2])], c.varchar(DataType.maxVarcharLength))
    }, kernel: { a, t, n in try StringKernels.replace(a, resultType: t, n: n) })
    public let translate = ScalarFunction("translate", arguments: 3...3, resolve: { c in
        let t = try c.string(c[0])
        return FunctionResolution([t, try c.string(c[1]), try c.string(c[2])], c.varchar(c.stringLength(t)))
    }, kernel: { a, t, n in try StringKernels.translate(a, resultType: t, n: n) })
    public let repeatString = ScalarFunction("repeat", aliases: ["replicate"], arguments: 2...2, resolve: { c in
        let t = try c.string(c[0])
        let len = c.constInt(1).map { c.stringLength(t) * max(1, $0) } ?? DataType.maxVarcharLength
        return FunctionResolution([t, try c.integer(c[1])], c.varchar(len))
    }, kernel: { a, t, n in try StringKernels.repeatString(a, resultType: t, n: n) })
    public let splitPart = ScalarFunction("split_part", arguments: 3...3, resolve: { c in
        let t = try c.string(c[0])
        return FunctionResolution([t, try c.string(c[1]), try c.integer(c[2])], c.varchar(c.stringLength(t)))
    }, kernel: { a, t, n in try StringKernels.splitPart(a, resultType: t, n: n) })
    public let concat = ScalarFunction("concat", arguments: 2...2, resolve: { c in
        let a = try c.string(c[0]), b = try c.string(c[1])
        return FunctionResolution([a, b], c.varchar(c.stringLength(a) + c.stringLength(b)))
    }, kernel: { a, t, n in try StringKernels.concat(a[0], a[1], resultType: t, n: n) })
    public let ascii = ScalarFunction("ascii", arguments: 1...1, resolve: { c in
        FunctionResolution([try c.string(c[0])], .integer)
    }, kernel: { a, t, n in try StringKernels.ascii(a[0], resultType: t, n: n) })
    public let chr = ScalarFunction("chr", arguments: 1...1, resolve: { c in
        FunctionResolution([try c.integer(c[0])], .varchar(4))
    }, kernel: { a, t, n in try StringKernels.chr(a[0], resultType: t, n: n) })
    /// QUOTE_IDENT(s): `s` double-quoted (quotes inside doubled) unless it reads back as
    /// itself unquoted (lower case, not a reserved word).
    public let quoteIdent = ScalarFunction("quote_ident", arguments: 1...1, resolve: quoted,
                                           kernel: { a, t, n in try StringKernels.quoteIdent(a[0], resultType: t, n: n) })
    /// QUOTE_LITERAL(s): `s` in single quotes, quotes inside doubled.
    public let quoteLiteral = ScalarFunction("quote_literal", arguments: 1...1, resolve: quoted,
                                             kernel: { a, t, n in try StringKernels.quoteLiteral(a[0], resultType: t, n: n) })
    /// ARRAY_TO_STRING(a, sep) → VARCHAR: the elements of an array in PostgreSQL's text
    /// form (the catalog's ACL and member lists) joined by `sep`, NULL elements left out.
    public let arrayToString = ScalarFunction("array_to_string", arguments: 2...2, resolve: { c in
        let t = try c.string(c[0])
        return FunctionResolution([t, try c.string(c[1])], c.varchar(c.stringLength(t)))
    }, kernel: { a, t, n in try StringKernels.arrayToString(a[0], a[1], resultType: t, n: n) })
    /// ARRAY_UPPER(a, 1) / ARRAY_LOWER(a, 1) → INTEGER: the last and first index of such an
    /// array (NULL when it is empty, or for another dimension).
    public let arrayUpper = ScalarFunction("array_upper", arguments: 2...2, resolve: { c in
        FunctionResolution([try c.string(c[0]), try c.integer(c[1])], .integer)
    }, kernel: { a, t, n in try StringKernels.arrayBound(a[0], a[1], upper: true, resultType: t, n: n) })
    public let arrayLower = ScalarFunction("array_lower", arguments: 2...2, resolve: { c in
        FunctionResolution([try c.string(c[0]), try c.integer(c[1])], .integer)
    }, kernel: { a, t, n in try StringKernels.arrayBound(a[0], a[1], upper: false, resultType: t, n: n) })
    /// STRTOL(s, base) → BIGINT: `s` read as an integer in base 2 to 36.
    public let strtol = ScalarFunction("strtol", arguments: 2...2, resolve: { c in
        FunctionResolution([try c.string(c[0]), try c.integer(c[1])], .bigint)
    }, kernel: { a, t, n in try StringKernels.strtol(a, resultType: t, n: n) })
    /// PG_SIZE_PRETTY(bytes) → VARCHAR: a size in bytes, kB, MB, GB, TB or PB as PostgreSQL
    /// prints it (psql's `\dt+` shows table sizes with it).
    public let sizePretty = ScalarFunction("pg_size_pretty", arguments: 1...1, resolve: { c in
        FunctionResolution([.bigint], .varchar(32))
    }, kernel: { a, t, n in try StringKernels.sizePretty(a[0], resultType: t, n: n) })
}

private let sameLength: ScalarFunction.Resolver = { c in
    let t = try c.string(c[0])
    return FunctionResolution([t], c.varchar(c.stringLength(t)))
}
private let integerOfString: ScalarFunction.Resolver = { c in FunctionResolution([try c.string(c[0])], .integer) }
private let twoStringsToInteger: ScalarFunction.Resolver = { c in
    FunctionResolution([try c.string(c[0]), try c.string(c[1])], .integer)
}
private let trimResolve: ScalarFunction.Resolver = { c in
    let t = try c.string(c[0])
    return FunctionResolution(c.count == 1 ? [t] : [t, try c.string(c[1])], c.varchar(c.stringLength(t)))
}
private let leftRightResolve: ScalarFunction.Resolver = { c in
    let t = try c.string(c[0])
    return FunctionResolution([t, try c.integer(c[1])], c.varchar(c.stringLength(t)))
}
private let padResolve: ScalarFunction.Resolver = { c in
    let t = try c.string(c[0])
    let len = c.constInt(1).map { max(1, $0 * 4) } ?? DataType.maxVarcharLength
    var targets = [t, try c.integer(c[1])]
    if c.count == 3 { targets.append(try c.string(c[2])) }
    return FunctionResolution(targets, c.varchar(len))
}
private let quoted: ScalarFunction.Resolver = { c in
    let t = try c.string(c[0])
    return FunctionResolution([t], c.varchar(min(DataType.maxVarcharLength, 2 * c.stringLength(t) + 2)))
}
