// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Foundation
import SlicehouseAWS
import SlicehouseCatalog
import SlicehouseExecution
import SlicehouseLake
import SlicehouseLoad
import SlicehousePlan
import SlicehousePlanner
import SlicehousePlatform
import SlicehouseRuntime
import SlicehouseStorage
import SlicehouseTypes

/// The S3 scan of a query's external tables (Redshift Spectrum's layer), run when the plan
/// is made and before its steps start: for each external table the plan scans,
///
/// 1. the columns its scans read, and nothing else;
/// 2. the partitions its scans' filters can match — each filter's conjuncts over partition
///    columns alone are evaluated against every registered partition's values, and a
///    partition none of the scans can match is not listed or read;
/// 3. the objects under each remaining partition's location (hidden files left out);
/// 4. their rows, read in parallel by `ExternalFileReader` (Parquet by name, row groups
///    whose footer statistics rule out a scan's predicates skipped, ranged GETs);
///
/// and the rows become the table's snapshot for this statement: decoded blocks spread over
/// the slices, each with its zone map, so the slices scan, filter and join them as they do
/// a local table's (runtime filters and block skipping included).
struct ExternalScans {
    let session: Session
    let scope: StatementContext
    let context: QueryContext

    /// What one scan of an external table asks for: table columns and its filter over them
    /// (by position in `columns`).
    struct Use {
        var columns: [Int]
        var filter: BoundExpr?
    }

    /// Read every external table `plan` scans into `scope`'s snapshots.
    func prepare(_ plan: PhysicalNode) throws {
        guard !scope.externalTables.isEmpty else { return }
        var uses: [Int: [Use]] = [:]
        var seen = Set<ObjectIdentifier>()
        func visit(_ node: PhysicalNode) {
            guard seen.insert(ObjectIdentifier(node)).inserted else { return }
            if case .scan(let table, let columns, let filter, _) = node.kind, table.external != nil {
                uses[table.id, default: []].append(Use(columns: columns, filter: filter))
            }
            node.children.forEach(visit)
        }
        visit(plan)
        let lake = LakeAccess(session: session, context: context, s3: scope.s3Access(context))
        // The rows read are held until the statement ends: counted in its memory, so the
        // operators above them spill sooner (the scan itself never waits for room).
        let held = scope.externalMemory(context)
        // Every table's S3 folder listed at once, each on a thread of its own, while the
        // tables are taken one by one (their catalog calls, their reads): a table without
        // partitions is listed whole anyway, and so is a partitioned one no scan filters
        // by a partition column (it reads every partition: one listing of its folder).
        var listings: [Int: ExternalFileReader.Listing] = [:]
        for (id, list) in uses {
            guard let table = scope.externalTables[id], table.iceberg == nil, !scope.hasSnapshot(id) else { continue }
            let partitionColumns = Set(table.dataColumns..<(table.dataColumns + table.partitionKeys.count))
            let filtered = list.contains { use in
                guard let filter = use.filter else { return false }
                return filter.referencedColumns.contains { $0 < use.columns.count && partitionColumns.contains(use.columns[$0]) }
            }
            if !filtered { listings[id] = ExternalFileReader.Listing(table.location, inputs: lake.inputs(table.external)) }
        }
        // And every partitioned table's partitions asked of the catalog at once.
        var partitions: [Int: Pending<[GluePartition]>] = [:]
        for id in uses.keys {
            guard let table = scope.externalTables[id], table.iceberg == nil, !table.partitionKeys.isEmpty,
                  !scope.hasSnapshot(id) else { continue }
            let catalog = try lake.catalog(table.external)
            let database = table.external.database, name = table.glue.name
            partitions[id] = Pending { try LakeAccess.mapped { try catalog.partitions(database, name, columns: false) } }
        }
        for (id, list) in uses.sorted(by: { $0.key > $1.key }) {
            guard let table = scope.externalTables[id], !scope.hasSnapshot(id) else { continue }
            let (snapshot, summary) = try read(table, list, lake, listing: listings[id], partitions: partitions[id])
            scope.override(id, with: snapshot)
            scope.noteExternalScan(summary)
            held.resize(to: held.bytes + summary.returnedBytes)
        }
    }

