// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
@testable import SlicehouseSQL

final class LexerTests: XCTestCase {
    private func kinds(_ sql: String) throws -> [TokenKind] {
        try Lexer.tokenize(sql).map(\.kind)
    }

    func testWordsFoldToLowerCaseAndQuotedIdentifiersKeepCase() throws {
        XCTAssertEqual(try kinds(#"SELECT Foo "Bar" "a""b" #Temp"#), [
            .word("select"), .word("foo"), .quotedIdentifier("Bar"), .quotedIdentifier("a\"b"), .word("#temp"),
            .endOfInput,
        ])
    }

    func testNumbers() throws {
        XCTAssertEqual(try kinds("1 1.5 .5 1. 1e10 2.5E-3 7e+2"), [
            .integer("1"), .decimal("1.5"), .decimal(".5"), .decimal("1."), .float("1e10"), .float("2.5E-3"),
            .float("7e+2"), .endOfInput,
        ])
        // An `e` without digits is not an exponent.
        XCTAssertEqual(try kinds("1e"), [.integer("1"), .word("e"), .endOfInput])
    }

    func testStrings() throws {
        XCTAssertEqual(try kinds("'it''s' E'a\\nb\\t\\\\\\'' e'\\x41\\101' $$a;'b$$ $q$x$q$ ''"), [
            .string("it's"), .string("a\nb\t\\'"), .string("AA"), .string("a;'b"), .string("x"), .string(""),
            .endOfInput,
        ])
        // Standard strings keep backslashes: COPY's NULL AS '\N'.
        XCTAssertEqual(try kinds(#"'\N'"#), [.string(#"\N"#), .endOfInput])
    }

    func testOperatorsAndPunctuation() throws {
        let symbols = try kinds("+ - * / % || = <> != < <= > >= :: ( ) , . ; ~~ !~~ ~~* !~~* ~ ~* !~ !~* ^ & | << >> [ ]")
            .compactMap { kind -> String? in
                if case .symbol(let s) = kind { return s }
                return nil
            }
        XCTAssertEqual(symbols, ["+", "-", "*", "/", "%", "||", "=", "<>", "!=", "<", "<=", ">", ">=", "::", "(", ")",
                                 ",", ".", ";", "~~", "!~~", "~~*", "!~~*", "~", "~*", "!~", "!~*", "^", "&", "|",
                                 "<<", ">>", "[", "]"])
        // `<-` is `<` then `-`, so `a<-1` compares with minus one.
        XCTAssertEqual(try kinds("a<-1"), [.word("a"), .symbol("<"), .symbol("-"), .integer("1"), .endOfInput])
    }

    func testParametersAndComments() throws {
        XCTAssertEqual(try kinds("$1 -- comment\n/* outer /* nested */ still */ $23"), [
            .parameter(1), .parameter(23), .endOfInput,
        ])
    }

    func testPositionsAreOneBasedLinesAndCharacterColumns() throws {
        let tokens = try Lexer.tokenize("select\n  'é', x\n-- c\n  y")
        let positions = tokens.map { [$0.location.line, $0.location.column, $0.location.offset] }
        XCTAssertEqual(positions, [
            [1, 1, 0],  // select
            [2, 3, 9],  // 'é'
            [2, 6, 13],  // ,  (é is 2 bytes but one column)
            [2, 8, 15],  // x
            [4, 3, 24],  // y
            [4, 4, 25],  // end of input
        ])
        XCTAssertEqual(tokens[1].endOffset, 13)
    }

    func testLexicalErrors() {
        assertSyntaxError("select 'abc", "unterminated quoted string at or near \"'abc\"", line: 1, column: 8)
        assertSyntaxError("select\n \"abc", "unterminated quoted identifier at or near \"\"abc\"", line: 2, column: 2)
        assertSyntaxError("select /* x", "unterminated /* comment at or near \"/* x\"", line: 1, column: 8)
        assertSyntaxError("select \"\"", "zero-length delimited identifier at or near \"\"\"\"", line: 1, column: 8)
        assertSyntaxError("select $$abc", "unterminated dollar-quoted string at or near \"$$abc\"", line: 1, column: 8)
        assertSyntaxError("select 1 \\ 2", "syntax error at or near \"\\\"", line: 1, column: 10)
    }
}
