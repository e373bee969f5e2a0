// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan
import SlicehouseFunctions
import SlicehouseSQL
import SlicehouseCatalog

/// The catalog functions drivers and tools call in their metadata queries, written as
/// expressions the binder already knows: `format_type(oid, typmod)`, `pg_get_expr(expr,
/// relation)`, `pg_table_is_visible(oid)`, `obj_description` / `col_description` /
/// `shobj_description` (COMMENT ON's texts), `pg_get_viewdef(oid)` (constant: the
/// session answers), `current_schemas(bool)`.
extension Binder {
    static let catalogFunctionNames: Set<String> = [
        "format_type", "pg_get_expr", "pg_table_is_visible", "obj_description", "col_description", "shobj_description",
        "pg_get_viewdef", "current_schemas", "pg_encoding_to_char", "has_schema_privilege", "has_table_privilege",
        "pg_get_userbyid", "format_encoding", "regclass", "regproc", "regprocedure", "regclassout", "regprocout",
        "regprocedureout", "textin", "slice_num", "pg_get_constraintdef", "aclcontains", "makeaclitem", "aclitem", "_aclitem",
        "?array_text_element?", "?array?", "regtype", "regnamespace", "regtypeout", "regnamespaceout",
        "pg_get_function_result", "pg_get_function_arguments", "pg_get_function_identity_arguments",
        "pg_table_size", "pg_relation_size", "pg_total_relation_size", "pg_indexes_size", "pg_get_ruledef",
        "pg_function_is_visible", "pg_type_is_visible", "pg_get_triggerdef", "pg_get_indexdef",
    ]

    /// pg_attribute.attencodingtype's codes, each at its position: `format_encoding(code)`
    /// names them (0 is RAW, shown as Redshift shows it, "none").
    public static let encodingNames = ["none", "bytedict", "delta", "delta32k", "lzo", "mostly8", "mostly16", "mostly32",
                                       "runlength", "text255", "text32k", "zstd", "az64"]

