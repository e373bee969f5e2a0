// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
/// Cuts one file into byte ranges that start at record boundaries, after skipping
/// IGNOREHEADER lines (text, FIXEDWIDTH) or records (CSV). JSON files are cut after
/// top-level values found near each nominal cut (Redshift does not split JSON files;
/// Slicehouse does, so one large file still loads on every core).
struct RangePlanner {
    let options: CopyOptions
    let columnCount: Int

    struct Plan {
        /// Offset where data (after the header) starts.
        var dataStart: Int
        /// `\n` bytes in the skipped header.
        var headerNewlines: Int
        /// Range boundaries: ranges are `cuts[i]..<cuts[i+1]`.
        var cuts: [Int]
        /// Where the bytes left for the next piece of the input start (the input's end when
        /// it is the last piece).
        var end: Int { cuts.last ?? 0 }
    }

    /// Cut `bytes` into ranges of about `rangeBytes`. The bytes are a whole file, or one
    /// piece of an object read piece by piece (S3): the `first` piece has the header to
    /// skip; a piece that is not the `last` ends in the middle of a record, and its ranges
    /// stop at its last record boundary (`Plan.end`), what follows going in front of the
    /// next piece.
    ///
    /// `done`, when given, is told each stretch of the input the planner has finished
    /// reading (for an inflated file, whose pages are let go as soon as they are read).
    func plan(_ bytes: UnsafeBufferPointer<UInt8>, rangeBytes: Int, first: Bool = true, last: Bool = true,
              done: ((Int, Int) -> Void)? = nil) -> Plan {
        guard let base = bytes.baseAddress, !bytes.isEmpty else {
            return Plan(dataStart: 0, headerNewlines: 0, cuts: [0, 0])
        }
        var n = bytes.count
        if options.format == .json {
            if !last { n = lastJSONRecordStart(base, n) }
            let target = max(rangeBytes, 1)
            var cuts = [0]
            if n > target + target / 2 { cuts += JSONGrammar.recordCuts(base, 0, n, target: target) }
            cuts.append(n)
            return Plan(dataStart: 0, headerNewlines: 0, cuts: cuts)
        }
        var start = 0, headerNewlines = 0
        if options.ignoreHeader > 0 && first {
            if options.format == .csv {
                var scanner = RecordScanner(options: options, capacity: columnCount + 1)
                var skipped = 0
                while skipped < options.ignoreHeader && start < n {
                    start = scanner.scan(base, start, n)
                    headerNewlines += scanner.newlines
                    skipped += 1
                }
            } else {
                var skipped = 0
                while skipped < options.ignoreHeader && start < n {
                    while start < n && base[start] != 10 { start += 1 }
                    if start < n { start += 1; headerNewlines += 1 }
                    skipped += 1
                }
            }
        }
        var cuts = [start]
        let target = max(rangeBytes, 1)
        if !last && options.format == .csv {
            // The records must be walked to find the last one that ends inside the piece.
            var scanner = RecordScanner(options: options, capacity: columnCount + 1)
            var p = start
            var nextCut = start + target
            var recordStart = start
            while p < n {
                recordStart = p
                p = scanner.scan(base, p, n)
                if p >= n { break }
                if p >= nextCut && n - p > target / 2 {
                    cuts.append(p)
                    nextCut = p + target
                }
            }
            // The record that reaches the end may go on in the next piece.
            while cuts.count > 1 && cuts[cuts.count - 1] >= recordStart { cuts.removeLast() }
            cuts.append(max(recordStart, start))
            return Plan(dataStart: start, headerNewlines: headerNewlines, cuts: cuts)
        }
        if !last { n = max(start, lastTextBoundary(base, after: start, end: n)) }
        if n - start > target + target / 2 {
            if options.format == .csv {
                // Quoted newlines make a blind cut unsafe: walk records sequentially.
                var scanner = RecordScanner(options: options, capacity: columnCount + 1)
                var p = start
                var nextCut = start + target
                while p < n {
                    p = scanner.scan(base, p, n)
                    if p >= nextCut && p < n && n - p > target / 2 {
                        done?(cuts[cuts.count - 1], p)
                        cuts.append(p)
                        nextCut = p + target
                    }
                }
            } else {
                var nominal = start + target
                while n - nominal > target / 2 {
                    guard let b = nextTextBoundary(base, from: nominal, end: n), b < n else { break }
                    if b > cuts[cuts.count - 1] {
                        done?(cuts[cuts.count - 1], b)
                        cuts.append(b)
                    }
                    nominal = b + target
                }
            }
        }
        cuts.append(n)
        return Plan(dataStart: start, headerNewlines: headerNewlines, cuts: cuts)
    }

    /// Where the last whole line of `b[after..<end]` ends (just past its unescaped `\n`),
    /// `after` when there is none.
    func lastTextBoundary(_ b: UnsafePointer<UInt8>, after: Int, end: Int) -> Int {
        var p = end - 1
        while p >= after {
            if b[p] == 10 {
                if options.escape {
                    var k = 0
                    while p - 1 - k >= 0 && b[p - 1 - k] == 92 { k += 1 }
                    if k % 2 == 1 { p -= 1; continue }
                }
                return p + 1
            }
            p -= 1
        }
        return after
    }

    /// Where the last JSON record that starts on a line of its own begins (0 when none
    /// does): what comes from there on may go on in the next piece.
    func lastJSONRecordStart(_ b: UnsafePointer<UInt8>, _ n: Int) -> Int {
        // Look back a growing distance for a record start, then keep the last one found.
        var window = 1 << 16
        while true {
            let from = max(0, n - window)
            var last: Int? = nil
            var p = from
            while let c = JSONGrammar.nextRecordStart(b, from: p, lowerBound: from, n) {
                last = c
                p = c
            }
            if let last { return last }
            if from == 0 { return 0 }
            window *= 4
        }
    }

    /// The start of the first record at or after `from`: just past an unescaped `\n`
    /// (with ESCAPE, a newline preceded by an odd run of backslashes is data).
    func nextTextBoundary(_ b: UnsafePointer<UInt8>, from: Int, end: Int) -> Int? {
        var p = max(from - 1, 0)
        while p < end {
            if b[p] == 10 {
                if options.escape {
                    var k = 0
                    while p - 1 - k >= 0 && b[p - 1 - k] == 92 { k += 1 }
                    if k % 2 == 1 { p += 1; continue }
                }
                return p + 1
            }
            p += 1
        }
        return nil
    }
}
