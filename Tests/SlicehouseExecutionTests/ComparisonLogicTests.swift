// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
import SlicehousePlan
import SlicehousePlanner
@testable import SlicehouseExecution

final class ComparisonLogicTests: XCTestCase {

    func testIntegerComparisonsWithNullsAndConstants() throws {
        let c = chunk(ints([1, 5, nil, 10]))
        let x = E.col(0, .integer)
        XCTAssertEqual(try evalRows(E.bin(.less, x, E.int(5)), c), ["t", "f", nil, "f"])
        XCTAssertEqual(try evalRows(E.bin(.lessEqual, x, E.int(5)), c), ["t", "t", nil, "f"])
        XCTAssertEqual(try evalRows(E.bin(.greater, E.int(5), x), c), ["t", "f", nil, "f"])
        XCTAssertEqual(try evalRows(E.bin(.notEqual, x, E.int(5)), c), ["t", "f", nil, "t"])
        XCTAssertEqual(try evalRows(E.bin(.equal, x, E.null(.integer)), c), [nil, nil, nil, nil])
        XCTAssertEqual(try run1(E.bin(.greaterEqual, E.int(3), E.int(3))), "t")
    }

    func testStringComparisonsByBytes() throws {
        let c = chunk(strs(["apple", "Apple", "äpfel", "", nil]))
        let x = E.col(0, .text)
        XCTAssertEqual(try evalRows(E.bin(.less, x, E.str("b")), c), ["t", "t", "f", "t", nil])
        XCTAssertEqual(try evalRows(E.bin(.equal, x, E.str("äpfel")), c), ["f", "f", "t", "f", nil])
        XCTAssertEqual(try evalRows(E.bin(.greater, x, E.str("")), c), ["t", "t", "t", "f", nil])
    }

    func testDecimalComparisonAcrossScales() throws {
        let c = chunk(decs(["0.05", "0.06", "0.10"], 15, 2))
        // The binder gives both sides the common type; the kernel also copes when it does not.
        let raw = BoundExpr.binary(.equal, E.col(0, .decimal(precision: 15, scale: 2)), E.dec("0.060", 4, 3), .boolean)
        XCTAssertEqual(try evalRows(raw, c), ["f", "t", "f"])
        let typed = try E.bin(.less, E.col(0, .decimal(precision: 15, scale: 2)), E.dec("0.1", 2, 1))
        XCTAssertEqual(try evalRows(typed, c), ["t", "t", "f"])
    }

    func testDoubleNaNOrdering() throws {
        let c = chunk(doubles([.nan, 1, -0.0]))
        let x = E.col(0, .double)
        XCTAssertEqual(try evalRows(E.bin(.greater, x, E.dbl(1e300)), c), ["t", "f", "f"])
        XCTAssertEqual(try evalRows(E.bin(.equal, x, E.dbl(.nan)), c), ["t", "f", "f"])
        XCTAssertEqual(try evalRows(E.bin(.equal, x, E.dbl(0)), c), ["f", "f", "t"])
    }

    func testDateAgainstTimestampIsHarmonized() throws {
        let c = chunk(dates(["1998-09-02", "1998-09-03"]))
        let raw = BoundExpr.binary(.less, E.col(0, .date), E.ts("1998-09-02 12:00:00"), .boolean)
        XCTAssertEqual(try evalRows(raw, c), ["t", "f"])
        XCTAssertEqual(try ExpressionEvaluator.select(raw, c), [0])
    }

    func testDateAndBoolComparisons() throws {
        let c = chunk(dates(["1998-09-02", "1998-09-03"]), bools([true, false]))
        XCTAssertEqual(try evalRows(E.bin(.lessEqual, E.col(0, .date), E.date("1998-09-02")), c), ["t", "f"])
        XCTAssertEqual(try evalRows(E.bin(.greater, E.col(1, .boolean), E.bool(false)), c), ["t", "f"])
    }

