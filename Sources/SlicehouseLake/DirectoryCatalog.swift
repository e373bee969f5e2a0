// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseAWS
import SlicehousePlatform
import SlicehouseTypes

/// An external catalog kept in a directory (the data directory's `lake/`), for external
/// schemas without AWS: the same statements work, and what they register is laid out as
/// Glue would give it back.
///
/// - `<root>/<database>/database.json` — the `GlueDatabase`;
/// - `<root>/<database>/<table>.table.json` — the `GlueTable`;
/// - `<root>/<database>/<table>.partitions.json` — its `GluePartition`s.
///
/// Each file is replaced whole (written beside it, then renamed), so a crash leaves the old
/// definition or the new one. Database and table names are lower-cased identifiers of
/// letters, digits and `_` (as Glue keeps them), which keeps every path inside `root`.
/// One process uses a data directory at a time; a lock orders this process's calls.
public final class DirectoryCatalog: ExternalCatalog, @unchecked Sendable {
    public let root: String
    private let lock = Lock()

    public init(root: String) { self.root = root }

    // MARK: Databases

    public func database(_ name: String) throws -> GlueDatabase? {
        let n = try Self.checked(name)
        return try lock.withLock { try read(GlueDatabase.self, databaseFile(n)) }
    }

    public func createDatabase(_ database: GlueDatabase) throws {
        var d = database
        d.name = try Self.checked(database.name)
        try lock.withLock {
            guard try read(GlueDatabase.self, databaseFile(d.name)) == nil else { throw ExternalCatalogError.databaseExists(d.name) }
            try FileManager.default.createDirectory(atPath: directory(d.name), withIntermediateDirectories: true)
            try write(d, databaseFile(d.name))
        }
    }

    public func dropDatabase(_ name: String) throws {
        let n = try Self.checked(name)
        try lock.withLock {
            guard try read(GlueDatabase.self, databaseFile(n)) != nil else { throw ExternalCatalogError.noDatabase(n) }
            do {
                try FileManager.default.removeItem(atPath: directory(n))
            } catch {
                throw ExternalCatalogError.failed("could not remove external database \"\(n)\": \(error)")
            }
        }
    }

    // MARK: Tables

