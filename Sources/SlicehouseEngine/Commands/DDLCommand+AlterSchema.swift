// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehouseSQL
import SlicehouseCatalog

/// ALTER SCHEMA ... RENAME TO: every table, view, materialized view, function and
/// procedure of the schema moves to the new name in one transaction, with the schema's
/// owner, grants, default privileges and comment. It is done as the moves it stands for:
/// the new schema is made, each object moved as ALTER ... SET SCHEMA moves it (so the
/// views that read it anywhere follow, their text rewritten), search paths kept by views
/// and materialized views that named the schema name the new one, and the emptied schema
/// goes. ALTER SCHEMA ... QUOTA is accepted and not kept (see docs/DIFFERENCES.md).
extension DDLCommand {
    func alterSchema(_ a: AlterSchema) throws -> StatementResult {
        let old = a.name
        let catalog = session.transaction.catalog
        guard let schema = catalog.schema(old) else {
            throw SQLError(.invalidSchemaName, "schema \"\(old)\" does not exist")
        }
        if !session.isSuperuser && schema.owner != session.user {
            throw SQLError(.insufficientPrivilege, "must be owner of schema \(old)")
        }
        guard case .rename(let new) = a.action else { return StatementResult(tag: "ALTER SCHEMA") }
        try session.checkIdentifier(new)
        if new.hasPrefix("pg_") {
            throw SQLError(.invalidParameter, "unacceptable schema name \"\(new)\"",
                           detail: "The prefix \"pg_\" is reserved for system schemas.")
        }
        if catalog.schema(new) != nil || Catalog.systemSchemas.contains(new) {
            throw SQLError(.duplicateSchema, "Schema \"\(new)\" already exists")
        }
        let t = session.transaction
        try t.createSchema(SchemaDef(name: new, owner: schema.owner))
        try t.changeSecurity(SecurityChange { $0.renameSchema(old, to: new) })
        if let text = catalog.comments[CommentKey.schema(old)] {
            try t.setComment(CommentKey.schema(new), text)
            try t.setComment(CommentKey.schema(old), nil)
        }
        let (tables, views) = catalog.objects(inSchema: old)
        for table in tables {
            // As it is now: an earlier move may have rewritten a materialized view's text.
            guard let current = t.catalog.table(id: table.id) else { continue }
            try moveTable(current, toSchema: new)
        }
        for v in views {
            guard let current = t.catalog.view(v.qualifiedName) else { continue }
            var moved = current
            moved.schema = new
            try renameView(current, to: moved)
        }
        for f in t.catalog.functions.values.filter({ $0.schema == old }).sorted(by: { $0.key < $1.key }) {
            var moved = f
            moved.schema = new
            try t.dropFunction(f.key)
            try t.createFunction(moved, orReplace: false)
        }
        // Unqualified names of views and materialized views made with the schema on their path.
        func renamedPath(_ path: [String]) -> [String] { path.map { $0 == old ? new : $0 } }
        for v in t.catalog.allViews where v.searchPath.contains(old) {
            var redefined = v
            redefined.searchPath = renamedPath(v.searchPath)
            try t.redefineView(v, as: redefined)
        }
        for table in t.catalog.allTables {
            guard var mv = table.materializedView, mv.searchPath.contains(old) else { continue }
            mv.searchPath = renamedPath(mv.searchPath)
            var redefined = table
            redefined.materializedView = mv
            try t.redefineTable(table.qualifiedName, as: redefined)
        }
        try t.dropSchema(old)
        return StatementResult(tag: "ALTER SCHEMA")
    }
}
