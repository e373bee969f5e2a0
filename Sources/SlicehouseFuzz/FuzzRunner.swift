// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehousePlatform

/// Settings of one `slicehouse fuzz` session.
public struct FuzzOptions: Sendable {
    /// Stop each target after this many seconds (nil: no time limit).
    public var seconds: Double?
    /// Stop each target after this many runs, seeds included (nil: no run limit).
    public var runs: Int?
    /// Seed of the mutations: the same seed, corpus and code give the same inputs.
    public var seed: UInt64
    /// Folder holding `<target>/` folders of seed inputs (nil or missing: built-in seeds only).
    public var corpusDirectory: String?
    /// Where `current-<target>`, kept inputs of crashed runs and timeouts go.
    public var crashDirectory: String
    /// A single run taking longer than this is reported as a hang: the input is saved
    /// as `timeout-<target>-<hash>` and the process exits with status 3.
    public var timeoutSeconds: Double
    /// Inputs kept for new outcomes, per target, at most.
    public var maxCorpus: Int
    /// Print each new outcome as it is found.
    public var verbose: Bool

    public init(seconds: Double? = nil, runs: Int? = nil, seed: UInt64 = 1, corpusDirectory: String? = nil,
                crashDirectory: String, timeoutSeconds: Double = 60, maxCorpus: Int = 4096, verbose: Bool = false) {
        self.seconds = seconds; self.runs = runs; self.seed = seed; self.corpusDirectory = corpusDirectory
        self.crashDirectory = crashDirectory; self.timeoutSeconds = timeoutSeconds; self.maxCorpus = maxCorpus
        self.verbose = verbose
    }
}

/// What fuzzing one target did.
public struct FuzzStats: Sendable {
    public var target: String
    public var runs = 0
    public var seconds = 0.0
    /// Seed inputs loaded (corpus files and built-in seeds).
    public var seeds = 0
    /// Mutated inputs kept because they produced an outcome not seen before.
    public var kept = 0
    /// Distinct outcome signatures seen.
    public var outcomes = 0
}

/// The mutation fuzzer behind `slicehouse fuzz`: for each target, run the seed inputs,
/// then mutated inputs (`Mutator`) until the time or run limit, in this process.
///
/// Without compiler instrumentation there is no coverage feedback; instead a mutated
/// input is kept for further mutation when its outcome signature (see `FuzzTarget`) is
/// new. A crash ends the process: because the input is written to
/// `<crash-dir>/current-<target>` before each run, it survives, and the next session
/// for that target renames it to `crash-<target>-<hash>` (a clean finish removes it).
public final class FuzzRunner {
    let options: FuzzOptions
    /// Log lines go here (standard error by default).
    let log: @Sendable (String) -> Void

    /// Distinct outcome signatures remembered per target, at most.
    static let maxOutcomes = 200_000

    public init(options: FuzzOptions, log: @escaping @Sendable (String) -> Void = { FuzzRunner.printError($0) }) {
        self.options = options
        self.log = log
    }

