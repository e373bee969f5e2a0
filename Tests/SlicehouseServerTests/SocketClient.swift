// SPDX-License-Identifier: Apache-2.0
#if os(Linux)
import Glibc
import Foundation
import XCTest
@testable import SlicehouseServer
import SlicehouseEngine

/// A server on a loopback port that trusts loopback logins (no password), with two event
/// loops, over a fresh in-memory database: the server and its port.
func startLoopbackServer(idleTimeoutSeconds: Int = 0) throws -> (Server, Int) {
    var configuration = ServerConfiguration()
    configuration.port = 0
    configuration.superuserPassword = nil
    configuration.rules = HostRules.defaults(trustLoopback: true)
    configuration.idleTimeoutSeconds = idleTimeoutSeconds
    configuration.eventLoopThreads = 2
    let server = try Server(database: try Database(), configuration: configuration)
    let address = try server.start()
    guard let port = address.port else { throw SocketClient.Failure(description: "no port") }
    return (server, port)
}

/// A minimal PostgreSQL client over a blocking socket, for tests of a running server:
/// it writes frontend messages and reads backend messages one at a time, so a test can
/// stop reading (a slow client) and start again. (Linux only, as the tests that use it
/// count the process's threads in /proc.)
final class SocketClient: @unchecked Sendable {
    struct Message {
        var type: UInt8
        var body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// What one simple Query returned.
    struct Reply {
        var rows: [[String?]] = []
        var tags: [String] = []
        /// The SQLSTATE of an ErrorResponse, if one came.
        var errorCode: String?
        var errorMessage: String?
    }

    struct Failure: Error, CustomStringConvertible { var description: String }

    let fd: Int32
    private var buffer: [UInt8] = []
    private var offset = 0
    /// BackendKeyData's process id and secret.
    private(set) var process: Int32 = 0
    private(set) var secret: Int32 = 0

