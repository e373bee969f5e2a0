// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Foundation
import SlicehouseAWS
import SlicehouseCatalog
import SlicehouseParquet
import SlicehouseRuntime
import SlicehouseStorage
import SlicehouseTypes

/// An external table's files read for a query (Redshift Spectrum's S3 scan), with the
/// machinery COPY uses: listings, ranged GETs, parallel Parquet row groups and text ranges.
///
/// A query reads only the columns it needs; Parquet columns are found **by name** (a file
/// without one reads NULL there), and a row group whose footer statistics rule out the
/// query's predicates is not fetched at all. Text files are read as COPY reads them with
/// the options the table's SerDe stands for, each object's compression told by its name.
public enum ExternalFileReader {
    /// How the files hold rows.
    public enum Format: Sendable {
        /// Parquet, columns found by name — or, with `fieldIDs` (one per column: an Iceberg
        /// table's), by the files' field ids when they carry them.
        case parquet(fieldIDs: [Int]? = nil)
        /// Delimited text, CSV or JSON: COPY's reading with these options.
        case text(CopyOptions)
    }

    /// What a read did (SVL_S3QUERY_SUMMARY's figures).
    public struct Summary: Sendable, Equatable {
        /// Objects opened.
        public var files = 0
        /// Bytes of the objects read (as stored; for Parquet, the column chunks fetched).
        public var bytes = 0
        public var rows = 0
        public var rowGroupsSkipped = 0
        public init() {}
    }

    /// Whether a Parquet row group may hold wanted rows: the file, the group and the file
    /// column each wanted column reads (nil: the file has none of that name).
    public typealias RowGroupTest = @Sendable (ParquetFile, Int, [Int?]) -> Bool

