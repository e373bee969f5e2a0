// SPDX-License-Identifier: Apache-2.0
import SlicehouseCatalog
import SlicehouseExecution
import SlicehouseIceberg
import SlicehouseLoad
import SlicehousePlatform
import SlicehouseStorage
import SlicehouseTypes

/// The S3 scan of an Apache Iceberg table (Redshift reads them through an external schema
/// as it reads Hive-style tables): the current snapshot's manifest list and manifests,
///
/// 1. manifests whose partition summaries rule out every scan's predicates are not read;
/// 2. data files whose partition values or column statistics (lower and upper bounds,
///    null counts) rule them out are not read;
/// 3. the remaining files' columns are found by **field id**, so a renamed column keeps
///    its data and a column added later reads NULL in older files;
/// 4. v2 delete files take their rows out: a position delete by (file, row position), an
///    equality delete by the values of its columns, each applied to the data files Iceberg's
///    sequence numbers say it covers.
extension ExternalScans {
    func readIceberg(_ table: ExternalTable, _ metadata: IcebergMetadata, _ uses: [Use],
                     _ lake: LakeAccess) throws -> (TableSnapshot, Summary) {
        let start = SlicehousePlatform.Clock.nowMicros()
        let def = table.def
        let inputs = lake.inputs(table.external)
        let wanted = Set(uses.flatMap(\.columns))
        var summary = Summary(schema: table.schema.name, table: def.name, location: table.location, format: "ICEBERG")

        // The scans' predicates on data columns, per scan (one scan without any: no pruning).
        let predicates = icebergPredicates(uses, table)
        let plan: IcebergScanPlan
        do {
            plan = try IcebergScanPlan.make(metadata, read: { try LakeAccess.object($0, inputs: inputs) },
                                            keepManifest: { m in
                                                guard let predicates else { return true }
                                                let zones = IcebergZones.manifest(m, metadata)
                                                return IcebergZones.mayMatch(zones, predicates)
                                            },
                                            keepFile: { f in
                                                guard let predicates else { return true }
                                                let zones = IcebergZones.file(f, metadata)
                                                return IcebergZones.mayMatch(zones, predicates)
                                            })
        } catch let e as IcebergError {
            throw e.sqlError
        }
        summary.partitioned = !(metadata.specs.values.allSatisfy { $0.isEmpty })
        summary.partitions = plan.tasks.count + plan.filesSkipped
        summary.qualifiedPartitions = plan.tasks.count

        // Delete files, each read once.
        let positions = try positionDeletes(plan, table, inputs)
        let equalities = try equalityDeletes(plan, metadata, table, inputs)

        // The data columns to read: those asked for and those equality deletes compare.
        var dataColumns = Set(wanted.filter { $0 < table.dataColumns })
        for e in equalities.values { dataColumns.formUnion(e.columns) }
        let readColumns = dataColumns.sorted()
        let targets = readColumns.map { def.columns[$0] }
        let ids = readColumns.map { metadata.fields[$0].id }
        let groups = try plan.tasks.map { task -> [CopyObject] in
            [try ExternalFileReader.object(LakeAccess.normalizedAddress(task.file.path), size: Int(clamping: task.file.size),
                                           inputs: inputs)]
        }
        for g in groups { summary.largestFile = max(summary.largestFile, g.first?.size ?? 0) }
        let keep = parquetTest(uses, table, readColumns)
        var builder = SnapshotBuilder(columnCount: def.columns.count, slices: session.database.layout.sliceCount)
        var returned = 0
        var deleted = 0
        let position = readColumns.enumerated().reduce(into: [Int: Int]()) { $0[$1.element] = $1.offset }
        let read = try readFiles(table, targets: targets, groups: groups, format: .parquet(fieldIDs: ids), keep: keep,
                                 inputs: inputs) { g, firstRow, chunk, zones in
            let task = plan.tasks[g]
            var chunk = chunk
            var zones = zones
            if !task.positionDeletes.isEmpty || !task.equalityDeletes.isEmpty {
                let path = task.file.path
                let sets = task.positionDeletes.compactMap { positions[$0]?[path] }
                let eq = task.equalityDeletes.compactMap { equalities[$0] }
                var kept: [Int32] = []
                kept.reserveCapacity(chunk.count)
                for i in 0..<chunk.count {
                    let row = firstRow &+ Int64(i)
                    if sets.contains(where: { $0.contains(row) }) { continue }
                    if eq.contains(where: { e in e.keys.contains(e.columns.map { c in chunk.columns[position[c] ?? 0].value(at: i) }) }) {
                        continue
                    }
                    kept.append(Int32(i))
                }
                if kept.count < chunk.count {
                    deleted += chunk.count - kept.count
                    chunk = Chunk(columns: chunk.columns.map { $0.gather(kept) }, count: kept.count)
                    zones = nil
                }
            }
            var columns: [Int: Vector] = [:]
            var known: [Int: ZoneMap] = [:]
            for (k, c) in readColumns.enumerated() where wanted.contains(c) {
                columns[c] = chunk.columns[k]
                if let zones, k < zones.count { known[c] = zones[k] }
            }
            if let object = groups[g].first {
                Self.fillPseudoColumns(&columns, def: def, wanted: wanted, path: task.file.path, size: object.size,
                                       count: chunk.count)
            }
            builder.add(columns, count: chunk.count, zones: known)
            returned += columns.values.reduce(0) { $0 + $1.memoryBytes }
        }
        summary.returnedBytes = returned
        summary.files = read.files
        summary.bytes = read.bytes
        summary.rows = read.rows - deleted
        summary.rowGroupsSkipped = read.rowGroupsSkipped
        summary.startMicros = start
        summary.endMicros = SlicehousePlatform.Clock.nowMicros()
        return (builder.snapshot(), summary)
    }