    /// The call rewritten or answered, or nil when `f` is not one of these functions.
    func bindCatalogFunction(_ f: FunctionCall, _ e: Expr, _ scope: Scope, _ agg: AggregationContext?) throws -> BoundExpr? {
        guard Binder.catalogFunctionNames.contains(f.name), f.over == nil, !f.star,
              f.schema == nil || f.schema == "pg_catalog" else { return nil }
        let loc = e.location
        func lit(_ s: String) -> Expr { Expr(.literal(.string(s)), at: loc) }
        func int(_ n: Int) -> Expr { Expr(.literal(.integer(String(n))), at: loc) }
        func bin(_ op: BinaryOperator, _ a: Expr, _ b: Expr) -> Expr { Expr(.binary(op, a, b), at: loc) }
        func text(_ x: Expr) -> Expr { Expr(.cast(x, .varchar(64), .cast), at: loc) }
        func arity(_ n: ClosedRange<Int>) throws {
            guard n.contains(f.args.count) else {
                throw err(.undefinedFunction, "function \(f.name) with \(f.args.count) arguments does not exist", e)
            }
        }
        switch f.name {
        case "format_type":
            try arity(2...2)
            let t = f.args[0], m = f.args[1]
            let inner = bin(.subtract, m, int(4))
            func sized(_ name: String, _ body: Expr) -> Expr {
                Expr(.caseWhen(CaseExpr(whens: [SlicehouseSQL.WhenClause(condition: bin(.greaterOrEqual, m, int(4)),
                                                            result: bin(.concat, bin(.concat, lit(name + "("), body), lit(")")))],
                                        elseResult: lit(name))), at: loc)
            }
            let names: [(Int, String)] = [(16, "boolean"), (18, "\"char\""), (19, "name"), (20, "bigint"), (21, "smallint"),
                                          (23, "integer"), (25, "text"), (26, "oid"), (700, "real"), (701, "double precision"),
                                          (705, "unknown"), (1082, "date"), (1083, "time without time zone"),
                                          (1114, "timestamp without time zone"), (1184, "timestamp with time zone"),
                                          (1005, "smallint[]"), (1007, "integer[]"), (1016, "bigint[]")]
            var whens = names.map { SlicehouseSQL.WhenClause(condition: int($0.0), result: lit($0.1)) }
            whens.append(SlicehouseSQL.WhenClause(condition: int(1043), result: sized("character varying", text(inner))))
            whens.append(SlicehouseSQL.WhenClause(condition: int(1042), result: sized("character", text(inner))))
            whens.append(SlicehouseSQL.WhenClause(condition: int(1700), result: sized("numeric", bin(.concat, bin(.concat,
                text(bin(.divide, inner, int(65536))), lit(",")), text(bin(.modulo, inner, int(65536)))))))
            let expr = Expr(.caseWhen(CaseExpr(operand: t, whens: whens, elseResult: lit("???"))), at: loc)
            return try bindExpr(expr, scope, agg: agg)
        case "pg_get_userbyid":
            // Id 1 is rdsdb; the others are the database's users (the session lists them).
            try arity(1...1)
            var whens = [SlicehouseSQL.WhenClause(condition: int(1), result: lit("rdsdb"))]
            if let (list, _) = try catalog.sessionCall("pg_user_ids", []), case .string(let text) = list {
                for pair in text.split(separator: ",") {
                    let parts = pair.split(separator: "=", maxSplits: 1)
                    if parts.count == 2, let id = Int(parts[0]) { whens.append(SlicehouseSQL.WhenClause(condition: int(id), result: lit(String(parts[1])))) }
                }
            }
            let unknown = bin(.concat, bin(.concat, lit("unknown (OID="), text(f.args[0])), lit(")"))
            let expr = Expr(.caseWhen(CaseExpr(operand: f.args[0], whens: whens, elseResult: unknown)), at: loc)
            return try bindExpr(expr, scope, agg: agg)
        case "format_encoding":
            // The encoding's name for pg_attribute.attencodingtype; NULL for a code that
            // names none.
            try arity(1...1)
            let code = try bindExpr(f.args[0], scope, agg: agg)
            guard code.type.isInteger || code.type == .unknown else {
                throw err(.undefinedFunction, "function format_encoding(\(code.type.sqlName)) does not exist", e)
            }
            let whens = Binder.encodingNames.enumerated().map { SlicehouseSQL.WhenClause(condition: int($0.offset), result: lit($0.element)) }
            let expr = Expr(.caseWhen(CaseExpr(operand: f.args[0], whens: whens, elseResult: nil)), at: loc)
            return try coerce(try bindExpr(expr, scope, agg: agg), to: .varchar(64))
        case "pg_get_function_result", "pg_get_function_arguments", "pg_get_function_identity_arguments",
             "pg_table_size", "pg_relation_size", "pg_total_relation_size", "pg_indexes_size", "pg_get_ruledef",
             "pg_function_is_visible", "pg_get_triggerdef", "pg_get_indexdef":
            // A CASE over every object the catalog has a value for; NULL for another oid
            // (pg_get_triggerdef always: there are no triggers). The further arguments —
            // pretty printing, pg_get_indexdef's column number — change nothing here.
            try arity(f.name == "pg_get_indexdef" ? 1...3 : f.name.hasPrefix("pg_get_") && f.name.hasSuffix("def") ? 1...2 : 1...1)
            for a in f.args.dropFirst() { _ = try bindExpr(a, scope, agg: agg) }
            let oid = try bindExpr(f.args[0], scope, agg: agg)
            guard oid.type.isInteger || oid.type == .unknown else {
                throw err(.undefinedFunction, "function \(f.name)(\(oid.type.sqlName)) does not exist", e)
            }
            let type: DataType = f.name.hasSuffix("_size") ? .bigint : f.name.hasSuffix("_visible") ? .boolean : .varchar(65535)
            // Redshift keeps no indexes: pg_indexes_size is 0 for every table.
            let values = f.name == "pg_indexes_size" ? catalog.catalogValues("pg_table_size").map { ($0.oid, Value.int(0)) }
                : catalog.catalogValues(f.name).map { ($0.oid, $0.value) }
            func literal(_ v: Value) -> Expr {
                switch v {
                case .int(let n): return int(Int(n))
                case .string(let s): return lit(s)
                case .bool(let b): return Expr(.literal(.boolean(b)), at: loc)
                default: return Expr(.literal(.null), at: loc)
                }
            }
            let whens = values.map { SlicehouseSQL.WhenClause(condition: int(Int($0.0)), result: literal($0.1)) }
            if whens.isEmpty { return .constant(.null, type) }
            let expr = Expr(.caseWhen(CaseExpr(operand: f.args[0], whens: whens, elseResult: nil)), at: loc)
            return try coerce(try bindExpr(expr, scope, agg: agg), to: type)
        case "regclass", "regproc", "regprocedure", "regtype", "regnamespace",
             "regclassout", "regprocout", "regprocedureout", "regtypeout", "regnamespaceout":
            // PostgreSQL's object identifier types without a type of their own: a name
            // (text) in gives its oid; an oid in gives the name as the type prints it
            // (`regprocedureout(oid::regprocedure)` is that text too).
            try arity(1...1)
            let kind = f.name.hasSuffix("out") ? String(f.name.dropLast(3)) : f.name
            let arg = try bindExpr(f.args[0], scope, agg: agg)
            if arg.type.isString || arg.type == .unknown {
                if f.name.hasSuffix("out") { return try coerce(arg, to: .varchar(65535)) }
                guard case .constant = arg else {
                    throw err(.featureNotSupported, "\(kind) input takes a constant name", f.args[0])
                }
                let v = try evaluateConstant(try coerce(arg, to: .varchar(65535)))
                guard case .string(let text) = v else { return .constant(.null, .integer) }
                do {
                    return .constant(.int(try catalog.objectOID(kind, text)), .integer)
                } catch var error as SQLError {
                    if error.line == nil { error.line = loc.line; error.column = loc.column }
                    throw error
                }
            }
            guard arg.type.isInteger else {
                throw err(.datatypeMismatch, "cannot cast type \(arg.type.sqlName) to \(kind)", f.args[0])
            }
            // An oid that names nothing prints as the number, as in PostgreSQL.
            let whens = catalog.objectNames(kind).map { SlicehouseSQL.WhenClause(condition: int(Int($0.oid)), result: lit($0.name)) }
            let expr = Expr(.caseWhen(CaseExpr(operand: f.args[0], whens: whens, elseResult: text(f.args[0]))), at: loc)
            return try coerce(try bindExpr(expr, scope, agg: agg), to: .varchar(65535))
        case "pg_get_constraintdef":
            // A CASE over every constraint's oid (pg_constraint's rows); NULL for another oid.
            try arity(1...2)
            let oid = try bindExpr(f.args[0], scope, agg: agg)
            guard oid.type.isInteger || oid.type == .unknown else {
                throw err(.undefinedFunction, "function pg_get_constraintdef(\(oid.type.sqlName)) does not exist", e)
            }
            if f.args.count == 2 { _ = try bindExpr(f.args[1], scope, agg: agg) }
            let whens = catalog.constraintDefinitions().map {
                SlicehouseSQL.WhenClause(condition: int(Int($0.oid)), result: lit($0.definition))
            }
            if whens.isEmpty { return .constant(.null, .varchar(65535)) }
            let expr = Expr(.caseWhen(CaseExpr(operand: f.args[0], whens: whens, elseResult: nil)), at: loc)
            return try coerce(try bindExpr(expr, scope, agg: agg), to: .varchar(65535))
        case "aclitem", "_aclitem":
            // `x::aclitem` / `x::aclitem[]`: the text, which a constant must spell as one
            // (`'{}'::aclitem[]`, `'alice=r/bob'::aclitem`), printed as PostgreSQL would.
            try arity(1...1)
            let arg = try bindExpr(f.args[0], scope, agg: agg)
            guard arg.type.isString || arg.type == .unknown else {
                throw err(.datatypeMismatch, "cannot cast type \(arg.type.sqlName) to \(f.name == "aclitem" ? "aclitem" : "aclitem[]")", f.args[0])
            }
            let text = try coerce(arg, to: .varchar(DataType.maxVarcharLength))
            guard case .constant = arg else { return text }
            guard case .string(let s) = try evaluateConstant(text) else { return .constant(.null, .varchar(DataType.maxVarcharLength)) }
            if f.name == "aclitem" {
                guard let item = ACLItem.parse(s) else {
                    throw err(.invalidText, "invalid input syntax for type aclitem: \"\(s)\"", f.args[0])
                }
                return .constant(.string(item.text), .varchar(DataType.maxVarcharLength))
            }
            guard let items = ACLItem.parseArray(s) else {
                throw err(.invalidText, "invalid input syntax for type aclitem[]: \"\(s)\"", f.args[0])
            }
            return .constant(.string(ACLItem.arrayText(items.map(\.text))), .varchar(DataType.maxVarcharLength))
        case "?array?":
            // ARRAY[e1, e2, ...] (Parser.parseArrayConstructor): an integer array when every
            // element is an integer (or NULL), as `array[1::smallint]` beside
            // pg_constraint.conkey is; otherwise the array's text.
            let items = try f.args.map { try bindExpr($0, scope, agg: agg) }
            var element: DataType = .unknown
            for item in items {
                guard let t = TypeRules.commonType(element, item.type) else { element = .text; break }
                element = t
            }
            let integers = ArrayElement(element)
            let type: DataType = integers.map { .array($0) } ?? .varchar(DataType.maxVarcharLength)
            // Each element as the element type first (`array[1, 'a']` fails as in PostgreSQL), then as text.
            let texts = try items.map { item -> BoundExpr in
                let typed = integers == nil ? item : try coerce(item, to: element)
                return typed.type.isString ? typed : BoundExpr.cast(typed, .varchar(TypeRules.stringLength(typed.type)))
            }
            return .function(Builtins.internals.arrayConstruct, texts, type)
        case "?array_text_element?":
            // `a[i]` over an array's text (the subscript's rewrite, Binder.bindFunction).
            try arity(2...2)
            let long = DataType.varchar(DataType.maxVarcharLength)
            let array = try coerce(try bindExpr(f.args[0], scope, agg: agg), to: long)
            let index = try coerce(try bindExpr(f.args[1], scope, agg: agg), to: .bigint)
            return .function(Builtins.internals.arrayTextElement, [array, index], long)
        case "aclcontains":
            // aclcontains(aclitem[], aclitem): whether an item of the array has the second's
            // grantee and grantor and at least its privileges (PostgreSQL 8.0's).
            try arity(2...2)
            let acl = try bindExpr(f.args[0], scope, agg: agg), item = try bindExpr(f.args[1], scope, agg: agg)
            for a in [acl, item] where !(a.type.isString || a.type == .unknown) {
                throw err(.undefinedFunction, "function aclcontains(\(acl.type.sqlName), \(item.type.sqlName)) does not exist", e)
            }
            let long = DataType.varchar(DataType.maxVarcharLength)
            return .function(Builtins.internals.aclContains, [try coerce(acl, to: long), try coerce(item, to: long)], .boolean)
        case "makeaclitem":
            // makeaclitem(user id, group id, grantor id, privilege, grant option): PostgreSQL
            // 8.0's, a user's item, a group's, or PUBLIC's when both ids are 0. The ids'
            // names are looked up here (users as pg_get_userbyid, groups as pg_group).
            try arity(5...5)
            func names(_ call: String, _ id: Expr, extra: [(Int, String)]) throws -> Expr {
                var whens = extra.map { SlicehouseSQL.WhenClause(condition: int($0.0), result: lit($0.1)) }
                if let (list, _) = try catalog.sessionCall(call, []), case .string(let text) = list {
                    for pair in text.split(separator: ",") {
                        let parts = pair.split(separator: "=", maxSplits: 1)
                        if parts.count == 2, let n = Int(parts[0]) {
                            whens.append(SlicehouseSQL.WhenClause(condition: int(n), result: lit(String(parts[1]))))
                        }
                    }
                }
                if whens.isEmpty { return Expr(.literal(.null), at: loc) }
                return Expr(.caseWhen(CaseExpr(operand: id, whens: whens, elseResult: nil)), at: loc)
            }
            let long = DataType.varchar(DataType.maxVarcharLength)
            var args: [BoundExpr] = []
            for (i, a) in f.args.enumerated() {
                let b = try bindExpr(a, scope, agg: agg)
                let ok = i == 3 ? (b.type.isString || b.type == .unknown) : i == 4 ? (b.type == .boolean || b.type == .unknown)
                    : (b.type.isInteger || b.type == .unknown)
                guard ok else {
                    throw err(.undefinedFunction, "function makeaclitem: argument \(i + 1) cannot be \(b.type.sqlName)", a)
                }
                args.append(try coerce(b, to: i == 3 ? long : i == 4 ? .boolean : .bigint))
            }
            let userName = try names("pg_user_ids", f.args[0], extra: [(1, "rdsdb")])
            let groupName = try names("pg_group_ids", f.args[1], extra: [])
            let grantorName = try names("pg_user_ids", f.args[2], extra: [(1, "rdsdb")])
            for n in [userName, groupName, grantorName] { args.append(try coerce(try bindExpr(n, scope, agg: agg), to: long)) }
            return .function(Builtins.internals.makeACLItem, args, long)
        case "slice_num":
            // The slice the row's data is on (its row id's high bits); without a table, the
            // leader's code 10000, as in Redshift.
            try arity(0...0)
            guard let rowID = sliceNumberColumn else { return .constant(.int(10_000), .integer) }
            let slice = BoundExpr.function(Builtins.math.shiftRight, [.column(rowID.id, .bigint), .constant(.int(40), .bigint)], .bigint)
            return .cast(slice, .integer)
        case "textin":
            // PostgreSQL's text input function: its argument (a regprocedureout's cstring) as text.
            try arity(1...1)
            return try coerce(try bindExpr(f.args[0], scope, agg: agg), to: .varchar(65535))
        case "pg_get_expr":
            try arity(2...3)
            return try bindExpr(f.args[0], scope, agg: agg)
        case "pg_type_is_visible":
            // Every type is pg_catalog's, which every search path sees.
            try arity(1...1)
            let oid = try bindExpr(f.args[0], scope, agg: agg)
            guard oid.type.isInteger || oid.type == .unknown else {
                throw err(.undefinedFunction, "function pg_type_is_visible(\(oid.type.sqlName)) does not exist", e)
            }
            return try bindExpr(Expr(.isNull(f.args[0], negated: true), at: loc), scope, agg: agg)
        case "pg_table_is_visible":
            // Whether the relation would be found by its bare name: its oid among those
            // the session lists (search_path order, the temporary schema first).
            try arity(1...1)
            guard let (list, _) = try catalog.sessionCall("pg_visible_relation_oids", []), case .string(let text) = list else {
                return .constant(.bool(true), .boolean)
            }
            let oids = text.split(separator: ",").map { int(Int($0) ?? 0) }
            if oids.isEmpty {
                _ = try bindExpr(f.args[0], scope, agg: agg)
                return .constant(.bool(false), .boolean)
            }
            return try bindExpr(Expr(.inList(f.args[0], oids, negated: false), at: loc), scope, agg: agg)
        case "has_schema_privilege", "has_table_privilege":
            try arity(2...3)
            return try privilegeTest(f, scope, agg)
        case "obj_description", "col_description", "shobj_description":
            // COMMENT ON's texts (pg_description): col_description(table oid, column
            // number); obj_description(oid [, catalog]) and shobj_description(oid, catalog)
            // of the object itself (objsubid 0). NULL when there is none.
            try arity(f.name == "obj_description" ? 1...2 : 2...2)
            for a in f.args { _ = try bindExpr(a, scope, agg: agg) }
            let classes: [String: Int64] = ["pg_class": 1259, "pg_namespace": 2615, "pg_database": 1262]
            var wanted: Int64? = nil
            if f.name != "col_description", f.args.count == 2 {
                let b = try bindExpr(f.args[1], scope, agg: agg)
                guard case .constant = b, case .string(let catalogName) = try evaluateConstant(try coerce(b, to: .varchar(128))) else {
                    throw err(.featureNotSupported, "\(f.name)() takes a constant catalog name", f.args[1])
                }
                let lower = catalogName.lowercased()
                wanted = classes[lower.hasPrefix("pg_catalog.") ? String(lower.dropFirst("pg_catalog.".count)) : lower] ?? -1
            }
            var whens: [SlicehouseSQL.WhenClause] = []
            for d in catalog.descriptions() {
                if f.name == "col_description" {
                    guard d.classoid == 1259, d.objsubid > 0 else { continue }
                    whens.append(SlicehouseSQL.WhenClause(condition: bin(.and, bin(.equal, f.args[0], int(Int(d.objoid))),
                                                                      bin(.equal, f.args[1], int(Int(d.objsubid)))),
                                                       result: lit(d.text)))
                } else {
                    guard d.objsubid == 0, wanted.map({ $0 == d.classoid }) ?? true else { continue }
                    whens.append(SlicehouseSQL.WhenClause(condition: bin(.equal, f.args[0], int(Int(d.objoid))), result: lit(d.text)))
                }
            }
            if whens.isEmpty { return .constant(.null, .varchar(256)) }
            return try coerce(try bindExpr(Expr(.caseWhen(CaseExpr(whens: whens, elseResult: nil)), at: loc), scope, agg: agg),
                              to: .varchar(256))
        case "pg_encoding_to_char":
            try arity(1...1)
            return .constant(.string("UTF8"), .varchar(64))
        case "pg_get_viewdef" where !f.args.isEmpty && f.args.count <= 2:
            // Over a column (`pg_get_viewdef(c.oid, true)` per pg_class row): a CASE over
            // every view's oid; a constant argument is answered by the session below.
            let first = try bindExpr(f.args[0], scope, agg: agg)
            if case .constant = first { fallthrough }
            guard first.type.isInteger else {
                throw err(.featureNotSupported, "pg_get_viewdef() over a column takes a view's oid", f.args[0])
            }
            let whens = catalog.viewDefinitions().map {
                SlicehouseSQL.WhenClause(condition: int(Int($0.oid)), result: lit($0.definition))
            }
            if whens.isEmpty { return .constant(.null, .varchar(65535)) }
            let expr = Expr(.caseWhen(CaseExpr(operand: f.args[0], whens: whens, elseResult: nil)), at: loc)
            return try coerce(try bindExpr(expr, scope, agg: agg), to: .varchar(65535))
        default:
            // pg_get_viewdef, current_schemas: constant arguments, answered by the session.
            var values: [Value] = []
            for a in f.args {
                let b = try bindExpr(a, scope, agg: nil)
                guard case .constant = b else {
                    throw err(.featureNotSupported, "\(f.name)() takes constant arguments", a)
                }
                values.append(try evaluateConstant(b))
            }
            guard let (v, t) = try catalog.sessionCall(f.name, values) else {
                throw err(.undefinedFunction, "function \(f.name) does not exist", e)
            }
            return .constant(v, t)
        }
    }
}

