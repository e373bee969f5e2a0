// SPDX-License-Identifier: Apache-2.0
import SlicehouseCatalog
import SlicehousePlan
import SlicehousePlanner
import SlicehouseSQL
import SlicehouseTypes
import SlicehouseRuntime

/// Stored procedures, as Redshift has them: `CREATE [OR REPLACE] PROCEDURE name([[argname]
/// [IN | OUT | INOUT] type, ...]) [NONATOMIC] AS $$ PL/pgSQL $$ LANGUAGE plpgsql`, CALL,
/// DROP / SHOW / ALTER PROCEDURE. A definition is a `FunctionDef` with `procedure` set (a
/// catalog change, committed and persisted as SQL functions are); its signature is the types
/// of its IN and INOUT arguments. CALL runs the body with `ProcedureInterpreter`.
/// (`ProcedureCommand` holds the session; a CALL runs in the statement's context, given
/// to `run`.)
struct ProcedureCommand {
    let session: Session

    /// Calls nested deeper than this fail (Redshift allows 16 levels).
    static let maxProcedureDepth = 16

    func run(_ p: ProcedureStatement, _ context: QueryContext) throws -> StatementResult {
        switch p {
        case .create(let c): return try createProcedure(c)
        case .drop(let d): return try dropProcedure(d)
        case .call(let c): return try callProcedure(c, context)
        case .show(let r): return try showProcedure(r)
        case .rename(let r, let newName): return try alterProcedure(r, rename: newName, owner: nil)
        case .owner(let r, let owner): return try alterProcedure(r, rename: nil, owner: owner)
        }
    }

    // MARK: - DDL

    func createProcedure(_ c: CreateProcedure) throws -> StatementResult {
        guard c.language == "plpgsql" else {
            throw SQLError(.featureNotSupported, "language \"\(c.language)\" is not supported for procedures (LANGUAGE plpgsql)")
        }
        let qualified = try session.creationName(c.name, in: session.transaction.catalog)
        try session.checkIdentifier(qualified.name)
        try session.access.requireCreate(inSchema: qualified.schema)
        guard c.parameters.count <= 32 else { throw SQLError(.invalidParameter, "a procedure can have at most 32 arguments") }
        var seen: Set<String> = []
        for p in c.parameters {
            if let n = p.name, !seen.insert(n).inserted {
                throw SQLError(.invalidParameter, "parameter name \"\(n)\" used more than once")
            }
        }
        _ = try parsePLpgSQL(c.body)
        let attributes = ProcedureAttributes(
            arguments: c.parameters.map { ProcedureArgument(name: $0.name ?? "", mode: $0.mode.rawValue, type: $0.type.sqlName) },
            nonatomic: c.nonatomic, securityDefiner: c.securityDefiner, settings: c.settings, owner: session.user)
        var def = FunctionDef(schema: qualified.schema, name: qualified.name, parameterTypes: c.inputTypes.map { $0.sqlName },
                              returnType: "", body: c.body, volatility: "volatile")
        def.procedure = attributes
        if let existing = session.transaction.catalog.functions[def.key] {
            guard existing.isProcedure else {
                throw SQLError(.duplicateObject, "function \(def.key) already exists with same argument types")
            }
            guard c.orReplace else {
                throw SQLError(.duplicateObject, "procedure \(def.key) already exists with same argument types")
            }
            if let owner = existing.procedure?.owner, owner != session.user, !session.isSuperuser {
                throw SQLError(.insufficientPrivilege, "must be owner of procedure \(qualified.name)")
            }
            def.procedure?.owner = existing.procedure?.owner ?? session.user
        }
        try session.transaction.createFunction(def, orReplace: c.orReplace)
        return StatementResult(tag: "CREATE PROCEDURE")
    }

    /// The procedures `reference` may mean: those of the first schema (of its own, or of
    /// the search path) that has any, filtered by the input types when they were given.
    func procedures(matching reference: ProcedureReference) -> [FunctionDef] {
        let name = reference.name.name
        let schemas = reference.name.schema.map { [session.schemaNamed($0)] } ?? session.searchPathSchemas(session.transaction.catalog)
        for s in schemas {
            var found = session.transaction.catalog.functions(named: name, inSchema: s).filter(\.isProcedure)
            if let types = reference.inputTypes {
                let names = types.map { $0.sqlName }
                found = found.filter { $0.parameterTypes == names }
            }
            if !found.isEmpty { return found }
        }
        return []
    }

