// SPDX-License-Identifier: Apache-2.0
import SlicehouseEngine
import SlicehouseTypes

/// The names Tab completes from: relations (tables and views, each with its schema) and
/// their columns, as the database shows them to the session now.
public struct CompletionNames: Sendable, Equatable {
    public var relations: [(schema: String, name: String)]
    /// Columns by relation name.
    public var columns: [String: [String]]

    public init(relations: [(schema: String, name: String)] = [], columns: [String: [String]] = [:]) {
        self.relations = relations
        self.columns = columns
    }

    public static func == (a: CompletionNames, b: CompletionNames) -> Bool {
        a.relations.map { $0.schema + "." + $0.name } == b.relations.map { $0.schema + "." + $0.name } && a.columns == b.columns
    }
}

/// Tab completion as psql does it, on the statement typed so far:
/// - after FROM, JOIN, INTO, UPDATE, TABLE, TRUNCATE, ANALYZE, VACUUM, LOCK, DESCRIBE, ON
///   (of GRANT) and `\d`: relation names (`schema.` prefixes, then that schema's relations);
/// - `alias_or_table.`: the columns of that table (an alias resolves through FROM / JOIN);
/// - at the start of a statement: the words that begin statements;
/// - elsewhere: the columns of the relations the statement names, then keywords.
/// A word typed in upper case completes keywords in upper case.
public enum Completion {
    /// Words that begin a statement.
    static let statementWords = [
        "ABORT", "ALTER", "ANALYZE", "BEGIN", "CALL", "CLOSE", "COMMENT", "COMMIT", "COPY", "CREATE", "DEALLOCATE",
        "DECLARE", "DELETE FROM", "DROP", "END", "EXECUTE", "EXPLAIN", "FETCH", "GRANT", "INSERT INTO", "LOCK", "MERGE",
        "PREPARE", "RESET", "REVOKE", "ROLLBACK", "SELECT", "SET", "SHOW", "START TRANSACTION", "TRUNCATE", "UNLOAD",
        "UPDATE", "VACUUM", "WITH",
    ]

    /// Keywords offered inside a statement.
    static let keywords = [
        "ALL", "AND", "AS", "ASC", "BETWEEN", "BY", "CASE", "CAST", "COUNT", "CROSS", "DESC", "DISTINCT", "DISTKEY",
        "DISTSTYLE", "ELSE", "END", "EXCEPT", "EXISTS", "FROM", "FULL", "GROUP BY", "HAVING", "ILIKE", "IN", "INNER",
        "INTERSECT", "INTO", "IS", "JOIN", "LEFT", "LIKE", "LIMIT", "NOT", "NULL", "OFFSET", "ON", "OR", "ORDER BY",
        "OUTER", "OVER", "PARTITION BY", "QUALIFY", "RIGHT", "SELECT", "SET", "SORTKEY", "TABLE", "THEN", "UNION",
        "USING", "VALUES", "WHEN", "WHERE", "WITH",
    ]

    /// Words after which a relation name comes.
    static let relationContext: Set<String> = [
        "from", "join", "into", "update", "table", "truncate", "analyze", "vacuum", "lock", "describe", "\\d", "\\dt", "\\d+",
        "\\dv",
    ]

