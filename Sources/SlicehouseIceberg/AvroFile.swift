// SPDX-License-Identifier: Apache-2.0
import CAvro
import SlicehouseTypes

/// One value of an Avro object container file, as Iceberg's manifest lists and manifests
/// hold them: records by field name, unions as their current branch, maps by key.
public indirect enum AvroValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// `int` and `long`.
    case long(Int64)
    /// `float` and `double`.
    case double(Double)
    case string(String)
    /// `bytes` and `fixed`.
    case bytes([UInt8])
    /// An enum's symbol number.
    case symbol(Int)
    case record([String: AvroValue])
    case array([AvroValue])
    case map([String: AvroValue])

    public subscript(_ field: String) -> AvroValue? {
        if case .record(let fields) = self, let v = fields[field], v != .null { return v }
        return nil
    }

    public var long: Int64? { if case .long(let v) = self { return v }; return nil }
    public var string: String? { if case .string(let v) = self { return v }; return nil }
    public var bytes: [UInt8]? { if case .bytes(let v) = self { return v }; return nil }
    public var bool: Bool? { if case .bool(let v) = self { return v }; return nil }
    public var array: [AvroValue]? { if case .array(let v) = self { return v }; return nil }
}

/// Reading an Avro object container file held in memory, with Apache Avro's C library
/// (its writer's schema, every codec the library was built with).
public enum AvroFile {
    /// Every value of the file. `name` names it in errors.
    public static func values(_ bytes: [UInt8], name: String) throws -> [AvroValue] {
        guard let reader = bytes.withUnsafeBytes({ cavro_open($0.baseAddress, $0.count) }) else {
            throw IcebergError.badFile(name, "not an Avro object container file (\(lastError()))")
        }
        defer { cavro_close(reader) }
        var out: [AvroValue] = []
        while true {
            let rc = cavro_next(reader)
            if rc == 0 { break }
            guard rc == 1, let value = cavro_value(reader) else {
                throw IcebergError.badFile(name, "a damaged Avro block (\(lastError()))")
            }
            out.append(try convert(value, depth: 0, file: name))
        }
        return out
    }

    private static func lastError() -> String {
        guard let p = avro_strerror() else { return "unknown error" }
        let text = String(cString: p).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? "unknown error" : text
    }

    private static func convert(_ v: UnsafePointer<avro_value_t>, depth: Int, file: String) throws -> AvroValue {
        guard depth < 64 else { throw IcebergError.badFile(file, "Avro values nested too deeply") }
        func check(_ rc: Int32) throws {
            if rc != 0 { throw IcebergError.badFile(file, "an unreadable Avro value (\(lastError()))") }
        }
        switch avro_type_t(rawValue: UInt32(cavro_type(v))) {
        case AVRO_NULL:
            return .null
        case AVRO_BOOLEAN:
            var b: Int32 = 0
            try check(cavro_boolean(v, &b))
            return .bool(b != 0)
        case AVRO_INT32:
            var i: Int32 = 0
            try check(cavro_int(v, &i))
            return .long(Int64(i))
        case AVRO_INT64:
            var i: Int64 = 0
            try check(cavro_long(v, &i))
            return .long(i)
        case AVRO_FLOAT:
            var f: Float = 0
            try check(cavro_float(v, &f))
            return .double(Double(f))
        case AVRO_DOUBLE:
            var d: Double = 0
            try check(cavro_double(v, &d))
            return .double(d)
        case AVRO_STRING:
            var p: UnsafePointer<CChar>? = nil
            var n = 0
            try check(cavro_string(v, &p, &n))
            guard let p else { return .string("") }
            let count = max(0, n - 1)   // the size counts the terminating NUL
            return .string(p.withMemoryRebound(to: UInt8.self, capacity: count) {
                String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self)
            })
        case AVRO_BYTES, AVRO_FIXED:
            var p: UnsafeRawPointer? = nil
            var n = 0
            if avro_type_t(rawValue: UInt32(cavro_type(v))) == AVRO_BYTES {
                try check(cavro_bytes(v, &p, &n))
            } else {
                try check(cavro_fixed(v, &p, &n))
            }
            guard let p, n > 0 else { return .bytes([]) }
            return .bytes(Array(UnsafeRawBufferPointer(start: p, count: n)))
        case AVRO_ENUM:
            var e: Int32 = 0
            try check(cavro_enum(v, &e))
            return .symbol(Int(e))
        case AVRO_UNION:
            var branch = avro_value_t()
            try check(cavro_branch(v, &branch))
            return try convert(&branch, depth: depth + 1, file: file)
        case AVRO_RECORD, AVRO_MAP, AVRO_ARRAY:
            let kind = avro_type_t(rawValue: UInt32(cavro_type(v)))
            var size = 0
            try check(cavro_size(v, &size))
            var fields: [String: AvroValue] = [:]
            var items: [AvroValue] = []
            for i in 0..<size {
                var child = avro_value_t()
                var name: UnsafePointer<CChar>? = nil
                try check(cavro_child(v, i, &child, &name))
                let value = try convert(&child, depth: depth + 1, file: file)
                if kind == AVRO_ARRAY {
                    items.append(value)
                } else {
                    fields[name.map { String(cString: $0) } ?? ""] = value
                }
            }
            if kind == AVRO_ARRAY { return .array(items) }
            return kind == AVRO_RECORD ? .record(fields) : .map(fields)
        default:
            throw IcebergError.badFile(file, "an Avro value of a kind Iceberg does not use")
        }
    }
}
