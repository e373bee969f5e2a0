// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

// CREATE SCHEMA, DROP SCHEMA, and ALTER TABLE / VIEW's renames.

extension Parser {
    /// After CREATE: `SCHEMA [IF NOT EXISTS] name [AUTHORIZATION user] [QUOTA {n [MB|GB|TB] | UNLIMITED}]`
    /// or `SCHEMA AUTHORIZATION user [QUOTA ...]`.
    mutating func parseCreateSchema(start: Token) throws -> CreateSchema {
        try expectWord("schema")
        let ifNotExists = acceptWords("if", "not", "exists")
        var name: String?
        var authorization: String?
        if isWord("authorization") {
            advance()
            authorization = try parseIdentifier()
        } else {
            name = try parseIdentifier()
            if acceptWord("authorization") { authorization = try parseIdentifier() }
        }
        if acceptWord("quota") {
            if !acceptWord("unlimited") {
                _ = try parseInteger()
                _ = acceptWord("mb") || acceptWord("gb") || acceptWord("tb")
            }
        }
        guard let schemaName = name ?? authorization else { throw syntaxError(at: current) }
        return CreateSchema(name: schemaName, ifNotExists: ifNotExists, authorization: authorization, location: start.location)
    }

    /// After ALTER: `SCHEMA name {RENAME TO new | QUOTA {n [MB | GB | TB] | UNLIMITED}}`.
    mutating func parseAlterSchema() throws -> AlterSchema {
        let start = current
        try expectWord("schema")
        let name = try parseIdentifier()
        if acceptWords("rename", "to") {
            return AlterSchema(name: name, action: .rename(try parseIdentifier()), location: start.location)
        }
        try expectWord("quota")
        if !acceptWord("unlimited") {
            _ = try parseInteger()
            _ = acceptWord("mb") || acceptWord("gb") || acceptWord("tb")
        }
        return AlterSchema(name: name, action: .quota, location: start.location)
    }

    /// After DROP: `SCHEMA [IF EXISTS] a, b [DROP EXTERNAL DATABASE] [CASCADE | RESTRICT]`.
    mutating func parseDropSchema(start: Token) throws -> DropSchema {
        try expectWord("schema")
        let ifExists = acceptWords("if", "exists")
        var names = [try parseIdentifier()]
        while acceptSymbol(",") { names.append(try parseIdentifier()) }
        let dropDatabase = acceptWords("drop", "external", "database")
        var cascade = false
        if acceptWord("cascade") { cascade = true } else { _ = acceptWord("restrict") }
        return DropSchema(names: names, ifExists: ifExists, cascade: cascade, dropExternalDatabase: dropDatabase,
                          location: start.location)
    }

    /// `ALTER TABLE|VIEW name RENAME TO new | RENAME [COLUMN] a TO b | SET SCHEMA s | OWNER TO u`,
    /// and for tables the actions of `parseAlterTableAction`.
    mutating func parseAlter() throws -> Statement {
        let start = advance()  // ALTER
        let isView: Bool
        var isMaterialized = false
        if acceptWord("table") {
            isView = false
        } else if acceptWords("materialized", "view") {
            isView = false
            isMaterialized = true
        } else if acceptWord("view") {
            isView = true
        } else {
            throw syntaxError(at: current)
        }
        let name = try parseObjectName()
        let action: AlterTable.Action
        if acceptWord("rename") {
            if acceptWord("to") {
                action = .rename(try parseIdentifier())
            } else {
                _ = acceptWord("column")
                let old = try parseIdentifier()
                try expectWord("to")
                action = .renameColumn(old, try parseIdentifier())
            }
        } else if acceptWords("set", "schema") {
            action = .setSchema(try parseIdentifier())
        } else if acceptWords("owner", "to") {
            action = .owner(try parseIdentifier())
        } else if isMaterialized {
            try expectWord("auto")
            try expectWord("refresh")
            if acceptWord("yes") {
                action = .autoRefresh(true)
            } else {
                try expectWord("no")
                action = .autoRefresh(false)
            }
        } else if !isView {
            var actions = [try parseAlterTableAction()]
            while acceptSymbol(",") { actions.append(try parseAlterTableAction()) }
            action = actions.count == 1 ? actions[0] : .several(actions)
        } else {
            throw syntaxError(at: current)
        }
        return .alterTable(AlterTable(name: name, isView: isView, isMaterializedView: isMaterialized, action: action,
                                      location: start.location))
    }

