// SPDX-License-Identifier: Apache-2.0
import SlicehouseCatalog
import SlicehousePlan
import SlicehouseFunctions
import SlicehousePlanner
import SlicehouseSQL
import SlicehouseTypes

/// Scalar SQL user-defined functions, as Redshift has them: `CREATE [OR REPLACE] FUNCTION
/// f(types) RETURNS type {VOLATILE | STABLE | IMMUTABLE} AS $$ SELECT expression $$
/// LANGUAGE sql`, the arguments named `$1`, `$2`, ... in the body; DROP FUNCTION. The
/// definition is a catalog change (`Catalog.functions`, committed and persisted); a call
/// is expanded inline where it stands (`Binder.bindUserFunction`).
/// (Binding a call stays with the session: `Session+Functions.swift`.)
struct FunctionCommand {
    let session: Session

    func createFunction(_ c: CreateFunction) throws -> StatementResult {
        guard c.language == "sql" else {
            if c.language == "plpythonu" {
                throw SQLError(.featureNotSupported, "Python UDFs are not supported: write the function in LANGUAGE sql")
            }
            throw SQLError(.featureNotSupported, "language \"\(c.language)\" is not supported for functions (LANGUAGE sql)")
        }
        let qualified = try session.creationName(c.name, in: session.transaction.catalog)
        try session.checkIdentifier(qualified.name)
        try session.access.requireCreate(inSchema: qualified.schema)
        if FunctionRegistry.knownNames.contains(qualified.name) || AggregateFunction.isAggregateName(qualified.name) {
            throw SQLError(.duplicateObject, "function \(qualified.name) is a built-in function: choose another name (Redshift suggests the prefix f_)")
        }
        guard c.parameterTypes.count <= 32 else { throw SQLError(.invalidParameter, "a function can have at most 32 arguments") }
        let body = try session.functionBody(c.body, name: qualified.name)
        // The body must bind for arguments of the declared types, to a type that casts to the result.
        let args = c.parameterTypes.map { Expr(.cast(Expr(.literal(.null)), $0, .cast)) }
        let expanded = try Binder.substituteParameters(body, args, function: qualified.name)
        let bound = try session.bindStandaloneExpr(expanded)
        guard bound.type == .unknown || bound.type == c.returnType || TypeRules.canCast(bound.type, c.returnType) else {
            throw SQLError(.datatypeMismatch,
                           "return type mismatch in function \(qualified.name): the body is \(bound.type.sqlName), declared \(c.returnType.sqlName)")
        }
        var def = FunctionDef(schema: qualified.schema, name: qualified.name, parameterTypes: c.parameterTypes.map { $0.sqlName },
                              returnType: c.returnType.sqlName, body: c.body, volatility: c.volatility)
        def.owner = session.user
        if let existing = session.transaction.catalog.functions[def.key] {
            if existing.isProcedure {
                throw SQLError(.duplicateObject, "procedure \(def.key) already exists with same argument types")
            }
            if c.orReplace {
                // Replacing keeps the owner and the grants, and is the owner's to do.
                try requireFunctionOwner(existing)
                def.owner = existing.owner ?? session.user
                def.executors = existing.executors
            }
        }
        try session.transaction.createFunction(def, orReplace: c.orReplace)
        return StatementResult(tag: "CREATE FUNCTION")
    }

    func dropFunction(_ d: DropFunction) throws -> StatementResult {
        let name = d.name.name
        let schemas = d.name.schema.map { [session.schemaNamed($0)] } ?? session.searchPathSchemas(session.transaction.catalog)
        var found: [FunctionDef] = []
        for s in schemas {
            found = session.transaction.catalog.functions(named: name, inSchema: s).filter { !$0.isProcedure }
            if let types = d.parameterTypes {
                let names = types.map { $0.sqlName }
                found = found.filter { $0.parameterTypes == names }
            }
            if !found.isEmpty { break }
        }
        guard let f = found.first else {
            if d.ifExists { return StatementResult(tag: "DROP FUNCTION", notices: ["NOTICE:  function \(name) does not exist, skipping"]) }
            throw SQLError(.undefinedFunction, "function \(name)(\((d.parameterTypes ?? []).map { $0.sqlName }.joined(separator: ", "))) does not exist")
        }
        guard found.count == 1 else {
            throw SQLError(.ambiguousFunction, "function name \"\(name)\" is not unique",
                           hint: "Specify the argument list to select the function unambiguously.")
        }
        try requireFunctionOwner(f)
        try session.transaction.dropFunction(f.key)
        return StatementResult(tag: "DROP FUNCTION")
    }

    /// The owner's right over a SQL function (a superuser's, or the schema owner's for a
    /// function written before functions had owners): replace, drop, grant EXECUTE.
    func requireFunctionOwner(_ f: FunctionDef) throws {
        if session.isSuperuser { return }
        if let owner = f.owner {
            if owner == session.user { return }
        } else if let schema = session.transaction.catalog.schema(f.schema), schema.owner == session.user {
            return
        }
        throw SQLError(.insufficientPrivilege, "must be owner of function \(f.name)")
    }

    /// `GRANT | REVOKE EXECUTE ON FUNCTION f(types), ... TO | FROM grantees` (the owner or a
    /// superuser). A function starts with EXECUTE for PUBLIC, as in Redshift.
    func grantFunctionExecute(on references: [ProcedureReference], _ privileges: [PrivilegeItem], to grantees: [Grantee],
                              revoke: Bool) throws {
        guard privileges.allSatisfy({ $0.name == "execute" || $0.name == "all" }) else {
            throw SQLError(.invalidGrantOperation, "invalid privilege type for function (EXECUTE or ALL)")
        }
        for r in references {
            let name = r.name.name
            let schemas = r.name.schema.map { [session.schemaNamed($0)] } ?? session.searchPathSchemas(session.transaction.catalog)
            var found: [FunctionDef] = []
            for s in schemas {
                found = session.transaction.catalog.functions(named: name, inSchema: s).filter { !$0.isProcedure }
                if let types = r.inputTypes { found = found.filter { $0.parameterTypes == types.map { $0.sqlName } } }
                if !found.isEmpty { break }
            }
            guard var f = found.first else {
                throw SQLError(.undefinedFunction, "function \(name)(\((r.inputTypes ?? []).map { $0.sqlName }.joined(separator: ", "))) does not exist")
            }
            guard found.count == 1 else {
                throw SQLError(.ambiguousFunction, "function name \"\(name)\" is not unique",
                               hint: "Specify the argument list to select the function unambiguously.")
            }
            try requireFunctionOwner(f)
            var executors = Set(f.executors ?? ["public"])
            for g in grantees {
                if revoke { executors.remove(ProcedureCommand.executorKey(g)) } else { executors.insert(ProcedureCommand.executorKey(g)) }
            }
            f.executors = executors.sorted()
            try session.transaction.createFunction(f, orReplace: true)
        }
    }
}
