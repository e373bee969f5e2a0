// SPDX-License-Identifier: Apache-2.0
import Dispatch
import SlicehouseTypes
import SlicehousePlatform

/// How far a running COPY has got (for progress displays such as the shell's).
public struct LoadProgress: Sendable, Equatable {
    /// Input bytes processed so far: for text formats the parsed bytes (after
    /// decompression), for Parquet the column chunk bytes of the row groups decoded.
    public var bytesRead: Int64
    /// What `bytesRead` reaches when the load is complete.
    public var totalBytes: Int64
    /// Rows parsed so far.
    public var rows: Int

    public init(bytesRead: Int64, totalBytes: Int64, rows: Int) {
        self.bytesRead = bytesRead; self.totalBytes = totalBytes; self.rows = rows
    }
}

/// Called by `CopyLoader.load` from its worker threads, at most every quarter second
/// (never for a load that takes less), with the progress so far. Calls do not overlap
/// and arrive in order.
public typealias LoadProgressHandler = @Sendable (LoadProgress) -> Void

/// Adds up the workers' progress and passes it on, throttled.
final class LoadProgressReporter: @unchecked Sendable {
    private let lock = Lock()
    private let handler: LoadProgressHandler?
    private let intervalNanos: UInt64
    private var state: LoadProgress
    private var lastReport: UInt64

    /// `handler` nil: `add` only counts (cheap).
    init(totalBytes: Int, handler: LoadProgressHandler?, intervalNanos: UInt64 = 250_000_000) {
        self.handler = handler
        self.intervalNanos = intervalNanos
        state = LoadProgress(bytesRead: 0, totalBytes: Int64(totalBytes), rows: 0)
        lastReport = DispatchTime.now().uptimeNanoseconds
    }

    /// The input turned out larger or smaller than announced (a compressed file, once inflated).
    func adjustTotal(by delta: Int) {
        guard handler != nil, delta != 0 else { return }
        lock.withLock {
            let (t, o) = state.totalBytes.addingReportingOverflow(Int64(delta))
            state.totalBytes = o ? .max : max(t, 0)
        }
    }

    /// One piece of work (a byte range, a row group) is done.
    func add(bytes: Int, rows: Int) {
        guard let handler else { return }
        lock.withLock {
            // Saturating: Parquet sizes come from file footers.
            let (b, o1) = state.bytesRead.addingReportingOverflow(Int64(bytes))
            state.bytesRead = o1 ? .max : b
            let (r, o2) = state.rows.addingReportingOverflow(rows)
            state.rows = o2 ? .max : r
            let now = DispatchTime.now().uptimeNanoseconds
            guard now &- lastReport >= intervalNanos else { return }
            lastReport = now
            handler(state)
        }
    }
}
