// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehousePlatform

/// The rows of Redshift's STL logs (STL_QUERY, STL_LOAD_ERRORS, the steps behind
/// SVL_QUERY_REPORT, ...), kept apart from user data and readable by any later process
/// on the same data directory.
///
/// Each log is a directory of segment files under `syslog/` in the data directory:
///
///     syslog/stl_query/0000000001-<µs of its first row>.log
///                      0000000002-<µs>.log        <- the one appended to
///     syslog/ids                                  <- query ids and xids reserved so far
///
/// A segment is a run of frames, one per row:
///
///     | payload bytes: u32 | checksum of the payload: u32 | time µs: i64 | values: u16 | values |
///
/// each value a tag byte (0 NULL, 1 integer, 2 128-bit integer, 3 double, 4 false,
/// 5 true, 6 string) and its little-endian bytes (a string: u32 length, then UTF-8).
/// A frame that does not check out (torn by a crash mid-write, or damaged) is skipped:
/// the reader goes on at the next byte where a whole frame checks out. So a damaged log
/// loses rows, never the process or user data, and a writer appends to an earlier
/// process's segment without reading it first.
///
/// Retention, as Redshift's STL tables have it: rows older than `maxAgeMicros` are no
/// longer shown, and a segment is deleted once every row in it is that old (once the
/// next segment began before the cutoff); each log keeps at most about `maxBytes`,
/// dropping its oldest segments first. Writing never fails a statement: when writing a
/// log's file fails, the failure is counted (`writeFailures`) and the log's rows of this
/// process are kept in memory instead.
///
/// A database without a directory keeps the same segments in memory, under the same limits.
///
/// With `writeBehindMicros` above 0 (a database's store), appended frames wait in memory
/// and reach the segment file together — when `writeBehindBytes` of them wait, when the
/// oldest has waited that long (a flush is scheduled then), before any read of the log
/// and when the store goes away — so a short statement's six or so log rows cost one
/// write, not one system call each. A process killed meanwhile loses at most that much
/// of its log, never user data.
public final class SystemLogStore: @unchecked Sendable {
    public struct Retention: Sendable, Equatable {
        /// How long rows are kept (Redshift keeps its logs for about a week).
        public var maxAgeMicros: Int64
        /// The most bytes one log keeps; its oldest segments go first.
        public var maxBytes: Int
        /// A segment is closed and the next begun once it would pass this size.
        public var segmentBytes: Int

        public init(maxAgeMicros: Int64, maxBytes: Int, segmentBytes: Int) {
            self.maxAgeMicros = max(0, maxAgeMicros)
            self.maxBytes = max(1, maxBytes)
            self.segmentBytes = max(64, min(segmentBytes, maxBytes))
        }

        /// Seven days, 32 MB a log, in 1 MB segments.
        public static let standard = Retention(maxAgeMicros: 7 * 86_400 * 1_000_000, maxBytes: 32 << 20,
                                               segmentBytes: 1 << 20)
    }

    /// The `syslog` directory (nil: in memory).
    public let directory: String?
    public let retention: Retention
    private let now: @Sendable () -> Int64
    /// How long appended frames may wait in memory (0: written at once).
    public let writeBehindMicros: Int64
    /// Frames waiting at most before they are written.
    static let writeBehindBytes = 32 << 10
    /// A flush of the waiting frames is scheduled.
    private var flushScheduled = false
    private let lock = Lock()
    private var logs: [String: Log] = [:]
    private var failures = 0
    /// The largest id of each kind reserved so far (`reserve`).
    private var reservedIDs: [IDKind: Int] = [:]

    /// Ids that the logs' rows name and that must not repeat after a restart.
    public enum IDKind: String, Sendable, CaseIterable {
        case query
        case transaction = "xid"
    }

    /// The file holding the largest id of each kind reserved (`query 12345` per line).
    static let idsFile = "ids"

