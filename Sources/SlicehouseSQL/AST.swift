// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

// The abstract syntax tree produced by the parser and consumed by the binder.
//
// Conventions used throughout:
// - Every node is a value type (`struct` or `enum`), `Sendable` and `Hashable`.
// - Identifiers are stored *normalized*: unquoted names are folded to lower case,
//   "quoted" names keep their case. The binder can compare names with `==`.
// - Nodes that the binder reports errors against (expressions, table references,
//   select items, column definitions, ...) carry a `location`. Locations never take
//   part in `==`/`hash` (see `IgnoredInComparison`), so equal SQL written in two
//   places gives equal trees.
// - The tree records what was written, with a few documented normalizations
//   (e.g. `EXTRACT(f FROM e)` is a call of `date_part`, `a != b` is `.notEqual`).
//
// Statement payloads (CREATE TABLE, COPY, ...) live in AST+Statements.swift.

// MARK: - Names

/// A possibly qualified object name: `name`, `schema.name` or `database.schema.name`.
public struct ObjectName: Sendable, Hashable, CustomStringConvertible {
    public var database: String?
    public var schema: String?
    /// The object's own name. Redshift temporary tables written as `#name` keep the `#`.
    public var name: String

    public init(database: String? = nil, schema: String? = nil, name: String) {
        self.database = database
        self.schema = schema
        self.name = name
    }

    /// The parts as written, outermost first (`["public", "t"]`).
    public var parts: [String] { [database, schema].compactMap { $0 } + [name] }

    public var description: String { parts.map(quoteIdentifierIfNeeded).joined(separator: ".") }

    /// The parts joined by dots, unquoted: how PostgreSQL's messages name a relation
    /// (`relation "Sales.Orders" does not exist`).
    public var messageName: String { parts.joined(separator: ".") }
}

/// An alias on a FROM item: `AS x` or `AS x (a, b)`.
public struct TableAlias: Sendable, Hashable {
    public var name: String
    /// Column aliases; empty when none were given.
    public var columns: [String]
    /// PartiQL's `AT name` after an unnested array: the element's position (an object's
    /// attribute name with `UNPIVOT`).
    public var position: String?
    /// PartiQL's `UNPIVOT c.obj AS v AT k`: iterate over an object's attributes.
    public var unpivot: Bool

    public init(name: String, columns: [String] = [], position: String? = nil, unpivot: Bool = false) {
        self.name = name
        self.columns = columns
        self.position = position
        self.unpivot = unpivot
    }
}

// MARK: - Expressions

/// An expression node: what it is (`kind`) and where it was written.
///
/// The location is the first character of the expression, except for binary
/// operators, where it is the operator (as PostgreSQL reports it).
public struct Expr: Sendable, Hashable {
    public var kind: ExprKind
    @IgnoredInComparison public var location: SourceLocation

    public init(_ kind: ExprKind, at location: SourceLocation = .unknown) {
        self.kind = kind
        self.location = location
    }
}

