// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseEngine
import SlicehouseShell
import SlicehouseSQLLogicTest
import SlicehouseTypes
import XCTest

/// SQL text that is not valid UTF-8 is an error (`invalid byte sequence for encoding
/// "UTF8": 0xff`, as PostgreSQL and Redshift say), on every way text enters the shell.
/// It was decoded with replacement, so `'a\xffb'` was stored as `a\u{FFFD}b`.
final class InvalidInputTests: XCTestCase {
    private let message = "ERROR:  invalid byte sequence for encoding \"UTF8\": 0xff\n"

    private func engineDriver(_ out: CapturedShellOutput) throws -> (ShellDriver, Session) {
        let session = try Database().connect()
        _ = try session.execute("create table t (s varchar(10))")
        return (ShellDriver(backend: session, options: ShellOptions(), output: out), session)
    }

    private func stored(_ session: Session) throws -> [String?] {
        (try session.execute("select s from t order by s").last?.textRows() ?? []).map { $0.first ?? nil }
    }

    func testDecoding() {
        XCTAssertNil(UTF8Input.decode(Array("select 'é' -- ✓".utf8)).invalid)
        XCTAssertEqual(UTF8Input.decode([0x61, 0xFF, 0x62]).invalid, "invalid byte sequence for encoding \"UTF8\": 0xff")
        // A truncated three-byte sequence names the bytes it has.
        XCTAssertEqual(UTF8Input.decode([0x61, 0xE2, 0x82]).invalid, "invalid byte sequence for encoding \"UTF8\": 0xe2 0x82")
        // An overlong encoding of '/' and a lone surrogate are invalid too.
        XCTAssertNotNil(UTF8Input.decode([0xC0, 0xAF]).invalid)
        XCTAssertNotNil(UTF8Input.decode([0xED, 0xA0, 0x80]).invalid)
    }

    func testScriptStatementWithInvalidBytesFailsAndTheOthersRun() throws {
        let out = CapturedShellOutput()
        let (driver, session) = try engineDriver(out)
        let script: [UInt8] = Array("insert into t values ('ok1');\ninsert into t values ('a".utf8) + [0xFF]
            + Array("b');\ninsert into t values ('ok2');\n".utf8)
        driver.runScript(bytes: script, name: "load.sql")
        XCTAssertEqual(out.standardError, "slicehouse:load.sql:2: " + message)
        XCTAssertEqual(try stored(session), ["ok1", "ok2"])
    }

    func testLineInputFailsOnlyTheStatementWithInvalidBytes() throws {
        let out = CapturedShellOutput()
        let (driver, session) = try engineDriver(out)
        driver.feed(lineBytes: Array("insert into t".utf8))
        driver.feed(lineBytes: Array("values ('x".utf8) + [0xC3] + Array("');".utf8))
        driver.feed(lineBytes: Array("insert into t values ('fine');".utf8))
        XCTAssertEqual(out.standardError, message.replacingOccurrences(of: "0xff", with: "0xc3"))
        XCTAssertEqual(try stored(session), ["fine"])
    }

    func testCommandStringWithInvalidBytes() throws {
        let out = CapturedShellOutput()
        let (driver, session) = try engineDriver(out)
        let bad = UTF8Input.decode(Array("insert into t values ('a".utf8) + [0xFF] + Array("')".utf8))
        let actions = ShellAction.markingInvalid([.command(bad.text), .command("insert into t values ('b')")],
                                                 invalid: [bad.text: bad.invalid ?? ""])
        driver.run(actions)
        XCTAssertEqual(out.standardError, message)
        XCTAssertEqual(try stored(session), ["b"])
    }

    /// The real executable, given raw bytes in its -c argument and on standard input.
    func testExecutableRefusesInvalidBytes() throws {
        guard let exe = CrashTests.executable() else { throw XCTSkip("build the slicehouse executable first") }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        // printf turns \377 into the byte 0xff, which Process could not pass in a String.
        p.arguments = ["-c", "\"$0\" --in-memory -At -c \"$(printf \"select 'a\\377b'\")\"; echo \"rc=$?\"; "
                       + "printf \"select 1;\\nselect 'a\\377b';\\nselect 2;\\n\" | \"$0\" --in-memory -At; echo \"rc=$?\"", exe]
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = pipe
        try p.run()
        p.waitUntilExit()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertTrue(text.contains(message + "rc=1\n"), text)
        XCTAssertTrue(text.contains("slicehouse:<stdin>:2: " + message), text)
        XCTAssertTrue(text.contains("1\n") && text.contains("2\n"), text)
        XCTAssertFalse(text.contains("\u{FFFD}"), text)
    }
}
