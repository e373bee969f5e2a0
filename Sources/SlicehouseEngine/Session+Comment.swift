// SPDX-License-Identifier: Apache-2.0
import SlicehouseCatalog
import SlicehouseSQL
import SlicehouseTypes

/// COMMENT ON: a description kept in the catalog (`Catalog.comments`, committed and
/// persisted like any catalog change) and shown in pg_description, as Redshift keeps it.
/// The object's owner (or a superuser) may comment on it; `IS NULL` removes the comment.
extension Session {
    func comment(_ c: CommentStatement) throws -> StatementResult {
        let key: String
        switch c.target {
        case .table(let name):
            guard let t = try resolveTable(name) else {
                throw SQLError(.undefinedTable, "relation \"\(name.description)\" does not exist")
            }
            try requireOwner(of: t, or: .alter)
            key = CommentKey.table(t.id)
        case .view(let name):
            guard let v = try resolveView(name) else {
                throw SQLError(.undefinedTable, "relation \"\(name.description)\" does not exist")
            }
            try requireViewOwner(v)
            key = CommentKey.view(v.qualifiedName)
        case .column(let name, let column):
            if let t = try resolveTable(name) {
                try requireOwner(of: t, or: .alter)
                guard let i = t.columnIndex(column) else {
                    throw SQLError(.undefinedColumn, "column \"\(column.lowercased())\" of relation \"\(t.name)\" does not exist")
                }
                key = CommentKey.column(t.id, i)
            } else if try resolveView(name) != nil {
                throw SQLError(.featureNotSupported, "comments on the columns of views are not kept")
            } else {
                throw SQLError(.undefinedTable, "relation \"\(name.description)\" does not exist")
            }
        case .schema(let name):
            let s = schemaNamed(name)
            guard let def = transaction.catalog.schema(s) else {
                throw SQLError(.invalidSchemaName, "schema \"\(name.lowercased())\" does not exist")
            }
            if !isSuperuser && def.owner != user { throw Self.permissionDenied("schema \(s)") }
            key = CommentKey.schema(s)
        case .database(let name):
            guard name.lowercased() == Session.databaseName else {
                throw SQLError(.invalidCatalogName, "database \"\(name)\" does not exist")
            }
            try requireSuperuser("comment on the database")
            key = CommentKey.database
        case .constraint, .function:
            // Constraint names and user functions are not kept: accepted, as a no-op.
            return StatementResult(tag: "COMMENT")
        }
        try transaction.setComment(key, c.text)
        return StatementResult(tag: "COMMENT")
    }

    /// The owner of a view (or a superuser) only.
    private func requireViewOwner(_ v: ViewDef) throws {
        let object = SecuredObject.view(schema: v.schema, name: v.name.lowercased())
        if !isSuperuser, security.owner(object) != user, !security.granted(to: user, on: object).table.contains(.alter) {
            throw SQLError(.insufficientPrivilege, "must be owner of relation \(v.name)")
        }
    }
}
