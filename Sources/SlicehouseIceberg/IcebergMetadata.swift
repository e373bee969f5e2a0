// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes

/// What went wrong reading an Iceberg table: a file named, and why.
public enum IcebergError: Error, CustomStringConvertible, Sendable {
    case badFile(String, String)
    case unsupported(String)

    public var description: String {
        switch self {
        case .badFile(let file, let why): return "Iceberg file '\(file)': \(why)"
        case .unsupported(let what): return what
        }
    }

    public var sqlError: SQLError {
        switch self {
        case .badFile: return SQLError(.loadError, "Spectrum Scan Error: \(description)")
        case .unsupported(let what): return SQLError.unsupported(what)
        }
    }
}

/// An Iceberg primitive or nested type, as a table's schema names it.
public indirect enum IcebergType: Sendable, Equatable {
    case boolean, int, long, float, double, date, time, timestamp, timestamptz, timestampNanos, timestamptzNanos
    case string, uuid, binary
    case fixed(Int)
    case decimal(Int, Int)
    case nested(String)

    init(json: Any, file: String) throws {
        if let object = json as? [String: Any] {
            self = .nested(object["type"] as? String ?? "struct")
            return
        }
        guard let text = (json as? String)?.lowercased() else { throw IcebergError.badFile(file, "a field without a type") }
        switch text {
        case "boolean": self = .boolean
        case "int": self = .int
        case "long": self = .long
        case "float": self = .float
        case "double": self = .double
        case "date": self = .date
        case "time": self = .time
        case "timestamp": self = .timestamp
        case "timestamptz": self = .timestamptz
        case "timestamp_ns": self = .timestampNanos
        case "timestamptz_ns": self = .timestamptzNanos
        case "string": self = .string
        case "uuid": self = .uuid
        case "binary": self = .binary
        default:
            let digits = text.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
            if text.hasPrefix("fixed["), digits.count == 1 {
                self = .fixed(digits[0])
            } else if text.hasPrefix("decimal("), digits.count == 2 {
                self = .decimal(digits[0], digits[1])
            } else {
                throw IcebergError.unsupported("Iceberg type \"\(text)\" in '\(file)' is not one Slicehouse reads")
            }
        }
    }

    /// The column type Redshift gives an Iceberg field.
    public var dataType: DataType {
        switch self {
        case .boolean: return .boolean
        case .int: return .integer
        case .long: return .bigint
        case .float: return .real
        case .double: return .double
        case .date: return .date
        case .time: return .time
        case .timestamp, .timestampNanos: return .timestamp
        case .timestamptz, .timestamptzNanos: return .timestamptz
        case .string: return .varchar(DataType.maxVarcharLength)
        case .uuid: return .varchar(36)
        case .binary, .fixed: return .varbyte(DataType.maxVarbyteLength)
        case .decimal(let p, let s): return .decimal(precision: min(max(p, 1), 38), scale: max(0, min(s, 37)))
        case .nested: return .superType
        }
    }
}

/// One field of a table's schema.
public struct IcebergField: Sendable, Equatable {
    public var id: Int
    public var name: String
    public var required: Bool
    public var type: IcebergType
}

/// One field of a partition spec: `transform(source column)` named `name`.
public struct IcebergPartitionField: Sendable, Equatable {
    public var sourceID: Int
    public var fieldID: Int
    public var name: String
    public var transform: IcebergTransform
}

/// How a partition value derives from its source column.
public enum IcebergTransform: Sendable, Equatable {
    case identity, year, month, day, hour, void
    case bucket(Int)
    case truncate(Int)
    case unknown(String)

    init(_ text: String) {
        let t = text.lowercased()
        let n = t.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }.first
        switch t {
        case "identity": self = .identity
        case "year": self = .year
        case "month": self = .month
        case "day": self = .day
        case "hour": self = .hour
        case "void": self = .void
        default:
            if t.hasPrefix("bucket["), let n { self = .bucket(n) }
            else if t.hasPrefix("truncate["), let n { self = .truncate(n) }
            else { self = .unknown(t) }
        }
    }
}