    /// What one table's scan did (SVL_S3QUERY_SUMMARY, SVL_S3PARTITION).
    struct Summary: Sendable {
        var schema: String
        var table: String
        var location: String
        var format: String
        var partitions = 0
        var qualifiedPartitions = 0
        var files = 0
        var bytes = 0
        var rows = 0
        var rowGroupsSkipped = 0
        var partitioned = false
        /// Bytes of the rows handed to the slices (decoded).
        var returnedBytes = 0
        var largestFile = 0
        var startMicros: Int64 = 0
        var endMicros: Int64 = 0
    }

    /// The scans into SVL_S3QUERY_SUMMARY and (partitioned tables) SVL_S3PARTITION.
    static func log(_ scans: [Summary], query: Int, session: Session) {
        guard !scans.isEmpty else { return }
        let user = Int64(session.currentUserID), xid = Int64(session.transaction.id), pid = Int64(session.process)
        var summary: [[Value]] = [], partitions: [[Value]] = []
        for s in scans {
            let slices = max(1, session.database.layout.sliceCount)
            let elapsed = s.endMicros - s.startMicros
            let returned = Int64(s.returnedBytes)
            summary.append([.int(user), .int(Int64(query)), .int(xid), .int(pid), .int(0), .int(0),
                            .int(s.startMicros), .int(s.endMicros), .int(elapsed), .int(0),
                            .string("\(s.schema).\(s.table)"), .string(s.format), .string(s.partitioned ? "t" : "f"),
                            .string(s.rowGroupsSkipped > 0 ? "t" : "f"), .string("f"),
                            .int(Int64(s.rows)), .int(Int64(s.bytes)), .int(Int64(s.rows)), .int(returned),
                            .int(Int64(s.files)), .int(Int64((s.files + slices - 1) / slices)), .int(Int64(s.files / slices)),
                            .int(Int64(s.files)), .int(Int64((s.files + slices - 1) / slices)), .int(Int64(s.files / slices)),
                            .int(Int64(s.bytes)), .int(Int64(s.largestFile)), .int(Int64(s.files == 0 ? 0 : s.bytes / s.files)),
                            .int(0), .int(0), .int(0), .double(0), .int(0), .double(0), .int(0), .int(0)])
            if s.partitioned {
                partitions.append([.int(Int64(query)), .int(0), .int(0), .int(0), .int(s.startMicros), .int(s.endMicros),
                                   .int(elapsed), .int(Int64(s.partitions)), .int(Int64(s.qualifiedPartitions)),
                                   .int(Int64(s.qualifiedPartitions)), .string("D")])
            }
        }
        session.database.log(.s3QuerySummary, summary)
        if !partitions.isEmpty { session.database.log(.s3Partition, partitions) }
    }

    // MARK: - One table

