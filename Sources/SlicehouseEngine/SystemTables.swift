// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehouseCatalog
import SlicehouseStorage

/// Redshift's system tables and views, materialized when a statement reads them.
/// They live on the leader: every node's first slice holds the rows, like an ALL table.
struct SystemTables {
    let database: Database
    /// The reading statement's transaction: its catalog and snapshots.
    let transaction: Transaction
    /// The reading session (its search_path, settings, temporary schema, views' columns).
    var session: Session? = nil

    static let names = ["stv_slices", "pg_table_def", "svv_table_info", "stv_tbl_perm", "stv_blocklist",
                         "stv_locks", "stv_sessions", "svv_transactions", "svv_vacuum_summary",
                         "svv_vacuum_progress", "pg_type", "pg_namespace"] + clientCatalogNames + pgCatalogNames + securityNames
        + queryStepNames + workloadNames + logNames + diskNames + databaseNames + lakeNames

    /// pg_type's rows: (oid, name, length) of the types clients look up.
    static let pgTypes: [(Int64, String, Int64)] = [
        (16, "bool", 1), (18, "char", 1), (19, "name", 64), (20, "int8", 8), (21, "int2", 2),
        (23, "int4", 4), (25, "text", -1), (26, "oid", 4), (700, "float4", 4), (701, "float8", 8),
        (705, "unknown", -2), (1042, "bpchar", -1), (1043, "varchar", -1), (1082, "date", 4),
        (1083, "time", 8), (1114, "timestamp", 8), (1184, "timestamptz", 8), (1700, "numeric", -1),
        (1005, "_int2", -1), (1007, "_int4", -1), (1016, "_int8", -1),
    ]

    /// pg_type.typelem of the array types above (their elements' oids).
    static let arrayElementOIDs: [Int64: Int64] = [1005: 21, 1007: 23, 1016: 20]

