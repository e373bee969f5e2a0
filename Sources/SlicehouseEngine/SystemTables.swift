import SlicehouseTypes
import SlicehouseCatalog
import SlicehouseStorage

/// Redshift's system tables and views, materialized when a statement reads them.
/// They live on the leader: every node's first slice holds the rows, like an ALL table.
struct SystemTables {
    let database: Database

    static let names = ["stv_slices", "pg_table_def", "stl_load_errors", "svv_table_info", "stv_tbl_perm"]

    func table(named raw: String) -> (TableDef, TableSnapshot)? {
        let name = raw.lowercased()
        switch name {
        case "stv_slices":
            let rows = (0..<database.layout.sliceCount).map { s -> [Value] in
                [.int(Int64(database.layout.node(ofSlice: s))), .int(Int64(s)), .int(Int64(s % database.layout.slicesPerNode)), .string("Data")]
            }
            return make(-1, name, [("node", .integer), ("slice", .integer), ("localslice", .integer), ("type", .varchar(16))], rows)
        case "pg_table_def":
            var rows: [[Value]] = []
            for t in database.catalog.allTables {
                for (i, c) in t.columns.enumerated() {
                    let sortPos = t.sortKey.firstIndex(of: i).map { t.sortKeyKind == .interleaved ? -($0 + 1) : $0 + 1 } ?? 0
                    rows.append([.string(t.schema), .string(t.name), .string(c.name), .string(c.type.sqlName),
                                 .string(c.encoding ?? (t.sortKey.first == i ? "none" : defaultEncoding(c.type))),
                                 .bool(t.distKey == i), .int(Int64(sortPos)), .bool(c.notNull)])
                }
            }
            return make(-2, name, [("schemaname", .varchar(128)), ("tablename", .varchar(128)), ("column", .varchar(128)),
                                   ("type", .varchar(128)), ("encoding", .varchar(32)), ("distkey", .boolean),
                                   ("sortkey", .integer), ("notnull", .boolean)], rows)
        case "stl_load_errors":
            let rows = database.loadErrors.map { e -> [Value] in
                [.int(100), .int(Int64(e.slice)), .int(Int64(e.tableID)), .int(e.startTime), .int(1), .int(Int64(e.query)),
                 .string(e.filename), .int(Int64(e.lineNumber)), .string(e.colname), .string(e.type), .string(e.colLength),
                 .int(Int64(e.position)), .string(e.rawLine), .string(e.rawFieldValue), .int(Int64(e.errCode)), .string(e.errReason)]
            }
            return make(-3, name, [("userid", .integer), ("slice", .integer), ("tbl", .integer), ("starttime", .timestamp),
                                   ("session", .integer), ("query", .integer), ("filename", .char(256)), ("line_number", .bigint),
                                   ("colname", .char(127)), ("type", .char(10)), ("col_length", .char(10)), ("position", .integer),
                                   ("raw_line", .char(1024)), ("raw_field_value", .char(1024)), ("err_code", .integer),
                                   ("err_reason", .char(100))], rows)
        case "svv_table_info":
            var rows: [[Value]] = []
            for t in database.catalog.allTables {
                guard let snap = database.store(t.id)?.snapshot() else { continue }
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
                rows.append([.string("dev"), .string(t.schema), .int(Int64(t.id)), .string(t.name), .string("Y"), .string(dist),
                             t.sortKey.first.map { .string(t.columns[$0].name) } ?? .null, .int(Int64(snap.rowCount)), skew])
            }
            return make(-4, name, [("database", .varchar(128)), ("schema", .varchar(128)), ("table_id", .integer), ("table", .varchar(128)),
                                   ("encoded", .varchar(32)), ("diststyle", .varchar(128)), ("sortkey1", .varchar(128)),
                                   ("tbl_rows", .bigint), ("skew_rows", .double)], rows)
        case "stv_tbl_perm":
            var rows: [[Value]] = []
            for t in database.catalog.allTables {
                guard let snap = database.store(t.id)?.snapshot() else { continue }
                for s in 0..<database.layout.sliceCount {
                    rows.append([.int(Int64(s)), .int(Int64(t.id)), .string(t.name), .int(Int64(snap.rowCount(slice: s)))])
                }
            }
            return make(-5, name, [("slice", .integer), ("id", .integer), ("name", .char(72)), ("rows", .bigint)], rows)
        default:
            return nil
        }
    }

    func defaultEncoding(_ t: DataType) -> String {
        switch t {
        case .boolean, .real, .double: return "none"
        case .char, .varchar: return "lzo"
        default: return "az64"
        }
    }

    private func make(_ id: Int, _ name: String, _ cols: [(String, DataType)], _ rows: [[Value]]) -> (TableDef, TableSnapshot) {
        let def = TableDef(id: id, schema: "pg_catalog", name: name, columns: cols.map { ColumnDef(name: $0.0, type: $0.1) },
                           distStyle: .all)
        var vectors = cols.map { Vector(type: $0.1, capacity: rows.count) }
        for r in rows { for (i, v) in r.enumerated() { vectors[i].append(v) } }
        var slices = [[Segment]](repeating: [], count: database.layout.sliceCount)
        // Segments of at most Chunk.capacity rows, one copy per node.
        var segments: [Segment] = []
        var start = 0
        while start < rows.count {
            let n = min(Chunk.capacity, rows.count - start)
            segments.append(Segment(columns: vectors.map { $0.slice(start, n) }, count: n))
            start += n
        }
        for node in 0..<database.layout.nodes { slices[database.layout.firstSlice(ofNode: node)] = segments }
        return (def, TableSnapshot(slices: slices, distribution: .all, evenCursor: 0))
    }
}