    /// Truth tables: rows are (a, b) over {T, F, NULL} x {T, F, NULL}.
    func testThreeValuedLogic() throws {
        let a: [Bool?] = [true, true, true, false, false, false, nil, nil, nil]
        let b: [Bool?] = [true, false, nil, true, false, nil, true, false, nil]
        let c = chunk(bools(a), bools(b))
        let x = E.col(0, .boolean), y = E.col(1, .boolean)
        XCTAssertEqual(try evalRows(.and([x, y]), c), ["t", "f", nil, "f", "f", "f", nil, "f", nil])
        XCTAssertEqual(try evalRows(.or([x, y]), c), ["t", "t", "t", "t", "f", nil, "t", nil, nil])
        XCTAssertEqual(try evalRows(.unary(.not, x, .boolean), c), ["f", "f", "f", "t", "t", "t", nil, nil, nil])
        XCTAssertEqual(try evalRows(.isNull(x, negated: false), c), ["f", "f", "f", "f", "f", "f", "t", "t", "t"])
        XCTAssertEqual(try evalRows(.isNull(x, negated: true), c), ["t", "t", "t", "t", "t", "t", "f", "f", "f"])
    }

    func testAndOrShortCircuitAvoidsDivisionByZero() throws {
        let c = chunk(ints([0, 5, 20, nil]))
        let x = E.col(0, .integer)
        let guardAnd = BoundExpr.and([try E.bin(.notEqual, x, E.int(0)), try E.bin(.greater, E.bin(.divide, E.int(10), x), E.int(1))])
        XCTAssertEqual(try evalRows(guardAnd, c), ["f", "t", "f", nil])
        let guardOr = BoundExpr.or([try E.bin(.equal, x, E.int(0)), try E.bin(.greater, E.bin(.divide, E.int(10), x), E.int(1))])
        XCTAssertEqual(try evalRows(guardOr, c), ["t", "t", "f", nil])
        // Without the guard the division fails.
        assertError(try E.bin(.divide, E.int(10), x), "division by zero", in: c)
        // Selection path too.
        XCTAssertEqual(try ExpressionEvaluator.select(guardAnd, c), [1])
        XCTAssertEqual(try ExpressionEvaluator.select(guardOr, c), [0, 1])
    }

    func testCaseEvaluatesBranchesOnlyWhereReached() throws {
        let c = chunk(ints([0, 2, nil, 5]))
        let x = E.col(0, .integer)
        let e = BoundExpr.caseWhen([
            WhenClause(condition: try E.bin(.equal, x, E.int(0)), result: E.int(-1)),
            WhenClause(condition: try E.bin(.less, x, E.int(3)), result: try E.bin(.divide, E.int(10), x)),
        ], elseResult: E.int(99), .integer)
        XCTAssertEqual(try evalRows(e, c), ["-1", "5", "99", "99"])
        let noElse = BoundExpr.caseWhen([WhenClause(condition: try E.bin(.greater, x, E.int(1)), result: E.str("big"))],
                                        elseResult: nil, .text)
        XCTAssertEqual(try evalRows(noElse, c), [nil, "big", nil, "big"])
        // Under a selection.
        let s = chunk(ints([0, 2, nil, 5]), selection: [1, 3])
        XCTAssertEqual(try evalRows(e, s), ["5", "99"])
    }

    func testCaseWithColumnResultsPicksPerRow() throws {
        let c = chunk(ints([1, 2, 3, nil]), ints([10, nil, 30, 40]), strs(["a", "b", nil, "d"]))
        let x = E.col(0, .integer)
        let e = BoundExpr.caseWhen([
            WhenClause(condition: try E.bin(.equal, x, E.int(1)), result: E.col(1, .integer)),
            WhenClause(condition: try E.bin(.equal, x, E.int(2)), result: E.col(1, .integer)),
        ], elseResult: E.int(-1), .integer)
        XCTAssertEqual(try evalRows(e, c), ["10", nil, "-1", "-1"])
        let s = BoundExpr.caseWhen([WhenClause(condition: try E.bin(.greater, x, E.int(1)), result: E.col(2, .text))],
                                   elseResult: nil, .text)
        XCTAssertEqual(try evalRows(s, c), [nil, "b", nil, nil])
        // A failing condition is only evaluated on rows that reach it.
        let guarded = BoundExpr.caseWhen([
            WhenClause(condition: try E.bin(.equal, x, E.int(1)), result: E.int(0)),
            WhenClause(condition: try E.bin(.greater, E.bin(.divide, E.int(6), E.bin(.subtract, x, E.int(1))), E.int(2)),
                       result: E.col(1, .integer)),
        ], elseResult: E.col(0, .integer), .integer)
        let g = chunk(ints([2, 1, nil, 4]), ints([10, 20, 30, 40]), selection: [0, 1, 2, 3])
        XCTAssertEqual(try evalRows(guarded, g), ["10", "0", nil, "4"])
        assertError(try E.bin(.divide, E.int(6), E.bin(.subtract, E.int(1), E.int(1))), "division by zero")
    }

