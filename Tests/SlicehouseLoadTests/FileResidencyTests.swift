// SPDX-License-Identifier: Apache-2.0
import XCTest
import Foundation
@testable import SlicehouseLoad

/// A COPY's input file is memory-mapped; finding its ranges' cuts reads a little at every
/// range, and each read maps the page-cache folio around it into the process (about a
/// megabyte on the kernels we run on), so planning SF 10's lineitem left a gigabyte of it
/// resident, counted in the COPY's peak RSS. `FileData.planRanges` lets the pages go.
final class FileResidencyTests: XCTestCase {
    /// The process's resident file-backed pages, in bytes.
    static func residentFileBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
        for line in status.split(separator: "\n") where line.hasPrefix("RssFile:") {
            let kb = line.split(separator: " ").compactMap { Int($0) }.first ?? -1
            return kb * 1024
        }
        return -1
    }

    func testPlanningRangesLeavesTheFileNotResident() throws {
        guard Self.residentFileBytes() >= 0 else { throw XCTSkip("no /proc/self/status RssFile here") }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("slicehouse-residency-\(UUID().uuidString).tbl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        // 192 MB of short lines, written and read once so that it is in the page cache.
        var block = [UInt8]()
        for i in 0..<(1 << 16) { block.append(contentsOf: Array("\(i)|some text of the row \(i)|\(i * 7)\n".utf8)) }
        FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: path))
        let blockData = Data(block)
        var written = 0
        while written < 192 << 20 { handle.write(blockData); written += block.count }
        try handle.close()
        _ = try Data(contentsOf: URL(fileURLWithPath: path))

        let planner = RangePlanner(options: CopyOptions(), columnCount: 3)
        let rangeBytes = 1 << 20
        let before = Self.residentFileBytes()
        let plan: RangePlanner.Plan
        do {
            let data = try FileData.mapFile(path)
            plan = data.planRanges(planner, rangeBytes: rangeBytes, first: true, last: true)
            XCTAssertGreaterThan(plan.cuts.count, 150)
            let held = Self.residentFileBytes() - before
            XCTAssertLessThan(held, 16 << 20, "planning left \(held >> 20) MB of the file resident")
        }

        // The same plan without letting go: what this kernel keeps mapped after reading a
        // byte at each cut (the fix is only visible where that is much).
        let data = try FileData.mapFile(path)
        let again = planner.plan(data.bytes, rangeBytes: rangeBytes, first: true, last: true)
        XCTAssertEqual(again.cuts, plan.cuts)
        let kept = Self.residentFileBytes() - before
        if kept < 32 << 20 {
            throw XCTSkip("this kernel maps \(kept >> 20) MB for \(again.cuts.count) reads; the release is not visible")
        }
    }
}