    func table(named raw: String) -> (TableDef, TableSnapshot)? {
        let name = raw.lowercased()
        switch name {
        case "pg_type":
            // PostgreSQL 8.0's columns, the oid first.
            let rows = Self.pgTypes.map { t -> [Value] in
                let align = t.2 == 8 ? "d" : t.2 == 2 ? "s" : t.2 == 1 ? "c" : "i"
                return [.int(t.0), .string(t.1), .int(11), .int(1), .int(t.2), .bool(t.2 > 0 && t.2 <= 8), .string("b"), .bool(true),
                        .string(","), .int(0), .int(Self.arrayElementOIDs[t.0] ?? 0),
                        .string(Self.arrayElementOIDs[t.0] == nil ? t.1 + "in" : "array_in"),
                        .string(Self.arrayElementOIDs[t.0] == nil ? t.1 + "out" : "array_out"),
                        .string(Self.arrayElementOIDs[t.0] == nil ? t.1 + "recv" : "array_recv"),
                        .string(Self.arrayElementOIDs[t.0] == nil ? t.1 + "send" : "array_send"), .string("-"), .string(align), .string(t.2 < 0 ? "x" : "p"), .bool(false), .int(0),
                        .int(-1), .int(0), .null, .null, .int(["text", "bpchar", "varchar", "name"].contains(t.1) ? 100 : 0)]
            }
            return make(-20, name, [("oid", .integer), ("typname", .varchar(64)), ("typnamespace", .integer),
                                    ("typowner", .integer), ("typlen", .smallint), ("typbyval", .boolean),
                                    ("typtype", .char(1)), ("typisdefined", .boolean), ("typdelim", .char(1)),
                                    ("typrelid", .integer), ("typelem", .integer), ("typinput", .varchar(64)),
                                    ("typoutput", .varchar(64)), ("typreceive", .varchar(64)), ("typsend", .varchar(64)),
                                    ("typanalyze", .varchar(64)), ("typalign", .char(1)), ("typstorage", .char(1)),
                                    ("typnotnull", .boolean), ("typbasetype", .integer), ("typtypmod", .integer),
                                    ("typndims", .integer), ("typdefaultbin", .text), ("typdefault", .text),
                                    // PostgreSQL 9.1's, which psql's `\\d` reads.
                                    ("typcollation", .integer)], rows)
        case "stv_slices":
            let rows = (0..<database.layout.sliceCount).map { s -> [Value] in
                // type: 'D', a data slice (Redshift's character(1); admin scripts count them).
                [.int(Int64(database.layout.node(ofSlice: s))), .int(Int64(s)), .int(Int64(s % database.layout.slicesPerNode)), .string("D")]
            }
            return make(-1, name, [("node", .integer), ("slice", .integer), ("localslice", .integer), ("type", .char(1))], rows)
        case "pg_table_def":
            var rows: [[Value]] = []
            // Redshift shows the tables of the schemas on search_path only.
            let path = Set(session.map { $0.searchPathSchemas(transaction.catalog) + [$0.temporarySchema] } ?? [Catalog.publicSchema])
            for t in transaction.catalog.allTables where path.contains(t.schema) {
                let encs = transaction.peek(t.id)?.encodings
                for (i, c) in t.columns.enumerated() {
                    let sortPos = t.sortKey.firstIndex(of: i).map { t.sortKeyKind == .interleaved ? -($0 + 1) : $0 + 1 } ?? 0
                    rows.append([.string(t.schema), .string(t.name), .string(c.name), .string(c.type.sqlName),
                                 .string(encs.map { $0[i].displayName } ?? c.encoding.flatMap { ColumnEncoding(sqlName: $0)?.displayName }
                                 ?? (t.sortKey.first == i ? "none" : defaultEncoding(c.type))),
                                 .bool(t.distKey == i), .int(Int64(sortPos)), .bool(c.notNull)])
                }
            }
            return make(-2, name, [("schemaname", .varchar(128)), ("tablename", .varchar(128)), ("column", .varchar(128)),
                                   ("type", .varchar(128)), ("encoding", .varchar(32)), ("distkey", .boolean),
                                   ("sortkey", .integer), ("notnull", .boolean)], rows)
        case "svv_table_info":
            var rows: [[Value]] = []
            let capacity = diskCapacityBlocks * database.layout.nodes
            for t in transaction.catalog.allTables {
                guard let snap = transaction.peek(t.id) else { continue }
                let dist: String
                switch snap.distribution {
                case .all: dist = t.distStyle == .auto ? "AUTO(ALL)" : "ALL"
                case .even: dist = t.distStyle == .auto ? "AUTO(EVEN)" : "EVEN"
                case .key(let c): dist = "KEY(\(t.columns[c].name))"
                }
                let perSlice = (0..<database.layout.sliceCount).map { snap.rowCount(slice: $0) }
                let populated = snap.distribution == .all
                    ? (0..<database.layout.nodes).map { perSlice[database.layout.firstSlice(ofNode: $0)] } : perSlice
                let maxR = populated.max() ?? 0, minR = populated.min() ?? 0
                let skew: Value = minR > 0 ? .double(Double(maxR) / Double(minR)) : .null
                let encs = snap.encodings ?? []
                let encoded = encs.contains { $0 != .raw } || t.columns.contains { $0.encoding.map { $0.lowercased() != "raw" } ?? false }
                let blocks = snap.slices.reduce(0) { $0 + $1.blockCount }
                // "The SVV_TABLE_INFO view doesn't return any information for empty tables":
                // a table without a block (never loaded, or vacuumed empty) is not listed.
                if blocks == 0 { continue }
                let bytes = snap.encodedBytes
                let physical = snap.distribution == .all ? (snap.slices.first?.rowCount ?? 0) : snap.slices.reduce(0) { $0 + $1.rowCount }
                let sortedRows = snap.distribution == .all ? (snap.slices.first?.sortedRows ?? 0) : snap.slices.reduce(0) { $0 + $1.sortedRows }
                let unsorted: Value = t.sortKey.isEmpty ? .null
                    : .double(physical == 0 ? 0 : (Double(physical - sortedRows) * 100 / Double(physical) * 100).rounded() / 100)
                let maxVarchar = t.columns.compactMap { c -> Int? in if case .varchar(let n) = c.type { return n }; return nil }.max() ?? 0
                let sk1enc: Value = t.sortKey.first.map { .string(encs.count > $0 ? encs[$0].displayName : "none") } ?? .null
                let statsOff = Value.double((snap.statsOff * 100).rounded() / 100)
                // pct_used: the table's blocks against the cluster's capacity (STV_PARTITIONS);
                // skew_sortkey1: the largest other column's blocks against the first sort key's.
                let pctUsed = Value.double((Double(blocks) * 100 / Double(max(1, capacity)) * 10_000).rounded() / 10_000)
                var skewSortKey: Value = .null
                if let key = t.sortKey.first {
                    let perColumn = t.columns.indices.map { c in snap.slices.reduce(0) { $0 + $1.columns[c].count } }
                    let others = perColumn.enumerated().filter { $0.offset != key }.map(\.element).max() ?? 0
                    if perColumn[key] > 0 { skewSortKey = .double((Double(others) / Double(perColumn[key]) * 100).rounded() / 100) }
                }
                rows.append([.string(databaseName), .string(t.schema), .int(Int64(t.id)), .string(t.name), .string(encoded ? "Y" : "N"),
                             .string(dist), t.sortKey.first.map { .string(t.columns[$0].name) } ?? .null,
                             .int(Int64(maxVarchar)), sk1enc, .int(Int64(t.sortKey.count)), .int(Int64(blocks)), pctUsed, .int(0),
                             unsorted, statsOff, .int(Int64(physical)), skewSortKey, skew, .int(Int64(snap.rowCount)), .null,
                             sortBenefit(t, snap), .null, .int(Int64(bytes))])
            }
            // Redshift's columns, then size_bytes (the table's encoded bytes; size counts
            // 1 MB blocks). risk_event and create_time are not kept: NULL.
            return make(-4, name, [("database", .varchar(128)), ("schema", .varchar(128)), ("table_id", .integer), ("table", .varchar(128)),
                                   ("encoded", .varchar(32)), ("diststyle", .varchar(128)), ("sortkey1", .varchar(128)),
                                   ("max_varchar", .integer), ("sortkey1_enc", .varchar(32)), ("sortkey_num", .integer),
                                   ("size", .bigint), ("pct_used", .double), ("empty", .bigint), ("unsorted", .double),
                                   ("stats_off", .double), ("tbl_rows", .bigint), ("skew_sortkey1", .double), ("skew_rows", .double),
                                   ("estimated_visible_rows", .bigint), ("risk_event", .text), ("vacuum_sort_benefit", .double),
                                   ("create_time", .timestamp), ("size_bytes", .bigint)], rows)
        case "stv_tbl_perm":
            // Redshift's columns, then deleted_rows (rows marked deleted, not yet vacuumed).
            var rows: [[Value]] = []
            for t in transaction.catalog.allTables {
                guard let snap = transaction.peek(t.id) else { continue }
                let style = Value.int(Self.distStyleCode(t, snap))
                for s in 0..<database.layout.sliceCount {
                    let d = snap.slices[s]
                    rows.append([.int(Int64(s)), .int(Int64(t.id)), .string(t.name), .int(Int64(d.rowCount)),
                                 .int(Int64(d.sortedRows)), .int(t.isTemporary ? 1 : 0), .int(databaseOID), .int(0), .int(0),
                                 .int(t.isTemporary ? 0 : 1), style, .int(Int64(d.blockCount)), .int(Int64(d.deleted.count))])
                }
            }
            return make(-5, name, [("slice", .integer), ("id", .integer), ("name", .char(72)), ("rows", .bigint),
                                   ("sorted_rows", .bigint), ("temp", .integer), ("db_id", .integer),
                                   ("insert_pristine", .integer), ("delete_pristine", .integer), ("backup", .integer),
                                   ("dist_style", .integer), ("block_count", .integer), ("deleted_rows", .bigint)], rows)
        case "stv_blocklist":
            return make(-6, name, Self.blockListColumns, blockListRows().map(\.values))
        case "stv_locks":
            // One row per table lock: held (granted) and waited for. Commit times are not
            // kept, so last_commit and last_update are NULL.
            let rows = database.store.locks.entries.map { e -> [Value] in
                [.int(Int64(e.table)), .null, .null, .int(Int64(e.holder.transaction)), .int(Int64(e.holder.process)),
                 .int(e.holder.startTime), .null, .string(e.granted ? "Holding write lock" : "Waiting for write lock")]
            }
            return make(-8, name, [("table_id", .bigint), ("last_commit", .timestamp), ("last_update", .timestamp),
                                   ("lock_owner", .bigint), ("lock_owner_pid", .bigint), ("lock_owner_start_ts", .timestamp),
                                   ("lock_owner_end_ts", .timestamp), ("lock_status", .varchar(22))], rows)
        case "stv_sessions":
            let rows = database.openSessions.map { s -> [Value] in
                [.int(s.startTime), .int(Int64(s.process)), .string(s.user), .string(s.databaseName), .int(0)]
            }
            return make(-9, name, [("starttime", .timestamp), ("process", .integer), ("user_name", .char(50)),
                                   ("db_name", .char(50)), ("timeout_sec", .integer)], rows)
        case "svv_transactions":
            // Open transactions with the locks they hold or wait for (one row per lock;
            // a transaction holding none shows one row without a relation).
            let locks = database.store.locks.entries
            var rows: [[Value]] = []
            for s in database.openSessions {
                guard let t = s.openTransaction else { continue }
                let mine = locks.filter { $0.holder.transaction == t.id }
                let base: [Value] = [.string(s.user), .string("dev"), .int(Int64(t.id)), .int(Int64(s.process)), .int(t.startTime)]
                if mine.isEmpty {
                    rows.append(base + [.string("AccessShareLock"), .null, .null, .bool(true)])
                }
                for l in mine {
                    rows.append(base + [.string("AccessExclusiveLock"), .string("relation"), .int(Int64(l.table)), .bool(l.granted)])
                }
            }
            return make(-10, name, [("txn_owner", .varchar(128)), ("txn_db", .varchar(128)), ("xid", .bigint), ("pid", .integer),
                                    ("txn_start", .timestamp), ("lock_mode", .varchar(24)), ("lockable_object_type", .varchar(32)),
                                    ("relation", .integer), ("granted", .boolean)], rows)
        case "svv_vacuum_summary":
            return make(-12, name, LogTable.vacuumSummary.columns, database.logRows(.vacuumSummary))
        case "svv_vacuum_progress":
            // The running VACUUM's table, or the last one's ("Complete").
            var rows: [[Value]] = []
            if let p = database.vacuumLog.progress {
                var remaining: Value = .null
                if p.running && p.fraction > 0.01 {
                    let left = Int(Date().timeIntervalSince(p.started) * (1 - p.fraction) / p.fraction)
                    remaining = .string(left >= 60 ? "\(left / 60)m \(left % 60)s" : "\(left)s")
                }
                rows.append([.string(p.table), .string(p.status), remaining])
            }
            return make(-13, name, [("table_name", .text), ("status", .text), ("time_remaining_estimate", .text)], rows)
        default:
            if let t = clientCatalogTable(name) ?? pgCatalogTable(name) ?? securityTable(named: name) ?? queryStepTable(named: name) {
                return t
            }
            return workloadTable(named: name) ?? logTable(named: name) ?? diskTable(named: name) ?? databaseTable(named: name)
                ?? lakeTable(named: name)
        }
    }