    /// `column = 'short constant'` (at most 8 bytes: one masked word per row) and `<>`,
    /// against a row-by-row comparison: empty strings and constants, constants of 1, 7, 8
    /// and 9 bytes (9 takes the general loop), prefixes and extensions of the constant,
    /// NUL bytes, strings at the end of the byte buffer (no load past it), NULLs, the
    /// constant on either side.
    func testEqualityWithShortConstantsAgreesRowByRow() throws {
        let constants = ["", "S", "Sunday", "Tuesday", "Thursday", "Wednesday", "a\u{0}b"]
        var pool = constants + ["Sunda", "Sundays", "sunday", "Thursda", "Thursdayy", "a\u{0}", "a\u{0}bc", "x", "é"]
        pool += constants.map { $0 + "\u{0}" }
        var rng = SystemRandomNumberGenerator()
        for trial in 0..<40 {
            let n = [1, 7, 63, 64, 65, 200][trial % 6]
            var values: [String?] = (0..<n).map { _ in Int.random(in: 0..<10, using: &rng) == 0 ? nil : pool.randomElement(using: &rng) }
            // The last row's bytes end the buffer: a short one tests the tail path.
            values[n - 1] = ["", "S", "Sunday", "Thursday"][trial % 4]
            let c = chunk(strs(values))
            for k in constants {
                for op in [BinaryOp.equal, .notEqual] {
                    let want: [String?] = values.map { v in v.map { (($0.utf8.elementsEqual(k.utf8)) == (op == .equal)) ? "t" : "f" } }
                    XCTAssertEqual(try evalRows(.binary(op, E.col(0, .text), E.str(k), .boolean), c), want, "\(op) '\(k)' \(values)")
                    XCTAssertEqual(try evalRows(.binary(op, E.str(k), E.col(0, .text), .boolean), c), want, "'\(k)' \(op) \(values)")
                }
            }
        }
    }

    /// CASE over many rows (word boundaries of the validity) against a row-by-row
    /// reference: a column result with NULLs, a constant, a NULL constant, no ELSE.
    func testCaseOverManyRowsAgreesRowByRow() throws {
        var rng = SystemRandomNumberGenerator()
        for n in [1, 63, 64, 65, 130, 1000] {
            let keys: [Int64?] = (0..<n).map { _ in Int.random(in: 0..<8, using: &rng) == 0 ? nil : Int64.random(in: 0..<4, using: &rng) }
            let vals: [Int64?] = (0..<n).map { _ in Int.random(in: 0..<5, using: &rng) == 0 ? nil : Int64.random(in: -99...99, using: &rng) }
            let c = chunk(ints(keys), ints(vals))
            let x = E.col(0, .integer), v = E.col(1, .integer)
            let shapes: [(BoundExpr?, (Int64?, Int64?) -> Int64?)] = [
                (nil, { k, y in k == 1 ? y : (k == 2 ? 7 : nil) }),
                (E.int(-5), { k, y in k == 1 ? y : (k == 2 ? 7 : -5) }),
                (E.null(.integer), { k, y in k == 1 ? y : (k == 2 ? 7 : nil) }),
                (E.col(1, .integer), { k, y in k == 1 ? y : (k == 2 ? 7 : y) }),
            ]
            for (elseResult, reference) in shapes {
                let e = BoundExpr.caseWhen([
                    WhenClause(condition: try E.bin(.equal, x, E.int(1)), result: v),
                    WhenClause(condition: try E.bin(.equal, x, E.int(2)), result: E.int(7)),
                ], elseResult: elseResult, .integer)
                let want: [String?] = zip(keys, vals).map { reference($0, $1).map { String($0) } }
                XCTAssertEqual(try evalRows(e, c), want, "n = \(n), else \(String(describing: elseResult))")
            }
        }
    }