extension Binder {
    /// POSIX match operators `~`, `~*`, `!~`, `!~*` (what catalog queries filter names
    /// with), as `REGEXP_COUNT(a, b[, 1, 'i']) > 0`, negated for `!~`.
    func bindRegexOperator(_ op: BinaryOperator, _ l: Expr, _ r: Expr, _ e: Expr, _ scope: Scope,
                           _ agg: AggregationContext?) throws -> BoundExpr? {
        let insensitive: Bool, negated: Bool
        let bitwise: [BinaryOperator: ScalarFunction] = [.bitwiseAnd: Builtins.math.bitwiseAnd, .bitwiseOr: Builtins.math.bitwiseOr,
                                                         .bitwiseXor: Builtins.math.bitwiseXor, .shiftLeft: Builtins.math.shiftLeft,
                                                         .shiftRight: Builtins.math.shiftRight]
        if let fn = bitwise[op] {
            var a = try bindExpr(l, scope, agg: agg), b = try bindExpr(r, scope, agg: agg)
            guard a.type.isInteger || a.type == .unknown, b.type.isInteger || b.type == .unknown else {
                throw err(.undefinedFunction, "operator does not exist: \(a.type.sqlName) \(op.symbol) \(b.type.sqlName)", e)
            }
            // Shifts keep the left operand's type; the others take the wider one (at least INTEGER).
            let wide: DataType = a.type == .bigint || (fn != Builtins.math.shiftLeft && fn != Builtins.math.shiftRight && b.type == .bigint) ? .bigint : .integer
            let t: DataType = (fn == Builtins.math.shiftLeft || fn == Builtins.math.shiftRight) && a.type == .smallint ? .smallint : wide
            a = try coerce(a, to: t)
            b = try coerce(b, to: fn == Builtins.math.shiftLeft || fn == Builtins.math.shiftRight ? .integer : t)
            return .function(fn, [a, b], t)
        }
        switch op {
        case .regexMatch: (insensitive, negated) = (false, false)
        case .regexMatchInsensitive: (insensitive, negated) = (true, false)
        case .regexNotMatch: (insensitive, negated) = (false, true)
        case .regexNotMatchInsensitive: (insensitive, negated) = (true, true)
        default: return nil
        }
        let loc = e.location
        var args = [l, r]
        if insensitive { args += [Expr(.literal(.integer("1")), at: loc), Expr(.literal(.string("i")), at: loc)] }
        let count = Expr(.function(FunctionCall(name: "regexp_count", args: args)), at: loc)
        var test = Expr(.binary(.greater, count, Expr(.literal(.integer("0")), at: loc)), at: loc)
        if negated { test = Expr(.unary(.not, test), at: loc) }
        return try bindExpr(test, scope, agg: agg)
    }
}

