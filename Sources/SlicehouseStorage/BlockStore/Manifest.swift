// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehouseCatalog

/// The durable state of a database: the catalog and, per table and slice, the blocks
/// of every column. `manifest.json` in the data directory is replaced atomically
/// (write, fsync, rename, fsync the directory) at each commit; block files it does
/// not name are leftovers of an interrupted statement and are removed at the next open.
public struct Manifest: Codable, Sendable {
    /// 2: the file is a checksummed envelope (see `fileBytes`). 1 (read only): plain JSON.
    public var formatVersion = 2
    public var generation: UInt64
    public var nextTableID: Int
    public var tables: [ManifestTable]
    public var views: [ManifestView]
    /// Every schema with its owner (absent in manifests written before schemas: only
    /// `public` then, and the schemas the tables name).
    public var schemas: [SchemaDef]?
    /// Users, groups, roles, owners and grants (nil in directories written before users existed).
    public var security: Security?
    /// COMMENT ON's texts (`CommentKey`; nil in directories written before comments).
    public var comments: [String: String]?
    /// SQL functions (nil in directories written before them).
    public var functions: [FunctionDef]?
    /// Every database but the default one, with its schemas, views, comments and functions
    /// (its tables are in `tables`, each naming it); nil when there is none.
    public var databases: [ManifestDatabase]?
    /// The default database's definition, when its owner or connection limit changed.
    public var defaultDatabase: DatabaseDef?

    public init(generation: UInt64, nextTableID: Int, tables: [ManifestTable], views: [ManifestView],
                schemas: [SchemaDef]? = nil, security: Security? = nil, comments: [String: String]? = nil,
                functions: [FunctionDef]? = nil, databases: [ManifestDatabase]? = nil, defaultDatabase: DatabaseDef? = nil) {
        self.functions = functions
        self.databases = databases
        self.defaultDatabase = defaultDatabase
        self.generation = generation; self.nextTableID = nextTableID; self.tables = tables; self.views = views
        self.schemas = schemas
        self.security = security
        self.comments = comments
    }

    public static let fileName = "manifest.json"

    /// The manifest's own JSON (`ManifestJSON`: what `JSONEncoder` with sorted keys would write).
    public func encoded() throws -> [UInt8] {
        var out = ManifestJSON(capacity: 1 << 16)
        out.beginObject()
        if let c = comments { out.key("comments"); try out.encoded(c) }
        if let d = databases { out.key("databases"); try out.encoded(d) }
        if let d = defaultDatabase { out.key("defaultDatabase"); try out.encoded(d) }
        out.key("formatVersion"); out.int(formatVersion)
        if let f = functions { out.key("functions"); try out.encoded(f) }
        out.key("generation"); out.int(generation)
        out.key("nextTableID"); out.int(nextTableID)
        if let s = schemas { out.key("schemas"); try out.encoded(s) }
        if let s = security { out.key("security"); try out.encoded(s) }
        out.key("tables"); out.beginArray()
        for t in tables { try t.write(&out) }
        out.endArray()
        out.key("views"); try out.encoded(views)
        out.endObject()
        return out.bytes
    }