/// The forms an expression can take.
public indirect enum ExprKind: Sendable, Hashable {
    /// A constant: number (text as written), string, boolean or NULL.
    case literal(Literal)
    /// A type name followed by a string: `DATE '1998-12-01'`, `TIMESTAMP '2020-01-01 10:00'`.
    /// The binder converts the string to the type.
    case typedLiteral(DataType, String)
    /// `INTERVAL '90 day'`, `INTERVAL '3' MONTH`, or `'1 day'::interval`.
    case interval(IntervalLiteral)
    /// A column reference: `a`, `t.a`, `s.t.a`.
    case column(ColumnRef)
    /// A positional parameter `$n` (1-based).
    case parameter(Int)
    /// A prefix operator.
    case unary(UnaryOperator, Expr)
    /// An infix operator, including AND and OR (not flattened).
    case binary(BinaryOperator, Expr, Expr)
    /// `e IS [NOT] NULL`, `e ISNULL`, `e NOTNULL`, `e IS [NOT] UNKNOWN`.
    case isNull(Expr, negated: Bool)
    /// `e IS [NOT] TRUE` / `e IS [NOT] FALSE`.
    case isBoolean(Expr, value: Bool, negated: Bool)
    /// `a IS [NOT] DISTINCT FROM b`.
    case isDistinctFrom(Expr, Expr, negated: Bool)
    /// `e [NOT] BETWEEN low AND high`.
    case between(Expr, low: Expr, high: Expr, negated: Bool)
    /// `e [NOT] IN (v1, v2, ...)`.
    case inList(Expr, [Expr], negated: Bool)
    /// `e [NOT] IN (subquery)`.
    case inSubquery(Expr, Query, negated: Bool)
    /// `e [NOT] LIKE|ILIKE|SIMILAR TO pattern [ESCAPE c]`; also the `~~` operator family.
    case like(LikeOperator, Expr, pattern: Expr, escape: Expr?, negated: Bool)
    /// `EXISTS (subquery)`. `NOT EXISTS` is `.unary(.not, exists)`.
    case exists(Query)
    /// A scalar subquery `(SELECT ...)`.
    case subquery(Query)
    /// `e op ANY|SOME|ALL (subquery)`; the operator is a comparison.
    case quantified(BinaryOperator, Expr, Quantifier, Query)
    /// `x op ANY|ALL (array)`: over an array value (a catalog array's text form).
    case quantifiedArray(BinaryOperator, Expr, Quantifier, Expr)
    /// `CASE [operand] WHEN ... THEN ... [ELSE ...] END`.
    case caseWhen(CaseExpr)
    /// `CAST(e AS t)`, `e::t`, `CONVERT(t, e)`.
    case cast(Expr, DataType, CastSyntax)
    /// A function or aggregate or window call, including the special SQL forms
    /// (EXTRACT, POSITION, SUBSTRING ... FROM, TRIM, CURRENT_DATE, AT TIME ZONE).
    case function(FunctionCall)
    /// The `DEFAULT` keyword. The parser only produces it as a value in
    /// `INSERT ... VALUES` rows and in `UPDATE ... SET c = DEFAULT`.
    case defaultValue
    /// A row value `(a, b, ...)` of two or more expressions: the binder takes it only
    /// in `=` / `<>` against another row, `IN ((..), (..))` and `IN (subquery)`.
    case row([Expr])
}

/// A constant. Numbers keep their text so the binder can type them exactly
/// (`1.50` is DECIMAL(3,2), `2147483648` is BIGINT, `1e3` is DOUBLE PRECISION).
public enum Literal: Sendable, Hashable {
    /// Digits only, e.g. `"42"`; a leading `-` when the parser folded a unary minus.
    case integer(String)
    /// Digits with a decimal point and no exponent: `"1.5"`, `".5"`, `"1."`.
    case decimal(String)
    /// A number with an exponent: `"1e10"`, `"2.5E-3"`.
    case float(String)
    /// A string constant, escapes already resolved.
    case string(String)
    case boolean(Bool)
    case null
}

/// `INTERVAL 'value' [qualifier]`.
public struct IntervalLiteral: Sendable, Hashable {
    /// The quoted text, e.g. `"90 day"` or `"3"`.
    public var value: String
    /// Lower-cased field qualifier such as `"month"`, `"day"`, `"year to month"`,
    /// or nil when none was written. A precision like `DAY(3)` is not kept.
    public var qualifier: String?

    public init(value: String, qualifier: String? = nil) {
        self.value = value
        self.qualifier = qualifier
    }
}

/// A column reference; `parts` are the dotted names as written (1 to 4 of them).
public struct ColumnRef: Sendable, Hashable {
    public var parts: [String]
    /// Written `t.c(+)`: an Oracle-style outer join's mark (`OuterJoinMarkers`).
    @IgnoredInComparison public var outerJoinMarker: Bool = false

    public init(_ parts: [String]) { self.parts = parts }
    public init(table: String? = nil, _ name: String) {
        self.parts = (table.map { [$0] } ?? []) + [name]
    }

    /// The column name (last part).
    public var name: String { parts.last ?? "" }
    /// The qualifying relation name, if any (`t` in `t.a` and `s.t.a`).
    public var table: String? { parts.count >= 2 ? parts[parts.count - 2] : nil }
    /// The qualifying schema name, if any (`s` in `s.t.a`).
    public var schema: String? { parts.count >= 3 ? parts[parts.count - 3] : nil }
}

public enum UnaryOperator: String, Sendable, Hashable {
    case minus = "-"
    case plus = "+"
    case not = "NOT"
    /// `~e`: bitwise NOT.
    case bitwiseNot = "~"
}

