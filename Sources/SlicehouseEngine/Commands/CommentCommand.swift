// SPDX-License-Identifier: Apache-2.0
import SlicehouseCatalog
import SlicehouseSQL
import SlicehouseTypes

/// COMMENT ON: a description kept in the catalog (`Catalog.comments`, committed and
/// persisted like any catalog change) and shown in pg_description, as Redshift keeps it.
/// The object's owner (or a superuser) may comment on it; `IS NULL` removes the comment.
struct CommentCommand {
    let session: Session

    func run(_ c: CommentStatement) throws -> StatementResult {
        let key: String
        switch c.target {
        case .table(let name):
            guard let t = try session.resolveTable(name) else {
                throw SQLError(.undefinedTable, "relation \"\(name.description)\" does not exist")
            }
            try session.access.requireOwner(of: t, or: .alter)
            key = CommentKey.table(t.id)
        case .view(let name):
            // A materialized view is a view to COMMENT ON VIEW (as in Redshift; dbt comments
            // on one so), kept with its table.
            if let t = try session.resolveTable(name), t.materializedView != nil {
                try session.access.requireOwner(of: t, or: .alter)
                key = CommentKey.table(t.id)
                break
            }
            guard let v = try session.resolveView(name) else {
                throw SQLError(.undefinedTable, "relation \"\(name.description)\" does not exist")
            }
            try requireViewOwner(v)
            key = CommentKey.view(v.qualifiedName)
        case .column(let name, let column):
            if let t = try session.resolveTable(name) {
                try session.access.requireOwner(of: t, or: .alter)
                guard let i = t.columnIndex(column) else {
                    throw SQLError(.undefinedColumn, "column \"\(column)\" of relation \"\(t.name)\" does not exist")
                }
                key = CommentKey.column(t.id, i)
            } else if let v = try session.resolveView(name) {
                try requireViewOwner(v)
                let system = SystemTables(database: session.database, transaction: session.transaction, session: session)
                guard let i = system.viewColumnNames(v).firstIndex(of: column) else {
                    throw SQLError(.undefinedColumn, "column \"\(column)\" of relation \"\(v.name)\" does not exist")
                }
                key = CommentKey.viewColumn(v.qualifiedName, i)
            } else {
                throw SQLError(.undefinedTable, "relation \"\(name.description)\" does not exist")
            }
        case .schema(let name):
            let s = session.schemaNamed(name)
            guard let def = session.transaction.catalog.schema(s) else {
                throw SQLError(.invalidSchemaName, "schema \"\(name)\" does not exist")
            }
            if !session.isSuperuser && def.owner != session.user { throw AccessControl.permissionDenied("schema \(s)") }
            key = CommentKey.schema(s)
        case .database(let name):
            guard name == session.databaseName else {
                throw SQLError(.invalidCatalogName, "database \"\(name)\" does not exist")
            }
            try session.access.requireSuperuser("comment on the database")
            key = CommentKey.database
        case .constraint, .function:
            // Constraint names and user functions are not kept: accepted, as a no-op.
            return StatementResult(tag: "COMMENT")
        }
        try session.transaction.setComment(key, c.text)
        return StatementResult(tag: "COMMENT")
    }

    /// The owner of a view (or a superuser) only.
    private func requireViewOwner(_ v: ViewDef) throws {
        let object = SecuredObject.view(schema: v.schema, name: v.name)
        if !session.isSuperuser, session.security.owner(object) != session.user, !session.security.granted(to: session.user, on: object).table.contains(.alter) {
            throw SQLError(.insufficientPrivilege, "must be owner of relation \(v.name)")
        }
    }
}