    /// Write a line to standard error.
    public static func printError(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// Fuzz `target` until a limit is reached. Throws only for harness problems (the crash
    /// directory cannot be written).
    public func fuzz(_ target: FuzzTarget) throws -> FuzzStats {
        let fm = FileManager.default
        try fm.createDirectory(atPath: options.crashDirectory, withIntermediateDirectories: true)
        let currentPath = (options.crashDirectory as NSString).appendingPathComponent("current-\(target.name)")
        keepEarlierCrash(currentPath, target: target)
        let current = try CurrentInputFile(path: currentPath)

        var stats = FuzzStats(target: target.name)
        var corpus = loadCorpus(target)
        stats.seeds = corpus.count
        if corpus.isEmpty { corpus = [[]] }
        let seedCount = corpus.count
        var seen = Set<String>()
        var rng = FuzzRandom(seed: options.seed ^ fnv1a(Array(target.name.utf8)))
        let mutator = Mutator(dictionary: target.dictionary, maxLength: target.maxLength)
        let watchdog = Watchdog(timeout: options.timeoutSeconds, crashDirectory: options.crashDirectory, target: target.name,
                                log: log)
        let start = ContinuousClock.now
        func elapsed() -> Double {
            let d = ContinuousClock.now - start
            return Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
        }
        func limitReached() -> Bool {
            if let runs = options.runs, stats.runs >= runs { return true }
            if let seconds = options.seconds, elapsed() >= seconds { return true }
            return false
        }
        func runOne(_ input: [UInt8]) -> Bool {
            current.write(input)
            watchdog.started(input)
            let outcome = target.runReportingOutcome(input)
            watchdog.finished()
            stats.runs += 1
            // Past `maxOutcomes` distinct outcomes the feedback has stopped meaning much;
            // stop remembering (and keeping inputs) rather than grow without bound.
            let isNew = seen.count < FuzzRunner.maxOutcomes && seen.insert(outcome).inserted
            if isNew && options.verbose { log("\(target.name): #\(stats.runs) new: \(outcome.prefix(200))") }
            return isNew
        }

        // The seeds as they are, then mutations.
        var i = 0
        while i < seedCount && !limitReached() {
            _ = runOne(corpus[i])
            i += 1
        }
        while !limitReached() {
            let parent = corpus[rng.below(corpus.count)]
            let child = mutator.mutate(parent, corpus: corpus, rng: &rng)
            if runOne(child) {
                stats.kept += 1
                if corpus.count < options.maxCorpus {
                    corpus.append(child)
                } else {
                    // Full: replace a kept input, never a seed.
                    corpus[seedCount + rng.below(corpus.count - seedCount)] = child
                }
            }
        }
        stats.seconds = elapsed()
        stats.outcomes = seen.count
        watchdog.stop()
        current.remove()
        return stats
    }

    /// Seed inputs: `<corpus>/<target>/*` (sorted by name, hidden files and folders
    /// skipped, each cut to the target's maximum length), then the target's built-in seeds.
    func loadCorpus(_ target: FuzzTarget) -> [[UInt8]] {
        var out: [[UInt8]] = []
        if let dir = options.corpusDirectory {
            let folder = (dir as NSString).appendingPathComponent(target.name)
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
            if names.isEmpty { log("\(target.name): no corpus in \(folder); using built-in seeds only") }
            for name in names where !name.hasPrefix(".") {
                let path = (folder as NSString).appendingPathComponent(name)
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
                      let bytes = FuzzScratch.read(path) else { continue }
                out.append(Array(bytes.prefix(target.maxLength)))
            }
        }
        out.append(contentsOf: target.builtInSeeds().map { Array($0.prefix(target.maxLength)) })
        return out
    }

    /// A `current-<target>` left by an earlier session means that session died on that
    /// input: keep it as `crash-<target>-<hash>` and say so.
    func keepEarlierCrash(_ currentPath: String, target: FuzzTarget) {
        guard let bytes = FuzzScratch.read(currentPath) else { return }
        let kept = (options.crashDirectory as NSString)
            .appendingPathComponent("crash-\(target.name)-\(String(fnv1a(bytes), radix: 16))")
        try? FileManager.default.removeItem(atPath: kept)
        if (try? FileManager.default.moveItem(atPath: currentPath, toPath: kept)) != nil {
            log("\(target.name): an earlier fuzz session died on an input; it is kept as \(kept)")
        }
    }
}

/// FNV-1a, 64 bits: names for saved inputs and per-target seeds of the generator.
func fnv1a(_ bytes: [UInt8]) -> UInt64 {
    var h: UInt64 = 0xCBF2_9CE4_8422_2325
    for b in bytes { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
    return h
}

/// `<crash-dir>/current-<target>`, rewritten in place before every run (one `pwrite`
/// and one `ftruncate`), so that the input of a run that crashes the process is on disk.
final class CurrentInputFile {
    private let fd: Int32
    let path: String

    init(path: String) throws {
        self.path = path
        fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw SQLError(.ioError, "cannot create \(path): \(String(cString: strerror(errno)))") }
    }

    deinit { close(fd) }

    func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count, let base = raw.baseAddress {
                let n = pwrite(fd, base + done, raw.count - done, off_t(done))
                if n <= 0 { if n < 0 && errno == EINTR { continue }; break }
                done += n
            }
        }
        _ = ftruncate(fd, off_t(bytes.count))
    }

    /// Remove the file (the session finished without crashing).
    func remove() { unlink(path) }
}

/// Watches for runs that take too long: a background thread checks twice a second,
/// and when the current run has taken longer than the timeout it saves the input as
/// `timeout-<target>-<hash>`, says so, and ends the process with status 3 (a hang
/// cannot be interrupted from inside).
final class Watchdog: @unchecked Sendable {
    private let lock = Lock()
    private var input: [UInt8]? = nil
    private var since = ContinuousClock.now
    private var stopped = false

    init(timeout: Double, crashDirectory: String, target: String, log: @escaping @Sendable (String) -> Void) {
        let thread = Thread { [self] in
            while true {
                Thread.sleep(forTimeInterval: 0.5)
                let (hung, done): ([UInt8]?, Bool) = lock.withLock {
                    if stopped { return (nil, true) }
                    guard let input else { return (nil, false) }
                    let d = ContinuousClock.now - since
                    return (Double(d.components.seconds) >= timeout ? input : nil, false)
                }
                if done { return }
                guard let hung else { continue }
                let name = "timeout-\(target)-\(String(fnv1a(hung), radix: 16))"
                let path = (crashDirectory as NSString).appendingPathComponent(name)
                try? FuzzScratch.write(hung, to: path)
                log("\(target): one run took longer than \(timeout) s; the input is saved as \(path)")
                _exit(3)
            }
        }
        thread.start()
    }

    func started(_ bytes: [UInt8]) { lock.withLock { input = bytes; since = .now } }
    func finished() { lock.withLock { input = nil } }
    func stop() { lock.withLock { stopped = true } }
}
