// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes

/// The files already at an UNLOAD's destination: refused unless ALLOWOVERWRITE, removed
/// first with CLEANPATH. The prefix is resolved and authorized before (`LocalFileAccess`).
///
/// The files considered are the ones this UNLOAD could write: for a prefix ending in `/`
/// (a folder, as PARTITION BY makes it) every file below the folder, else the files
/// directly in the prefix's directory whose names start with its last part (`/share/run_`
/// writes `/share/run_0000_part_00`, never `/share/run_x/…`). Symbolic links are never
/// followed: CLEANPATH removes a link itself, ALLOWOVERWRITE refuses to write through one.
public enum UnloadDestination {
    public static func prepare(_ prefix: String, cleanPath: Bool, allowOverwrite: Bool) throws {
        let existing = targets(prefix)
        if existing.isEmpty { return }
        if cleanPath {
            for p in existing { unlink(p) }
        } else if !allowOverwrite {
            throw SQLError(.ioError, "Specified unload destination is not empty (\(existing.count) file(s) start with '\(prefix)'). Use a different prefix, remove the files, or use ALLOWOVERWRITE or CLEANPATH.")
        } else if let link = existing.first(where: { kind($0) == S_IFLNK }) {
            throw SQLError(.ioError, "UNLOAD will not write through the symbolic link '\(link)'")
        }
    }

    /// The files and links an UNLOAD to `prefix` could overwrite, sorted.
    static func targets(_ prefix: String) -> [String] {
        let fm = FileManager.default
        if prefix.hasSuffix("/") {
            var out: [String] = []
            var folders = [String(prefix.dropLast())]
            while let folder = folders.popLast() {
                guard let names = try? fm.contentsOfDirectory(atPath: folder) else { continue }
                for name in names {
                    let path = folder + "/" + name
                    switch kind(path) {
                    case S_IFDIR?: folders.append(path)
                    case S_IFREG?, S_IFLNK?: out.append(path)
                    default: break
                    }
                }
            }
            return out.sorted()
        }
        let dir = (prefix as NSString).deletingLastPathComponent
        let namePrefix = (prefix as NSString).lastPathComponent
        guard !dir.isEmpty, let names = try? fm.contentsOfDirectory(atPath: dir) else { return [] }
        return names.filter { $0.hasPrefix(namePrefix) }.map { (dir as NSString).appendingPathComponent($0) }
            .filter { [S_IFREG, S_IFLNK].contains(kind($0)) }.sorted()
    }

    /// The file type of `path` itself (a link is not followed), or nil.
    static func kind(_ path: String) -> mode_t? {
        var st = stat()
        return lstat(path, &st) == 0 ? st.st_mode & S_IFMT : nil
    }
}
