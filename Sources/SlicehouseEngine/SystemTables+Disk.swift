// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehouseCatalog
import SlicehouseStorage
import SlicehouseLoad

/// The views of where tables' blocks are: STV_BLOCKLIST (one row per block), SVV_DISKUSAGE
/// (the same blocks with their table's name and database) and STV_PARTITIONS (each node's
/// disk: one partition a node, its capacity that of the file system holding the data
/// directory, or of memory for a database without one, shared by the nodes); and
/// STV_BLOCK_CACHE and STV_PLAN_CACHE, Slicehouse's own: what the process's caches hold.
extension SystemTables {
    static let diskNames = ["svv_diskusage", "stv_partitions", "stv_block_cache", "stv_plan_cache"]

    /// STV_BLOCKLIST's columns: Redshift's, then what Slicehouse knows of each block
    /// (its NULLs, rows marked deleted, encoding, encoded size and first row).
    static let blockListColumns: [(String, DataType)] = [
        ("slice", .integer), ("col", .integer), ("tbl", .integer), ("blocknum", .integer), ("num_values", .integer),
        ("extended_limits", .integer), ("minvalue", .bigint), ("maxvalue", .bigint), ("sb_pos", .integer), ("pinned", .integer),
        ("on_disk", .integer), ("modified", .integer), ("hdr_modified", .integer), ("unsorted", .integer),
        ("tombstone", .integer), ("preferred_diskno", .integer), ("temporary", .integer), ("newblock", .integer),
        ("num_readers", .integer), ("flags", .integer),
        ("num_nulls", .integer), ("num_deleted", .integer), ("encoding", .varchar(32)), ("size_bytes", .integer),
        ("first_row", .bigint),
    ]

    /// One block of a table, as STV_BLOCKLIST shows it.
    struct BlockListRow {
        var table: TableDef
        var values: [Value]
    }

    /// Every block of every table (columns in `blockListColumns`' order).
    func blockListRows() -> [BlockListRow] {
        var rows: [BlockListRow] = []
        for t in transaction.catalog.allTables {
            guard let snap = transaction.peek(t.id) else { continue }
            for (s, d) in snap.slices.enumerated() {
                for (c, chain) in d.columns.enumerated() {
                    for (k, b) in chain.enumerated() {
                        let deleted = d.deleted.count(in: b.firstRow..<b.endRow)
                        var onDisk: Int64 = 0
                        if case .file = b.payload { onDisk = 1 }
                        rows.append(BlockListRow(table: t, values: [
                            .int(Int64(s)), .int(Int64(c)), .int(Int64(t.id)), .int(Int64(k)), .int(Int64(b.zone.count)), .int(0),
                            b.zone.min.map { .int($0.blockListValue) } ?? .null, b.zone.max.map { .int($0.blockListValue) } ?? .null,
                            .int(Int64(k)), .int(0), .int(onDisk), .int(0), .int(0),
                            .int(b.firstRow + b.zone.count > d.sortedRows ? 1 : 0), .int(0), .int(0), .int(t.isTemporary ? 1 : 0),
                            .int(0), .int(0), .int(0),
                            .int(Int64(b.zone.nullCount)), .int(Int64(deleted)), .string(b.encoding.displayName),
                            .int(Int64(b.encodedSize)), .int(Int64(b.firstRow)),
                        ]))
                    }
                }
            }
        }
        return rows
    }

    /// STV_TBL_PERM.dist_style (and PG_CLASS_INFO's effective style): 0 EVEN, 1 KEY, 8 ALL,
    /// and for DISTSTYLE AUTO 10 AUTO(ALL), 11 AUTO(EVEN), 12 AUTO(KEY).
    static func distStyleCode(_ t: TableDef, _ snap: TableSnapshot) -> Int64 {
        let auto: Int64 = t.distStyle == .auto ? 10 : 0
        switch snap.distribution {
        case .all: return auto > 0 ? 10 : 8
        case .even: return auto > 0 ? 11 : 0
        case .key: return auto > 0 ? 12 : 1
        }
    }

