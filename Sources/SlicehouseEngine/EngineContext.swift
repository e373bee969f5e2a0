import SlicehouseTypes
import SlicehouseCatalog
import SlicehouseStorage
import SlicehousePlanner
import SlicehouseExecution

/// The view of the database one statement plans and runs against: the catalog,
/// system tables, and a snapshot of every table taken when the statement started.
final class StatementContext: BinderCatalog, PlannerContext {
    let database: Database
    private(set) var snapshots: [Int: TableSnapshot] = [:]
    let system: SystemTables

    let session: Session

    init(database: Database, session: Session) {
        self.database = database
        self.session = session
        self.system = SystemTables(database: database, transaction: session.transaction)
    }

    var sliceCount: Int { database.layout.sliceCount }

    /// DELETE / UPDATE: this table also shows its hidden row-id column.
    var rowIDTable: Int?

    func table(named name: String) throws -> TableDef? {
        if var t = session.transaction.catalog.table(name) {
            if snapshots[t.id] == nil { snapshots[t.id] = try session.transaction.snapshot(of: t) }
            if t.id == rowIDTable { t.columns.append(ColumnDef(name: rowIDColumnName, type: .bigint)) }
            return t
        }
        if let (def, snap) = system.table(named: name) {
            snapshots[def.id] = snap
            return def
        }
        return nil
    }

    func view(named name: String) -> ViewDef? { session.transaction.catalog.view(name) }

    func sessionFunction(_ name: String) -> (Value, DataType)? {
        switch name {
        case "pg_last_copy_count": return (.int(Int64(session.lastCopyCount)), .integer)
        case "pg_last_copy_id": return (.int(Int64(session.lastCopyID)), .integer)
        case "pg_last_query_id": return (.int(Int64(session.lastQueryID)), .integer)
        case "version":
            return (.string("PostgreSQL 8.0.2 on x86_64-pc-linux-gnu, compiled by GCC gcc (GCC) 3.4.2, Redshift 1.0.0 (Slicehouse)"), .varchar(256))
        case "current_user", "user", "session_user": return (.string("slicehouse"), .varchar(128))
        case "pg_backend_pid": return (.int(Int64(session.process)), .integer)
        case "current_database": return (.string("dev"), .varchar(128))
        case "current_schema": return (.string("public"), .varchar(128))
        default: return nil
        }
    }

    func statistics(_ table: TableDef) -> TableStatistics {
        guard let snap = snapshots[table.id] else { return TableStatistics(rows: 0, placement: .even) }
        let placement: TablePlacement
        switch snap.distribution {
        case .all: placement = .all
        case .even: placement = .even
        case .key(let c): placement = .key(column: c)
        }
        // Rows deleted since the ANALYZE can leave fewer rows than distinct values counted.
        let rows = Double(snap.rowCount)
        let columns = (snap.analyzed?.columns ?? [:]).mapValues { s -> ColumnStatistics in
            var s = s
            s.distinct = max(1, min(s.distinct, rows))
            return s
        }
        return TableStatistics(rows: snap.rowCount, placement: placement, columns: columns)
    }
}

/// Evaluate a constant expression on the leader.
func evaluateConstant(_ e: BoundExpr) throws -> Value {
    let v = try ExpressionEvaluator.evaluate(e, Chunk(columns: [], count: 1))
    return v.value(at: 0)
}
