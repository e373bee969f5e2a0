// SPDX-License-Identifier: Apache-2.0
/// Whether `word` is reserved: it must be double-quoted to be an identifier (QUOTE_IDENT).
public enum SQLKeywords {
    public static func isReserved(_ word: String) -> Bool { Keywords.isReserved(word) }
}

/// Keyword tables shared by the parser and the SQL printer.
///
/// The lexer does not distinguish keywords from identifiers: an unquoted word is a
/// `.word` token and the parser decides by context. Only *reserved* words need a
/// table: they can never be a column name, a table name or a bare (AS-less) alias.
/// The set is PostgreSQL's reserved and type/function-name keywords plus Redshift's
/// query-structure words (QUALIFY, MINUS, TOP is handled positionally).
enum Keywords {
    /// Words that cannot be used as unquoted identifiers.
    static let reserved: Set<String> = [
        "all", "analyse", "analyze", "and", "any", "array", "as", "asc", "asymmetric",
        "authorization", "between", "binary", "both", "case", "cast", "check", "collate",
        "column", "constraint", "create", "cross", "current_date", "current_role",
        "current_time", "current_timestamp", "current_user", "default", "deferrable", "desc",
        "distinct", "do", "else", "end", "except", "false", "fetch", "for", "foreign",
        "freeze", "from", "full", "grant", "group", "having", "ilike", "in", "initially",
        "inner", "intersect", "into", "is", "isnull", "join", "lateral", "leading", "left",
        "like", "limit", "localtime", "localtimestamp", "minus", "natural", "not", "notnull",
        "null", "offset", "on", "only", "or", "order", "outer", "overlaps", "placing",
        "primary", "qualify", "references", "returning", "right", "select", "session_user",
        "similar", "some", "symmetric", "sysdate", "table", "then", "to", "trailing", "true",
        "union", "unique", "user", "using", "variadic", "verbose", "when", "where", "window",
        "with",
    ]

    /// Reserved words that may still name a function when followed by `(`.
    static let callableReserved: Set<String> = ["left", "right", "array"]

    /// Keywords that are functions without parentheses (`SELECT CURRENT_DATE`).
    static let parameterlessFunctions: Set<String> = [
        "current_date", "current_time", "current_timestamp", "localtime", "localtimestamp",
        "sysdate", "current_user", "session_user", "user", "current_role", "current_schema", "current_user_id",
    ]

    static func isReserved(_ word: String) -> Bool { reserved.contains(word) }
}

/// Quote an identifier for printing when it would not read back as itself:
/// reserved words, names with upper-case or special characters.
public func quoteIdentifierIfNeeded(_ name: String) -> String {
    if isPlainIdentifier(name) && !Keywords.isReserved(name) { return name }
    return "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}

/// True when `name` is a lower-case identifier that reads back unchanged unquoted
/// (`#temp` names included).
private func isPlainIdentifier(_ name: String) -> Bool {
    var first = true
    for (i, u) in name.utf8.enumerated() {
        switch u {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "_"): break
        case UInt8(ascii: "#") where i == 0 && name.utf8.count > 1: break
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "$"):
            if first { return false }
        case 0x80...0xFF: break
        default: return false
        }
        first = false
    }
    return !first
}
