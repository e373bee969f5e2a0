// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan

/// SUPER, the JSON text functions, VARBYTE and HLLSKETCH (Kernels/SemiStructuredFunctions.swift).
public struct SemiStructuredFamily: FunctionFamily {
    /// JSON_PARSE(text) → SUPER.
    public let jsonParse = ScalarFunction("json_parse", arguments: 1...1, resolve: { c in
        FunctionResolution([try c.string(c[0])], .superType)
    }, kernel: semi(.jsonParse))
    public let canJsonParse = ScalarFunction("can_json_parse", arguments: 1...1, resolve: textToBoolean, kernel: semi(.canJsonParse))
    public let isValidJson = ScalarFunction("is_valid_json", arguments: 1...1, resolve: textToBoolean, kernel: semi(.isValidJson))
    public let isValidJsonArray = ScalarFunction("is_valid_json_array", arguments: 1...1, resolve: textToBoolean,
                                                 kernel: semi(.isValidJsonArray))
    /// JSON_SERIALIZE(super) → VARCHAR.
    public let jsonSerialize = ScalarFunction("json_serialize", arguments: 1...1, resolve: { c in
        FunctionResolution([try c.superValue(c[0])], .varchar(DataType.maxVarcharLength))
    }, kernel: semi(.jsonSerialize))
    /// JSON_EXTRACT_PATH_TEXT(text, path... [, null_if_invalid]) → VARCHAR; the last argument
    /// is null_if_invalid when it is a BOOLEAN.
    public let jsonExtractPathText = ScalarFunction("json_extract_path_text", arguments: 2...Int.max, resolve: { c in
        let n = c.count
        var targets = c.argTypes.map { $0 == .boolean ? DataType.boolean : DataType.text }
        targets[0] = try c.string(c[0])
        for i in 1..<n where c[i] == .boolean && i != n - 1 { throw c.noSuch() }
        for i in 1..<n where c[i] != .boolean { targets[i] = try c.string(c[i]) }
        return FunctionResolution(targets, c.varchar(c.stringLength(targets[0])))
    }, kernel: semi(.jsonExtractPathText))
    /// JSON_EXTRACT_ARRAY_ELEMENT_TEXT(text, index [, null_if_invalid]) → VARCHAR.
    public let jsonExtractArrayElementText = ScalarFunction("json_extract_array_element_text", arguments: 2...3, resolve: { c in
        var targets = [try c.string(c[0]), try c.integer(c[1])]
        if c.count == 3 { targets.append(try c.boolean(c[2])) }
        return FunctionResolution(targets, c.varchar(c.stringLength(targets[0])))
    }, kernel: semi(.jsonExtractArrayElementText))
    /// JSON_ARRAY_LENGTH(text [, null_if_invalid]) → INTEGER.
    public let jsonArrayLength = ScalarFunction("json_array_length", arguments: 1...2, resolve: { c in
        var targets = [try c.string(c[0])]
        if c.count == 2 { targets.append(try c.boolean(c[1])) }
        return FunctionResolution(targets, .integer)
    }, kernel: semi(.jsonArrayLength))
    /// JSON_TYPEOF(super) → VARCHAR: object, array, string, number, boolean or null.
    public let jsonTypeof = ScalarFunction("json_typeof", arguments: 1...1, resolve: { c in
        FunctionResolution([try c.superValue(c[0])], .varchar(7))
    }, kernel: semi(.jsonTypeof))

    // The SUPER type tests (SUPER → BOOLEAN).
    public let isArray = ScalarFunction("is_array", arguments: 1...1, resolve: superToBoolean, kernel: semi(.isArray))
    public let isObject = ScalarFunction("is_object", arguments: 1...1, resolve: superToBoolean, kernel: semi(.isObject))
    public let isScalar = ScalarFunction("is_scalar", arguments: 1...1, resolve: superToBoolean, kernel: semi(.isScalar))
    public let isBoolean = ScalarFunction("is_boolean", arguments: 1...1, resolve: superToBoolean, kernel: semi(.isBoolean))
    public let isNumber = ScalarFunction("is_number", arguments: 1...1, resolve: superToBoolean, kernel: semi(.isNumber))
    public let isInteger = ScalarFunction("is_integer", arguments: 1...1, resolve: superToBoolean, kernel: semi(.isInteger))
    public let isSmallint = ScalarFunction("is_smallint", arguments: 1...1, resolve: superToBoolean, kernel: semi(.isSmallint))
    public let isBigint = ScalarFunction("is_bigint", arguments: 1...1, resolve: superToBoolean, kernel: semi(.isBigint))
    public let isDecimal = ScalarFunction("is_decimal", arguments: 1...1, resolve: superToBoolean, kernel: semi(.isDecimal))
    public let isFloat = ScalarFunction("is_float", arguments: 1...1, resolve: superToBoolean, kernel: semi(.isFloat))
    public let isFp = ScalarFunction("is_fp", arguments: 1...1, resolve: superToBoolean, kernel: semi(.isFp))
    public let isVarchar = ScalarFunction("is_varchar", arguments: 1...1, resolve: superToBoolean, kernel: semi(.isVarchar))
    public let isChar = ScalarFunction("is_char", arguments: 1...1, resolve: superToBoolean, kernel: semi(.isChar))

