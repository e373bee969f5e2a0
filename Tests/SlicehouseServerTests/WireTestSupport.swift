// SPDX-License-Identifier: Apache-2.0
import NIOCore
import NIOEmbedded
import XCTest
@testable import SlicehouseServer

/// Frontend messages and connections on NIO's embedded channel, for the protocol tests.
extension XCTestCase {
    /// A typed message: its type byte, length and body.
    func message(_ type: Character, _ body: [UInt8]) -> [UInt8] {
        var b = ByteBuffer()
        b.writeInteger(UInt8(ascii: type.unicodeScalars.first!))
        b.writeInteger(Int32(body.count + 4))
        b.writeBytes(body)
        return Array(b.readableBytesView)
    }

    /// A StartupMessage (or, with another `code`, an SSLRequest or CancelRequest).
    func startupPacket(_ params: [(String, String)], code: Int32 = 196608) -> [UInt8] {
        var body = ByteBuffer()
        body.writeInteger(code)
        for (k, v) in params { body.writeCString(k); body.writeCString(v) }
        body.writeInteger(UInt8(0))
        var b = ByteBuffer()
        b.writeInteger(Int32(body.readableBytes + 4))
        b.writeBuffer(&body)
        return Array(b.readableBytesView)
    }

    /// A connection to `server` from 10.0.0.1, through the server's decoder and handler.
    func connect(_ server: Server) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(FrontendDecoder()))
        try channel.pipeline.syncOperations.addHandler(ConnectionHandler(server: server))
        try channel.connect(to: SocketAddress(ipAddress: "10.0.0.1", port: 1)).wait()
        return channel
    }

    /// Everything the server has written to `channel` so far.
    func outbound(_ channel: EmbeddedChannel) throws -> [UInt8] {
        var all: [UInt8] = []
        while var b = try channel.readOutbound(as: ByteBuffer.self) { all += b.readBytes(length: b.readableBytes) ?? [] }
        return all
    }
}