public enum BinaryOperator: String, Sendable, Hashable {
    case add = "+"
    case subtract = "-"
    case multiply = "*"
    case divide = "/"
    case modulo = "%"
    case exponent = "^"
    case concat = "||"
    case equal = "="
    /// Both `<>` and `!=`.
    case notEqual = "<>"
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
    case and = "AND"
    case or = "OR"
    case bitwiseAnd = "&"
    case bitwiseOr = "|"
    case bitwiseXor = "#"
    case shiftLeft = "<<"
    case shiftRight = ">>"
    /// POSIX regular expression match `~`.
    case regexMatch = "~"
    case regexMatchInsensitive = "~*"
    case regexNotMatch = "!~"
    case regexNotMatchInsensitive = "!~*"

    /// The operator as written in SQL.
    public var symbol: String { rawValue }

    /// True for `= <> < <= > >=`.
    public var isComparison: Bool {
        switch self {
        case .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual: return true
        default: return false
        }
    }
}

public enum LikeOperator: String, Sendable, Hashable {
    case like = "LIKE"
    case ilike = "ILIKE"
    case similarTo = "SIMILAR TO"
}

/// `ANY`/`SOME` (the same thing) or `ALL`.
public enum Quantifier: String, Sendable, Hashable {
    case any = "ANY"
    case all = "ALL"
}

/// How a cast was written (only matters for printing).
public enum CastSyntax: Sendable, Hashable {
    /// `CAST(e AS t)`
    case cast
    /// `e::t`
    case doubleColon
    /// `CONVERT(t, e)`
    case convert
}

/// `CASE [operand] WHEN ... THEN ... [ELSE ...] END`.
public struct CaseExpr: Sendable, Hashable {
    /// The operand of a "simple" CASE (`CASE x WHEN 1 THEN ...`); nil for a searched CASE.
    public var operand: Expr?
    public var whens: [WhenClause]
    public var elseResult: Expr?

    public init(operand: Expr? = nil, whens: [WhenClause], elseResult: Expr? = nil) {
        self.operand = operand
        self.whens = whens
        self.elseResult = elseResult
    }
}

public struct WhenClause: Sendable, Hashable {
    /// A boolean condition, or (simple CASE) the value compared with the operand.
    public var condition: Expr
    public var result: Expr

    public init(condition: Expr, result: Expr) {
        self.condition = condition
        self.result = result
    }
}

/// A call of a scalar, aggregate or window function.
///
/// Special SQL syntaxes are normalized to ordinary calls; `syntax` only records
/// how to print them back:
///
/// | written                              | name          | args                |
/// |--------------------------------------|---------------|---------------------|
/// | `EXTRACT(year FROM d)`               | `date_part`   | `['year', d]`       |
/// | `POSITION(sub IN s)`                 | `position`    | `[s, sub]` (= `strpos`) |
/// | `SUBSTRING(s FROM a [FOR b])`        | `substring`   | `[s, a]` / `[s, a, b]` |
/// | `SUBSTRING(s FOR b)`                 | `substring`   | `[s, 1, b]`         |
/// | `TRIM([BOTH] [c] FROM s)`            | `btrim`       | `[s]` / `[s, c]`    |
/// | `TRIM(LEADING|TRAILING ...)`         | `ltrim`/`rtrim` | `[s]` / `[s, c]`  |
/// | `CURRENT_DATE`, `SYSDATE`, ...       | `current_date`, `sysdate`, ... | `[]` |
/// | `ts AT TIME ZONE z`                  | `timezone`    | `[z, ts]`           |
public struct FunctionCall: Sendable, Hashable {
    /// Lower-cased (unless quoted) function name, without schema.
    public var name: String
    /// Schema qualifier, e.g. `pg_catalog`, if written.
    public var schema: String?
    public var args: [Expr]
    /// `f(DISTINCT x)`.
    public var distinct: Bool
    /// `count(*)`: true and `args` is empty.
    public var star: Bool
    /// Redshift's `APPROXIMATE COUNT(DISTINCT x)` / `APPROXIMATE PERCENTILE_DISC`.
    public var approximate: Bool
    /// `WITHIN GROUP (ORDER BY ...)` of ordered-set aggregates (LISTAGG, PERCENTILE_CONT, MEDIAN ...).
    public var withinGroup: [OrderItem]
    /// `IGNORE NULLS` / `RESPECT NULLS`, written after the arguments or inside them.
    public var nullTreatment: NullTreatment?
    /// The `OVER (...)` clause of a window call.
    public var over: WindowSpec?
    public var syntax: FunctionSyntax