    /// GET_ARRAY_LENGTH(super) → BIGINT.
    public let getArrayLength = ScalarFunction("get_array_length", arguments: 1...1, resolve: { c in
        FunctionResolution([try c.superValue(c[0])], .bigint)
    }, kernel: semi(.getArrayLength))
    /// ARRAY(v, ...) → SUPER.
    public let arrayMake = ScalarFunction("array", arguments: 0...Int.max, resolve: { c in
        FunctionResolution(try c.argTypes.map { try c.superValue($0) }, .superType)
    }, kernel: semi(.arrayMake))
    /// ARRAY_CONCAT(array1, array2) → SUPER: the elements of both, in order.
    public let arrayConcat = ScalarFunction("array_concat", arguments: 2...2, resolve: { c in
        FunctionResolution([try c.superValue(c[0]), try c.superValue(c[1])], .superType)
    }, kernel: semi(.arrayConcat))
    /// ARRAY_FLATTEN(array) → SUPER: the elements of its element arrays, one level down.
    public let arrayFlatten = ScalarFunction("array_flatten", arguments: 1...1, resolve: { c in
        FunctionResolution([try c.superValue(c[0])], .superType)
    }, kernel: semi(.arrayFlatten))
    /// SUBARRAY(array, start, length) → SUPER: `length` elements from 0-based `start`.
    public let subarray = ScalarFunction("subarray", arguments: 3...3, resolve: { c in
        FunctionResolution([try c.superValue(c[0]), .integer, .integer], .superType)
    }, kernel: semi(.subarray))
    /// SPLIT_TO_ARRAY(text [, delimiter]) → SUPER: the text's parts between delimiters
    /// (`,` when none is given) as an array of strings.
    public let splitToArray = ScalarFunction("split_to_array", arguments: 1...2, resolve: { c in
        FunctionResolution(c.argTypes.map { _ in DataType.varchar(DataType.maxVarcharLength) }, .superType)
    }, kernel: semi(.splitToArray))
    /// OBJECT(key, value, ...) → SUPER.
    public let objectMake = ScalarFunction("object", arguments: 0...Int.max, resolve: { c in
        guard c.count % 2 == 0 else { throw c.noSuch() }
        var targets: [DataType] = []
        for i in 0..<c.count { targets.append(i % 2 == 0 ? try c.string(c[i]) : try c.superValue(c[i])) }
        return FunctionResolution(targets, .superType)
    }, kernel: semi(.objectMake))
    /// PartiQL navigation `s.attribute` (arguments: the SUPER value, the attribute name,
    /// and optionally a constant true to match the name ignoring ASCII case).
    public let superField = ScalarFunction("super_field", arguments: 2...3, resolve: { c in
        guard c[0] == .superType || c[0] == .unknown else { throw c.noSuch() }
        return FunctionResolution(c.count == 3 ? [.superType, .text, .boolean] : [.superType, .text], .superType)
    }, kernel: semi(.superField))
    /// PartiQL navigation `s[index]` (arguments: the SUPER value and a 0-based index).
    public let superIndex = ScalarFunction("super_index", arguments: 2...2, resolve: { c in
        guard c[0] == .superType || c[0] == .unknown else { throw c.noSuch() }
        return FunctionResolution([.superType, try c.integer(c[1]) == .bigint ? .bigint : .integer], .superType)
    }, kernel: semi(.superIndex))

    /// TO_VARBYTE(text, format), FROM_VARBYTE(varbyte, format) with format hex, binary,
    /// utf8 or base64.
    public let toVarbyte = ScalarFunction("to_varbyte", arguments: 2...2, resolve: { c in
        FunctionResolution([try c.string(c[0]), try c.string(c[1])], .varbyte(DataType.defaultVarbyteLength))
    }, kernel: semi(.toVarbyte))
    public let fromVarbyte = ScalarFunction("from_varbyte", arguments: 2...2, resolve: { c in
        guard c[0].isVarbyte || c[0] == .unknown else { throw c.noSuch() }
        return FunctionResolution([c[0] == .unknown ? .varbyte(DataType.defaultVarbyteLength) : c[0], try c.string(c[1])],
                                  .varchar(DataType.maxVarcharLength))
    }, kernel: semi(.fromVarbyte))
    /// HLL_CARDINALITY(sketch) → BIGINT.
    public let hllCardinality = ScalarFunction("hll_cardinality", arguments: 1...1, resolve: { c in
        guard c[0] == .hllsketch || c[0] == .unknown || c[0].isString else { throw c.noSuch() }
        return FunctionResolution([.hllsketch], .bigint)
    }, kernel: semi(.hllCardinality))
}

private func semi(_ op: SemiStructuredFunctions.Op) -> ScalarFunction.Kernel {
    { a, t, n in try SemiStructuredFunctions.evaluate(op, a, resultType: t, n: n) }
}
private let textToBoolean: ScalarFunction.Resolver = { c in FunctionResolution([try c.string(c[0])], .boolean) }
private let superToBoolean: ScalarFunction.Resolver = { c in FunctionResolution([try c.superValue(c[0])], .boolean) }