    private static let envelopeHead = Array(#"{"checksum":""#.utf8)
    private static let envelopeMiddle = Array(#"","manifest":"#.utf8)

    /// What `manifest.json` holds: `{"checksum":"<8 hex digits>","manifest":<JSON>}`,
    /// still JSON for people and tools, where the checksum covers the exact bytes of the
    /// manifest's JSON. Every byte that decides an answer (block places, row counts, zone
    /// map bounds, deleted-row file names) is in those bytes, so a flipped bit is an
    /// error at open instead of a wrong answer.
    public func fileBytes() throws -> [UInt8] {
        let body = try encoded()
        let sum = body.withUnsafeBytes { storageChecksum($0) }
        return Self.envelopeHead + Array(Self.hex(sum).utf8) + Self.envelopeMiddle + body + [UInt8(ascii: "}")]
    }

    /// Read `manifest.json`'s bytes: a checksummed envelope, or a format-1 manifest
    /// written before checksums (accepted as it is; the next commit writes format 2).
    public static func decode(_ bytes: [UInt8], path: String) throws -> Manifest {
        func damaged(_ why: String) -> SQLError {
            SQLError(.ioError, "manifest \"\(path)\" is damaged (\(why))")
        }
        let head = envelopeHead.count, middle = envelopeMiddle.count
        let body: ArraySlice<UInt8>
        var legacy = false
        if bytes.starts(with: envelopeHead) {
            let bodyStart = head + 8 + middle
            guard bytes.count > bodyStart, bytes.last == UInt8(ascii: "}"),
                  bytes[(head + 8)..<bodyStart].elementsEqual(envelopeMiddle),
                  let expected = Self.lowercaseHex(bytes[head..<(head + 8)]) else {
                throw damaged("bad envelope")
            }
            body = bytes[bodyStart..<(bytes.count - 1)]
            let actual = body.withUnsafeBytes { storageChecksum($0) }
            guard actual == expected else { throw damaged("checksum mismatch") }
        } else {
            body = bytes[...]
            legacy = true
        }
        let m: Manifest
        do {
            // The slices and blocks by hand, the rest by the decoder (`ManifestReader`);
            // anything else the decoder reads whole.
            m = try ManifestReader.decode(body) ?? JSONDecoder().decode(Manifest.self, from: Data(body))
        } catch {
            throw damaged("unreadable: \(error)")
        }
        // A format-1 file has no envelope, and a format-2 manifest always has one: a
        // damaged envelope cannot pass as an old file.
        guard m.formatVersion == (legacy ? 1 : 2) else {
            if m.formatVersion > 2 {
                throw SQLError(.ioError, "manifest \"\(path)\" has format version \(m.formatVersion); this build reads versions 1 and 2")
            }
            throw damaged("format version \(m.formatVersion) \(legacy ? "without" : "inside") a checksummed envelope")
        }
        return m
    }

    /// Exactly the digits `hex` writes (0-9, a-f): `UInt32(_:radix:)` also takes `A`-`F`
    /// and a sign, so a bit flip of `a` to `A` went unnoticed.
    static func lowercaseHex(_ digits: ArraySlice<UInt8>) -> UInt32? {
        var v: UInt32 = 0
        for d in digits {
            switch d {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = v << 4 | UInt32(d - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): v = v << 4 | UInt32(d - UInt8(ascii: "a") + 10)
            default: return nil
            }
        }
        return v
    }

    static func hex(_ v: UInt32) -> String {
        let digits = String(v, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}

/// The checksum of storage metadata (manifest, deleted-row files): the block format's.
public func storageChecksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 { blockChecksum(bytes) }

/// A deleted-row file: the bitmap of one table's deleted rows on one slice.
///
/// Layout: the magic `SHDEL002`, the payload's length (u64, little-endian), its
/// checksum (u32), then the payload: the bitmap's 64-bit little-endian words,
/// zstd-compressed. Such files are named `t<table>_g<gen>.dbm`; a `.del` file is
/// format 1 (a bare zstd frame, no checksum), written before checksums and read as it is.
/// A damaged file is an error naming it, never rows brought back or lost.
public enum DeleteFile {
    static let magic = Array("SHDEL002".utf8)
    public static let fileExtension = "dbm"

    public static func encode(_ set: DeleteSet) throws -> [UInt8] {
        var raw = [UInt8](); raw.reserveCapacity(set.words.count * 8)
        for w in set.words { withUnsafeBytes(of: w.littleEndian) { raw.append(contentsOf: $0) } }
        let payload = try ZstdCodec.compress(raw)
        var out = magic
        withUnsafeBytes(of: UInt64(payload.count).littleEndian) { out.append(contentsOf: $0) }
        withUnsafeBytes(of: payload.withUnsafeBytes { storageChecksum($0) }.littleEndian) { out.append(contentsOf: $0) }
        return out + payload
    }

    /// The bitmap in `bytes` (read from `path`); `legacy` (a `.del` file) reads format 1.
    public static func decode(_ bytes: [UInt8], path: String, legacy: Bool) throws -> DeleteSet {
        func damaged(_ why: String) -> SQLError {
            SQLError(.ioError, "deleted-row file \"\(path)\" is damaged (\(why))")
        }
        let payload: ArraySlice<UInt8>
        if legacy {
            payload = bytes[...]
        } else {
            guard bytes.starts(with: magic) else { throw damaged("bad magic number") }
            let headerSize = magic.count + 12
            guard bytes.count >= headerSize else { throw damaged("truncated header") }
            let length = bytes[8..<16].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let expected = bytes[16..<20].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            guard length == UInt64(bytes.count - headerSize) else {
                throw damaged("\(bytes.count - headerSize) payload bytes, the header says \(length)")
            }
            payload = bytes[headerSize...]
            guard payload.withUnsafeBytes({ storageChecksum($0) }) == expected else { throw damaged("checksum mismatch") }
        }
        let raw: [UInt8]
        do {
            raw = try ZstdCodec.decompress(Array(payload), originalSize: nil)
        } catch {
            throw damaged("\(error)")
        }
        guard raw.count % 8 == 0 else { throw damaged("\(raw.count) bytes is not whole words") }
        var words = [UInt64](filled: 0, count: raw.count / 8)
        _ = words.withUnsafeMutableBytes { raw.copyBytes(to: $0) }
        return DeleteSet(words: words.map { UInt64(littleEndian: $0) })
    }
}

public struct ManifestView: Codable, Sendable {
    public var name: String
    public var columns: [String]
    public var query: String
    /// Absent in manifests written before schemas (`public` then).
    public var schema: String?
    public var searchPath: [String]?
    public var lateBinding: Bool?
    /// Absent unless the view was made with enable_case_sensitive_identifier on.
    public var caseSensitiveIdentifiers: Bool?
    public init(_ v: ViewDef) {
        name = v.name; columns = v.columns; query = v.queryText; schema = v.schema; searchPath = v.searchPath
        lateBinding = v.lateBinding ? true : nil
        caseSensitiveIdentifiers = v.caseSensitiveIdentifiers ? true : nil
    }
    public var def: ViewDef {
        ViewDef(schema: schema ?? Catalog.publicSchema, name: name, columns: columns, queryText: query,
                searchPath: searchPath ?? [Catalog.publicSchema], lateBinding: lateBinding ?? false,
                caseSensitiveIdentifiers: caseSensitiveIdentifiers ?? false)
    }
}

/// A database other than the default one, as a manifest or commit record keeps it.
public struct ManifestDatabase: Codable, Sendable {
    public var database: DatabaseDef
    public var schemas: [SchemaDef]
    public var views: [ManifestView]
    public var comments: [String: String]
    public var functions: [FunctionDef]
    public init(_ d: ObjectSpace.Saved) {
        database = d.database; schemas = d.schemas; views = d.views.map(ManifestView.init)
        comments = d.comments; functions = d.functions
    }
    public var saved: ObjectSpace.Saved {
        ObjectSpace.Saved(database: database, schemas: schemas, views: views.map { $0.def }, comments: comments,
                          functions: functions)
    }
}

public struct ManifestMaterializedView: Codable, Sendable {
    public var query: String
    public var searchPath: [String]
    public var autoRefresh: Bool
    public init(_ m: MaterializedViewDef) { query = m.queryText; searchPath = m.searchPath; autoRefresh = m.autoRefresh }
    public var def: MaterializedViewDef { MaterializedViewDef(queryText: query, searchPath: searchPath, autoRefresh: autoRefresh) }
}

public struct ManifestColumn: Codable, Sendable {
    public var name: String
    public var type: String
    public var precision: Int?
    public var scale: Int?
    public var notNull: Bool
    public var defaultSQL: String?
    public var identitySeed: Int64?
    public var identityStep: Int64?
    public var encoding: String?
    public var primaryKey: Bool
    public var unique: Bool
    public var references: String?

    public init(_ c: ColumnDef) {
        name = c.name
        (type, precision, scale) = Self.encodeType(c.type)
        notNull = c.notNull; defaultSQL = c.defaultSQL
        identitySeed = c.identity?.seed; identityStep = c.identity?.step
        encoding = c.encoding; primaryKey = c.isPrimaryKey; unique = c.isUnique; references = c.references
    }

    public func def() throws -> ColumnDef {
        ColumnDef(name: name, type: try Self.decodeType(type, precision, scale), notNull: notNull, defaultSQL: defaultSQL,
                  identity: identitySeed.map { ($0, identityStep ?? 1) }, encoding: encoding,
                  isPrimaryKey: primaryKey, isUnique: unique, references: references)
    }

    static func encodeType(_ t: DataType) -> (String, Int?, Int?) {
        switch t {
        case .smallint: return ("smallint", nil, nil)
        case .integer: return ("integer", nil, nil)
        case .bigint: return ("bigint", nil, nil)
        case .decimal(let p, let s): return ("decimal", p, s)
        case .real: return ("real", nil, nil)
        case .double: return ("double", nil, nil)
        case .boolean: return ("boolean", nil, nil)
        case .char(let n): return ("char", n, nil)
        case .varchar(let n): return ("varchar", n, nil)
        case .date: return ("date", nil, nil)
        case .timestamp: return ("timestamp", nil, nil)
        case .timestamptz: return ("timestamptz", nil, nil)
        case .time: return ("time", nil, nil)
        case .timetz: return ("timetz", nil, nil)
        case .interval: return ("interval", nil, nil)
        case .superType: return ("super", nil, nil)
        case .varbyte(let n): return ("varbyte", n, nil)
        case .hllsketch: return ("hllsketch", nil, nil)
        case .array(let e): return (e.type.internalName + "[]", nil, nil)
        case .unknown: return ("unknown", nil, nil)
        }
    }

    static func decodeType(_ s: String, _ p: Int?, _ sc: Int?) throws -> DataType {
        switch s {
        case "smallint": return .smallint
        case "integer": return .integer
        case "bigint": return .bigint
        case "decimal": return .decimal(precision: p ?? 18, scale: sc ?? 0)
        case "real": return .real
        case "double": return .double
        case "boolean": return .boolean
        case "char": return .char(p ?? 1)
        case "varchar": return .varchar(p ?? 256)
        case "date": return .date
        case "timestamp": return .timestamp
        case "timestamptz": return .timestamptz
        case "time": return .time
        case "timetz": return .timetz
        case "interval": return .interval
        case "super": return .superType
        case "varbyte": return .varbyte(p ?? DataType.defaultVarbyteLength)
        case "hllsketch": return .hllsketch
        case "unknown": return .unknown
        case "int2[]": return .array(.smallint)
        case "int4[]": return .array(.integer)
        case "int8[]": return .array(.bigint)
        default: throw SQLError(.ioError, "manifest names an unknown column type \"\(s)\"")
        }
    }
}

public struct ManifestBlock: Codable, Sendable {
    /// File, offset, length, encoding, first row, rows, NULLs, min, max.
    public var f: String
    public var o: Int
    public var l: Int
    public var e: String
    public var r: Int
    public var n: Int
    public var z: Int
    /// The zone map's bounds as the manifest writes them (`ZoneBound.encoded`).
    public var lo: String? {
        get { low?.text }
        set { low = newValue.map(ZoneText.text) }
    }
    public var hi: String? {
        get { high?.text }
        set { high = newValue.map(ZoneText.text) }
    }
    /// Strings: whether a value may end in a blank (`ZoneMap.blankEnded`); absent in
    /// manifests written before it was kept, which read as "may".
    public var tb: Bool?
    /// A block of the tail buffer (`Distributor.tailBufferSliceBytes`): its encoded bytes,
    /// base64, kept in the manifest (or the commit record) itself instead of a block file;
    /// `f` is empty and `o` 0 then. Absent for blocks in files.
    public var d: String?

    /// A zone bound as read or made: the bound itself when its text is the one
    /// `ZoneBound.encoded` writes (the manifest reader reads those from the bytes, without
    /// making a string: making and re-reading them was 8% of a fresh SF 10 process's
    /// samples, about a sixth of its opening), else the text as it was.
    enum ZoneText: Sendable {
        case bound(ZoneBound)
        case text(String)

        var text: String {
            switch self {
            case .bound(let b): return b.encoded
            case .text(let s): return s
            }
        }

        var bound: ZoneBound? {
            switch self {
            case .bound(let b): return b
            case .text(let s): return ZoneBound(encoded: s)
            }
        }
    }

    var low: ZoneText?
    var high: ZoneText?

    public init(f: String, o: Int, l: Int, e: String, r: Int, n: Int, z: Int, lo: String?, hi: String?,
                tb: Bool?, d: String?) {
        self.init(f: f, o: o, l: l, e: e, r: r, n: n, z: z, low: lo.map(ZoneText.text), high: hi.map(ZoneText.text), tb: tb, d: d)
    }

    init(f: String, o: Int, l: Int, e: String, r: Int, n: Int, z: Int, low: ZoneText?, high: ZoneText?,
         tb: Bool?, d: String?) {
        self.f = f; self.o = o; self.l = l; self.e = e; self.r = r; self.n = n; self.z = z
        self.low = low; self.high = high; self.tb = tb; self.d = d
    }

    private enum CodingKeys: String, CodingKey {
        case f, o, l, e, r, n, z, lo, hi, tb, d
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(f: try c.decode(String.self, forKey: .f), o: try c.decode(Int.self, forKey: .o),
                  l: try c.decode(Int.self, forKey: .l), e: try c.decode(String.self, forKey: .e),
                  r: try c.decode(Int.self, forKey: .r), n: try c.decode(Int.self, forKey: .n),
                  z: try c.decode(Int.self, forKey: .z), lo: try c.decodeIfPresent(String.self, forKey: .lo),
                  hi: try c.decodeIfPresent(String.self, forKey: .hi), tb: try c.decodeIfPresent(Bool.self, forKey: .tb),
                  d: try c.decodeIfPresent(String.self, forKey: .d))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(f, forKey: .f)
        try c.encode(o, forKey: .o)
        try c.encode(l, forKey: .l)
        try c.encode(e, forKey: .e)
        try c.encode(r, forKey: .r)
        try c.encode(n, forKey: .n)
        try c.encode(z, forKey: .z)
        try c.encodeIfPresent(lo, forKey: .lo)
        try c.encodeIfPresent(hi, forKey: .hi)
        try c.encodeIfPresent(tb, forKey: .tb)
        try c.encodeIfPresent(d, forKey: .d)
    }
}

public struct ManifestSlice: Codable, Sendable {
    public var rows: Int
    public var sorted: Int
    public var columns: [[ManifestBlock]]
    /// Deleted-row bitmap file (zstd-compressed 64-bit words), nil when none.
    public var deletes: String?
}

public struct ManifestTable: Codable, Sendable {
    public var id: Int
    public var schema: String
    public var name: String
    public var columns: [ManifestColumn]
    public var distStyle: String
    public var distKey: Int?
    public var sortKey: [Int]
    public var sortKeyKind: String
    public var primaryKey: [Int]
    public var uniqueKeys: [[Int]]
    /// Storage: effective distribution ("all", "even", "key:N"), EVEN cursor, encodings.
    public var placement: String
    public var evenCursor: Int
    public var encodings: [String]?
    public var identityNext: [Int: Int64]
    public var slices: [ManifestSlice]
    /// Rows inserted or deleted so far, and the last ANALYZE (absent in older manifests).
    public var modifications: Int?
    public var analyzed: AnalyzedTable?
    /// A materialized view's query, and where its last refresh left its base tables
    /// (absent for other tables).
    public var materializedView: ManifestMaterializedView?
    public var refreshState: MaterializedViewState?
    /// `TableSnapshot.reorganizations` (absent when 0).
    public var reorganizations: Int?
    /// The database it belongs to (absent: the default one).
    public var database: String?

    /// Describe a table and its snapshot: blocks in files by their place, the tail
    /// buffer's blocks (encoded bytes held in memory) by their bytes.
    public init(def: TableDef, snapshot: TableSnapshot, identityNext: [Int: Int64]) throws {
        id = def.id; schema = def.schema; name = def.name; database = def.database
        columns = def.columns.map(ManifestColumn.init)
        distStyle = def.distStyle.rawValue; distKey = def.distKey; sortKey = def.sortKey
        sortKeyKind = def.sortKeyKind.rawValue; primaryKey = def.primaryKey; uniqueKeys = def.uniqueKeys
        switch snapshot.distribution {
        case .all: placement = "all"
        case .even: placement = "even"
        case .key(let c): placement = "key:\(c)"
        }
        evenCursor = snapshot.evenCursor
        encodings = snapshot.encodings?.map { $0.rawValue }
        modifications = snapshot.modifications
        analyzed = snapshot.analyzed
        materializedView = def.materializedView.map(ManifestMaterializedView.init)
        refreshState = snapshot.refreshState
        reorganizations = snapshot.reorganizations == 0 ? nil : snapshot.reorganizations
        self.identityNext = identityNext
        slices = try snapshot.slices.map { s in
            ManifestSlice(rows: s.rowCount, sorted: s.sortedRows, columns: try s.columns.enumerated().map { c, chain in
                let isString = c < def.columns.count && def.columns[c].type.physical == .string
                return try chain.map { b in
                    let (f, o, l, d): (String, Int, Int, String?)
                    switch b.payload {
                    case .file(let file, let offset, let length): (f, o, l, d) = (file.name, offset, length, nil)
                    case .memory(let held):
                        // A tail-buffer block: its bytes travel in the record.
                        (f, o, l, d) = ("", 0, held.bytes.count, ManifestJSON.base64(held.bytes))
                    case .vector: throw SQLError.internalError("block of table \(def.name) is neither in a file nor encoded")
                    }
                    return ManifestBlock(f: f, o: o, l: l, e: b.encoding.rawValue, r: b.firstRow,
                                         n: b.zone.count, z: b.zone.nullCount, low: b.zone.min.map(ManifestBlock.ZoneText.bound),
                                         high: b.zone.max.map(ManifestBlock.ZoneText.bound),
                                         tb: isString ? b.zone.blankEnded : nil, d: d)
                }
            }, deletes: s.deleteFile)
        }
    }

    /// Checks that the entry is consistent in itself: every column number in range, every
    /// type's parameters legal, one encoding per column, block extents and file names sane.
    /// A manifest whose checksum holds can still say something impossible (a bug, or an
    /// edited file); the readers index arrays with these numbers and must not trap.
    public func validate() throws {
        func damaged(_ why: String) -> SQLError {
            SQLError(.ioError, "manifest entry of table \"\(name)\" is damaged (\(why))")
        }
        let n = columns.count
        guard n > 0, n <= 1600 else { throw damaged("\(n) columns") }
        var seen = Set<String>()
        for c in columns {
            guard !c.name.isEmpty, seen.insert(c.name.lowercased()).inserted else { throw damaged("column name \"\(c.name)\"") }
            switch try ManifestColumn.decodeType(c.type, c.precision, c.scale) {
            case .decimal(let p, let sc): guard (1...38).contains(p), (0...p).contains(sc) else { throw damaged("decimal(\(p),\(sc))") }
            case .char(let len), .varchar(let len): guard (1...65535).contains(len) else { throw damaged("length \(len)") }
            default: break
            }
        }
        func inRange(_ c: Int) -> Bool { c >= 0 && c < n }
        if let k = distKey, !inRange(k) { throw damaged("distribution key column \(k)") }
        guard sortKey.allSatisfy(inRange), Set(sortKey).count == sortKey.count else { throw damaged("sort key \(sortKey)") }
        guard primaryKey.allSatisfy(inRange), uniqueKeys.allSatisfy({ $0.allSatisfy(inRange) }) else { throw damaged("key columns") }
        guard identityNext.keys.allSatisfy(inRange) else { throw damaged("identity columns") }
        if placement.hasPrefix("key:") {
            guard let c = Int(placement.dropFirst(4)), inRange(c) else { throw damaged("placement \"\(placement)\"") }
        } else if placement != "all" && placement != "even" {
            throw damaged("placement \"\(placement)\"")
        }
        guard evenCursor >= 0 else { throw damaged("EVEN cursor \(evenCursor)") }
        if let e = encodings, e.count != n { throw damaged("\(e.count) encodings for \(n) columns") }
        for s in slices {
            guard s.rows >= 0, s.sorted >= 0, s.sorted <= s.rows, s.columns.count == n else { throw damaged("slice layout") }
            if let d = s.deletes, !Self.isDataFileName(d) { throw damaged("deleted-row file \"\(d)\"") }
            // A chain's blocks are mostly in one file: a name is checked when it differs
            // from the block before's.
            var checkedFile: String?
            for chain in s.columns {
                for b in chain {
                    if let d = b.d {
                        guard b.f.isEmpty, b.o == 0, b.l <= Self.maxInlineBlockBytes, d.utf8.count == (b.l + 2) / 3 * 4 else {
                            throw damaged("tail-buffer block of \(b.l) bytes")
                        }
                    } else if b.f != checkedFile {
                        guard Self.isDataFileName(b.f) else { throw damaged("block file \"\(b.f)\"") }
                        checkedFile = b.f
                    }
                    guard b.o >= 0, b.l > 0, b.l <= Self.maxBlockBytes, b.o <= Int.max - b.l, b.r >= 0, b.n > 0, b.n <= Int.max - b.r else {
                        throw damaged("block at \(b.o) of \(b.l) bytes in \"\(b.f)\"")
                    }
                }
            }
        }
    }

    /// No block is anywhere near this long (they aim at about 1 MB); a larger length is damage,
    /// not an allocation to attempt.
    public static let maxBlockBytes = 1 << 30
    /// A tail-buffer block is never larger than this (`Distributor.tailBufferSliceBytes`
    /// bounds it far lower).
    public static let maxInlineBlockBytes = 1 << 20

    /// `sliceN/name`: a file under one slice directory, nothing that leaves the data directory.
    static func isDataFileName(_ f: String) -> Bool {
        let u = f.utf8
        // One `/`, after a first part that starts with `slice`; a last part that is a name.
        guard u.starts(with: "slice".utf8), let slash = u.firstIndex(of: UInt8(ascii: "/")) else { return false }
        let last = u[u.index(after: slash)...]
        guard !last.isEmpty, !last.contains(UInt8(ascii: "/")),
              !last.elementsEqual(".".utf8), !last.elementsEqual("..".utf8) else { return false }
        return true
    }

    public func tableDef() throws -> TableDef {
        guard let ds = DistStyle(rawValue: distStyle), let sk = SortKeyKind(rawValue: sortKeyKind) else {
            throw SQLError(.ioError, "manifest entry of table \"\(name)\" is damaged")
        }
        try validate()
        var def = TableDef(id: id, schema: schema, name: name, columns: try columns.map { try $0.def() },
                           distStyle: ds, distKey: distKey, sortKey: sortKey, sortKeyKind: sk,
                           primaryKey: primaryKey, uniqueKeys: uniqueKeys, materializedView: materializedView?.def)
        def.database = database
        return def
    }

    /// The snapshot this entry describes, reading delete bitmaps through `readDeletes`.
    /// `validated`: `tableDef()` has just checked this entry (opening a database checks
    /// each entry once, not twice).
    public func snapshot(files: (String) -> BlockFile, readDeletes: (String) throws -> DeleteSet,
                         validated: Bool = false) throws -> TableSnapshot {
        if !validated { try validate() }
        let dist: EffectiveDistribution
        if placement == "all" { dist = .all } else if placement == "even" { dist = .even }
        else if placement.hasPrefix("key:"), let c = Int(placement.dropFirst(4)) { dist = .key(column: c) }
        else { throw SQLError(.ioError, "manifest entry of table \"\(name)\" has a bad placement") }
        let encs = try encodings?.map { raw -> ColumnEncoding in
            guard let e = ColumnEncoding(rawValue: raw) else { throw SQLError(.ioError, "manifest names an unknown encoding \"\(raw)\"") }
            return e
        }
        let sliceData = try slices.map { s -> SliceData in
            let cols = try s.columns.map { chain in
                try chain.map { b -> BlockRef in
                    guard let e = ColumnEncoding(rawValue: b.e) else { throw SQLError(.ioError, "manifest names an unknown encoding \"\(b.e)\"") }
                    let zone = ZoneMap(count: b.n, nullCount: b.z, min: b.low?.bound, max: b.high?.bound,
                                       blankEnded: b.tb ?? true)
                    let payload: BlockPayload
                    if let d = b.d {
                        guard let bytes = Data(base64Encoded: d), bytes.count == b.l else {
                            throw SQLError(.ioError, "manifest entry of table \"\(name)\" is damaged (a tail-buffer block is not"
                                + " \(b.l) bytes of base64)")
                        }
                        payload = .memory(EncodedBytes(Array(bytes)))
                    } else {
                        payload = .file(files(b.f), offset: b.o, length: b.l)
                    }
                    return BlockRef(uid: BlockIDs.make(), payload: payload, encoding: e, firstRow: b.r, zone: zone)
                }
            }
            // Every column's blocks must cover rows 0..<rows without gaps (the scanner relies on it).
            guard cols.count == columns.count, s.sorted >= 0, s.sorted <= s.rows else {
                throw SQLError(.ioError, "manifest entry of table \"\(name)\" is damaged (slice layout)")
            }
            for chain in cols {
                var next = 0
                for b in chain {
                    guard b.firstRow == next, b.zone.count > 0, b.zone.nullCount >= 0, b.zone.nullCount <= b.zone.count else {
                        throw SQLError(.ioError, "manifest entry of table \"\(name)\" is damaged (block rows)")
                    }
                    next = b.endRow
                }
                guard next == s.rows else {
                    throw SQLError(.ioError, "manifest entry of table \"\(name)\" is damaged (blocks cover \(next) of \(s.rows) rows)")
                }
            }
            let deleted = try s.deletes.map(readDeletes) ?? DeleteSet()
            return SliceData(rowCount: s.rows, sortedRows: s.sorted, columns: cols, deleted: deleted, deleteFile: s.deletes)
        }
        var snapshot = TableSnapshot(slices: sliceData, distribution: dist, evenCursor: evenCursor, encodings: encs,
                                     modifications: max(0, modifications ?? 0), analyzed: analyzed)
        snapshot.refreshState = refreshState
        snapshot.reorganizations = max(0, reorganizations ?? 0)
        return snapshot
    }

    /// Every file the entry names.
    public var fileNames: Set<String> {
        var out = Set<String>()
        for s in slices {
            for chain in s.columns { for b in chain where b.d == nil { out.insert(b.f) } }
            if let d = s.deletes { out.insert(d) }
        }
        return out
    }
}