    /// SVV_TABLE_INFO's `vacuum_sort_benefit`: the most a range scan on the first sort-key
    /// column could gain if the table were sorted, estimated as the share of that column's
    /// blocks whose value range overlaps another block's in the same slice (such blocks
    /// cannot be skipped together; after VACUUM none overlap). NULL without a sort key.
    func sortBenefit(_ t: TableDef, _ snap: TableSnapshot) -> Value {
        guard let key = t.sortKey.first else { return .null }
        func less(_ a: ZoneBound, _ b: ZoneBound) -> Bool {
            switch (a, b) {
            case (.int(let x), .int(let y)): return x < y
            case (.int128(let x), .int128(let y)): return x < y
            case (.double(let x), .double(let y)): return x < y
            case (.bytes(let x), .bytes(let y)): return x.lexicographicallyPrecedes(y)
            default: return false
            }
        }
        var overlapping = 0, total = 0
        for d in snap.slices {
            let zones = d.columns[key].compactMap { b -> (lo: ZoneBound, hi: ZoneBound)? in
                guard let lo = b.zone.min, let hi = b.zone.max else { return nil }
                return (lo, hi)
            }.sorted { less($0.lo, $1.lo) }
            total += d.columns[key].count
            // Sweep by lower bound: a block overlaps when it starts below the highest upper
            // bound so far, and so does the block that reached that bound.
            var marked = [Bool](filled: false, count: zones.count)
            var reach: Int? = nil
            for i in zones.indices {
                if let r = reach, less(zones[i].lo, zones[r].hi) { marked[i] = true; marked[r] = true }
                if reach.map({ less(zones[$0].hi, zones[i].hi) }) ?? true { reach = i }
            }
            overlapping += marked.filter { $0 }.count
        }
        return .double(total == 0 ? 0 : (Double(overlapping) * 10_000 / Double(total)).rounded() / 100)
    }