    /// - directory: where the logs live (created when the first row is written), or nil
    ///   to keep them in memory.
    /// - now: the clock rows are stamped with and retention is measured by (tests set it).
    /// - writeBehindMicros: how long appended rows may wait in memory before they are
    ///   written (0: at once).
    public init(directory: String?, retention: Retention = .standard, writeBehindMicros: Int64 = 0,
                now: @escaping @Sendable () -> Int64 = { Clock.nowMicros() }) {
        self.directory = directory
        self.retention = retention
        self.writeBehindMicros = max(0, writeBehindMicros)
        self.now = now
        if self.writeBehindMicros > 0 { Self.flushAtExit(self) }
        if let directory,
           let text = try? String(contentsOfFile: (directory as NSString).appendingPathComponent(Self.idsFile),
                                  encoding: .utf8) {
            for line in text.split(separator: "\n") {
                let parts = line.split(separator: " ")
                if parts.count == 2, let kind = IDKind(rawValue: String(parts[0])), let n = Int(parts[1]), n > 0 {
                    reservedIDs[kind] = n
                }
            }
        }
    }

    deinit {
        for (name, log) in logs { writePending(log, named: name) }
        for log in logs.values where log.fd >= 0 { close(log.fd) }
    }

    /// The stores with rows waiting in memory that the process's exit writes out (a
    /// server's SIGTERM and a shell's end return through `exit`; SIGKILL loses at most
    /// `writeBehindMicros` of rows).
    private static let exitFlushLock = Lock()
    nonisolated(unsafe) private static var exitFlushes: [WeakStore] = []
    nonisolated(unsafe) private static var exitHandlerInstalled = false

    private struct WeakStore { weak var store: SystemLogStore? }

    private static func flushAtExit(_ store: SystemLogStore) {
        exitFlushLock.withLock {
            exitFlushes.removeAll { $0.store == nil }
            exitFlushes.append(WeakStore(store: store))
            if !exitHandlerInstalled {
                exitHandlerInstalled = true
                atexit {
                    let stores = SystemLogStore.exitFlushLock.withLock { SystemLogStore.exitFlushes.compactMap(\.store) }
                    for s in stores { s.flush() }
                }
            }
        }
    }

    /// Write every frame waiting in memory (`writeBehindMicros`).
    public func flush() {
        lock.withLock {
            flushScheduled = false
            for (name, log) in logs { writePending(log, named: name) }
        }
    }

    /// Write the log's waiting frames to its segment. Called with the lock held.
    private func writePending(_ log: Log, named name: String) {
        guard !log.pending.isEmpty else { return }
        let bytes = log.pending, time = log.pendingTime
        log.pending = []
        write(bytes, time: time, to: log, named: name)
        trim(log, named: name, now: now())
    }

    /// Writes to the logs' files that failed (those rows were kept in memory instead).
    public var writeFailures: Int { lock.withLock { failures } }

    /// The largest id of `kind` reserved so far, by this process or an earlier one: new
    /// ids start above it, so that rows of earlier processes never share one with this one's.
    public func reserved(_ kind: IDKind) -> Int { lock.withLock { reservedIDs[kind] ?? 0 } }

