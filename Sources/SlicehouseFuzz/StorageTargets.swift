// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseCatalog
import SlicehouseEngine
import SlicehouseStorage
import SlicehouseTypes

/// The storage readers: `manifest` (the catalog and block list of a data directory),
/// `deletes` (a deleted-row file) and `block` (one encoded column block).
///
/// `manifest` and `deletes` work against a template database written once per
/// process into the scratch directory (`StorageTemplate`): two tables with every
/// column type in many encodings, several blocks per column, deleted rows and a view.
enum StorageFuzzTargets {
    static let maxLength = 64 << 10

    /// `manifest`: the input as the contents of `manifest.json` (a format-1 manifest is
    /// plain JSON) or, when `Manifest.decode` refuses it as it is, as the manifest JSON
    /// inside a checksummed envelope made for it (the current format; without that, every
    /// mutation would stop at the checksum). Then per table its definition, its snapshot
    /// (block references over the template's block files, deleted-row files read like the
    /// engine reads them) and a scan of every row and column; then the same file in a copy
    /// of the template directory opened as a `Database`, every table and view queried and
    /// changed.
    static let manifest = FuzzTarget(
        name: "manifest", summary: "manifest.json: decode, table snapshots, scans, opening a database directory",
        maxLength: maxLength,
        dictionary: ["{", "}", "[", "]", ":", ",", "\"", "null", "true", "false", "-1", "0", "9223372036854775807",
                     "\"formatVersion\"", "\"generation\"", "\"tables\"", "\"views\"", "\"slices\"", "\"columns\"",
                     "\"deletes\"", "\"rows\"", "\"sorted\"", "\"f\"", "\"o\"", "\"l\"", "\"e\"", "\"r\"", "\"n\"", "\"z\"",
                     "\"lo\"", "\"hi\"", "\"d\"", "\"placement\"", "\"key:0\"", "\"all\"", "\"even\"", "\"encodings\"",
                     "\"distKey\"", "\"sortKey\"", "\"type\"", "\"precision\"", "\"scale\"", "\"varchar\"", "\"decimal\"",
                     "\"char\"", "\"identityNext\"", "\"bytedict\"", "\"runlength\"", "\"az64\"", "\"zstd\"", "\"query\""],
        seeds: { StorageTemplate.shared.map { [$0.manifestJSON, $0.manifestFile] } ?? [] },
        body: { runManifest($0) })

    /// `deletes`: the input as the template's first deleted-row file, read when the
    /// template directory is opened as a `Database` (the table is then queried and
    /// changed): as it is (magic, length, checksum, zstd frame), as the payload of such
    /// a file with a valid header and checksum made for it, and as a `.del` file of the
    /// format before checksums (a bare zstd frame). The last two get mutated bytes past
    /// the checksum to the decompression and the bitmap.
    static let deletes = FuzzTarget(
        name: "deletes", summary: "deleted-row files (checksummed and legacy zstd bitmaps) read when a database opens",
        maxLength: maxLength, dictionary: ["SHDEL002"], binaryDictionary: [[0x28, 0xB5, 0x2F, 0xFD]],
        seeds: {
            // The files, and their payloads (after the 20-byte header: magic, length, checksum).
            guard let files = StorageTemplate.shared?.deleteFiles else { return [] }
            return files.map(\.bytes) + files.map { Array($0.bytes.dropFirst(20)) }
        },
        body: { runDeletes($0) })

    /// `block`: the input as an encoded column block, decoded (`BlockEncoder.decode`) as
    /// every column type with every encoding, and filtered on its encoding
    /// (`EncodedPredicate.matches`); first as given, then with the header's body length and
    /// checksum made to match the bytes, so that mutations get past the checksum.
    static let block = FuzzTarget(
        name: "block", summary: "column blocks: header, NULL bitmap, every encoding's decoder, encoded filters",
        maxLength: maxLength,
        dictionary: ["SHEB"],
        binaryDictionary: (0...12).map { [UInt8($0)] } + [[0xFF, 0xFF, 0xFF, 0x7F], [0, 0, 0, 4], [0x28, 0xB5, 0x2F, 0xFD]],
        seeds: { blockSeeds() },
        body: { runBlock($0) })