    func read(_ table: ExternalTable, _ uses: [Use], _ lake: LakeAccess, listing: ExternalFileReader.Listing? = nil,
              partitions pending: Pending<[GluePartition]>? = nil) throws -> (TableSnapshot, Summary) {
        if let metadata = table.iceberg { return try readIceberg(table, metadata, uses, lake) }
        let start = SlicehousePlatform.Clock.nowMicros()
        let def = table.def
        let wanted = Set(uses.flatMap(\.columns))
        let partitionRange = table.dataColumns..<(table.dataColumns + table.partitionKeys.count)
        let pathColumn = def.columns.count - 2, sizeColumn = def.columns.count - 1
        let inputs = lake.inputs(table.external)
        var summary = Summary(schema: table.schema.name, table: def.name, location: table.location,
                              format: def.external?.formatName ?? "")

        // The partitions to read, each with its typed values.
        struct Part { var location: String; var values: [Value] }
        var parts: [Part] = []
        if table.partitionKeys.isEmpty {
            parts = [Part(location: table.location, values: [])]
        } else {
            summary.partitioned = true
            let registered: [GluePartition]
            if let pending {
                registered = try pending.value()
            } else {
                let catalog = try lake.catalog(table.external)
                registered = try LakeAccess.mapped {
                    try catalog.partitions(table.external.database, table.glue.name, columns: false)
                }
            }
            summary.partitions = registered.count
            for p in registered {
                let values = try partitionValues(p.values, table)
                if try mayMatch(values, uses, table) {
                    parts.append(Part(location: p.storageDescriptor?.location ?? "", values: values))
                }
            }
            parts.sort { $0.location < $1.location }
        }
        summary.qualifiedPartitions = parts.count

        // Their objects; one group per partition, or per object when `$path` or `$size` is read.
        let perObject = wanted.contains(pathColumn) || wanted.contains(sizeColumn)
        var groups: [[CopyObject]] = []
        var groupValues: [[Value]] = []
        for part in parts where part.location.isEmpty {
            _ = try list(part.location, inputs, table)   // the error: a partition without a location
        }
        let listed: [[CopyObject]]
        if table.partitionKeys.isEmpty, let only = parts.first {
            listed = [try ExternalFileReader.list(only.location, inputs: inputs, listing: listing)]
        } else {
            listed = try ExternalFileReader.list(parts.map(\.location), tableLocation: table.location, inputs: inputs,
                                                 listing: listing)
        }
        for (part, objects) in zip(parts, listed) {
            for o in objects { summary.largestFile = max(summary.largestFile, o.size) }
            if perObject {
                for o in objects { groups.append([o]); groupValues.append(part.values) }
            } else if !objects.isEmpty {
                groups.append(objects)
                groupValues.append(part.values)
            }
        }

        // Parquet: the data columns asked for; text: every field (fields are found by position).
        let format = try table.format()
        var dataColumns = wanted.filter { $0 < table.dataColumns }.sorted()
        if case .text = format { dataColumns = Array(0..<table.dataColumns) }
        let targets = dataColumns.map { def.columns[$0] }
        let keep = parquetTest(uses, table, dataColumns)
        var builder = SnapshotBuilder(columnCount: def.columns.count, slices: session.database.layout.sliceCount)
        var returned = 0
        let read = try readFiles(table, targets: targets, groups: groups, format: format, keep: keep, inputs: inputs) { g, _, chunk, zones in
            var columns: [Int: Vector] = [:]
            var known: [Int: ZoneMap] = [:]
            for (k, c) in dataColumns.enumerated() where wanted.contains(c) {
                columns[c] = chunk.columns[k]
                if let zones, k < zones.count { known[c] = zones[k] }
            }
            for c in partitionRange where wanted.contains(c) {
                columns[c] = Self.filled(groupValues[g][c - table.dataColumns], type: def.columns[c].type, count: chunk.count)
            }
            if perObject, let object = groups[g].first {
                Self.fillPseudoColumns(&columns, def: def, wanted: wanted, path: Self.url(object), size: object.size,
                                       count: chunk.count)
            }
            builder.add(columns, count: chunk.count, zones: known)
            returned += columns.values.reduce(0) { $0 + $1.memoryBytes }
        }
        summary.returnedBytes = returned
        summary.files = read.files
        summary.bytes = read.bytes
        summary.rows = read.rows
        summary.rowGroupsSkipped = read.rowGroupsSkipped
        summary.startMicros = start
        summary.endMicros = SlicehousePlatform.Clock.nowMicros()
        return (builder.snapshot(), summary)
    }

    private func list(_ location: String, _ inputs: CopyInputs, _ table: ExternalTable) throws -> [CopyObject] {
        guard !location.isEmpty else {
            throw SQLError(.invalidParameter, "External table \"\(table.schema.name).\(table.def.name)\" has no location")
        }
        return try ExternalFileReader.list(location, inputs: inputs)
    }

