// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehouseRuntime
import SlicehouseSQL
import SlicehouseCatalog

extension Session {
    /// CREATE SCHEMA, DROP SCHEMA, ALTER TABLE / VIEW.
    func performSchemaStatement(_ statement: Statement, _ context: QueryContext) throws -> StatementResult {
        switch statement {
        case .createSchema(let c): return try createSchema(c)
        case .dropSchema(let d): return try dropSchemas(d)
        case .alterTable(let a): return try alterTable(a, context)
        default: throw SQLError.internalError("not a schema statement")
        }
    }

    func createSchema(_ c: CreateSchema) throws -> StatementResult {
        let name = c.name.lowercased()
        try checkIdentifier(name)
        if name.hasPrefix("pg_") {
            throw SQLError(.invalidParameter, "unacceptable schema name \"\(name)\"",
                           detail: "The prefix \"pg_\" is reserved for system schemas.")
        }
        if transaction.catalog.schema(name) != nil || Catalog.systemSchemas.contains(name) {
            if c.ifNotExists {
                return StatementResult(tag: "CREATE SCHEMA", notices: ["NOTICE:  Schema \"\(name)\" already exists, skipping"])
            }
            throw SQLError(.duplicateSchema, "Schema \"\(name)\" already exists")
        }
        let owner = (c.authorization ?? user).lowercased()
        if owner != user {
            guard isSuperuser else { throw SQLError(.insufficientPrivilege, "must be superuser to create a schema for another user") }
            guard security.user(owner) != nil else { throw SQLError(.undefinedObject, "user \"\(owner)\" does not exist") }
        }
        try transaction.createSchema(SchemaDef(name: name, owner: owner))
        return StatementResult(tag: "CREATE SCHEMA")
    }

    func dropSchemas(_ d: DropSchema) throws -> StatementResult {
        var notices: [String] = []
        for raw in d.names {
            let name = raw.lowercased()
            // `public` may be dropped like any schema (as in Redshift); the system ones not.
            if Catalog.systemSchemas.contains(name) || Catalog.isTemporarySchema(name) {
                throw SQLError(.insufficientPrivilege, "cannot drop schema \(name) because it is required by the database system")
            }
            guard transaction.catalog.schema(name) != nil else {
                if d.ifExists {
                    notices.append("NOTICE:  Schema \"\(name)\" does not exist, skipping")
                    continue
                }
                throw SQLError(.invalidSchemaName, "Schema \"\(name)\" does not exist")
            }
            if !isSuperuser && transaction.catalog.schema(name)?.owner != user {
                throw SQLError(.insufficientPrivilege, "must be owner of schema \(name)")
            }
            let (tables, views) = transaction.catalog.objects(inSchema: name)
            // SQL functions and stored procedures in the schema go with it too.
            let routines = transaction.catalog.functions.values.filter { $0.schema == name.lowercased() }
            if !tables.isEmpty || !views.isEmpty || !routines.isEmpty {
                guard d.cascade else {
                    throw SQLError(.dependentObjectsStillExist, "cannot drop schema \(name) because other objects depend on it",
                                   hint: "Use DROP ... CASCADE to drop the dependent objects too.")
                }
                for v in views { try transaction.dropView(v.qualifiedName) }
                for t in tables { try transaction.dropTable(t.qualifiedName) }
                for f in routines { try transaction.dropFunction(f.key) }
                let n = tables.count + views.count + routines.count
                notices.append("NOTICE:  drop cascades to \(n) other object\(n == 1 ? "" : "s")")
            }
            try transaction.dropSchema(name)
        }
        return StatementResult(tag: "DROP SCHEMA", notices: notices)
    }

