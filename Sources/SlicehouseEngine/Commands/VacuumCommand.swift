// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehouseRuntime
import SlicehouseSQL
import SlicehouseCatalog
import SlicehouseStorage

/// The VACUUM statement: each table it names (or every table the user owns) rewritten by
/// `Vacuumer`, one transaction per table, as the statement's work (its cancellation and
/// `statement_timeout` stop it between pieces).
struct VacuumCommand {
    let session: Session
    let context: QueryContext

    /// `VACUUM [mode] [table] [TO n PERCENT] [BOOST]`: every table (in table-id order) or
    /// the one named, each in a transaction of its own. BOOST is accepted: every VACUUM
    /// already uses all cores.
    func run(_ v: SlicehouseSQL.Vacuum) throws -> StatementResult {
        let database = session.database, user = session.user
        var names: [QualifiedName]
        if let name = v.table {
            guard let def = try session.resolveTable(name) else {
                if SystemTables.names.contains(name.name.lowercased()) {
                    throw SQLError(.featureNotSupported, "cannot vacuum system table \"\(name.name)\"")
                }
                throw SQLError(.undefinedTable, "relation \"\(name.description)\" does not exist")
            }
            try session.access.requireOwner(of: def)
            names = [def.qualifiedName]
        } else {
            // Without a table name: the tables this user owns (all of them for a superuser).
            let committed = session.committedCatalog
            let sec = committed.security
            names = committed.allTables.filter { !$0.isTemporary || $0.schema == session.temporarySchema }
                .filter { sec.isSuperuser(user) || sec.owner(.table($0.id)) == user }
                .sorted { $0.id < $1.id }.map { $0.qualifiedName }
        }
        // The statement's form, as storage names it (the same words); FULL when none is written.
        let mode = TableVacuum.Mode(rawValue: (v.mode ?? .full).rawValue) ?? .full
        guard let token = try database.vacuumLog.begin(background: false) else {
            throw SQLError(.objectInUse, "VACUUM is running", hint: "re-execute after other vacuum finished")
        }
        defer { database.vacuumLog.end(token) }
        for n in names {
            // A table dropped since the list was made is skipped, as Redshift does.
            if v.table == nil && session.committedCatalog.table(n) == nil { continue }
            // Cancel, pg_cancel_backend and statement_timeout stop it between pieces of work.
            try context.cancellation.check()
            try database.vacuumer.vacuum(n, in: session.transaction.database, mode: mode, threshold: v.toPercent ?? TableVacuum.defaultThreshold,
                                         process: session.process, background: false, context: context,
                                         isCancelled: { false })
        }
        return StatementResult(tag: "VACUUM")
    }
}
