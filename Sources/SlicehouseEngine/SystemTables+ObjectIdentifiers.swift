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

    /// The types REGTYPE knows: pg_type's, then PostgreSQL's pseudo-types a catalog query
    /// may name (`'pg_catalog.trigger'::regtype` in psql's `\\df`), each with the name
    /// REGTYPE prints (format_type's).
    static let regtypeNames: [(oid: Int64, typname: String, printed: String)] = {
        let printed: [String: String] = [
            "bool": "boolean", "char": "\"char\"", "int8": "bigint", "int2": "smallint", "int4": "integer",
            "float4": "real", "float8": "double precision", "bpchar": "character", "varchar": "character varying",
            "time": "time without time zone", "timestamp": "timestamp without time zone",
            "timestamptz": "timestamp with time zone",
            "_int2": "smallint[]", "_int4": "integer[]", "_int8": "bigint[]",
        ]
        let pseudo: [(Int64, String)] = [(2249, "record"), (2275, "cstring"), (2276, "any"), (2277, "anyarray"),
                                          (2278, "void"), (2279, "trigger"), (2280, "language_handler"),
                                          (2281, "internal"), (2283, "anyelement")]
        return pgTypes.map { (oid: $0.0, typname: $0.1, printed: printed[$0.1] ?? $0.1) }
            + pseudo.map { (oid: $0.0, typname: $0.1, printed: $0.1) }
    }()

    /// For the catalog functions of one oid (`Binder.bindCatalogFunction`): every object's
    /// value of `function` — pg_get_function_result / _arguments /
    /// _identity_arguments (a SQL function's or procedure's types as PostgreSQL prints
    /// them), pg_table_size / pg_relation_size / pg_total_relation_size (a table's
    /// encoded bytes: Redshift keeps no heap, index or TOAST). An oid not listed is NULL.
    func catalogValues(_ function: String) -> [(oid: Int64, value: Value)] {
        switch function {
        case "pg_get_function_result", "pg_get_function_arguments", "pg_get_function_identity_arguments":
            let functions = transaction.catalog.functions.values.sorted { $0.key < $1.key }
            return functions.enumerated().map { i, f in
                let oid = Int64(900_000 + i)
                func typeName(_ t: String) -> String {
                    (try? session?.parseTypeName(t)).flatMap { $0 }.map(Self.dataTypeName) ?? t
                }
                if function == "pg_get_function_result" {
                    return (oid, f.procedure == nil ? .string(typeName(f.returnType)) : .null)
                }
                let arguments: [String]
                if let p = f.procedure {
                    arguments = p.arguments.compactMap { a in
                        let mode = a.mode.uppercased()
                        if function == "pg_get_function_identity_arguments" && mode == "OUT" { return nil }
                        let prefix = mode == "IN" || mode.isEmpty ? "" : mode + " "
                        return prefix + (a.name.isEmpty ? "" : a.name + " ") + typeName(a.type)
                    }
                } else {
                    arguments = f.parameterTypes.map(typeName)
                }
                return (oid, .string(arguments.joined(separator: ", ")))
            }
        case "pg_function_is_visible":
            // Whether a bare name finds the function: the built-ins always (pg_catalog is
            // searched first), a SQL function or procedure when its schema is the first on
            // the search_path that has one of its name.
            let path = session.map { $0.searchPathSchemas(transaction.catalog) } ?? [Catalog.publicSchema]
            let procedures = procedureOIDs()
            return procedures.map { p in
                if p.schema == "pg_catalog" { return (p.oid, .bool(true)) }
                let first = path.first { s in procedures.contains { $0.schema == s && $0.name == p.name } }
                return (p.oid, .bool(first == p.schema))
            }
        case "pg_get_indexdef":
            // A key's index as PostgreSQL prints its CREATE statement.
            return constraintIndexes(constraints()).map { i in
                let t = i.constraint.table
                let columns = i.constraint.columns.filter { $0 < t.columns.count }.map { Self.quotedIdentifier(t.columns[$0].name) }
                return (i.oid, .string("CREATE UNIQUE INDEX \(Self.quotedIdentifier(i.constraint.name)) ON "
                                       + "\(Self.quotedIdentifier(t.schema)).\(Self.quotedIdentifier(t.name)) USING btree ("
                                       + columns.joined(separator: ", ") + ")"))
            }
        case "pg_get_ruledef":
            // A view's `_RETURN` rule as PostgreSQL prints it.
            let names = Dictionary(objectNames("regclass").map { ($0.oid, $0.name) }, uniquingKeysWith: { a, _ in a })
            return rules(bindingReads: false).map { r in
                let text = r.queryText.hasSuffix(";") ? String(r.queryText.dropLast()) : r.queryText
                return (r.oid, .string("CREATE RULE \"_RETURN\" AS\n    ON SELECT TO \(names[r.relation] ?? String(r.relation)) DO INSTEAD  \(text);"))
            }
        case "pg_table_size", "pg_relation_size", "pg_total_relation_size":
            return visibleTables.map { t in
                let bytes = transaction.peek(t.id)?.encodedBytes ?? 0
                return (Int64(t.id), .int(Int64(bytes)))
            }
        default:
            return []
        }
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

    /// PostgreSQL's own oids of its catalog tables, which `'pg_constraint'::regclass`
    /// gives (pg_depend's classid and refclassid hold them: pgjdbc's getImportedKeys
    /// compares them so). Other system relations answer their negative table ids.
    static let catalogRelationOIDs: [String: Int64] = [
        "pg_type": 1247, "pg_attribute": 1249, "pg_proc": 1255, "pg_class": 1259, "pg_database": 1262,
        "pg_am": 2601, "pg_attrdef": 2604, "pg_constraint": 2606, "pg_depend": 2608, "pg_description": 2609,
        "pg_index": 2610, "pg_inherits": 2611, "pg_language": 2612, "pg_namespace": 2615, "pg_rewrite": 2618,
        "pg_trigger": 2620, "pg_collation": 3456,
    ]

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
            out += Self.catalogRelationOIDs.sorted { $0.value < $1.value }.map { (oid: $0.value, name: $0.key) }
            return out
        case "regproc":
            return procedureOIDs().map { (oid: $0.oid, name: printedName($0.name, schema: $0.schema)) }
        case "regtype":
            return Self.regtypeNames.map { (oid: $0.oid, name: $0.printed) }
        case "regnamespace":
            return transaction.catalog.allSchemas.map { (oid: Self.schemaOID($0.name), name: Self.quotedIdentifier($0.name)) }
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
                if let oid = Self.catalogRelationOIDs[n.lowercased()] { return oid }
                if let (def, _) = table(named: n) { return Int64(def.id) }
            case nil:
                break
            }
            throw SQLError(.undefinedTable, "relation \"\(text)\" does not exist")
        case "regtype":
            // A type's name as pg_type has it (`int4`) or as SQL writes it (`integer`,
            // `character varying`), optionally in pg_catalog.
            var name = trimmed.lowercased()
            if name.hasPrefix("pg_catalog.") { name.removeFirst("pg_catalog.".count) }
            if let t = Self.regtypeNames.first(where: { $0.typname == name || $0.printed == name }) { return t.oid }
            if let session, let parsed = try? session.parseTypeName(name) { return Self.typeOID(parsed) }
            throw SQLError(.undefinedObject, "type \"\(text)\" does not exist")
        case "regnamespace":
            let parts = Self.identifierParts(trimmed, caseSensitive: caseSensitive)
            guard parts.count == 1, let name = parts.first, transaction.catalog.schema(name) != nil || name == "pg_catalog" else {
                throw SQLError(.invalidSchemaName, "schema \"\(text)\" does not exist")
            }
            return Self.schemaOID(name)
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
