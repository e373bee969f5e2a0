// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
import SlicehousePlan
@testable import SlicehouseFunctions
import SlicehousePlanner
@testable import SlicehouseExecution

/// Sweeps every function, operator and cast over extreme values: any outcome is
/// fine except a crash (a trap would kill the test process).
final class RobustnessTests: XCTestCase {

    /// Columns of every type with extreme values and NULLs (6 rows each).
    static let pool: [(DataType, Vector)] = [
        (.smallint, ints([Int64(Int16.min), Int64(Int16.max), 0, -1, nil, 1], .smallint)),
        (.integer, ints([Int64(Int32.min), Int64(Int32.max), 0, -1, nil, 7])),
        (.bigint, ints([Int64.min, Int64.max, 0, -1, nil, 2], .bigint)),
        (.decimal(precision: 15, scale: 2), decs(["-9999999999999.99", "9999999999999.99", "0", "-0.01", nil, "0.05"], 15, 2)),
        (.decimal(precision: 38, scale: 10), decs(["-9999999999999999999999999999.9999999999", "9999999999999999999999999999.9999999999",
                                                   "0", "-0.0000000001", nil, "1"], 38, 10)),
        (.double, doubles([-Double.greatestFiniteMagnitude, .infinity, .nan, -0.0, nil, 1e-300])),
        (.text, strs(["", "é日本", String(repeating: "x", count: 300), "%_\\", nil, " 12 "])),
        (.date, ints([ArithmeticKernels.minDay, ArithmeticKernels.maxDay, 0, -1, nil, 10000], .date)),
        (.timestamp, ints([-210_000_000_000_000_000, 9_000_000_000_000_000_000, 0, -1, nil, 1], .timestamp)),
        (.boolean, bools([true, false, nil, true, false, nil])),
    ]

    static var chunk6: Chunk { Chunk(columns: pool.map { $0.1 }, count: 6) }

    var evaluated = 0

    func evalIgnoringErrors(_ e: BoundExpr, _ c: Chunk) {
        evaluated += 1
        do {
            let v = try ExpressionEvaluator.evaluate(e, c)
            XCTAssertTrue(v.isConstant || v.count == c.count)
            _ = texts(v, rows: c.count)
        } catch is SQLError {
        } catch {
            XCTFail("non-SQL error \(error)")
        }
    }

    func testEveryFunctionOverExtremeValues() {
        let c = Self.chunk6
        let cols = Self.pool.enumerated().map { BoundExpr.column($0.offset, $0.element.0) }
        let consts: [BoundExpr] = [E.str("year"), E.str("month"), E.str("week"), E.int(-1), E.int(0), E.int(3),
                                   E.int(Int64(Int32.max)), E.null(.integer), E.str(""), E.str("%a_")]
        let argPool = cols + consts
        for name in FunctionRegistry.knownNames where name != "assignment_cast" {
            for arity in 0...3 {
                var combos: [[BoundExpr]] = [[]]
                for _ in 0..<arity {
                    combos = combos.flatMap { prefix in argPool.map { prefix + [$0] } }
                    if combos.count > 2500 { combos = combos.enumerated().filter { $0.offset % 7 == 0 }.map { $0.element } }
                }
                for args in combos {
                    guard let e = try? E.fn(name, args) else { continue }
                    evalIgnoringErrors(e, c)
                }
            }
        }
        XCTAssertGreaterThan(evaluated, 5000)
    }

    func testEveryOperatorAndCast() {
        let c = Self.chunk6
        let cols = Self.pool.enumerated().map { BoundExpr.column($0.offset, $0.element.0) }
        let ops: [BinaryOp] = [.add, .subtract, .multiply, .divide, .modulo, .equal, .notEqual, .less, .lessEqual,
                               .greater, .greaterEqual, .concat]
        for op in ops {
            for l in cols {
                for r in cols {
                    guard let e = try? E.bin(op, l, r) else { continue }
                    evalIgnoringErrors(e, c)
                }
            }
        }
        let targets: [DataType] = Self.pool.map { $0.0 } + [.real, .char(3), .varchar(2), .decimal(precision: 5, scale: 4),
                                                          .decimal(precision: 20, scale: 0)]
        for col in cols {
            for t in targets where TypeRules.canCast(col.type, t) {
                evalIgnoringErrors(.cast(col, t), c)
                evalIgnoringErrors(.function(Builtins.internals.assignmentCast, [col], t), c)
            }
            evalIgnoringErrors(.unary(.negate, col, col.type), c)
            evalIgnoringErrors(.inList(col, [col, .constant(.null, col.type)], negated: false), c)
            evalIgnoringErrors(.isNull(col, negated: true), c)
        }
        for pattern in ["%", "_", "\\", "%\\%", "é%", "%x%x%", ""] {
            evalIgnoringErrors(.like(cols[6], pattern: E.str(pattern), caseInsensitive: true, negated: false, escape: nil), c)
            _ = try? ExpressionEvaluator.select(.like(cols[6], pattern: E.str(pattern), caseInsensitive: false,
                                                      negated: true, escape: nil), c)
        }
        XCTAssertGreaterThan(evaluated, 500)
    }
}