    /// One ALTER TABLE action other than RENAME, SET SCHEMA and OWNER TO (Redshift's list:
    /// ADD / DROP COLUMN, ADD / DROP CONSTRAINT, ALTER COLUMN TYPE / ENCODE, ALTER DISTKEY,
    /// ALTER DISTSTYLE, ALTER [COMPOUND] SORTKEY, ALTER ENCODE AUTO, APPEND FROM).
    mutating func parseAlterTableAction() throws -> AlterTable.Action {
        func cascade() -> Bool {
            if acceptWord("cascade") { return true }
            _ = acceptWord("restrict")
            return false
        }
        if let action = try parseExternalSetAction() { return action }
        if acceptWord("add") {
            if let action = try parseAddPartitions() { return action }
            if isWord("constraint") || isWord("primary") || isWord("unique") || isWord("foreign") {
                return .addConstraint(try parseTableConstraint())
            }
            _ = acceptWord("column")
            return .addColumn(try parseColumnDefinition())
        }
        if acceptWord("drop") {
            if acceptWord("partition") { return .dropPartition(PartitionSpec(values: try parsePartitionValues())) }
            if acceptWord("constraint") {
                let name = try parseIdentifier()
                return .dropConstraint(name, cascade: cascade())
            }
            _ = acceptWord("column")
            let column = try parseIdentifier()
            return .dropColumn(column, cascade: cascade())
        }
        if acceptWord("append") {
            try expectWord("from")
            let source = try parseObjectName()
            var ignoreExtra = false, fillTarget = false
            while true {
                if acceptWord("ignoreextra") { ignoreExtra = true } else if acceptWord("filltarget") { fillTarget = true } else { break }
            }
            return .appendFrom(source, ignoreExtra: ignoreExtra, fillTarget: fillTarget)
        }
        try expectWord("alter")
        if acceptWord("column") {
            let column = try parseIdentifier()
            if acceptWord("type") { return .alterColumnType(column, try parseDataType()) }
            if acceptWords("set", "data", "type") { return .alterColumnType(column, try parseDataType()) }
            try expectWord("encode")
            return .alterColumnEncode(column, try parseLabel().lowercased())
        }
        if acceptWord("distkey") { return .alterDistribution(.key, key: try parseIdentifier()) }
        if acceptWord("diststyle") {
            if acceptWord("all") { return .alterDistribution(.all, key: nil) }
            if acceptWord("even") { return .alterDistribution(.even, key: nil) }
            if acceptWord("auto") { return .alterDistribution(.auto, key: nil) }
            try expectWord("key")
            try expectWord("distkey")
            return .alterDistribution(.key, key: try parseIdentifier())
        }
        if acceptWords("encode", "auto") { return .encodeAuto }
        let compound = acceptWord("compound")
        if !compound, acceptWord("interleaved") {
            throw error("ALTER SORTKEY cannot make an INTERLEAVED sort key", at: current)
        }
        try expectWord("sortkey")
        if !compound {
            if acceptWord("auto") { return .alterSortKey(.auto) }
            if acceptWord("none") { return .alterSortKey(nil) }
        }
        return .alterSortKey(.compound(try parseParenthesizedIdentifiers()))
    }
}

extension Parser {
    /// `OPERATOR(pg_catalog.~)` (how psql writes operators in its catalog queries) as the
    /// operator itself. Tokens without the word `operator` come back unchanged.
    static func foldQualifiedOperators(_ tokens: [Token]) -> [Token] {
        guard tokens.contains(where: { $0.kind == .word("operator") }) else { return tokens }
        var out: [Token] = []
        out.reserveCapacity(tokens.count)
        var i = 0
        while i < tokens.count {
            let t = tokens[i]
            if t.kind == .word("operator"), i + 5 < tokens.count, tokens[i + 1].kind == .symbol("("),
               tokens[i + 2].kind == .word("pg_catalog"), tokens[i + 3].kind == .symbol("."),
               case .symbol = tokens[i + 4].kind, tokens[i + 5].kind == .symbol(")") {
                out.append(Token(kind: tokens[i + 4].kind, location: t.location, endOffset: tokens[i + 5].endOffset))
                i += 6
                continue
            }
            out.append(t)
            i += 1
        }
        return out
    }
}
