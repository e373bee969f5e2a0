// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehouseAWS
import SlicehouseStorage

/// UNLOAD parameters (Redshift's names and defaults).
public struct UnloadOptions: Sendable, Equatable {
    public enum Format: String, Sendable, Equatable { case text, csv, json, parquet }
    public enum Compression: String, Sendable, Equatable { case none, gzip, bzip2, zstd }

    public var format: Format = .text
    /// Field delimiter: `|` for text, `,` for CSV.
    public var delimiter: UInt8 = UInt8(ascii: "|")
    public var delimiterSet = false
    /// Text written for NULL; Redshift's default is an empty field.
    public var nullString: [UInt8] = []
    public var header = false
    public var addQuotes = false
    public var escape = false
    public var fixedWidth: [(column: String, width: Int)] = []
    public var compression: Compression = .none
    /// PARALLEL ON: one or more files per slice; OFF: serial files in result order.
    public var parallel = true
    public var allowOverwrite = false
    public var cleanPath = false
    public var manifest = false
    public var manifestVerbose = false
    /// Largest file before a new part starts (Redshift: 5 MB to 6.2 GB, default 6.2 GB).
    public var maxFileSize = 6_200 * 1024 * 1024
    public var extension_: String? = nil
    public var partitionBy: [String] = []
    /// Put before every file's name (not an UNLOAD parameter: INSERT into an external table
    /// names its files uniquely, `<date>_<time>_<microseconds>_<query>_`, in folders that
    /// hold earlier files).
    public var fileNamePrefix = ""
    public var partitionInclude = false
    /// Parquet compression (Snappy unless ZSTD or none is asked for).
    public var parquetCompression: String = "snappy"
    public var rowGroupSize = 32 * 1024 * 1024
    /// Who the UNLOAD acts as on AWS (IAM_ROLE, CREDENTIALS, ACCESS_KEY_ID …); for `s3://` only.
    public var authorization: AWSAuthorization? = nil
    /// `REGION 'us-west-2'`: the bucket's region.
    public var region: String? = nil

    public init() {}

    public static func == (a: UnloadOptions, b: UnloadOptions) -> Bool {
        a.format == b.format && a.delimiter == b.delimiter && a.nullString == b.nullString && a.header == b.header
            && a.addQuotes == b.addQuotes && a.escape == b.escape && a.compression == b.compression
            && a.parallel == b.parallel && a.maxFileSize == b.maxFileSize && a.partitionBy == b.partitionBy
            && a.fixedWidth.map { $0.column } == b.fixedWidth.map { $0.column }
    }