    public init(name: String, schema: String? = nil, args: [Expr] = [], distinct: Bool = false,
                star: Bool = false, approximate: Bool = false, withinGroup: [OrderItem] = [],
                nullTreatment: NullTreatment? = nil, over: WindowSpec? = nil,
                syntax: FunctionSyntax = .call) {
        self.name = name
        self.schema = schema
        self.args = args
        self.distinct = distinct
        self.star = star
        self.approximate = approximate
        self.withinGroup = withinGroup
        self.nullTreatment = nullTreatment
        self.over = over
        self.syntax = syntax
    }
}

/// How a function call was written (see `FunctionCall`).
public enum FunctionSyntax: Sendable, Hashable {
    /// `f(args)`
    case call
    /// A keyword without parentheses: `CURRENT_DATE`, `SYSDATE`, `CURRENT_USER`, ...
    case keyword
    /// `EXTRACT(field FROM e)`
    case extract
    /// `POSITION(a IN b)`
    case position
    /// `SUBSTRING(s FROM a FOR b)`
    case substring
    /// `TRIM(BOTH|LEADING|TRAILING c FROM s)`
    case trim
    /// `e AT TIME ZONE z`
    case atTimeZone
}

public enum NullTreatment: String, Sendable, Hashable {
    case ignoreNulls = "IGNORE NULLS"
    case respectNulls = "RESPECT NULLS"
}

/// `OVER ([PARTITION BY ...] [ORDER BY ...] [frame])`.
public struct WindowSpec: Sendable, Hashable {
    public var partitionBy: [Expr]
    public var orderBy: [OrderItem]
    /// The frame clause, nil when not written.
    public var frame: WindowFrame?

    public init(partitionBy: [Expr] = [], orderBy: [OrderItem] = [], frame: WindowFrame? = nil) {
        self.partitionBy = partitionBy
        self.orderBy = orderBy
        self.frame = frame
    }
}

/// `ROWS|RANGE BETWEEN start AND end`. The short form `ROWS start` has `end == .currentRow`.
public struct WindowFrame: Sendable, Hashable {
    public var unit: FrameUnit
    public var start: FrameBound
    public var end: FrameBound

    public init(unit: FrameUnit, start: FrameBound, end: FrameBound = .currentRow) {
        self.unit = unit
        self.start = start
        self.end = end
    }
}

public enum FrameUnit: String, Sendable, Hashable {
    case rows = "ROWS"
    case range = "RANGE"
}

public enum FrameBound: Sendable, Hashable {
    case unboundedPreceding
    case preceding(Expr)
    case currentRow
    case following(Expr)
    case unboundedFollowing
}

/// One `ORDER BY` item. Output-column positions (`ORDER BY 2`) and aliases are
/// ordinary expressions here; the binder resolves them.
public struct OrderItem: Sendable, Hashable {
    public var expr: Expr
    public var descending: Bool
    /// `NULLS FIRST` (true) / `NULLS LAST` (false); nil when not written
    /// (PostgreSQL default: NULLS LAST for ASC, NULLS FIRST for DESC).
    public var nullsFirst: Bool?

    public init(expr: Expr, descending: Bool = false, nullsFirst: Bool? = nil) {
        self.expr = expr
        self.descending = descending
        self.nullsFirst = nullsFirst
    }
}

// MARK: - Queries

/// A complete query: `[WITH ...] body [ORDER BY ...] [LIMIT n] [OFFSET m]`.
public struct Query: Sendable, Hashable {
    public var with: WithClause?
    public var body: QueryBody
    public var orderBy: [OrderItem]
    /// `LIMIT n`; nil when absent or `LIMIT ALL`.
    public var limit: Expr?
    public var offset: Expr?
    @IgnoredInComparison public var location: SourceLocation