    public func tables(in database: String) throws -> [GlueTable] {
        let d = try Self.checked(database)
        return try lock.withLock {
            try requireDatabase(d)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory(d))) ?? []
            return try names.filter { $0.hasSuffix(Self.tableSuffix) }.sorted().compactMap {
                try read(GlueTable.self, directory(d) + "/" + $0)
            }
        }
    }

    public func table(_ database: String, _ name: String) throws -> GlueTable? {
        let d = try Self.checked(database), t = try Self.checked(name)
        return try lock.withLock { try read(GlueTable.self, tableFile(d, t)) }
    }

    public func createTable(_ database: String, _ table: GlueTable) throws {
        let (d, t) = try Self.checked(database, table)
        try lock.withLock {
            try requireDatabase(d)
            guard try read(GlueTable.self, tableFile(d, t.name)) == nil else {
                throw ExternalCatalogError.tableExists(database: d, table: t.name)
            }
            try write(t, tableFile(d, t.name))
        }
    }

    public func updateTable(_ database: String, _ table: GlueTable) throws {
        let (d, t) = try Self.checked(database, table)
        try lock.withLock {
            guard try read(GlueTable.self, tableFile(d, t.name)) != nil else {
                throw ExternalCatalogError.noTable(database: d, table: t.name)
            }
            try write(t, tableFile(d, t.name))
        }
    }

    public func dropTable(_ database: String, _ name: String) throws {
        let d = try Self.checked(database), t = try Self.checked(name)
        try lock.withLock {
            guard try read(GlueTable.self, tableFile(d, t)) != nil else { throw ExternalCatalogError.noTable(database: d, table: t) }
            // The partitions first: a crash between the two leaves a table without them, not the reverse.
            try? FileManager.default.removeItem(atPath: partitionsFile(d, t))
            do {
                try FileManager.default.removeItem(atPath: tableFile(d, t))
            } catch {
                throw ExternalCatalogError.failed("could not remove external table \"\(d).\(t)\": \(error)")
            }
        }
    }

    // MARK: Partitions

    public func partitions(_ database: String, _ table: String, columns: Bool) throws -> [GluePartition] {
        let d = try Self.checked(database), t = try Self.checked(table)
        return try lock.withLock {
            try requireTable(d, t)
            return try read([GluePartition].self, partitionsFile(d, t)) ?? []
        }
    }

    public func addPartitions(_ database: String, _ table: String, _ partitions: [GluePartition], ignoreExisting: Bool) throws {
        let d = try Self.checked(database), t = try Self.checked(table)
        try lock.withLock {
            let def = try requireTable(d, t)
            let keys = def.partitionKeys?.count ?? 0
            var all = try read([GluePartition].self, partitionsFile(d, t)) ?? []
            var known = Set(all.map(\.values))
            for p in partitions {
                guard p.values.count == keys else {
                    throw ExternalCatalogError.failed("partition (\(p.values.joined(separator: ", "))) of \"\(d).\(t)\" has \(p.values.count) values; the table has \(keys) partition columns")
                }
                if known.contains(p.values) {
                    if ignoreExisting { continue }
                    throw ExternalCatalogError.partitionExists(table: "\(d).\(t)", values: p.values)
                }
                known.insert(p.values)
                all.append(p)
            }
            try write(all, partitionsFile(d, t))
        }
    }

    public func dropPartitions(_ database: String, _ table: String, _ values: [[String]]) throws {
        let d = try Self.checked(database), t = try Self.checked(table)
        try lock.withLock {
            try requireTable(d, t)
            let gone = Set(values)
            let all = try read([GluePartition].self, partitionsFile(d, t)) ?? []
            try write(all.filter { !gone.contains($0.values) }, partitionsFile(d, t))
        }
    }

    // MARK: Files

    static let tableSuffix = ".table.json"

    /// `name` lower-cased, when it is an identifier of letters, digits and `_` (at most
    /// 127 bytes): never a path of its own.
    static func checked(_ name: String) throws -> String {
        let n = name.lowercased()
        guard !n.isEmpty, n.utf8.count <= 127,
              n.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }) else {
            throw ExternalCatalogError.invalidName(name)
        }
        return n
    }

    /// The database's name checked, and the table with its names checked and its database set.
    static func checked(_ database: String, _ table: GlueTable) throws -> (String, GlueTable) {
        var t = table
        t.databaseName = try checked(database)
        t.name = try checked(table.name)
        return (t.databaseName ?? "", t)
    }

    private func directory(_ database: String) -> String { root + "/" + database }
    private func databaseFile(_ database: String) -> String { directory(database) + "/database.json" }
    private func tableFile(_ d: String, _ t: String) -> String { directory(d) + "/" + t + Self.tableSuffix }
    private func partitionsFile(_ d: String, _ t: String) -> String { directory(d) + "/" + t + ".partitions.json" }

    private func requireDatabase(_ d: String) throws {
        guard try read(GlueDatabase.self, databaseFile(d)) != nil else { throw ExternalCatalogError.noDatabase(d) }
    }

    @discardableResult
    private func requireTable(_ d: String, _ t: String) throws -> GlueTable {
        try requireDatabase(d)
        guard let def = try read(GlueTable.self, tableFile(d, t)) else { throw ExternalCatalogError.noTable(database: d, table: t) }
        return def
    }

    /// The file's value, or nil when there is no such file.
    private func read<T: Decodable>(_ type: T.Type, _ path: String) throws -> T? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            throw ExternalCatalogError.failed("the external catalog file \"\(path)\" cannot be read: \(error)")
        }
    }

    /// Replace the file whole: written beside it, flushed, then renamed over it.
    private func write<T: Encodable>(_ value: T, _ path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        do {
            let data = try encoder.encode(value)
            let temporary = path + ".tmp"
            guard FileManager.default.createFile(atPath: temporary, contents: data) else {
                throw ExternalCatalogError.failed("could not write \"\(temporary)\"")
            }
            let fd = open(temporary, O_RDONLY)
            if fd >= 0 { _ = fsync(fd); close(fd) }
            guard rename(temporary, path) == 0 else {
                throw ExternalCatalogError.failed("could not replace \"\(path)\": \(String(cString: strerror(errno)))")
            }
        } catch let e as ExternalCatalogError {
            throw e
        } catch {
            throw ExternalCatalogError.failed("could not write \"\(path)\": \(error)")
        }
    }
}