    /// `CASE WHEN c THEN x ELSE y END` with two integer constants selects per row from
    /// the condition: a NULL condition takes the ELSE, as does a false one; a constant
    /// condition gives a constant; a CASE without ELSE or with a NULL branch keeps the
    /// general path (its NULLs).
    func testCaseOfTwoConstantsAgreesRowByRow() throws {
        var rng = SystemRandomNumberGenerator()
        for n in [2, 63, 64, 65, 1000] {
            let keys: [Int64?] = (0..<n).map { _ in Int.random(in: 0..<6, using: &rng) == 0 ? nil : Int64.random(in: -40...140, using: &rng) }
            let c = chunk(ints(keys))
            let x = E.col(0, .integer)
            let e = BoundExpr.caseWhen([WhenClause(condition: try E.bin(.lessEqual, x, E.int(30)), result: E.int(1))],
                                       elseResult: E.int(0), .integer)
            XCTAssertEqual(try evalRows(e, c), keys.map { k in (k.map { $0 <= 30 } ?? false) ? "1" : "0" }, "n = \(n)")
            let between = BoundExpr.caseWhen([WhenClause(condition: .and([try E.bin(.greater, x, E.int(30)), try E.bin(.lessEqual, x, E.int(60))]),
                                                         result: E.int(-7))], elseResult: E.int(9), .bigint)
            XCTAssertEqual(try evalRows(between, c), keys.map { k in (k.map { $0 > 30 && $0 <= 60 } ?? false) ? "-7" : "9" })
            let noElse = BoundExpr.caseWhen([WhenClause(condition: try E.bin(.lessEqual, x, E.int(30)), result: E.int(1))],
                                            elseResult: nil, .integer)
            XCTAssertEqual(try evalRows(noElse, c), keys.map { k in (k.map { $0 <= 30 } ?? false) ? "1" : nil })
            let nullElse = BoundExpr.caseWhen([WhenClause(condition: try E.bin(.lessEqual, x, E.int(30)), result: E.int(1))],
                                              elseResult: E.null(.integer), .integer)
            XCTAssertEqual(try evalRows(nullElse, c), keys.map { k in (k.map { $0 <= 30 } ?? false) ? "1" : nil })
            for (cond, want) in [(E.bool(true), "1"), (E.bool(false), "0"), (E.null(.boolean), "0")] {
                let constant = BoundExpr.caseWhen([WhenClause(condition: cond, result: E.int(1))], elseResult: E.int(0), .integer)
                XCTAssertEqual(try evalRows(constant, c), Array(repeating: want, count: n))
            }
        }
    }

    func testInListNullRules() throws {
        let c = chunk(ints([1, 2, nil]))
        let x = E.col(0, .integer)
        XCTAssertEqual(try evalRows(.inList(x, [E.int(1), E.int(3)], negated: false), c), ["t", "f", nil])
        XCTAssertEqual(try evalRows(.inList(x, [E.int(1), E.null(.integer)], negated: false), c), ["t", nil, nil])
        XCTAssertEqual(try evalRows(.inList(x, [E.int(1), E.null(.integer)], negated: true), c), ["f", nil, nil])
        XCTAssertEqual(try evalRows(.inList(x, [E.int(1), E.int(3)], negated: true), c), ["f", "t", nil])
        // Non-constant items.
        let c2 = chunk(ints([1, 2, 3]), ints([1, nil, 4]))
        XCTAssertEqual(try evalRows(.inList(E.col(0, .integer), [E.col(1, .integer), E.int(3)], negated: false), c2), ["t", nil, "t"])
    }

    func testInListStringsLongList() throws {
        let words = (0..<20).map { "w\($0)" }
        let c = chunk(strs(["w3", "zz", "w19", nil, "ü"]))
        let items = words.map { E.str($0) } + [E.str("ü")]
        XCTAssertEqual(try evalRows(.inList(E.col(0, .text), items, negated: false), c), ["t", "f", "t", nil, "t"])
        XCTAssertEqual(try ExpressionEvaluator.select(.inList(E.col(0, .text), items, negated: true), c), [1])
    }