    // MARK: manifest

    static func runManifest(_ bytes: UnsafeRawBufferPointer) -> String {
        guard bytes.count <= maxLength else { return "skipped: too long" }
        guard let template = StorageTemplate.shared else { return "no template" }
        var input = Array(bytes)
        var outcomes: [String] = []
        let manifest: Manifest
        do {
            manifest = try Manifest.decode(input, path: "manifest.json")
        } catch {
            outcomes.append("as is: " + Outcome.of(error))
            input = envelope(input)
            do {
                manifest = try Manifest.decode(input, path: "manifest.json")
            } catch {
                outcomes.append("in an envelope: " + Outcome.of(error))
                return Outcome.combine(outcomes)
            }
        }
        // In process: definitions, snapshots, full scans.
        let cache = BlockCache(capacityBytes: 1 << 20)
        for table in manifest.tables {
            do {
                let def = try table.tableDef()
                let snapshot = try table.snapshot(files: { BlockFile(name: $0, directory: template.directory) },
                                                  readDeletes: { try template.readDeletes($0) })
                let parts = snapshot.slices.enumerated().map { (slice: $0.offset, data: $0.element) }
                let chunks = try SliceScanner.readAll(parts, types: def.columns.map(\.type), cache: cache)
                outcomes.append(Outcome.ok(rows: chunks.reduce(0) { $0 + $1.count }))
            } catch {
                outcomes.append(Outcome.of(error))
            }
        }
        // The engine's own path: open a directory holding this manifest.
        outcomes.append(template.withCopy(manifest: input, replacing: nil) { database in
            queryEverything(database)
        })
        return Outcome.combine(outcomes)
    }

