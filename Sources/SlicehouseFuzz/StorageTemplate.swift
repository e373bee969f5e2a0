// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseEngine
import SlicehouseStorage
import SlicehouseTypes

/// A small database written once per process into the scratch directory, for the
/// `manifest` and `deletes` targets: its manifest and deleted-row files are their seeds, its block and
/// deleted-row files are what mutated manifests point into, and `withCopy` opens a
/// copy of it with one file replaced.
///
/// Layout: 1 node × 2 slices, 1 KB blocks (so columns have several blocks); table
/// `m` holds every column type in a different encoding, loaded by three INSERTs (written
/// to block files by a VACUUM) with some rows deleted afterwards; table `n` is DISTSTYLE
/// ALL, with one row in its tail buffer (blocks inside the manifest); view `mv` reads `m`.
final class StorageTemplate: Sendable {
    /// The template directory (never opened as a database again: copies are).
    let directory: String
    /// Its manifest: the JSON (`Manifest.encoded()`, the `manifest` target's seed) and
    /// the bytes of `manifest.json` (`Manifest.fileBytes()`: the JSON in a checksummed
    /// envelope).
    let manifestJSON: [UInt8]
    let manifestFile: [UInt8]
    /// Its deleted-row files: name (relative to the directory, as the manifest names
    /// them) and contents.
    let deleteFiles: [(name: String, bytes: [UInt8])]
    /// The manifest with the first deleted-row file renamed to `legacyDeleteName`, a
    /// `.del` file: the format before checksums (a bare zstd frame), still read.
    let legacyDeleteManifest: [UInt8]
    let legacyDeleteName: String
    /// Every file of the template except the manifest and LOCK, relative names.
    let files: [String]

    /// The template, written on first use; nil (with a message on standard error) when
    /// it cannot be written.
    static let shared: StorageTemplate? = {
        do {
            return try StorageTemplate(directory: FuzzScratch.path("template-db"))
        } catch {
            FileHandle.standardError.write(Data("slicehouse fuzz: cannot write the template database: \(error)\n".utf8))
            return nil
        }
    }()

    static let cluster = ClusterConfig(nodes: 1, slicesPerNode: 2)

    /// The statements that fill the template.
    static var statements: [String] {
        let types = FuzzSampleData.columns
        let encodings = ["mostly8", "delta", "az64", "delta32k", "raw", "bytedict", "runlength", "raw", "lzo", "text255",
                         "az64", "zstd"]
        let columnSQL = zip(types, encodings).map { "\($0.0.name) \($0.0.type.sqlName) ENCODE \($0.1)" }
        var out = ["CREATE TABLE m (\(columnSQL.joined(separator: ", "))) DISTKEY(i32) SORTKEY(day)"]
        for part in 0..<3 {
            let rows = (0..<FuzzSampleData.rowCount).map { row -> String in
                let values = types.indices.map { c -> String in
                    guard let text = FuzzSampleData.value(row: (row + part * 5) % FuzzSampleData.rowCount, column: c)
                        .formatted(as: types[c].type) else { return "NULL" }
                    return "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "''") + "'"
                }
                return "(" + values.joined(separator: ", ") + ")"
            }
            out.append("INSERT INTO m VALUES " + rows.joined(separator: ", "))
        }
        // Small appends stay in the tail buffer (blocks inside the manifest): VACUUM writes
        // them to block files, and one row of n stays held (a block with `d`).
        out.append("VACUUM m")
        out.append("DELETE FROM m WHERE i32 % 3000 = 0 OR flag")
        out.append("CREATE TABLE n (k integer ENCODE runlength, v varchar(8) ENCODE bytedict) DISTSTYLE ALL")
        out.append("INSERT INTO n VALUES (1, 'a'), (1, 'a'), (2, NULL), (NULL, 'zz')")
        out.append("VACUUM n")
        out.append("INSERT INTO n VALUES (3, 'held')")
        out.append("CREATE VIEW mv AS SELECT i32, name FROM m WHERE day > '2000-01-01'")
        return out
    }

    private init(directory: String) throws {
        self.directory = directory
        let fm = FileManager.default
        try? fm.removeItem(atPath: directory)
        do {
            let database = try Database(directory: directory, cluster: Self.cluster, blockBytes: 1024)
            let session = database.connect()
            for statement in Self.statements { _ = try session.execute(statement) }
        }
        let canonical = try Self.canonicalize(directory)
        self.manifestJSON = try canonical.encoded()
        self.manifestFile = try canonical.fileBytes()
        var files: [String] = []
        for entry in try fm.contentsOfDirectory(atPath: directory).sorted() {
            let full = (directory as NSString).appendingPathComponent(entry)
            var isDirectory: ObjCBool = false
            guard fm.fileExists(atPath: full, isDirectory: &isDirectory) else { continue }
            if isDirectory.boolValue {
                for f in try fm.contentsOfDirectory(atPath: full).sorted() { files.append(entry + "/" + f) }
            } else if entry != Manifest.fileName && entry != "LOCK" {
                files.append(entry)
            }
        }
        self.files = files
        // The deleted-row files, as the manifest names them.
        var parsed = canonical
        var deletes: [(String, [UInt8])] = []
        var legacyName = ""
        for t in parsed.tables.indices {
            for s in parsed.tables[t].slices.indices {
                guard let name = parsed.tables[t].slices[s].deletes,
                      let bytes = FuzzScratch.read((directory as NSString).appendingPathComponent(name)) else { continue }
                if deletes.isEmpty {
                    legacyName = (name as NSString).deletingPathExtension + ".del"
                    parsed.tables[t].slices[s].deletes = legacyName
                }
                deletes.append((name, bytes))
            }
        }
        guard !deletes.isEmpty else { throw SQLError(.ioError, "the template database has no deleted-row file") }
        self.deleteFiles = deletes
        self.legacyDeleteName = legacyName
        self.legacyDeleteManifest = try parsed.fileBytes()
    }

