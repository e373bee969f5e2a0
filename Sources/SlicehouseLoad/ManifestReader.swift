// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseAWS
import SlicehouseTypes

/// Reads a COPY manifest: `{"entries": [{"url": "s3://bucket/key", "mandatory": true,
/// "meta": {"content_length": 1234}}, ...]}`. Each URL names one object or file exactly
/// (`s3://`, a local path or a `file://` URL), as in Redshift; a missing entry fails the
/// COPY only when `mandatory` is true (the default is false). An S3 entry's size is its
/// `content_length` when the manifest gives one, else S3's (a HEAD request, which also
/// finds a missing object).
enum ManifestReader {
    static func objects(_ bytes: [UInt8], source: String, inputs: CopyInputs) throws -> [CopyObject] {
        guard let root = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
              let entries = root["entries"] as? [[String: Any]] else {
            throw SQLError(.loadError, "Manifest file '\(source)' is not valid: expected {\"entries\": [{\"url\": ...}]} [8001]")
        }
        var out: [CopyObject] = []
        for entry in entries {
            guard let url = entry["url"] as? String else {
                throw SQLError(.loadError, "Manifest file '\(source)': entry without \"url\" [8001]")
            }
            let mandatory = (entry["mandatory"] as? Bool) ?? false
            let missing = SQLError(.loadError, "Manifest file '\(source)': mandatory file '\(url)' not found [8001]")
            if url.lowercased().hasPrefix("s3://") {
                guard let location = S3Location(url) else { throw S3Location.invalid(url) }
                let length = ((entry["meta"] as? [String: Any])?["content_length"] as? NSNumber)?.intValue
                do {
                    let size = try length ?? inputs.s3Client(for: url).size(location)
                    out.append(CopyObject(.s3(location), size: size))
                } catch let e as S3Error where e.isMissing {
                    if mandatory { throw missing }
                } catch let e as S3Error {
                    throw e.sqlError
                }
                continue
            }
            let path = try CopySource.localPath(url)
            // Judged before it is looked for: a refusal says nothing of what exists.
            if inputs.access != .unrestricted { _ = try inputs.access.authorizeRead(path) }
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDir), !isDir.boolValue {
                out.append(CopyObject(.local(path), size: CopySource.fileSize(path)))
            } else if mandatory {
                throw missing
            }
        }
        return out
    }
}
