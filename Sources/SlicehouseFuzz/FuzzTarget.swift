// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// One fuzz target: a function that takes arbitrary bytes, feeds them to one of
/// Slicehouse's parsers or readers, and must never crash. Errors thrown by the code
/// under test are the expected outcome for bad input and are caught; a trap (a failed
/// precondition, an out-of-range index, an overflow, a stack overflow), a hang or an
/// unbounded allocation is a bug.
///
/// The same targets are driven by `slicehouse fuzz` (a mutation fuzzer needing no
/// special build, see `FuzzRunner`) and by libFuzzer (`slicehouse-libfuzzer`, built
/// with `-sanitize=fuzzer`).
public struct FuzzTarget: Sendable {
    /// The name used on the command line and as the corpus folder
    /// (`Tests/FuzzCorpus/<name>/`).
    public let name: String
    /// One line for `slicehouse fuzz --list`.
    public let summary: String
    /// Inputs longer than this are cut by the mutator (targets also ignore longer
    /// inputs from elsewhere, e.g. libFuzzer, where that matters for speed).
    public let maxLength: Int
    /// Tokens the mutator inserts (keywords, punctuation, magic numbers of the format).
    public let dictionary: [[UInt8]]
    /// Seeds made at run time by the current code (blocks, manifests and Parquet files
    /// written by the engine itself), used besides the committed corpus so the fuzzer
    /// starts from valid inputs even after the on-disk formats change.
    let makeSeeds: @Sendable () -> [[UInt8]]
    /// Run one input; returns a short signature of what happened (`ok ...` or the
    /// error's kind and message with input-specific parts removed). The mutation
    /// fuzzer keeps inputs that produce a signature it has not seen (a cheap stand-in
    /// for coverage feedback).
    let body: @Sendable (UnsafeRawBufferPointer) -> String

    init(name: String, summary: String, maxLength: Int, dictionary: [String] = [], binaryDictionary: [[UInt8]] = [],
         seeds: @escaping @Sendable () -> [[UInt8]] = { [] },
         body: @escaping @Sendable (UnsafeRawBufferPointer) -> String) {
        self.name = name
        self.summary = summary
        self.maxLength = maxLength
        self.dictionary = dictionary.map { Array($0.utf8) } + binaryDictionary
        self.makeSeeds = seeds
        self.body = body
    }

    /// Run one input (the fuzz-target contract: never crashes, whatever the bytes).
    public func run(_ bytes: UnsafeRawBufferPointer) {
        _ = body(bytes)
    }

    /// Run one input held in an array.
    public func run(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { run($0) }
    }

    /// Run one input and return its outcome signature (see `body`).
    public func runReportingOutcome(_ bytes: [UInt8]) -> String {
        bytes.withUnsafeBytes { body($0) }
    }

    /// The seeds this target makes at run time (see `makeSeeds`).
    public func builtInSeeds() -> [[UInt8]] { makeSeeds() }
}

/// The registry of fuzz targets.
public enum FuzzTargets {
    /// Every target, in the order `all` runs them.
    public static let all: [FuzzTarget] = [
        SQLFuzzTarget.target,
        CopyFuzzTargets.text,
        CopyFuzzTargets.csv,
        CopyFuzzTargets.json,
        CopyFuzzTargets.compressed,
        ParquetFuzzTarget.target,
        StorageFuzzTargets.manifest,
        StorageFuzzTargets.deletes,
        StorageFuzzTargets.block,
    ]

    /// The target called `name` (case-insensitive), or nil.
    public static func named(_ name: String) -> FuzzTarget? {
        let lower = name.lowercased()
        return all.first { $0.name == lower }
    }

    /// Resolve command-line names (`all` = every target), keeping order and dropping repeats.
    /// Throws `SQLError(.invalidParameter)` naming an unknown target.
    public static func resolve(_ names: [String]) throws -> [FuzzTarget] {
        var out: [FuzzTarget] = []
        for name in names {
            let chosen: [FuzzTarget]
            if name.lowercased() == "all" {
                chosen = all
            } else if let t = named(name) {
                chosen = [t]
            } else {
                throw SQLError(.invalidParameter,
                               "unknown fuzz target \"\(name)\" (targets: \(all.map(\.name).joined(separator: ", ")), all)")
            }
            for t in chosen where !out.contains(where: { $0.name == t.name }) { out.append(t) }
        }
        return out
    }
}

/// Outcome signatures: what a run did, with the parts that vary with every input
/// (quoted values, numbers, paths) removed, so that two inputs taking the same path
/// through the code usually get the same signature.
enum Outcome {
    /// The signature of a thrown error.
    static func of(_ error: any Error) -> String {
        if let e = error as? SQLError {
            return "error \(e.code.rawValue) " + normalize(e.message)
        }
        return "error \(type(of: error)) " + normalize("\(error)")
    }

    /// `text` without quoted parts (an unbalanced quote ends it), without what follows
    /// "at or near" (the offending token, which may hold quotes itself), with digit runs
    /// as `#`, without words holding anything but ASCII letters and punctuation (unquoted
    /// names from the input, such as a function's in "function f(int) does not exist"),
    /// and at most 60 characters.
    static func normalize(_ text: String) -> String {
        let words = stripQuotesAndDigits(text).split(separator: " ").filter { word in
            word.allSatisfy { ch in
                ch.isASCII ? (ch.isLetter || ".,:;#-".contains(ch)) : ch == "…"
            }
        }
        return String(words.joined(separator: " ").prefix(60))
    }

    /// `text` without quoted parts, without what follows "at or near", digit runs as `#`.
    static func stripQuotesAndDigits(_ text: String) -> String {
        var rest = Substring(text)
        if let near = rest.range(of: " at or near ") { rest = rest[..<near.lowerBound] }
        var out = ""
        var lastWasDigit = false
        while let ch = rest.first, out.count < 200 {
            rest = rest.dropFirst()
            if ch == "\"" || ch == "'" {
                guard let close = rest.firstIndex(of: ch) else { out.append("…"); break }
                rest = rest[rest.index(after: close)...]
                out.append("…")
                lastWasDigit = false
                continue
            }
            if ch.isNumber {
                if !lastWasDigit { out.append("#") }
                lastWasDigit = true
                continue
            }
            lastWasDigit = false
            out.append(ch.isNewline ? " " : ch)
        }
        return out
    }

    /// Combine the outcomes of the steps of one run: the distinct ones, in sorted order
    /// (how many times and in which order they happened would make nearly every run new).
    static func combine(_ parts: [String]) -> String {
        Set(parts).sorted().joined(separator: "; ")
    }

    /// The signature of a successful run that produced `rows` rows (bucketed by
    /// powers of two: 0, 1, 2-3, 4-7, ...) with an extra detail.
    static func ok(rows: Int, _ detail: String = "") -> String {
        let bucket = rows <= 0 ? 0 : (Int.bitWidth - rows.leadingZeroBitCount)
        return "ok \(bucket) \(detail)"
    }
}