    /// Each scan's simple predicates on data columns (table column positions); nil when some
    /// scan has none, so nothing can be skipped.
    private func icebergPredicates(_ uses: [Use], _ table: ExternalTable) -> [[ZonePredicate]]? {
        var out: [[ZonePredicate]] = []
        for use in uses {
            let types = use.columns.map { table.def.columns[$0].type }
            let list = ZonePredicates.extract(use.filter, columns: use.columns, types: types).filter { $0.column < table.dataColumns }
            if list.isEmpty { return nil }
            out.append(list)
        }
        return out
    }

    /// The position delete files' rows: per delete file, the deleted positions of each data file.
    private func positionDeletes(_ plan: IcebergScanPlan, _ table: ExternalTable,
                                 _ inputs: CopyInputs) throws -> [Int: [String: Set<Int64>]] {
        let used = Set(plan.tasks.flatMap(\.positionDeletes)).sorted()
        guard !used.isEmpty else { return [:] }
        // Iceberg's reserved field ids of `file_path` and `pos`.
        let targets = [ColumnDef(name: "file_path", type: .varchar(DataType.maxVarcharLength)), ColumnDef(name: "pos", type: .bigint)]
        let groups = try used.map { k in
            [try ExternalFileReader.object(LakeAccess.normalizedAddress(plan.deletes[k].path),
                                           size: Int(clamping: plan.deletes[k].size), inputs: inputs)]
        }
        var out: [Int: [String: Set<Int64>]] = [:]
        _ = try readFiles(table, targets: targets, groups: groups, format: .parquet(fieldIDs: [2_147_483_546, 2_147_483_545]),
                          keep: nil, inputs: inputs) { g, _, chunk, _ in
            let k = used[g]
            for i in 0..<chunk.count {
                guard case .string(let path) = chunk.columns[0].value(at: i), case .int(let pos) = chunk.columns[1].value(at: i) else {
                    throw SQLError(.loadError, "Spectrum Scan Error: Iceberg position delete file '\(plan.deletes[k].path)' has a row without file_path or pos")
                }
                out[k, default: [:]][path, default: []].insert(pos)
            }
        }
        return out
    }

    /// An equality delete file's rows: the table columns it compares and their values.
    struct EqualityDelete {
        var columns: [Int]
        var keys: Set<[Value]>
    }

