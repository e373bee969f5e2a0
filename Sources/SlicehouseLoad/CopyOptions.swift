// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehouseAWS

/// The data-format and load parameters of one COPY, parsed from the statement's
/// option list (dg:r_COPY).
///
/// Defaults follow Redshift: pipe-delimited UTF-8 text with `\N` as NULL; with `CSV` the
/// delimiter becomes `,` and the quote `"`. Empty / blank field handling (all formats):
/// an empty (or all-blank) field loads as NULL for every non-string column; for CHAR and
/// VARCHAR it loads as an empty (blank) string unless `EMPTYASNULL` (`BLANKSASNULL`).
/// In CSV, a quoted field is never NULL: `""` is an empty string even with EMPTYASNULL,
/// and a quoted `"\N"` is the two characters; only unquoted fields match `NULL AS`.
///
/// `FIXEDWIDTH`: a field matches `NULL AS` when its text without surrounding blanks
/// equals the NULL string (fields are blank-padded); VARCHAR values keep their padding
/// unless `TRIMBLANKS`; an all-blank field is NULL with `BLANKSASNULL`.
/// `JSON`: JSON `null` and absent keys load as NULL; `NULL AS` is not allowed.
/// `PARQUET` (`FORMAT [AS] PARQUET`): columns map by position; only the parameters
/// Redshift accepts with columnar files are allowed (`parquetParameters`), anything else
/// is refused as Redshift does (`DELIMITER argument is not supported for PARQUET based COPY`).
public struct CopyOptions: Sendable, Equatable {
    public enum Format: String, Sendable, Equatable { case text, csv, fixedWidth = "fixedwidth", json, parquet }
    public enum Compression: String, Sendable, Equatable { case none, gzip, bzip2, zstd, lzop }

    /// How JSON input maps to columns (`JSON 'auto' | 'auto ignorecase' | 'jsonpaths_file'`).
    public enum JSONMapping: Sendable, Equatable {
        /// Top-level keys name the columns (exact match, or ignoring ASCII case).
        case auto(ignoreCase: Bool)
        /// A JSONPaths file (a local path, or an `s3://` address) lists one JSONPath
        /// expression per loaded column.
        case paths(file: String)
        /// `noshred`: each whole document into the one SUPER column loaded.
        case noshred
    }

    public var format: Format = .text
    /// `FIXEDWIDTH` fields, one per loaded column (empty for other formats).
    public var fixedWidth: [FixedWidthField] = []
    /// The `JSON` argument (nil for other formats).
    public var json: JSONMapping? = nil
    /// Field delimiter (one byte).
    public var delimiter: UInt8 = UInt8(ascii: "|")
    /// CSV quote character.
    public var quote: UInt8 = UInt8(ascii: "\"")
    /// Fields equal to these bytes load as NULL (`NULL AS`).
    public var nullString: [UInt8] = Array("\\N".utf8)
    public var emptyAsNull = false
    public var blanksAsNull = false
    /// Remove trailing blanks from VARCHAR values.
    public var trimBlanks = false
    /// Missing trailing fields load as empty fields instead of failing the row.
    public var fillRecord = false
    public var ignoreBlankLines = false
    /// Cut strings to the column's byte length instead of rejecting the row.
    public var truncateColumns = false
    /// Header lines (CSV: records) skipped at the start of every file.
    public var ignoreHeader = 0
    /// Rows that may be rejected before the COPY fails (MAXERROR; IGNOREALLERRORS = unlimited).
    public var maxError = 0
    public var dateFormat = CopyTimeFormat.isoDate
    public var timeFormat = CopyTimeFormat.isoTimestamp
    /// Unparseable dates/timestamps load as NULL instead of failing (ACCEPTANYDATE).
    public var acceptAnyDate = false
    /// Replacement byte for invalid UTF-8 in VARCHAR fields (ACCEPTINVCHARS; default `?`).
    public var acceptInvalidChars: UInt8? = nil
    /// Round extra fractional digits of decimals instead of truncating (ROUNDEC).
    public var roundDecimals = false
    /// Text format: strip surrounding quotes, keep delimiters inside them.
    public var removeQuotes = false
    /// Text format: backslash escapes the next byte (delimiter, newline, backslash, quote).
    public var escape = false
    public var compression: Compression = .none
    /// The source names a manifest file listing the data files.
    public var manifest = false
    /// Parse and validate only; the engine should not store the rows.
    public var noLoad = false
    /// IDENTITY columns take their values from the data.
    public var explicitIDs = false
    /// COMPUPDATE / STATUPDATE values as written (nil when absent); informational.
    public var compUpdate: String? = nil
    /// PARQUET's SERIALIZETOJSON: nested columns (structs, lists, maps) load as JSON, into
    /// SUPER columns (or as their JSON text into VARCHAR columns).
    public var serializeToJSON = false
    public var statUpdate: String? = nil
    /// Who the COPY acts as on AWS (IAM_ROLE, CREDENTIALS, ACCESS_KEY_ID …), nil when the
    /// statement says nothing; used only for `s3://` addresses.
    public var authorization: AWSAuthorization? = nil
    /// `REGION 'us-west-2'`: the region of the bucket (and its endpoint).
    public var region: String? = nil