    /// Lists of at most 8 strings of at most 8 bytes take `ShortStringSet` (one masked
    /// 8-byte load per row): against the generic set on random strings of 0 to 10 bytes,
    /// some of them prefixes of items or items padded with NUL bytes, the last one ending
    /// the buffer (no load past its end), with selections, NULLs and NOT IN.
    func testShortStringInListAgainstTheGenericSet() throws {
        var rng = SystemRandomNumberGenerator()
        let alphabet: [Character] = ["A", "I", "L", "M", "S", "H", "P", "\0"]
        func word(_ n: Int) -> String { String((0..<n).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &rng)] }) }
        for round in 0..<200 {
            let items = (0..<Int.random(in: 1...8, using: &rng)).map { _ in word(Int.random(in: 0...8, using: &rng)) }
            var rows: [String?] = (0..<Int.random(in: 1...40, using: &rng)).map { _ in
                switch Int.random(in: 0..<6, using: &rng) {
                case 0: return nil
                case 1: return items.randomElement(using: &rng)
                case 2: return (items.randomElement(using: &rng) ?? "") + "\0"
                case 3: return String((items.randomElement(using: &rng) ?? "").dropLast())
                default: return word(Int.random(in: 0...10, using: &rng))
                }
            }
            if round % 3 == 0 { rows.append(items[0]) }     // an item as the buffer's last bytes
            let want = rows.map { r in r.map { items.contains($0) ? "t" : "f" } }
            let c = chunk(strs(rows))
            let list = BoundExpr.inList(E.col(0, .text), items.map { E.str($0) }, negated: false)
            XCTAssertEqual(try evalRows(list, c), want, "items \(items.map { Array($0.utf8) }), rows \(rows)")
            let hits = rows.indices.filter { want[$0] == "t" }.map(Int32.init)
            XCTAssertEqual(try ExpressionEvaluator.select(list, c), hits)
            let misses = rows.indices.filter { want[$0] == "f" }.map(Int32.init)
            let notIn = BoundExpr.inList(E.col(0, .text), items.map { E.str($0) }, negated: true)
            XCTAssertEqual(try ExpressionEvaluator.select(notIn, c), misses)
            let selection = rows.indices.filter { $0 % 2 == 1 }.map(Int32.init)
            let picked = chunk(strs(rows), selection: selection)
            XCTAssertEqual(try ExpressionEvaluator.select(list, picked), hits.filter { $0 % 2 == 1 })
        }
    }

    func testShortStringInListEdges() throws {
        // Empty strings only: no bytes at all in the vector.
        let empty = chunk(strs(["", "", nil]))
        XCTAssertEqual(try evalRows(.inList(E.col(0, .text), [E.str(""), E.str("x")], negated: false), empty), ["t", "t", nil])
        XCTAssertEqual(try ExpressionEvaluator.select(.inList(E.col(0, .text), [E.str("x")], negated: false), empty), [])
        XCTAssertEqual(try ExpressionEvaluator.select(.inList(E.col(0, .text), [E.str("x")], negated: true), empty), [0, 1])
        // Exactly 8 bytes, and 9 (longer than any item: never a member).
        let c = chunk(strs(["ABCDEFGH", "ABCDEFGHI", "ABCDEFG"]))
        XCTAssertEqual(try evalRows(.inList(E.col(0, .text), [E.str("ABCDEFGH"), E.str("ABCDEFG")], negated: false), c),
                       ["t", "f", "t"])
        // Nine items or an item of 9 bytes: the generic set, same answers.
        let nine = (0..<9).map { E.str("w\($0)") }
        XCTAssertEqual(try evalRows(.inList(E.col(0, .text), nine + [E.str("ABCDEFGH")], negated: false), c), ["t", "f", "f"])
        XCTAssertEqual(try evalRows(.inList(E.col(0, .text), [E.str("ABCDEFGHI")], negated: false), c), ["f", "t", "f"])
    }
}