    /// Parse options as the SQL parser delivers them: `(name, [arguments as text])`.
    public init(options: [(name: String, args: [String])]) throws {
        var seen = Set<String>()
        var compressionSet = false
        var credentialParameters: [(name: String, value: String?)] = []
        for (rawName, args) in options {
            let name = rawName.lowercased()
            guard seen.insert(name).inserted else {
                throw SQLError(.syntax, "conflicting or redundant UNLOAD option \(name.uppercased())")
            }
            func value() throws -> String {
                guard let v = args.first else { throw SQLError(.syntax, "UNLOAD option \(name.uppercased()) requires a value") }
                return v
            }
            func onOff(_ v: String?) throws -> Bool {
                switch (v ?? "on").lowercased() {
                case "on", "true": return true
                case "off", "false": return false
                default: throw SQLError(.syntax, "UNLOAD option \(name.uppercased()) takes ON or OFF")
                }
            }
            switch name {
            case "csv": format = .csv; if !delimiterSet { delimiter = UInt8(ascii: ",") }
            case "json": format = .json
            case "parquet": format = .parquet
            case "format":
                switch try value().lowercased() {
                case "csv": format = .csv; if !delimiterSet { delimiter = UInt8(ascii: ",") }
                case "json": format = .json
                case "parquet": format = .parquet
                default: throw SQLError(.syntax, "UNLOAD FORMAT must be CSV, JSON or PARQUET")
                }
            case "delimiter":
                let v = Array(try value().utf8)
                guard v.count == 1 else { throw SQLError(.invalidParameter, "UNLOAD DELIMITER must be a single character") }
                delimiter = v[0]; delimiterSet = true
            case "null": nullString = Array(try value().utf8)
            case "header": header = true
            case "addquotes": addQuotes = true
            case "escape": escape = true
            case "fixedwidth":
                fixedWidth = try value().split(separator: ",").map { spec in
                    let parts = spec.split(separator: ":")
                    guard parts.count == 2, let w = Int(parts[1].trimmingCharacters(in: .whitespaces)), w > 0 else {
                        throw SQLError(.invalidParameter, "invalid FIXEDWIDTH specification '\(spec)'")
                    }
                    return (String(parts[0]).trimmingCharacters(in: .whitespaces), w)
                }
            case "gzip": compression = .gzip; compressionSet = true
            case "bzip2": compression = .bzip2; compressionSet = true
            case "zstd": compression = .zstd; compressionSet = true
            case "parallel": parallel = try onOff(args.first)
            case "allowoverwrite": allowOverwrite = true
            case "cleanpath": cleanPath = true
            case "manifest":
                manifest = true
                manifestVerbose = args.first?.lowercased() == "verbose"
            case "maxfilesize":
                guard let n = Double(try value()) else { throw SQLError(.invalidParameter, "invalid MAXFILESIZE") }
                let unit = args.count > 1 ? args[1].lowercased() : "mb"
                let bytes = unit == "gb" ? n * 1024 * 1024 * 1024 : n * 1024 * 1024
                guard bytes >= 5 * 1024 * 1024 && bytes <= 6.2 * 1024 * 1024 * 1024 else {
                    throw SQLError(.invalidParameter, "MAXFILESIZE must be between 5 MB and 6.2 GB")
                }
                maxFileSize = Int(bytes)
            case "extension": extension_ = try value()
            case "partition by":
                partitionBy = (args.first ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
                partitionInclude = args.dropFirst().contains { $0.lowercased() == "include" }
                guard !partitionBy.isEmpty else { throw SQLError(.syntax, "PARTITION BY needs columns") }
            case "rowgroupsize":
                guard let n = Double(try value()) else { throw SQLError(.invalidParameter, "invalid ROWGROUPSIZE") }
                rowGroupSize = Int(n * ((args.count > 1 && args[1].lowercased() == "gb") ? 1024 * 1024 * 1024 : 1024 * 1024))
            case "iam_role", "credentials", "access_key_id", "secret_access_key", "session_token":
                credentialParameters.append((name: name.uppercased(), value: args.first))
            case "region":
                region = try value()
            case "encrypted", "kms_key_id":
                break   // server-side encryption: accepted, the store's business
            default:
                throw SQLError(.syntax, "unknown UNLOAD option \(name.uppercased())")
            }
        }
        authorization = try AWSAuthorization.from(credentialParameters)
        if format == .parquet {
            if delimiterSet || header || addQuotes || escape || !nullString.isEmpty || !fixedWidth.isEmpty {
                throw SQLError(.invalidParameter, "PARQUET cannot be used with DELIMITER, HEADER, ADDQUOTES, ESCAPE, NULL AS or FIXEDWIDTH")
            }
            if compressionSet {
                switch compression {
                case .zstd: parquetCompression = "zstd"
                case .gzip: parquetCompression = "gzip"
                default: throw SQLError(.invalidParameter, "PARQUET compression must be ZSTD or GZIP (Snappy by default)")
                }
                compression = .none
            }
        }
        if format == .json && (delimiterSet || addQuotes || !fixedWidth.isEmpty || header) {
            throw SQLError(.invalidParameter, "JSON cannot be used with DELIMITER, HEADER, ADDQUOTES or FIXEDWIDTH")
        }
        if format == .csv && (!fixedWidth.isEmpty || escape || addQuotes) {
            throw SQLError(.invalidParameter, "CSV cannot be used with FIXEDWIDTH, ESCAPE or ADDQUOTES")
        }
        if !fixedWidth.isEmpty && delimiterSet {
            throw SQLError(.invalidParameter, "FIXEDWIDTH cannot be used with DELIMITER")
        }
    }

    /// File name extension for the format and compression (`.gz`, `.bz2`, `.zst`, `.parquet`).
    public var fileSuffix: String {
        var s = ""
        if let e = extension_ { s = e.hasPrefix(".") ? e : "." + e }
        else if format == .parquet { s = ".parquet" }
        switch compression {
        case .gzip: s += ".gz"
        case .bzip2: s += ".bz2"
        case .zstd: s += ".zst"
        case .none: break
        }
        return s
    }
}

import Foundation
