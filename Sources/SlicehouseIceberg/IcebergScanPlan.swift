// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// A manifest list's entry: one manifest with its partitions' summary.
public struct IcebergManifestFile: Sendable {
    public var path: String
    public var specID: Int
    /// 0: data files; 1: delete files.
    public var content: Int
    public var sequenceNumber: Int64
    /// Per partition field, in the spec's order: lower and upper bounds (single-value
    /// serialization of the partition value's type) and whether some value is NULL.
    public var partitions: [(containsNull: Bool, lower: [UInt8]?, upper: [UInt8]?)]
}

/// A manifest's live entry: a data file or a delete file.
public struct IcebergDataFile: Sendable {
    /// 0: data; 1: position deletes; 2: equality deletes.
    public var content: Int
    public var path: String
    public var format: String
    public var recordCount: Int64
    public var size: Int64
    public var specID: Int
    /// The partition values, by partition field name.
    public var partition: [String: AvroValue]
    public var valueCounts: [Int: Int64]
    public var nullCounts: [Int: Int64]
    public var lowerBounds: [Int: [UInt8]]
    public var upperBounds: [Int: [UInt8]]
    /// An equality delete file's columns (field ids).
    public var equalityIDs: [Int]
    /// The data sequence number (inherited from the manifest when the entry has none).
    public var sequenceNumber: Int64
}

/// One data file to read with the delete files that apply to it.
public struct IcebergScanTask: Sendable {
    public var file: IcebergDataFile
    public var positionDeletes: [Int]
    public var equalityDeletes: [Int]
}

/// A table's current snapshot planned into data files: manifests pruned by their
/// partition summaries, data files by their partition values and column statistics (both
/// judged by the caller), deletes matched to the data files they apply to as Iceberg's
/// spec says — a position delete to files of its partition with a data sequence number at
/// most its own, an equality delete to those with a smaller one.
public struct IcebergScanPlan: Sendable {
    public var tasks: [IcebergScanTask] = []
    /// The delete files the tasks name (by index).
    public var deletes: [IcebergDataFile] = []
    public var manifests = 0
    public var manifestsSkipped = 0
    public var filesSkipped = 0

    /// Plan `metadata`'s current snapshot. `read` fetches a file by its address;
    /// `keepManifest` and `keepFile` say whether a data manifest or a data file may hold rows
    /// the query wants.
    public static func make(_ metadata: IcebergMetadata, read: (String) throws -> [UInt8],
                            keepManifest: (IcebergManifestFile) -> Bool = { _ in true },
                            keepFile: (IcebergDataFile) -> Bool = { _ in true }) throws -> IcebergScanPlan {
        var plan = IcebergScanPlan()
        var manifests: [IcebergManifestFile] = []
        if let list = metadata.manifestList {
            for entry in try AvroFile.values(try read(list), name: list) {
                manifests.append(try manifestFile(entry, file: list))
            }
        } else {
            manifests = metadata.manifests.map {
                IcebergManifestFile(path: $0, specID: 0, content: 0, sequenceNumber: 0, partitions: [])
            }
        }
        var data: [IcebergDataFile] = []
        for m in manifests {
            if m.content == 0 && !keepManifest(m) { plan.manifestsSkipped += 1; continue }
            plan.manifests += 1
            for entry in try AvroFile.values(try read(m.path), name: m.path) {
                // 0: existing, 1: added, 2: deleted (gone from this snapshot).
                let status = entry["status"]?.long ?? 1
                guard status != 2 else { continue }
                guard let file = try dataFile(entry, manifest: m, version: metadata.formatVersion) else { continue }
                if file.content == 0 {
                    if keepFile(file) { data.append(file) } else { plan.filesSkipped += 1 }
                } else {
                    plan.deletes.append(file)
                }
            }
        }
        for file in data {
            guard file.format.uppercased() == "PARQUET" else {
                throw IcebergError.unsupported("reading the Iceberg data file '\(file.path)' (\(file.format)): Slicehouse reads Iceberg tables of Parquet files")
            }
            var task = IcebergScanTask(file: file, positionDeletes: [], equalityDeletes: [])
            for (k, d) in plan.deletes.enumerated() where samePartition(d, file, metadata) {
                if d.content == 1, d.sequenceNumber >= file.sequenceNumber { task.positionDeletes.append(k) }
                if d.content == 2, d.sequenceNumber > file.sequenceNumber { task.equalityDeletes.append(k) }
            }
            plan.tasks.append(task)
        }
        for d in plan.deletes where d.format.uppercased() != "PARQUET" {
            throw IcebergError.unsupported("reading the Iceberg delete file '\(d.path)' (\(d.format)): Slicehouse reads Parquet delete files")
        }
        return plan
    }

    /// Whether delete file `d` may apply to data file `f`: a delete of an unpartitioned spec
    /// applies everywhere, else only within the same spec and partition.
    static func samePartition(_ d: IcebergDataFile, _ f: IcebergDataFile, _ metadata: IcebergMetadata) -> Bool {
        if (metadata.specs[d.specID] ?? []).isEmpty { return true }
        return d.specID == f.specID && d.partition == f.partition
    }

    static func manifestFile(_ v: AvroValue, file: String) throws -> IcebergManifestFile {
        guard let path = v["manifest_path"]?.string else { throw IcebergError.badFile(file, "a manifest without manifest_path") }
        var parts: [(Bool, [UInt8]?, [UInt8]?)] = []
        for s in v["partitions"]?.array ?? [] {
            parts.append((s["contains_null"]?.bool ?? true, s["lower_bound"]?.bytes, s["upper_bound"]?.bytes))
        }
        return IcebergManifestFile(path: path, specID: Int(v["partition_spec_id"]?.long ?? 0),
                                   content: Int(v["content"]?.long ?? 0),
                                   sequenceNumber: v["sequence_number"]?.long ?? 0,
                                   partitions: parts.map { (containsNull: $0.0, lower: $0.1, upper: $0.2) })
    }

