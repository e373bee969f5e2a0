// SPDX-License-Identifier: Apache-2.0
import SlicehouseCatalog
import SlicehousePlanner
import SlicehouseSQL
import SlicehouseTypes

/// Scalar SQL user-defined functions, as Redshift has them: `CREATE [OR REPLACE] FUNCTION
/// f(types) RETURNS type {VOLATILE | STABLE | IMMUTABLE} AS $$ SELECT expression $$
/// LANGUAGE sql`, the arguments named `$1`, `$2`, ... in the body; DROP FUNCTION. The
/// definition is a catalog change (`Catalog.functions`, committed and persisted); a call
/// is expanded inline where it stands (`Binder.bindUserFunction`).
extension Session {
    func createFunction(_ c: CreateFunction) throws -> StatementResult {
        guard c.language == "sql" else {
            if c.language == "plpythonu" {
                throw SQLError(.featureNotSupported, "Python UDFs are not supported: write the function in LANGUAGE sql")
            }
            throw SQLError(.featureNotSupported, "language \"\(c.language)\" is not supported for functions (LANGUAGE sql)")
        }
        let qualified = try creationName(c.name, in: transaction.catalog)
        try checkIdentifier(qualified.name)
        try requireCreate(inSchema: qualified.schema)
        if FunctionRegistry.knownNames.contains(qualified.name) || AggregateFunction.isAggregateName(qualified.name) {
            throw SQLError(.duplicateObject, "function \(qualified.name) is a built-in function: choose another name (Redshift suggests the prefix f_)")
        }
        guard c.parameterTypes.count <= 32 else { throw SQLError(.invalidParameter, "a function can have at most 32 arguments") }
        let body = try functionBody(c.body, name: qualified.name)
        // The body must bind for arguments of the declared types, to a type that casts to the result.
        let args = c.parameterTypes.map { Expr(.cast(Expr(.literal(.null)), $0, .cast)) }
        let expanded = try Binder.substituteParameters(body, args, function: qualified.name)
        let bound = try bindStandaloneExpr(expanded)
        guard bound.type == .unknown || bound.type == c.returnType || TypeRules.canCast(bound.type, c.returnType) else {
            throw SQLError(.datatypeMismatch,
                           "return type mismatch in function \(qualified.name): the body is \(bound.type.sqlName), declared \(c.returnType.sqlName)")
        }
        var def = FunctionDef(schema: qualified.schema, name: qualified.name, parameterTypes: c.parameterTypes.map { $0.sqlName },
                              returnType: c.returnType.sqlName, body: c.body, volatility: c.volatility)
        def.owner = user
        if let existing = transaction.catalog.functions[def.key] {
            if existing.isProcedure {
                throw SQLError(.duplicateObject, "procedure \(def.key) already exists with same argument types")
            }
            if c.orReplace {
                // Replacing keeps the owner and the grants, and is the owner's to do.
                try requireFunctionOwner(existing)
                def.owner = existing.owner ?? user
                def.executors = existing.executors
            }
        }
        try transaction.createFunction(def, orReplace: c.orReplace)
        return StatementResult(tag: "CREATE FUNCTION")
    }

