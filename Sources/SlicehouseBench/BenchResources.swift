// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The files the bench reads at run time: TPC-H's and TPC-DS's schemas and queries,
/// TPC-H's reference answers (SF 0.01 and 0.1) and the DuckDB helper scripts. They live
/// in `Sources/SlicehouseBench/Resources` (datasets/tpch and benchmarks/ link to them),
/// and SwiftPM copies that directory into `Slicehouse_SlicehouseBench.resources` beside
/// every binary it builds, so the bench needs no checkout, only its binary and that
/// directory.
///
/// SwiftPM's own accessor (`Bundle.module`) stops the process when the directory is
/// missing; this one reports it (`require`) and lets the bench fail as a command does.
public enum BenchResources {
    /// The directory SwiftPM writes beside the binaries it builds.
    public static let bundleName = "Slicehouse_SlicehouseBench.resources"
    /// An environment variable naming the resource directory instead (a binary copied
    /// away from its build directory).
    public static let environmentVariable = "SLICEHOUSE_BENCH_RESOURCES"

    /// The resource directory, nil when none is found.
    public static var directory: URL? { located }

    private static let located: URL? = locate(
        environment: ProcessInfo.processInfo.environment[environmentVariable],
        executable: executablePath())

    /// The first of `environment` (a directory holding `Resources`, or `Resources` itself)
    /// and the bundle beside `executable` that holds the TPC-H schema.
    static func locate(environment: String?, executable: String?) -> URL? {
        var candidates: [URL] = []
        if let environment, !environment.isEmpty {
            let url = URL(fileURLWithPath: environment)
            candidates += [url.appendingPathComponent("Resources"), url]
        }
        if let executable {
            candidates.append(URL(fileURLWithPath: executable).deletingLastPathComponent()
                .appendingPathComponent(bundleName).appendingPathComponent("Resources"))
        }
        return candidates.first {
            FileManager.default.fileExists(atPath: $0.appendingPathComponent("tpch/schema.sql").path)
        }
    }

    /// The running executable's path, symbolic links resolved (a binary linked into
    /// PATH still finds the directory beside the real one).
    private static func executablePath() -> String? {
        #if os(Linux)
        if let real = realpath("/proc/self/exe", nil) {
            defer { free(real) }
            return String(cString: real)
        }
        #endif
        return Bundle.main.executableURL?.resolvingSymlinksInPath().path
    }

    /// The directory, or an error that says where it was looked for.
    public static func require() throws -> URL {
        if let directory { return directory }
        let beside = executablePath().map {
            URL(fileURLWithPath: $0).deletingLastPathComponent().appendingPathComponent(bundleName).path
        } ?? bundleName
        throw BenchError.io("the bench's texts (schemas, queries, answers) are not installed: "
            + "\(beside) is missing; copy that directory beside the binary, or set \(environmentVariable) to it")
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var cache: [String: String] = [:]

    /// The text of the file at `path` under the directory (read once), nil when there is
    /// no directory or no such file.
    static func text(_ path: String) -> String? {
        lock.lock()
        defer { lock.unlock() }
        if let text = cache[path] { return text }
        guard let directory,
              let text = try? String(contentsOf: directory.appendingPathComponent(path), encoding: .utf8) else { return nil }
        cache[path] = text
        return text
    }

    /// The names in the directory at `path` under the resource directory, sorted.
    static func names(in path: String) -> [String] {
        guard let directory else { return [] }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent(path).path)) ?? []
        return names.sorted()
    }
}