    /// The parameters Redshift accepts with `FORMAT PARQUET` besides the format itself
    /// (dg:copy-usage_notes-copy-from-columnar); the credential parameters are accepted
    /// and ignored as everywhere.
    public static let parquetParameters: Set<String> = [
        "ACCEPTINVCHARS", "FILLRECORD", "MANIFEST", "EXPLICIT_IDS", "STATUPDATE", "SERIALIZETOJSON",
        "IAM_ROLE", "CREDENTIALS", "WITH CREDENTIALS", "ACCESS_KEY_ID", "SECRET_ACCESS_KEY", "SESSION_TOKEN",
    ]

    /// Redshift's upper bound for MAXERROR.
    public static let maxErrorLimit = 100_000

    /// Defaults: pipe-delimited text.
    public init() {}

    /// Parse COPY parameters as the SQL parser hands them over: one entry per keyword,
    /// `name` is the keyword (case-insensitive; `AS` already dropped) and `value` its
    /// argument if any — e.g. `("DELIMITER", "\t")`, `("CSV", nil)`, `("QUOTE", "'")`,
    /// `("FORMAT", "CSV")`, `("IGNOREHEADER", "1")`, `("NULL", "")`, `("COMPUPDATE", "OFF")`.
    ///
    /// Formats: `CSV`, `FIXEDWIDTH 'spec'` and `JSON 'arg'` (or `FORMAT CSV`; the SQL
    /// parser drops `FORMAT [AS]`, so `FORMAT AS JSON 'auto'` arrives as `("JSON", "auto")`).
    ///
    /// Unknown, duplicated or conflicting options throw `SQLError`; options Slicehouse
    /// recognises but cannot honour yet (AVRO, ORC, LZOP, ...) throw
    /// `featureNotSupported` when the load runs (LZOP) or here (formats).
    public init(options: [(name: String, value: String?)]) throws {
        var seen = Set<String>()
        var credentialParameters: [(name: String, value: String?)] = []
        /// Options as written (upper case), for PARQUET's list of allowed parameters.
        var written: [String] = []
        var delimiterSet = false, quoteSet = false
        /// The option that chose a non-default format (for conflict messages).
        var formatOption: String? = nil
        func setFormat(_ f: Format, by option: String) throws {
            if let formatOption, format != f {
                throw SQLError(.invalidParameter, "COPY options \(formatOption) and \(option) select different data formats")
            }
            format = f
            formatOption = formatOption ?? option
        }
        for (rawName, value) in options {
            let name = rawName.uppercased()
            let canonical = name == "IGNOREALLERRORS" ? "MAXERROR" : name
            guard seen.insert(canonical).inserted else {
                throw SQLError(.syntax, "conflicting or redundant COPY option \(name)")
            }
            written.append(name)
            func required() throws -> String {
                guard let value else { throw SQLError(.syntax, "COPY option \(name) requires a value") }
                return value
            }
            func noValue() throws {
                if let value { throw SQLError(.syntax, "COPY option \(name) does not take a value (got '\(value)')") }
            }
            switch name {
            case "DELIMITER":
                delimiter = try Self.singleByte(try required(), option: name)
                delimiterSet = true
            case "CSV":
                try noValue()
                try setFormat(.csv, by: name)
            case "FORMAT":
                let v = try required().uppercased()
                switch v {
                case "CSV": try setFormat(.csv, by: "FORMAT CSV")
                case "JSON":
                    throw SQLError(.syntax, "COPY FORMAT JSON needs an argument: JSON 'auto', JSON 'auto ignorecase' or JSON 'jsonpaths_file'")
                case "FIXEDWIDTH":
                    throw SQLError(.syntax, "COPY FORMAT FIXEDWIDTH needs a specification: FIXEDWIDTH 'label:width,...'")
                case "PARQUET": try setFormat(.parquet, by: "FORMAT PARQUET")
                case "AVRO", "ORC", "SHAPEFILE":
                    throw SQLError.unsupported("COPY FORMAT \(v) (delimited text, CSV, FIXEDWIDTH, JSON and PARQUET for now)")
                default: throw SQLError(.syntax, "unknown COPY FORMAT '\(v)'")
                }
            case "FIXEDWIDTH":
                fixedWidth = try FixedWidthField.parseSpec(try required())
                try setFormat(.fixedWidth, by: name)
            case "JSON":
                guard let value else {
                    throw SQLError(.syntax, "COPY JSON needs an argument: JSON 'auto', JSON 'auto ignorecase' or JSON 'jsonpaths_file'")
                }
                json = try Self.jsonMapping(value)
                try setFormat(.json, by: name)
            case "QUOTE":
                quote = try Self.singleByte(try required(), option: name)
                quoteSet = true
            case "IGNOREHEADER":
                ignoreHeader = try Self.count(try required(), option: name, max: Int(Int32.max))
            case "NULL":
                nullString = Self.nullBytes(try required())
            case "EMPTYASNULL": try noValue(); emptyAsNull = true
            case "BLANKSASNULL": try noValue(); blanksAsNull = true
            case "TRIMBLANKS": try noValue(); trimBlanks = true
            case "FILLRECORD": try noValue(); fillRecord = true
            case "IGNOREBLANKLINES": try noValue(); ignoreBlankLines = true
            case "TRUNCATECOLUMNS": try noValue(); truncateColumns = true
            case "ROUNDEC": try noValue(); roundDecimals = true
            case "REMOVEQUOTES": try noValue(); removeQuotes = true
            case "ESCAPE": try noValue(); escape = true
            case "ACCEPTANYDATE": try noValue(); acceptAnyDate = true
            case "NOLOAD": try noValue(); noLoad = true
            case "EXPLICIT_IDS": try noValue(); explicitIDs = true
            case "MANIFEST": try noValue(); manifest = true
            case "MAXERROR":
                maxError = try Self.count(try required(), option: name, max: Self.maxErrorLimit)
            case "IGNOREALLERRORS":
                try noValue(); maxError = Int.max
            case "DATEFORMAT":
                dateFormat = try CopyTimeFormat(try required(), timestamp: false)
            case "TIMEFORMAT":
                timeFormat = try CopyTimeFormat(try required(), timestamp: true)
            case "ACCEPTINVCHARS":
                if let value {
                    let b = try Self.singleByte(value, option: name)
                    guard b < 0x80 else {
                        throw SQLError(.invalidParameter, "ACCEPTINVCHARS replacement must be an ASCII character")
                    }
                    acceptInvalidChars = b
                } else {
                    acceptInvalidChars = UInt8(ascii: "?")
                }
            case "GZIP": try noValue(); compression = .gzip
            case "BZIP2": try noValue(); compression = .bzip2
            case "ZSTD": try noValue(); compression = .zstd
            case "LZOP": try noValue(); compression = .lzop
            case "ENCODING":
                let v = try required().uppercased()
                guard v == "UTF8" || v == "UTF-8" else {
                    throw SQLError.unsupported("COPY ENCODING \(v) (only UTF8)")
                }
            case "COMPUPDATE": compUpdate = value ?? "ON"
            case "STATUPDATE": statUpdate = value ?? "ON"
            case "COMPROWS":
                _ = try Self.count(try required(), option: name, max: Int.max)
            case "IAM_ROLE", "CREDENTIALS", "WITH CREDENTIALS", "ACCESS_KEY_ID", "SECRET_ACCESS_KEY", "SESSION_TOKEN":
                credentialParameters.append((name: name, value: value))
            case "REGION":
                region = try required()
            case "MASTER_SYMMETRIC_KEY", "ENCRYPTED", "READRATIO":
                // Client-side encryption and DynamoDB: accepted and ignored.
                break
            case "PARQUET":
                try noValue()
                try setFormat(.parquet, by: name)
            case "SERIALIZETOJSON":
                try noValue()
                serializeToJSON = true
            case "AVRO", "ORC", "SHAPEFILE", "SSH":
                throw SQLError.unsupported("COPY \(name) (delimited text, CSV, FIXEDWIDTH, JSON and PARQUET for now)")
            default:
                throw SQLError(.syntax, "unknown COPY option \(rawName)")
            }
        }

        authorization = try AWSAuthorization.from(credentialParameters)

        // Cross-option rules (Redshift's own).
        func forbid(_ options: [String], with formatName: String) throws {
            for o in options where seen.contains(o) {
                let shown = o == "NULL" ? "NULL AS" : o
                throw SQLError(.invalidParameter, "\(formatName) cannot be used with \(shown)")
            }
        }
        switch format {
        case .parquet:
            // Redshift's own wording for a parameter columnar COPY does not take.
            // MAXERROR 0 changes nothing (any error fails a columnar COPY), and clients send it:
            // dlt's Redshift destination ends every COPY with it, Parquet's too.
            for o in written where o != "PARQUET" && o != "FORMAT" && !Self.parquetParameters.contains(o)
                && !(o == "MAXERROR" && maxError == 0) {
                let shown = o == "NULL" ? "NULL AS" : o
                throw SQLError(.invalidParameter, "\(shown) argument is not supported for PARQUET based COPY")
            }
        case .json:
            try forbid(["SERIALIZETOJSON"], with: "JSON")
            try forbid(["DELIMITER", "ESCAPE", "FILLRECORD", "IGNOREBLANKLINES", "IGNOREHEADER", "NULL",
                        "REMOVEQUOTES", "QUOTE"], with: "JSON")
        case .fixedWidth:
            // ESCAPE and REMOVEQUOTES would shift character positions: Slicehouse refuses them too.
            try forbid(["DELIMITER", "REMOVEQUOTES", "ESCAPE", "QUOTE", "SERIALIZETOJSON"], with: "FIXEDWIDTH")
        case .text, .csv:
            try forbid(["SERIALIZETOJSON"], with: format == .csv ? "CSV" : "delimited text")
        }
        if format == .csv {
            if !delimiterSet { delimiter = UInt8(ascii: ",") }
            if removeQuotes { throw SQLError(.invalidParameter, "CSV cannot be used with REMOVEQUOTES") }
            if escape { throw SQLError(.invalidParameter, "CSV cannot be used with ESCAPE") }
            if quote == delimiter {
                throw SQLError(.invalidParameter, "COPY delimiter and quote must be different")
            }
        } else if quoteSet {
            throw SQLError(.invalidParameter, "QUOTE can only be used with CSV")
        }
        if delimiter == 10 || delimiter == 13 {
            throw SQLError(.invalidParameter, "COPY delimiter cannot be newline or carriage return")
        }
        if escape && delimiter == UInt8(ascii: "\\") {
            throw SQLError(.invalidParameter, "COPY delimiter cannot be backslash with ESCAPE")
        }
        if removeQuotes && (delimiter == UInt8(ascii: "\"") || delimiter == UInt8(ascii: "'")) {
            throw SQLError(.invalidParameter, "COPY delimiter cannot be a quote with REMOVEQUOTES")
        }
    }

