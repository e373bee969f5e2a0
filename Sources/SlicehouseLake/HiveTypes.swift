// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes

/// The column types of the lake's catalogs (Hive's, as Glue keeps them: `int`,
/// `decimal(12,2)`, `string`, `array<struct<…>>`) and Slicehouse's, both ways — how a
/// table Spark or Athena registered gets its columns, and how CREATE EXTERNAL TABLE
/// writes its own.
public enum HiveTypes {
    /// The Slicehouse type of a Hive type name. `string` is a VARCHAR(65535), `tinyint` a
    /// SMALLINT, `binary` a VARBYTE(1024000); nested types (`array<…>`, `map<…>`,
    /// `struct<…>`) are read as SUPER. Anything else is refused, naming the column.
    public static func dataType(_ hive: String, column: String = "") throws -> DataType {
        let text = hive.trimmingCharacters(in: .whitespaces).lowercased()
        let bad = SQLError(.featureNotSupported,
                           "external column \(column.isEmpty ? "" : "\"\(column)\" ")has type \"\(hive)\", which Slicehouse cannot read")
        if text.hasPrefix("array<") || text.hasPrefix("map<") || text.hasPrefix("struct<") {
            guard text.hasSuffix(">") else { throw bad }
            return .superType
        }
        var name = text
        var args: [Int] = []
        if let open = text.firstIndex(of: "(") {
            guard text.hasSuffix(")") else { throw bad }
            name = text[..<open].trimmingCharacters(in: .whitespaces)
            let inside = text[text.index(after: open)..<text.index(before: text.endIndex)]
            for part in inside.split(separator: ",", omittingEmptySubsequences: false) {
                guard let n = Int(part.trimmingCharacters(in: .whitespaces)) else { throw bad }
                args.append(n)
            }
        }
        switch name {
        case "tinyint", "smallint": guard args.isEmpty else { throw bad }; return .smallint
        case "int", "integer": guard args.isEmpty else { throw bad }; return .integer
        case "bigint", "long": guard args.isEmpty else { throw bad }; return .bigint
        case "float", "real": guard args.isEmpty else { throw bad }; return .real
        case "double", "double precision": guard args.isEmpty else { throw bad }; return .double
        case "boolean": guard args.isEmpty else { throw bad }; return .boolean
        case "date": guard args.isEmpty else { throw bad }; return .date
        case "timestamp": guard args.isEmpty else { throw bad }; return .timestamp
        case "string": guard args.isEmpty else { throw bad }; return .varchar(DataType.maxVarcharLength)
        case "binary": guard args.isEmpty else { throw bad }; return .varbyte(DataType.maxVarbyteLength)
        case "decimal", "numeric":
            // Hive's DECIMAL without modifiers is DECIMAL(10,0).
            guard args.count <= 2 else { throw bad }
            return try DataType.named("decimal", args.isEmpty ? [10, 0] : args)
        case "char", "varchar":
            guard args.count == 1 else { throw bad }
            return try DataType.named(name, args)
        default:
            throw bad
        }
    }

    /// The Hive type CREATE EXTERNAL TABLE registers for a Slicehouse column type, as
    /// Redshift writes them (`int`, `double`, `varchar(20)`); nil for a type an external
    /// table cannot hold.
    public static func hiveName(_ type: DataType) -> String? {
        switch type {
        case .smallint: return "smallint"
        case .integer: return "int"
        case .bigint: return "bigint"
        case .decimal(let p, let s): return "decimal(\(p),\(s))"
        case .real: return "float"
        case .double: return "double"
        case .boolean: return "boolean"
        case .char(let n): return "char(\(n))"
        case .varchar(let n): return "varchar(\(n))"
        case .date: return "date"
        case .timestamp: return "timestamp"
        case .varbyte: return "binary"
        default: return nil
        }
    }
}

/// Hive-style partition folders (`year=2024/region=eu%2Fwest/`), as Spark, Athena and
/// Redshift's UNLOAD PARTITION BY write them: a value is escaped with `%XX` for the
/// characters Hive escapes, and a NULL value is `__HIVE_DEFAULT_PARTITION__`.
public enum HivePartitionPath {
    public static let nullValue = "__HIVE_DEFAULT_PARTITION__"

    /// The folder for these values of these keys, ending in `/`.
    public static func path(keys: [String], values: [String?]) -> String {
        zip(keys, values).map { "\(escape($0))=\($1.map(escape) ?? nullValue)/" }.joined()
    }

    /// The values a folder path (relative to the table's location) gives the keys, in key
    /// order; nil when it is not `k1=v1/k2=v2/…` for exactly these keys. A NULL value is nil.
    public static func values(_ relative: String, keys: [String]) -> [String?]? {
        let parts = relative.split(separator: "/", omittingEmptySubsequences: true)
        guard parts.count == keys.count else { return nil }
        var out: [String?] = []
        for (part, key) in zip(parts, keys) {
            guard let eq = part.firstIndex(of: "=") else { return nil }
            guard let k = unescape(String(part[..<eq])), k.lowercased() == key.lowercased() else { return nil }
            let raw = String(part[part.index(after: eq)...])
            if raw == nullValue {
                out.append(nil)
            } else {
                guard let v = unescape(raw) else { return nil }
                out.append(v)
            }
        }
        return out
    }

    /// Hive's escaping (`FileUtils.escapePathName`): control characters and
    /// `"#%'*/:=?\\{[]^` and DEL become `%XX`.
    public static func escape(_ s: String) -> String {
        var out = ""
        for b in s.utf8 {
            if b < 0x20 || b == 0x7F || Array("\"#%'*/:=?\\{[]^".utf8).contains(b) {
                let hex = String(b, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" + hex : hex)
            } else {
                out.unicodeScalars.append(Unicode.Scalar(b))
            }
        }
        // Bytes ≥ 0x80 were appended one scalar each above; rebuild them as UTF-8 text.
        return String(decoding: out.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) }, as: UTF8.self)
    }

    /// `%XX` decoded; nil for a malformed escape or bytes that are not UTF-8.
    public static func unescape(_ s: String) -> String? {
        var bytes: [UInt8] = []
        var it = Array(s.utf8)[...]
        while let b = it.first {
            it = it.dropFirst()
            if b == UInt8(ascii: "%") {
                guard it.count >= 2, let v = UInt8(String(decoding: it.prefix(2), as: UTF8.self), radix: 16) else { return nil }
                bytes.append(v)
                it = it.dropFirst(2)
            } else {
                bytes.append(b)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