    public init(with: WithClause? = nil, body: QueryBody, orderBy: [OrderItem] = [],
                limit: Expr? = nil, offset: Expr? = nil, location: SourceLocation = .unknown) {
        self.with = with
        self.body = body
        self.orderBy = orderBy
        self.limit = limit
        self.offset = offset
        self.location = location
    }
}

/// `WITH [RECURSIVE] a AS (...), b AS (...)`.
public struct WithClause: Sendable, Hashable {
    public var recursive: Bool
    public var ctes: [CommonTableExpr]

    public init(recursive: Bool = false, ctes: [CommonTableExpr]) {
        self.recursive = recursive
        self.ctes = ctes
    }
}

/// One common table expression `name [(cols)] AS (query)`.
public struct CommonTableExpr: Sendable, Hashable {
    public var name: String
    public var columns: [String]
    public var query: Query
    @IgnoredInComparison public var location: SourceLocation

    public init(name: String, columns: [String] = [], query: Query, location: SourceLocation = .unknown) {
        self.name = name
        self.columns = columns
        self.query = query
        self.location = location
    }
}

/// The part of a query that produces rows.
public indirect enum QueryBody: Sendable, Hashable {
    case select(Select)
    /// `VALUES (..), (..)` used as a query; rows have equal length.
    case values([[Expr]])
    /// `left UNION|INTERSECT|EXCEPT [ALL] right`.
    case setOperation(SetOperation)
    /// A parenthesised query that has its own WITH / ORDER BY / LIMIT / OFFSET,
    /// e.g. `(SELECT ... ORDER BY x LIMIT 1) UNION ...`. Parentheses around a
    /// query without those clauses are dropped by the parser.
    case nested(Query)
}

public struct SetOperation: Sendable, Hashable {
    public var op: SetOperator
    /// `UNION ALL` etc.; false for the default DISTINCT behaviour.
    public var all: Bool
    public var left: QueryBody
    public var right: QueryBody
    @IgnoredInComparison public var location: SourceLocation

    public init(op: SetOperator, all: Bool, left: QueryBody, right: QueryBody,
                location: SourceLocation = .unknown) {
        self.op = op
        self.all = all
        self.left = left
        self.right = right
        self.location = location
    }
}

/// Set operators. INTERSECT binds tighter than UNION and EXCEPT; MINUS is EXCEPT.
public enum SetOperator: String, Sendable, Hashable {
    case union = "UNION"
    case intersect = "INTERSECT"
    case except = "EXCEPT"
}

/// `SELECT [DISTINCT] [TOP n] items [FROM ...] [WHERE ...] [GROUP BY ...] [HAVING ...] [QUALIFY ...]`.
///
/// ORDER BY / LIMIT / OFFSET belong to the enclosing `Query`.
public struct Select: Sendable, Hashable {
    public var distinct: Bool
    /// Redshift's `TOP n`: the same as `LIMIT n` applied after the query's ORDER BY.
    public var top: Expr?
    public var items: [SelectItem]
    /// FROM items; more than one means a comma (cross) join.
    public var from: [TableRef]
    public var whereClause: Expr?
    public var groupBy: [GroupingElement]
    public var having: Expr?
    public var qualify: Expr?
    /// `EXCLUDE col, ...` after the select list: output columns left out (Redshift).
    public var exclude: [String]
    @IgnoredInComparison public var location: SourceLocation

    public init(distinct: Bool = false, top: Expr? = nil, items: [SelectItem], from: [TableRef] = [],
                whereClause: Expr? = nil, groupBy: [GroupingElement] = [], having: Expr? = nil,
                qualify: Expr? = nil, exclude: [String] = [], location: SourceLocation = .unknown) {
        self.exclude = exclude
        self.distinct = distinct
        self.top = top
        self.items = items
        self.from = from
        self.whereClause = whereClause
        self.groupBy = groupBy
        self.having = having
        self.qualify = qualify
        self.location = location
    }
}

/// One item of a select list.
public enum SelectItem: Sendable, Hashable {
    /// `*` or `t.*` / `s.t.*`.
    case wildcard(Wildcard)
    /// `expr [[AS] alias]`.
    case expr(Expr, alias: String?)
}

/// `*` (empty qualifier) or `t.*` (qualifier `["t"]`).
public struct Wildcard: Sendable, Hashable {
    public var qualifier: [String]
    @IgnoredInComparison public var location: SourceLocation

