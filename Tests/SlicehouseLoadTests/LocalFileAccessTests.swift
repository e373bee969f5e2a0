// SPDX-License-Identifier: Apache-2.0
import Foundation
import XCTest
@testable import SlicehouseLoad
import SlicehouseTypes

/// Which server paths a COPY or UNLOAD reaches (`LocalFileAccess`): paths resolved before
/// they are judged, the opened directories, the forbidden data directory.
final class LocalFileAccessTests: XCTestCase {
    var root = ""

    override func setUpWithError() throws {
        root = LocalFileAccess.resolve(NSTemporaryDirectory() + "lfa-\(UUID().uuidString)")
        for d in ["share/sub", "outside", "data/slice0"] {
            try FileManager.default.createDirectory(atPath: root + "/" + d, withIntermediateDirectories: true)
        }
        FileManager.default.createFile(atPath: root + "/share/rows.txt", contents: Data("a\n".utf8))
        FileManager.default.createFile(atPath: root + "/outside/secret.txt", contents: Data("s\n".utf8))
        FileManager.default.createFile(atPath: root + "/data/slice0/t1.blk", contents: Data("b".utf8))
        try FileManager.default.createSymbolicLink(atPath: root + "/share/link", withDestinationPath: root + "/outside/secret.txt")
        try FileManager.default.createSymbolicLink(atPath: root + "/share/dirlink", withDestinationPath: root + "/outside")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: root)
    }

    var user: LocalFileAccess {
        LocalFileAccess(read: .within([root + "/share"]), write: .within([root + "/share"]), forbidden: [root + "/data"])
    }

    var superuser: LocalFileAccess {
        LocalFileAccess(read: .anywhere, write: .anywhere, forbidden: [root + "/data"])
    }

    func assertRefused(_ body: @autoclosure () throws -> String, _ message: String = "permission denied",
                       file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try body(), file: file, line: line) { e in
            guard let e = e as? SQLError else { return XCTFail("\(e)", file: file, line: line) }
            XCTAssertEqual(e.code, .insufficientPrivilege, file: file, line: line)
            XCTAssertTrue(e.message.contains(message), e.message, file: file, line: line)
        }
    }

    func testResolveFollowsLinksAndDots() {
        XCTAssertEqual(LocalFileAccess.resolve(root + "/share/../outside/secret.txt"), root + "/outside/secret.txt")
        XCTAssertEqual(LocalFileAccess.resolve(root + "/share/link"), root + "/outside/secret.txt")
        XCTAssertEqual(LocalFileAccess.resolve(root + "/share/dirlink/new/file"), root + "/outside/new/file")
        // Past the last existing directory, `..` climbs by name.
        XCTAssertEqual(LocalFileAccess.resolve(root + "/share/nothere/../../outside/x"), root + "/outside/x")
        XCTAssertEqual(LocalFileAccess.resolve(root + "/./share//sub/."), root + "/share/sub")
        XCTAssertEqual(LocalFileAccess.resolve("/"), "/")
    }

    func testAnOrdinaryUserReadsOnlyInsideTheOpenedDirectory() throws {
        XCTAssertEqual(try user.authorizeRead(root + "/share/rows.txt"), root + "/share/rows.txt")
        assertRefused(try user.authorizeRead(root + "/outside/secret.txt"))
        assertRefused(try user.authorizeRead(root + "/share/../outside/secret.txt"))
        assertRefused(try user.authorizeRead(root + "/share/link"))
        assertRefused(try user.authorizeRead(root + "/share/dirlink/secret.txt"))
        assertRefused(try user.authorizeRead("/etc/passwd"))
        // A directory named like the opened one is not inside it.
        assertRefused(try user.authorizeRead(root + "/share2/x"))
        // Prefixes: one inside, one that names the opened directory's start, one elsewhere.
        XCTAssertNoThrow(try user.authorizeReadPrefix(root + "/share/ro"))
        XCTAssertNoThrow(try user.authorizeReadPrefix(root + "/sha"))
        assertRefused(try user.authorizeReadPrefix(root + "/outside/"))
        assertRefused(try user.authorizeReadPrefix(root + "/share/dirlink/"))
    }

    func testNobodyReachesTheDataDirectory() {
        for access in [user, superuser] {
            assertRefused(try access.authorizeRead(root + "/data/slice0/t1.blk"), "database's own directory")
            assertRefused(try access.authorizeReadPrefix(root + "/data/slice"), "database's own directory")
            assertRefused(try access.authorizeWritePrefix(root + "/data/slice"), "database's own directory")
            assertRefused(try access.authorizeWritePrefix(root + "/data/"), "database's own directory")
            assertRefused(try access.authorizeWritePrefix(root + "/share/../data/x_"))
        }
        // A superuser reaches everything else.
        XCTAssertEqual(try superuser.authorizeRead(root + "/outside/secret.txt"), root + "/outside/secret.txt")
        XCTAssertEqual(try superuser.authorizeWritePrefix(root + "/outside/run_"), root + "/outside/run_")
    }

    func testUnloadPrefixesAreResolvedAndJudgedByTheirDirectory() throws {
        XCTAssertEqual(try user.authorizeWritePrefix(root + "/share/run_"), root + "/share/run_")
        XCTAssertEqual(try user.authorizeWritePrefix(root + "/share/sub/../run_"), root + "/share/run_")
        XCTAssertEqual(try user.authorizeWritePrefix(root + "/share/"), root + "/share/")
        XCTAssertEqual(try user.authorizeWritePrefix(root + "/share/new/folder/"), root + "/share/new/folder/")
        // `/share` as a prefix writes `/share0000_part_00` beside the directory, not in it.
        assertRefused(try user.authorizeWritePrefix(root + "/share"))
        assertRefused(try user.authorizeWritePrefix(root + "/share/../outside/run_"))
        assertRefused(try user.authorizeWritePrefix(root + "/share/dirlink/run_"))
        assertRefused(try user.authorizeWritePrefix(root + "/outside/run_"))
        // Nothing opened: nothing reachable, and the hint says how to open a directory.
        let none = LocalFileAccess(read: .within([]), write: .within([]), forbidden: [])
        XCTAssertThrowsError(try none.authorizeWritePrefix(root + "/share/run_")) { e in
            XCTAssertTrue((e as? SQLError)?.hint?.contains("--copy-dir") ?? false, "\(e)")
        }
    }

    func testCopySourceChecksEveryMatchedFile() throws {
        // `share/` matches rows.txt and the link to the secret: the COPY is refused whole.
        assertRefused(try CopySource.resolve(root + "/share/", access: user).joined())
        try FileManager.default.removeItem(atPath: root + "/share/link")
        try FileManager.default.removeItem(atPath: root + "/share/dirlink")
        XCTAssertEqual(try CopySource.resolve(root + "/share/", access: user), [root + "/share/rows.txt"])
        // A manifest inside naming a file outside.
        let manifest = root + "/share/m.manifest"
        FileManager.default.createFile(atPath: manifest, contents: Data(
            "{\"entries\": [{\"url\": \"file://\(root)/outside/secret.txt\", \"mandatory\": true}]}".utf8))
        assertRefused(try CopySource.resolve(manifest, manifest: true, inputs: CopyInputs(access: user)).map(\.name).joined())
        XCTAssertEqual(try CopySource.resolve(manifest, manifest: true, inputs: CopyInputs(access: superuser)).map(\.name),
                       [root + "/outside/secret.txt"])
        // One that names a file that does not exist is refused just the same (nothing is said of what exists).
        FileManager.default.createFile(atPath: manifest, contents: Data(
            "{\"entries\": [{\"url\": \"file://\(root)/outside/none.txt\", \"mandatory\": false}]}".utf8))
        assertRefused(try CopySource.resolve(manifest, manifest: true, inputs: CopyInputs(access: user)).map(\.name).joined())
    }
}