    /// Candidates for `word` (the text before the cursor back to the last break
    /// character), with `before` the statement's text in front of it.
    public static func candidates(word: String, before: String, names: CompletionNames) -> [String] {
        let tokens = words(before)
        let previous = tokens.last?.lowercased()
        let lower = word.lowercased()
        let upper = !word.isEmpty && word == word.uppercased() && word != lower

        func matching(_ list: [String]) -> [String] {
            var seen = Set<String>()
            return list.filter { $0.lowercased().hasPrefix(lower) && seen.insert($0).inserted }
        }
        func keywordCase(_ list: [String]) -> [String] { upper ? list : list.map { $0.lowercased() } }

        // `qualifier.` : a schema's relations, or a table's (or alias's) columns.
        if let dot = word.lastIndex(of: ".") {
            let qualifier = word[..<dot].lowercased()
            let rest = String(word[word.index(after: dot)...]).lowercased()
            var out: [String] = []
            if previous.map({ relationContext.contains($0) }) ?? false {
                out = names.relations.filter { $0.schema == qualifier && $0.name.hasPrefix(rest) }.map { "\(word[..<dot]).\($0.name)" }
            } else {
                let table = aliases(tokens, names)[String(qualifier)] ?? String(qualifier)
                out = (names.columns[table] ?? []).filter { $0.hasPrefix(rest) }.map { "\(word[..<dot]).\($0)" }
            }
            return out
        }
        if let previous, relationContext.contains(previous) || (previous == "on" && tokens.contains { $0.lowercased() == "grant" }) {
            let schemas = Set(names.relations.map { $0.schema }).filter { $0 != "public" && $0.hasPrefix(lower) }.sorted()
            return matching(names.relations.map { $0.name }.sorted()) + schemas.map { $0 + "." }
        }
        if tokens.isEmpty || previous == ";" {
            return matching(keywordCase(statementWords))
        }
        // Columns of the relations this statement names, then keywords.
        let named = Set(aliases(tokens, names).values)
        let columns = names.columns.filter { named.contains($0.key) }.flatMap { $0.value }.sorted()
        return matching(columns + keywordCase(keywords))
    }

    /// The statement's words (identifiers, keywords, `;`), outside quotes.
    static func words(_ text: String) -> [String] {
        var out: [String] = [], current = ""
        var quote: Character? = nil
        for ch in text {
            if let q = quote {
                if ch == q { quote = nil }
                continue
            }
            if ch == "'" { quote = ch; continue }
            if ch.isLetter || ch.isNumber || ch == "_" || ch == "." || ch == "\\" || ch == "+" || ch == "\"" || ch == "$" {
                current.append(ch)
            } else {
                if !current.isEmpty { out.append(current); current = "" }
                if ch == ";" { out.append(";") }
            }
        }
        if !current.isEmpty { out.append(current) }
        // Only the statement the cursor is in.
        if let last = out.lastIndex(of: ";"), last < out.count - 1 { out = Array(out[(last + 1)...]) }
        return out
    }

    /// Names after FROM / JOIN (and their aliases) that are relations: alias → relation.
    static func aliases(_ tokens: [String], _ names: CompletionNames) -> [String: String] {
        let known = Set(names.relations.map { $0.name })
        var out: [String: String] = [:]
        var i = 0
        while i < tokens.count {
            let t = tokens[i].lowercased()
            if t == "from" || t == "join" || t == "update" || t == "into" || t == "," {
                var k = i + 1
                while k < tokens.count {
                    let raw = tokens[k].lowercased().replacingOccurrences(of: "\"", with: "")
                    let name = raw.split(separator: ".").last.map(String.init) ?? raw
                    guard known.contains(name) else { break }
                    out[name] = name
                    var a = k + 1
                    if a < tokens.count, tokens[a].lowercased() == "as" { a += 1 }
                    if a < tokens.count {
                        let alias = tokens[a].lowercased()
                        if !keywordSet.contains(alias) { out[alias] = name; k = a }
                    }
                    k += 1
                    break
                }
            }
            i += 1
        }
        return out
    }

    static let keywordSet: Set<String> = Set((keywords + statementWords).map { $0.lowercased() })
        .union(["where", "join", "on", "left", "right", "inner", "outer", "full", "cross", "group", "order", "limit"])
}

extension ShellBackend {
    /// The relations and columns the session sees now (from information_schema, so that
    /// a shell connected to a server asks the server); empty when the query fails.
    public func completionNames() -> CompletionNames {
        guard let results = try? execute(
            "select table_schema, table_name, column_name from information_schema.columns order by table_schema, table_name, ordinal_position"),
              let result = results.last else { return CompletionNames() }
        var names = CompletionNames()
        var seen = Set<String>()
        for chunk in result.chunks {
            for r in 0..<chunk.count {
                guard case .string(let schema) = chunk.columns[0].value(at: r),
                      case .string(let table) = chunk.columns[1].value(at: r),
                      case .string(let column) = chunk.columns[2].value(at: r) else { continue }
                if seen.insert(schema + "." + table).inserted { names.relations.append((schema, table)) }
                names.columns[table, default: []].append(column)
            }
        }
        return names
    }
}
