// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
import SlicehousePlan
@testable import SlicehouseFunctions
@testable import SlicehouseExecution

/// The string paths of the row kernels that joins and aggregates run on every match:
/// gather (join output), append through a row list (materialization) and `andEqual`
/// (hash-table key checks), over values of every length around the 8- and 16-byte
/// word paths, the last value ending at its buffer's end, NULLs and outer-join padding.
final class StringKernelTests: XCTestCase {
    func values() -> [String?] {
        var out: [String?] = []
        for n in 0...40 { out.append(String((0..<n).map { Character(UnicodeScalar(UInt8(97 + ($0 * 7 + n) % 26))) })) }
        out.insert(nil, at: 9)
        out.append("last")
        return out
    }

    func vector(_ values: [String?]) -> Vector {
        var v = Vector(type: .varchar(64))
        for s in values { if let s { v.append(.string(s)) } else { v.appendNull() } }
        return v
    }

    func strings(_ v: Vector) -> [String?] {
        (0..<v.count).map { i -> String? in
            if v.isNull(i) { return nil }
            guard case .string(let a) = v.data else { return "?" }
            return a[i]
        }
    }

    func testGatherAndAppendThroughRows() throws {
        let all = values()
        let v = vector(all)
        let rows: [Int32] = (0..<Int32(all.count)).reversed() + [Int32(all.count - 1), -1, 3, 16, 15, 8, 9, 24, 23]
        let want = rows.map { $0 < 0 ? nil : all[Int($0)] }
        XCTAssertEqual(strings(OperatorKernels.gather(v, rows)), want)
        // Appended to a vector that already holds values, through a row list.
        let kept = rows.filter { $0 >= 0 }
        var d = vector(["x", "yz"])
        try kept.withUnsafeBufferPointer { try OperatorKernels.append(&d, v, rows: $0, count: kept.count) }
        XCTAssertEqual(strings(d), ["x", "yz"] + kept.map { all[Int($0)] })
    }

    func testAndEqualComparesEveryByteOfEveryLength() throws {
        let all = values()
        let a = vector(all)
        func next(_ c: Character) -> Character { c == "z" ? "a" : Character(UnicodeScalar(c.asciiValue! + 1)) }
        // The same values, each with its last (then its first, then its middle) byte changed;
        // the empty one stays empty.
        let edits: [(String) -> String] = [
            { String($0.dropLast()) + String(next($0.last!)) },
            { String(next($0.first!)) + String($0.dropFirst()) },
            { s in String(s.enumerated().map { $0.offset == s.count / 2 ? next($0.element) : $0.element }) },
        ]
        let rows = (0..<Int32(all.count)).map { $0 }
        var same = [Bool](repeating: true, count: rows.count)
        try rows.withUnsafeBufferPointer { r in
            try same.withUnsafeMutableBufferPointer { try OperatorKernels.andEqual(a, r, a, r, $0) }
        }
        XCTAssertEqual(same, [Bool](repeating: true, count: rows.count))
        for edit in edits {
            let b = vector(all.map { s in s.map { $0.isEmpty ? $0 : edit($0) } })
            var differ = [Bool](repeating: true, count: rows.count)
            try rows.withUnsafeBufferPointer { r in
                try differ.withUnsafeMutableBufferPointer { try OperatorKernels.andEqual(a, r, b, r, $0) }
            }
            // Equal only where nothing could change: the empty value and the NULL.
            XCTAssertEqual(differ, all.map { $0 == nil || $0 == "" })
        }
    }
}