    func readFiles(_ table: ExternalTable, targets: [ColumnDef], groups: [[CopyObject]],
                           format: ExternalFileReader.Format, keep: ExternalFileReader.RowGroupTest?, inputs: CopyInputs,
                           consume: (Int, Int64, Chunk, [ZoneMap]?) throws -> Void) throws -> ExternalFileReader.Summary {
        do {
            return try ExternalFileReader.read(table: "\(table.schema.name).\(table.def.name)", columns: targets, groups: groups,
                                               format: format, keepRowGroup: keep, inputs: inputs, context: context,
                                               consume: consume)
        } catch let e as LoadError {
            // Spectrum names the object, the row and the column; a bad value fails the query.
            var place = "file '\(e.file)'"
            if e.line > 0 { place += ", row \(e.line)" }
            if !e.column.isEmpty { place += ", column \(e.column)" }
            throw SQLError(.loadError, "Spectrum Scan Error: \(e.reason) (\(place))",
                           detail: e.rawFieldValue.isEmpty ? nil : "value: \(e.rawFieldValue.prefix(256))")
        }
    }

    // MARK: - Partitions

    /// A partition's values as the partition columns' types (Hive's NULL partition as NULL).
    func partitionValues(_ raw: [String], _ table: ExternalTable) throws -> [Value] {
        var out: [Value] = []
        for (k, text) in raw.enumerated() where k < table.partitionKeys.count {
            if text == HivePartitionPath.nullValue { out.append(.null); continue }
            let type = table.def.columns[table.dataColumns + k].type
            do {
                out.append(try evaluateConstant(.cast(.constant(.string(text), .varchar(max(1, text.utf8.count))), type)))
            } catch {
                throw SQLError(.invalidText, "Spectrum Scan Error: partition value '\(text)' of external table \"\(table.schema.name).\(table.def.name)\" is not a valid \(type.sqlName) for partition column \"\(table.partitionKeys[k])\"")
            }
        }
        while out.count < table.partitionKeys.count { out.append(.null) }
        return out
    }

    /// Whether some scan may want rows of a partition with these values: its filter's
    /// conjuncts that read partition columns alone, evaluated on the values, are all true.
    func mayMatch(_ values: [Value], _ uses: [Use], _ table: ExternalTable) throws -> Bool {
        let first = table.dataColumns
        for use in uses {
            guard let filter = use.filter else { return true }
            let partitionPositions = Set(use.columns.indices.filter { use.columns[$0] >= first && use.columns[$0] < first + values.count })
            var vectors: [Vector] = []
            for c in use.columns {
                let type = table.def.columns[c].type
                vectors.append(c >= first && c < first + values.count ? Self.filled(values[c - first], type: type, count: 1)
                                                                      : Vector.nulls(type, count: 1))
            }
            let row = Chunk(columns: vectors, count: 1)
            var matches = true
            for conjunct in conjuncts(filter) where !conjunct.referencedColumns.isEmpty
                && conjunct.referencedColumns.isSubset(of: partitionPositions) {
                // A conjunct that cannot be judged (an error) keeps the partition.
                guard let v = try? ExpressionEvaluator.evaluate(conjunct, row) else { continue }
                if v.isNull(0) || v.value(at: 0) != .bool(true) { matches = false; break }
            }
            if matches { return true }
        }
        return false
    }

    // MARK: - Row groups

    /// A Parquet row-group test from the scans' filters: a row group is read when some scan
    /// may want one of its rows — none of that scan's simple predicates on data columns is
    /// ruled out by the group's min/max statistics. Nil when some scan has no such predicate.
    func parquetTest(_ uses: [Use], _ table: ExternalTable, _ dataColumns: [Int]) -> ExternalFileReader.RowGroupTest? {
        var perUse: [[(target: Int, predicate: ZonePredicate)]] = []
        for use in uses {
            let types = use.columns.map { table.def.columns[$0].type }
            let predicates = ZonePredicates.extract(use.filter, columns: use.columns, types: types)
            // A zone predicate names the table column it tests.
            let usable = predicates.compactMap { p -> (Int, ZonePredicate)? in
                dataColumns.firstIndex(of: p.column).map { ($0, p) }
            }
            if usable.isEmpty { return nil }
            perUse.append(usable)
        }
        let targets = dataColumns.map { table.def.columns[$0] }
        let tests = perUse
        return { file, group, map in
            for use in tests {
                var possible = true
                for (k, predicate) in use {
                    guard k < map.count, let ci = map[k],
                          let zone = ParquetZones.zone(file, group: group, column: ci, type: targets[k].type) else { continue }
                    var p = predicate
                    p.column = 0
                    if !zone.mayMatch(p) { possible = false; break }
                }
                if possible { return true }
            }
            return false
        }
    }

