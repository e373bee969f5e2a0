// SPDX-License-Identifier: Apache-2.0
import NIOCore

/// A message from a client, as PostgreSQL's protocol 3.0 defines it.
///
/// Startup-phase packets (StartupMessage, SSLRequest, GSSENCRequest, CancelRequest)
/// carry no type byte; every later message is a type byte, a length and a body.
enum FrontendMessage: Equatable {
    case startup(protocolVersion: Int32, parameters: [String: String])
    case sslRequest
    case gssEncRequest
    case cancel(process: Int32, secret: Int32)
    /// 'p': a password, or a SASL initial / continuing response (which one depends on
    /// the authentication exchange the server started; the body is kept raw).
    case password(ByteBuffer)
    case query(String)
    case parse(name: String, query: String, parameterTypes: [Int32])
    case bind(portal: String, statement: String, parameterFormats: [Int16], parameters: [ByteBuffer?],
              resultFormats: [Int16])
    case describe(kind: UInt8, name: String)
    case execute(portal: String, maxRows: Int32)
    case close(kind: UInt8, name: String)
    case sync
    case flush
    case terminate
    /// CopyData / CopyDone / CopyFail: the server never starts a COPY from the client, so
    /// these can only be left over from one that failed; ignored, as PostgreSQL does.
    case copyMessage
    /// A FunctionCall: refused with an error.
    case functionCall
}

/// Why a message could not be read: the connection gets an ErrorResponse and closes.
struct ProtocolError: Error, Equatable {
    var message: String
    init(_ message: String) { self.message = message }
}

/// Splits the byte stream into `FrontendMessage`s. Before startup completes the
/// packets carry no type byte; `expectingStartup` tells which framing applies.
final class FrontendDecoder: ByteToMessageDecoder {
    typealias InboundOut = FrontendMessage

    /// Largest message accepted (a Query or Bind of 64 MB); longer ones close the connection.
    static let maxMessageBytes = 64 << 20
    /// Startup packets are small (PostgreSQL allows 10,000 bytes).
    static let maxStartupBytes = 10_000

    var expectingStartup = true

    func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        if expectingStartup {
            guard let length = buffer.getInteger(at: buffer.readerIndex, as: Int32.self) else { return .needMoreData }
            guard length >= 8, length <= Self.maxStartupBytes else {
                throw ProtocolError("invalid length of startup packet")
            }
            guard buffer.readableBytes >= Int(length) else { return .needMoreData }
            buffer.moveReaderIndex(forwardBy: 4)
            guard var body = buffer.readSlice(length: Int(length) - 4) else { return .needMoreData }
            let message = try Self.startup(&body)
            if case .startup = message { expectingStartup = false }
            context.fireChannelRead(wrapInboundOut(message))
            return .continue
        }
        guard buffer.readableBytes >= 5,
              let type = buffer.getInteger(at: buffer.readerIndex, as: UInt8.self),
              let length = buffer.getInteger(at: buffer.readerIndex + 1, as: Int32.self) else { return .needMoreData }
        guard length >= 4, Int(length) <= Self.maxMessageBytes else {
            throw ProtocolError("invalid message length \(length)")
        }
        guard buffer.readableBytes >= Int(length) + 1 else { return .needMoreData }
        buffer.moveReaderIndex(forwardBy: 5)
        guard var body = buffer.readSlice(length: Int(length) - 4) else { return .needMoreData }
        let message = try Self.message(type: type, body: &body)
        context.fireChannelRead(wrapInboundOut(message))
        return .continue
    }

    func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        return .needMoreData
    }

    static func startup(_ body: inout ByteBuffer) throws -> FrontendMessage {
        guard let code = body.readInteger(as: Int32.self) else { throw ProtocolError("invalid startup packet") }
        switch code {
        case 80877103: return .sslRequest
        case 80877104: return .gssEncRequest
        case 80877102:
            guard let pid = body.readInteger(as: Int32.self), let secret = body.readInteger(as: Int32.self) else {
                throw ProtocolError("invalid cancel request")
            }
            return .cancel(process: pid, secret: secret)
        default:
            guard code >> 16 == 3 else {
                throw ProtocolError("unsupported frontend protocol \(code >> 16).\(code & 0xFFFF): server supports 3.0")
            }
            var parameters: [String: String] = [:]
            while true {
                let key = try body.readCString()
                if key.isEmpty { break }
                parameters[key] = try body.readCString()
            }
            return .startup(protocolVersion: code, parameters: parameters)
        }
    }

    static func message(type: UInt8, body: inout ByteBuffer) throws -> FrontendMessage {
        switch type {
        case UInt8(ascii: "p"): return .password(body)
        case UInt8(ascii: "Q"): return .query(try body.readCString())
        case UInt8(ascii: "P"):
            let name = try body.readCString()
            let query = try body.readCString()
            let n = try body.readCount()
            var types: [Int32] = []
            types.reserveCapacity(n)
            for _ in 0..<n { types.append(try body.readInt32()) }
            return .parse(name: name, query: query, parameterTypes: types)
        case UInt8(ascii: "B"):
            let portal = try body.readCString()
            let statement = try body.readCString()
            let nf = try body.readCount()
            var formats: [Int16] = []
            for _ in 0..<nf { formats.append(try body.readInt16()) }
            let np = try body.readCount()
            var parameters: [ByteBuffer?] = []
            parameters.reserveCapacity(np)
            for _ in 0..<np {
                let length = try body.readInt32()
                if length == -1 { parameters.append(nil); continue }
                guard length >= 0, let value = body.readSlice(length: Int(length)) else {
                    throw ProtocolError("invalid parameter length in Bind")
                }
                parameters.append(value)
            }
            let nr = try body.readCount()
            var results: [Int16] = []
            for _ in 0..<nr { results.append(try body.readInt16()) }
            return .bind(portal: portal, statement: statement, parameterFormats: formats, parameters: parameters,
                         resultFormats: results)
        case UInt8(ascii: "D"):
            guard let kind = body.readInteger(as: UInt8.self) else { throw ProtocolError("invalid Describe message") }
            return .describe(kind: kind, name: try body.readCString())
        case UInt8(ascii: "E"):
            let portal = try body.readCString()
            return .execute(portal: portal, maxRows: try body.readInt32())
        case UInt8(ascii: "C"):
            guard let kind = body.readInteger(as: UInt8.self) else { throw ProtocolError("invalid Close message") }
            return .close(kind: kind, name: try body.readCString())
        case UInt8(ascii: "S"): return .sync
        case UInt8(ascii: "H"): return .flush
        case UInt8(ascii: "X"): return .terminate
        case UInt8(ascii: "d"), UInt8(ascii: "c"), UInt8(ascii: "f"):
            return .copyMessage
        case UInt8(ascii: "F"):
            return .functionCall
        default:
            throw ProtocolError("invalid frontend message type \(type)")
        }
    }
}

