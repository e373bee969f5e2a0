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
        let def = FunctionDef(schema: qualified.schema, name: qualified.name, parameterTypes: c.parameterTypes.map { $0.sqlName },
                              returnType: c.returnType.sqlName, body: c.body, volatility: c.volatility)
        if transaction.catalog.functions[def.key]?.isProcedure == true {
            throw SQLError(.duplicateObject, "procedure \(def.key) already exists with same argument types")
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
        if let schema = transaction.catalog.schema(f.schema), !isSuperuser, schema.owner != user {
            // Owners of functions are not kept: the schema's owner (or a superuser) drops them.
            throw SQLError(.insufficientPrivilege, "must be owner of function \(name)")
        }
        try transaction.dropFunction(f.key)
        return StatementResult(tag: "DROP FUNCTION")
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
                return UserFunction(name: def.name, parameterTypes: types, returnType: result, body: body)
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