    /// Rewrite the template's block files with their blocks in manifest order, and the
    /// manifest with the new offsets; returns the new manifest. The engine encodes columns in
    /// parallel and appends blocks to a file in whatever order they finish, so without
    /// this every process would get different offsets, and a manifest saved by one
    /// process (a crash, a corpus file) would point elsewhere in the next one.
    static func canonicalize(_ directory: String) throws -> Manifest {
        let manifestPath = (directory as NSString).appendingPathComponent(Manifest.fileName)
        guard let original = FuzzScratch.read(manifestPath) else {
            throw SQLError(.ioError, "the template database has no manifest")
        }
        var manifest = try Manifest.decode(original, path: manifestPath)
        var oldContents: [String: [UInt8]] = [:]
        var newContents: [String: [UInt8]] = [:]
        for t in manifest.tables.indices {
            for s in manifest.tables[t].slices.indices {
                for c in manifest.tables[t].slices[s].columns.indices {
                    for b in manifest.tables[t].slices[s].columns[c].indices {
                        let block = manifest.tables[t].slices[s].columns[c][b]
                        if block.d != nil { continue }   // a tail-buffer block: its bytes are in the manifest
                        if oldContents[block.f] == nil {
                            oldContents[block.f] = FuzzScratch.read((directory as NSString).appendingPathComponent(block.f)) ?? []
                        }
                        let old = oldContents[block.f] ?? []
                        guard block.o >= 0, block.l >= 0, block.o <= old.count - block.l else {
                            throw SQLError(.ioError, "the template's block \(block.f)@\(block.o) is outside its file")
                        }
                        manifest.tables[t].slices[s].columns[c][b].o = newContents[block.f, default: []].count
                        newContents[block.f, default: []].append(contentsOf: old[block.o..<(block.o + block.l)])
                    }
                }
            }
        }
        for (name, bytes) in newContents {
            try FuzzScratch.write(bytes, to: (directory as NSString).appendingPathComponent(name))
        }
        try FuzzScratch.write(try manifest.fileBytes(), to: manifestPath)
        return manifest
    }

    /// Read a deleted-row file of the template as the engine does (`Database.readDeletes`,
    /// which is private, reads the file and hands it to `DeleteFile.decode`).
    func readDeletes(_ name: String) throws -> DeleteSet {
        let path = (directory as NSString).appendingPathComponent(name)
        guard let data = FuzzScratch.read(path) else {
            throw SQLError(.ioError, "deleted-row file \"\(path)\" named by the manifest is missing")
        }
        return try DeleteFile.decode(data, path: path, legacy: name.hasSuffix(".del"))
    }

    /// Open a copy of the template (files hard-linked) whose `manifest.json` holds
    /// `manifest` (the template's when nil) and with file `replacing.name` holding
    /// `replacing.bytes`; run `body` on it; remove the copy. Returns `body`'s outcome,
    /// or the error opening the database threw.
    func withCopy(manifest: [UInt8]?, replacing: (name: String, bytes: [UInt8])?, _ body: (Database) -> String) -> String {
        let copy = FuzzScratch.path("db")
        let fm = FileManager.default
        try? fm.removeItem(atPath: copy)
        defer { try? fm.removeItem(atPath: copy) }
        do {
            try fm.createDirectory(atPath: copy, withIntermediateDirectories: true)
            for name in files {
                let target = (copy as NSString).appendingPathComponent(name)
                try fm.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                if name == replacing?.name { continue }
                try fm.linkItem(atPath: (directory as NSString).appendingPathComponent(name), toPath: target)
            }
            if let replacing {
                try FuzzScratch.write(replacing.bytes, to: (copy as NSString).appendingPathComponent(replacing.name))
            }
            try FuzzScratch.write(manifest ?? manifestFile, to: (copy as NSString).appendingPathComponent(Manifest.fileName))
        } catch {
            return "setup " + Outcome.of(error)
        }
        do {
            let database = try Database(directory: copy, blockBytes: 1024)
            return body(database)
        } catch {
            return "open " + Outcome.of(error)
        }
    }
}
