// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseFuzz
import XCTest

/// The fuzz corpus (Tests/FuzzCorpus/<target>/) replayed through its targets: every
/// seed and every saved reproducer of a fixed crash must run without crashing. A crash
/// found by `slicehouse fuzz` or scripts/fuzz.sh gets its regression test by adding
/// the input to the target's folder (named `regress-<what>`) once it is fixed.
final class FuzzCorpusTests: XCTestCase {
    /// Tests/FuzzCorpus, found from this file's path.
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("FuzzCorpus").path

    override class func tearDown() {
        FuzzScratch.removeAll()
        super.tearDown()
    }

    /// Every target has a corpus folder, and every folder names a target.
    func testEveryTargetHasACorpus() throws {
        let folders = try FileManager.default.contentsOfDirectory(atPath: Self.corpus).filter { name in
            var isDirectory: ObjCBool = false
            let path = (Self.corpus as NSString).appendingPathComponent(name)
            return !name.hasPrefix(".") && FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
                && isDirectory.boolValue
        }
        XCTAssertEqual(Set(folders), Set(FuzzTargets.all.map(\.name)))
    }

    /// Each target's corpus files and built-in seeds run (errors are fine; a crash ends the test run).
    func testCorpusReplays() throws {
        for target in FuzzTargets.all {
            let folder = (Self.corpus as NSString).appendingPathComponent(target.name)
            let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { !$0.hasPrefix(".") }.sorted()
            XCTAssertFalse(names.isEmpty, "no corpus for \(target.name)")
            for name in names {
                let data = try XCTUnwrap(FileManager.default.contents(atPath: (folder as NSString).appendingPathComponent(name)))
                _ = target.runReportingOutcome(Array(data))
            }
            for seed in target.builtInSeeds() { target.run(seed) }
        }
    }

    /// A hundred mutated inputs per target, with a fixed seed (the mutation fuzzer's
    /// loop in small, so that `swift test` exercises it too).
    func testShortMutationRun() throws {
        let crashes = NSTemporaryDirectory() + "slicehouse-fuzz-test-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: crashes) }
        let runner = FuzzRunner(options: FuzzOptions(runs: 100, seed: 7, corpusDirectory: Self.corpus,
                                                     crashDirectory: crashes), log: { _ in })
        for target in FuzzTargets.all {
            let stats = try runner.fuzz(target)
            XCTAssertEqual(stats.runs, 100, target.name)
            XCTAssertGreaterThan(stats.outcomes, 1, target.name)
        }
    }

    /// The same seed gives the same inputs.
    func testMutatorIsDeterministic() {
        let mutator = Mutator(dictionary: [Array("SELECT".utf8)], maxLength: 64)
        func sequence(_ seed: UInt64) -> [[UInt8]] {
            var rng = FuzzRandom(seed: seed)
            var input = Array("select 1".utf8)
            var out: [[UInt8]] = []
            for _ in 0..<50 {
                input = mutator.mutate(input, corpus: [Array("x".utf8)], rng: &rng)
                XCTAssertLessThanOrEqual(input.count, 64)
                out.append(input)
            }
            return out
        }
        XCTAssertEqual(sequence(3), sequence(3))
        XCTAssertNotEqual(sequence(3), sequence(4))
    }
}
