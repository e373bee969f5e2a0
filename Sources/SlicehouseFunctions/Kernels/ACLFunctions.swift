// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// PostgreSQL's `aclitem` as its text (`grantee=privileges/grantor`; `group g=...`,
/// `role r=...`; `=...` for PUBLIC; `*` after a privilege that may be granted on), the
/// form the catalog's aclitem[] columns (pg_class.relacl, pg_namespace.nspacl,
/// pg_proc.proacl, PG_DEFAULT_ACL.defaclacl, PG_ATTRIBUTE_INFO.attacl) hold in
/// Slicehouse. `aclcontains` and `makeaclitem` work on it.
public struct ACLItem: Equatable, Sendable {
    /// "" for a user (or PUBLIC), "group" or "role".
    public var kind: String
    /// The user, group or role; "" for PUBLIC.
    public var grantee: String
    public var privileges: Set<Character>
    public var grantOptions: Set<Character>
    /// "" when the item names none.
    public var grantor: String

    /// Redshift's privilege letters (PG_DEFAULT_ACL's page): INSERT, SELECT, UPDATE,
    /// DELETE, RULE, REFERENCES, TRIGGER, EXECUTE, USAGE, CREATE, TEMP, DROP, TRUNCATE,
    /// ALTER, in their bitmask order.
    public static let letters: [Character] = Array("arwdRxtXUCTDPA")

    /// The letter of each privilege name `makeaclitem` takes (PostgreSQL 8.0's
    /// `convert_priv_string`, with Redshift's DROP, TRUNCATE and ALTER).
    public static let privilegeNames: [String: Character] = [
        "insert": "a", "select": "r", "update": "w", "delete": "d", "rule": "R", "references": "x", "trigger": "t",
        "execute": "X", "usage": "U", "create": "C", "temp": "T", "temporary": "T", "drop": "D", "truncate": "P",
        "alter": "A",
    ]

    /// The item's text as PostgreSQL prints it.
    public var text: String {
        func id(_ name: String) -> String {
            let safe = !name.isEmpty && name.unicodeScalars.allSatisfy { c in
                c.isASCII ? (c.properties.isAlphabetic || (c.value >= 48 && c.value <= 57) || c == "_") : c.properties.isAlphabetic
            }
            if safe { return name }
            var out = "\""
            for c in name { if c == "\"" { out.append("\"") }; out.append(c) }
            return out + "\""
        }
        var out = kind.isEmpty ? "" : kind + " "
        if !grantee.isEmpty { out += id(grantee) }
        out += "="
        for c in Self.letters where privileges.contains(c) {
            out.append(c)
            if grantOptions.contains(c) { out.append("*") }
        }
        if !grantor.isEmpty { out += "/" + id(grantor) }
        return out
    }

    /// An aclitem[]'s text: `{item,item}`, an item with a blank, comma, quote, backslash or
    /// brace double-quoted (a backslash before a quote or backslash inside), as
    /// PostgreSQL's array output writes it (`{awsuser=arwdRxtDPA/awsuser,"group g=r/awsuser"}`).
    public static func arrayText(_ items: [String]) -> String {
        let special: Set<Character> = [" ", ",", "\"", "\\", "{", "}"]
        let quoted = items.map { item -> String in
            guard item.contains(where: { special.contains($0) }) else { return item }
            var out = "\""
            for c in item {
                if c == "\"" || c == "\\" { out.append("\\") }
                out.append(c)
            }
            return out + "\""
        }
        return "{" + quoted.joined(separator: ",") + "}"
    }

    /// Reads an item's text; nil when it is not one.
    public static func parse(_ text: String) -> ACLItem? {
        let cs = Array(text)
        var i = 0
        func skipBlanks() { while i < cs.count, cs[i] == " " || cs[i] == "\t" { i += 1 } }
        /// A name: double-quoted (a doubled quote inside is one), or up to `=`, `/` or a blank.
        func name() -> (String, quoted: Bool)? {
            skipBlanks()
            if i < cs.count, cs[i] == "\"" {
                i += 1
                var out = ""
                while i < cs.count {
                    if cs[i] == "\"" {
                        if i + 1 < cs.count, cs[i + 1] == "\"" { out.append("\""); i += 2; continue }
                        i += 1
                        return (out, true)
                    }
                    out.append(cs[i])
                    i += 1
                }
                return nil
            }
            var out = ""
            while i < cs.count, cs[i] != "=", cs[i] != "/", cs[i] != " ", cs[i] != "\t", cs[i] != "\"" {
                out.append(cs[i])
                i += 1
            }
            return (out, false)
        }
        skipBlanks()
        guard let (first, firstQuoted) = name() else { return nil }
        var kind = "", grantee = first
        skipBlanks()
        if !firstQuoted, ["group", "role", "user"].contains(first.lowercased()), i < cs.count, cs[i] != "=" {
            guard let (second, _) = name(), !second.isEmpty else { return nil }
            kind = first.lowercased() == "user" ? "" : first.lowercased()
            grantee = second
            skipBlanks()
        }
        guard i < cs.count, cs[i] == "=" else { return nil }
        i += 1
        var privileges = Set<Character>(), options = Set<Character>()
        var last: Character? = nil
        while i < cs.count, cs[i] != "/", cs[i] != " " {
            let c = cs[i]
            if c == "*" {
                guard let l = last else { return nil }
                options.insert(l)
            } else {
                guard letters.contains(c) else { return nil }
                privileges.insert(c)
                last = c
            }
            i += 1
        }
        skipBlanks()
        var grantor = ""
        if i < cs.count, cs[i] == "/" {
            i += 1
            guard let (g, _) = name(), !g.isEmpty else { return nil }
            grantor = g
        }
        skipBlanks()
        guard i == cs.count else { return nil }
        return ACLItem(kind: kind, grantee: grantee, privileges: privileges, grantOptions: options, grantor: grantor)
    }

