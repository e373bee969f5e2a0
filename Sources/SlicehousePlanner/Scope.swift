// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan
import SlicehouseCatalog
import SlicehouseSQL

/// Tables and views visible to the binder (the catalog plus system tables).
public protocol BinderCatalog {
    /// The table or view `name` names, looked up through `searchPath` when it has no
    /// schema (nil: the session's search_path); nil when there is none. Throws when the
    /// name is not allowed (another database) or the table exists but cannot be used
    /// (its files are damaged).
    func relation(_ name: ObjectName, searchPath: [String]?) throws -> CatalogRelation?
    /// Session-level functions without arguments that the leader answers
    /// (`pg_last_copy_count()`, `version()`, `current_user`, ...), or nil.
    func sessionFunction(_ name: String) -> (Value, DataType)?
    /// Session-level functions with constant arguments that act when the statement is
    /// planned (`pg_cancel_backend(pid)`, `pg_terminate_backend(pid)`), or nil.
    func sessionCall(_ name: String, _ args: [Value]) throws -> (Value, DataType)?
    /// The SQL functions a call of `name` may mean: in `schema` when the call names one,
    /// else in the first schema of the search path that has any.
    func userFunctions(named name: String, schema: String?) -> [UserFunction]
    func sessionTimeZone() -> String?
    /// Whether the session's DATESTYLE reads `01-02-2008` day first (DMY).
    func sessionDayFirst() -> Bool
    /// How the session reads SQL text (a late-binding view's is read so).
    func sessionParseOptions() -> ParseOptions
    /// enable_case_sensitive_super_attribute: SUPER navigation matches names exactly.
    func sessionCaseSensitiveSuperAttributes() -> Bool
    /// For `has_schema_privilege` / `has_table_privilege` over columns: every
    /// `user + "\u{1}" + object` the function answers true for with `privilege` — over
    /// every object, or (`object` given: the user alone is a column) that one, keyed by
    /// its text as written, in lower case.
    func privilegeKeys(_ function: String, privilege: String, object: String?) throws -> [String]
    /// For `pg_get_viewdef(oid)` over a column: every view's oid and definition.
    func viewDefinitions() -> [(oid: Int64, definition: String)]
    /// `'name'::regclass` (`kind` "regclass"), `'f'::regproc`, `'f(integer)'::regprocedure`:
    /// the oid the text names, or an error naming what does not exist.
    func objectOID(_ kind: String, _ text: String) throws -> Int64
    /// `oid::regclass` (and regproc, regprocedure) over a column: every object's oid and its
    /// text as PostgreSQL prints the type (a relation's name; a function's, with its
    /// argument types for regprocedure).
    func objectNames(_ kind: String) -> [(oid: Int64, name: String)]
    /// COMMENT ON's texts, as pg_description holds them (obj_description, col_description).
    func descriptions() -> [(objoid: Int64, classoid: Int64, objsubid: Int64, text: String)]
    /// For `pg_get_constraintdef(oid)`: every pg_constraint row's oid and definition.
    func constraintDefinitions() -> [(oid: Int64, definition: String)]
    /// For a catalog function of one oid over a column (`pg_get_function_result`,
    /// `pg_table_size`, ...): every object's oid and the function's value for it.
    func catalogValues(_ function: String) -> [(oid: Int64, value: Value)]
    /// `pg_cancel_backend(x)` / `pg_terminate_backend(x)` over a column: a kernel that
    /// signals each row's process when the statement runs (as the constant form does when
    /// it is bound), or nil where sessions cannot be signalled.
    func sessionSignal(_ function: String) -> ScalarFunction.Kernel?
    /// The values bound to the running statement's `$n` (the extended protocol's Bind),
    /// or nil when it has none.
    func statementParameters() -> [ParameterValue]?
}

/// What a name in a FROM clause stands for.
public enum CatalogRelation {
    case table(TableDef)
    case view(ViewDef)
}

