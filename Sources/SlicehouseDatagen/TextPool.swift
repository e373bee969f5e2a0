// SPDX-License-Identifier: Apache-2.0
import Foundation

/// dbgen's text pool: 300 MiB of pseudo-English that every comment column is cut from.
///
/// Instead of composing each comment from words, dbgen writes one long text once,
/// from a small grammar, and a comment is then a random slice of it: a random
/// offset and a random length (see `TextColumn`). The pool is the same at every
/// scale factor — its size is fixed at 300 MiB and it comes from its own random
/// stream (seed 933588178) — so even SF 0.01 needs the whole pool, because
/// comment offsets range over all of it.
///
/// The grammar (from `dists.dss`): a sentence is a weighted choice among
/// `N V T`, `N V P T`, `N V N T`, `N P V N T`, `N P V P T`, where
///
/// - `N` is a noun phrase: `N`, `J N`, `J, J N` or `D J N` (noun, adjective,
///   adverb; the comma attaches to the word before it);
/// - `V` is a verb phrase: `V`, `X V`, `V D` or `X V D` (verb, auxiliary, adverb);
/// - `P` is a preposition, the word "the", and a noun phrase;
/// - `T` is a terminator (`.` mostly; also `;` `:` `?` `!` `--`) that replaces
///   the space after the previous word.
///
/// Every word is followed by a space, so sentences are separated by one space.
/// Each choice — production or word — is one weighted draw from the pool's
/// stream, in reading order. Sentences are appended until the pool is full and
/// the last one is cut: the pool is the first 300 MiB of an endless text.
///
/// **Building it in parallel.** The number of draws per sentence varies, so
/// where the sentence boundaries fall in the stream is only known by reading
/// from the start. But a sentence's text depends only on the draw it starts at,
/// and two readings that start at different draws fall into step as soon as
/// both begin a sentence at the same draw — which happens within a few dozen
/// sentences, since sentence lengths vary. So worker *j* starts reading at an
/// arbitrary draw `j × R` (the stream jumps there by skip-ahead) and records
/// where its first sentences begin; worker *j − 1* reads a few thousand
/// sentences past `j × R`, recording where those begin. The first draw at
/// which both begin a sentence is where the two segments are stitched: from
/// there on they are the same text. Should the readings not meet (never seen;
/// the odds are astronomically small), the pool is built sequentially instead.
/// The result is byte-identical to the sequential build (a test checks this).
final class TextPool: @unchecked Sendable {
    /// 300 MiB, the pool size dbgen uses at every scale factor.
    static let defaultSize = 300 * 1024 * 1024
    static let seed: Int64 = 933_588_178
    /// No sentence is longer than this, so buffers keep this much slack.
    static let maxSentenceLength = 256

    /// The pool shared by all generators, built on first use.
    static let shared = TextPool(size: defaultSize,
                                 workers: min(8, max(1, ProcessInfo.processInfo.activeProcessorCount)))

    /// The pool's bytes (immutable after `init`, released with the pool).
    let base: UnsafePointer<UInt8>
    let size: Int

    /// Builds a pool of `size` bytes with `workers` threads (1 = sequential).
    init(size: Int, workers: Int) {
        let grammar = FlatGrammar.shared
        let storage: UnsafeMutablePointer<UInt8>
        if workers > 1 && size >= 1 << 20, let parallel = TextPool.buildInParallel(size: size, workers: workers,
                                                                                      grammar: grammar) {
            storage = parallel
        } else {
            storage = TextPool.buildSequentially(size: size, grammar: grammar)
        }
        base = UnsafePointer(storage)
        self.size = size
    }

    deinit {
        free(UnsafeMutableRawPointer(mutating: base))
    }

    /// The pool as one reading from draw 0.
    private static func buildSequentially(size: Int, grammar: FlatGrammar) -> UnsafeMutablePointer<UInt8> {
        var reader = SentenceReader(grammar: grammar, firstDraw: 0, capacity: size + maxSentenceLength,
                                    hugePages: true)
        while reader.length < size { reader.appendSentence() }
        return reader.takeBuffer()
    }