    /// Record that ids of `kind` up to `id` may be in use (before any of them is logged).
    public func reserve(_ kind: IDKind, through id: Int) {
        lock.withLock {
            guard id > reservedIDs[kind] ?? 0 else { return }
            reservedIDs[kind] = id
            guard let directory else { return }
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                let path = (directory as NSString).appendingPathComponent(Self.idsFile)
                let text = IDKind.allCases.compactMap { k in reservedIDs[k].map { "\(k.rawValue) \($0)\n" } }.joined()
                try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
            } catch {
                failures += 1
            }
        }
    }

    /// The time rows appended now are stamped with.
    public var currentTime: Int64 { now() }

    /// Append `rows` to log `name`, stamped with the current time.
    public func append(_ name: String, _ rows: [[Value]]) {
        guard !rows.isEmpty else { return }
        var frames = LogFrames(time: now())
        for r in rows { frames.append(r) }
        append(name, frames)
    }

    /// Append rows encoded as `frames` to log `name`.
    public func append(_ name: String, _ frames: LogFrames) {
        guard !frames.bytes.isEmpty else { return }
        let schedule = lock.withLock { () -> Bool in
            let log = open(name)
            guard writeBehindMicros > 0 else {
                write(frames.bytes, time: frames.time, to: log, named: name)
                trim(log, named: name, now: frames.time)
                return false
            }
            if log.pending.isEmpty { log.pendingTime = frames.time }
            log.pending.append(contentsOf: frames.bytes)
            if log.pending.count >= Self.writeBehindBytes || frames.time &- log.pendingTime >= writeBehindMicros {
                writePending(log, named: name)
                return false
            }
            if flushScheduled { return false }
            flushScheduled = true
            return true
        }
        if schedule {
            DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + .microseconds(Int(writeBehindMicros))) {
                [weak self] in self?.flush()
            }
        }
    }

    /// The rows of log `name` within the retention, oldest first. The files are read
    /// outside the store's lock, so writers never wait for a reader (a frame being
    /// appended meanwhile is skipped as torn; a segment deleted meanwhile reads as empty).
    public func rows(_ name: String) -> [[Value]] {
        let (segments, cutoff) = lock.withLock { () -> ([SegmentSource], Int64) in
            let log = open(name)
            writePending(log, named: name)
            let segments = log.segments.map { s -> SegmentSource in s.data.map { .bytes($0) } ?? .file(path(name, s) ?? "") }
            return (segments, now() &- retention.maxAgeMicros)
        }
        var out: [[Value]] = []
        for s in segments {
            let bytes: [UInt8]
            switch s {
            case .bytes(let b): bytes = b
            case .file(let path): bytes = (try? [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))) ?? []
            }
            Self.decode(bytes) { time, row in if time >= cutoff { out.append(row) } }
        }
        return out
    }

    /// A segment to read: its frames held in memory, or its file.
    private enum SegmentSource {
        case bytes([UInt8])
        case file(String)
    }

    // MARK: - Segments

    private final class Log {
        /// Oldest first; the last is the one appended to.
        var segments: [Segment] = []
        /// The last segment's open file (-1: not open).
        var fd: Int32 = -1
        /// Writing the files failed: this process keeps the log's new rows in memory.
        var inMemory = false
        /// Frames appended and not yet written (`writeBehindMicros`), and the time of the first.
        var pending: [UInt8] = []
        var pendingTime: Int64 = 0
    }

    private struct Segment {
        var sequence: Int
        var firstTime: Int64
        var bytes: Int
        /// The frames themselves, for a segment held in memory.
        var data: [UInt8]?
    }

    private func logDirectory(_ name: String) -> String? {
        directory.map { ($0 as NSString).appendingPathComponent(name) }
    }

    private func path(_ name: String, _ s: Segment) -> String? {
        logDirectory(name).map { ($0 as NSString).appendingPathComponent(Self.fileName(sequence: s.sequence, firstTime: s.firstTime)) }
    }

    /// `0000000012-<first time>.log`.
    static func fileName(sequence: Int, firstTime: Int64) -> String {
        let seq = String(sequence)
        return String(repeating: "0", count: max(0, 10 - seq.count)) + seq + "-\(firstTime).log"
    }

    /// The log, its segments listed from its directory the first time it is used.
    private func open(_ name: String) -> Log {
        if let log = logs[name] { return log }
        let log = Log()
        logs[name] = log
        guard let dir = logDirectory(name) else { return log }
        let fm = FileManager.default
        for f in (try? fm.contentsOfDirectory(atPath: dir)) ?? [] where f.hasSuffix(".log") {
            let parts = f.dropLast(4).split(separator: "-", maxSplits: 1)
            guard parts.count == 2, let seq = Int(parts[0]), let first = Int64(parts[1]) else { continue }
            let attributes = try? fm.attributesOfItem(atPath: (dir as NSString).appendingPathComponent(f))
            let size = (attributes?[.size] as? NSNumber)?.intValue ?? 0
            log.segments.append(Segment(sequence: seq, firstTime: first, bytes: size, data: nil))
        }
        log.segments.sort { $0.sequence < $1.sequence }
        return log
    }

    /// Write `frames` to the log's last segment (in memory once writing files failed).
    private func write(_ frames: [UInt8], time: Int64, to log: Log, named name: String) {
        prepare(log, named: name, adding: frames.count, time: time)
        guard let i = log.segments.indices.last else { return }
        if log.segments[i].data == nil {
            if Self.writeAll(log.fd, frames) {
                log.segments[i].bytes += frames.count
                return
            }
            // Leave the file as it is (readers skip a torn frame); keep the rest here.
            toMemory(log, time: time)
        }
        guard let j = log.segments.indices.last else { return }
        log.segments[j].data?.append(contentsOf: frames)
        log.segments[j].bytes += frames.count
    }

    /// Make the log's last segment ready to take `n` more bytes: open an earlier
    /// process's last segment, or begin a new one when there is none or it is full.
    private func prepare(_ log: Log, named name: String, adding n: Int, time: Int64) {
        if let last = log.segments.last, last.bytes == 0 || last.bytes + n <= retention.segmentBytes {
            if last.data != nil || log.fd >= 0 { return }
            if !openForAppend(log, named: name) { toMemory(log, time: time) }
            return
        }
        if log.fd >= 0 { close(log.fd); log.fd = -1 }
        let inMemory = directory == nil || log.inMemory
        log.segments.append(Segment(sequence: (log.segments.last?.sequence ?? 0) + 1, firstTime: time, bytes: 0,
                                    data: inMemory ? [] : nil))
        if !inMemory && !openForAppend(log, named: name) {
            log.segments.removeLast()
            toMemory(log, time: time)
        }
    }

    /// Open the last segment's file for appending (creating it and the log's directory).
    private func openForAppend(_ log: Log, named name: String) -> Bool {
        guard let s = log.segments.last, let dir = logDirectory(name), let path = path(name, s) else { return false }
        do {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        } catch {
            return false
        }
        let fd = Foundation.open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return false }
        log.fd = fd
        return true
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        guard fd >= 0 else { return false }
        return bytes.withUnsafeBytes { p -> Bool in
            guard let base = p.baseAddress else { return true }
            var done = 0
            while done < p.count {
                let n = Foundation.write(fd, base + done, p.count - done)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return false }
                done += n
            }
            return true
        }
    }

    /// Writing the log's file failed: count it, and keep the log's rows in memory from now on.
    private func toMemory(_ log: Log, time: Int64) {
        failures += 1
        if log.fd >= 0 { close(log.fd); log.fd = -1 }
        log.inMemory = true
        if log.segments.last?.data == nil {
            log.segments.append(Segment(sequence: (log.segments.last?.sequence ?? 0) + 1, firstTime: time, bytes: 0,
                                        data: []))
        }
    }

    /// Drop the segments past the retention (never the one appended to).
    private func trim(_ log: Log, named name: String, now: Int64) {
        let cutoff = now &- retention.maxAgeMicros
        var total = log.segments.reduce(0) { $0 + $1.bytes }
        var drop = 0
        while drop + 1 < log.segments.count {
            guard log.segments[drop + 1].firstTime < cutoff || total > retention.maxBytes else { break }
            total -= log.segments[drop].bytes
            drop += 1
        }
        guard drop > 0 else { return }
        for s in log.segments[..<drop] where s.data == nil {
            if let path = path(name, s) { try? FileManager.default.removeItem(atPath: path) }
        }
        log.segments.removeFirst(drop)
    }

    // MARK: - Frames

    /// The largest frame written or read: a row is a few kilobytes at most (long texts
    /// are cut by their writers), and the bound keeps a reader's search past damage short.
    static let maxFrameBytes = 64 << 10
    /// The most values in a row.
    static let maxColumns = 256

    /// Hand each whole frame of `bytes` to `row` (its time and values), in order. Where a
    /// frame does not check out, the reading goes on at the next byte from which a whole
    /// frame does. Returns the number of frames found.
    @discardableResult
    static func decode(_ bytes: [UInt8], _ row: (Int64, [Value]) -> Void) -> Int {
        bytes.withUnsafeBytes { p -> Int in
            var at = 0, found = 0
            func u32(_ o: Int) -> Int { Int(UInt32(littleEndian: p.loadUnaligned(fromByteOffset: o, as: UInt32.self))) }
            while at + 18 <= p.count {
                let length = u32(at)
                if length >= 10, length <= maxFrameBytes, length <= p.count - at - 8 {
                    let payload = UnsafeRawBufferPointer(rebasing: p[(at + 8)..<(at + 8 + length)])
                    if blockChecksum(payload) == UInt32(truncatingIfNeeded: u32(at + 4)),
                       let (time, values) = values(payload) {
                        row(time, values)
                        found += 1
                        at += 8 + length
                        continue
                    }
                }
                at += 1
            }
            return found
        }
    }

    /// The time and values of one frame's payload (nil: malformed).
    private static func values(_ p: UnsafeRawBufferPointer) -> (Int64, [Value])? {
        var at = 0
        func take<T: FixedWidthInteger>(_: T.Type) -> T? {
            guard at + MemoryLayout<T>.size <= p.count else { return nil }
            defer { at += MemoryLayout<T>.size }
            return T(littleEndian: p.loadUnaligned(fromByteOffset: at, as: T.self))
        }
        guard let time = take(Int64.self), let count = take(UInt16.self), Int(count) <= maxColumns else { return nil }
        var values: [Value] = []
        values.reserveCapacity(Int(count))
        for _ in 0..<Int(count) {
            guard let tag = take(UInt8.self) else { return nil }
            switch tag {
            case 0: values.append(.null)
            case 1: guard let x = take(Int64.self) else { return nil }; values.append(.int(x))
            case 2:
                guard let lo = take(UInt64.self), let hi = take(Int64.self) else { return nil }
                values.append(.int128(Int128(hi) << 64 | Int128(lo)))
            case 3: guard let x = take(UInt64.self) else { return nil }; values.append(.double(Double(bitPattern: x)))
            case 4: values.append(.bool(false))
            case 5: values.append(.bool(true))
            case 6:
                guard let n = take(UInt32.self), Int(n) <= p.count - at else { return nil }
                values.append(.string(String(decoding: UnsafeRawBufferPointer(rebasing: p[at..<(at + Int(n))]), as: UTF8.self)))
                at += Int(n)
            default: return nil
            }
        }
        return at == p.count ? (time, values) : nil
    }
}