    /// One node's disk in 1 MB blocks: the data directory's file system (memory without
    /// one), divided among the nodes.
    var diskCapacityBlocks: Int {
        var bytes = Int64(ProcessInfo.processInfo.physicalMemory)
        if let dir = database.directory,
           let size = (try? FileManager.default.attributesOfFileSystem(forPath: dir))?[.systemSize] as? NSNumber {
            bytes = size.int64Value
        }
        return max(1, Int(bytes >> 20) / max(1, database.layout.nodes))
    }

    func diskTable(named name: String) -> (TableDef, TableSnapshot)? {
        switch name {
        case "svv_diskusage":
            // STV_BLOCKLIST's blocks with their table's name and database (Redshift's columns).
            let picked = [0, 1, 2, 3, 4, 6, 7] + Array(8...17)
            let rows = blockListRows().map { r -> [Value] in
                [.int(databaseOID), .string(r.table.name)] + picked.map { r.values[$0] }
            }
            return make(-120, name, [("db_id", .integer), ("name", .char(72))] + picked.map { Self.blockListColumns[$0] }, rows)
        case "stv_partitions":
            // One partition a node: its capacity, and the blocks its slices hold.
            let capacity = diskCapacityBlocks
            var used = [Int](repeating: 0, count: database.layout.nodes)
            for t in transaction.catalog.allTables {
                guard let snap = transaction.peek(t.id) else { continue }
                for (s, d) in snap.slices.enumerated() { used[database.layout.node(ofSlice: s)] += d.blockCount }
            }
            let mount = database.directory ?? "memory"
            let rows = used.enumerated().map { node, blocks -> [Value] in
                [.int(Int64(node)), .int(Int64(node)), .int(0), .int(0), .int(Int64(capacity) << 20), .int(Int64(blocks)), .int(0),
                 .int(Int64(capacity)), .int(0), .int(0), .int(0), .int(0), .int(0), .int(0), .int(0), .string(mount)]
            }
            return make(-121, name, [("owner", .integer), ("host", .integer), ("diskno", .integer), ("part_begin", .bigint),
                                     ("part_end", .bigint), ("used", .integer), ("tossed", .integer), ("capacity", .integer),
                                     ("reads", .bigint), ("writes", .bigint), ("seek_forward", .integer),
                                     ("seek_back", .integer), ("is_san", .integer), ("failed", .integer), ("mbps", .integer),
                                     ("mount", .char(256))], rows)
        case "stv_block_cache":
            // Slicehouse's own: the decoded-block cache (blocks of table versions a snapshot
            // can still read) beside the encoded bytes of every table's current blocks, and
            // the external file cache (Parquet footers and row groups read from S3).
            var dataBytes = 0
            let committed = database.store.current
            for t in committed.catalog.tablesOfEveryDatabase {
                guard let snap = committed.snapshots[t.id] else { continue }
                for d in snap.slices { for chain in d.columns { for b in chain { dataBytes += b.encodedSize } } }
            }
            let cache = database.cache, external = ExternalFileCache.shared
            let rows: [[Value]] = [
                [.string("blocks"), .int(Int64(cache.capacityBytes)), .int(Int64(cache.usedBytes)), .int(Int64(cache.blockCount)),
                 .int(Int64(cache.retiredBlocks)), .int(Int64(dataBytes))],
                [.string("external files"), .int(Int64(external.capacity)), .int(Int64(external.bytes)), .null, .null, .null],
            ]
            return make(-122, name, [("cache", .varchar(32)), ("capacity_bytes", .bigint), ("used_bytes", .bigint),
                                     ("blocks", .bigint), ("retired_blocks", .bigint), ("data_bytes", .bigint)], rows)
        case "stv_plan_cache":
            // Slicehouse's own: the SELECT plans kept for the next run of the same query
            // (`PlanCache`): found, not found, dropped as stale (a catalog change, ANALYZE,
            // the rows grown past what they were planned for), and kept now.
            let c = database.planCache.counters
            let rows: [[Value]] = [[.int(Int64(c.entries)), .int(Int64(database.planCache.capacity)), .int(Int64(c.hits)),
                                    .int(Int64(c.misses)), .int(Int64(c.stale))]]
            return make(-231, name, [("entries", .bigint), ("capacity", .bigint), ("hits", .bigint), ("misses", .bigint),
                                     ("stale", .bigint)], rows)
        default:
            return nil
        }
    }
}
