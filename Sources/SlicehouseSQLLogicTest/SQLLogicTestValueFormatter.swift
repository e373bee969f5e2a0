// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes

/// Turns result values into the text sqllogictest compares.
///
/// Two renderings exist (`SQLLogicTest` spells out every comparison rule):
/// - `.standard` is the primary one: NULL → `NULL`, empty string → `(empty)`,
///   booleans → `true`/`false`, numbers under an `R` column → 3 decimals,
///   everything else as PostgreSQL prints it.
/// - `.classic` mimics what the original sqllogictest harness produced for the
///   SQLite corpus: it differs only for `I` columns, where booleans become
///   `1`/`0` and decimals/floats are truncated to integers.
public enum SQLLogicTestValueFormatter {
    public enum Style: Sendable, Equatable {
        case standard
        case classic
    }

    /// The comparison text of `value` (of SQL type `type`) in a column declared as `column`.
    public static func render(_ value: Value, type: DataType,
                              as column: SQLLogicTestRecord.ColumnType,
                              style: Style = .standard) -> String {
        if value.isNull { return "NULL" }
        if type == .boolean || value.asBool != nil {
            let b = value.asBool ?? ((value.asInt64 ?? 0) != 0)
            if style == .classic && column == .integer { return b ? "1" : "0" }
            return b ? "true" : "false"
        }
        if column == .real, let fixed = fixed3(value, type: type) { return fixed }
        if style == .classic && column == .integer, let truncated = truncatedInteger(value, type: type) {
            return truncated
        }
        return natural(value, type: type)
    }

    /// Every rendering accepted when comparing a single value (primary first).
    public static func acceptedRenderings(_ value: Value, type: DataType,
                                          as column: SQLLogicTestRecord.ColumnType) -> [String] {
        var out = [render(value, type: type, as: column, style: .standard)]
        for candidate in [render(value, type: type, as: column, style: .classic), natural(value, type: type)]
        where !out.contains(candidate) {
            out.append(candidate)
        }
        return out
    }

    /// PostgreSQL's text form, with `NULL` and `(empty)` markers.
    public static func natural(_ value: Value, type: DataType) -> String {
        guard let text = value.formatted(as: type) else { return "NULL" }
        return text.isEmpty ? "(empty)" : text
    }

    /// `%.3f` of a double (C printf rounding), nil for NaN and infinities.
    public static func fixed3(_ d: Double) -> String? {
        guard d.isFinite else { return nil }
        return String(format: "%.3f", d)
    }

    /// A scaled decimal rounded (half away from zero) to 3 decimals, or nil on overflow.
    public static func decimalFixed3(_ v: Int128, scale: Int) -> String? {
        guard scale >= 0 && scale <= DataType.maxDecimalPrecision else { return nil }
        var scaled = v
        if scale < 3 {
            var factor: Int128 = 1
            for _ in scale..<3 { factor *= 10 }
            let (product, overflow) = v.multipliedReportingOverflow(by: factor)
            if overflow { return nil }
            scaled = product
        } else if scale > 3 {
            var divisor: Int128 = 1
            for _ in 3..<scale { divisor *= 10 }
            let q = v / divisor, r = v % divisor
            // r * 2 cannot overflow: |r| < divisor <= 10^35.
            if r * 2 >= divisor { scaled = q + 1 } else if r * 2 <= -divisor { scaled = q - 1 } else { scaled = q }
        }
        return DecimalFormat.format(scaled, scale: 3)
    }

    private static func fixed3(_ value: Value, type: DataType) -> String? {
        switch value {
        case .double(let d):
            return fixed3(d)
        case .int(let v):
            if type.isDecimal { return decimalFixed3(Int128(v), scale: type.scale) }
            if type.isInteger || type == .unknown { return decimalFixed3(Int128(v), scale: 0) }
            return nil
        case .int128(let v):
            if type.isDecimal { return decimalFixed3(v, scale: type.scale) }
            if type.isInteger { return decimalFixed3(v, scale: 0) }
            return nil
        default:
            return nil
        }
    }

    /// SQLite's conversion of a number to an integer: truncation toward zero.
    private static func truncatedInteger(_ value: Value, type: DataType) -> String? {
        switch value {
        case .double(let d):
            guard d.isFinite, let i = Int64(exactly: d.rounded(.towardZero)) else { return nil }
            return String(i)
        case .int(let v) where type.isDecimal:
            return String(Int128(v) / pow10(type.scale))
        case .int128(let v) where type.isDecimal:
            return String(v / pow10(type.scale))
        default:
            return nil
        }
    }

    private static func pow10(_ n: Int) -> Int128 {
        var p: Int128 = 1
        for _ in 0..<max(0, min(n, 38)) { p *= 10 }
        return p
    }
}