    func defaultEncoding(_ t: DataType) -> String {
        switch t {
        case .boolean, .real, .double: return "none"
        case .char, .varchar: return "lzo"
        default: return "az64"
        }
    }

    /// Redshift's rule for its system tables and views (STL, STV, SVL, SYS): a superuser,
    /// or a user with SYSLOG ACCESS UNRESTRICTED, sees every row; anyone else only the
    /// rows of their own user id (`userid`, or `user_id` in the SYS views).
    /// A relation with a `query` column and no user id (STV_WLM_QUERY_STATE) shows the rows of the
    /// user's own queries (as STL_QUERY logs them).
    func ownRows(_ name: String, _ cols: [(String, DataType)], _ rows: [[Value]]) -> [[Value]] {
        guard let session, ["stl_", "stv_", "svl_", "sys_", "svcs_"].contains(where: { name.hasPrefix($0) }) else { return rows }
        let security = transaction.catalog.security
        if let u = security.user(session.user), u.superuser || u.syslogUnrestricted { return rows }
        // Logins and their addresses are for superusers alone (as in Redshift).
        if name == LogTable.connectionLog.name { return [] }
        // So are commits and transaction conflicts (STL_COMMIT_STATS, STL_TR_CONFLICT).
        if name == LogTable.commitStats.name || name == LogTable.trConflict.name { return [] }
        let me = Value.int(Int64(security.user(session.user)?.id ?? -1))
        if let column = cols.firstIndex(where: { $0.0 == "userid" || $0.0 == "user_id" }) {
            return rows.filter { $0[column] == me }
        }
        guard let column = cols.firstIndex(where: { $0.0 == "query" }) else { return rows }
        var mine = Set<Int64>()
        for q in database.logRows(.query) where q[0] == me {
            if let id = q[1].asInt64 { mine.insert(id) }
        }
        // Queries still running (logged when they end): those of the user's sessions.
        for s in database.openSessions where s.user == session.user {
            if let id = s.runningStatement?.query { mine.insert(Int64(id)) }
        }
        return rows.filter { $0[column].asInt64.map { mine.contains($0) } ?? false }
    }

