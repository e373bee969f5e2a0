// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import SlicehouseFuzz

/// `slicehouse fuzz TARGET... [--seconds N] [--runs N] [--seed S] [--corpus DIR] [--crash-dir DIR]`:
/// the mutation fuzzer (no special build needed), or with `--input FILE` a replay of
/// saved inputs.
struct FuzzCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fuzz",
        abstract: "Fuzz Slicehouse's parsers and readers with mutated inputs, in this process.",
        discussion: """
            Targets: \(FuzzTargets.all.map(\.name).joined(separator: ", ")), or all. Each target runs its seed \
            inputs (<corpus>/<target>/ plus seeds made by the engine) and then mutations of them, until \
            --seconds or --runs (each per target; default 10 seconds). Before each run the input is written to \
            <crash-dir>/current-<target>: if the process crashes, that file holds the input (the next session \
            keeps it as crash-<target>-<hash>). A run longer than --timeout saves timeout-<target>-<hash> and \
            exits with status 3. The same --seed gives the same inputs. --input FILE replays saved inputs \
            once each. Exits with status 0 when nothing crashed.
            """,
        helpNames: [.short, .long])

    @Argument(help: ArgumentHelp("Targets to fuzz (see --list), or 'all'.", valueName: "target"))
    var targets: [String] = []

    @Option(name: .customLong("seconds"), help: ArgumentHelp("Time per target.", valueName: "N"))
    var seconds: Double?

    @Option(name: .customLong("runs"), help: ArgumentHelp("Runs per target, seeds included.", valueName: "N"))
    var runs: Int?

    @Option(name: .customLong("seed"), help: ArgumentHelp("Seed of the mutations.", valueName: "S"))
    var seed: UInt64 = 1

    @Option(name: .customLong("corpus"), help: ArgumentHelp("Folder of <target>/ seed folders.", valueName: "dir"))
    var corpus: String = "Tests/FuzzCorpus"

    @Option(name: .customLong("crash-dir"),
            help: ArgumentHelp("Where current and crashing inputs go (default $TMPDIR/slicehouse-fuzz).", valueName: "dir"))
    var crashDir: String?

    @Option(name: .customLong("timeout"), help: ArgumentHelp("Seconds one run may take.", valueName: "N"))
    var timeout: Double = 60

    @Option(name: .customLong("input"), parsing: .upToNextOption,
            help: ArgumentHelp("Replay these inputs instead of fuzzing.", valueName: "file"))
    var inputs: [String] = []

    @Option(name: .customLong("write-seeds"),
            help: ArgumentHelp("Write the seeds the engine makes for each target into DIR/<target>/ and stop.",
                               valueName: "dir"))
    var writeSeeds: String?

    @Flag(name: .customLong("list"), help: "List the targets.")
    var list = false

    @Flag(name: [.customShort("v"), .customLong("verbose")], help: "Print each new outcome.")
    var verbose = false

    func validate() throws {
        if !list && targets.isEmpty { throw ValidationError("name at least one target, or 'all' (see --list)") }
        if let seconds, !(seconds > 0) { throw ValidationError("--seconds must be positive") }
        if let runs, runs < 1 { throw ValidationError("--runs must be at least 1") }
        if !(timeout > 0) { throw ValidationError("--timeout must be positive") }
    }

    func run() throws {
        if list {
            for t in FuzzTargets.all { print("\(t.name.padding(toLength: 16, withPad: " ", startingAt: 0)) \(t.summary)") }
            return
        }
        let chosen: [FuzzTarget]
        do {
            chosen = try FuzzTargets.resolve(targets)
        } catch {
            throw ValidationError("\(error)")
        }
        defer { FuzzScratch.removeAll() }
        if !inputs.isEmpty {
            try replay(chosen)
            return
        }
        if let writeSeeds {
            for target in chosen {
                let folder = (writeSeeds as NSString).appendingPathComponent(target.name)
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                for (k, seed) in target.builtInSeeds().enumerated() {
                    let path = (folder as NSString).appendingPathComponent("engine-\(k).bin")
                    guard FileManager.default.createFile(atPath: path, contents: Data(seed)) else {
                        throw ValidationError("cannot write \(path)")
                    }
                }
            }
            return
        }
        let crashDirectory = crashDir ?? (NSTemporaryDirectory() as NSString).appendingPathComponent("slicehouse-fuzz")
        let options = FuzzOptions(seconds: seconds ?? (runs == nil ? 10 : nil), runs: runs, seed: seed,
                                  corpusDirectory: corpus, crashDirectory: crashDirectory, timeoutSeconds: timeout,
                                  verbose: verbose)
        print("fuzzing \(chosen.map(\.name).joined(separator: ", ")) (seed \(seed)); "
              + "each input is written to \(crashDirectory)/current-<target> before it runs")
        fflush(nil)
        let runner = FuzzRunner(options: options)
        var total = 0
        for target in chosen {
            let stats = try runner.fuzz(target)
            total += stats.runs
            let rate = Int((Double(stats.runs) / max(stats.seconds, 0.001)).rounded())
            print("\(stats.target): \(stats.runs) runs in \(String(format: "%.1f", stats.seconds)) s (\(rate)/s), "
                  + "\(stats.seeds) seeds, \(stats.kept) inputs kept, \(stats.outcomes) outcomes")
            fflush(nil)
        }
        print("\(total) runs, no crash")
    }

    /// Run each `--input` file once through each chosen target, printing the outcome.
    func replay(_ chosen: [FuzzTarget]) throws {
        for path in inputs {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ValidationError("cannot read \(path)")
            }
            for target in chosen {
                print("\(target.name) \(path): \(target.runReportingOutcome(Array(data)))")
            }
        }
    }
}
