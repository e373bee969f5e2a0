// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseCatalog
@testable import SlicehouseLoad
import SlicehouseTypes
import XCTest
import SlicehouseRuntime

/// A temporary directory removed when the test case ends.
final class TempDir {
    let path: String

    init() throws {
        let base = NSTemporaryDirectory() + "slicehouse-load-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        path = base
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// Write `contents` (UTF-8) to `name` inside the directory; returns the full path.
    @discardableResult
    func write(_ name: String, _ contents: String) throws -> String {
        try write(name, bytes: Array(contents.utf8))
    }

    @discardableResult
    func write(_ name: String, bytes: [UInt8]) throws -> String {
        let full = path + "/" + name
        let dir = (full as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        guard FileManager.default.createFile(atPath: full, contents: Data(bytes)) else {
            throw SQLError(.ioError, "cannot write \(full)")
        }
        return full
    }
}

/// Shorthand column constructor.
func col(_ name: String, _ type: DataType, notNull: Bool = false) -> ColumnDef {
    ColumnDef(name: name, type: type, notNull: notNull)
}

/// Parse option pairs the way the engine passes them.
func opts(_ pairs: (String, String?)...) throws -> CopyOptions {
    try CopyOptions(options: pairs.map { (name: $0.0, value: $0.1) })
}

/// All rows of a result as values (slow path, for assertions).
func rows(_ r: CopyResult) -> [[Value]] {
    var out: [[Value]] = []
    for chunk in r.chunks {
        for i in 0..<chunk.count {
            out.append((0..<chunk.columns.count).map { chunk.value(row: i, column: $0) })
        }
    }
    return out
}

/// Load `contents` written to a fresh file with the given columns and options.
func loadText(_ contents: String, columns: [ColumnDef], columnList: [String]? = nil,
              options: CopyOptions = CopyOptions(), tuning: CopyTuning = CopyTuning(),
              file: String = "data.txt", in dir: TempDir? = nil) throws -> CopyResult {
    let d = try dir ?? TempDir()
    let path = try d.write(file, contents)
    return try withExtendedLifetime(d) {
        try CopyLoader.load(table: "t", columns: columns, columnList: columnList, source: path,
                            options: options, tuning: tuning, context: QueryContext())
    }
}

/// Load raw `bytes` written to a fresh file.
func loadBytes(_ bytes: [UInt8], columns: [ColumnDef], columnList: [String]? = nil,
               options: CopyOptions = CopyOptions(), tuning: CopyTuning = CopyTuning(),
               file: String = "data.bin") throws -> CopyResult {
    let d = try TempDir()
    let path = try d.write(file, bytes: bytes)
    return try withExtendedLifetime(d) {
        try CopyLoader.load(table: "t", columns: columns, columnList: columnList, source: path,
                            options: options, tuning: tuning, context: QueryContext())
    }
}

/// Run `body`, expecting a `LoadError`; returns it (or fails the test).
func expectLoadError(_ body: () throws -> Any, file: StaticString = #filePath, line: UInt = #line) -> LoadError? {
    do {
        _ = try body()
        XCTFail("expected a LoadError, the load succeeded", file: file, line: line)
    } catch let e as LoadError {
        return e
    } catch {
        XCTFail("expected a LoadError, got \(error)", file: file, line: line)
    }
    return nil
}

/// Run `body`, expecting an `SQLError`; returns it (or fails the test).
func expectSQLError(_ body: () throws -> Any, file: StaticString = #filePath, line: UInt = #line) -> SQLError? {
    do {
        _ = try body()
        XCTFail("expected an SQLError, the call succeeded", file: file, line: line)
    } catch let e as SQLError {
        return e
    } catch {
        XCTFail("expected an SQLError, got \(error)", file: file, line: line)
    }
    return nil
}

/// Directory of the checked-in fixtures (located from this source file, not a bundle).
let fixturesDirectory: String = {
    let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    return here.appendingPathComponent("Fixtures").path
}()

/// `../shared/tpch/data/sf0.01` relative to the repository root, when present.
let sharedTPCHDirectory: String = {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    return root.deletingLastPathComponent().appendingPathComponent("shared/tpch/data/sf0.01").path
}()