    // MARK: - Vectors

    /// `$path`: the object's address, `s3://bucket/key` or `file:///path`.
    static func url(_ object: CopyObject) -> String {
        switch object.place {
        case .s3(let location): return location.description
        case .local(let path): return "file://" + path
        }
    }

    /// `count` copies of `value` as a vector of `type`.
    /// `$path` and `$size` (the table's last two columns), when read, for `count` rows of
    /// one object.
    static func fillPseudoColumns(_ columns: inout [Int: Vector], def: TableDef, wanted: Set<Int>, path: String,
                                  size: Int, count: Int) {
        let pathColumn = def.columns.count - 2, sizeColumn = def.columns.count - 1
        if wanted.contains(pathColumn) {
            columns[pathColumn] = filled(.string(path), type: def.columns[pathColumn].type, count: count)
        }
        if wanted.contains(sizeColumn) {
            columns[sizeColumn] = filled(.int(Int64(size)), type: .bigint, count: count)
        }
    }

    static func filled(_ value: Value, type: DataType, count n: Int) -> Vector {
        if case .null = value { return Vector.nulls(type, count: n) }
        var one = Vector(type: type, capacity: 1)
        one.append(value)
        switch one.data {
        case .int64(let a): return Vector(type: type, data: .int64([Int64](repeating: a[0], count: n)))
        case .int128(let a): return Vector(type: type, data: .int128([Int128](repeating: a[0], count: n)))
        case .double(let a): return Vector(type: type, data: .double([Double](repeating: a[0], count: n)))
        case .bool(let a): return Vector(type: type, data: .bool([Bool](repeating: a[0], count: n)))
        case .string(let s):
            let bytes = Array(s.bytes)
            var all: [UInt8] = []
            all.reserveCapacity(bytes.count * n)
            var offsets: [Int32] = [0]
            offsets.reserveCapacity(n + 1)
            for _ in 0..<n {
                all.append(contentsOf: bytes)
                offsets.append(Int32(truncatingIfNeeded: all.count))
            }
            return Vector(type: type, data: .string(StringArray(bytes: all, offsets: offsets)))
        }
    }
}

/// A value worked out on a thread of its own (a catalog call that overlaps others);
/// `value()` waits for it.
final class Pending<T: Sendable>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var result: Result<T, Error>?

    init(_ work: @escaping @Sendable () throws -> T) {
        DispatchQueue.global().async { [self] in
            result = Result { try work() }
            done.signal()
        }
    }

    func value() throws -> T {
        done.wait()
        done.signal()
        guard let result else { throw SQLError.internalError("a catalog call ended without an answer") }
        return try result.get()
    }
}

/// Decoded rows gathered into a table snapshot: each added piece becomes one block per
/// column on the next slice in turn.
struct SnapshotBuilder {
    private var slices: [SliceData]
    private let columnCount: Int
    private var next = 0

    init(columnCount: Int, slices: Int) {
        self.columnCount = columnCount
        self.slices = Array(repeating: SliceData(columnCount: columnCount), count: max(1, slices))
    }

    /// Add a piece; `zones` are the zone maps of those of its columns that are known already.
    mutating func add(_ columns: [Int: Vector], count: Int, zones: [Int: ZoneMap] = [:]) {
        guard count > 0 else { return }
        let s = next
        next = (next + 1) % slices.count
        let first = slices[s].rowCount
        var data = slices[s]
        for (c, v) in columns where c < columnCount {
            data.columns[c].append(BlockRef(uid: BlockIDs.make(), payload: .vector(v), encoding: .raw, firstRow: first,
                                            zone: zones[c] ?? ZoneMap.compute(v, start: 0, count: count)))
        }
        data.rowCount += count
        data.sortedRows = data.rowCount
        slices[s] = data
    }

    func snapshot() -> TableSnapshot {
        TableSnapshot(slices: slices, distribution: .even, evenCursor: 0)
    }
}