    /// The items of an aclitem[]'s text (`{a=r/b,"group g=r/b"}`); nil when it is not one.
    public static func parseArray(_ text: String) -> [ACLItem]? {
        var elements: [String] = []
        var wellFormed = true
        let bytes = Array(text.utf8)
        let body = String(decoding: bytes, as: UTF8.self).aclTrimmed
        guard body.hasPrefix("{"), body.hasSuffix("}") else { return nil }
        bytes.withUnsafeBufferPointer { p in
            StringKernels.forEachArrayElement(p) { e, isNull in
                if isNull { wellFormed = false; return }
                elements.append(String(decoding: e, as: UTF8.self))
            }
        }
        guard wellFormed else { return nil }
        var out: [ACLItem] = []
        for e in elements {
            guard let item = parse(e) else { return nil }
            out.append(item)
        }
        return out
    }

    /// Whether `self` (an aclcontains needle) is in `item`: the same grantee (and kind)
    /// and grantor, and every privilege and grant option of `self` held (PostgreSQL 8.0's
    /// `aclcontains`).
    func isContained(in item: ACLItem) -> Bool {
        kind == item.kind && grantee == item.grantee && grantor == item.grantor
            && privileges.isSubset(of: item.privileges) && grantOptions.isSubset(of: item.grantOptions)
    }
}

private extension String {
    var aclTrimmed: String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" || f == "\n" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\n" { s = s.dropLast() }
        return String(s)
    }
}

enum ACLKernels {
    private static func string(_ v: Vector, _ i: Int) -> String? {
        if case .string(let s) = v.value(at: v.isConstant ? 0 : i) { return s }
        return nil
    }

    private static func int(_ v: Vector, _ i: Int) -> Int64? {
        v.value(at: v.isConstant ? 0 : i).asInt64
    }

    /// ACLCONTAINS(acl, item) → BOOLEAN: whether an item of `acl` holds `item`'s grantee,
    /// grantor and privileges. NULL for a NULL argument.
    static func aclContains(_ a: [Vector], resultType: DataType, n: Int) throws -> Vector {
        var out = Vector(type: .boolean, capacity: n)
        var parsed: [String: [ACLItem]] = [:]
        for i in 0..<n {
            guard let acl = string(a[0], i), let needleText = string(a[1], i) else { out.append(.null); continue }
            guard let needle = ACLItem.parse(needleText) else {
                throw SQLError(.invalidText, "invalid input syntax for type aclitem: \"\(needleText)\"")
            }
            let items: [ACLItem]
            if let known = parsed[acl] {
                items = known
            } else {
                guard let read = ACLItem.parseArray(acl) else {
                    throw SQLError(.invalidText, "invalid input syntax for type aclitem[]: \"\(acl)\"")
                }
                parsed[acl] = read
                items = read
            }
            out.append(.bool(items.contains { needle.isContained(in: $0) }))
        }
        return out
    }

    /// ?makeaclitem?(user id, group id, grantor id, privileges, grant option, user name,
    /// group name, grantor name) → the aclitem's text (PostgreSQL 8.0's `makeaclitem`:
    /// a user, or a group, or PUBLIC when both ids are 0). The names are the ids' (the
    /// binder looks them up). NULL when one of the first five is NULL.
    static func makeACLItem(_ a: [Vector], resultType: DataType, n: Int) throws -> Vector {
        var out = Vector(type: resultType, capacity: n)
        for i in 0..<n {
            guard let user = int(a[0], i), let group = int(a[1], i), int(a[2], i) != nil, let privText = string(a[3], i),
                  case .bool(let option) = a[4].value(at: a[4].isConstant ? 0 : i) else {
                out.append(.null)
                continue
            }
            var item = ACLItem(kind: "", grantee: "", privileges: [], grantOptions: [], grantor: string(a[7], i) ?? "")
            if user != 0 && group != 0 {
                throw SQLError(.invalidParameter, "cannot specify both user and group")
            } else if user != 0 {
                item.grantee = string(a[5], i) ?? String(user)
            } else if group != 0 {
                item.kind = "group"
                item.grantee = string(a[6], i) ?? String(group)
            }
            for part in privText.split(separator: ",") {
                let word = part.trimmedOf(" \t").lowercased()
                guard let letter = ACLItem.privilegeNames[word] else {
                    throw SQLError(.invalidParameter, "unrecognized privilege type: \"\(part.trimmedOf(" \t"))\"")
                }
                item.privileges.insert(letter)
                if option { item.grantOptions.insert(letter) }
            }
            out.append(.string(item.text))
        }
        return out
    }
}

private extension Substring {
    func trimmedOf(_ blanks: String) -> String {
        var s = self
        while let f = s.first, blanks.contains(f) { s = s.dropFirst() }
        while let l = s.last, blanks.contains(l) { s = s.dropLast() }
        return String(s)
    }
}