    public init(qualifier: [String] = [], location: SourceLocation = .unknown) {
        self.qualifier = qualifier
        self.location = location
    }
}

/// One element of GROUP BY. Positions (`GROUP BY 1`) and aliases are ordinary expressions.
public enum GroupingElement: Sendable, Hashable {
    case expr(Expr)
    /// `ROLLUP(a, (b, c))`: each inner list is one item (a single expression or a parenthesised list).
    case rollup([[Expr]])
    /// `CUBE(a, b)`, items as for ROLLUP.
    case cube([[Expr]])
    /// `GROUPING SETS ((a, b), (a), ())`; `GROUP BY ()` is `.groupingSets([[]])`.
    case groupingSets([[Expr]])
    /// `GROUP BY ALL`: every select-list expression that is not an aggregate (the binder
    /// works out which).
    case all
}

// MARK: - FROM items

/// A FROM item with its location (the first token of the item; for joins, the JOIN keyword).
public struct TableRef: Sendable, Hashable {
    public var kind: TableRefKind
    @IgnoredInComparison public var location: SourceLocation

    public init(_ kind: TableRefKind, at location: SourceLocation = .unknown) {
        self.kind = kind
        self.location = location
    }
}

public indirect enum TableRefKind: Sendable, Hashable {
    /// A table, view or CTE name: `[schema.]name [[AS] alias [(cols)]]`.
    case table(ObjectName, alias: TableAlias?)
    /// A derived table `(query) [AS] alias [(cols)]`.
    case subquery(Query, alias: TableAlias?)
    /// A join of two FROM items (parenthesised joins are just nested joins).
    case join(Join)
    /// A set-returning function in FROM: `generate_series(1, 10) [AS] alias [(col)]`.
    case function(FunctionCall, alias: TableAlias?)
}

public struct Join: Sendable, Hashable {
    public var kind: JoinKind
    public var left: TableRef
    public var right: TableRef
    public var condition: JoinCondition

    public init(kind: JoinKind, left: TableRef, right: TableRef, condition: JoinCondition) {
        self.kind = kind
        self.left = left
        self.right = right
        self.condition = condition
    }
}

public enum JoinKind: String, Sendable, Hashable {
    case inner = "INNER"
    case left = "LEFT"
    case right = "RIGHT"
    case full = "FULL"
    case cross = "CROSS"
}

public enum JoinCondition: Sendable, Hashable {
    /// CROSS JOIN.
    case none
    case on(Expr)
    case using([String])
    /// `NATURAL [kind] JOIN`.
    case natural
}

// MARK: - Statements

/// One SQL statement. Payload types are in AST+Statements.swift.
public indirect enum Statement: Sendable, Hashable {
    /// SELECT, VALUES, WITH ..., or a parenthesised query.
    case query(Query)
    case createTable(CreateTable)
    case dropTable(DropStatement)
    case createView(CreateView)
    case dropView(DropStatement)
    case insert(Insert)
    case update(Update)
    case delete(Delete)
    case merge(Merge)
    case comment(CommentStatement)
    case createFunction(CreateFunction)
    case dropFunction(DropFunction)
    /// CREATE / DROP / SHOW / ALTER PROCEDURE and CALL (AST+Procedures.swift).
    case procedure(ProcedureStatement)
    /// `TRUNCATE [TABLE] t`.
    case truncate(ObjectName)
    case copy(Copy)
    case unload(Unload)
    case explain(Explain)
    /// `BEGIN [TRANSACTION|WORK]`, `START TRANSACTION` (isolation options ignored).
    case begin
    /// `COMMIT`, `END` [TRANSACTION|WORK].
    case commit
    /// `ROLLBACK`, `ABORT` [TRANSACTION|WORK].
    case rollback
    case set(SetStatement)
    /// `RESET name` (`RESET ALL` gives `"all"`).
    case reset(String)
    /// `SHOW name` (`SHOW ALL` gives `"all"`).
    case show(String)
    case vacuum(Vacuum)
    case analyze(Analyze)
    /// `LOCK [TABLE] a, b`.
    case lock([ObjectName])
    /// Users, groups, roles and privileges (AST+Security.swift).
    case security(SecurityStatement)
    case createSchema(CreateSchema)
    case dropSchema(DropSchema)
    case alterSchema(AlterSchema)
    case alterTable(AlterTable)
    case refreshMaterializedView(RefreshMaterializedView)
    /// `PREPARE name [(types)] AS statement`, `EXECUTE name [(args)]`, `DEALLOCATE [PREPARE] name | ALL`.
    case prepared(PreparedSQLStatement)
    /// CREATE / DROP / ALTER DATABASE, USE (AST+Databases.swift).
    case database(DatabaseStatement)
    /// CREATE EXTERNAL SCHEMA / TABLE (AST+External.swift).
    case external(ExternalStatement)
}