extension ByteBuffer {
    mutating func readCString() throws -> String {
        guard let end = readableBytesView.firstIndex(of: 0) else { throw ProtocolError("unterminated string in message") }
        let length = end - readerIndex
        guard let s = readString(length: length) else { throw ProtocolError("invalid string in message") }
        moveReaderIndex(forwardBy: 1)
        return s
    }

    mutating func readInt32() throws -> Int32 {
        guard let v = readInteger(as: Int32.self) else { throw ProtocolError("message too short") }
        return v
    }

    mutating func readInt16() throws -> Int16 {
        guard let v = readInteger(as: Int16.self) else { throw ProtocolError("message too short") }
        return v
    }

    /// A non-negative Int16 count that the rest of the message can hold.
    mutating func readCount() throws -> Int {
        let n = Int(try readInt16())
        guard n >= 0, n <= readableBytes else { throw ProtocolError("invalid count in message") }
        return n
    }

    mutating func writeCString(_ s: String) {
        writeString(s)
        writeInteger(UInt8(0))
    }
}

/// Writes backend messages: each starts with its type byte and a length filled in at the end.
struct BackendWriter {
    var buffer: ByteBuffer

    init(allocator: ByteBufferAllocator, capacity: Int = 256) {
        buffer = allocator.buffer(capacity: capacity)
    }

    /// One message: the type byte, the length, then what `body` writes.
    mutating func message(_ type: UInt8, _ body: (inout ByteBuffer) -> Void) {
        buffer.writeInteger(type)
        let lengthAt = buffer.writerIndex
        buffer.writeInteger(Int32(0))
        body(&buffer)
        buffer.setInteger(Int32(buffer.writerIndex - lengthAt), at: lengthAt)
    }

    mutating func authentication(_ code: Int32, _ data: [UInt8] = []) {
        message(UInt8(ascii: "R")) { $0.writeInteger(code); $0.writeBytes(data) }
    }

    mutating func parameterStatus(_ name: String, _ value: String) {
        message(UInt8(ascii: "S")) { $0.writeCString(name); $0.writeCString(value) }
    }

    mutating func backendKeyData(process: Int32, secret: Int32) {
        message(UInt8(ascii: "K")) { $0.writeInteger(process); $0.writeInteger(secret) }
    }

    mutating func readyForQuery(_ status: UInt8) {
        message(UInt8(ascii: "Z")) { $0.writeInteger(status) }
    }

    mutating func commandComplete(_ tag: String) {
        message(UInt8(ascii: "C")) { $0.writeCString(tag) }
    }

    mutating func empty(_ type: Character) {
        message(UInt8(ascii: type.unicodeScalars.first ?? "?")) { _ in }
    }

    mutating func parameterDescription(_ oids: [Int32]) {
        message(UInt8(ascii: "t")) { b in
            b.writeInteger(Int16(truncatingIfNeeded: oids.count))
            for o in oids { b.writeInteger(o) }
        }
    }

    /// ErrorResponse ('E') or NoticeResponse ('N') with its fields.
    mutating func report(_ type: UInt8, severity: String, code: String, message text: String, detail: String? = nil,
                         hint: String? = nil, position: Int? = nil) {
        message(type) { b in
            b.writeInteger(UInt8(ascii: "S")); b.writeCString(severity)
            b.writeInteger(UInt8(ascii: "V")); b.writeCString(severity)
            b.writeInteger(UInt8(ascii: "C")); b.writeCString(code)
            b.writeInteger(UInt8(ascii: "M")); b.writeCString(text)
            if let detail { b.writeInteger(UInt8(ascii: "D")); b.writeCString(detail) }
            if let hint { b.writeInteger(UInt8(ascii: "H")); b.writeCString(hint) }
            if let position { b.writeInteger(UInt8(ascii: "P")); b.writeCString(String(position)) }
            b.writeInteger(UInt8(0))
        }
    }
}
