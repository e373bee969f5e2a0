// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// The name PostgreSQL (and so Redshift) gives an unaliased select-list column.
///
/// - column reference → the column name (`t.a` → `a`)
/// - function call → the function name (`sum(x)` → `sum`; `EXTRACT(...)` → `date_part`,
///   `TRIM(...)` → `btrim`)
/// - parameterless keywords → the name of their type, as in PostgreSQL 8 and Redshift
///   (`CURRENT_DATE` → `date`, `SYSDATE` → `timestamp`, `CURRENT_USER` → `current_user`)
/// - `CASE` → `case`; `EXISTS` → `exists`
/// - cast → the operand's name if it has one, else the type's internal name
///   (`a::int` → `a`, `'1'::integer` → `int4`, `DATE '...'` → `date`)
/// - `TRUE`/`FALSE` → `bool`; `INTERVAL '...'` → `interval`
/// - scalar subquery → the name of its first output column
/// - anything else → `?column?`
public func defaultColumnName(_ expr: Expr) -> String {
    figureName(expr) ?? "?column?"
}

/// The name an expression gives its column, or nil for "no name" (`?column?`).
private func figureName(_ expr: Expr) -> String? {
    switch expr.kind {
    case .column(let ref):
        return ref.name
    case .function(let call):
        if call.syntax == .keyword, let name = keywordFunctionNames[call.name] { return name }
        // PartiQL paths are named after their last attribute (`c.orders[0]` → `orders`).
        if call.name == "super_index", let base = call.args.first { return figureName(base) }
        if call.name == "super_field", call.args.count == 2, case .literal(.string(let name)) = call.args[1].kind { return name }
        return call.name
    case .caseWhen:
        return "case"
    case .exists:
        return "exists"
    case .cast(let operand, let type, _):
        return figureName(operand) ?? internalTypeName(type)
    case .typedLiteral(let type, _):
        return internalTypeName(type)
    case .interval:
        return "interval"
    case .literal(.boolean):
        return "bool"
    case .subquery(let query):
        return firstColumnName(of: query.body)
    default:
        return nil
    }
}

/// Column names of the parameterless keyword functions (PostgreSQL 8 turned most of
/// them into casts, so they are named after their result type).
private let keywordFunctionNames: [String: String] = [
    "current_date": "date", "sysdate": "timestamp", "current_timestamp": "timestamptz",
    "current_time": "timetz", "localtimestamp": "timestamp", "localtime": "time",
    "user": "current_user",
]

/// The name of the first output column of a query body, if it has one.
private func firstColumnName(of body: QueryBody) -> String? {
    switch body {
    case .select(let select):
        guard let first = select.items.first else { return nil }
        switch first {
        case .wildcard: return nil
        case .expr(let e, let alias): return alias ?? figureName(e)
        }
    case .setOperation(let op):
        return firstColumnName(of: op.left)
    case .nested(let query):
        return firstColumnName(of: query.body)
    case .values:
        return "column1"
    }
}

/// PostgreSQL's internal type names, which it uses for cast column names.
private func internalTypeName(_ type: DataType) -> String { type.internalName }