/// Rows encoded as a log's frames, value by value (a writer of many rows need not build
/// an array of values for each): `begin()`, the row's values, `end()`.
public struct LogFrames: Sendable {
    /// The time every row is stamped with.
    public let time: Int64
    public private(set) var bytes: [UInt8] = []
    private var start = -1
    private var values = 0

    public init(time: Int64) { self.time = time }

    public mutating func begin() {
        start = bytes.count
        values = 0
        bytes.append(contentsOf: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] as [UInt8])
        put(time, at: start + 8)
    }

    public mutating func null() { bytes.append(0); values += 1 }
    public mutating func int(_ v: Int64) { bytes.append(1); put(v); values += 1 }
    public mutating func int(_ v: Int) { int(Int64(v)) }
    public mutating func bool(_ b: Bool) { bytes.append(b ? 5 : 4); values += 1 }
    public mutating func double(_ d: Double) { bytes.append(3); put(d.bitPattern); values += 1 }
    public mutating func string(_ s: String) {
        bytes.append(6)
        var s = s
        s.withUTF8 { u in
            put(UInt32(truncatingIfNeeded: u.count))
            bytes.append(contentsOf: u)
        }
        values += 1
    }

    public mutating func value(_ v: Value) {
        switch v {
        case .null: null()
        case .int(let x): int(x)
        case .int128(let x):
            bytes.append(2); put(UInt64(truncatingIfNeeded: x)); put(Int64(truncatingIfNeeded: x >> 64)); values += 1
        case .double(let x): double(x)
        case .bool(let b): bool(b)
        case .string(let s): string(s)
        }
    }

    /// End the row: its length and checksum. A row past the limits is dropped.
    public mutating func end() {
        guard start >= 0 else { return }
        defer { start = -1 }
        let payload = bytes.count - start - 8
        guard values <= SystemLogStore.maxColumns, payload <= SystemLogStore.maxFrameBytes else {
            bytes.removeLast(bytes.count - start)
            return
        }
        put(UInt16(values), at: start + 16)
        let sum = bytes.withUnsafeBytes { blockChecksum(UnsafeRawBufferPointer(rebasing: $0[(start + 8)...])) }
        put(UInt32(payload), at: start)
        put(sum, at: start + 4)
    }

    /// One whole row.
    public mutating func append(_ row: [Value]) {
        begin()
        for v in row { value(v) }
        end()
    }

    private mutating func put<T: FixedWidthInteger>(_ v: T) {
        withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) }
    }

    private mutating func put<T: FixedWidthInteger>(_ v: T, at offset: Int) {
        withUnsafeBytes(of: v.littleEndian) { b in for i in 0..<b.count { bytes[offset + i] = b[i] } }
    }
}