    /// `json` in the envelope of a format-2 `manifest.json` (see `Manifest.fileBytes`),
    /// with the checksum it needs.
    static func envelope(_ json: [UInt8]) -> [UInt8] {
        let sum = String(json.withUnsafeBytes { storageChecksum($0) }, radix: 16)
        let hex = String(repeating: "0", count: 8 - sum.count) + sum
        return Array(#"{"checksum":""#.utf8) + Array(hex.utf8) + Array(#"","manifest":"#.utf8) + json + [UInt8(ascii: "}")]
    }

    /// Query every table and view of `database` (a count, every row; when `thorough`,
    /// each column filtered on NULL, which zone maps answer), then change each table
    /// (when `thorough`, INSERT its rows again, which places them by its distribution and
    /// sort keys; DELETE some, which writes a new deleted-row file from the one read).
    static func queryEverything(_ database: Database, thorough: Bool = true) -> String {
        let session = database.connect()
        var outcomes: [String] = []
        var statements: [String] = []
        let tables = database.committedCatalog.allTables
        for name in tables.map(\.name) + database.committedCatalog.allViews.map(\.name) {
            statements += ["SELECT count(*) FROM \"\(name)\"", "SELECT * FROM \"\(name)\""]
        }
        for table in tables {
            if thorough {
                for column in table.columns {
                    statements.append("SELECT count(*) FROM \"\(table.name)\" WHERE \"\(column.name)\" IS NULL")
                }
                statements.append("INSERT INTO \"\(table.name)\" SELECT * FROM \"\(table.name)\"")
            }
            if let first = table.columns.first {
                statements.append("DELETE FROM \"\(table.name)\" WHERE \"\(first.name)\" IS NOT NULL")
            }
        }
        for sql in statements {
            do {
                let results = try session.execute(sql)
                outcomes.append(Outcome.ok(rows: results.reduce(0) { $0 + $1.rowCount }))
            } catch {
                outcomes.append(Outcome.of(error))
            }
        }
        return Outcome.combine(outcomes)
    }

    // MARK: deletes

    static func runDeletes(_ bytes: UnsafeRawBufferPointer) -> String {
        guard bytes.count <= maxLength else { return "skipped: too long" }
        guard let template = StorageTemplate.shared, let target = template.deleteFiles.first else { return "no template" }
        let input = Array(bytes)
        let asIs = template.withCopy(manifest: nil, replacing: (target.name, input)) {
            queryEverything($0, thorough: false)
        }
        let wrapped = template.withCopy(manifest: nil, replacing: (target.name, deleteFileHeader(input) + input)) {
            queryEverything($0, thorough: false)
        }
        let legacy = template.withCopy(manifest: template.legacyDeleteManifest,
                                       replacing: (template.legacyDeleteName, input)) { queryEverything($0, thorough: false) }
        return "as is: " + asIs + " wrapped: " + wrapped + " legacy: " + legacy
    }

    /// The header of a deleted-row file holding `payload` (magic, length, checksum; see
    /// `DeleteFile`).
    static func deleteFileHeader(_ payload: [UInt8]) -> [UInt8] {
        var out = Array("SHDEL002".utf8)
        withUnsafeBytes(of: UInt64(payload.count).littleEndian) { out.append(contentsOf: $0) }
        withUnsafeBytes(of: payload.withUnsafeBytes { storageChecksum($0) }.littleEndian) { out.append(contentsOf: $0) }
        return out
    }

    // MARK: block

    /// Column types tried on every block (one of each kind and width the decoders care about).
    static let blockTypes: [DataType] = FuzzSampleData.columns.map(\.type) + [.varchar(65535)]

    static func runBlock(_ bytes: UnsafeRawBufferPointer) -> String {
        guard bytes.count <= maxLength else { return "skipped: too long" }
        var outcomes = [decodeAll(bytes)]
        var fixed = Array(bytes)
        if BlockChecksum.fix(&fixed) {
            outcomes.append(fixed.withUnsafeBytes { decodeAll($0) })
        }
        return Outcome.combine(outcomes)
    }

    /// Decode `bytes` as every type and encoding; the outcomes of the attempts that got
    /// past the header's encoding and type check.
    static func decodeAll(_ bytes: UnsafeRawBufferPointer) -> String {
        var outcomes: [String] = []
        for type in blockTypes {
            for encoding in ColumnEncoding.allCases {
                do {
                    let v = try BlockEncoder.decode(bytes, type: type, encoding: encoding)
                    outcomes.append(Outcome.ok(rows: v.count, encoding.rawValue))
                    for op in CompareOp.allCases {
                        for constant in constants(for: type) {
                            _ = try EncodedPredicate.matches(bytes, type: type, encoding: encoding, op: op, constant: constant)
                        }
                    }
                } catch let e as SQLError where e.message.contains("block is encoded") || e.message.contains("values, column type") {
                    continue  // not this encoding or type: the header check, the same for every input
                } catch {
                    outcomes.append(Outcome.of(error))
                }
            }
        }
        return outcomes.isEmpty ? "header" : Outcome.combine(outcomes)
    }

    /// Filter constants in `type`'s physical form (NULL, small, extreme, another kind).
    static func constants(for type: DataType) -> [Value] {
        switch type.physical {
        case .int64: return [.int(0), .int(Int64.min), .int(1000), .null]
        case .int128: return [.int128(0), .int(-5), .int128(Int128(Int64.max) * 4)]
        case .double: return [.double(0.5), .double(.nan), .int(2)]
        case .bool: return [.bool(true)]
        case .string: return [.string(""), .string("beta"), .string("\u{10FFFF}")]
        }
    }

    /// Blocks of the sample rows in every encoding their kind allows, whole and in parts
    /// (a part of only NULLs, a single row, an empty block).
    static func blockSeeds() -> [[UInt8]] {
        let chunk = FuzzSampleData.chunk()
        var out: [[UInt8]] = []
        for (c, column) in FuzzSampleData.columns.enumerated() {
            let v = chunk.columns[c]
            for encoding in ColumnEncoding.allCases where BlockEncoder.canEncode(encoding, physical: column.type.physical) {
                for (start, count) in [(0, FuzzSampleData.rowCount), (3, 1), (0, 0), (10, 7)] {
                    if let bytes = try? BlockEncoder.encode(v, start: start, count: count, encoding: encoding) {
                        out.append(bytes)
                    }
                }
            }
        }
        // The checksum copy must agree with the storage layer's; say so loudly if it drifts.
        for seed in out.prefix(3) {
            var copy = seed
            precondition(!BlockChecksum.fix(&copy) || copy == seed,
                         "block fuzz target: BlockChecksum no longer matches SlicehouseStorage's blockChecksum")
        }
        return out
    }
}

/// The block checksum of `SlicehouseStorage` (BlockBytes.swift's `blockChecksum`, which
/// is internal), copied so the `block` target can repair mutated headers.
/// `StorageFuzzTargets.blockSeeds` checks that the copy still agrees.
enum BlockChecksum {
    /// When `block` is long enough to have a header: set its body length to the bytes
    /// present and its checksum to theirs; returns whether it changed anything.
    static func fix(_ block: inout [UInt8]) -> Bool {
        guard block.count >= 20 else { return false }
        let before = block
        let body = UInt32(truncatingIfNeeded: block.count - 20)
        for k in 0..<4 { block[12 + k] = UInt8(truncatingIfNeeded: body >> UInt32(8 * k)) }
        let sum = block.withUnsafeBytes { raw in
            checksum(UnsafeRawBufferPointer(rebasing: raw[4..<16]), UnsafeRawBufferPointer(rebasing: raw[20...]))
        }
        for k in 0..<4 { block[16 + k] = UInt8(truncatingIfNeeded: sum >> UInt32(8 * k)) }
        return block != before
    }