    /// The pool from `workers` readings stitched together, or nil if the
    /// readings did not fall into step (then the caller builds sequentially).
    private static func buildInParallel(size: Int, workers: Int,
                                        grammar: FlatGrammar) -> UnsafeMutablePointer<UInt8>? {
        // Estimate the draws the pool needs from a short sequential reading.
        var pilot = SentenceReader(grammar: grammar, firstDraw: 0, capacity: 1 << 18)
        while pilot.length < 1 << 17 { pilot.appendSentence() }
        let bytesPerDraw = Double(pilot.length) / Double(pilot.draws)
        pilot.release()
        let totalDraws = Int64(Double(size) / bytesPerDraw * 1.005) + 1
        let regionDraws = totalDraws / Int64(workers) + 1

        /// Sentences each worker reads beyond its region, to meet the next
        /// worker's reading; and sentences whose starts each worker records.
        let overlapSentences = 4096
        let recordedStarts = 4096

        let segments = SegmentBox(count: workers)
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            let first = Int64(worker) * regionDraws
            let end = first + regionDraws
            let isLast = worker == workers - 1
            // Worker 0's buffer becomes the pool, so it is sized for the pool;
            // the others grow if their estimate falls short.
            let estimate = Int(Double(regionDraws) * bytesPerDraw * 1.05) + (1 << 20)
            var reader = SentenceReader(grammar: grammar, firstDraw: first,
                                        capacity: worker == 0 ? max(size, estimate) + 2 * maxSentenceLength : estimate,
                                        hugePages: true)
            var segment = ReaderSegment()
            while reader.draws < end {
                if segment.leadingStarts.count < recordedStarts {
                    segment.leadingStarts.append(SentenceStart(draw: reader.draws, offset: reader.length))
                }
                reader.appendSentence()
            }
            if !isLast {
                for _ in 0..<overlapSentences {
                    segment.trailingStarts.append(SentenceStart(draw: reader.draws, offset: reader.length))
                    reader.appendSentence()
                }
            }
            segment.endDraw = reader.draws
            segment.length = reader.length
            segment.capacity = reader.capacity
            segment.buffer = reader.takeBuffer()
            segments.store(segment, at: worker)
        }
        return stitch(segments.all(), size: size, grammar: grammar)
    }

    /// Joins worker readings at their first common sentence starts, in
    /// worker 0's buffer, then reads on sequentially if the pool is not yet full.
    private static func stitch(_ segments: [ReaderSegment], size: Int,
                               grammar: FlatGrammar) -> UnsafeMutablePointer<UInt8>? {
        let buffers = segments.compactMap(\.buffer)
        guard buffers.count == segments.count, buffers.count > 1, let last = segments.last,
              segments[0].capacity >= size + maxSentenceLength else {
            for buffer in buffers { free(buffer) }
            return nil
        }
        defer { for buffer in buffers.dropFirst() { free(buffer) } }
        // Byte ranges [from, to) of each segment that belong to the pool.
        var ranges: [(from: Int, to: Int)] = segments.map { (0, $0.length) }
        for index in 1..<segments.count {
            guard let (left, right) = firstCommonStart(segments[index - 1].trailingStarts,
                                                       segments[index].leadingStarts) else {
                free(buffers[0])
                return nil
            }
            ranges[index - 1].to = left
            ranges[index].from = right
        }
        guard ranges.allSatisfy({ $0.from <= $0.to }) else {
            free(buffers[0])
            return nil
        }
        var reader = SentenceReader(grammar: grammar, continuing: buffers[0], capacity: segments[0].capacity,
                                    length: ranges[0].to, nextDraw: last.endDraw)
        for (buffer, range) in zip(buffers, ranges).dropFirst() where reader.length < size {
            let count = min(range.to - range.from, size - reader.length)
            memcpy(reader.output + reader.length, buffer + range.from, count)
            reader.length += count
        }
        // Only reached when every segment was copied whole, so reading
        // continues right after the last one.
        while reader.length < size { reader.appendSentence() }
        return reader.takeBuffer()
    }

    /// The byte offsets, in each reading, of the first sentence start the two
    /// readings share.
    private static func firstCommonStart(_ left: [SentenceStart], _ right: [SentenceStart]) -> (Int, Int)? {
        var i = 0
        var j = 0
        while i < left.count && j < right.count {
            if left[i].draw == right[j].draw { return (left[i].offset, right[j].offset) }
            if left[i].draw < right[j].draw { i += 1 } else { j += 1 }
        }
        return nil
    }
}

/// Where a sentence begins: its first draw (counted from the stream's start)
/// and its byte offset in the reading's buffer.
private struct SentenceStart {
    let draw: Int64
    let offset: Int
}

/// What one worker read. The buffer is `malloc`ed; `stitch` frees it.
private struct ReaderSegment: @unchecked Sendable {
    var buffer: UnsafeMutablePointer<UInt8>?
    var length = 0
    var capacity = 0
    var endDraw: Int64 = 0
    var leadingStarts: [SentenceStart] = []
    var trailingStarts: [SentenceStart] = []
}

/// Collects worker results across threads.
private final class SegmentBox: @unchecked Sendable {
    private var segments: [ReaderSegment]
    private let lock = NSLock()

    init(count: Int) { segments = Array(repeating: ReaderSegment(), count: count) }

    func store(_ segment: ReaderSegment, at index: Int) {
        lock.withLock { segments[index] = segment }
    }

    func all() -> [ReaderSegment] { lock.withLock { segments } }
}
