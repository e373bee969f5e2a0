// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan
import SlicehouseSQL
import SlicehouseCatalog

/// A scalar SQL user-defined function as the binder sees it: parameter and result
/// types, and the body's expression (`$1`, `$2`, ... for the arguments).
public struct UserFunction: Sendable {
    public var name: String
    public var parameterTypes: [DataType]
    public var returnType: DataType
    public var body: Expr
    /// The catalog's key of the function (`schema.name(types)`), for its EXECUTE check.
    public var key: String

    public init(name: String, parameterTypes: [DataType], returnType: DataType, body: Expr, key: String = "") {
        self.key = key
        self.name = name
        self.parameterTypes = parameterTypes
        self.returnType = returnType
        self.body = body
    }
}

/// A SQL function a statement calls, and the view it is called in (nil: the statement
/// itself): EXECUTE is checked for the view's owner there, as for its tables.
public struct FunctionAccess: Sendable {
    public var key: String
    public var name: String
    public var enclosingView: ViewDef?
}

extension Binder {
    /// The schemas a qualified call of a built-in function may name.
    static let builtinSchemas: Set<String> = ["pg_catalog", "information_schema"]

    /// `f(args)` where `f` is a SQL UDF (`CREATE FUNCTION ... LANGUAGE sql`): its body
    /// with each `$n` replaced by `CAST(argument AS parameter type)`, cast to the return
    /// type and bound where the call stands (an inline expansion: no subquery, no call
    /// per row). Overloads are chosen by argument count, then by arguments that cast to
    /// the parameters. Nil when no UDF has the name.
    func bindUserFunction(_ f: FunctionCall, _ e: Expr, _ scope: Scope, _ agg: AggregationContext?) throws -> BoundExpr? {
        let candidates = catalog.userFunctions(named: f.name, schema: f.schema).filter { $0.parameterTypes.count == f.args.count }
        if candidates.isEmpty {
            // A call qualified with a user schema means that schema's function, never a
            // built-in or another schema's of the same name.
            if let schema = f.schema?.lowercased(), !Binder.builtinSchemas.contains(schema) {
                throw err(.undefinedFunction, "function \(schema).\(f.name) with \(f.args.count) argument(s) does not exist", e)
            }
            return nil
        }
        guard !f.star, !f.distinct, f.over == nil else { throw err(.syntax, "\(f.name) is a scalar SQL function", e) }
        userFunctionDepth += 1
        defer { userFunctionDepth -= 1 }
        guard userFunctionDepth <= 32 else { throw err(.invalidParameter, "SQL function \(f.name) calls itself", e) }
        let argTypes = try f.args.map { try bindExpr($0, scope, agg: agg).type }
        let fitting = candidates.filter { c in
            zip(argTypes, c.parameterTypes).allSatisfy { $0 == .unknown || $0 == $1 || TypeRules.canCast($0, $1) }
        }
        let exact = fitting.filter { c in zip(argTypes, c.parameterTypes).allSatisfy { $0 == .unknown || $0 == $1 } }
        guard let udf = exact.first ?? fitting.first else {
            throw err(.undefinedFunction, "function \(f.name)(\(argTypes.map { TypeRules.displayName($0) }.joined(separator: ", "))) does not exist", e)
        }
        functionCalls.append(FunctionAccess(key: udf.key, name: udf.name, enclosingView: viewStack.last))
        let args = zip(f.args, udf.parameterTypes).map { Expr(.cast($0, $1, .cast), at: $0.location) }
        let body = try Binder.substituteParameters(udf.body, args, function: f.name)
        return try bindExpr(Expr(.cast(body, udf.returnType, .cast), at: e.location), scope, agg: agg)
    }

    /// `e` with every `$n` replaced by `args[n - 1]`. A SQL function's body is one
    /// expression over its arguments: column references and subqueries are refused.
    public static func substituteParameters(_ e: Expr, _ args: [Expr], function: String) throws -> Expr {
        func sub(_ x: Expr) throws -> Expr { try substituteParameters(x, args, function: function) }
        func refuse(_ what: String) -> SQLError {
            SQLError(.featureNotSupported, "the body of SQL function \(function) cannot hold \(what)")
        }
        var out = e
        switch e.kind {
        case .literal, .typedLiteral, .interval, .defaultValue:
            return e
        case .column(let ref):
            throw SQLError(.undefinedColumn, "column \"\(ref.name)\" does not exist in SQL function \(function): name its arguments $1, $2, ...")
        case .parameter(let n):
            guard n >= 1, n <= args.count else {
                throw SQLError(.undefinedParameter, "there is no parameter $\(n) in SQL function \(function)")
            }
            return args[n - 1]
        case .unary(let op, let a): out.kind = .unary(op, try sub(a))
        case .binary(let op, let a, let b): out.kind = .binary(op, try sub(a), try sub(b))
        case .isNull(let a, let neg): out.kind = .isNull(try sub(a), negated: neg)
        case .isBoolean(let a, let v, let neg): out.kind = .isBoolean(try sub(a), value: v, negated: neg)
        case .isDistinctFrom(let a, let b, let neg): out.kind = .isDistinctFrom(try sub(a), try sub(b), negated: neg)
        case .between(let a, let l, let h, let neg): out.kind = .between(try sub(a), low: try sub(l), high: try sub(h), negated: neg)
        case .inList(let a, let list, let neg): out.kind = .inList(try sub(a), try list.map(sub), negated: neg)
        case .row(let items): out.kind = .row(try items.map(sub))
        case .like(let op, let a, let p, let esc, let neg):
            out.kind = .like(op, try sub(a), pattern: try sub(p), escape: try esc.map(sub), negated: neg)
        case .caseWhen(var c):
            c.operand = try c.operand.map(sub)
            c.whens = try c.whens.map { w in var w = w; w.condition = try sub(w.condition); w.result = try sub(w.result); return w }
            c.elseResult = try c.elseResult.map(sub)
            out.kind = .caseWhen(c)
        case .cast(let a, let t, let syntax): out.kind = .cast(try sub(a), t, syntax)
        case .quantifiedArray(let op, let a, let q, let array): out.kind = .quantifiedArray(op, try sub(a), q, try sub(array))
        case .function(var call):
            call.args = try call.args.map(sub)
            out.kind = .function(call)
        case .inSubquery, .exists, .subquery, .quantified:
            throw refuse("a subquery")
        }
        return out
    }
}
