// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes

/// Reads a COPY manifest: `{"entries": [{"url": "file:///...", "mandatory": true}, ...]}`.
/// URLs may be local paths or `file://` URLs (each names one file exactly, as in
/// Redshift); a missing entry fails the COPY only when `mandatory` is true (the default
/// is false).
enum ManifestReader {
    static func files(manifestPath: String, source: String) throws -> [String] {
        guard let data = FileManager.default.contents(atPath: manifestPath) else {
            throw SQLError(.loadError, "Manifest file '\(source)' does not exist or cannot be read")
        }
        guard let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let entries = root["entries"] as? [[String: Any]] else {
            throw SQLError(.loadError, "Manifest file '\(source)' is not valid: expected {\"entries\": [{\"url\": ...}]} [8001]")
        }
        var out: [String] = []
        for entry in entries {
            guard let url = entry["url"] as? String else {
                throw SQLError(.loadError, "Manifest file '\(source)': entry without \"url\" [8001]")
            }
            let mandatory = (entry["mandatory"] as? Bool) ?? false
            let path = try CopySource.localPath(url)
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDir), !isDir.boolValue {
                out.append(path)
            } else if mandatory {
                throw SQLError(.loadError, "Manifest file '\(source)': mandatory file '\(url)' not found [8001]")
            }
        }
        return out
    }
}
