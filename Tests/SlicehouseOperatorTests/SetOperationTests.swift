// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
import SlicehousePlan
@testable import SlicehouseExecution

func referenceSetOperation(_ kind: SetOperationOperator.Kind, all: Bool, _ left: [Row], _ right: [Row]) -> [Row] {
    var leftOrder: [Row] = []
    var lc: [Row: Int] = [:], rc: [Row: Int] = [:]
    for r in left {
        if lc[r] == nil { leftOrder.append(r) }
        lc[r, default: 0] += 1
    }
    for r in right { rc[r, default: 0] += 1 }
    var out: [Row] = []
    for r in leftOrder {
        let l = lc[r] ?? 0, n = rc[r] ?? 0
        let times: Int
        switch (kind, all) {
        case (.intersect, false): times = l > 0 && n > 0 ? 1 : 0
        case (.except, false): times = l > 0 && n == 0 ? 1 : 0
        case (.intersect, true): times = min(l, n)
        case (.except, true): times = max(l - n, 0)
        }
        out += Array(repeating: r, count: times)
    }
    return out
}

final class SetOperationTests: XCTestCase {
    let types: [DataType] = [.integer, .varchar(10)]

    private func run(_ kind: SetOperationOperator.Kind, all: Bool, _ left: [Row], _ right: [Row],
                     chunkSize: Int = Chunk.capacity, selection: Bool = false) throws -> [Row] {
        let op = SetOperationOperator(kind: kind, all: all,
                                      left: source(types, left, chunkSize: chunkSize, withSelection: selection),
                                      right: source(types, right, chunkSize: chunkSize, withSelection: selection),
                                      types: types)
        return try drain(op)
    }

    func testSmallExampleWithNulls() throws {
        let a: Row = [.int(1), .string("x")], b: Row = [.null, .string("y")], c: Row = [.int(2), .null], d: Row = [.null, .null]
        let left = [a, a, a, b, b, c, d]
        let right = [a, b, b, b, d, d, [.int(9), .string("z")]]
        XCTAssertEqual(try run(.intersect, all: false, left, right), [a, b, d])
        XCTAssertEqual(try run(.except, all: false, left, right), [c])
        XCTAssertEqual(try run(.intersect, all: true, left, right), [a, b, b, d])
        XCTAssertEqual(try run(.except, all: true, left, right), [a, a, c])
    }

    func testAgainstReference() throws {
        for (n, m) in [(0, 0), (0, 100), (100, 0), (1, 1), (2049, 2047), (10000, 4000)] {
            var rng = SeededRandom(seed: UInt64(n * 31 + m))
            func gen(_ count: Int) -> [Row] {
                (0..<count).map { _ in
                    [rng.chance(0.1) ? .null : .int(Int64(rng.int(0...60))),
                     rng.chance(0.1) ? .null : .string(["p", "q", "a-longer-string"][rng.int(0...2)])]
                }
            }
            let left = gen(n), right = gen(m)
            for kind in [SetOperationOperator.Kind.intersect, .except] {
                for all in [false, true] {
                    let expected = referenceSetOperation(kind, all: all, left, right)
                    XCTAssertEqual(try run(kind, all: all, left, right), expected, "\(kind) all \(all) \(n)x\(m)")
                    XCTAssertEqual(try run(kind, all: all, left, right, chunkSize: 333, selection: true), expected)
                }
            }
        }
    }
}