    static func checksum(_ parts: UnsafeRawBufferPointer...) -> UInt32 {
        var a: UInt64 = 0x9E37_79B9_7F4A_7C15, b: UInt64 = 0xC2B2_AE3D_27D4_EB4F
        var c: UInt64 = 0x1656_67B1_9E37_79F9, d: UInt64 = 0x27D4_EB2F_1656_67C5
        let m: UInt64 = 0x9FB2_1C65_1E98_DF25
        func rotl(_ x: UInt64, _ k: UInt64) -> UInt64 { (x << k) | (x >> (64 - k)) }
        var total = 0
        for p in parts {
            let n = p.count
            total &+= n
            guard n > 0, let base = p.baseAddress else { continue }
            var i = 0
            while i + 32 <= n {
                a = rotl((a ^ base.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* m, 29)
                b = rotl((b ^ base.loadUnaligned(fromByteOffset: i + 8, as: UInt64.self)) &* m, 29)
                c = rotl((c ^ base.loadUnaligned(fromByteOffset: i + 16, as: UInt64.self)) &* m, 29)
                d = rotl((d ^ base.loadUnaligned(fromByteOffset: i + 24, as: UInt64.self)) &* m, 29)
                i += 32
            }
            while i + 8 <= n {
                a = rotl((a ^ base.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* m, 29)
                i += 8
            }
            var tail: UInt64 = 0
            var shift: UInt64 = 0
            while i < n { tail |= UInt64(base.load(fromByteOffset: i, as: UInt8.self)) << shift; shift += 8; i += 1 }
            b = rotl((b ^ tail ^ UInt64(n)) &* m, 29)
            c = rotl((c ^ UInt64(total)) &* m, 31)
        }
        var h = a ^ rotl(b, 17) ^ rotl(c, 34) ^ rotl(d, 51) ^ UInt64(total)
        h = (h ^ (h >> 30)) &* 0xBF58_476D_1CE4_E5B9
        h = (h ^ (h >> 27)) &* 0x94D0_49BB_1331_11EB
        h ^= h >> 31
        return UInt32(truncatingIfNeeded: h ^ (h >> 32))
    }
}
