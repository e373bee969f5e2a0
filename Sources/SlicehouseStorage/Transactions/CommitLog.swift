// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehouseCatalog

/// What one commit changed, as the commit log records it: the full manifest entries of
/// the tables it created or changed, the ids it dropped, and the views and next table id
/// when they changed. Applied in order on top of `manifest.json` at open.
struct CommitRecord: Codable, Sendable {
    var sequence: UInt64
    var nextTableID: Int
    var tables: [ManifestTable]
    var dropped: [Int]
    /// Every view, when the commit changed any (nil: unchanged).
    var views: [ManifestView]?
    /// Every schema, when the commit changed any (nil: unchanged; absent in older logs).
    var schemas: [SchemaDef]? = nil
    /// Users, groups, roles, owners and grants, when the commit changed them (nil: unchanged).
    var security: Security? = nil
    /// Every comment, when the commit changed any (nil: unchanged; absent in older logs).
    var comments: [String: String]? = nil
    /// Every SQL function, when the commit changed any (nil: unchanged; absent in older logs).
    var functions: [FunctionDef]? = nil
    /// Every database but the default one, when the commit changed any of them (nil: unchanged).
    var databases: [ManifestDatabase]? = nil
    /// The default database's definition, when the commit changed databases.
    var defaultDatabase: DatabaseDef? = nil
}

extension CommitRecord {
    /// The record's JSON (`ManifestJSON`: what `JSONEncoder` with sorted keys would write).
    func encoded() throws -> [UInt8] {
        var out = ManifestJSON()
        out.beginObject()
        if let c = comments { out.key("comments"); try out.encoded(c) }
        if let d = databases { out.key("databases"); try out.encoded(d) }
        if let d = defaultDatabase { out.key("defaultDatabase"); try out.encoded(d) }
        out.key("dropped"); out.ints(dropped)
        if let f = functions { out.key("functions"); try out.encoded(f) }
        out.key("nextTableID"); out.int(nextTableID)
        if let s = schemas { out.key("schemas"); try out.encoded(s) }
        if let s = security { out.key("security"); try out.encoded(s) }
        out.key("sequence"); out.int(sequence)
        out.key("tables"); out.beginArray()
        for t in tables { try t.write(&out) }
        out.endArray()
        if let v = views { out.key("views"); try out.encoded(v) }
        out.endObject()
        return out.bytes
    }
}

/// `wal.log`: one record per commit since the last checkpoint, so that a commit writes
/// what it changed instead of the whole manifest.
///
/// A record is the magic `SHWR`, the payload's length (u32, little-endian), its checksum
/// (u32), then the payload (a `CommitRecord` as JSON). A commit appends its record and
/// waits for an `fdatasync` of the log that began after its write (its own or one shared
/// with the commits beside it): the record is the commit. Reading stops at the first record that is
/// incomplete or fails its checksum — the tail of a commit that a crash interrupted
/// before it returned. A checkpoint writes `manifest.json` and empties the log.
final class CommitLog: @unchecked Sendable {
    static let fileName = "wal.log"
    static let magic = Array("SHWR".utf8)
    /// The log is folded into the manifest once it holds this many bytes.
    static let checkpointBytes = 4 << 20

    let path: String
    private var fd: Int32
    private(set) var size: Int
    /// A failed append may have left bytes that are not a record: the next commit checkpoints.
    private(set) var needsCheckpoint = false

    init(directory: String) throws {
        path = (directory as NSString).appendingPathComponent(Self.fileName)
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        if fd < 0 { throw SQLError(.ioError, "could not open \"\(path)\": \(String(cString: strerror(errno)))") }
        var st = stat()
        size = fstat(fd, &st) == 0 ? Int(st.st_size) : 0
    }

    deinit { close(fd) }

    /// The valid records of a log's bytes, in order, and where the valid prefix ends.
    static func records(_ bytes: [UInt8], path: String) -> (records: [CommitRecord], end: Int) {
        var out: [CommitRecord] = []
        var at = 0
        while bytes.count - at >= 12, bytes[at..<(at + 4)].elementsEqual(magic) {
            let length = Int(bytes[(at + 4)..<(at + 8)].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
            let sum = bytes[(at + 8)..<(at + 12)].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            guard length <= bytes.count - at - 12 else { break }
            let payload = bytes[(at + 12)..<(at + 12 + length)]
            guard payload.withUnsafeBytes({ storageChecksum($0) }) == sum,
                  let r = try? JSONDecoder().decode(CommitRecord.self, from: Data(payload)) else { break }
            out.append(r)
            at += 12 + length
        }
        return (out, at)
    }

    /// Append `record` (not yet durable: `sync()` makes it so, with every record before
    /// it). Returns the log's size after it. Callers serialize appends.
    func write(_ record: CommitRecord) throws -> Int {
        let payload = try record.encoded()
        var bytes = Self.magic
        withUnsafeBytes(of: UInt32(payload.count).littleEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: payload.withUnsafeBytes { storageChecksum($0) }.littleEndian) { bytes.append(contentsOf: $0) }
        bytes += payload
        do {
            try FileBlockSink.writeAll(fd, bytes, at: size, path: path)
        } catch {
            // Cut the log back to its last record; if even that fails, checkpoint next time.
            if ftruncate(fd, off_t(size)) != 0 || fdatasync(fd) != 0 { needsCheckpoint = true }
            throw error
        }
        size += bytes.count
        return size
    }

    /// Make every record written so far durable (one `fdatasync` for however many commits
    /// wrote since the last: group commit). Safe beside `write`; nil when it worked.
    func sync() -> SQLError? {
        if fdatasync(fd) != 0 { return SQLError(.ioError, "could not sync \"\(path)\": \(String(cString: strerror(errno)))") }
        return nil
    }

    /// A sync failed: nothing after `end` may count as written. Cut the log back to it and,
    /// as the records after it took sequence numbers no record will have, make the next
    /// commit a checkpoint (a manifest whose generation passes them).
    func cutBack(to end: Int) {
        if end <= size, ftruncate(fd, off_t(end)) == 0, fdatasync(fd) == 0 { size = end }
        needsCheckpoint = true
    }

    /// Empty the log (after a checkpoint made `manifest.json` hold everything).
    func reset() throws {
        if ftruncate(fd, 0) != 0 || fsync(fd) != 0 {
            needsCheckpoint = true
            throw SQLError(.ioError, "could not empty \"\(path)\": \(String(cString: strerror(errno)))")
        }
        size = 0
        needsCheckpoint = false
    }
}
