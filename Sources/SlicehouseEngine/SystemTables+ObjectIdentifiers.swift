// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehouseSQL
import SlicehouseCatalog
import SlicehouseFunctions

/// PostgreSQL's object identifier types REGCLASS, REGPROC and REGPROCEDURE, which the
/// binder answers as functions (`Binder.bindCatalogFunction`): the oid a name stands for
/// (`'pg_class'::regclass`, `'f(integer)'::regprocedure`) and the text an oid prints as
/// (`oid::regprocedure` → `f(integer,character varying)`), with the oids pg_class and
/// pg_proc show.
extension SystemTables {
    /// pg_proc's functions with their oids: the built-ins (5000 + their position; their
    /// argument types are not kept: nil), then the SQL functions and stored procedures
    /// (900000 + their position).
    func procedureOIDs() -> [(oid: Int64, name: String, schema: String, arguments: [DataType]?)] {
        var out = FunctionRegistry.knownNames.enumerated().map { i, f in
            (oid: Int64(5000 + i), name: f, schema: "pg_catalog", arguments: [DataType]?.none)
        }
        let functions = transaction.catalog.functions.values.sorted { $0.key < $1.key }
        for (i, f) in functions.enumerated() {
            var types: [DataType]? = []
            for t in f.parameterTypes {
                guard let parsed = try? session?.parseTypeName(t) else { types = nil; break }
                types?.append(parsed)
            }
            out.append((oid: Int64(900_000 + i), name: f.name, schema: f.schema, arguments: types))
        }
        return out
    }

