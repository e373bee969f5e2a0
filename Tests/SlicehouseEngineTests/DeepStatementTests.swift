// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseEngine
import SlicehouseTypes

/// Statements of generated SQL with very long chains: each one crashed with a stack
/// overflow (exit 139) in the binder, the conjunct splitter or the operator builder
/// before long AND/OR/||/UNION runs were balanced, statements moved onto a thread with
/// a large stack, and `Parser.maxHeight` bounded left-deep chains (those taller than
/// it are the clean error `statement is too deeply nested`).
final class DeepStatementTests: XCTestCase {
    private func scalar(_ session: Session, _ sql: String) throws -> String {
        guard let value = try session.execute(sql).last?.textRows().first?.first ?? nil else {
            XCTFail("no value from \(sql.prefix(80))")
            return ""
        }
        return value
    }

    private func session() throws -> Session {
        let s = try Database(cluster: ClusterConfig(nodes: 2, slicesPerNode: 2)).connect()
        _ = try s.execute("create table n (x int) distkey(x)")
        _ = try s.execute("insert into n values " + (1...50).map { "(\($0))" }.joined(separator: ","))
        return s
    }

    func testLongSumsAnswerAndTooLongOnesAreAnErrorNotACrash() throws {
        let s = try session()
        XCTAssertEqual(try scalar(s, "select " + Array(repeating: "1", count: 900).joined(separator: "+")), "900")
        // Over columns, evaluated on the slices' worker threads.
        let sum = "x" + String(repeating: "+x", count: 899)
        XCTAssertEqual(try scalar(s, "select sum(\(sum)) from n where \(sum) > 0"), "\(900 * 1275)")
        for terms in [4_000, 20_000] {
            let sql = "select " + Array(repeating: "1", count: terms).joined(separator: "+")
            XCTAssertThrowsError(try s.execute(sql)) { error in
                XCTAssertTrue("\(error)".contains("statement is too deeply nested"), "\(error)")
            }
        }
        let deepColumns = "x" + String(repeating: "+x", count: 4_000)
        XCTAssertThrowsError(try s.execute("select sum(\(deepColumns)) from n"))
        // The session is still usable.
        XCTAssertEqual(try scalar(s, "select count(*) from n"), "50")
    }

    func testFiveThousandOrs() throws {
        let s = try session()
        let ors = (0..<5_000).map { "x = \($0 * 2)" }.joined(separator: " or ")
        XCTAssertEqual(try scalar(s, "select count(*) from n where \(ors)"), "25")
    }

    func testEightyThousandAnds() throws {
        let s = try session()
        let ands = (0..<80_000).map { "x < \($0 + 11)" }.joined(separator: " and ")
        XCTAssertEqual(try scalar(s, "select count(*) from n where \(ands)"), "10")
    }

    func testFiveThousandUnionAllBranches() throws {
        let s = try session()
        let union = (0..<5_000).map { "select \($0) as v" }.joined(separator: " union all ")
        XCTAssertEqual(try scalar(s, "select count(*) || ',' || sum(v) from (\(union)) u"), "5000,12497500")
        // The first branch names the column, and a plain UNION removes duplicates.
        let distinct = (0..<3_000).map { "select \($0 % 7) as w" }.joined(separator: " union ")
        XCTAssertEqual(try scalar(s, "select count(*) from (\(distinct)) u"), "7")
    }

    func testLongConcatenationAndIntersect() throws {
        let s = try session()
        let concat = Array(repeating: "'ab'", count: 5_000).joined(separator: " || ")
        XCTAssertEqual(try scalar(s, "select length(\(concat))"), "10000")
        let intersect = Array(repeating: "select x from n", count: 2_000).joined(separator: " intersect ")
        XCTAssertEqual(try scalar(s, "select count(*) from (\(intersect)) i"), "50")
        let except = ["select x from n"] + (1...900).map { "select \($0)" }
        XCTAssertEqual(try scalar(s, "select count(*) from (\(except.joined(separator: " except "))) e"), "0")
    }
}