    private func equalityDeletes(_ plan: IcebergScanPlan, _ metadata: IcebergMetadata, _ table: ExternalTable,
                                 _ inputs: CopyInputs) throws -> [Int: EqualityDelete] {
        var out: [Int: EqualityDelete] = [:]
        for k in Set(plan.tasks.flatMap(\.equalityDeletes)).sorted() {
            let file = plan.deletes[k]
            let columns = try file.equalityIDs.map { id -> Int in
                guard let c = metadata.fields.firstIndex(where: { $0.id == id }) else {
                    throw SQLError(.loadError, "Spectrum Scan Error: Iceberg equality delete file '\(file.path)' compares field \(id), which the table's schema does not have")
                }
                return c
            }
            guard !columns.isEmpty else {
                throw SQLError(.loadError, "Spectrum Scan Error: Iceberg equality delete file '\(file.path)' names no equality_ids")
            }
            let object = try ExternalFileReader.object(LakeAccess.normalizedAddress(file.path), size: Int(clamping: file.size),
                                                       inputs: inputs)
            var keys = Set<[Value]>()
            _ = try readFiles(table, targets: columns.map { table.def.columns[$0] }, groups: [[object]],
                              format: .parquet(fieldIDs: file.equalityIDs), keep: nil, inputs: inputs) { _, _, chunk, _ in
                for i in 0..<chunk.count { keys.insert(chunk.columns.map { $0.value(at: i) }) }
            }
            out[k] = EqualityDelete(columns: columns, keys: keys)
        }
        return out
    }
}

/// Zone maps of the table's columns from an Iceberg manifest's partition summaries or a data
/// file's partition values and column statistics, judged by `ZoneMap.mayMatch` as a local
/// block's are.
enum IcebergZones {
    /// Per table column (position in the current schema).
    typealias Zones = [Int: [ZoneMap]]

    /// Whether some scan may want a row: for one scan, none of its predicates is ruled out.
    static func mayMatch(_ zones: Zones, _ predicates: [[ZonePredicate]]) -> Bool {
        predicates.contains { list in
            list.allSatisfy { p in
                var q = p
                q.column = 0
                return (zones[p.column] ?? []).allSatisfy { $0.mayMatch(q) }
            }
        }
    }

    static func file(_ f: IcebergDataFile, _ metadata: IcebergMetadata) -> Zones {
        var zones: Zones = [:]
        let rows = Int(clamping: f.recordCount)
        guard rows > 0 else { return zones }
        for (c, field) in metadata.fields.enumerated() {
            let nulls = f.nullCounts[field.id].map { Int(clamping: $0) }
            if nulls == rows {
                zones[c, default: []].append(ZoneMap(count: rows, nullCount: rows, min: nil, max: nil))
                continue
            }
            if let lo = f.lowerBounds[field.id], let hi = f.upperBounds[field.id],
               let a = IcebergValues.decode(lo, field.type), let b = IcebergValues.decode(hi, field.type),
               let zone = zone(a, b, field.type, rows: rows, nulls: nulls ?? 0) {
                zones[c, default: []].append(zone)
            }
        }
        // Partition values: identity and temporal transforms bound their source column.
        for pf in metadata.specs[f.specID] ?? [] {
            guard let c = metadata.fields.firstIndex(where: { $0.id == pf.sourceID }) else { continue }
            let field = metadata.fields[c]
            guard let value = IcebergValues.partitionValue(f.partition[pf.name], sourceType: field.type, transform: pf.transform)
            else { continue }
            if case .null = value {
                if pf.transform != .void {
                    zones[c, default: []].append(ZoneMap(count: rows, nullCount: rows, min: nil, max: nil))
                }
                continue
            }
            if let (a, b) = range(value, value, pf.transform, field.type), let zone = zone(a, b, field.type, rows: rows, nulls: 0) {
                zones[c, default: []].append(zone)
            }
        }
        return zones
    }