extension Binder {
    /// The select list's `expr AS alias` items without aggregates (what WHERE may name).
    static func selectAliases(_ items: [SelectItem]) -> [String: Expr] {
        var out: [String: Expr] = [:]
        for item in items {
            guard case .expr(let e, let alias?) = item else { continue }
            if case .function(let f) = e.kind, f.over != nil { continue }
            out[alias] = out[alias] ?? e
        }
        return out
    }

    /// An unqualified name in WHERE or the select list that is no column of FROM but a
    /// select-list alias (in the select list: of an earlier item): the aliased expression
    /// (Redshift's lateral column alias, as redshift_connector's metadata queries use it).
    /// Nil otherwise.
    func bindLateralAlias(_ ref: ColumnRef, _ scope: Scope, _ agg: AggregationContext?) throws -> BoundExpr? {
        guard ref.parts.count == 1, let e = lateralAliases[ref.parts[0]], !containsAggregate(e) else { return nil }
        let saved = lateralAliases
        lateralAliases[ref.parts[0]] = nil   // an alias does not name itself
        defer { lateralAliases = saved }
        return try bindExpr(e, scope, agg: agg)
    }
}

extension Binder {
    /// `has_schema_privilege` / `has_table_privilege([user,] object, privilege)`. With
    /// constant arguments the session answers from the grants. With a column for the user
    /// or the object (an admin view over every user and table), the privilege must be
    /// constant, and the call is `user || '\x01' || object IN (...)` over every pair the
    /// session answers true for — so each row gets its own answer, NULL when an argument is.
    func privilegeTest(_ f: FunctionCall, _ scope: Scope, _ agg: AggregationContext?) throws -> BoundExpr {
        let loc = f.args.first?.location ?? .unknown
        let bound = try f.args.map { try bindExpr($0, scope, agg: agg) }
        if bound.allSatisfy({ if case .constant = $0 { return true }; return false }) {
            let values = try bound.map { try evaluateConstant($0) }
            if let (v, t) = try catalog.sessionCall(f.name, values) { return .constant(v, t) }
            throw SQLError(.undefinedFunction, "function \(f.name) is not available here", line: loc.line, column: loc.column)
        }
        guard case .constant(let privilegeValue, _) = bound[bound.count - 1] else {
            // The privilege from a column (dbt's grant listing crosses pg_user with a
            // list of privilege words): `CASE lower(trim(p)) WHEN 'select' THEN
            // f(user, object, 'select') ... END`, each branch with a constant privilege.
            let words = f.name == "has_schema_privilege" ? Privilege.schema : Privilege.table
            let privilegeArg = f.args[f.args.count - 1]
            let operand = Expr(.function(FunctionCall(name: "lower", args: [
                Expr(.function(FunctionCall(name: "btrim", args: [privilegeArg])), at: privilegeArg.location)])),
                               at: privilegeArg.location)
            let whens = words.map { p -> SlicehouseSQL.WhenClause in
                var call = f
                call.args[call.args.count - 1] = Expr(.literal(.string(p.rawValue)), at: privilegeArg.location)
                return SlicehouseSQL.WhenClause(condition: Expr(.literal(.string(p.rawValue))), result: Expr(.function(call), at: loc))
            }
            // Any other word: PostgreSQL's error (NULL for NULL), raised when a row has it.
            let cases = try bindExpr(Expr(.caseWhen(CaseExpr(operand: operand, whens: whens)), at: loc), scope, agg: agg)
            guard case .caseWhen(let ws, nil, let type) = cases else { return cases }
            let other = BoundExpr.function(Builtins.internals.unrecognizedPrivilege,
                                           [try coerce(bound[bound.count - 1], to: .varchar(65535))], .boolean)
            return .caseWhen(ws, elseResult: other, type)
        }
        if privilegeValue.isNull { return .constant(.null, .boolean) }
        // A constant object is looked up once, by the name as written (dbt's grant listing
        // names it `"db"."schema"."table"`); else every object under each of its names.
        var constantObject: String? = nil
        if case .constant(let v, _) = bound[bound.count - 2] {
            if v.isNull { return .constant(.null, .boolean) }
            switch v {
            case .int(let i): constantObject = String(i)
            default: constantObject = v.asString
            }
        }
        let keys = try catalog.privilegeKeys(f.name, privilege: privilegeValue.asString ?? "", object: constantObject)
        let userExpr: BoundExpr
        if bound.count == 3 {
            userExpr = try coerce(bound[0], to: .varchar(65535))
        } else {
            guard let (user, _) = catalog.sessionFunction("current_user") else {
                throw SQLError.internalError("\(f.name): no current user")
            }
            userExpr = .constant(user, .varchar(65535))
        }
        // A table's OID or its name, in lower case as the grants hold names.
        let object = try coerce(bound[bound.count - 2], to: .varchar(65535))
        let lowered = BoundExpr.function(Builtins.strings.lower, [object], .varchar(65535))
        let separator = BoundExpr.constant(.string("\u{1}"), .varchar(1))
        let key = BoundExpr.function(Builtins.strings.concat, [
            .function(Builtins.strings.concat, [.function(Builtins.strings.lower, [userExpr], .varchar(65535)), separator], .varchar(65535)),
            lowered], .varchar(65535))
        // No pair at all: a key no name makes (false for every row, NULL where an argument is).
        let list = keys.isEmpty ? ["\u{2}"] : keys
        return .inList(key, list.map { .constant(.string($0), .varchar(max(1, $0.utf8.count))) }, negated: false)
    }
}
