// SPDX-License-Identifier: Apache-2.0
import NIOCore
import SlicehouseTypes
import SlicehousePlatform

/// Watches the bytes a PostgreSQL server sends, ahead of PostgresNIO's own handlers, for
/// what PostgresNIO keeps to itself: BackendKeyData (the process id and secret a
/// CancelRequest needs), NoticeResponse (`INFO:  Load into table ...`; PostgresNIO drops
/// notices), RowDescription (names, type OIDs and modifiers, also of a query that returns
/// no rows) and CommandComplete (the command tag as the server wrote it).
///
/// It only reads: every buffer goes on unchanged. Messages it does not need (DataRow
/// above all) are skipped without copying. Runs on the channel's event loop; the shell's
/// thread reads what it saw through `take()` once a statement has completed (by then
/// every message of that statement has passed through here, since PostgresNIO completes
/// the statement only after it has seen them itself).
final class ProtocolObserver: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// A column of a RowDescription.
    struct Column: Equatable, Sendable {
        var name: String
        var typeOID: UInt32
        var typeModifier: Int32
    }

    /// What one statement produced besides its rows.
    struct Statement: Sendable {
        var notices: [String] = []
        var columns: [Column]? = nil
        var tag: String? = nil
    }

    private let lock = Lock()
    private var seen = Statement()
    private var key: (processID: Int32, secret: Int32)?

    // Framing state (event loop only).
    private var header: [UInt8] = []
    private var inBody = false
    private var kind: UInt8 = 0
    private var remaining = 0
    private var body: [UInt8]? = nil

    /// The process id and secret of the connection (nil until BackendKeyData arrived).
    var backendKey: (processID: Int32, secret: Int32)? { lock.withLock { key } }

    /// What was seen since the last call, then forgotten.
    func take() -> Statement {
        lock.withLock {
            let s = seen
            seen = Statement()
            return s
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        scan(&buffer)
        context.fireChannelRead(data)
    }

    /// Follows the message framing (type byte, 32-bit length) through `buffer`.
    func scan(_ buffer: inout ByteBuffer) {
        while buffer.readableBytes > 0 {
            if !inBody {
                let n = min(5 - header.count, buffer.readableBytes)
                if let bytes = buffer.readBytes(length: n) { header += bytes }
                guard header.count == 5 else { return }
                kind = header[0]
                let length = Int(header[1]) << 24 | Int(header[2]) << 16 | Int(header[3]) << 8 | Int(header[4])
                header.removeAll(keepingCapacity: true)
                remaining = max(0, length - 4)
                inBody = true
                body = Self.interesting.contains(kind) ? [] : nil
                if body != nil { body?.reserveCapacity(min(remaining, 1 << 16)) }
            } else {
                let n = min(remaining, buffer.readableBytes)
                if body != nil, let bytes = buffer.readBytes(length: n) {
                    body?.append(contentsOf: bytes)
                } else {
                    buffer.moveReaderIndex(forwardBy: n)
                }
                remaining -= n
            }
            if inBody && remaining == 0 {
                inBody = false
                if let b = body { message(kind, b) }
                body = nil
            }
        }
    }

    private static let interesting: Set<UInt8> = [UInt8(ascii: "K"), UInt8(ascii: "N"), UInt8(ascii: "T"), UInt8(ascii: "C")]

    private func message(_ kind: UInt8, _ body: [UInt8]) {
        var reader = BodyReader(bytes: body)
        switch kind {
        case UInt8(ascii: "K"):
            guard let pid = reader.int32(), let secret = reader.int32() else { return }
            lock.withLock { key = (pid, secret) }
        case UInt8(ascii: "N"):
            let fields = reader.fields()
            let severity = fields[UInt8(ascii: "V")] ?? fields[UInt8(ascii: "S")] ?? "NOTICE"
            var text = severity + ":  " + (fields[UInt8(ascii: "M")] ?? "")
            if let detail = fields[UInt8(ascii: "D")] { text += "\nDETAIL:  " + detail }
            if let hint = fields[UInt8(ascii: "H")] { text += "\nHINT:  " + hint }
            lock.withLock { seen.notices.append(text) }
        case UInt8(ascii: "T"):
            guard let count = reader.int16(), count >= 0 else { return }
            var columns: [Column] = []
            for _ in 0..<count {
                guard let name = reader.cString(), reader.skip(6), let oid = reader.int32(), reader.skip(2),
                      let modifier = reader.int32(), reader.skip(2) else { return }
                columns.append(Column(name: name, typeOID: UInt32(bitPattern: oid), typeModifier: modifier))
            }
            lock.withLock { seen.columns = columns }
        case UInt8(ascii: "C"):
            let tag = reader.cString() ?? ""
            lock.withLock { seen.tag = tag }
        default:
            break
        }
    }
}

/// Reads big-endian integers and NUL-terminated strings from a message body; nil past its end.
struct BodyReader {
    let bytes: [UInt8]
    var at = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func skip(_ n: Int) -> Bool {
        guard at + n <= bytes.count else { return false }
        at += n
        return true
    }

    mutating func int16() -> Int16? {
        guard at + 2 <= bytes.count else { return nil }
        defer { at += 2 }
        return Int16(bitPattern: UInt16(bytes[at]) << 8 | UInt16(bytes[at + 1]))
    }

    mutating func int32() -> Int32? {
        guard at + 4 <= bytes.count else { return nil }
        defer { at += 4 }
        return Int32(bitPattern: UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3]))
    }

    mutating func cString() -> String? {
        guard let end = bytes[at...].firstIndex(of: 0) else { return nil }
        defer { at = end + 1 }
        return String(decoding: bytes[at..<end], as: UTF8.self)
    }

    /// The fields of an ErrorResponse / NoticeResponse, by their one-byte codes.
    mutating func fields() -> [UInt8: String] {
        var out: [UInt8: String] = [:]
        while at < bytes.count, bytes[at] != 0 {
            let code = bytes[at]
            at += 1
            guard let value = cString() else { break }
            out[code] = value
        }
        return out
    }
}
