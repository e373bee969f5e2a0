// SPDX-License-Identifier: Apache-2.0
@testable import SlicehouseDatagen
import XCTest

/// The text pool: grammar, size, and the parallel build's stitching.
final class TextPoolTests: XCTestCase {
    func testParallelBuildEqualsSequentialBuild() {
        let size = 3 << 20
        let sequential = TextPool(size: size, workers: 1)
        for workers in [2, 3] {
            let parallel = TextPool(size: size, workers: workers)
            XCTAssertEqual(parallel.size, size)
            XCTAssertEqual(memcmp(parallel.base, sequential.base, size), 0, "\(workers) workers")
        }
    }

    func testPoolIsGrammaticalText() {
        let pool = TextPool(size: 1 << 16, workers: 1)
        let text = String(decoding: UnsafeBufferPointer(start: pool.base, count: pool.size), as: UTF8.self)
        XCTAssertFalse(text.contains("  "), "words are separated by single spaces")
        let sentences = text.split(separator: ".").dropLast()
        XCTAssertGreaterThan(sentences.count, 100)
        let allowed = Set("abcdefghijklmnopqrstuvwxyzT ,;:?!-")
        XCTAssertTrue(text.allSatisfy { allowed.contains($0) || $0 == "." }, "only grammar words and punctuation")
    }

    func testSharedPoolHasDbgenSize() {
        XCTAssertEqual(TextPool.shared.size, 300 * 1024 * 1024)
    }
}
