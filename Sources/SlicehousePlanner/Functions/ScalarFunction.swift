// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// Built-in scalar functions. Resolution (name + argument types -> function,
/// argument casts, result type) lives in `FunctionRegistry`; kernels live in
/// SlicehouseExecution/Kernels.
///
/// The raw value is the canonical SQL name (what EXPLAIN prints). Several SQL
/// names map to one case (`NVL` → `coalesce`, `LEN` → `len`, `STRPOS` → `position`,
/// ...); see `FunctionRegistry.resolve`.
///
/// Argument conventions the kernels rely on (the registry's casts guarantee them):
/// - date-part functions (`datePart`, `extract`, `dateTrunc`, `dateAdd`, `dateDiff`)
///   take the part name as their first argument, a VARCHAR that should be a constant;
/// - `assignmentCast` has one argument and casts it to the call's result type with
///   INSERT/UPDATE rules (a string longer than the target is an error instead of
///   being truncated).
public enum ScalarFunction: String, Sendable, Equatable, CaseIterable {
    // Conditional
    case coalesce, nullif, nvl2, greatest, least
    // Math
    case abs, round, trunc, ceil, floor, sign, mod, power, sqrt, cbrt, exp, ln, log, pi, random
    /// The integer operators `&`, `|`, `#`, `<<`, `>>`.
    case bitwiseAnd = "bitwise_and", bitwiseOr = "bitwise_or", bitwiseXor = "bitwise_xor"
    case shiftLeft = "shift_left", shiftRight = "shift_right"
    // Strings
    case upper, lower, initcap
    /// Characters (not bytes); trailing blanks count in a VARCHAR, not in a CHAR.
    case length
    /// Redshift LEN, the same as LENGTH (kept apart for EXPLAIN).
    case len
    case octetLength = "octet_length"
    case substring
    /// POSITION(sub IN s) / STRPOS(s, sub): arguments (s, sub).
    case position
    /// CHARINDEX(sub, s): arguments (sub, s).
    case charindex
    case btrim, ltrim, rtrim
    case left, right, lpad, rpad, replace, translate, reverse
    case repeatString = "repeat"
    case splitPart = "split_part"
    case concat, ascii, chr
    /// QUOTE_IDENT(s): `s` double-quoted (quotes inside doubled) unless it reads back as
    /// itself unquoted (lower case, not a reserved word).
    case quoteIdent = "quote_ident"
    /// QUOTE_LITERAL(s): `s` in single quotes, quotes inside doubled.
    case quoteLiteral = "quote_literal"
    /// STRTOL(s, base) → BIGINT: `s` read as an integer in base 2 to 36.
    case strtol
    // Dates and times
    /// DATE_PART(field, ts) → DOUBLE PRECISION.
    case datePart = "date_part"
    /// EXTRACT(field FROM ts) → INTEGER (BIGINT for epoch).
    case extract
    case dateTrunc = "date_trunc"
    case dateAdd = "dateadd"
    case dateDiff = "datediff"
    case addMonths = "add_months"
    /// MONTHS_BETWEEN(a, b) → DOUBLE PRECISION.
    case monthsBetween = "months_between"
    case lastDay = "last_day"
    case currentDate = "current_date"
    case getdate
    case sysdate
    /// NEXT_DAY(date, 'weekday') → DATE.
    case nextDay = "next_day"
    /// DATE_CMP(a, b) → INTEGER -1/0/1 (also DATE_CMP_TIMESTAMP, TIMESTAMP_CMP, ...).
    case dateCmp = "date_cmp"
    /// CONVERT_TIMEZONE([source,] target, ts) → TIMESTAMP (zone names resolved through
    /// `TimeZoneRules`; the binder checks constant names).
    case convertTimezone = "convert_timezone"
    /// interval_add(ts, months, micros) → TIMESTAMP: `ts ± INTERVAL '...'`, built by the
    /// binder with constant months and microseconds (there is no INTERVAL column type).
    case intervalAdd = "interval_add"
    /// timestamp_mi(a, b) → BIGINT: a - b in microseconds (built by the binder).
    case timestampDiff = "timestamp_mi"
    /// interval_from_micros(micros) → INTERVAL: `timestamp - timestamp` (whole days, then
    /// the rest, as PostgreSQL's `interval_justify_hours` leaves it).
    case intervalFromMicros = "interval_from_micros"
    /// interval_part(part, interval) → DATE_PART/EXTRACT of an INTERVAL (or a TIME).
    case intervalPart = "interval_part"
    /// timestamp_pl_interval(ts, interval, sign) → TIMESTAMP or TIMESTAMPTZ: `ts ± i` for
    /// an interval that is not a constant (sign 1 or -1).
    case timestampPlusInterval = "timestamp_pl_interval"
    /// time_pl_interval(time, interval, sign) → TIME (wrapping around midnight).
    case timePlusInterval = "time_pl_interval"
    /// interval_pl(a, b, sign) → INTERVAL: `a ± b` field by field.
    case intervalPlus = "interval_pl"
    /// interval_mul(interval, factor) → INTERVAL (fractions of months and days cascade down).
    case intervalMultiply = "interval_mul"
    /// interval_div(interval, divisor) → INTERVAL.
    case intervalDivide = "interval_div"
    /// cast_in_zone(x, zone) → the call's type: a cast that reads or shows local time in
    /// the session's time zone (TIMESTAMPTZ to and from TIMESTAMP, DATE, TIME, text).
    case castInZone = "cast_in_zone"
    /// interval_length(interval) → BIGINT: the comparable length in microseconds.
    case intervalLength = "interval_length"
    // SUPER and JSON text (Kernels/SemiStructuredFunctions.swift)
    /// JSON_PARSE(text) → SUPER.
    case jsonParse = "json_parse"
    /// CAN_JSON_PARSE(text) → BOOLEAN.
    case canJsonParse = "can_json_parse"
    /// JSON_SERIALIZE(super) → VARCHAR.
    case jsonSerialize = "json_serialize"
    /// IS_VALID_JSON(text), IS_VALID_JSON_ARRAY(text) → BOOLEAN.
    case isValidJson = "is_valid_json", isValidJsonArray = "is_valid_json_array"
    /// JSON_EXTRACT_PATH_TEXT(text, path... [, null_if_invalid]) → VARCHAR; the binder
    /// always passes null_if_invalid as the last argument.
    case jsonExtractPathText = "json_extract_path_text"
    /// JSON_EXTRACT_ARRAY_ELEMENT_TEXT(text, index, null_if_invalid) → VARCHAR.
    case jsonExtractArrayElementText = "json_extract_array_element_text"
    /// JSON_ARRAY_LENGTH(text, null_if_invalid) → INTEGER.
    case jsonArrayLength = "json_array_length"
    /// JSON_TYPEOF(super) → VARCHAR: object, array, string, number, boolean or null.
    case jsonTypeof = "json_typeof"
    /// PartiQL navigation `s.attribute` (arguments: the SUPER value and the attribute name).
    case superField = "super_field"
    /// PartiQL navigation `s[index]` (arguments: the SUPER value and a 0-based index).
    case superIndex = "super_index"
    /// IS_ARRAY, IS_OBJECT, IS_SCALAR, IS_BOOLEAN, IS_NUMBER, IS_INTEGER, IS_SMALLINT,
    /// IS_BIGINT, IS_DECIMAL, IS_FLOAT, IS_FP, IS_VARCHAR, IS_CHAR (SUPER → BOOLEAN).
    case isArray = "is_array", isObject = "is_object", isScalar = "is_scalar", isBoolean = "is_boolean"
    case isNumber = "is_number", isInteger = "is_integer", isSmallint = "is_smallint", isBigint = "is_bigint"
    case isDecimal = "is_decimal", isFloat = "is_float", isFp = "is_fp", isVarchar = "is_varchar", isChar = "is_char"
    /// GET_ARRAY_LENGTH(super) → BIGINT.
    case getArrayLength = "get_array_length"
    /// ARRAY(v, ...) → SUPER; OBJECT(key, value, ...) → SUPER.
    case arrayMake = "array", objectMake = "object"
    /// TO_VARBYTE(text, format), FROM_VARBYTE(varbyte, format) with format hex, binary,
    /// utf8 or base64.
    case toVarbyte = "to_varbyte", fromVarbyte = "from_varbyte"
    /// HLL_CARDINALITY(sketch) → BIGINT.
    case hllCardinality = "hll_cardinality"
    // Formatting (TO_CHAR family). The format is the last argument, ideally a constant.
    /// TO_CHAR(date|timestamp|number, format) → VARCHAR.
    case toChar = "to_char"
    /// TO_DATE(text, format [, is_strict]) → DATE.
    case toDate = "to_date"
    /// TO_TIMESTAMP(text, format) → TIMESTAMP.
    case toTimestamp = "to_timestamp"
    /// TO_NUMBER(text, format) → DECIMAL(p, s) derived from the (constant) format.
    case toNumber = "to_number"
    /// DECODE(expr, search1, result1, ..., [default]): arguments already cast so that
    /// expr and the searches share one type and the results the result type.
    case decode
    // Hashes
    case md5
    /// SHA2(text, bits) with bits 0 (= 256), 224, 256, 384, 512; other bit counts give NULL.
    case sha2
    /// FNV_HASH(value [, seed]) → BIGINT (64-bit FNV-1a over the value's text form).
    case fnvHash = "fnv_hash"
    // Regular expressions (ICU syntax via NSRegularExpression; see Kernels/RegexFunctions.swift).
    case regexpSubstr = "regexp_substr"
    case regexpReplace = "regexp_replace"
    case regexpCount = "regexp_count"
    case regexpInstr = "regexp_instr"
    /// `s SIMILAR TO pattern` as a function: similar_to(s, pattern [, escape]) → BOOLEAN.
    case similarTo = "similar_to"
    // Casts with assignment (INSERT) rules.
    case assignmentCast = "assignment_cast"
    /// TRUE for a row count of at most one, else the statement fails with Redshift's
    /// `more than one row returned by a subquery used as an expression` (the planner's
    /// check on a correlated scalar subquery; not callable from SQL).
    case singleRowCheck = "?single_row_check?"
    /// AVG from a merged sum and count (`RollupPartials`), rounded as AVG's accumulator
    /// rounds: truncated to BIGINT for integer arguments, half away from zero at the
    /// argument's scale for DECIMAL, plain division for floating point; NULL for a count
    /// of 0 (not callable from SQL).
    case avgMerge = "?avg_merge?"

    /// Volatile functions are never constant-folded.
    public var isVolatile: Bool { self == .random }

    /// Functions whose value depends on the clock: the binder may fold them once per
    /// statement, but a result cache must not reuse their results.
    public var dependsOnTime: Bool {
        switch self {
        case .currentDate, .getdate, .sysdate: return true
        default: return false
        }
    }

    /// The name printed in EXPLAIN and error messages.
    public var sqlName: String { rawValue }
}
