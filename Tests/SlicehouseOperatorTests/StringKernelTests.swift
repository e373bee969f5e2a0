import XCTest
import SlicehouseTypes
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
        // The same values, each with its last byte changed (the empty one stays empty).
        let changed = all.map { s -> String? in
            guard let s, let last = s.unicodeScalars.last else { return s }
            return String(s.dropLast()) + String(UnicodeScalar(last.value == 122 ? 97 : last.value + 1)!)
        }
        let b = vector(changed)
        let rows = (0..<Int32(all.count)).map { $0 }
        var same = [Bool](repeating: true, count: rows.count)
        try rows.withUnsafeBufferPointer { r in
            try same.withUnsafeMutableBufferPointer { try OperatorKernels.andEqual(a, r, a, r, $0) }
        }
        XCTAssertEqual(same, [Bool](repeating: true, count: rows.count))
        var differ = [Bool](repeating: true, count: rows.count)
        try rows.withUnsafeBufferPointer { r in
            try differ.withUnsafeMutableBufferPointer { try OperatorKernels.andEqual(a, r, b, r, $0) }
        }
        // Equal only where nothing could change: the empty value and the NULL.
        XCTAssertEqual(differ, all.map { $0 == nil || $0 == "" })
    }
}