    static func dataFile(_ entry: AvroValue, manifest m: IcebergManifestFile, version: Int) throws -> IcebergDataFile? {
        guard let d = entry["data_file"], let path = d["file_path"]?.string else {
            throw IcebergError.badFile(m.path, "a manifest entry without data_file.file_path")
        }
        func counts(_ name: String) -> [Int: Int64] {
            var out: [Int: Int64] = [:]
            for kv in d[name]?.array ?? [] { if let k = kv["key"]?.long, let v = kv["value"]?.long { out[Int(k)] = v } }
            return out
        }
        func bounds(_ name: String) -> [Int: [UInt8]] {
            var out: [Int: [UInt8]] = [:]
            for kv in d[name]?.array ?? [] { if let k = kv["key"]?.long, let v = kv["value"]?.bytes { out[Int(k)] = v } }
            return out
        }
        var partition: [String: AvroValue] = [:]
        if case .record(let fields)? = d["partition"] { partition = fields }
        let content = Int(d["content"]?.long ?? 0)
        guard (0...2).contains(content) else { throw IcebergError.badFile(m.path, "data_file.content \(content)") }
        // v2: an entry without its own sequence number inherits the manifest's (ADDED entries).
        let sequence = entry["sequence_number"]?.long ?? (version >= 2 ? m.sequenceNumber : 0)
        let records = d["record_count"]?.long ?? 0
        guard records >= 0 else { throw IcebergError.badFile(m.path, "a negative record_count for '\(path)'") }
        let size = d["file_size_in_bytes"]?.long ?? 0
        guard size > 0 else { throw IcebergError.badFile(m.path, "file_size_in_bytes \(size) for '\(path)'") }
        return IcebergDataFile(content: content, path: path, format: d["file_format"]?.string ?? "PARQUET",
                               recordCount: records, size: size,
                               specID: m.specID, partition: partition,
                               valueCounts: counts("value_counts"), nullCounts: counts("null_value_counts"),
                               lowerBounds: bounds("lower_bounds"), upperBounds: bounds("upper_bounds"),
                               equalityIDs: (d["equality_ids"]?.array ?? []).compactMap { $0.long.map(Int.init) },
                               sequenceNumber: sequence)
    }
}

/// Iceberg's single-value serialization (bounds and partition summaries) and partition
/// values, as Slicehouse's values of the column's type: integers, dates (days), times and
/// timestamps (microseconds) and decimals (unscaled) as `.int`, floating point as
/// `.double`, text as `.string`. Nil when the value cannot be judged.
public enum IcebergValues {
    public static func decode(_ bytes: [UInt8], _ type: IcebergType) -> Value? {
        func le(_ n: Int) -> UInt64? {
            guard bytes.count == n else { return nil }
            var v: UInt64 = 0
            for (i, b) in bytes.enumerated() { v |= UInt64(b) << (8 * UInt64(i)) }
            return v
        }
        switch type {
        case .boolean: return bytes.count == 1 ? .bool(bytes[0] != 0) : nil
        case .int, .date:
            return le(4).map { .int(Int64(Int32(bitPattern: UInt32(truncatingIfNeeded: $0)))) }
        case .long, .time, .timestamp, .timestamptz:
            // A column promoted from int keeps its older files' 4-byte bounds.
            if bytes.count == 4 { return le(4).map { .int(Int64(Int32(bitPattern: UInt32(truncatingIfNeeded: $0)))) } }
            return le(8).map { .int(Int64(bitPattern: $0)) }
        case .float:
            return le(4).map { .double(Double(Float(bitPattern: UInt32(truncatingIfNeeded: $0)))) }
        case .double:
            if bytes.count == 4 { return le(4).map { .double(Double(Float(bitPattern: UInt32(truncatingIfNeeded: $0)))) } }
            return le(8).map { .double(Double(bitPattern: $0)) }
        case .string:
            return .string(String(decoding: bytes, as: UTF8.self))
        case .decimal:
            // Big-endian two's complement, as few bytes as needed.
            guard !bytes.isEmpty, bytes.count <= 16 else { return nil }
            var v: Int128 = (bytes[0] & 0x80) != 0 ? -1 : 0
            for b in bytes { v = (v << 8) | Int128(b) }
            if let small = Int64(exactly: v) { return .int(small) }
            return .int128(v)
        default:
            return nil
        }
    }

    /// A manifest's partition value (an Avro value of the partition field's result type).
    public static func partitionValue(_ v: AvroValue?, sourceType: IcebergType, transform: IcebergTransform) -> Value? {
        guard let v else { return .null }
        switch (v, transform) {
        case (.null, _): return .null
        case (.long(let n), _): return .int(n)
        case (.double(let d), .identity): return .double(d)
        case (.string(let s), .identity), (.string(let s), .truncate): return .string(s)
        case (.bool(let b), .identity): return .bool(b)
        case (.bytes(let b), .identity):
            if case .decimal = sourceType { return decode(b, sourceType) }
            return nil
        default: return nil
        }
    }

    /// The type of a partition field's values: the source's for identity and truncate,
    /// `int` for the temporal transforms and buckets.
    public static func resultType(_ source: IcebergType, _ transform: IcebergTransform) -> IcebergType {
        switch transform {
        case .identity, .truncate: return source
        default: return .int
        }
    }
}
