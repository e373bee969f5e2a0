// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan

/// Casts to and from the catalog's integer arrays (`DataType.array`), kept as
/// PostgreSQL's array text: `'{1, 2}'::smallint[]` is `{1,2}`.
///
/// - text or another integer array → array: the text is read as PostgreSQL reads an
///   array literal (`{`, elements separated by commas, optionally quoted, `NULL`, `}`)
///   and written back in its canonical form; each element must be an integer of the
///   element type (`malformed array literal` 22P02, `invalid input syntax for type
///   smallint` 22P02, `value "70000" is out of range for type smallint` 22003);
/// - array → CHAR/VARCHAR: the text, as a string cast would give it.
package enum ArrayCasts {

    package static func handles(_ s: DataType, _ t: DataType) -> Bool { s.isArray || t.isArray }

    package static func cast(_ v: Vector, to target: DataType, assignment: Bool) throws -> Vector {
        let source = v.type
        if case .array(let element) = target {
            guard source.isString || source.isArray else {
                throw SQLError(.datatypeMismatch, "cannot cast type \(source.sqlName) to \(target.sqlName)")
            }
            let texts = try StringInput(v)
            return try StringKernels.mapRows([v], n: v.count, resultType: target) { i, out in
                try StringKernels.with(texts, i) { p in try canonical(p, element, into: &out) }
            }
        }
        guard target.isString else {
            throw SQLError(.datatypeMismatch, "cannot cast type \(source.sqlName) to \(target.sqlName)")
        }
        return try CastKernels.cast(v.retyped(.varchar(DataType.maxVarcharLength)), to: target, assignment: assignment)
    }

    /// Append the canonical text of the array literal `p` (elements of type `element`).
    static func canonical(_ p: UnsafeBufferPointer<UInt8>, _ element: ArrayElement, into out: inout StringBuilder) throws {
        func malformed(_ why: String) -> SQLError {
            SQLError(.invalidText, "malformed array literal: \"\(String(decoding: p, as: UTF8.self))\"",
                     detail: why)
        }
        func isBlank(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }
        var i = 0
        while i < p.count && isBlank(p[i]) { i += 1 }
        guard i < p.count, p[i] == 0x7B else { throw malformed("Array value must start with \"{\" or dimension information.") }
        i += 1
        out.append(0x7B)
        var count = 0
        while true {
            while i < p.count && isBlank(p[i]) { i += 1 }
            guard i < p.count else { throw malformed("Unexpected end of input.") }
            if p[i] == 0x7D && count == 0 { i += 1; break }
            // One element: quoted or bare.
            var text: [UInt8] = [], quoted = false
            if p[i] == 0x22 {
                quoted = true
                i += 1
                while i < p.count && p[i] != 0x22 {
                    if p[i] == 0x5C, i + 1 < p.count { i += 1 }
                    text.append(p[i])
                    i += 1
                }
                guard i < p.count else { throw malformed("Unexpected end of input.") }
                i += 1
            } else {
                while i < p.count && p[i] != 0x2C && p[i] != 0x7D && !isBlank(p[i]) {
                    if p[i] == 0x7B || p[i] == 0x22 { throw malformed("Unexpected \"\(Character(UnicodeScalar(p[i])))\" character.") }
                    text.append(p[i])
                    i += 1
                }
                guard !text.isEmpty else { throw malformed("Unexpected \",\" character.") }
            }
            while i < p.count && isBlank(p[i]) { i += 1 }
            if count > 0 { out.append(0x2C) }
            count += 1
            if !quoted && text.count == 4 && text.map({ $0 | 0x20 }) == Array("null".utf8) {
                out.append(contentsOf: "NULL".utf8)
            } else {
                let s = String(decoding: text, as: UTF8.self)
                guard let value = Int64(s.trimmingBlanks()) else {
                    throw SQLError(.invalidText, "invalid input syntax for type \(element.type.sqlName): \"\(s)\"")
                }
                guard let range = element.type.integerRange, range.contains(value) else {
                    throw SQLError(.numericOutOfRange, "value \"\(s)\" is out of range for type \(element.type.sqlName)")
                }
                out.append(contentsOf: String(value).utf8)
            }
            guard i < p.count else { throw malformed("Unexpected end of input.") }
            if p[i] == 0x2C { i += 1; continue }
            if p[i] == 0x7D { i += 1; break }
            throw malformed("Unexpected \"\(Character(UnicodeScalar(p[i])))\" character.")
        }
        while i < p.count && isBlank(p[i]) { i += 1 }
        guard i == p.count else { throw malformed("Junk after closing right brace.") }
        out.append(0x7D)
    }
}
