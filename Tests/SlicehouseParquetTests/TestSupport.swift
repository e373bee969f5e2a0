// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import XCTest
@testable import SlicehouseParquet

/// A fresh temporary directory, removed when the test ends.
func makeTempDir(_ test: XCTestCase) throws -> URL {
    let dir = FileManager.default.temporaryDirectory
        .appendingPathComponent("slicehouse-parquet-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    test.addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
    return dir
}

/// Canonical text of row `i` of `v` (nil for NULL), shared with the Python side:
/// integers, scaled decimals, day numbers and microseconds as decimal integers;
/// floating point as the decimal bit pattern of the Double; booleans as true/false.
func canonical(_ v: Vector, _ i: Int) -> String? {
    if v.isNull(i) { return nil }
    let j = v.isConstant ? 0 : i
    switch v.data {
    case .int64(let a): return String(a[j])
    case .int128(let a): return String(a[j])
    case .double(let a): return String(Int64(bitPattern: a[j].bitPattern))
    case .bool(let a): return a[j] ? "true" : "false"
    case .string(let s): return s[j]
    }
}

func canonicalColumn(_ v: Vector, count: Int) -> [String?] {
    (0..<count).map { canonical(v, $0) }
}

/// Python with pyarrow, or nil (the interop tests are then skipped). `$PYTHON` wins,
/// then `python3` on the PATH, then the system interpreters.
let pyarrowPython: String? = {
    let fromEnvironment = ProcessInfo.processInfo.environment["PYTHON"].map { [$0] } ?? []
    for candidate in fromEnvironment + ["python3", "/usr/bin/python3", "/usr/local/bin/python3"] {
        if let r = try? runProcess(candidate, ["-c", "import pyarrow, pyarrow.parquet; print(pyarrow.__version__)"]),
           r.status == 0 {
            return candidate
        }
    }
    return nil
}()

struct ProcessResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Run a program (looked up on PATH when not absolute) and collect its output.
func runProcess(_ program: String, _ args: [String]) throws -> ProcessResult {
    let p = Process()
    if program.hasPrefix("/") {
        p.executableURL = URL(fileURLWithPath: program)
        p.arguments = args
    } else {
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = [program] + args
    }
    // stderr goes to a file so that a chatty child cannot block on a full pipe while
    // stdout is read to the end.
    let errURL = FileManager.default.temporaryDirectory.appendingPathComponent("stderr-\(UUID().uuidString)")
    _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
    defer { try? FileManager.default.removeItem(at: errURL) }
    let errHandle = try FileHandle(forWritingTo: errURL)
    let out = Pipe()
    p.standardOutput = out
    p.standardError = errHandle
    try p.run()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    try? errHandle.close()
    let errData = (try? Data(contentsOf: errURL)) ?? Data()
    return ProcessResult(status: p.terminationStatus,
                         stdout: String(decoding: outData, as: UTF8.self),
                         stderr: String(decoding: errData, as: UTF8.self))
}

/// Build a chunk from columns of optional values (test data).
func makeVector(_ type: DataType, ints: [Int64?]) -> Vector {
    var v = Vector(type: type, capacity: ints.count)
    for x in ints { v.append(x.map { .int($0) } ?? .null) }
    return v
}

func makeVector(_ type: DataType, wides: [Int128?]) -> Vector {
    var v = Vector(type: type, capacity: wides.count)
    for x in wides { v.append(x.map { .int128($0) } ?? .null) }
    return v
}

func makeVector(_ type: DataType, doubles: [Double?]) -> Vector {
    var v = Vector(type: type, capacity: doubles.count)
    for x in doubles { v.append(x.map { .double($0) } ?? .null) }
    return v
}

func makeVector(_ type: DataType, bools: [Bool?]) -> Vector {
    var v = Vector(type: type, capacity: bools.count)
    for x in bools { v.append(x.map { .bool($0) } ?? .null) }
    return v
}

func makeVector(_ type: DataType, strings: [String?]) -> Vector {
    var v = Vector(type: type, capacity: strings.count)
    for x in strings { v.append(x.map { .string($0) } ?? .null) }
    return v
}

/// A small deterministic pseudo-random generator (tests must not depend on the run).
struct SplitMix64 {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
}
