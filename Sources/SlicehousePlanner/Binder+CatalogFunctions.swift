import SlicehouseTypes
import SlicehouseSQL

/// The catalog functions drivers and tools call in their metadata queries, written as
/// expressions the binder already knows: `format_type(oid, typmod)`, `pg_get_expr(expr,
/// relation)`, `pg_table_is_visible(oid)`, `obj_description` / `col_description` /
/// `shobj_description` (no comments are kept: NULL), `pg_get_viewdef(oid)` (constant: the
/// session answers), `current_schemas(bool)`.
extension Binder {
    static let catalogFunctionNames: Set<String> = [
        "format_type", "pg_get_expr", "pg_table_is_visible", "obj_description", "col_description", "shobj_description",
        "pg_get_viewdef", "current_schemas", "pg_encoding_to_char", "has_schema_privilege", "pg_get_userbyid",
    ]

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
                                          (1114, "timestamp without time zone"), (1184, "timestamp with time zone")]
            var whens = names.map { SlicehouseSQL.WhenClause(condition: int($0.0), result: lit($0.1)) }
            whens.append(SlicehouseSQL.WhenClause(condition: int(1043), result: sized("character varying", text(inner))))
            whens.append(SlicehouseSQL.WhenClause(condition: int(1042), result: sized("character", text(inner))))
            whens.append(SlicehouseSQL.WhenClause(condition: int(1700), result: sized("numeric", bin(.concat, bin(.concat,
                text(bin(.divide, inner, int(65536))), lit(",")), text(bin(.modulo, inner, int(65536)))))))
            let expr = Expr(.caseWhen(CaseExpr(operand: t, whens: whens, elseResult: lit("???"))), at: loc)
            return try bindExpr(expr, scope, agg: agg)
        case "pg_get_userbyid":
            // Until users are kept: id 1 is rdsdb, any other the session's user.
            try arity(1...1)
            let expr = Expr(.caseWhen(CaseExpr(operand: f.args[0], whens: [SlicehouseSQL.WhenClause(condition: int(1), result: lit("rdsdb"))],
                                               elseResult: Expr(.function(FunctionCall(name: "current_user")), at: loc))), at: loc)
            return try bindExpr(expr, scope, agg: agg)
        case "pg_get_expr":
            try arity(2...3)
            return try bindExpr(f.args[0], scope, agg: agg)
        case "pg_table_is_visible", "has_schema_privilege":
            // Every relation pg_class lists is the session's to see (other sessions'
            // temporary tables are left out of it).
            for a in f.args { _ = try bindExpr(a, scope, agg: agg) }
            return .constant(.bool(true), .boolean)
        case "obj_description", "col_description", "shobj_description":
            try arity(1...2)
            for a in f.args { _ = try bindExpr(a, scope, agg: agg) }
            return .constant(.null, .varchar(256))
        case "pg_encoding_to_char":
            try arity(1...1)
            return .constant(.string("UTF8"), .varchar(64))
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
