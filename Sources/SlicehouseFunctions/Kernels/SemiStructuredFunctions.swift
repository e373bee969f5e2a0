// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan

/// SUPER, the JSON text functions, VARBYTE and HLLSKETCH functions.
///
/// SUPER values are compact JSON text (`SuperJSON`); navigation and the type tests scan
/// the stored bytes in place. The JSON text functions (`JSON_EXTRACT_PATH_TEXT` and
/// friends) take VARCHAR, which may hold any JSON with whitespace: they validate and
/// compact each value first, as Redshift validates it (an error for invalid JSON unless
/// `null_if_invalid` is true).
package enum SemiStructuredFunctions {
    /// The functions of this file (the declarations in Builtins/SemiStructured.swift choose one).
    package enum Op: String, Sendable {
        case jsonParse, canJsonParse, jsonSerialize, isValidJson, isValidJsonArray, jsonExtractPathText
        case jsonExtractArrayElementText, jsonArrayLength, jsonTypeof, superField, superIndex
        case isArray, isObject, isScalar, isBoolean, isNumber, isInteger, isSmallint, isBigint
        case isDecimal, isFloat, isFp, isVarchar, isChar, getArrayLength, arrayMake, objectMake
        case toVarbyte, fromVarbyte, hllCardinality
        case arrayConcat, arrayFlatten, subarray, splitToArray
    }

    package static func evaluate(_ fn: Op, _ args: [Vector], resultType t: DataType, n: Int) throws -> Vector {
        switch fn {
        case .jsonParse:
            return try mapStrings(args, n: n, resultType: t) { i, out in
                try text(args[0], i) { p in
                    do { try SuperJSON.canonicalize(p, into: &out) } catch let error as JSONSyntaxError {
                        throw SQLError(.invalidText, "invalid JSON: \(error.message) (at byte \(error.offset) of \"\(preview(p))\")")
                    }
                }
                guard out.count <= DataType.maxSuperBytes else {
                    throw SQLError(.invalidParameter, "JSON_PARSE: the value is larger than a SUPER value may be (16 MB)")
                }
                return !isJSONNull(out)
            }
        case .canJsonParse, .isValidJson, .isValidJsonArray:
            var scratch: [UInt8] = []
            return try mapBools(args, n: n, resultType: t) { i in
                try text(args[0], i) { p in
                    scratch.removeAll(keepingCapacity: true)
                    guard (try? SuperJSON.canonicalize(p, into: &scratch)) != nil else { return false }
                    switch fn {
                    case .isValidJson: return scratch.first == JSONGrammar.openBrace
                    case .isValidJsonArray: return scratch.first == JSONGrammar.openBracket
                    default: return true
                    }
                }
            }
        case .jsonSerialize:
            return try mapStrings(args, n: n, resultType: t) { i, out in
                try text(args[0], i) { p in out.append(contentsOf: p) }
                return true
            }
        case .jsonExtractPathText:
            return try extractPathText(args, resultType: t, n: n)
        case .jsonExtractArrayElementText:
            return try extractArrayElementText(args, resultType: t, n: n)
        case .jsonArrayLength:
            let nullIfInvalid = try flag(args, at: 1)
            var scratch: [UInt8] = []
            return try mapInts(Array(args.prefix(1)), n: n, resultType: t) { i in
                try text(args[0], i) { p -> Int64? in
                    guard let v = try compact(p, into: &scratch, nullIfInvalid: nullIfInvalid) else { return nil }
                    return try v.withUnsafeBufferPointer { b -> Int64? in
                        guard let len = SuperJSON.arrayLength(b) else {
                            if nullIfInvalid { return nil }
                            throw SQLError(.invalidParameter, "invalid json array object \(preview(p))")
                        }
                        return Int64(len)
                    }
                }
            }
        case .jsonTypeof:
            return try mapStrings(args, n: n, resultType: t) { i, out in
                try text(args[0], i) { p in
                    guard let k = SuperJSON.kind(p) else { return false }
                    out.append(contentsOf: k.typeName.utf8)
                    return true
                }
            }
        case .superField:
            guard args[1].isConstant else { return try navigate(args, resultType: t, n: n) }
            let key = Array((args[1].value(at: 0).asString ?? "").utf8)
            // A third argument true: match the attribute's name ignoring ASCII case.
            let ignoringCase = args.count == 3 && args[2].isConstant && args[2].value(at: 0) == .bool(true)
            return try mapStrings([args[0]], n: n, resultType: t) { i, out in
                try text(args[0], i) { p in
                    guard let r = key.withUnsafeBufferPointer({
                        ignoringCase ? SuperJSON.memberIgnoringCase(p, key: $0) : SuperJSON.member(p, key: $0)
                    }) else { return false }
                    out.append(contentsOf: p[r])
                    return !isJSONNull(p[r])
                }
            }
        case .superIndex:
            return try navigate(args, resultType: t, n: n)
        case .isArray, .isObject, .isScalar, .isBoolean, .isNumber, .isInteger, .isSmallint, .isBigint,
             .isDecimal, .isFloat, .isFp, .isVarchar, .isChar:
            return try mapBools(args, n: n, resultType: t) { i in
                try text(args[0], i) { p in kindTest(fn, p) }
            }
        case .getArrayLength:
            return try mapInts(args, n: n, resultType: t) { i in
                try text(args[0], i) { p in SuperJSON.arrayLength(p).map(Int64.init) }
            }
        case .arrayMake:
            return try build(args, n: n, resultType: t) { i, out in
                out.append(JSONGrammar.openBracket)
                for (k, a) in args.enumerated() {
                    if k > 0 { out.append(JSONGrammar.comma) }
                    appendSuper(a, i, to: &out)
                }
                out.append(JSONGrammar.closeBracket)
            }
        case .arrayConcat:
            return try mapStrings(args, n: n, resultType: t) { i, out in
                out.append(JSONGrammar.openBracket)
                var first = true
                for a in args {
                    try text(a, i) { p in
                        guard p.first == JSONGrammar.openBracket else {
                            throw SQLError(.invalidParameter, "array_concat: argument is not an array: \(preview(p))")
                        }
                        SuperJSON.forEachChild(p) { _, r in
                            if !first { out.append(JSONGrammar.comma) }
                            first = false
                            out.append(contentsOf: p[r])
                        }
                    }
                }
                out.append(JSONGrammar.closeBracket)
                return true
            }
        case .arrayFlatten:
            return try mapStrings(args, n: n, resultType: t) { i, out in
                try text(args[0], i) { p in
                    guard p.first == JSONGrammar.openBracket else { return false }
                    out.append(JSONGrammar.openBracket)
                    var first = true
                    SuperJSON.forEachChild(p) { _, r in
                        let element = UnsafeBufferPointer(rebasing: p[r])
                        if element.first == JSONGrammar.openBracket {
                            SuperJSON.forEachChild(element) { _, inner in
                                if !first { out.append(JSONGrammar.comma) }
                                first = false
                                out.append(contentsOf: element[inner])
                            }
                        } else {
                            if !first { out.append(JSONGrammar.comma) }
                            first = false
                            out.append(contentsOf: element)
                        }
                    }
                    out.append(JSONGrammar.closeBracket)
                    return true
                }
            }
        case .subarray:
            return try mapStrings(args, n: n, resultType: t) { i, out in
                guard let start = args[1].value(at: args[1].isConstant ? 0 : i).asInt64,
                      let length = args[2].value(at: args[2].isConstant ? 0 : i).asInt64 else { return false }
                return try text(args[0], i) { p in
                    guard p.first == JSONGrammar.openBracket else { return false }
                    out.append(JSONGrammar.openBracket)
                    var k: Int64 = 0
                    var first = true
                    SuperJSON.forEachChild(p) { _, r in
                        defer { k += 1 }
                        guard k >= start && k - start < length else { return }
                        if !first { out.append(JSONGrammar.comma) }
                        first = false
                        out.append(contentsOf: p[r])
                    }
                    out.append(JSONGrammar.closeBracket)
                    return true
                }
            }
        case .splitToArray:
            var delimiter: [UInt8] = [UInt8(ascii: ",")]
            return try mapStrings(args, n: n, resultType: t) { i, out in
                if args.count > 1 { delimiter = try text(args[1], i) { Array($0) } }
                return try text(args[0], i) { p in
                    out.append(JSONGrammar.openBracket)
                    var start = 0, k = 0, first = true
                    func part(_ end: Int) {
                        if !first { out.append(JSONGrammar.comma) }
                        first = false
                        SuperJSON.appendQuoted(UnsafeBufferPointer(rebasing: p[start..<end]), to: &out)
                    }
                    if delimiter.isEmpty {
                        part(p.count)
                    } else {
                        while k + delimiter.count <= p.count {
                            if p[k] == delimiter[0] && p[k..<(k + delimiter.count)].elementsEqual(delimiter) {
                                part(k)
                                k += delimiter.count
                                start = k
                            } else {
                                k += 1
                            }
                        }
                        part(p.count)
                    }
                    out.append(JSONGrammar.closeBracket)
                    return true
                }
            }
        case .objectMake:
            return try build(args, n: n, resultType: t) { i, out in
                out.append(JSONGrammar.openBrace)
                var k = 0
                var first = true
                while k + 1 < args.count {
                    defer { k += 2 }
                    // A NULL key or value leaves the attribute out.
                    if isNull(args[k], i) || isNull(args[k + 1], i) { continue }
                    if !first { out.append(JSONGrammar.comma) }
                    first = false
                    try text(args[k], i) { SuperJSON.appendQuoted($0, to: &out) }
                    out.append(JSONGrammar.colon)
                    appendSuper(args[k + 1], i, to: &out)
                }
                out.append(JSONGrammar.closeBrace)
            }
        case .toVarbyte:
            return try varbyteConversion(args, resultType: t, n: n, toVarbyte: true)
        case .fromVarbyte:
            return try varbyteConversion(args, resultType: t, n: n, toVarbyte: false)
        case .hllCardinality:
            return try mapInts(args, n: n, resultType: t) { i in
                try text(args[0], i) { p in try HLLSketchText.cardinality(p) }
            }
        }
    }

    // MARK: - Row helpers

    /// Bytes of row `i` of a string-backed input.
    @inline(__always)
    package static func text<R>(_ v: Vector, _ i: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) throws -> R {
        guard case .string(let s) = v.data else { throw Kern.mismatch(v, "string") }
        return try s.withBytes(v.isConstant ? 0 : i) { try body($0) }
    }

    @inline(__always) package static func isNull(_ v: Vector, _ i: Int) -> Bool { v.isNull(v.isConstant ? 0 : i) }

    package static func isJSONNull<C: Collection>(_ b: C) -> Bool where C.Element == UInt8 {
        b.count == 4 && b.elementsEqual([0x6E, 0x75, 0x6C, 0x6C])
    }

    /// The first 64 characters of a value, for error messages.
    package static func preview(_ p: UnsafeBufferPointer<UInt8>) -> String {
        String(decoding: p.prefix(64), as: UTF8.self) + (p.count > 64 ? "..." : "")
    }

    /// A constant BOOLEAN argument (null_if_invalid); false when absent or NULL.
    package static func flag(_ args: [Vector], at k: Int) throws -> Bool {
        guard k < args.count else { return false }
        let v = args[k]
        guard v.isConstant else { throw SQLError(.featureNotSupported, "null_if_invalid must be a constant") }
        return v.value(at: 0).asBool ?? false
    }

    /// Rows from `body`, which writes the row's bytes and returns false for NULL. NULL
    /// inputs give NULL.
    package static func mapStrings(_ args: [Vector], n: Int, resultType: DataType,
                           _ body: (Int, inout [UInt8]) throws -> Bool) throws -> Vector {
        if args.contains(where: Kern.isConstNull) { return Kern.constNull(resultType) }
        let constant = args.allSatisfy { $0.isConstant }
        let len = constant ? 1 : n
        let inValid = constant ? nil : Kern.combinedValidity(args)
        var validity = inValid ?? Validity(allValid: len)
        var anyNull = inValid != nil
        var out = StringBuilder(rows: len, bytes: len * 16)
        var row: [UInt8] = []
        for i in 0..<len {
            if Kern.valid(inValid, i) {
                row.removeAll(keepingCapacity: true)
                if try body(i, &row) {
                    row.withUnsafeBufferPointer { out.append($0) }
                } else {
                    validity.setInvalid(i)
                    anyNull = true
                }
            }
            out.finishRow()
        }
        return Kern.result(resultType, .string(out.array), validity: anyNull ? validity : nil, constant: constant)
    }

    /// Like `mapStrings`, but NULL arguments are passed to `body` (ARRAY, OBJECT).
    package static func build(_ args: [Vector], n: Int, resultType: DataType,
                      _ body: (Int, inout [UInt8]) throws -> Void) throws -> Vector {
        let constant = args.allSatisfy { $0.isConstant }
        let len = constant ? 1 : n
        var out = StringBuilder(rows: len, bytes: len * 16)
        var row: [UInt8] = []
        for i in 0..<len {
            row.removeAll(keepingCapacity: true)
            try body(i, &row)
            row.withUnsafeBufferPointer { out.append($0) }
            out.finishRow()
        }
        return Kern.result(resultType, .string(out.array), validity: nil, constant: constant)
    }

    package static func mapBools(_ args: [Vector], n: Int, resultType: DataType, _ body: (Int) throws -> Bool?) throws -> Vector {
        try mapValues(args, n: n, resultType: resultType, zero: false, data: { .bool($0) }, body)
    }

    package static func mapInts(_ args: [Vector], n: Int, resultType: DataType, _ body: (Int) throws -> Int64?) throws -> Vector {
        try mapValues(args, n: n, resultType: resultType, zero: 0, data: { .int64($0) }, body)
    }

    /// Rows of a fixed-width result; `body` gives nil for NULL. NULL inputs give NULL.
    package static func mapValues<T>(_ args: [Vector], n: Int, resultType: DataType, zero: T, data: ([T]) -> VectorData,
                             _ body: (Int) throws -> T?) throws -> Vector {
        if args.contains(where: Kern.isConstNull) { return Kern.constNull(resultType) }
        let constant = args.allSatisfy { $0.isConstant }
        let len = constant ? 1 : n
        let inValid = constant ? nil : Kern.combinedValidity(args)
        var validity = inValid ?? Validity(allValid: len)
        var anyNull = inValid != nil
        var out = [T](filled: zero, count: len)
        for i in 0..<len where Kern.valid(inValid, i) {
            if let v = try body(i) { out[i] = v } else { validity.setInvalid(i); anyNull = true }
        }
        return Kern.result(resultType, data(out), validity: anyNull ? validity : nil, constant: constant)
    }

    // MARK: - SUPER

    /// `s.attribute` with a computed name, or `s[index]`.
    package static func navigate(_ args: [Vector], resultType: DataType, n: Int) throws -> Vector {
        let byIndex = args[1].type.isInteger
        let idx = byIndex ? try IntInput(args[1]) : nil
        return try mapStrings(args, n: n, resultType: resultType) { i, out in
            try text(args[0], i) { p in
                let r: Range<Int>?
                if let idx {
                    let k = idx.values[idx.constant ? 0 : i]
                    r = k >= 0 && k <= Int64(Int.max) ? SuperJSON.element(p, index: Int(k)) : nil
                } else {
                    r = try text(args[1], i) { SuperJSON.member(p, key: $0) }
                }
                guard let r else { return false }
                out.append(contentsOf: p[r])
                return !isJSONNull(p[r])
            }
        }
    }

    /// A value of any type written as SUPER (JSON): NULL as `null`.
    package static func appendSuper(_ v: Vector, _ i: Int, to out: inout [UInt8]) {
        if isNull(v, i) { out.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C]); return }
        guard case .string(let s) = v.data else { return }
        s.withBytes(v.isConstant ? 0 : i) { out.append(contentsOf: $0) }
    }

    /// IS_ARRAY and the other type tests.
    package static func kindTest(_ fn: Op, _ p: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let k = SuperJSON.kind(p) else { return false }
        switch fn {
        case .isArray: return k == .array
        case .isObject: return k == .object
        case .isScalar: return k != .array && k != .object
        case .isBoolean: return k == .boolean
        case .isNumber: return k == .number
        case .isVarchar, .isChar: return k == .string
        case .isFloat, .isFp: return k == .number && !SuperJSON.isIntegerText(p)
        case .isDecimal: return k == .number && !p.contains(0x65) && !p.contains(0x45)
        case .isInteger, .isSmallint, .isBigint:
            guard k == .number, SuperJSON.isIntegerText(p), let v = Int64(String(decoding: p, as: UTF8.self)) else { return false }
            switch fn {
            case .isSmallint: return v >= Int64(Int16.min) && v <= Int64(Int16.max)
            case .isInteger: return v >= Int64(Int32.min) && v <= Int64(Int32.max)
            default: return true
            }
        default: return false
        }
    }

    // MARK: - JSON text functions

    /// The compact form of JSON text `p` in `scratch`; nil (with `nullIfInvalid`) or an
    /// error for invalid JSON.
    package static func compact(_ p: UnsafeBufferPointer<UInt8>, into scratch: inout [UInt8], nullIfInvalid: Bool) throws -> [UInt8]? {
        scratch.removeAll(keepingCapacity: true)
        do {
            try SuperJSON.canonicalize(p, into: &scratch)
        } catch {
            if nullIfInvalid { return nil }
            throw SQLError(.invalidParameter, "invalid json object \(preview(p))")
        }
        return scratch
    }

    /// The text of a JSON value as the extract functions return it: a string's contents,
    /// anything else as its JSON text; nil for `null`.
    package static func appendText(_ v: Slice<UnsafeBufferPointer<UInt8>>, to out: inout [UInt8]) -> Bool {
        let b = UnsafeBufferPointer(rebasing: v)
        switch SuperJSON.kind(b) {
        case .null?, nil: return false
        case .string?:
            guard let t = SuperJSON.unescaped(UnsafeBufferPointer(rebasing: b[1..<max(1, b.count - 1)])) else { return false }
            out.append(contentsOf: t)
        default:
            out.append(contentsOf: b)
        }
        return true
    }

    package static func extractPathText(_ args: [Vector], resultType: DataType, n: Int) throws -> Vector {
        var pathArgs = Array(args.dropFirst())
        var nullIfInvalid = false
        if let last = pathArgs.last, last.type == .boolean {
            nullIfInvalid = try flag(args, at: args.count - 1)
            pathArgs.removeLast()
        }
        guard !pathArgs.isEmpty else { throw SQLError(.undefinedFunction, "json_extract_path_text needs at least one path element") }
        var scratch: [UInt8] = []
        return try mapStrings([args[0]] + pathArgs, n: n, resultType: resultType) { i, out in
            try text(args[0], i) { p in
                guard let doc = try compact(p, into: &scratch, nullIfInvalid: nullIfInvalid) else { return false }
                return try doc.withUnsafeBufferPointer { b -> Bool in
                    var r = 0..<b.count
                    for a in pathArgs {
                        let cur = UnsafeBufferPointer(rebasing: b[r])
                        guard let m = try text(a, i, { SuperJSON.member(cur, key: $0) }) else { return false }
                        r = (r.lowerBound + m.lowerBound)..<(r.lowerBound + m.upperBound)
                    }
                    return appendText(b[r], to: &out)
                }
            }
        }
    }

    package static func extractArrayElementText(_ args: [Vector], resultType: DataType, n: Int) throws -> Vector {
        let nullIfInvalid = try flag(args, at: 2)
        let idx = try IntInput(args[1])
        var scratch: [UInt8] = []
        return try mapStrings(Array(args.prefix(2)), n: n, resultType: resultType) { i, out in
            try text(args[0], i) { p in
                guard let doc = try compact(p, into: &scratch, nullIfInvalid: nullIfInvalid) else { return false }
                return try doc.withUnsafeBufferPointer { b -> Bool in
                    guard b.first == JSONGrammar.openBracket else {
                        if nullIfInvalid { return false }
                        throw SQLError(.invalidParameter, "invalid json array object \(preview(p))")
                    }
                    // A negative or out-of-range index gives an empty string (Redshift).
                    let k = idx.values[idx.constant ? 0 : i]
                    guard k >= 0, k <= Int64(Int.max), let r = SuperJSON.element(b, index: Int(k)) else { return true }
                    return appendText(b[r], to: &out)
                }
            }
        }
    }

    // MARK: - VARBYTE

    /// TO_VARBYTE(text, format) and FROM_VARBYTE(varbyte, format): hex, binary, utf8, base64.
    package static func varbyteConversion(_ args: [Vector], resultType: DataType, n: Int, toVarbyte: Bool) throws -> Vector {
        guard args[1].isConstant else { throw SQLError(.featureNotSupported, "the VARBYTE format must be a constant") }
        if Kern.isConstNull(args[1]) { return Kern.constNull(resultType) }
        let format = try Kern.strings(args[1])[0].lowercased()
        guard ["hex", "binary", "utf8", "utf-8", "base64"].contains(format) else {
            throw SQLError(.invalidParameter, "unsupported VARBYTE format \"\(format)\" (hex, binary, utf8 or base64)")
        }
        return try mapStrings([args[0]], n: n, resultType: resultType) { i, out in
            try text(args[0], i) { p in
                if toVarbyte {
                    let bytes: [UInt8]
                    switch format {
                    case "hex":
                        guard let h = VarbyteText.normalizedHex(p) else {
                            throw SQLError(.invalidText, "invalid hexadecimal input for TO_VARBYTE: \"\(preview(p))\"")
                        }
                        out.append(contentsOf: h)
                        return true
                    case "binary":
                        guard p.allSatisfy({ $0 == 48 || $0 == 49 }), p.count % 8 == 0 else {
                            throw SQLError(.invalidText, "invalid binary input for TO_VARBYTE: \"\(preview(p))\"")
                        }
                        var b: [UInt8] = []
                        var k = 0
                        while k < p.count {
                            var byte: UInt8 = 0
                            for j in 0..<8 { byte = byte << 1 | (p[k + j] - 48) }
                            b.append(byte)
                            k += 8
                        }
                        bytes = b
                    case "base64":
                        guard let d = Base64.decode(p) else {
                            throw SQLError(.invalidText, "invalid base64 input for TO_VARBYTE: \"\(preview(p))\"")
                        }
                        bytes = d
                    default:
                        bytes = Array(p)
                    }
                    bytes.withUnsafeBufferPointer { VarbyteText.appendHex($0, to: &out) }
                } else {
                    let bytes = VarbyteText.bytes(fromHex: p)
                    switch format {
                    case "hex": out.append(contentsOf: p)
                    case "binary":
                        for byte in bytes { for j in (0..<8).reversed() { out.append(48 + (byte >> UInt8(j)) & 1) } }
                    case "base64": out.append(contentsOf: Base64.encode(bytes))
                    default:
                        guard String(validating: bytes, as: UTF8.self) != nil else {
                            throw SQLError(.invalidText, "invalid byte sequence for encoding \"UTF8\"")
                        }
                        out.append(contentsOf: bytes)
                    }
                }
                return true
            }
        }
    }
}

