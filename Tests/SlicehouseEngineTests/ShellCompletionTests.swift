// SPDX-License-Identifier: Apache-2.0
import XCTest
@testable import SlicehouseShell

/// `Completion.candidates`: what Tab offers for the word before the cursor, given the
/// statement in front of it and the names the database shows.
final class ShellCompletionTests: XCTestCase {
    let names = CompletionNames(relations: [("public", "orders"), ("public", "order_lines"), ("sales", "customers")],
                                columns: ["orders": ["order_id", "order_date", "total"],
                                          "order_lines": ["order_id", "line", "amount"],
                                          "customers": ["customer_id", "name"]])

    func testStatementWordsAtTheStart() {
        XCTAssertEqual(Completion.candidates(word: "sel", before: "", names: names), ["select"])
        XCTAssertEqual(Completion.candidates(word: "SEL", before: "", names: names), ["SELECT"])
        XCTAssertEqual(Completion.candidates(word: "in", before: "select 1; ", names: names), ["insert into"])
    }

    func testRelationsAfterFromAndJoin() {
        XCTAssertEqual(Completion.candidates(word: "ord", before: "select * from ", names: names), ["order_lines", "orders"])
        XCTAssertEqual(Completion.candidates(word: "o", before: "select * from orders o join ", names: names),
                       ["order_lines", "orders"])
        XCTAssertEqual(Completion.candidates(word: "sa", before: "insert into ", names: names), ["sales."])
        XCTAssertEqual(Completion.candidates(word: "sales.c", before: "select * from ", names: names), ["sales.customers"])
        XCTAssertEqual(Completion.candidates(word: "cu", before: "\\d ", names: names), ["customers"])
    }

    func testColumnsOfTheNamedRelations() {
        XCTAssertEqual(Completion.candidates(word: "to", before: "select * from orders where ", names: names), ["total"])
        XCTAssertEqual(Completion.candidates(word: "o.order_d", before: "select * from orders o where ", names: names),
                       ["o.order_date"])
        XCTAssertEqual(Completion.candidates(word: "l.am", before: "select * from orders join order_lines as l on ", names: names),
                       ["l.amount"])
        // Columns of relations the statement does not name are not offered.
        XCTAssertEqual(Completion.candidates(word: "am", before: "select * from orders where ", names: names), [])
    }

    func testKeywordsInsideAStatement() {
        XCTAssertEqual(Completion.candidates(word: "wher", before: "select * from orders ", names: names), ["where"])
        XCTAssertEqual(Completion.candidates(word: "GRO", before: "select * from orders ", names: names), ["GROUP BY"])
    }

    func testQuotedTextIsNotContext() {
        XCTAssertEqual(Completion.candidates(word: "ord", before: "select 'from' as x, * from ", names: names),
                       ["order_lines", "orders"])
        XCTAssertEqual(Completion.candidates(word: "sel", before: "select 'a;b' ; ", names: names), ["select"])
    }
}