extension BinderCatalog {
    public func statementParameters() -> [ParameterValue]? { nil }
    public func sessionCall(_ name: String, _ args: [Value]) throws -> (Value, DataType)? { nil }
    /// The SQL functions (`CREATE FUNCTION ... LANGUAGE sql`) a call of `name` may mean,
    /// found through the session's search_path.
    public func userFunctions(named name: String, schema: String?) -> [UserFunction] { [] }
    /// The session's `timezone` setting (nil: UTC).
    public func sessionTimeZone() -> String? { nil }
    public func sessionDayFirst() -> Bool { false }
    public func sessionParseOptions() -> ParseOptions { .standard }
    public func sessionCaseSensitiveSuperAttributes() -> Bool { false }
    public func privilegeKeys(_ function: String, privilege: String, object: String?) throws -> [String] { [] }
    public func viewDefinitions() -> [(oid: Int64, definition: String)] { [] }
    public func objectOID(_ kind: String, _ text: String) throws -> Int64 {
        throw SQLError(.undefinedObject, "\(kind) \"\(text)\" does not exist")
    }
    public func objectNames(_ kind: String) -> [(oid: Int64, name: String)] { [] }
    public func descriptions() -> [(objoid: Int64, classoid: Int64, objsubid: Int64, text: String)] { [] }
    public func constraintDefinitions() -> [(oid: Int64, definition: String)] { [] }
    public func catalogValues(_ function: String) -> [(oid: Int64, value: Value)] { [] }
    public func sessionSignal(_ function: String) -> ScalarFunction.Kernel? { nil }
}

/// The functions `BinderCatalog.sessionCall` answers.
public let sessionCallNames: Set<String> = ["pg_cancel_backend", "pg_terminate_backend"]

/// One relation in a FROM clause: its alias and its columns.
struct ScopeRelation {
    var alias: String
    var columns: [(name: String, column: PlanColumn)]
    /// Columns reached only by name, never listed by `*` (an external table's `$path`
    /// and `$size`): their plan column ids.
    var hidden: Set<Int> = []

    /// What `*` and `alias.*` list of it.
    var starColumns: [(name: String, column: PlanColumn)] {
        hidden.isEmpty ? columns : columns.filter { !hidden.contains($0.column.id) }
    }
}

/// The relations visible to an expression.
struct Scope {
    var relations: [ScopeRelation] = []
    /// The columns a JOIN ... USING (or a NATURAL JOIN) merged, one per name: reached
    /// unqualified, and listed first by `*` (PostgreSQL's and Redshift's order). Each is the
    /// left side's column (inner and left joins), the right side's (right joins) or their
    /// COALESCE (full joins).
    var merged: [(name: String, column: PlanColumn)] = []
    /// The sides' own columns the merged ones stand for: left out of `*` and of unqualified
    /// lookup, still reached qualified (`t2.k`) and by `t2.*`.
    var mergedAway: Set<Int> = []

    init(relations: [ScopeRelation] = []) {
        self.relations = relations
    }

    var allColumns: [PlanColumn] { relations.flatMap { $0.columns.map { $0.column } } }

    /// What an unqualified `*` lists: the merged columns, then each relation's other columns.
    var starColumns: [(name: String, column: PlanColumn)] {
        merged + relations.flatMap { $0.starColumns.filter { !mergedAway.contains($0.column.id) } }
    }

    /// The names an unqualified reference reaches (NATURAL JOIN matches on them).
    var visibleNames: [String] { starColumns.map { $0.name } }

    /// `other`'s relations and merged columns added after this scope's (a FROM list, a join).
    mutating func append(_ other: Scope) {
        relations += other.relations
        merged += other.merged
        mergedAway.formUnion(other.mergedAway)
    }

    func resolve(_ ref: ColumnRef, at loc: SourceLocation) throws -> PlanColumn {
        // Names come folded as the session's enable_case_sensitive_identifier says (the parser).
        let name = ref.name
        if let table = ref.table {
            guard let rel = relations.first(where: { $0.alias == table }) else {
                throw SQLError(.undefinedTable, "missing FROM-clause entry for table \"\(table)\"",
                               line: loc.line, column: loc.column)
            }
            let hits = rel.columns.filter { $0.name == name }
            guard let hit = hits.first else {
                throw SQLError(.undefinedColumn, "column \(table).\(name) does not exist", line: loc.line, column: loc.column)
            }
            return hit.column
        }
        if let m = merged.first(where: { $0.name == name }) { return m.column }
        var found: PlanColumn?
        for rel in relations {
            for c in rel.columns where c.name == name && !mergedAway.contains(c.column.id) {
                if found != nil, found?.id != c.column.id {
                    throw SQLError(.ambiguousColumn, "column reference \"\(name)\" is ambiguous", line: loc.line, column: loc.column)
                }
                found = c.column
            }
        }
        guard let found else {
            throw SQLError(.undefinedColumn, "column \"\(name)\" does not exist", line: loc.line, column: loc.column)
        }
        return found
    }

    func lookup(_ ref: ColumnRef) -> PlanColumn? {
        try? resolve(ref, at: .unknown)
    }
}