    func alterTable(_ a: AlterTable, _ context: QueryContext) throws -> StatementResult {
        let tag = a.isView ? "ALTER VIEW" : "ALTER TABLE"
        var notices: [String] = []
        let found = try lookup(a.name, in: transaction.catalog)
        switch found {
        case .table(let t):
            if a.isView { throw SQLError(.invalidParameter, "\"\(t.name)\" is not a view") }
            if case .owner(let u) = a.action { return try runSecurity(.alterOwner(.tables([a.name]), to: u.lowercased())) }
            try requireOwner(of: t, or: .alter)
            if a.isMaterializedView && t.materializedView == nil {
                throw SQLError(.wrongObjectType, "\"\(t.name)\" is not a materialized view")
            }
            if case .autoRefresh(let on) = a.action {
                guard var mv = t.materializedView else {
                    throw SQLError(.wrongObjectType, "\"\(t.name)\" is not a materialized view")
                }
                mv.autoRefresh = on
                var redefined = t
                redefined.materializedView = mv
                try transaction.redefineTable(t.qualifiedName, as: redefined)
                return StatementResult(tag: "ALTER MATERIALIZED VIEW")
            }
            if t.materializedView != nil {
                // A materialized view's columns are its query's: only its name, schema and layout change.
                switch a.action {
                case .rename, .setSchema, .alterDistribution, .alterSortKey: break
                default:
                    throw SQLError(.wrongObjectType, "cannot change the columns of materialized view \"\(t.name)\"",
                                   hint: "Drop it and create it with another query.")
                }
            }
            switch a.action {
            case .rename(let new):
                try checkIdentifier(new.lowercased())
                let target = QualifiedName(schema: t.schema, name: new)
                if transaction.catalog.hasRelation(target) {
                    throw SQLError(.duplicateTable, "relation \"\(target.name)\" already exists")
                }
                try transaction.renameTable(t.qualifiedName, to: target)
            case .setSchema(let s):
                let schema = schemaNamed(s)
                guard transaction.catalog.schema(schema) != nil else {
                    throw SQLError(.invalidSchemaName, "schema \"\(s.lowercased())\" does not exist")
                }
                let target = QualifiedName(schema: schema, name: t.name)
                if transaction.catalog.hasRelation(target) {
                    throw SQLError(.duplicateTable, "relation \"\(t.name)\" already exists in schema \"\(schema)\"")
                }
                try transaction.renameTable(t.qualifiedName, to: target)
            case .renameColumn(let old, let new):
                guard let i = t.columnIndex(old) else {
                    throw SQLError(.undefinedColumn, "column \"\(old.lowercased())\" does not exist")
                }
                let n = new.lowercased()
                try checkIdentifier(n)
                if t.columnIndex(n) != nil {
                    throw SQLError(.duplicateColumn, "column \"\(n)\" of relation \"\(t.name)\" already exists")
                }
                var renamed = t
                renamed.columns[i].name = n
                try transaction.redefineTable(t.qualifiedName, as: renamed)
            case .owner:
                break
            default:
                notices = try alterTableLayout(t, a.action, context)
            }
        case .view(let v):
            if case .owner(let u) = a.action { return try runSecurity(.alterOwner(.tables([a.name]), to: u.lowercased())) }
            let object = SecuredObject.view(schema: v.schema, name: v.name.lowercased())
            let owner = security.owner(object)
            if !isSuperuser, owner != user, !security.granted(to: user, on: object).table.contains(.alter) {
                throw SQLError(.insufficientPrivilege, "must be owner of relation \(v.name)")
            }
            switch a.action {
            case .rename(let new):
                try checkIdentifier(new.lowercased())
                var renamed = v
                renamed.name = new.lowercased()
                if transaction.catalog.hasRelation(renamed.qualifiedName) {
                    throw SQLError(.duplicateTable, "relation \"\(renamed.name)\" already exists")
                }
                try transaction.dropView(v.qualifiedName)
                try transaction.createView(renamed, orReplace: false)
                try keepOwner(owner, of: renamed)
            case .setSchema(let s):
                let schema = schemaNamed(s)
                guard transaction.catalog.schema(schema) != nil else {
                    throw SQLError(.invalidSchemaName, "schema \"\(s.lowercased())\" does not exist")
                }
                var moved = v
                moved.schema = schema
                if transaction.catalog.hasRelation(moved.qualifiedName) {
                    throw SQLError(.duplicateTable, "relation \"\(v.name)\" already exists in schema \"\(schema)\"")
                }
                try transaction.dropView(v.qualifiedName)
                try transaction.createView(moved, orReplace: false)
                try keepOwner(owner, of: moved)
            case .renameColumn(let old, let new):
                throw SQLError(.featureNotSupported, "renaming column \"\(old)\" of a view to \"\(new)\" is not supported")
            case .owner:
                break
            default:
                throw SQLError(.syntax, "this ALTER TABLE action applies to tables, and \"\(v.name)\" is a view")
            }
        case .system:
            throw SQLError(.insufficientPrivilege, "permission denied: \"\(a.name.name.lowercased())\" is a system catalog")
        case nil:
            throw SQLError(.undefinedTable, "relation \"\(a.name.description)\" does not exist")
        }
        return StatementResult(tag: tag, notices: notices)
    }

    /// A view renamed or moved (dropped and created again) keeps its owner.
    private func keepOwner(_ owner: String?, of view: ViewDef) throws {
        guard let owner else { return }
        let object = SecuredObject.view(schema: view.schema, name: view.name.lowercased())
        try transaction.changeSecurity(SecurityChange { $0.setOwner(object, owner) })
    }
}