    /// Connect to 127.0.0.1:`port`; `receiveBufferBytes` makes the socket's receive buffer
    /// small (a client that stops reading fills it soon).
    init(port: Int, receiveBufferBytes: Int? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(errno)") }
        if var size = receiveBufferBytes.map(Int32.init) {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard rc == 0 else {
            let e = errno
            _ = Glibc.close(fd)
            throw Failure(description: "connect: \(e)")
        }
    }

    deinit { _ = Glibc.close(fd) }

    func close() { shutdown(fd, Int32(SHUT_RDWR)) }

    func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw Failure(description: "send: \(errno)") }
            sent += n
        }
    }

    /// The next backend message, or nil at the end of the stream.
    func read() throws -> Message? {
        guard let header = try take(5) else { return nil }
        let length = Int(UInt32(header[1]) << 24 | UInt32(header[2]) << 16 | UInt32(header[3]) << 8 | UInt32(header[4]))
        guard length >= 4, let body = try take(length - 4) else { throw Failure(description: "truncated message") }
        return Message(type: header[0], body: body)
    }

    private func take(_ n: Int) throws -> [UInt8]? {
        while buffer.count - offset < n {
            if offset > 0 {
                buffer.removeFirst(offset)
                offset = 0
            }
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            let got = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if got == 0 { return nil }
            guard got > 0 else { throw Failure(description: "recv: \(errno)") }
            buffer += chunk[0..<got]
        }
        let out = Array(buffer[offset..<offset + n])
        offset += n
        return out
    }

    /// StartupMessage as `user` (trusted), then everything up to ReadyForQuery.
    func startup(user: String = "awsuser") throws {
        var body: [UInt8] = [0, 3, 0, 0]
        for s in ["user", user, "database", "dev"] { body += Array(s.utf8) + [0] }
        body.append(0)
        let length = UInt32(body.count + 4)
        try send(withUnsafeBytes(of: length.bigEndian, Array.init) + body)
        while let m = try read() {
            switch m.type {
            case UInt8(ascii: "K"):
                process = Self.int32(m.body, 0)
                secret = Self.int32(m.body, 4)
            case UInt8(ascii: "E"):
                throw Failure(description: "login failed: \(m.text)")
            case UInt8(ascii: "Z"):
                return
            default:
                continue
            }
        }
        throw Failure(description: "the server closed the connection during startup")
    }

    static func queryMessage(_ sql: String) -> [UInt8] {
        frame("Q", Array(sql.utf8) + [0])
    }

    /// A frontend message: its type, length and body.
    static func frame(_ type: Character, _ body: [UInt8]) -> [UInt8] {
        [UInt8(ascii: type.unicodeScalars.first ?? "?")] + withUnsafeBytes(of: UInt32(body.count + 4).bigEndian, Array.init) + body
    }

    /// Parse of `sql` as the prepared statement `name`, no parameter types.
    static func parseMessage(_ name: String, _ sql: String) -> [UInt8] {
        frame("P", Array(name.utf8) + [0] + Array(sql.utf8) + [0, 0, 0])
    }

    /// Bind of the prepared statement `statement` to the unnamed portal, no parameters.
    static func bindMessage(_ statement: String) -> [UInt8] {
        frame("B", [0] + Array(statement.utf8) + [0, 0, 0, 0, 0, 0, 0])
    }

    /// Execute of the unnamed portal, all rows.
    static let executeMessage = frame("E", [0, 0, 0, 0, 0])
    static let syncMessage = frame("S", [])

    /// Whether a backend message has arrived and not been read yet (does not wait).
    func hasUnread() -> Bool {
        if buffer.count > offset { return true }
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&p, 1, 0) > 0
    }

    /// Send a simple Query.
    func sendQuery(_ sql: String) throws { try send(Self.queryMessage(sql)) }

    /// Read one Query's reply, up to its ReadyForQuery.
    func readReply() throws -> Reply {
        var reply = Reply()
        while let m = try read() {
            switch m.type {
            case UInt8(ascii: "D"):
                reply.rows.append(Self.dataRow(m.body))
            case UInt8(ascii: "C"):
                reply.tags.append(String(decoding: m.body.prefix { $0 != 0 }, as: UTF8.self))
            case UInt8(ascii: "E"):
                let fields = Self.fields(m.body)
                reply.errorCode = fields[UInt8(ascii: "C")]
                reply.errorMessage = fields[UInt8(ascii: "M")]
            case UInt8(ascii: "Z"):
                return reply
            default:
                continue
            }
        }
        throw Failure(description: "the server closed the connection")
    }

    /// Run a simple Query and read its reply.
    func query(_ sql: String) throws -> Reply {
        try sendQuery(sql)
        return try readReply()
    }

    /// A CancelRequest for this connection's statement, on a connection of its own.
    func cancel(port: Int) throws {
        let other = try SocketClient(port: port)
        var packet: [UInt8] = []
        for v in [UInt32(16), 80_877_102, UInt32(bitPattern: process), UInt32(bitPattern: secret)] {
            packet += withUnsafeBytes(of: v.bigEndian, Array.init)
        }
        try other.send(packet)
        _ = try other.read()   // the server closes it
    }

    static func int32(_ b: [UInt8], _ at: Int) -> Int32 {
        Int32(bitPattern: UInt32(b[at]) << 24 | UInt32(b[at + 1]) << 16 | UInt32(b[at + 2]) << 8 | UInt32(b[at + 3]))
    }

    static func dataRow(_ body: [UInt8]) -> [String?] {
        let count = Int(UInt16(body[0]) << 8 | UInt16(body[1]))
        var at = 2
        var values: [String?] = []
        for _ in 0..<count {
            let n = Int(int32(body, at))
            at += 4
            if n < 0 { values.append(nil); continue }
            values.append(String(decoding: body[at..<at + n], as: UTF8.self))
            at += n
        }
        return values
    }

    /// An ErrorResponse's or NoticeResponse's fields by code.
    static func fields(_ body: [UInt8]) -> [UInt8: String] {
        var out: [UInt8: String] = [:]
        var at = 0
        while at < body.count, body[at] != 0 {
            let code = body[at]
            at += 1
            let end = body[at...].firstIndex(of: 0) ?? body.count
            out[code] = String(decoding: body[at..<end], as: UTF8.self)
            at = end + 1
        }
        return out
    }
}

/// Threads of this process now.
func processThreadCount() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
}
#endif