    /// Exactly one procedure for DROP / SHOW / ALTER, or Redshift's error.
    func uniqueProcedure(_ reference: ProcedureReference) throws -> FunctionDef? {
        let found = procedures(matching: reference)
        guard let p = found.first else { return nil }
        guard found.count == 1 else {
            throw SQLError(.ambiguousFunction, "procedure name \"\(reference.name.name)\" is not unique",
                           hint: "Specify the argument list to select the procedure unambiguously.")
        }
        return p
    }

    func procedureDoesNotExist(_ reference: ProcedureReference) -> SQLError {
        let types = (reference.inputTypes ?? []).map { $0.sqlName }.joined(separator: ", ")
        return SQLError(.undefinedFunction, "procedure \(reference.name.name)(\(types)) does not exist")
    }

    func requireProcedureOwner(_ p: FunctionDef) throws {
        guard !session.isSuperuser else { return }
        if p.procedure?.owner == session.user { return }
        if let schema = session.transaction.catalog.schema(p.schema), schema.owner == session.user { return }
        throw SQLError(.insufficientPrivilege, "must be owner of procedure \(p.name)")
    }

    func dropProcedure(_ d: DropProcedure) throws -> StatementResult {
        guard let p = try uniqueProcedure(d.procedure) else {
            if d.ifExists {
                return StatementResult(tag: "DROP PROCEDURE",
                                       notices: ["NOTICE:  procedure \(d.procedure.name.name) does not exist, skipping"])
            }
            throw procedureDoesNotExist(d.procedure)
        }
        try requireProcedureOwner(p)
        try session.transaction.dropFunction(p.key)
        return StatementResult(tag: "DROP PROCEDURE")
    }

    func alterProcedure(_ r: ProcedureReference, rename: String?, owner: String?) throws -> StatementResult {
        guard let p = try uniqueProcedure(r) else { throw procedureDoesNotExist(r) }
        try requireProcedureOwner(p)
        var changed = p
        if let rename {
            try session.checkIdentifier(rename)
            changed.name = rename
            if session.transaction.catalog.functions[changed.key] != nil {
                throw SQLError(.duplicateObject, "procedure \(changed.key) already exists in schema \"\(p.schema)\"")
            }
        }
        if let owner {
            guard session.security.user(owner) != nil else { throw SQLError(.undefinedObject, "user \"\(owner.lowercased())\" does not exist") }
            guard session.isSuperuser else { throw SQLError(.insufficientPrivilege, "must be superuser to change the owner of a procedure") }
            changed.procedure?.owner = owner.lowercased()
        }
        try session.transaction.dropFunction(p.key)
        try session.transaction.createFunction(changed, orReplace: false)
        return StatementResult(tag: "ALTER PROCEDURE")
    }

    /// `SHOW PROCEDURE`: the definition as CREATE OR REPLACE PROCEDURE text, one row.
    func showProcedure(_ r: ProcedureReference) throws -> StatementResult {
        guard let p = try uniqueProcedure(r), let attributes = p.procedure else { throw procedureDoesNotExist(r) }
        let arguments = attributes.arguments.map { a in
            [a.name.isEmpty ? nil : a.name, a.mode, a.type].compactMap { $0 }.joined(separator: " ")
        }.joined(separator: ", ")
        var text = "CREATE OR REPLACE PROCEDURE \(p.schema).\(p.name)(\(arguments))\n"
        if attributes.nonatomic { text += " NONATOMIC\n" }
        text += " LANGUAGE plpgsql\n"
        if attributes.securityDefiner { text += " SECURITY DEFINER\n" }
        for (k, v) in attributes.settings.sorted(by: { $0.key < $1.key }) { text += " SET \(k) TO '\(v)'\n" }
        text += "AS $$\(p.body)$$"
        var v = Vector(type: .text)
        v.append(.string(text))
        return StatementResult(tag: "SHOW", columns: [ResultColumn(name: "Stored Procedure Definition", type: .text)],
                               chunks: [Chunk(columns: [v], count: 1)])
    }