    static func manifest(_ m: IcebergManifestFile, _ metadata: IcebergMetadata) -> Zones {
        var zones: Zones = [:]
        for (k, pf) in (metadata.specs[m.specID] ?? []).enumerated() where k < m.partitions.count {
            guard let c = metadata.fields.firstIndex(where: { $0.id == pf.sourceID }) else { continue }
            let field = metadata.fields[c]
            let s = m.partitions[k]
            let type = IcebergValues.resultType(field.type, pf.transform)
            guard let lo = s.lower, let hi = s.upper else {
                // No bounds: every value NULL (or an empty manifest).
                if s.containsNull && pf.transform != .void {
                    zones[c, default: []].append(ZoneMap(count: 1, nullCount: 1, min: nil, max: nil))
                }
                continue
            }
            guard let a = IcebergValues.decode(lo, type), let b = IcebergValues.decode(hi, type),
                  let (x, y) = range(a, b, pf.transform, field.type),
                  let zone = zone(x, y, field.type, rows: 2, nulls: s.containsNull ? 1 : 0) else { continue }
            zones[c, default: []].append(zone)
        }
        return zones
    }

    /// The source column's values a partition value range stands for.
    static func range(_ lo: Value, _ hi: Value, _ transform: IcebergTransform, _ source: IcebergType) -> (Value, Value)? {
        if transform == .identity { return (lo, hi) }
        guard case .int(let a) = lo, case .int(let b) = hi else { return nil }
        let microsPerDay: Int64 = 86_400_000_000
        func days(_ t: IcebergTransform, _ n: Int64, end: Bool) -> Int64? {
            switch t {
            case .day: return end ? n : n
            case .month:
                let m = end ? n + 1 : n
                let y = Int64(1970) + (m >= 0 ? m / 12 : (m - 11) / 12)
                let first = civilDays(y, Int(m - (y - 1970) * 12) + 1, 1)
                return end ? first - 1 : first
            case .year:
                let first = civilDays(1970 + (end ? n + 1 : n), 1, 1)
                return end ? first - 1 : first
            default: return nil
            }
        }
        switch (transform, source) {
        case (.day, .date), (.month, .date), (.year, .date):
            guard let x = days(transform, a, end: false), let y = days(transform, b, end: true) else { return nil }
            return (.int(x), .int(y))
        case (.day, .timestamp), (.day, .timestamptz), (.month, .timestamp), (.month, .timestamptz),
             (.year, .timestamp), (.year, .timestamptz):
            guard let x = days(transform, a, end: false), let y = days(transform, b, end: true) else { return nil }
            let (lo, o1) = x.multipliedReportingOverflow(by: microsPerDay)
            let (hi, o2) = (y + 1).multipliedReportingOverflow(by: microsPerDay)
            return o1 || o2 ? nil : (.int(lo), .int(hi - 1))
        case (.hour, .timestamp), (.hour, .timestamptz):
            let (lo, o1) = a.multipliedReportingOverflow(by: 3_600_000_000)
            let (hi, o2) = (b + 1).multipliedReportingOverflow(by: 3_600_000_000)
            return o1 || o2 ? nil : (.int(lo), .int(hi - 1))
        default:
            return nil
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date.
    static func civilDays(_ year: Int64, _ month: Int, _ day: Int) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let m = Int64(month)
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// A zone map over values `a`…`b` of a column of Iceberg type `type`.
    static func zone(_ a: Value, _ b: Value, _ type: IcebergType, rows: Int, nulls: Int) -> ZoneMap? {
        func bound(_ v: Value) -> ZoneBound? {
            switch (v, type) {
            case (.int(let x), .decimal(let p, _)) where p > 18: return .int128(Int128(x))
            case (.int(let x), _): return .int(x)
            case (.int128(let x), _): return .int128(x)
            case (.double(let d), _): return d.isNaN ? nil : .double(d)
            case (.string(let s), .string): return .bytes(Array(s.utf8.prefix(ZoneBound.stringPrefix)))
            default: return nil
            }
        }
        switch type {
        case .int, .long, .date, .timestamp, .timestamptz, .decimal, .float, .double, .string: break
        default: return nil
        }
        guard let lo = bound(a), let hi = bound(b) else { return nil }
        return ZoneMap(count: rows, nullCount: min(nulls, rows - 1), min: lo, max: hi, blankEnded: type == .string)
    }
}