/// A table's metadata file (`metadata_location`): the schemas, partition specs and
/// snapshots, and which of them are current.
public struct IcebergMetadata: Sendable {
    public var formatVersion: Int
    public var location: String
    /// The current schema's fields (top level).
    public var fields: [IcebergField]
    public var specs: [Int: [IcebergPartitionField]]
    /// The current snapshot's manifest list (nil: the table has no snapshot, so no rows).
    public var manifestList: String?
    /// v1 snapshots may list their manifests in the metadata instead.
    public var manifests: [String]
    public var snapshotID: Int64?
    public var sequenceNumber: Int64
    public var properties: [String: String]

    /// Parse a metadata file's JSON. `name` names it in errors.
    public init(json bytes: [UInt8], name: String) throws {
        guard let any = try? JSONSerialization.jsonObject(with: Data(bytes)), let root = any as? [String: Any] else {
            throw IcebergError.badFile(name, "not an Iceberg table metadata file (JSON)")
        }
        func bad(_ why: String) -> IcebergError { .badFile(name, why) }
        func int(_ any: Any?) -> Int64? {
            (any as? NSNumber)?.int64Value
        }
        guard let version = int(root["format-version"]), (1...3).contains(version) else {
            throw bad("no supported format-version")
        }
        formatVersion = Int(version)
        location = root["location"] as? String ?? ""
        properties = (root["properties"] as? [String: Any])?.compactMapValues { $0 as? String } ?? [:]

        // The current schema.
        var schemaJSON: [String: Any]?
        if let schemas = root["schemas"] as? [[String: Any]], !schemas.isEmpty {
            let current = int(root["current-schema-id"])
            schemaJSON = schemas.first { int($0["schema-id"]) == current } ?? (current == nil ? schemas.last : nil)
        } else {
            schemaJSON = root["schema"] as? [String: Any]
        }
        guard let schemaJSON, let list = schemaJSON["fields"] as? [[String: Any]] else { throw bad("no current schema") }
        fields = try list.map { f in
            guard let id = int(f["id"]), let name = f["name"] as? String, let type = f["type"] else {
                throw bad("a schema field without an id, a name or a type")
            }
            return IcebergField(id: Int(id), name: name, required: f["required"] as? Bool ?? false,
                                type: try IcebergType(json: type, file: name))
        }

        // Partition specs, by id.
        func spec(_ list: [[String: Any]]) throws -> [IcebergPartitionField] {
            try list.enumerated().map { k, f in
                guard let source = int(f["source-id"]), let transform = f["transform"] as? String else {
                    throw bad("a partition field without a source-id or a transform")
                }
                return IcebergPartitionField(sourceID: Int(source), fieldID: Int(int(f["field-id"]) ?? Int64(1000 + k)),
                                             name: f["name"] as? String ?? "", transform: IcebergTransform(transform))
            }
        }
        var specs: [Int: [IcebergPartitionField]] = [:]
        if let list = root["partition-specs"] as? [[String: Any]] {
            for s in list { specs[Int(int(s["spec-id"]) ?? 0)] = try spec(s["fields"] as? [[String: Any]] ?? []) }
        } else if let fields = root["partition-spec"] as? [[String: Any]] {
            specs[0] = try spec(fields)
        }
        self.specs = specs

        // The current snapshot.
        snapshotID = int(root["current-snapshot-id"]).flatMap { $0 < 0 ? nil : $0 }
        manifestList = nil
        manifests = []
        sequenceNumber = int(root["last-sequence-number"]) ?? 0
        if let id = snapshotID {
            guard let snapshots = root["snapshots"] as? [[String: Any]],
                  let snapshot = snapshots.first(where: { int($0["snapshot-id"]) == id }) else {
                throw bad("the current snapshot \(id) is not among the snapshots")
            }
            manifestList = snapshot["manifest-list"] as? String
            manifests = snapshot["manifests"] as? [String] ?? []
            if manifestList == nil && manifests.isEmpty { throw bad("snapshot \(id) has no manifest list") }
        }
    }

    /// The current schema's field of this id.
    public func field(_ id: Int) -> IcebergField? { fields.first { $0.id == id } }
}
