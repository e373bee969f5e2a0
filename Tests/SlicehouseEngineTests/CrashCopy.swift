// SPDX-License-Identifier: Apache-2.0
import XCTest

/// What a crash leaves of a data directory: a copy of `directory` taken while `open`
/// (which `body` returns: a session or database) still holds it, so the commits since
/// the last checkpoint are in the commit log only (a clean close would fold them into
/// the manifest). The caller removes the copy. Fails the test when the log is empty.
func crashCopy(of directory: String, file: StaticString = #filePath, line: UInt = #line,
               _ body: () throws -> AnyObject) throws -> String {
    let copy = directory + "-crashed"
    try? FileManager.default.removeItem(atPath: copy)
    let open = try body()
    try FileManager.default.copyItem(atPath: directory, toPath: copy)
    withExtendedLifetime(open) {}
    let log = (copy as NSString).appendingPathComponent("wal.log")
    XCTAssertGreaterThan((try FileManager.default.attributesOfItem(atPath: log)[.size] as? Int) ?? 0, 0,
                         "the commits are in the log", file: file, line: line)
    return copy
}