    // MARK: - EXECUTE privilege

    static func executorKey(_ g: Grantee) -> String {
        switch g {
        case .user(let n): return "user:\(n.lowercased())"
        case .group(let n): return "group:\(n.lowercased())"
        case .role(let n): return "role:\(n.lowercased())"
        case .public: return "public"
        }
    }

    /// `GRANT | REVOKE EXECUTE ON PROCEDURE p(types), ... TO | FROM grantees` (the owner or
    /// a superuser).
    func grantExecute(on references: [ProcedureReference], _ privileges: [PrivilegeItem], to grantees: [Grantee],
                      revoke: Bool) throws {
        guard privileges.allSatisfy({ $0.name == "execute" || $0.name == "all" }) else {
            throw SQLError(.invalidGrantOperation, "invalid privilege type for procedure (EXECUTE or ALL)")
        }
        for r in references {
            guard var p = try uniqueProcedure(r) else { throw procedureDoesNotExist(r) }
            try requireProcedureOwner(p)
            var executors = Set(p.procedure?.executors ?? [])
            for g in grantees {
                if revoke { executors.remove(Self.executorKey(g)) } else { executors.insert(Self.executorKey(g)) }
            }
            p.procedure?.executors = executors.isEmpty ? nil : executors.sorted()
            try session.transaction.createFunction(p, orReplace: true)
        }
    }

    /// CALL needs EXECUTE: owners and superusers have it, others by GRANT (Redshift's default).
    func requireExecute(_ def: FunctionDef, _ attributes: ProcedureAttributes) throws {
        if session.isSuperuser || attributes.owner == session.user { return }
        let executors = Set(attributes.executors ?? [])
        if executors.contains("public") || executors.contains("user:\(session.user)") { return }
        let sec = session.security
        if sec.groups(of: session.user).contains(where: { executors.contains("group:\($0)") }) { return }
        if sec.roles(of: session.user).contains(where: { executors.contains("role:\($0)") }) { return }
        throw SQLError(.insufficientPrivilege, "permission denied for procedure \(def.name)")
    }

    // MARK: - CALL

    /// The columns CALL returns (the OUT and INOUT arguments), nil when it returns none:
    /// the extended protocol's Describe.
    func callColumns(_ c: CallProcedure) throws -> [ResultColumn]? {
        let (_, attributes, _, _) = try resolveCall(c)
        var columns: [ResultColumn] = []
        for (i, a) in attributes.arguments.enumerated() where (ParameterMode(rawValue: a.mode) ?? .in).isOutput {
            columns.append(ResultColumn(name: a.name.isEmpty ? "$\(i + 1)" : a.name, type: try session.parseTypeName(a.type)))
        }
        return columns.isEmpty ? nil : columns
    }

    /// The procedure a CALL means (by name and the arguments' types), its input types and
    /// the arguments' values.
    func resolveCall(_ c: CallProcedure) throws -> (FunctionDef, ProcedureAttributes, [DataType], [(Value, DataType)]) {
        // The arguments, evaluated once.
        var values: [(Value, DataType)] = []
        for a in c.arguments {
            let bound = try session.bindStandaloneExpr(a)
            values.append((try evaluateConstant(bound), bound.type))
        }
        let reference = ProcedureReference(name: c.name, inputTypes: nil)
        let candidates = procedures(matching: reference).filter { $0.parameterTypes.count == values.count }
        let argumentList = values.map { $0.1 == .unknown ? "unknown" : $0.1.sqlName }.joined(separator: ", ")
        func missing() -> SQLError {
            SQLError(.undefinedFunction, "procedure \(c.name.name)(\(argumentList)) does not exist",
                     hint: "No procedure matches the given name and argument types. You may need to add explicit type casts.")
        }
        // Overloads: the one whose types match the arguments' best (the same type, then the
        // same kind of type: string, number, date and time), of those every argument casts to.
        func kind(_ t: DataType) -> Int {
            switch t {
            case .char, .varchar: return 1
            case .smallint, .integer, .bigint, .decimal, .real, .double: return 2
            case .date, .timestamp: return 3
            case .boolean: return 4
            default: return 0
            }
        }
        var best: [(FunctionDef, [DataType], Int)] = []
        for def in candidates {
            guard let types = try? def.parameterTypes.map(session.parseTypeName) else { continue }
            var score = 0
            var fits = true
            for (i, (_, t)) in values.enumerated() {
                if t == types[i] {
                    score += 2
                } else if t == .unknown || TypeRules.canCast(t, types[i]) {
                    if kind(t) != 0 && kind(t) == kind(types[i]) { score += 1 }
                } else {
                    fits = false
                }
            }
            if fits { best.append((def, types, score)) }
        }
        guard let top = best.map(\.2).max() else { throw missing() }
        let chosen = best.filter { $0.2 == top }
        guard chosen.count == 1, let (def, inputTypes, _) = chosen.first, let attributes = def.procedure else {
            throw SQLError(.ambiguousFunction, "procedure \(c.name.name)(\(argumentList)) is not unique",
                           hint: "Could not choose a best candidate procedure. You may need to add explicit type casts.")
        }
        return (def, attributes, inputTypes, values)
    }

