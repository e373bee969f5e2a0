// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehousePlan

/// REGEXP_SUBSTR, REGEXP_REPLACE, REGEXP_COUNT, REGEXP_INSTR and SIMILAR TO.
///
/// Patterns run on Foundation's NSRegularExpression (ICU syntax). Redshift documents
/// POSIX extended regular expressions; the differences that matter in practice:
/// - alternation is leftmost-first (Perl/ICU), not POSIX leftmost-longest, so
///   `regexp_substr('abcd', 'a|ab')` gives `a` here and `ab` in POSIX;
/// - ICU additionally accepts Perl syntax (`\d`, `\w`, lazy quantifiers, look-around),
///   which Redshift accepts only with the `p` parameter; here it is always on;
/// - POSIX bracket classes (`[[:alpha:]]`) work; collating elements (`[[.a.]]`) do not.
/// Parameters: `c` case-sensitive (default), `i` case-insensitive, `e` return / locate the
/// first parenthesised subexpression, `p` accepted (no effect). Positions are characters
/// (Unicode scalars), 1-based. A constant pattern is compiled once per call; per-row
/// patterns are cached by text.
package enum RegexFunctions {

    package struct Compiled {
        let regex: NSRegularExpression
        let extract: Bool
    }

    /// Compiles patterns, remembering the last few by (pattern, parameters).
    package struct Cache {
        var entries: [String: Compiled] = [:]
        mutating func get(_ pattern: String, _ params: String, anchoredSQL: Bool = false, escape: String? = nil) throws -> Compiled {
            let key = pattern + "\u{0}" + params + "\u{0}" + (escape ?? "")
            if let c = entries[key] { return c }
            var options: NSRegularExpression.Options = []
            var extract = false
            for ch in params {
                switch ch {
                case "c": options.remove(.caseInsensitive)
                case "i": options.insert(.caseInsensitive)
                case "e": extract = true
                case "p": break
                default:
                    throw SQLError(.invalidParameter, "invalid regular expression parameter: \"\(ch)\"")
                }
            }
            let source = anchoredSQL ? try RegexFunctions.similarToRegex(pattern, escape: escape) : pattern
            let regex: NSRegularExpression
            do {
                regex = try NSRegularExpression(pattern: source, options: options)
            } catch {
                throw SQLError(.invalidParameter, "invalid regular expression: \"\(pattern)\"")
            }
            let c = Compiled(regex: regex, extract: extract)
            if entries.count > 64 { entries.removeAll(keepingCapacity: true) }
            entries[key] = c
            return c
        }
    }

    /// SQL SIMILAR TO pattern → an anchored ICU regular expression: `%` → `.*`, `_` → `.`,
    /// `. ^ $ \` and other characters outside the SQL regex syntax are literal; `| * + ?
    /// {m,n} ( ) [...]` keep their meaning.
    package static func similarToRegex(_ p: String, escape: String?) throws -> String {
        let esc: Character? = escape == nil ? "\\" : escape?.first
        if let escape, escape.count > 1 {
            throw SQLError(.invalidParameter, "invalid escape string: \"\(escape)\"")
        }
        var out = "^(?:"
        var inBracket = false
        var chars = Array(p)
        var k = 0
        while k < chars.count {
            let c = chars[k]
            if let esc, c == esc, k + 1 < chars.count {
                out += NSRegularExpression.escapedPattern(for: String(chars[k + 1]))
                k += 2
                continue
            }
            if inBracket {
                if c == "]" { inBracket = false }
                if c == "\\" { out += "\\\\" } else { out.append(c) }
                k += 1
                continue
            }
            switch c {
            case "%": out += ".*"
            case "_": out += "."
            case "[":
                inBracket = true; out.append(c)
                if k + 1 < chars.count, chars[k + 1] == "^" { out.append("^"); k += 1 }
                if k + 1 < chars.count, chars[k + 1] == "]" { out += "\\]"; k += 1 }
            case "|", "*", "+", "?", "{", "}", "(", ")": out.append(c)
            default: out += NSRegularExpression.escapedPattern(for: String(c))
            }
            k += 1
        }
        chars.removeAll()
        return out + ")$"
    }

    /// Redshift replacement text (`\1` back-references) → an NSRegularExpression template.
    package static func template(_ r: String) -> String {
        var out = ""
        var it = Array(r)
        var k = 0
        while k < it.count {
            let c = it[k]
            if c == "\\", k + 1 < it.count {
                let d = it[k + 1]
                if d.isASCII, d.isNumber { out += "$" + String(d) } else { out += "\\" + String(d) }
                k += 2
                continue
            }
            if c == "$" { out += "\\$" } else if c == "\\" { out += "\\\\" } else { out.append(c) }
            k += 1
        }
        it.removeAll()
        return out
    }

    /// UTF-16 offset of character (scalar) index `chars` in `s` (clamped to the end).
    package static func utf16Offset(ofChar chars: Int, in s: String) -> Int {
        var off = 0, c = 0
        for u in s.unicodeScalars {
            if c >= chars { break }
            off += u.utf16.count; c += 1
        }
        return off
    }

    /// Character (scalar) count of the first `utf16` UTF-16 units of `s`.
    package static func charCount(utf16 target: Int, in s: String) -> Int {
        var off = 0, c = 0
        for u in s.unicodeScalars {
            if off >= target { break }
            off += u.utf16.count; c += 1
        }
        return c
    }

    /// The functions of `evaluate` (the declarations in Builtins/Regex.swift choose one).
    package enum Op: String, Sendable { case regexpSubstr, regexpReplace, regexpCount, regexpInstr, similarTo }

    package static func evaluate(_ fn: Op, _ args: [Vector], resultType: DataType, n: Int) throws -> Vector {
        guard args.count >= 2 else { throw SQLError.internalError("\(fn.rawValue) called with \(args.count) arguments") }
        let s = try StringKernels.input(args[0])
        let pat = try StringKernels.input(args[1])
        var cache = Cache()
        func text(_ v: StringInput, _ i: Int) -> String { StringKernels.with(v, i) { String(decoding: $0, as: UTF8.self) } }
        func int(_ k: Int) throws -> IntInput? { k < args.count ? try StringKernels.intInput(args[k]) : nil }
        func str(_ k: Int) throws -> StringInput? { k < args.count ? try StringKernels.input(args[k]) : nil }
        func positionArg(_ v: IntInput?, _ i: Int, _ what: String) throws -> Int {
            guard let v else { return 1 }
            let p = v[i]
            guard p >= 1 && p <= Int64(Int32.max) else {
                throw SQLError(.invalidParameter, "\(what) must be greater than zero")
            }
            return Int(p)
        }
        // The compiled pattern of row i: a constant pattern (and parameters) is compiled once.
        var fixed: Compiled? = nil
        func compiled(_ i: Int, _ params: StringInput?) throws -> Compiled {
            if let fixed { return fixed }
            let c = try cache.get(text(pat, i), params.map { text($0, i) } ?? "")
            if pat.constant && (params?.constant ?? true) { fixed = c }
            return c
        }
        switch fn {
        case .regexpCount:
            let pos = try int(2), params = try str(3)
            return try StringKernels.mapRowsInt(args, n: n, resultType: resultType) { i in
                let c = try compiled(i, params)
                let str = text(s, i)
                let ns = NSString(string: str)
                let start = utf16Offset(ofChar: try positionArg(pos, i, "position") - 1, in: str)
                if start > ns.length { return 0 }
                return Int64(c.regex.numberOfMatches(in: str, options: [], range: NSRange(location: start, length: ns.length - start)))
            }
        case .regexpSubstr, .regexpInstr:
            let pos = try int(2), occ = try int(3)
            let option: IntInput? = fn == .regexpInstr ? try int(4) : nil
            let params = try str(fn == .regexpInstr ? 5 : 4)
            // The match range (UTF-16) of row i, or nil.
            func find(_ i: Int) throws -> (NSRange, String)? {
                let c = try compiled(i, params)
                let str = text(s, i)
                let length = (str as NSString).length
                let start = utf16Offset(ofChar: try positionArg(pos, i, "position") - 1, in: str)
                let want = try positionArg(occ, i, "occurrence")
                if start > length { return nil }
                var seen = 0
                var found: NSRange? = nil
                c.regex.enumerateMatches(in: str, options: [], range: NSRange(location: start, length: length - start)) { m, _, stop in
                    guard let m else { return }
                    seen += 1
                    if seen == want {
                        if c.extract && m.numberOfRanges > 1 { found = m.range(at: 1) } else { found = m.range }
                        stop.pointee = true
                    }
                }
                guard let found, found.location != NSNotFound else { return nil }
                return (found, str)
            }
            if fn == .regexpSubstr {
                return try StringKernels.mapRows(args, n: n, resultType: resultType) { i, out in
                    guard let (r, str) = try find(i) else { return }
                    out.append(contentsOf: NSString(string: str).substring(with: r).utf8)
                }
            }
            return try StringKernels.mapRowsInt(args, n: n, resultType: resultType) { i in
                let after = option.map { $0[i] } ?? 0
                guard after == 0 || after == 1 else {
                    throw SQLError(.invalidParameter, "regexp_instr option must be 0 or 1")
                }
                guard let (r, str) = try find(i) else { return 0 }
                return Int64(charCount(utf16: after == 1 ? r.location + r.length : r.location, in: str) + 1)
            }
        case .regexpReplace:
            let repl = try str(2), pos = try int(3), params = try str(4)
            return try StringKernels.mapRows(args, n: n, resultType: resultType) { i, out in
                let c = try compiled(i, params)
                let str = text(s, i)
                let length = (str as NSString).length
                let start = utf16Offset(ofChar: try positionArg(pos, i, "position") - 1, in: str)
                guard start <= length else { out.append(contentsOf: str.utf8); return }
                let tpl = template(repl.map { text($0, i) } ?? "")
                let replaced = c.regex.stringByReplacingMatches(in: str, options: [], range: NSRange(location: start, length: length - start),
                                                                withTemplate: tpl)
                out.append(contentsOf: replaced.utf8)
            }
        case .similarTo:
            let escape = try str(2)
            let constant = args.allSatisfy { $0.isConstant }
            if args.contains(where: Kern.isConstNull) { return Kern.constNull(resultType) }
            let len = constant ? 1 : n
            let validity = constant ? nil : Kern.combinedValidity(args)
            var out = [Bool](filled: false, count: len)
            for i in 0..<len where Kern.valid(validity, i) {
                let c: Compiled
                if let fixed { c = fixed } else {
                    c = try cache.get(text(pat, i), "", anchoredSQL: true, escape: escape.map { text($0, i) })
                    if pat.constant && (escape?.constant ?? true) { fixed = c }
                }
                let str = text(s, i)
                let ns = NSString(string: str)
                out[i] = c.regex.firstMatch(in: str, options: [], range: NSRange(location: 0, length: ns.length)) != nil
            }
            return Kern.boolResult(out, validity: validity, constant: constant)
        }
    }
}
