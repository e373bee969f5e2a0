// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseCatalog
import SlicehouseTypes

/// Reads a JSONPaths file — `{"jsonpaths": ["$['id']", "$.name.first", "$.tags[0]"]}` —
/// and compiles its expressions into JSONPath steps, one per loaded column, in order.
///
/// Expressions (Redshift's subset): `$` followed by steps in dot notation (`.name`) or
/// bracket notation (`['name']`, `["name"]`, `[2]`). Wildcards, filters, slices and
/// recursive descent resolve to several elements and are rejected, as in Redshift.
/// As in Redshift, a file whose single object's name is not `jsonpaths` makes the
/// COPY fall back to `'auto'` (returns nil).
enum JSONPathsFile {
    /// Longest path accepted (steps after `$`).
    static let maxSteps = 64

    /// The compiled paths of a JSONPaths file's bytes (local or on S3; `path` names it in
    /// errors), or nil when the file asks for `'auto'` behaviour.
    static func compile(_ data: Data, name path: String, columnCount: Int) throws -> [[JSONFieldMap.Step]]? {
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            throw SQLError(.loadError, "JSONPaths file '\(path)' is not valid JSON [1224]")
        }
        guard let object = root as? [String: Any] else {
            throw SQLError(.loadError, "JSONPaths file '\(path)' must hold one object: {\"jsonpaths\": [\"$.a\", ...]}")
        }
        guard let value = object["jsonpaths"] else { return nil }
        guard let list = value as? [Any] else {
            throw SQLError(.loadError, "JSONPaths file '\(path)': \"jsonpaths\" must be an array of strings")
        }
        var out: [[JSONFieldMap.Step]] = []
        for item in list {
            guard let expression = item as? String else {
                throw SQLError(.loadError, "JSONPaths file '\(path)': \"jsonpaths\" must be an array of strings")
            }
            out.append(try compile(expression, file: path))
        }
        guard out.count == columnCount else {
            throw SQLError(.loadError,
                           "Number of jsonpaths and the number of columns should match. JSONPath size: \(out.count), Number of columns in table or column list: \(columnCount)")
        }
        return out
    }

    /// Compile one expression into steps.
    static func compile(_ expression: String, file: String) throws -> [JSONFieldMap.Step] {
        func bad(_ why: String) -> SQLError {
            SQLError(.loadError, "Invalid JSONPath expression '\(expression)' in JSONPaths file '\(file)': \(why)")
        }
        let s = Array(expression.utf8)
        var i = 0
        while i < s.count && (s[i] == 32 || s[i] == 9) { i += 1 }
        guard i < s.count, s[i] == UInt8(ascii: "$") else { throw bad("it must start with '$'") }
        i += 1
        var steps: [JSONFieldMap.Step] = []
        while i < s.count {
            let c = s[i]
            if c == 32 || c == 9 {
                // Trailing blanks only.
                guard s[i...].allSatisfy({ $0 == 32 || $0 == 9 }) else { throw bad("unexpected blank") }
                break
            }
            if c == UInt8(ascii: ".") {
                i += 1
                guard i < s.count else { throw bad("empty name after '.'") }
                guard s[i] != UInt8(ascii: ".") else { throw bad("recursive descent '..' is not supported") }
                let start = i
                while i < s.count && s[i] != UInt8(ascii: ".") && s[i] != UInt8(ascii: "[") { i += 1 }
                let name = Array(s[start..<i])
                guard !name.isEmpty else { throw bad("empty name after '.'") }
                guard name != [UInt8(ascii: "*")] else { throw bad("wildcards are not supported") }
                steps.append(.key(name))
            } else if c == UInt8(ascii: "[") {
                i += 1
                guard i < s.count else { throw bad("unclosed '['") }
                let q = s[i]
                if q == UInt8(ascii: "'") || q == UInt8(ascii: "\"") {
                    i += 1
                    let start = i
                    while i < s.count && s[i] != q { i += 1 }
                    guard i < s.count else { throw bad("unterminated quoted name") }
                    let name = Array(s[start..<i])
                    i += 1
                    guard i < s.count, s[i] == UInt8(ascii: "]") else { throw bad("expected ']' after quoted name") }
                    i += 1
                    steps.append(.key(name))
                } else {
                    let start = i
                    while i < s.count && s[i] >= 48 && s[i] <= 57 { i += 1 }
                    guard i > start, i < s.count, s[i] == UInt8(ascii: "]") else {
                        throw bad("expected a quoted name or a non-negative array index inside '[ ]' (wildcards, filters and slices are not supported)")
                    }
                    guard i - start <= 9, let index = Int(String(decoding: s[start..<i], as: UTF8.self)) else {
                        throw bad("array index too large")
                    }
                    i += 1
                    steps.append(.index(index))
                }
            } else {
                throw bad("expected '.' or '[' after '\(String(decoding: s[..<i], as: UTF8.self))'")
            }
            guard steps.count <= maxSteps else { throw bad("more than \(maxSteps) steps") }
        }
        return steps
    }
}