    /// CALL: the body runs as the CALL's work (`context`), each statement in it too.
    func callProcedure(_ c: CallProcedure, _ context: QueryContext) throws -> StatementResult {
        guard session.procedureDepth < Self.maxProcedureDepth else {
            throw SQLError(.featureNotSupported, "stored procedure calls are nested deeper than \(Self.maxProcedureDepth) levels")
        }
        let (def, attributes, inputTypes, values) = try resolveCall(c)
        try requireExecute(def, attributes)
        var inputs: [Value] = []
        for (i, (v, t)) in values.enumerated() { inputs.append(try castValue(v, from: t, to: inputTypes[i])) }

        let block: PLBlock
        if let cached = session.procedureBodies[def.body] {
            block = cached
        } else {
            block = try parsePLpgSQL(def.body)
            if session.procedureBodies.count >= 256 { session.procedureBodies = [:] }
            session.procedureBodies[def.body] = block
        }
        // SECURITY DEFINER runs as the owner; SET config applies for the call.
        let savedUser = session.user, savedSettings = session.settings, savedSink = session.rowSink
        session.procedureDepth += 1
        session.rowSink = nil
        defer {
            session.procedureDepth -= 1
            session.user = savedUser
            session.settings = savedSettings
            session.rowSink = savedSink
        }
        if attributes.securityDefiner { session.user = attributes.owner }
        for (k, v) in attributes.settings { session.settings[k] = v }
        let interpreter = ProcedureInterpreter(session: session, procedure: def, attributes: attributes, block: block,
                                               context: context)
        let outputs = try interpreter.run(arguments: inputs)
        guard !outputs.isEmpty else { return StatementResult(tag: "CALL") }
        var columns: [ResultColumn] = []
        var vectors: [Vector] = []
        for (i, o) in outputs.enumerated() {
            columns.append(ResultColumn(name: o.name.isEmpty ? "$\(i + 1)" : o.name, type: o.type))
            var v = Vector(type: o.type)
            v.append(o.value)
            vectors.append(v)
        }
        return StatementResult(tag: "CALL", columns: columns, chunks: [Chunk(columns: vectors, count: 1)])
    }

    /// A constant converted to `to` as CAST would (nothing to do for NULL or the same type).
    func castValue(_ v: Value, from: DataType, to: DataType) throws -> Value {
        if v.isNull || from == to || to == .unknown { return v }
        if from != .unknown {
            // The stored value itself (SUPER's JSON, VARBYTE's hexadecimal would not read
            // back from their text as the same value).
            guard TypeRules.canCast(from, to) else {
                throw SQLError(.datatypeMismatch, "cannot cast type \(TypeRules.displayName(from)) to \(TypeRules.displayName(to))")
            }
            return try evaluateConstant(.cast(.constant(v, from), to))
        }
        guard let text = v.formatted(as: from) else { return .null }
        var e = Expr(.literal(.string(text)))
        if from != .unknown { e = Expr(.cast(e, from, .cast)) }
        return try evaluateConstant(try session.bindStandaloneExpr(Expr(.cast(e, to, .cast))))
    }
}