    /// Read `groups` of objects (an external table's partitions, or single objects when a
    /// query asks for `$path`) into chunks of `columns`, handed to `consume` with their
    /// group's index, (Parquet) the position of its first row in its file (-1 for text) and,
    /// when the external file cache knows them, its columns' zone maps,
    /// in no particular order across groups. `table` names the table in errors.
    public static func read(table: String, columns: [ColumnDef], groups: [[CopyObject]], format: Format,
                            keepRowGroup: RowGroupTest? = nil, inputs: CopyInputs, context: QueryContext,
                            consume: (_ group: Int, _ firstRow: Int64, _ chunk: Chunk, _ zones: [ZoneMap]?) throws -> Void) throws -> Summary {
        var summary = Summary()
        let objects = groups.flatMap { $0 }
        if objects.isEmpty { return summary }
        switch format {
        case .parquet(let ids):
            var groupOf: [Int] = []
            for (g, objs) in groups.enumerated() { groupOf += Array(repeating: g, count: objs.count) }
            var options = CopyOptions()
            options.format = .parquet
            let result = try ParquetLoader.stream(table: table, targets: columns, indices: Array(columns.indices),
                                                  objects: objects, inputs: inputs, options: options, tuning: CopyTuning(),
                                                  mapping: .name(keep: keepRowGroup, chunkRows: 1 << 17, fieldIDs: ids),
                                                  progress: nil, context: context) { pieces in
                for p in pieces { try consume(groupOf[p.object], p.firstRow, p.chunk, p.zones) }
            }
            summary.files = objects.count
            summary.bytes = result.bytesRead
            summary.rows = result.rowCount
            summary.rowGroupsSkipped = result.rowGroupsSkipped
        case .text(let base):
            for (g, objs) in groups.enumerated() where !objs.isEmpty {
                // Each compression read apart: COPY's options name one for all its files.
                var byCompression: [CopyOptions.Compression: [CopyObject]] = [:]
                for o in objs { byCompression[compression(of: o.name), default: []].append(o) }
                for (kind, list) in byCompression.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                    var options = base
                    options.compression = kind
                    let result = try CopyLoader.stream(table: table, columns: columns, columnList: nil, objects: { list },
                                                       options: options, tuning: CopyTuning(), inputs: inputs, progress: nil,
                                                       mergePieces: true, context: context) { chunks in
                        for c in chunks { try consume(g, -1, c, nil) }
                    }
                    summary.files += list.count
                    summary.bytes += list.reduce(0) { $0 + $1.size }
                    summary.rows += result.rowCount
                }
            }
        }
        return summary
    }

    /// The compression an object's name tells (Spectrum reads `.gz`, `.bz2`, `.zst` so).
    static func compression(of name: String) -> CopyOptions.Compression {
        let lower = name.lowercased()
        if lower.hasSuffix(".gz") || lower.hasSuffix(".gzip") { return .gzip }
        if lower.hasSuffix(".bz2") { return .bzip2 }
        if lower.hasSuffix(".zst") || lower.hasSuffix(".zstd") { return .zstd }
        return .none
    }

    /// The data files under an external table's or partition's `location` (an `s3://` or
    /// `file://` folder, or a local path), in key order: every object below it, in
    /// subfolders too, except those Spectrum leaves out — names starting with `.`, `_` or
    /// `#` or ending with `~`, and folder markers. A folder that does not exist holds none.
    /// Local files are checked against `inputs.access`.
    public static func list(_ location: String, inputs: CopyInputs, listing: Listing? = nil) throws -> [CopyObject] {
        var folder = location
        if !folder.hasSuffix("/") { folder += "/" }
        if folder.lowercased().hasPrefix("s3://") {
            guard let prefix = S3Location(folder) else { throw S3Location.invalid(location) }
            return try (listing?.objects() ?? CopySource.listS3(prefix, source: location, inputs: inputs))
                .filter { isDataFile(String($0.key.dropFirst(prefix.key.count))) }
                .map { CopyObject(.s3(prefix.sibling($0.key)), size: $0.size, version: $0.etag) }
        }
        let path = try CopySource.localPath(folder, literal: true)
        let checked = inputs.access != .unrestricted
        if checked { _ = try inputs.access.authorizeReadPrefix(path) }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else { return [] }
        let base = path.hasSuffix("/") ? String(path.dropLast()) : path
        var out: [CopyObject] = []
        for file in CopySource.filesBelow(base).sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        where isDataFile(String(file.dropFirst(base.count + 1))) {
            if checked { _ = try inputs.access.authorizeRead(file) }
            out.append(CopyObject(.local(file), size: CopySource.fileSize(file)))
        }
        return out
    }

    /// The data files of several partitions' `locations` (as `list`), one list per location.
    /// When many of them lie in folders under the table's own `tableLocation` on S3, the
    /// table's folder is listed once (a page per 1,000 objects) instead of each partition's
    /// — a query that reads most of a table's partitions pays a few requests, not one per
    /// partition.
    ///
    /// `listing`, when given, is the table folder's listing made beforehand (`Listing`,
    /// started while the catalog was asked for the partitions).
    public static func list(_ locations: [String], tableLocation: String, inputs: CopyInputs,
                            listing: Listing? = nil) throws -> [[CopyObject]] {
        func folder(_ s: String) -> String { s.hasSuffix("/") ? s : s + "/" }
        let base = folder(tableLocation)
        let under = locations.allSatisfy { folder($0).hasPrefix(base) && folder($0) != base }
        guard locations.count >= 8, under, base.lowercased().hasPrefix("s3://"), let prefix = S3Location(base) else {
            return try locations.map { try list($0, inputs: inputs) }
        }
        let all = try listing?.objects() ?? CopySource.listS3(prefix, source: base, inputs: inputs)
        // Each object to the partition whose folder is the longest prefix of its key.
        var slots: [String: Int] = [:]
        for (i, l) in locations.enumerated() {
            guard let loc = S3Location(folder(l)), loc.bucket == prefix.bucket else { return try locations.map { try list($0, inputs: inputs) } }
            slots[loc.key] = i
        }
        var out = [[CopyObject]](repeating: [], count: locations.count)
        for o in all {
            var end = o.key.endIndex
            while let slash = o.key[..<end].lastIndex(of: "/") {
                let folderKey = String(o.key[...slash])
                if let i = slots[folderKey] {
                    if isDataFile(String(o.key.dropFirst(folderKey.count))) {
                        out[i].append(CopyObject(.s3(prefix.sibling(o.key)), size: o.size, version: o.etag))
                    }
                    break
                }
                end = slash
            }
        }
        return out
    }

    /// An S3 folder's listing made on a thread of its own, so that it overlaps other
    /// requests (the catalog's partitions, other tables' listings); `objects()` waits for it.
    public final class Listing: @unchecked Sendable {
        private let done = DispatchSemaphore(value: 0)
        private var result: Result<[S3Object], Error> = .success([])

        /// Start listing `location` (an `s3://` folder); nil for a local one.
        public init?(_ location: String, inputs: CopyInputs) {
            let folder = location.hasSuffix("/") ? location : location + "/"
            guard folder.lowercased().hasPrefix("s3://"), let prefix = S3Location(folder) else { return nil }
            DispatchQueue.global().async { [self] in
                result = Result { try CopySource.listS3(prefix, source: location, inputs: inputs) }
                done.signal()
            }
        }

        public func objects() throws -> [S3Object] {
            done.wait()
            done.signal()   // later callers do not wait
            return try result.get()
        }
    }

    /// One file named by its address (an Iceberg manifest's data or delete file): `s3://`
    /// or a local path (`file://`), checked against `inputs.access`.
    public static func object(_ address: String, size: Int, inputs: CopyInputs) throws -> CopyObject {
        if address.lowercased().hasPrefix("s3://") {
            guard let location = S3Location(address) else { throw S3Location.invalid(address) }
            return CopyObject(.s3(location), size: size)
        }
        let path = try CopySource.localPath(address, literal: true)
        if inputs.access != .unrestricted { _ = try inputs.access.authorizeRead(path) }
        return CopyObject(.local(path), size: size > 0 ? size : CopySource.fileSize(path))
    }

    /// Whether a path below a table's folder names a data file (no part of it hidden).
    static func isDataFile(_ relative: String) -> Bool {
        let parts = relative.split(separator: "/", omittingEmptySubsequences: true)
        guard let last = parts.last, !relative.hasSuffix("/"), !last.hasSuffix("$folder$") else { return false }
        for p in parts {
            if p.hasPrefix(".") || p.hasPrefix("_") || p.hasPrefix("#") || p.hasSuffix("~") { return false }
        }
        return true
    }
}
