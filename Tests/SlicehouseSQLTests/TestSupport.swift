// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
@testable import SlicehouseSQL

// Builders for expected trees. Locations are ignored by `==`, so these nodes
// compare equal to parsed ones.

func col(_ parts: String...) -> Expr { Expr(.column(ColumnRef(parts))) }
func int(_ text: String) -> Expr { Expr(.literal(.integer(text))) }
func dec(_ text: String) -> Expr { Expr(.literal(.decimal(text))) }
func str(_ text: String) -> Expr { Expr(.literal(.string(text))) }
func bool(_ value: Bool) -> Expr { Expr(.literal(.boolean(value))) }
let null = Expr(.literal(.null))
func bin(_ op: BinaryOperator, _ l: Expr, _ r: Expr) -> Expr { Expr(.binary(op, l, r)) }
func not(_ e: Expr) -> Expr { Expr(.unary(.not, e)) }
func neg(_ e: Expr) -> Expr { Expr(.unary(.minus, e)) }
func call(_ name: String, _ args: Expr..., distinct: Bool = false) -> Expr {
    Expr(.function(FunctionCall(name: name, args: args, distinct: distinct)))
}
func table(_ name: String, alias: String? = nil) -> TableRef {
    TableRef(.table(ObjectName(name: name), alias: alias.map { TableAlias(name: $0) }))
}
func item(_ e: Expr, _ alias: String? = nil) -> SelectItem { .expr(e, alias: alias) }

/// Parse exactly one statement or fail the test.
func statement(_ sql: String, file: StaticString = #filePath, line: UInt = #line) throws -> Statement {
    try parseStatement(sql)
}

/// Parse a query statement.
func query(_ sql: String, file: StaticString = #filePath, line: UInt = #line) throws -> Query {
    guard case .query(let q) = try parseStatement(sql) else {
        XCTFail("not a query: \(sql)", file: file, line: line)
        throw SQLError.internalError("not a query")
    }
    return q
}

/// Parse a query whose body is a plain SELECT.
func select(_ sql: String, file: StaticString = #filePath, line: UInt = #line) throws -> Select {
    let q = try query(sql, file: file, line: line)
    guard case .select(let s) = q.body else {
        XCTFail("not a plain SELECT: \(sql)", file: file, line: line)
        throw SQLError.internalError("not a select")
    }
    return s
}

/// The single select-list expression of `SELECT <expr>`.
func selectExpr(_ exprSQL: String, file: StaticString = #filePath, line: UInt = #line) throws -> Expr {
    let s = try select("SELECT " + exprSQL, file: file, line: line)
    guard s.items.count == 1, case .expr(let e, _) = s.items[0] else {
        XCTFail("expected one expression item", file: file, line: line)
        throw SQLError.internalError("bad items")
    }
    return e
}

/// Assert that parsing fails with this message at this position.
func assertSyntaxError(_ sql: String, _ message: String, line errorLine: Int? = nil, column: Int? = nil,
                       file: StaticString = #filePath, line: UInt = #line) {
    do {
        let result = try parseStatements(sql)
        XCTFail("expected an error, parsed \(result)", file: file, line: line)
    } catch let error as SQLError {
        XCTAssertEqual(error.message, message, file: file, line: line)
        if let errorLine { XCTAssertEqual(error.line, errorLine, "line", file: file, line: line) }
        if let column { XCTAssertEqual(error.column, column, "column", file: file, line: line) }
    } catch {
        XCTFail("unexpected error \(error)", file: file, line: line)
    }
}