/// RFC 4648 base64 (with padding).
package enum Base64 {
    package static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    package static func encode(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i < bytes.count {
            let b0 = bytes[i], b1 = i + 1 < bytes.count ? bytes[i + 1] : 0, b2 = i + 2 < bytes.count ? bytes[i + 2] : 0
            out.append(alphabet[Int(b0 >> 2)])
            out.append(alphabet[Int((b0 & 3) << 4 | b1 >> 4)])
            out.append(i + 1 < bytes.count ? alphabet[Int((b1 & 15) << 2 | b2 >> 6)] : 61)
            out.append(i + 2 < bytes.count ? alphabet[Int(b2 & 63)] : 61)
            i += 3
        }
        return out
    }

    package static func decode(_ p: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var values: [UInt8] = []
        var padding = 0
        for c in p {
            switch c {
            case 65...90: values.append(c - 65)
            case 97...122: values.append(c - 71)
            case 48...57: values.append(c + 4)
            case 43: values.append(62)
            case 47: values.append(63)
            case 61: padding += 1
            case 10, 13, 32: continue
            default: return nil
            }
            if padding > 0 && c != 61 { return nil }
        }
        guard (values.count + padding) % 4 == 0, padding <= 2 else { return nil }
        var out: [UInt8] = []
        var k = 0
        while k + 1 < values.count {
            let a = values[k], b = values[k + 1]
            let c = k + 2 < values.count ? values[k + 2] : 0, d = k + 3 < values.count ? values[k + 3] : 0
            out.append(a << 2 | b >> 4)
            if k + 2 < values.count { out.append((b & 15) << 4 | c >> 2) }
            if k + 3 < values.count { out.append((c & 3) << 6 | d) }
            k += 4
        }
        return out
    }
}