    /// The `JSON` argument: `auto`, `auto ignorecase` (any case and spacing) or the
    /// path (or `file://` URL) of a JSONPaths file.
    static func jsonMapping(_ raw: String) throws -> JSONMapping {
        let words = raw.split(whereSeparator: { $0 == " " || $0 == "\t" }).map { $0.lowercased() }
        if words == ["auto"] { return .auto(ignoreCase: false) }
        if words == ["auto", "ignorecase"] { return .auto(ignoreCase: true) }
        if words == ["noshred"] { return .noshred }
        let path = String(raw.trimmingBlanks)
        guard !path.isEmpty else {
            throw SQLError(.invalidParameter, "COPY JSON needs 'auto', 'auto ignorecase' or the path of a JSONPaths file")
        }
        if path.lowercased().hasPrefix("s3://") {
            guard S3Location(path) != nil else { throw S3Location.invalid(path) }
            return .paths(file: path)
        }
        return .paths(file: try CopySource.localPath(path))
    }

    /// One byte from a option value: a single ASCII character, or an escape such as
    /// `\t`, `\\`, `\|` or an octal `\011`.
    static func singleByte(_ s: String, option: String) throws -> UInt8 {
        let u = Array(s.utf8)
        if u.count == 1 { return u[0] }
        if u.count >= 2 && u[0] == UInt8(ascii: "\\") {
            if u.count == 2 {
                switch u[1] {
                case UInt8(ascii: "t"): return 9
                case UInt8(ascii: "\\"): return u[1]
                case UInt8(ascii: "n"), UInt8(ascii: "r"): break
                default: if u[1] < 0x80 && !(u[1] >= 48 && u[1] <= 57) { return u[1] }
                }
            }
            if u.count >= 2 && u.count <= 4, u[1...].allSatisfy({ $0 >= 48 && $0 <= 55 }) {
                var v = 0
                for d in u[1...] { v = v * 8 + Int(d - 48) }
                if v > 0 && v < 0x80 { return UInt8(v) }
            }
        }
        throw SQLError(.invalidParameter, "COPY \(option) must be a single ASCII character, got '\(s)'")
    }

    /// NULL AS value: `\0` / `\000` mean the NUL byte, anything else is taken literally.
    static func nullBytes(_ s: String) -> [UInt8] {
        if s == "\\0" || s == "\\000" { return [0] }
        return Array(s.utf8)
    }

    static func count(_ s: String, option: String, max: Int) throws -> Int {
        guard let v = Int(s.trimmingBlanks), v >= 0, v <= max else {
            throw SQLError(.invalidParameter, "COPY \(option) must be an integer between 0 and \(max), got '\(s)'")
        }
        return v
    }
}

extension String {
    var trimmingBlanks: Substring {
        var s = Substring(self)
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return s
    }
}