    func make(_ id: Int, _ name: String, _ cols: [(String, DataType)], _ rows: [[Value]]) -> (TableDef, TableSnapshot) {
        let rows = ownRows(name, cols, rows)
        let def = TableDef(id: id, schema: "pg_catalog", name: name, columns: cols.map { ColumnDef(name: $0.0, type: $0.1) },
                           distStyle: .all)
        var vectors = cols.map { Vector(type: $0.1, capacity: rows.count) }
        for r in rows { for (i, v) in r.enumerated() { vectors[i].append(v) } }
        // One block per column holding every row, one copy per node (decoded, never written).
        var slices = Array(repeating: SliceData(columnCount: cols.count), count: database.layout.sliceCount)
        if !rows.isEmpty {
            let data = SliceData(rowCount: rows.count, sortedRows: rows.count, columns: vectors.map { v in
                [BlockRef(uid: BlockIDs.make(), payload: .vector(v), encoding: .raw, firstRow: 0,
                          zone: ZoneMap.compute(v, start: 0, count: rows.count))]
            }, deleted: DeleteSet(), deleteFile: nil)
            for node in 0..<database.layout.nodes { slices[database.layout.firstSlice(ofNode: node)] = data }
        }
        return (def, TableSnapshot(slices: slices, distribution: .all, evenCursor: 0))
    }
}

extension ColumnEncoding {
    /// As PG_TABLE_DEF and SVV_TABLE_INFO show it (RAW shows as "none").
    var displayName: String { self == .raw ? "none" : sqlName }
}

extension ZoneBound {
    /// STV_BLOCKLIST's minvalue/maxvalue: the value as a 64-bit integer (strings: their
    /// first 8 bytes, big-endian, as Redshift shows them; doubles: truncated).
    var blockListValue: Int64 {
        switch self {
        case .int(let v): return v
        case .int128(let v): return Int64(clamping: v)
        case .double(let d): return d.isNaN ? 0 : Int64(max(min(d, 9.2e18), -9.2e18))
        case .bytes(let b):
            var x: UInt64 = 0
            for i in 0..<8 { x = x << 8 | UInt64(i < b.count ? b[i] : 0) }
            return Int64(bitPattern: x)
        }
    }
}
