// SPDX-License-Identifier: Apache-2.0
import Foundation
import XCTest
import SlicehouseEngine
import SlicehouseShell
import SlicehouseSQLLogicTest
import SlicehouseTypes

/// The shell's COPY progress line: its text, and that the driver shows it only when
/// given somewhere to write it (the executable sets that only for a terminal).
final class ProgressLineTests: XCTestCase {
    func testFormat() {
        let gb: Int64 = 1 << 30
        XCTAssertEqual(ProgressLine.format(CopyProgress(table: "lineitem", bytesRead: gb * 31 / 10, totalBytes: gb * 76 / 10,
                                                        rows: 2_345_000)),
                       "COPY lineitem: 3.1 GB/7.6 GB read, 2,345,000 rows")
        XCTAssertEqual(ProgressLine.format(CopyProgress(table: "t", bytesRead: 0, totalBytes: 0, rows: 1)),
                       "COPY t: 0 bytes read, 1 row")
        XCTAssertEqual(ProgressLine.format(CopyProgress(table: "t", bytesRead: 1536, totalBytes: 150 << 20, rows: 0)),
                       "COPY t: 1.5 kB/150 MB read, 0 rows")
    }

    func testByteSizes() {
        XCTAssertEqual(ProgressLine.byteSize(0), "0 bytes")
        XCTAssertEqual(ProgressLine.byteSize(1023), "1023 bytes")
        XCTAssertEqual(ProgressLine.byteSize(1024), "1.0 kB")
        XCTAssertEqual(ProgressLine.byteSize(99 * 1024 + 1000), "100 kB")
        XCTAssertEqual(ProgressLine.byteSize(1024 * 1024 - 1), "1.0 MB")
        XCTAssertEqual(ProgressLine.byteSize(5 << 40), "5.0 TB")
        XCTAssertEqual(ProgressLine.byteSize(Int64.max), "8.0 EB")
    }

    func testGrouping() {
        XCTAssertEqual(ProgressLine.grouped(0), "0")
        XCTAssertEqual(ProgressLine.grouped(999), "999")
        XCTAssertEqual(ProgressLine.grouped(1000), "1,000")
        XCTAssertEqual(ProgressLine.grouped(2_345_000), "2,345,000")
        XCTAssertEqual(ProgressLine.grouped(-12_345), "-12,345")
    }

    /// An executor that reports progress as a COPY would.
    func reportingExecutor() -> ShellFakeExecutor {
        let fake = ShellFakeExecutor()
        fake.fallback = { [unowned fake] _ in
            fake.copyProgress?(CopyProgress(table: "t", bytesRead: 10 << 20, totalBytes: 20 << 20, rows: 1_000))
            return [StatementResult(tag: "COPY 2000", notices: ["Load into table 't' completed, 2000 record(s) loaded successfully."])]
        }
        return fake
    }

    func testDriverShowsAndErasesTheLineOnlyWhenAsked() {
        let captured = CapturedShellOutput()
        let driver = ShellDriver(backend: reportingExecutor(), output: captured)
        driver.run([.command("copy t from '/x' format parquet")])
        XCTAssertFalse(captured.combined.contains("\r"), "no progress without a progress output (not a terminal)")
        XCTAssertFalse(captured.combined.contains("read,"))

        let terminal = TerminalLog()
        let shown = CapturedShellOutput()
        let withProgress = ShellDriver(backend: reportingExecutor(), output: shown)
        withProgress.progressOutput = { terminal.write($0) }
        withProgress.run([.command("copy t from '/x' format parquet")])
        XCTAssertEqual(terminal.text, "\rCOPY t: 10.0 MB/20.0 MB read, 1,000 rows\u{1B}[K\r\u{1B}[K")
        XCTAssertTrue(shown.standardOutput.contains("COPY 2000"))
        XCTAssertFalse(shown.combined.contains("\r"))
    }

    func testNothingToEraseWhenNothingWasShown() {
        let terminal = TerminalLog()
        let fake = ShellFakeExecutor()
        let driver = ShellDriver(backend: fake, output: CapturedShellOutput())
        driver.progressOutput = { terminal.write($0) }
        driver.run([.command("select 1")])
        XCTAssertEqual(terminal.text, "")
    }
}

final class TerminalLog: @unchecked Sendable {
    private let lock = NSLock()
    private var written = ""
    func write(_ s: String) { lock.lock(); written += s; lock.unlock() }
    var text: String { lock.lock(); defer { lock.unlock() }; return written }
}