    func dropFunction(_ d: DropFunction) throws -> StatementResult {
        let name = d.name.name.lowercased()
        let schemas = d.name.schema.map { [schemaNamed($0)] } ?? searchPathSchemas(transaction.catalog)
        var found: [FunctionDef] = []
        for s in schemas {
            found = transaction.catalog.functions(named: name, inSchema: s).filter { !$0.isProcedure }
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
        try transaction.dropFunction(f.key)
        return StatementResult(tag: "DROP FUNCTION")
    }

    /// The owner's right over a SQL function (a superuser's, or the schema owner's for a
    /// function written before functions had owners): replace, drop, grant EXECUTE.
    func requireFunctionOwner(_ f: FunctionDef) throws {
        if isSuperuser { return }
        if let owner = f.owner {
            if owner == user { return }
        } else if let schema = transaction.catalog.schema(f.schema), schema.owner == user {
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
            let name = r.name.name.lowercased()
            let schemas = r.name.schema.map { [schemaNamed($0)] } ?? searchPathSchemas(transaction.catalog)
            var found: [FunctionDef] = []
            for s in schemas {
                found = transaction.catalog.functions(named: name, inSchema: s).filter { !$0.isProcedure }
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
                if revoke { executors.remove(Self.executorKey(g)) } else { executors.insert(Self.executorKey(g)) }
            }
            f.executors = executors.sorted()
            try transaction.createFunction(f, orReplace: true)
        }
    }

    /// EXECUTE on the SQL functions a bound statement calls, as the session's user or,
    /// inside a view, as the view's owner.
    func authorizeFunctionCalls(_ binder: Binder) throws {
        let sec = security
        for call in binder.functionCalls {
            let who = call.enclosingView.flatMap { sec.owner(.view(schema: $0.schema, name: $0.name.lowercased())) } ?? user
            guard let f = transaction.catalog.functions[call.key] else { continue }
            if sec.isSuperuser(who) || f.owner == who { continue }
            guard let executors = f.executors else { continue }   // PUBLIC, the default
            if Self.mayExecute(who, executors, sec) { continue }
            throw SQLError(.insufficientPrivilege, "permission denied for function \(f.name)")
        }
    }

    /// Whether `who` is among `executors` (`public`, `user:`, `group:`, `role:` keys).
    static func mayExecute(_ who: String, _ executors: [String], _ sec: Security) -> Bool {
        let set = Set(executors)
        if set.contains("public") || set.contains("user:\(who)") { return true }
        if sec.groups(of: who).contains(where: { set.contains("group:\($0)") }) { return true }
        return sec.roles(of: who).contains(where: { set.contains("role:\($0)") })
    }

    /// A SQL function's body: `SELECT expression` with no FROM, WHERE or other clauses.
    func functionBody(_ text: String, name: String) throws -> Expr {
        let statements: [Statement]
        do {
            statements = try parseStatements(text)
        } catch let e as SQLError {
            throw SQLError(.syntax, "in the body of function \(name): \(e.message)")
        }
        guard statements.count == 1, case .query(let q) = statements[0], q.with == nil, q.orderBy.isEmpty, q.limit == nil,
              case .select(let s) = q.body, s.items.count == 1, case .expr(let e, _) = s.items[0], s.from.isEmpty,
              s.whereClause == nil, s.groupBy.isEmpty, s.having == nil, !s.distinct else {
            throw SQLError(.syntax, "the body of SQL function \(name) must be one SELECT of one expression, without FROM")
        }
        return e
    }

    /// Bind a column-free expression (a function body checked at CREATE).
    func bindStandaloneExpr(_ e: Expr) throws -> BoundExpr {
        let ctx = StatementContext(database: database, session: self)
        return try Binder(catalog: ctx, evaluateConstant: evaluateConstant).bindScalar(e)
    }

    /// The SQL functions a call of `name` may mean: those of the first schema of the
    /// search path that has any (a call is not qualified).
    func userFunctions(named name: String) -> [UserFunction] {
        let catalog = transaction.catalog
        for s in searchPathSchemas(catalog) {
            let defs = catalog.functions(named: name, inSchema: s).filter { !$0.isProcedure }
            if defs.isEmpty { continue }
            return defs.compactMap { def in
                guard let types = try? def.parameterTypes.map(parseTypeName), let result = try? parseTypeName(def.returnType),
                      let body = try? functionBody(def.body, name: def.name) else { return nil }
                return UserFunction(name: def.name, parameterTypes: types, returnType: result, body: body, key: def.key)
            }
        }
        return []
    }

    /// A type from its SQL name (as `DataType.sqlName` wrote it).
    func parseTypeName(_ text: String) throws -> DataType {
        guard case .query(let q)? = try parseStatements("SELECT CAST(NULL AS \(text))").first, case .select(let s) = q.body,
              case .expr(let e, _)? = s.items.first, case .cast(_, let t, _) = e.kind else {
            throw SQLError(.syntax, "invalid type name \(text)")
        }
        return t
    }
}