    /// `name` as PostgreSQL prints an identifier: in double quotes unless it is a plain
    /// lower-case name.
    static func quotedIdentifier(_ name: String) -> String {
        let plain = name.utf8.first.map { ($0 >= 97 && $0 <= 122) || $0 == 95 } ?? false
            && name.utf8.allSatisfy { ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 95 || $0 == 36 }
        return plain ? name : "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// The name as the reg types print it: schema-qualified when its schema is not on the
    /// session's search_path (nor pg_catalog).
    private func printedName(_ name: String, schema: String) -> String {
        let path = session.map { $0.searchPathSchemas(transaction.catalog) + [$0.temporarySchema] } ?? [Catalog.publicSchema]
        let bare = Self.quotedIdentifier(name)
        return schema == "pg_catalog" || path.contains(schema) ? bare : Self.quotedIdentifier(schema) + "." + bare
    }

    /// Every object's oid and printed text for `kind` (regclass, regproc, regprocedure).
    func objectNames(_ kind: String) -> [(oid: Int64, name: String)] {
        switch kind {
        case "regclass":
            let own = session?.temporarySchema
            var out = transaction.catalog.allTables.filter { !$0.isTemporary || $0.schema == own }.map {
                (oid: Int64($0.id), name: printedName($0.name, schema: $0.schema))
            }
            out += transaction.catalog.allViews.enumerated().map {
                (oid: Int64(Self.viewOIDBase + $0.offset), name: printedName($0.element.name, schema: $0.element.schema))
            }
            return out
        case "regproc":
            return procedureOIDs().map { (oid: $0.oid, name: printedName($0.name, schema: $0.schema)) }
        default:
            // regprocedure: the name and its argument types (format_type's names, without
            // modifiers); a built-in's argument types are not kept, its name alone.
            return procedureOIDs().map { p in
                let name = printedName(p.name, schema: p.schema)
                guard let args = p.arguments else { return (oid: p.oid, name: name) }
                return (oid: p.oid, name: name + "(" + args.map(Self.dataTypeName).joined(separator: ",") + ")")
            }
        }
    }

    /// The oid `text` names as a `kind` value, or the error PostgreSQL gives.
    func objectOID(_ kind: String, _ text: String) throws -> Int64 {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let oid = Int64(trimmed) { return oid }   // an oid's digits stand for themselves
        let caseSensitive = session?.parseOptions.caseSensitiveIdentifiers ?? false
        switch kind {
        case "regclass":
            let parts = Self.identifierParts(trimmed, caseSensitive: caseSensitive)
            guard !parts.isEmpty, parts.count <= 2, let session else {
                throw SQLError(.invalidText, "invalid name syntax: \"\(text)\"")
            }
            let name = parts.count == 2 ? ObjectName(schema: parts[0], name: parts[1]) : ObjectName(name: parts[0])
            switch try session.lookup(name, in: transaction.catalog) {
            case .table(let t): return Int64(t.id)
            case .view(let v):
                if let i = transaction.catalog.allViews.firstIndex(where: { $0.qualifiedName == v.qualifiedName }) {
                    return Int64(Self.viewOIDBase + i)
                }
            case .system(let n):
                if let (def, _) = table(named: n) { return Int64(def.id) }
            case nil:
                break
            }
            throw SQLError(.undefinedTable, "relation \"\(text)\" does not exist")
        case "regproc":
            let parts = Self.identifierParts(trimmed, caseSensitive: caseSensitive)
            let matches = procedureOIDs().filter { p in
                p.name == parts.last && (parts.count == 1 || p.schema == parts.first)
            }
            guard !parts.isEmpty, parts.count <= 2, let first = matches.first else {
                throw SQLError(.undefinedFunction, "function \"\(text)\" does not exist")
            }
            guard matches.count == 1 else { throw SQLError(.ambiguousFunction, "more than one function named \"\(text)\"") }
            return first.oid
        default:
            // regprocedure: `name(type, ...)`.
            guard let open = trimmed.firstIndex(of: "("), trimmed.hasSuffix(")") else {
                throw SQLError(.invalidText, "expected a left parenthesis: \"\(text)\"")
            }
            let parts = Self.identifierParts(String(trimmed[..<open]).trimmingCharacters(in: .whitespaces), caseSensitive: caseSensitive)
            let inside = trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)]
            var types: [DataType] = []
            for t in Self.splitArguments(String(inside)) {
                guard let session, let parsed = try? session.parseTypeName(t) else {
                    throw SQLError(.undefinedObject, "type \"\(t)\" does not exist")
                }
                types.append(parsed)
            }
            let match = procedureOIDs().first { p in
                p.name == parts.last && (parts.count == 1 || p.schema == parts.first)
                    && (p.arguments.map { $0.map(Self.dataTypeName) == types.map(Self.dataTypeName) } ?? true)
            }
            guard parts.count >= 1, parts.count <= 2, let match else {
                throw SQLError(.undefinedFunction, "function \"\(text)\" does not exist")
            }
            return match.oid
        }
    }

    /// `a.b` / `"A".b` as its parts, read as the parser reads names: unquoted parts in
    /// lower case, quoted ones as written while enable_case_sensitive_identifier is on
    /// (`caseSensitive`) and in lower case otherwise.
    static func identifierParts(_ s: String, caseSensitive: Bool) -> [String] {
        var parts: [String] = []
        var current = ""
        var quoted = false, wasQuoted = false
        var chars = Array(s)[...]
        while let c = chars.popFirst() {
            if quoted {
                if c == "\"" {
                    if chars.first == "\"" { current.append("\""); chars.removeFirst() } else { quoted = false }
                } else {
                    current.append(c)
                }
            } else if c == "\"" {
                quoted = true; wasQuoted = true
            } else if c == "." {
                parts.append(wasQuoted && caseSensitive ? current : current.lowercased()); current = ""; wasQuoted = false
            } else {
                current.append(c)
            }
        }
        if !current.isEmpty || wasQuoted { parts.append(wasQuoted && caseSensitive ? current : current.lowercased()) }
        return parts.map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// The type names between a regprocedure's parentheses (commas inside a type's own
    /// parentheses, as in `numeric(10,2)`, do not split).
    static func splitArguments(_ s: String) -> [String] {
        var out: [String] = []
        var depth = 0
        var current = ""
        for c in s {
            if c == "(" { depth += 1 } else if c == ")" { depth -= 1 }
            if c == "," && depth == 0 { out.append(current); current = ""; continue }
            current.append(c)
        }
        out.append(current)
        let trimmed = out.map { $0.trimmingCharacters(in: .whitespaces) }
        return trimmed == [""] ? [] : trimmed
    }
}
