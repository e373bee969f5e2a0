// SPDX-License-Identifier: Apache-2.0
import SlicehouseCatalog
import SlicehousePlan
import SlicehousePlanner
import SlicehouseSQL
import SlicehouseTypes

/// A session's view of SQL user-defined functions (defined by `FunctionCommand`): the
/// functions a name means for the binder, the EXECUTE check of the calls a statement
/// makes, and their bodies parsed.
extension Session {
    /// EXECUTE on the SQL functions a bound statement calls, as the session's user or,
    /// inside a view, as the view's owner.
    func authorizeFunctionCalls(_ binder: Binder) throws {
        let sec = security
        for call in binder.functionCalls {
            let who = call.enclosingView.flatMap { sec.owner(.view(schema: $0.schema, name: $0.name)) } ?? user
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
            statements = try parseStatements(text, options: parseOptions)
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

    /// The SQL functions a call of `name` may mean: those of `schema` when the call names
    /// one (`p2b.f_dup(3)` runs p2b's whatever the search path), else those of the first
    /// schema of the search path that has any.
    func userFunctions(named name: String, schema: String?) -> [UserFunction] {
        let catalog = transaction.catalog
        for s in schema.map({ [$0] }) ?? searchPathSchemas(catalog) {
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