/// The SQL forms of prepared statements (the wire protocol's Parse / Bind are another
/// road to the same idea).
public enum PreparedSQLStatement: Sendable, Hashable {
    /// `PREPARE name [(types)] AS statement`: the statement's text, with `$n` for the
    /// parameters, is kept for EXECUTE.
    case prepare(name: String, parameterTypes: [DataType], text: String)
    /// `EXECUTE name [(arguments)]`.
    case execute(name: String, arguments: [Expr])
    /// `DEALLOCATE [PREPARE] name`; nil for `ALL`.
    case deallocate(name: String?)
}

/// A statement together with the exact text it was parsed from.
public struct ParsedStatement: Sendable, Hashable {
    public var statement: Statement
    /// The statement's source text, from its first token to its last (no `;`).
    public var text: String
    /// Where the statement starts in the parsed input.
    public var location: SourceLocation
    /// The values a client bound to the statement's `$n` (the extended protocol's Bind),
    /// or nil when none were: the binder reads `$n` as `parameters[n - 1]`
    /// (`ParameterValue.expression`), so a prepared statement's tree is bound again with
    /// new values and never re-parsed.
    public var parameters: [ParameterValue]?

    public init(statement: Statement, text: String, location: SourceLocation, parameters: [ParameterValue]? = nil) {
        self.statement = statement
        self.text = text
        self.location = location
        self.parameters = parameters
    }
}

extension Statement {
    /// Whether the statement's `$n` may be left in its tree and read by the binder from the
    /// values bound to it (`ParsedStatement.parameters`): queries, EXPLAIN and the DML
    /// statements, which bind every expression they hold. The others (a COPY's options, a
    /// SET's value, a CALL's arguments) take their values written into the text as literals.
    public var bindsParameterValues: Bool {
        switch self {
        case .query, .explain, .insert, .update, .delete: return true
        default: return false
        }
    }
}

extension Expr {
    /// Whether `self` or an expression inside it (not inside a subquery's query)
    /// satisfies `p`: one walk over every expression kind for the questions the binder
    /// asks of an expression's shape.
    public func contains(where p: (Expr) -> Bool) -> Bool {
        if p(self) { return true }
        func any(_ es: [Expr]) -> Bool { es.contains { $0.contains(where: p) } }
        switch kind {
        case .literal, .typedLiteral, .interval, .column, .parameter, .defaultValue, .exists, .subquery:
            return false
        case .unary(_, let a), .isNull(let a, _), .isBoolean(let a, _, _), .cast(let a, _, _),
             .inSubquery(let a, _, _), .quantified(_, let a, _, _):
            return a.contains(where: p)
        case .quantifiedArray(_, let a, _, let b):
            return any([a, b])
        case .binary(_, let a, let b), .isDistinctFrom(let a, let b, _):
            return any([a, b])
        case .between(let a, let l, let h, _):
            return any([a, l, h])
        case .inList(let a, let l, _):
            return any([a] + l)
        case .row(let items):
            return any(items)
        case .like(_, let a, let pattern, let escape, _):
            return any([a, pattern] + (escape.map { [$0] } ?? []))
        case .caseWhen(let c):
            return any((c.operand.map { [$0] } ?? []) + c.whens.flatMap { [$0.condition, $0.result] }
                       + (c.elseResult.map { [$0] } ?? []))
        case .function(let f):
            return any(f.args)
        }
    }

    /// Whether a subquery (scalar, EXISTS, IN or ANY/ALL) stands in the expression.
    public var containsSubquery: Bool {
        contains { e in
            switch e.kind {
            case .exists, .subquery, .inSubquery, .quantified: return true
            default: return false
            }
        }
    }
}
